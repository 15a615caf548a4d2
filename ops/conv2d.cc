// WebNN §api-mlgraphbuilder-conv2d.
//
// Numerics. float32 and float16 only (the limits table). Each input * filter product is exact in
// double (at most 2 x 24 significant bits); the products of one output element (its window over
// the input channels of its group) and then the bias are added into the accumulator `acc`, a
// compensated double sum (WindowSum, ops/conv_common.h), and the result is rounded once to the
// output type. NaN and infinities follow IEEE arithmetic.
// Padding: padded positions contribute nothing. An implementation that materialises zero padding
// multiplies 0 by the filter value instead, which gives NaN where that value is infinite or NaN;
// such an output element is marked "value or NaN".
#include "ops/conv2d.h"

#include <algorithm>
#include <cmath>

#include "ops/elementwise.h"

namespace nnref {

const OpLimits kConv2dLimits = {{{"input", kFloatTypes, "", 4, 4},
                                 {"filter", {}, "input", 4, 4},
                                 {"bias", {}, "input", 1, 1},
                                 {"output", {}, "input", 4, 4}}};

Conv2dFilterAxes Conv2dFilterAxesOf(MLConv2dFilterOperandLayout layout) {
  switch (layout) {
    case MLConv2dFilterOperandLayout::kOihw:
      return {0, 1, 2, 3};
    case MLConv2dFilterOperandLayout::kHwio:
      return {3, 2, 0, 1};
    case MLConv2dFilterOperandLayout::kOhwi:
      return {0, 3, 1, 2};
    case MLConv2dFilterOperandLayout::kIhwo:
      return {3, 0, 1, 2};
  }
  return {0, 1, 2, 3};
}

namespace {

class Conv2dKernel final : public Kernel {
 public:
  explicit Conv2dKernel(const Conv2dAttributes& g) : g_(g) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    OperandValue result = DispatchDataType(out[0].dataType, [&]<typename T>() {
      if constexpr (kIsFloatStorage<T>) {
        return Run<T>(in, out[0]);
      } else {
        return OperandValue{};  // unreachable: validation admits float32 and float16 only
      }
    });
    MarkAllIfInputLatitude(in, result);
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
    const Conv2dFilterAxes& fa = g_.filter;
    const auto dim = [](const Shape& s, size_t axis) { return static_cast<int64_t>(s[axis]); };

    const int64_t batches = dim(input.shape(), ia.batch);
    const int64_t input_height = dim(input.shape(), ia.height);
    const int64_t input_width = dim(input.shape(), ia.width);
    const int64_t output_channels = dim(filter.shape(), fa.out);
    const int64_t filter_input_channels = dim(filter.shape(), fa.in);
    const int64_t filter_height = dim(filter.shape(), fa.height);
    const int64_t filter_width = dim(filter.shape(), fa.width);
    const int64_t output_height = dim(out_desc.shape, ia.height);
    const int64_t output_width = dim(out_desc.shape, ia.width);
    const int64_t output_channels_per_group = output_channels / g_.groups;

    const Strides& is = input.strides();
    const int64_t in_batch_stride = is[ia.batch], in_channel_stride = is[ia.channel];
    const int64_t in_y_stride = is[ia.height], in_x_stride = is[ia.width];
    const Strides& fs = filter.strides();
    const int64_t filter_out_stride = fs[fa.out], filter_in_stride = fs[fa.in];
    const int64_t filter_y_stride = fs[fa.height], filter_x_stride = fs[fa.width];

    OperandValue result;
    result.data = Tensor::Allocate(out_desc.dataType, out_desc.shape);
    const Strides os = ContiguousStrides(out_desc.shape);
    const int64_t out_batch_stride = os[ia.batch], out_channel_stride = os[ia.channel];
    const int64_t out_y_stride = os[ia.height], out_x_stride = os[ia.width];
    Tensor latitude = NewLatitude(out_desc.shape);
    bool any_latitude = false;

