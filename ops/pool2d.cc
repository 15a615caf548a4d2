// WebNN §api-mlgraphbuilder-pool2d: averagePool2d, l2Pool2d, maxPool2d.
//
// Window positions outside the input (padding, and the partial windows that "ceil" rounding or
// outputSizes add past the end) are not elements. The text never says what padding contributes
// (spec-notes #3); nnref reads it as:
//  - averagePool2d divides the sum by the count of real (non-padding) elements;
//  - l2Pool2d: padding contributes nothing to the sum of squares;
//  - maxPool2d: padding never wins.
// A window with no real element at all leaves averagePool2d (0/0) and maxPool2d open: the element
// is NaN / the lowest value and marked implementation-defined. For l2Pool2d it is 0.
//
// Numerics. averagePool2d and l2Pool2d (float32, float16): the window's elements, or their
// squares, are added into the accumulator `sum`, a compensated double sum (WindowSum,
// ops/conv_common.h; every float32 square is exact in double and no float32 sum of squares
// overflows it). The average (sum / count) and the L2 norm (sqrt of the sum) are taken from it
// rounded to odd and then rounded once to the output type: correctly rounded. maxPool2d (every data
// type) selects an input element exactly. It propagates NaN and marks such an element
// implementation-defined (the spec gives no NaN rule, as for max()); between equal zeros +0 wins
// over -0.
//
// outputSizes (spec-notes #4): the steps reset padding to 0 when outputSizes is given and require
// each output size to be smaller than the stride. nnref follows them as written.
#include "ops/pool2d.h"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
#include <type_traits>

#include "ops/bounded_sum.h"
#include "ops/elementwise.h"
#include "ref/parallel/parallel.h"

namespace nnref {

const OpLimits kAveragePool2dL2Pool2dLimits = {
    {{"input", kFloatTypes, "", 4, 4}, {"output", {}, "input", 4, 4}}};
const OpLimits kMaxPool2dLimits = {
    {{"input", DataTypeSet::All(), "", 4, 4}, {"output", {}, "input", 4, 4}}};

OpId PoolOpId(PoolOp op) {
  switch (op) {
    case PoolOp::kAverage:
      return OpId::averagePool2d;
    case PoolOp::kL2:
      return OpId::l2Pool2d;
    case PoolOp::kMax:
      return OpId::maxPool2d;
  }
  return OpId::averagePool2d;  // unreachable: every op is listed
}

namespace {

using Pool2dGeometry = Pool2dAttributes;

template <typename T>
bool IsNegativeZero(T v) {
  if constexpr (kIsFloatStorage<T>) {
    return ToDouble(v) == 0 && std::signbit(ToDouble(v));
  } else {
    return false;
  }
}

class Pool2dKernel final : public Kernel {
 public:
  Pool2dKernel(PoolOp op, const Pool2dGeometry& g) : op_(op), g_(g) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    OperandValue result = DispatchDataType(
        out[0].dataType, [&]<typename T>() { return Run<T>(in[0]->data, out[0]); });
    MarkAllIfInputLatitude(in, result);
    return {std::move(result)};
  }

