// Adversarial stated-accuracy variants (variants.h): legitimate implementations whose every
// primitive function stays within its stated accuracy (ErrorArith::Accuracy, numerics/
// error_bound.h: the Vulkan / WGSL and OpenCL tables) but errs, element by element, in the
// direction that moves the final result furthest from the exact value.
//
// The "gpu-...-plus/minus" variants (elementwise.cc, activations_variants.cc) push every
// primitive the same way, so that in a chain (exp then a division, log then exp...) the errors
// partly cancel. Here each primitive of an element's chain takes its result at -bound, correctly
// rounded, or +bound; all 3^k combinations of the k primitives are evaluated and the one farthest
// from the exact value (computed in double) is kept. Every other step (+, -, *) is correctly
// rounded to the operand type, as IEEE, Vulkan and WGSL require; float16 is computed with every
// step rounded to float16 and the primitives at their float16 accuracies.
//
// Rules the primitives keep (as the gpu variants' helpers do, elementwise_helpers.cc):
//  - ULP bounds use WGSL's ULP of the exact result (UlpOf); results below the normal range stay
//    correctly rounded (a bound in subnormal steps is not what implementations do);
//  - special values as IEEE gives them: non-finite arguments and results are the correctly
//    rounded ones, log(1) = 0, pow's special cases (x^0, 1^y, 0^y, infinities) exact;
//  - results stay in the function's range: exp and sqrt >= 0; erf, sin and cos in [-1, 1]; erf
//    keeps +-1 where its float32 value saturates;
//  - division: 2.5 ULP for divisors in [2^-126, 2^126] (float32) / [2^-14, 2^14] (float16),
//    correctly rounded outside; sqrt: 4.5 ULP (inherited from 1 / inverseSqrt);
//  - log, log2: absolute 2^-21 (float16 2^-7) inside [0.5, 2], 3 ULP outside (the stated
//    accuracy, not the larger of the two);
//  - sin, cos: absolute 2^-11 (float16 2^-7). WGSL and Vulkan state it on [-pi, pi] and nothing
//    outside; applied everywhere, as an implementation that reduces the argument exactly (float16
//    arguments reduce exactly in float32) and evaluates within the stated bound gives.
// An element whose exact value is NaN or rounds to +-Infinity keeps the correctly rounded
// evaluation of the chain (all primitives correctly rounded); otherwise only finite results are
// candidates.
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <numbers>
#include <span>

#include "numerics/error_bound.h"
#include "ops/normalization.h"
#include "ops/reduction.h"
#include "ops/variants/elementwise_internal.h"
#include "ops/variants/sums_internal.h"

namespace nnref {

namespace {

using elementwise_variants::AtBound;
using elementwise_variants::ElementFn;
using elementwise_variants::Format;
using elementwise_variants::FormatOf;
using elementwise_variants::NodeInfo;
using elementwise_variants::NodeTest;
using elementwise_variants::RoundToFormat;
using elementwise_variants::UlpOf;

// The most primitives of a chain whose directions are chosen (3^6 evaluations per element).
constexpr size_t kMaxChoices = 6;

// Arithmetic in the operand type whose k-th primitive call errs in direction signs[k] (-1, 0:
// correctly rounded, +1) by its full stated accuracy.
class Adverse {
 public:
  Adverse(DataType type, std::span<const int8_t> signs)
      : type_(type), format_(FormatOf(type)), signs_(signs) {}

  double R(double v) const { return RoundToFormat(v, format_); }
  double Add(double a, double b) const { return R(a + b); }
  double Sub(double a, double b) const { return R(a - b); }
  double Mul(double a, double b) const { return R(a * b); }

  double Div(double a, double b) {
    const int s = Next();
    const double q = a / b;
    const double range = format_ == Format::kFloat16 ? 0x1p14 : 0x1p126;
    const double m = std::fabs(b);
    if (!std::isfinite(q) || !(m >= 1 / range && m <= range)) return R(q);
    return AtUlps(q, Accuracy("div").ulp, s);
  }
  double Sqrt(double a) {
    const int s = Next();
    const double r = std::sqrt(a);
    if (!std::isfinite(r) || a == 0) return R(r);
    return std::max(0.0, AtUlps(r, Accuracy("sqrt").ulp, s));
  }
  double Exp(double x) { return Exponential(x, std::exp(x)); }
  double Exp2(double x) { return Exponential(x, std::exp2(x)); }  // exp2: exp's accuracy
  double Log(double x) { return Logarithm(x, std::log(x)); }
  double Log2(double x) { return Logarithm(x, std::log2(x)); }  // log2: log's accuracy
  double Erf(double x) {
    const int s = Next();
    const double r = std::erf(x);
    if (!std::isfinite(x) || std::fabs(RoundToFormat(r, Format::kFloat32)) == 1) return R(r);
    return InRange(AtUlps(r, Accuracy("erf").ulp, s));
  }
  double Sin(double x) { return Trigonometric(x, std::sin(x)); }
  double Cos(double x) { return Trigonometric(x, std::cos(x)); }

