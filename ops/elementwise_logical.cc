// WebNN §api-mlgraphbuilder-logical. Outputs are uint8 0/1. Comparisons of floats are IEEE
// comparisons of the values (NaN compares unequal to everything, -0 == +0); integers compare
// exactly. Non-zero is true for the logical operators.
#include "ops/elementwise_logical.h"

#include "ops/elementwise.h"

namespace nnref {

OpId LogicalOpId(LogicalOp op) {
  switch (op) {
    case LogicalOp::kEqual:
      return OpId::equal;
    case LogicalOp::kNotEqual:
      return OpId::notEqual;
    case LogicalOp::kGreater:
      return OpId::greater;
    case LogicalOp::kGreaterOrEqual:
      return OpId::greaterOrEqual;
    case LogicalOp::kLesser:
      return OpId::lesser;
    case LogicalOp::kLesserOrEqual:
      return OpId::lesserOrEqual;
    case LogicalOp::kLogicalNot:
      return OpId::logicalNot;
    case LogicalOp::kLogicalAnd:
      return OpId::logicalAnd;
    case LogicalOp::kLogicalOr:
      return OpId::logicalOr;
    case LogicalOp::kLogicalXor:
      return OpId::logicalXor;
    case LogicalOp::kIsNaN:
      return OpId::isNaN;
    case LogicalOp::kIsInfinite:
      return OpId::isInfinite;
  }
  return OpId::equal;  // unreachable: every op is listed
}

bool IsUnaryLogical(LogicalOp op) {
  return op == LogicalOp::kLogicalNot || op == LogicalOp::kIsNaN || op == LogicalOp::kIsInfinite;
}

namespace {

constexpr DataTypeSet kUint8Only{DataType::kUint8};

// §tensor-limits-elementwise-logical-*
const OpLimits kCompareLimits = {{{"a", DataTypeSet::All(), "", 0, kMaxRankAny},
                                  {"b", {}, "a", 0, kMaxRankAny},
                                  {"output", kUint8Only, "", 0, kMaxRankAny}}};
const OpLimits kLogicalNotLimits = {
    {{"a", kUint8Only, "", 0, kMaxRankAny}, {"output", kUint8Only, "", 0, kMaxRankAny}}};
const OpLimits kLogicalBinaryLimits = {{{"a", kUint8Only, "", 0, kMaxRankAny},
                                        {"b", {}, "a", 0, kMaxRankAny},
                                        {"output", kUint8Only, "", 0, kMaxRankAny}}};
// The limits table says "any" for isNaN/isInfinite but the method steps throw for non-float
// types (spec-notes #8); the steps win, and the table here matches them.
const OpLimits kIsNaNLimits = {
    {{"a", kFloatTypes, "", 0, kMaxRankAny}, {"output", kUint8Only, "", 0, kMaxRankAny}}};

template <typename T>
uint8_t Compare(LogicalOp op, T x, T y) {
  const auto a = Widen(x), b = Widen(y);
  switch (op) {
    case LogicalOp::kEqual:
      return a == b;
    case LogicalOp::kNotEqual:
      return !(a == b);
    case LogicalOp::kGreater:
      return a > b;
    case LogicalOp::kGreaterOrEqual:
      return a >= b;
    case LogicalOp::kLesser:
      return a < b;
    case LogicalOp::kLesserOrEqual:
      return a <= b;
    case LogicalOp::kLogicalAnd:
      return a != 0 && b != 0;
    case LogicalOp::kLogicalOr:
      return a != 0 || b != 0;
    case LogicalOp::kLogicalXor:
      return (a != 0) != (b != 0);
    default:
      return 0;
  }
}

template <typename T>
uint8_t Unary(LogicalOp op, T x) {
  const auto a = Widen(x);
  switch (op) {
    case LogicalOp::kLogicalNot:
      return a == 0;
    case LogicalOp::kIsNaN:
      if constexpr (kIsFloatStorage<T>) return std::isnan(a);
      return 0;
    case LogicalOp::kIsInfinite:
      if constexpr (kIsFloatStorage<T>) return std::isinf(a);
      return 0;
    default:
      return 0;
  }
}

class LogicalKernel final : public Kernel {
 public:
  explicit LogicalKernel(LogicalOp op) : op_(op) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const LogicalOp op = op_;
    return {DispatchDataType(in[0]->data.dtype(), [&]<typename T>() {
      if (in.size() == 1) {
        return MapElements<uint8_t, T>(out[0], {in[0]},
                                       [op](T x, Latitude&) { return Unary(op, x); });
      }
      return MapElements<uint8_t, T, T>(out[0], {in[0], in[1]},
                                        [op](T x, T y, Latitude&) { return Compare(op, x, y); });
    })};
  }

