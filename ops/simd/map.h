// Element-wise drivers of the simd backend: walk an output and its broadcast inputs row by row
// (strided.h), split rows (or long rows into chunks) over the thread pool, and hand each row to
// a row function. Float drivers convert float16 rows to float32 and back; integer and mixed
// drivers apply a per-element function in plain loops.
#pragma once

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "numerics/float16.h"
#include "ops/simd/family.h"
#include "ops/simd/rows.h"
#include "ops/simd/strided.h"
#include "ref/graph/graph.h"

namespace nnref::simd {

inline constexpr uint64_t kChunk = 8192;  // elements per row chunk (scratch fits in L1/L2)
// Elements per row chunk of the element-wise drivers (ForEachChunk): small enough that a long
// row (20480 elements: the ResBlock's sigmoid) shares evenly between threads, where chunks of
// kChunk gave 16384 and 4096. A chunk's tail computes what a full vector would (MapRow), so the
// cut never changes a bit; it does not depend on the thread count either.
inline constexpr uint64_t kRowChunk = 2048;
inline constexpr uint64_t kTaskElements = 1 << 13;  // elements per thread-pool task, at least
// (2^16 until the pool spun instead of sleeping between runs: then add 1x256x56x56 went from
// 1.04-1.48x to 1.79-1.91x on two threads; docs/performance.md)

// Calls fn(operand offsets, begin, count) for every chunk of every row of `plan`, in parallel.
template <size_t N, class ChunkFn>
void ForEachChunk(const RowPlan<N>& plan, const Config& config, const ChunkFn& fn) {
  const uint64_t rows = plan.rows();
  if (rows == 0 || plan.inner == 0) return;
  const uint64_t chunks_per_row = (plan.inner + kRowChunk - 1) / kRowChunk;
  const uint64_t units = rows * chunks_per_row;
  const uint64_t unit_elements = std::min<uint64_t>(plan.inner, kRowChunk);
  const size_t grain = TaskGrain(units, unit_elements, kTaskElements, config.pool->threads());
  config.pool->ParallelFor(static_cast<size_t>(units), grain, [&](size_t begin, size_t end) {
    for (size_t u = begin; u < end; ++u) {
      const uint64_t row = u / chunks_per_row;
      const uint64_t first = (u % chunks_per_row) * kRowChunk;
      const uint64_t count = std::min<uint64_t>(kRowChunk, plan.inner - first);
      std::array<int64_t, N> off = plan.RowOffsets(row);
      for (size_t k = 0; k < N; ++k) off[k] += static_cast<int64_t>(first) * plan.inner_stride[k];
      fn(off, first, count);
    }
  });
}

// Broadcast views of `inputs` over `shape` plus the contiguous output's strides, as a plan over
// N = inputs + 1 operands (the output is operand 0).
template <size_t NIn>
RowPlan<NIn + 1> PlanFor(const Shape& shape, const std::array<const Tensor*, NIn>& inputs,
                         std::array<Tensor, NIn>& views) {
  std::array<Strides, NIn + 1> strides;
  strides[0] = ContiguousStrides(shape);
  for (size_t k = 0; k < NIn; ++k) {
    views[k] = inputs[k]->BroadcastTo(shape);
    strides[k + 1] = views[k].strides();
  }
  return MakeRowPlan<NIn + 1>(shape, strides);
}

// Float32 row of `count` elements of view `t` starting at element offset `off` with step
// `stride`: a direct pointer for float32 with step 0/1, else converted into `scratch`.
inline const float* FloatRow(const Tensor& t, int64_t off, int64_t stride, uint64_t count,
                             std::vector<float>& scratch, size_t& step) {
  if (t.dtype() == DataType::kFloat32 && (stride == 0 || stride == 1)) {
    step = static_cast<size_t>(stride);
    return t.base<float>() + off;
  }
  step = stride == 0 ? 0 : 1;
  const uint64_t n = stride == 0 ? 1 : count;
  scratch.resize(std::max<size_t>(scratch.size(), n));
  if (t.dtype() == DataType::kFloat16) {
    const uint16_t* p = reinterpret_cast<const uint16_t*>(t.base<Float16>()) + off;
    if (stride == 1) {
      HalfToFloatRow(p, scratch.data(), n);
    } else {
      for (uint64_t i = 0; i < n; ++i)
        scratch[i] = Float16{p[static_cast<int64_t>(i) * stride]}.ToFloat();
    }
  } else {
    const float* p = t.base<float>() + off;
    for (uint64_t i = 0; i < n; ++i) scratch[i] = p[static_cast<int64_t>(i) * stride];
  }
  return scratch.data();
}

// The output of a map: `into` when given (a dense tensor of the descriptor's data type and shape,
// Kernel::ComputeInto), else a new tensor (every element is written).
inline Tensor MapOutput(const OperandDescriptor& out_desc, const Tensor* into) {
  return into != nullptr ? *into : Tensor::AllocateForOverwrite(out_desc.dataType, out_desc.shape);
}

// A float32/float16 output computed from float inputs by rowfn(rows, steps, out, count). `into`
// may be the buffer of an input of the output's type and shape: each chunk's input rows are read
// (float16 ones converted first) before rowfn writes that chunk, and a float32 input row is then
// the output row itself (a row function that rereads its input after writing must copy it first).
template <size_t NIn, class RowFn>
Tensor FloatMap(const std::array<const Tensor*, NIn>& inputs, const OperandDescriptor& out_desc,
                const Config& config, const RowFn& rowfn, const Tensor* into = nullptr) {
  Tensor out = MapOutput(out_desc, into);
  std::array<Tensor, NIn> views;
  const RowPlan<NIn + 1> plan = PlanFor<NIn>(out_desc.shape, inputs, views);
  const bool half = out_desc.dataType == DataType::kFloat16;
  ForEachChunk(plan, config, [&](const std::array<int64_t, NIn + 1>& off, uint64_t, uint64_t n) {
    thread_local std::array<std::vector<float>, 4> scratch;
    std::array<const float*, NIn> rows;
    std::array<size_t, NIn> steps;
    for (size_t k = 0; k < NIn; ++k) {
      rows[k] = FloatRow(views[k], off[k + 1], plan.inner_stride[k + 1], n, scratch[k], steps[k]);
    }
    if (half) {
      std::vector<float>& o = scratch[3];
      o.resize(std::max<size_t>(o.size(), n));
      rowfn(rows, steps, o.data(), n);
      FloatToHalfRow(o.data(), reinterpret_cast<uint16_t*>(out.base<Float16>()) + off[0], n);
    } else {
      rowfn(rows, steps, out.base<float>() + off[0], n);
    }
  });
  return out;
}

// An output of storage type Out computed per element by fn(In...) from inputs of storage types
// In... (any types; float16 as Float16). `into` as for FloatMap: element i is read before it is
// written.
template <typename Out, typename... In, class Fn>
Tensor TypedMap(const std::array<const Tensor*, sizeof...(In)>& inputs,
                const OperandDescriptor& out_desc, const Config& config, const Fn& fn,
                const Tensor* into = nullptr) {
  constexpr size_t NIn = sizeof...(In);
  Tensor out = MapOutput(out_desc, into);
  std::array<Tensor, NIn> views;
  const RowPlan<NIn + 1> plan = PlanFor<NIn>(out_desc.shape, inputs, views);
  ForEachChunk(plan, config, [&](const std::array<int64_t, NIn + 1>& off, uint64_t, uint64_t n) {
    Out* o = out.base<Out>() + off[0];
    [&]<size_t... K>(std::index_sequence<K...>) {
      const std::tuple<const In*...> p{(views[K].template base<In>() + off[K + 1])...};
      const std::array<int64_t, NIn> s{plan.inner_stride[K + 1]...};
      for (uint64_t i = 0; i < n; ++i) {
        o[i] = fn(std::get<K>(p)[static_cast<int64_t>(i) * s[K]]...);
      }
    }
    (std::make_index_sequence<NIn>{});
  });
  return out;
}

}  // namespace nnref::simd