  size_t calls() const { return calls_; }

 private:
  int Next() {
    const size_t k = calls_++;
    return k < signs_.size() ? signs_[k] : 0;
  }
  FunctionAccuracy Accuracy(const char* f) const { return ErrorArith::Accuracy(type_, f); }
  static double InRange(double v) { return std::clamp(v, -1.0, 1.0); }

  // `exact` moved by `ulps` WGSL ULPs in direction s; correctly rounded below the normal range.
  double AtUlps(double exact, double ulps, int s) const {
    const double min_normal = format_ == Format::kFloat16 ? 0x1p-14 : 0x1p-126;
    if (s == 0 || std::fabs(exact) < min_normal) return R(exact);
    return AtBound(exact, ulps * UlpOf(exact, format_), s, format_);
  }
  double Exponential(double x, double exact) {
    const int s = Next();
    if (!std::isfinite(x)) return R(exact);
    const FunctionAccuracy acc = Accuracy("exp");
    return std::max(0.0, AtUlps(exact, acc.ulp + acc.ulp_per_x * std::fabs(x), s));
  }
  double Logarithm(double x, double exact) {
    const int s = Next();
    if (!std::isfinite(exact) || !std::isfinite(x) || x == 1) return R(exact);
    const FunctionAccuracy acc = Accuracy("log");
    if (x >= 0.5 && x <= 2) return s == 0 ? R(exact) : AtBound(exact, acc.abs, s, format_);
    return AtUlps(exact, acc.ulp, s);
  }
  double Trigonometric(double x, double exact) {
    const int s = Next();
    if (!std::isfinite(x) || s == 0) return R(exact);
    return InRange(AtBound(exact, Accuracy("sin").abs, s, format_));
  }

