// The check mode blames the operator that diverges: the test-only fault-injecting backend
// (runner/fault_injection.h) wraps the simd backend and corrupts one element of one operator's
// output; the check must name that operator and that
// element, and judge the operators downstream (fed the reference's inputs) as passing.
#include "runner/backend_check.h"

#include <doctest/doctest.h>

#include <cmath>

#include "ops/activations.h"
#include "ops/elementwise_binary.h"
#include "ops/simd/simd_backend.h"
#include "runner/fault_injection.h"

namespace nnref {
namespace {

TEST_CASE("check mode: names the first diverging operator and element") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 3}});
  const Operand y = b.Input("y", {DataType::kFloat32, {2, 3}});
  const Operand sum = ElementwiseBinary(b, BinaryOp::kAdd, x, y);
  const Operand prod = ElementwiseBinary(b, BinaryOp::kMul, sum, x);
  const Operand out = Relu(b, prod);
  const std::shared_ptr<const Graph> graph = b.Build({{"out", out}});
  Tensor xv = Tensor::Allocate(DataType::kFloat32, {2, 3});
  Tensor yv = Tensor::Allocate(DataType::kFloat32, {2, 3});
  for (int i = 0; i < 6; ++i) {
    xv.base<float>()[i] = static_cast<float>(i) - 2.5f;
    yv.base<float>()[i] = 0.5f * static_cast<float>(i);
  }
  const std::map<std::string, Tensor> inputs = {{"x", xv}, {"y", yv}};

  SUBCASE("a faithful backend passes every operator") {
    std::string why;
    const auto compiled = CompileForBackend(*graph, MakeSimdBackend(BackendOptions{1}), why);
    REQUIRE(compiled);
    const BackendCheck check = CheckAgainstReference(*graph, *compiled, inputs);
    REQUIRE(check.operators.size() == 3);
    CHECK_FALSE(check.first_divergence);
    for (const OperatorCheck& oc : check.operators) CHECK(oc.cmp.passed());
  }
  SUBCASE("a corrupted mul is blamed; relu downstream is not") {
    // Element [1, 1] (index 4) of mul: (x + y) * x = (1.5 + 2) * 1.5 = 5.25; the fault gives 9.
    const auto faulty = MakeFaultInjectingBackend(MakeSimdBackend(BackendOptions{1}), "mul", 4, 9);
    std::string why;
    const auto compiled = CompileForBackend(*graph, faulty, why);
    REQUIRE(compiled);
    const BackendCheck check = CheckAgainstReference(*graph, *compiled, inputs);
    REQUIRE(check.first_divergence);
    const OperatorCheck& bad = check.operators[*check.first_divergence];
    CHECK(bad.op == OpId::mul);
    CHECK(bad.index == 1);
    CHECK(bad.cmp.mismatches == 1);
    REQUIRE(bad.cmp.first.size() == 1);
    CHECK(bad.cmp.first[0].index == 4);
    CHECK(bad.cmp.first[0].coordinates == "[1, 1]");
    CHECK(bad.cmp.first[0].expected == "5.25");
    CHECK(bad.cmp.first[0].actual == "9");
    CHECK(check.operators[0].cmp.passed());  // add
    CHECK(check.operators[2].cmp.passed());  // relu, fed the reference's mul
  }
}

}  // namespace
}  // namespace nnref
