// Error models of the element-wise operators and activations (ops/error_model.h): each output
// element is the spec's own computation of it — the operation itself, or the steps of the
// spec's emulation note for the activations (WebNN §api-mlgraphbuilder-elu, -gelu-method,
// -hard-swish, -leakyrelu, -prelu, -sigmoid-method, -softplus-method, -softsign-method,
// -tanh-method) — evaluated in the output type with numerics/error_bound.h.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <string_view>

#include "numerics/cast.h"
#include "ops/activations.h"
#include "ops/error_model_internal.h"
#include "ops/matmul_gemm.h"

namespace nnref::error_model {
namespace {

using Fn = Bounded (*)(const ErrorArith&, std::span<const Bounded>, const OperatorNode&);

struct Model {
  Fn fn;
  // Whether the exact result is rounded to the output type (false: the result is an input
  // element or a constant, exactly representable).
  bool rounded;
};

double Alpha(const OperatorNode& n) {
  if (const auto* act = n.Attributes<ActivationAttributes>()) return act->alpha;
  if (const auto* lin = n.Attributes<LinearAttributes>()) return lin->alpha;
  return 1;
}
double Beta(const OperatorNode& n) {
  if (const auto* act = n.Attributes<ActivationAttributes>()) return act->beta;
  if (const auto* lin = n.Attributes<LinearAttributes>()) return lin->beta;
  return 0;
}

using A = ErrorArith;
constexpr Bounded X(double v) { return {v, 0}; }

// max(0, x) + alpha * min(0, x) (leakyRelu, prelu with the slope as alpha).
Bounded Leaky(const ErrorArith& m, Bounded x, Bounded alpha) {
  return m.Add(A::Max(X(0), x), m.Mul(alpha, A::Min(X(0), x)));
}

const std::map<OpId, Model>& Models() {
  static const std::map<OpId, Model> models = {
      // Binary (§api-mlgraphbuilder-binary): one correctly rounded operation; div at the
      // accuracy GPUs are allowed; pow as exp2(b * log2(a)).
      {OpId::add, {[](const A& m, std::span<const Bounded> in, const OperatorNode&) {
                 return m.Add(in[0], in[1]);
               }, true}},
      {OpId::sub, {[](const A& m, std::span<const Bounded> in, const OperatorNode&) {
                 return m.Sub(in[0], in[1]);
               }, true}},
      {OpId::mul, {[](const A& m, std::span<const Bounded> in, const OperatorNode&) {
                 return m.Mul(in[0], in[1]);
               }, true}},
      {OpId::div, {[](const A& m, std::span<const Bounded> in, const OperatorNode&) {
                 return m.Div(in[0], in[1]);
               }, true}},
      {OpId::max, {[](const A&, std::span<const Bounded> in, const OperatorNode&) {
                 return A::Max(in[0], in[1]);
               }, false}},
      {OpId::min, {[](const A&, std::span<const Bounded> in, const OperatorNode&) {
                 return A::Min(in[0], in[1]);
               }, false}},
      {OpId::pow, {[](const A& m, std::span<const Bounded> in, const OperatorNode&) {
                 return m.Pow(in[0], in[1]);
               }, true}},
      // Unary (§api-mlgraphbuilder-unary).
      {OpId::abs, {[](const A&, std::span<const Bounded> in, const OperatorNode&) {
                 return A::Abs(in[0]);
               }, false}},
      {OpId::neg, {[](const A&, std::span<const Bounded> in, const OperatorNode&) {
                 return A::Neg(in[0]);
               }, false}},
      // Steps (monotone, discontinuous): exact on exact inputs; an input bound that crosses
      // a step moves the result by the step.
      {OpId::ceil, {[](const A&, std::span<const Bounded> in, const OperatorNode&) {
                  const double v = std::ceil(in[0].v);
                  return Bounded{v, std::max(std::ceil(in[0].v + in[0].e) - v,
                                             v - std::ceil(in[0].v - in[0].e))};
                }, false}},
      {OpId::floor, {[](const A&, std::span<const Bounded> in, const OperatorNode&) {
                   const double v = std::floor(in[0].v);
                   return Bounded{v, std::max(std::floor(in[0].v + in[0].e) - v,
                                              v - std::floor(in[0].v - in[0].e))};
                 }, false}},
      {OpId::roundEven, {[](const A&, std::span<const Bounded> in, const OperatorNode&) {
                       const double v = std::nearbyint(in[0].v);
                       return Bounded{v, std::max(std::nearbyint(in[0].v + in[0].e) - v,
                                                  v - std::nearbyint(in[0].v - in[0].e))};
                     }, false}},
      {OpId::sign, {[](const A&, std::span<const Bounded> in, const OperatorNode&) {
                  const auto sg = [](double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0; };
                  const double v = sg(in[0].v);
                  return Bounded{v, std::max(sg(in[0].v + in[0].e) - v,
                                             v - sg(in[0].v - in[0].e))};
                }, false}},
      {OpId::exp, {[](const A& m, std::span<const Bounded> in, const OperatorNode&) {
                 return m.Exp(in[0]);
               }, true}},
      {OpId::log, {[](const A& m, std::span<const Bounded> in, const OperatorNode&) {
                 return m.Log(in[0]);
               }, true}},
      {OpId::sin, {[](const A& m, std::span<const Bounded> in, const OperatorNode&) {
                 return m.Sin(in[0]);
               }, true}},
      {OpId::cos, {[](const A& m, std::span<const Bounded> in, const OperatorNode&) {
                 return m.Cos(in[0]);
               }, true}},
      {OpId::tan, {[](const A& m, std::span<const Bounded> in, const OperatorNode&) {
                 return m.Tan(in[0]);
               }, true}},
      {OpId::erf, {[](const A& m, std::span<const Bounded> in, const OperatorNode&) {
                 return m.Erf(in[0]);
               }, true}},
      {OpId::sqrt, {[](const A& m, std::span<const Bounded> in, const OperatorNode&) {
                  return m.Sqrt(in[0]);
                }, true}},
      {OpId::reciprocal, {[](const A& m, std::span<const Bounded> in, const OperatorNode&) {
                        return m.Div(X(1), in[0]);
                      }, true}},
      // cast to a float type: one rounding (none when widening or to the same type).
      {OpId::cast, {[](const A& m, std::span<const Bounded> in, const OperatorNode&) {
                  return Bounded{in[0].v, in[0].e + m.Rounding(std::fabs(in[0].v) + in[0].e)};
                }, true}},
      // clamp selects the input or a bound: 1-Lipschitz, exact.
      {OpId::clamp, {[](const A&, std::span<const Bounded> in, const OperatorNode&) {
                   return in[0];
                 }, false}},
      // Activations: the spec's emulation steps.
      {OpId::relu, {[](const A&, std::span<const Bounded> in, const OperatorNode&) {
                  return A::Max(X(0), in[0]);
                }, false}},
      {OpId::leakyRelu, {[](const A& m, std::span<const Bounded> in, const OperatorNode& n) {
                       return Leaky(m, in[0], X(Alpha(n)));
                     }, true}},
      {OpId::prelu, {[](const A& m, std::span<const Bounded> in, const OperatorNode&) {
                   return Leaky(m, in[0], in[1]);
                 }, true}},
      {OpId::linear, {[](const A& m, std::span<const Bounded> in, const OperatorNode& n) {
                    return m.Add(m.Mul(X(Alpha(n)), in[0]), X(Beta(n)));
                  }, true}},
      {OpId::hardSigmoid, {[](const A& m, std::span<const Bounded> in, const OperatorNode& n) {
                         const Bounded t = m.Add(m.Mul(X(Alpha(n)), in[0]), X(Beta(n)));
                         return A::Max(X(0), A::Min(X(1), t));
                       }, true}},
      {OpId::hardSwish, {[](const A& m, std::span<const Bounded> in, const OperatorNode&) {
                       const Bounded x = in[0];
                       const Bounded t = A::Max(X(0), A::Min(X(6), m.Add(x, X(3))));
                       return m.Div(m.Mul(x, t), X(6));
                     }, true}},
      {OpId::elu, {[](const A& m, std::span<const Bounded> in, const OperatorNode& n) {
                 const Bounded x = in[0];
                 const Bounded neg = m.Sub(m.Exp(A::Min(X(0), x)), X(1));
                 return m.Add(A::Max(X(0), x), m.Mul(X(Alpha(n)), neg));
               }, true}},
      {OpId::gelu, {[](const A& m, std::span<const Bounded> in, const OperatorNode&) {
                  const Bounded x = in[0];
                  // sqrt(2) of a constant: folded when the graph is built, rounded once.
                  const Bounded root2 = m.Constant(std::sqrt(2.0));
                  const Bounded t = m.Div(x, root2);
                  const Bounded spec = m.Mul(m.Mul(x, X(0.5)), m.Add(X(1), m.Erf(t)));
                  // Or with erfc, which does not cancel for negative x: 0.5 x erfc(-x / sqrt 2)
                  // (the vulkan backend's form).
                  const Bounded with_erfc = m.Mul(m.Mul(x, X(0.5)), m.Erfc(A::Neg(t)));
                  return Bounded{spec.v, std::max(spec.e, with_erfc.e)};
                }, true}},
      {OpId::sigmoid, {[](const A& m, std::span<const Bounded> in, const OperatorNode&) {
                     return m.Div(X(1), m.Add(m.Exp(A::Neg(in[0])), X(1)));
                   }, true}},
      {OpId::softplus, {[](const A& m, std::span<const Bounded> in, const OperatorNode&) {
                      // softplus is 1-Lipschitz (its derivative is sigmoid), so the input's bound
                      // passes through at most unchanged; each form below is evaluated on the
                      // exact input. The spec's emulation log(exp(x) + 1), where its exp stays
                      // finite, and the overflow-safe form max(x, 0) + log(1 + exp(-|x|)) that
                      // libraries use: a legitimate value is within either. For large x the
                      // spec's steps overflow (a stated rejection), so only the safe form
                      // bounds the exact value there (docs/fuzzing.md, finding 6).
                      const Bounded x = in[0];
                      const Bounded spec = m.Log(m.Add(m.Exp(X(x.v)), X(1)));
                      const Bounded safe = m.Add(
                          A::Max(X(0), X(x.v)),
                          m.Log(m.Add(X(1), m.Exp(X(-std::fabs(x.v))))));
                      const bool spec_finite = std::isfinite(spec.v) && std::isfinite(spec.e);
                      const double e = spec_finite ? std::max(spec.e, safe.e) : safe.e;
                      const double v = x.v > 0 ? x.v + std::log1p(std::exp(-x.v))
                                               : std::log1p(std::exp(x.v));
                      return Bounded{v, e + x.e};
                    }, true}},
      {OpId::softsign, {[](const A& m, std::span<const Bounded> in, const OperatorNode&) {
                      return m.Div(in[0], m.Add(X(1), A::Abs(in[0])));
                    }, true}},
      {OpId::tanh, {[](const A& m, std::span<const Bounded> in, const OperatorNode&) {
                  return m.Tanh(in[0]);
                }, true}},
  };
  return models;
}

// Comparisons and logical operators: uint8 results, exact.
bool IsLogical(OpId op) {
  static constexpr OpId kLogical[] = {
      OpId::equal,      OpId::notEqual,   OpId::greater,   OpId::greaterOrEqual,
      OpId::lesser,     OpId::lesserOrEqual, OpId::logicalNot, OpId::logicalAnd,
      OpId::logicalOr,  OpId::logicalXor, OpId::isNaN,     OpId::isInfinite};
  return std::find(std::begin(kLogical), std::end(kLogical), op) != std::end(kLogical);
}

}  // namespace

bool HasElementwiseModel(OpId op) {
  return Models().count(op) != 0 || op == OpId::dequantizeLinear || op == OpId::quantizeLinear ||
         IsLogical(op);
}

std::optional<Bounds> ElementwiseBounds(const ErrorModelArgs& a) {
  const OperatorNode& node = a.graph.operators()[a.index];
  const OpId op = node.op;
  Bounds out(node.outputs.size());
  if (!FloatOutput(a)) return out;  // integer outputs (logical, quantizeLinear, casts): exact
  const Tensor& ref = a.outputs[0].data;
  const Shape& shape = ref.shape();
  const uint64_t count = ref.element_count();
  const ErrorArith arith = ArithFor(a);
  if (op == OpId::dequantizeLinear) {
    // (input - zeroPoint) * scale with integer input and zero point: the subtraction is exact
    // for 8-bit types and rounds once beyond (then the product once more).
    if (AnyInputBound(a)) return std::nullopt;
    const std::vector<double> r = Values(ref);
    out[0].resize(count);
    for (uint64_t i = 0; i < count; ++i) {
      out[0][i] = arith.Judge({r[i], 2 * arith.Rounding(r[i])}, r[i]);
    }
    return out;
  }
  const auto it = Models().find(op);
  if (it == Models().end()) return std::nullopt;
  // Inputs broadcast to the output shape (prelu's slope, the binary operators); clamp and the
  // unary ones have one input of the output's shape.
  const size_t arity = op == OpId::clamp ? 1 : a.inputs.size();
  std::vector<Tensor> values, bounds;
  for (size_t k = 0; k < arity; ++k) {
    values.push_back(a.inputs[k]->data.BroadcastTo(shape));
    bounds.push_back(BoundTensor(InputBound(a, k), a.inputs[k]->data.shape()).BroadcastTo(shape));
  }
  out[0].resize(count);
  std::vector<Bounded> in(arity);
  const std::vector<double> r = Values(ref);
  std::vector<uint8_t>* overflow = nullptr;
  if (a.overflow != nullptr) {
    a.overflow->assign(node.outputs.size(), {});
    overflow = &(*a.overflow)[0];
    overflow->assign(count, 0);
  }
  arith.TakeOverflow();
  for (uint64_t i = 0; i < count; ++i) {
    for (size_t k = 0; k < arity; ++k) {
      DispatchDataType(values[k].dtype(),
                       [&]<typename T>() { in[k].v = ToDouble(values[k].At<T>(i)); });
      in[k].e = double{bounds[k].At<float>(i)};
    }
    const Bounded b = it->second.fn(arith, in, node);
    // The bound is about the exact value b.v; the reference's own value r[i] is b.v rounded
    // once (when the model says the result rounds), so Judge adds that rounding.
    out[0][i] = arith.Judge(b, r[i], it->second.rounded);
    if (arith.TakeOverflow() && overflow != nullptr) (*overflow)[i] = 1;
  }
  return out;
}

}  // namespace nnref::error_model
