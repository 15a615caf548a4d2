// The fast path of the accumulating kernels (ops/bounded_sum.h): sums built to land exactly on,
// and within a hair of, float32 and float16 rounding midpoints, where a plain double sum rounds
// the wrong way and the error bound must hand the decision to the exact path. Every result is
// checked against an exact computation done here: the terms are integers times 2^-110, summed
// exactly in __int128, and the nearest float32/float16 (ties to even) is picked by comparing exact
// integer distances.
#include "ops/bounded_sum.h"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "numerics/cast.h"
#include "ops/conv2d.h"

namespace nnref {
namespace {

// splitmix64 (the test's own random source).
struct SplitMix64 {
  uint64_t state;
  explicit SplitMix64(uint64_t seed) : state(seed) {}
  uint64_t Next() {
    state += 0x9E3779B97F4A7C15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double NextUnit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
};

constexpr int kScale = 110;  // exact values are N * 2^-kScale

// v * 2^kScale as an exact integer (v a float32/float16 value with exponent >= -kScale).
__int128 Scaled(double v) {
  if (v == 0) return 0;
  int e = 0;
  const double m = std::frexp(v, &e);                    // v = m * 2^e, 0.5 <= |m| < 1
  auto mant = static_cast<__int128>(std::ldexp(m, 53));  // exact: 53-bit integer
  int shift = e - 53 + kScale;
  while (shift < 0 && mant % 2 == 0) {  // drop trailing zero bits
    mant /= 2;
    ++shift;
  }
  REQUIRE(shift >= 0);
  REQUIRE(shift <= 73);  // |result| < 2^126
  return mant * (static_cast<__int128>(1) << shift);
}

__int128 Abs(__int128 v) { return v < 0 ? -v : v; }

// The nearest T to N * 2^-kScale, ties to the even significand.
template <typename T>
T NearestExact(__int128 n) {
  const double approx = std::ldexp(static_cast<double>(n), -kScale);  // within an ulp or so
  std::vector<T> candidates;
  if constexpr (std::is_same_v<T, float>) {
    const auto f = static_cast<float>(approx);
    const float inf = std::numeric_limits<float>::infinity();
    candidates = {std::nextafter(f, -inf), f, std::nextafter(f, inf)};
  } else {
    const Float16 h = Float16::FromDouble(approx);
    const uint16_t bits = h.bits;
    // Adjacent binary16 values of the same sign (the sums here stay away from zero).
    candidates = {Float16::FromBits(static_cast<uint16_t>(bits - 1)), h,
                  Float16::FromBits(static_cast<uint16_t>(bits + 1))};
  }
  T best = candidates[1];
  __int128 best_distance = -1;
  bool best_even = false;
  for (const T c : candidates) {
    const __int128 d = Abs(n - Scaled(ToDouble(c)));
    uint64_t bits;
    if constexpr (std::is_same_v<T, float>) {
      bits = std::bit_cast<uint32_t>(c);
    } else {
      bits = c.bits;
    }
    const bool even = (bits & 1) == 0;
    if (best_distance < 0 || d < best_distance || (d == best_distance && even && !best_even)) {
      best = c;
      best_distance = d;
      best_even = even;
    }
  }
  return best;
}

template <typename T>
uint64_t Bits(T v) {
  if constexpr (std::is_same_v<T, float>) {
    return std::bit_cast<uint32_t>(v);
  } else {
    return v.bits;
  }
}

// One window's terms: [L, a, +-half ulp of a, tiny, -L] times a sign. a is a random value of T in
// [1, 2), so a + half_ulp is a rounding midpoint of T; tiny is 0 (exactly on the midpoint) or
// +-2^-k half ulps (just above or below it), far below what a double sum keeps when k is large.
template <typename T>
std::vector<double> MidpointTerms(SplitMix64& rng, int significand_bits, int max_k,
                                  bool cancellation) {
  const double ulp = std::ldexp(1.0, 1 - significand_bits);  // of values in [1, 2)
  const double a = 1.0 + std::floor(rng.NextUnit() * std::ldexp(1.0, significand_bits - 1)) * ulp;
  const double half = (rng.Next() & 1 ? 1 : -1) * ulp / 2;
  const auto k = static_cast<int>(rng.Next() % static_cast<uint64_t>(max_k + 1));
  const double tiny = k == 0 ? 0.0 : (rng.Next() & 1 ? 1 : -1) * std::ldexp(ulp / 2, -k);
  const double big = cancellation ? std::ldexp(1.0, static_cast<int>(rng.Next() % 13)) : 0.0;
  const double sign = rng.Next() & 1 ? 1 : -1;
  std::vector<double> t = {big, a, half, tiny, -big};
  for (double& v : t) {
    v *= sign;
    REQUIRE(ToDouble(RoundTo<T>(v)) == v);  // every term is a value of T
  }
  return t;
}

// conv2d of a 1x1 image of ones with a 1x1 filter per output channel holding that channel's
// terms (and optionally a bias holding the last term): output channel o is exactly the sum of
// its terms, rounded once.
template <typename T>
void CheckConvMidpoints(DataType type, int significand_bits, int max_k, uint64_t seed) {
  constexpr uint64_t kChannels = 512;
  SplitMix64 rng(seed);
  for (const bool with_bias : {false, true}) {
    const uint64_t c_in = with_bias ? 4 : 5;
    Tensor x = Tensor::Allocate(type, {1, c_in, 1, 1});
    Tensor w = Tensor::Allocate(type, {kChannels, c_in, 1, 1});
    Tensor bias = Tensor::Allocate(type, {kChannels});
    for (uint64_t c = 0; c < c_in; ++c) x.base<T>()[c] = RoundTo<T>(1.0);
    std::vector<__int128> exact(kChannels);
    uint64_t on_midpoint = 0;  // sums exactly on a midpoint: the bound can never decide them
    for (uint64_t o = 0; o < kChannels; ++o) {
      const std::vector<double> t = MidpointTerms<T>(rng, significand_bits, max_k, o % 2 == 1);
      on_midpoint += t[3] == 0 ? 1 : 0;
      exact[o] = 0;
      for (size_t i = 0; i < t.size(); ++i) {
        exact[o] += Scaled(t[i]);
        if (i < c_in) {
          w.base<T>()[o * c_in + i] = RoundTo<T>(t[i]);
        } else {
          bias.base<T>()[o] = RoundTo<T>(t[i]);
        }
      }
    }
    GraphBuilder b;
    const Operand xo = b.Input("x", {type, {1, c_in, 1, 1}});
    const Operand wo = b.Constant({type, {kChannels, c_in, 1, 1}}, w);
    MLConv2dOptions options;
    if (with_bias) options.bias = b.Constant({type, {kChannels}}, bias);
    const auto graph = b.Build({{"y", Conv2d(b, xo, wo, options)}});
    const uint64_t fallbacks_before = bound_fallbacks.load();
    const Tensor y = graph->Compute({{"x", x}}).at("y").data;
    const uint64_t fallbacks = bound_fallbacks.load() - fallbacks_before;
    // Both paths ran: the exact midpoints (and those within the bound) fell back, the others
    // were decided by the plain sum.
    CHECK(on_midpoint > 0);
    CHECK(fallbacks >= on_midpoint);
    CHECK(fallbacks < kChannels);
    for (uint64_t o = 0; o < kChannels; ++o) {
      const T want = NearestExact<T>(exact[o]);
      INFO("output channel " << o << " bias " << with_bias);
      CHECK(Bits(y.base<T>()[o]) == Bits(want));
    }
  }
}

TEST_CASE("bounded sum: a midpoint within the bound is left to the exact path") {
  // 1 + 2^-24 is the float32 midpoint between 1 and 1 + 2^-23.
  float out = 0;
  CHECK_FALSE(RoundWithinBound(1.0 + 0x1p-24, 0x1p-60, out));
  CHECK_FALSE(RoundWithinBound(1.0 + 0x1p-24 + 0x1p-45, 0x1p-44, out));  // bound reaches it
  REQUIRE(RoundWithinBound(1.0 + 0x1p-24 + 0x1p-45, 0x1p-46, out));      // bound stops short
  CHECK(out == 1.0f + 0x1p-23f);
  REQUIRE(RoundWithinBound(1.0 + 0x1p-24 - 0x1p-45, 0x1p-46, out));
  CHECK(out == 1.0f);
  // A bound below the value's own rounding is raised to 2^-51 |value|: the midpoint stays
  // undecided even when the caller's bound would vanish in value - bound.
  CHECK_FALSE(RoundWithinBound(1.0 + 0x1p-24 + 0x1p-52, 0.0, out));
  // Zero within the bound (its sign), a non-finite value and an infinite bound.
  CHECK_FALSE(RoundWithinBound(0x1p-80, 0x1p-70, out));
  CHECK_FALSE(RoundWithinBound(kInfinity, 0.0, out));
  CHECK_FALSE(RoundWithinBound(1.0, kInfinity, out));
  // float16: 1 + 2^-11 is the midpoint between 1 and 1 + 2^-10.
  Float16 h;
  CHECK_FALSE(RoundWithinBound(1.0 + 0x1p-11, 0x1p-40, h));
  REQUIRE(RoundWithinBound(1.0 + 0x1p-11 + 0x1p-30, 0x1p-40, h));
  CHECK(h.ToDouble() == 1.0 + 0x1p-10);
}

TEST_CASE("bounded sum: the running bound covers the plain sum's error") {
  // 1 + 2^-24 + 2^-60: the plain double sum is the midpoint 1 + 2^-24 (2^-60 is lost), which
  // rounds to even (1); the exact sum rounds up. The bound must not decide.
  BoundedSum s;
  for (double t : {1.0, 0x1p-24, 0x1p-60}) s.Add(t);
  CHECK(s.sum == 1.0 + 0x1p-24);
  float out = 0;
  CHECK_FALSE(s.Round(out));
  BoundedSum clear;
  for (double t : {1.0, 0x1p-22, 0x1p-60}) clear.Add(t);
  REQUIRE(clear.Round(out));
  CHECK(out == 1.0f + 0x1p-22f);
}

TEST_CASE("conv2d: sums on and next to float32 midpoints are correctly rounded") {
  CheckConvMidpoints<float>(DataType::kFloat32, 24, 60, 1);
}

TEST_CASE("conv2d: sums on and next to float16 midpoints are correctly rounded") {
  CheckConvMidpoints<Float16>(DataType::kFloat16, 11, 13, 2);
}

}  // namespace
}  // namespace nnref
