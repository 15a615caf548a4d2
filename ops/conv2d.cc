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
#include <atomic>
#include <cmath>
#include <vector>

#include "ops/bounded_sum.h"
#include "ops/elementwise.h"
#include "ref/parallel/parallel.h"

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
  // The operands and sizes of one computation, in the loop nest's terms.
  template <typename T>
  struct Problem {
    const T* input;
    const T* filter;
    const T* bias;  // null without a bias
    int64_t bias_stride;
    int64_t batches, input_height, input_width;
    int64_t output_channels, filter_input_channels, filter_height, filter_width;
    int64_t output_height, output_width, output_channels_per_group;
    int64_t in_batch_stride, in_channel_stride, in_y_stride, in_x_stride;
    int64_t filter_out_stride, filter_in_stride, filter_y_stride, filter_x_stride;
    int64_t out_batch_stride, out_channel_stride, out_y_stride, out_x_stride;
  };

  // One output element by the exact path: its products, then the bias, added into the compensated
  // accumulator `acc` and rounded to odd, then once to T. Sets `value_or_nan` when a padded
  // position meets a non-finite filter value (see the top of the file).
  template <typename T>
  T ExactElement(const Problem<T>& p, int64_t batch, int64_t out_channel, int64_t out_y,
                 int64_t out_x, bool& value_or_nan) const {
    const int64_t group = out_channel / p.output_channels_per_group;
    const int64_t in_channel_begin = group * p.filter_input_channels;
    const int64_t in_y_origin = out_y * g_.stride_height - g_.pad_top;
    const int64_t in_x_origin = out_x * g_.stride_width - g_.pad_left;
    WindowSum acc;  // the accumulator of one output element
    bool padding_meets_non_finite = false;
    for (int64_t filter_c = 0; filter_c < p.filter_input_channels; ++filter_c) {
      const int64_t in_channel = in_channel_begin + filter_c;
      for (int64_t filter_y = 0; filter_y < p.filter_height; ++filter_y) {
        const int64_t in_y = in_y_origin + filter_y * g_.dilation_height;
        for (int64_t filter_x = 0; filter_x < p.filter_width; ++filter_x) {
          const int64_t in_x = in_x_origin + filter_x * g_.dilation_width;
          const double w =
              ToDouble(p.filter[out_channel * p.filter_out_stride + filter_c * p.filter_in_stride +
                                filter_y * p.filter_y_stride + filter_x * p.filter_x_stride]);
          if (in_y < 0 || in_y >= p.input_height || in_x < 0 || in_x >= p.input_width) {
            padding_meets_non_finite = padding_meets_non_finite || !std::isfinite(w);
            continue;
          }
          acc.Add(ToDouble(p.input[batch * p.in_batch_stride + in_channel * p.in_channel_stride +
                                   in_y * p.in_y_stride + in_x * p.in_x_stride]) *
                  w);
        }
      }
    }
    if (p.bias) acc.Add(ToDouble(p.bias[out_channel * p.bias_stride]));
    const double value = acc.QuotientToOdd();  // rounded to odd: see WindowSum
    value_or_nan = padding_meets_non_finite && !std::isnan(value);
    return RoundTo<T>(value);
  }

  // The output positions [first, last) along one axis whose input coordinate
  // out * stride - pad + tap stays inside [0, size).
  static void ValidRange(int64_t count, int64_t stride, int64_t pad, int64_t tap, int64_t size,
                         int64_t& first, int64_t& last) {
    // in = out * stride + (tap - pad); 0 <= in < size.
    const int64_t shift = tap - pad;
    first = shift >= 0 ? 0 : (-shift + stride - 1) / stride;
    last = size - shift <= 0 ? 0 : std::min(count, (size - shift - 1) / stride + 1);
    if (last < first) last = first;
  }

  // The fast path for one (batch, output channel) plane: every element's products and bias summed
  // in plain double (the same terms as ExactElement, the loop nest reordered so that the innermost
  // loop runs along an output row), then rounded once when the error bound decides
  // (ops/bounded_sum.h), else recomputed by ExactElement. `magnitude` holds, per output position of
  // this batch and group, the sum of |input| over the window; max_abs_w bounds |w| of this output
  // channel, so max_abs_w * magnitude + |bias| bounds the sum of the terms' magnitudes.
  template <typename T>
  void FastPlane(const Problem<T>& p, int64_t batch, int64_t out_channel, const double* magnitude,
                 double max_abs_w, double* acc, T* out) const {
    const int64_t oh = p.output_height, ow = p.output_width;
    std::fill(acc, acc + oh * ow, 0.0);
    const int64_t group = out_channel / p.output_channels_per_group;
    ForEachWindowRow(
        p, batch, group, acc,
        [&](int64_t filter_c, int64_t filter_y, int64_t filter_x, const T* row, double* a,
            int64_t n, int64_t x_step) {
          const double w =
              ToDouble(p.filter[out_channel * p.filter_out_stride + filter_c * p.filter_in_stride +
                                filter_y * p.filter_y_stride + filter_x * p.filter_x_stride]);
          if (x_step == 1) {  // dense rows: a plain loop the compiler vectorizes
            for (int64_t x = 0; x < n; ++x) a[x] += ToDouble(row[x]) * w;
          } else {
            for (int64_t x = 0; x < n; ++x) a[x] += ToDouble(row[x * x_step]) * w;
          }
        });
    const double bias = p.bias ? ToDouble(p.bias[out_channel * p.bias_stride]) : 0.0;
    const uint64_t terms =
        static_cast<uint64_t>(p.filter_input_channels * p.filter_height * p.filter_width) + 1;
    for (int64_t y = 0; y < oh; ++y) {
      for (int64_t x = 0; x < ow; ++x) {
        const double sum = acc[y * ow + x] + bias;
        const double bound =
            SumErrorBound(terms, max_abs_w * magnitude[y * ow + x] + std::fabs(bias));
        T& o = out[batch * p.out_batch_stride + out_channel * p.out_channel_stride +
                   y * p.out_y_stride + x * p.out_x_stride];
        if (!RoundWithinBound(sum, bound, o)) {
          bool value_or_nan = false;  // stays false: the filter is finite on this path
          o = ExactElement(p, batch, out_channel, y, x, value_or_nan);
        }
      }
    }
  }

  // Per output position of (batch, group): the sum of |input| over the window (all input
  // channels of the group, padded positions excluded). Plain double; the error bound's factor 2
  // covers its rounding.
  template <typename T>
  void WindowMagnitude(const Problem<T>& p, int64_t batch, int64_t group, double* m) const {
    const int64_t oh = p.output_height, ow = p.output_width;
    std::fill(m, m + oh * ow, 0.0);
    ForEachWindowRow(
        p, batch, group, m,
        [](int64_t, int64_t, int64_t, const T* row, double* a, int64_t n, int64_t x_step) {
          for (int64_t x = 0; x < n; ++x) a[x] += std::fabs(ToDouble(row[x * x_step]));
        });
  }

  // The loop nest of FastPlane and WindowMagnitude over the plane of (batch, group): for each
  // input channel of the group (filter_c), filter tap (filter_y, filter_x) and output row y, the
  // output columns [x0, x1) whose window position is inside the input (padded positions are left
  // out). Calls fn(filter_c, filter_y, filter_x, row, a, n, x_step): the n = x1 - x0 input
  // elements `row`, x_step apart, that those columns read, and `a`, the plane's elements from
  // (y, x0).
  template <typename T, typename Fn>
  void ForEachWindowRow(const Problem<T>& p, int64_t batch, int64_t group, double* plane,
                        Fn&& fn) const {
    const int64_t oh = p.output_height, ow = p.output_width;
    for (int64_t filter_c = 0; filter_c < p.filter_input_channels; ++filter_c) {
      const T* channel = p.input + batch * p.in_batch_stride +
                         (group * p.filter_input_channels + filter_c) * p.in_channel_stride;
      for (int64_t filter_y = 0; filter_y < p.filter_height; ++filter_y) {
        int64_t y0, y1;
        ValidRange(oh, g_.stride_height, g_.pad_top, filter_y * g_.dilation_height, p.input_height,
                   y0, y1);
        for (int64_t filter_x = 0; filter_x < p.filter_width; ++filter_x) {
          int64_t x0, x1;
          ValidRange(ow, g_.stride_width, g_.pad_left, filter_x * g_.dilation_width, p.input_width,
                     x0, x1);
          const int64_t x_step = g_.stride_width * p.in_x_stride;
          for (int64_t y = y0; y < y1; ++y) {
            const int64_t in_y = y * g_.stride_height - g_.pad_top + filter_y * g_.dilation_height;
            const T* row =
                channel + in_y * p.in_y_stride +
                (x0 * g_.stride_width - g_.pad_left + filter_x * g_.dilation_width) * p.in_x_stride;
            fn(filter_c, filter_y, filter_x, row, plane + y * ow + x0, x1 - x0, x_step);
          }
        }
      }
    }
  }

  template <typename T>
  OperandValue Run(std::span<const OperandValue* const> in,
                   const OperandDescriptor& out_desc) const {
    const Tensor& input = in[0]->data;
    const Tensor& filter = in[1]->data;
    const Tensor* bias = in.size() > 2 ? &in[2]->data : nullptr;
    const ImageAxes& ia = g_.image;
    const Conv2dFilterAxes& fa = g_.filter;
    const auto dim = [](const Shape& s, size_t axis) { return static_cast<int64_t>(s[axis]); };

    Problem<T> p;
    p.input = input.base<T>();
    p.filter = filter.base<T>();
    p.bias = bias ? bias->base<T>() : nullptr;
    p.bias_stride = bias ? bias->strides()[0] : 0;
    p.batches = dim(input.shape(), ia.batch);
    p.input_height = dim(input.shape(), ia.height);
    p.input_width = dim(input.shape(), ia.width);
    p.output_channels = dim(filter.shape(), fa.out);
    p.filter_input_channels = dim(filter.shape(), fa.in);
    p.filter_height = dim(filter.shape(), fa.height);
    p.filter_width = dim(filter.shape(), fa.width);
    p.output_height = dim(out_desc.shape, ia.height);
    p.output_width = dim(out_desc.shape, ia.width);
    p.output_channels_per_group = p.output_channels / g_.groups;

    const Strides& is = input.strides();
    p.in_batch_stride = is[ia.batch];
    p.in_channel_stride = is[ia.channel];
    p.in_y_stride = is[ia.height];
    p.in_x_stride = is[ia.width];
    const Strides& fs = filter.strides();
    p.filter_out_stride = fs[fa.out];
    p.filter_in_stride = fs[fa.in];
    p.filter_y_stride = fs[fa.height];
    p.filter_x_stride = fs[fa.width];

    OperandValue result;
    result.data = Tensor::Allocate(out_desc.dataType, out_desc.shape);
    const Strides os = ContiguousStrides(out_desc.shape);
    p.out_batch_stride = os[ia.batch];
    p.out_channel_stride = os[ia.channel];
    p.out_y_stride = os[ia.height];
    p.out_x_stride = os[ia.width];
    T* output_data = result.data.base<T>();

    // The largest |w| of each output channel's filter; a non-finite filter value (whose product
    // with a padded position is open) sends the whole computation down the exact path.
    std::vector<double> max_abs_w(static_cast<size_t>(p.output_channels), 0.0);
    bool finite_filter = true;
    for (int64_t oc = 0; oc < p.output_channels; ++oc) {
      for (int64_t c = 0; c < p.filter_input_channels; ++c) {
        for (int64_t fy = 0; fy < p.filter_height; ++fy) {
          for (int64_t fx = 0; fx < p.filter_width; ++fx) {
            const double w = ToDouble(p.filter[oc * p.filter_out_stride + c * p.filter_in_stride +
                                               fy * p.filter_y_stride + fx * p.filter_x_stride]);
            finite_filter = finite_filter && std::isfinite(w);
            max_abs_w[static_cast<size_t>(oc)] =
                std::max(max_abs_w[static_cast<size_t>(oc)], std::fabs(w));
          }
        }
      }
    }

    const int64_t plane = p.output_height * p.output_width;
    const auto planes = static_cast<size_t>(p.batches * p.output_channels);
    if (!finite_filter) {
      Tensor latitude = NewLatitude(out_desc.shape);
      uint8_t* marks = latitude.base<uint8_t>();
      std::atomic<bool> any_latitude = false;
      ParallelFor(planes, 1, [&](size_t begin, size_t end) {
        for (size_t bo = begin; bo < end; ++bo) {
          const auto batch = static_cast<int64_t>(bo) / p.output_channels;
          const auto out_channel = static_cast<int64_t>(bo) % p.output_channels;
          for (int64_t y = 0; y < p.output_height; ++y) {
            for (int64_t x = 0; x < p.output_width; ++x) {
              const int64_t at = batch * p.out_batch_stride + out_channel * p.out_channel_stride +
                                 y * p.out_y_stride + x * p.out_x_stride;
              bool value_or_nan = false;
              output_data[at] = ExactElement(p, batch, out_channel, y, x, value_or_nan);
              if (value_or_nan) {
                marks[at] = static_cast<uint8_t>(Latitude::kValueOrNaN);
                any_latitude = true;
              }
            }
          }
        }
      });
      if (any_latitude) result.latitude = std::move(latitude);
      return result;
    }

    // The window magnitudes of every (batch, group), then the planes of every (batch, output
    // channel), each on the reference's threads; every plane is computed alone.
    const auto groups = static_cast<size_t>(p.batches * g_.groups);
    std::vector<double> magnitudes(groups * static_cast<size_t>(plane));
    ParallelFor(groups, 1, [&](size_t begin, size_t end) {
      for (size_t bg = begin; bg < end; ++bg) {
        WindowMagnitude(p, static_cast<int64_t>(bg) / g_.groups,
                        static_cast<int64_t>(bg) % g_.groups,
                        magnitudes.data() + bg * static_cast<size_t>(plane));
      }
    });
    ParallelFor(planes, 1, [&](size_t begin, size_t end) {
      std::vector<double> acc(static_cast<size_t>(plane));
      for (size_t bo = begin; bo < end; ++bo) {
        const auto batch = static_cast<int64_t>(bo) / p.output_channels;
        const auto out_channel = static_cast<int64_t>(bo) % p.output_channels;
        const auto bg =
            static_cast<size_t>(batch * g_.groups + out_channel / p.output_channels_per_group);
        FastPlane(p, batch, out_channel, magnitudes.data() + bg * static_cast<size_t>(plane),
                  max_abs_w[static_cast<size_t>(out_channel)], acc.data(), output_data);
      }
    });
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
  // Steps 7-14.
  const auto [padding, strides, dilations] =
      ConvWindowListsOf(name, options.padding, options.strides, options.dilations);
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
  CheckConvBias(builder, name, options.bias, output_channels, in.dataType);  // step 16.8
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
  OperatorNode node{
      OpId::conv2d,
      options.label,
      std::move(inputs),
      {},
      std::make_shared<Conv2dKernel>(*g),
      {OpId::conv2d, in.dataType, filter_height * filter_width * filter_input_channels}};
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
