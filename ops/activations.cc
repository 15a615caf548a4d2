// Activation functions (sections listed in activations.h).
//
// Numerics. Accumulator: double (float32/float16 inputs and the options already cast to the input
// type widen exactly). Each function is evaluated in double in a stable form; exact and
// rounded-to-odd values are rounded once to the output type, the others go through Ziv's
// rounding test with the bound of ops/correctly_rounded.h (a __float128 re-evaluation where the
// double lies too close to a rounding boundary), so every result is correctly rounded:
//  - elu: x for x > 0, else alpha * expm1(x) (expm1 keeps the relative accuracy near 0 that
//    exp(x) - 1 loses). Bound 2^-44.
//  - gelu: 0.5 * x * erfc(-x / sqrt(2)), equal to 0.5 * x * (1 + erf(x / sqrt(2))) but without the
//    cancellation of 1 + erf for negative x (the result keeps its relative accuracy down to
//    underflow). Bound 2^-40 (erfc's conditioning for large -x).
//  - hardSigmoid: alpha * x is exact in double; alpha * x + beta is rounded to double *to odd*
//    (ops/exact_round.h) and clamped to [0, 1], so the result is the correctly rounded exact value.
//  - hardSwish: x for x >= 3, -0 for x <= -3, else x * (x + 3) / 6 in double (bound 2^-50: three
//    roundings); the quad fallback is exact (ops/correctly_rounded.cc).
//  - leakyRelu / prelu: x for x > 0, else alpha * x (exact in double, one rounding).
//  - relu: exact selection; integer inputs exact.
//  - sigmoid: 1 / (1 + exp(-|x|)) on the side where exp cannot overflow (e / (1 + e) for x < 0).
//    Bound 2^-44.
//  - softplus: x + log1p(exp(-x)) for x > 0, log1p(exp(x)) otherwise (no overflow of exp). Bound
//    2^-44.
//  - softsign: x / (1 + |x|) (bound 2^-50: two roundings).  tanh: std::tanh (bound 2^-44).
// Tiny arguments of gelu and hardSwish (0 < |x| < 2^-60, float32 subnormals included): the exact
// value is x/2 plus a positive amount far below one double ulp of x/2, so x/2 rounded to odd
// stands for it. Without this a float32 subnormal x with an odd last bit (x/2 a tie) would round
// to even instead of away from the tie. Likewise elu at tiny negative x: alpha * x plus an amount
// of alpha's sign (found by nnref_certify: elu(alpha=0.3) at x = -0x1.8p-125 is a tie of float32
// subnormals that the exact value misses toward zero).
//
// Open values. NaN inputs of the operators whose formula goes through max/min (relu, leakyRelu,
// prelu, elu, hardSigmoid) give NaN and are marked implementation-defined, as binary max/min are
// (docs/deviations.md). Where the spec's formula yields NaN for a non-NaN input but the function
// has a value (spec-notes #10), nnref writes the mathematical value and marks it value-or-NaN:
// gelu(-Inf) = -0, softsign(±Inf) = ±1, tanh(+Inf) = 1 ((e^2x - 1)/(e^2x + 1) = Inf/Inf),
// hardSwish(-Inf) = -0 (-Inf * 0), and the Inf * 0 / 0 * Inf products of elu/leakyRelu/prelu/
// hardSigmoid when an option cast to float16 overflows to Infinity or alpha/slope is 0.
// Integer prelu: slope * x wraps on overflow and is marked.
#include "ops/activations.h"

#include <cmath>
#include <numbers>

#include "ops/correctly_rounded.h"
#include "ops/elementwise.h"
#include "ops/exact_round.h"

