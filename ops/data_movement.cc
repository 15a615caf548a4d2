// reshape, transpose, expand, slice, reverse and split — WebNN §api-mlgraphbuilder-reshape-method,
// §api-mlgraphbuilder-transpose, §api-mlgraphbuilder-expand, §api-mlgraphbuilder-slice,
// §api-mlgraphbuilder-reverse-method, §api-mlgraphbuilder-split.
//
// Numerics: none. Every output is a view of the input's buffer (ref/tensor/tensor.h): new shape,
// strides and offset, no element copied, so every data type is served by the same code and the
// values are the input's bits (exact, 0 ULP). reshape of a view whose strides cannot express the
// new shape (e.g. merging two transposed axes) is the one place a dense copy is made. An input's
// latitude tensor is viewed the same way, so implementation-defined marks follow their elements.
#include "ops/data_movement.h"

#include <algorithm>
#include <utility>

#include "ops/elementwise.h"

namespace nnref {

namespace {

constexpr TensorLimits kAnyRank(std::string_view operand) {
  return {operand, DataTypeSet::All(), "", 0, kMaxRankAny};
}
constexpr TensorLimits kSameAsInput(std::string_view operand) {
  return {operand, {}, "input", 0, kMaxRankAny};
}

}  // namespace

const OpLimits kReshapeLimits = {{kAnyRank("input"), {"output", {}, "input", 0, kMaxRankAny}}};
const OpLimits kTransposeLimits = {{kAnyRank("input"), kSameAsInput("output")}};
const OpLimits kExpandLimits = {{kAnyRank("input"), kSameAsInput("output")}};
const OpLimits kSliceLimits = {{kAnyRank("input"), kSameAsInput("output")}};
const OpLimits kReverseLimits = {{kAnyRank("input"), kSameAsInput("output")}};
const OpLimits kSplitLimits = {
    {{"input", DataTypeSet::All(), "", 1, kMaxRankAny}, {"outputs", {}, "input", 1, kMaxRankAny}}};

namespace data_movement {

void CheckAllowedRank(const std::string& name, const char* operand, size_t rank,
                      const TensorLimits& limits) {
  if (rank < limits.min_rank || rank > limits.max_rank) {
    ThrowTypeError(name + ": " + operand + " rank " + std::to_string(rank) +
                   " is not one of the allowed ranks (" + std::to_string(limits.min_rank) + " to " +
                   std::to_string(limits.max_rank) + ")");
  }
}

std::string ListToString(const std::vector<uint32_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s + "]";
}

// Axes in range and without duplicates (transpose's permutation, reverse's axes).
void CheckAxes(const std::string& name, const char* what, const std::vector<uint32_t>& axes,
               size_t rank) {
  std::vector<bool> seen(rank, false);
  for (uint32_t a : axes) {
    if (a >= rank) {
      ThrowTypeError(name + ": " + what + " " + ListToString(axes) + " has " + std::to_string(a) +
                     ", out of range for rank " + std::to_string(rank));
    }
    if (seen[a]) {
      ThrowTypeError(name + ": " + what + " " + ListToString(axes) + " contains " +
                     std::to_string(a) + " more than once");
    }
    seen[a] = true;
  }
}

}  // namespace data_movement

namespace {

using data_movement::CheckAllowedRank;
using data_movement::CheckAxes;
using data_movement::kMaxDimension;
using data_movement::kMaxTensorCount;
using data_movement::ListToString;

// The same view of an operand's data and of its latitude marks.
template <typename View>
OperandValue ViewOf(const OperandValue& in, const View& view) {
  OperandValue out;
  out.data = view(in.data);
  if (in.latitude.valid()) out.latitude = view(in.latitude);
  return out;
}

class ReshapeKernel final : public Kernel {
 public:
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Shape& shape = out[0].shape;
    return {ViewOf(*in[0], [&](const Tensor& t) { return t.Reshape(shape); })};
  }
};

class TransposeKernel final : public Kernel {
 public:
  explicit TransposeKernel(std::vector<uint32_t> permutation)
      : permutation_(std::move(permutation)) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor>) const override {
    return {ViewOf(*in[0], [&](const Tensor& t) { return t.Permute(permutation_); })};
  }

 private:
  std::vector<uint32_t> permutation_;
};

