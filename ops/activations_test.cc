// Activation functions: values derived independently (high-precision evaluation with mpmath,
// rounded once to float32/float16 by hand; bit patterns below), the special values of
// spec-notes #10 with their latitude marks, and one validation error for every method step.
#include "ops/activations.h"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "ops/cast_clamp_where.h"
#include "ops/registry.h"
#include "ref/testing.h"

namespace nnref {

namespace {

// Applies a float32 activation to `values` and returns the result.
template <typename Fn>
OperandValue Apply32(Fn&& op, std::initializer_list<float> values) {
  GraphBuilder b;
  const Shape shape{values.size()};
  const Operand x = b.Input("x", {DataType::kFloat32, shape});
  return Run(b, op(b, x), {{"x", Make<float>(DataType::kFloat32, shape, values)}});
}

float Bits(uint32_t u) { return std::bit_cast<float>(u); }
uint32_t BitsOf(float f) { return std::bit_cast<uint32_t>(f); }
uint8_t Lat(const OperandValue& r, size_t i) {
  return r.latitude.valid() ? r.latitude.base<uint8_t>()[i] : 0;
}
constexpr uint8_t kAnyMark = static_cast<uint8_t>(Latitude::kAny);
constexpr uint8_t kNaNMark = static_cast<uint8_t>(Latitude::kValueOrNaN);
constexpr float kInf = std::numeric_limits<float>::infinity();

}  // namespace

TEST_CASE("relu: float selection, integers, NaN marked as max(0, NaN)") {
  const OperandValue r = Apply32([](GraphBuilder& b, const Operand& x) { return Relu(b, x); },
                                 {-2, -0.0f, 3.5f, NAN, -kInf, kInf});
  const float* y = r.data.base<float>();
  CHECK(y[0] == 0);
  CHECK(BitsOf(y[1]) == 0);  // max(0, -0) = +0
  CHECK(y[2] == 3.5f);
  CHECK(std::isnan(y[3]));
  CHECK(y[4] == 0);
  CHECK(y[5] == kInf);
  CHECK(Lat(r, 3) == kAnyMark);
  CHECK(Lat(r, 2) == 0);

  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kInt8, {3}});
  const OperandValue ri =
      Run(b, Relu(b, x), {{"x", Make<int8_t>(DataType::kInt8, {3}, {-128, 0, 127})}});
  CHECK(ri.data.base<int8_t>()[0] == 0);
  CHECK(ri.data.base<int8_t>()[2] == 127);
}

TEST_CASE("leakyRelu: alpha is cast to the input type before use (float16)") {
  // alpha 0.01 -> float16 0x211f (0.0100021...). x = -0.625: alpha16 * x rounds to 0x9e67, while
  // 0.01 * x (alpha not cast) would round to 0x9e66.
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat16, {3}});
  const OperandValue r = Run(
      b, LeakyRelu(b, x),
      {{"x",
        Make<Float16>(DataType::kFloat16, {3}, {Float16{0xb900}, Float16{0x4200}, Float16{0}})}});
  CHECK(r.data.base<Float16>()[0].bits == 0x9e67);
  CHECK(r.data.base<Float16>()[1].bits == 0x4200);  // 3
  CHECK(r.data.base<Float16>()[2].bits == 0);
  // float32, alpha 0.5: exact.
  MLLeakyReluOptions o;
  o.alpha = 0.5;
  const OperandValue f = Apply32(
      [&](GraphBuilder& g, const Operand& in) { return LeakyRelu(g, in, o); }, {-3, 2, -kInf});
  CHECK(f.data.base<float>()[0] == -1.5f);
  CHECK(f.data.base<float>()[1] == 2);
  CHECK(f.data.base<float>()[2] == -kInf);
}

