// batchNormalization (§api-mlgraphbuilder-batchnorm), instanceNormalization
// (§api-mlgraphbuilder-instancenorm) and layerNormalization (§api-mlgraphbuilder-layernorm).
//
// Numerics. Float types only. Each operator is defined by its emulation,
//   output = scale * ((input - mean) / sqrt(variance + epsilon)) + bias,
// and nnref evaluates that whole composition in double and rounds once to the output type
// (epsilon first cast to the input type, as the method steps say). A missing scale is 1 and a
// missing bias is 0, added as the option descriptions say (so a -0 result becomes +0, as the
// emulation's add of a zero bias would make it).
//  - batchNormalization takes mean and variance as operands (per index of `axis`).
//  - instanceNormalization and layerNormalization compute them per group of reduced elements with
//    two passes over the input in double accumulators: sum -> mean = sum / n, then
//    sum_sq = sum of (x - mean)^2 -> variance = sum_sq / n (the emulation's reduceMean of
//    pow(x - mean, 2), i.e. the population variance).
//  - layerNormalization with empty axes reduces nothing: each element is its own group, so
//    mean = x and variance = 0 and the output is bias (or 0) for every finite x (spec-notes #13).
// The final step, scale * (x - mean) / sqrt(variance + epsilon) + bias from the double values of
// its terms (the operands, or the group's computed mean and variance), is rounded correctly with
// Ziv's test (ops/correctly_rounded.h: RoundNormalization, a __float128 re-evaluation near a
// rounding boundary). The group mean and variance themselves are plain double sums (not
// compensated; docs/numerics.md lists this exception).
// NaN and infinities follow IEEE arithmetic in double: an infinite element makes its group's mean
// infinite and the group's outputs NaN, as the emulation does.
#include "ops/normalization.h"

#include <cmath>

#include "ops/correctly_rounded.h"
#include "ops/elementwise.h"
#include "ops/float_dispatch.h"

