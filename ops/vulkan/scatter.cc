// The vulkan backend's scatterElements and scatterND (§api-mlgraphbuilder-scatterelements,
// -scatternd), as in the reference's ops/scatter.cc, on indexing.cc's kernel (shaders/gather.comp),
// for every data type.
#include "ops/indexing.h"
#include "ops/vulkan/indexing.h"
#include "ops/vulkan/shaders/params.h"

namespace nnref::vk {

namespace {

std::optional<std::string> Unsupported(OpId op, DataType, const DeviceInfo&) {
  if (op != OpId::scatterElements && op != OpId::scatterND) return std::nullopt;
  return std::string();  // bits are copied: every data type
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index,
                                   const std::shared_ptr<Device>& device, std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  if (node.op == OpId::scatterND) return MakeGatherKernel(device, NNVK_GATHER_MODE_SCATTER_ND, 0);
  const auto* a = AttributesOf<ScatterAttributes>(node, why);
  if (a == nullptr) return nullptr;
  return MakeGatherKernel(device, NNVK_GATHER_MODE_SCATTER_ELEMENTS, a->axis);
}

}  // namespace

const Family kScatterFamily = {Unsupported, Make, nullptr};

}  // namespace nnref::vk
