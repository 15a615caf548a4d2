// Ziv's rounding test (numerics/ziv_round.h): intervals built next to float32 and float16
// midpoints by hand, and the quad-to-double rounding to odd checked against values whose exact
// binary expansion is written in the test.
#include "numerics/ziv_round.h"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>

namespace nnref {

TEST_CASE("RoundsUniquely: decides away from float32 midpoints, refuses across them") {
  const double mid = 1 + 0x1p-24;  // between 1 and 1 + 2^-23
  float out = 0;
  // [mid + 2^-40 - 2^-41, mid + 2^-40 + 2^-41] lies above the midpoint: 1 + 2^-23.
  CHECK(RoundsUniquely(mid + 0x1p-40, 0x1p-41, out));
  CHECK(out == 1 + 0x1p-23f);
  CHECK(RoundsUniquely(mid - 0x1p-40, 0x1p-41, out));
  CHECK(out == 1.0f);
  // The same centres with a bound reaching over the midpoint: undecided.
  CHECK_FALSE(RoundsUniquely(mid + 0x1p-40, 0x1p-39, out));
  CHECK_FALSE(RoundsUniquely(mid - 0x1p-40, 0x1p-39, out));
  CHECK_FALSE(RoundsUniquely(mid, 0x1p-52, out));  // a tie itself: its error could go either way
  CHECK(RoundsUniquely(mid, 0.0, out));            // exact: ties to even
  CHECK(out == 1.0f);
  // NaN never decides; infinity does (both ends overflow).
  CHECK_FALSE(RoundsUniquely(std::nan(""), 0.0, out));
  CHECK(RoundsUniquely(1e300, 1e280, out));
  CHECK(std::isinf(out));
  // Around zero: -0 and +0 count as one value; the sign is the centre's.
  CHECK(RoundsUniquely(0x1p-1074, kZivAbsFloor, out));
  CHECK((out == 0 && !std::signbit(out)));
  CHECK(RoundsUniquely(-0x1p-1074, kZivAbsFloor, out));
  CHECK((out == 0 && std::signbit(out)));
  // The smallest subnormal's midpoint 2^-150.
  CHECK_FALSE(RoundsUniquely(0x1p-150, 0x1p-170, out));
  CHECK(RoundsUniquely(0x1p-150 + 0x1p-160, 0x1p-170, out));
  CHECK(out == 0x1p-149f);
}

TEST_CASE("RoundsUniquely: float16 midpoints") {
  const double mid = 1 + 0x1p-11;  // between 1 and 1 + 2^-10
  Float16 out;
  CHECK(RoundsUniquely(mid + 0x1p-30, 0x1p-31, out));
  CHECK(out.bits == 0x3c01);
  CHECK_FALSE(RoundsUniquely(mid + 0x1p-30, 0x1p-29, out));
}

TEST_CASE("RoundsUniquelyUlps: the bit test agrees with the interval test") {
  const double mid = 1 + 0x1p-24;
  float out = 0;
  CHECK_FALSE(RoundsUniquelyUlps(mid, 1, out));
  // 3 double ulps (2^-52 at 1) above the midpoint: decided with a bound of 2 ulps, not 3.
  CHECK(RoundsUniquelyUlps(mid + 3 * 0x1p-52, 2, out));
  CHECK(out == 1 + 0x1p-23f);
  CHECK_FALSE(RoundsUniquelyUlps(mid + 3 * 0x1p-52, 3, out));
  CHECK(RoundsUniquelyUlps(mid - 3 * 0x1p-52, 2, out));
  CHECK(out == 1.0f);
  // Just below 2: the midpoint 2 - 2^-24 (bits 0x3ffffffff0000000).
  CHECK_FALSE(RoundsUniquelyUlps(2 - 0x1p-24, 100, out));
  CHECK(RoundsUniquelyUlps(2 - 0x1p-24 + 0x1p-40, 100, out));
  CHECK(out == 2.0f);
  // The midpoint above FLT_MAX (2^128 - 2^103) ties to Infinity; beside it, decided either way.
  CHECK_FALSE(RoundsUniquelyUlps(0x1p128 - 0x1p103, 5, out));
  CHECK(RoundsUniquelyUlps(0x1p128 - 0x1p103 + 0x1p90, 5, out));
  CHECK(std::isinf(out));
  // Negative values, and the subnormal range through the interval test.
  CHECK_FALSE(RoundsUniquelyUlps(-mid, 1, out));
  CHECK(RoundsUniquelyUlps(-(mid - 3 * 0x1p-52), 2, out));
  CHECK(out == -1.0f);
  CHECK_FALSE(RoundsUniquelyUlps(0x1p-150, 5, out));
  CHECK(RoundsUniquelyUlps(0x1p-150 + 0x1p-160, 5, out));
  CHECK(out == 0x1p-149f);
  // float16: the midpoint between 1 and 1 + 2^-10.
  Float16 h;
  CHECK_FALSE(RoundsUniquelyUlps(1 + 0x1p-11, 1, h));
  CHECK(RoundsUniquelyUlps(1 + 0x1p-11 + 0x1p-40, 1000, h));
  CHECK(h.bits == 0x3c01);
}

TEST_CASE("ZivBound: twice the relative bound plus the floor") {
  CHECK(ZivBound(-3.0, 0x1p-44) == 6 * 0x1p-44 + kZivAbsFloor);
  CHECK(ZivBound(0.0, 0x1p-44) == kZivAbsFloor);
}

TEST_CASE("QuadToOddDouble: one rounding to float32 of the quad value") {
  // q = 1 + 2^-24 + 2^-80: rounding q to nearest double gives 1 + 2^-24, a float32 tie that goes
  // to even (1); to odd it stays above the tie, and float32 rounds up to 1 + 2^-23.
  const Quad q = static_cast<Quad>(1 + 0x1p-24) + static_cast<Quad>(0x1p-80);
  CHECK(static_cast<float>(static_cast<double>(q)) == 1.0f);
  CHECK(static_cast<float>(QuadToOddDouble(q)) == 1 + 0x1p-23f);
  const Quad below = static_cast<Quad>(1 + 0x1p-24) - static_cast<Quad>(0x1p-80);
  CHECK(static_cast<float>(QuadToOddDouble(below)) == 1.0f);
  // Exact doubles pass unchanged; nonzero quads below double's range keep their side of 0.
  CHECK(QuadToOddDouble(static_cast<Quad>(0.75)) == 0.75);
  const Quad tiny = static_cast<Quad>(0x1p-1000) * static_cast<Quad>(0x1p-1000);
  CHECK(QuadToOddDouble(tiny) == 0x1p-1074);
  CHECK(QuadToOddDouble(-tiny) == -0x1p-1074);
  float out = 0;
  CHECK(RoundsUniquely(q, static_cast<Quad>(0x1p-90), out));
  CHECK(out == 1 + 0x1p-23f);
  CHECK_FALSE(RoundsUniquely(q, static_cast<Quad>(0x1p-70), out));
}

}  // namespace nnref
