// Tests of numerics/cast: the cast() element table (CastElement) for all 64 (from, to) pairs of
// storage types, and the spec's cast algorithm on MLNumbers (CastNumber).
//
// Independent oracles: x87 long double holds every value of all eight types exactly (64-bit
// significand), so "exact value, then one conversion by the compiler" (long double -> float,
// long double -> _Float16 via libgcc __truncxfhf2) is a second implementation of the float
// columns; truncl/rintl and clamping on exact long doubles give the integer columns; int->int is
// checked by copying the low bytes of the value's 64-bit two's complement representation. The
// literal expectations are derived by hand (comments give the derivation).
#include "numerics/cast.h"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace nnref {
namespace {

// Hex text for failure messages (doctest's message builder ignores stream manipulators).
std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

static_assert(std::endian::native == std::endian::little, "the int->int oracle copies low bytes");
static_assert(std::numeric_limits<long double>::digits >= 64, "the oracle needs x87 long double");

template <typename... Ts>
struct TypeList {};
using AllTypes = TypeList<float, Float16, int32_t, uint32_t, int64_t, uint64_t, int8_t, uint8_t>;
using IntTypes = TypeList<int32_t, uint32_t, int64_t, uint64_t, int8_t, uint8_t>;
template <typename... Ts, typename Fn>
void ForEachType(TypeList<Ts...>, Fn&& fn) {
  (fn.template operator()<Ts>(), ...);
}

struct SplitMix64 {
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
  }
};

// --- oracle helpers ------------------------------------------------------------------------------

Float16 H(double x) { return Float16::FromBits(std::bit_cast<uint16_t>(static_cast<_Float16>(x))); }
Float16 HBits(uint16_t b) { return Float16::FromBits(b); }

template <typename T>
long double Exact(T v) {
  if constexpr (std::is_same_v<T, Float16>) {
    return static_cast<long double>(static_cast<double>(std::bit_cast<_Float16>(v.bits)));
  } else {
    return static_cast<long double>(v);
  }
}

template <typename T>
T RoundExact(long double x) {  // one rounding of an exact value to a float type
  if constexpr (std::is_same_v<T, Float16>) {
    return Float16::FromBits(std::bit_cast<uint16_t>(static_cast<_Float16>(x)));
  } else {
    return static_cast<float>(x);
  }
}

