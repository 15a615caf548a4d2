// WebNN §api-mlgraphbuilder-convtranspose2d.
//
// The spec gives the output shape but no formula for the values. nnref computes the transposed
// convolution in gather form: input element (in_y, in_x) with filter element (filter_y, filter_x)
// feeds output row out_y = in_y * strideHeight + filter_y * dilationHeight - beginningHeight
// (columns likewise), so each output element sums the pairs that land on it. Rows and columns
// added by outputPadding or outputSizes get whatever lands on them (the bias alone when nothing
// does). Filter layouts: iohw is [inputChannels, outputChannels/groups, height, width].
//
// Numerics. float32 and float16 only. Each product is exact in double; the products landing on
// one output element and then the bias are added into the accumulator `acc`, a compensated double
// sum (WindowSum, ops/conv_common.h), and the result is rounded once to the output type.
//
// spec-notes #11: the method steps never require inputChannels to divide by groups; nnref throws
// TypeError as conv2d does (docs/deviations.md).
#include "ops/conv_transpose2d.h"

#include <algorithm>
#include <cmath>

#include "ops/bounded_sum.h"
#include "ops/elementwise.h"
#include "ref/parallel/parallel.h"

namespace nnref {

const OpLimits kConvTranspose2dLimits = {{{"input", kFloatTypes, "", 4, 4},
                                          {"filter", {}, "input", 4, 4},
                                          {"bias", {}, "input", 1, 1},
                                          {"output", {}, "input", 4, 4}}};

ConvTranspose2dFilterAxes ConvTranspose2dFilterAxesOf(MLConvTranspose2dFilterOperandLayout layout) {
  switch (layout) {
    case MLConvTranspose2dFilterOperandLayout::kIohw:
      return {0, 1, 2, 3};
    case MLConvTranspose2dFilterOperandLayout::kHwoi:
      return {3, 2, 0, 1};
    case MLConvTranspose2dFilterOperandLayout::kOhwi:
      return {3, 0, 1, 2};
  }
  return {0, 1, 2, 3};
}

namespace {

class ConvTranspose2dKernel final : public Kernel {
 public:
  explicit ConvTranspose2dKernel(const ConvTranspose2dAttributes& g) : g_(g) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    OperandValue result = DispatchDataType(out[0].dataType, [&]<typename T>() {
      if constexpr (kIsFloatStorage<T>) {
        return Run<T>(in, out[0]);
      } else {
        return OperandValue{};  // unreachable: validation admits float32 and float16 only
      }
    });
    return {std::move(result)};
  }