TEST_CASE("leakyRelu: 0 * -Inf and Inf * 0 of the formula give the function's value, marked") {
  MLLeakyReluOptions zero;
  zero.alpha = 0;
  const OperandValue r = Apply32(
      [&](GraphBuilder& g, const Operand& in) { return LeakyRelu(g, in, zero); }, {-kInf, -1});
  CHECK(r.data.base<float>()[0] == 0);
  CHECK(Lat(r, 0) == kNaNMark);
  CHECK(Lat(r, 1) == 0);
  // alpha 1e5 overflows float16 to Infinity: for x >= 0 the formula has Inf * 0.
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat16, {2}});
  MLLeakyReluOptions big;
  big.alpha = 1e5;
  const OperandValue h =
      Run(b, LeakyRelu(b, x, big),
          {{"x", Make<Float16>(DataType::kFloat16, {2}, {Float16{0x3c00}, Float16{0xbc00}})}});
  CHECK(h.data.base<Float16>()[0].bits == 0x3c00);  // 1
  CHECK(Lat(h, 0) == kNaNMark);
  CHECK(h.data.base<Float16>()[1].bits == 0xfc00);  // -Infinity
  CHECK(Lat(h, 1) == 0);
}

TEST_CASE("prelu: broadcast slope, integer overflow wraps and is marked") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 3}});
  const Operand s = b.Input("s", {DataType::kFloat32, {3}});
  const OperandValue r = Run(b, Prelu(b, x, s),
                             {{"x", Make<float>(DataType::kFloat32, {2, 3}, {-1, -2, -3, 1, 2, 3})},
                              {"s", Make<float>(DataType::kFloat32, {3}, {0.5f, 2, NAN})}});
  const float expected[] = {-0.5f, -4, NAN, 1, 2, 3};
  for (int i = 0; i < 6; ++i) {
    if (i == 2) {
      CHECK(std::isnan(r.data.base<float>()[i]));  // NaN * -3: NaN by any reading, not marked
    } else {
      CHECK(r.data.base<float>()[i] == expected[i]);
    }
  }
  CHECK(Lat(r, 2) == 0);
  CHECK(Lat(r, 5) == kNaNMark);  // x = 3 > 0 with a NaN slope: 3 + NaN * 0 in the formula

  GraphBuilder bi;
  const Operand xi = bi.Input("x", {DataType::kInt32, {3}});
  const Operand si = bi.Input("s", {DataType::kInt32, {1}});
  const OperandValue ri = Run(
      bi, Prelu(bi, xi, si),
      {{"x", Make<int32_t>(DataType::kInt32, {3}, {-5, 7, std::numeric_limits<int32_t>::min()})},
       {"s", Make<int32_t>(DataType::kInt32, {1}, {2})}});
  CHECK(ri.data.base<int32_t>()[0] == -10);
  CHECK(ri.data.base<int32_t>()[1] == 7);
  CHECK(ri.data.base<int32_t>()[2] == 0);  // -2^32 wraps to 0
  CHECK(Lat(ri, 2) == kAnyMark);
  CHECK(Lat(ri, 0) == 0);
}

TEST_CASE("elu: expm1 keeps accuracy where exp(x) - 1 in float32 would not") {
  // x = float32(-1e-5) = 0xb727c5ac: elu = 0xb727c575 (-9.99994972e-6); exp then subtract in
  // float32 gives -1.00135803e-5. elu(-1) = 0xbf21d2a7; elu(-Inf) = -alpha.
  MLEluOptions o;
  const OperandValue r = Apply32([&](GraphBuilder& g, const Operand& in) { return Elu(g, in, o); },
                                 {Bits(0xb727c5ac), -1, 2, -kInf, -0.0f, NAN});
  const float* y = r.data.base<float>();
  CHECK(BitsOf(y[0]) == 0xb727c575);
  CHECK(BitsOf(y[1]) == 0xbf21d2a7);
  CHECK(y[2] == 2);
  CHECK(y[3] == -1);
  CHECK(y[4] == 0);
  CHECK(std::isnan(y[5]));
  CHECK(Lat(r, 5) == kAnyMark);  // through max/min
  CHECK(Lat(r, 3) == 0);
  o.alpha = 0.5;
  const OperandValue h =
      Apply32([&](GraphBuilder& g, const Operand& in) { return Elu(g, in, o); }, {-kInf});
  CHECK(h.data.base<float>()[0] == -0.5f);
}

