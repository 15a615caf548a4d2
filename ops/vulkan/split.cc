// Operators on tensors larger than one storage binding (maxStorageBufferRange: 128 MiB on
// lavapipe), cut into boxes by rows (docs/vulkan.md#tensors-larger-than-a-binding): a box is a
// contiguous run of the output, `rows` indices of one of its leading axes under one index of each
// axis before it; each input is sliced to what the box reads (the axes that follow the output's
// box, and the axes the operator reads whole, stay whole), the operator's own kernel computes
// the box, and the result is copied into place. Each output element is computed by the same
// shader code from the same input elements, in the same order, as without the split, so the
// results are the same bit for bit.
#include <algorithm>
#include <cstring>

#include "ops/matmul_gemm.h"
#include "ops/normalization.h"
#include "ops/reduction.h"
#include "ops/softmax.h"
#include "ops/vulkan/family.h"

namespace nnref::vk {

namespace {

struct Box {
  size_t axis = 0;    // the output axis the boxes cut
  uint64_t rows = 1;  // indices of it per box
};

// The bytes of input `t` (`map` its axes per output axis) in a box of `rows` indices of output
// axis k: one index of each output axis before k, everything after.
uint64_t BoxBytes(const OperandDescriptor& t, const std::vector<int>& map, size_t k,
                  uint64_t rows) {
  std::vector<uint64_t> sizes(t.shape.begin(), t.shape.end());
  for (size_t j = 0; j < map.size() && j <= k; ++j) {
    if (map[j] < 0) continue;
    uint64_t& n = sizes[static_cast<size_t>(map[j])];
    if (n == 1) continue;  // broadcast along this axis: read whole
    n = j < k ? 1 : std::min(n, rows);
  }
  uint64_t bytes = ElementSize(t.dataType);
  for (uint64_t n : sizes) bytes *= n;
  return bytes;
}

// The largest boxes whose tensors all fit `limit` bytes, or nullopt with why.
std::optional<Box> PlanBoxes(const SplitGeometry& g, std::span<const OperandDescriptor> in,
                             const OperandDescriptor& out, uint64_t limit, std::string& why) {
  std::vector<std::vector<int>> maps = g.inputs;
  std::vector<OperandDescriptor> tensors(in.begin(), in.end());
  std::vector<int> identity(g.axes);
  for (size_t j = 0; j < g.axes; ++j) identity[j] = static_cast<int>(j);
  maps.push_back(identity);  // the output
  tensors.push_back(out);
  for (size_t k = 0; k < g.axes; ++k) {
    uint64_t rows = out.shape[k];
    bool fits = true;
    for (size_t i = 0; i < tensors.size() && fits; ++i) {
      const uint64_t one = BoxBytes(tensors[i], maps[i], k, 1);
      if (one > limit) {
        fits = false;
      } else if (BoxBytes(tensors[i], maps[i], k, 2) > one) {  // grows with the rows
        rows = std::min(rows, limit / one);
      }
    }
    if (fits) return Box{k, std::max<uint64_t>(rows, 1)};
  }
  why = "even one row of its boxes does not fit one binding";
  if (g.axes == 0) why = "no leading axis of its output can be cut";
  return std::nullopt;
}

class SplitKernel final : public Kernel {
 public:
  SplitKernel(std::shared_ptr<const Kernel> inner, SplitGeometry geometry, uint64_t max_bytes)
      : inner_(std::move(inner)), g_(std::move(geometry)), max_bytes_(max_bytes) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const OperandDescriptor& desc = out[0];
    const Shape& shape = desc.shape;
    const size_t rank = shape.size();
    const uint64_t count = desc.ElementCount();
    std::vector<OperandDescriptor> in_desc;
    for (const OperandValue* v : in) in_desc.push_back({v->data.dtype(), v->data.shape()});
    std::string why;
    const std::optional<Box> box = PlanBoxes(g_, in_desc, desc, max_bytes_, why);
    if (count == 0 || !box || (box->axis == 0 && box->rows >= shape[0])) {
      return inner_->Compute(in, out);  // one box (PlanBoxes was checked at MakeKernel)
    }
    const size_t k = box->axis;
    const uint64_t rows = box->rows;
    uint64_t block = 1;  // output elements per index of axis k
    for (size_t d = k + 1; d < rank; ++d) block *= shape[d];
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
          std::vector<uint64_t> s(t.rank(), 0), n(t.shape().begin(), t.shape().end()),
              step(t.rank(), 1);
          bool cut = false;
          for (size_t j = 0; j <= k && j < g_.inputs[i].size(); ++j) {
            const int a = g_.inputs[i][j];
            if (a < 0 || t.shape()[static_cast<size_t>(a)] == 1) continue;  // read whole
            s[static_cast<size_t>(a)] = starts[j];
            n[static_cast<size_t>(a)] = sizes[j];
            cut = true;
          }
          if (!cut) {
            pointers.push_back(in[i]);
            continue;
          }
          sliced[i].data = t.Slice(s, n, step);
          pointers.push_back(&sliced[i]);
        }
        const OperandDescriptor part_desc{desc.dataType, Shape(sizes.begin(), sizes.end())};
        const std::vector<OperandValue> part = inner_->Compute(pointers, {&part_desc, 1});
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
  SplitGeometry g_;
  uint64_t max_bytes_;
};

// Input axes right-aligned to an output of rank `rank` over its first `axes` axes (-1: none).
std::vector<int> RightAligned(size_t input_rank, size_t rank, size_t axes) {
  std::vector<int> map(axes, -1);
  for (size_t j = 0; j < axes; ++j) {
    if (j + input_rank >= rank) map[j] = static_cast<int>(j + input_rank - rank);
  }
  return map;
}

}  // namespace