namespace nnref {

namespace {

constexpr DataTypeSet kReluTypes{DataType::kFloat32, DataType::kFloat16, DataType::kInt64,
                                 DataType::kInt32, DataType::kInt8};
constexpr double kTiny = 0x1p-60;

enum class Act : uint8_t {
  kElu,
  kGelu,
  kHardSigmoid,
  kHardSwish,
  kLeakyRelu,
  kRelu,
  kSigmoid,
  kSoftplus,
  kSoftsign,
  kTanh
};

OpId ActId(Act op) {
  switch (op) {
    case Act::kElu:
      return OpId::elu;
    case Act::kGelu:
      return OpId::gelu;
    case Act::kHardSigmoid:
      return OpId::hardSigmoid;
    case Act::kHardSwish:
      return OpId::hardSwish;
    case Act::kLeakyRelu:
      return OpId::leakyRelu;
    case Act::kRelu:
      return OpId::relu;
    case Act::kSigmoid:
      return OpId::sigmoid;
    case Act::kSoftplus:
      return OpId::softplus;
    case Act::kSoftsign:
      return OpId::softsign;
    case Act::kTanh:
      return OpId::tanh;
  }
  return OpId::elu;  // unreachable: every op is listed
}

// The function of ops/correctly_rounded.h behind an activation with a Ziv-tested value.
CrFunction CrOf(Act op) {
  switch (op) {
    case Act::kElu:
      return CrFunction::kElu;
    case Act::kGelu:
      return CrFunction::kGelu;
    case Act::kHardSwish:
      return CrFunction::kHardSwish;
    case Act::kSigmoid:
      return CrFunction::kSigmoid;
    case Act::kSoftplus:
      return CrFunction::kSoftplus;
    case Act::kSoftsign:
      return CrFunction::kSoftsign;
    default:  // kTanh (the others are exact or rounded to odd: rel stays 0)
      return CrFunction::kTanh;
  }
}

// max(0, x) + slope * min(0, x) for a non-NaN x: x for x > 0, +0 for x = ±0, slope * x (exact in
// double) for x < 0. Inf * 0 and 0 * -Inf in the formula get the function's value, marked.
double LeakyValue(double x, double slope, Latitude& la) {
  if (x >= 0) {
    if (!std::isfinite(slope)) la = Latitude::kValueOrNaN;  // slope * 0 is NaN in the formula
    return x > 0 ? x : 0.0;
  }
  const double p = slope * x;
  if (std::isnan(p) && !std::isnan(slope)) {  // 0 * -Inf: the function is 0 for every x < 0
    la = Latitude::kValueOrNaN;
    return 0.0;
  }
  return 0.0 + p;  // max(0, x) is +0: a -0 product gives +0
}

// The value of `op` at x in double. alpha and beta are the options already cast to the input type.
// `rel` stays 0 where one rounding of the value to the output type is the correctly rounded
// result (exact values, values rounded to odd); otherwise it is set to the value's relative error
// bound (ops/correctly_rounded.h), and the kernel applies Ziv's rounding test.
// Always inlined: the kernel calls it with a constant op per instantiation, so the switch folds.
[[gnu::always_inline]] inline double ActivationValue(Act op, double x, double alpha, double beta,
                                                     Latitude& la, double& rel) {
  switch (op) {
    case Act::kElu:
      if (std::isnan(x)) break;
      if (x >= 0) {
        if (std::isinf(alpha)) la = Latitude::kValueOrNaN;  // alpha * (exp(0) - 1) = Inf * 0
        return x > 0 ? x : 0.0;
      }
      // Tiny x: expm1(x) = x + x^2/2 + ..., so the value is alpha * x (exact in double) plus an
      // amount of alpha's sign far below one double ulp of it; rounded to odd it stands for the
      // exact value (see the header). Plain alpha * expm1(x) would round a tie alpha * x to even.
      if (std::fabs(x) < kTiny) return RoundToOdd(alpha * x, alpha);
      rel = kLibmRel;
      return 0.0 + alpha * std::expm1(x);
    case Act::kGelu:
      if (x == -kInfinity) {
        la = Latitude::kValueOrNaN;  // -Inf * 0 in the formula; gelu tends to -0
        return -0.0;
      }
      if (x != 0 && std::fabs(x) < kTiny) return RoundToOdd(0.5 * x, 1.0);  // see the header
      rel = kGeluRel;
      return 0.5 * x * std::erfc(-x / std::numbers::sqrt2);
    case Act::kHardSigmoid: {
      if (std::isnan(x)) break;
      double p = alpha * x;  // exact: both factors have at most 24 significant bits
      if (std::isnan(p)) {   // 0 * ±Inf: alpha * x is 0 for every finite x
        la = Latitude::kValueOrNaN;
        p = 0;
      }
      const double t = SumToOdd(p, beta);
      if (std::isnan(t)) {  // ±Inf + ∓Inf (both options overflowed float16): no value
        la = Latitude::kAny;
        return t;
      }
      return t <= 0 ? 0.0 : (t >= 1 ? 1.0 : t);  // max(min(t, 1), 0); max(-0, 0) is +0
    }
    case Act::kHardSwish:
      if (x == -kInfinity) {
        la = Latitude::kValueOrNaN;  // -Inf * max(0, min(6, -Inf)) = -Inf * 0
        return -0.0;
      }
      if (x >= 3) return x;  // x * 6 / 6, exact
      if (x <= -3) return -0.0;
      if (x != 0 && std::fabs(x) < kTiny) return RoundToOdd(0.5 * x, 1.0);  // see the header
      rel = kRationalRel;
      return x * (x + 3) / 6;  // NaN stays NaN (x multiplies): exact, not marked
    case Act::kLeakyRelu:
      if (std::isnan(x)) break;
      return LeakyValue(x, alpha, la);
    case Act::kRelu:
      if (std::isnan(x)) break;
      return x > 0 ? x : 0.0;
    case Act::kSigmoid:
      rel = kLibmRel;
      if (x >= 0) return 1 / (1 + std::exp(-x));
      {
        const double e = std::exp(x);  // NaN falls through here and stays NaN
        return e / (1 + e);
      }
    case Act::kSoftplus:
      rel = kLibmRel;
      return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
    case Act::kSoftsign:
      if (std::isinf(x)) {
        la = Latitude::kValueOrNaN;  // Inf / Inf in the formula
        return std::copysign(1.0, x);
      }
      rel = kRationalRel;
      return x / (1 + std::fabs(x));
    case Act::kTanh:
      if (x == kInfinity) {
        la = Latitude::kValueOrNaN;  // (e^2x - 1) / (e^2x + 1) = Inf / Inf
        return 1;
      }
      rel = kLibmRel;
      return std::tanh(x);
  }
  // A NaN input of an operator defined through max/min: NaN, marked (no NaN rule for max/min).
  la = Latitude::kAny;
  return x;
}

// Calls fn.template operator()<K>() with the constant K equal to op.
template <typename Fn>
auto DispatchAct(Act op, Fn&& fn) {
  switch (op) {
    case Act::kElu:
      return fn.template operator()<Act::kElu>();
    case Act::kGelu:
      return fn.template operator()<Act::kGelu>();
    case Act::kHardSigmoid:
      return fn.template operator()<Act::kHardSigmoid>();
    case Act::kHardSwish:
      return fn.template operator()<Act::kHardSwish>();
    case Act::kLeakyRelu:
      return fn.template operator()<Act::kLeakyRelu>();
    case Act::kRelu:
      return fn.template operator()<Act::kRelu>();
    case Act::kSigmoid:
      return fn.template operator()<Act::kSigmoid>();
    case Act::kSoftplus:
      return fn.template operator()<Act::kSoftplus>();
    case Act::kSoftsign:
      return fn.template operator()<Act::kSoftsign>();
    case Act::kTanh:
      break;
  }
  return fn.template operator()<Act::kTanh>();
}

class ActivationKernel final : public Kernel {
 public:
  ActivationKernel(Act op, double alpha, double beta) : op_(op), alpha_(alpha), beta_(beta) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    return {DispatchDataType(out[0].dataType, [&]<typename T>() {
      if constexpr (kIsFloatStorage<T>) {
        return DispatchAct(op_, [&]<Act K>() { return Map<T, K>(in, out); });
      } else {
        return MapElements<T, T>(out[0], {in[0]}, [](T x, Latitude&) -> T {
          return x > T{0} ? x : T{0};  // relu is the only activation with integer types
        });
      }
    })};
  }

