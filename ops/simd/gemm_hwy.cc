// The simd backend's GEMM core (gemm.h): a blocked, packed, register-tiled product of float32
// matrices accumulated in float32 as hardware does (gemm.h says how it is judged), written with
// Highway and compiled for every target by foreach_target.h, chosen at run time.
//
// Structure (the classic Goto/BLIS scheme): the output is cut into even tiles of up to kMC x kNC
// elements, which the pool's threads take one after another. A tile walks the depth in blocks of
// kKC; for each block it packs its rows of A into MR-row panels (depth-major: the MR values of one
// depth step are adjacent) and its columns of B into NR-column panels (NR = 2 vectors), then runs
// the micro-kernel on every (A panel, B panel) pair: MR x NR float32 accumulators in registers,
// one broadcast of a and two vector loads of b per depth step, MulAdd (FMA on AVX2 and AVX-512;
// a rounded product, then a rounded sum, on SSE4, SSSE3 and scalar). Every micro-tile goes
// through a small float32 tile that is read from and written to the caller's double output
// between depth blocks. Each output element is one MulAdd chain in ascending depth, so no tiling
// or thread split changes a bit of the result; targets with and without FMA differ by roundings.
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
#include <atomic>
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
constexpr size_t kKC = 256;   // depth block: a B panel (kKC x NR) stays in L1
constexpr size_t kMC = 96;    // rows per tile (a multiple of kMR): the packed A block stays in L2
constexpr size_t kNC = 1024;  // columns per tile at most

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// Columns of the micro-tile: two vectors.
HWY_INLINE size_t NR() { return 2 * hn::Lanes(DF()); }