namespace nnref {

// §tensor-limits-batchNormalization
const OpLimits kBatchNormalizationLimits = {{{"input", kFloatTypes, "", 1, kMaxRankAny},
                                             {"mean", {}, "input", 1, 1},
                                             {"variance", {}, "input", 1, 1},
                                             {"scale", {}, "input", 1, 1},
                                             {"bias", {}, "input", 1, 1},
                                             {"output", {}, "input", 1, kMaxRankAny}}};
// §tensor-limits-instanceNormalization
const OpLimits kInstanceNormalizationLimits = {{{"input", kFloatTypes, "", 4, 4},
                                                {"scale", {}, "input", 1, 1},
                                                {"bias", {}, "input", 1, 1},
                                                {"output", {}, "input", 4, 4}}};
// §tensor-limits-layerNormalization
const OpLimits kLayerNormalizationLimits = {{{"input", kFloatTypes, "", 0, kMaxRankAny},
                                             {"scale", {}, "input", 0, kMaxRankAny},
                                             {"bias", {}, "input", 0, kMaxRankAny},
                                             {"output", {}, "input", 0, kMaxRankAny}}};

namespace {

std::string TypeName(DataType t) { return std::string(DataTypeName(t)); }

// A "same as input" row of a limits table.
void CheckSameAsInput(const std::string& name, const char* operand, DataType type,
                      DataType input_type) {
  if (type != input_type) {
    ThrowTypeError(name + ": " + operand + " is " + TypeName(type) +
                   " but must have the input's data type (" + TypeName(input_type) + ")");
  }
}

// "If its shape is not equal to « expected »".
void CheckShape1D(const std::string& name, const char* operand, const Shape& shape,
                  uint64_t expected) {
  if (shape != Shape{expected}) {
    ThrowTypeError(name + ": " + operand + " has shape " + ShapeToString(shape) + " but must be [" +
                   std::to_string(expected) + "]");
  }
}

double CastEpsilon(DataType type, double epsilon) {
  return DispatchFloatType(
      type, [&]<typename T>() { return ToDouble(CastNumber<T>(MLNumber::FromDouble(epsilon))); });
}

// A view of `t` over `shape` in which t's axis k runs along axis axes[k] of `shape`, and every
// other axis has stride 0.
Tensor AlongAxes(const Tensor& t, const Shape& shape, const std::vector<size_t>& axes) {
  Strides strides(shape.size(), 0);
  for (size_t k = 0; k < axes.size(); ++k) strides[axes[k]] = t.strides()[k];
  return Tensor(t.dtype(), shape, std::move(strides), t.offset(), t.buffer());
}

// The optional scale/bias operand `index` as a view over `shape`, or a broadcast scalar `fill`.
template <typename T>
Tensor OptionalAlongAxes(std::span<const OperandValue* const> in, int index, const Shape& shape,
                         const std::vector<size_t>& axes, double fill) {
  if (index >= 0) return AlongAxes(in[static_cast<size_t>(index)]->data, shape, axes);
  Tensor scalar = Tensor::Allocate(DataTypeOf<T>(), {});
  *scalar.base<T>() = RoundTo<T>(fill);
  return scalar.BroadcastTo(shape);
}

// Where the optional operands sit among the operator's inputs (-1: absent).
struct OptionalInputs {
  int scale = -1;
  int bias = -1;
};

OptionalInputs AppendOptional(std::vector<OperandId>& inputs, const std::optional<Operand>& scale,
                              const std::optional<Operand>& bias) {
  OptionalInputs where;
  if (scale) {
    where.scale = static_cast<int>(inputs.size());
    inputs.push_back(scale->id);
  }
  if (bias) {
    where.bias = static_cast<int>(inputs.size());
    inputs.push_back(bias->id);
  }
  return where;
}

std::shared_ptr<const NormalizationAttributes> MakeAttributes(std::vector<size_t> reduce_axes,
                                                              std::vector<size_t> param_axes,
                                                              double epsilon,
                                                              OptionalInputs where) {
  auto a = std::make_shared<NormalizationAttributes>();
  a->reduce_axes = std::move(reduce_axes);
  a->param_axes = std::move(param_axes);
  a->epsilon = epsilon;
  a->scale_input = where.scale;
  a->bias_input = where.bias;
  return a;
}

// inputs: input, mean, variance[, scale][, bias]; mean etc. run along `axis`.
class BatchNormalizationKernel final : public Kernel {
 public:
  BatchNormalizationKernel(size_t axis, double epsilon, OptionalInputs where)
      : axis_(axis), epsilon_(epsilon), where_(where) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Shape& shape = out[0].shape;
    const std::vector<size_t> axes{axis_};
    const double epsilon = epsilon_;
    return {DispatchFloatType(out[0].dataType, [&]<typename T>() {
      const Tensor& x = in[0]->data;
      const Tensor mean = AlongAxes(in[1]->data, shape, axes);
      const Tensor variance = AlongAxes(in[2]->data, shape, axes);
      const Tensor scale = OptionalAlongAxes<T>(in, where_.scale, shape, axes, 1.0);
      const Tensor bias = OptionalAlongAxes<T>(in, where_.bias, shape, axes, 0.0);
      OperandValue result{Tensor::Allocate(out[0].dataType, shape), {}};
      const Strides dense = ContiguousStrides(shape);
      T* po = result.data.base<T>();
      const T *px = x.base<T>(), *pm = mean.base<T>(), *pv = variance.base<T>();
      const T *ps = scale.base<T>(), *pb = bias.base<T>();
      const std::array<const Strides*, 6> strides = {&dense,           &x.strides(),
                                                     &mean.strides(),  &variance.strides(),
                                                     &scale.strides(), &bias.strides()};
      // The fast loop; when some element's test did not decide, the careful one (Ziv's test
      // with the quad fallback) runs over every element.
      bool uncertain = false;
      ForEachOffsets<6>(shape, strides, [&](const std::array<int64_t, 6>& off) {
        const double deviation = std::sqrt(ToDouble(pv[off[3]]) + epsilon);
        po[off[0]] =
            RoundNormalizationFast<T>(ToDouble(px[off[1]]), ToDouble(pm[off[2]]), deviation,
                                      ToDouble(ps[off[4]]), ToDouble(pb[off[5]]), uncertain);
      });
      if (uncertain) {
        ForEachOffsets<6>(shape, strides, [&](const std::array<int64_t, 6>& off) {
          const double v = ToDouble(pv[off[3]]);
          po[off[0]] = RoundNormalization<T>(ToDouble(px[off[1]]), ToDouble(pm[off[2]]), v, epsilon,
                                             std::sqrt(v + epsilon), ToDouble(ps[off[4]]),
                                             ToDouble(pb[off[5]]));
        });
      }
      return result;
    })};
  }

