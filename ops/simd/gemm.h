// The one GEMM core of the simd backend's linear-algebra family (gemm_hwy.cc): matmul, gemm and
// conv2d / convTranspose2d (through im2col matrices) all end here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "ref/parallel/parallel.h"

namespace nnref::simd {

// A float32 matrix view: element (r, c) at data[r * row_stride + c * col_stride] (any strides,
// including 0 and negative ones: broadcast, transposed and reversed views need no copy).
struct MatrixView {
  const float* data = nullptr;
  int64_t row_stride = 0, col_stride = 1;
};

// One product of a batch: c = a x b, c row-major with row stride ldc (column stride 1).
struct GemmOperands {
  MatrixView a, b;
  double* c = nullptr;
  int64_t ldc = 0;
};

// For each problem of the batch: c[i, j] = sum over p in [0, k) of (a_scale * a[i, p]) * b[p, j]
// for i < m, j < n, overwriting c (the callers round c once to the output type, after adding
// their bias or c term in double).
//
// Numerics: float32 operands, float64 accumulation. The operands are widened to double while
// packed; a_scale * a (a_scale a float32 or float16 value) and every product are exact in double,
// so the sum is one chain of double additions in ascending p starting from -0 (all -0 products
// give -0), exactly the reference's (ops/matmul_gemm.cc). A float32 accumulator fails the ULP
// tolerances wherever the terms cancel (the cancellation and random cases of the corpus), as it
// would for any backend accumulating in float32; a double accumulator still runs at half the
// float32 SIMD width. Since the products are exact, MulAdd gives the same bits fused (AVX2,
// AVX-512) or not (SSE4, SSSE3, scalar): the results are the same on every target, for any thread
// count and tiling. k = 0 gives -0. Output tiles are split over `pool`.
void Gemm(size_t m, size_t n, size_t k, std::span<const GemmOperands> problems, double a_scale,
          ThreadPool& pool);

}  // namespace nnref::simd
