// The simd backend's GEMM core (gemm.h): a blocked, packed, register-tiled product of float32
// matrices accumulated in float32 as hardware does (gemm.h says how it is judged), written with
// Highway and compiled for every target by foreach_target.h, chosen at run time.
//
// Structure (the classic Goto/BLIS scheme): the output is cut into tiles of whole micro-panels,
// blocks of at most kMC rows and kNC columns (with threads: strips cut into guided chunks, large
// first and single panels last, see GemmImpl), which the pool's threads take one after another.
// A tile walks the depth in even
// blocks of at most kKC; for each block it takes its rows of A as panels of at most MR rows, of
// even height (RowStart; depth-major: the MR values of one depth step are adjacent) and its
// columns of B as NR-column panels (NR = 2
// vectors), then runs the micro-kernel on every (A panel, B panel) pair: MR x NR float32
// accumulators in registers, one broadcast of a and two vector loads of b per depth step, MulAdd
// (FMA on AVX2 and AVX-512; a rounded product, then a rounded sum, on SSE4, SSSE3 and scalar),
// stored straight into the float32 output (a small tile only at ragged edges) and loaded from it
// again for the next depth block. Panels come packed beforehand (constant weights: PackGemmA/B
// when a graph is compiled), are packed once per call ahead of the tiles when several tiles share
// them (on the threads), or are packed per tile; a stride-1 convolution's B is read in place
// (IndirectB), with masked loads where the window leaves the image (zero taps). Each output element
// is one MulAdd chain in ascending depth, so no tiling, packing or thread split changes a bit of
// the result; targets with and without FMA differ by roundings.
//
// Measured on this machine (Intel Xeon with AVX-512, Highway picks AVX3), Release, one thread,
// CPU time of the product alone, best of 9-15 runs, machine shared (wall times were 2-3x these):
//   matmul 512x512x512:                  Highway double 4.3 ms | Eigen double 19.1 ms, float 7.9 ms
//   conv2d 1x64x56x56 * 64x64x3x3 pad 1: Highway double 4.7 ms | Eigen double 19.1 ms, float 8.2 ms
//     (its im2col product: 64 x 576 by 576 x 3136)
// These were measured when the core accumulated in double (exact products, one rounding), which
// the ULP tolerances demanded before the sum bound (docs/numerics.md, "The sum bound"); the float32
// core runs twice the lanes (docs/performance.md has its figures). Eigen only uses the SIMD of the
// compile flags (SSE2 in this portable build), while the Highway kernel dispatches to AVX-512 /
// AVX2: Highway is kept, and the build has no Eigen dependency.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/simd/gemm_hwy.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
// clang-format off
#include <hwy/highway.h>
// clang-format on

#include <algorithm>
#include <array>
#include <atomic>
#include <utility>
#include <cstring>
#include <vector>

#include "ops/simd/gemm.h"

HWY_BEFORE_NAMESPACE();
namespace nnref::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Rows of the micro-tile: 12 x 2 vectors = 24 accumulators where there are 32 vector registers
// (AVX-512), 6 x 2 = 12 where there are 16 (AVX2 and below).
#if HWY_TARGET <= HWY_AVX3
constexpr size_t kMR = 12;
#else
constexpr size_t kMR = 6;
#endif
// Depth block at most: a 64-channel 3 x 3 convolution's 576 in one block (the output tile
// stored once: 2-3% faster than 3 blocks of 192, docs/performance.md "Issue 25: conv2d on one
// thread"); matmul 512 as one block of 512 measured the same as 2 of 256.
constexpr size_t kKC = 600;
constexpr size_t kMC = 192;   // rows per tile at most (a multiple of kMR): A block in L2
constexpr size_t kNC = 1024;  // columns per tile at most

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// Columns of the micro-tile: two vectors.
HWY_INLINE size_t NR() { return 2 * hn::Lanes(DF()); }

// The depth block: k cut into even blocks of at most kKC (576 = 3 x 192 rather than 256, 256, 64).
size_t DepthBlock(size_t k) {
  const size_t blocks = std::max<size_t>(1, (k + kKC - 1) / kKC);
  return std::max<size_t>(1, (k + blocks - 1) / blocks);
}

// Where a micro-kernel reads B: a packed panel, rows read in place (IndirectB), or rows read in
// place through the masks of zero taps (kMasked: each step's masks loaded from the table of
// TapMasks; kMasked3: a window 3 wide whose depth steps cycle through its 3 columns, taps[p] =
// p % 3 as in a 3 x 3 convolution, with the 6 masks of the micro-tile (3 taps x 2 vectors) held
// in mask registers instead: AVX-512 only, 6 of its 7 mask registers, as elsewhere masks take
// vector registers, which the accumulators need).
enum class BSource { kPacked, kIndirect, kMasked, kMasked3 };

// The zero-tap masks of one micro-tile (kMasked): the mask bits of its first vector for depth
// step p at bits + step[p], those of its second vector `vstride` bytes further (see TapMasks).
struct MaskArgs {
  const uint8_t* bits = nullptr;
  const uint32_t* step = nullptr;
  size_t vstride = 0;
  bool periodic = false;  // kMasked3 applies (taps cycle 0, 1, 2 from this block's first step)
};

#if HWY_TARGET <= HWY_AVX3
constexpr bool kTapRegisters = true;
#else
constexpr bool kTapRegisters = false;
#endif

// The vector at p (any alignment) with the lanes whose bit (LoadMaskBits) is clear set to +0:
// one masked load on AVX-512; a whole load and a select elsewhere (Highway's MaskedLoad needs
// aligned memory on SSE4 and below).
HWY_INLINE VF LoadTap(const uint8_t* bits, const float* p) {
  const DF d;
#if HWY_TARGET <= HWY_AVX3
  return hn::MaskedLoad(hn::LoadMaskBits(d, bits), d, p);
#else
  return hn::IfThenElseZero(hn::LoadMaskBits(d, bits), hn::LoadU(d, p));
#endif
}

