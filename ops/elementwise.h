// Shared machinery for element-wise operators: broadcasting iteration over strided views, the
// named accumulators, and per-element latitude.
#pragma once

#include <array>
#include <cmath>
#include <string>
#include <type_traits>

#include "numerics/cast.h"
#include "ops/limits.h"
#include "ref/graph/graph.h"

namespace nnref {

// The accumulator of an element-wise kernel: double for float storage types (every float32 and
// float16 value is exact in double), the storage type itself for integers (exact, with overflow
// detected by the kernel).
template <typename T>
using ElementAcc = std::conditional_t<kIsFloatStorage<T>, double, T>;

template <typename T>
inline ElementAcc<T> Widen(T v) {
  if constexpr (kIsFloatStorage<T>) {
    return ToDouble(v);
  } else {
    return v;
  }
}

// Rounds an accumulator once to the storage type.
template <typename T>
inline T Narrow(ElementAcc<T> v) {
  if constexpr (kIsFloatStorage<T>) {
    return RoundTo<T>(v);
  } else {
    return v;
  }
}

// out[i] = fn(in_0[i], ..., in_{N-1}[i], latitude&) over the broadcast of the inputs to
// out_desc.shape. `fn` receives the inputs' storage values and returns the output storage value;
// it may set the element's Latitude. Input latitude is carried over element-wise (the widest code
// wins). Types: TOut the output storage type, TIn the (common) input storage type of inputs
// 0..N-1 except those listed as uint8 conditions by the caller (see MapWhere).
template <typename TOut, typename... TIns, size_t N = sizeof...(TIns), typename Fn>
OperandValue MapElements(const OperandDescriptor& out_desc,
                         const std::array<const OperandValue*, N>& ins, Fn&& fn) {
  OperandValue out;
  out.data = Tensor::Allocate(out_desc.dataType, out_desc.shape);
  Tensor lat = NewLatitude(out_desc.shape);
  std::array<Tensor, N> views;
  for (size_t k = 0; k < N; ++k) views[k] = ins[k]->data.BroadcastTo(out_desc.shape);
  const Strides dense = ContiguousStrides(out_desc.shape);
  std::array<const Strides*, N + 1> strides;
  strides[0] = &dense;
  for (size_t k = 0; k < N; ++k) strides[k + 1] = &views[k].strides();
  TOut* o = out.data.base<TOut>();
  uint8_t* l = lat.base<uint8_t>();
  const auto bases = [&]<size_t... I>(std::index_sequence<I...>) {
    return std::tuple<const TIns*...>(views[I].template base<TIns>()...);
  }
  (std::make_index_sequence<N>{});
  bool any = false;
  ForEachOffsets<N + 1>(out_desc.shape, strides, [&](const std::array<int64_t, N + 1>& off) {
    Latitude la = Latitude::kExact;
    o[off[0]] = [&]<size_t... I>(std::index_sequence<I...>) {
      return fn(std::get<I>(bases)[off[I + 1]]..., la);
    }
    (std::make_index_sequence<N>{});
    if (la != Latitude::kExact) {
      l[off[0]] = static_cast<uint8_t>(la);
      any = true;
    }
  });
  // Carry input latitude element-wise.
  for (size_t k = 0; k < N; ++k) {
    if (!ins[k]->latitude.valid()) continue;
    const Tensor in_lat = ins[k]->latitude.BroadcastTo(out_desc.shape);
    const uint8_t* src = in_lat.base<uint8_t>();
    ForEachOffsets<2>(out_desc.shape, {&dense, &in_lat.strides()},
                      [&](const std::array<int64_t, 2>& off) {
                        const uint8_t v = src[off[1]];
                        if (v == 0) return;
                        // kAny dominates kValueOrNaN: an open input makes the result open.
                        if (l[off[0]] != static_cast<uint8_t>(Latitude::kAny)) l[off[0]] = v;
                        any = true;
                      });
  }
  if (any) out.latitude = std::move(lat);
  return out;
}

// TypeError when `type` is not in `allowed` (a limits-table check, citing the operand).
void CheckDataType(const std::string& op, std::string_view operand, DataType type,
                   const DataTypeSet& allowed);

// Bidirectional broadcast of two shapes or TypeError.
Shape BroadcastOrThrow(const std::string& op, const Shape& a, const Shape& b);

}  // namespace nnref
