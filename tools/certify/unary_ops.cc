#include "tools/certify/unary_ops.h"

#include <cstring>

#include "ops/activations.h"
#include "ops/elementwise_unary.h"

namespace nnref::certify {

namespace {

UnaryCase Unary(const char* name, Fn fn, UnaryOp op) {
  return {name, fn, 0, 0,
          [op](GraphBuilder& b, const Operand& x) { return ElementwiseUnary(b, op, x, {}); }};
}

template <Operand (*F)(GraphBuilder&, const Operand&, const MLOperatorOptions&)>
UnaryCase Simple(const char* name, Fn fn) {
  return {name, fn, 0, 0, [](GraphBuilder& b, const Operand& x) { return F(b, x, {}); }};
}

UnaryCase EluCase(double alpha, bool named) {
  return {named ? "elu(alpha=" + std::to_string(alpha) + ")" : "elu", Fn::kElu, alpha, 0,
          [alpha](GraphBuilder& b, const Operand& x) {
            MLEluOptions o;
            o.alpha = alpha;
            return Elu(b, x, o);
          }};
}

UnaryCase LeakyCase(double alpha, bool named) {
  return {named ? "leakyRelu(alpha=" + std::to_string(alpha) + ")" : "leakyRelu", Fn::kLeakyRelu,
          alpha, 0, [alpha](GraphBuilder& b, const Operand& x) {
            MLLeakyReluOptions o;
            o.alpha = alpha;
            return LeakyRelu(b, x, o);
          }};
}

UnaryCase HardSigmoidCase(double alpha, double beta, bool named) {
  return {named
              ? "hardSigmoid(alpha=" + std::to_string(alpha) + ",beta=" + std::to_string(beta) + ")"
              : "hardSigmoid",
          Fn::kHardSigmoid, alpha, beta, [alpha, beta](GraphBuilder& b, const Operand& x) {
            MLHardSigmoidOptions o;
            o.alpha = alpha;
            o.beta = beta;
            return HardSigmoid(b, x, o);
          }};
}

}  // namespace

const std::vector<UnaryCase>& UnaryCases() {
  static const std::vector<UnaryCase> cases = {
      Unary("abs", Fn::kAbs, UnaryOp::kAbs),
      Unary("ceil", Fn::kCeil, UnaryOp::kCeil),
      Unary("cos", Fn::kCos, UnaryOp::kCos),
      Unary("erf", Fn::kErf, UnaryOp::kErf),
      Unary("exp", Fn::kExp, UnaryOp::kExp),
      Unary("floor", Fn::kFloor, UnaryOp::kFloor),
      Unary("identity", Fn::kIdentity, UnaryOp::kIdentity),
      Unary("log", Fn::kLog, UnaryOp::kLog),
      Unary("neg", Fn::kNeg, UnaryOp::kNeg),
      Unary("reciprocal", Fn::kReciprocal, UnaryOp::kReciprocal),
      Unary("roundEven", Fn::kRoundEven, UnaryOp::kRoundEven),
      Unary("sin", Fn::kSin, UnaryOp::kSin),
      Unary("sign", Fn::kSign, UnaryOp::kSign),
      Unary("sqrt", Fn::kSqrt, UnaryOp::kSqrt),
      Unary("tan", Fn::kTan, UnaryOp::kTan),
      EluCase(1, false),
      Simple<Gelu>("gelu", Fn::kGelu),
      HardSigmoidCase(0.2, 0.5, false),
      Simple<HardSwish>("hardSwish", Fn::kHardSwish),
      LeakyCase(0.01, false),
      Simple<Relu>("relu", Fn::kRelu),
      Simple<Sigmoid>("sigmoid", Fn::kSigmoid),
      Simple<Softplus>("softplus", Fn::kSoftplus),
      Simple<Softsign>("softsign", Fn::kSoftsign),
      Simple<Tanh>("tanh", Fn::kTanh),
      // Non-default options: alpha values that are not powers of two (the product rounds).
      EluCase(0.3, true),
      EluCase(1.7, true),
      EluCase(-0.1, true),
      LeakyCase(0.3, true),
      HardSigmoidCase(0.1666666716337204, 0.5, true),
      HardSigmoidCase(0.3, -0.7, true),
  };
  return cases;
}

UnaryRunner::UnaryRunner(const UnaryCase& c, DataType type, uint64_t count)
    : type_(type), count_(count) {
  GraphBuilder b;
  const Operand x = b.Input("x", {type, {static_cast<uint32_t>(count)}});
  graph_ = b.Build({{"y", c.build(b, x)}});
}

void UnaryRunner::Run(const void* in, void* out) const {
  const size_t bytes = count_ * (type_ == DataType::kFloat16 ? 2 : 4);
  Tensor t = Tensor::AllocateForOverwrite(type_, {static_cast<uint32_t>(count_)});
  std::memcpy(t.base<uint8_t>(), in, bytes);
  const auto result = graph_->Compute({{"x", t}});
  const Tensor& y = result.at("y").data;
  std::memcpy(out, y.base<uint8_t>(), bytes);
}

}  // namespace nnref::certify
