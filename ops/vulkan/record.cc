#include "ops/vulkan/record.h"

#include <optional>

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
           size_t output, uint64_t groups, std::span<const uint32_t> spec) override {
    std::vector<Bytes> views;
    std::vector<std::vector<std::byte>> packed(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Source& s = inputs[i];
      if (s.operand >= 0) {
        views.emplace_back(InputBytes(static_cast<size_t>(s.operand)));
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
    Tensor& result = results_.at(output);
    const uint64_t count = result.element_count();
    if (count == 0) return;
    std::span<std::byte> bytes(result.buffer()->data(), count * ElementSize(result.dtype()));
    device_.Run(shader, params, views, bytes, groups, spec);
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

}  // namespace nnref::vk