    const T* input_data = input.base<T>();
    const T* filter_data = filter.base<T>();
    T* output_data = result.data.base<T>();
    for (int64_t batch = 0; batch < batches; ++batch) {
      for (int64_t out_channel = 0; out_channel < output_channels; ++out_channel) {
        const int64_t group = out_channel / output_channels_per_group;
        const int64_t in_channel_begin = group * filter_input_channels;
        for (int64_t out_y = 0; out_y < output_height; ++out_y) {
          const int64_t in_y_origin = out_y * g_.stride_height - g_.pad_top;
          for (int64_t out_x = 0; out_x < output_width; ++out_x) {
            const int64_t in_x_origin = out_x * g_.stride_width - g_.pad_left;
            WindowSum acc;  // the accumulator of one output element
            bool padding_meets_non_finite = false;
            for (int64_t filter_c = 0; filter_c < filter_input_channels; ++filter_c) {
              const int64_t in_channel = in_channel_begin + filter_c;
              for (int64_t filter_y = 0; filter_y < filter_height; ++filter_y) {
                const int64_t in_y = in_y_origin + filter_y * g_.dilation_height;
                for (int64_t filter_x = 0; filter_x < filter_width; ++filter_x) {
                  const int64_t in_x = in_x_origin + filter_x * g_.dilation_width;
                  const double w = ToDouble(
                      filter_data[out_channel * filter_out_stride + filter_c * filter_in_stride +
                                  filter_y * filter_y_stride + filter_x * filter_x_stride]);
                  if (in_y < 0 || in_y >= input_height || in_x < 0 || in_x >= input_width) {
                    padding_meets_non_finite = padding_meets_non_finite || !std::isfinite(w);
                    continue;
                  }
                  acc.Add(
                      ToDouble(input_data[batch * in_batch_stride + in_channel * in_channel_stride +
                                          in_y * in_y_stride + in_x * in_x_stride]) *
                      w);
                }
              }
            }
            if (bias) acc.Add(ToDouble(bias->base<T>()[out_channel * bias->strides()[0]]));
            const int64_t out_offset = batch * out_batch_stride + out_channel * out_channel_stride +
                                       out_y * out_y_stride + out_x * out_x_stride;
            const double value = acc.QuotientToOdd();  // rounded to odd: see WindowSum
            output_data[out_offset] = RoundTo<T>(value);
            if (padding_meets_non_finite && !std::isnan(value)) {
              latitude.base<uint8_t>()[out_offset] = static_cast<uint8_t>(Latitude::kValueOrNaN);
              any_latitude = true;
            }
          }
        }
      }
    }
    if (any_latitude) result.latitude = std::move(latitude);
    return result;
  }

  Conv2dAttributes g_;
};

}  // namespace