// c[0..R) x [0..V * lanes) (row stride ldc) = (load ? c : -0) + sum over the kc depth steps of
// the packed A panel a (kc x kMR, its first R rows) times B: the packed panel b (kc x NR, its
// first V vectors) or the rows b + off[p] (kIndirect; kMasked: with the lanes of masked taps
// read as +0, exactly the zeros of a padded image). The loops over rows have constant bounds
// and are unrolled, so the accumulators live in registers. R < kMR serves panels of fewer rows
// (RowStart: 64 output channels are panels of 10 and 11) without computing the zero rows;
// V = 1 a last panel of at most one vector of columns (a product 8 or 64 + 8 columns wide)
// without computing the other vector.
template <size_t R, size_t V, BSource kSrc>
HWY_INLINE void MicroKernelBody(size_t kc, const float* HWY_RESTRICT a, const float* b,
                                const int64_t* HWY_RESTRICT off, const MaskArgs& mk,
                                float* HWY_RESTRICT c, size_t ldc, bool load) {
  static_assert(V == 1 || V == 2);
  const DF d;
  const size_t lanes = hn::Lanes(d);
  VF acc0[R], acc1[R];
#pragma GCC unroll 16
  for (size_t r = 0; r < R; ++r) {
    acc0[r] = load ? hn::LoadU(d, c + r * ldc) : hn::Set(d, -0.0f);
    if constexpr (V == 2) acc1[r] = load ? hn::LoadU(d, c + r * ldc + lanes) : hn::Set(d, -0.0f);
  }
  if constexpr (kSrc == BSource::kMasked3) {
    // The 6 masks (3 taps x 2 vectors) once; then each step as kIndirect, its loads masked.
    using M = hn::Mask<DF>;
    const M m00 = hn::LoadMaskBits(d, mk.bits + mk.step[0]);
    const M m10 = hn::LoadMaskBits(d, mk.bits + mk.step[1]);
    const M m20 = hn::LoadMaskBits(d, mk.bits + mk.step[2]);
    M m01 = m00, m11 = m10, m21 = m20;
    if constexpr (V == 2) {
      m01 = hn::LoadMaskBits(d, mk.bits + mk.vstride + mk.step[0]);
      m11 = hn::LoadMaskBits(d, mk.bits + mk.vstride + mk.step[1]);
      m21 = hn::LoadMaskBits(d, mk.bits + mk.vstride + mk.step[2]);
    }
    const auto step = [&](size_t p, M m0, M m1) HWY_ATTR {
      const float* bp = b + off[p];
      const VF b0 = hn::MaskedLoad(m0, d, bp);
      if constexpr (V == 2) {
        const VF b1 = hn::MaskedLoad(m1, d, bp + lanes);
#pragma GCC unroll 16
        for (size_t r = 0; r < R; ++r) {
          const VF av = hn::Set(d, a[r]);
          acc0[r] = hn::MulAdd(av, b0, acc0[r]);
          acc1[r] = hn::MulAdd(av, b1, acc1[r]);
        }
      } else {
        (void)m1;
#pragma GCC unroll 16
        for (size_t r = 0; r < R; ++r) acc0[r] = hn::MulAdd(hn::Set(d, a[r]), b0, acc0[r]);
      }
      a += kMR;
    };
    for (size_t p = 0; p < kc; p += 3) {
      step(p, m00, m01);
      step(p + 1, m10, m11);
      step(p + 2, m20, m21);
    }
  } else {
    for (size_t p = 0; p < kc; ++p) {
      const float* bp = kSrc != BSource::kPacked ? b + off[p] : b;
      VF b0;
      if constexpr (kSrc == BSource::kMasked) {
        b0 = LoadTap(mk.bits + mk.step[p], bp);
      } else {
        b0 = hn::LoadU(d, bp);
      }
      if constexpr (V == 2) {
        VF b1;
        if constexpr (kSrc == BSource::kMasked) {
          b1 = LoadTap(mk.bits + mk.step[p] + mk.vstride, bp + lanes);
        } else {
          b1 = hn::LoadU(d, bp + lanes);
        }
#pragma GCC unroll 16
        for (size_t r = 0; r < R; ++r) {
          const VF av = hn::Set(d, a[r]);
          acc0[r] = hn::MulAdd(av, b0, acc0[r]);
          acc1[r] = hn::MulAdd(av, b1, acc1[r]);
        }
      } else {
#pragma GCC unroll 16
        for (size_t r = 0; r < R; ++r) acc0[r] = hn::MulAdd(hn::Set(d, a[r]), b0, acc0[r]);
      }
      a += kMR;
      if constexpr (kSrc == BSource::kPacked) b += 2 * lanes;
    }
  }
#pragma GCC unroll 16
  for (size_t r = 0; r < R; ++r) {
    hn::StoreU(acc0[r], d, c + r * ldc);
    if constexpr (V == 2) hn::StoreU(acc1[r], d, c + r * ldc + lanes);
  }
}