// Stride 0 along every stretched or added axis.
class ExpandKernel final : public Kernel {
 public:
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Shape& shape = out[0].shape;
    return {ViewOf(*in[0], [&](const Tensor& t) { return t.BroadcastTo(shape); })};
  }
};

// Output element i along an axis is input element starts + i * stride (the output shape gives
// the counts).
class SliceKernel final : public Kernel {
 public:
  SliceKernel(std::vector<uint64_t> starts, std::vector<uint64_t> strides)
      : starts_(std::move(starts)), strides_(std::move(strides)) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Shape& shape = out[0].shape;
    return {ViewOf(*in[0], [&](const Tensor& t) { return t.Slice(starts_, shape, strides_); })};
  }

 private:
  std::vector<uint64_t> starts_;
  std::vector<uint64_t> strides_;
};

// Negative strides along the reversed axes.
class ReverseKernel final : public Kernel {
 public:
  explicit ReverseKernel(std::vector<uint32_t> axes) : axes_(std::move(axes)) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor>) const override {
    return {ViewOf(*in[0], [&](const Tensor& t) { return t.Reverse(axes_); })};
  }

 private:
  std::vector<uint32_t> axes_;
};

// Output k is the slice of the input that starts where output k-1 ended along the axis.
class SplitKernel final : public Kernel {
 public:
  explicit SplitKernel(size_t axis) : axis_(axis) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const size_t rank = in[0]->data.rank();
    std::vector<uint64_t> starts(rank, 0);
    const std::vector<uint64_t> steps(rank, 1);
    std::vector<OperandValue> result;
    for (const OperandDescriptor& d : out) {
      result.push_back(
          ViewOf(*in[0], [&](const Tensor& t) { return t.Slice(starts, d.shape, steps); }));
      starts[axis_] += d.shape[axis_];
    }
    return result;
  }

 private:
  size_t axis_;
};

OperatorNode Node(OpId op, const MLOperatorOptions& options, const Operand& input,
                  std::shared_ptr<const Kernel> kernel, DataType type,
                  std::shared_ptr<const OpAttributes> attributes = nullptr) {
  OperatorNode node{op, options.label, {input.id}, {}, std::move(kernel), {op, type, 0}};
  node.attributes = std::move(attributes);
  return node;
}

}  // namespace

Operand Reshape(GraphBuilder& builder, const Operand& input, const std::vector<uint32_t>& newShape,
                const MLOperatorOptions& options) {
  const std::string name = OperatorDisplayName("reshape", options);
  builder.CheckCanBuild(name);                    // step 1
  builder.ValidateOperand(name, "input", input);  // step 2
  const OperandDescriptor d = builder.Desc(input);
  CheckAllowedRank(name, "output (newShape's size)", newShape.size(),  // step 3
                   *kReshapeLimits.Find("output"));
  // Steps 4-5: a size-0 newShape is the scalar shape [].
  for (size_t i = 0; i < newShape.size(); ++i) {  // step 6
    if (newShape[i] == 0 || newShape[i] > kMaxDimension) {
      ThrowTypeError(name + ": newShape[" + std::to_string(i) + "] = " +
                     std::to_string(newShape[i]) + " is not a valid dimension (1 to 2147483647)");
    }
  }
  const Shape shape(newShape.begin(), newShape.end());
  const uint64_t input_count = d.ElementCount();  // step 7 (a scalar counts 1)
  const auto count = CheckedElementCount(shape);  // overflow: certainly not equal
  if (!count || *count != input_count) {          // step 8
    ThrowTypeError(name + ": newShape " + ListToString(newShape) +
                   " does not hold the input's element count " + std::to_string(input_count) +
                   " (input shape " + ShapeToString(d.shape) + ")");
  }
  // Steps 9-12.
  return builder.AddOperator(
      Node(OpId::reshape, options, input, std::make_shared<ReshapeKernel>(), d.dataType),
      {{d.dataType, shape}})[0];
}

