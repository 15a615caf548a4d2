// Groups for the simd backend's reductions and normalizations: N operand views over one shape,
// split into group axes (outer, row-major) and reduced axes (inner). A group's elements are
// walked as merged runs (strided.h); a float group is read into a float32 row (a pointer into the
// tensor when it is already one contiguous float32 run) and written back from one.
#pragma once

#include <algorithm>
#include <array>
#include <vector>

#include "numerics/float16.h"
#include "ops/simd/family.h"
#include "ops/simd/rows.h"
#include "ops/simd/strided.h"

namespace nnref::simd {

template <size_t N>
struct GroupSplit {
  Shape outer;                           // group axes
  std::array<Strides, N> outer_strides;  // per operand
  RowPlan<N> inner;                      // the reduced axes, merged where every operand allows
  uint64_t count = 1;                    // elements per group
  uint64_t groups = 1;

  // `reduced[a]`: axis a of `shape` is reduced; strides[k] is operand k's strides over shape.
  GroupSplit(const Shape& shape, const std::vector<bool>& reduced,
             const std::array<Strides, N>& strides) {
    Shape inner_shape;
    std::array<Strides, N> inner_strides;
    for (size_t a = 0; a < shape.size(); ++a) {
      Shape& s = reduced[a] ? inner_shape : outer;
      s.push_back(shape[a]);
      for (size_t k = 0; k < N; ++k) {
        (reduced[a] ? inner_strides[k] : outer_strides[k]).push_back(strides[k][a]);
      }
    }
    inner = MakeRowPlan<N>(inner_shape, inner_strides);
    count = ElementCount(inner_shape);
    groups = ElementCount(outer);
  }

  // Element offsets of the first element of group g, per operand.
  std::array<int64_t, N> GroupOffsets(uint64_t g) const {
    std::array<int64_t, N> off{};
    for (size_t axis = outer.size(); axis-- > 0;) {
      const uint64_t i = g % outer[axis];
      g /= outer[axis];
      for (size_t k = 0; k < N; ++k) off[k] += static_cast<int64_t>(i) * outer_strides[k][axis];
    }
    return off;
  }

  // Whether operand k's group is one run with step 1 (or a single element).
  bool Contiguous(size_t k) const {
    return inner.outer.empty() && (inner.inner == 1 || inner.inner_stride[k] == 1);
  }

  // Calls fn(offset, step, length) for each run of operand k's group starting at `base`.
  template <class Fn>
  void ForEachRun(size_t k, int64_t base, const Fn& fn) const {
    const uint64_t rows = inner.rows();
    for (uint64_t r = 0; r < rows; ++r) {
      fn(base + inner.RowOffsets(r)[k], inner.inner_stride[k], inner.inner);
    }
  }

  // Operand k's group (float32 or float16 view `t`) as float32 values in row-major order.
  const float* Read(const Tensor& t, size_t k, int64_t base, std::vector<float>& scratch) const {
    if (t.dtype() == DataType::kFloat32 && Contiguous(k)) return t.base<float>() + base;
    scratch.resize(std::max<size_t>(scratch.size(), count));
    float* dst = scratch.data();
    ForEachRun(k, base, [&](int64_t off, int64_t step, uint64_t n) {
      if (t.dtype() == DataType::kFloat16) {
        const uint16_t* p = reinterpret_cast<const uint16_t*>(t.base<Float16>()) + off;
        if (step == 1) {
          HalfToFloatRow(p, dst, n);
        } else {
          for (uint64_t i = 0; i < n; ++i) {
            dst[i] = Float16{p[static_cast<int64_t>(i) * step]}.ToFloat();
          }
        }
      } else {
        const float* p = t.base<float>() + off;
        for (uint64_t i = 0; i < n; ++i) dst[i] = p[static_cast<int64_t>(i) * step];
      }
      dst += n;
    });
    return scratch.data();
  }

  // Column mode: operand k's groups are not runs, but neighbouring groups along the last group
  // axis are neighbours in memory (stride 1, as reducing the leading axes, or NHWC
  // instanceNormalization). Then a block of them is read (written) at once, a transposition
  // whose reads (writes) are contiguous.
  bool Columns(size_t k) const {
    return !Contiguous(k) && !outer.empty() && outer.back() > 1 && outer_strides[k].back() == 1;
  }

  // Groups g0 .. g0 + nb - 1 (consecutive along the last group axis; `base` the offset of g0)
  // as nb float32 rows of `count` values at dst + b * pitch.
  void ReadBlock(const Tensor& t, size_t k, int64_t base, uint64_t nb, uint64_t pitch,
                 float* dst) const {
    const int64_t s = outer_strides[k].back();
    uint64_t pos = 0;
    ForEachRun(k, base, [&](int64_t off, int64_t step, uint64_t n) {
      for (uint64_t i = 0; i < n; ++i) {
        const int64_t o = off + static_cast<int64_t>(i) * step;
        float* d = dst + pos + i;
        if (t.dtype() == DataType::kFloat16) {
          const Float16* p = t.base<Float16>() + o;
          for (uint64_t b = 0; b < nb; ++b) d[b * pitch] = p[static_cast<int64_t>(b) * s].ToFloat();
        } else {
          const float* p = t.base<float>() + o;
          for (uint64_t b = 0; b < nb; ++b) d[b * pitch] = p[static_cast<int64_t>(b) * s];
        }
      }
      pos += n;
    });
  }

