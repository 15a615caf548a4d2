// Adversarial stated-accuracy variants (adverse.cc) on one-operator graphs: expected values
// derived by hand step by step (WGSL ULPs of float16: 2^-10 on [1, 2), 2^-7 on [8, 16)...), or
// recomputed here with Float16 rounding, never by the code under test.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ops/activations.h"
#include "ops/elementwise_binary.h"
#include "ops/elementwise_unary.h"
#include "ops/normalization.h"
#include "ops/reduction.h"
#include "ops/variants/variants.h"
#include "ref/testing.h"

namespace nnref {

namespace {

const Alternative* FindAdverse(const std::string& op, const std::string& name) {
  for (const Alternative* a : AlternativesFor(OpNamed(op))) {
    if (a->op == OpNamed(op) && a->name == name) return a;
  }
  return nullptr;
}

double Element(const Tensor& t, uint64_t i) {
  return t.dtype() == DataType::kFloat16 ? t.At<Float16>(i).ToDouble()
                                         : static_cast<double>(t.At<float>(i));
}

// One operator on graph inputs: the reference's output and an alternative's.
class Graph1 {
 public:
  Operand Input(const std::string& name, const Tensor& value) {
    values_[name] = value;
    return b_.Input(name, {value.dtype(), value.shape()});
  }
  GraphBuilder& builder() { return b_; }
  void Build(const Operand& out) {
    graph_ = b_.Build({{"out", out}});
    REQUIRE(graph_->operators().size() == 1);
    for (OperandId id : graph_->operators()[0].inputs) {
      const OperandNode& o = graph_->operand(id);
      in_.push_back({o.kind == OperandNode::Kind::kConstant ? o.constant : values_.at(o.name), {}});
    }
  }
  std::vector<double> Reference() const {
    std::vector<const OperandValue*> ptrs;
    for (const OperandValue& v : in_) ptrs.push_back(&v);
    return Doubles(graph_->RunOperator(0, ptrs)[0].data);
  }
  std::optional<std::vector<double>> Run(const std::string& name) const {
    const std::string op(OpName(graph_->operators()[0].op));
    const Alternative* a = FindAdverse(op, name);
    REQUIRE_MESSAGE(a != nullptr, op << " has no alternative " << name);
    std::vector<const OperandValue*> ptrs;
    for (const OperandValue& v : in_) ptrs.push_back(&v);
    const auto r = a->compute(*graph_, 0, ptrs);
    if (!r) return std::nullopt;
    REQUIRE(r->size() == 1);
    return Doubles((*r)[0]);
  }
  std::vector<double> Values(const std::string& name) const {
    const auto r = Run(name);
    REQUIRE(r.has_value());
    return *r;
  }