 private:
  size_t axis_;
  double epsilon_;
  OptionalInputs where_;
};

// Normalization over `reduce_axes` (ascending) with mean and variance computed per group (each
// position of the remaining axes). Scale and bias run along `param_axes` (scale's axis k is input
// axis param_axes[k]). Serves instanceNormalization and layerNormalization.
class GroupNormalizationKernel final : public Kernel {
 public:
  GroupNormalizationKernel(std::vector<size_t> reduce_axes, std::vector<size_t> param_axes,
                           double epsilon, OptionalInputs where)
      : reduce_axes_(std::move(reduce_axes)),
        param_axes_(std::move(param_axes)),
        epsilon_(epsilon),
        where_(where) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Shape& shape = out[0].shape;
    const double epsilon = epsilon_;
    return {DispatchFloatType(out[0].dataType, [&]<typename T>() {
      const Tensor& x = in[0]->data;
      const Tensor scale = OptionalAlongAxes<T>(in, where_.scale, shape, param_axes_, 1.0);
      const Tensor bias = OptionalAlongAxes<T>(in, where_.bias, shape, param_axes_, 0.0);
      OperandValue result{Tensor::Allocate(out[0].dataType, shape), {}};
      // Split every tensor's geometry into the group axes (outer) and the reduced axes (inner).
      std::vector<bool> reduced(shape.size(), false);
      for (size_t a : reduce_axes_) reduced[a] = true;
      const Strides dense = ContiguousStrides(shape);
      const Strides* all[4] = {&dense, &x.strides(), &scale.strides(), &bias.strides()};
      Shape outer_shape, inner_shape;
      Strides outer[4], inner[4];
      for (size_t a = 0; a < shape.size(); ++a) {
        (reduced[a] ? inner_shape : outer_shape).push_back(shape[a]);
        for (size_t t = 0; t < 4; ++t) (reduced[a] ? inner[t] : outer[t]).push_back((*all[t])[a]);
      }
      const double count = static_cast<double>(ElementCount(inner_shape));  // n per group
      T* po = result.data.base<T>();
      const T *px = x.base<T>(), *ps = scale.base<T>(), *pb = bias.base<T>();
      ForEachOffsets<4>(
          outer_shape, {&outer[0], &outer[1], &outer[2], &outer[3]},
          [&](const std::array<int64_t, 4>& group) {
            double sum = 0;  // first pass: the mean
            ForEachOffsets<1>(inner_shape, {&inner[1]}, [&](const std::array<int64_t, 1>& off) {
              sum += ToDouble(px[group[1] + off[0]]);
            });
            const double mean = sum / count;
            double sum_sq = 0;  // second pass: the variance about that mean
            ForEachOffsets<1>(inner_shape, {&inner[1]}, [&](const std::array<int64_t, 1>& off) {
              const double d = ToDouble(px[group[1] + off[0]]) - mean;
              sum_sq += d * d;
            });
            const double variance = sum_sq / count;
            const double deviation = std::sqrt(variance + epsilon);
            // The fast loop, then the careful one when some element's test did not decide.
            bool uncertain = false;
            ForEachOffsets<4>(inner_shape, {&inner[0], &inner[1], &inner[2], &inner[3]},
                              [&](const std::array<int64_t, 4>& off) {
                                po[group[0] + off[0]] = RoundNormalizationFast<T>(
                                    ToDouble(px[group[1] + off[1]]), mean, deviation,
                                    ToDouble(ps[group[2] + off[2]]),
                                    ToDouble(pb[group[3] + off[3]]), uncertain);
                              });
            if (uncertain) {
              ForEachOffsets<4>(inner_shape, {&inner[0], &inner[1], &inner[2], &inner[3]},
                                [&](const std::array<int64_t, 4>& off) {
                                  po[group[0] + off[0]] = RoundNormalization<T>(
                                      ToDouble(px[group[1] + off[1]]), mean, variance, epsilon,
                                      deviation, ToDouble(ps[group[2] + off[2]]),
                                      ToDouble(pb[group[3] + off[3]]));
                                });
            }
          });
      return result;
    })};
  }

