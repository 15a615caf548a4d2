// Ziv's rounding test on the element-wise functions (issue 28). The expected values are the
// correctly rounded results of issue 28's table, found by an independent MPFR oracle and checked
// by hand: each input's double evaluation lies so close to a float32 midpoint that rounding it
// once gave the neighbour. The tests check that the reference now returns the correct value and
// that the __float128 fallback is what decided it.
#include "ops/correctly_rounded.h"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>

#include "ops/activations.h"
#include "ops/elementwise_unary.h"
#include "ops/normalization.h"
#include "ref/testing.h"

namespace nnref {

namespace {

uint32_t Run32(const std::function<Operand(GraphBuilder&, const Operand&)>& op, uint32_t x) {
  GraphBuilder b;
  const Shape shape{1};
  const Operand in = b.Input("x", {DataType::kFloat32, shape});
  const OperandValue r =
      Run(b, op(b, in), {{"x", Make<float>(DataType::kFloat32, shape, {std::bit_cast<float>(x)})}});
  return std::bit_cast<uint32_t>(r.data.base<float>()[0]);
}

std::function<Operand(GraphBuilder&, const Operand&)> Unary(UnaryOp op) {
  return [op](GraphBuilder& b, const Operand& x) { return ElementwiseUnary(b, op, x, {}); };
}

template <Operand (*F)(GraphBuilder&, const Operand&, const MLOperatorOptions&)>
std::function<Operand(GraphBuilder&, const Operand&)> Act() {
  return [](GraphBuilder& b, const Operand& x) { return F(b, x, {}); };
}

// Runs op on x and checks the result and that the quad fallback ran for it.
void CheckHard(const std::function<Operand(GraphBuilder&, const Operand&)>& op, uint32_t x,
               uint32_t want) {
  const uint64_t before = GetZivStats().quad.load();
  CHECK(Run32(op, x) == want);
  CHECK(GetZivStats().quad.load() > before);
}

}  // namespace

TEST_CASE("ziv: issue 28's inputs are correctly rounded (through the quad fallback)") {
  // sigmoid(3.6e-7) (issue 28: the double evaluation gave 0x3f000002).
  CheckHard(Act<Sigmoid>(), 0x34c00000, 0x3f000001);
  CheckHard(Unary(UnaryOp::kLog), 0x3c413d3a, 0xc08e158f);
  CheckHard(Unary(UnaryOp::kCos), 0x5f18b878, 0x3f7f14bb);
  CheckHard(Unary(UnaryOp::kCos), 0xdf18b878, 0x3f7f14bb);
  CheckHard(Unary(UnaryOp::kCos), 0x6115cb11, 0x3f78142f);
  CheckHard(Unary(UnaryOp::kCos), 0xe115cb11, 0x3f78142f);
  CheckHard(Act<Gelu>(), 0x37b0a46f, 0x3730a531);
  CheckHard(Unary(UnaryOp::kSin), 0x46199998, 0xbeb1fa5d);
  CheckHard(Unary(UnaryOp::kSin), 0xc6199998, 0x3eb1fa5d);
  CheckHard(Act<Softsign>(), 0x3c0b8116, 0x3c0a5391);
  CheckHard(Act<Softsign>(), 0xbc0b8116, 0xbc0a5391);
  CheckHard(Act<Softplus>(), 0x39ea41d0, 0x3f3180bd);
  CHECK(GetZivStats().undecided.load() == 0);
}

TEST_CASE("ziv: ordinary inputs stay on the fast path") {
  const uint64_t before = GetZivStats().quad.load();
  CHECK(Run32(Unary(UnaryOp::kExp), std::bit_cast<uint32_t>(1.0f)) ==
        std::bit_cast<uint32_t>(2.71828182f));  // e = 2.718281828..., float32 0x402df854
  CHECK(Run32(Act<Sigmoid>(), 0) == std::bit_cast<uint32_t>(0.5f));
  CHECK(GetZivStats().quad.load() == before);
}

TEST_CASE("ziv: hardSwish at an exact float32 tie goes through the exact quad path") {
  // x = 3 * 2^-23: x (x + 3) / 6 = 1.5 * 2^-23 (1 + 2^-23) = 2^-23 (1 + 2^-1 + 2^-23 + 2^-24), 25
  // significant bits: exactly the midpoint between 2^-23 (1.5 + 2^-23) (odd last bit) and
  // 2^-23 (1.5 + 2^-22) (even), so round-to-nearest-even gives the latter.
  const uint32_t x = std::bit_cast<uint32_t>(3 * 0x1p-23f);
  const float want = 0x1p-23f * (1.5f + 0x1p-22f);
  const uint64_t before = GetZivStats().quad.load();
  CHECK(std::bit_cast<float>(Run32(Act<HardSwish>(), x)) == want);
  CHECK(GetZivStats().quad.load() > before);
  CHECK(GetZivStats().undecided.load() == 0);
}

TEST_CASE("ziv: batchNormalization's final step rounds once (no double rounding through double)") {
  // x = 1 + 2^-23, mean = 2^-24, variance 0.75 + epsilon 0.25 = 1 (sqrt exact), scale 1,
  // bias = 2^-80: the exact result is 1 + 2^-24 + 2^-80, just above the float32 midpoint between 1
  // and 1 + 2^-23, so it rounds up to 1 + 2^-23. In double it is 1 + 2^-24 (a tie), which would
  // round to even: 1.
  GraphBuilder b;
  const Shape shape{1, 1};
  const Operand x = b.Input("x", {DataType::kFloat32, shape});
  const Operand mean = b.Input("mean", {DataType::kFloat32, {1}});
  const Operand var = b.Input("var", {DataType::kFloat32, {1}});
  const Operand bias = b.Input("bias", {DataType::kFloat32, {1}});
  MLBatchNormalizationOptions o;
  o.bias = bias;
  o.epsilon = 0.25;
  const uint64_t before = GetZivStats().quad.load();
  const OperandValue r = Run(b, BatchNormalization(b, x, mean, var, o),
                             {{"x", Make<float>(DataType::kFloat32, shape, {1 + 0x1p-23f})},
                              {"mean", Make<float>(DataType::kFloat32, {1}, {0x1p-24f})},
                              {"var", Make<float>(DataType::kFloat32, {1}, {0.75f})},
                              {"bias", Make<float>(DataType::kFloat32, {1}, {0x1p-80f})}});
  CHECK(r.data.base<float>()[0] == 1 + 0x1p-23f);
  CHECK(GetZivStats().quad.load() > before);
}

}  // namespace nnref
