// The vulkan backend's reshape, transpose, expand, slice, reverse and split (one dispatch per
// output), as in the reference's ops/data_movement.cc, on shaders/layout.comp (parameters
// NNVK_LAYOUT_P_* of shaders/params.h), for every data type; the kernel also serves
// data_movement_copy.cc (concat with the inputs packed into one binding, pad, tile, triangular).
// The input is uploaded dense in its own shape; each operator becomes per-output-axis parameters
// of one index map (see the shader).
#include "ops/vulkan/data_movement.h"

#include <array>
#include <cstring>

#include "ops/vulkan/record.h"
#include "ops/vulkan/shaders/params.h"

namespace nnref::vk {

namespace {

struct Axis {
  uint64_t out = 1, in = 1;
  int64_t stride = 0;
  uint64_t start = 0, step = 1, pad = 0;
  uint32_t flags = 0;  // NNVK_AXIS_REVERSE, NNVK_AXIS_TILE
};

// The shader's padding mode of `mode`.
uint32_t PadMode(MLPaddingMode mode) {
  switch (mode) {
    case MLPaddingMode::kConstant:
      return NNVK_PAD_CONSTANT;
    case MLPaddingMode::kEdge:
      return NNVK_PAD_EDGE;
    default:
      return NNVK_PAD_REFLECTION;
  }
}

// layout.comp's parameters for `count` elements of `type` through `axes` (no padding,
// triangle or concat).
std::vector<uint32_t> Encode(DataType type, uint64_t count, const std::vector<Axis>& axes) {
  const auto u = [](uint64_t v) { return static_cast<uint32_t>(v); };
  std::vector<uint32_t> params(NNVK_LAYOUT_P_AXES + NNVK_LAYOUT_AXIS_WORDS * axes.size(), 0);
  params[NNVK_LAYOUT_P_TYPE] = u(static_cast<uint64_t>(type));
  params[NNVK_LAYOUT_P_RANK] = u(axes.size());
  params[NNVK_LAYOUT_P_COUNT] = u(count);
  params[NNVK_LAYOUT_P_PAD_MODE] = NNVK_PAD_NONE;
  params[NNVK_LAYOUT_P_TRIANGULAR] = NNVK_TRIANGULAR_NONE;
  for (size_t i = 0; i < axes.size(); ++i) {
    uint32_t* w = &params[NNVK_LAYOUT_P_AXES + NNVK_LAYOUT_AXIS_WORDS * i];
    w[0] = u(axes[i].out);
    w[1] = u(axes[i].in);
    w[2] = static_cast<uint32_t>(axes[i].stride);
    w[3] = u(axes[i].start);
    w[4] = u(axes[i].step);
    w[5] = u(axes[i].pad);
    w[6] = axes[i].flags;
  }
  return params;
}

class LayoutKernel final : public RecordableKernel {
 public:
  LayoutKernel(std::shared_ptr<Device> device, OpId op, LayoutParams a)
      : RecordableKernel(std::move(device)), op_(op), a_(std::move(a)) {}

  // The input is read dense in its own shape (concat: the inputs packed into one binding).

  void Emit(Sink& sink, std::span<const OperandValue* const>,
            std::span<const OperandDescriptor> in_desc,
            std::span<const OperandDescriptor> out) const override {
    if (op_ == OpId::concat) {
      RunConcat(sink, in_desc, out[0]);
      return;
    }
    uint64_t split_start = 0;
    for (size_t k = 0; k < out.size(); ++k) {
      Run(sink, in_desc[0].shape, out[k], k, split_start);
      if (op_ == OpId::split) split_start += out[k].shape[a_.axis];
    }
  }

