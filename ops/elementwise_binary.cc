// WebNN §api-mlgraphbuilder-binary.
//
// Numerics. Float types: both operands widen exactly to double, the operation is evaluated in
// double and rounded once to the output type. For + - * / double holds at least 2p+2 bits of a
// float32/float16 result, so this equals the correctly rounded result; pow uses glibc's pow.
// Integer types (the spec says only that div truncates toward zero):
//  - add/sub/mul wrap modulo 2^N on overflow; the element is marked implementation-defined.
//  - div by zero and INT_MIN / -1 are implementation-defined (value 0 / INT_MIN).
//  - pow with a non-negative exponent is exact (wrapping, marked, on overflow); with a negative
//    exponent it is implementation-defined except for bases 1 and -1 (value: trunc of the exact
//    result, 0 for base 0).
// pow(+-1, +-Infinity) and pow(1, NaN) are 1 (C/IEEE 754) and marked value-or-NaN, since
// JavaScript's Math.pow gives NaN there and the spec is silent (docs/deviations.md).
// max/min: NaN-propagating (the spec gives no NaN rule, so a NaN-input element is marked
// implementation-defined); max(-0, +0) = +0 and min(-0, +0) = -0.
#include "ops/elementwise_binary.h"

#include "ops/elementwise.h"

namespace nnref {

OpId BinaryOpId(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return OpId::add;
    case BinaryOp::kSub:
      return OpId::sub;
    case BinaryOp::kMul:
      return OpId::mul;
    case BinaryOp::kDiv:
      return OpId::div;
    case BinaryOp::kMax:
      return OpId::max;
    case BinaryOp::kMin:
      return OpId::min;
    case BinaryOp::kPow:
      return OpId::pow;
  }
  return OpId::add;  // unreachable: every op is listed
}

// §tensor-limits-elementwise-binary
const OpLimits kBinaryLimits = {{
    {"a", DataTypeSet::All(), "", 0, kMaxRankAny},
    {"b", {}, "a", 0, kMaxRankAny},
    {"output", {}, "a", 0, kMaxRankAny},
}};

namespace {

template <typename T>
T IntPow(T base, T exp, Latitude& la) {
  if constexpr (std::is_signed_v<T>) {
    if (exp < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exp % 2 == 0) ? T{1} : T{-1};
      la = Latitude::kAny;
      return 0;
    }
  }
  T result = 1;
  T b = base;
  auto e = static_cast<std::make_unsigned_t<T>>(exp);
  bool overflow = false;
  while (e != 0) {
    if (e & 1u) overflow |= __builtin_mul_overflow(result, b, &result);
    e >>= 1;
    if (e != 0) overflow |= __builtin_mul_overflow(b, b, &b);
  }
  if (overflow) la = Latitude::kAny;
  return result;
}

template <typename T>
[[gnu::always_inline]] inline T ApplyBinary(BinaryOp op, T x, T y, Latitude& la) {
  if constexpr (kIsFloatStorage<T>) {
    const double a = ToDouble(x), b = ToDouble(y);
    switch (op) {
      case BinaryOp::kAdd:
        return RoundTo<T>(a + b);
      case BinaryOp::kSub:
        return RoundTo<T>(a - b);
      case BinaryOp::kMul:
        return RoundTo<T>(a * b);
      case BinaryOp::kDiv:
        return RoundTo<T>(a / b);
      case BinaryOp::kPow:
        // pow(+-1, +-Infinity) and pow(1, NaN): the spec is silent; C/IEEE 754 pow gives 1 and
        // JavaScript's Math.pow NaN, and implementations use both: 1, marked value-or-NaN.
        if ((a == 1.0 && std::isnan(b)) || (std::fabs(a) == 1.0 && std::isinf(b))) {
          la = Latitude::kValueOrNaN;
        }
        return RoundTo<T>(std::pow(a, b));
      case BinaryOp::kMax:
      case BinaryOp::kMin: {
        if (std::isnan(a) || std::isnan(b)) {
          la = Latitude::kAny;
          return std::isnan(a) ? x : y;
        }
        const bool want_max = op == BinaryOp::kMax;
        if (a == b) return (std::signbit(a) == want_max) ? y : x;  // +0 beats -0 for max
        return ((a > b) == want_max) ? x : y;
      }
    }
    return x;
  } else {
    T r{};
    switch (op) {
      case BinaryOp::kAdd:
        if (__builtin_add_overflow(x, y, &r)) la = Latitude::kAny;
        return r;
      case BinaryOp::kSub:
        if (__builtin_sub_overflow(x, y, &r)) la = Latitude::kAny;
        return r;
      case BinaryOp::kMul:
        if (__builtin_mul_overflow(x, y, &r)) la = Latitude::kAny;
        return r;
      case BinaryOp::kDiv:
        if (y == 0) {
          la = Latitude::kAny;
          return 0;
        }
        if constexpr (std::is_signed_v<T>) {
          if (x == std::numeric_limits<T>::min() && y == T{-1}) {
            la = Latitude::kAny;
            return x;
          }
        }
        return static_cast<T>(x / y);  // C++ integer division truncates toward zero
      case BinaryOp::kMax:
        return x > y ? x : y;
      case BinaryOp::kMin:
        return x < y ? x : y;
      case BinaryOp::kPow:
        return IntPow(x, y, la);
    }
    return r;
  }
}