 private:
  // One output element from the window of input elements at (in_y, in_x) for the given origin.
  // `at(in_y, in_x)` reads an element; positions outside the input are skipped. With Acc =
  // BoundedSum the average or L2 norm is the plain sum's when its error bound decides the
  // rounding (ops/bounded_sum.h); otherwise `decided` is cleared and the caller recomputes the
  // element with Acc = WindowSum, the exact path.
  template <typename T, typename Acc, typename At>
  T Reduce(int64_t in_y_origin, int64_t in_x_origin, int64_t input_height, int64_t input_width,
           const At& at, Latitude& la, bool& decided) const {
    Acc sum;  // the accumulator of averagePool2d and l2Pool2d
    int64_t count = 0;
    bool any_nan = false;
    T best{};
    for (int64_t window_y = 0; window_y < g_.window_height; ++window_y) {
      const int64_t in_y = in_y_origin + window_y * g_.dilation_height;
      if (in_y < 0 || in_y >= input_height) continue;
      for (int64_t window_x = 0; window_x < g_.window_width; ++window_x) {
        const int64_t in_x = in_x_origin + window_x * g_.dilation_width;
        if (in_x < 0 || in_x >= input_width) continue;
        const T x = at(in_y, in_x);
        if constexpr (kIsFloatStorage<T>) {
          const double v = ToDouble(x);
          sum.Add(op_ == PoolOp::kL2 ? v * v : v);
          any_nan = any_nan || std::isnan(v);
        }
        if (op_ == PoolOp::kMax && count > 0) {
          const auto v = Widen(x), b = Widen(best);
          if (v > b || (v == b && IsNegativeZero(best) && !IsNegativeZero(x))) best = x;
        } else if (count == 0) {
          best = x;
        }
        ++count;
      }
    }
    if (op_ == PoolOp::kMax) {
      if (count == 0) {  // no real element: open
        la = Latitude::kAny;
        if constexpr (kIsFloatStorage<T>) {
          return RoundTo<T>(-kInfinity);
        } else {
          return std::numeric_limits<T>::lowest();
        }
      }
      if constexpr (kIsFloatStorage<T>) {
        if (any_nan) {  // max() has no NaN rule: NaN, marked
          la = Latitude::kAny;
          return RoundTo<T>(std::numeric_limits<double>::quiet_NaN());
        }
      }
      return best;
    }
    if constexpr (kIsFloatStorage<T>) {
      if constexpr (std::is_same_v<Acc, BoundedSum>) {
        T out{};
        if (op_ == PoolOp::kL2) {
          if (count == 0) return RoundTo<T>(0.0);  // nothing summed: +0, as the exact path
          decided = sum.RoundSqrt(out);
          return out;
        }
        if (count == 0) {  // the average of nothing: 0 / 0, open
          la = Latitude::kAny;
          return RoundTo<T>(std::numeric_limits<double>::quiet_NaN());
        }
        decided = sum.RoundQuotient(static_cast<double>(count), out);
        return out;
      } else {
        if (op_ == PoolOp::kL2) return RoundTo<T>(sum.SqrtToOdd());
        if (count == 0) {  // the average of nothing: 0 / 0, open
          la = Latitude::kAny;
          return RoundTo<T>(std::numeric_limits<double>::quiet_NaN());
        }
        return RoundTo<T>(sum.QuotientToOdd(static_cast<double>(count)));
      }
    }
    return T{};  // unreachable: averagePool2d and l2Pool2d admit float32 and float16 only
  }

  template <typename T>
  OperandValue Run(const Tensor& input, const OperandDescriptor& out_desc) const {
    const ImageAxes& ia = g_.image;
    const auto dim = [](const Shape& s, size_t axis) { return static_cast<int64_t>(s[axis]); };
    const int64_t batches = dim(input.shape(), ia.batch);
    const int64_t channels = dim(input.shape(), ia.channel);
    const int64_t input_height = dim(input.shape(), ia.height);
    const int64_t input_width = dim(input.shape(), ia.width);
    const int64_t output_height = dim(out_desc.shape, ia.height);
    const int64_t output_width = dim(out_desc.shape, ia.width);
    const Strides& is = input.strides();
    const int64_t in_batch_stride = is[ia.batch], in_channel_stride = is[ia.channel];
    const int64_t in_y_stride = is[ia.height], in_x_stride = is[ia.width];

    OperandValue result;
    result.data = Tensor::Allocate(out_desc.dataType, out_desc.shape);
    const Strides os = ContiguousStrides(out_desc.shape);
    const int64_t out_batch_stride = os[ia.batch], out_channel_stride = os[ia.channel];
    const int64_t out_y_stride = os[ia.height], out_x_stride = os[ia.width];
    Tensor latitude = NewLatitude(out_desc.shape);

    const T* input_data = input.base<T>();
    T* output_data = result.data.base<T>();
    // The (batch, channel) planes on the reference's threads: every element is computed alone.
    std::atomic<bool> any_latitude = false;
    uint8_t* marks = latitude.base<uint8_t>();
    ParallelFor(static_cast<size_t>(batches * channels), 1, [&](size_t begin, size_t end) {
      for (size_t bc = begin; bc < end; ++bc) {
        const auto batch = static_cast<int64_t>(bc) / channels;
        const auto channel = static_cast<int64_t>(bc) % channels;
        const T* plane = input_data + batch * in_batch_stride + channel * in_channel_stride;
        const auto at = [&](int64_t in_y, int64_t in_x) {
          return plane[in_y * in_y_stride + in_x * in_x_stride];
        };
        for (int64_t out_y = 0; out_y < output_height; ++out_y) {
          const int64_t in_y_origin = out_y * g_.stride_height - g_.pad_top;
          for (int64_t out_x = 0; out_x < output_width; ++out_x) {
            const int64_t in_x_origin = out_x * g_.stride_width - g_.pad_left;
            Latitude la = Latitude::kExact;
            const int64_t out_offset = batch * out_batch_stride + channel * out_channel_stride +
                                       out_y * out_y_stride + out_x * out_x_stride;
            bool decided = true;
            T value = Reduce<T, BoundedSum>(in_y_origin, in_x_origin, input_height, input_width, at,
                                            la, decided);
            if (!decided) {
              la = Latitude::kExact;
              value = Reduce<T, WindowSum>(in_y_origin, in_x_origin, input_height, input_width, at,
                                           la, decided);
            }
            output_data[out_offset] = value;
            if (la != Latitude::kExact) {
              marks[out_offset] = static_cast<uint8_t>(la);
              any_latitude = true;
            }
          }
        }
      }
    });
    if (any_latitude) result.latitude = std::move(latitude);
    return result;
  }