TEST_CASE("elu: a tiny negative x whose alpha * x is a tie rounds toward the exact value") {
  // alpha = float32(0.3) = 10066330 * 2^-25, x = -0x1.8p-125 = -3 * 2^-126 (0x81400000):
  // alpha * x = -7549747.5 * 2^-149, a tie between float32 subnormals. The exact value is
  // alpha * (x + x^2/2 + ...), slightly nearer 0, so it rounds to 7549747 * 2^-149 (0x80733333),
  // not to the even 0x80733334. With alpha = -0.3 the value is positive and again nearer 0 than
  // the tie (|expm1(x)| < |x|): 0x00733333.
  MLEluOptions o;
  o.alpha = 0.3;
  const OperandValue r = Apply32([&](GraphBuilder& g, const Operand& in) { return Elu(g, in, o); },
                                 {Bits(0x81400000)});
  CHECK(BitsOf(r.data.base<float>()[0]) == 0x80733333);
  o.alpha = -0.3;
  const OperandValue n = Apply32([&](GraphBuilder& g, const Operand& in) { return Elu(g, in, o); },
                                 {Bits(0x81400000)});
  CHECK(BitsOf(n.data.base<float>()[0]) == 0x00733333);
}

TEST_CASE("gelu: erfc form, tiny and infinite inputs") {
  // gelu(1) = 0x3f57625f, gelu(-1) = 0xbe227686, gelu(-10) = 0x9ab83c9b (-7.6198530e-23; with
  // 1 + erf(x/sqrt(2)) rounded to float32 it would be 0), gelu(2^-149) = 2^-149 (x/2 is a tie
  // broken upward by the x^2 term), gelu(-Inf) = -0 marked value-or-NaN.
  const OperandValue r = Apply32([](GraphBuilder& g, const Operand& in) { return Gelu(g, in); },
                                 {1, -1, -10, Bits(1), -kInf, kInf, 0});
  const float* y = r.data.base<float>();
  CHECK(BitsOf(y[0]) == 0x3f57625f);
  CHECK(BitsOf(y[1]) == 0xbe227686);
  CHECK(BitsOf(y[2]) == 0x9ab83c9b);
  CHECK(BitsOf(y[3]) == 1);
  CHECK(BitsOf(y[4]) == 0x80000000);
  CHECK(Lat(r, 4) == kNaNMark);
  CHECK(y[5] == kInf);
  CHECK(Lat(r, 5) == 0);
  CHECK(y[6] == 0);
}

TEST_CASE("hardSigmoid: alpha * x + beta rounds once (to odd in double, then to float32)") {
  // alpha = 1 + 2^-22, x = 3 * 2^-25 * (1 - 2^-22) (0x33bffffd), beta = 0.5: the exact value is
  // 0.5 + 3 * 2^-25 - 3 * 2^-69, just below a float32 tie, so it rounds to 0.5 + 2^-24
  // (0x3f000001). Rounding to double first lands on the tie, which goes to even (0x3f000002);
  // rounding alpha * x to float32 first gives the same wrong result.
  MLHardSigmoidOptions o;
  o.alpha = 1 + 0x1p-22;
  o.beta = 0.5;
  const OperandValue r =
      Apply32([&](GraphBuilder& g, const Operand& in) { return HardSigmoid(g, in, o); },
              {Bits(0x33bffffd)});
  CHECK(BitsOf(r.data.base<float>()[0]) == 0x3f000001);
  // Defaults alpha 0.2, beta 0.5: x = 1 -> 0.2f + 0.5 rounds to float32(0.7); clamps at 0 and 1.
  const OperandValue d =
      Apply32([](GraphBuilder& g, const Operand& in) { return HardSigmoid(g, in); },
              {1, 3, -3, kInf, -kInf, NAN});
  const float* y = d.data.base<float>();
  CHECK(BitsOf(y[0]) == 0x3f333333);
  CHECK(y[1] == 1);
  CHECK(BitsOf(y[2]) == 0);
  CHECK(y[3] == 1);
  CHECK(y[4] == 0);
  CHECK(std::isnan(y[5]));
  CHECK(Lat(d, 5) == kAnyMark);
  // alpha 0: 0 * Inf in the formula; the function is the constant beta.
  MLHardSigmoidOptions flat;
  flat.alpha = 0;
  flat.beta = 0.25;
  const OperandValue f = Apply32(
      [&](GraphBuilder& g, const Operand& in) { return HardSigmoid(g, in, flat); }, {kInf, 7});
  CHECK(f.data.base<float>()[0] == 0.25f);
  CHECK(Lat(f, 0) == kNaNMark);
  CHECK(f.data.base<float>()[1] == 0.25f);
  CHECK(Lat(f, 1) == 0);
}

