// Correctly rounded a*b and a+b of doubles whose exact value may need more than 53 bits, for
// kernels that must round such a value once to float32/float16 (linear's alpha*x + beta,
// dequantizeLinear's (x - zeroPoint) * scale).
//
// Rounding the exact value first to double (round to nearest) and then to the output type can
// round twice: 1 + 2^-24 + 2^-55 goes to the double 1 + 2^-24, a float32 tie that goes to even, 1,
// although the exact value rounds up to 1 + 2^-23. Rounding to double *to odd* instead (keep the
// truncated value and force its last bit to 1 when the result is inexact) and then to nearest in
// a format with at most 51 significant bits gives the correctly rounded result (Boldo and
// Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to
// odd", 2008). float32 has 24 bits and float16 11, subnormals included.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

#include "numerics/cast.h"

namespace nnref {

// `hi` is the double nearest to an exact value hi + lo, `lo` the exact remainder. Returns that
// value rounded to double to odd.
inline double RoundToOdd(double hi, double lo) {
  if (lo == 0 || !std::isfinite(hi) || !std::isfinite(lo)) return hi;
  if ((std::bit_cast<uint64_t>(hi) & 1) != 0) return hi;  // hi is the odd neighbour already
  return std::nextafter(hi, lo > 0 ? kInfinity : -kInfinity);
}

// a + b rounded to double to odd (TwoSum gives the exact remainder when nothing overflows).
inline double SumToOdd(double a, double b) {
  const double s = a + b;
  const double bb = s - a;
  const double err = (a - (s - bb)) + (b - bb);
  return RoundToOdd(s, err);
}

// a * b rounded to double to odd (fma gives the exact remainder when the product does not
// underflow double, which holds for every product of float32/float16 values and integers).
inline double ProductToOdd(double a, double b) {
  const double p = a * b;
  return RoundToOdd(p, std::fma(a, b, -p));
}

}  // namespace nnref
