// WebNN §api-mlgraphbuilder-resample2d-method.
//
// Coordinates. For each resampled axis, with scale = outputSize / inputSize (the final output
// size, so for scales whose product with the input size is not an integer this is not the given
// scale; spec-notes #9):
//   inputCoordinate = clamp((outputCoordinate + 0.5) / scale - 0.5, 0, inputSize - 1)
// is the exact fraction ((2 o + 1) inputSize - outputSize) / (2 outputSize), clamped, and nnref
// keeps it exact: nearest-neighbor takes ceil(inputCoordinate - 0.5) (halves go down), linear
// takes floor/ceil and the fraction tx = numerator / denominator. The first axis of `axes` is
// the spec's y, the second its x.
//
// Numerics.
//  - nearest-neighbor copies an input element (every data type; exact).
//  - linear, float32/float16: the spec's formula with the integer weights (den - num) and num of
//    each axis: the four products v * wx * wy are split exactly (fma) into the compensated double
//    accumulator (WindowSum, ops/conv_common.h), and the quotient by den_x * den_y, rounded to
//    odd, is rounded once to the output type (correctly rounded). Where a weight is exactly 0 the
//    formula multiplies 0 by a sample; nnref leaves the term out, so an infinite sample at an
//    integral coordinate gives the sample, and marks the element "value or NaN" where the literal
//    formula gives NaN (Inf * 0; spec-notes #10's approach).
//  - linear, int8/uint8: the formula's exact rational value (128-bit). When it is an integer it
//    is the result; otherwise the spec does not say how it becomes an integer: nnref rounds to
//    nearest, ties to even, and marks the element implementation-defined.
#include "ops/resample2d.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "ops/conv_common.h"
#include "ops/elementwise.h"

namespace nnref {

const OpLimits kResample2dLimits = {
    {{"input",
      {DataType::kFloat32, DataType::kFloat16, DataType::kUint8, DataType::kInt8},
      "",
      4,
      4},
     {"output", {}, "input", 4, 4}}};

std::vector<Resample2dAxisSample> SampleResampleAxis(int64_t input_size, int64_t output_size,
                                                     MLInterpolationMode mode) {
  std::vector<Resample2dAxisSample> samples(static_cast<size_t>(output_size));
  const __int128 den = __int128{2} * output_size;  // inputCoordinate = num / den
  for (int64_t o = 0; o < output_size; ++o) {
    __int128 num = (__int128{2} * o + 1) * input_size - output_size;
    num = std::clamp<__int128>(num, 0, __int128{input_size - 1} * den);  // clamp(., 0, size - 1)
    Resample2dAxisSample& s = samples[static_cast<size_t>(o)];
    if (mode == MLInterpolationMode::kNearestNeighbor) {
      // ceil(num / den - 0.5) = ceil((num - output_size) / den); num - output_size >= -den / 2.
      const __int128 shifted = num - output_size;
      s.index0 = static_cast<int64_t>(shifted <= 0 ? 0 : (shifted + den - 1) / den);
      s.index1 = s.index0;
      s.frac_num = 0;
      s.frac_den = 1;
    } else {
      s.index0 = static_cast<int64_t>(num / den);  // floor (num >= 0)
      s.frac_num = static_cast<int64_t>(num % den);
      s.frac_den = static_cast<int64_t>(den);
      s.index1 = s.frac_num == 0 ? s.index0 : s.index0 + 1;  // ceil
    }
  }
  return samples;
}

namespace {

class Resample2dKernel final : public Kernel {
 public:
  Resample2dKernel(MLInterpolationMode mode, size_t axis_y, size_t axis_x)
      : mode_(mode), axis_y_(axis_y), axis_x_(axis_x) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    OperandValue result = DispatchDataType(
        out[0].dataType, [&]<typename T>() { return Run<T>(in[0]->data, out[0]); });
    MarkAllIfInputLatitude(in, result);
    return {std::move(result)};
  }