  PoolOp op_;
  Pool2dGeometry g_;
};

std::string PairToString(uint64_t a, uint64_t b) {
  std::string s = "[";  // appended piecewise: GCC 12's -Wrestrict misfires on "[" + to_string
  s += std::to_string(a);
  s += ", ";
  s += std::to_string(b);
  s += "]";
  return s;
}

}  // namespace

// "create a pooling operation". Step 1 (the assertion on op) holds by the PoolOp type.
Operand Pool2d(GraphBuilder& builder, PoolOp op, const Operand& input,
               const MLPool2dOptions& options) {
  const std::string name = OperatorDisplayName(PoolOpId(op), options);
  const OpLimits& limits = op == PoolOp::kMax ? kMaxPool2dLimits : kAveragePool2dL2Pool2dLimits;
  builder.CheckCanBuild(name);                    // step 2
  builder.ValidateOperand(name, "input", input);  // step 3
  const OperandDescriptor in = builder.Desc(input);
  // Step 4: averagePool2d and l2Pool2d pass « float32, float16 »; maxPool2d passes none (any).
  CheckDataType(name, "input", in.dataType, limits.Find("input")->types);
  CheckRank(name, limits, "input", in.shape.size());  // step 5
  const ImageAxes ia = AxesOf(options.layout);        // step 6
  const uint64_t input_height = in.shape[ia.height], input_width = in.shape[ia.width];
  const std::vector<uint32_t> window = ListOrDefault(  // steps 7-8
      name, "windowDimensions", options.windowDimensions,
      {static_cast<uint32_t>(input_height), static_cast<uint32_t>(input_width)});
  CheckNoZeroItem(name, "windowDimensions", window);  // step 9
  // Step 10: outputSizes resets padding to « 0, 0, 0, 0 » (spec-notes #4).
  const std::vector<uint32_t> padding = ListOrDefault(  // step 11
      name, "padding", options.outputSizes ? std::nullopt : options.padding, {0, 0, 0, 0});
  const std::vector<uint32_t> strides =
      ListOrDefault(name, "strides", options.strides, {1, 1});  // steps 12-13
  CheckNoZeroItem(name, "strides", strides);                    // step 14
  if (options.outputSizes) {                                    // step 15
    const std::vector<uint32_t> sizes =
        ListOrDefault(name, "outputSizes", options.outputSizes, {0, 0});  // step 15.1
    if (sizes[0] >= strides[0] || sizes[1] >= strides[1]) {               // step 15.2
      ThrowTypeError(name + ": options.outputSizes " + PairToString(sizes[0], sizes[1]) +
                     " is not smaller than strides " + PairToString(strides[0], strides[1]) +
                     " (spec-notes #4)");
    }
  }
  const std::vector<uint32_t> dilations =
      ListOrDefault(name, "dilations", options.dilations, {1, 1});  // steps 16-17
  CheckNoZeroItem(name, "dilations", dilations);                    // step 18

  // Steps 19-20: calculate the output shape.
  const ConvOutputSize calculated_height = CalculateConvOutputSize(
      input_height, window[0], padding[0], padding[1], strides[0], dilations[0]);  // step 20.2
  const ConvOutputSize calculated_width = CalculateConvOutputSize(
      input_width, window[1], padding[2], padding[3], strides[1], dilations[1]);
  __int128 output_height = 0, output_width = 0;
  if (options.outputSizes) {  // step 20.3
    output_height = (*options.outputSizes)[0];
    output_width = (*options.outputSizes)[1];
    const bool is_floor =
        output_height == calculated_height.Floor() && output_width == calculated_width.Floor();
    const bool is_ceil =
        output_height == calculated_height.Ceil() && output_width == calculated_width.Ceil();
    if (!is_floor && !is_ceil) {  // step 20.3.2
      ThrowTypeError(name + ": options.outputSizes " +
                     PairToString((*options.outputSizes)[0], (*options.outputSizes)[1]) +
                     " is neither the floor [" + Int128ToString(calculated_height.Floor()) + ", " +
                     Int128ToString(calculated_width.Floor()) + "] nor the ceiling [" +
                     Int128ToString(calculated_height.Ceil()) + ", " +
                     Int128ToString(calculated_width.Ceil()) + "] of the calculated sizes");
    }
  } else if (options.outputShapeRounding == MLRoundingType::kFloor) {  // step 20.4
    output_height = calculated_height.Floor();
    output_width = calculated_width.Floor();
  } else {
    output_height = calculated_height.Ceil();
    output_width = calculated_width.Ceil();
  }
  if (!IsValidDimension(output_height) || !IsValidDimension(output_width)) {  // step 20.5
    ThrowTypeError(name + ": the output size " + Int128ToString(output_height) + " x " +
                   Int128ToString(output_width) + " is not a valid dimension");
  }
  Shape output_shape = in.shape;  // steps 20.6-20.7
  output_shape[ia.height] = static_cast<uint64_t>(output_height);
  output_shape[ia.width] = static_cast<uint64_t>(output_width);

  // Step 21: make graph connections. Tolerance size: the window's element count.
  auto g = std::make_shared<Pool2dAttributes>();
  g->op = op;
  g->window_height = window[0];
  g->window_width = window[1];
  g->pad_top = padding[0];
  g->pad_left = padding[2];
  g->stride_height = strides[0];
  g->stride_width = strides[1];
  g->dilation_height = dilations[0];
  g->dilation_width = dilations[1];
  g->image = ia;
  OperatorNode node{PoolOpId(op),
                    options.label,
                    {input.id},
                    {},
                    std::make_shared<Pool2dKernel>(op, *g),
                    {PoolOpId(op), in.dataType, uint64_t{window[0]} * window[1]}};
  node.attributes = std::move(g);
  return builder.AddOperator(std::move(node), {{in.dataType, output_shape}})[0];  // step 22
}