// The micro-kernel of a last panel of at most kMR / 2 rows (only when m <= kMR / 2, see
// RowStart) over two column panels of a B read in place (4 vectors of columns: R x 4
// accumulators, as many as a whole panel's): a 4 x 2 micro-tile ran at two thirds of the FMA
// rate (too few accumulators per loaded vector and loop step). Same chains as MicroKernelBody.
template <size_t R, BSource kSrc>
HWY_INLINE void WideKernelBody(size_t kc, const float* HWY_RESTRICT a, const float* b,
                               const int64_t* HWY_RESTRICT off, const MaskArgs& mk,
                               float* HWY_RESTRICT c, size_t ldc, bool load) {
  static_assert(kSrc != BSource::kPacked);
  const DF d;
  const size_t lanes = hn::Lanes(d);
  VF acc0[R], acc1[R], acc2[R], acc3[R];
#pragma GCC unroll 16
  for (size_t r = 0; r < R; ++r) {
    acc0[r] = load ? hn::LoadU(d, c + r * ldc) : hn::Set(d, -0.0f);
    acc1[r] = load ? hn::LoadU(d, c + r * ldc + lanes) : hn::Set(d, -0.0f);
    acc2[r] = load ? hn::LoadU(d, c + r * ldc + 2 * lanes) : hn::Set(d, -0.0f);
    acc3[r] = load ? hn::LoadU(d, c + r * ldc + 3 * lanes) : hn::Set(d, -0.0f);
  }
  for (size_t p = 0; p < kc; ++p) {
    const float* bp = b + off[p];
    VF b0, b1, b2, b3;
    if constexpr (kSrc == BSource::kMasked) {
      const uint8_t* bits = mk.bits + mk.step[p];
      b0 = LoadTap(bits, bp);
      b1 = LoadTap(bits + mk.vstride, bp + lanes);
      b2 = LoadTap(bits + 2 * mk.vstride, bp + 2 * lanes);
      b3 = LoadTap(bits + 3 * mk.vstride, bp + 3 * lanes);
    } else {
      b0 = hn::LoadU(d, bp);
      b1 = hn::LoadU(d, bp + lanes);
      b2 = hn::LoadU(d, bp + 2 * lanes);
      b3 = hn::LoadU(d, bp + 3 * lanes);
    }
#pragma GCC unroll 16
    for (size_t r = 0; r < R; ++r) {
      const VF av = hn::Set(d, a[r]);
      acc0[r] = hn::MulAdd(av, b0, acc0[r]);
      acc1[r] = hn::MulAdd(av, b1, acc1[r]);
      acc2[r] = hn::MulAdd(av, b2, acc2[r]);
      acc3[r] = hn::MulAdd(av, b3, acc3[r]);
    }
    a += kMR;
  }
#pragma GCC unroll 16
  for (size_t r = 0; r < R; ++r) {
    hn::StoreU(acc0[r], d, c + r * ldc);
    hn::StoreU(acc1[r], d, c + r * ldc + lanes);
    hn::StoreU(acc2[r], d, c + r * ldc + 2 * lanes);
    hn::StoreU(acc3[r], d, c + r * ldc + 3 * lanes);
  }
}

template <size_t R>
HWY_NOINLINE void WideKernel(size_t kc, const float* a, const float* b, const int64_t* off,
                             const MaskArgs& mk, float* c, size_t ldc, bool load) {
  if (mk.bits != nullptr) {
    WideKernelBody<R, BSource::kMasked>(kc, a, b, off, mk, c, ldc, load);
  } else {
    WideKernelBody<R, BSource::kIndirect>(kc, a, b, off, mk, c, ldc, load);
  }
}

template <size_t R, size_t V>
HWY_NOINLINE void MicroKernel(size_t kc, const float* a, const float* b, const int64_t* off,
                              const MaskArgs& mk, float* c, size_t ldc, bool load) {
  if constexpr (kTapRegisters) {
    if (mk.periodic) {
      MicroKernelBody<R, V, BSource::kMasked3>(kc, a, b, off, mk, c, ldc, load);
      return;
    }
  }
  if (mk.bits != nullptr) {
    MicroKernelBody<R, V, BSource::kMasked>(kc, a, b, off, mk, c, ldc, load);
  } else if (off != nullptr) {
    MicroKernelBody<R, V, BSource::kIndirect>(kc, a, b, off, mk, c, ldc, load);
  } else {
    MicroKernelBody<R, V, BSource::kPacked>(kc, a, b, nullptr, mk, c, ldc, load);
  }
}

using MicroKernelFn = void (*)(size_t, const float*, const float*, const int64_t*, const MaskArgs&,
                               float*, size_t, bool);

template <size_t V, size_t... R>
constexpr std::array<MicroKernelFn, sizeof...(R)> MicroKernels(std::index_sequence<R...>) {
  return {&MicroKernel<R + 1, V>...};
}

template <size_t... R>
constexpr std::array<MicroKernelFn, sizeof...(R)> WideKernels(std::index_sequence<R...>) {
  return {&WideKernel<R + 1>...};
}

// A micro-tile of `rows` (at most kMR / 2) x 2 NR columns, all stored, of a B read in place.
void RunWideTile(size_t kc, const float* a, const float* b, const int64_t* off, const MaskArgs& mk,
                 float* c, int64_t ldc, size_t rows, bool load) {
  static constexpr std::array<MicroKernelFn, kMR / 2> kKernels =
      WideKernels(std::make_index_sequence<kMR / 2>());
  kKernels[rows - 1](kc, a, b, off, mk, c, static_cast<size_t>(ldc), load);
}

