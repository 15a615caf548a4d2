// Element-wise variants and mutants (elementwise.cc, activations_variants.cc): values derived by
// hand or computed independently here (float arithmetic, nextafter), on one-operator graphs.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <numbers>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ops/activations.h"
#include "ops/cast_clamp_where.h"
#include "ops/elementwise_binary.h"
#include "ops/elementwise_unary.h"
#include "ops/quantization.h"
#include "ops/resample2d.h"
#include "ops/variants/variants.h"
#include "ref/testing.h"

namespace nnref {

namespace {

constexpr DataType kF32 = DataType::kFloat32;
constexpr DataType kF16 = DataType::kFloat16;
constexpr double kInfinity64 = std::numeric_limits<double>::infinity();

const Alternative& Find(const std::string& op, const std::string& name) {
  for (const Alternative* a : AlternativesFor(OpNamed(op))) {
    if (a->op == OpNamed(op) && a->name == name) return *a;
  }
  FAIL("no alternative " << op << " / " << name);
  throw 0;  // unreachable
}

double Get(const Tensor& t, uint64_t i) {
  return t.dtype() == kF16 ? t.At<Float16>(i).ToDouble() : static_cast<double>(t.At<float>(i));
}

std::vector<double> Values(const Tensor& t) {
  std::vector<double> v(t.element_count());
  for (uint64_t i = 0; i < v.size(); ++i) v[i] = Get(t, i);
  return v;
}

// One operator graph: inputs registered with their values, then the operator built on them.
class OneOp {
 public:
  Operand Input(const std::string& name, const Tensor& value) {
    values_[name] = value;
    return b_.Input(name, {value.dtype(), value.shape()});
  }
  GraphBuilder& builder() { return b_; }
  void Build(const Operand& out) { graph_ = b_.Build({{"out", out}}); }

  // The reference's output.
  std::vector<double> Reference() const { return Values(graph_->Compute(values_).at("out").data); }

  // Alternative op/name on operator 0 (nullopt when it does not apply).
  std::optional<std::vector<Tensor>> Run(const std::string& op, const std::string& name) const {
    std::vector<OperandValue> in;
    for (OperandId id : graph_->operators()[0].inputs) {
      const OperandNode& o = graph_->operand(id);
      in.push_back({o.kind == OperandNode::Kind::kConstant ? o.constant : values_.at(o.name), {}});
    }
    std::vector<const OperandValue*> ptrs;
    for (const OperandValue& v : in) ptrs.push_back(&v);
    return Find(op, name).compute(*graph_, 0, ptrs);
  }
  std::vector<double> Values1(const std::string& op, const std::string& name) const {
    const auto r = Run(op, name);
    REQUIRE(r.has_value());
    REQUIRE(r->size() == 1);
    return Values((*r)[0]);
  }

