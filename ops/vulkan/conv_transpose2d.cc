// The vulkan backend's convTranspose2d (§api-mlgraphbuilder-convtranspose2d), as in the reference's
// ops/conv_transpose2d.cc: conv2d.cc's kernel on shaders/conv2d.comp in gather form (each output
// element sums the input elements and filter taps that land on it).
#include "ops/conv_transpose2d.h"

#include "ops/vulkan/conv2d.h"

namespace nnref::vk {

namespace {

std::optional<std::string> Unsupported(OpId op, DataType type, const DeviceInfo&) {
  if (op != OpId::convTranspose2d) return std::nullopt;
  if (!IsFloat(type)) return std::string(DataTypeName(type)) + " not supported";
  return std::string();
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index,
                                   const std::shared_ptr<Device>& device, std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  const auto* conv = AttributesOf<ConvTranspose2dAttributes>(node, why);
  if (conv == nullptr) return nullptr;
  ConvParams p = ConvParamsOf(*conv);
  p.transposed = true;
  if (device->native() && !(why = NativeGemmUnsupported(*device)).empty()) return nullptr;
  return MakeConv2dKernel(device, p);
}

}  // namespace

const Family kConvTranspose2dFamily = {Unsupported, Make, nullptr};

}  // namespace nnref::vk