 private:
  template <typename T>
  T Interpolate(T v00, T v10, T v01, T v11, const Resample2dAxisSample& sx,
                const Resample2dAxisSample& sy, Latitude& la) const {
    if constexpr (kIsFloatStorage<T>) {
      // The formula with integer weights: the sum of v * wx * wy over the four samples, over
      // frac_den_x * frac_den_y (that quotient rounded to odd, then once to T). Each product v * w
      // is split exactly into p + e (fma; w = wx * wy is exact while frac_den_x * frac_den_y <=
      // 2^53) and both parts go into the accumulator `acc`. A zero-weight term is left out.
      const double v[4] = {ToDouble(v00), ToDouble(v10), ToDouble(v01), ToDouble(v11)};
      const double wx[2] = {static_cast<double>(sx.frac_den - sx.frac_num),
                            static_cast<double>(sx.frac_num)};
      const double wy[2] = {static_cast<double>(sy.frac_den - sy.frac_num),
                            static_cast<double>(sy.frac_num)};
      WindowSum acc;  // the accumulator
      for (size_t k = 0; k < 4; ++k) {
        const double w = wx[k % 2] * wy[k / 2];
        if (w == 0) continue;
        const double p = v[k] * w;
        acc.Add(p);
        if (std::isfinite(p)) acc.Add(std::fma(v[k], w, -p));
      }
      const double value =
          acc.QuotientToOdd(static_cast<double>(sx.frac_den) * static_cast<double>(sy.frac_den));
      // The literal formula, only for its NaNs: where a weight is 0 it multiplies 0 by a sample,
      // and Inf * 0 is NaN.
      const double tx = static_cast<double>(sx.frac_num) / static_cast<double>(sx.frac_den);
      const double ty = static_cast<double>(sy.frac_num) / static_cast<double>(sy.frac_den);
      const double literal =
          (v[0] * (1 - tx) + v[1] * tx) * (1 - ty) + (v[2] * (1 - tx) + v[3] * tx) * ty;
      if (std::isnan(literal) && !std::isnan(value)) la = Latitude::kValueOrNaN;
      return RoundTo<T>(value);
    } else {
      // Exact: sum of v * wx * wy over the four samples, over frac_den_x * frac_den_y.
      const __int128 dx = sx.frac_den, ax = sx.frac_num, dy = sy.frac_den, ay = sy.frac_num;
      const __int128 num = __int128{v00} * (dx - ax) * (dy - ay) + __int128{v10} * ax * (dy - ay) +
                           __int128{v01} * (dx - ax) * ay + __int128{v11} * ax * ay;
      const __int128 den = dx * dy;
      if (num % den != 0) la = Latitude::kAny;  // not an integer: the spec gives no rounding
      return static_cast<T>(RoundHalfEven(num, den));
    }
  }

  template <typename T>
  OperandValue Run(const Tensor& input, const OperandDescriptor& out_desc) const {
    const auto dim = [](const Shape& s, size_t axis) { return static_cast<int64_t>(s[axis]); };
    const std::vector<Resample2dAxisSample> y_samples =
        SampleResampleAxis(dim(input.shape(), axis_y_), dim(out_desc.shape, axis_y_), mode_);
    const std::vector<Resample2dAxisSample> x_samples =
        SampleResampleAxis(dim(input.shape(), axis_x_), dim(out_desc.shape, axis_x_), mode_);
    const Strides& is = input.strides();
    const int64_t in_y_stride = is[axis_y_], in_x_stride = is[axis_x_];

    OperandValue result;
    result.data = Tensor::Allocate(out_desc.dataType, out_desc.shape);
    Tensor latitude = NewLatitude(out_desc.shape);
    bool any_latitude = false;
    const T* input_data = input.base<T>();
    T* output_data = result.data.base<T>();
    const std::array<int64_t, 4> out_dims = {dim(out_desc.shape, 0), dim(out_desc.shape, 1),
                                             dim(out_desc.shape, 2), dim(out_desc.shape, 3)};
    std::array<int64_t, 4> idx{};
    int64_t out_offset = 0;  // the output is dense: row-major order
    for (idx[0] = 0; idx[0] < out_dims[0]; ++idx[0]) {
      for (idx[1] = 0; idx[1] < out_dims[1]; ++idx[1]) {
        for (idx[2] = 0; idx[2] < out_dims[2]; ++idx[2]) {
          for (idx[3] = 0; idx[3] < out_dims[3]; ++idx[3], ++out_offset) {
            // Offset of the unresampled axes; the two resampled axes are added per sample.
            int64_t base = 0;
            for (size_t k = 0; k < 4; ++k) {
              if (k != axis_y_ && k != axis_x_) base += idx[k] * is[k];
            }
            const Resample2dAxisSample& sy = y_samples[static_cast<size_t>(idx[axis_y_])];
            const Resample2dAxisSample& sx = x_samples[static_cast<size_t>(idx[axis_x_])];
            const auto at = [&](int64_t in_y, int64_t in_x) {
              return input_data[base + in_y * in_y_stride + in_x * in_x_stride];
            };
            if (mode_ == MLInterpolationMode::kNearestNeighbor) {
              output_data[out_offset] = at(sy.index0, sx.index0);
              continue;
            }
            Latitude la = Latitude::kExact;
            output_data[out_offset] =
                Interpolate<T>(at(sy.index0, sx.index0), at(sy.index0, sx.index1),
                               at(sy.index1, sx.index0), at(sy.index1, sx.index1), sx, sy, la);
            if (la != Latitude::kExact) {
              latitude.base<uint8_t>()[out_offset] = static_cast<uint8_t>(la);
              any_latitude = true;
            }
          }
        }
      }
    }
    if (any_latitude) result.latitude = std::move(latitude);
    return result;
  }

  MLInterpolationMode mode_;
  size_t axis_y_, axis_x_;
};

// floor(size * scale), exact: scale = mantissa * 2^exponent with a 24-bit integer mantissa.
// Results beyond any valid dimension come back as kMaxDimension + 1.
__int128 FloorTimes(uint64_t size, float scale) {
  int exponent = 0;
  const double fraction = std::frexp(static_cast<double>(scale), &exponent);  // [0.5, 1)
  const auto mantissa = static_cast<uint64_t>(std::ldexp(fraction, 24));
  exponent -= 24;
  const __int128 product = __int128{size} * mantissa;  // < 2^55: size < 2^31
  if (exponent >= 0) return exponent > 40 ? kMaxDimension + 1 : product << exponent;
  return -exponent >= 120 ? 0 : product >> -exponent;
}

}  // namespace

