// Variants and mutants of the activations (variants.h): elu, gelu, hardSigmoid, hardSwish,
// leakyRelu, prelu, relu, sigmoid, softplus and softsign (tanh, a primitive, is with the unary
// functions in elementwise.cc).
//
// Variants: the spec's emulation evaluated step by step ("decomposition": in the operand type,
// float32 with glibc's float libm, float16 with every step rounded to float16;
// "decomposition-f32": float16 outputs computed in float32 and rounded once; "decomposition-gpu-
// plus/minus": in the operand type with every primitive and division at its stated accuracy,
// elementwise_internal.h). leakyRelu, prelu and relu have none: their emulation rounds once.
//
// Judgement calls:
//  - softplus as log(1 + exp(x)) is a variant (it is the spec's emulation; it loses the relative
//    accuracy of results below ulp(1) but stays within an absolute half ULP of 1), evaluated with
//    the guard every real kernel has (x where exp(x) overflows); without the guard it is a mutant
//    ("overflow": +Infinity for x above about 88.7 in float32, 11.1 in float16).
//  - tanh as (exp(2x) - 1) / (exp(2x) + 1), the spec's emulation, cancels near 0 (tanh(1e-8)
//    gives 0 in float32) but is legitimate (the contract accepts the spec's decomposition in the
//    operand type): it is registered in adverse.cc as `decomposition`.
//  - hardSwish times 1/6 (instead of a division by 6) is a variant: the constant's rounding adds
//    at most about one ULP.
#include <cmath>
#include <numbers>

#include "ops/exact_round.h"
#include "ops/variants/elementwise_internal.h"

