// Element-wise operators on tensors larger than one storage binding (maxStorageBufferRange: 128
// MiB on lavapipe): the output is cut into boxes that are contiguous runs of it, each computed by
// the operator's own kernel on the inputs sliced to the box (broadcast axes of an input stay
// whole), and copied into place. Every output element is computed by the same shader code from
// the same input elements as without the split, so the results are the same bit for bit.
#include <algorithm>
#include <cstring>

#include "ops/vulkan/family.h"

namespace nnref::vk {

namespace {

class SplitKernel final : public Kernel {
 public:
  SplitKernel(std::shared_ptr<const Kernel> inner, uint64_t max_bytes)
      : inner_(std::move(inner)), max_bytes_(max_bytes) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const OperandDescriptor& desc = out[0];
    const Shape& shape = desc.shape;
    const size_t rank = shape.size();
    const uint64_t count = desc.ElementCount();
    uint64_t widest = ElementSize(desc.dataType);
    for (const OperandValue* v : in) widest = std::max(widest, ElementSize(v->data.dtype()));
    const uint64_t limit = std::max<uint64_t>(1, max_bytes_ / widest);  // elements per box
    if (count <= limit) return inner_->Compute(in, out);

    // The split axis k: the first whose trailing block (the elements of one index along it)
    // fits; a box is `rows` indices of axis k under one index of each axis before it.
    size_t k = 0;
    uint64_t block = count;
    for (; k < rank; ++k) {
      block /= shape[k];
      if (block <= limit) break;
    }
    const uint64_t rows = limit / block;
    const uint64_t prefixes = count / (block * shape[k]);
    Tensor result = Tensor::Allocate(desc.dataType, shape);
    std::byte* base = result.buffer()->data();
    const uint64_t element = ElementSize(desc.dataType);
    std::vector<uint64_t> starts(rank, 0), sizes(shape.begin(), shape.end());
    for (uint64_t prefix = 0; prefix < prefixes; ++prefix) {
      uint64_t rest = prefix;
      for (size_t d = k; d-- > 0;) {
        starts[d] = rest % shape[d];
        sizes[d] = 1;
        rest /= shape[d];
      }
      for (uint64_t row = 0; row < shape[k]; row += rows) {
        starts[k] = row;
        sizes[k] = std::min(rows, shape[k] - row);
        std::vector<OperandValue> sliced(in.size());
        std::vector<const OperandValue*> pointers;
        for (size_t i = 0; i < in.size(); ++i) {
          const Tensor& t = in[i]->data;
          const size_t skip = rank - t.rank();  // inputs are right-aligned to the output
          std::vector<uint64_t> s(t.rank(), 0), n(t.rank(), 1), step(t.rank(), 1);
          for (size_t j = 0; j < t.rank(); ++j) {
            if (t.shape()[j] == 1) continue;  // broadcast along this axis: stays whole
            s[j] = starts[skip + j];
            n[j] = sizes[skip + j];
          }
          sliced[i].data = t.Slice(s, n, step);
          pointers.push_back(&sliced[i]);
        }
        const OperandDescriptor box{desc.dataType, Shape(sizes.begin(), sizes.end())};
        const std::vector<OperandValue> part = inner_->Compute(pointers, {&box, 1});
        const std::vector<std::byte> bytes = part.at(0).data.Bytes();
        // The box is one contiguous run of the output, starting at (prefix, row, 0, ...).
        const uint64_t offset = (prefix * shape[k] + row) * block * element;
        std::memcpy(base + offset, bytes.data(), bytes.size());
      }
    }
    return OneOutput(std::move(result));
  }

 private:
  std::shared_ptr<const Kernel> inner_;
  uint64_t max_bytes_;
};

}  // namespace

std::shared_ptr<const Kernel> SplitElementwise(std::shared_ptr<const Kernel> inner,
                                               uint64_t max_bytes) {
  return std::make_shared<SplitKernel>(std::move(inner), max_bytes);
}

}  // namespace nnref::vk
