// The simd backend's gather, gatherElements and gatherND (§api-mlgraphbuilder-gather,
// §api-mlgraphbuilder-gatherelements, §api-mlgraphbuilder-gathernd), as in the reference's
// ops/indexing.cc. Inputs are made dense first; the input is then [outer, axis, inner]. An index
// out of [-N, N) is clamped (below -N reads position 0, N or more position N-1), never read out
// of bounds; the reference marks these elements and comparison skips them.

#include "ops/indexing.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ops/index_common.h"
#include "ops/simd/copy.h"

namespace nnref::simd {

namespace {

// §api-mlgraphbuilder-gather: output[o, j..., i...] = input[o, indices[j...], i...].
Tensor Gather(const Tensor& input, const Tensor& indices, const OperandDescriptor& out, size_t axis,
              const Config& config) {
  const Tensor x = Dense(input, config), idx = Dense(indices, config);
  Tensor result = Tensor::Allocate(out.dataType, out.shape);
  const int64_t es = ElemBytes(x.dtype());
  const uint64_t outer = Product(x.shape(), 0, axis), n = x.shape()[axis];
  const uint64_t inner = Product(x.shape(), axis + 1, x.rank());
  const uint64_t count = idx.element_count();
  const std::byte* src = BytesOf(x);
  std::byte* dst = BytesOf(result);
  DispatchIndexType(idx.dtype(), [&]<typename I>() {
    const I* p = idx.base<I>();
    Parallel(config, outer * count, inner, [&](uint64_t begin, uint64_t end) {
      for (uint64_t u = begin; u < end; ++u) {
        const uint64_t o = u / count, pos = Clamp(p[u % count], n);
        std::memcpy(dst + static_cast<int64_t>(u * inner) * es,
                    src + static_cast<int64_t>((o * n + pos) * inner) * es,
                    static_cast<size_t>(inner * static_cast<uint64_t>(es)));
      }
    });
    return 0;
  });
  return result;
}

// §api-mlgraphbuilder-gatherelements: output[o, a, i] = input[o, indices[o, a, i], i].
Tensor GatherElements(const Tensor& input, const Tensor& indices, const OperandDescriptor& out,
                      size_t axis, const Config& config) {
  const Tensor x = Dense(input, config), idx = Dense(indices, config);
  Tensor result = Tensor::Allocate(out.dataType, out.shape);
  const uint64_t outer = Product(x.shape(), 0, axis), n = x.shape()[axis];
  const uint64_t m = idx.shape()[axis], inner = Product(x.shape(), axis + 1, x.rank());
  DispatchSize(ElemBytes(x.dtype()), [&]<typename U>() {
    const U* src = reinterpret_cast<const U*>(BytesOf(x));
    U* dst = reinterpret_cast<U*>(BytesOf(result));
    DispatchIndexType(idx.dtype(), [&]<typename I>() {
      const I* p = idx.base<I>();
      Parallel(config, outer * m, inner, [&](uint64_t begin, uint64_t end) {
        for (uint64_t row = begin; row < end; ++row) {
          const U* line = src + (row / m) * n * inner;
          for (uint64_t i = 0; i < inner; ++i) {
            const uint64_t k = row * inner + i;
            dst[k] = line[Clamp(p[k], n) * inner + i];
          }
        }
      });
      return 0;
    });
    return 0;
  });
  return result;
}

// §api-mlgraphbuilder-gathernd: output[t, s...] = input[indices[t, 0..c-1], s...].
Tensor GatherND(const Tensor& input, const Tensor& indices, const OperandDescriptor& out,
                const Config& config) {
  const Tensor x = Dense(input, config), idx = Dense(indices, config);
  Tensor result = Tensor::Allocate(out.dataType, out.shape);
  const int64_t es = ElemBytes(x.dtype());
  const auto c = static_cast<size_t>(idx.shape().back());
  const uint64_t tuples = idx.element_count() / c;
  const uint64_t slice = Product(x.shape(), c, x.rank());
  const Strides dense = ContiguousStrides(x.shape());
  const std::byte* src = BytesOf(x);
  std::byte* dst = BytesOf(result);
  DispatchIndexType(idx.dtype(), [&]<typename I>() {
    const I* p = idx.base<I>();
    Parallel(config, tuples, slice, [&](uint64_t begin, uint64_t end) {
      for (uint64_t t = begin; t < end; ++t) {
        int64_t offset = 0;
        for (size_t q = 0; q < c; ++q) {
          offset += static_cast<int64_t>(Clamp(p[t * c + q], x.shape()[q])) * dense[q];
        }
        std::memcpy(dst + static_cast<int64_t>(t * slice) * es, src + offset * es,
                    static_cast<size_t>(slice * static_cast<uint64_t>(es)));
      }
    });
    return 0;
  });
  return result;
}

// ---------------------------------------------------------------------------------------------
// The family.

std::optional<std::string> Unsupported(OpId op, DataType) {
  switch (op) {
    case OpId::gather:
    case OpId::gatherElements:
    case OpId::gatherND:
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
    case OpId::gather:
    case OpId::gatherElements: {
      const auto* a = Need<GatherAttributes>(node, why);
      if (!a) return nullptr;
      if (op == OpId::gather) {
        return K([axis = a->axis, config](In in, Out out) {
          return One(Gather(in[0]->data, in[1]->data, out[0], axis, config));
        });
      }
      return K([axis = a->axis, config](In in, Out out) {
        return One(GatherElements(in[0]->data, in[1]->data, out[0], axis, config));
      });
    }
    case OpId::gatherND: {
      return K([config](In in, Out out) {
        return One(GatherND(in[0]->data, in[1]->data, out[0], config));
      });
    }
    default:
      break;
  }
  why = kNoKernelForOperator;
  return nullptr;
}

}  // namespace

const Family kIndexingFamily = {Unsupported, Make};

}  // namespace nnref::simd