// One micro-tile of rows x cols (at most kMR x NR) at c, by the kernel of `rows` rows and of one
// vector of columns when they fit in one: straight into c when its columns are whole, else
// through a small tile.
void RunMicroTile(size_t kc, const float* a, const float* b, const int64_t* off, const MaskArgs& mk,
                  float* c, int64_t ldc, size_t rows, size_t cols, bool load) {
  static constexpr std::array<MicroKernelFn, kMR> kKernels =
      MicroKernels<2>(std::make_index_sequence<kMR>());
  static constexpr std::array<MicroKernelFn, kMR> kHalfKernels =
      MicroKernels<1>(std::make_index_sequence<kMR>());
  const size_t nr = NR(), lanes = nr / 2;
  const MicroKernelFn kernel = (cols <= lanes ? kHalfKernels : kKernels)[rows - 1];
  if (cols == nr || cols == lanes) {
    kernel(kc, a, b, off, mk, c, static_cast<size_t>(ldc), load);
    return;
  }
  HWY_ALIGN float tile[kMR * 2 * hn::MaxLanes(DF())] = {};
  if (load) {
    for (size_t r = 0; r < rows; ++r) {
      std::copy(c + static_cast<int64_t>(r) * ldc, c + static_cast<int64_t>(r) * ldc + cols,
                tile + r * nr);
    }
  }
  kernel(kc, a, b, off, mk, tile, nr, load);
  for (size_t r = 0; r < rows; ++r) {
    std::copy(tile + r * nr, tile + r * nr + cols, c + static_cast<int64_t>(r) * ldc);
  }
}

// The first row of A panel ip of an m-row A: the rows are cut into ceil(m / kMR) panels of even
// height (at most kMR; panel ip covers [RowStart(ip), RowStart(ip + 1))): 64 output channels are
// panels of 10 and 11 rows rather than 5 of 12 and one of 4, whose micro-tile has too few
// accumulators per loaded vector (conv2d 1x64x56x56 1.2% faster; matmul 512, 11 and 12 rows
// rather than 42 of 12 and one of 8, unchanged). Each panel occupies kMR rows of the packed
// layout (the rows beyond its height zero and never computed).
HWY_INLINE size_t RowStart(size_t m, size_t ip) {
  const size_t panels = (m + kMR - 1) / kMR;
  return ip * m / panels;
}

// Packs rows [row0, row0 + rows) x depth [p0, p0 + kc) of a (times scale when it is not 1, each
// product rounded once to float32) into ceil(rows / kMR) panels of kc x kMR, rows beyond `rows`
// zero.
void PackA(const MatrixView& a, size_t row0, size_t rows, size_t p0, size_t kc, double scale,
           float* out) {
  for (size_t r0 = 0; r0 < rows; r0 += kMR) {
    float* panel = out + (r0 / kMR) * kc * kMR;
    const size_t valid = std::min(kMR, rows - r0);
    if (valid < kMR) std::fill(panel, panel + kc * kMR, 0.0f);
    size_t r_done = 0;
#if HWY_TARGET != HWY_SCALAR
    if (scale == 1.0 && a.col_stride == 1) {
      // Rows of a are contiguous: 4 x 4 blocks transposed in registers (a strided scalar copy
      // of a 512 x 512 A took a quarter of the product's time).
      const hn::Full128<float> d4;
      const size_t kc4 = kc / 4 * 4;
      for (; r_done + 4 <= valid; r_done += 4) {
        const float* src[4];
        for (size_t i = 0; i < 4; ++i) {
          src[i] = a.data + static_cast<int64_t>(row0 + r0 + r_done + i) * a.row_stride +
                   static_cast<int64_t>(p0);
        }
        float* dst = panel + r_done;
        for (size_t p = 0; p < kc4; p += 4) {
          const auto v0 = hn::LoadU(d4, src[0] + p), v1 = hn::LoadU(d4, src[1] + p);
          const auto v2 = hn::LoadU(d4, src[2] + p), v3 = hn::LoadU(d4, src[3] + p);
          const auto t0 = hn::InterleaveLower(d4, v0, v1), t1 = hn::InterleaveLower(d4, v2, v3);
          const auto t2 = hn::InterleaveUpper(d4, v0, v1), t3 = hn::InterleaveUpper(d4, v2, v3);
          hn::StoreU(hn::ConcatLowerLower(d4, t1, t0), d4, dst + p * kMR);
          hn::StoreU(hn::ConcatUpperUpper(d4, t1, t0), d4, dst + (p + 1) * kMR);
          hn::StoreU(hn::ConcatLowerLower(d4, t3, t2), d4, dst + (p + 2) * kMR);
          hn::StoreU(hn::ConcatUpperUpper(d4, t3, t2), d4, dst + (p + 3) * kMR);
        }
        for (size_t p = kc4; p < kc; ++p) {
          for (size_t i = 0; i < 4; ++i) dst[p * kMR + i] = src[i][p];
        }
      }
    }
#endif
    for (size_t r = r_done; r < valid; ++r) {
      const float* src = a.data + static_cast<int64_t>(row0 + r0 + r) * a.row_stride +
                         static_cast<int64_t>(p0) * a.col_stride;
      const int64_t step = a.col_stride;
      if (scale == 1.0) {
        for (size_t p = 0; p < kc; ++p) {
          panel[p * kMR + r] = src[static_cast<int64_t>(p) * step];
        }
      } else {
        for (size_t p = 0; p < kc; ++p) {
          panel[p * kMR + r] =
              static_cast<float>(scale * static_cast<double>(src[static_cast<int64_t>(p) * step]));
        }
      }
    }
  }
}