  DataType type_;
  Format format_;
  std::span<const int8_t> signs_;
  size_t calls_ = 0;
};

// The chain's result farthest from `exact` over every direction of its primitives.
double Worst(DataType type, const std::function<double(Adverse&)>& chain, double exact) {
  std::array<int8_t, kMaxChoices> signs{};
  Adverse probe(type, signs);
  const double nearest = chain(probe);
  const size_t k = std::min(probe.calls(), kMaxChoices);
  if (k == 0 || std::isnan(exact) || !std::isfinite(RoundToFormat(exact, FormatOf(type)))) {
    return nearest;
  }
  size_t combinations = 1;
  for (size_t j = 0; j < k; ++j) combinations *= 3;
  double best = nearest;
  double farthest = std::isfinite(nearest) ? std::fabs(nearest - exact) : -1;
  for (size_t code = 0; code < combinations; ++code) {
    size_t c = code;
    for (size_t j = 0; j < k; ++j, c /= 3) {
      signs[j] = static_cast<int8_t>(static_cast<int>(c % 3) - 1);
    }
    Adverse a(type, signs);
    const double r = chain(a);
    if (!std::isfinite(r)) continue;
    if (std::fabs(r - exact) > farthest) {
      farthest = std::fabs(r - exact);
      best = r;
    }
  }
  return best;
}

using Chain = std::function<double(Adverse& a, const double* x, const NodeInfo& n)>;

// An element-wise adverse variant: per element, Worst of `chain` against `exact`.
Alternative AdverseElement(std::string op, std::string name, std::string what, Chain chain,
                           ElementFn exact, NodeTest applies = {}) {
  ElementFn f = [chain = std::move(chain), exact = std::move(exact)](const double* x,
                                                                     const NodeInfo& n) {
    return Worst(
        n.out_type, [&](Adverse& a) { return chain(a, x, n); }, exact(x, n));
  };
  return elementwise_variants::ElementAlternative(
      std::move(op), std::move(name), true, std::move(what), std::move(f), std::move(applies));
}

// --- tanh ---

// (e - 1) / (e + 1) with e = exp(2x), the spec's emulation; +1 where e overflows (the formula's
// limit, as a kernel clamping its argument gives; softplus's decomposition has the same guard);
// tanh(+-Infinity) = +-1 exactly (a special value).
template <typename A>
double TanhFromExp2x(A& a, double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return std::copysign(1.0, x);
  const double e = a.Exp(a.Mul(2, x));
  if (std::isinf(e)) return 1;
  return std::clamp(a.Div(a.Sub(e, 1), a.Add(e, 1)), -1.0, 1.0);
}

void AddTanh(std::vector<Alternative>& out) {
  out.push_back(elementwise_variants::ArithAlternative(
      "tanh", "decomposition",
      "the spec's emulation (exp(2x) - 1) / (exp(2x) + 1), each step rounded to the operand type "
      "(float32: glibc's expf), +1 where exp(2x) overflows",
      [](const elementwise_variants::Arith& a, const double* x, const NodeInfo&) {
        return TanhFromExp2x(a, x[0]);
      },
      elementwise_variants::ArithPlan::kOperandType));
  const ElementFn exact = [](const double* x, const NodeInfo&) { return std::tanh(x[0]); };
  out.push_back(AdverseElement(
      "tanh", "decomposition-gpu-adverse",
      "(exp(2x) - 1) / (exp(2x) + 1) in the operand type, exp (3 + 2|2x| ULP, float16 1 + 2|2x|) "
      "and the division (2.5 ULP) each at the bound's adverse side",
      [](Adverse& a, const double* x, const NodeInfo&) { return TanhFromExp2x(a, x[0]); }, exact));
  out.push_back(AdverseElement(
      "tanh", "gpu-sinh-cosh-adverse",
      "Vulkan's inherited tanh: (exp(x) - exp(-x)) / (exp(x) + exp(-x)) (sinh / cosh, their 0.5 "
      "factors cancelling), both exps and the division at the bound's adverse side, +-1 where an "
      "exp overflows",
      [](Adverse& a, const double* x, const NodeInfo&) {
        const double v = x[0];
        if (std::isnan(v)) return v;
        const double ep = a.Exp(v), em = a.Exp(-v);
        if (std::isinf(ep) || std::isinf(em)) return std::copysign(1.0, v);
        return std::clamp(a.Div(a.Sub(ep, em), a.Add(ep, em)), -1.0, 1.0);
      },
      exact));
}

// --- pow ---

// WGSL's pow, exp2(b * log2(|a|)), with IEEE's special cases and the sign of a negative base
// restored for an integral exponent (NaN for a non-integral one).
double GpuPow(Adverse& a, double base, double e) {
  if (e == 0 || base == 1) return 1;
  if (std::isnan(base) || std::isnan(e)) return std::nan("");
  if (base == 0 || std::isinf(base) || std::isinf(e)) return a.R(std::pow(base, e));
  if (base < 0 && e != std::trunc(e)) return std::nan("");
  const double r = a.Exp2(a.Mul(e, a.Log2(std::fabs(base))));
  return base < 0 && std::fmod(e, 2) != 0 ? -r : r;
}

void AddPow(std::vector<Alternative>& out) {
  out.push_back(AdverseElement(
      "pow", "gpu-pow-adverse",
      "exp2(b * log2(|a|)) in the operand type (WGSL's inherited pow), log2 (3 ULP, absolute "
      "2^-21 / float16 2^-7 in [0.5, 2]) and exp2 (3 + 2|x| ULP, float16 1 + 2|x|) at the bound's "
      "adverse side, the sign restored for integral b",
      [](Adverse& a, const double* x, const NodeInfo&) { return GpuPow(a, x[0], x[1]); },
      [](const double* x, const NodeInfo&) { return std::pow(x[0], x[1]); }));
}

// --- gelu, sigmoid, tan ---

double ExactGelu(double x) { return 0.5 * x * std::erfc(-x / std::numbers::sqrt2); }
double ExactSigmoid(double x) {
  if (x >= 0) return 1 / (1 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1 + e);
}

void AddActivations(std::vector<Alternative>& out) {
  out.push_back(AdverseElement(
      "gelu", "decomposition-gpu-adverse",
      "x * 0.5 * (1 + erf(x / sqrt(2))) in the operand type, sqrt(2) rounded once, the division "
      "(2.5 ULP) and erf (16 ULP, float16 2) at the bound's adverse side",
      [](Adverse& a, const double* x, const NodeInfo&) {
        const double t = a.Erf(a.Div(x[0], a.R(std::numbers::sqrt2)));
        return a.Mul(a.Mul(x[0], 0.5), a.Add(1, t));
      },
      [](const double* x, const NodeInfo&) { return ExactGelu(x[0]); }));
  out.push_back(AdverseElement(
      "sigmoid", "decomposition-gpu-adverse",
      "1 / (exp(-x) + 1) in the operand type, exp and the division at the bound's adverse side",
      [](Adverse& a, const double* x, const NodeInfo&) { return a.Div(1, a.Add(a.Exp(-x[0]), 1)); },
      [](const double* x, const NodeInfo&) { return ExactSigmoid(x[0]); }));
  out.push_back(AdverseElement(
      "tan", "gpu-tan-adverse",
      "WGSL's inherited tan, sin(x) / cos(x): sin and cos (absolute 2^-11, float16 2^-7, the "
      "argument reduced exactly) and the division at the bound's adverse side",
      [](Adverse& a, const double* x, const NodeInfo&) { return a.Div(a.Sin(x[0]), a.Cos(x[0])); },
      [](const double* x, const NodeInfo&) { return std::tan(x[0]); }));
}

// --- reduceLogSum, batchNormalization (the sum-family wrapper) ---

sums::Values1 LogSumBody(const sums::Context& c, sums::Prec p) {
  const auto* g = c.Attributes<ReduceAttributes>();
  if (!g || g->op != ReduceOp::kLogSum) return std::nullopt;
  const std::vector<double> x = sums::Values(c.In(0));
  std::vector<double> out, terms;
  sums::ForEachGroup(c.In(0).shape(), g->reduced, [&](std::span<const int64_t> group) {
    terms.clear();
    for (int64_t k : group) terms.push_back(x[static_cast<size_t>(k)]);
    const double sum = sums::Sum(terms, sums::With(sums::kSeq, p));
    const double exact = std::log(sums::Sum(terms, sums::kExactSum));
    out.push_back(Worst(
        c.type, [&](Adverse& a) { return a.Log(sum); }, exact));
  });
  return out;
}

sums::Values1 BatchNormBody(const sums::Context& c, sums::Prec) {
  const auto* g = c.Attributes<NormalizationAttributes>();
  if (!g || c.node.op != OpId::batchNormalization) return std::nullopt;
  const Shape& shape = c.In(0).shape();
  const std::vector<double> x = sums::Values(c.In(0));
  const std::vector<double> mean = sums::ValuesAlong(c.In(1), shape, g->param_axes);
  const std::vector<double> var = sums::ValuesAlong(c.In(2), shape, g->param_axes);
  const auto optional = [&](int input) {
    return input < 0 ? std::vector<double>(x.size(), std::nan(""))
                     : sums::ValuesAlong(c.In(static_cast<size_t>(input)), shape, g->param_axes);
  };
  const std::vector<double> scale = optional(g->scale_input), bias = optional(g->bias_input);
  const bool has_scale = g->scale_input >= 0, has_bias = g->bias_input >= 0;
  const double eps = g->epsilon;
  std::vector<double> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double sc = has_scale ? scale[i] : 1, b = has_bias ? bias[i] : 0;
    const double exact = sc * ((x[i] - mean[i]) / std::sqrt(var[i] + eps)) + b;
    out[i] = Worst(
        c.type,
        [&](Adverse& a) {
          const double q = a.Div(a.Sub(x[i], mean[i]), a.Sqrt(a.Add(var[i], eps)));
          const double y = has_scale ? a.Mul(sc, q) : q;
          return has_bias ? a.Add(y, b) : y;
        },
        exact);
  }
  return out;
}

void AddSumFamily(std::vector<Alternative>& out) {
  out.push_back(sums::Make(
      "reduceLogSum", "gpu-log-adverse", true,
      "a sequential sum in the operand type, then log at its stated accuracy (3 ULP, absolute "
      "2^-21 / float16 2^-7 in [0.5, 2]) on the bound's adverse side",
      sums::Acc::kOperand, LogSumBody));
  out.push_back(sums::Make(
      "batchNormalization", "emulation-gpu-adverse", true,
      "scale * ((x - mean) / sqrt(variance + epsilon)) + bias in the operand type, sqrt (4.5 ULP) "
      "and the division (2.5 ULP) at the bound's adverse side",
      sums::Acc::kOperand, BatchNormBody));
}

}  // namespace

void AddAdverseAlternatives(std::vector<Alternative>& out) {
  AddTanh(out);
  AddPow(out);
  AddActivations(out);
  AddSumFamily(out);
}

}  // namespace nnref