 private:
  LogicalOp op_;
};

}  // namespace

const OpLimits& LogicalLimits(LogicalOp op) {
  switch (op) {
    case LogicalOp::kLogicalNot:
      return kLogicalNotLimits;
    case LogicalOp::kLogicalAnd:
    case LogicalOp::kLogicalOr:
    case LogicalOp::kLogicalXor:
      return kLogicalBinaryLimits;
    case LogicalOp::kIsNaN:
    case LogicalOp::kIsInfinite:
      return kIsNaNLimits;
    default:
      return kCompareLimits;
  }
}

Operand ElementwiseLogical(GraphBuilder& builder, LogicalOp op, const Operand& a,
                           const std::optional<Operand>& b, const MLOperatorOptions& options) {
  const std::string name = OperatorDisplayName(LogicalOpId(op), options);
  builder.CheckCanBuild(name);            // step 2
  builder.ValidateOperand(name, "a", a);  // step 3
  const OperandDescriptor& da = builder.Desc(a);
  // Steps 4-5: the logical operators take uint8; isNaN/isInfinite take float types.
  CheckDataType(name, "a", da.dataType, LogicalLimits(op).Find("a")->types);
  Shape shape = da.shape;
  std::vector<OperandId> inputs{a.id};
  if (b) {  // step 6
    builder.ValidateOperand(name, "b", *b);
    const OperandDescriptor& db = builder.Desc(*b);
    if (da.dataType != db.dataType) {
      ThrowTypeError(name + ": a is " + std::string(DataTypeName(da.dataType)) + " but b is " +
                     std::string(DataTypeName(db.dataType)));
    }
    shape = BroadcastOrThrow(name, da.shape, db.shape);
    inputs.push_back(b->id);
  }
  OperatorNode node{LogicalOpId(op),
                    options.label,
                    std::move(inputs),
                    {},
                    std::make_shared<LogicalKernel>(op),
                    {LogicalOpId(op), DataType::kUint8, 0}};
  return builder.AddOperator(std::move(node), {{DataType::kUint8, shape}})[0];  // steps 8-10
}

template <LogicalOp K>
std::vector<Operand> CallLogical(OpCall& call) {
  if constexpr (K == LogicalOp::kLogicalNot || K == LogicalOp::kIsNaN ||
                K == LogicalOp::kIsInfinite) {
    call.ExpectAtMost(2);
    const Operand a = call.GetOperand(0, "a");
    return {ElementwiseLogical(call.builder(), K, a, std::nullopt,
                               call.GetOperatorOptions(call.GetOptions(1)))};
  } else {
    call.ExpectAtMost(3);
    const Operand a = call.GetOperand(0, "a");
    const Operand b = call.GetOperand(1, "b");
    return {
        ElementwiseLogical(call.builder(), K, a, b, call.GetOperatorOptions(call.GetOptions(2)))};
  }
}

template std::vector<Operand> CallLogical<LogicalOp::kEqual>(OpCall&);
template std::vector<Operand> CallLogical<LogicalOp::kNotEqual>(OpCall&);
template std::vector<Operand> CallLogical<LogicalOp::kGreater>(OpCall&);
template std::vector<Operand> CallLogical<LogicalOp::kGreaterOrEqual>(OpCall&);
template std::vector<Operand> CallLogical<LogicalOp::kLesser>(OpCall&);
template std::vector<Operand> CallLogical<LogicalOp::kLesserOrEqual>(OpCall&);
template std::vector<Operand> CallLogical<LogicalOp::kLogicalNot>(OpCall&);
template std::vector<Operand> CallLogical<LogicalOp::kLogicalAnd>(OpCall&);
template std::vector<Operand> CallLogical<LogicalOp::kLogicalOr>(OpCall&);
template std::vector<Operand> CallLogical<LogicalOp::kLogicalXor>(OpCall&);
template std::vector<Operand> CallLogical<LogicalOp::kIsNaN>(OpCall&);
template std::vector<Operand> CallLogical<LogicalOp::kIsInfinite>(OpCall&);

}  // namespace nnref