 private:
  static std::vector<double> Doubles(const Tensor& t) {
    std::vector<double> v(t.element_count());
    for (uint64_t i = 0; i < v.size(); ++i) v[i] = Element(t, i);
    return v;
  }
  GraphBuilder b_;
  std::map<std::string, Tensor> values_;
  std::shared_ptr<const Graph> graph_;
  std::vector<OperandValue> in_;
};

double H(double v) { return Float16::FromDouble(v).ToDouble(); }

}  // namespace

TEST_CASE("adverse: registration, all legitimate") {
  const std::pair<const char*, const char*> names[] = {
      {"tanh", "decomposition"},
      {"tanh", "decomposition-gpu-adverse"},
      {"tanh", "gpu-sinh-cosh-adverse"},
      {"pow", "gpu-pow-adverse"},
      {"gelu", "decomposition-gpu-adverse"},
      {"sigmoid", "decomposition-gpu-adverse"},
      {"tan", "gpu-tan-adverse"},
      {"reduceLogSum", "gpu-log-adverse"},
      {"batchNormalization", "emulation-gpu-adverse"}};
  for (const auto& entry : names) {
    const std::string op = entry.first, name = entry.second;
    const Alternative* a = FindAdverse(op, name);
    REQUIRE_MESSAGE(a != nullptr, op << " / " << name);
    CHECK(a->legitimate);
    CHECK_FALSE(a->what.empty());
  }
}

TEST_CASE("adverse: tanh decomposition in float16 at x = 0.0625, step by step") {
  Graph1 g;
  g.Build(Tanh(g.builder(), g.Input("x", F16({3}, {0.0625, 100, -100}))));
  // exp(0.125) = 1.13315 rounds to 1.1328125 (1160 * 2^-10); minus 1: 0.1328125; plus 1:
  // 2.1328125 (exact); the quotient 0.0622711 rounds to 2040 * 2^-15.
  const double e = H(std::exp(0.125));
  CHECK(e == 1.1328125);
  const double expected = H(H(e - 1) / H(e + 1));
  CHECK(expected == 2040 * 0x1p-15);
  const std::vector<double> v = g.Values("decomposition");
  CHECK(v[0] == expected);
  CHECK(g.Reference()[0] == 2045 * 0x1p-15);  // tanh(0.0625) = 0.0624187: 5 ULP away
  CHECK(v[1] == 1);                           // exp(200) overflows: the formula's limit
  CHECK(v[2] == -1);                          // exp(-200) = 0: (0 - 1) / (0 + 1)
}

TEST_CASE("adverse: tanh decomposition in float32 cancels to 0 near 0") {
  Graph1 g;
  g.Build(Tanh(g.builder(), g.Input("x", F32({1}, {1e-8f}))));
  // expf(2e-8) = 1 in float32: (1 - 1) / (1 + 1) = 0.
  CHECK(std::exp(2 * 1e-8f) == 1.0f);
  CHECK(g.Values("decomposition")[0] == 0);
}

TEST_CASE("adverse: Vulkan's sinh / cosh tanh in float16 at x = 0.0625") {
  Graph1 g;
  g.Build(Tanh(g.builder(), g.Input("x", F16({1}, {0.0625}))));
  // exp(0.0625) = 1.0644945, 1 + 2 * 0.0625 = 1.125 ULP of 2^-10: down to 1.0634766 (1089 *
  // 2^-10, 0.0010179 away). exp(-0.0625) = 0.9394131, 1.125 ULP of 2^-11: up to 0.9399414
  // (1925 * 2^-11, 0.000528 away). Numerator 0.12353515625 (exact), denominator 2.00341796875
  // rounds to 2.00390625; the quotient 0.0616472 at -2.5 ULP (2^-15): 0.0615709 rounds up to
  // 2018 * 2^-15 (6.3e-5 away). Other sign choices move the result less.
  const std::vector<double> v = g.Values("gpu-sinh-cosh-adverse");
  CHECK(v[0] == 2018 * 0x1p-15);
  CHECK(g.Reference()[0] == 2045 * 0x1p-15);  // 27 ULP apart
}

TEST_CASE("adverse: GPU pow (-3)^2 in float16 is 9.09375") {
  Graph1 g;
  const Operand a = g.Input("a", F16({6}, {-3, -3, 1, 5, -2, 0}));
  const Operand b = g.Input("b", F16({6}, {2, 3, 100, 0, 0.5, -1}));
  g.Build(ElementwiseBinary(g.builder(), BinaryOp::kPow, a, b));
  const std::vector<double> v = g.Values("gpu-pow-adverse");
  // log2(3) = 1.5849625 (outside [0.5, 2]): 3 ULP of 2^-10 = 0.0029297; upwards 1.5878922 rounds
  // to 1.587890625 (1626 * 2^-10, 0.0029281 away). Times 2: 3.17578125 (exact). exp2 of it is
  // 9.0366074 with 1 + 2 * 3.17578125 = 7.3515625 ULP of 2^-7 = 0.0574341: upwards 9.0940415
  // rounds to 9.09375 (0.0571426 away). Downwards the result is 8.921875 at most (0.078 from 9).
  CHECK(v[0] == 9.09375);
  CHECK(g.Reference()[0] == 9);
  CHECK(v[1] < 0);  // (-3)^3: the sign restored
  CHECK(v[1] != -27);
  CHECK(v[2] == 1);  // 1^y = 1, x^0 = 1: IEEE's special cases
  CHECK(v[3] == 1);
  CHECK(std::isnan(v[4]));  // a negative base with a non-integral exponent
  CHECK(std::isinf(v[5]));  // 0^-1 = +Infinity
}

TEST_CASE("adverse: GPU tan in float16 at x = 7.75: cos at -2^-7") {
  Graph1 g;
  g.Build(ElementwiseUnary(g.builder(), UnaryOp::kTan, g.Input("x", F16({1}, {7.75}))));
  // sin(7.75) = 0.9945988 + 2^-7 rounds to 1.001953125, kept in range: 1. cos(7.75) = 0.1037944
  // - 2^-7 = 0.0959819 rounds to 0.0960083 (1573 * 2^-14, 0.007786 away). 1 / 0.0960083 =
  // 10.4157661 + 2.5 ULP of 2^-7 = 10.4352973: 10.4375 is 0.0217 away, too far; 10.4296875.
  CHECK(g.Values("gpu-tan-adverse")[0] == 10.4296875);
  CHECK(g.Reference()[0] == 9.5859375);
}

TEST_CASE("adverse: sigmoid(-4) in float16 errs more than the one-direction gpu variants") {
  Graph1 g;
  g.Build(Sigmoid(g.builder(), g.Input("x", F16({1}, {-4}))));
  // exp(4) = 54.59815 + 9 ULP (1 + 2 * 4) of 2^-5: 54.875 (0.277 away); + 1 = 55.875; 1 / 55.875
  // = 0.0178971 - 2.5 ULP of 2^-16: 0.0178589 rounds to 1170 * 2^-16, 4.43e-5 away, too far;
  // 1171 * 2^-16. exp and the division err in opposite directions, which the gpu-plus/minus
  // variants (both one way) never do.
  const double v = g.Values("decomposition-gpu-adverse")[0];
  CHECK(v == 1171 * 0x1p-16);
  const double exact = 1 / (1 + std::exp(4.0));
  const Alternative* plus = FindAdverse("sigmoid", "decomposition-gpu-plus");
  const Alternative* minus = FindAdverse("sigmoid", "decomposition-gpu-minus");
  REQUIRE(plus != nullptr);
  REQUIRE(minus != nullptr);
  for (const char* name : {"decomposition-gpu-plus", "decomposition-gpu-minus"}) {
    const double other = g.Values(name)[0];
    CHECK_MESSAGE(std::fabs(v - exact) > std::fabs(other - exact), name);
  }
}

TEST_CASE("adverse: reduceLogSum of 0.75 in float16: log at 2^-7 absolute") {
  Graph1 g;
  MLReduceOptions o;
  o.axes.emplace();  // empty axes: reduce nothing
  Tensor x = Tensor::Allocate(DataType::kFloat16, {});
  x.base<Float16>()[0] = Float16::FromDouble(0.75);
  g.Build(ReduceLogSum(g.builder(), g.Input("x", x), o));
  // log(0.75) = -0.2876821; 0.75 is in [0.5, 2]: absolute 2^-7. Downwards -0.2954946 rounds to
  // -1210 * 2^-12 (0.0077281 away); upwards -0.2798696 rounds to -1146 * 2^-12, 0.0078969 away,
  // too far: -1147 * 2^-12 (0.0076528 away). The downward side is farther.
  CHECK(g.Values("gpu-log-adverse")[0] == -1210 * 0x1p-12);
  CHECK(g.Reference()[0] == -1178 * 0x1p-12);
}

TEST_CASE("adverse: batchNormalization in float16: 1 / sqrt(3)") {
  Graph1 g;
  const Operand x = g.Input("x", F16({1, 2}, {1, 1}));
  const Operand mean = g.Input("mean", F16({2}, {0, 0}));
  const Operand var = g.Input("var", F16({2}, {3, 4}));
  MLBatchNormalizationOptions o;
  o.epsilon = 0;
  g.Build(BatchNormalization(g.builder(), x, mean, var, o));
  const std::vector<double> v = g.Values("emulation-gpu-adverse");
  // sqrt(3) = 1.7320508 - 4.5 ULP of 2^-10 (0.0043945): 1.7276563 rounds to 1769 * 2^-10,
  // 0.0045117 away, too far: 1770 * 2^-10 = 1.728515625. 1 / 1.728515625 = 0.5785311 + 2.5 ULP
  // of 2^-11: 0.5797518 rounds to 1187 * 2^-11 (0.0010588 away). 1 / sqrt(3) = 0.5773503: the
  // error 0.0022396 beats the other side's 1178 * 2^-11 (0.0021550).
  CHECK(v[0] == 1187 * 0x1p-11);
  CHECK(g.Reference()[0] == 1182 * 0x1p-11);
  // sqrt(4) = 2; WGSL's ULP at 2 is the spacing below it, 2^-10: 4.5 ULP down is 2043.5 *
  // 2^-10, which rounds (to even) to 1.99609375. 1 / 1.99609375 = 0.5009785 + 2.5 ULP of 2^-11:
  // 0.5021992 rounds (to even) to 1028 * 2^-11. Upwards, sqrt rounds to 2.00390625 and the
  // quotient 0.4990253 goes down to 0.49853515625 at most: 0.00146 from 0.5 against 0.00195.
  CHECK(v[1] == 1028 * 0x1p-11);
}

TEST_CASE("adverse: every adverse variant runs on float32 and float16 and stays near") {
  for (DataType type : {DataType::kFloat32, DataType::kFloat16}) {
    const auto tensor = [type](std::initializer_list<double> v) {
      Tensor t = Tensor::Allocate(type, {v.size()});
      size_t i = 0;
      for (double e : v) {
        if (type == DataType::kFloat16) {
          t.base<Float16>()[i++] = Float16::FromDouble(e);
        } else {
          t.base<float>()[i++] = static_cast<float>(e);
        }
      }
      return t;
    };
    const std::initializer_list<double> xs = {-3, -0.75, -0.1, 0.3, 1.25, 2.5};
    struct Op {
      const char* name;
      std::function<Operand(Graph1&)> build;
    };
    const std::vector<Op> ops = {
        {"gelu", [&](Graph1& g) { return Gelu(g.builder(), g.Input("x", tensor(xs))); }},
        {"sigmoid", [&](Graph1& g) { return Sigmoid(g.builder(), g.Input("x", tensor(xs))); }},
        {"tanh", [&](Graph1& g) { return Tanh(g.builder(), g.Input("x", tensor(xs))); }},
        {"pow",
         [&](Graph1& g) {
           return ElementwiseBinary(g.builder(), BinaryOp::kPow,
                                    g.Input("a", tensor({0.5, 1.5, 2, 3, -2, 7})),
                                    g.Input("b", tensor({3, 2, 0.5, -1, 3, 2})));
         }},
    };
    for (const Op& op : ops) {
      Graph1 g;
      g.Build(op.build(g));
      const std::vector<double> ref = g.Reference();
      for (const Alternative* a : AlternativesFor(OpNamed(op.name))) {
        if (a->op != OpNamed(op.name) || a->name.find("adverse") == std::string::npos) continue;
        const std::vector<double> v = g.Values(a->name);
        REQUIRE(v.size() == ref.size());
        // float16: 1 + 2|x| ULP exps and 2^-7 logs compound to a few percent at most here.
        const double tolerance = type == DataType::kFloat16 ? 0.05 : 0x1p-12;
        for (size_t i = 0; i < v.size(); ++i) {
          CHECK_MESSAGE(std::fabs(v[i] - ref[i]) <= tolerance * std::fmax(1, std::fabs(ref[i])),
                        op.name << " / " << a->name << " " << DataTypeName(type) << " element " << i
                                << ": " << v[i] << " vs " << ref[i]);
        }
      }
    }
  }
}

}  // namespace nnref
