// Tolerances (case-format "Tolerance") and the default per-operator table: one place, each row
// with its reason. `nnref tolerance` prints the table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "numerics/dtype.h"

namespace nnref {

enum class ToleranceMetric : uint8_t { kUlp, kAtol };

// An element passes when its ULP distance is <= ulp OR its absolute error is <= atol. A tolerance
// from a case file sets one of the two; a graph's default sums each operator's row per metric.
struct Tolerance {
  double ulp = 0;
  double atol = 0;
  std::string reason;
  // Sign-exact zeros: +0 and -0 then differ (by default they are 0 apart).
  bool sign_exact = false;

  static Tolerance Ulp(double v, std::string why = {}) { return {v, 0, std::move(why)}; }
  static Tolerance Atol(double v, std::string why = {}) { return {0, v, std::move(why)}; }
  Tolerance& operator+=(const Tolerance& o);
  std::string Describe() const;
};

// What an operator tells the table about itself: its name, output type, and the size parameter
// that some rows scale with (e.g. the reduced element count).
struct ToleranceQuery {
  std::string_view op;
  DataType output = DataType::kFloat32;
  uint64_t size = 0;
};

// One row of the table. `per_size` rows scale with ToleranceQuery::size: value = base +
// per_size*size. A ULP row may also carry an absolute bound (`or_atol_*`, 0: none): an element
// then passes within either (log: ULP away from 0, absolute near the zero at x = 1).
struct ToleranceRow {
  std::string_view op;
  ToleranceMetric metric;
  double float32;   // base for float32 outputs
  double float16;   // base for float16 outputs
  double per_size;  // extra per unit of ToleranceQuery::size (0: none)
  std::string_view reason;
  double or_atol_float32 = 0;  // ULP rows only: an absolute bound accepted as well
  double or_atol_float16 = 0;
};

const std::vector<ToleranceRow>& DefaultToleranceTable();

// The sum bound (docs/numerics.md, "The sum bound"). The rows of the operators whose result is a
// sum (of products, or of elements) count roundings in ULPs of the result. But an accumulator in
// the operand type rounds its partial sums, and each such rounding is off by up to
// u * |partial sum| <= u * M, where M = sum of |terms| (u: unit roundoff of the output type): where
// the terms cancel, |result| << M and a correct implementation leaves any ULP bound (1e8 + 1 - 1e8
// gives 0 in float32). So an element of such an operator also passes when
//   |actual - expected| <= SumBound(output, T, M) = T * (u * M + smallest subnormal)
// with T the ULP tolerance (its roundings; the subnormal term covers products that underflow).
// Where the terms do not cancel (M ~ |result|) this is no looser than the ULP bound.
bool HasSumBound(std::string_view op);
// 2^-24 for float32, 2^-11 for float16, 0 for the other types.
double UnitRoundoff(DataType dtype);
double SumBound(DataType output, double roundings, double magnitude);
// nullopt when the operator has no row (callers treat that as an internal error).
std::optional<Tolerance> DefaultTolerance(const ToleranceQuery& q);

}  // namespace nnref
