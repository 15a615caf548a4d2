// Ziv's rounding test (issue 28): round a value known only within an error bound to float32 or
// float16, and say whether that rounding is certainly the correctly rounded one.
//
// A kernel evaluates f(x) fast in double as r with a proven bound |r - f(x)| <= e. Rounding to
// nearest is monotonic, so when both ends of [r - e, r + e] round to the same value of the output
// type, so does f(x): that value is the correctly rounded result. Otherwise the interval holds a
// rounding boundary (a midpoint between two adjacent representable values), and the kernel
// recomputes f(x) with more precision (__float128, `RoundsUniquely(Quad...)`) and tests again.
// This is Ziv's strategy ("Fast evaluation of elementary mathematical functions with correctly
// rounded last bit", ACM TOMS 17(3), 1991), as ops/bounded_sum.h applies it to sums.
//
// The end points r - e and r + e are themselves rounded to double. Callers pass e with a factor 2
// of margin over the proven bound (and never below a few double ulps of r), which covers that
// rounding: the computed ends then still enclose the exact interval.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "numerics/cast.h"

namespace nnref {

// The bound callers use: rel * |r| + abs_floor. The absolute floor 2^-1000 covers results in
// double's subnormal range, where a relative bound of the double evaluation no longer holds; any
// value of magnitude up to 2^-1000 rounds to ±0 in float32 and float16, so the floor never hides a
// rounding boundary of the output types (their smallest is 2^-150).
inline constexpr double kZivAbsFloor = 0x1p-1000;

namespace ziv_internal {

template <typename T>
inline uint32_t Bits(T v) {
  if constexpr (std::is_same_v<T, Float16>) {
    return v.bits;
  } else {
    return std::bit_cast<uint32_t>(v);
  }
}

}  // namespace ziv_internal

// If every value of [r - e, r + e] rounds to the same value of T (±0 counted as one value), sets
// `out` to RoundTo<T>(r) and returns true. Returns false when the interval holds a rounding
// boundary of T or is not finite (NaN). e >= 0.
template <typename T>
inline bool RoundsUniquely(double r, double e, T& out) {
  const T lo = RoundTo<T>(r - e);
  const T hi = RoundTo<T>(r + e);
  if (ziv_internal::Bits(lo) == ziv_internal::Bits(hi)) {
    // Equal bits: r lies between ends that round alike, so it rounds to them too; a -0 end with
    // e > 0 cannot pair with a non-negative r, and NaN never gives equal ends here.
    if (std::isnan(r)) return false;
    out = lo;
    return true;
  }
  if (ToDouble(lo) == 0 && ToDouble(hi) == 0) {  // -0 and +0: the sign of zero follows r
    out = RoundTo<T>(r);
    return true;
  }
  return false;
}

// The fast form of the test for a relative bound, on r's bits: |r - f(x)| <= e_ulps ulps of r (a
// relative bound rel gives e_ulps = rel * 2^53 + 1, the 1 covering the absolute floor). Where r
// lies in T's normal range, T's rounding boundaries next to r are the doubles whose bits below
// T's last significand bit are 100...0, and the nearest boundary across a power of two is 2^28
// (float32) or 2^41 (float16) double ulps away, far beyond any e_ulps used here. So r rounds
// uniquely iff those low bits differ from 100...0 by more than e_ulps: a mask, a subtraction and
// one compare (exact integer arithmetic, no margin needed). Outside T's normal range (subnormal
// results, overflow, zero, Inf, NaN) it falls back to RoundsUniquely.
template <typename T>
inline bool RoundsUniquelyUlps(double r, uint64_t e_ulps, T& out) {
  constexpr bool kHalf = std::is_same_v<T, Float16>;
  constexpr int kDrop = kHalf ? 52 - 10 : 52 - 23;  // double bits below T's last bit
  constexpr uint64_t kMask = (uint64_t{1} << kDrop) - 1;
  constexpr uint64_t kMid = uint64_t{1} << (kDrop - 1);
  constexpr uint64_t kMinExp = kHalf ? 1023 - 14 : 1023 - 126;  // T's normal binades
  constexpr uint64_t kSpan = kHalf ? 30 : 254;
  const uint64_t bits = std::bit_cast<uint64_t>(r);
  if (((bits >> 52) & 0x7ff) - kMinExp < kSpan) {
    if ((bits & kMask) - kMid + e_ulps > 2 * e_ulps) {  // |low bits - kMid| > e_ulps, unsigned
      out = RoundTo<T>(r);
      return true;
    }
    return false;
  }
  const double e = static_cast<double>(e_ulps) * std::fabs(r) * 0x1p-52 + kZivAbsFloor;
  return RoundsUniquely(r, 2 * e, out);
}

// The relative bound r * rel + kZivAbsFloor, with the factor 2 of the header applied.
inline double ZivBound(double r, double rel) { return 2 * (std::fabs(r) * rel) + kZivAbsFloor; }

#if defined(__SIZEOF_FLOAT128__)
using Quad = __float128;

// q rounded to double *to odd* (truncate, then force the last bit to 1 when inexact). A value
// rounded to odd at 53 bits rounds to nearest at 11 or 24 bits exactly as the value itself does
// (Boldo and Melquiond 2008; ops/exact_round.h), so RoundTo<T>(QuadToOddDouble(q)) is q rounded
// once to T. q - d is exact: d is q's nearest double, within half a double ulp of q.
inline double QuadToOddDouble(Quad q) {
  const double d = static_cast<double>(q);
  if (!std::isfinite(d) || d == 0) {
    if (d == 0 && q != 0) return std::copysign(0x1p-1074, d);  // odd, on q's side of 0
    return d;
  }
  const Quad rest = q - static_cast<Quad>(d);
  if (rest == 0) return d;
  const bool odd = (std::bit_cast<uint64_t>(d) & 1) != 0;
  if (odd) return d;
  // d is even and q lies beyond it on the side of `rest`: step to the odd neighbour on that side,
  // which still brackets q together with d.
  return std::nextafter(d, rest > 0 ? kInfinity : -kInfinity);
}

// The quad version of RoundsUniquely: [q - e, q + e] (e >= 0, computed in quad) rounded once to T
// at both ends.
template <typename T>
inline bool RoundsUniquely(Quad q, Quad e, T& out) {
  if (q != q) return false;
  const T lo = RoundTo<T>(QuadToOddDouble(q - e));
  const T hi = RoundTo<T>(QuadToOddDouble(q + e));
  if (ziv_internal::Bits(lo) != ziv_internal::Bits(hi) &&
      !(ToDouble(lo) == 0 && ToDouble(hi) == 0)) {
    return false;
  }
  out = RoundTo<T>(QuadToOddDouble(q));
  return true;
}

// The quad bound 2 * |q| * rel + 2^-2000 (the factor 2 of the header; the floor far below every
// rounding boundary of T and far above quad's subnormals, 2^-16382).
inline Quad ZivQuadBound(Quad q, Quad rel) {
  constexpr double kFloor = 0x1p-1000;
  return 2 * ((q < 0 ? -q : q) * rel) + static_cast<Quad>(kFloor) * static_cast<Quad>(kFloor);
}
#endif

}  // namespace nnref