template <typename T>
bool IsNan(T v) {
  if constexpr (std::is_same_v<T, Float16>) {
    return (v.bits & 0x7c00u) == 0x7c00u && (v.bits & 0x3ffu) != 0;
  } else if constexpr (std::is_same_v<T, float>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

template <typename T>
uint64_t BitsOf(T v) {
  if constexpr (std::is_same_v<T, Float16>) {
    return v.bits;
  } else if constexpr (std::is_same_v<T, float>) {
    return std::bit_cast<uint32_t>(v);
  } else {
    return static_cast<uint64_t>(v);
  }
}

// Same element: identical bits, or both NaN.
template <typename T>
bool Same(T a, T b) {
  return (IsNan(a) && IsNan(b)) || BitsOf(a) == BitsOf(b);
}

template <typename To, typename From>
CastResult<To> ExpectedElement(From v) {
  if constexpr (kIsFloatStorage<To>) {
    return {RoundExact<To>(Exact(v))};
  } else if constexpr (kIsFloatStorage<From>) {
    const long double x = Exact(v);
    using L = std::numeric_limits<To>;
    if (std::isnan(x)) return {To{0}, true};
    const long double t = std::trunc(x);
    if (t < static_cast<long double>(L::min())) return {L::min(), true};
    if (t > static_cast<long double>(L::max())) return {L::max(), true};
    return {static_cast<To>(t)};
  } else {
    // Low bytes of the 64-bit two's complement representation.
    std::conditional_t<std::is_signed_v<From>, int64_t, uint64_t> wide = v;
    To out;
    std::memcpy(&out, &wide, sizeof(To));
    return {out};
  }
}

// Interesting input values of each storage type.
template <typename T>
std::vector<T> Inputs() {
  std::vector<T> out;
  SplitMix64 rng{7};
  if constexpr (std::is_same_v<T, Float16>) {
    for (uint32_t b = 0; b <= 0xffffu; ++b) out.push_back(HBits(static_cast<uint16_t>(b)));
  } else if constexpr (std::is_same_v<T, float>) {
    const float inf = std::numeric_limits<float>::infinity();
    const float specials[] = {0.0f,
                              -0.0f,
                              0.9f,
                              -0.9f,
                              1.0f,
                              -1.0f,
                              2.9f,
                              -2.9f,
                              2.5f,
                              -2.5f,
                              127.9f,
                              128.0f,
                              -128.9f,
                              -129.0f,
                              255.9f,
                              256.0f,
                              -1.0f,
                              2147483520.0f,
                              2147483648.0f,
                              -2147483648.0f,
                              -2147483904.0f,
                              4294967040.0f,
                              4294967296.0f,
                              0x1.fffffep62f,
                              0x1p63f,
                              -0x1p63f,
                              -0x1.000002p63f,
                              0x1.fffffep63f,
                              0x1p64f,
                              65504.0f,
                              65519.99f,
                              65520.0f,
                              2049.0f,
                              0x1p-25f,
                              0x1.000002p-25f,
                              std::numeric_limits<float>::max(),
                              -std::numeric_limits<float>::max(),
                              std::numeric_limits<float>::denorm_min(),
                              inf,
                              -inf,
                              std::numeric_limits<float>::quiet_NaN(),
                              -std::numeric_limits<float>::quiet_NaN()};
    out.assign(std::begin(specials), std::end(specials));
    for (int i = 0; i < 100000; ++i) {
      out.push_back(std::bit_cast<float>(static_cast<uint32_t>(rng.Next())));
    }
    const float scales[] = {300.0f, 70000.0f, 5e9f, 2e19f};
    for (const float s : scales) {
      for (int i = 0; i < 20000; ++i) {
        const double u = static_cast<double>(rng.Next() >> 11) * 0x1p-53;  // [0, 1)
        out.push_back(static_cast<float>((2 * u - 1) * static_cast<double>(s)));
      }
    }
  } else {
    using L = std::numeric_limits<T>;
    const __int128 two64 = static_cast<__int128>(1) << 64;
    const __int128 candidates[] = {0,
                                   1,
                                   2,
                                   -1,
                                   -2,
                                   42,
                                   127,
                                   128,
                                   -128,
                                   -129,
                                   255,
                                   256,
                                   300,
                                   -300,
                                   2047,
                                   2048,
                                   2049,
                                   2050,
                                   2051,
                                   4097,
                                   65504,
                                   65505,
                                   65519,
                                   65520,
                                   65521,
                                   65535,
                                   65536,
                                   65537,
                                   -65519,
                                   -65520,
                                   -65536,
                                   -65537,
                                   (1 << 24),
                                   (1 << 24) + 1,
                                   (1 << 24) + 3,
                                   2147483647,
                                   2147483648LL,
                                   -2147483648LL,
                                   -2147483649LL,
                                   4294967295LL,
                                   4294967296LL,
                                   0x100000005LL,
                                   (int64_t{1} << 53),
                                   (int64_t{1} << 53) + 1,
                                   INT64_MAX,
                                   INT64_MIN,
                                   two64 - 1,
                                   static_cast<__int128>(uint64_t{1} << 63),
                                   two64 - (int64_t{1} << 40)};
    for (const __int128 c : candidates) {
      if (c >= L::min() && c <= L::max()) out.push_back(static_cast<T>(c));
    }
    out.push_back(L::min());
    out.push_back(L::max());
    for (int i = 0; i < 20000; ++i) {
      const uint64_t r = rng.Next();
      T v;
      std::memcpy(&v, &r, sizeof(T));  // random bit pattern
      out.push_back(v);
      // and a random value of random magnitude
      const uint64_t small = r >> (rng.Next() % 64);
      std::memcpy(&v, &small, sizeof(T));
      out.push_back(v);
    }
  }
  return out;
}

// --- the element table: all 64 pairs against the oracle ------------------------------------------

TEST_CASE("CastElement: all 64 (from, to) pairs agree with the exact-value oracle") {
  int pairs = 0;
  ForEachType(AllTypes{}, [&]<typename From>() {
    const std::vector<From> inputs = Inputs<From>();
    ForEachType(AllTypes{}, [&]<typename To>() {
      ++pairs;
      CAPTURE(DataTypeName(DataTypeOf<From>()));
      CAPTURE(DataTypeName(DataTypeOf<To>()));
      int mismatches = 0;
      for (const From v : inputs) {
        const CastResult<To> got = CastElement<To, From>(v);
        const CastResult<To> want = ExpectedElement<To, From>(v);
        if ((!Same(got.value, want.value) ||
             got.implementation_defined != want.implementation_defined) &&
            ++mismatches <= 3) {
          FAIL_CHECK("input bits " << Hex(BitsOf(v)) << ": got bits " << Hex(BitsOf(got.value))
                                   << " (impl-defined " << got.implementation_defined
                                   << "), expected " << Hex(BitsOf(want.value)) << " ("
                                   << want.implementation_defined << ")");
        }
      }
      CHECK(mismatches == 0);
    });
  });
  CHECK(pairs == 64);
}

TEST_CASE("CastElement: small values are exact and specified for all 64 pairs") {
  // 0, 1, 42 and 100 are representable in every type: the table's "same value" / "nearest
  // representable value" / "truncated" rows all give the value itself.
  int pairs = 0;
  ForEachType(AllTypes{}, [&]<typename From>() {
    ForEachType(AllTypes{}, [&]<typename To>() {
      ++pairs;
      CAPTURE(DataTypeName(DataTypeOf<From>()));
      CAPTURE(DataTypeName(DataTypeOf<To>()));
      for (const int n : {0, 1, 42, 100}) {
        From v;
        if constexpr (std::is_same_v<From, Float16>) {
          v = H(n);
        } else {
          v = static_cast<From>(n);
        }
        const CastResult<To> r = CastElement<To, From>(v);
        CHECK(Exact(r.value) == static_cast<long double>(n));
        CHECK_FALSE(r.implementation_defined);
      }
    });
  });
  CHECK(pairs == 64);
}

// --- the element table: hand-derived values ------------------------------------------------------

TEST_CASE("CastElement float -> int: truncation in range") {
  CHECK(CastElement<int32_t>(2.9f).value == 2);
  CHECK(CastElement<int32_t>(-2.9f).value == -2);
  CHECK(CastElement<int8_t>(-2.9f).value == -2);
  CHECK(CastElement<int64_t>(-2.9f).value == -2);
  CHECK(CastElement<uint32_t>(2.9f).value == 2u);
  CHECK(CastElement<uint64_t>(2.9f).value == 2u);
  CHECK(CastElement<uint8_t>(2.9f).value == 2);
  CHECK(CastElement<int32_t>(H(2.9)).value == 2);  // float16 2.900390625
  CHECK(CastElement<int32_t>(H(-2.9)).value == -2);
  CHECK(CastElement<int32_t>(H(65504)).value == 65504);
  CHECK(CastElement<int64_t>(H(-65504)).value == -65504);
  CHECK(CastElement<uint8_t>(H(0.5)).value == 0);
  CHECK_FALSE(CastElement<int32_t>(2.9f).implementation_defined);
  CHECK_FALSE(CastElement<int8_t>(-2.9f).implementation_defined);
  CHECK_FALSE(CastElement<int32_t>(H(-2.9)).implementation_defined);
}

TEST_CASE("CastElement float -> int: exactly at the range boundaries") {
  // int32: the largest float below 2^31 is 2^31 - 128.
  CHECK(CastElement<int32_t>(2147483520.0f).value == 2147483520);
  CHECK_FALSE(CastElement<int32_t>(2147483520.0f).implementation_defined);
  CHECK(CastElement<int32_t>(2147483648.0f).implementation_defined);
  CHECK(CastElement<int32_t>(2147483648.0f).value == INT32_MAX);
  CHECK(CastElement<int32_t>(-2147483648.0f).value == INT32_MIN);
  CHECK_FALSE(CastElement<int32_t>(-2147483648.0f).implementation_defined);
  CHECK(CastElement<int32_t>(-2147483904.0f).implementation_defined);  // next float below -2^31
  CHECK(CastElement<int32_t>(-2147483904.0f).value == INT32_MIN);
  // uint32: 2^32 - 256 in range, 2^32 out.
  CHECK(CastElement<uint32_t>(4294967040.0f).value == 4294967040u);
  CHECK_FALSE(CastElement<uint32_t>(4294967040.0f).implementation_defined);
  CHECK(CastElement<uint32_t>(4294967296.0f).implementation_defined);
  CHECK(CastElement<uint32_t>(4294967296.0f).value == UINT32_MAX);
  // int64: 2^63 - 2^39 in range, 2^63 out, -2^63 in range.
  CHECK(CastElement<int64_t>(0x1.fffffep62f).value == 9223371487098961920);
  CHECK_FALSE(CastElement<int64_t>(0x1.fffffep62f).implementation_defined);
  CHECK(CastElement<int64_t>(0x1p63f).implementation_defined);
  CHECK(CastElement<int64_t>(0x1p63f).value == INT64_MAX);
  CHECK(CastElement<int64_t>(-0x1p63f).value == INT64_MIN);
  CHECK_FALSE(CastElement<int64_t>(-0x1p63f).implementation_defined);
  // uint64: 2^64 - 2^40 in range, 2^64 out.
  CHECK(CastElement<uint64_t>(0x1.fffffep63f).value == 18446742974197923840u);
  CHECK_FALSE(CastElement<uint64_t>(0x1.fffffep63f).implementation_defined);
  CHECK(CastElement<uint64_t>(0x1p64f).implementation_defined);
  CHECK(CastElement<uint64_t>(0x1p64f).value == UINT64_MAX);
  // int8
  CHECK(CastElement<int8_t>(127.9f).value == 127);
  CHECK_FALSE(CastElement<int8_t>(127.9f).implementation_defined);
  CHECK(CastElement<int8_t>(128.0f).implementation_defined);
  CHECK(CastElement<int8_t>(-128.9f).value == -128);
  CHECK_FALSE(CastElement<int8_t>(-128.9f).implementation_defined);
  CHECK(CastElement<int8_t>(-129.0f).implementation_defined);
  CHECK(CastElement<int8_t>(-129.0f).value == -128);
  CHECK(CastElement<int8_t>(H(127.9375)).value == 127);  // float16: ulp 1/16 in [64, 128)
  CHECK_FALSE(CastElement<int8_t>(H(127.9375)).implementation_defined);
  CHECK(CastElement<int8_t>(H(-128.875)).value == -128);  // float16: ulp 1/8 in [128, 256)
  CHECK_FALSE(CastElement<int8_t>(H(-128.875)).implementation_defined);
  CHECK(CastElement<int8_t>(H(-129)).implementation_defined);
  // uint8
  CHECK(CastElement<uint8_t>(255.9f).value == 255);
  CHECK_FALSE(CastElement<uint8_t>(255.9f).implementation_defined);
  CHECK(CastElement<uint8_t>(256.0f).implementation_defined);
  CHECK(CastElement<uint8_t>(256.0f).value == 255);
  CHECK(CastElement<uint8_t>(-0.9f).value == 0);  // trunc(-0.9) = -0, which is in range
  CHECK_FALSE(CastElement<uint8_t>(-0.9f).implementation_defined);
  CHECK(CastElement<uint8_t>(-0.0f).value == 0);
  CHECK_FALSE(CastElement<uint8_t>(-0.0f).implementation_defined);
  CHECK(CastElement<uint8_t>(-1.0f).implementation_defined);
  CHECK(CastElement<uint8_t>(-1.0f).value == 0);
  CHECK(CastElement<uint8_t>(H(255.875)).value == 255);
  CHECK_FALSE(CastElement<uint8_t>(H(255.875)).implementation_defined);
  CHECK(CastElement<uint8_t>(H(256)).implementation_defined);
  CHECK(CastElement<uint32_t>(H(-0.5)).value == 0u);
  CHECK_FALSE(CastElement<uint32_t>(H(-0.5)).implementation_defined);
  CHECK(CastElement<uint64_t>(H(-1)).implementation_defined);
}

TEST_CASE("CastElement float -> int: NaN and infinities are implementation-defined") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  ForEachType(IntTypes{}, [&]<typename To>() {
    using L = std::numeric_limits<To>;
    CAPTURE(DataTypeName(DataTypeOf<To>()));
    for (const CastResult<To> r :
         {CastElement<To>(nan), CastElement<To>(-nan), CastElement<To>(HBits(0x7e00)),
          CastElement<To>(HBits(0xfc01))}) {
      CHECK(r.implementation_defined);
      CHECK(r.value == To{0});  // the documented choice for NaN
    }
    for (const CastResult<To> r : {CastElement<To>(inf), CastElement<To>(HBits(0x7c00))}) {
      CHECK(r.implementation_defined);
      CHECK(r.value == L::max());  // saturation
    }
    for (const CastResult<To> r : {CastElement<To>(-inf), CastElement<To>(HBits(0xfc00))}) {
      CHECK(r.implementation_defined);
      CHECK(r.value == L::min());
    }
  });
}

TEST_CASE("CastElement int -> int: low N bits, two's complement") {
  CHECK(CastElement<uint8_t>(int8_t{-1}).value == 255);
  CHECK(CastElement<int32_t>(uint32_t{0xffffffffu}).value == -1);
  CHECK(CastElement<int32_t>(int64_t{0x100000005}).value == 5);
  CHECK(CastElement<uint64_t>(int32_t{-1}).value == 0xffffffffffffffffu);  // sign extension
  CHECK(CastElement<int64_t>(int8_t{-128}).value == -128);
  CHECK(CastElement<int8_t>(uint8_t{255}).value == -1);
  CHECK(CastElement<int8_t>(int32_t{300}).value == 44);    // 300 - 256
  CHECK(CastElement<int8_t>(int32_t{-129}).value == 127);  // -129 + 256
  CHECK(CastElement<uint8_t>(int64_t{-256}).value == 0);
  CHECK(CastElement<int64_t>(uint64_t{1} << 63).value == INT64_MIN);
  CHECK(CastElement<uint32_t>(int64_t{-2}).value == 0xfffffffeu);
  CHECK(CastElement<int32_t>(uint64_t{0xdeadbeef12345678u}).value == 0x12345678);
  CHECK(CastElement<uint8_t>(uint32_t{200}).value == 200);
  CHECK_FALSE(CastElement<uint8_t>(int8_t{-1}).implementation_defined);
  CHECK_FALSE(CastElement<int32_t>(int64_t{0x100000005}).implementation_defined);
}

TEST_CASE("CastElement int -> float: one rounding to nearest even") {
  auto f32 = [](auto v) { return std::bit_cast<uint32_t>(CastElement<float>(v).value); };
  auto f16 = [](auto v) { return CastElement<Float16>(v).value.bits; };
  // float32 has 24 significant bits.
  CHECK(f32(int64_t{(int64_t{1} << 53) + 1}) == 0x5a000000u);  // 2^53
  CHECK(f32(int64_t{(1 << 24) + 1}) == 0x4b800000u);           // tie between 2^24 (even) and 2^24+2
  CHECK(f32(int32_t{(1 << 24) + 1}) == 0x4b800000u);
  CHECK(f32(int32_t{(1 << 24) + 3}) == 0x4b800002u);  // tie between 2^24+2 (odd) and 2^24+4
  CHECK(f32(int32_t{INT32_MAX}) == 0x4f000000u);      // 2^31
  CHECK(f32(uint64_t{UINT64_MAX}) == 0x5f800000u);    // 2^64
  CHECK(f32(int64_t{INT64_MIN}) == 0xdf000000u);      // -2^63, exact
  CHECK(f32(uint8_t{255}) == 0x437f0000u);
  CHECK(f32(int8_t{-128}) == 0xc3000000u);
  // float16 has 11 significant bits: between 2048 and 4096 the spacing is 2.
  CHECK(f16(int32_t{2049}) == 0x6800);  // 2048: tie, 2048 has the even significand
  CHECK(f16(int32_t{2051}) == 0x6802);  // 2052: tie, 2050 (0x6801) is odd
  CHECK(f16(int32_t{2050}) == 0x6801);
  CHECK(f16(int32_t{65519}) == 0x7bff);  // 65504
  CHECK(f16(int32_t{65520}) == 0x7c00);  // tie between 65504 and 2^16 (even): overflow
  CHECK(f16(int32_t{-65520}) == 0xfc00);
  CHECK(f16(uint32_t{UINT32_MAX}) == 0x7c00);
  CHECK(f16(int64_t{65519}) == 0x7bff);
  CHECK(f16(int64_t{65520}) == 0x7c00);
  CHECK(f16(int64_t{65536}) == 0x7c00);
  CHECK(f16(int64_t{65537}) == 0x7c00);
  CHECK(f16(int64_t{-65537}) == 0xfc00);
  CHECK(f16(int64_t{INT64_MAX}) == 0x7c00);
  CHECK(f16(int64_t{INT64_MIN}) == 0xfc00);
  CHECK(f16(uint64_t{UINT64_MAX}) == 0x7c00);
  CHECK(f16(uint64_t{65519}) == 0x7bff);
  CHECK(f16(uint8_t{255}) == 0x5bf8);
  CHECK(f16(int8_t{-1}) == 0xbc00);
  CHECK_FALSE(CastElement<Float16>(int64_t{INT64_MAX}).implementation_defined);
  CHECK_FALSE(CastElement<float>(uint64_t{UINT64_MAX}).implementation_defined);
}

TEST_CASE("CastElement float -> float") {
  auto f16 = [](float v) { return CastElement<Float16>(v).value.bits; };
  // float32 -> float16 rounds once, to nearest even.
  CHECK(f16(1.0f + 0x1p-11f) == 0x3c00);             // tie: 1.0 is even
  CHECK(f16(1.0f + 0x1p-11f + 0x1p-23f) == 0x3c01);  // just above the tie
  CHECK(f16(1.0f + 3 * 0x1p-11f) == 0x3c02);         // tie between 0x3c01 (odd) and 0x3c02
  CHECK(f16(0.1f) == 0x2e66);                        // 0.1 = 1.6 * 2^-4: 0.6*1024 = 614.4 -> 614
  CHECK(f16(65520.0f) == 0x7c00);
  CHECK(f16(-65519.0f) == 0xfbff);
  CHECK(f16(0x1p-25f) == 0x0000);
  CHECK(f16(-0x1p-24f) == 0x8001);
  CHECK(f16(std::numeric_limits<float>::infinity()) == 0x7c00);
  CHECK((f16(std::numeric_limits<float>::quiet_NaN()) & 0x7fffu) > 0x7c00u);
  // float16 -> float32 is exact.
  CHECK(CastElement<float>(HBits(0x3555)).value == 0.333251953125f);
  CHECK(CastElement<float>(HBits(0x0001)).value == 0x1p-24f);
  CHECK(CastElement<float>(HBits(0xfbff)).value == -65504.0f);
  CHECK(std::signbit(CastElement<float>(HBits(0x8000)).value));
  CHECK(std::isnan(CastElement<float>(HBits(0x7e01)).value));
  // Identity.
  CHECK(std::bit_cast<uint32_t>(CastElement<float>(0x1.234566p-130f).value) ==
        std::bit_cast<uint32_t>(0x1.234566p-130f));
  CHECK(CastElement<Float16>(HBits(0x8001)).value.bits == 0x8001);
  CHECK(CastElement<Float16>(HBits(0x7bff)).value.bits == 0x7bff);
  CHECK_FALSE(CastElement<Float16>(65520.0f).implementation_defined);
}

// --- CastNumber: the spec's cast algorithm -------------------------------------------------------

template <typename T>
T Num(double d) {
  return CastNumber<T>(MLNumber::FromDouble(d));
}

TEST_CASE("CastNumber to int: clamp, then round half to even") {
  CHECK(Num<int32_t>(2.5) == 2);
  CHECK(Num<int32_t>(3.5) == 4);
  CHECK(Num<int32_t>(-2.5) == -2);
  CHECK(Num<int32_t>(-3.5) == -4);
  CHECK(Num<int32_t>(0.5) == 0);
  CHECK(Num<int32_t>(1.5) == 2);
  CHECK(Num<int32_t>(2.9) == 3);  // rounds, unlike the element table which truncates
  CHECK(Num<int32_t>(-2.9) == -3);
  CHECK(Num<int32_t>(-0.5) == 0);
  CHECK(Num<uint8_t>(-0.5) == 0);
  CHECK(Num<int8_t>(300) == 127);
  CHECK(Num<int8_t>(-300) == -128);
  CHECK(Num<int8_t>(-127.5) == -128);  // tie: -128 is even
  CHECK(Num<int8_t>(-126.5) == -126);
  CHECK(Num<int8_t>(-128.5) == -128);  // clamped to -128 first
  CHECK(Num<int8_t>(126.5) == 126);
  CHECK(Num<int8_t>(127.5) == 127);  // clamped to 127 first (rounding first would give 128)
  CHECK(Num<uint8_t>(255.5) == 255);
  CHECK(Num<uint8_t>(254.5) == 254);
  CHECK(Num<uint8_t>(253.5) == 254);
  CHECK(Num<uint8_t>(256) == 255);
  CHECK(Num<uint8_t>(-1) == 0);
  CHECK(Num<int32_t>(2147483647.5) == INT32_MAX);
  CHECK(Num<int32_t>(2147483646.5) == 2147483646);
  CHECK(Num<int32_t>(-2147483648.5) == INT32_MIN);
  CHECK(Num<int32_t>(1e10) == INT32_MAX);
}

TEST_CASE("CastNumber to uint32 converts as unsigned (spec-notes #1)") {
  // Read literally ("signed"), -1 would stay -1 (unrepresentable) and 4294967295 would clamp to
  // 2^31 - 1. As unsigned: [0, 2^32 - 1].
  CHECK(Num<uint32_t>(-1) == 0u);
  CHECK(Num<uint32_t>(4294967295.0) == 4294967295u);
  CHECK(Num<uint32_t>(3e9) == 3000000000u);
  CHECK(Num<uint32_t>(4294967295.5) == 4294967295u);
  CHECK(Num<uint32_t>(1e20) == UINT32_MAX);
  CHECK(CastNumber<uint32_t>(MLNumber::FromInt64(-1)) == 0u);
  CHECK(CastNumber<uint32_t>(MLNumber::FromInt64(4294967295)) == 4294967295u);
  CHECK(CastNumber<uint32_t>(MLNumber::FromInt64(4294967296)) == 4294967295u);
}

TEST_CASE("CastNumber to int: NaN and infinities") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  ForEachType(IntTypes{}, [&]<typename T>() {
    CAPTURE(DataTypeName(DataTypeOf<T>()));
    CHECK(Num<T>(nan) == T{0});
    CHECK(Num<T>(-nan) == T{0});
    CHECK(Num<T>(inf) == std::numeric_limits<T>::max());
    CHECK(Num<T>(-inf) == std::numeric_limits<T>::min());
  });
}