Operand Transpose(GraphBuilder& builder, const Operand& input, const MLTransposeOptions& options) {
  const std::string name = OperatorDisplayName("transpose", options);
  builder.CheckCanBuild(name);                    // step 1
  builder.ValidateOperand(name, "input", input);  // step 2
  const OperandDescriptor d = builder.Desc(input);
  const size_t rank = d.shape.size();
  std::vector<uint32_t> permutation;
  if (!options.permutation) {  // step 3: [N-1, ..., 0]
    for (size_t i = rank; i-- > 0;) permutation.push_back(static_cast<uint32_t>(i));
  } else {  // step 4
    permutation = *options.permutation;
    if (permutation.size() != rank) {  // step 4.1
      ThrowTypeError(name + ": permutation " + ListToString(permutation) + " has " +
                     std::to_string(permutation.size()) + " values but the input rank is " +
                     std::to_string(rank));
    }
    CheckAxes(name, "permutation", permutation, rank);  // steps 4.2-4.3
  }
  // Step 5 "copies" the input operand, which would keep the input's shape; the permuted tensor's
  // shape is shape[permutation[i]] (docs/deviations.md).
  Shape shape(rank);
  for (size_t i = 0; i < rank; ++i) shape[i] = d.shape[permutation[i]];
  auto attributes = std::make_shared<TransposeAttributes>();
  attributes->permutation = permutation;
  return builder.AddOperator(
      Node(OpId::transpose, options, input, std::make_shared<TransposeKernel>(permutation),
           d.dataType, std::move(attributes)),
      {{d.dataType, shape}})[0];
}

Operand Expand(GraphBuilder& builder, const Operand& input, const std::vector<uint32_t>& newShape,
               const MLOperatorOptions& options) {
  const std::string name = OperatorDisplayName("expand", options);
  builder.CheckCanBuild(name);                    // step 1
  builder.ValidateOperand(name, "input", input);  // step 2
  const OperandDescriptor d = builder.Desc(input);
  const Shape target(newShape.begin(), newShape.end());
  const auto shape = BroadcastUnidirectional(d.shape, target);  // step 3
  if (!shape) {                                                 // step 3.1
    ThrowTypeError(name + ": the input shape " + ShapeToString(d.shape) +
                   " is not unidirectionally broadcastable to newShape " + ListToString(newShape));
  }
  CheckAllowedRank(name, "output", shape->size(), *kExpandLimits.Find("output"));  // step 4
  // Steps 5-6; a 0 in newShape is rejected as an invalid output dimension by AddOperator.
  return builder.AddOperator(
      Node(OpId::expand, options, input, std::make_shared<ExpandKernel>(), d.dataType),
      {{d.dataType, *shape}})[0];
}

Operand Slice(GraphBuilder& builder, const Operand& input, const std::vector<uint32_t>& starts,
              const std::vector<uint32_t>& sizes, const MLSliceOptions& options) {
  const std::string name = OperatorDisplayName("slice", options);
  builder.CheckCanBuild(name);                    // step 1
  builder.ValidateOperand(name, "input", input);  // step 2
  const OperandDescriptor d = builder.Desc(input);
  const size_t rank = d.shape.size();
  for (size_t i = 0; i < sizes.size(); ++i) {  // step 3
    if (sizes[i] == 0) {
      ThrowTypeError(name + ": sizes[" + std::to_string(i) + "] is 0 (sizes " +
                     ListToString(sizes) + ")");
    }
  }
  if (starts.size() != rank || sizes.size() != rank) {  // step 4
    ThrowTypeError(name + ": starts " + ListToString(starts) + " and sizes " + ListToString(sizes) +
                   " must both have the input's rank " + std::to_string(rank) + " values");
  }
  if (options.strides && options.strides->size() != rank) {  // steps 5-6
    ThrowTypeError(name + ": options.strides " + ListToString(*options.strides) +
                   " must have the input's rank " + std::to_string(rank) + " values");
  }
  Shape shape;  // steps 7-9
  std::vector<uint64_t> first(rank), steps(rank);
  for (size_t i = 0; i < rank; ++i) {
    const uint64_t input_size = d.shape[i];                               // step 9.1
    const uint64_t slice_size = sizes[i];                                 // step 9.2
    const uint64_t stride = options.strides ? (*options.strides)[i] : 1;  // step 9.3
    // Step 9.4 (a slice size of 0) was already rejected by step 3.
    const std::string at = " on axis " + std::to_string(i);
    if (stride < 1) ThrowTypeError(name + ": options.strides[" + std::to_string(i) + "] is 0");
    if (starts[i] > input_size) {  // step 9.6
      ThrowTypeError(name + ": starts[" + std::to_string(i) + "] = " + std::to_string(starts[i]) +
                     " is beyond the input size " + std::to_string(input_size) + at);
    }
    if (starts[i] + slice_size > input_size) {  // step 9.7 (no overflow in uint64)
      ThrowTypeError(name + ": starts[" + std::to_string(i) + "] + sizes[" + std::to_string(i) +
                     "] = " + std::to_string(starts[i] + slice_size) +
                     " is greater than the input size " + std::to_string(input_size) + at);
    }
    // Steps 9.8-9.10: ceil(slice size / stride) elements.
    shape.push_back(slice_size / stride + (slice_size % stride != 0 ? 1 : 0));
    first[i] = starts[i];
    steps[i] = stride;
  }
  // Steps 10-12.
  auto attributes = std::make_shared<SliceAttributes>();
  attributes->starts = first;
  attributes->sizes.assign(sizes.begin(), sizes.end());
  attributes->strides = steps;
  return builder.AddOperator(
      Node(OpId::slice, options, input, std::make_shared<SliceKernel>(first, steps), d.dataType,
           std::move(attributes)),
      {{d.dataType, shape}})[0];
}

