// Comparison of kOneOf elements (argMin/argMax ties): another value of the element's set passes
// in both directions (run: the case holds it; check: the implementation gave it), and anything
// else fails.
#include <doctest/doctest.h>

#include "ops/arg_cumulative.h"
#include "ref/testing.h"
#include "runner/compare.h"

namespace nnref {

TEST_CASE("compare: a tied argMax index passes, a non-tied one fails") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 4}});
  // Row 0: maximum 7 at 1 and 3 (a tie); row 1: one maximum, 9 at 0.
  const OperandValue ref = Run(b, ArgMax(b, x, 1), {{"x", F32({2, 4}, {1, 7, 2, 7, 9, 1, 1, 1})}});
  REQUIRE(ref.data.base<int32_t>()[0] == 1);  // the first tied index
  REQUIRE(ref.one_of != nullptr);
  const Tolerance exact = Tolerance::Ulp(0);
  const Tensor tied = Make<int32_t>(DataType::kInt32, {2}, {3, 0});
  // check: the reference is "expected", the implementation's tied index the actual.
  Comparison c = CompareTensors(ref.data, tied, ref.latitude, exact, 5, ref.one_of.get());
  CHECK(c.passed());
  CHECK(c.one_of_accepted == 1);
  // run: the case's expected value is the other tied index, nnref's value the actual.
  c = CompareTensors(tied, ref.data, ref.latitude, exact, 5, ref.one_of.get());
  CHECK(c.passed());
  CHECK(c.one_of_accepted == 1);
  // Index 2 holds 2, not the maximum: fails; so does a tie accepted on the wrong row (row 1 has
  // no tie: its 1 at index 1 is not its maximum).
  const Tensor not_tied = Make<int32_t>(DataType::kInt32, {2}, {2, 0});
  c = CompareTensors(ref.data, not_tied, ref.latitude, exact, 5, ref.one_of.get());
  CHECK(c.mismatches == 1);
  CHECK(c.first[0].index == 0);
  const Tensor row1 = Make<int32_t>(DataType::kInt32, {2}, {1, 1});
  c = CompareTensors(ref.data, row1, ref.latitude, exact, 5, ref.one_of.get());
  CHECK(c.mismatches == 1);
  CHECK(c.first[0].index == 1);
  // Without the set a kOneOf element is compared exactly.
  c = CompareTensors(ref.data, tied, ref.latitude, exact);
  CHECK(c.mismatches == 1);
  CHECK(c.one_of_accepted == 0);
}

}  // namespace nnref