TEST_CASE("CastNumber to 64-bit ints: exact clamping") {
  CHECK(Num<int64_t>(9.3e18) == INT64_MAX);
  CHECK(Num<int64_t>(-9.3e18) == INT64_MIN);
  CHECK(Num<int64_t>(0x1p63) == INT64_MAX);
  CHECK(Num<int64_t>(-0x1p63) == INT64_MIN);
  CHECK(Num<int64_t>(0x1.fffffffffffffp62) == 9223372036854774784);  // largest double < 2^63
  CHECK(Num<uint64_t>(1.8e19) == 18000000000000000000u);  // a multiple of 2048: exact double
  CHECK(Num<uint64_t>(1.9e19) == UINT64_MAX);
  CHECK(Num<uint64_t>(0x1p64) == UINT64_MAX);
  CHECK(Num<uint64_t>(0x1.fffffffffffffp63) == 18446744073709549568u);
  CHECK(Num<uint64_t>(-5.0) == 0u);
  // Exact integers (from bigint or a decimal string).
  CHECK(CastNumber<int64_t>(MLNumber::FromUint64(UINT64_MAX)) == INT64_MAX);
  CHECK(CastNumber<int64_t>(MLNumber::FromUint64(uint64_t{1} << 63)) == INT64_MAX);
  CHECK(CastNumber<int64_t>(MLNumber::FromUint64((uint64_t{1} << 63) - 1)) == INT64_MAX);
  CHECK(CastNumber<int64_t>(MLNumber::FromInt64(INT64_MIN)) == INT64_MIN);
  CHECK(CastNumber<int64_t>(MLNumber::FromInt64(9007199254740993)) == 9007199254740993);
  CHECK(CastNumber<uint64_t>(MLNumber::FromUint64(UINT64_MAX)) == UINT64_MAX);
  CHECK(CastNumber<uint64_t>(MLNumber::FromUint64(18446744073709551557u)) == 18446744073709551557u);
  CHECK(CastNumber<uint64_t>(MLNumber::FromInt64(-5)) == 0u);
  CHECK(CastNumber<uint64_t>(MLNumber::FromInt64(INT64_MAX)) == uint64_t{INT64_MAX});
  CHECK(CastNumber<int32_t>(MLNumber::FromInt64(INT64_MIN)) == INT32_MIN);
  CHECK(CastNumber<int32_t>(MLNumber::FromInt64(int64_t{0x100000005})) == INT32_MAX);  // clamp
  CHECK(CastNumber<int32_t>(MLNumber::FromUint64(UINT64_MAX)) == INT32_MAX);
  CHECK(CastNumber<int8_t>(MLNumber::FromInt64(300)) == 127);
  CHECK(CastNumber<int8_t>(MLNumber::FromInt64(-300)) == -128);
  CHECK(CastNumber<int8_t>(MLNumber::FromUint64(200)) == 127);
  CHECK(CastNumber<uint8_t>(MLNumber::FromInt64(-5)) == 0);
  CHECK(CastNumber<uint8_t>(MLNumber::FromUint64(UINT64_MAX)) == 255);
  CHECK(CastNumber<uint8_t>(MLNumber::FromInt64(200)) == 200);
}

