#include "numerics/float16.h"

#include <bit>
#include <cmath>
#include <limits>

namespace nnref {

// Works on the double's bit pattern so that exactly one rounding happens (double -> binary16).
uint16_t Float16BitsFromDouble(double x) {
  const uint64_t d = std::bit_cast<uint64_t>(x);
  const uint16_t sign = static_cast<uint16_t>((d >> 48) & 0x8000u);
  const int exp = static_cast<int>((d >> 52) & 0x7ff);
  uint64_t mant = d & ((uint64_t{1} << 52) - 1);
  if (exp == 0x7ff) {  // Inf or NaN: keep NaN quiet and keep the top payload bits.
    if (mant == 0) return static_cast<uint16_t>(sign | 0x7c00u);
    return static_cast<uint16_t>(sign | 0x7e00u | static_cast<uint16_t>(mant >> 42));
  }
  if (exp == 0 && mant == 0) return sign;  // +-0
  // Value = 1.mant * 2^(exp-1023) (double subnormals are far below binary16 range: they round to 0)
  const int e = exp - 1023;
  if (e > 15) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 2^16: overflow to infinity
  // Build the significand with the implicit bit: 53 bits.
  const uint64_t sig = (exp == 0 ? mant : (mant | (uint64_t{1} << 52)));
  // Target: binary16 normal has 11 significant bits (exponent -14..15); subnormal quantum 2^-24.
  // Number of low bits of `sig` to drop so that the kept integer counts units of the result's ulp.
  int shift;
  if (e >= -14) {
    shift = 52 - 10;  // keep 11 bits
  } else {
    shift = 52 - 10 + (-14 - e);  // subnormal: fewer bits kept
    if (exp == 0) shift = 64;     // double subnormal: far below half of the smallest subnormal
  }
  if (shift >= 64) return sign;  // rounds to zero (|x| < 2^-25 here, below half the min subnormal)
  uint64_t kept = sig >> shift;
  const uint64_t rem = sig & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  if (rem > half || (rem == half && (kept & 1u))) ++kept;
  // Compose: for normals kept is in [2^10, 2^11] (2^11 after a carry); for subnormals [0, 2^10].
  uint32_t bits;
  if (e >= -14) {
    int biased = e + 15;
    if (kept == (uint64_t{1} << 11)) {  // carry into the next binade
      kept >>= 1;
      ++biased;
    }
    if (biased >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
    bits = (static_cast<uint32_t>(biased) << 10) | static_cast<uint32_t>(kept & 0x3ffu);
  } else {
    // kept == 2^10 means it rounded up to the smallest normal: the encoding is continuous.
    bits = static_cast<uint32_t>(kept);
  }
  return static_cast<uint16_t>(sign | bits);
}

double Float16BitsToDouble(uint16_t h) {
  const bool neg = (h & 0x8000u) != 0;
  const int exp = (h >> 10) & 0x1f;
  const int mant = h & 0x3ff;
  double v;
  if (exp == 0x1f) {
    v = mant == 0 ? std::numeric_limits<double>::infinity()
                  : std::numeric_limits<double>::quiet_NaN();
  } else if (exp == 0) {
    v = std::ldexp(static_cast<double>(mant), -24);
  } else {
    v = std::ldexp(static_cast<double>(mant | 0x400), exp - 25);
  }
  return neg ? -v : v;
}

Float16 Float16::FromDouble(double x) { return Float16{Float16BitsFromDouble(x)}; }
// float -> double is exact, so this is a single rounding.
Float16 Float16::FromFloat(float x) {
  return Float16{Float16BitsFromDouble(static_cast<double>(x))};
}
double Float16::ToDouble() const { return Float16BitsToDouble(bits); }
float Float16::ToFloat() const { return static_cast<float>(Float16BitsToDouble(bits)); }

}  // namespace nnref