 private:
  template <typename T>
  OperandValue Run(std::span<const OperandValue* const> in,
                   const OperandDescriptor& out_desc) const {
    const Tensor& input = in[0]->data;
    const Tensor& filter = in[1]->data;
    const Tensor* bias = in.size() > 2 ? &in[2]->data : nullptr;
    const ImageAxes& ia = g_.image;
    const ConvTranspose2dFilterAxes& fa = g_.filter;
    const auto dim = [](const Shape& s, size_t axis) { return static_cast<int64_t>(s[axis]); };

    const int64_t batches = dim(input.shape(), ia.batch);
    const int64_t input_channels = dim(input.shape(), ia.channel);
    const int64_t input_height = dim(input.shape(), ia.height);
    const int64_t input_width = dim(input.shape(), ia.width);
    const int64_t filter_output_channels = dim(filter.shape(), fa.out);
    const int64_t filter_height = dim(filter.shape(), fa.height);
    const int64_t filter_width = dim(filter.shape(), fa.width);
    const int64_t output_channels = dim(out_desc.shape, ia.channel);
    const int64_t output_height = dim(out_desc.shape, ia.height);
    const int64_t output_width = dim(out_desc.shape, ia.width);
    const int64_t input_channels_per_group = input_channels / g_.groups;

    const Strides& is = input.strides();
    const int64_t in_batch_stride = is[ia.batch], in_channel_stride = is[ia.channel];
    const int64_t in_y_stride = is[ia.height], in_x_stride = is[ia.width];
    const Strides& fs = filter.strides();
    const int64_t filter_in_stride = fs[fa.in], filter_out_stride = fs[fa.out];
    const int64_t filter_y_stride = fs[fa.height], filter_x_stride = fs[fa.width];

    OperandValue result;
    result.data = Tensor::Allocate(out_desc.dataType, out_desc.shape);
    const Strides os = ContiguousStrides(out_desc.shape);
    const int64_t out_batch_stride = os[ia.batch], out_channel_stride = os[ia.channel];
    const int64_t out_y_stride = os[ia.height], out_x_stride = os[ia.width];

    const T* input_data = input.base<T>();
    const T* filter_data = filter.base<T>();
    T* output_data = result.data.base<T>();
    // The (batch, output channel) planes on the reference's threads; every element is computed
    // alone: first as a plain double sum whose error bound decides the rounding when it can
    // (BoundedSum, ops/bounded_sum.h), else again with the compensated accumulator WindowSum.
    ParallelFor(static_cast<size_t>(batches * output_channels), 1, [&](size_t begin, size_t end) {
      for (size_t bo = begin; bo < end; ++bo) {
        const auto batch = static_cast<int64_t>(bo) / output_channels;
        const auto out_channel = static_cast<int64_t>(bo) % output_channels;
        const int64_t group = out_channel / filter_output_channels;
        const int64_t filter_out_channel = out_channel % filter_output_channels;
        const int64_t in_channel_begin = group * input_channels_per_group;
        for (int64_t out_y = 0; out_y < output_height; ++out_y) {
          for (int64_t out_x = 0; out_x < output_width; ++out_x) {
            // Adds the terms of one output element to `acc`: its products, then the bias.
            const auto add_terms = [&](auto& acc) {
              for (int64_t group_c = 0; group_c < input_channels_per_group; ++group_c) {
                const int64_t in_channel = in_channel_begin + group_c;
                for (int64_t filter_y = 0; filter_y < filter_height; ++filter_y) {
                  // out_y = in_y * stride + filter_y * dilation - pad_top, solved for in_y.
                  const int64_t in_y_scaled = out_y + g_.pad_top - filter_y * g_.dilation_height;
                  if (in_y_scaled < 0 || in_y_scaled % g_.stride_height != 0) continue;
                  const int64_t in_y = in_y_scaled / g_.stride_height;
                  if (in_y >= input_height) continue;
                  for (int64_t filter_x = 0; filter_x < filter_width; ++filter_x) {
                    const int64_t in_x_scaled = out_x + g_.pad_left - filter_x * g_.dilation_width;
                    if (in_x_scaled < 0 || in_x_scaled % g_.stride_width != 0) continue;
                    const int64_t in_x = in_x_scaled / g_.stride_width;
                    if (in_x >= input_width) continue;
                    acc.Add(
                        ToDouble(
                            input_data[batch * in_batch_stride + in_channel * in_channel_stride +
                                       in_y * in_y_stride + in_x * in_x_stride]) *
                        ToDouble(
                            filter_data[in_channel * filter_in_stride +
                                        filter_out_channel * filter_out_stride +
                                        filter_y * filter_y_stride + filter_x * filter_x_stride]));
                  }
                }
              }
              if (bias) acc.Add(ToDouble(bias->base<T>()[out_channel * bias->strides()[0]]));
            };
            T& out = output_data[batch * out_batch_stride + out_channel * out_channel_stride +
                                 out_y * out_y_stride + out_x * out_x_stride];
            BoundedSum fast;
            add_terms(fast);
            if (!fast.Round(out)) {
              WindowSum acc;  // the accumulator of one output element (exact path)
              add_terms(acc);
              out = RoundTo<T>(acc.QuotientToOdd());
            }
          }
        }
      }
    });
    return result;
  }