// c[0..kMR) x [0..NR) (row stride ldc) = (load ? c : -0) + sum over the kc depth steps of the
// packed panels a (kc x kMR) and b (kc x NR), in float32. The loops over rows have constant
// bounds and are unrolled, so the accumulators live in registers.
HWY_NOINLINE void MicroKernel(size_t kc, const float* HWY_RESTRICT a, const float* HWY_RESTRICT b,
                              float* HWY_RESTRICT c, size_t ldc, bool load) {
  const DF d;
  const size_t lanes = hn::Lanes(d);
  VF acc0[kMR], acc1[kMR];
#pragma GCC unroll 16
  for (size_t r = 0; r < kMR; ++r) {
    acc0[r] = load ? hn::LoadU(d, c + r * ldc) : hn::Set(d, -0.0f);
    acc1[r] = load ? hn::LoadU(d, c + r * ldc + lanes) : hn::Set(d, -0.0f);
  }
  for (size_t p = 0; p < kc; ++p) {
    const VF b0 = hn::LoadU(d, b);
    const VF b1 = hn::LoadU(d, b + lanes);
#pragma GCC unroll 16
    for (size_t r = 0; r < kMR; ++r) {
      const VF av = hn::Set(d, a[r]);
      acc0[r] = hn::MulAdd(av, b0, acc0[r]);
      acc1[r] = hn::MulAdd(av, b1, acc1[r]);
    }
    a += kMR;
    b += 2 * lanes;
  }
#pragma GCC unroll 16
  for (size_t r = 0; r < kMR; ++r) {
    hn::StoreU(acc0[r], d, c + r * ldc);
    hn::StoreU(acc1[r], d, c + r * ldc + lanes);
  }
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
    for (size_t r = 0; r < valid; ++r) {
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

// Output rows [row0, row0 + rows) x columns [col0, col0 + cols) of one problem.
void Tile(const GemmOperands& g, size_t k, size_t row0, size_t rows, size_t col0, size_t cols,
          double a_scale) {
  const size_t nr = NR();
  thread_local std::vector<float> a_pack, b_pack;
  const size_t a_panels = (rows + kMR - 1) / kMR, b_panels = (cols + nr - 1) / nr;
  a_pack.resize(std::max(a_pack.size(), a_panels * kMR * std::min(k, kKC)));
  b_pack.resize(std::max(b_pack.size(), b_panels * nr * std::min(k, kKC)));
  HWY_ALIGN float tile[kMR * 2 * hn::MaxLanes(DF())];
  if (k == 0) {
    for (size_t i = 0; i < rows; ++i) {
      double* c = g.c + static_cast<int64_t>(row0 + i) * g.ldc + static_cast<int64_t>(col0);
      std::fill(c, c + cols, -0.0);
    }
    return;
  }
  for (size_t p0 = 0; p0 < k; p0 += kKC) {
    const size_t kc = std::min(kKC, k - p0);
    const bool load = p0 > 0;
    PackA(g.a, row0, rows, p0, kc, a_scale, a_pack.data());
    if (g.pack_b != nullptr) {
      (*g.pack_b)(p0, kc, col0, cols, nr, b_pack.data());
    } else {
      PackB(g.b, p0, kc, col0, cols, nr, b_pack.data());
    }
    for (size_t jp = 0; jp < b_panels; ++jp) {
      const float* bp = b_pack.data() + jp * kc * nr;
      const size_t j = jp * nr, col_count = std::min(nr, cols - j);
      for (size_t ip = 0; ip < a_panels; ++ip) {
        const float* ap = a_pack.data() + ip * kc * kMR;
        const size_t i = ip * kMR, row_count = std::min(kMR, rows - i);
        double* c = g.c + static_cast<int64_t>(row0 + i) * g.ldc + static_cast<int64_t>(col0 + j);
        // The running sums are float32 values (exact in the double output) between blocks.
        if (load) {
          for (size_t r = 0; r < row_count; ++r) {
            const double* src = c + static_cast<int64_t>(r) * g.ldc;
            for (size_t q = 0; q < col_count; ++q) tile[r * nr + q] = static_cast<float>(src[q]);
          }
        }
        MicroKernel(kc, ap, bp, tile, nr, load);
        for (size_t r = 0; r < row_count; ++r) {
          double* dst = c + static_cast<int64_t>(r) * g.ldc;
          for (size_t q = 0; q < col_count; ++q) dst[q] = static_cast<double>(tile[r * nr + q]);
        }
      }
    }
  }
}

// Blocks of `total` split evenly: the block size (a multiple of `unit`, at most `max_block`) for
// at least `min_blocks` blocks where the size allows.
size_t EvenBlock(size_t total, size_t max_block, size_t unit, size_t min_blocks) {
  size_t blocks = std::max((total + max_block - 1) / max_block, min_blocks);
  blocks = std::min(blocks, (total + unit - 1) / unit);
  const size_t block = (total + blocks - 1) / blocks;
  return (block + unit - 1) / unit * unit;
}

void GemmImpl(size_t m, size_t n, size_t k, const GemmOperands* problems, size_t count,
              double a_scale, ThreadPool* pool) {
  if (m == 0 || n == 0 || count == 0) return;
  const size_t nr = NR();
  const size_t threads = pool->threads();
  // Small products run on the caller; others are cut into tiles of even size, enough of them
  // (about 4 per thread) for the threads to balance the load by taking the next free tile.
  const bool parallel = threads > 1 && count * m * n * std::max<size_t>(k, 1) >= (size_t{1} << 16);
  const size_t want = parallel ? 4 * threads : 1;
  const size_t mc = EvenBlock(m, kMC, kMR, 1);
  const size_t m_blocks = (m + mc - 1) / mc;
  const size_t n_want = (want + count * m_blocks - 1) / (count * m_blocks);
  const size_t nc = EvenBlock(n, kNC, nr, std::max<size_t>(1, n_want));
  const size_t n_blocks = (n + nc - 1) / nc;
  const size_t per_problem = m_blocks * n_blocks, tasks = count * per_problem;
  std::atomic<size_t> next{0};
  const auto work = [&](size_t, size_t) {
    for (size_t t = next.fetch_add(1); t < tasks; t = next.fetch_add(1)) {
      const GemmOperands& g = problems[t / per_problem];
      const size_t mb = (t % per_problem) / n_blocks, nb = t % n_blocks;
      const size_t row0 = mb * mc, col0 = nb * nc;
      Tile(g, k, row0, std::min(mc, m - row0), col0, std::min(nc, n - col0), a_scale);
    }
  };
  if (!parallel || tasks == 1) {
    work(0, 1);
    return;
  }
  // One call per thread; each takes tiles until none is left (which thread computes a tile never
  // changes its bits).
  pool->ParallelFor(std::min(threads, tasks), 1, work);
}

}  // namespace HWY_NAMESPACE
}  // namespace nnref::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace nnref::simd {

HWY_EXPORT(GemmImpl);

void Gemm(size_t m, size_t n, size_t k, std::span<const GemmOperands> problems, double a_scale,
          ThreadPool& pool) {
  HWY_DYNAMIC_DISPATCH(GemmImpl)(m, n, k, problems.data(), problems.size(), a_scale, &pool);
}

}  // namespace nnref::simd
#endif  // HWY_ONCE
