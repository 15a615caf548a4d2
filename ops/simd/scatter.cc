// The simd backend's scatterElements and scatterND (§api-mlgraphbuilder-scatterelements,
// §api-mlgraphbuilder-scatternd), as in the reference's ops/scatter.cc. Inputs are made dense
// first. An index out of [-N, N) is clamped, never written out of bounds; duplicate targets take
// the last update in row-major order. The reference marks these elements and comparison skips
// them.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ops/index_common.h"
#include "ops/indexing.h"
#include "ops/simd/copy.h"

namespace nnref::simd {

namespace {

// §api-mlgraphbuilder-scatterelements: a copy of the input, then output[o, indices[o, a, i], i] =
// updates[o, a, i] in row-major order (the last duplicate wins). Updates of different o touch
// disjoint lines, so the pool splits over o and each o keeps its row-major order.
Tensor ScatterElements(std::span<const OperandValue* const> in, const OperandDescriptor& out,
                       size_t axis, const Config& config) {
  Tensor result = Tensor::Allocate(out.dataType, out.shape);
  CopyView(in[0]->data, BytesOf(result), ContiguousStrides(out.shape), config);
  const Tensor idx = Dense(in[1]->data, config), updates = Dense(in[2]->data, config);
  const uint64_t outer = Product(out.shape, 0, axis), n = out.shape[axis];
  const uint64_t m = idx.shape()[axis], inner = Product(out.shape, axis + 1, out.shape.size());
  DispatchSize(ElemBytes(out.dataType), [&]<typename U>() {
    const U* upd = reinterpret_cast<const U*>(BytesOf(updates));
    U* dst = reinterpret_cast<U*>(BytesOf(result));
    DispatchIndexType(idx.dtype(), [&]<typename I>() {
      const I* p = idx.base<I>();
      Parallel(config, outer, m * inner, [&](uint64_t begin, uint64_t end) {
        for (uint64_t o = begin; o < end; ++o) {
          U* line = dst + o * n * inner;
          for (uint64_t k = o * m * inner; k < (o + 1) * m * inner; ++k) {
            line[Clamp(p[k], n) * inner + k % inner] = upd[k];
          }
        }
      });
      return 0;
    });
    return 0;
  });
  return result;
}

// §api-mlgraphbuilder-scatternd: a copy of the input, then output[indices[t, 0..c-1], s...] =
// updates[t, s...] for each tuple t in order (the last duplicate wins).
Tensor ScatterND(std::span<const OperandValue* const> in, const OperandDescriptor& out,
                 const Config& config) {
  Tensor result = Tensor::Allocate(out.dataType, out.shape);
  CopyView(in[0]->data, BytesOf(result), ContiguousStrides(out.shape), config);
  const Tensor idx = Dense(in[1]->data, config), updates = Dense(in[2]->data, config);
  const int64_t es = ElemBytes(out.dataType);
  const auto c = static_cast<size_t>(idx.shape().back());
  const uint64_t tuples = idx.element_count() / c;
  const uint64_t slice = Product(out.shape, c, out.shape.size());
  const Strides dense = ContiguousStrides(out.shape);
  const std::byte* upd = BytesOf(updates);
  std::byte* dst = BytesOf(result);
  DispatchIndexType(idx.dtype(), [&]<typename I>() {
    const I* p = idx.base<I>();
    for (uint64_t t = 0; t < tuples; ++t) {
      int64_t offset = 0;
      for (size_t q = 0; q < c; ++q) {
        offset += static_cast<int64_t>(Clamp(p[t * c + q], out.shape[q])) * dense[q];
      }
      std::memcpy(dst + offset * es, upd + static_cast<int64_t>(t * slice) * es,
                  static_cast<size_t>(slice * static_cast<uint64_t>(es)));
    }
    return 0;
  });
  return result;
}

// ---------------------------------------------------------------------------------------------
// The family.

std::optional<std::string> Unsupported(OpId op, DataType) {
  switch (op) {
    case OpId::scatterElements:
    case OpId::scatterND:
      return std::string();  // every data type the builder admits
    default:
      return std::nullopt;
  }
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index, const Config& config,
                                   std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  const OpId op = node.op;
  using In = std::span<const OperandValue* const>;
  using Out = std::span<const OperandDescriptor>;
  switch (op) {
    case OpId::scatterElements: {
      const auto* a = Need<ScatterAttributes>(node, why);
      if (!a) return nullptr;
      return K([axis = a->axis, config](In in, Out out) {
        return One(ScatterElements(in, out[0], axis, config));
      });
    }
    case OpId::scatterND: {
      return K([config](In in, Out out) { return One(ScatterND(in, out[0], config)); });
    }
    default:
      break;
  }
  why = kNoKernelForOperator;
  return nullptr;
}

}  // namespace

const Family kScatterFamily = {Unsupported, Make};

}  // namespace nnref::simd
