// The sum bound (runner/sum_bound.h): magnitudes by hand, the check mode accepting what an
// accumulator in float32 gives where the terms cancel, and still failing a wrong result.
#include "runner/sum_bound.h"

#include <doctest/doctest.h>

#include <cmath>

#include "numerics/ulp.h"
#include "ops/activations.h"
#include "ops/conv2d.h"
#include "ops/elementwise_binary.h"
#include "ops/matmul_gemm.h"
#include "ops/normalization.h"
#include "ops/simd/simd_backend.h"
#include "runner/backend_check.h"
#include "runner/compare.h"
#include "runner/fault_injection.h"

namespace nnref {
namespace {

Tensor Float32(const Shape& shape, std::initializer_list<float> values) {
  Tensor t = Tensor::Allocate(DataType::kFloat32, shape);
  size_t i = 0;
  for (float v : values) t.base<float>()[i++] = v;
  return t;
}

const double kU = std::ldexp(1.0, -24);
const double kSub = std::ldexp(1.0, -149);

std::vector<double> BoundsOf(const Graph& g, const std::map<std::string, Tensor>& in,
                             double roundings) {
  std::vector<OperandValue> values(g.operators()[0].inputs.size());
  std::map<uint32_t, OperandValue> all;
  g.Compute(in, [&](OperandId id, const OperandValue& v) { all[id.value] = v; });
  std::vector<const OperandValue*> ptrs;
  for (OperandId id : g.operators()[0].inputs) ptrs.push_back(&all.at(id.value));
  return OperatorSumBounds(g, 0, ptrs, roundings);
}

TEST_CASE("sum bound: magnitudes are the sums of |terms|") {
  SUBCASE("gemm with alpha < 0 < beta: both parts count, though the result is 0") {
    // -1 * (2*4 + 3*5) + 1 * 23 = 0; sum of |terms| = 8 + 15 + 23 = 46.
    GraphBuilder b;
    const Operand a = b.Input("a", {DataType::kFloat32, {1, 2}});
    const Operand bb = b.Input("b", {DataType::kFloat32, {2, 1}});
    const Operand c = b.Input("c", {DataType::kFloat32, {1, 1}});
    MLGemmOptions o;
    o.c = c;
    o.alpha = -1;
    const auto g = b.Build({{"out", Gemm(b, a, bb, o)}});
    const auto bounds = BoundsOf(*g,
                                 {{"a", Float32({1, 2}, {2, 3})},
                                  {"b", Float32({2, 1}, {4, 5})},
                                  {"c", Float32({1, 1}, {23})}},
                                 1);
    REQUIRE(bounds.size() == 1);
    CHECK(bounds[0] == 46 * kU + kSub);
  }
  SUBCASE("conv2d: the window's |x| * |w|") {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat32, {1, 1, 2, 2}});
    const Operand w = b.Input("w", {DataType::kFloat32, {1, 1, 2, 2}});
    const auto g = b.Build({{"out", Conv2d(b, x, w)}});
    const auto bounds = BoundsOf(
        *g, {{"x", Float32({1, 1, 2, 2}, {1, -2, 3, -4})}, {"w", Float32({1, 1, 2, 2}, {1, 1, -1, 1})}},
        2);
    REQUIRE(bounds.size() == 1);
    CHECK(bounds[0] == 2 * (10 * kU + kSub));  // result 1 - 2 - 3 - 4 = -8, M = 10
  }
  SUBCASE("batchNormalization: (|x| + |mean|) / sqrt(variance + epsilon) * |scale| + |bias|") {
    // x = 1, mean = 3, variance = 3, epsilon 1e-5, scale = -2, bias = 5: the result is
    // (1 - 3) / sqrt(3.00001) * -2 + 5; M = (1 + 3) / sqrt(3.00001) * 2 + 5.
    GraphBuilder b;
    MLBatchNormalizationOptions o;
    o.scale = b.Input("scale", {DataType::kFloat32, {1}});
    o.bias = b.Input("bias", {DataType::kFloat32, {1}});
    const Operand y = BatchNormalization(b, b.Input("x", {DataType::kFloat32, {1, 1}}),
                                         b.Input("mean", {DataType::kFloat32, {1}}),
                                         b.Input("variance", {DataType::kFloat32, {1}}), o);
    const auto g = b.Build({{"out", y}});
    const auto bounds = BoundsOf(*g,
                                 {{"x", Float32({1, 1}, {1})},
                                  {"mean", Float32({1}, {3})},
                                  {"variance", Float32({1}, {3})},
                                  {"scale", Float32({1}, {-2})},
                                  {"bias", Float32({1}, {5})}},
                                 1);
    REQUIRE(bounds.size() == 1);
    const double m = 4 / std::sqrt(3.0 + static_cast<double>(1e-5f)) * 2 + 5;
    CHECK(bounds[0] == doctest::Approx(m * kU + kSub).epsilon(1e-6));
  }
  SUBCASE("operators that are not sums have none") {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat32, {2}});
    const auto g = b.Build({{"out", ElementwiseBinary(b, BinaryOp::kAdd, x, x)}});
    CHECK(BoundsOf(*g, {{"x", Float32({2}, {1, -1})}}, 4).empty());
  }
}