 private:
  GraphBuilder b_;
  std::map<std::string, Tensor> values_;
  std::shared_ptr<const Graph> graph_;
};

// A unary (or single-input activation) graph over float32 `x`.
template <typename Make>
void BuildUnary(OneOp& g, DataType type, std::initializer_list<double> x, Make make) {
  const Shape shape{x.size()};
  Tensor t = Tensor::Allocate(type, shape);
  size_t i = 0;
  for (double v : x) {
    if (type == kF16) {
      t.base<Float16>()[i++] = Float16::FromDouble(v);
    } else {
      t.base<float>()[i++] = static_cast<float>(v);
    }
  }
  g.Build(make(g.builder(), g.Input("x", t)));
}

Operand Unary(GraphBuilder& b, UnaryOp op, const Operand& x) { return ElementwiseUnary(b, op, x); }

// `v` truncated toward zero to float32, computed with nextafterf.
float TruncF32(double v) {
  float f = static_cast<float>(v);
  if (std::fabs(static_cast<double>(f)) > std::fabs(v)) f = std::nextafter(f, 0.0f);
  return f;
}

}  // namespace

TEST_CASE("elu decomposition: exp(x) - 1 in float32 at x = -1e-8 is exactly 0") {
  OneOp g;
  BuildUnary(g, kF32, {-1e-8}, [](GraphBuilder& b, const Operand& x) { return Elu(b, x); });
  const double x = static_cast<double>(-1e-8f);
  CHECK(g.Reference()[0] == static_cast<double>(static_cast<float>(std::expm1(x))));
  CHECK(g.Values1("elu", "decomposition")[0] == 0);  // expf(-1e-8) rounds to 1
  CHECK(g.Values1("elu", "truncate")[0] == static_cast<double>(TruncF32(std::expm1(x))));
  CHECK_FALSE(g.Run("elu", "decomposition-f32").has_value());  // float16 outputs only
  CHECK_FALSE(g.Run("elu", "ignores-alpha").has_value());      // alpha is 1
}

TEST_CASE("elu: alpha ignored, or applied on the positive branch") {
  OneOp g;
  MLEluOptions o;
  o.alpha = 2;
  BuildUnary(g, kF32, {-1, 2}, [&](GraphBuilder& b, const Operand& x) { return Elu(b, x, o); });
  const auto e = static_cast<double>(static_cast<float>(std::expm1(-1.0)));
  CHECK(g.Values1("elu", "ignores-alpha") == std::vector<double>{e, 2});
  const auto e2 = static_cast<double>(static_cast<float>(2 * std::expm1(-1.0)));
  CHECK(g.Values1("elu", "alpha-on-positive") == std::vector<double>{e2, 4});
  CHECK(g.Reference() == std::vector<double>{e2, 2});
}

TEST_CASE("gelu tanh approximation at x = 1: 0.841192 against erf gelu 0.841345") {
  OneOp g;
  BuildUnary(g, kF32, {1}, [](GraphBuilder& b, const Operand& x) { return Gelu(b, x); });
  CHECK(g.Reference()[0] == doctest::Approx(0.841345).epsilon(1e-6));
  CHECK(g.Values1("gelu", "tanh-approx")[0] == doctest::Approx(0.841192).epsilon(1e-6));
  // The erf decomposition stays within a few float32 ULPs of the reference.
  CHECK(std::fabs(g.Values1("gelu", "decomposition")[0] - g.Reference()[0]) < 4 * 0x1p-24);
}

TEST_CASE("truncation: 1/3 in float32 is one ULP below the correctly rounded value") {
  OneOp g;
  const Operand a = g.Input("a", F32({1}, {1}));
  const Operand b = g.Input("b", F32({1}, {3}));
  g.Build(ElementwiseBinary(g.builder(), BinaryOp::kDiv, a, b));
  CHECK(std::bit_cast<uint32_t>(static_cast<float>(g.Reference()[0])) == 0x3eaaaaabu);
  const float t = static_cast<float>(g.Values1("div", "truncate")[0]);
  CHECK(std::bit_cast<uint32_t>(t) == 0x3eaaaaaau);
}

TEST_CASE("truncation broadcasts like the reference: add [2, 3] + [3]") {
  OneOp g;
  const Operand a = g.Input("a", F32({2, 3}, {1, 2, 3, -4, -5, -6}));
  const Operand b = g.Input("b", F32({3}, {0.1f, 0.2f, 0.3f}));
  g.Build(ElementwiseBinary(g.builder(), BinaryOp::kAdd, a, b));
  const float av[] = {1, 2, 3, -4, -5, -6}, bv[] = {0.1f, 0.2f, 0.3f};
  const std::vector<double> t = g.Values1("add", "truncate");
  for (size_t i = 0; i < 6; ++i) {
    const double exact = static_cast<double>(av[i]) + static_cast<double>(bv[i % 3]);  // exact
    CHECK(t[i] == static_cast<double>(TruncF32(exact)));
  }
  CHECK(t != g.Reference());
}

TEST_CASE("div as a * (1 / b) in float32: 5 * (1/3) rounds above 5/3") {
  OneOp g;
  const Operand a = g.Input("a", F32({1}, {5}));
  const Operand b = g.Input("b", F32({1}, {3}));
  g.Build(ElementwiseBinary(g.builder(), BinaryOp::kDiv, a, b));
  const float r = 1.0f / 3.0f;
  const float expected = 5.0f * r;
  CHECK(g.Values1("div", "reciprocal-then-multiply")[0] == static_cast<double>(expected));
  CHECK(g.Reference()[0] == static_cast<double>(5.0f / 3.0f));
  CHECK(static_cast<double>(expected) != g.Reference()[0]);
  // The operands swapped: 3 / 5.
  CHECK(g.Values1("div", "operands-swapped")[0] == static_cast<double>(3.0f / 5.0f));
}

TEST_CASE("gpu exp: 3 + 2|x| ULP in float32, 1 + 2|x| in float16 (WGSL ULPs)") {
  OneOp g;
  BuildUnary(g, kF32, {0, 2, -100},
             [](GraphBuilder& b, const Operand& x) { return Unary(b, UnaryOp::kExp, x); });
  const std::vector<double> plus = g.Values1("exp", "gpu-exp-plus");
  const std::vector<double> minus = g.Values1("exp", "gpu-exp-minus");
  // WGSL's ULP(1) is the spacing below 1, 2^-24: the bound is 1.5 * 2^-23 above, 3 * 2^-24 below.
  CHECK(plus[0] == 1 + 0x1p-23);
  CHECK(minus[0] == 1 - 3 * 0x1p-24);
  // x = 2: the largest float32 within 7 ULP (2^-21 each, e^2 is in [4, 8)) above e^2, and the
  // smallest below.
  const double e2 = std::exp(2.0), bound = 7 * 0x1p-21;
  CHECK(plus[1] <= e2 + bound);
  CHECK(static_cast<double>(std::nextafter(static_cast<float>(plus[1]), 100.0f)) > e2 + bound);
  CHECK(minus[1] >= e2 - bound);
  CHECK(static_cast<double>(std::nextafter(static_cast<float>(minus[1]), 0.0f)) < e2 - bound);
  // x = -100: e^-100 is a float32 subnormal: kept correctly rounded (203 subnormal steps away
  // would even be negative).
  CHECK(minus[2] == static_cast<double>(static_cast<float>(std::exp(-100.0))));
  CHECK(plus[2] == minus[2]);

  OneOp h;
  BuildUnary(h, kF16, {0},
             [](GraphBuilder& b, const Operand& x) { return Unary(b, UnaryOp::kExp, x); });
  // 1 ULP of 1 is 2^-11: 1 + 2^-10 is beyond it, 1 - 2^-11 within.
  CHECK(h.Values1("exp", "gpu-exp-plus")[0] == 1);
  CHECK(h.Values1("exp", "gpu-exp-minus")[0] == 1 - 0x1p-11);
  // exp2 for exp is a mutant: 2^0 = 1 equals e^0, 2^2 = 4 does not equal e^2.
  CHECK(g.Values1("exp", "exp2")[1] == 4);
}

TEST_CASE("gpu primitives stay in their ranges; an infinite bound keeps the exact value") {
  // erf(+-5) rounds to +-1 in float32: saturated, kept. erf(-2) = -0.99532: 16 ULP of 2^-24.
  OneOp e;
  BuildUnary(e, kF32, {-5, 5, -2},
             [](GraphBuilder& b, const Operand& x) { return Unary(b, UnaryOp::kErf, x); });
  const std::vector<double> minus = e.Values1("erf", "gpu-erf-minus");
  const std::vector<double> plus = e.Values1("erf", "gpu-erf-plus");
  CHECK(minus[0] == -1);
  CHECK(plus[0] == -1);
  CHECK(plus[1] == 1);
  const double erf2 = std::erf(-2.0);
  CHECK(plus[2] <= erf2 + 16 * 0x1p-24);
  CHECK(plus[2] > erf2 + 15 * 0x1p-24);
  CHECK(minus[2] >= erf2 - 16 * 0x1p-24);
  CHECK(minus[2] < erf2 - 15 * 0x1p-24);
  OneOp s;
  BuildUnary(s, kF32, {kInfinity64, -kInfinity64},
             [](GraphBuilder& b, const Operand& x) { return Sigmoid(b, x); });
  // exp(-Infinity) = 0 exactly (its bound 3 + 2|x| ULP is infinite); 1 / 1 at the division's
  // 2 ULP (2^-24 each below 1). exp(Infinity) = Infinity and 1 / Infinity = 0.
  CHECK(s.Values1("sigmoid", "decomposition-gpu-plus") == std::vector<double>{1 + 0x1p-23, 0});
  CHECK(s.Values1("sigmoid", "decomposition-gpu-minus") == std::vector<double>{1 - 0x1p-23, 0});
}

TEST_CASE("gpu log: absolute 2^-21 inside [0.5, 2], 3 ULP outside; log2 mutant") {
  OneOp g;
  BuildUnary(g, kF32, {1, 8},
             [](GraphBuilder& b, const Operand& x) { return Unary(b, UnaryOp::kLog, x); });
  const std::vector<double> plus = g.Values1("log", "gpu-log-plus");
  CHECK(plus[0] == 0x1p-21);
  CHECK(g.Values1("log", "gpu-log-minus")[0] == -0x1p-21);
  const double l8 = std::log(8.0);  // in [2, 4): ULP 2^-22
  CHECK(plus[1] <= l8 + 3 * 0x1p-22);
  CHECK(plus[1] > l8 + 2 * 0x1p-22);
  CHECK(g.Values1("log", "log2") == std::vector<double>{0, 3});
}

TEST_CASE("gpu sin: absolute 2^-11 on [-pi, pi], the exact value outside") {
  OneOp g;
  BuildUnary(g, kF32, {0, 4},
             [](GraphBuilder& b, const Operand& x) { return Unary(b, UnaryOp::kSin, x); });
  const std::vector<double> plus = g.Values1("sin", "gpu-sin-plus");
  CHECK(plus[0] == 0x1p-11);
  CHECK(plus[1] == g.Reference()[1]);
  CHECK(g.Values1("sin", "gpu-sin-minus")[0] == -0x1p-11);
}

TEST_CASE("tan as float32 sin / float32 cos; libm tanf") {
  OneOp g;
  BuildUnary(g, kF32, {1},
             [](GraphBuilder& b, const Operand& x) { return Unary(b, UnaryOp::kTan, x); });
  const float s = std::sin(1.0f), c = std::cos(1.0f);
  CHECK(g.Values1("tan", "sin-over-cos")[0] == static_cast<double>(s / c));
  CHECK(g.Values1("tan", "libm-f32")[0] == static_cast<double>(std::tan(1.0f)));
}

TEST_CASE("float16 subnormals flushed: 2^-10 * 2^-10 = 2^-20") {
  OneOp g;
  const Operand a = g.Input("a", F16({2}, {0x1p-10, 1}));
  const Operand b = g.Input("b", F16({2}, {0x1p-10, 3}));
  g.Build(ElementwiseBinary(g.builder(), BinaryOp::kMul, a, b));
  CHECK(g.Reference() == std::vector<double>{0x1p-20, 3});
  CHECK(g.Values1("mul", "flush-subnormals-f16") == std::vector<double>{0, 3});

  OneOp normal;  // no subnormal result: nothing to flush
  const Operand c = normal.Input("a", F16({1}, {2}));
  normal.Build(ElementwiseBinary(normal.builder(), BinaryOp::kMul, c, c));
  CHECK_FALSE(normal.Run("mul", "flush-subnormals-f16").has_value());

  OneOp f32;  // float32 outputs: the generic mutant's business
  const Operand d = f32.Input("a", F32({1}, {1e-30f}));
  f32.Build(ElementwiseBinary(f32.builder(), BinaryOp::kMul, d, d));
  CHECK_FALSE(f32.Run("mul", "flush-subnormals-f16").has_value());
}

TEST_CASE("hardSwish at x = 1: 4/6; /8 gives 0.5, without + 3 gives 1/6") {
  OneOp g;
  BuildUnary(g, kF32, {1}, [](GraphBuilder& b, const Operand& x) { return HardSwish(b, x); });
  CHECK(g.Reference()[0] == static_cast<double>(4.0f / 6.0f));
  CHECK(g.Values1("hardSwish", "div8")[0] == 0.5);
  CHECK(g.Values1("hardSwish", "no-shift")[0] == static_cast<double>(1.0f / 6.0f));
  CHECK(g.Values1("hardSwish", "decomposition")[0] == static_cast<double>(4.0f / 6.0f));
  const float sixth = 1.0f / 6.0f;
  CHECK(g.Values1("hardSwish", "times-one-sixth")[0] == static_cast<double>(4.0f * sixth));
}

TEST_CASE("hardSigmoid ignoring beta, only when beta is not 0") {
  OneOp g;
  BuildUnary(g, kF32, {1, -1}, [](GraphBuilder& b, const Operand& x) { return HardSigmoid(b, x); });
  CHECK(g.Reference() == std::vector<double>{0.7f, 0.3f});  // 0.2 x + 0.5, alpha/beta as float
  CHECK(g.Values1("hardSigmoid", "ignores-beta") == std::vector<double>{0.2f, 0});
  OneOp z;
  MLHardSigmoidOptions o;
  o.beta = 0;
  BuildUnary(z, kF32, {1}, [&](GraphBuilder& b, const Operand& x) { return HardSigmoid(b, x, o); });
  CHECK_FALSE(z.Run("hardSigmoid", "ignores-beta").has_value());
}

TEST_CASE("leakyRelu and prelu: the slope on the wrong side") {
  OneOp g;
  MLLeakyReluOptions o;
  o.alpha = 0.5;
  BuildUnary(g, kF32, {2, -2},
             [&](GraphBuilder& b, const Operand& x) { return LeakyRelu(b, x, o); });
  CHECK(g.Reference() == std::vector<double>{2, -1});
  CHECK(g.Values1("leakyRelu", "slope-on-positive") == std::vector<double>{1, -2});

  OneOp p;
  const Operand x = p.Input("x", F32({2}, {4, -4}));
  const Operand s = p.Input("s", F32({1}, {0.25f}));
  p.Build(Prelu(p.builder(), x, s));
  CHECK(p.Reference() == std::vector<double>{4, -1});
  CHECK(p.Values1("prelu", "slope-on-positive") == std::vector<double>{1, -4});

  OneOp one;
  const Operand y = one.Input("x", F32({2}, {4, -4}));
  const Operand t = one.Input("s", F32({1}, {1}));
  one.Build(Prelu(one.builder(), y, t));
  CHECK_FALSE(one.Run("prelu", "slope-on-positive").has_value());
}

TEST_CASE("clamp: bounds swapped; maxValue ignored") {
  OneOp g;
  MLClampOptions o;
  o.minValue = MLNumber::FromDouble(0);
  o.maxValue = MLNumber::FromDouble(6);
  BuildUnary(g, kF32, {3, 10, -1},
             [&](GraphBuilder& b, const Operand& x) { return Clamp(b, x, o); });
  CHECK(g.Reference() == std::vector<double>{3, 6, 0});
  CHECK(g.Values1("clamp", "bounds-swapped") == std::vector<double>{0, 0, 0});
  CHECK(g.Values1("clamp", "min-only") == std::vector<double>{3, 10, 0});
  OneOp h;
  MLClampOptions lower;
  lower.minValue = MLNumber::FromDouble(0);
  BuildUnary(h, kF32, {3}, [&](GraphBuilder& b, const Operand& x) { return Clamp(b, x, lower); });
  CHECK_FALSE(h.Run("clamp", "min-only").has_value());
}

TEST_CASE("cast float32 -> float16 truncated; exact casts have no truncation mutant") {
  OneOp g;
  const double x = 1 + 0x1p-11 + 0x1p-13;  // above the float16 tie 1 + 2^-11
  BuildUnary(g, kF32, {x}, [](GraphBuilder& b, const Operand& in) { return Cast(b, in, kF16); });
  CHECK(g.Reference()[0] == 1 + 0x1p-10);
  CHECK(g.Values1("cast", "truncate")[0] == 1);

  OneOp widen;
  BuildUnary(widen, kF16, {x},
             [](GraphBuilder& b, const Operand& in) { return Cast(b, in, kF32); });
  CHECK_FALSE(widen.Run("cast", "truncate").has_value());
  OneOp to_int;
  BuildUnary(to_int, kF32, {x},
             [](GraphBuilder& b, const Operand& in) { return Cast(b, in, DataType::kInt32); });
  CHECK_FALSE(to_int.Run("cast", "truncate").has_value());
  CHECK_FALSE(to_int.Run("cast", "flush-subnormals-f16").has_value());
}

TEST_CASE("dequantizeLinear: zero point or scale ignored") {
  OneOp g;
  const Operand x = g.Input("x", Make<uint8_t>(DataType::kUint8, {2}, {10, 0}));
  const Operand s = g.Input("s", F32({1}, {0.5f}));
  const Operand z = g.Input("z", Make<uint8_t>(DataType::kUint8, {1}, {3}));
  g.Build(DequantizeLinear(g.builder(), x, s, z));
  CHECK(g.Reference() == std::vector<double>{3.5, -1.5});
  CHECK(g.Values1("dequantizeLinear", "ignores-zero-point") == std::vector<double>{5, 0});
  CHECK(g.Values1("dequantizeLinear", "ignores-scale") == std::vector<double>{7, -3});
  CHECK(g.Values1("dequantizeLinear", "decomposition") == std::vector<double>{3.5, -1.5});

  OneOp zero;
  const Operand x0 = zero.Input("x", Make<uint8_t>(DataType::kUint8, {1}, {10}));
  const Operand s0 = zero.Input("s", F32({1}, {0.5f}));
  const Operand z0 = zero.Input("z", Make<uint8_t>(DataType::kUint8, {1}, {0}));
  zero.Build(DequantizeLinear(zero.builder(), x0, s0, z0));
  CHECK_FALSE(zero.Run("dequantizeLinear", "ignores-zero-point").has_value());
}

TEST_CASE("quantizeLinear int8: half away from zero, wrapping, truncating") {
  OneOp g;
  const Operand x = g.Input("x", F32({3}, {2.5f, 200, -1.75f}));
  const Operand s = g.Input("s", F32({1}, {1}));
  const Operand z = g.Input("z", Make<int8_t>(DataType::kInt8, {1}, {0}));
  g.Build(QuantizeLinear(g.builder(), x, s, z));
  const auto ints = [&](const std::string& name) {
    const auto r = g.Run("quantizeLinear", name);
    REQUIRE(r.has_value());
    std::vector<int> v;
    for (uint64_t i = 0; i < (*r)[0].element_count(); ++i) v.push_back((*r)[0].At<int8_t>(i));
    return v;
  };
  CHECK(ints("round-half-away") == std::vector<int>{3, 127, -2});
  CHECK(ints("wrap") == std::vector<int>{2, -56, -2});
  CHECK(ints("truncate") == std::vector<int>{2, 127, -1});
  CHECK(ints("quotient-in-operand-type") == std::vector<int>{2, 127, -2});
  CHECK_FALSE(g.Run("quantizeLinear", "ignores-zero-point").has_value());
}

TEST_CASE("resample2d linear [0, 1] to width 4: half-pixel, align-corners, asymmetric") {
  const auto build = [](OneOp& g, MLInterpolationMode mode) {
    const Operand x = g.Input("x", F32({1, 1, 1, 2}, {0, 1}));
    MLResample2dOptions o;
    o.mode = mode;
    o.sizes = std::vector<uint32_t>{1, 4};
    g.Build(Resample2d(g.builder(), x, o));
  };
  OneOp g;
  build(g, MLInterpolationMode::kLinear);
  // (x + 0.5) / 2 - 0.5 clamped: 0, 0.25, 0.75, 1.
  CHECK(g.Reference() == std::vector<double>{0, 0.25, 0.75, 1});
  CHECK(g.Values1("resample2d", "decomposition") == std::vector<double>{0, 0.25, 0.75, 1});
  CHECK(g.Values1("resample2d", "lerp") == std::vector<double>{0, 0.25, 0.75, 1});
  const std::vector<double> corners = {0, static_cast<double>(1.0f / 3.0f),
                                       static_cast<double>(2.0f / 3.0f), 1};
  CHECK(g.Values1("resample2d", "align-corners") == corners);
  CHECK(g.Values1("resample2d", "asymmetric") == std::vector<double>{0, 0.5, 1, 1});
  OneOp nearest;
  build(nearest, MLInterpolationMode::kNearestNeighbor);
  CHECK_FALSE(nearest.Run("resample2d", "align-corners").has_value());
}

TEST_CASE("pow as exp(b * log(a)) in float32, the sign of a negative base kept") {
  OneOp g;
  const Operand a = g.Input("a", F32({4}, {2, -2, -2, 5}));
  const Operand b = g.Input("b", F32({4}, {10, 3, 0.5f, 0}));
  g.Build(ElementwiseBinary(g.builder(), BinaryOp::kPow, a, b));
  const std::vector<double> v = g.Values1("pow", "exp-log-f32");
  CHECK(v[0] == static_cast<double>(std::exp(10.0f * std::log(2.0f))));
  CHECK(v[1] == static_cast<double>(-std::exp(3.0f * std::log(2.0f))));
  CHECK(std::isnan(v[2]));
  CHECK(v[3] == 1);
  CHECK(g.Values1("pow", "abs-base")[1] == 8);  // the sign lost
}

TEST_CASE("softplus: log(1 + exp(x)) with and without the overflow guard") {
  OneOp g;
  BuildUnary(g, kF32, {100, -1}, [](GraphBuilder& b, const Operand& x) { return Softplus(b, x); });
  CHECK(g.Reference()[0] == 100);
  const std::vector<double> d = g.Values1("softplus", "decomposition");
  CHECK(d[0] == 100);
  const float e = std::exp(-1.0f);
  CHECK(d[1] == static_cast<double>(std::log(e + 1.0f)));
  CHECK(g.Values1("softplus", "overflow")[0] == kInfinity64);
  CHECK_FALSE(Find("softplus", "overflow").legitimate);
}

TEST_CASE("sigmoid of -x; softsign without abs") {
  OneOp g;
  BuildUnary(g, kF32, {2}, [](GraphBuilder& b, const Operand& x) { return Sigmoid(b, x); });
  CHECK(g.Values1("sigmoid", "negated")[0] ==
        static_cast<double>(static_cast<float>(1 / (1 + std::exp(2.0)))));
  OneOp s;
  BuildUnary(s, kF32, {-0.5}, [](GraphBuilder& b, const Operand& x) { return Softsign(b, x); });
  CHECK(s.Reference()[0] == static_cast<double>(-0.5f / 1.5f));
  CHECK(s.Values1("softsign", "no-abs")[0] == -1);  // -0.5 / 0.5
}

TEST_CASE("float16 decompositions: each step in float16, or float32 rounded once") {
  // sigmoid(-4): exp(4) = 54.598 rounds to 54.59375 in float16; 1 / 55.59375 in float16.
  OneOp g;
  BuildUnary(g, kF16, {-4}, [](GraphBuilder& b, const Operand& x) { return Sigmoid(b, x); });
  const double e16 = Float16::FromDouble(std::exp(4.0)).ToDouble();
  const double sum16 = Float16::FromDouble(e16 + 1).ToDouble();
  CHECK(g.Values1("sigmoid", "decomposition")[0] == Float16::FromDouble(1 / sum16).ToDouble());
  const float f = 1.0f / (std::exp(4.0f) + 1.0f);
  CHECK(g.Values1("sigmoid", "decomposition-f32")[0] ==
        Float16::FromDouble(static_cast<double>(f)).ToDouble());
}

TEST_CASE("registration: unique names per operator, nothing for exact operators' rounding") {
  std::set<std::pair<std::string, std::string>> seen;
  for (const Alternative& a : AllAlternatives()) {
    CHECK_MESSAGE(seen.insert({a.op ? std::string(OpName(*a.op)) : "*", a.name}).second,
                  (a.op ? OpName(*a.op) : "*") << " / " << a.name);
    CHECK_FALSE(a.what.empty());
    CHECK(static_cast<bool>(a.compute));
  }
  for (const Alternative* a : AlternativesFor(OpId::relu)) CHECK(a->name != "truncate");
  for (const Alternative* a : AlternativesFor(OpId::sqrt)) CHECK(a->name != "libm-f32");
  CHECK(Find("gelu", "decomposition").legitimate);
  CHECK_FALSE(Find("gelu", "tanh-approx").legitimate);
}

namespace {

struct SmokeOp {
  const char* op;
  std::function<Operand(OneOp&, DataType)> build;
};

// Inputs in [0.25, 2) of `type`.
Tensor Benign(DataType type, const Shape& shape) {
  Tensor t = Tensor::Allocate(type, shape);
  for (uint64_t i = 0; i < t.element_count(); ++i) {
    const double v = 0.25 + 0.3 * static_cast<double>(i % 6);
    if (type == kF16) {
      t.base<Float16>()[i] = Float16::FromDouble(v);
    } else {
      t.base<float>()[i] = static_cast<float>(v);
    }
  }
  return t;
}

}  // namespace

TEST_CASE("every element-wise alternative runs; variants stay near the reference") {
  const auto unary = [](UnaryOp u) {
    return [u](OneOp& g, DataType t) {
      return Unary(g.builder(), u, g.Input("x", Benign(t, {2, 3})));
    };
  };
  const auto binary = [](BinaryOp op) {
    return [op](OneOp& g, DataType t) {
      return ElementwiseBinary(g.builder(), op, g.Input("a", Benign(t, {2, 3})),
                               g.Input("b", Benign(t, {3})));
    };
  };
  const auto act = [](Operand (*f)(GraphBuilder&, const Operand&, const MLOperatorOptions&)) {
    return [f](OneOp& g, DataType t) {
      return f(g.builder(), g.Input("x", Benign(t, {2, 3})), {});
    };
  };
  const std::vector<SmokeOp> ops = {
      {"exp", unary(UnaryOp::kExp)},
      {"log", unary(UnaryOp::kLog)},
      {"sin", unary(UnaryOp::kSin)},
      {"cos", unary(UnaryOp::kCos)},
      {"tan", unary(UnaryOp::kTan)},
      {"erf", unary(UnaryOp::kErf)},
      {"sqrt", unary(UnaryOp::kSqrt)},
      {"reciprocal", unary(UnaryOp::kReciprocal)},
      {"add", binary(BinaryOp::kAdd)},
      {"div", binary(BinaryOp::kDiv)},
      {"pow", binary(BinaryOp::kPow)},
      {"gelu", act(Gelu)},
      {"sigmoid", act(Sigmoid)},
      {"softplus", act(Softplus)},
      {"softsign", act(Softsign)},
      {"tanh", act(Tanh)},
      {"hardSwish", act(HardSwish)},
      {"elu",
       [](OneOp& g, DataType t) {
         return Elu(g.builder(), g.Input("x", Benign(t, {2, 3})));
       }},
      {"hardSigmoid",
       [](OneOp& g, DataType t) {
         return HardSigmoid(g.builder(), g.Input("x", Benign(t, {2, 3})));
       }},
      {"resample2d",
       [](OneOp& g, DataType t) {
         MLResample2dOptions o;
         o.mode = MLInterpolationMode::kLinear;
         o.sizes = std::vector<uint32_t>{3, 5};
         return Resample2d(g.builder(), g.Input("x", Benign(t, {1, 1, 2, 3})), o);
       }},
  };
  for (const SmokeOp& s : ops) {
    for (DataType type : {kF32, kF16}) {
      OneOp g;
      g.Build(s.build(g, type));
      const std::vector<double> ref = g.Reference();
      // Loose enough for every stated accuracy (sin/cos: absolute 2^-11, float16 2^-7), tight
      // enough to catch a wrong formula.
      const double tolerance = type == kF16 ? 0x1p-6 : 0x1p-10;
      for (const Alternative* a : AlternativesFor(OpNamed(s.op))) {
        if (a->op != OpNamed(s.op)) continue;  // the generic output-level mutants
        const auto r = g.Run(s.op, a->name);
        if (!r) continue;
        REQUIRE(r->size() == 1);
        CHECK((*r)[0].dtype() == type);
        const std::vector<double> v = Values((*r)[0]);
        REQUIRE(v.size() == ref.size());
        if (!a->legitimate) continue;
        // tan's inherited bound (sin and cos at 2^-11) is unbounded near pi/2, within the inputs.
        if (std::string(s.op) == "tan" && a->name.starts_with("gpu-")) continue;
        for (size_t i = 0; i < v.size(); ++i) {
          CHECK_MESSAGE(std::fabs(v[i] - ref[i]) <= tolerance * std::fmax(1, std::fabs(ref[i])),
                        std::string(s.op) << " / " << a->name << " " << DataTypeName(type)
                                          << " element " << i << ": " << v[i] << " vs " << ref[i]);
        }
      }
    }
  }
}

}  // namespace nnref