 private:
  std::vector<size_t> reduce_axes_;
  std::vector<size_t> param_axes_;
  double epsilon_;
  OptionalInputs where_;
};

}  // namespace

Operand BatchNormalization(GraphBuilder& builder, const Operand& input, const Operand& mean,
                           const Operand& variance, const MLBatchNormalizationOptions& options) {
  const std::string name = OperatorDisplayName("batchNormalization", options);
  builder.CheckCanBuild(name);                    // step 1
  builder.ValidateOperand(name, "input", input);  // step 2
  builder.ValidateOperand(name, "mean", mean);
  builder.ValidateOperand(name, "variance", variance);
  if (options.scale) builder.ValidateOperand(name, "scale", *options.scale);
  if (options.bias) builder.ValidateOperand(name, "bias", *options.bias);
  const OperandDescriptor& d = builder.Desc(input);
  CheckDataType(name, "input", d.dataType, kBatchNormalizationLimits.Find("input")->types);  // 3
  const size_t rank = d.shape.size();
  if (options.axis >= rank) {  // step 4
    ThrowTypeError(name + ": axis " + std::to_string(options.axis) + " is out of range for rank " +
                   std::to_string(rank));
  }
  const uint64_t features = d.shape[options.axis];
  const OperandDescriptor& dm = builder.Desc(mean);
  CheckSameAsInput(name, "mean", dm.dataType, d.dataType);  // step 5
  CheckShape1D(name, "mean", dm.shape, features);           // step 6
  const OperandDescriptor& dv = builder.Desc(variance);
  CheckSameAsInput(name, "variance", dv.dataType, d.dataType);      // step 7
  CheckShape1D(name, "variance", dv.shape, features);               // step 8
  const double epsilon = CastEpsilon(d.dataType, options.epsilon);  // step 9
  if (options.scale) {                                              // step 10
    const OperandDescriptor& ds = builder.Desc(*options.scale);
    CheckSameAsInput(name, "scale", ds.dataType, d.dataType);
    CheckShape1D(name, "scale", ds.shape, features);
  }
  if (options.bias) {  // step 11
    const OperandDescriptor& db = builder.Desc(*options.bias);
    CheckSameAsInput(name, "bias", db.dataType, d.dataType);
    CheckShape1D(name, "bias", db.shape, features);
  }
  std::vector<OperandId> inputs{input.id, mean.id, variance.id};
  const OptionalInputs where = AppendOptional(inputs, options.scale, options.bias);
  OperatorNode node{OpId::batchNormalization,
                    options.label,
                    std::move(inputs),
                    {},
                    std::make_shared<BatchNormalizationKernel>(options.axis, epsilon, where),
                    {OpId::batchNormalization, d.dataType, 0}};
  node.attributes = MakeAttributes({}, {options.axis}, epsilon, where);
  return builder.AddOperator(std::move(node), {d})[0];  // steps 12-13
}