  ConvTranspose2dAttributes g_;
};

void CheckOutputSize(const std::string& op, const char* what, uint32_t output_size,
                     __int128 calculated, uint32_t stride) {
  if (output_size < calculated || output_size >= calculated + stride) {
    ThrowTypeError(op + ": options.outputSizes " + what + " " + std::to_string(output_size) +
                   " is outside [" + Int128ToString(calculated) + ", " +
                   Int128ToString(calculated + stride) + ")");
  }
}

}  // namespace

Operand ConvTranspose2d(GraphBuilder& builder, const Operand& input, const Operand& filter,
                        const MLConvTranspose2dOptions& options) {
  const std::string name = OperatorDisplayName("convTranspose2d", options);
  const OpLimits& limits = kConvTranspose2dLimits;
  builder.CheckCanBuild(name);                    // step 1
  builder.ValidateOperand(name, "input", input);  // step 2
  builder.ValidateOperand(name, "filter", filter);
  if (options.bias) builder.ValidateOperand(name, "options.bias", *options.bias);
  const OperandDescriptor in = builder.Desc(input);
  const OperandDescriptor fd = builder.Desc(filter);
  CheckRank(name, limits, "input", in.shape.size());                       // step 3
  CheckDataType(name, "input", in.dataType, limits.Find("input")->types);  // step 4
  CheckRank(name, limits, "filter", fd.shape.size());                      // step 5
  CheckSameType(name, "filter", fd.dataType, "input", in.dataType);        // step 6
  // Steps 7-14.
  const auto [padding, strides, dilations] =
      ConvWindowListsOf(name, options.padding, options.strides, options.dilations);
  const std::vector<uint32_t> output_padding =
      ListOrDefault(name, "outputPadding", options.outputPadding, {0, 0});          // steps 15-16
  if (options.outputSizes) {                                                        // step 17
    ListOrDefault(name, "outputSizes", options.outputSizes, {0, 0});                // step 17.1
  } else if (output_padding[0] >= strides[0] || output_padding[1] >= strides[1]) {  // step 18.1
    ThrowTypeError(name + ": options.outputPadding [" + std::to_string(output_padding[0]) + ", " +
                   std::to_string(output_padding[1]) + "] is not smaller than strides [" +
                   std::to_string(strides[0]) + ", " + std::to_string(strides[1]) + "]");
  }
  if (options.groups == 0) ThrowTypeError(name + ": options.groups is 0");  // step 19

  // Step 20: calculate the output shape. 20.1-20.4: name the dimensions by layout.
  const ImageAxes ia = AxesOf(options.inputLayout);
  const ConvTranspose2dFilterAxes fa = ConvTranspose2dFilterAxesOf(options.filterLayout);
  const uint64_t batches = in.shape[ia.batch], input_channels = in.shape[ia.channel];
  const uint64_t input_height = in.shape[ia.height], input_width = in.shape[ia.width];
  const uint64_t filter_input_channels = fd.shape[fa.in];
  const uint64_t filter_output_channels = fd.shape[fa.out];
  const uint64_t filter_height = fd.shape[fa.height], filter_width = fd.shape[fa.width];
  const uint32_t groups = options.groups;
  if (input_channels != filter_input_channels) {  // step 20.5
    ThrowTypeError(name + ": inputChannels " + std::to_string(input_channels) +
                   " differs from the filter's input channels " +
                   std::to_string(filter_input_channels));
  }
  if (input_channels % groups != 0) {  // nnref addition, spec-notes #11 (as conv2d step 16.5)
    ThrowTypeError(name + ": inputChannels " + std::to_string(input_channels) +
                   " is not divisible by groups " + std::to_string(groups));
  }
  const __int128 output_channels = __int128{filter_output_channels} * groups;  // step 20.6
  if (!IsValidDimension(output_channels)) {                                    // step 20.7
    ThrowTypeError(name + ": outputChannels " + Int128ToString(output_channels) +
                   " is not a valid dimension");
  }
  // Step 20.8 (outputChannels is a valid dimension: it fits uint64).
  CheckConvBias(builder, name, options.bias, static_cast<uint64_t>(output_channels), in.dataType);
  const __int128 calculated_height = CalculateConvTransposeOutputSize(
      input_height, filter_height, padding[0], padding[1], strides[0], dilations[0]);  // 20.9
  const __int128 calculated_width = CalculateConvTransposeOutputSize(
      input_width, filter_width, padding[2], padding[3], strides[1], dilations[1]);  // 20.10
  __int128 output_height = 0, output_width = 0;
  if (options.outputSizes) {  // step 20.11
    const std::vector<uint32_t>& sizes = *options.outputSizes;
    CheckOutputSize(name, "height", sizes[0], calculated_height, strides[0]);  // step 20.11.2
    CheckOutputSize(name, "width", sizes[1], calculated_width, strides[1]);    // step 20.11.3
    output_height = sizes[0];
    output_width = sizes[1];
  } else {  // step 20.12
    output_height = calculated_height + output_padding[0];
    output_width = calculated_width + output_padding[1];
  }
  if (!IsValidDimension(output_height) || !IsValidDimension(output_width)) {  // step 20.13
    ThrowTypeError(name + ": the output size " + Int128ToString(output_height) + " x " +
                   Int128ToString(output_width) + " is not a valid dimension");
  }
  Shape output_shape(4);  // step 20.14
  output_shape[ia.batch] = batches;
  output_shape[ia.channel] = static_cast<uint64_t>(output_channels);
  output_shape[ia.height] = static_cast<uint64_t>(output_height);
  output_shape[ia.width] = static_cast<uint64_t>(output_width);

  // Step 21: make graph connections. Tolerance size as conv2d: kernelHeight * kernelWidth *
  // inputChannels / groups (the most products that can land on one output element).
  auto g = std::make_shared<ConvTranspose2dAttributes>();
  g->pad_top = padding[0];
  g->pad_left = padding[2];
  g->stride_height = strides[0];
  g->stride_width = strides[1];
  g->dilation_height = dilations[0];
  g->dilation_width = dilations[1];
  g->groups = groups;
  g->image = ia;
  g->filter = fa;
  std::vector<OperandId> inputs = {input.id, filter.id};
  if (options.bias) inputs.push_back(options.bias->id);
  OperatorNode node{OpId::convTranspose2d,
                    options.label,
                    std::move(inputs),
                    {},
                    std::make_shared<ConvTranspose2dKernel>(*g),
                    {OpId::convTranspose2d, in.dataType,
                     filter_height * filter_width * (input_channels / groups)}};
  node.attributes = std::move(g);
  return builder.AddOperator(std::move(node), {{in.dataType, output_shape}})[0];  // step 22
}