TEST_CASE("CastNumber to float: round to nearest even, overflow to infinity") {
  auto f32 = [](const MLNumber& n) { return std::bit_cast<uint32_t>(CastNumber<float>(n)); };
  auto f16 = [](const MLNumber& n) { return CastNumber<Float16>(n).bits; };
  using N = MLNumber;
  CHECK(f32(N::FromDouble(1e300)) == 0x7f800000u);
  CHECK(f32(N::FromDouble(-1e300)) == 0xff800000u);
  CHECK(f32(N::FromDouble(1.0 + 0x1p-24)) == 0x3f800000u);            // tie: 1.0 is even
  CHECK(f32(N::FromDouble(1.0 + 0x1p-24 + 0x1p-50)) == 0x3f800001u);  // above the tie
  CHECK(f32(N::FromDouble(1.0 + 3 * 0x1p-24)) == 0x3f800002u);        // tie: 1+2^-22 is even
  // Overflow threshold: FLT_MAX = 2^128 - 2^104; the midpoint to 2^128 ties to 2^128 -> Inf.
  CHECK(f32(N::FromDouble(0x1p128 - 0x1p103)) == 0x7f800000u);
  CHECK(f32(N::FromDouble(std::nextafter(0x1p128 - 0x1p103, 0.0))) == 0x7f7fffffu);
  CHECK(f32(N::FromDouble(0x1p-150)) == 0x00000000u);   // tie between 0 and 2^-149: 0
  CHECK(f32(N::FromDouble(-0x1p-150)) == 0x80000000u);  // negative x gives -0
  CHECK(f32(N::FromDouble(1.5 * 0x1p-150)) == 0x00000001u);
  CHECK(f32(N::FromDouble(0.1)) == 0x3dcccccdu);
  CHECK(std::isnan(CastNumber<float>(N::FromDouble(std::numeric_limits<double>::quiet_NaN()))));
  CHECK(f16(N::FromDouble(65520)) == 0x7c00);
  CHECK(f16(N::FromDouble(65519)) == 0x7bff);
  CHECK(f16(N::FromDouble(65519.99)) == 0x7bff);
  CHECK(f16(N::FromDouble(-65520)) == 0xfc00);
  CHECK(f16(N::FromDouble(1e300)) == 0x7c00);
  CHECK(f16(N::FromDouble(1.0 + 0x1p-11 + 0x1p-40)) == 0x3c01);  // no double rounding via float
  CHECK(f16(N::FromDouble(0x1p-25)) == 0x0000);
  CHECK(f16(N::FromDouble(-0x1p-25)) == 0x8000);
  CHECK(f16(N::FromDouble(0.1)) == 0x2e66);
  CHECK((f16(N::FromDouble(std::numeric_limits<double>::quiet_NaN())) & 0x7fffu) > 0x7c00u);
  // Exact integers.
  CHECK(f32(N::FromInt64((int64_t{1} << 53) + 1)) == 0x5a000000u);
  CHECK(f32(N::FromInt64((int64_t{1} << 24) + 1)) == 0x4b800000u);
  CHECK(f32(N::FromUint64(UINT64_MAX)) == 0x5f800000u);
  CHECK(f32(N::FromInt64(INT64_MIN)) == 0xdf000000u);
  CHECK(f16(N::FromInt64(65519)) == 0x7bff);
  CHECK(f16(N::FromInt64(65520)) == 0x7c00);
  CHECK(f16(N::FromInt64(-65520)) == 0xfc00);
  CHECK(f16(N::FromInt64(2049)) == 0x6800);
  CHECK(f16(N::FromInt64(2051)) == 0x6802);
  CHECK(f16(N::FromUint64(UINT64_MAX)) == 0x7c00);
  CHECK(f16(N::FromInt64(INT64_MIN)) == 0xfc00);
}