Operand InstanceNormalization(GraphBuilder& builder, const Operand& input,
                              const MLInstanceNormalizationOptions& options) {
  const std::string name = OperatorDisplayName("instanceNormalization", options);
  builder.CheckCanBuild(name);                    // step 1
  builder.ValidateOperand(name, "input", input);  // step 2
  if (options.scale) builder.ValidateOperand(name, "scale", *options.scale);
  if (options.bias) builder.ValidateOperand(name, "bias", *options.bias);
  const OperandDescriptor& d = builder.Desc(input);
  CheckDataType(name, "input", d.dataType,
                kInstanceNormalizationLimits.Find("input")->types);  // step 3
  if (d.shape.size() != 4) {                                         // step 4
    ThrowTypeError(name + ": input has rank " + std::to_string(d.shape.size()) + "; it must be 4");
  }
  const double epsilon = CastEpsilon(d.dataType, options.epsilon);  // step 5
  const bool nchw = options.layout == MLInputOperandLayout::kNchw;
  const size_t axis = nchw ? 1 : 3;  // step 6
  const uint64_t channels = d.shape[axis];
  if (options.scale) {  // step 7
    const OperandDescriptor& ds = builder.Desc(*options.scale);
    CheckSameAsInput(name, "scale", ds.dataType, d.dataType);
    CheckShape1D(name, "scale", ds.shape, channels);
  }
  if (options.bias) {  // step 8
    const OperandDescriptor& db = builder.Desc(*options.bias);
    CheckSameAsInput(name, "bias", db.dataType, d.dataType);
    CheckShape1D(name, "bias", db.shape, channels);
  }
  std::vector<OperandId> inputs{input.id};
  const OptionalInputs where = AppendOptional(inputs, options.scale, options.bias);
  // Mean and variance per sample and channel, over the spatial axes.
  std::vector<size_t> spatial = nchw ? std::vector<size_t>{2, 3} : std::vector<size_t>{1, 2};
  auto attributes = MakeAttributes(spatial, {axis}, epsilon, where);
  OperatorNode node{OpId::instanceNormalization,
                    options.label,
                    std::move(inputs),
                    {},
                    std::make_shared<GroupNormalizationKernel>(
                        std::move(spatial), std::vector<size_t>{axis}, epsilon, where),
                    {OpId::instanceNormalization, d.dataType, 0}};
  node.attributes = std::move(attributes);
  return builder.AddOperator(std::move(node), {d})[0];  // steps 9-10
}

Operand LayerNormalization(GraphBuilder& builder, const Operand& input,
                           const MLLayerNormalizationOptions& options) {
  const std::string name = OperatorDisplayName("layerNormalization", options);
  builder.CheckCanBuild(name);                    // step 1
  builder.ValidateOperand(name, "input", input);  // step 2
  if (options.scale) builder.ValidateOperand(name, "scale", *options.scale);
  if (options.bias) builder.ValidateOperand(name, "bias", *options.bias);
  const OperandDescriptor& d = builder.Desc(input);
  CheckDataType(name, "input", d.dataType, kLayerNormalizationLimits.Find("input")->types);  // 3
  const size_t rank = d.shape.size();
  std::vector<size_t> axes;
  if (!options.axes) {  // step 4: all axes but the first; none for rank 0 or 1 (spec-notes #13)
    for (size_t a = 1; a < rank; ++a) axes.push_back(a);
  } else {  // step 5
    std::vector<bool> seen(rank, false);
    for (uint32_t a : *options.axes) {
      if (a >= rank) {
        ThrowTypeError(name + ": axes value " + std::to_string(a) + " is out of range for rank " +
                       std::to_string(rank));
      }
      if (seen[a]) ThrowTypeError(name + ": axes contains " + std::to_string(a) + " twice");
      seen[a] = true;
      axes.push_back(a);
    }
  }
  const double epsilon = CastEpsilon(d.dataType, options.epsilon);  // step 6
  const OperandDescriptor* ds = options.scale ? &builder.Desc(*options.scale) : nullptr;
  const OperandDescriptor* db = options.bias ? &builder.Desc(*options.bias) : nullptr;
  for (const auto& [operand, desc] : {std::pair{"scale", ds}, std::pair{"bias", db}}) {
    if (!desc) continue;  // steps 7 (scale) and 8 (bias)
    CheckSameAsInput(name, operand, desc->dataType, d.dataType);
    if (desc->shape.size() != axes.size()) {
      ThrowTypeError(name + ": " + operand + " has rank " + std::to_string(desc->shape.size()) +
                     " but axes has " + std::to_string(axes.size()) + " items");
    }
  }
  for (size_t index = 0; index < axes.size(); ++index) {  // step 9
    const size_t axis = axes[index];                      // 9.1; 9.2 was checked in step 5
    const uint64_t size = d.shape[axis];                  // 9.3
    for (const auto& [operand, desc] : {std::pair{"scale", ds}, std::pair{"bias", db}}) {
      if (desc && desc->shape[index] != size) {  // 9.4, 9.5
        ThrowTypeError(name + ": " + operand + " shape " + ShapeToString(desc->shape) + " has " +
                       std::to_string(desc->shape[index]) + " at index " + std::to_string(index) +
                       " but input axis " + std::to_string(axis) + " has size " +
                       std::to_string(size));
      }
    }
  }
  std::vector<OperandId> inputs{input.id};
  const OptionalInputs where = AppendOptional(inputs, options.scale, options.bias);
  std::vector<size_t> reduce_axes = axes;  // summation order: ascending axes (memory order)
  std::sort(reduce_axes.begin(), reduce_axes.end());
  auto attributes = MakeAttributes(reduce_axes, axes, epsilon, where);
  OperatorNode node{OpId::layerNormalization,
                    options.label,
                    std::move(inputs),
                    {},
                    std::make_shared<GroupNormalizationKernel>(std::move(reduce_axes),
                                                               std::move(axes), epsilon, where),
                    {OpId::layerNormalization, d.dataType, 0}};
  node.attributes = std::move(attributes);
  return builder.AddOperator(std::move(node), {d})[0];  // steps 10-11
}

