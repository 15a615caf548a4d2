// Tests of numerics/ulp. Expected distances are derived by hand, by counting steps of
// std::nextafter, or (float16) from positions in a sorted list of all distinct finite values.
#include "numerics/ulp.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace nnref {
namespace {

// Hex text for failure messages (doctest's message builder ignores stream manipulators).
std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kMax = std::numeric_limits<float>::max();
constexpr float kDenorm = std::numeric_limits<float>::denorm_min();

float F(uint32_t bits) { return std::bit_cast<float>(bits); }
Float16 H(uint16_t bits) { return Float16::FromBits(bits); }
double Widen(uint16_t b) { return static_cast<double>(std::bit_cast<_Float16>(b)); }

TEST_CASE("UlpDistanceFloat32: hand-derived distances") {
  CHECK(UlpDistanceFloat32(1.0f, 1.0f) == 0);
  CHECK(UlpDistanceFloat32(1.0f, std::nextafter(1.0f, 2.0f)) == 1);
  CHECK(UlpDistanceFloat32(std::nextafter(1.0f, 0.0f), 1.0f) == 1);  // across a binade boundary
  CHECK(UlpDistanceFloat32(1.0f, 2.0f) == uint64_t{1} << 23);        // 2^23 floats in [1, 2)
  CHECK(UlpDistanceFloat32(2.0f, 1.0f) == uint64_t{1} << 23);
  CHECK(UlpDistanceFloat32(1.0f, 4.0f) == uint64_t{1} << 24);
  CHECK(UlpDistanceFloat32(-1.0f, -2.0f) == uint64_t{1} << 23);
  // Crossing zero counts both sides; +0 and -0 share one position.
  CHECK(UlpDistanceFloat32(kDenorm, -kDenorm) == 2);
  CHECK(UlpDistanceFloat32(0.0f, -0.0f) == 0);
  CHECK(UlpDistanceFloat32(-0.0f, kDenorm) == 1);
  CHECK(UlpDistanceFloat32(0.0f, -kDenorm) == 1);
  // Subnormal/normal boundary: the largest subnormal and the smallest normal are adjacent.
  CHECK(UlpDistanceFloat32(F(0x007fffffu), F(0x00800000u)) == 1);
  // 0 to 1.0: 1.0 is at position 0x3f800000.
  CHECK(UlpDistanceFloat32(0.0f, 1.0f) == 0x3f800000u);
  CHECK(UlpDistanceFloat32(-1.0f, 1.0f) == 2 * uint64_t{0x3f800000u});
  CHECK(UlpDistanceFloat32(-kMax, kMax) == 2 * uint64_t{0x7f7fffffu});
}

TEST_CASE("UlpDistanceFloat32: NaN and infinities") {
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  const float nan2 = F(0x7f800001u), nan3 = F(0xffc12345u);
  CHECK(UlpDistanceFloat32(qnan, nan2) == 0);  // any NaN matches any NaN
  CHECK(UlpDistanceFloat32(nan3, qnan) == 0);
  CHECK(UlpDistanceFloat32(qnan, qnan) == 0);
  CHECK(UlpDistanceFloat32(qnan, 1.0f) == kInfiniteDistance);
  CHECK(UlpDistanceFloat32(1.0f, nan3) == kInfiniteDistance);
  CHECK(UlpDistanceFloat32(qnan, kInf) == kInfiniteDistance);
  CHECK(UlpDistanceFloat32(qnan, 0.0f) == kInfiniteDistance);
  CHECK(UlpDistanceFloat32(kInf, kInf) == 0);
  CHECK(UlpDistanceFloat32(-kInf, -kInf) == 0);
  CHECK(UlpDistanceFloat32(kInf, -kInf) == kInfiniteDistance);
  // In the bit ordering infinity is adjacent to the largest finite value; it still does not match.
  CHECK(UlpDistanceFloat32(kInf, kMax) == kInfiniteDistance);
  CHECK(UlpDistanceFloat32(kMax, kInf) == kInfiniteDistance);
  CHECK(UlpDistanceFloat32(-kInf, -kMax) == kInfiniteDistance);
  CHECK(UlpDistanceFloat32(kInf, 0.0f) == kInfiniteDistance);
}

TEST_CASE("UlpDistanceFloat32: k steps of nextafter are k ULP apart") {
  const float starts[] = {0.0f,   -0.0f,  kDenorm, -kDenorm, F(0x007ffff0u), 1.0f,    -1.0f,
                          0.999f, 1e-38f, -1e-38f, 65504.0f, -3.0e38f,       123.456f};
  for (const float start : starts) {
    for (const float dir : {kInf, -kInf}) {
      float x = start;
      for (uint64_t k = 1; k <= 2000; ++k) {
        x = std::nextafter(x, dir);
        if (x == 0.0f) x = -x;  // ... nextafter may hand back either zero; both are one position
        if (UlpDistanceFloat32(start, x) != k || UlpDistanceFloat32(x, start) != k) {
          FAIL_CHECK("start " << start << ", " << k << " steps toward " << dir << ": distance "
                              << UlpDistanceFloat32(start, x));
          break;
        }
      }
    }
  }
}

TEST_CASE("UlpDistanceFloat16: hand-derived distances") {
  CHECK(UlpDistanceFloat16(H(0x3c00), H(0x3c00)) == 0);
  CHECK(UlpDistanceFloat16(H(0x3c00), H(0x3c01)) == 1);
  CHECK(UlpDistanceFloat16(H(0x3bff), H(0x3c00)) == 1);
  CHECK(UlpDistanceFloat16(H(0x3c00), H(0x4000)) == 1024);  // 1.0 vs 2.0
  CHECK(UlpDistanceFloat16(H(0xc000), H(0xbc00)) == 1024);  // -2.0 vs -1.0
  CHECK(UlpDistanceFloat16(H(0x0001), H(0x8001)) == 2);
  CHECK(UlpDistanceFloat16(H(0x0000), H(0x8000)) == 0);
  CHECK(UlpDistanceFloat16(H(0x8000), H(0x0001)) == 1);
  CHECK(UlpDistanceFloat16(H(0x03ff), H(0x0400)) == 1);
  CHECK(UlpDistanceFloat16(H(0x7bfe), H(0x7bff)) == 1);
  CHECK(UlpDistanceFloat16(H(0xfbff), H(0x7bff)) == 2 * 0x7bff);
}

TEST_CASE("UlpDistanceFloat16: NaN and infinities") {
  CHECK(UlpDistanceFloat16(H(0x7e00), H(0x7c01)) == 0);
  CHECK(UlpDistanceFloat16(H(0xfe00), H(0x7fff)) == 0);
  CHECK(UlpDistanceFloat16(H(0x7e00), H(0x3c00)) == kInfiniteDistance);
  CHECK(UlpDistanceFloat16(H(0x3c00), H(0xfc01)) == kInfiniteDistance);
  CHECK(UlpDistanceFloat16(H(0x7e00), H(0x7c00)) == kInfiniteDistance);
  CHECK(UlpDistanceFloat16(H(0x7c00), H(0x7c00)) == 0);
  CHECK(UlpDistanceFloat16(H(0xfc00), H(0xfc00)) == 0);
  CHECK(UlpDistanceFloat16(H(0x7c00), H(0xfc00)) == kInfiniteDistance);
  CHECK(UlpDistanceFloat16(H(0x7c00), H(0x7bff)) == kInfiniteDistance);
  CHECK(UlpDistanceFloat16(H(0x7bff), H(0x7c00)) == kInfiniteDistance);
  CHECK(UlpDistanceFloat16(H(0xfbff), H(0xfc00)) == kInfiniteDistance);
}

TEST_CASE("UlpDistanceFloat16: equals the distance in the sorted list of distinct finite values") {
  // The sorted list of distinct finite float16 values (one zero), built from g++'s widening.
  std::vector<double> values;
  for (uint32_t b = 0; b <= 0xffffu; ++b) {
    const double v = Widen(static_cast<uint16_t>(b));
    if (std::isfinite(v)) values.push_back(v);
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());  // -0 == +0
  CHECK(values.size() == 2 * 0x7c00 - 1);
  auto position = [&](uint16_t b) {
    return static_cast<uint64_t>(std::lower_bound(values.begin(), values.end(), Widen(b)) -
                                 values.begin());
  };
  std::vector<uint16_t> finite;
  for (uint32_t b = 0; b <= 0xffffu; ++b) {
    if (std::isfinite(Widen(static_cast<uint16_t>(b)))) finite.push_back(static_cast<uint16_t>(b));
  }
  uint64_t state = 1;
  int mismatches = 0;
  for (int i = 0; i < 300000; ++i) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    const uint16_t a = finite[(state >> 33) % finite.size()];
    const uint16_t b = finite[(state >> 13) % finite.size()];
    const uint64_t pa = position(a), pb = position(b);
    const uint64_t want = pa > pb ? pa - pb : pb - pa;
    if (UlpDistanceFloat16(H(a), H(b)) != want && ++mismatches <= 5) {
      FAIL_CHECK(Hex(a) << " vs " << Hex(b) << ": got " << UlpDistanceFloat16(H(a), H(b))
                        << ", expected " << want);
    }
  }
  // Every adjacent pair in the list is 1 apart.
  for (uint16_t b = 0; b < 0x7bff; ++b) {
    if (UlpDistanceFloat16(H(b), H(static_cast<uint16_t>(b + 1))) != 1 ||
        UlpDistanceFloat16(H(static_cast<uint16_t>(b | 0x8000)),
                           H(static_cast<uint16_t>((b + 1) | 0x8000))) != 1) {
      ++mismatches;
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("IntegerDistance") {
  CHECK(IntegerDistance(int64_t{INT64_MIN}, int64_t{INT64_MAX}) == UINT64_MAX);  // 2^64 - 1
  CHECK(IntegerDistance(int64_t{INT64_MAX}, int64_t{INT64_MIN}) == UINT64_MAX);
  CHECK(IntegerDistance(int64_t{-3}, int64_t{4}) == 7);
  CHECK(IntegerDistance(int64_t{5}, int64_t{3}) == 2);
  CHECK(IntegerDistance(int64_t{3}, int64_t{3}) == 0);
  CHECK(IntegerDistance(int64_t{INT64_MIN}, int64_t{0}) == uint64_t{1} << 63);
  CHECK(IntegerDistance(int64_t{-1}, int64_t{INT64_MIN}) == (uint64_t{1} << 63) - 1);
  CHECK(IntegerDistance(uint64_t{0}, uint64_t{UINT64_MAX}) == UINT64_MAX);
  CHECK(IntegerDistance(uint64_t{UINT64_MAX}, uint64_t{1}) == UINT64_MAX - 1);
  CHECK(IntegerDistance(uint64_t{7}, uint64_t{10}) == 3);
}

}  // namespace
}  // namespace nnref
