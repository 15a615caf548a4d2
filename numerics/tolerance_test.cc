// Tests of numerics/tolerance: the default table's integrity, the lookups the case format
// (docs/case-format.md, "Tolerance rules") names, and the per-metric sum.
#include "numerics/tolerance.h"

#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <string>

namespace nnref {
namespace {

constexpr DataType kIntegerTypes[] = {DataType::kInt32,  DataType::kUint32, DataType::kInt64,
                                      DataType::kUint64, DataType::kInt8,   DataType::kUint8};

Tolerance Lookup(std::string_view op, DataType t, uint64_t size = 0) {
  const std::optional<Tolerance> tol = DefaultTolerance({op, t, size});
  REQUIRE(tol.has_value());
  return *tol;
}

TEST_CASE("DefaultToleranceTable: every row has a name, a reason and sane values") {
  const std::vector<ToleranceRow>& rows = DefaultToleranceTable();
  CHECK(!rows.empty());
  std::set<std::string_view> names;
  for (const ToleranceRow& r : rows) {
    CAPTURE(r.op);
    CHECK(!r.op.empty());
    CHECK(!r.reason.empty());
    CHECK(names.insert(r.op).second);  // unique op name
    CHECK(r.float32 >= 0);
    CHECK(r.float16 >= 0);
    CHECK(r.per_size >= 0);
  }
  CHECK(names.size() == rows.size());
}

TEST_CASE("DefaultTolerance: every row is found and applied for its output type") {
  for (const ToleranceRow& r : DefaultToleranceTable()) {
    CAPTURE(r.op);
    for (const DataType t : {DataType::kFloat32, DataType::kFloat16}) {
      const uint64_t size = 7;
      const Tolerance tol = Lookup(r.op, t, size);
      const double want = (t == DataType::kFloat16 ? r.float16 : r.float32) + r.per_size * 7.0;
      if (r.metric == ToleranceMetric::kUlp) {
        CHECK(tol.ulp == want);
        CHECK(tol.atol == (t == DataType::kFloat16 ? r.or_atol_float16 : r.or_atol_float32));
      } else {
        CHECK(r.or_atol_float32 == 0);  // only ULP rows carry a second bound
        CHECK(r.or_atol_float16 == 0);
        CHECK(tol.atol == want);
        CHECK(tol.ulp == 0);
      }
      CHECK(!tol.reason.empty());
    }
    // Integer outputs are exact for every operator.
    for (const DataType t : kIntegerTypes) {
      const Tolerance tol = Lookup(r.op, t, 100);
      CHECK(tol.ulp == 0);
      CHECK(tol.atol == 0);
    }
  }
}

TEST_CASE("DefaultTolerance: values named by the case format") {
  const Tolerance add = Lookup("add", DataType::kFloat32);
  CHECK(add.ulp == 1);
  CHECK(add.atol == 0);
  CHECK(Lookup("add", DataType::kFloat16).ulp == 1);
  CHECK(Lookup("sub", DataType::kFloat32).ulp == 1);
  CHECK(Lookup("mul", DataType::kFloat32).ulp == 1);
  CHECK(Lookup("div", DataType::kFloat32).ulp == 2);
  CHECK(Lookup("sqrt", DataType::kFloat32).ulp == 1);
  CHECK(Lookup("exp", DataType::kFloat32).ulp == 32);
  CHECK(Lookup("exp", DataType::kFloat16).ulp == 1);
  CHECK(Lookup("pow", DataType::kFloat32).ulp == 32);
  CHECK(Lookup("pow", DataType::kFloat16).ulp == 2);
  CHECK(Lookup("max", DataType::kFloat32).ulp == 0);
  CHECK(Lookup("clamp", DataType::kFloat16).ulp == 0);
  CHECK(Lookup("cast", DataType::kFloat32).ulp == 1);  // to a float type: 1
  CHECK(Lookup("cast", DataType::kInt32).ulp == 0);    // to an integer type: 0
  CHECK(Lookup("cast", DataType::kUint8).atol == 0);
  const Tolerance log = Lookup("log", DataType::kFloat32);  // issue 14: 3 ULP or 2^-21
  CHECK(log.atol == 0x1p-21);
  CHECK(log.ulp == 3);
  CHECK(Lookup("log", DataType::kFloat16).atol == 0.0009765625);  // 2 ULP or 2^-10
  CHECK(Lookup("log", DataType::kFloat16).ulp == 2);
  CHECK(Lookup("erf", DataType::kFloat32).ulp == 2);
  CHECK(Lookup("erf", DataType::kFloat32).atol == 0);
  CHECK(Lookup("sin", DataType::kFloat32).atol == 0x1p-10);  // WGSL f32 2^-11, doubled
  CHECK(Lookup("cos", DataType::kFloat16).atol == 0x1p-7);   // WGSL f16 (issue 14 review)
  const Tolerance add_int = Lookup("add", DataType::kInt32);
  CHECK(add_int.ulp == 0);
  CHECK(add_int.atol == 0);
  CHECK(Lookup("log", DataType::kInt64).atol == 0);
}

TEST_CASE("DefaultTolerance: unknown operators have no row") {
  CHECK_FALSE(DefaultTolerance({"frobnicate", DataType::kFloat32, 0}).has_value());
  CHECK_FALSE(DefaultTolerance({"", DataType::kFloat32, 0}).has_value());
  CHECK_FALSE(DefaultTolerance({"ADD", DataType::kFloat32, 0}).has_value());  // names are exact
  CHECK_FALSE(DefaultTolerance({"frobnicate", DataType::kInt32, 0}).has_value());
}

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
  // A graph default: add -> exp -> log on float32 is 1 + 32 + 3 ULP or ATOL 2^-21.
  Tolerance g = Lookup("add", DataType::kFloat32);
  g += Lookup("exp", DataType::kFloat32);
  g += Lookup("log", DataType::kFloat32);
  CHECK(g.ulp == 36);
  CHECK(g.atol == 0x1p-21);
}

TEST_CASE("Tolerance::Describe") {
  CHECK(Tolerance::Ulp(1).Describe() == "1 ULP");
  CHECK(Tolerance::Atol(0.5).Describe() == "ATOL 0.5");
  CHECK(Tolerance{3, 0.25, ""}.Describe() == "3 ULP or ATOL 0.25");
  CHECK(Tolerance{}.Describe() == "0 ULP");
}

TEST_CASE("SumBound: T roundings of u times the terms' magnitude") {
  CHECK(HasSumBound("matmul"));
  CHECK(HasSumBound("conv2d"));
  CHECK(HasSumBound("cumulativeSum"));
  CHECK(HasSumBound("linear"));       // alpha * x + beta: two terms
  CHECK(HasSumBound("hardSigmoid"));
  CHECK_FALSE(HasSumBound("add"));  // one rounding of the result: the ULP row is exact for it
  CHECK_FALSE(HasSumBound("layerNormalization"));
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
