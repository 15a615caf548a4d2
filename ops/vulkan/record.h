// Kernels whose work is dispatches only, written once for both ways the vulkan backend runs them
// (docs/vulkan.md#graph-execution): at once, one submission per dispatch with the inputs copied
// from the host and the output copied back (the per-operator path, and the check mode), or
// recorded into a graph's one command buffer with the inputs and outputs left on the device
// (graph.cc). Both paths run the same shader with the same parameters on the same bytes, so their
// results are the same bit for bit.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ops/vulkan/device.h"
#include "ref/graph/graph.h"

namespace nnref::vk {

// One input binding of a dispatch: input `operand` of the node, dense in its own shape (the
// bytes Tensor::Bytes() gives), scratch tensor `scratch` of the node (Sink::Scratch), the inputs
// `packed` one after the other (each dense, no padding between them: a graph copies them on the
// device), or bytes the kernel made on the host from inputs it read there (or from descriptors
// only).
struct Source {
  int operand = -1;             // the node's input index, or -1
  int scratch = -1;             // the node's scratch tensor, or -1
  std::vector<size_t> packed;   // when operand < 0 and scratch < 0 and not empty
  std::vector<std::byte> host;  // otherwise
  // `host` is made from the descriptors only (a tap table): the same bytes every run, which a
  // graph uploads once and keeps on the device.
  bool constant = false;

  static Source Input(size_t k) {
    Source s;
    s.operand = static_cast<int>(k);
    return s;
  }
  static Source Scratch(size_t k) {
    Source s;
    s.scratch = static_cast<int>(k);
    return s;
  }
  static Source Packed(std::vector<size_t> inputs) {
    Source s;
    s.packed = std::move(inputs);
    return s;
  }
  static Source Host(std::vector<std::byte> bytes) {
    Source s;
    s.host = std::move(bytes);
    return s;
  }
  static Source Constant(std::vector<std::byte> bytes) {
    Source s = Host(std::move(bytes));
    s.constant = true;
    return s;
  }
};

// Where a dispatch or a copy writes: output `output` of the node, or its scratch tensor
// `scratch` (Sink::Scratch).
struct Target {
  Target(size_t out) : output(out) {}  // NOLINT(google-explicit-constructor): an output index
  static Target Scratch(size_t k) {
    Target t(0);
    t.scratch = static_cast<int>(k);
    return t;
  }
  size_t output = 0;
  int scratch = -1;
};

// Where a kernel's dispatches go.
class Sink {
 public:
  virtual ~Sink() = default;
  // One run of `shader` writing `output` (a node output or a scratch tensor) whole, dense:
  // binding 0 = `params`, bindings 1.. = `inputs`, `groups` workgroups (capped at 65535: the
  // shaders loop), `spec` the specialization constants. Never called for an empty output.
  virtual void Run(Shader shader, std::span<const uint32_t> params, std::vector<Source> inputs,
                   Target output, uint64_t groups, std::span<const uint32_t> spec = {}) = 0;
  // A scratch tensor of `bytes` bytes (> 0) for the node's later dispatches and copies, on the
  // device in a graph (its contents undefined until written): its number, for Source::Scratch
  // and Target::Scratch. It lives until the node's last dispatch.
  virtual size_t Scratch(uint64_t bytes) = 0;
  // Copies `bytes` bytes of `from` (a node input, a scratch tensor or host bytes; not packed)
  // starting at byte `from_offset` into `to` at byte `to_offset`: a vkCmdCopyBuffer in a graph.
  // A node output written by copies must be written whole by them.
  virtual void Copy(const Source& from, uint64_t from_offset, Target to, uint64_t to_offset,
                    uint64_t bytes) = 0;
};

// A kernel made of dispatches (Emit) that a graph can record.
class RecordableKernel : public Kernel {
 public:
  // Why the node cannot be recorded into a graph's command buffer, in words ("the index (input
  // 1) is computed on the device, and the host reads it"), or "" when it can. `on_host[k]`: whether
  // input k is on the host when the node is recorded (graph inputs, constants and the outputs of
  // operators run one at a time); the others are only on the device.
  // By default "": the kernel is always recorded (its Emit reads every input on the device).
  virtual std::string NeedsHost(std::span<const OperandDescriptor> in,
                                std::span<const OperandDescriptor> out,
                                std::span<const bool> on_host) const {
    (void)in, (void)out, (void)on_host;
    return "";
  }
  // The node's dispatches into `sink`: `in[k]` input k's value when on the host, else null (only
  // where NeedsHost allowed it); `in_desc[k]` its descriptor.
  virtual void Emit(Sink& sink, std::span<const OperandValue* const> in,
                    std::span<const OperandDescriptor> in_desc,
                    std::span<const OperandDescriptor> out) const = 0;
  // One operator alone: Emit with every dispatch run at once; each output dense. A kernel whose
  // recorded form covers only some nodes (NeedsHost) overrides it for the others.
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override;

