#include "ops/vulkan/record.h"

#include <cstring>
#include <optional>
#include <stdexcept>

namespace nnref::vk {

namespace {

// The per-operator path: each dispatch submitted at once (Device::Run), its inputs copied from
// the host and its output copied back into a fresh dense tensor.
class ImmediateSink final : public Sink {
 public:
  ImmediateSink(Device& device, std::span<const OperandValue* const> in,
                std::span<const OperandDescriptor> out)
      : device_(device), in_(in), bytes_(in.size()) {
    for (const OperandDescriptor& d : out)
      results_.push_back(Tensor::Allocate(d.dataType, d.shape));
  }

  void Run(Shader shader, std::span<const uint32_t> params, std::vector<Source> inputs,
           Target output, uint64_t groups, std::span<const uint32_t> spec) override {
    std::vector<Bytes> views;
    std::vector<std::vector<std::byte>> packed(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Source& s = inputs[i];
      if (s.operand >= 0 || s.scratch >= 0) {
        views.emplace_back(SourceBytes(s));
      } else if (!s.packed.empty()) {
        for (size_t k : s.packed) {
          const std::vector<std::byte>& bytes = InputBytes(k);
          packed[i].insert(packed[i].end(), bytes.begin(), bytes.end());
        }
        views.emplace_back(packed[i]);
      } else {
        views.emplace_back(s.host);
      }
    }
    const std::span<std::byte> bytes = TargetBytes(output);
    if (bytes.empty()) return;
    device_.Run(shader, params, views, bytes, groups, spec);
  }

  size_t Scratch(uint64_t bytes) override {
    scratch_.emplace_back(static_cast<size_t>(bytes));
    return scratch_.size() - 1;
  }

  void Copy(const Source& from, uint64_t from_offset, Target to, uint64_t to_offset,
            uint64_t bytes) override {
    if (bytes == 0) return;
    const Bytes src = SourceBytes(from);
    const std::span<std::byte> dst = TargetBytes(to);
    if (from_offset + bytes > src.size() || to_offset + bytes > dst.size()) {
      throw std::logic_error("vulkan: a kernel's copy is out of bounds");
    }
    std::memcpy(dst.data() + to_offset, src.data() + from_offset, bytes);
  }

  Bytes SourceBytes(const Source& s) {
    if (s.operand >= 0) return InputBytes(static_cast<size_t>(s.operand));
    if (s.scratch >= 0) return scratch_.at(static_cast<size_t>(s.scratch));
    if (!s.packed.empty()) throw std::logic_error("vulkan: a packed source is not copied");
    return s.host;
  }

  std::span<std::byte> TargetBytes(Target t) {
    if (t.scratch >= 0) return scratch_.at(static_cast<size_t>(t.scratch));
    Tensor& result = results_.at(t.output);
    return {result.buffer()->data(), result.element_count() * ElementSize(result.dtype())};
  }

  const std::vector<std::byte>& InputBytes(size_t k) {
    if (!bytes_[k]) bytes_[k] = in_[k]->data.Bytes();
    return *bytes_[k];
  }

  std::vector<OperandValue> Take() {
    std::vector<OperandValue> values(results_.size());
    for (size_t i = 0; i < results_.size(); ++i) values[i].data = std::move(results_[i]);
    return values;
  }

 private:
  Device& device_;
  std::span<const OperandValue* const> in_;
  std::vector<std::optional<std::vector<std::byte>>> bytes_;  // each input's dense bytes, once
  std::vector<Tensor> results_;
  std::vector<std::vector<std::byte>> scratch_;  // the node's scratch tensors
};

}  // namespace

std::vector<OperandValue> RecordableKernel::Compute(std::span<const OperandValue* const> in,
                                                    std::span<const OperandDescriptor> out) const {
  std::vector<OperandDescriptor> in_desc;
  for (const OperandValue* v : in) in_desc.push_back({v->data.dtype(), v->data.shape()});
  ImmediateSink sink(*device_, in, out);
  Emit(sink, in, in_desc, out);
  return sink.Take();
}

uint64_t WordGroups(const OperandDescriptor& out) {
  const uint64_t count = out.ElementCount();
  const uint64_t size = ElementSize(out.dataType);
  const uint64_t per = size >= 4 ? 1 : 4 / size;
  const uint64_t invocations = (count + per - 1) / per;
  return (invocations + kLocalSize - 1) / kLocalSize;
}

uint64_t GemmTileGroups(const DeviceInfo& device, uint64_t batches, uint64_t m, uint64_t n) {
  // gemm_tile.glsl's tile for the device's subgroup size S: 16 rows per subgroup (64 / S of them)
  // by 4 S columns when 8 <= S <= 64, else 32 x 32. The shader loops over the tiles itself, so a
  // device whose actual subgroup size differs only gets a different number of workgroups.
  const uint64_t s = device.subgroup_size;
  const bool subgroups = s >= 8 && s <= 64;
  const uint64_t rows = subgroups ? 16 * (kLocalSize / s) : 32, cols = subgroups ? 4 * s : 32;
  return batches * ((m + rows - 1) / rows) * ((n + cols - 1) / cols);
}

bool IsIdentity(std::span<const uint32_t> perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != i) return false;
  }
  return true;
}

MovedAxes MoveAxesLast(const Shape& shape, std::span<const size_t> axes) {
  MovedAxes m;
  const size_t rank = shape.size();
  std::vector<bool> moved(rank, false);
  for (size_t axis : axes) moved[axis] = true;
  for (size_t axis = 0; axis < rank; ++axis) {
    if (!moved[axis]) m.perm.push_back(static_cast<uint32_t>(axis));
  }
  for (size_t axis : axes) m.perm.push_back(static_cast<uint32_t>(axis));
  for (uint32_t axis : m.perm) m.shape.push_back(shape[axis]);
  m.identity = IsIdentity(m.perm);
  return m;
}

Source MovedInput(Sink& sink, const MovedAxes& m, size_t k, const OperandDescriptor& desc) {
  if (m.identity || desc.ElementCount() == 0) return Source::Input(k);
  const size_t s = sink.Scratch(desc.ByteLength());
  EmitPermute(sink, desc.dataType, desc.shape, m.perm, Source::Input(k), Target::Scratch(s));
  return Source::Scratch(s);
}

Target MovedOutput(Sink& sink, const MovedAxes& m, const OperandDescriptor& desc) {
  if (m.identity || desc.ElementCount() == 0) return Target(0);
  return Target::Scratch(sink.Scratch(desc.ByteLength()));
}

void MoveBack(Sink& sink, const MovedAxes& m, Target moved, const OperandDescriptor& desc) {
  if (moved.scratch < 0) return;
  std::vector<uint32_t> inverse(m.perm.size());
  for (size_t i = 0; i < m.perm.size(); ++i) inverse[m.perm[i]] = static_cast<uint32_t>(i);
  EmitPermute(sink, desc.dataType, m.shape, inverse,
              Source::Scratch(static_cast<size_t>(moved.scratch)), Target(0));
}

}  // namespace nnref::vk
