// The one GEMM core of the simd backend's linear-algebra family (gemm_hwy.cc): matmul, gemm and
// conv2d / convTranspose2d (through im2col matrices) all end here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

#include "ref/parallel/parallel.h"

namespace nnref::simd {

// A float32 matrix view: element (r, c) at data[r * row_stride + c * col_stride] (any strides,
// including 0 and negative ones: broadcast, transposed and reversed views need no copy).
struct MatrixView {
  const float* data = nullptr;
  int64_t row_stride = 0, col_stride = 1;
};

// Packs depth [p0, p0 + kc) x columns [col0, col0 + cols) of a B that is never stored (e.g. a
// convolution's im2col matrix) straight into the core's panels: column j of the block goes to
// out[(j / nr) * kc * nr + p * nr + j % nr] for depth p0 + p, and the columns of the last panel
// beyond `cols` are zero. Called from several threads at once.
using PackBFn = std::function<void(size_t p0, size_t kc, size_t col0, size_t cols, size_t nr,
                                   float* out)>;

// One product of a batch: c = a x b, c row-major with row stride ldc (column stride 1). With
// `pack_b` set, b is that function's matrix and `b` is not read.
struct GemmOperands {
  MatrixView a, b;
  double* c = nullptr;
  int64_t ldc = 0;
  const PackBFn* pack_b = nullptr;
};

// For each problem of the batch: c[i, j] = sum over p in [0, k) of (a_scale * a[i, p]) * b[p, j]
// for i < m, j < n, overwriting c (the callers round c once to the output type, after adding
// their bias or c term in double).
//
// Numerics: as hardware computes, in float32: a_scale * a is rounded to float32 (when a_scale is
// not 1), and each element is one chain of float32 MulAdd in ascending p starting from -0 (all -0
// products give -0), fused on AVX2 and AVX-512, a rounded product and a rounded sum on SSE4,
// SSSE3 and scalar. The float32 sums are stored exactly in c. Where the terms cancel this leaves
// the ULP tolerances (1e8 + 1 - 1e8 gives 0) and is judged by the sum bound instead
// (docs/numerics.md, "The sum bound"), which is what a float32 accumulator can be asked for.
// The results do not depend on the thread count or tiling; they may differ between targets with
// and without FMA. k = 0 gives -0. Output tiles are split over `pool`.
void Gemm(size_t m, size_t n, size_t k, std::span<const GemmOperands> problems, double a_scale,
          ThreadPool& pool);

}  // namespace nnref::simd
