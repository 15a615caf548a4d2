// The vulkan backend's gather and scatter operators (§api-mlgraphbuilder-gather, -gatherelements,
// -gathernd, -scatterelements, -scatternd) on shaders/gather.comp, for every data type.
#include "ops/indexing.h"

#include "ops/vulkan/family.h"

namespace nnref::vk {

namespace {

constexpr size_t kDims = 8;

uint32_t Mode(OpId op) {
  switch (op) {
    case OpId::gather:
      return 0;
    case OpId::gatherElements:
      return 1;
    case OpId::gatherND:
      return 2;
    case OpId::scatterElements:
      return 3;
    default:
      return 4;  // scatterND
  }
}

class IndexingKernel final : public Kernel {
 public:
  IndexingKernel(std::shared_ptr<Device> device, OpId op, uint32_t axis)
      : device_(std::move(device)), mode_(Mode(op)), axis_(axis) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const OperandDescriptor& desc = out[0];
    Tensor result = Tensor::Allocate(desc.dataType, desc.shape);
    const uint64_t count = desc.ElementCount();
    if (count > 0) {
      const Tensor& input = in[0]->data;
      const Tensor& indices = in[1]->data;
      const Shape& is = input.shape();
      const auto u = [](uint64_t v) { return static_cast<uint32_t>(v); };
      uint64_t n = 0, inner = 1, j = 0;
      std::vector<uint32_t> dims;
      if (mode_ == 2 || mode_ == 4) {  // ND: K-tuples
        const uint64_t k = indices.shape().empty() ? 0 : indices.shape().back();
        n = k;
        for (size_t d = k; d < is.size(); ++d) inner *= is[d];
        j = k == 0 ? 0 : indices.element_count() / k;
        const Strides dense = ContiguousStrides(is);
        for (size_t d = 0; d < k; ++d) dims.push_back(u(is[d]));
        for (size_t d = 0; d < k; ++d) dims.push_back(u(static_cast<uint64_t>(dense[d])));
      } else {
        n = is[axis_];
        for (size_t d = axis_ + 1; d < is.size(); ++d) inner *= is[d];
        j = mode_ == 0 ? indices.element_count() : indices.shape()[axis_];
      }
      std::vector<uint32_t> params(kDims, 0);
      params[0] = u(static_cast<uint64_t>(desc.dataType));
      params[1] = mode_;
      params[2] = u(static_cast<uint64_t>(indices.dtype()));
      params[3] = u(count);
      params[4] = u(n);
      params[5] = u(inner);
      params[6] = u(j);
      params.insert(params.end(), dims.begin(), dims.end());
      std::vector<std::vector<std::byte>> data;
      for (const OperandValue* v : in) data.push_back(v->data.Bytes());
      const std::vector<Bytes> views(data.begin(), data.end());
      Dispatch(*device_, Shader::kGather, params, views, result);
    }
    return OneOutput(std::move(result));
  }

 private:
  std::shared_ptr<Device> device_;
  uint32_t mode_;
  uint32_t axis_;
};

bool IsIndexing(OpId op) {
  return op == OpId::gather || op == OpId::gatherElements || op == OpId::gatherND ||
         op == OpId::scatterElements || op == OpId::scatterND;
}

std::optional<std::string> Unsupported(OpId op, DataType, const DeviceInfo&) {
  if (!IsIndexing(op)) return std::nullopt;
  return std::string();  // bits are copied: every data type
}

template <typename A>
std::optional<uint32_t> AxisOf(const A* attributes) {
  if (attributes == nullptr) return std::nullopt;
  return attributes->axis;
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index,
                                   const std::shared_ptr<Device>& device, std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  uint32_t axis = 0;
  if (node.op == OpId::gather || node.op == OpId::gatherElements ||
      node.op == OpId::scatterElements) {
    const std::optional<uint32_t> attribute_axis =
        node.op == OpId::scatterElements ? AxisOf(node.Attributes<ScatterAttributes>())
                                         : AxisOf(node.Attributes<GatherAttributes>());
    if (!attribute_axis) {
      why = std::string(OpName(node.op)) + " node without attributes";
      return nullptr;
    }
    axis = *attribute_axis;
  }
  return std::make_shared<IndexingKernel>(device, node.op, axis);
}

}  // namespace

const Family kIndexingFamily = {Unsupported, Make, nullptr};

}  // namespace nnref::vk