// ConvertToInt on exact values: clamp in long double (exact for all 64-bit bounds), then rintl
// (ties to even in the default rounding mode).
template <typename T>
T ExpectedConvertToInt(long double x) {
  if (std::isnan(x)) return T{0};
  const auto lo = static_cast<long double>(std::numeric_limits<T>::min());
  const auto hi = static_cast<long double>(std::numeric_limits<T>::max());
  x = std::fmin(std::fmax(x, lo), hi);
  return static_cast<T>(std::rint(x));
}

template <typename T>
T ExpectedCastNumber(const MLNumber& n) {
  long double x = 0;
  switch (n.kind) {
    case MLNumber::Kind::kDouble:
      x = static_cast<long double>(n.d);
      break;
    case MLNumber::Kind::kInt64:
      x = static_cast<long double>(n.i);
      break;
    case MLNumber::Kind::kUint64:
      x = static_cast<long double>(n.u);
      break;
  }
  if constexpr (kIsFloatStorage<T>) {
    return RoundExact<T>(x);
  } else {
    return ExpectedConvertToInt<T>(x);
  }
}

TEST_CASE("CastNumber: pseudo-random MLNumbers of all kinds agree with the exact-value oracle") {
  std::vector<MLNumber> numbers;
  SplitMix64 rng{11};
  const double specials[] = {0.0,
                             -0.0,
                             0.5,
                             -0.5,
                             1.5,
                             2.5,
                             -2.5,
                             127.5,
                             -128.5,
                             255.5,
                             2147483647.5,
                             -2147483648.5,
                             4294967295.5,
                             0x1p63,
                             -0x1p63,
                             0x1p64,
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN(),
                             65520.0,
                             65519.0};
  for (const double d : specials) numbers.push_back(MLNumber::FromDouble(d));
  for (int i = 0; i < 30000; ++i) {
    const uint64_t r = rng.Next();
    // Random magnitude 2^-30 .. 2^70, with a random fraction; also exact halves.
    const double m = std::ldexp(1.0 + static_cast<double>(r >> 12) * 0x1p-52,
                                static_cast<int>(rng.Next() % 100) - 30);
    numbers.push_back(MLNumber::FromDouble((r & 1) ? -m : m));
    numbers.push_back(MLNumber::FromDouble(std::floor(m) + 0.5));
    numbers.push_back(MLNumber::FromDouble(-(std::floor(m) + 0.5)));
    const uint64_t small = rng.Next() >> (r % 64);
    numbers.push_back(MLNumber::FromUint64(small));
    numbers.push_back(MLNumber::FromInt64(static_cast<int64_t>(small)));
    numbers.push_back(MLNumber::FromInt64(-static_cast<int64_t>(small >> 1)));
  }
  ForEachType(AllTypes{}, [&]<typename T>() {
    CAPTURE(DataTypeName(DataTypeOf<T>()));
    int mismatches = 0;
    for (const MLNumber& n : numbers) {
      const T got = CastNumber<T>(n);
      const T want = ExpectedCastNumber<T>(n);
      if (!Same(got, want) && ++mismatches <= 3) {
        FAIL_CHECK("kind " << static_cast<int>(n.kind) << " d=" << n.d << " i=" << n.i
                           << " u=" << n.u << ": got bits " << Hex(BitsOf(got)) << ", expected "
                           << Hex(BitsOf(want)));
      }
    }
    CHECK(mismatches == 0);
  });
}

