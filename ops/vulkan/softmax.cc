// The vulkan backend's softmax (§api-mlgraphbuilder-softmax-method), as in the reference's
// ops/softmax.cc, on shaders/reduce.comp (NNVK_REDUCE_SOFTMAX): the axis moved last, the result
// moved back. In the native arithmetic mode: shaders/softmax_native.comp, one workgroup per run.
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

  // Recorded when the axis is the last one (the input and the result are not moved).
  std::string NeedsHost(std::span<const OperandDescriptor> in, std::span<const OperandDescriptor>,
                        std::span<const bool>) const override {
    if (axis_ + 1 == in[0].shape.size()) return "";
    return "softmax over axis " + std::to_string(axis_) + " of " +
           std::to_string(in[0].shape.size()) + ": the axis is moved last on the host";
  }

  // The axis is last: one run per row of the dense input.
  void Emit(Sink& sink, std::span<const OperandValue* const>, std::span<const OperandDescriptor> in,
            std::span<const OperandDescriptor> out) const override {
    const OperandDescriptor& desc = out[0];
    const uint64_t count = desc.ElementCount();
    if (count == 0) return;
    std::vector<uint32_t> params(NNVK_REDUCE_P_WORDS, 0);
    params[NNVK_REDUCE_P_TYPE] = static_cast<uint32_t>(desc.dataType);
    params[NNVK_REDUCE_P_OP] = NNVK_REDUCE_SOFTMAX;
    params[NNVK_REDUCE_P_RUN] = static_cast<uint32_t>(in[0].shape[axis_]);
    params[NNVK_REDUCE_P_COUNT] = static_cast<uint32_t>(count);
    std::vector<Source> sources;
    sources.push_back(Source::Input(0));
    if (device_->native()) {
      // One workgroup per run (softmax_native.comp).
      sink.Run(NativeShader(desc.dataType), params, std::move(sources), 0,
               count / params[NNVK_REDUCE_P_RUN]);
    } else {
      sink.Run(Shader::kReduce, params, std::move(sources), 0, WordGroups(desc));
    }
  }

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    if (axis_ + 1 == in[0]->data.rank()) return RecordableKernel::Compute(in, out);
    const OperandDescriptor& desc = out[0];
    const Tensor& input = in[0]->data;
    const uint32_t rank = static_cast<uint32_t>(input.rank());
    std::vector<uint32_t> perm, inverse(rank);
    for (uint32_t axis = 0; axis < rank; ++axis) {
      if (axis != axis_) perm.push_back(axis);
    }
    perm.push_back(static_cast<uint32_t>(axis_));
    for (uint32_t i = 0; i < rank; ++i) inverse[perm[i]] = i;
    const Tensor moved = input.Permute(perm);
    Tensor result = Tensor::Allocate(desc.dataType, moved.shape());
    const uint64_t count = desc.ElementCount();
    if (count > 0) {
      const std::vector<std::byte> data = moved.Bytes();
      const Bytes views[] = {data};
      std::vector<uint32_t> params(NNVK_REDUCE_P_WORDS, 0);
      params[NNVK_REDUCE_P_TYPE] = static_cast<uint32_t>(desc.dataType);
      params[NNVK_REDUCE_P_OP] = NNVK_REDUCE_SOFTMAX;
      params[NNVK_REDUCE_P_RUN] = static_cast<uint32_t>(input.shape()[axis_]);
      params[NNVK_REDUCE_P_COUNT] = static_cast<uint32_t>(count);
      if (device_->native()) {
        // One workgroup per run (softmax_native.comp).
        std::span<std::byte> bytes(result.buffer()->data(), count * ElementSize(desc.dataType));
        device_->Run(NativeShader(desc.dataType), params, views, bytes,
                     count / params[NNVK_REDUCE_P_RUN]);
      } else {
        Dispatch(*device_, Shader::kReduce, params, views, result);
      }
    }
    return OneOutput(result.Permute(inverse).Contiguous());
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
