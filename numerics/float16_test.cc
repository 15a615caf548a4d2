// Tests of numerics/float16: exhaustive widening and round trip over all 65,536 bit patterns, and
// rounding at every midpoint between adjacent float16 values. The independent oracle is g++'s
// _Float16 (libgcc's __extendhfdf2 / __truncdfhf2 / __truncsfhf2, which convert directly, without
// going through float), plus hand-derived values.
#include "numerics/float16.h"

#include <doctest/doctest.h>

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

// --- the oracle -------------------------------------------------------------------------------

uint16_t GccFromDouble(double x) { return std::bit_cast<uint16_t>(static_cast<_Float16>(x)); }
uint16_t GccFromFloat(float x) { return std::bit_cast<uint16_t>(static_cast<_Float16>(x)); }
double GccToDouble(uint16_t b) { return static_cast<double>(std::bit_cast<_Float16>(b)); }

bool IsNanBits(uint16_t b) { return (b & 0x7c00u) == 0x7c00u && (b & 0x03ffu) != 0; }
uint64_t DoubleBits(double x) { return std::bit_cast<uint64_t>(x); }

// 64-bit SplitMix: deterministic pseudo-random inputs.
struct SplitMix64 {
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
  }
};

TEST_CASE("float16 oracle: g++ converts double -> _Float16 with a single rounding") {
  // x = 1 + 2^-11 + 2^-40 lies just above the midpoint between 1 (0x3c00) and 1 + 2^-10 (0x3c01).
  // One rounding gives 0x3c01; rounding to float first loses 2^-40 and then ties to even, 0x3c00.
  const double x = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  CHECK(GccFromDouble(x) == 0x3c01);
  CHECK(GccFromFloat(static_cast<float>(x)) == 0x3c00);
  CHECK(Float16BitsFromDouble(x) == 0x3c01);
  CHECK(Float16::FromDouble(x).bits == 0x3c01);
}

TEST_CASE("float16 widening: hand-derived values") {
  CHECK(Float16BitsToDouble(0x0000) == 0.0);
  CHECK(!std::signbit(Float16BitsToDouble(0x0000)));
  CHECK(Float16BitsToDouble(0x8000) == 0.0);
  CHECK(std::signbit(Float16BitsToDouble(0x8000)));
  CHECK(Float16BitsToDouble(0x3c00) == 1.0);
  CHECK(Float16BitsToDouble(0xc000) == -2.0);
  CHECK(Float16BitsToDouble(0x3555) == 0.333251953125);  // 0x555 = 1365: (1024+341)/1024 * 2^-2
  CHECK(Float16BitsToDouble(0x7bff) == 65504.0);
  CHECK(Float16BitsToDouble(0xfbff) == -65504.0);
  CHECK(Float16BitsToDouble(0x0001) == 0x1p-24);         // smallest subnormal
  CHECK(Float16BitsToDouble(0x03ff) == 1023 * 0x1p-24);  // largest subnormal
  CHECK(Float16BitsToDouble(0x0400) == 0x1p-14);         // smallest normal
  CHECK(Float16BitsToDouble(0x7c00) == std::numeric_limits<double>::infinity());
  CHECK(Float16BitsToDouble(0xfc00) == -std::numeric_limits<double>::infinity());
  CHECK(std::isnan(Float16BitsToDouble(0x7e00)));
  CHECK(std::isnan(Float16BitsToDouble(0x7c01)));
  CHECK(std::isnan(Float16BitsToDouble(0xffff)));
}