 private:
  // The float loop of activation K (a constant, so ActivationValue's switch folds away).
  template <typename T, Act K>
  OperandValue Map(std::span<const OperandValue* const> in,
                   std::span<const OperandDescriptor> out) const {
    const double alpha = alpha_, beta = beta_;
    return MapElements<T, T>(out[0], {in[0]}, [alpha, beta](T x, Latitude& la) -> T {
      const double a = ToDouble(x);
      double rel = 0;
      const double r = ActivationValue(K, a, alpha, beta, la, rel);
      if (rel == 0) return RoundTo<T>(r);
      return RoundCorrectly<T>(CrOf(K), r, rel, a, alpha);
    });
  }

  Act op_;
  double alpha_, beta_;
};

class PreluKernel final : public Kernel {
 public:
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    return {DispatchDataType(out[0].dataType, [&]<typename T>() {
      return MapElements<T, T, T>(out[0], {in[0], in[1]}, [](T x, T slope, Latitude& la) -> T {
        if constexpr (kIsFloatStorage<T>) {
          const double a = ToDouble(x);
          if (std::isnan(a)) {
            la = Latitude::kAny;
            return x;
          }
          return RoundTo<T>(LeakyValue(a, ToDouble(slope), la));
        } else {
          if (x >= T{0}) return x;
          T r{};
          if (__builtin_mul_overflow(slope, x, &r)) la = Latitude::kAny;  // wraps
          return r;
        }
      });
    })};
  }
};