TEST_CASE("hardSwish: exact composition rounded once") {
  // float32 x = float32(0.007) (0x3be56042): x * (x + 3) / 6 rounded once is 0x3b65e946; rounding
  // x + 3, the product and the quotient to float32 in turn gives 0x3b65e945.
  // hardSwish(1) = float32(2/3) = 0x3f2aaaab, hardSwish(-1) = float32(-1/3) = 0xbeaaaaab,
  // hardSwish(2^-149) = 2^-149 (a tie broken upward by x^2/6), hardSwish(-Inf) = -0 marked.
  const OperandValue r =
      Apply32([](GraphBuilder& g, const Operand& in) { return HardSwish(g, in); },
              {Bits(0x3be56042), 1, -1, Bits(1), 4, -4, -kInf, NAN});
  const float* y = r.data.base<float>();
  CHECK(BitsOf(y[0]) == 0x3b65e946);
  CHECK(BitsOf(y[1]) == 0x3f2aaaab);
  CHECK(BitsOf(y[2]) == 0xbeaaaaab);
  CHECK(BitsOf(y[3]) == 1);
  CHECK(y[4] == 4);
  CHECK(BitsOf(y[5]) == 0x80000000);  // -4 * 0 / 6 = -0
  CHECK(BitsOf(y[6]) == 0x80000000);
  CHECK(Lat(r, 6) == kNaNMark);
  CHECK(std::isnan(y[7]));
  CHECK(Lat(r, 7) == 0);  // NaN * anything: NaN by any reading of max/min
  // float16 x = 0x1a00 (0.0029296875): once 0x1602; step by step 0.00146770... (0x1603).
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat16, {1}});
  const OperandValue h =
      Run(b, HardSwish(b, x), {{"x", Make<Float16>(DataType::kFloat16, {1}, {Float16{0x1a00}})}});
  CHECK(h.data.base<Float16>()[0].bits == 0x1602);
}