namespace {

// A WebIDL `double` (not unrestricted): a non-finite value is a TypeError at conversion.
double FiniteDoubleOption(const OpCall& call, const Value& o, const char* member, double fallback) {
  const std::optional<double> v = call.GetDoubleOption(o, member);
  if (v && !std::isfinite(*v)) {
    ThrowTypeError(call.op() + ": options." + member + " is not a finite double");
  }
  return v.value_or(fallback);
}

}  // namespace

std::vector<Operand> CallBatchNormalization(OpCall& call) {
  call.ExpectAtMost(4);
  const Operand input = call.GetOperand(0, "input");
  const Operand mean = call.GetOperand(1, "mean");
  const Operand variance = call.GetOperand(2, "variance");
  const Value& o = call.GetOptions(3);
  MLBatchNormalizationOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  options.scale = call.GetOperandOption(o, "scale");
  options.bias = call.GetOperandOption(o, "bias");
  options.axis = call.GetUint32Option(o, "axis").value_or(1);
  options.epsilon = FiniteDoubleOption(call, o, "epsilon", 1e-5);
  return {BatchNormalization(call.builder(), input, mean, variance, options)};
}

std::vector<Operand> CallInstanceNormalization(OpCall& call) {
  call.ExpectAtMost(2);
  const Operand input = call.GetOperand(0, "input");
  const Value& o = call.GetOptions(1);
  MLInstanceNormalizationOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  options.scale = call.GetOperandOption(o, "scale");
  options.bias = call.GetOperandOption(o, "bias");
  options.epsilon = FiniteDoubleOption(call, o, "epsilon", 1e-5);
  const std::optional<std::string> layout = call.GetEnumOption(o, "layout", kInputLayoutNames);
  options.layout = layout == "nhwc" ? MLInputOperandLayout::kNhwc : MLInputOperandLayout::kNchw;
  return {InstanceNormalization(call.builder(), input, options)};
}

std::vector<Operand> CallLayerNormalization(OpCall& call) {
  call.ExpectAtMost(2);
  const Operand input = call.GetOperand(0, "input");
  const Value& o = call.GetOptions(1);
  MLLayerNormalizationOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  options.scale = call.GetOperandOption(o, "scale");
  options.bias = call.GetOperandOption(o, "bias");
  options.axes = call.GetUint32ListOption(o, "axes");
  options.epsilon = FiniteDoubleOption(call, o, "epsilon", 1e-5);
  return {LayerNormalization(call.builder(), input, options)};
}

}  // namespace nnref