// Steps 1-3 shared by every single-input activation. Returns a copy of the input's descriptor.
OperandDescriptor ValidateInput(GraphBuilder& builder, const std::string& name,
                                const Operand& input, const OpLimits& limits) {
  builder.CheckCanBuild(name);                    // step 1
  builder.ValidateOperand(name, "input", input);  // step 2
  const OperandDescriptor d = builder.Desc(input);
  CheckDataType(name, "input", d.dataType, limits.Find("input")->types);  // step 3
  return d;
}

// "Cast" an option to the input's data type (the casting algorithm, as for MLNumber).
double CastOption(DataType type, double v) {
  return DispatchDataType(type, [&]<typename T>() {
    return static_cast<double>(ToDouble(CastNumber<T>(MLNumber::FromDouble(v))));
  });
}

// "Make graph connections": the output is a copy of the input operand.
Operand Connect(GraphBuilder& builder, Act op, const Operand& input, const OperandDescriptor& d,
                const std::string& label, double alpha = 0, double beta = 0) {
  OperatorNode node{ActId(op),
                    label,
                    {input.id},
                    {},
                    std::make_shared<ActivationKernel>(op, alpha, beta),
                    {ActId(op), d.dataType, 0}};
  auto attributes = std::make_shared<ActivationAttributes>();
  attributes->alpha = alpha;
  attributes->beta = beta;
  node.attributes = std::move(attributes);
  return builder.AddOperator(std::move(node), {d})[0];
}

Operand SimpleActivation(GraphBuilder& builder, Act op, const Operand& input,
                         const MLOperatorOptions& options, const OpLimits& limits) {
  const std::string name = OperatorDisplayName(ActId(op), options);
  const OperandDescriptor d = ValidateInput(builder, name, input, limits);  // steps 1-3
  return Connect(builder, op, input, d, options.label);                     // steps 4-5
}

