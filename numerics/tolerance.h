// Tolerances (case-format "Tolerance"): the two metrics, their sum, and the sum bound's
// arithmetic. The default per-operator table is ops/tolerance_table.h.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "numerics/dtype.h"

namespace nnref {

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

// The sum bound (docs/numerics.md, "The sum bound"). The rows of the operators whose result is a
// sum (of products, or of elements) count roundings in ULPs of the result. But an accumulator in
// the operand type rounds its partial sums, and each such rounding is off by up to
// u * |partial sum| <= u * M, where M = sum of |terms| (u: unit roundoff of the output type): where
// the terms cancel, |result| << M and a correct implementation leaves any ULP bound (1e8 + 1 - 1e8
// gives 0 in float32). So an element of such an operator also passes when
//   |actual - expected| <= SumBound(output, T, M) = T * (u * M + smallest subnormal)
// with T the ULP tolerance (its roundings; the subnormal term covers products that underflow).
// Where the terms do not cancel (M ~ |result|) this is no looser than the ULP bound. Which
// operators have one: HasSumBound (ops/tolerance_table.h).

// 2^-24 for float32, 2^-11 for float16, 0 for the other types.
double UnitRoundoff(DataType dtype);
double SumBound(DataType output, double roundings, double magnitude);

}  // namespace nnref
