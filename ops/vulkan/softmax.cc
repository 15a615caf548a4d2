// The vulkan backend's softmax (§api-mlgraphbuilder-softmax-method), as in the reference's
// ops/softmax.cc, on shaders/reduce.comp (NNVK_REDUCE_SOFTMAX): the axis moved last, the result
// moved back, both on the device (layout.comp). In the native arithmetic mode:
// shaders/softmax_native.comp, one workgroup per run.
#include "ops/softmax.h"

#include "ops/vulkan/family.h"
#include "ops/vulkan/record.h"
#include "ops/vulkan/shaders/params.h"

namespace nnref::vk {

namespace {

class SoftmaxKernel final : public RecordableKernel {
 public:
  SoftmaxKernel(std::shared_ptr<Device> device, size_t axis)
      : RecordableKernel(std::move(device)), axis_(axis) {}

  // Always recorded: an axis that is not the last is moved last on the device (layout.comp)
  // and the result moved back.

  // One run per row of the input with the axis moved last.
  void Emit(Sink& sink, std::span<const OperandValue* const>, std::span<const OperandDescriptor> in,
            std::span<const OperandDescriptor> out) const override {
    const OperandDescriptor& desc = out[0];
    const uint64_t count = desc.ElementCount();
    if (count == 0) return;
    const size_t axes[] = {axis_};
    const MovedAxes m = MoveAxesLast(in[0].shape, axes);
    std::vector<uint32_t> params(NNVK_REDUCE_P_WORDS, 0);
    params[NNVK_REDUCE_P_TYPE] = static_cast<uint32_t>(desc.dataType);
    params[NNVK_REDUCE_P_OP] = NNVK_REDUCE_SOFTMAX;
    params[NNVK_REDUCE_P_RUN] = static_cast<uint32_t>(in[0].shape[axis_]);
    params[NNVK_REDUCE_P_COUNT] = static_cast<uint32_t>(count);
    std::vector<Source> sources;
    sources.push_back(MovedInput(sink, m, 0, in[0]));
    const Target result = MovedOutput(sink, m, desc);
    if (device_->native()) {
      // One workgroup per run (softmax_native.comp).
      sink.Run(NativeShader(desc.dataType), params, std::move(sources), result,
               count / params[NNVK_REDUCE_P_RUN]);
    } else {
      sink.Run(Shader::kReduce, params, std::move(sources), result, WordGroups(desc));
    }
    MoveBack(sink, m, result, desc);
  }

 private:
  // float16 in float16 where the device computes it (softmax_native.comp's NNVK_FLOAT16 variant).
  Shader NativeShader(DataType type) const {
    return type == DataType::kFloat16 && device_->float16_native() ? Shader::kSoftmaxNativeF16
                                                                   : Shader::kSoftmaxNative;
  }

  size_t axis_;
};

std::optional<std::string> Unsupported(OpId op, DataType, const DeviceInfo&) {
  if (op == OpId::softmax) return std::string();  // float32, float16
  return std::nullopt;
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index,
                                   const std::shared_ptr<Device>& device, std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  const auto* s = AttributesOf<SoftmaxAttributes>(node, why);
  if (s == nullptr) return nullptr;
  return std::make_shared<SoftmaxKernel>(device, s->axis);
}

}  // namespace

const Family kSoftmaxFamily = {Unsupported, Make, nullptr};

}  // namespace nnref::vk