TEST_CASE("sigmoid, softplus, softsign, tanh: stable forms and infinities") {
  // sigmoid(-100) = softplus(-100) = 27 * 2^-149 (0x1b): exp(100) or log(1 + tiny) in float32
  // would give 0. softplus(0) = float32(ln 2) = 0x3f317218. tanh(0.5) = 0x3eec9a9f.
  const OperandValue s = Apply32([](GraphBuilder& g, const Operand& in) { return Sigmoid(g, in); },
                                 {-100, 0, kInf, -kInf, NAN});
  CHECK(BitsOf(s.data.base<float>()[0]) == 0x1b);
  CHECK(s.data.base<float>()[1] == 0.5f);
  CHECK(s.data.base<float>()[2] == 1);
  CHECK(s.data.base<float>()[3] == 0);
  CHECK(std::isnan(s.data.base<float>()[4]));
  CHECK_FALSE(s.latitude.valid());

  const OperandValue p = Apply32([](GraphBuilder& g, const Operand& in) { return Softplus(g, in); },
                                 {-100, 0, 100, kInf, -kInf});
  CHECK(BitsOf(p.data.base<float>()[0]) == 0x1b);
  CHECK(BitsOf(p.data.base<float>()[1]) == 0x3f317218);
  CHECK(p.data.base<float>()[2] == 100);
  CHECK(p.data.base<float>()[3] == kInf);
  CHECK(p.data.base<float>()[4] == 0);

  const OperandValue g = Apply32(
      [](GraphBuilder& gb, const Operand& in) { return Softsign(gb, in); }, {1, -3, kInf, -kInf});
  CHECK(g.data.base<float>()[0] == 0.5f);
  CHECK(g.data.base<float>()[1] == -0.75f);
  CHECK(g.data.base<float>()[2] == 1);
  CHECK(g.data.base<float>()[3] == -1);
  CHECK(Lat(g, 2) == kNaNMark);
  CHECK(Lat(g, 3) == kNaNMark);
  CHECK(Lat(g, 0) == 0);

  const OperandValue t = Apply32([](GraphBuilder& gb, const Operand& in) { return Tanh(gb, in); },
                                 {0.5f, kInf, -kInf, -0.0f});
  CHECK(BitsOf(t.data.base<float>()[0]) == 0x3eec9a9f);
  CHECK(t.data.base<float>()[1] == 1);
  CHECK(Lat(t, 1) == kNaNMark);  // (e^2x - 1)/(e^2x + 1) is Inf/Inf
  CHECK(t.data.base<float>()[2] == -1);
  CHECK(Lat(t, 2) == 0);  // (0 - 1)/(0 + 1) = -1 in the formula too
  CHECK(BitsOf(t.data.base<float>()[3]) == 0x80000000);
}

TEST_CASE("sigmoid float16 rounds once: sigmoid(1) = 0x39d9") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat16, {1}});
  const OperandValue r =
      Run(b, Sigmoid(b, x), {{"x", Make<Float16>(DataType::kFloat16, {1}, {Float16{0x3c00}})}});
  CHECK(r.data.base<Float16>()[0].bits == 0x39d9);
}

TEST_CASE("activations: input latitude is carried element-wise") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2}});
  const Operand c = Cast(b, x, DataType::kInt32);  // 1e10 is out of range: marked
  const OperandValue r =
      Run(b, Relu(b, c), {{"x", Make<float>(DataType::kFloat32, {2}, {-3, 1e10f})}});
  CHECK(r.data.base<int32_t>()[0] == 0);
  CHECK(Lat(r, 0) == 0);
  CHECK(Lat(r, 1) == kAnyMark);
}

TEST_CASE("activation validation: every method step") {
  using Fn = std::function<Operand(GraphBuilder&, const Operand&)>;
  const std::vector<std::pair<const char*, Fn>> ops = {
      {"elu", [](GraphBuilder& b, const Operand& x) { return Elu(b, x); }},
      {"gelu", [](GraphBuilder& b, const Operand& x) { return Gelu(b, x); }},
      {"hardSigmoid", [](GraphBuilder& b, const Operand& x) { return HardSigmoid(b, x); }},
      {"hardSwish", [](GraphBuilder& b, const Operand& x) { return HardSwish(b, x); }},
      {"leakyRelu", [](GraphBuilder& b, const Operand& x) { return LeakyRelu(b, x); }},
      {"relu", [](GraphBuilder& b, const Operand& x) { return Relu(b, x); }},
      {"sigmoid", [](GraphBuilder& b, const Operand& x) { return Sigmoid(b, x); }},
      {"softplus", [](GraphBuilder& b, const Operand& x) { return Softplus(b, x); }},
      {"softsign", [](GraphBuilder& b, const Operand& x) { return Softsign(b, x); }},
      {"tanh", [](GraphBuilder& b, const Operand& x) { return Tanh(b, x); }},
  };
  for (const auto& [name, op] : ops) {
    CAPTURE(name);
    GraphBuilder b, other;
    const Operand f = b.Input("f", {DataType::kFloat32, {2}});
    const Operand u8 = b.Input("u8", {DataType::kUint8, {2}});
    const Operand i32 = b.Input("i32", {DataType::kInt32, {2}});
    const Operand foreign = other.Input("g", {DataType::kFloat32, {2}});
    CHECK(ErrorOf([&] { op(b, foreign); }) == ErrorType::kTypeError);  // step 2
    CHECK(ErrorOf([&] { op(b, u8); }) == ErrorType::kTypeError);       // step 3
    const bool relu = std::string(name) == "relu";
    CHECK(ErrorOf([&] { op(b, i32); }) ==
          (relu ? ErrorType::kUnknownError : ErrorType::kTypeError));  // relu allows int32
    const Operand y = op(b, f);
    CHECK(b.Desc(y) == b.Desc(f));
    CHECK(OpName(b.operators().back().tolerance.op) == name);
    b.Build({{"y", y}});
    CHECK(ErrorOf([&] { op(b, f); }) == ErrorType::kInvalidStateError);  // step 1
  }
}