namespace nnref::elementwise_variants {

namespace {

bool AlphaNotOne(const NodeInfo& n) { return n.alpha != 1; }

// Adds "decomposition" (both types), "decomposition-f32" (float16 outputs) and, when the
// decomposition calls a primitive or divides, the two "decomposition-gpu" variants.
void AddDecompositions(std::vector<Alternative>& out, const std::string& op,
                       const std::string& formula, const Decomposition& d, bool gpu) {
  out.push_back(ArithAlternative(op, "decomposition",
                                 formula + ", each step rounded to the operand type", d,
                                 ArithPlan::kOperandType));
  out.push_back(ArithAlternative(op, "decomposition-f32",
                                 formula + " in float32, rounded once to float16", d,
                                 ArithPlan::kFloat32For16));
  if (!gpu) return;
  out.push_back(ArithAlternative(
      op, "decomposition-gpu-plus",
      formula + " in the operand type, primitives and division at +bound", d, ArithPlan::kGpuPlus));
  out.push_back(
      ArithAlternative(op, "decomposition-gpu-minus",
                       formula + " in the operand type, primitives and division at -bound", d,
                       ArithPlan::kGpuMinus));
}

void AddCommonMutants(std::vector<Alternative>& out, const std::string& op, ElementFn exact) {
  out.push_back(ElementAlternative(
      op, "truncate", false,
      "the exact result truncated toward zero instead of rounded to nearest in the output type",
      std::move(exact), {}, Rounding::kTowardZero));
  out.push_back(FlushF16Subnormals(op));
}

double Relu6(double v) { return v < 0 ? 0 : (v > 6 ? 6 : v); }

// The reference's value before its rounding (ops/activations.cc), for truncation.
double ExactGelu(double x) { return 0.5 * x * std::erfc(-x / std::numbers::sqrt2); }
double ExactSigmoid(double x) {
  if (x >= 0) return 1 / (1 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1 + e);
}
double ExactSoftplus(double x) {
  return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}
double ExactHardSwish(double x) { return x >= 3 ? x : (x <= -3 ? -0.0 : x * (x + 3) / 6); }

void AddElu(std::vector<Alternative>& out) {
  AddDecompositions(
      out, "elu", "max(0, x) + alpha * (exp(min(0, x)) - 1)",
      [](const Arith& a, const double* x, const NodeInfo& n) {
        if (x[0] > 0) return x[0];
        return a.Mul(n.alpha, a.Sub(a.Exp(x[0]), 1));
      },
      true);
  AddCommonMutants(out, "elu", [](const double* x, const NodeInfo& n) {
    return x[0] > 0 ? x[0] : n.alpha * std::expm1(x[0]);
  });
  out.push_back(ElementAlternative(
      "elu", "ignores-alpha", false, "exp(x) - 1 for x <= 0: alpha not applied",
      [](const double* x, const NodeInfo&) { return x[0] > 0 ? x[0] : std::expm1(x[0]); },
      AlphaNotOne));
  out.push_back(ElementAlternative(
      "elu", "alpha-on-positive", false, "alpha * x for x > 0 too: alpha applied on both branches",
      [](const double* x, const NodeInfo& n) {
        return n.alpha * (x[0] > 0 ? x[0] : std::expm1(x[0]));
      },
      AlphaNotOne));
}

void AddGelu(std::vector<Alternative>& out) {
  AddDecompositions(
      out, "gelu", "x * 0.5 * (1 + erf(x / sqrt(2)))",
      [](const Arith& a, const double* x, const NodeInfo&) {
        const double t = a.Erf(a.Div(x[0], a.Sqrt(2)));
        return a.Mul(a.Mul(x[0], 0.5), a.Add(1, t));
      },
      true);
  AddCommonMutants(out, "gelu", [](const double* x, const NodeInfo&) { return ExactGelu(x[0]); });
  out.push_back(ElementAlternative(
      "gelu", "tanh-approx", false,
      "0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))): the tanh approximation, not erf gelu",
      [](const double* x, const NodeInfo&) {
        const double v = x[0];
        const double k = std::sqrt(2 / std::numbers::pi);
        return 0.5 * v * (1 + std::tanh(k * (v + 0.044715 * v * v * v)));
      }));
}

void AddHardSigmoidSwish(std::vector<Alternative>& out) {
  AddDecompositions(
      out, "hardSigmoid", "max(min(alpha * x + beta, 1), 0)",
      [](const Arith& a, const double* x, const NodeInfo& n) {
        const double t = a.Add(a.Mul(n.alpha, x[0]), n.beta);
        return t <= 0 ? 0.0 : (t >= 1 ? 1.0 : t);
      },
      false);
  AddCommonMutants(out, "hardSigmoid", [](const double* x, const NodeInfo& n) {
    const double t = SumToOdd(n.alpha * x[0], n.beta);  // alpha * x exact in double
    return t <= 0 ? 0.0 : (t >= 1 ? 1.0 : t);
  });
  out.push_back(ElementAlternative(
      "hardSigmoid", "ignores-beta", false, "max(min(alpha * x, 1), 0): beta dropped",
      [](const double* x, const NodeInfo& n) {
        const double t = n.alpha * x[0];
        return t <= 0 ? 0.0 : (t >= 1 ? 1.0 : t);
      },
      [](const NodeInfo& n) { return n.beta != 0; }));

  AddDecompositions(
      out, "hardSwish", "x * max(0, min(6, x + 3)) / 6",
      [](const Arith& a, const double* x, const NodeInfo&) {
        return a.Div(a.Mul(x[0], Relu6(a.Add(x[0], 3))), 6);
      },
      true);
  out.push_back(ArithAlternative(
      "hardSwish", "times-one-sixth",
      "x * max(0, min(6, x + 3)) * (1/6 rounded), each step in the operand type",
      [](const Arith& a, const double* x, const NodeInfo&) {
        return a.Mul(a.Mul(x[0], Relu6(a.Add(x[0], 3))), a.R(1.0 / 6));
      },
      ArithPlan::kOperandType));
  AddCommonMutants(out, "hardSwish",
                   [](const double* x, const NodeInfo&) { return ExactHardSwish(x[0]); });
  out.push_back(ElementAlternative(
      "hardSwish", "div8", false, "x * max(0, min(6, x + 3)) / 8: divided by 8 instead of 6",
      [](const double* x, const NodeInfo&) { return x[0] * Relu6(x[0] + 3) / 8; }));
  out.push_back(ElementAlternative(
      "hardSwish", "no-shift", false, "x * max(0, min(6, x)) / 6: the + 3 dropped",
      [](const double* x, const NodeInfo&) { return x[0] * Relu6(x[0]) / 6; }));
}

void AddRelus(std::vector<Alternative>& out) {
  // leakyRelu's slope is alpha; prelu's is its second input.
  const auto slope = [](const double* x, const NodeInfo& n) {
    return n.values.size() > 1 ? x[1] : n.alpha;
  };
  for (const char* op : {"leakyRelu", "prelu"}) {
    AddCommonMutants(out, op, [slope](const double* x, const NodeInfo& n) {
      return x[0] > 0 ? x[0] : slope(x, n) * x[0];  // exact in double
    });
    out.push_back(ElementAlternative(
        op, "slope-on-positive", false, "x for x < 0 and slope * x for x > 0: the wrong side",
        [slope](const double* x, const NodeInfo& n) {
          return x[0] > 0 ? slope(x, n) * x[0] : x[0];
        },
        [](const NodeInfo& n) {
          if (n.values.size() < 2) return n.alpha != 1;
          for (double s : n.values[1]) {
            if (s != 1) return true;
          }
          return false;
        }));
  }
  out.push_back(FlushF16Subnormals("relu"));
}

void AddSigmoidSoftplusSoftsign(std::vector<Alternative>& out) {
  AddDecompositions(
      out, "sigmoid", "1 / (exp(-x) + 1)",
      [](const Arith& a, const double* x, const NodeInfo&) {
        return a.Div(1, a.Add(a.Exp(-x[0]), 1));
      },
      true);
  AddCommonMutants(out, "sigmoid",
                   [](const double* x, const NodeInfo&) { return ExactSigmoid(x[0]); });
  out.push_back(
      ElementAlternative("sigmoid", "negated", false, "1 / (1 + exp(x)): sigmoid of -x",
                         [](const double* x, const NodeInfo&) { return ExactSigmoid(-x[0]); }));

  AddDecompositions(
      out, "softplus", "log(exp(x) + 1) (x where exp(x) overflows)",
      [](const Arith& a, const double* x, const NodeInfo&) {
        const double e = a.Exp(x[0]);
        if (std::isinf(e) && !std::isinf(x[0])) return x[0];
        return a.Log(a.Add(e, 1));
      },
      true);
  AddCommonMutants(out, "softplus",
                   [](const double* x, const NodeInfo&) { return ExactSoftplus(x[0]); });
  out.push_back(ArithAlternative(
      "softplus", "overflow", "",
      [](const Arith& a, const double* x, const NodeInfo&) { return a.Log(a.Add(a.Exp(x[0]), 1)); },
      ArithPlan::kOperandType));
  out.back().legitimate = false;
  out.back().what =
      "log(exp(x) + 1) in the operand type without the overflow guard: +Infinity for large x";

  AddDecompositions(
      out, "softsign", "x / (1 + |x|)",
      [](const Arith& a, const double* x, const NodeInfo&) {
        return a.Div(x[0], a.Add(1, std::fabs(x[0])));
      },
      true);
  AddCommonMutants(out, "softsign",
                   [](const double* x, const NodeInfo&) { return x[0] / (1 + std::fabs(x[0])); });
  out.push_back(
      ElementAlternative("softsign", "no-abs", false, "x / (1 + x): the absolute value dropped",
                         [](const double* x, const NodeInfo&) { return x[0] / (1 + x[0]); }));
}

}  // namespace

void AddActivationAlternatives(std::vector<Alternative>& out) {
  AddElu(out);
  AddGelu(out);
  AddHardSigmoidSwish(out);
  AddRelus(out);
  AddSigmoidSoftplusSoftsign(out);
}

}  // namespace nnref::elementwise_variants
