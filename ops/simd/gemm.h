// The one GEMM core of the simd backend's linear-algebra family (gemm_hwy.cc): matmul, gemm,
// conv2d / convTranspose2d and the recurrent projections all end here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <new>
#include <span>
#include <vector>

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

// Called by Gemm on the thread that computed a tile, once its rows [row0, row0 + rows) x columns
// [col0, col0 + cols) of c hold their final sums (while they are in cache): e.g. a convolution
// copies the pixels it keeps out of a wider grid. Tiles are disjoint; called from several threads
// at once.
using TileFn = std::function<void(size_t row0, size_t rows, size_t col0, size_t cols)>;

// Storage for packed panels, aligned to 64 bytes (a cache line: a vector load of a panel never
// straddles two lines more than it must).
template <class T>
struct CacheAligned {
  using value_type = T;
  CacheAligned() = default;
  template <class U>
  CacheAligned(const CacheAligned<U>&) {}  // NOLINT: allocator conversion
  T* allocate(size_t n) {
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{64}));
  }
  void deallocate(T* p, size_t) { ::operator delete(p, std::align_val_t{64}); }
  template <class U>
  bool operator==(const CacheAligned<U>&) const {
    return true;
  }
};
using PanelVector = std::vector<float, CacheAligned<float>>;

// A constant operand (weights) packed once, when a graph is compiled for the backend, into the
// panels of the target that packed it (PackGemmA, PackGemmB); every product with it reuses them.
// A product on another target (tests switch targets), or of another size or scale, ignores them
// and reads the operand's view instead, so the view must stay valid too.
struct PackedOperand {
  PanelVector panels;
  size_t outer = 0, depth = 0;  // rows (A) or columns (B); the product's depth k
  size_t unit = 0, kc = 0;      // the target's micro-tile rows (A) or columns (B); depth block
  double scale = 1;             // A: the a_scale its values were multiplied by
};

// A B read in place: B[p][j] = base[offsets[p] + j], each depth step a contiguous run of columns
// (a stride-1 convolution of a padded image: no im2col matrix and no packing). Reads may run up
// to kGemmIndirectSlack floats beyond column n of each depth step; those lanes are never stored.
//
// Zero taps (optional): with `width` > 0, B's columns are the pixels of image rows `width` wide
// (column j is pixel x = j % width of its row) and depth step p reads B[p][j] only where
// x + shifts[taps[p]] lies in [0, width); the other lanes are +0 (a masked load, as if the image
// had zero columns left and right of each row: a stride-1 convolution of an image whose rows
// carry no padding columns). Masked lanes still address base + offsets[p] + j, which must be
// readable memory (targets without masked loads read them and discard the values).
struct IndirectB {
  const float* base = nullptr;
  const int64_t* offsets = nullptr;  // k entries
  int64_t width = 0;                 // 0: no zero taps
  const uint8_t* taps = nullptr;     // k entries: each depth step's class, < classes
  const int64_t* shifts = nullptr;   // classes entries: the column shift of each class
  size_t classes = 0;
};
inline constexpr size_t kGemmIndirectSlack = 64;

// One product of a batch: c = a x b, c row-major float32 with row stride ldc (column stride 1).
// b comes from, in this order of preference: `indirect_b`, `packed_b` (when it fits), `pack_b`,
// the view `b`; a from `packed_a` (when it fits) or the view `a`.
struct GemmOperands {
  MatrixView a, b;
  float* c = nullptr;
  int64_t ldc = 0;
  const PackBFn* pack_b = nullptr;
  const PackedOperand* packed_a = nullptr;
  const PackedOperand* packed_b = nullptr;
  const IndirectB* indirect_b = nullptr;
  const TileFn* after_tile = nullptr;  // optional
};

// For each problem of the batch: c[i, j] = sum over p in [0, k) of (a_scale * a[i, p]) * b[p, j]
// for i < m, j < n, overwriting c (callers that add a bias or a c term do it in double on these
// float32 sums and round once to the output type).
//
// Numerics: as hardware computes, in float32: a_scale * a is rounded to float32 (when a_scale is
// not 1), and each element is one chain of float32 MulAdd in ascending p starting from -0 (all -0
// products give -0), fused on AVX2 and AVX-512, a rounded product and a rounded sum on SSE4,
// SSSE3 and scalar. Where the terms cancel this leaves the ULP tolerances (1e8 + 1 - 1e8 gives
// 0) and is judged by the sum bound instead (docs/numerics.md, "The sum bound"), which is what a
// float32 accumulator can be asked for. The results do not depend on the thread count, the
// tiling or on whether an operand was packed beforehand; they may differ between targets with and
// without FMA. k = 0 gives -0. Packing and output tiles (blocks of rows and of columns) are split
// over `pool`.
void Gemm(size_t m, size_t n, size_t k, std::span<const GemmOperands> problems, double a_scale,
          ThreadPool& pool);

// The columns of the core's micro-tile on the current target (2 vectors: 32 float32 on AVX-512);
// a last panel of at most one vector computes one vector.
size_t GemmColumnUnit();

// `a` (m x k, times `scale` rounded to float32 as Gemm does) packed for Gemm on the current target.
PackedOperand PackGemmA(const MatrixView& a, size_t m, size_t k, double scale);
// `b` (k x n) packed for Gemm on the current target.
PackedOperand PackGemmB(const MatrixView& b, size_t k, size_t n);

}  // namespace nnref::simd