 private:
  // One dispatch: the inputs' bytes packed one after the other in one binding (each dense in
  // its own shape), their sizes along the axis in the parameters.
  void RunConcat(Sink& sink, std::span<const OperandDescriptor> in,
                 const OperandDescriptor& desc) const {
    const uint32_t axis = a_.axis;
    uint64_t inner = 1;
    for (size_t d = axis + 1; d < desc.shape.size(); ++d) inner *= desc.shape[d];
    const uint64_t count = desc.ElementCount();
    if (count == 0) return;
    std::vector<size_t> packed;
    std::vector<uint32_t> params(NNVK_LAYOUT_P_AXES + in.size(), 0);
    params[NNVK_LAYOUT_P_TYPE] = static_cast<uint32_t>(desc.dataType);
    params[NNVK_LAYOUT_P_COUNT] = static_cast<uint32_t>(count);
    params[NNVK_LAYOUT_P_CONCAT] = static_cast<uint32_t>(in.size());
    params[NNVK_LAYOUT_P_INNER] = static_cast<uint32_t>(inner);
    for (size_t k = 0; k < in.size(); ++k) {
      packed.push_back(k);
      params[NNVK_LAYOUT_P_AXES + k] = static_cast<uint32_t>(in[k].shape[axis]);
    }
    std::vector<Source> sources;
    sources.push_back(Source::Packed(std::move(packed)));
    sink.Run(Shader::kLayout, params, std::move(sources), 0, WordGroups(desc));
  }

  void Run(Sink& sink, const Shape& is, const OperandDescriptor& desc, size_t output,
           uint64_t split_start) const {
    const uint64_t count = desc.ElementCount();
    if (count == 0) return;
    const Strides dense = ContiguousStrides(is);
    const size_t rank = desc.shape.size(), in_rank = is.size();
    std::vector<Axis> axes(rank);
    uint32_t pad_mode = NNVK_PAD_NONE, triangular = NNVK_TRIANGULAR_NONE;
    std::array<uint32_t, 2> value{0, 0};
    if (op_ == OpId::reshape || rank == 0) {
      axes.assign(1, Axis{count, count, 1, 0, 1, 0, 0});
    } else {
      for (size_t i = 0; i < rank; ++i) {
        Axis& x = axes[i];
        x.out = desc.shape[i];
        if (op_ == OpId::transpose) {
          const uint32_t from = a_.permutation[i];
          x.in = is[from];
          x.stride = dense[from];
        } else if (op_ == OpId::expand) {
          const ptrdiff_t j = static_cast<ptrdiff_t>(i) - static_cast<ptrdiff_t>(rank - in_rank);
          if (j >= 0) {
            x.in = is[static_cast<size_t>(j)];
            x.stride = x.in == 1 ? 0 : dense[static_cast<size_t>(j)];
          }
        } else {
          x.in = is[i];
          x.stride = dense[i];
        }
      }
      if (op_ == OpId::slice) {
        for (size_t i = 0; i < rank; ++i) {
          axes[i].start = a_.starts[i];
          axes[i].step = a_.steps[i];
        }
      } else if (op_ == OpId::split) {
        axes[a_.axis].start = split_start;
      } else if (op_ == OpId::reverse) {
        for (uint32_t axis : a_.axes) axes[axis].flags |= NNVK_AXIS_REVERSE;
      } else if (op_ == OpId::tile) {
        for (Axis& x : axes) x.flags |= NNVK_AXIS_TILE;
      } else if (op_ == OpId::pad) {
        pad_mode = PadMode(a_.mode);
        for (size_t i = 0; i < rank; ++i) axes[i].pad = a_.beginningPadding[i];
        const std::vector<std::byte> bits = a_.value.Bytes();
        std::memcpy(value.data(), bits.data(), std::min(bits.size(), sizeof value));
      } else if (op_ == OpId::triangular) {
        triangular = a_.upper ? NNVK_TRIANGULAR_UPPER : NNVK_TRIANGULAR_LOWER;
      }
    }
    std::vector<uint32_t> params = Encode(desc.dataType, count, axes);
    params[NNVK_LAYOUT_P_PAD_MODE] = pad_mode;
    params[NNVK_LAYOUT_P_VALUE] = value[0];
    params[NNVK_LAYOUT_P_VALUE + 1] = value[1];
    params[NNVK_LAYOUT_P_TRIANGULAR] = triangular;
    params[NNVK_LAYOUT_P_DIAGONAL] = static_cast<uint32_t>(a_.diagonal);
    std::vector<Source> sources;
    sources.push_back(Source::Input(0));
    sink.Run(Shader::kLayout, params, std::move(sources), output, WordGroups(desc));
  }