Operand Conv2d(GraphBuilder& builder, const Operand& input, const Operand& filter,
               const MLConv2dOptions& options) {
  const std::string name = OperatorDisplayName("conv2d", options);
  builder.CheckCanBuild(name);                    // step 1
  builder.ValidateOperand(name, "input", input);  // step 2
  builder.ValidateOperand(name, "filter", filter);
  if (options.bias) builder.ValidateOperand(name, "options.bias", *options.bias);
  const OperandDescriptor in = builder.Desc(input);
  const OperandDescriptor fd = builder.Desc(filter);
  CheckDataType(name, "input", in.dataType, kConv2dLimits.Find("input")->types);  // step 3
  CheckRank(name, kConv2dLimits, "input", in.shape.size());                       // step 4
  CheckRank(name, kConv2dLimits, "filter", fd.shape.size());                      // step 5
  CheckSameType(name, "filter", fd.dataType, "input", in.dataType);               // step 6
  const std::vector<uint32_t> padding =
      ListOrDefault(name, "padding", options.padding, {0, 0, 0, 0});  // steps 7-8
  const std::vector<uint32_t> strides =
      ListOrDefault(name, "strides", options.strides, {1, 1});  // steps 9-10
  CheckNoZeroItem(name, "strides", strides);                    // step 11
  const std::vector<uint32_t> dilations =
      ListOrDefault(name, "dilations", options.dilations, {1, 1});          // steps 12-13
  CheckNoZeroItem(name, "dilations", dilations);                            // step 14
  if (options.groups == 0) ThrowTypeError(name + ": options.groups is 0");  // step 15

  // Step 16: calculate the output shape. 16.1-16.4: name the dimensions by layout.
  const ImageAxes ia = AxesOf(options.inputLayout);
  const Conv2dFilterAxes fa = Conv2dFilterAxesOf(options.filterLayout);
  const uint64_t batches = in.shape[ia.batch], input_channels = in.shape[ia.channel];
  const uint64_t input_height = in.shape[ia.height], input_width = in.shape[ia.width];
  const uint64_t output_channels = fd.shape[fa.out], filter_input_channels = fd.shape[fa.in];
  const uint64_t filter_height = fd.shape[fa.height], filter_width = fd.shape[fa.width];
  const uint32_t groups = options.groups;
  if (input_channels % groups != 0) {  // step 16.5
    ThrowTypeError(name + ": inputChannels " + std::to_string(input_channels) +
                   " is not divisible by groups " + std::to_string(groups));
  }
  if (input_channels / groups != filter_input_channels) {  // step 16.6
    ThrowTypeError(name + ": inputChannels / groups = " + std::to_string(input_channels / groups) +
                   " differs from the filter's input channels " +
                   std::to_string(filter_input_channels));
  }
  if (output_channels % groups != 0) {  // step 16.7
    ThrowTypeError(name + ": outputChannels " + std::to_string(output_channels) +
                   " is not divisible by groups " + std::to_string(groups));
  }
  if (options.bias) {  // step 16.8
    const OperandDescriptor bd = builder.Desc(*options.bias);
    if (bd.shape != Shape{output_channels}) {  // step 16.8.1
      ThrowTypeError(name + ": options.bias shape " + ShapeToString(bd.shape) + " is not [" +
                     std::to_string(output_channels) + "]");
    }
    CheckSameType(name, "bias", bd.dataType, "input", in.dataType);  // step 16.8.2
  }
  // Steps 16.9-16.11: calculate conv2d output sizes, then floor.
  const __int128 output_height = CalculateConvOutputSize(input_height, filter_height, padding[0],
                                                         padding[1], strides[0], dilations[0])
                                     .Floor();
  const __int128 output_width = CalculateConvOutputSize(input_width, filter_width, padding[2],
                                                        padding[3], strides[1], dilations[1])
                                    .Floor();
  if (!IsValidDimension(output_height) || !IsValidDimension(output_width)) {  // step 16.12
    ThrowTypeError(name + ": the output size " + Int128ToString(output_height) + " x " +
                   Int128ToString(output_width) + " is not a valid dimension");
  }
  Shape output_shape(4);  // step 16.13
  output_shape[ia.batch] = batches;
  output_shape[ia.channel] = output_channels;
  output_shape[ia.height] = static_cast<uint64_t>(output_height);
  output_shape[ia.width] = static_cast<uint64_t>(output_width);

  // Step 17: make graph connections. The tolerance scales with the products summed per output
  // element: kernelHeight * kernelWidth * inputChannels / groups.
  auto g = std::make_shared<Conv2dAttributes>();
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
  OperatorNode node{"conv2d",
                    options.label,
                    std::move(inputs),
                    {},
                    std::make_shared<Conv2dKernel>(*g),
                    {"conv2d", in.dataType, filter_height * filter_width * filter_input_channels}};
  node.attributes = std::move(g);
  return builder.AddOperator(std::move(node), {{in.dataType, output_shape}})[0];  // step 18
}

std::vector<Operand> CallConv2d(OpCall& call) {
  call.ExpectAtMost(3);
  const Operand input = call.GetOperand(0, "input");
  const Operand filter = call.GetOperand(1, "filter");
  const Value& o = call.GetOptions(2);
  MLConv2dOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  options.padding = call.GetUint32ListOption(o, "padding");
  options.strides = call.GetUint32ListOption(o, "strides");
  options.dilations = call.GetUint32ListOption(o, "dilations");
  options.groups = call.GetUint32Option(o, "groups").value_or(1);
  if (auto l = call.GetEnumOption(o, "inputLayout", kInputLayoutNames)) {
    options.inputLayout = InputLayoutFromName(*l);
  }
  if (auto l = call.GetEnumOption(o, "filterLayout", kConv2dFilterLayoutNames)) {
    const auto it = std::find(kConv2dFilterLayoutNames.begin(), kConv2dFilterLayoutNames.end(), *l);
    options.filterLayout =
        static_cast<MLConv2dFilterOperandLayout>(it - kConv2dFilterLayoutNames.begin());
  }
  options.bias = call.GetOperandOption(o, "bias");
  return {Conv2d(call.builder(), input, filter, options)};
}

}  // namespace nnref
