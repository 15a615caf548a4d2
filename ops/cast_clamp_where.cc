#include "ops/cast_clamp_where.h"

#include "ops/elementwise.h"

namespace nnref {

// §tensor-limits-cast
const OpLimits kCastLimits = {{{"input", DataTypeSet::All(), "", 0, kMaxRankAny},
                               {"output", DataTypeSet::All(), "", 0, kMaxRankAny}}};
// §tensor-limits-clamp
const OpLimits kClampLimits = {
    {{"input", DataTypeSet::All(), "", 0, kMaxRankAny}, {"output", {}, "input", 0, kMaxRankAny}}};
// §tensor-limits-where
const OpLimits kWhereLimits = {{{"condition", {DataType::kUint8}, "", 0, kMaxRankAny},
                                {"trueValue", DataTypeSet::All(), "", 0, kMaxRankAny},
                                {"falseValue", {}, "trueValue", 0, kMaxRankAny},
                                {"output", {}, "trueValue", 0, kMaxRankAny}}};

namespace {

// The cast() element table (numerics/cast.h); out-of-range float -> int elements are marked
// implementation-defined.
class CastKernel final : public Kernel {
 public:
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    return {DispatchDataType(in[0]->data.dtype(), [&]<typename From>() {
      return DispatchDataType(out[0].dataType, [&]<typename To>() {
        return MapElements<To, From>(out[0], {in[0]}, [](From x, Latitude& la) {
          const CastResult<To> r = CastElement<To, From>(x);
          if (r.implementation_defined) la = Latitude::kAny;
          return r.value;
        });
      });
    })};
  }
};

// The spec's emulation, min(max(x, lo), hi), with nnref's max/min (elementwise_binary.cc): a NaN
// input stays NaN and is marked implementation-defined (the spec gives max/min no NaN rule);
// between equal zeros max prefers +0 and min prefers -0, so clamp(-0, min 0) is +0.
class ClampKernel final : public Kernel {
 public:
  ClampKernel(Tensor lo, Tensor hi) : lo_(std::move(lo)), hi_(std::move(hi)) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    return {DispatchDataType(out[0].dataType, [&]<typename T>() {
      const T lo = *lo_.base<T>(), hi = *hi_.base<T>();
      return MapElements<T, T>(out[0], {in[0]}, [lo, hi](T x, Latitude& la) {
        const auto v = Widen(x);
        if constexpr (kIsFloatStorage<T>) {
          if (std::isnan(v)) {
            la = Latitude::kAny;
            return x;
          }
        }
        T r = x;
        const auto l = Widen(lo), h = Widen(hi);
        if constexpr (kIsFloatStorage<T>) {
          if (std::isnan(l) || std::isnan(h)) {  // max/min with a NaN bound: NaN, marked
            la = Latitude::kAny;
            return std::isnan(l) ? lo : hi;
          }
        }
        if (v < l || (v == l && IsNegativeZero(v) && !IsNegativeZero(l))) r = lo;  // max(x, lo)
        const auto rv = Widen(r);
        if (rv > h || (rv == h && !IsNegativeZero(rv) && IsNegativeZero(h))) r = hi;  // min(., hi)
        return r;
      });
    })};
  }

 private:
  template <typename A>
  static bool IsNegativeZero(A v) {
    if constexpr (std::is_floating_point_v<A>) {
      return v == 0 && std::signbit(v);
    } else {
      return false;
    }
  }
  Tensor lo_, hi_;  // scalar bounds already cast to the input type
};

// Input latitude (including the condition's) carries over element-wise.
class WhereKernel final : public Kernel {
 public:
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    return {DispatchDataType(out[0].dataType, [&]<typename T>() {
      return MapElements<T, uint8_t, T, T>(
          out[0], {in[0], in[1], in[2]},
          [](uint8_t c, T t, T f, Latitude&) { return c != 0 ? t : f; });
    })};
  }
};

}  // namespace

Operand Cast(GraphBuilder& builder, const Operand& input, DataType type,
             const MLOperatorOptions& options) {
  const std::string name = OperatorDisplayName("cast", options);
  builder.CheckCanBuild(name);                                             // step 1
  builder.ValidateOperand(name, "input", input);                           // step 2
  CheckDataType(name, "output", type, kCastLimits.Find("output")->types);  // step 3
  const OperandDescriptor& d = builder.Desc(input);
  OperatorNode node{
      OpId::cast,           options.label, {input.id}, {}, std::make_shared<CastKernel>(),
      {OpId::cast, type, 0}};
  return builder.AddOperator(std::move(node), {{type, d.shape}})[0];  // step 4
}