TEST_CASE("float16 widening: all 65,536 bit patterns match _Float16") {
  int mismatches = 0;
  for (uint32_t i = 0; i <= 0xffffu; ++i) {
    const auto b = static_cast<uint16_t>(i);
    const double want = GccToDouble(b);
    const double got = Float16BitsToDouble(b);
    const double got_member = Float16::FromBits(b).ToDouble();
    const double got_float = static_cast<double>(Float16::FromBits(b).ToFloat());
    bool ok;
    if (IsNanBits(b)) {
      ok = std::isnan(want) && std::isnan(got) && std::isnan(got_member) && std::isnan(got_float);
    } else {
      // Bitwise: distinguishes -0 from +0.
      ok = DoubleBits(got) == DoubleBits(want) && DoubleBits(got_member) == DoubleBits(want) &&
           DoubleBits(got_float) == DoubleBits(want);
    }
    if (!ok && ++mismatches <= 5) {
      FAIL_CHECK("bits " << Hex(i) << ": got " << got << ", _Float16 gives " << want);
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("float16 round trip: all 65,536 bit patterns") {
  int mismatches = 0;
  for (uint32_t i = 0; i <= 0xffffu; ++i) {
    const auto b = static_cast<uint16_t>(i);
    const double wide = GccToDouble(b);
    const uint16_t back = Float16BitsFromDouble(wide);
    const uint16_t back_float = Float16::FromFloat(static_cast<float>(wide)).bits;
    bool ok;
    if (IsNanBits(b)) {
      // NaN stays NaN and keeps its sign.
      ok = IsNanBits(back) && IsNanBits(back_float) && (back & 0x8000u) == (b & 0x8000u) &&
           (back_float & 0x8000u) == (b & 0x8000u);
    } else {
      ok = back == b && back_float == b;
    }
    if (!ok && ++mismatches <= 5) {
      FAIL_CHECK("bits " << Hex(i) << " came back as " << Hex(back) << " / " << Hex(back_float));
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("float16 rounding: every midpoint between adjacent finite values, and its neighbours") {
  // Positive finite encodings are ordered like their values, so b and b+1 are adjacent values for
  // b in [0, 0x7bfe]. At the midpoint the result is the neighbour with the even significand, which
  // is the one whose encoding is even (the encoding's low bit is the significand's low bit).
  int mismatches = 0;
  int64_t conversions = 0;
  auto expect = [&](double x, uint16_t want, const char* what) {
    ++conversions;
    const uint16_t got = Float16BitsFromDouble(x);
    const uint16_t gcc = GccFromDouble(x);
    if ((got != want || gcc != want) && ++mismatches <= 8) {
      FAIL_CHECK(what << " " << x << ": got " << Hex(got) << ", _Float16 " << Hex(gcc)
                      << ", expected " << Hex(want));
    }
  };
  auto expect_float = [&](float f, uint16_t want, const char* what) {
    ++conversions;
    const uint16_t got = Float16::FromFloat(f).bits;
    const uint16_t gcc = GccFromFloat(f);
    const uint16_t got_d = Float16BitsFromDouble(static_cast<double>(f));
    if ((got != want || gcc != want || got_d != want) && ++mismatches <= 8) {
      FAIL_CHECK(what << " " << f << ": got " << Hex(got) << ", _Float16 " << Hex(gcc)
                      << ", expected " << Hex(want));
    }
  };
  for (uint16_t lo = 0; lo <= 0x7bfe; ++lo) {
    const auto hi = static_cast<uint16_t>(lo + 1);
    const double a = GccToDouble(lo), c = GccToDouble(hi);
    const double mid = (a + c) / 2;  // exact: both have <= 11 significant bits
    const uint16_t tie = (lo & 1u) == 0 ? lo : hi;
    const double above = std::nextafter(mid, c), below = std::nextafter(mid, a);
    const auto midf = static_cast<float>(mid);
    if (static_cast<double>(midf) != mid) {  // every float16 midpoint is a float32 value
      FAIL_CHECK("midpoint " << mid << " is not a float");
      continue;
    }
    const float abovef = std::nextafter(midf, static_cast<float>(c));
    const float belowf = std::nextafter(midf, static_cast<float>(a));
    for (const uint16_t sign : {uint16_t{0}, uint16_t{0x8000}}) {
      const double s = sign ? -1.0 : 1.0;
      const float sf = sign ? -1.0f : 1.0f;
      const auto with_sign = [sign](uint16_t b) { return static_cast<uint16_t>(b | sign); };
      expect(s * a, with_sign(lo), "exact");
      expect(s * mid, with_sign(tie), "midpoint");
      expect(s * above, with_sign(hi), "above midpoint");
      expect(s * below, with_sign(lo), "below midpoint");
      expect_float(sf * midf, with_sign(tie), "float midpoint");
      expect_float(sf * abovef, with_sign(hi), "float above midpoint");
      expect_float(sf * belowf, with_sign(lo), "float below midpoint");
    }
  }
  CHECK(conversions == 0x7bff * 14);
  CHECK(mismatches == 0);
}

TEST_CASE("float16 rounding: pseudo-random doubles and floats across the range match _Float16") {
  SplitMix64 rng{42};
  int mismatches = 0;
  for (int i = 0; i < 200000; ++i) {
    // Exponent in [-45, 18]: covers values rounding to zero, subnormals, normals and overflow.
    const uint64_t r = rng.Next();
    const int e = static_cast<int>(r % 64) - 45;
    const double m = 1.0 + static_cast<double>(r >> 12) * 0x1p-52;
    const double x = std::ldexp((r & 0x40u) ? -m : m, e);
    const auto f = std::bit_cast<float>(static_cast<uint32_t>(rng.Next()));
    const bool ok_d = Float16BitsFromDouble(x) == GccFromDouble(x);
    const uint16_t gf = GccFromFloat(f), hf = Float16::FromFloat(f).bits;
    const bool ok_f =
        IsNanBits(gf) ? (IsNanBits(hf) && (hf & 0x8000u) == (gf & 0x8000u)) : hf == gf;
    if ((!ok_d || !ok_f) && ++mismatches <= 5) {
      FAIL_CHECK("double " << x << " or float " << f << " converts differently from _Float16");
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("float16 rounding: overflow") {
  CHECK(Float16BitsFromDouble(65504.0) == 0x7bff);
  CHECK(Float16BitsFromDouble(65519.99) == 0x7bff);
  CHECK(Float16BitsFromDouble(std::nextafter(65520.0, 0.0)) == 0x7bff);
  // 65520 is halfway between 65504 (odd significand 0x3ff) and 2^16 (even): rounds up, overflows.
  CHECK(Float16BitsFromDouble(65520.0) == 0x7c00);
  CHECK(Float16BitsFromDouble(-65520.0) == 0xfc00);
  CHECK(Float16BitsFromDouble(-65519.99) == 0xfbff);
  CHECK(Float16BitsFromDouble(65536.0) == 0x7c00);
  CHECK(Float16BitsFromDouble(1e300) == 0x7c00);
  CHECK(Float16BitsFromDouble(std::numeric_limits<double>::max()) == 0x7c00);
  CHECK(Float16BitsFromDouble(-std::numeric_limits<double>::max()) == 0xfc00);
  CHECK(Float16BitsFromDouble(std::numeric_limits<double>::infinity()) == 0x7c00);
  CHECK(Float16BitsFromDouble(-std::numeric_limits<double>::infinity()) == 0xfc00);
  CHECK(Float16::FromFloat(65520.0f).bits == 0x7c00);
  CHECK(Float16::FromFloat(std::nextafter(65520.0f, 0.0f)).bits == 0x7bff);
  CHECK(Float16::FromFloat(std::numeric_limits<float>::max()).bits == 0x7c00);
  CHECK(Float16::FromFloat(-std::numeric_limits<float>::infinity()).bits == 0xfc00);
}

TEST_CASE("float16 rounding: subnormals") {
  CHECK(Float16BitsFromDouble(0x1p-24) == 0x0001);
  CHECK(Float16BitsFromDouble(0x1p-25) == 0x0000);   // tie between 0 and 2^-24: to even, 0
  CHECK(Float16BitsFromDouble(-0x1p-25) == 0x8000);  // ... keeping the sign
  CHECK(Float16BitsFromDouble(std::nextafter(0x1p-25, 1.0)) == 0x0001);
  CHECK(Float16BitsFromDouble(3 * 0x1p-26) == 0x0001);  // 0.75 * 2^-24 rounds up
  CHECK(Float16BitsFromDouble(3 * 0x1p-25) == 0x0002);  // 1.5 * 2^-24: tie, to even 2
  CHECK(Float16BitsFromDouble(5 * 0x1p-25) == 0x0002);  // 2.5 * 2^-24: tie, to even 2
  CHECK(Float16BitsFromDouble(1023 * 0x1p-24) == 0x03ff);
  CHECK(Float16BitsFromDouble(1023.5 * 0x1p-24) == 0x0400);  // tie: up into the smallest normal
  CHECK(Float16BitsFromDouble(0x1p-14) == 0x0400);
  CHECK(Float16BitsFromDouble(0x1p-26) == 0x0000);
  CHECK(Float16BitsFromDouble(0x1p-35) == 0x0000);
  CHECK(Float16BitsFromDouble(0x1.fffffffffffffp-26) == 0x0000);  // just below 2^-25
  CHECK(Float16BitsFromDouble(-0x1p-40) == 0x8000);
  CHECK(Float16::FromFloat(0x1p-24f).bits == 0x0001);
  CHECK(Float16::FromFloat(0x1p-25f).bits == 0x0000);
  CHECK(Float16::FromFloat(0x1.000002p-25f).bits == 0x0001);
  CHECK(Float16::FromFloat(std::numeric_limits<float>::denorm_min()).bits == 0x0000);
  CHECK(Float16::FromFloat(-std::numeric_limits<float>::denorm_min()).bits == 0x8000);
}

TEST_CASE("float16 rounding: signed zero") {
  CHECK(Float16BitsFromDouble(0.0) == 0x0000);
  CHECK(Float16BitsFromDouble(-0.0) == 0x8000);
  CHECK(Float16::FromFloat(-0.0f).bits == 0x8000);
  CHECK(std::signbit(Float16::FromBits(0x8000).ToFloat()));
}

TEST_CASE("float16 rounding: double subnormals round to signed zero") {
  const double dmin = std::numeric_limits<double>::denorm_min();
  const double nmin = std::numeric_limits<double>::min();
  CHECK(Float16BitsFromDouble(dmin) == 0x0000);
  CHECK(Float16BitsFromDouble(-dmin) == 0x8000);
  CHECK(Float16BitsFromDouble(0x1p-1030) == 0x0000);
  CHECK(Float16BitsFromDouble(-0x1p-1030) == 0x8000);
  CHECK(Float16BitsFromDouble(std::nextafter(nmin, 0.0)) == 0x0000);  // largest double subnormal
  CHECK(Float16BitsFromDouble(nmin) == 0x0000);
  CHECK(Float16BitsFromDouble(-nmin) == 0x8000);
}

TEST_CASE("float16 rounding: NaN payloads stay NaN, sign kept") {
  const uint64_t doubles[] = {0x7ff8000000000000u, 0x7ff0000000000001u, 0x7ff4000000000000u,
                              0x7fffffffffffffffu, 0x7ff000000000f000u, 0x7ff0040000000000u};
  for (const uint64_t d : doubles) {
    for (const uint64_t sign : {uint64_t{0}, uint64_t{1} << 63}) {
      const uint16_t h = Float16BitsFromDouble(std::bit_cast<double>(d | sign));
      CAPTURE(d);
      CHECK(IsNanBits(h));
      CHECK((h & 0x8000u) == (sign ? 0x8000u : 0u));
    }
  }
  const uint32_t floats[] = {0x7fc00000u, 0x7f800001u, 0x7fa00000u, 0x7fffffffu, 0x7f801fffu};
  for (const uint32_t f : floats) {
    for (const uint32_t sign : {0u, 0x80000000u}) {
      const uint16_t h = Float16::FromFloat(std::bit_cast<float>(f | sign)).bits;
      CAPTURE(f);
      CHECK(IsNanBits(h));
      CHECK((h & 0x8000u) == (sign ? 0x8000u : 0u));
    }
  }
}

}  // namespace
}  // namespace nnref
