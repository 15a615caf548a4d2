// Casting (WebNN §algorithms-casting and the table of §api-mlgraphbuilder-cast).
//
// Two different things are called "cast" in the spec:
//  1. The cast() operator's element table: float->float and int->float round to nearest
//     (overflow to +-Infinity); float->int truncates when in range and is implementation-defined
//     otherwise; int->int keeps the low N bits (two's complement).
//  2. The "cast" algorithm applied to MLNumber parameters (clamp's minValue, constant(type,value)):
//     ConvertToFloat rounds to nearest even; ConvertToInt clamps to the type's range and then
//     rounds half to even (NaN -> 0).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "numerics/dtype.h"
#include "numerics/float16.h"

namespace nnref {

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Widening to double (exact for float16/float32; exact for integers up to 2^53).
template <typename T>
inline double ToDouble(T v) {
  if constexpr (std::is_same_v<T, Float16>) {
    return v.ToDouble();
  } else {
    return static_cast<double>(v);
  }
}

// Rounds a double once to a floating storage type (round to nearest even, overflow to +-Inf).
template <typename T>
inline T RoundTo(double x) {
  static_assert(kIsFloatStorage<T>);
  if constexpr (std::is_same_v<T, Float16>) {
    return Float16::FromDouble(x);
  } else {
    return static_cast<float>(x);  // IEEE conversion: correctly rounded, RNE
  }
}

// Result of one element conversion; `implementation_defined` is set where the spec leaves the
// value open (out-of-range float -> int). The value is then the reference's choice (saturation,
// NaN -> 0), which comparison does not enforce.
template <typename T>
struct CastResult {
  T value;
  bool implementation_defined = false;
};

template <typename T>
constexpr bool kIsIntStorage = std::is_integral_v<T>;

// The cast() operator element table.
template <typename To, typename From>
CastResult<To> CastElement(From v) {
  if constexpr (kIsFloatStorage<To>) {
    if constexpr (kIsFloatStorage<From>) {
      return {RoundTo<To>(ToDouble(v))};
    } else if constexpr (std::is_same_v<To, float>) {
      return {static_cast<float>(v)};  // one correctly rounded int -> float conversion
    } else {
      // int -> float16: every integer of magnitude >= 65520 rounds to infinity, and smaller ones
      // are exact in double, so going through double rounds once.
      if constexpr (sizeof(From) == 8) {
        if (v > From{65536}) return {Float16::FromBits(0x7c00)};
        if constexpr (std::is_signed_v<From>) {
          if (v < From{-65536}) return {Float16::FromBits(0xfc00)};
        }
      }
      return {Float16::FromDouble(static_cast<double>(v))};
    }
  } else {
    if constexpr (kIsFloatStorage<From>) {
      const double d = ToDouble(v);
      const double t = std::trunc(d);
      // Range test on exact doubles: lo = -2^(N-1) or 0, hi_excl = 2^N or 2^(N-1).
      constexpr int kBits = static_cast<int>(sizeof(To) * 8);
      const double lo = std::is_signed_v<To> ? -std::ldexp(1.0, kBits - 1) : 0.0;
      const double hi_excl = std::ldexp(1.0, std::is_signed_v<To> ? kBits - 1 : kBits);
      if (std::isnan(d)) return {To{0}, true};
      if (t < lo) return {std::numeric_limits<To>::min(), true};
      if (t >= hi_excl) return {std::numeric_limits<To>::max(), true};
      return {static_cast<To>(t)};
    } else {
      // Low N bits, two's complement (C++20 defines integral conversion as modulo 2^N).
      return {static_cast<To>(v)};
    }
  }
}

// An MLNumber (WebNN §api-mlnumber-typedef): a double, or an exact integer from a bigint or a
// decimal string.
struct MLNumber {
  enum class Kind : uint8_t { kDouble, kInt64, kUint64 } kind = Kind::kDouble;
  double d = 0;
  int64_t i = 0;
  uint64_t u = 0;

  static MLNumber FromDouble(double v) { return {Kind::kDouble, v, 0, 0}; }
  static MLNumber FromInt64(int64_t v) { return {Kind::kInt64, 0, v, 0}; }
  static MLNumber FromUint64(uint64_t v) { return {Kind::kUint64, 0, 0, v}; }
  // Approximate value as a double (exact for doubles and integers up to 2^53).
  double AsDouble() const;
};

// The spec's cast algorithm applied to an MLNumber, giving an element of storage type T.
// For uint32 the spec text says "signed" (spec-notes #1); we convert as unsigned.
template <typename T>
T CastNumber(const MLNumber& n);

// Exact comparison a > b of two values of the same storage type (used by clamp's validation).
template <typename T>
bool GreaterThan(T a, T b) {
  if constexpr (std::is_same_v<T, Float16>) {
    return a.ToDouble() > b.ToDouble();
  } else {
    return a > b;
  }
}

}  // namespace nnref
