// WebNN §api-mlgraphbuilder-unary.
//
// Numerics. Float types widen exactly to double; the function is evaluated by glibc's double libm
// (sin, cos, tan, exp, log, erf) or exactly / correctly rounded (abs, neg, ceil, floor, roundEven,
// sqrt, reciprocal's division) and rounded once to the output type. The libm results go through
// Ziv's rounding test (ops/correctly_rounded.h: relative bound 2^-44, a __float128 re-evaluation
// where the double lies too close to a rounding boundary), so every result is correctly rounded.
// sign: 1 if > 0, -1 if < 0, 0 otherwise; for NaN the prose gives 0, other frameworks give NaN, so
// a NaN element is marked "value or NaN" (spec-notes #10).
// Integer abs/neg of the most negative value wrap (two's complement) and are marked
// implementation-defined.
#include "ops/elementwise_unary.h"

#include "ops/correctly_rounded.h"
#include "ops/elementwise.h"

namespace nnref {

OpId UnaryOpId(UnaryOp op) {
  switch (op) {
    case UnaryOp::kAbs:
      return OpId::abs;
    case UnaryOp::kCeil:
      return OpId::ceil;
    case UnaryOp::kCos:
      return OpId::cos;
    case UnaryOp::kErf:
      return OpId::erf;
    case UnaryOp::kExp:
      return OpId::exp;
    case UnaryOp::kFloor:
      return OpId::floor;
    case UnaryOp::kIdentity:
      return OpId::identity;
    case UnaryOp::kLog:
      return OpId::log;
    case UnaryOp::kNeg:
      return OpId::neg;
    case UnaryOp::kReciprocal:
      return OpId::reciprocal;
    case UnaryOp::kRoundEven:
      return OpId::roundEven;
    case UnaryOp::kSin:
      return OpId::sin;
    case UnaryOp::kSign:
      return OpId::sign;
    case UnaryOp::kSqrt:
      return OpId::sqrt;
    case UnaryOp::kTan:
      return OpId::tan;
  }
  return OpId::abs;  // unreachable: every op is listed
}

namespace {

// The allowedDataTypes lists the method steps pass (identity passes none: any type).
constexpr DataTypeSet kSignedTypes{DataType::kFloat32, DataType::kFloat16, DataType::kInt64,
                                   DataType::kInt32, DataType::kInt8};
const OpLimits kSignedLimits = {
    {{"input", kSignedTypes, "", 0, kMaxRankAny}, {"output", {}, "input", 0, kMaxRankAny}}};
const OpLimits kFloatLimits = {
    {{"input", kFloatTypes, "", 0, kMaxRankAny}, {"output", {}, "input", 0, kMaxRankAny}}};
const OpLimits kAnyLimits = {
    {{"input", DataTypeSet::All(), "", 0, kMaxRankAny}, {"output", {}, "input", 0, kMaxRankAny}}};

// Always inlined: the kernel calls it with a constant op per instantiation (below), so the switch
// folds away and each operator's loop holds only its own function.
template <typename T>
[[gnu::always_inline]] inline T ApplyUnary(UnaryOp op, T x, Latitude& la) {
  if constexpr (kIsFloatStorage<T>) {
    const double a = ToDouble(x);
    switch (op) {
      case UnaryOp::kAbs:
        return RoundTo<T>(std::fabs(a));
      case UnaryOp::kCeil:
        return RoundTo<T>(std::ceil(a));
      case UnaryOp::kCos:
        return RoundCorrectly<T>(CrFunction::kCos, std::cos(a), kLibmRel, a);
      case UnaryOp::kErf:
        return RoundCorrectly<T>(CrFunction::kErf, std::erf(a), kLibmRel, a);
      case UnaryOp::kExp:
        return RoundCorrectly<T>(CrFunction::kExp, std::exp(a), kLibmRel, a);
      case UnaryOp::kFloor:
        return RoundTo<T>(std::floor(a));
      case UnaryOp::kIdentity:
        return x;
      case UnaryOp::kLog:
        return RoundCorrectly<T>(CrFunction::kLog, std::log(a), kLibmRel, a);
      case UnaryOp::kNeg:
        return RoundTo<T>(-a);
      case UnaryOp::kReciprocal:
        return RoundTo<T>(1.0 / a);
      case UnaryOp::kRoundEven:
        return RoundTo<T>(std::nearbyint(a));  // FE_TONEAREST: ties even
      case UnaryOp::kSin:
        return RoundCorrectly<T>(CrFunction::kSin, std::sin(a), kLibmRel, a);
      case UnaryOp::kSign:
        if (std::isnan(a)) {
          la = Latitude::kValueOrNaN;
          return RoundTo<T>(0.0);
        }
        return RoundTo<T>(a > 0 ? 1.0 : (a < 0 ? -1.0 : 0.0));
      case UnaryOp::kSqrt:
        return RoundTo<T>(std::sqrt(a));
      case UnaryOp::kTan:
        return RoundCorrectly<T>(CrFunction::kTan, std::tan(a), kLibmRel, a);
    }
    return x;
  } else {
    switch (op) {
      case UnaryOp::kAbs:
      case UnaryOp::kNeg:
        if constexpr (std::is_signed_v<T>) {
          if (x == std::numeric_limits<T>::min()) {
            la = Latitude::kAny;  // -INT_MIN overflows; two's complement gives INT_MIN
            return x;
          }
          if (op == UnaryOp::kNeg || x < 0) return static_cast<T>(-x);
        }
        return x;
      case UnaryOp::kSign:
        if constexpr (std::is_signed_v<T>) {
          return static_cast<T>(x > 0 ? 1 : (x < 0 ? -1 : 0));
        }
        return static_cast<T>(x > 0 ? 1 : 0);
      default:  // identity (the others do not accept integer types)
        return x;
    }
  }
}

// Calls fn.template operator()<K>() with the float operator K equal to op (the operators whose
// float loops benefit from a constant op); other ops and integer types take the runtime switch.
template <typename Fn>
auto DispatchFloatUnary(UnaryOp op, Fn&& fn) {
  switch (op) {
    case UnaryOp::kCos:
      return fn.template operator()<UnaryOp::kCos>();
    case UnaryOp::kErf:
      return fn.template operator()<UnaryOp::kErf>();
    case UnaryOp::kExp:
      return fn.template operator()<UnaryOp::kExp>();
    case UnaryOp::kLog:
      return fn.template operator()<UnaryOp::kLog>();
    case UnaryOp::kSin:
      return fn.template operator()<UnaryOp::kSin>();
    case UnaryOp::kTan:
      return fn.template operator()<UnaryOp::kTan>();
    default:
      return fn.template operator()<UnaryOp::kIdentity>();  // "not constant": see Compute
  }
}

class UnaryKernel final : public Kernel {
 public:
  explicit UnaryKernel(UnaryOp op) : op_(op) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const UnaryOp op = op_;
    return {DispatchDataType(out[0].dataType, [&]<typename T>() {
      if constexpr (kIsFloatStorage<T>) {
        return DispatchFloatUnary(op, [&]<UnaryOp K>() {
          if constexpr (K == UnaryOp::kIdentity) {  // the other float ops: runtime switch
            return MapElements<T, T>(out[0], {in[0]},
                                     [op](T x, Latitude& la) { return ApplyUnary(op, x, la); });
          } else {
            return MapElements<T, T>(out[0], {in[0]},
                                     [](T x, Latitude& la) { return ApplyUnary(K, x, la); });
          }
        });
      } else {
        return MapElements<T, T>(out[0], {in[0]},
                                 [op](T x, Latitude& la) { return ApplyUnary(op, x, la); });
      }
    })};
  }