Operand Resample2d(GraphBuilder& builder, const Operand& input,
                   const MLResample2dOptions& options) {
  const std::string name = OperatorDisplayName("resample2d", options);
  builder.CheckCanBuild(name);                    // step 1
  builder.ValidateOperand(name, "input", input);  // step 2
  const OperandDescriptor in = builder.Desc(input);
  CheckDataType(name, "input", in.dataType, kResample2dLimits.Find("input")->types);  // step 3
  CheckRank(name, kResample2dLimits, "input", in.shape.size());                       // step 4
  const std::vector<float> scales = options.scales.value_or(std::vector<float>{1.0f, 1.0f});
  if (options.scales) {  // steps 5-6
    const bool non_positive =
        std::any_of(scales.begin(), scales.end(), [](float s) { return !(s > 0); });
    if (non_positive || scales.size() != 2) {
      ThrowTypeError(name + ": options.scales must be 2 values greater than 0");
    }
  }
  if (options.sizes) {  // step 7
    const std::vector<uint32_t>& sizes = *options.sizes;
    if (sizes.size() != 2 || std::find(sizes.begin(), sizes.end(), 0u) != sizes.end()) {
      ThrowTypeError(name + ": options.sizes must be 2 values greater than 0");
    }
  }
  const std::vector<uint32_t> axes =
      options.axes.value_or(std::vector<uint32_t>{2, 3});  // steps 8-9
  // Step 9 checks duplicates and range only. The member is "a list of length 2" and step 10
  // indexes scales/sizes by the axes' positions, so nnref also rejects any other length
  // (docs/deviations.md).
  if (axes.size() != 2 || axes[0] == axes[1] || axes[0] >= in.shape.size() ||
      axes[1] >= in.shape.size()) {
    ThrowTypeError(name + ": options.axes must be 2 distinct axes below the input rank " +
                   std::to_string(in.shape.size()));
  }
  Shape output_shape = in.shape;  // step 10
  for (size_t index = 0; index < axes.size(); ++index) {
    const __int128 size = options.sizes ? __int128{(*options.sizes)[index]}  // step 10.3.1
                                        : FloorTimes(in.shape[axes[index]], scales[index]);
    if (!IsValidDimension(size)) {  // step 10.3.3
      ThrowTypeError(name + ": output size " + Int128ToString(size) + " of axis " +
                     std::to_string(axes[index]) + " is not a valid dimension");
    }
    output_shape[axes[index]] = static_cast<uint64_t>(size);  // step 10.3.4
  }
  // Step 11: make graph connections. Tolerance size: 0 for nearest-neighbor (a copy), 3 for
  // linear (three interpolations per output element).
  const bool linear = options.mode == MLInterpolationMode::kLinear;
  OperatorNode node{OpId::resample2d,
                    options.label,
                    {input.id},
                    {},
                    std::make_shared<Resample2dKernel>(options.mode, axes[0], axes[1]),
                    {OpId::resample2d, in.dataType, linear ? 3u : 0u}};
  auto attributes = std::make_shared<Resample2dAttributes>();
  attributes->mode = options.mode;
  attributes->axis_y = axes[0];
  attributes->axis_x = axes[1];
  node.attributes = std::move(attributes);
  return builder.AddOperator(std::move(node), {{in.dataType, output_shape}})[0];  // step 12
}

std::vector<Operand> CallResample2d(OpCall& call) {
  call.ExpectAtMost(2);
  const Operand input = call.GetOperand(0, "input");
  const Value& o = call.GetOptions(1);
  MLResample2dOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  if (auto m = call.GetEnumOption(o, "mode", kInterpolationModeNames)) {
    options.mode =
        *m == "linear" ? MLInterpolationMode::kLinear : MLInterpolationMode::kNearestNeighbor;
  }
  if (const Value* v = o.Find("scales"); v && !v->is_null()) {
    if (!v->is_array()) call.Fail("options.scales must be an array of numbers");
    std::vector<float> scales;
    for (size_t i = 0; i < v->items().size(); ++i) {
      const std::string where = "options.scales[" + std::to_string(i) + "]";
      const std::optional<MLNumber> n = NumberFromValue(v->items()[i]);
      if (!n) call.Fail(where + " must be a number");
      // WebIDL float: not finite, or rounding to +-2^128, is a TypeError.
      const double d = n->AsDouble();
      const float f = static_cast<float>(d);
      if (!std::isfinite(d) || std::isinf(f)) {
        ThrowTypeError(call.op() + ": " + where + " is not a finite float");
      }
      scales.push_back(f);
    }
    options.scales = std::move(scales);
  }
  options.sizes = call.GetUint32ListOption(o, "sizes");
  options.axes = call.GetUint32ListOption(o, "axes");
  return {Resample2d(call.builder(), input, options)};
}

}  // namespace nnref