TEST_CASE("MLNumber::AsDouble and GreaterThan") {
  CHECK(MLNumber::FromDouble(0.1).AsDouble() == 0.1);
  CHECK(MLNumber::FromInt64(-5).AsDouble() == -5.0);
  CHECK(MLNumber::FromInt64(INT64_MIN).AsDouble() == -0x1p63);
  CHECK(MLNumber::FromUint64(UINT64_MAX).AsDouble() == 0x1p64);  // nearest double
  CHECK(GreaterThan(H(1.0), H(0.5)));
  CHECK_FALSE(GreaterThan(H(0.5), H(1.0)));
  CHECK_FALSE(GreaterThan(HBits(0x0000), HBits(0x8000)));  // +0 == -0
  CHECK(GreaterThan(HBits(0x0000), HBits(0x8001)));        // 0 > -2^-24 (bits compare would say no)
  CHECK(GreaterThan(HBits(0x0001), HBits(0x8000)));
  CHECK_FALSE(GreaterThan(HBits(0x7e00), H(1.0)));  // NaN compares false
  CHECK_FALSE(GreaterThan(H(1.0), HBits(0x7e00)));
  CHECK(GreaterThan(uint32_t{0xffffffffu}, uint32_t{1}));
  CHECK(GreaterThan(int8_t{1}, int8_t{-1}));
  CHECK(GreaterThan(2.0f, 1.0f));
}

}  // namespace
}  // namespace nnref