// WebIDL `double` (not unrestricted): NaN and ±Infinity are rejected at conversion.
std::optional<double> FiniteOption(OpCall& call, const Value& o, const char* member) {
  const std::optional<double> v = call.GetDoubleOption(o, member);
  if (v && !std::isfinite(*v)) {
    ThrowTypeError(call.op() + ": options." + member + " is not a finite number");
  }
  return v;
}

template <Operand (*F)(GraphBuilder&, const Operand&, const MLOperatorOptions&)>
std::vector<Operand> CallSimple(OpCall& call) {
  call.ExpectAtMost(2);
  const Operand input = call.GetOperand(0, "input");
  return {F(call.builder(), input, call.GetOperatorOptions(call.GetOptions(1)))};
}

}  // namespace

const OpLimits kFloatActivationLimits = {
    {{"input", kFloatTypes, "", 0, kMaxRankAny}, {"output", {}, "input", 0, kMaxRankAny}}};
const OpLimits kReluLimits = {
    {{"input", kReluTypes, "", 0, kMaxRankAny}, {"output", {}, "input", 0, kMaxRankAny}}};
const OpLimits kPreluLimits = {{{"input", kReluTypes, "", 0, kMaxRankAny},
                                {"slope", {}, "input", 0, kMaxRankAny},
                                {"output", {}, "input", 0, kMaxRankAny}}};

Operand Elu(GraphBuilder& builder, const Operand& input, const MLEluOptions& options) {
  const std::string name = OperatorDisplayName("elu", options);
  const OperandDescriptor d = ValidateInput(builder, name, input, kFloatActivationLimits);  // 1-3
  const double alpha = CastOption(d.dataType, options.alpha);          // step 4
  return Connect(builder, Act::kElu, input, d, options.label, alpha);  // steps 5-6
}

Operand Gelu(GraphBuilder& builder, const Operand& input, const MLOperatorOptions& options) {
  return SimpleActivation(builder, Act::kGelu, input, options, kFloatActivationLimits);
}

Operand HardSigmoid(GraphBuilder& builder, const Operand& input,
                    const MLHardSigmoidOptions& options) {
  const std::string name = OperatorDisplayName("hardSigmoid", options);
  const OperandDescriptor d = ValidateInput(builder, name, input, kFloatActivationLimits);  // 1-3
  const double alpha = CastOption(d.dataType, options.alpha);                        // step 4
  const double beta = CastOption(d.dataType, options.beta);                          // step 5
  return Connect(builder, Act::kHardSigmoid, input, d, options.label, alpha, beta);  // 6-7
}

Operand HardSwish(GraphBuilder& builder, const Operand& input, const MLOperatorOptions& options) {
  return SimpleActivation(builder, Act::kHardSwish, input, options, kFloatActivationLimits);
}

Operand LeakyRelu(GraphBuilder& builder, const Operand& input, const MLLeakyReluOptions& options) {
  const std::string name = OperatorDisplayName("leakyRelu", options);
  const OperandDescriptor d = ValidateInput(builder, name, input, kFloatActivationLimits);  // 1-3
  const double alpha = CastOption(d.dataType, options.alpha);                // step 4
  return Connect(builder, Act::kLeakyRelu, input, d, options.label, alpha);  // 5-6
}

Operand Prelu(GraphBuilder& builder, const Operand& input, const Operand& slope,
              const MLOperatorOptions& options) {
  const std::string name = OperatorDisplayName("prelu", options);
  builder.CheckCanBuild(name);                    // step 1
  builder.ValidateOperand(name, "input", input);  // step 2
  builder.ValidateOperand(name, "slope", slope);
  const OperandDescriptor di = builder.Desc(input);
  const OperandDescriptor ds = builder.Desc(slope);
  CheckDataType(name, "input", di.dataType, kPreluLimits.Find("input")->types);  // step 3
  if (ds.dataType != di.dataType) {  // slope: "same as input"
    ThrowTypeError(name + ": slope is " + std::string(DataTypeName(ds.dataType)) +
                   " but input is " + std::string(DataTypeName(di.dataType)));
  }
  const Shape shape = BroadcastOrThrow(name, ds.shape, di.shape);  // step 4
  OperatorNode node{OpId::prelu,
                    options.label,
                    {input.id, slope.id},
                    {},
                    std::make_shared<PreluKernel>(),
                    {OpId::prelu, di.dataType, 0}};
  return builder.AddOperator(std::move(node), {{di.dataType, shape}})[0];  // steps 5-7
}