Operand AveragePool2d(GraphBuilder& builder, const Operand& input, const MLPool2dOptions& options) {
  return Pool2d(builder, PoolOp::kAverage, input, options);
}

Operand L2Pool2d(GraphBuilder& builder, const Operand& input, const MLPool2dOptions& options) {
  return Pool2d(builder, PoolOp::kL2, input, options);
}

Operand MaxPool2d(GraphBuilder& builder, const Operand& input, const MLPool2dOptions& options) {
  return Pool2d(builder, PoolOp::kMax, input, options);
}

template <PoolOp K>
std::vector<Operand> CallPool2d(OpCall& call) {
  call.ExpectAtMost(2);
  const Operand input = call.GetOperand(0, "input");
  const Value& o = call.GetOptions(1);
  MLPool2dOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  options.windowDimensions = call.GetUint32ListOption(o, "windowDimensions");
  options.padding = call.GetUint32ListOption(o, "padding");
  options.strides = call.GetUint32ListOption(o, "strides");
  options.dilations = call.GetUint32ListOption(o, "dilations");
  if (auto l = call.GetEnumOption(o, "layout", kInputLayoutNames)) {
    options.layout = InputLayoutFromName(*l);
  }
  const std::vector<std::string> roundings = {"floor", "ceil"};
  std::optional<std::string> rounding = call.GetEnumOption(o, "outputShapeRounding", roundings);
  // spec-notes #2: `roundingType` is the older name of the member; the current name wins.
  if (auto old = call.GetEnumOption(o, "roundingType", roundings)) {
    call.Warn(rounding ? "options.roundingType is the older name of outputShapeRounding, which is "
                         "also given and wins"
                       : "options.roundingType is the older name of outputShapeRounding "
                         "(spec-notes #2)");
    if (!rounding) rounding = old;
  }
  if (rounding == "ceil") options.outputShapeRounding = MLRoundingType::kCeil;
  options.outputSizes = call.GetUint32ListOption(o, "outputSizes");
  return {Pool2d(call.builder(), K, input, options)};
}

template std::vector<Operand> CallPool2d<PoolOp::kAverage>(OpCall&);
template std::vector<Operand> CallPool2d<PoolOp::kL2>(OpCall&);
template std::vector<Operand> CallPool2d<PoolOp::kMax>(OpCall&);

}  // namespace nnref