TEST_CASE("sum bound: a graph output fed by computed operands doubles the upstream part") {
  // matmul(x + y, w), K = 2: default tolerance = add 1 + matmul 2K = 5 ULP, of which matmul's own
  // row is 4: roundings = 5 + (5 - 4) = 6. M = |x + y| . |w| = 3*1 + 1*2 = 5.
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {1, 2}});
  const Operand y = b.Input("y", {DataType::kFloat32, {1, 2}});
  const Operand w = b.Input("w", {DataType::kFloat32, {2, 1}});
  const Operand out = Matmul(b, ElementwiseBinary(b, BinaryOp::kAdd, x, y), w);
  const auto g = b.Build({{"out", out}});
  std::map<uint32_t, OperandValue> all;
  g->Compute({{"x", Float32({1, 2}, {1, -2})},
              {"y", Float32({1, 2}, {2, 1})},
              {"w", Float32({2, 1}, {1, 2})}},
             [&](OperandId id, const OperandValue& v) { all[id.value] = v; });
  const OperandId id = g->outputs()[0].second;
  CHECK(SumBoundOperands(*g, id).size() == 2);
  const auto bounds = OutputSumBounds(*g, id, Tolerance::Ulp(5),
                                      [&](OperandId i) -> const OperandValue& { return all.at(i.value); });
  REQUIRE(bounds.size() == 1);
  CHECK(bounds[0] == 6 * (5 * kU + kSub));
  Tolerance exact = Tolerance::Ulp(0);
  exact.sign_exact = true;
  CHECK(OutputSumBounds(*g, id, exact, [&](OperandId i) -> const OperandValue& {
          return all.at(i.value);
        }).empty());
}

