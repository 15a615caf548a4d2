// The vulkan backend's concat, pad, tile and triangular, as in the reference's
// ops/data_movement_copy.cc, on data_movement.cc's kernel (shaders/layout.comp), for every data
// type: concat packs its inputs into one binding; pad, tile and triangular are per-axis
// parameters of the shader's index map.
#include "ops/vulkan/data_movement.h"

namespace nnref::vk {

namespace {

std::optional<std::string> Unsupported(OpId op, DataType, const DeviceInfo&) {
  switch (op) {
    case OpId::pad:
    case OpId::tile:
    case OpId::triangular:
    case OpId::concat:
      return std::string();  // bits are copied: every data type
    default:
      return std::nullopt;
  }
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index,
                                   const std::shared_ptr<Device>& device, std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  LayoutParams p;
  bool found = true;  // tile needs none: the descriptors say everything
  switch (node.op) {
    case OpId::concat: {
      const auto* a = node.Attributes<ConcatAttributes>();
      if ((found = a != nullptr)) p.axis = a->axis;
      break;
    }
    case OpId::pad: {
      const auto* a = node.Attributes<PadAttributes>();
      if ((found = a != nullptr)) {
        p.beginningPadding = a->beginningPadding;
        p.mode = a->mode;
        p.value = a->value;
      }
      break;
    }
    case OpId::triangular: {
      const auto* a = node.Attributes<TriangularAttributes>();
      if ((found = a != nullptr)) {
        p.upper = a->upper;
        p.diagonal = a->diagonal;
      }
      break;
    }
    default:
      break;
  }
  if (!found) {
    why = std::string(OpName(node.op)) + " node without attributes";
    return nullptr;
  }
  return MakeLayoutKernel(device, node.op, std::move(p));
}

}  // namespace

const Family kDataMovementCopyFamily = {Unsupported, Make, nullptr};

}  // namespace nnref::vk
