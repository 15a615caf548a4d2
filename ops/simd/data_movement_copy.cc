// The simd backend's copying data movement: concat (§api-mlgraphbuilder-concat), pad
// (§api-mlgraphbuilder-pad), tile (§api-mlgraphbuilder-tile) and triangular
// (§api-mlgraphbuilder-triangular), as in the reference's ops/data_movement_copy.cc. Bytes are
// moved by the row plans of copy.h, so one code path serves every data type; work is split over
// output rows or blocks only, so every output is bit-identical for any thread count.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ops/data_movement.h"
#include "ops/simd/copy.h"

namespace nnref::simd {

namespace {

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
// The family.

std::optional<std::string> Unsupported(OpId op, DataType) {
  switch (op) {
    case OpId::concat:
    case OpId::pad:
    case OpId::tile:
    case OpId::triangular:
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
    default:
      break;
  }
  why = kNoKernelForOperator;
  return nullptr;
}

}  // namespace

const Family kDataMovementCopyFamily = {Unsupported, Make};

}  // namespace nnref::simd