TEST_CASE("sum bound: the check mode accepts a float32 accumulator's cancellation, not more") {
  // [1e8, 1, -1e8] . [1, 1, 1]: exactly 1. Added in float32 in order, 1e8 + 1 rounds to 1e8
  // (the spacing there is 8), so a float32 accumulator gives 0. matmul's row for K = 3 is 6 ULP;
  // 0 is 2^23 * 127 ULP below 1, but within 6 * (2e8 + 1) * 2^-24 = 71.5 of it.
  GraphBuilder b;
  const Operand a = b.Input("a", {DataType::kFloat32, {1, 3}});
  const Operand w = b.Input("w", {DataType::kFloat32, {3, 1}});
  const auto g = b.Build({{"out", Matmul(b, a, w)}});
  const std::map<std::string, Tensor> inputs = {{"a", Float32({1, 3}, {1e8f, 1, -1e8f})},
                                                {"w", Float32({3, 1}, {1, 1, 1})}};
  // Independent check of the premise: the float32 sum in order.
  volatile float acc = 1e8f;
  acc = acc + 1.0f;
  acc = acc + -1e8f;
  CHECK(acc == 0.0f);
  auto judge = [&](double value) {
    std::string why;
    const auto compiled = CompileForBackend(
        *g, MakeFaultInjectingBackend(MakeSimdBackend(BackendOptions{1}), "matmul", 0, value), why);
    REQUIRE(compiled);
    return CheckAgainstReference(*g, *compiled, inputs).operators.at(0).cmp;
  };
  const Comparison float32_sum = judge(0);
  CHECK(float32_sum.passed());
  CHECK(float32_sum.sum_bound_accepted == 1);
  CHECK(float32_sum.max_ulp > 1e9);  // the ULP distance alone would fail it
  const Comparison near = judge(72);   // |72 - 1| = 71 < 71.5
  CHECK(near.passed());
  const Comparison wrong = judge(73);  // 72 > 71.5
  CHECK_FALSE(wrong.passed());
  CHECK(wrong.mismatches == 1);
  CHECK(wrong.sum_bound_accepted == 0);
  const Comparison nan = judge(std::nan(""));
  CHECK_FALSE(nan.passed());
}

TEST_CASE("sum bound: hardSigmoid's alpha * x + beta in two float32 roundings") {
  // max(0, min(1, alpha * x + beta)) with alpha = -0.2, beta = 0.5: near x = 2.35 the product is
  // about -0.47, whose float32 rounding is off by up to 2^-26 (1.5e-8), several ULP of the result
  // 0.03. Find such an x, computing the two-rounding value and the exact one here. (A negative
  // alpha: M is |alpha| |x| + |beta| = 0.97, not hardSigmoid(|x|) = 0.03.)
  const float alpha = -0.2f, beta = 0.5f;
  float x = 0, two_step = 0;
  double exact = 0;
  for (int k = 0; k < 20000 && x == 0; ++k) {
    const float xi = 2.3f + static_cast<float>(k) * 1e-5f;
    const float product = alpha * xi;  // rounded once
    const float r = product + beta;    // rounded again
    const double e = static_cast<double>(alpha) * static_cast<double>(xi) + 0.5;
    if (UlpDistanceFloat32(r, static_cast<float>(e)) > 2) {
      x = xi;
      two_step = r;
      exact = e;
    }
  }
  REQUIRE(x != 0);
  GraphBuilder b;
  MLHardSigmoidOptions o;
  o.alpha = -0.2;
  o.beta = 0.5;
  const auto g = b.Build({{"out", HardSigmoid(b, b.Input("x", {DataType::kFloat32, {1}}), o)}});
  const std::map<std::string, Tensor> inputs = {{"x", Float32({1}, {x})}};
  // M = 0.2 |x| + 0.5; the row is 2 ULP, so the bound is 2 * 2^-24 * M.
  const double bound = 2 * (std::ldexp(0.2 * std::fabs(static_cast<double>(x)) + 0.5, -24) + kSub);
  CHECK(std::fabs(static_cast<double>(two_step) - exact) < bound);
  auto judge = [&](double value) {
    std::string why;
    const auto compiled = CompileForBackend(
        *g, MakeFaultInjectingBackend(MakeSimdBackend(BackendOptions{1}), "hardSigmoid", 0, value),
        why);
    REQUIRE(compiled);
    return CheckAgainstReference(*g, *compiled, inputs).operators.at(0).cmp;
  };
  const Comparison faithful = judge(two_step);
  CHECK(faithful.passed());
  CHECK(faithful.sum_bound_accepted == 1);
  const Comparison wrong = judge(exact + 2 * bound);
  CHECK_FALSE(wrong.passed());
}

}  // namespace
}  // namespace nnref
