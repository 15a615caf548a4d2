// IEEE 754 binary16 as bits, with round-to-nearest-even conversions written here (not Highway's:
// they are wrong on non-AVX2 targets) and exact widening. Subnormals are kept.
#pragma once

#include <cstdint>

namespace nnref {

// binary16 value held as its bit pattern. No arithmetic: kernels widen to double, compute, and
// round once with Float16::FromDouble.
struct Float16 {
  uint16_t bits = 0;

  static constexpr Float16 FromBits(uint16_t b) { return Float16{b}; }
  // Round-to-nearest-even directly from double (never through float: that would double-round).
  static Float16 FromDouble(double x);
  static Float16 FromFloat(float x);
  // Exact widening.
  double ToDouble() const;
  float ToFloat() const;

  friend bool operator==(Float16 a, Float16 b) = default;
};

uint16_t Float16BitsFromDouble(double x);
double Float16BitsToDouble(uint16_t bits);

}  // namespace nnref