class BinaryKernel final : public Kernel {
 public:
  explicit BinaryKernel(BinaryOp op) : op_(op) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    // The operator is fixed once per call (a template constant), not switched on per element.
    const auto run = [&]<BinaryOp kOp>() {
      return DispatchDataType(out[0].dataType, [&]<typename T>() {
        return MapElements<T, T, T>(out[0], {in[0], in[1]}, [](T x, T y, Latitude& la) {
          return ApplyBinary(kOp, x, y, la);
        });
      });
    };
    switch (op_) {
      case BinaryOp::kAdd:
        return {run.template operator()<BinaryOp::kAdd>()};
      case BinaryOp::kSub:
        return {run.template operator()<BinaryOp::kSub>()};
      case BinaryOp::kMul:
        return {run.template operator()<BinaryOp::kMul>()};
      case BinaryOp::kDiv:
        return {run.template operator()<BinaryOp::kDiv>()};
      case BinaryOp::kMax:
        return {run.template operator()<BinaryOp::kMax>()};
      case BinaryOp::kMin:
        return {run.template operator()<BinaryOp::kMin>()};
      case BinaryOp::kPow:
        return {run.template operator()<BinaryOp::kPow>()};
    }
    return {run.template operator()<BinaryOp::kPow>()};  // unreachable: every op is listed
  }

 private:
  BinaryOp op_;
};

}  // namespace

Operand ElementwiseBinary(GraphBuilder& builder, BinaryOp op, const Operand& a, const Operand& b,
                          const MLOperatorOptions& options) {
  const std::string name = OperatorDisplayName(BinaryOpId(op), options);
  builder.CheckCanBuild(name);            // step 2
  builder.ValidateOperand(name, "a", a);  // step 3
  builder.ValidateOperand(name, "b", b);
  const OperandDescriptor& da = builder.Desc(a);
  const OperandDescriptor& db = builder.Desc(b);
  if (da.dataType != db.dataType) {  // step 4
    ThrowTypeError(name + ": a is " + std::string(DataTypeName(da.dataType)) + " but b is " +
                   std::string(DataTypeName(db.dataType)));
  }
  const Shape shape = BroadcastOrThrow(name, da.shape, db.shape);  // step 5
  OperatorNode node{BinaryOpId(op),
                    options.label,
                    {a.id, b.id},
                    {},
                    std::make_shared<BinaryKernel>(op),
                    {BinaryOpId(op), da.dataType, 0}};
  return builder.AddOperator(std::move(node), {{da.dataType, shape}})[0];  // steps 6-8
}

template <BinaryOp K>
std::vector<Operand> CallBinary(OpCall& call) {
  call.ExpectAtMost(3);
  const Operand a = call.GetOperand(0, "a");
  const Operand b = call.GetOperand(1, "b");
  return {ElementwiseBinary(call.builder(), K, a, b, call.GetOperatorOptions(call.GetOptions(2)))};
}

template std::vector<Operand> CallBinary<BinaryOp::kAdd>(OpCall&);
template std::vector<Operand> CallBinary<BinaryOp::kSub>(OpCall&);
template std::vector<Operand> CallBinary<BinaryOp::kMul>(OpCall&);
template std::vector<Operand> CallBinary<BinaryOp::kDiv>(OpCall&);
template std::vector<Operand> CallBinary<BinaryOp::kMax>(OpCall&);
template std::vector<Operand> CallBinary<BinaryOp::kMin>(OpCall&);
template std::vector<Operand> CallBinary<BinaryOp::kPow>(OpCall&);

}  // namespace nnref