std::vector<Operand> CallConvTranspose2d(OpCall& call) {
  call.ExpectAtMost(3);
  const Operand input = call.GetOperand(0, "input");
  const Operand filter = call.GetOperand(1, "filter");
  const Value& o = call.GetOptions(2);
  MLConvTranspose2dOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  options.padding = call.GetUint32ListOption(o, "padding");
  options.strides = call.GetUint32ListOption(o, "strides");
  options.dilations = call.GetUint32ListOption(o, "dilations");
  options.outputPadding = call.GetUint32ListOption(o, "outputPadding");
  options.outputSizes = call.GetUint32ListOption(o, "outputSizes");
  options.groups = call.GetUint32Option(o, "groups").value_or(1);
  if (auto l = call.GetEnumOption(o, "inputLayout", kInputLayoutNames)) {
    options.inputLayout = InputLayoutFromName(*l);
  }
  if (auto l = call.GetEnumOption(o, "filterLayout", kConvTranspose2dFilterLayoutNames)) {
    const auto& names = kConvTranspose2dFilterLayoutNames;
    options.filterLayout = static_cast<MLConvTranspose2dFilterOperandLayout>(
        std::find(names.begin(), names.end(), *l) - names.begin());
  }
  options.bias = call.GetOperandOption(o, "bias");
  return {ConvTranspose2d(call.builder(), input, filter, options)};
}

}  // namespace nnref
