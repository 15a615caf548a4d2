// Tests of numerics/tolerance: the per-metric sum, Describe and the sum bound's arithmetic (the
// default table's tests are ops/tolerance_table_test.cc).
#include "numerics/tolerance.h"

#include <doctest/doctest.h>

#include <cmath>

namespace nnref {
namespace {

TEST_CASE("Tolerance::operator+= sums per metric") {
  Tolerance t = Tolerance::Ulp(1);
  t += Tolerance::Ulp(2);
  CHECK(t.ulp == 3);
  CHECK(t.atol == 0);
  t += Tolerance::Atol(0.5);
  CHECK(t.ulp == 3);
  CHECK(t.atol == 0.5);
  t += Tolerance{4, 0.25, "both"};
  CHECK(t.ulp == 7);
  CHECK(t.atol == 0.75);
  Tolerance a = Tolerance::Atol(1.0 / 1024);
  a += Tolerance::Atol(1.0 / 1024);
  CHECK(a.atol == 1.0 / 512);
  CHECK(a.ulp == 0);
}

TEST_CASE("Tolerance::Describe") {
  CHECK(Tolerance::Ulp(1).Describe() == "1 ULP");
  CHECK(Tolerance::Atol(0.5).Describe() == "ATOL 0.5");
  CHECK(Tolerance{3, 0.25, ""}.Describe() == "3 ULP or ATOL 0.25");
  CHECK(Tolerance{}.Describe() == "0 ULP");
}

TEST_CASE("SumBound: T roundings of u times the terms' magnitude") {
  CHECK(UnitRoundoff(DataType::kFloat32) == 1.0 / 16777216);  // 2^-24
  CHECK(UnitRoundoff(DataType::kFloat16) == 1.0 / 2048);      // 2^-11
  CHECK(UnitRoundoff(DataType::kInt32) == 0);
  // [1e8, 1, -1e8] . [1, 1, 1] in float32: 1e8 + 1 rounds to 1e8 (spacing 8 there), so an
  // accumulator in float32 gives 0 for the exact 1. M = 2e8 + 1 and a 6-ULP row (K = 3) allow
  // 6 * (2e8 + 1) / 2^24 = 71.53: 0 passes, a result off by 100 does not.
  const double b = SumBound(DataType::kFloat32, 6, 2e8 + 1);
  CHECK(b == doctest::Approx(71.5256).epsilon(1e-5));
  CHECK(b >= 1.0);
  CHECK(b < 99.0);
  // No cancellation (M = |result| = 1.5): 4 roundings allow 3 * 2^-23, less than 4 ULP(1.5).
  CHECK(SumBound(DataType::kFloat32, 4, 1.5) == doctest::Approx(3.0 / 8388608).epsilon(1e-12));
  // float16: 2 * (2^-11 + 2^-24) for M = 1; M = 0 leaves the underflow term alone.
  CHECK(SumBound(DataType::kFloat16, 2, 1) == 2.0 / 2048 + 2.0 / 16777216);
  CHECK(SumBound(DataType::kFloat32, 3, 0) == 3 * std::ldexp(1.0, -149));
}

}  // namespace
}  // namespace nnref