Operand Clamp(GraphBuilder& builder, const Operand& input, const MLClampOptions& options) {
  const std::string name = OperatorDisplayName("clamp", options);
  builder.CheckCanBuild(name);                    // step 1
  builder.ValidateOperand(name, "input", input);  // step 2
  const OperandDescriptor& d = builder.Desc(input);
  // Steps 3-6. The text defaults minValue to Infinity and maxValue to -Infinity, which would make
  // step 7 reject every call without options; the intended defaults are -Infinity / +Infinity
  // (docs/deviations.md).
  const MLNumber min = options.minValue.value_or(MLNumber::FromDouble(-kInfinity));
  const MLNumber max = options.maxValue.value_or(MLNumber::FromDouble(kInfinity));
  Tensor lo = Tensor::Allocate(d.dataType, {});
  Tensor hi = Tensor::Allocate(d.dataType, {});
  const bool inverted = DispatchDataType(d.dataType, [&]<typename T>() {
    *lo.base<T>() = CastNumber<T>(min);
    *hi.base<T>() = CastNumber<T>(max);
    return GreaterThan(*lo.base<T>(), *hi.base<T>());
  });
  if (inverted) {  // step 7
    ThrowTypeError(name + ": minValue is greater than maxValue after casting to " +
                   std::string(DataTypeName(d.dataType)));
  }
  OperatorNode node{OpId::clamp,
                    options.label,
                    {input.id},
                    {},
                    std::make_shared<ClampKernel>(lo, hi),
                    {OpId::clamp, d.dataType, 0}};
  auto attributes = std::make_shared<ClampAttributes>();
  attributes->min = std::move(lo);
  attributes->max = std::move(hi);
  node.attributes = std::move(attributes);
  return builder.AddOperator(std::move(node), {d})[0];  // step 8
}

Operand Where(GraphBuilder& builder, const Operand& condition, const Operand& true_value,
              const Operand& false_value, const MLOperatorOptions& options) {
  const std::string name = OperatorDisplayName("where", options);
  builder.CheckCanBuild(name);                            // step 1
  builder.ValidateOperand(name, "condition", condition);  // step 2
  builder.ValidateOperand(name, "trueValue", true_value);
  builder.ValidateOperand(name, "falseValue", false_value);
  const OperandDescriptor& c = builder.Desc(condition);
  const OperandDescriptor& t = builder.Desc(true_value);
  const OperandDescriptor& f = builder.Desc(false_value);
  CheckDataType(name, "condition", c.dataType, kWhereLimits.Find("condition")->types);  // 3
  if (t.dataType != f.dataType) {
    ThrowTypeError(name + ": trueValue is " + std::string(DataTypeName(t.dataType)) +
                   " but falseValue is " + std::string(DataTypeName(f.dataType)));
  }
  Shape shape = BroadcastOrThrow(name, t.shape, f.shape);  // step 4
  shape = BroadcastOrThrow(name, c.shape, shape);          // step 5
  OperatorNode node{OpId::where,
                    options.label,
                    {condition.id, true_value.id, false_value.id},
                    {},
                    std::make_shared<WhereKernel>(),
                    {OpId::where, t.dataType, 0}};
  return builder.AddOperator(std::move(node), {{t.dataType, shape}})[0];  // steps 6-7
}

std::vector<Operand> CallCast(OpCall& call) {
  call.ExpectAtMost(3);
  const Operand input = call.GetOperand(0, "input");
  const DataType type = call.GetDataType(1, "type");
  return {Cast(call.builder(), input, type, call.GetOperatorOptions(call.GetOptions(2)))};
}

std::vector<Operand> CallClamp(OpCall& call) {
  call.ExpectAtMost(2);
  const Operand input = call.GetOperand(0, "input");
  const Value& o = call.GetOptions(1);
  MLClampOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  options.minValue = call.GetNumberOption(o, "minValue");
  options.maxValue = call.GetNumberOption(o, "maxValue");
  return {Clamp(call.builder(), input, options)};
}

std::vector<Operand> CallWhere(OpCall& call) {
  call.ExpectAtMost(4);
  const Operand c = call.GetOperand(0, "condition");
  const Operand t = call.GetOperand(1, "trueValue");
  const Operand f = call.GetOperand(2, "falseValue");
  return {Where(call.builder(), c, t, f, call.GetOperatorOptions(call.GetOptions(3)))};
}

}  // namespace nnref
