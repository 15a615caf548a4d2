// Row functions of the simd backend's pool2d.cc and resample2d.cc: pooling across channels and
// linear resampling along a row, vectorized with Highway and dispatched at run time
// (window_hwy.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "numerics/float16.h"

namespace nnref::simd {

// Storage type T as pool2d.cc and resample2d.cc compute it: float for float16, else itself.
template <typename T>
using Computed = std::conditional_t<std::is_same_v<T, Float16>, float, T>;

template <typename T>
Computed<T> Load(const T* p, int64_t off) {
  if constexpr (std::is_same_v<T, Float16>) {
    return p[off].ToFloat();
  } else {
    return p[off];
  }
}

template <typename T>
void StoreAt(T* p, int64_t off, Computed<T> v) {
  if constexpr (std::is_same_v<T, Float16>) {
    p[off] = Float16::FromFloat(v);
  } else {
    p[off] = v;
  }
}

enum class RowPool : uint8_t { kAverage, kL2, kMax, kSum };

// out[c] for c < channels from rows[k][c], k < count (count >= 1): the average (a compensated
// float32 sum over count), the L2 norm (float32 sum of squares, redone in double for a channel
// whose sum overflows or underflows), the maximum (exact: +0 beats -0; NaN propagates), or the
// sum (the average's compensated sum, divided by divisors[c] when `divisors` is given: a
// per-channel count such as the NNEF box's positions not ignored; else by nothing).
void PoolRow(RowPool op, const float* const* rows, size_t count, size_t channels, float* out,
             const double* divisors = nullptr);

// Linear interpolation of one output row, evaluated in double vectors and rounded once:
//   out[i] = (r0[i0[i]] (1 - tx[i]) + r0[i1[i]] tx[i]) (1 - ty)
//          + (r1[i0[i]] (1 - tx[i]) + r1[i1[i]] tx[i]) ty.
void LerpRow(const float* r0, const float* r1, const int32_t* i0, const int32_t* i1,
             const double* tx, double ty, float* out, size_t n);

}  // namespace nnref::simd
