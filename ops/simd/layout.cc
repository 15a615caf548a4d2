// The simd backend's layout family: the data-movement operators
// (§api-mlgraphbuilder-reshape-method, §api-mlgraphbuilder-transpose, §api-mlgraphbuilder-expand,
// §api-mlgraphbuilder-slice, §api-mlgraphbuilder-reverse-method, §api-mlgraphbuilder-split,
// §api-mlgraphbuilder-concat, §api-mlgraphbuilder-pad, §api-mlgraphbuilder-tile,
// §api-mlgraphbuilder-triangular), gather and scatter (§api-mlgraphbuilder-gather,
// §api-mlgraphbuilder-gatherelements, §api-mlgraphbuilder-gathernd,
// §api-mlgraphbuilder-scatterelements, §api-mlgraphbuilder-scatternd), quantization
// (§api-mlgraphbuilder-quantizelinear, §api-mlgraphbuilder-dequantizelinear), argMin/argMax
// (§api-mlgraphbuilder-argminmax) and cumulativeSum (§api-mlgraphbuilder-cumulativesum).
//
// The view operators (reshape, transpose, expand, slice, reverse, split) return strided views of
// their input (ref/tensor/tensor.h), like the reference. Copying operators move bytes: a row
// plan (strided.h) merges the axes of source and destination, contiguous runs are memcpy'd and
// strided runs copied by element size, so one code path serves every data type. Work is split
// over output rows or blocks on config.pool only, never over the terms of one result, so every
// output is bit-identical for any thread count.
//
// What the spec leaves open gets a defined, crash-free value: an index out of [-N, N) is clamped
// (below -N reads/writes position 0, N or more position N-1), never read or written out of
// bounds; duplicate scatter targets take the last update in row-major order; integer sums wrap
// modulo 2^N (computed unsigned: no undefined behaviour). The reference marks these elements and
// comparison skips them.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <type_traits>

#include "ops/arg_cumulative.h"
#include "ops/data_movement.h"
#include "ops/index_common.h"
#include "ops/indexing.h"
#include "ops/simd/family.h"
#include "ops/simd/map.h"

namespace nnref::simd {

namespace {

using ComputeFn = std::function<std::vector<OperandValue>(std::span<const OperandValue* const>,
                                                          std::span<const OperandDescriptor>)>;

class LayoutKernel final : public Kernel {
 public:
  explicit LayoutKernel(ComputeFn fn) : fn_(std::move(fn)) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    return fn_(in, out);
  }

