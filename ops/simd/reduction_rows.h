// Row functions of the simd backend's reduction.cc, softmax.cc and normalization.cc: float32 rows,
// vectorized with Highway and dispatched at run time to the best target of the CPU
// (reduction_hwy.cc).
//
// Numerics (a production backend's): float32 arithmetic with several vector partial sums, i.e.
// the terms are reassociated; the lane order of the final combination is fixed per target, so a
// row gives the same bits whatever thread computes it. Max/min select exactly (+0 beats -0 for
// max, -0 beats +0 for min) and propagate NaN.
#pragma once

#include <cstddef>
#include <cstdint>

namespace nnref::simd {

enum class RowReduce : uint8_t { kSum, kSumAbs, kSumSquare, kProduct, kMax, kMin };

// The reduction of x[0..n) (n >= 1): sum (compensated, as SumRow), sum of |x|, sum of x^2,
// product, max or min.
float ReduceRow(RowReduce op, const float* x, size_t n);

// The sum of x[0..n) with compensated vector partial sums (each lane carries the rounding
// errors of its float32 additions, TwoSum), combined in double: cancellation does not lose the
// small terms. A sum of -0s is -0; an infinite or NaN sum is the IEEE one.
double SumRow(const float* x, size_t n);

// Sum of (x[i] - mean)^2 with mean = mean_hi + mean_lo (a double mean split into two floats):
// the second pass of a two-pass variance.
float SumSquaredDeviationRow(const float* x, size_t n, float mean_hi, float mean_lo);
// Sum of (x[i] - mean)^2 in double (vector lanes, so not in index order).
double SumSquaredDeviationDouble(const float* x, size_t n, double mean);

// log(sum exp(x[i])) as m + log1p(sum over x[i] < m of exp(x[i] - m) + (k - 1)), m the maximum
// and k its count: no overflow, full accuracy when the other terms are tiny. NaN in -> NaN; a
// +Inf maximum gives +Inf and an all -Inf row -Inf.
float LogSumExpRow(const float* x, size_t n);

// out[i] = exp(x[i]) for x[i] in [-87, 0], within 2 ulp: the vector exp of SoftmaxRow and
// LogSumExpRow (reduction_hwy.cc), exposed for its accuracy test.
void ExpNonPositiveRow(const float* x, float* out, size_t n);

// out[i] = exp(x[i] - m) / sum_j exp(x[j] - m), m the maximum. A NaN, a +Inf or an all -Inf row
// gives NaN everywhere (as the spec's emulation does). `out` must not alias `x`.
void SoftmaxRow(const float* x, float* out, size_t n);

// out[i] = (x[i] - m[i * m_step]) * (a[i * a_step] * r[i * r_step]) + b[i * b_step] (steps 0 or
// 1), evaluated in double vectors and rounded once to float32: the normalized term and the bias
// may cancel, and x - m may exceed the float32 range.
void NormalizeRow(const float* x, const double* m, size_t m_step, const float* a, size_t a_step,
                  const double* r, size_t r_step, const float* b, size_t b_step, float* out,
                  size_t n);

}  // namespace nnref::simd
