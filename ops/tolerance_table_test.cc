// Tests of ops/tolerance_table: the default table's integrity, the lookups the case format
// (docs/case-format.md, "Tolerance rules") names, and the operators with a sum bound.
#include "ops/tolerance_table.h"

#include <doctest/doctest.h>

#include <set>

namespace nnref {
namespace {

constexpr DataType kIntegerTypes[] = {DataType::kInt32,  DataType::kUint32, DataType::kInt64,
                                      DataType::kUint64, DataType::kInt8,   DataType::kUint8};

Tolerance Lookup(OpId op, DataType t, uint64_t size = 0) {
  const std::optional<Tolerance> tol = DefaultTolerance({op, t, size});
  REQUIRE(tol.has_value());
  return *tol;
}

TEST_CASE("DefaultToleranceTable: every row has a name, a reason and sane values") {
  const std::vector<ToleranceRow>& rows = DefaultToleranceTable();
  CHECK(!rows.empty());
  std::set<OpId> ops;
  for (const ToleranceRow& r : rows) {
    CAPTURE(OpName(r.op));
    CHECK(!r.reason.empty());
    CHECK(ops.insert(r.op).second);  // one row per operator
    CHECK(r.float32 >= 0);
    CHECK(r.float16 >= 0);
    CHECK(r.per_size >= 0);
  }
  CHECK(ops.size() == rows.size());
}

TEST_CASE("DefaultTolerance: every row is found and applied for its output type") {
  for (const ToleranceRow& r : DefaultToleranceTable()) {
    CAPTURE(OpName(r.op));
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
  const Tolerance add = Lookup(OpId::add, DataType::kFloat32);
  CHECK(add.ulp == 1);
  CHECK(add.atol == 0);
  CHECK(Lookup(OpId::add, DataType::kFloat16).ulp == 1);
  CHECK(Lookup(OpId::sub, DataType::kFloat32).ulp == 1);
  CHECK(Lookup(OpId::mul, DataType::kFloat32).ulp == 1);
  CHECK(Lookup(OpId::div, DataType::kFloat32).ulp == 2);
  CHECK(Lookup(OpId::sqrt, DataType::kFloat32).ulp == 1);
  CHECK(Lookup(OpId::exp, DataType::kFloat32).ulp == 32);
  CHECK(Lookup(OpId::exp, DataType::kFloat16).ulp == 1);
  CHECK(Lookup(OpId::pow, DataType::kFloat32).ulp == 32);
  CHECK(Lookup(OpId::pow, DataType::kFloat16).ulp == 2);
  CHECK(Lookup(OpId::max, DataType::kFloat32).ulp == 0);
  CHECK(Lookup(OpId::clamp, DataType::kFloat16).ulp == 0);
  CHECK(Lookup(OpId::cast, DataType::kFloat32).ulp == 1);  // to a float type: 1
  CHECK(Lookup(OpId::cast, DataType::kInt32).ulp == 0);    // to an integer type: 0
  CHECK(Lookup(OpId::cast, DataType::kUint8).atol == 0);
  const Tolerance log = Lookup(OpId::log, DataType::kFloat32);  // issue 14: 3 ULP or 2^-21
  CHECK(log.atol == 0x1p-21);
  CHECK(log.ulp == 3);
  CHECK(Lookup(OpId::log, DataType::kFloat16).atol == 0.0009765625);  // 2 ULP or 2^-10
  CHECK(Lookup(OpId::log, DataType::kFloat16).ulp == 2);
  CHECK(Lookup(OpId::erf, DataType::kFloat32).ulp == 2);
  CHECK(Lookup(OpId::erf, DataType::kFloat32).atol == 0);
  CHECK(Lookup(OpId::sin, DataType::kFloat32).atol == 0x1p-10);  // WGSL f32 2^-11, doubled
  CHECK(Lookup(OpId::cos, DataType::kFloat16).atol == 0x1p-7);   // WGSL f16 (issue 14 review)
  const Tolerance add_int = Lookup(OpId::add, DataType::kInt32);
  CHECK(add_int.ulp == 0);
  CHECK(add_int.atol == 0);
  CHECK(Lookup(OpId::log, DataType::kInt64).atol == 0);
}

TEST_CASE("DefaultTolerance: NNEF-only operators have no row of their own") {
  CHECK_FALSE(DefaultTolerance({OpId::nnef_conv, DataType::kFloat32, 0}).has_value());
  CHECK_FALSE(DefaultTolerance({OpId::nnef_round, DataType::kFloat32, 0}).has_value());
}

TEST_CASE("DefaultTolerance: a graph default sums the rows per metric") {
  // add -> exp -> log on float32 is 1 + 32 + 3 ULP or ATOL 2^-21.
  Tolerance g = Lookup(OpId::add, DataType::kFloat32);
  g += Lookup(OpId::exp, DataType::kFloat32);
  g += Lookup(OpId::log, DataType::kFloat32);
  CHECK(g.ulp == 36);
  CHECK(g.atol == 0x1p-21);
}

TEST_CASE("HasSumBound: the operators whose result is a sum") {
  CHECK(HasSumBound(OpId::matmul));
  CHECK(HasSumBound(OpId::conv2d));
  CHECK(HasSumBound(OpId::cumulativeSum));
  CHECK(HasSumBound(OpId::linear));  // alpha * x + beta: two terms
  CHECK(HasSumBound(OpId::hardSigmoid));
  CHECK_FALSE(HasSumBound(OpId::add));  // one rounding of the result: the ULP row is exact for it
  CHECK_FALSE(HasSumBound(OpId::layerNormalization));
}

}  // namespace
}  // namespace nnref
