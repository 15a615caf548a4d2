#include "numerics/cast.h"

namespace nnref {

double MLNumber::AsDouble() const {
  switch (kind) {
    case Kind::kDouble:
      return d;
    case Kind::kInt64:
      return static_cast<double>(i);
    case Kind::kUint64:
      return static_cast<double>(u);
  }
  return d;
}

namespace {

// ConvertToInt(x, N, signedness) for a double x: clamp to [lo, hi], then round half to even.
template <typename T>
T ConvertDoubleToInt(double x) {
  if (std::isnan(x)) return T{0};
  constexpr int kBits = static_cast<int>(sizeof(T) * 8);
  const double lo = std::is_signed_v<T> ? -std::ldexp(1.0, kBits - 1) : 0.0;
  const double hi_excl = std::ldexp(1.0, std::is_signed_v<T> ? kBits - 1 : kBits);
  if (x <= lo) return std::numeric_limits<T>::min();
  // hi = hi_excl - 1 may not be representable as a double (64-bit); anything that rounds to
  // hi_excl or beyond clamps to max.
  const double r = std::nearbyint(x);  // default rounding mode: ties to even
  if (r >= hi_excl) return std::numeric_limits<T>::max();
  if (r <= lo) return std::numeric_limits<T>::min();
  return static_cast<T>(r);
}

// ConvertToInt for an exact integer: clamp.
template <typename T, typename I>
T ClampInteger(I v) {
  using L = std::numeric_limits<T>;
  if constexpr (std::is_signed_v<I>) {
    if (v < 0) {
      if constexpr (std::is_unsigned_v<T>) return T{0};
      if (static_cast<__int128>(v) < static_cast<__int128>(L::min())) return L::min();
      return static_cast<T>(v);
    }
  }
  if (static_cast<unsigned __int128>(v) > static_cast<unsigned __int128>(L::max())) return L::max();
  return static_cast<T>(v);
}

}  // namespace

template <typename T>
T CastNumber(const MLNumber& n) {
  if constexpr (kIsFloatStorage<T>) {
    switch (n.kind) {
      case MLNumber::Kind::kDouble:
        return RoundTo<T>(n.d);
      case MLNumber::Kind::kInt64:
        return CastElement<T>(n.i).value;
      case MLNumber::Kind::kUint64:
        return CastElement<T>(n.u).value;
    }
    return T{};
  } else {
    switch (n.kind) {
      case MLNumber::Kind::kDouble:
        return ConvertDoubleToInt<T>(n.d);
      case MLNumber::Kind::kInt64:
        return ClampInteger<T>(n.i);
      case MLNumber::Kind::kUint64:
        return ClampInteger<T>(n.u);
    }
    return T{};
  }
}

template float CastNumber<float>(const MLNumber&);
template Float16 CastNumber<Float16>(const MLNumber&);
template int32_t CastNumber<int32_t>(const MLNumber&);
template uint32_t CastNumber<uint32_t>(const MLNumber&);
template int64_t CastNumber<int64_t>(const MLNumber&);
template uint64_t CastNumber<uint64_t>(const MLNumber&);
template int8_t CastNumber<int8_t>(const MLNumber&);
template uint8_t CastNumber<uint8_t>(const MLNumber&);

}  // namespace nnref