  // The inverse of ReadBlock: nb rows at src + b * pitch into operand k's groups of `t`.
  void WriteBlock(const float* src, const Tensor& t, size_t k, int64_t base, uint64_t nb,
                  uint64_t pitch) const {
    const int64_t s = outer_strides[k].back();
    uint64_t pos = 0;
    ForEachRun(k, base, [&](int64_t off, int64_t step, uint64_t n) {
      for (uint64_t i = 0; i < n; ++i) {
        const int64_t o = off + static_cast<int64_t>(i) * step;
        const float* v = src + pos + i;
        if (t.dtype() == DataType::kFloat16) {
          Float16* p = t.base<Float16>() + o;
          for (uint64_t b = 0; b < nb; ++b) {
            p[static_cast<int64_t>(b) * s] = Float16::FromFloat(v[b * pitch]);
          }
        } else {
          float* p = t.base<float>() + o;
          for (uint64_t b = 0; b < nb; ++b) p[static_cast<int64_t>(b) * s] = v[b * pitch];
        }
      }
      pos += n;
    });
  }

  // Where operand k's group of float32 tensor `t` can be written directly, else null.
  float* Direct(const Tensor& t, size_t k, int64_t base) const {
    return t.dtype() == DataType::kFloat32 && Contiguous(k) ? t.base<float>() + base : nullptr;
  }

  // Writes a float32 row (row-major group order) into operand k's group of `t`.
  void Write(const float* row, const Tensor& t, size_t k, int64_t base) const {
    ForEachRun(k, base, [&](int64_t off, int64_t step, uint64_t n) {
      if (t.dtype() == DataType::kFloat16) {
        uint16_t* p = reinterpret_cast<uint16_t*>(t.base<Float16>()) + off;
        if (step == 1) {
          FloatToHalfRow(row, p, n);
        } else {
          for (uint64_t i = 0; i < n; ++i) {
            p[static_cast<int64_t>(i) * step] = Float16::FromFloat(row[i]).bits;
          }
        }
      } else {
        float* p = t.base<float>() + off;
        for (uint64_t i = 0; i < n; ++i) p[static_cast<int64_t>(i) * step] = row[i];
      }
      row += n;
    });
  }
};

inline constexpr uint64_t kGroupTaskElements = 1 << 15;  // elements per thread-pool task
inline constexpr uint64_t kColumnBlock = 16;             // groups per column-mode block

// Calls fn(g, offsets, row, out_row) for every group g of `split`, in parallel: `row` holds the
// group's values of operand 0 (view `x`) as float32; when `out` is given, fn writes the group's
// float32 results to `out_row`, which end up in operand 1 (view `*out`), else out_row is null.
// A group is always computed whole by one call, so the results do not depend on the thread
// count or on whether the groups were read one by one or in column blocks. A thread-pool task
// holds at least `task_elements` elements (whole groups).
template <size_t N, class Fn>
void ForEachGroup(const GroupSplit<N>& split, const Config& config, const Tensor& x,
                  const Tensor* out, const Fn& fn, uint64_t task_elements = kGroupTaskElements) {
  constexpr size_t kOut = N > 1 ? 1 : 0;  // the output operand (N == 1: no output)
  const uint64_t count = split.count;
  if (split.groups == 0 || count == 0) return;
  if (split.Columns(0) && (!out || split.Columns(kOut))) {
    const uint64_t run = split.outer.back();
    const uint64_t blocks_per_run = (run + kColumnBlock - 1) / kColumnBlock;
    const uint64_t units = split.groups / run * blocks_per_run;
    const size_t block_grain =
        TaskGrain(units, kColumnBlock * count, task_elements, config.pool->threads());
    // Row pitch of the block: whole cache lines, and not a multiple of 4 KiB, so that the
    // transposition's column of writes does not fall into one cache set.
    uint64_t pitch = (count + 15) / 16 * 16;
    if (pitch % 1024 == 0) pitch += 16;
    config.pool->ParallelFor(units, block_grain, [&](size_t begin, size_t end) {
      thread_local std::vector<float> in_rows, out_rows;
      in_rows.resize(std::max<size_t>(in_rows.size(), kColumnBlock * pitch));
      if (out) out_rows.resize(std::max<size_t>(out_rows.size(), kColumnBlock * pitch));
      for (size_t u = begin; u < end; ++u) {
        const uint64_t first = u / blocks_per_run * run + u % blocks_per_run * kColumnBlock;
        const uint64_t nb =
            std::min<uint64_t>(kColumnBlock, run - u % blocks_per_run * kColumnBlock);
        const std::array<int64_t, N> base = split.GroupOffsets(first);
        split.ReadBlock(x, 0, base[0], nb, pitch, in_rows.data());
        for (uint64_t b = 0; b < nb; ++b) {
          std::array<int64_t, N> off = base;
          for (size_t k = 0; k < N; ++k) {
            off[k] += static_cast<int64_t>(b) * split.outer_strides[k].back();
          }
          fn(first + b, off, in_rows.data() + b * pitch,
             out ? out_rows.data() + b * pitch : nullptr);
        }
        if (out) split.WriteBlock(out_rows.data(), *out, kOut, base[kOut], nb, pitch);
      }
    });
    return;
  }
  const size_t grain = TaskGrain(split.groups, count, task_elements, config.pool->threads());
  config.pool->ParallelFor(split.groups, grain, [&](size_t begin, size_t end) {
    thread_local std::vector<float> in_scratch, out_scratch;
    for (size_t g = begin; g < end; ++g) {
      const std::array<int64_t, N> off = split.GroupOffsets(g);
      const float* row = split.Read(x, 0, off[0], in_scratch);
      float* direct = out ? split.Direct(*out, kOut, off[kOut]) : nullptr;
      if (out && !direct) out_scratch.resize(std::max<size_t>(out_scratch.size(), count));
      float* dst = direct ? direct : (out ? out_scratch.data() : nullptr);
      fn(g, off, row, dst);
      if (out && !direct) split.Write(dst, *out, kOut, off[kOut]);
    }
  });
}

}  // namespace nnref::simd