// Packs depth [p0, p0 + kc) x columns [col0, col0 + cols) of b into ceil(cols / nr) panels of
// kc x nr, columns beyond `cols` zero.
void PackB(const MatrixView& b, size_t p0, size_t kc, size_t col0, size_t cols, size_t nr,
           float* out) {
  for (size_t j0 = 0; j0 < cols; j0 += nr) {
    float* panel = out + (j0 / nr) * kc * nr;
    const size_t valid = std::min(nr, cols - j0);
    const float* base = b.data + static_cast<int64_t>(p0) * b.row_stride +
                        static_cast<int64_t>(col0 + j0) * b.col_stride;
    if (b.col_stride == 1 && valid == nr) {  // rows of b are contiguous: whole vectors
      // (a memcpy of these 2-vector rows becomes `rep movs`, which cost a fifth of a product)
      const DF d;
      const size_t lanes = hn::Lanes(d);
      for (size_t p = 0; p < kc; ++p) {
        const float* src = base + static_cast<int64_t>(p) * b.row_stride;
        float* dst = panel + p * nr;
        for (size_t j = 0; j < nr; j += lanes) hn::StoreU(hn::LoadU(d, src + j), d, dst + j);
      }
    } else if (b.col_stride == 1) {
      for (size_t p = 0; p < kc; ++p) {
        const float* src = base + static_cast<int64_t>(p) * b.row_stride;
        float* dst = panel + p * nr;
        for (size_t j = 0; j < valid; ++j) dst[j] = src[j];
        std::fill(dst + valid, dst + nr, 0.0f);
      }
    } else {  // walk each column down the depth
      if (valid < nr) std::fill(panel, panel + kc * nr, 0.0f);
      for (size_t j = 0; j < valid; ++j) {
        const float* src = base + static_cast<int64_t>(j) * b.col_stride;
        for (size_t p = 0; p < kc; ++p) panel[p * nr + j] = src[static_cast<int64_t>(p) * b.row_stride];
      }
    }
  }
}

// Whole operands packed ahead of the tiles ("global" panels): depth block bi (kc deep, the last
// one kcb = k - bi * kc) starts at bi * kc * pad, pad = panels * unit, and holds the panels one
// after another, kcb x unit each.
template <class T>
HWY_INLINE T* Panels(T* base, size_t pad, size_t kc, size_t bi, size_t kcb, size_t unit,
                     size_t panel) {
  return base + bi * kc * pad + panel * kcb * unit;
}

// A's row panels [ip0, ip1) of every depth block into `out` (layout of Panels).
void PackWholeA(const MatrixView& a, size_t m, size_t k, size_t kc, double scale, size_t ip0,
                size_t ip1, float* out) {
  const size_t pad = (m + kMR - 1) / kMR * kMR;
  for (size_t ip = ip0; ip < ip1; ++ip) {
    for (size_t p0 = 0, bi = 0; p0 < k; p0 += kc, ++bi) {
      const size_t kcb = std::min(kc, k - p0);
      PackA(a, RowStart(m, ip), RowStart(m, ip + 1) - RowStart(m, ip), p0, kcb, scale,
            Panels(out, pad, kc, bi, kcb, kMR, ip));
    }
  }
}

// B's column panels [jp0, jp1) of every depth block into `out` (layout of Panels).
void PackWholeB(const MatrixView& b, size_t k, size_t n, size_t kc, size_t jp0, size_t jp1,
                float* out) {
  const size_t nr = NR(), pad = (n + nr - 1) / nr * nr;
  for (size_t jp = jp0; jp < jp1; ++jp) {
    for (size_t p0 = 0, bi = 0; p0 < k; p0 += kc, ++bi) {
      const size_t kcb = std::min(kc, k - p0);
      PackB(b, p0, kcb, jp * nr, std::min(nr, n - jp * nr), nr,
            Panels(out, pad, kc, bi, kcb, nr, jp));
    }
  }
}

size_t ColumnUnitImpl() { return NR(); }

PackedOperand PackGemmAImpl(const MatrixView& a, size_t m, size_t k, double scale) {
  PackedOperand p;
  p.outer = m;
  p.depth = k;
  p.unit = kMR;
  p.kc = DepthBlock(k);
  p.scale = scale;
  p.panels.resize((m + kMR - 1) / kMR * kMR * k);
  PackWholeA(a, m, k, p.kc, scale, 0, (m + kMR - 1) / kMR, p.panels.data());
  return p;
}

PackedOperand PackGemmBImpl(const MatrixView& b, size_t k, size_t n) {
  PackedOperand p;
  const size_t nr = NR();
  p.outer = n;
  p.depth = k;
  p.unit = nr;
  p.kc = DepthBlock(k);
  p.panels.resize((n + nr - 1) / nr * nr * k);
  PackWholeB(b, k, n, p.kc, 0, (n + nr - 1) / nr, p.panels.data());
  return p;
}

// Where one problem's A and B panels come from: global panels (packed beforehand or ahead of the
// tiles), or null: packed per tile (or B read in place).
struct Sources {
  const float* a = nullptr;
  const float* b = nullptr;
  // B read in place with zero taps: the mask table of TapMasks and its per-step offsets.
  const uint8_t* masks = nullptr;
  const uint32_t* steps = nullptr;
  size_t vstride = 0;
  bool periodic = false;  // taps[p] = p % 3 for every p, 3 classes
};

// The zero-tap masks of a B read in place (IndirectB with `width`), built once per call: for each
// vector v of columns (columns [v * lanes, (v + 1) * lanes)) and tap class t, the mask bits of its
// lanes (LoadMaskBits: bit l of byte l / 8 for lane l) at bits[v * vstride + t * bpv], bpv bytes
// per vector, vstride = classes * bpv; steps[p] = taps[p] * bpv, so that the mask of depth step
// p of the vector at column j is at bits + (j / lanes) * vstride + steps[p].
size_t TapMaskBytes(const IndirectB& ib, size_t n) {
  const size_t lanes = hn::Lanes(DF()), bpv = (lanes + 7) / 8;
  return (n + lanes - 1) / lanes * ib.classes * bpv + 8;
}

