// Correct rounding at plain-loop speed (Ziv's strategy): sum in plain double arithmetic, bound the
// rounding error rigorously, and round once to the output type when every value within the bound
// rounds to the same result. Only when the bound straddles a rounding boundary of the output type
// (a float32/float16 midpoint or representable value lies within the bound), or the sum is not
// finite, or zero lies within the bound (its sign), does the kernel take its exact path
// (WindowSum, CompensatedSum), which then decides.
//
// The bound. A recursive double sum s of n terms t_i that are exact in double differs from the
// exact sum S by at most gamma(n) * sum |t_i|, gamma(n) = n u / (1 - n u), u = 2^-53 (Higham,
// "Accuracy and Stability of Numerical Algorithms", 2nd ed., eq. 4.4); the order of the terms does
// not matter. The check uses 2 (n + 4) u * A, where A >= sum |t_i| is a computed upper bound of the
// terms' magnitudes: the factor 2 covers n u / (1 - n u) for n < 2^50, the relative rounding error
// of the computed A, and the roundings of s - bound and s + bound themselves. Rounding to nearest
// is monotonic, so when both ends of [s - bound, s + bound] round to the same value of T, so does
// S, and the result is the correctly rounded one, bit for bit what the exact path gives.
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "numerics/cast.h"

namespace nnref {

// The bound on |s - S| for a recursive double sum of at most `terms` exact terms whose
// magnitudes add up to at most `magnitude` (see above).
inline double SumErrorBound(uint64_t terms, double magnitude) {
  return static_cast<double>(terms + 4) * 0x1p-52 * magnitude;
}

// How many times RoundWithinBound left the decision to the exact path (for the tests; relaxed).
inline std::atomic<uint64_t> bound_fallbacks{0};

// Rounds to T when every real in [lo, hi] rounds to the same T and none of them is zero; returns
// false (and leaves `out`) otherwise, also when an end is not finite.
template <typename T>
inline bool RoundWithinInterval(double lo, double hi, T& out) {
  // Not finite, or zero within the interval (its sign is not decided).
  bool decided = std::isfinite(lo) && std::isfinite(hi) && (lo > 0 || hi < 0);
  if (decided) {
    const T a = RoundTo<T>(lo), b = RoundTo<T>(hi);
    decided = std::memcmp(&a, &b, sizeof(T)) == 0;
    if (decided) out = a;
  }
  if (!decided) [[unlikely]] {
    bound_fallbacks.fetch_add(1, std::memory_order_relaxed);
  }
  return decided;
}

// Rounds `value` to T when every real within `bound` of it rounds to the same T (see above).
// `bound` must be at least twice the true error bound; it is raised to 2^-51 |value| so that the
// roundings of value -+ bound (at most u |value -+ bound|) cannot move the ends back inside.
template <typename T>
inline bool RoundWithinBound(double value, double bound, T& out) {
  const double floor = std::fabs(value) * 0x1p-51;
  const double b = std::isnan(bound) || bound > floor ? bound : floor;
  return RoundWithinInterval(value - b, value + b, out);
}

// A double sum of exact terms with the running magnitude of its terms, so that it can round
// itself once when the bound allows (RoundWithinBound); the caller recomputes with its exact
// accumulator otherwise.
struct BoundedSum {
  double sum = 0;
  double magnitude = 0;  // sum of |term|, rounded upward in effect by SumErrorBound's factor 2
  uint64_t terms = 0;
  void Add(double term) {
    sum += term;
    magnitude += std::fabs(term);
    ++terms;
  }
  double Bound() const { return SumErrorBound(terms, magnitude); }
  template <typename T>
  bool Round(T& out) const {
    return RoundWithinBound(sum, Bound(), out);
  }
  // sum / divisor (divisor > 0): the quotient's own rounding adds u |q|, covered by the factor 2.
  template <typename T>
  bool RoundQuotient(double divisor, T& out) const {
    return RoundWithinBound(sum / divisor, Bound() / divisor, out);
  }
  // sqrt(sum) of a sum of non-negative terms: the exact sum lies in [sum - b, sum + b], so its
  // root lies between the roots of the ends; each computed root is within half an ulp, and one
  // more relative 2^-52 each way keeps the ends outside (lower end above zero, else undecided).
  template <typename T>
  bool RoundSqrt(T& out) const {
    const double b = Bound();
    if (!(sum - b > 0)) {  // zero within the bound, or not finite
      bound_fallbacks.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    return RoundWithinInterval(std::sqrt(sum - b) * (1 - 0x1p-52),
                               std::sqrt(sum + b) * (1 + 0x1p-52), out);
  }
};

}  // namespace nnref
