// Groups for the simd backend's reductions and normalizations: N operand views over one shape,
// split into group axes (outer, row-major) and reduced axes (inner). A group's elements are
// walked as merged runs (strided.h); a float group is read into a float32 row (a pointer into the
// tensor when it is already one contiguous float32 run) and written back from one.
#pragma once

#include <algorithm>
#include <array>
#include <vector>

#include "numerics/float16.h"
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

}  // namespace nnref::simd