 private:
  UnaryOp op_;
};

}  // namespace

const OpLimits& UnaryLimits(UnaryOp op) {
  switch (op) {
    case UnaryOp::kAbs:
    case UnaryOp::kNeg:
    case UnaryOp::kSign:
      return kSignedLimits;
    case UnaryOp::kIdentity:
      return kAnyLimits;
    default:
      return kFloatLimits;
  }
}

Operand ElementwiseUnary(GraphBuilder& builder, UnaryOp op, const Operand& input,
                         const MLOperatorOptions& options) {
  const std::string name = OperatorDisplayName(UnaryOpId(op), options);
  builder.CheckCanBuild(name);                    // step 2
  builder.ValidateOperand(name, "input", input);  // step 3
  const OperandDescriptor& d = builder.Desc(input);
  CheckDataType(name, "input", d.dataType, UnaryLimits(op).Find("input")->types);  // step 4
  OperatorNode node{UnaryOpId(op),
                    options.label,
                    {input.id},
                    {},
                    std::make_shared<UnaryKernel>(op),
                    {UnaryOpId(op), d.dataType, 0}};
  return builder.AddOperator(std::move(node), {d})[0];  // step 5: copy of the input operand
}

template <UnaryOp K>
std::vector<Operand> CallUnary(OpCall& call) {
  call.ExpectAtMost(2);
  const Operand input = call.GetOperand(0, "input");
  return {ElementwiseUnary(call.builder(), K, input, call.GetOperatorOptions(call.GetOptions(1)))};
}

#define NNREF_INSTANTIATE(K) template std::vector<Operand> CallUnary<UnaryOp::K>(OpCall&);
NNREF_INSTANTIATE(kAbs)
NNREF_INSTANTIATE(kCeil)
NNREF_INSTANTIATE(kCos)
NNREF_INSTANTIATE(kErf)
NNREF_INSTANTIATE(kExp)
NNREF_INSTANTIATE(kFloor)
NNREF_INSTANTIATE(kIdentity)
NNREF_INSTANTIATE(kLog)
NNREF_INSTANTIATE(kNeg)
NNREF_INSTANTIATE(kReciprocal)
NNREF_INSTANTIATE(kRoundEven)
NNREF_INSTANTIATE(kSin)
NNREF_INSTANTIATE(kSign)
NNREF_INSTANTIATE(kSqrt)
NNREF_INSTANTIATE(kTan)
#undef NNREF_INSTANTIATE

}  // namespace nnref