TEST_CASE("prelu validation: every method step") {
  GraphBuilder b, other;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 3}});
  const Operand s16 = b.Input("s16", {DataType::kFloat16, {3}});
  const Operand s4 = b.Input("s4", {DataType::kFloat32, {4}});
  const Operand u = b.Input("u", {DataType::kUint32, {3}});
  const Operand foreign = other.Input("f", {DataType::kFloat32, {3}});
  CHECK(ErrorOf([&] { Prelu(b, x, foreign); }) == ErrorType::kTypeError);  // step 2
  CHECK(ErrorOf([&] { Prelu(b, u, u); }) == ErrorType::kTypeError);        // step 3: input type
  CHECK(ErrorOf([&] { Prelu(b, x, s16); }) == ErrorType::kTypeError);      // step 3: slope type
  CHECK(ErrorOf([&] { Prelu(b, x, s4); }) == ErrorType::kTypeError);       // step 4: broadcast
  const Operand s1 = b.Input("s1", {DataType::kFloat32, {4, 1, 1}});
  const Operand y = Prelu(b, x, s1);
  CHECK(b.Desc(y).shape == Shape{4, 2, 3});  // bidirectional broadcast
  b.Build({{"y", y}});
  CHECK(ErrorOf([&] { Prelu(b, x, s1); }) == ErrorType::kInvalidStateError);  // step 1
}

TEST_CASE(
    "options alpha/beta reach the kernel through the case adapter; NaN alpha is a TypeError") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {1}});
  const auto lookup = [&](const std::string& n) -> std::optional<Operand> {
    if (n == "x") return x;
    return std::nullopt;
  };
  const Value input = Value::Str("x");
  Number nan;
  nan.d = std::nan("");
  nan.text = "NaN";
  const Value bad = Value::Object({{"alpha", Value::Num(nan)}});
  OpCall call(b, "elu", {{"input", &input}, {"options", &bad}}, lookup);
  CHECK(ErrorOf([&] { CallElu(call); }) == ErrorType::kTypeError);
  Number half;
  half.d = 0.5;
  half.text = "0.5";
  const Value good = Value::Object({{"alpha", Value::Num(half)}});
  OpCall ok(b, "leakyRelu", {{"input", &input}, {"options", &good}}, lookup);
  const Operand y = CallLeakyRelu(ok)[0];
  const OperandValue r = Run(b, y, {{"x", Make<float>(DataType::kFloat32, {1}, {-4})}});
  CHECK(r.data.base<float>()[0] == -2);
}

TEST_CASE("registry holds the activation operators") {
  for (const char* name : {"elu", "gelu", "hardSigmoid", "hardSwish", "leakyRelu", "prelu", "relu",
                           "sigmoid", "softplus", "softsign", "tanh", "softmax"}) {
    CHECK_MESSAGE(FindOp(name) != nullptr, name);
  }
}

}  // namespace nnref
