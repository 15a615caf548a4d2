// The vulkan backend's resample2d (§api-mlgraphbuilder-resample2d-method), as in the reference's
// ops/resample2d.cc, on shaders/resample.comp (parameters NNVK_RESAMPLE_P_* of shaders/params.h).
#include "ops/resample2d.h"

#include "ops/vulkan/family.h"
#include "ops/vulkan/record.h"
#include "ops/vulkan/shaders/params.h"

namespace nnref::vk {

namespace {

class Resample2dKernel final : public RecordableKernel {
 public:
  Resample2dKernel(std::shared_ptr<Device> device, const Resample2dAttributes& a)
      : RecordableKernel(std::move(device)), a_(a) {}

  // The input is read dense in its own shape: nothing on the host.

  void Emit(Sink& sink, std::span<const OperandValue* const>, std::span<const OperandDescriptor> in,
            std::span<const OperandDescriptor> out) const override {
    const OperandDescriptor& desc = out[0];
    const uint64_t count = desc.ElementCount();
    if (count == 0) return;
    const Shape& input = in[0].shape;
    const Strides dense = ContiguousStrides(input);
    std::vector<uint32_t> params(NNVK_RESAMPLE_P_WORDS, 0);
    params[NNVK_RESAMPLE_P_TYPE] = static_cast<uint32_t>(desc.dataType);
    params[NNVK_RESAMPLE_P_LINEAR] = a_.mode == MLInterpolationMode::kLinear ? 1 : 0;
    params[NNVK_RESAMPLE_P_COUNT] = static_cast<uint32_t>(count);
    params[NNVK_RESAMPLE_P_AXIS_Y] = static_cast<uint32_t>(a_.axis_y);
    params[NNVK_RESAMPLE_P_AXIS_X] = static_cast<uint32_t>(a_.axis_x);
    for (size_t d = 0; d < 4; ++d) {
      params[NNVK_RESAMPLE_P_OUT + d] = static_cast<uint32_t>(desc.shape[d]);
      params[NNVK_RESAMPLE_P_IN + d] = static_cast<uint32_t>(input[d]);
      params[NNVK_RESAMPLE_P_STRIDES + d] = static_cast<uint32_t>(dense[d]);
    }
    std::vector<Source> sources;
    sources.push_back(Source::Input(0));
    sink.Run(Shader::kResample, params, std::move(sources), 0, WordGroups(desc));
  }

 private:
  Resample2dAttributes a_;
};

std::optional<std::string> Unsupported(OpId op, DataType, const DeviceInfo&) {
  if (op == OpId::resample2d) return std::string();  // float32, float16, int8, uint8
  return std::nullopt;
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index,
                                   const std::shared_ptr<Device>& device, std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  const auto* r = AttributesOf<Resample2dAttributes>(node, why);
  if (r == nullptr) return nullptr;
  const Shape& out = graph.operand(node.outputs[0]).desc.shape;
  // The linear weights' products must stay exact: den_y den_x = 4 m_y m_x below 2^24, and
  // their product with an 8-bit value within int32.
  if (r->mode == MLInterpolationMode::kLinear &&
      4 * out[r->axis_y] * out[r->axis_x] >= (uint64_t{1} << 22)) {
    why = "linear resample2d with an output plane of " +
          std::to_string(out[r->axis_y] * out[r->axis_x]) + " elements is not implemented";
    return nullptr;
  }
  return std::make_shared<Resample2dKernel>(device, *r);
}

}  // namespace

const Family kResample2dFamily = {Unsupported, Make, nullptr};

}  // namespace nnref::vk
