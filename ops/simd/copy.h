// What the simd backend's data movement, indexing, scatter, quantization and arg_cumulative files
// share: kernels made of one function, and byte-level copies of strided views planned by
// strided.h (contiguous runs memcpy'd, strided runs copied by element size, so one code path
// serves every data type). Work is split over output rows or blocks on config.pool only, never
// over the terms of one result, so every output is bit-identical for any thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ops/index_common.h"
#include "ops/simd/family.h"
#include "ops/simd/map.h"

namespace nnref::simd {

using ComputeFn = std::function<std::vector<OperandValue>(std::span<const OperandValue* const>,
                                                          std::span<const OperandDescriptor>)>;

// A kernel computing with `fn`.
std::shared_ptr<const Kernel> K(ComputeFn fn);

// The attributes of `node` as A, or null with `why` set.
template <typename A>
const A* Need(const OperatorNode& node, std::string& why) {
  const A* a = node.Attributes<A>();
  if (!a) why = "missing attributes";
  return a;
}

int64_t ElemBytes(DataType t);
// The first byte of element 0 of view `t`.
std::byte* BytesOf(const Tensor& t);

// Calls fn.template operator()<U>() with the unsigned integer type of `bytes` (1, 2, 4 or 8).
template <typename Fn>
decltype(auto) DispatchSize(int64_t bytes, Fn&& fn) {
  switch (bytes) {
    case 1:
      return fn.template operator()<uint8_t>();
    case 2:
      return fn.template operator()<uint16_t>();
    case 4:
      return fn.template operator()<uint32_t>();
    default:
      return fn.template operator()<uint64_t>();
  }
}

// n elements of `es` bytes: dst[i * ds] = src[i * ss] (steps in elements; step 0 repeats).
void CopyRun(const std::byte* src, int64_t ss, std::byte* dst, int64_t ds, uint64_t n, int64_t es);
// Runs fn(begin, end) over [0, units) on the pool, `unit_elements` elements per unit.
void Parallel(const Config& config, uint64_t units, uint64_t unit_elements,
              const std::function<void(uint64_t, uint64_t)>& fn);
// Copies view `src` into the elements at byte address `dst` with element strides `dst_strides`
// (over src's shape).
void CopyView(const Tensor& src, std::byte* dst, const Strides& dst_strides, const Config& config);
// `t` itself when contiguous, else a dense copy made on the pool.
Tensor Dense(const Tensor& t, const Config& config);
// The product of s[begin..end).
uint64_t Product(const Shape& s, size_t begin, size_t end);

// The reference's clamped position (ResolveIndex, ops/index_common.h): below -n gives 0, n or
// more gives n - 1.
template <typename I>
uint64_t Clamp(I value, uint64_t n) {
  return ResolveIndex(static_cast<int64_t>(value), n).position;  // int32, uint32, int64: exact
}

// Calls fn.template operator()<I>() with the storage type of an index tensor (int32, uint32 or
// int64: the builder methods admit no other).
template <typename Fn>
decltype(auto) DispatchIndexType(DataType t, Fn&& fn) {
  switch (t) {
    case DataType::kInt32:
      return fn.template operator()<int32_t>();
    case DataType::kUint32:
      return fn.template operator()<uint32_t>();
    default:
      return fn.template operator()<int64_t>();
  }
}

}  // namespace nnref::simd