 protected:
  explicit RecordableKernel(std::shared_ptr<Device> device) : device_(std::move(device)) {}
  std::shared_ptr<Device> device_;
};

// The workgroups of a dispatch with one invocation per 32-bit word of `out` (an element of 32 or
// 64 bits, two of 16, four of 8), as Dispatch (family.h) runs.
uint64_t WordGroups(const OperandDescriptor& out);
// The workgroups of a native-mode tiled GEMM (gemm_tile.glsl) over `batches` M x N products, as
// DispatchGemmTiles (family.h) runs.
uint64_t GemmTileGroups(const DeviceInfo& device, uint64_t batches, uint64_t m, uint64_t n);

// Whether `perm` is the identity (the permuted tensor is the tensor itself).
bool IsIdentity(std::span<const uint32_t> perm);

// One layout.comp dispatch (data_movement.cc): `from`, dense of `type` in `shape`, transposed by
// `perm` (output axis i = input axis perm[i], as transpose) into `to`, dense. The bits are copied,
// so the result is exact for every type.
void EmitPermute(Sink& sink, DataType type, const Shape& shape, std::span<const uint32_t> perm,
                 Source from, Target to);
// One layout.comp dispatch writing `to` (dense, axis i of extent axes[i].out) from `from`:
// element (x_0, x_1, ...) is element sum x_i stride_i of `from` (dense of `type`), or zero bits
// where some x_i >= axes[i].in (padding past the end). The bits are copied.
struct StridedAxis {
  uint64_t out = 1, in = 1;
  int64_t stride = 0;
};
void EmitStrided(Sink& sink, DataType type, std::span<const StridedAxis> axes, Source from,
                 Target to);
// One elementwise.comp cast dispatch (elementwise.cc, exact mode conversions): `count` elements
// of `from` (dense, `from_type`) into `to` as `to_type`.
void EmitCast(Sink& sink, Source from, DataType from_type, Target to, DataType to_type,
              uint64_t count);

// A kernel's operand with some axes moved last on the device (docs/vulkan.md#graph-execution):
// the reductions, softmax, the normalizations, argMin/argMax and cumulativeSum compute dense runs
// along their last axes. `perm` puts the axes that are not moved first (in order), then `axes`
// in the given order; `shape` is the moved shape.
struct MovedAxes {
  std::vector<uint32_t> perm;
  Shape shape;
  bool identity = true;  // nothing moves: the operand is used in place
};
MovedAxes MoveAxesLast(const Shape& shape, std::span<const size_t> axes);
// Input `k` (of `desc`) moved: Source::Input(k) when nothing moves, else a scratch tensor that
// one layout.comp dispatch fills.
Source MovedInput(Sink& sink, const MovedAxes& m, size_t k, const OperandDescriptor& desc);
// Where a kernel writes its output `desc` computed in the moved order: output 0 itself when
// nothing moves, else a scratch tensor; then MoveBack moves it into output 0.
Target MovedOutput(Sink& sink, const MovedAxes& m, const OperandDescriptor& desc);
void MoveBack(Sink& sink, const MovedAxes& m, Target moved, const OperandDescriptor& desc);

}  // namespace nnref::vk