 private:
  ComputeFn fn_;
};

std::vector<OperandValue> One(Tensor t) {
  std::vector<OperandValue> r(1);
  r[0].data = std::move(t);
  return r;
}

// ---------------------------------------------------------------------------------------------
// Byte-level helpers.

int64_t ElemBytes(DataType t) { return static_cast<int64_t>(ElementSize(t)); }

// The first byte of element 0 of view `t`.
std::byte* BytesOf(const Tensor& t) {
  return t.buffer()->data() + t.offset() * ElemBytes(t.dtype());
}

// Calls fn.template operator()<U>() with the unsigned integer type of `bytes` (1, 2, 4 or 8).
template <typename Fn>
decltype(auto) DispatchSize(int64_t bytes, Fn&& fn) {
  switch (bytes) {
    case 1:
      return fn.template operator()<uint8_t>();
    case 2:
      return fn.template operator()<uint16_t>();
    case 4:
      return fn.template operator()<uint32_t>();
    default:
      return fn.template operator()<uint64_t>();
  }
}

// n elements of `es` bytes: dst[i * ds] = src[i * ss] (steps in elements; step 0 repeats).
void CopyRun(const std::byte* src, int64_t ss, std::byte* dst, int64_t ds, uint64_t n, int64_t es) {
  if (n == 0) return;
  if (ss == 1 && ds == 1) {
    std::memcpy(dst, src, static_cast<size_t>(n) * static_cast<size_t>(es));
    return;
  }
  DispatchSize(es, [&]<typename U>() {
    const U* s = reinterpret_cast<const U*>(src);
    U* d = reinterpret_cast<U*>(dst);
    if (ss == 0 && ds == 1) {
      std::fill(d, d + n, *s);
      return 0;
    }
    for (uint64_t i = 0; i < n; ++i) {
      d[static_cast<int64_t>(i) * ds] = s[static_cast<int64_t>(i) * ss];
    }
    return 0;
  });
}

// Runs fn(begin, end) over [0, units) on the pool, `unit_elements` elements per unit.
void Parallel(const Config& config, uint64_t units, uint64_t unit_elements,
              const std::function<void(uint64_t, uint64_t)>& fn) {
  if (units == 0) return;
  const uint64_t grain =
      std::max<uint64_t>(1, kTaskElements / std::max<uint64_t>(1, unit_elements));
  config.pool->ParallelFor(static_cast<size_t>(units), static_cast<size_t>(grain),
                           [&](size_t b, size_t e) { fn(b, e); });
}

// A transposing copy: the source runs contiguous along outer axis k of the plan while its inner
// axis (contiguous in the destination) strides it, so a row-by-row copy touches a new cache line
// and page for every element. Copying 32 x 32 tiles keeps both sides in cache. Work units are
// strips of 32 positions along k (disjoint outputs). False when the plan is not of that kind.
bool TiledCopy(const RowPlan<2>& plan, const std::byte* s, std::byte* d, int64_t es,
               const Config& config) {
  constexpr uint64_t kTile = 32;
  const int64_t di = plan.inner_stride[0], si = plan.inner_stride[1];
  if (si == 1 || si == 0 || plan.inner < kTile / 2) return false;
  size_t k = plan.outer.size();
  for (size_t a = 0; a < plan.outer.size(); ++a) {
    if (plan.outer_strides[1][a] == 1 && plan.outer[a] >= kTile / 2) k = a;
  }
  if (k == plan.outer.size()) return false;
  Shape batch;
  std::array<Strides, 2> batch_strides;
  for (size_t a = 0; a < plan.outer.size(); ++a) {
    if (a == k) continue;
    batch.push_back(plan.outer[a]);
    for (size_t q = 0; q < 2; ++q) batch_strides[q].push_back(plan.outer_strides[q][a]);
  }
  const uint64_t rows = plan.outer[k], cols = plan.inner;
  const uint64_t strips = (rows + kTile - 1) / kTile;
  const int64_t dk = plan.outer_strides[0][k];
  DispatchSize(es, [&]<typename U>() {
    const U* src = reinterpret_cast<const U*>(s);
    U* dst = reinterpret_cast<U*>(d);
    Parallel(config, ElementCount(batch) * strips, kTile * cols, [&](uint64_t begin, uint64_t end) {
      for (uint64_t u = begin; u < end; ++u) {
        int64_t od = 0, os = 0;
        uint64_t rest = u / strips;
        for (size_t a = batch.size(); a-- > 0;) {
          const auto i = static_cast<int64_t>(rest % batch[a]);
          rest /= batch[a];
          od += i * batch_strides[0][a];
          os += i * batch_strides[1][a];
        }
        const uint64_t i0 = (u % strips) * kTile;
        const auto ni = static_cast<int64_t>(std::min(kTile, rows - i0));
        od += static_cast<int64_t>(i0) * dk;
        os += static_cast<int64_t>(i0);
        for (uint64_t j0 = 0; j0 < cols; j0 += kTile) {
          const auto nj = static_cast<int64_t>(std::min(kTile, cols - j0));
          const U* from = src + os + static_cast<int64_t>(j0) * si;
          U* to = dst + od + static_cast<int64_t>(j0) * di;
          for (int64_t i = 0; i < ni; ++i) {
            for (int64_t j = 0; j < nj; ++j) to[i * dk + j * di] = from[i + j * si];
          }
        }
      }
    });
    return 0;
  });
  return true;
}

// Copies view `src` into the elements at byte address `dst` with element strides `dst_strides`
// (over src's shape).
void CopyView(const Tensor& src, std::byte* dst, const Strides& dst_strides, const Config& config) {
  const int64_t es = ElemBytes(src.dtype());
  const RowPlan<2> plan = MakeRowPlan<2>(src.shape(), {dst_strides, src.strides()});
  const std::byte* s = BytesOf(src);
  if (TiledCopy(plan, s, dst, es, config)) return;
  ForEachChunk(plan, config, [&](const std::array<int64_t, 2>& off, uint64_t, uint64_t n) {
    CopyRun(s + off[1] * es, plan.inner_stride[1], dst + off[0] * es, plan.inner_stride[0], n, es);
  });
}

// `t` itself when contiguous, else a dense copy made on the pool.
Tensor Dense(const Tensor& t, const Config& config) {
  if (t.IsContiguous()) return t;
  Tensor out = Tensor::Allocate(t.dtype(), t.shape());
  CopyView(t, BytesOf(out), ContiguousStrides(t.shape()), config);
  return out;
}

uint64_t Product(const Shape& s, size_t begin, size_t end) {
  uint64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= s[i];
  return p;
}

// The reference's clamped position (ResolveIndex, ops/index_common.h): below -n gives 0, n or
// more gives n - 1.
template <typename I>
uint64_t Clamp(I value, uint64_t n) {
  return ResolveIndex(static_cast<int64_t>(value), n).position;  // int32, uint32, int64: exact
}

// Calls fn.template operator()<I>() with the storage type of an index tensor (int32, uint32 or
// int64: the builder methods admit no other).
template <typename Fn>
decltype(auto) DispatchIndexType(DataType t, Fn&& fn) {
  switch (t) {
    case DataType::kInt32:
      return fn.template operator()<int32_t>();
    case DataType::kUint32:
      return fn.template operator()<uint32_t>();
    default:
      return fn.template operator()<int64_t>();
  }
}

// ---------------------------------------------------------------------------------------------
// Copies: concat, pad, tile, triangular.

// §api-mlgraphbuilder-concat: each input copied into the output region that starts where the
// previous one ended along the axis.
Tensor Concat(std::span<const OperandValue* const> in, const OperandDescriptor& out, size_t axis,
              const Config& config) {
  Tensor result = Tensor::Allocate(out.dataType, out.shape);
  const Strides dense = ContiguousStrides(out.shape);
  const int64_t es = ElemBytes(out.dataType);
  int64_t start = 0;
  for (const OperandValue* v : in) {
    CopyView(v->data, BytesOf(result) + start * dense[axis] * es, dense, config);
    start += static_cast<int64_t>(v->data.shape()[axis]);
  }
  return result;
}

// §api-mlgraphbuilder-tile: the output viewed as [r0, n0, r1, n1, ...] is the input broadcast
// (stride 0) along each r.
Tensor Tile(const Tensor& x, const OperandDescriptor& out, const Shape& repetitions,
            const Config& config) {
  Tensor result = Tensor::Allocate(out.dataType, out.shape);
  Shape interleaved;
  Strides source;
  for (size_t a = 0; a < x.rank(); ++a) {
    interleaved.push_back(repetitions[a]);
    source.push_back(0);
    interleaved.push_back(x.shape()[a]);
    source.push_back(x.strides()[a]);
  }
  const Tensor from(x.dtype(), interleaved, source, x.offset(), x.buffer());
  CopyView(from, BytesOf(result), ContiguousStrides(interleaved), config);
  return result;
}

// §api-mlgraphbuilder-pad. Output index i on axis a reads input index i - beginningPadding[a]
// inside the input; outside, the constant, the nearest edge index or the mirrored index (the
// builder keeps reflection padding below the axis size, so one mirror suffices). Each output row
// (last axis) is its padded sides element by element and the interior as one run.
Tensor Pad(const Tensor& x, const OperandDescriptor& out, const PadAttributes& attributes,
           const Config& config) {
  Tensor result = Tensor::Allocate(out.dataType, out.shape);
  const size_t rank = x.rank();
  if (rank == 0) {
    CopyView(x, BytesOf(result), {}, config);
    return result;
  }
  const int64_t es = ElemBytes(x.dtype());
  std::vector<std::vector<int64_t>> source(rank);  // input index per output index, -1: constant
  for (size_t a = 0; a < rank; ++a) {
    const auto size = static_cast<int64_t>(x.shape()[a]);
    const auto begin = static_cast<int64_t>(attributes.beginningPadding[a]);
    source[a].resize(out.shape[a]);
    for (uint64_t i = 0; i < out.shape[a]; ++i) {
      const int64_t j = static_cast<int64_t>(i) - begin;
      int64_t s = j;
      if (j < 0 || j >= size) {
        switch (attributes.mode) {
          case MLPaddingMode::kConstant:
            s = -1;
            break;
          case MLPaddingMode::kEdge:
            s = j < 0 ? 0 : size - 1;
            break;
          case MLPaddingMode::kReflection:
            s = j < 0 ? -j : 2 * (size - 1) - j;
            break;
        }
      }
      source[a][i] = s;
    }
  }
  const std::byte* constant = BytesOf(attributes.value);
  const std::byte* src = BytesOf(x);
  std::byte* dst = BytesOf(result);
  const uint64_t inner = out.shape[rank - 1];
  const uint64_t rows = out.ElementCount() / inner;
  const auto left = static_cast<int64_t>(attributes.beginningPadding[rank - 1]);
  const auto n = static_cast<int64_t>(x.shape()[rank - 1]);
  const int64_t step = x.strides()[rank - 1];
  const std::vector<int64_t>& last = source[rank - 1];
  Parallel(config, rows, inner, [&](uint64_t begin, uint64_t end) {
    for (uint64_t r = begin; r < end; ++r) {
      int64_t offset = 0;
      bool constant_row = false;
      uint64_t rest = r;
      for (size_t a = rank - 1; a-- > 0;) {
        const int64_t s = source[a][rest % out.shape[a]];
        rest /= out.shape[a];
        if (s < 0) constant_row = true;
        offset += s * x.strides()[a];
      }
      std::byte* row = dst + static_cast<int64_t>(r * inner) * es;
      if (constant_row) {
        CopyRun(constant, 0, row, 1, inner, es);
        continue;
      }
      const std::byte* in_row = src + offset * es;
      const auto side = [&](int64_t from, int64_t to) {
        for (int64_t i = from; i < to; ++i) {
          const int64_t s = last[static_cast<size_t>(i)];
          std::memcpy(row + i * es, s < 0 ? constant : in_row + s * step * es,
                      static_cast<size_t>(es));
        }
      };
      side(0, left);
      CopyRun(in_row, step, row + left * es, 1, static_cast<uint64_t>(n), es);
      side(left + n, static_cast<int64_t>(inner));
    }
  });
  return result;
}

// §api-mlgraphbuilder-triangular: in each matrix (the last two axes) element (i, j) is kept when
// j - i >= diagonal (upper) or j - i <= diagonal (lower), else 0 (the fresh output's zero bytes).
Tensor Triangular(const Tensor& x, const OperandDescriptor& out,
                  const TriangularAttributes& attributes, const Config& config) {
  Tensor result = Tensor::Allocate(out.dataType, out.shape);
  const size_t rank = x.rank();
  const int64_t es = ElemBytes(x.dtype());
  const uint64_t rows_per_matrix = out.shape[rank - 2], cols = out.shape[rank - 1];
  const uint64_t rows = out.ElementCount() / cols;
  const std::byte* src = BytesOf(x);
  std::byte* dst = BytesOf(result);
  const auto c = static_cast<int64_t>(cols);
  Parallel(config, rows, cols, [&](uint64_t begin, uint64_t end) {
    for (uint64_t r = begin; r < end; ++r) {
      const auto i = static_cast<int64_t>(r % rows_per_matrix);
      int64_t offset = i * x.strides()[rank - 2];
      uint64_t rest = r / rows_per_matrix;
      for (size_t a = rank - 2; a-- > 0;) {
        offset += static_cast<int64_t>(rest % out.shape[a]) * x.strides()[a];
        rest /= out.shape[a];
      }
      const int64_t edge = i + attributes.diagonal;  // j - i compared with the diagonal
      const int64_t lo = attributes.upper ? std::clamp<int64_t>(edge, 0, c) : 0;
      const int64_t hi = attributes.upper ? c : std::clamp<int64_t>(edge + 1, 0, c);
      if (hi <= lo) continue;
      CopyRun(src + (offset + lo * x.strides()[rank - 1]) * es, x.strides()[rank - 1],
              dst + (static_cast<int64_t>(r) * c + lo) * es, 1, static_cast<uint64_t>(hi - lo), es);
    }
  });
  return result;
}

// ---------------------------------------------------------------------------------------------
// Gather and scatter. Inputs are made dense first; the input is then [outer, axis, inner].

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
// quantizeLinear / dequantizeLinear. scale and zeroPoint are blockwise broadcast to the input
// (§api-mlgraphbuilder-quantizelinear): axis k of the input (size S, P parameter elements) is
// split into [P, S / P] with the parameters' stride 0 on the inner half, and one row plan walks
// output, input, scale and zeroPoint together.

template <typename T>
float AsFloat(T v) {
  if constexpr (std::is_same_v<T, Float16>) {
    return v.ToFloat();
  } else {
    return static_cast<float>(v);
  }
}

// roundEven of x / s. The float32 quotient q is correctly rounded, so it can only mislead
// roundEven when it lands exactly on a half-integer the exact quotient lies beside: then the
// remainder x - q*s, exact in float32 for a correctly rounded quotient, and its sign computed by
// one fma, says which side. From 2^22 on, float32 quotients are too coarse for the integer
// results of 32-bit outputs, so those take the same steps in double.
template <typename F>
F RoundEvenQuotient(F x, F s) {
  const F q = x / s;
  if (!std::isfinite(q)) return q;
  if (std::fabs(q - std::trunc(q)) != F(0.5)) return std::nearbyint(q);
  const F remainder = std::fma(-q, s, x);
  if (remainder == 0) return std::nearbyint(q);
  return (remainder > 0) == (s > 0) ? std::ceil(q) : std::floor(q);
}

template <typename Z>
Z Quantize(float x, float s, Z zero_point) {
  double r = RoundEvenQuotient<float>(x, s);
  if (std::fabs(r) >= 4194304.0) r = RoundEvenQuotient<double>(x, s);  // 2^22
  if (std::isnan(r)) return Z{0};  // the spec leaves the cast of NaN open
  // saturate(r + zeroPoint) to Z's range: exact in double for these types.
  const double v = r + static_cast<double>(zero_point);
  constexpr auto kLo = static_cast<double>(std::numeric_limits<Z>::min());
  constexpr auto kHi = static_cast<double>(std::numeric_limits<Z>::max());
  if (!(v > kLo)) return std::numeric_limits<Z>::min();
  if (!(v < kHi)) return std::numeric_limits<Z>::max();
  return static_cast<Z>(v);
}

// (x - zeroPoint) * scale: the difference is exact in int64; float32 holds it exactly up to 2^24
// (every 8-bit case), beyond that the product is formed in double and rounded once.
template <typename Z>
float Dequantize(Z x, Z zero_point, float s) {
  const int64_t d = static_cast<int64_t>(x) - static_cast<int64_t>(zero_point);
  if (d >= -(int64_t{1} << 24) && d <= (int64_t{1} << 24)) return static_cast<float>(d) * s;
  return static_cast<float>(static_cast<double>(d) * static_cast<double>(s));
}

template <typename Fn>
decltype(auto) DispatchQuantized(DataType t, Fn&& fn) {
  switch (t) {
    case DataType::kInt8:
      return fn.template operator()<int8_t>();
    case DataType::kUint8:
      return fn.template operator()<uint8_t>();
    case DataType::kInt32:
      return fn.template operator()<int32_t>();
    default:
      return fn.template operator()<uint32_t>();
  }
}

// out = fn(input element, scale element, zeroPoint element) over the blockwise broadcast; storage
// types TX, TS, TZ, TO.
template <typename TX, typename TS, typename TZ, typename TO, typename Fn>
Tensor Blockwise(std::span<const OperandValue* const> in, const OperandDescriptor& out,
                 const Config& config, const Fn& fn) {
  const Tensor &x = in[0]->data, &scale = in[1]->data, &zero_point = in[2]->data;
  Tensor result = Tensor::Allocate(out.dataType, out.shape);
  Shape split;
  std::array<Strides, 4> strides;  // output, input, scale, zeroPoint
  const Strides dense = ContiguousStrides(x.shape());
  for (size_t k = 0; k < x.rank(); ++k) {
    const uint64_t p = scale.shape()[k];
    const auto block = static_cast<int64_t>(x.shape()[k] / p);
    split.push_back(p);
    split.push_back(static_cast<uint64_t>(block));
    strides[0].push_back(dense[k] * block);
    strides[0].push_back(dense[k]);
    strides[1].push_back(x.strides()[k] * block);
    strides[1].push_back(x.strides()[k]);
    strides[2].push_back(scale.strides()[k]);
    strides[2].push_back(0);
    strides[3].push_back(zero_point.strides()[k]);
    strides[3].push_back(0);
  }
  const RowPlan<4> plan = MakeRowPlan<4>(split, strides);
  const TX* px = x.base<TX>();
  const TS* ps = scale.base<TS>();
  const TZ* pz = zero_point.base<TZ>();
  TO* po = result.base<TO>();
  ForEachChunk(plan, config, [&](const std::array<int64_t, 4>& off, uint64_t, uint64_t n) {
    const int64_t so = plan.inner_stride[0], sx = plan.inner_stride[1];
    const int64_t ss = plan.inner_stride[2], sz = plan.inner_stride[3];
    for (uint64_t i = 0; i < n; ++i) {
      const auto j = static_cast<int64_t>(i);
      po[off[0] + j * so] = fn(px[off[1] + j * sx], ps[off[2] + j * ss], pz[off[3] + j * sz]);
    }
  });
  return result;
}

Tensor QuantizeLinear(std::span<const OperandValue* const> in, const OperandDescriptor& out,
                      const Config& config) {
  return DispatchDataType(in[0]->data.dtype(), [&]<typename T>() {
    if constexpr (kIsFloatStorage<T>) {
      return DispatchQuantized(out.dataType, [&]<typename Z>() {
        return Blockwise<T, T, Z, Z>(
            in, out, config, [](T x, T s, Z z) { return Quantize<Z>(AsFloat(x), AsFloat(s), z); });
      });
    }
    return Tensor();
  });
}

Tensor DequantizeLinear(std::span<const OperandValue* const> in, const OperandDescriptor& out,
                        const Config& config) {
  return DispatchQuantized(in[0]->data.dtype(), [&]<typename Z>() {
    if (out.dataType == DataType::kFloat16) {
      return Blockwise<Z, Float16, Z, Float16>(in, out, config, [](Z x, Float16 s, Z z) {
        return Float16::FromFloat(Dequantize<Z>(x, z, s.ToFloat()));
      });
    }
    return Blockwise<Z, float, Z, float>(in, out, config,
                                         [](Z x, float s, Z z) { return Dequantize<Z>(x, z, s); });
  });
}

// ---------------------------------------------------------------------------------------------
// The family.

std::optional<std::string> Unsupported(OpId op, DataType) {
  switch (op) {
    case OpId::reshape:
    case OpId::transpose:
    case OpId::expand:
    case OpId::slice:
    case OpId::reverse:
    case OpId::split:
    case OpId::concat:
    case OpId::pad:
    case OpId::tile:
    case OpId::triangular:
    case OpId::gather:
    case OpId::gatherElements:
    case OpId::gatherND:
    case OpId::scatterElements:
    case OpId::scatterND:
    case OpId::quantizeLinear:
    case OpId::dequantizeLinear:
    case OpId::argMin:
    case OpId::argMax:
    case OpId::cumulativeSum:
      return std::string();  // every data type the builder admits
    default:
      return std::nullopt;
  }
}

// The attributes of `node` as A, or null with `why` set.
template <typename A>
const A* Need(const OperatorNode& node, std::string& why) {
  const A* a = node.Attributes<A>();
  if (!a) why = "missing attributes";
  return a;
}

std::shared_ptr<const Kernel> K(ComputeFn fn) {
  return std::make_shared<LayoutKernel>(std::move(fn));
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index, const Config& config,
                                   std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  const OpId op = node.op;
  using In = std::span<const OperandValue* const>;
  using Out = std::span<const OperandDescriptor>;
  switch (op) {
    // Views.
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
    // Copies.
    case OpId::concat: {
      const auto* a = Need<ConcatAttributes>(node, why);
      if (!a) return nullptr;
      return K([axis = a->axis, config](In in, Out out) {
        return One(Concat(in, out[0], axis, config));
      });
    }
    case OpId::pad: {
      const auto* a = Need<PadAttributes>(node, why);
      if (!a) return nullptr;
      return K([attributes = *a, config](In in, Out out) {
        return One(Pad(in[0]->data, out[0], attributes, config));
      });
    }
    case OpId::tile: {
      const auto* a = Need<TileAttributes>(node, why);
      if (!a) return nullptr;
      return K([repetitions = Shape(a->repetitions.begin(), a->repetitions.end()), config](
                   In in, Out out) { return One(Tile(in[0]->data, out[0], repetitions, config)); });
    }
    case OpId::triangular: {
      const auto* a = Need<TriangularAttributes>(node, why);
      if (!a) return nullptr;
      return K([attributes = *a, config](In in, Out out) {
        return One(Triangular(in[0]->data, out[0], attributes, config));
      });
    }
    // Gather and scatter.
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
    // Quantization.
    case OpId::quantizeLinear: {
      return K([config](In in, Out out) { return One(QuantizeLinear(in, out[0], config)); });
    }
    case OpId::dequantizeLinear: {
      return K([config](In in, Out out) { return One(DequantizeLinear(in, out[0], config)); });
    }
    // Lines along an axis.
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
  why = "not implemented";
  return nullptr;
}

}  // namespace

const Family kLayoutFamily = {Unsupported, Make};

}  // namespace nnref::simd
