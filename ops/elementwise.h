// Shared machinery for element-wise operators: broadcasting iteration over strided views, the
// named accumulators, and per-element latitude.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "numerics/cast.h"
#include "ops/limits.h"
#include "ref/graph/graph.h"
#include "ref/parallel/parallel.h"

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

namespace elementwise_detail {

// An iteration plan for an output and its (broadcast, strided) inputs: axes that every operand
// walks as one equally spaced run are merged, so a contiguous or broadcast operand becomes one
// long row and the inner loop runs without per-element index arithmetic.
template <size_t K>
struct RowPlan {
  Shape outer;  // the merged axes but the last
  std::array<Strides, K> outer_strides;
  uint64_t row = 1;  // length of the innermost merged axis
  std::array<int64_t, K> row_stride{};
  uint64_t rows = 1;  // product of `outer`
};

template <size_t K>
RowPlan<K> MakeRowPlan(const Shape& shape, const std::array<const Strides*, K>& strides) {
  RowPlan<K> plan;
  Shape dims;
  std::array<Strides, K> st;
  for (size_t ax = 0; ax < shape.size(); ++ax) {
    if (shape[ax] == 1) continue;  // a unit axis moves nothing
    bool merge = !dims.empty();
    for (size_t k = 0; k < K && merge; ++k) {
      merge = st[k].back() == (*strides[k])[ax] * static_cast<int64_t>(shape[ax]);
    }
    if (merge) {
      dims.back() *= shape[ax];
      for (size_t k = 0; k < K; ++k) st[k].back() = (*strides[k])[ax];
    } else {
      dims.push_back(shape[ax]);
      for (size_t k = 0; k < K; ++k) st[k].push_back((*strides[k])[ax]);
    }
  }
  if (!dims.empty()) {
    plan.row = dims.back();
    for (size_t k = 0; k < K; ++k) plan.row_stride[k] = st[k].back();
    dims.pop_back();
    for (size_t k = 0; k < K; ++k) st[k].pop_back();
  }
  plan.outer = std::move(dims);
  plan.outer_strides = std::move(st);
  for (uint64_t d : plan.outer) plan.rows *= d;
  return plan;
}

// fn(row offsets) for rows [begin, end) of `plan`: the offsets of each operand's first element.
template <size_t K, typename Fn>
void ForRows(const RowPlan<K>& plan, uint64_t begin, uint64_t end, Fn&& fn) {
  const size_t rank = plan.outer.size();
  std::vector<uint64_t> idx(rank);
  std::array<int64_t, K> off{};
  uint64_t rest = begin;
  for (size_t ax = rank; ax-- > 0;) {
    idx[ax] = rest % plan.outer[ax];
    rest /= plan.outer[ax];
    for (size_t k = 0; k < K; ++k) {
      off[k] += static_cast<int64_t>(idx[ax]) * plan.outer_strides[k][ax];
    }
  }
  for (uint64_t r = begin; r < end; ++r) {
    fn(off);
    for (size_t ax = rank; ax-- > 0;) {  // odometer
      for (size_t k = 0; k < K; ++k) off[k] += plan.outer_strides[k][ax];
      if (++idx[ax] < plan.outer[ax]) break;
      for (size_t k = 0; k < K; ++k) {
        off[k] -= plan.outer_strides[k][ax] * static_cast<int64_t>(plan.outer[ax]);
      }
      idx[ax] = 0;
    }
  }
}

// Rows per parallel block so that a block holds at least this many elements.
constexpr uint64_t kBlockElements = uint64_t{1} << 15;
inline size_t RowGrain(uint64_t row) {
  return static_cast<size_t>(std::max<uint64_t>(1, kBlockElements / std::max<uint64_t>(row, 1)));
}

// A latitude tensor allocated on first use, from any of the worker threads.
class LazyLatitude {
 public:
  explicit LazyLatitude(const Shape& shape) : shape_(shape) {}
  uint8_t* Get() {
    std::call_once(once_, [this] { tensor_ = NewLatitude(shape_); });
    return tensor_.base<uint8_t>();
  }
  Tensor Take() { return std::move(tensor_); }  // invalid when never used

 private:
  const Shape& shape_;
  std::once_flag once_;
  Tensor tensor_;
};

}  // namespace elementwise_detail

