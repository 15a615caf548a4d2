// The simd backend's views: reshape (§api-mlgraphbuilder-reshape-method), transpose
// (§api-mlgraphbuilder-transpose), expand (§api-mlgraphbuilder-expand), slice
// (§api-mlgraphbuilder-slice), reverse (§api-mlgraphbuilder-reverse-method) and split
// (§api-mlgraphbuilder-split), as in the reference's ops/data_movement.cc: strided views of their
// input (ref/tensor/tensor.h), no element is copied.

#include "ops/data_movement.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ops/simd/copy.h"

namespace nnref::simd {

namespace {

// ---------------------------------------------------------------------------------------------
// The family.

std::optional<std::string> Unsupported(OpId op, DataType) {
  switch (op) {
    case OpId::reshape:
    case OpId::expand:
    case OpId::transpose:
    case OpId::slice:
    case OpId::reverse:
    case OpId::split:
      return std::string();  // every data type the builder admits
    default:
      return std::nullopt;
  }
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index, const Config&,
                                   std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  const OpId op = node.op;
  using In = std::span<const OperandValue* const>;
  using Out = std::span<const OperandDescriptor>;
  switch (op) {
    case OpId::reshape: {
      return K([](In in, Out out) { return One(in[0]->data.Reshape(out[0].shape)); });
    }
    case OpId::expand: {
      return K([](In in, Out out) { return One(in[0]->data.BroadcastTo(out[0].shape)); });
    }
    case OpId::transpose: {
      const auto* a = Need<TransposeAttributes>(node, why);
      if (!a) return nullptr;
      return K([perm = a->permutation](In in, Out) { return One(in[0]->data.Permute(perm)); });
    }
    case OpId::slice: {
      const auto* a = Need<SliceAttributes>(node, why);
      if (!a) return nullptr;
      return K([starts = a->starts, steps = a->strides](In in, Out out) {
        return One(in[0]->data.Slice(starts, out[0].shape, steps));
      });
    }
    case OpId::reverse: {
      const auto* a = Need<ReverseAttributes>(node, why);
      if (!a) return nullptr;
      return K([axes = a->axes](In in, Out) { return One(in[0]->data.Reverse(axes)); });
    }
    case OpId::split: {
      const auto* a = Need<SplitAttributes>(node, why);
      if (!a) return nullptr;
      return K([axis = a->axis](In in, Out out) {
        const Tensor& x = in[0]->data;
        std::vector<uint64_t> starts(x.rank(), 0);
        const std::vector<uint64_t> steps(x.rank(), 1);
        std::vector<OperandValue> result(out.size());
        for (size_t k = 0; k < out.size(); ++k) {
          result[k].data = x.Slice(starts, out[k].shape, steps);
          starts[axis] += out[k].shape[axis];
        }
        return result;
      });
    }
    default:
      break;
  }
  why = kNoKernelForOperator;
  return nullptr;
}

}  // namespace

const Family kDataMovementFamily = {Unsupported, Make};

}  // namespace nnref::simd