void TapMasks(const IndirectB& ib, size_t n, size_t k, uint8_t* bits, uint32_t* steps,
              size_t& vstride) {
  const size_t lanes = hn::Lanes(DF()), bpv = (lanes + 7) / 8;
  vstride = ib.classes * bpv;
  // Every lane set, then the few pixels of each row that a class's shift takes out of the row
  // cleared (lanes beyond n are never stored).
  std::fill(bits, bits + TapMaskBytes(ib, n), uint8_t{0xFF});
  const auto width = static_cast<size_t>(ib.width);
  for (size_t t = 0; t < ib.classes; ++t) {
    const int64_t shift = ib.shifts[t];
    // Pixels x of a row with x + shift outside [0, width): [0, lo) and [hi, width).
    const auto lo = static_cast<size_t>(std::clamp<int64_t>(-shift, 0, ib.width));
    const auto hi = static_cast<size_t>(std::clamp<int64_t>(ib.width - shift, 0, ib.width));
    const auto clear = [&](size_t q) {
      if (q < n) {
        bits[q / lanes * vstride + t * bpv + q % lanes / 8] &=
            static_cast<uint8_t>(~(1u << (q % lanes % 8)));
      }
    };
    for (size_t row = 0; row < n; row += width) {
      for (size_t x = 0; x < lo; ++x) clear(row + x);
      for (size_t x = std::max(lo, hi); x < width; ++x) clear(row + x);
    }
  }
  for (size_t p = 0; p < k; ++p) steps[p] = static_cast<uint32_t>(ib.taps[p] * bpv);
}

// Output rows of A panels [ip0, ip1) x columns of B panels [jp0, jp1) of one problem.
void Tile(const GemmOperands& g, const Sources& s, size_t m, size_t n, size_t k, size_t kc,
          size_t ip0, size_t ip1, size_t jp0, size_t jp1, double a_scale) {
  const size_t nr = NR();
  const size_t row0 = RowStart(m, ip0), rows = RowStart(m, ip1) - row0;
  const size_t col0 = jp0 * nr, cols = std::min(n, jp1 * nr) - col0;
  const size_t a_pad = (m + kMR - 1) / kMR * kMR, b_pad = (n + nr - 1) / nr * nr;
  thread_local PanelVector a_pack, b_pack;
  if (s.a == nullptr) a_pack.resize(std::max(a_pack.size(), (ip1 - ip0) * kMR * kc));
  if (s.b == nullptr && g.indirect_b == nullptr) {
    b_pack.resize(std::max(b_pack.size(), (jp1 - jp0) * nr * kc));
  }
  // A last row panel of at most kMR / 2 rows, B read in place: two column panels at a time.
  const size_t ip_main =
      g.indirect_b != nullptr && RowStart(m, ip1) - RowStart(m, ip1 - 1) <= kMR / 2 ? ip1 - ip0 - 1
                                                                                    : ip1 - ip0;
  for (size_t p0 = 0, bi = 0; p0 < k; p0 += kc, ++bi) {
    const size_t kcb = std::min(kc, k - p0);
    const bool load = p0 > 0;
    const float* a_block;
    if (s.a != nullptr) {
      a_block = Panels(s.a, a_pad, kc, bi, kcb, kMR, ip0);
    } else {
      for (size_t ip = ip0; ip < ip1; ++ip) {
        PackA(g.a, RowStart(m, ip), RowStart(m, ip + 1) - RowStart(m, ip), p0, kcb, a_scale,
              a_pack.data() + (ip - ip0) * kcb * kMR);
      }
      a_block = a_pack.data();
    }
    const float* b_block = nullptr;
    const int64_t* off = nullptr;
    if (g.indirect_b != nullptr) {
      off = g.indirect_b->offsets + p0;
    } else if (s.b != nullptr) {
      b_block = Panels(s.b, b_pad, kc, bi, kcb, nr, jp0);
    } else {
      if (g.pack_b != nullptr) {
        (*g.pack_b)(p0, kcb, col0, cols, nr, b_pack.data());
      } else {
        PackB(g.b, p0, kcb, col0, cols, nr, b_pack.data());
      }
      b_block = b_pack.data();
    }
    const auto masks = [&](size_t j) {
      MaskArgs mk;
      if (s.masks != nullptr) {
        mk.bits = s.masks + (col0 + j) / (nr / 2) * s.vstride;
        mk.step = s.steps + p0;
        mk.vstride = s.vstride;
        mk.periodic = s.periodic && p0 % 3 == 0 && kcb % 3 == 0;
      }
      return mk;
    };
    const auto micro_tile = [&](size_t ip, size_t jp) {
      const size_t j = jp * nr, col_count = std::min(nr, cols - j);
      const float* bp = off != nullptr ? g.indirect_b->base + col0 + j : b_block + jp * kcb * nr;
      const size_t i = RowStart(m, ip0 + ip) - row0;
      const size_t row_count = RowStart(m, ip0 + ip + 1) - row0 - i;
      float* c = g.c + static_cast<int64_t>(row0 + i) * g.ldc + static_cast<int64_t>(col0 + j);
      RunMicroTile(kcb, a_block + ip * kcb * kMR, bp, off, masks(j), c, g.ldc, row_count, col_count,
                   load);
    };
    for (size_t jp = 0; jp < jp1 - jp0; ++jp) {
      for (size_t ip = 0; ip < ip_main; ++ip) micro_tile(ip, jp);
    }
    if (ip_main < ip1 - ip0) {  // the narrow last row panel, two column panels at a time
      const size_t i = RowStart(m, ip0 + ip_main) - row0, row_count = rows - i;
      const float* a_panel = a_block + ip_main * kcb * kMR;
      for (size_t j = 0; j < cols; j += 2 * nr) {
        const float* bp = g.indirect_b->base + col0 + j;
        float* c = g.c + static_cast<int64_t>(row0 + i) * g.ldc + static_cast<int64_t>(col0 + j);
        if (cols - j >= 2 * nr) {
          RunWideTile(kcb, a_panel, bp, off, masks(j), c, g.ldc, row_count, load);
        } else {
          for (size_t jj = j; jj < cols; jj += nr) {
            RunMicroTile(
                kcb, a_panel, g.indirect_b->base + col0 + jj, off, masks(jj),
                g.c + static_cast<int64_t>(row0 + i) * g.ldc + static_cast<int64_t>(col0 + jj),
                g.ldc, row_count, std::min(nr, cols - jj), load);
          }
        }
      }
    }
  }
  if (g.after_tile != nullptr) (*g.after_tile)(row0, rows, col0, cols);
}