// out[i] = fn(in_0[i], ..., in_{N-1}[i], latitude&) over the broadcast of the inputs to
// out_desc.shape. `fn` receives the inputs' storage values and returns the output storage value;
// it may set the element's Latitude. Input latitude is carried over element-wise (the widest code
// wins). Types: TOut the output storage type, TIn the (common) input storage type of inputs
// 0..N-1 except those listed as uint8 conditions by the caller (see MapWhere).
//
// Each element is computed alone by `fn`, so the rows are split over the reference's threads
// (ParallelFor) and contiguous rows (every operand dense along the merged row) run as plain
// array loops. The latitude tensor is allocated only when an element gets a mark.
template <typename TOut, typename... TIns, size_t N = sizeof...(TIns), typename Fn>
OperandValue MapElements(const OperandDescriptor& out_desc,
                         const std::array<const OperandValue*, N>& ins, Fn&& fn) {
  using namespace elementwise_detail;
  OperandValue out;
  out.data = Tensor::AllocateForOverwrite(out_desc.dataType, out_desc.shape);  // all written
  LazyLatitude lat(out_desc.shape);
  std::array<Tensor, N> views;
  for (size_t k = 0; k < N; ++k) views[k] = ins[k]->data.BroadcastTo(out_desc.shape);
  const Strides dense = ContiguousStrides(out_desc.shape);
  std::array<const Strides*, N + 1> strides;
  strides[0] = &dense;
  for (size_t k = 0; k < N; ++k) strides[k + 1] = &views[k].strides();
  TOut* o = out.data.base<TOut>();
  const auto bases = [&]<size_t... I>(std::index_sequence<I...>) {
    return std::tuple<const TIns*...>(views[I].template base<TIns>()...);
  }
  (std::make_index_sequence<N>{});
  if (out.data.element_count() != 0) {
    const RowPlan<N + 1> plan = MakeRowPlan<N + 1>(out_desc.shape, strides);
    bool contiguous = true;  // every input dense along the row (the output always is)
    for (size_t k = 1; k <= N; ++k) contiguous = contiguous && plan.row_stride[k] == 1;
    const uint64_t row = plan.row;
    ParallelFor(plan.rows, RowGrain(row), [&](size_t begin, size_t end) {
      ForRows(plan, begin, end, [&](const std::array<int64_t, N + 1>& off) {
        TOut* orow = o + off[0];
        if (contiguous) {
          const auto in_rows = [&]<size_t... I>(std::index_sequence<I...>) {
            return std::tuple<const TIns*...>((std::get<I>(bases) + off[I + 1])...);
          }
          (std::make_index_sequence<N>{});
          for (uint64_t i = 0; i < row; ++i) {
            Latitude la = Latitude::kExact;
            orow[i] = [&]<size_t... I>(std::index_sequence<I...>) {
              return fn(std::get<I>(in_rows)[i]..., la);
            }
            (std::make_index_sequence<N>{});
            if (la != Latitude::kExact) [[unlikely]] {
              lat.Get()[off[0] + static_cast<int64_t>(i)] = static_cast<uint8_t>(la);
            }
          }
        } else {
          for (uint64_t i = 0; i < row; ++i) {
            const auto at = static_cast<int64_t>(i);
            Latitude la = Latitude::kExact;
            orow[i] = [&]<size_t... I>(std::index_sequence<I...>) {
              return fn(std::get<I>(bases)[off[I + 1] + at * plan.row_stride[I + 1]]..., la);
            }
            (std::make_index_sequence<N>{});
            if (la != Latitude::kExact) [[unlikely]] {
              lat.Get()[off[0] + at] = static_cast<uint8_t>(la);
            }
          }
        }
      });
    });
  }
  // Carry input latitude element-wise.
  for (size_t k = 0; k < N; ++k) {
    if (!ins[k]->latitude.valid()) continue;
    uint8_t* l = nullptr;
    const Tensor in_lat = ins[k]->latitude.BroadcastTo(out_desc.shape);
    const uint8_t* src = in_lat.base<uint8_t>();
    ForEachOffsets<2>(out_desc.shape, {&dense, &in_lat.strides()},
                      [&](const std::array<int64_t, 2>& off) {
                        const uint8_t v = src[off[1]];
                        if (v == 0) return;
                        if (l == nullptr) l = lat.Get();
                        // kAny dominates kValueOrNaN: an open input makes the result open.
                        if (l[off[0]] != static_cast<uint8_t>(Latitude::kAny)) l[off[0]] = v;
                      });
  }
  out.latitude = lat.Take();
  return out;
}

// TypeError when `type` is not in `allowed` (a limits-table check, citing the operand).
void CheckDataType(const std::string& op, std::string_view operand, DataType type,
                   const DataTypeSet& allowed);

// Bidirectional broadcast of two shapes or TypeError.
Shape BroadcastOrThrow(const std::string& op, const Shape& a, const Shape& b);

}  // namespace nnref
