// The vulkan backend's gather, gatherElements and gatherND (§api-mlgraphbuilder-gather,
// -gatherelements, -gathernd), as in the reference's ops/indexing.cc, on shaders/gather.comp
// (parameters NNVK_GATHER_P_* of shaders/params.h), for every data type; the kernel also serves
// scatter.cc.
#include "ops/vulkan/indexing.h"

#include "ops/indexing.h"
#include "ops/vulkan/record.h"
#include "ops/vulkan/shaders/params.h"

namespace nnref::vk {

namespace {

class IndexingKernel final : public RecordableKernel {
 public:
  IndexingKernel(std::shared_ptr<Device> device, uint32_t mode, uint32_t axis)
      : RecordableKernel(std::move(device)), mode_(mode), axis_(axis) {}

  // The input, the indices (and scatter's updates) are read dense in their own shapes.

  void Emit(Sink& sink, std::span<const OperandValue* const>, std::span<const OperandDescriptor> in,
            std::span<const OperandDescriptor> out) const override {
    const OperandDescriptor& desc = out[0];
    const uint64_t count = desc.ElementCount();
    if (count > 0) {
      const OperandDescriptor& indices = in[1];
      const Shape& is = in[0].shape;
      const auto u = [](uint64_t v) { return static_cast<uint32_t>(v); };
      uint64_t n = 0, inner = 1, j = 0;
      std::vector<uint32_t> dims;
      if (mode_ == NNVK_GATHER_MODE_ND || mode_ == NNVK_GATHER_MODE_SCATTER_ND) {  // K-tuples
        const uint64_t k = indices.shape.empty() ? 0 : indices.shape.back();
        n = k;
        for (size_t d = k; d < is.size(); ++d) inner *= is[d];
        j = k == 0 ? 0 : indices.ElementCount() / k;
        const Strides dense = ContiguousStrides(is);
        for (size_t d = 0; d < k; ++d) dims.push_back(u(is[d]));
        for (size_t d = 0; d < k; ++d) dims.push_back(u(static_cast<uint64_t>(dense[d])));
      } else {
        n = is[axis_];
        for (size_t d = axis_ + 1; d < is.size(); ++d) inner *= is[d];
        j = mode_ == NNVK_GATHER_MODE_GATHER ? indices.ElementCount() : indices.shape[axis_];
      }
      std::vector<uint32_t> params(NNVK_GATHER_P_DIMS, 0);
      params[NNVK_GATHER_P_TYPE] = u(static_cast<uint64_t>(desc.dataType));
      params[NNVK_GATHER_P_MODE] = mode_;
      params[NNVK_GATHER_P_INDEX_TYPE] = u(static_cast<uint64_t>(indices.dataType));
      params[NNVK_GATHER_P_COUNT] = u(count);
      params[NNVK_GATHER_P_N] = u(n);
      params[NNVK_GATHER_P_INNER] = u(inner);
      params[NNVK_GATHER_P_J] = u(j);
      params.insert(params.end(), dims.begin(), dims.end());  // from NNVK_GATHER_P_DIMS
      std::vector<Source> sources;
      for (size_t k = 0; k < in.size(); ++k) sources.push_back(Source::Input(k));
      sink.Run(Shader::kGather, params, std::move(sources), 0, WordGroups(desc));
    }
  }

 private:
  uint32_t mode_;
  uint32_t axis_;
};

std::optional<std::string> Unsupported(OpId op, DataType, const DeviceInfo&) {
  if (op != OpId::gather && op != OpId::gatherElements && op != OpId::gatherND) {
    return std::nullopt;
  }
  return std::string();  // bits are copied: every data type
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index,
                                   const std::shared_ptr<Device>& device, std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  if (node.op == OpId::gatherND) return MakeGatherKernel(device, NNVK_GATHER_MODE_ND, 0);
  const auto* a = AttributesOf<GatherAttributes>(node, why);
  if (a == nullptr) return nullptr;
  return MakeGatherKernel(
      device, node.op == OpId::gather ? NNVK_GATHER_MODE_GATHER : NNVK_GATHER_MODE_ELEMENTS,
      a->axis);
}

}  // namespace

std::shared_ptr<const Kernel> MakeGatherKernel(std::shared_ptr<Device> device, uint32_t mode,
                                               uint32_t axis) {
  return std::make_shared<IndexingKernel>(std::move(device), mode, axis);
}

const Family kIndexingFamily = {Unsupported, Make, nullptr};

}  // namespace nnref::vk