bool Fits(const PackedOperand* p, size_t unit, size_t kc, size_t outer, size_t k) {
  return p != nullptr && p->unit == unit && p->kc == kc && p->outer == outer && p->depth == k;
}

void GemmImpl(size_t m, size_t n, size_t k, const GemmOperands* problems, size_t count,
              double a_scale, ThreadPool* pool) {
  if (m == 0 || n == 0 || count == 0) return;
  if (k == 0) {
    for (size_t t = 0; t < count; ++t) {
      for (size_t i = 0; i < m; ++i) {
        float* c = problems[t].c + static_cast<int64_t>(i) * problems[t].ldc;
        std::fill(c, c + n, -0.0f);
      }
    }
    return;
  }
  const size_t nr = NR(), kc = DepthBlock(k);
  const size_t m_panels = (m + kMR - 1) / kMR, n_panels = (n + nr - 1) / nr;
  const size_t threads = pool->threads();
  // Small products run on the caller. The output of each problem is cut into strips of whole
  // panels, and each strip into chunks of consecutive panels along it (tiles), which the threads
  // claim one after another (which thread computes a tile never changes its bits):
  //  - by columns (the usual case): a strip is a block of at most kMC rows (blocks of even size),
  //    its units the column panels;
  //  - by rows (threads, fewer than 8 column panels per thread and more row panels, B not packed
  //    per tile): a strip is a block of at most kNC columns, its units the row panels (a view B
  //    is packed ahead of the tiles; a B read in place needs nothing).
  // One thread cuts a strip into even chunks of at most a cache block (kNC columns, kMC rows).
  // Threads claim guided chunks: what is left over all strips divided by twice the threads (at
  // least one panel, at most that even chunk, within one strip), so the first tiles are large and
  // the last ones single panels: the threads finish within about a panel of each other, where
  // tiles of equal size left a thread idle for half a tile on average.
  const bool parallel = threads > 1 && count * m * n * k >= (size_t{1} << 16);
  bool packs_b = false;  // B packed per tile from a PackBFn: never by rows (each chunk would)
  for (size_t t = 0; t < count; ++t) packs_b = packs_b || problems[t].pack_b != nullptr;
  const bool by_rows = parallel && !packs_b && n_panels < 8 * threads && m_panels > n_panels;
  const size_t m_cap = kMC / kMR, n_cap = kNC / nr;
  const size_t m_blocks = by_rows ? 1 : (m_panels + m_cap - 1) / m_cap;
  const size_t n_blocks = by_rows ? (n_panels + n_cap - 1) / n_cap : 1;
  const size_t units = by_rows ? m_panels : n_panels;  // per strip
  const size_t cap = by_rows ? m_cap : n_cap;
  const size_t even = (units + (units + cap - 1) / cap - 1) / ((units + cap - 1) / cap);
  const size_t strips = count * (by_rows ? n_blocks : m_blocks), total = strips * units;
  // Whether an operand's panels meet several tiles: A's rows several column chunks, B's columns
  // several row chunks (or row blocks).
  const bool shared_a = by_rows ? n_blocks > 1 : (parallel ? n_panels > 1 : n_panels > n_cap);
  const bool shared_b = by_rows ? m_panels > 1 : m_blocks > 1;
  // Operands that several tiles would pack again are packed once, ahead of the tiles, on the
  // threads: A when its rows meet several tiles (shared_a), B (a view) when its columns do
  // (shared_b). Constant operands come packed (PackGemmA / PackGemmB).
  std::vector<Sources> sources(count);
  // The zero-tap masks of B read in place, per problem (small: a bit per column and class).
  thread_local std::vector<uint8_t> mask_bits;
  thread_local std::vector<uint32_t> mask_steps;
  {
    size_t bytes = 0, steps = 0;
    for (size_t t = 0; t < count; ++t) {
      const IndirectB* ib = problems[t].indirect_b;
      if (ib == nullptr || ib->width <= 0) continue;
      bytes += TapMaskBytes(*ib, n);
      steps += k;
    }
    if (mask_bits.size() < bytes) mask_bits.resize(bytes);
    if (mask_steps.size() < steps) mask_steps.resize(steps);
    uint8_t* next_bits = mask_bits.data();
    uint32_t* next_steps = mask_steps.data();
    for (size_t t = 0; t < count; ++t) {
      const IndirectB* ib = problems[t].indirect_b;
      if (ib == nullptr || ib->width <= 0) continue;
      TapMasks(*ib, n, k, next_bits, next_steps, sources[t].vstride);
      bool periodic = ib->classes == 3;
      for (size_t p = 0; periodic && p < k; ++p) periodic = ib->taps[p] == p % 3;
      sources[t].periodic = periodic;
      sources[t].masks = next_bits;
      sources[t].steps = next_steps;
      next_bits += TapMaskBytes(*ib, n);
      next_steps += k;
    }
  }
  struct Job {
    size_t problem;
    bool b;
    float* out;
  };
  std::vector<Job> jobs;
  size_t scratch_size = 0;
  for (size_t t = 0; t < count; ++t) {
    const GemmOperands& g = problems[t];
    if (Fits(g.packed_a, kMR, kc, m, k) && g.packed_a->scale == a_scale) {
      sources[t].a = g.packed_a->panels.data();
    } else if (shared_a) {
      jobs.push_back({t, false, nullptr});
      scratch_size += m_panels * kMR * k;
    }
    if (g.indirect_b != nullptr) continue;
    if (Fits(g.packed_b, nr, kc, n, k)) {
      sources[t].b = g.packed_b->panels.data();
    } else if (g.pack_b == nullptr && shared_b) {
      jobs.push_back({t, true, nullptr});
      scratch_size += n_panels * nr * k;
    }
  }
  thread_local PanelVector scratch;
  if (!jobs.empty()) {
    if (scratch.size() < scratch_size) scratch.resize(scratch_size);
    float* next_out = scratch.data();
    for (Job& j : jobs) {
      j.out = next_out;
      next_out += j.b ? n_panels * nr * k : m_panels * kMR * k;
      (j.b ? sources[j.problem].b : sources[j.problem].a) = j.out;
    }
    // One unit = one panel of one job, every depth block.
    std::vector<size_t> first(jobs.size() + 1, 0);
    for (size_t i = 0; i < jobs.size(); ++i) {
      first[i + 1] = first[i] + (jobs[i].b ? n_panels : m_panels);
    }
    const auto pack = [&](size_t begin, size_t end) {
      // The first job that ends after `begin` (a batch may have thousands of jobs).
      const size_t job0 = static_cast<size_t>(
          std::upper_bound(first.begin(), first.end(), begin) - first.begin() - 1);
      for (size_t i = job0; i < jobs.size() && first[i] < end; ++i) {
        const size_t lo = std::max(begin, first[i]), hi = std::min(end, first[i + 1]);
        if (lo >= hi) continue;
        const GemmOperands& g = problems[jobs[i].problem];
        if (jobs[i].b) {
          PackWholeB(g.b, k, n, kc, lo - first[i], hi - first[i], jobs[i].out);
        } else {
          PackWholeA(g.a, m, k, kc, a_scale, lo - first[i], hi - first[i], jobs[i].out);
        }
      }
    };
    if (parallel) {
      // Panels are taken one at a time (A and B panels differ in size, and a thread may start
      // late on a loaded machine).
      std::atomic<size_t> next_unit{0};
      const size_t panels = first.back();
      pool->ParallelFor(std::min<size_t>(threads, panels), 1, [&](size_t, size_t) {
        for (size_t u = next_unit.fetch_add(1); u < panels; u = next_unit.fetch_add(1)) {
          pack(u, u + 1);
        }
      });
    } else {
      pack(0, first.back());
    }
  }
  std::atomic<size_t> next{0};
  // Claims the next chunk [u0, u1) of the units of all strips (strip u0 / units).
  const auto claim = [&](size_t& u0, size_t& u1) {
    size_t pos = next.load(std::memory_order_relaxed);
    for (;;) {
      if (pos >= total) return false;
      const size_t strip_end = (pos / units + 1) * units;
      const size_t size =
          parallel ? std::clamp<size_t>((total - pos) / (2 * threads), 1, even) : even;
      const size_t end = std::min(strip_end, pos + size);
      if (next.compare_exchange_weak(pos, end, std::memory_order_relaxed)) {
        u0 = pos;
        u1 = end;
        return true;
      }
    }
  };
  const auto work = [&](size_t, size_t) {
    size_t u0 = 0, u1 = 0;
    while (claim(u0, u1)) {
      const size_t strip = u0 / units, first = u0 % units, last = first + (u1 - u0);
      if (by_rows) {
        const size_t problem = strip / n_blocks, nb = strip % n_blocks;
        Tile(problems[problem], sources[problem], m, n, k, kc, first, last,
             nb * n_panels / n_blocks, (nb + 1) * n_panels / n_blocks, a_scale);
      } else {
        const size_t problem = strip / m_blocks, mb = strip % m_blocks;
        Tile(problems[problem], sources[problem], m, n, k, kc, mb * m_panels / m_blocks,
             (mb + 1) * m_panels / m_blocks, first, last, a_scale);
      }
    }
  };
  if (!parallel || total == 1) {
    work(0, 1);
    return;
  }
  pool->ParallelFor(threads, 1, work);
}

}  // namespace HWY_NAMESPACE
}  // namespace nnref::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace nnref::simd {

HWY_EXPORT(GemmImpl);
HWY_EXPORT(ColumnUnitImpl);
HWY_EXPORT(PackGemmAImpl);
HWY_EXPORT(PackGemmBImpl);

void Gemm(size_t m, size_t n, size_t k, std::span<const GemmOperands> problems, double a_scale,
          ThreadPool& pool) {
  HWY_DYNAMIC_DISPATCH(GemmImpl)(m, n, k, problems.data(), problems.size(), a_scale, &pool);
}

size_t GemmColumnUnit() { return HWY_DYNAMIC_DISPATCH(ColumnUnitImpl)(); }

PackedOperand PackGemmA(const MatrixView& a, size_t m, size_t k, double scale) {
  return HWY_DYNAMIC_DISPATCH(PackGemmAImpl)(a, m, k, scale);
}

PackedOperand PackGemmB(const MatrixView& b, size_t k, size_t n) {
  return HWY_DYNAMIC_DISPATCH(PackGemmBImpl)(b, k, n);
}

}  // namespace nnref::simd
#endif  // HWY_ONCE
