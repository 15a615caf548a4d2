// Row plans for the simd backend: an output shape and N operand views over it (broadcast inputs
// have stride 0) with adjacent axes merged wherever every operand allows, so a contiguous or
// broadcast operand becomes one long row with step 1 or 0 and the per-row bookkeeping vanishes.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "ref/tensor/tensor.h"

namespace nnref::simd {

template <size_t N>
struct RowPlan {
  std::vector<uint64_t> outer;                    // outer dimensions (row-major)
  std::array<std::vector<int64_t>, N> outer_strides;
  uint64_t inner = 1;                             // elements per row
  std::array<int64_t, N> inner_stride{};          // per operand
  uint64_t rows() const {
    uint64_t r = 1;
    for (uint64_t d : outer) r *= d;
    return r;
  }
  // Element offsets (relative to each view's base) of the first element of row `row`.
  std::array<int64_t, N> RowOffsets(uint64_t row) const {
    std::array<int64_t, N> off{};
    for (size_t axis = outer.size(); axis-- > 0;) {
      const uint64_t i = row % outer[axis];
      row /= outer[axis];
      for (size_t k = 0; k < N; ++k) off[k] += static_cast<int64_t>(i) * outer_strides[k][axis];
    }
    return off;
  }
};

// `shape` is the common shape; `strides[k]` operand k's strides over it (same rank).
template <size_t N>
RowPlan<N> MakeRowPlan(const Shape& shape, const std::array<Strides, N>& strides) {
  std::vector<uint64_t> dims;
  std::array<std::vector<int64_t>, N> st;
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    if (shape[axis] == 1) continue;  // size-1 axes carry no offsets
    const bool merge = !dims.empty() && [&] {
      for (size_t k = 0; k < N; ++k) {
        if (st[k].back() != strides[k][axis] * static_cast<int64_t>(shape[axis])) return false;
      }
      return true;
    }();
    if (merge) {
      dims.back() *= shape[axis];
      for (size_t k = 0; k < N; ++k) st[k].back() = strides[k][axis];
    } else {
      dims.push_back(shape[axis]);
      for (size_t k = 0; k < N; ++k) st[k].push_back(strides[k][axis]);
    }
  }
  RowPlan<N> plan;
  if (!dims.empty()) {
    plan.inner = dims.back();
    for (size_t k = 0; k < N; ++k) {
      plan.inner_stride[k] = st[k].back();
      st[k].pop_back();
    }
    dims.pop_back();
  }
  plan.outer = std::move(dims);
  plan.outer_strides = std::move(st);
  return plan;
}

}  // namespace nnref::simd
