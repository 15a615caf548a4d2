// softmax — WebNN §api-mlgraphbuilder-softmax-method.
//
// Numerics. Accumulator: double. For each line along `axis`: m = the maximum, the exponentials
// e_i = exp(x_i - m) (the emulation's subtraction of the max: no overflow, and the largest term is
// exactly 1), their sum s in double, and y_i = e_i / s rounded once to the output type.
// Special values follow the spec's emulation: a NaN anywhere in a line makes the whole line NaN
// (NaN - m or e_i/NaN); a +Infinity gives Inf - Inf = NaN, and a line of only -Infinity gives
// -Inf - (-Inf) = NaN. These are the emulation's values, not open ones, and are not marked.
// Input latitude: an output line is marked implementation-defined when any element of its input
// line carries latitude.
#include "ops/softmax.h"

#include <cmath>

#include "ops/elementwise.h"

namespace nnref {

const OpLimits kSoftmaxLimits = {
    {{"input", kFloatTypes, "", 1, kMaxRankAny}, {"output", {}, "input", 1, kMaxRankAny}}};

namespace {

class SoftmaxKernel final : public Kernel {
 public:
  explicit SoftmaxKernel(size_t axis) : axis_(axis) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Tensor& x = in[0]->data;
    OperandValue result;
    result.data = Tensor::Allocate(out[0].dataType, out[0].shape);
    const Shape& shape = x.shape();
    const uint64_t axis_size = shape[axis_];
    // The outer iteration visits the first element of every line: the axis collapsed to 1.
    Shape lines = shape;
    lines[axis_] = 1;
    const Strides out_strides = ContiguousStrides(shape);
    const int64_t in_step = x.strides()[axis_];
    const int64_t out_step = out_strides[axis_];
    const bool track = in[0]->latitude.valid();
    const Tensor in_lat = track ? in[0]->latitude : Tensor();
    Tensor lat = track ? NewLatitude(shape) : Tensor();
    const Strides zero(shape.size(), 0);
    const Strides& lat_strides = track ? in_lat.strides() : zero;
    std::vector<double> e(axis_size);
    DispatchDataType(out[0].dataType, [&]<typename T>() {
      if constexpr (kIsFloatStorage<T>) {
        const T* src = x.base<T>();
        T* dst = result.data.base<T>();
        ForEachOffsets<3>(lines, {&x.strides(), &out_strides, &lat_strides},
                          [&](const std::array<int64_t, 3>& off) {
                            double m = -kInfinity;
                            for (uint64_t i = 0; i < axis_size; ++i) {
                              e[i] = ToDouble(src[off[0] + Step(i, in_step)]);
                              if (e[i] > m) m = e[i];
                            }
                            // The accumulator. Every term is in [0, 1] (no cancellation), and a
                            // NaN input or an infinite max makes some term, hence s, NaN.
                            double sum = 0;
                            for (uint64_t i = 0; i < axis_size; ++i) {
                              e[i] = std::exp(e[i] - m);
                              sum += e[i];
                            }
                            for (uint64_t i = 0; i < axis_size; ++i) {
                              dst[off[1] + Step(i, out_step)] = RoundTo<T>(e[i] / sum);
                            }
                            if (track) MarkLine(in_lat, lat, off[2], off[1], axis_size, out_step);
                          });
      }
      return 0;
    });
    if (track) result.latitude = std::move(lat);
    return {std::move(result)};
  }

 private:
  static int64_t Step(uint64_t i, int64_t stride) { return static_cast<int64_t>(i) * stride; }

  // Marks the whole output line kAny when any input element of the line carries latitude.
  void MarkLine(const Tensor& in_lat, Tensor& lat, int64_t in_off, int64_t out_off,
                uint64_t axis_size, int64_t out_step) const {
    const uint8_t* src = in_lat.base<uint8_t>();
    const int64_t in_step = in_lat.strides()[axis_];
    bool any = false;
    for (uint64_t i = 0; i < axis_size; ++i) any = any || src[in_off + Step(i, in_step)] != 0;
    if (!any) return;
    uint8_t* dst = lat.base<uint8_t>();
    for (uint64_t i = 0; i < axis_size; ++i) {
      dst[out_off + Step(i, out_step)] = static_cast<uint8_t>(Latitude::kAny);
    }
  }

  size_t axis_;
};

}  // namespace

Operand Softmax(GraphBuilder& builder, const Operand& input, uint32_t axis,
                const MLOperatorOptions& options) {
  const std::string name = OperatorDisplayName("softmax", options);
  builder.CheckCanBuild(name);                    // step 1
  builder.ValidateOperand(name, "input", input);  // step 2
  const OperandDescriptor d = builder.Desc(input);
  CheckDataType(name, "input", d.dataType, kSoftmaxLimits.Find("input")->types);  // step 3
  if (axis >= d.shape.size()) {                                                   // step 4
    ThrowTypeError(name + ": axis " + std::to_string(axis) + " is out of range for rank " +
                   std::to_string(d.shape.size()));
  }
  OperatorNode node{
      OpId::softmax,
      options.label,
      {input.id},
      {},
      std::make_shared<SoftmaxKernel>(axis),
      {OpId::softmax, d.dataType, d.shape[axis]}};  // tolerance scales with the axis size
  auto attributes = std::make_shared<SoftmaxAttributes>();
  attributes->axis = axis;
  node.attributes = std::move(attributes);
  return builder.AddOperator(std::move(node), {d})[0];  // steps 5-6
}

std::vector<Operand> CallSoftmax(OpCall& call) {
  call.ExpectAtMost(3);
  const Operand input = call.GetOperand(0, "input");
  const uint32_t axis = call.GetUint32(1, "axis");
  return {Softmax(call.builder(), input, axis, call.GetOperatorOptions(call.GetOptions(2)))};
}

}  // namespace nnref