Operand Relu(GraphBuilder& builder, const Operand& input, const MLOperatorOptions& options) {
  return SimpleActivation(builder, Act::kRelu, input, options, kReluLimits);
}

Operand Sigmoid(GraphBuilder& builder, const Operand& input, const MLOperatorOptions& options) {
  return SimpleActivation(builder, Act::kSigmoid, input, options, kFloatActivationLimits);
}

Operand Softplus(GraphBuilder& builder, const Operand& input, const MLOperatorOptions& options) {
  return SimpleActivation(builder, Act::kSoftplus, input, options, kFloatActivationLimits);
}

Operand Softsign(GraphBuilder& builder, const Operand& input, const MLOperatorOptions& options) {
  return SimpleActivation(builder, Act::kSoftsign, input, options, kFloatActivationLimits);
}

Operand Tanh(GraphBuilder& builder, const Operand& input, const MLOperatorOptions& options) {
  return SimpleActivation(builder, Act::kTanh, input, options, kFloatActivationLimits);
}

std::vector<Operand> CallElu(OpCall& call) {
  call.ExpectAtMost(2);
  const Operand input = call.GetOperand(0, "input");
  const Value& o = call.GetOptions(1);
  MLEluOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  if (auto v = FiniteOption(call, o, "alpha")) options.alpha = *v;
  return {Elu(call.builder(), input, options)};
}

std::vector<Operand> CallHardSigmoid(OpCall& call) {
  call.ExpectAtMost(2);
  const Operand input = call.GetOperand(0, "input");
  const Value& o = call.GetOptions(1);
  MLHardSigmoidOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  if (auto v = FiniteOption(call, o, "alpha")) options.alpha = *v;
  if (auto v = FiniteOption(call, o, "beta")) options.beta = *v;
  return {HardSigmoid(call.builder(), input, options)};
}

std::vector<Operand> CallLeakyRelu(OpCall& call) {
  call.ExpectAtMost(2);
  const Operand input = call.GetOperand(0, "input");
  const Value& o = call.GetOptions(1);
  MLLeakyReluOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  if (auto v = FiniteOption(call, o, "alpha")) options.alpha = *v;
  return {LeakyRelu(call.builder(), input, options)};
}

std::vector<Operand> CallPrelu(OpCall& call) {
  call.ExpectAtMost(3);
  const Operand input = call.GetOperand(0, "input");
  const Operand slope = call.GetOperand(1, "slope");
  return {Prelu(call.builder(), input, slope, call.GetOperatorOptions(call.GetOptions(2)))};
}

std::vector<Operand> CallGelu(OpCall& call) { return CallSimple<Gelu>(call); }
std::vector<Operand> CallHardSwish(OpCall& call) { return CallSimple<HardSwish>(call); }
std::vector<Operand> CallRelu(OpCall& call) { return CallSimple<Relu>(call); }
std::vector<Operand> CallSigmoid(OpCall& call) { return CallSimple<Sigmoid>(call); }
std::vector<Operand> CallSoftplus(OpCall& call) { return CallSimple<Softplus>(call); }
std::vector<Operand> CallSoftsign(OpCall& call) { return CallSimple<Softsign>(call); }
std::vector<Operand> CallTanh(OpCall& call) { return CallSimple<Tanh>(call); }

}  // namespace nnref