std::optional<SplitGeometry> SplitGeometryOf(const Graph& graph, size_t index, const Family& family,
                                             std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  const Shape& out = graph.operand(node.outputs.at(0)).desc.shape;
  const size_t rank = out.size();
  const auto input_rank = [&](size_t k) { return graph.operand(node.inputs[k]).desc.shape.size(); };
  SplitGeometry g;
  if (node.outputs.size() != 1) {
    why = "it has several outputs";
    return std::nullopt;
  }
  if (family.splittable != nullptr && family.splittable(node.op)) {
    // Element-wise: every output axis; inputs right-aligned, broadcast axes read whole.
    g.axes = rank;
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      g.inputs.push_back(RightAligned(input_rank(k), rank, rank));
    }
    return g;
  }
  switch (node.op) {
    case OpId::matmul: {
      // Rows of the output: its batch axes and M; A cut along them, B along the batch axes.
      g.axes = rank - 1;
      std::vector<int> a = RightAligned(input_rank(0), rank, rank - 1);
      std::vector<int> b = RightAligned(input_rank(1), rank, rank - 1);
      b[rank - 2] = -1;  // B's K axis
      g.inputs = {a, b};
      return g;
    }
    case OpId::gemm: {
      const auto* a = node.Attributes<GemmAttributes>();
      if (a == nullptr) break;
      g.axes = 1;  // rows of the output: M
      g.inputs.push_back({a->aTranspose ? 1 : 0});
      g.inputs.push_back({-1});
      if (node.inputs.size() > 2) {  // c: cut when it has rows of its own
        g.inputs.push_back({input_rank(2) == 2 ? 0 : -1});
      }
      return g;
    }
    case OpId::softmax: {
      const auto* a = node.Attributes<SoftmaxAttributes>();
      if (a == nullptr) break;
      g.axes = a->axis;  // the axes before the softmax axis
      g.inputs.push_back(RightAligned(rank, rank, g.axes));
      if (g.axes == 0) why = "softmax over axis 0: every run spans the whole tensor";
      break;
    }
    case OpId::batchNormalization:
    case OpId::instanceNormalization:
    case OpId::layerNormalization: {
      const auto* a = node.Attributes<NormalizationAttributes>();
      if (a == nullptr) break;
      // The axes before the first normalized one and the first axis of scale and bias (the
      // channel axis of batch- and instanceNormalization): each box normalizes whole groups with
      // whole parameters.
      g.axes = rank;
      for (size_t axis : a->reduce_axes) g.axes = std::min(g.axes, axis);
      for (size_t axis : a->param_axes) g.axes = std::min(g.axes, axis);
      g.inputs.push_back(RightAligned(rank, rank, g.axes));
      for (size_t k = 1; k < node.inputs.size(); ++k)
        g.inputs.push_back(std::vector<int>(g.axes, -1));
      if (g.axes == 0) why = "the normalized or channel axis is axis 0: no rows to cut";
      break;
    }
    default: {
      const auto* r = node.Attributes<ReduceAttributes>();
      if (r == nullptr) break;
      // The kept axes before the first reduced one.
      g.axes = 0;
      while (g.axes < r->reduced.size() && !r->reduced[g.axes]) ++g.axes;
      g.inputs.push_back(RightAligned(rank, rank, g.axes));
      if (g.axes == 0) why = "the reduction includes axis 0: every output reads all of its rows";
      break;
    }
  }
  if (g.axes > 0) return g;
  if (why.empty()) {
    why = std::string(OpName(node.op)) +
          " is not split (docs/vulkan.md#tensors-larger-than-a-binding says why)";
  }
  return std::nullopt;
}

std::shared_ptr<const Kernel> SplitRows(std::shared_ptr<const Kernel> inner, const Graph& graph,
                                        size_t index, SplitGeometry geometry, uint64_t max_bytes,
                                        std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  std::vector<OperandDescriptor> in;
  for (OperandId id : node.inputs) in.push_back(graph.operand(id).desc);
  if (!PlanBoxes(geometry, in, graph.operand(node.outputs[0]).desc, max_bytes, why)) {
    return nullptr;
  }
  return std::make_shared<SplitKernel>(std::move(inner), std::move(geometry), max_bytes);
}

}  // namespace nnref::vk
