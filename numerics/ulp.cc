#include "numerics/ulp.h"

#include <bit>
#include <cmath>

namespace nnref {

namespace {

// Maps sign-magnitude bits to a monotonic integer line where -0 and +0 coincide.
int64_t OrderedPosition(uint64_t magnitude, bool negative) {
  const auto m = static_cast<int64_t>(magnitude);
  return negative ? -m : m;
}

uint64_t Distance(int64_t a, int64_t b) {
  return a > b ? static_cast<uint64_t>(a) - static_cast<uint64_t>(b)
               : static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
}

}  // namespace

uint64_t UlpDistanceFloat32(float a, float b) {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) return (na && nb) ? 0 : kInfiniteDistance;
  if (std::isinf(a) || std::isinf(b)) return a == b ? 0 : kInfiniteDistance;
  const uint32_t ba = std::bit_cast<uint32_t>(a), bb = std::bit_cast<uint32_t>(b);
  return Distance(OrderedPosition(ba & 0x7fffffffu, (ba >> 31) != 0),
                  OrderedPosition(bb & 0x7fffffffu, (bb >> 31) != 0));
}

uint64_t UlpDistanceFloat16(Float16 a, Float16 b) {
  const auto is_nan = [](uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; };
  const auto is_inf = [](uint16_t h) { return (h & 0x7fffu) == 0x7c00u; };
  const bool na = is_nan(a.bits), nb = is_nan(b.bits);
  if (na || nb) return (na && nb) ? 0 : kInfiniteDistance;
  if (is_inf(a.bits) || is_inf(b.bits)) return a.bits == b.bits ? 0 : kInfiniteDistance;
  return Distance(OrderedPosition(a.bits & 0x7fffu, (a.bits >> 15) != 0),
                  OrderedPosition(b.bits & 0x7fffu, (b.bits >> 15) != 0));
}

uint64_t IntegerDistance(int64_t a, int64_t b) {
  return a > b ? static_cast<uint64_t>(a) - static_cast<uint64_t>(b)
               : static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
}

uint64_t IntegerDistance(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

}  // namespace nnref
