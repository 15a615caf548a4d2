// Correctly rounded element-wise functions computed through double (issue 28): Ziv's rounding
// test (numerics/ziv_round.h) on each function's fast double evaluation, with a __float128
// re-evaluation (libquadmath) when the double result lies too close to a rounding boundary of the
// output type (float32 or float16).
//
// Each function's double evaluation comes with a relative error bound (below, with its source).
// The fast path costs a mask, a subtraction and a compare on r's bits (RoundsUniquelyUlps); the
// fallback runs where [r - e, r + e] holds a rounding boundary: for float32 about 2 e / 2^-24 of
// the elements (2^-19 with the libm bound 2^-44), for float16 2^-13 times fewer.
//
// Bounds of the double evaluations (relative to |r|, plus the 2^-1000 absolute floor of
// numerics/ziv_round.h):
//  - exp, log, sin, cos, tan, erf, erfc, expm1, log1p, tanh from glibc's double libm: glibc's
//    manual ("Known Maximum Errors in Math Functions") lists at most a few ulps (2^-53 |r| each)
//    for these on x86_64, and the measurement in docs/numerics.md (every function against MPFR
//    on random float32 inputs) found at most 1.99 ulps (erfc). kLibmRel = 2^-44 is 512 ulps: a
//    margin of two orders of magnitude, bought for a fallback rate of about 2^-19 per float32
//    element. sin, cos and tan keep this relative bound for every float32 argument (glibc reduces
//    huge arguments exactly, Payne-Hanek).
//  - sigmoid, softplus, elu: one libm call (relative error <= a few ulps) composed with at most
//    three IEEE operations whose relative condition numbers are <= 1 (1 / (1 + e), e / (1 + e),
//    x + log1p(e), log1p(e) as functions of e; alpha * m): at most 2 * 5 + 3 ulps. kLibmRel.
//  - gelu: 0.5 x erfc(-x / sqrt 2). z = -x / sqrt 2 carries 2 roundings (the constant and the
//    division), and erfc's relative condition number |z erfc'(z) / erfc(z)| is at most 2 z^2 + 1
//    (from erfc(z) > 2 exp(-z^2) / (sqrt(pi) (z + sqrt(z^2 + 2))) for z > 0; below 1 for z <= 0):
//    (2 z^2 + 1) * 2 ulps, plus erfc's own few ulps and 2 roundings. Where erfc is a normal
//    double (z < 26.5) that is below 2^-41; past it the result is below 2^-1000 in magnitude
//    (the absolute floor). kGeluRel = 2^-40.
//  - softsign x / (1 + |x|) and hardSwish x (x + 3) / 6: two and three roundings, at most
//    3.01 * 2^-53. kRationalRel = 2^-50.
//
// Bounds of the __float128 evaluations (relative; a quad ulp is at most 2^-112 of the value):
// libquadmath's functions were measured against MPFR (docs/numerics.md: at most 2.06 quad ulps);
// kQuadLibRel = 2^-100 is 4096 quad ulps. Composites add their roundings as above, gelu its
// conditioning (2 z^2 + 1) * 2^-111 for z > 0. hardSwish in quad is exact (x (x + 3) fits in 113
// bits for |x| >= 2^-60, and the quotient by 6 is rounded to odd with its fma remainder).
//
// When even the quad interval holds a boundary (no float32 input does, per the certification run
// in docs/numerics.md), the quad value rounded once is returned and counted (ZivStats).
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>

#include "numerics/ziv_round.h"

namespace nnref {

inline constexpr double kLibmRel = 0x1p-44;
inline constexpr double kGeluRel = 0x1p-40;
inline constexpr double kRationalRel = 0x1p-50;

enum class CrFunction : uint8_t {
  kExp,
  kLog,
  kSin,
  kCos,
  kTan,
  kErf,
  kTanh,
  kSigmoid,
  kSoftplus,
  kSoftsign,
  kGelu,
  kElu,  // alpha * expm1(x) for x < 0
  kHardSwish,
};

// Fallback counters (relaxed atomics, touched only off the fast path): tests check that both
// paths ran; `undecided` counts quad intervals that still held a boundary.
struct ZivStats {
  std::atomic<uint64_t> quad{0};
  std::atomic<uint64_t> undecided{0};
};
ZivStats& GetZivStats();

// The slow path: f(x) (alpha: elu's) in __float128, Ziv-tested against its quad bound and rounded
// once to T (float or Float16). Defined in ops/correctly_rounded.cc for both types.
template <typename T>
T RoundSlow(CrFunction f, double x, double alpha);

// r = f(x) evaluated in double with |r - f(x)| <= rel |r| (+ the floor): the correctly rounded
// f(x) in T. Infinite r (a double overflow, far past T's range) and NaN r round directly.
template <typename T>
inline T RoundCorrectly(CrFunction f, double r, double rel, double x, double alpha = 0) {
  T out;
  // rel |r| <= rel 2^53 ulps of r; + 1 for the absolute floor.
  const uint64_t e_ulps = static_cast<uint64_t>(rel * 0x1p53) + 1;
  if (RoundsUniquelyUlps(r, e_ulps, out)) [[likely]] {
    return out;
  }
  if (!std::isfinite(r)) return RoundTo<T>(r);
  return RoundSlow<T>(f, x, alpha);
}

// The final step of batch/instance/layerNormalization, y = s (x - m) / sqrt(v + eps) + b, from
// the double values the kernel holds (x, s, b: elements; m, v: the mean and variance operands or
// the group's computed ones; eps: the option cast to the input type), rounded correctly to T.
// Double evaluation: x - m, v + eps, sqrt, the quotient and the product each round once (relative
// error of t = s (x - m) / sqrt(v + eps) at most (1 + u)^6 - 1 < 6.01 u, u = 2^-53), and t + b
// once more: |y~ - y| <= 6.01 u |t~| (1 + 7u) + u |y~| < 8 u (|t~| + |y~|); the test uses twice
// that. The same steps in __float128 decide the rest.
template <typename T>
T RoundNormalizationSlow(double x, double m, double v, double eps, double s, double b);

// The fast path of RoundNormalization without branches, so that the kernels' loops stay
// vectorizable: returns y rounded once and sets `uncertain` when the test does not decide (a
// boundary, a zero or a non-finite y). A kernel that sees `uncertain` after a loop runs the loop
// again with RoundNormalization.
template <typename T>
inline T RoundNormalizationFast(double x, double m, double deviation, double s, double b,
                                bool& uncertain) {
  const double t = s * ((x - m) / deviation);
  const double y = t + b;
  const double e = 0x1p-49 * (std::fabs(t) + std::fabs(y)) + kZivAbsFloor;
  uncertain |= ziv_internal::Bits(RoundTo<T>(y - e)) != ziv_internal::Bits(RoundTo<T>(y + e));
  return RoundTo<T>(y);
}

template <typename T>
inline T RoundNormalization(double x, double m, double v, double eps, double deviation, double s,
                            double b) {
  const double t = s * ((x - m) / deviation);
  const double y = t + b;
  T out;
  if (RoundsUniquely(y, 0x1p-49 * (std::fabs(t) + std::fabs(y)) + kZivAbsFloor, out)) [[likely]] {
    return out;
  }
  if (!std::isfinite(y)) return RoundTo<T>(y);
  return RoundNormalizationSlow<T>(x, m, v, eps, s, b);
}

}  // namespace nnref
