// The simd backend's argMin/argMax (§api-mlgraphbuilder-argminmax) and cumulativeSum
// (§api-mlgraphbuilder-cumulativesum), as in the reference's ops/arg_cumulative.cc. Integer sums
// wrap modulo 2^N (computed unsigned: no undefined behaviour); the reference marks such elements
// and comparison skips them.

#include "ops/arg_cumulative.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ops/simd/copy.h"

namespace nnref::simd {

namespace {

// Lines along an axis: argMin/argMax and cumulativeSum. The dense input is [outer, n, inner];
// a work unit is one outer position and a chunk of at most kChunk inner positions, walked row by
// row along the axis (unit-stride rows, one running value per inner position).

struct AxisGeometry {
  AxisGeometry(const Shape& shape, size_t axis)
      : outer(Product(shape, 0, axis)),
        n(shape[axis]),
        inner(Product(shape, axis + 1, shape.size())),
        chunks((inner + kChunk - 1) / kChunk) {}
  uint64_t outer, n, inner, chunks;
};

// A row of `count` values of storage type T as V (float16 widened into `scratch`).
template <typename T, typename V>
const V* RowAs(const T* p, uint64_t count, std::vector<float>& scratch) {
  if constexpr (std::is_same_v<T, Float16>) {
    scratch.resize(std::max<size_t>(scratch.size(), count));
    HalfToFloatRow(reinterpret_cast<const uint16_t*>(p), scratch.data(), count);
    return scratch.data();
  } else {
    return p;
  }
}

// §api-mlgraphbuilder-argminmax: the first index of the smallest/largest value (ties: the spec
// leaves the choice open; the first is one of the tied set). Values compare in float32 (float16
// widened exactly) or in their integer type. A NaN never wins a comparison; the spec has no NaN
// rule and the reference marks such lines.
template <typename T, typename I>
void ArgMinMaxLines(const T* x, I* out, const AxisGeometry& g, bool is_max, const Config& config) {
  using V = std::conditional_t<std::is_same_v<T, Float16>, float, T>;
  Parallel(config, g.outer * g.chunks, std::min<uint64_t>(g.inner, kChunk) * g.n,
           [&](uint64_t begin, uint64_t end) {
             std::vector<float> scratch;
             std::vector<V> best;
             for (uint64_t u = begin; u < end; ++u) {
               const uint64_t o = u / g.chunks, first = (u % g.chunks) * kChunk;
               const uint64_t count = std::min<uint64_t>(kChunk, g.inner - first);
               const T* line = x + o * g.n * g.inner + first;
               I* dst = out + o * g.inner + first;
               const V* row0 = RowAs<T, V>(line, count, scratch);
               best.assign(row0, row0 + count);
               std::fill(dst, dst + count, I{0});
               for (uint64_t a = 1; a < g.n; ++a) {
                 const V* row = RowAs<T, V>(line + a * g.inner, count, scratch);
                 for (uint64_t j = 0; j < count; ++j) {
                   if (is_max ? row[j] > best[j] : row[j] < best[j]) {
                     best[j] = row[j];
                     dst[j] = static_cast<I>(a);
                   }
                 }
               }
             }
           });
}

Tensor ArgMinMax(const Tensor& input, const OperandDescriptor& out, size_t axis, bool is_max,
                 const Config& config) {
  const Tensor x = Dense(input, config);
  Tensor result = Tensor::Allocate(out.dataType, out.shape);
  const AxisGeometry g(x.shape(), axis);
  DispatchDataType(x.dtype(), [&]<typename T>() {
    if (out.dataType == DataType::kInt32) {
      ArgMinMaxLines<T, int32_t>(x.base<T>(), result.base<int32_t>(), g, is_max, config);
    } else {
      ArgMinMaxLines<T, int64_t>(x.base<T>(), result.base<int64_t>(), g, is_max, config);
    }
    return 0;
  });
  return result;
}

// §api-mlgraphbuilder-cumulativesum: running sums along the axis, forward or reversed, inclusive
// or exclusive. Floats accumulate in float64 (each float32/float16 term is exact in it; a float32
// accumulator fails the per-addition tolerance under cancellation, e.g. 1e8 + 1 - 1e8, and
// overflows where the exact prefix sum is finite) and each output is rounded once. The running
// sum starts from -0 so that a sum of -0 terms stays -0 as IEEE addition makes it; the empty
// (exclusive) sum is the fresh output's +0. Integers add modulo 2^N in the unsigned type.
template <typename T>
void CumulativeLines(const T* x, T* out, const AxisGeometry& g, bool exclusive, bool reversed,
                     const Config& config) {
  constexpr bool kFloat = kIsFloatStorage<T>;
  using V = std::conditional_t<std::is_same_v<T, Float16>, float, T>;
  using A =
      std::conditional_t<kFloat, double, std::make_unsigned_t<std::conditional_t<kFloat, int, T>>>;
  Parallel(config, g.outer * g.chunks, std::min<uint64_t>(g.inner, kChunk) * g.n,
           [&](uint64_t begin, uint64_t end) {
             std::vector<float> scratch;
             std::vector<A> acc;
             for (uint64_t u = begin; u < end; ++u) {
               const uint64_t o = u / g.chunks, first = (u % g.chunks) * kChunk;
               const uint64_t count = std::min<uint64_t>(kChunk, g.inner - first);
               const uint64_t base = o * g.n * g.inner + first;
               if constexpr (kFloat) {
                 acc.assign(count, -0.0);
               } else {
                 acc.assign(count, A{0});
               }
               const auto store = [&](uint64_t a) {
                 T* dst = out + base + a * g.inner;
                 for (uint64_t j = 0; j < count; ++j) {
                   if constexpr (std::is_same_v<T, Float16>) {
                     dst[j] = Float16::FromDouble(acc[j]);
                   } else {
                     dst[j] = static_cast<T>(acc[j]);
                   }
                 }
               };
               for (uint64_t s = 0; s < g.n; ++s) {
                 const uint64_t a = reversed ? g.n - 1 - s : s;
                 if (exclusive && s > 0) store(a);
                 const V* row = RowAs<T, V>(x + base + a * g.inner, count, scratch);
                 for (uint64_t j = 0; j < count; ++j) {
                   if constexpr (kFloat) {
                     acc[j] += static_cast<double>(row[j]);
                   } else {
                     acc[j] = static_cast<A>(acc[j] + static_cast<A>(row[j]));
                   }
                 }
                 if (!exclusive) store(a);
               }
             }
           });
}

Tensor CumulativeSum(const Tensor& input, const OperandDescriptor& out,
                     const CumulativeSumAttributes& attributes, const Config& config) {
  const Tensor x = Dense(input, config);
  Tensor result = Tensor::Allocate(out.dataType, out.shape);
  const AxisGeometry g(x.shape(), attributes.axis);
  DispatchDataType(x.dtype(), [&]<typename T>() {
    CumulativeLines<T>(x.base<T>(), result.base<T>(), g, attributes.exclusive, attributes.reversed,
                       config);
    return 0;
  });
  return result;
}

// ---------------------------------------------------------------------------------------------
// The family.

std::optional<std::string> Unsupported(OpId op, DataType) {
  switch (op) {
    case OpId::argMin:
    case OpId::argMax:
    case OpId::cumulativeSum:
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
    case OpId::argMin:
    case OpId::argMax: {
      const auto* a = Need<ArgMinMaxAttributes>(node, why);
      if (!a) return nullptr;
      return K([axis = a->axis, is_max = op == OpId::argMax, config](In in, Out out) {
        return One(ArgMinMax(in[0]->data, out[0], axis, is_max, config));
      });
    }
    case OpId::cumulativeSum: {
      const auto* a = Need<CumulativeSumAttributes>(node, why);
      if (!a) return nullptr;
      return K([attributes = *a, config](In in, Out out) {
        return One(CumulativeSum(in[0]->data, out[0], attributes, config));
      });
    }
    default:
      break;
  }
  why = kNoKernelForOperator;
  return nullptr;
}

}  // namespace

const Family kArgCumulativeFamily = {Unsupported, Make};

}  // namespace nnref::simd