Operand Reverse(GraphBuilder& builder, const Operand& input, const MLReverseOptions& options) {
  const std::string name = OperatorDisplayName("reverse", options);
  builder.CheckCanBuild(name);                    // step 1
  builder.ValidateOperand(name, "input", input);  // step 2
  const OperandDescriptor d = builder.Desc(input);
  CheckDataType(name, "input", d.dataType, kReverseLimits.Find("input")->types);  // step 3
  const size_t rank = d.shape.size();                                             // step 4
  std::vector<uint32_t> axes;
  if (!options.axes) {  // step 5
    for (size_t i = 0; i < rank; ++i) axes.push_back(static_cast<uint32_t>(i));
  } else {
    // Step 6 says "return failure"; like every other validation step, nnref throws TypeError
    // (spec-notes #7, docs/deviations.md).
    axes = *options.axes;
    CheckAxes(name, "axes", axes, rank);
  }
  auto attributes = std::make_shared<ReverseAttributes>();
  attributes->axes = axes;
  return builder.AddOperator(  // step 7
      Node(OpId::reverse, options, input, std::make_shared<ReverseKernel>(axes), d.dataType,
           std::move(attributes)),
      {d})[0];
}

namespace {

std::vector<Operand> AddSplit(GraphBuilder& builder, const Operand& input,
                              const OperandDescriptor& d, uint32_t axis,
                              const std::vector<uint64_t>& sizes, const MLSplitOptions& options) {
  // Step 7: one operand per part, the input's descriptor with the axis size replaced.
  std::vector<OperandDescriptor> outputs;
  for (uint64_t size : sizes) {
    OperandDescriptor o = d;
    o.shape[axis] = size;
    outputs.push_back(std::move(o));
  }
  auto attributes = std::make_shared<SplitAttributes>();
  attributes->axis = axis;
  attributes->sizes = sizes;
  return builder.AddOperator(Node(OpId::split, options, input, std::make_shared<SplitKernel>(axis),
                                  d.dataType, std::move(attributes)),
                             std::move(outputs));
}

// Steps 1-4, shared by both forms of splits.
OperandDescriptor SplitPreamble(GraphBuilder& builder, const std::string& name,
                                const Operand& input, uint32_t axis) {
  builder.CheckCanBuild(name);                    // step 1
  builder.ValidateOperand(name, "input", input);  // step 2
  OperandDescriptor d = builder.Desc(input);
  if (axis >= d.shape.size()) {  // steps 3-4
    ThrowTypeError(name + ": options.axis " + std::to_string(axis) +
                   " is out of range for the input rank " + std::to_string(d.shape.size()));
  }
  return d;
}

}  // namespace

std::vector<Operand> Split(GraphBuilder& builder, const Operand& input, uint32_t splits,
                           const MLSplitOptions& options) {
  const std::string name = OperatorDisplayName("split", options);
  const OperandDescriptor d = SplitPreamble(builder, name, input, options.axis);
  const uint64_t axis_size = d.shape[options.axis];
  if (splits == 0 || splits > kMaxTensorCount) {  // step 5.1
    ThrowTypeError(name + ": splits " + std::to_string(splits) +
                   " is not a valid tensor count (1 to 8192)");
  }
  if (axis_size % splits != 0) {  // step 5.2
    ThrowTypeError(name + ": splits " + std::to_string(splits) + " does not divide the size " +
                   std::to_string(axis_size) + " of axis " + std::to_string(options.axis));
  }
  return AddSplit(builder, input, d, options.axis,
                  std::vector<uint64_t>(splits, axis_size / splits), options);
}