  OpId op_;
  LayoutParams a_;
};

std::optional<std::string> Unsupported(OpId op, DataType, const DeviceInfo&) {
  switch (op) {
    case OpId::reshape:
    case OpId::transpose:
    case OpId::expand:
    case OpId::slice:
    case OpId::reverse:
    case OpId::split:
      return std::string();  // bits are copied: every data type
    default:
      return std::nullopt;
  }
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index,
                                   const std::shared_ptr<Device>& device, std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  LayoutParams p;
  bool found = true;  // reshape and expand need none: the descriptors say everything
  switch (node.op) {
    case OpId::transpose: {
      const auto* a = node.Attributes<TransposeAttributes>();
      if ((found = a != nullptr)) p.permutation = a->permutation;
      break;
    }
    case OpId::slice: {
      const auto* a = node.Attributes<SliceAttributes>();
      if ((found = a != nullptr)) {
        p.starts = a->starts;
        p.steps = a->strides;
      }
      break;
    }
    case OpId::reverse: {
      const auto* a = node.Attributes<ReverseAttributes>();
      if ((found = a != nullptr)) p.axes = a->axes;
      break;
    }
    case OpId::split: {
      const auto* a = node.Attributes<SplitAttributes>();
      if ((found = a != nullptr)) p.axis = a->axis;
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

void EmitPermute(Sink& sink, DataType type, const Shape& shape, std::span<const uint32_t> perm,
                 Source from, Target to) {
  const Strides dense = ContiguousStrides(shape);
  std::vector<Axis> axes(perm.size());
  OperandDescriptor desc{type, {}};
  for (size_t i = 0; i < perm.size(); ++i) {
    axes[i].out = axes[i].in = shape[perm[i]];
    axes[i].stride = dense[perm[i]];
    desc.shape.push_back(shape[perm[i]]);
  }
  const uint64_t count = desc.ElementCount();
  if (count == 0) return;
  std::vector<Source> sources;
  sources.push_back(std::move(from));
  sink.Run(Shader::kLayout, Encode(type, count, axes), std::move(sources), to, WordGroups(desc));
}

void EmitStrided(Sink& sink, DataType type, std::span<const StridedAxis> strided, Source from,
                 Target to) {
  std::vector<Axis> axes(strided.size());
  OperandDescriptor desc{type, {}};
  bool pads = false;
  for (size_t i = 0; i < strided.size(); ++i) {
    axes[i].out = strided[i].out;
    axes[i].in = strided[i].in;
    axes[i].stride = strided[i].stride;
    pads = pads || strided[i].out > strided[i].in;
    desc.shape.push_back(strided[i].out);
  }
  const uint64_t count = desc.ElementCount();
  if (count == 0) return;
  std::vector<uint32_t> params = Encode(type, count, axes);
  if (pads) params[NNVK_LAYOUT_P_PAD_MODE] = NNVK_PAD_CONSTANT;  // zero bits past the end
  std::vector<Source> sources;
  sources.push_back(std::move(from));
  sink.Run(Shader::kLayout, params, std::move(sources), to, WordGroups(desc));
}

std::shared_ptr<const Kernel> MakeLayoutKernel(std::shared_ptr<Device> device, OpId op,
                                               LayoutParams a) {
  return std::make_shared<LayoutKernel>(std::move(device), op, std::move(a));
}

const Family kDataMovementFamily = {Unsupported, Make, nullptr};

}  // namespace nnref::vk
