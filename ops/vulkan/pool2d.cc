// The vulkan backend's averagePool2d, l2Pool2d and maxPool2d (§api-mlgraphbuilder-pool2d), as in
// the reference's ops/pool2d.cc, on shaders/pool2d.comp (parameters NNVK_POOL_P_* of
// shaders/params.h): the input uploaded dense in its layout (nchw or nhwc), the output written in
// the same layout. In the native arithmetic mode float pools run the NNVK_NATIVE variant (plain
// float32 sums).
#include "ops/pool2d.h"

#include "ops/vulkan/family.h"
#include "ops/vulkan/record.h"
#include "ops/vulkan/shaders/params.h"

namespace nnref::vk {

namespace {

class Pool2dKernel final : public RecordableKernel {
 public:
  Pool2dKernel(std::shared_ptr<Device> device, uint32_t op, const Pool2dAttributes& a,
               Shader shader)
      : RecordableKernel(std::move(device)), op_(op), a_(a), shader_(shader) {}

  // The input is read dense in its own layout: nothing on the host.

  void Emit(Sink& sink, std::span<const OperandValue* const>, std::span<const OperandDescriptor> in,
            std::span<const OperandDescriptor> out) const override {
    const OperandDescriptor& desc = out[0];
    if (desc.ElementCount() == 0) return;
    const Shape& input = in[0].shape;
    const ImageAxes ia = a_.image;
    const auto u = [](uint64_t v) { return static_cast<uint32_t>(v); };
    const auto s = [](int64_t v) { return static_cast<uint32_t>(v); };
    std::vector<uint32_t> params(NNVK_POOL_P_WORDS, 0);
    params[NNVK_POOL_P_TYPE] = u(static_cast<uint64_t>(desc.dataType));
    params[NNVK_POOL_P_OP] = op_;
    params[NNVK_POOL_P_BATCHES] = u(desc.shape[ia.batch]);
    params[NNVK_POOL_P_CHANNELS] = u(desc.shape[ia.channel]);
    params[NNVK_POOL_P_IN_H] = u(input[ia.height]);
    params[NNVK_POOL_P_IN_W] = u(input[ia.width]);
    params[NNVK_POOL_P_OUT_H] = u(desc.shape[ia.height]);
    params[NNVK_POOL_P_OUT_W] = u(desc.shape[ia.width]);
    params[NNVK_POOL_P_WIN_H] = s(a_.window_height);
    params[NNVK_POOL_P_WIN_W] = s(a_.window_width);
    params[NNVK_POOL_P_PAD_TOP] = s(a_.pad_top);
    params[NNVK_POOL_P_PAD_LEFT] = s(a_.pad_left);
    params[NNVK_POOL_P_STRIDE_H] = s(a_.stride_height);
    params[NNVK_POOL_P_STRIDE_W] = s(a_.stride_width);
    params[NNVK_POOL_P_DIL_H] = s(a_.dilation_height);
    params[NNVK_POOL_P_DIL_W] = s(a_.dilation_width);
    params[NNVK_POOL_P_NHWC] = ia.channel == 3 ? 1u : 0u;
    std::vector<Source> sources;
    sources.push_back(Source::Input(0));
    const bool native = device_->native() && (desc.dataType == DataType::kFloat32 ||
                                              desc.dataType == DataType::kFloat16);
    sink.Run(native ? Shader::kPool2dNative : shader_, params, std::move(sources), 0,
             WordGroups(desc));
  }

 private:
  uint32_t op_;
  Pool2dAttributes a_;
  Shader shader_;
};

int PoolCode(OpId op) {
  switch (op) {
    case OpId::averagePool2d:
      return NNVK_POOL_AVERAGE;
    case OpId::l2Pool2d:
      return NNVK_POOL_L2;
    case OpId::maxPool2d:
      return NNVK_POOL_MAX;
    default:
      return -1;
  }
}

std::optional<std::string> Unsupported(OpId op, DataType type, const DeviceInfo& device) {
  const int code = PoolCode(op);
  if (code < 0) return std::nullopt;
  if (code != NNVK_POOL_MAX && !IsFloat(type)) {
    return std::string(DataTypeName(type)) + " not supported";
  }
  if (Is64Bit(type) && !device.shader_int64) {
    return std::string(DataTypeName(type)) + " needs shaderInt64";
  }
  return std::string();
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index,
                                   const std::shared_ptr<Device>& device, std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  const auto* a = AttributesOf<Pool2dAttributes>(node, why);
  if (a == nullptr) return nullptr;
  const bool wide = Is64Bit(graph.operand(node.inputs[0]).desc.dataType);
  return std::make_shared<Pool2dKernel>(device, static_cast<uint32_t>(PoolCode(node.op)), *a,
                                        wide ? Shader::kPool2d64 : Shader::kPool2d);
}

}  // namespace

const Family kPool2dFamily = {Unsupported, Make, nullptr};

}  // namespace nnref::vk