std::vector<Operand> Split(GraphBuilder& builder, const Operand& input,
                           const std::vector<uint32_t>& splits, const MLSplitOptions& options) {
  const std::string name = OperatorDisplayName("split", options);
  const OperandDescriptor d = SplitPreamble(builder, name, input, options.axis);
  const uint64_t axis_size = d.shape[options.axis];
  if (splits.empty() || splits.size() > kMaxTensorCount) {  // step 6.1
    ThrowTypeError(name + ": splits has " + std::to_string(splits.size()) +
                   " sizes, not a valid tensor count (1 to 8192)");
  }
  uint64_t sum = 0;  // at most 8192 * (2^32 - 1): no overflow
  for (size_t i = 0; i < splits.size(); ++i) {
    if (splits[i] == 0) {  // step 6.2
      ThrowTypeError(name + ": splits[" + std::to_string(i) + "] is 0");
    }
    sum += splits[i];
  }
  if (sum != axis_size) {  // step 6.3
    ThrowTypeError(name + ": the sizes in splits add up to " + std::to_string(sum) +
                   ", not the size " + std::to_string(axis_size) + " of axis " +
                   std::to_string(options.axis));
  }
  return AddSplit(builder, input, d, options.axis,
                  std::vector<uint64_t>(splits.begin(), splits.end()), options);
}

std::vector<Operand> CallReshape(OpCall& call) {
  call.ExpectAtMost(3);
  const Operand input = call.GetOperand(0, "input");
  const std::vector<uint32_t> shape = call.GetUint32List(1, "newShape");
  return {Reshape(call.builder(), input, shape, call.GetOperatorOptions(call.GetOptions(2)))};
}

std::vector<Operand> CallTranspose(OpCall& call) {
  call.ExpectAtMost(2);
  const Operand input = call.GetOperand(0, "input");
  const Value& o = call.GetOptions(1);
  MLTransposeOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  options.permutation = call.GetUint32ListOption(o, "permutation");
  return {Transpose(call.builder(), input, options)};
}

std::vector<Operand> CallExpand(OpCall& call) {
  call.ExpectAtMost(3);
  const Operand input = call.GetOperand(0, "input");
  const std::vector<uint32_t> shape = call.GetUint32List(1, "newShape");
  return {Expand(call.builder(), input, shape, call.GetOperatorOptions(call.GetOptions(2)))};
}

std::vector<Operand> CallSlice(OpCall& call) {
  call.ExpectAtMost(4);
  const Operand input = call.GetOperand(0, "input");
  const std::vector<uint32_t> starts = call.GetUint32List(1, "starts");
  const std::vector<uint32_t> sizes = call.GetUint32List(2, "sizes");
  const Value& o = call.GetOptions(3);
  MLSliceOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  options.strides = call.GetUint32ListOption(o, "strides");
  return {Slice(call.builder(), input, starts, sizes, options)};
}

std::vector<Operand> CallReverse(OpCall& call) {
  call.ExpectAtMost(2);
  const Operand input = call.GetOperand(0, "input");
  const Value& o = call.GetOptions(1);
  MLReverseOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  options.axes = call.GetUint32ListOption(o, "axes");
  return {Reverse(call.builder(), input, options)};
}

std::vector<Operand> CallSplit(OpCall& call) {
  call.ExpectAtMost(3);
  const Operand input = call.GetOperand(0, "input");
  // splits is (unsigned long or sequence<unsigned long>): a list, else a number.
  if (call.size() < 2) call.Fail("missing argument 2 ('splits')");
  std::optional<std::vector<uint32_t>> sizes;
  std::optional<uint32_t> count;
  try {
    sizes = call.GetUint32List(1, "splits");
  } catch (const InputError&) {
    try {
      count = call.GetUint32(1, "splits");
    } catch (const InputError&) {
      call.Fail("argument 'splits' must be an unsigned integer or an array of unsigned integers");
    }
  }
  const Value& o = call.GetOptions(2);
  MLSplitOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  options.axis = call.GetUint32Option(o, "axis").value_or(0);
  if (count) return Split(call.builder(), input, *count, options);
  return Split(call.builder(), input, *sizes, options);
}

}  // namespace nnref
