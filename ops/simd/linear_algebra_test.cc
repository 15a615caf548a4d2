// Tests of the simd backend's GEMM core (gemm.h) and its linear-algebra family (matmul, gemm,
// linear, conv2d, convTranspose2d) on every compiled Highway target, against plain double loops
// written here (independent of the kernels: the convolutions are summed from the spec's
// definitions in logical nchw / oihw coordinates, convTranspose2d in scatter form).
#include <doctest/doctest.h>
#include <hwy/targets.h>

#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "numerics/float16.h"
#include "ops/backend.h"
#include "ops/conv2d.h"
#include "ops/conv_transpose2d.h"
#include "ops/matmul_gemm.h"
#include "ops/simd/gemm.h"
#include "ops/simd/simd_backend.h"
#include "ref/parallel/parallel.h"

namespace nnref {
namespace {

// Deterministic values in [-1, 1) with a few exact zeros; float-representable.
std::vector<float> Values(size_t n, uint64_t seed) {
  std::vector<float> v(n);
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const int64_t q = static_cast<int64_t>(s >> 40) % 2001 - 1000;  // [-1000, 1000]
    v[i] = static_cast<float>(q) / 1000.0f;
  }
  return v;
}

// Runs `body` once per compiled Highway target, then restores the default dispatch.
template <class Body>
void ForEachTarget(const Body& body) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    INFO("target " << hwy::TargetName(target));
    body(target);
  }
  hwy::SetSupportedTargetsForTest(0);
}

// ---- the GEMM core ---------------------------------------------------------------------------

// Whether Highway's MulAdd is fused on `target` (FMA on AVX2 and AVX-512; the others round the
// product, then the sum).
bool Fused(int64_t target) { return (target & (HWY_AVX3_DL | HWY_AVX3 | HWY_AVX2)) != 0; }

// The float32 chain the core promises (gemm.h), written independently: -0, then for each depth
// step in order acc = a' * b + acc with a' = scale * a rounded to float32 (when scale != 1), fused
// or as two roundings.
struct Float32Chain {
  bool fused;
  float scale;
  float acc = -0.0f;
  void Add(float a, float b) {
    const float as = scale == 1.0f ? a : static_cast<float>(static_cast<double>(scale) *
                                                            static_cast<double>(a));
    if (fused) {
      acc = std::fma(as, b, acc);
    } else {
      const float product = as * b;  // -ffp-contract=off: rounded, then added
      acc = product + acc;
    }
  }
};

struct Layout {
  bool transposed;  // stored column-major
  int64_t pad;      // extra elements per stored row (an odd leading dimension)
  bool broadcast;   // every row is the same stored row (row stride 0)
};

// A rows x cols matrix with values v (row-major logical order) stored per `layout`.
simd::MatrixView Store(const std::vector<float>& v, size_t rows, size_t cols, const Layout& layout,
                       std::vector<float>& storage) {
  const auto r = static_cast<int64_t>(rows), c = static_cast<int64_t>(cols);
  if (layout.broadcast) {
    storage.assign(v.begin(), v.begin() + c);  // row 0 only
    return {storage.data(), 0, 1};
  }
  if (layout.transposed) {
    const int64_t ld = r + layout.pad;
    storage.assign(static_cast<size_t>(ld * c), 99.0f);  // padding must never be read into sums
    for (int64_t i = 0; i < r; ++i) {
      for (int64_t j = 0; j < c; ++j)
        storage[static_cast<size_t>(j * ld + i)] = v[static_cast<size_t>(i * c + j)];
    }
    return {storage.data(), 1, ld};
  }
  const int64_t ld = c + layout.pad;
  storage.assign(static_cast<size_t>(ld * r), 99.0f);
  for (int64_t i = 0; i < r; ++i) {
    for (int64_t j = 0; j < c; ++j)
      storage[static_cast<size_t>(i * ld + j)] = v[static_cast<size_t>(i * c + j)];
  }
  return {storage.data(), ld, 1};
}

// How CheckGemm hands the operands to the core: views, A and B packed beforehand (gemm.h,
// PackGemmA / PackGemmB, as for constant weights), or B read in place (IndirectB).
enum class Feed { kViews, kPacked, kIndirect };

void CheckGemm(int64_t target, size_t m, size_t n, size_t k, const Layout& la, const Layout& lb,
               float scale, Feed feed = Feed::kViews) {
  CAPTURE(m);
  CAPTURE(n);
  CAPTURE(k);
  CAPTURE(la.transposed);
  CAPTURE(lb.transposed);
  CAPTURE(la.broadcast);
  CAPTURE(lb.broadcast);
  CAPTURE(scale);
  CAPTURE(static_cast<int>(feed));
  std::vector<float> a = Values(m * k, m * 131 + k), b = Values(k * n, n * 17 + k);
  if (la.broadcast) {
    for (size_t i = 1; i < m; ++i)
      std::copy(a.begin(), a.begin() + static_cast<int64_t>(k),
                a.begin() + static_cast<int64_t>(i * k));
  }
  if (lb.broadcast) {
    for (size_t p = 1; p < k; ++p)
      std::copy(b.begin(), b.begin() + static_cast<int64_t>(n),
                b.begin() + static_cast<int64_t>(p * n));
  }
  std::vector<float> sa, sb;
  const simd::MatrixView va = Store(a, m, k, la, sa), vb = Store(b, k, n, lb, sb);
  // Indirect: B's rows stored in reverse order, each row followed by garbage (never used).
  std::vector<float> ib;
  std::vector<int64_t> offsets(k);
  const int64_t irow = static_cast<int64_t>(n) + 5;
  if (feed == Feed::kIndirect) {
    ib.assign(static_cast<size_t>(irow) * k + simd::kGemmIndirectSlack, 1e30f);
    for (size_t p = 0; p < k; ++p) {
      offsets[p] = static_cast<int64_t>(k - 1 - p) * irow;
      const auto row = b.begin() + static_cast<int64_t>(p * n);
      std::copy(row, row + static_cast<int64_t>(n), ib.begin() + offsets[p]);
    }
  }
  const simd::IndirectB indirect{ib.data(), offsets.data()};
  const simd::PackedOperand pa = simd::PackGemmA(va, m, k, static_cast<double>(scale));
  const simd::PackedOperand pb = simd::PackGemmB(vb, k, n);
  const int64_t ldc = static_cast<int64_t>(n) + 3;
  std::vector<float> c1(static_cast<size_t>(ldc) * m, 7.0f), c2 = c1;
  ThreadPool one(1), two(2);
  simd::GemmOperands g1{va, vb, c1.data(), ldc};
  if (feed == Feed::kPacked) {
    g1.packed_a = &pa;
    g1.packed_b = &pb;
  } else if (feed == Feed::kIndirect) {
    g1.indirect_b = &indirect;
  }
  simd::GemmOperands g2 = g1;
  g2.c = c2.data();
  simd::Gemm(m, n, k, std::span(&g1, 1), static_cast<double>(scale), one);
  simd::Gemm(m, n, k, std::span(&g2, 1), static_cast<double>(scale), two);
  CHECK(std::memcmp(c1.data(), c2.data(), c1.size() * sizeof(float)) == 0);  // bit-identical
  size_t bad = 0;
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      Float32Chain chain{Fused(target), scale};
      for (size_t p = 0; p < k; ++p) chain.Add(a[i * k + p], b[p * n + j]);
      // Bit for bit, whatever the tiling, depth blocks and packing.
      const float got = c1[i * static_cast<size_t>(ldc) + j];
      if (!(got == chain.acc && std::signbit(got) == std::signbit(chain.acc))) ++bad;
    }
    for (size_t j = n; j < static_cast<size_t>(ldc); ++j) {
      if (c1[i * static_cast<size_t>(ldc) + j] != 7.0f) ++bad;  // nothing beyond column n written
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("simd GEMM core: ragged sizes, strided, transposed and broadcast views, every target") {
  std::string names;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    names += std::string(" ") + hwy::TargetName(target);
  }
  MESSAGE("Highway targets run:" << names);
  ForEachTarget([](int64_t target) {
    // 1, around the micro-tile (6 or 12 rows; 2 vectors of 4..16 floats), and depths across
    // blocks.
    const size_t sizes[] = {1, 3, 5, 7, 9, 12, 13, 17, 33};
    for (size_t m : sizes) {
      for (size_t n : sizes) {
        CheckGemm(target, m, n, 5, {false, 0, false}, {false, 0, false}, 1.0f);
      }
    }
    // Every row count of a last panel (the kernels for 1 .. 12 rows), whole and ragged columns.
    for (size_t m = 1; m <= 25; ++m) {
      for (size_t n : {size_t{16}, size_t{32}, size_t{45}}) {
        CheckGemm(target, m, n, 20, {false, 0, false}, {false, 0, false}, 1.0f);
        CheckGemm(target, m, n, 20, {false, 0, false}, {false, 0, false}, 1.0f, Feed::kIndirect);
      }
    }
    for (size_t k : {size_t{1}, size_t{2}, size_t{15}, size_t{257}, size_t{300}, size_t{577}}) {
      CheckGemm(target, 13, 19, k, {false, 1, false}, {false, 3, false}, 1.0f);
      CheckGemm(target, 13, 19, k, {true, 1, false}, {true, 0, false}, 0.3f);
      CheckGemm(target, 7, 40, k, {false, 0, true}, {true, 2, false}, 1.0f);
      CheckGemm(target, 20, 9, k, {true, 0, false}, {false, 0, true}, -2.5f);
    }
    // Several tiles: blocks of rows and of columns, operands packed ahead of the tiles.
    CheckGemm(target, 100, 130, 70, {false, 0, false}, {false, 0, false}, 1.0f);
    CheckGemm(target, 250, 1100, 40, {false, 0, false}, {true, 0, false}, 1.0f);
    // Tall and narrow (fewer than 8 column panels per thread): on two threads the tiles are
    // chunks of row panels, B packed ahead of them (or read in place); one thread cuts by columns
    // as usual.
    CheckGemm(target, 300, 20, 40, {false, 0, false}, {false, 0, false}, 1.0f);
    CheckGemm(target, 290, 9, 300, {true, 0, false}, {true, 0, false}, 0.3f);
    CheckGemm(target, 300, 20, 40, {false, 0, false}, {false, 0, false}, 1.0f, Feed::kPacked);
    CheckGemm(target, 300, 20, 40, {false, 0, false}, {false, 0, false}, 1.0f, Feed::kIndirect);
  });
}

TEST_CASE("simd GEMM core: operands packed beforehand and B read in place, every target") {
  ForEachTarget([](int64_t target) {
    for (Feed feed : {Feed::kPacked, Feed::kIndirect}) {
      for (size_t m : {size_t{1}, size_t{7}, size_t{12}, size_t{25}}) {
        for (size_t n : {size_t{1}, size_t{16}, size_t{33}, size_t{70}}) {
          CheckGemm(target, m, n, 9, {false, 0, false}, {false, 0, false}, 1.0f, feed);
        }
      }
      for (size_t k : {size_t{1}, size_t{255}, size_t{257}, size_t{600}}) {
        CheckGemm(target, 13, 19, k, {true, 1, false}, {false, 2, false}, 0.3f, feed);
      }
      CheckGemm(target, 200, 300, 70, {false, 0, false}, {true, 0, false}, 1.0f, feed);
    }
    // Panels packed with another scale than the product's are not used (the view is).
    const size_t m = 5, n = 6, k = 7;
    const std::vector<float> a = Values(m * k, 1), b = Values(k * n, 2);
    const simd::MatrixView va{a.data(), static_cast<int64_t>(k), 1},
        vb{b.data(), static_cast<int64_t>(n), 1};
    const simd::PackedOperand pa = simd::PackGemmA(va, m, k, 1.0);
    std::vector<float> c(m * n);
    simd::GemmOperands g{va, vb, c.data(), static_cast<int64_t>(n)};
    g.packed_a = &pa;
    ThreadPool pool(1);
    simd::Gemm(m, n, k, std::span(&g, 1), 2.0, pool);
    size_t bad = 0;
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = 0; j < n; ++j) {
        Float32Chain chain{Fused(target), 2.0f};
        for (size_t p = 0; p < k; ++p) chain.Add(a[i * k + p], b[p * n + j]);
        if (c[i * n + j] != chain.acc) ++bad;
      }
    }
    CHECK(bad == 0);
  });
}

TEST_CASE("simd GEMM core: -0 sums, k = 0, batches, the float32 chain on every target") {
  // All products -0: the sum stays -0 (the chain starts at -0).
  const float a[2] = {-0.0f, 0.0f}, b[2] = {1.0f, -1.0f};
  float c[1] = {5};
  ThreadPool pool(2);
  const simd::GemmOperands g{{a, 2, 1}, {b, 1, 1}, c, 1};
  simd::Gemm(1, 1, 2, std::span(&g, 1), 1.0, pool);
  CHECK(c[0] == 0.0f);
  CHECK(std::signbit(c[0]));
  c[0] = 5;
  simd::Gemm(1, 1, 0, std::span(&g, 1), 1.0, pool);
  CHECK(c[0] == 0.0f);
  CHECK(std::signbit(c[0]));

  // A batch of problems with shared and distinct operands: each element is the float32 chain
  // (targets with FMA agree with each other bit for bit, and so do those without).
  const size_t m = 11, n = 21, k = 37;
  const std::vector<float> av = Values(3 * m * k, 5), bv = Values(k * n, 6);
  ForEachTarget([&](int64_t target) {
    std::vector<float> out(3 * m * n);
    std::vector<simd::GemmOperands> problems;
    for (size_t i = 0; i < 3; ++i) {
      problems.push_back({{av.data() + i * m * k, static_cast<int64_t>(k), 1},
                          {bv.data(), static_cast<int64_t>(n), 1},
                          out.data() + i * m * n,
                          static_cast<int64_t>(n)});
    }
    simd::Gemm(m, n, k, problems, 1.0, pool);
    size_t bad = 0;
    for (size_t i = 0; i < 3; ++i) {
      for (size_t r = 0; r < m; ++r) {
        for (size_t j = 0; j < n; ++j) {
          Float32Chain chain{Fused(target), 1.0f};
          for (size_t p = 0; p < k; ++p) chain.Add(av[(i * m + r) * k + p], bv[p * n + j]);
          if (out[(i * m + r) * n + j] != chain.acc) ++bad;
        }
      }
    }
    CHECK(bad == 0);
    // A batch large enough for two threads: the guided chunks run over the strips of every
    // problem; bit-identical to one thread and to the chain.
    const size_t bm = 40, bn = 50, bk = 30;
    const std::vector<float> ba = Values(3 * bm * bk, 7), bb = Values(3 * bk * bn, 8);
    std::vector<float> out1(3 * bm * bn), out2(3 * bm * bn);
    std::vector<simd::GemmOperands> batch1, batch2;
    for (size_t i = 0; i < 3; ++i) {
      batch1.push_back({{ba.data() + i * bm * bk, static_cast<int64_t>(bk), 1},
                        {bb.data() + i * bk * bn, static_cast<int64_t>(bn), 1},
                        out1.data() + i * bm * bn,
                        static_cast<int64_t>(bn)});
      batch2.push_back(batch1.back());
      batch2.back().c = out2.data() + i * bm * bn;
    }
    ThreadPool one(1);
    simd::Gemm(bm, bn, bk, batch1, 1.0, one);
    simd::Gemm(bm, bn, bk, batch2, 1.0, pool);
    CHECK(std::memcmp(out1.data(), out2.data(), out1.size() * sizeof(float)) == 0);
    bad = 0;
    for (size_t i = 0; i < 3; ++i) {
      for (size_t r = 0; r < bm; ++r) {
        for (size_t j = 0; j < bn; ++j) {
          Float32Chain chain{Fused(target), 1.0f};
          for (size_t p = 0; p < bk; ++p) {
            chain.Add(ba[(i * bm + r) * bk + p], bb[(i * bk + p) * bn + j]);
          }
          if (out2[(i * bm + r) * bn + j] != chain.acc) ++bad;
        }
      }
    }
    CHECK(bad == 0);
  });
}

// ---- the operators through the backend -------------------------------------------------------

// Tensor of `type` with logical values `v` (row-major over `shape`).
Tensor MakeTensor(DataType type, const Shape& shape, const std::vector<float>& v) {
  Tensor t = Tensor::Allocate(type, shape);
  for (size_t i = 0; i < v.size(); ++i) {
    if (type == DataType::kFloat16) {
      t.base<Float16>()[i] = Float16::FromDouble(static_cast<double>(v[i]));
    } else {
      t.base<float>()[i] = v[i];
    }
  }
  return t;
}

// The values the tensor holds (float16 rounded), as doubles.
std::vector<double> Read(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.element_count()));
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = t.dtype() == DataType::kFloat16 ? t.At<Float16>(i).ToDouble()
                                           : static_cast<double>(t.At<float>(i));
  }
  return v;
}

// Computes `graph` on the simd backend with `threads` threads.
Tensor RunSimd(const Graph& graph, const std::map<std::string, Tensor>& inputs, unsigned threads) {
  std::string why;
  const auto compiled = CompileForBackend(graph, MakeSimdBackend({threads}), why);
  REQUIRE_MESSAGE(compiled.has_value(), why);
  return graph.Compute(inputs, {}, compiled->kernels).at("y").data;
}

// Checks the simd result on every target, 1 and 2 threads (bit-identical), against `expected`
// (exact double sums) and `magnitude` (sums of |terms|): one rounding to the output type plus a
// float32 accumulator's error over `depth` terms, (depth + 2) * 2^-24 * magnitude (the classic
// bound for a recursive sum, with room for a rounded alpha * a and the bias).
void CheckOp(const Graph& graph, const std::map<std::string, Tensor>& inputs,
             const std::vector<double>& expected, const std::vector<double>& magnitude,
             DataType type, size_t depth) {
  const double unit = type == DataType::kFloat16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -24);
  ForEachTarget([&](int64_t) {
    const Tensor y1 = RunSimd(graph, inputs, 1), y2 = RunSimd(graph, inputs, 2);
    const std::vector<double> got = Read(y1), got2 = Read(y2);
    REQUIRE(got.size() == expected.size());
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      const double bound = unit * std::fabs(expected[i]) +
                           static_cast<double>(depth + 2) * std::ldexp(magnitude[i], -24);
      if (!(std::fabs(got[i] - expected[i]) <= bound)) {
        if (bad++ < 3) MESSAGE("element " << i << ": " << got[i] << " vs " << expected[i]);
      }
    }
    CHECK(bad == 0);
    CHECK(got == got2);
  });
}

// Index of each letter of `layout` ("nhwc", "oihw", ...): the shape position of that axis.
size_t Pos(const std::string& layout, char axis) { return layout.find(axis); }

// Row-major offset in a tensor of `shape` for the logical indices given per axis letter.
size_t Offset(const std::string& layout, const Shape& shape, const std::string& letters,
              std::initializer_list<uint64_t> idx) {
  std::vector<uint64_t> at(layout.size());
  size_t i = 0;
  for (uint64_t v : idx) at[Pos(layout, letters[i++])] = v;
  size_t off = 0;
  for (size_t d = 0; d < layout.size(); ++d) off = off * shape[d] + at[d];
  return off;
}

Shape ShapeOf(const std::string& layout, const std::string& letters,
              std::initializer_list<uint64_t> dims) {
  Shape s(layout.size());
  size_t i = 0;
  for (uint64_t v : dims) s[Pos(layout, letters[i++])] = v;
  return s;
}

struct ConvCase {
  std::string input_layout, filter_layout;
  uint64_t batches, in_c, h, w, out_c, kh, kw, groups;
  uint32_t pt, pb, pl, pr, sh, sw, dh, dw;
  bool bias;
  DataType type = DataType::kFloat32;
};

void CheckConv2d(const ConvCase& c) {
  CAPTURE(c.input_layout);
  CAPTURE(c.filter_layout);
  CAPTURE(c.groups);
  const uint64_t icg = c.in_c / c.groups, ocg = c.out_c / c.groups;
  const uint64_t oh = (c.h + c.pt + c.pb - (c.kh - 1) * c.dh - 1) / c.sh + 1;
  const uint64_t ow = (c.w + c.pl + c.pr - (c.kw - 1) * c.dw - 1) / c.sw + 1;
  const std::string il = c.input_layout == "nchw" ? "nchw" : "nhwc";
  const Shape xs = ShapeOf(il, "nchw", {c.batches, c.in_c, c.h, c.w});
  const Shape ws = ShapeOf(c.filter_layout, "oihw", {c.out_c, icg, c.kh, c.kw});
  const std::vector<float> xv = Values(ElementCount(xs), 11), wv = Values(ElementCount(ws), 12);
  const std::vector<float> bv = Values(c.out_c, 13);
  const Tensor x = MakeTensor(c.type, xs, xv), w = MakeTensor(c.type, ws, wv);
  const Tensor bias = MakeTensor(c.type, {c.out_c}, bv);
  const std::vector<double> xd = Read(x), wd = Read(w), bd = Read(bias);

  const Shape ys = ShapeOf(il, "nchw", {c.batches, c.out_c, oh, ow});
  std::vector<double> expected(ElementCount(ys)), magnitude(expected.size());
  for (uint64_t n = 0; n < c.batches; ++n) {
    for (uint64_t o = 0; o < c.out_c; ++o) {
      const uint64_t g = o / ocg;
      for (uint64_t y = 0; y < oh; ++y) {
        for (uint64_t xo = 0; xo < ow; ++xo) {
          double sum = c.bias ? bd[o] : 0, mag = std::fabs(sum);
          for (uint64_t i = 0; i < icg; ++i) {
            for (uint64_t ky = 0; ky < c.kh; ++ky) {
              for (uint64_t kx = 0; kx < c.kw; ++kx) {
                const int64_t iy = static_cast<int64_t>(y * c.sh + ky * c.dh) - c.pt;
                const int64_t ix = static_cast<int64_t>(xo * c.sw + kx * c.dw) - c.pl;
                if (iy < 0 || ix < 0 || iy >= static_cast<int64_t>(c.h) ||
                    ix >= static_cast<int64_t>(c.w)) {
                  continue;
                }
                const double t = xd[Offset(il, xs, "nchw",
                                           {n, g * icg + i, static_cast<uint64_t>(iy),
                                            static_cast<uint64_t>(ix)})] *
                                 wd[Offset(c.filter_layout, ws, "oihw", {o, i, ky, kx})];
                sum += t;
                mag += std::fabs(t);
              }
            }
          }
          const size_t at = Offset(il, ys, "nchw", {n, o, y, xo});
          expected[at] = sum;
          magnitude[at] = mag;
        }
      }
    }
  }

  GraphBuilder b;
  MLConv2dOptions options;
  options.padding = std::vector<uint32_t>{c.pt, c.pb, c.pl, c.pr};
  options.strides = std::vector<uint32_t>{c.sh, c.sw};
  options.dilations = std::vector<uint32_t>{c.dh, c.dw};
  options.groups = static_cast<uint32_t>(c.groups);
  options.inputLayout = il == "nchw" ? MLInputOperandLayout::kNchw : MLInputOperandLayout::kNhwc;
  const auto& names = kConv2dFilterLayoutNames;
  options.filterLayout = static_cast<MLConv2dFilterOperandLayout>(
      std::find(names.begin(), names.end(), c.filter_layout) - names.begin());
  std::map<std::string, Tensor> inputs = {{"x", x}, {"w", w}};
  if (c.bias) {
    options.bias = b.Input("b", {c.type, {c.out_c}});
    inputs["b"] = bias;
  }
  const Operand out = Conv2d(b, b.Input("x", {c.type, xs}), b.Input("w", {c.type, ws}), options);
  REQUIRE(b.Desc(out).shape == ys);
  const auto graph = b.Build({{"y", out}});
  CheckOp(*graph, inputs, expected, magnitude, c.type, icg * c.kh * c.kw);

  // The filter as a constant (arranged and packed when the graph is compiled): the same bits.
  GraphBuilder bc;
  MLConv2dOptions constant_options = options;
  std::map<std::string, Tensor> constant_inputs = {{"x", x}};
  if (c.bias) {
    constant_options.bias = bc.Input("b", {c.type, {c.out_c}});
    constant_inputs["b"] = bias;
  }
  const Operand cout = Conv2d(bc, bc.Input("x", {c.type, xs}), bc.Constant({c.type, ws}, w),
                              constant_options);
  const auto constant_graph = bc.Build({{"y", cout}});
  ForEachTarget([&](int64_t) {
    const Tensor y1 = RunSimd(*graph, inputs, 2), y2 = RunSimd(*constant_graph, constant_inputs, 1),
                 y3 = RunSimd(*constant_graph, constant_inputs, 2);
    CHECK(y1.Bytes() == y2.Bytes());
    CHECK(y1.Bytes() == y3.Bytes());
  });
}

// nchw conv2d, float32, no bias: every element is the float32 chain of gemm.h over (c, ky, kx) in
// ascending order, padded positions contributing 0 * w, whichever path computes it (stride 1
// reads the padded image in place, other strides pack im2col panels), with the filter as an input
// or as a constant packed at compile time, on 1 and 2 threads.
void CheckConv2dChain(uint64_t in_c, uint64_t h, uint64_t w, uint64_t out_c, uint64_t kh,
                      uint64_t kw, uint64_t groups, std::array<uint32_t, 4> pad,
                      std::array<uint32_t, 2> stride, std::array<uint32_t, 2> dilation) {
  CAPTURE(in_c);
  CAPTURE(kh);
  CAPTURE(stride[0]);
  CAPTURE(dilation[0]);
  CAPTURE(groups);
  const uint64_t icg = in_c / groups, ocg = out_c / groups;
  const uint64_t oh = (h + pad[0] + pad[1] - (kh - 1) * dilation[0] - 1) / stride[0] + 1;
  const uint64_t ow = (w + pad[2] + pad[3] - (kw - 1) * dilation[1] - 1) / stride[1] + 1;
  const Shape xs = {2, in_c, h, w}, ws = {out_c, icg, kh, kw};
  const std::vector<float> xv = Values(ElementCount(xs), 21), wv = Values(ElementCount(ws), 22);
  const Tensor x = MakeTensor(DataType::kFloat32, xs, xv);
  const Tensor wt = MakeTensor(DataType::kFloat32, ws, wv);
  MLConv2dOptions options;
  options.padding = std::vector<uint32_t>(pad.begin(), pad.end());
  options.strides = std::vector<uint32_t>(stride.begin(), stride.end());
  options.dilations = std::vector<uint32_t>(dilation.begin(), dilation.end());
  options.groups = static_cast<uint32_t>(groups);
  GraphBuilder bi, bc;
  const Operand yi = Conv2d(bi, bi.Input("x", {DataType::kFloat32, xs}),
                            bi.Input("w", {DataType::kFloat32, ws}), options);
  const Operand yc = Conv2d(bc, bc.Input("x", {DataType::kFloat32, xs}),
                            bc.Constant({DataType::kFloat32, ws}, wt), options);
  const auto gi = bi.Build({{"y", yi}}), gc = bc.Build({{"y", yc}});
  ForEachTarget([&](int64_t target) {
    std::vector<float> expected(2 * out_c * oh * ow);
    for (uint64_t n = 0; n < 2; ++n) {
      for (uint64_t o = 0; o < out_c; ++o) {
        const uint64_t g = o / ocg;
        for (uint64_t oy = 0; oy < oh; ++oy) {
          for (uint64_t ox = 0; ox < ow; ++ox) {
            Float32Chain chain{Fused(target), 1.0f};
            for (uint64_t i = 0; i < icg; ++i) {
              for (uint64_t ky = 0; ky < kh; ++ky) {
                for (uint64_t kx = 0; kx < kw; ++kx) {
                  const int64_t iy =
                      static_cast<int64_t>(oy * stride[0] + ky * dilation[0]) - pad[0];
                  const int64_t ix =
                      static_cast<int64_t>(ox * stride[1] + kx * dilation[1]) - pad[2];
                  const bool inside = iy >= 0 && ix >= 0 && iy < static_cast<int64_t>(h) &&
                                      ix < static_cast<int64_t>(w);
                  const float xval =
                      inside ? xv[((n * in_c + g * icg + i) * h + static_cast<uint64_t>(iy)) * w +
                                  static_cast<uint64_t>(ix)]
                             : 0.0f;
                  chain.Add(xval, wv[((o * icg + i) * kh + ky) * kw + kx]);
                }
              }
            }
            expected[((n * out_c + o) * oh + oy) * ow + ox] = chain.acc;
          }
        }
      }
    }
    for (const auto* graph : {gi.get(), gc.get()}) {
      for (unsigned threads : {1u, 2u}) {
        const std::map<std::string, Tensor> inputs =
            graph == gi.get() ? std::map<std::string, Tensor>{{"x", x}, {"w", wt}}
                              : std::map<std::string, Tensor>{{"x", x}};
        const Tensor y = RunSimd(*graph, inputs, threads);
        REQUIRE(y.element_count() == expected.size());
        size_t bad = 0;
        for (size_t e = 0; e < expected.size(); ++e) {
          const float got = y.base<float>()[e];
          if (!(got == expected[e] && std::signbit(got) == std::signbit(expected[e]))) ++bad;
        }
        CHECK(bad == 0);
      }
    }
  });
}

TEST_CASE("simd conv2d nchw: the float32 chain bit for bit on every path, target, thread count") {
  CheckConv2dChain(5, 9, 11, 14, 3, 3, 1, {1, 1, 1, 1}, {1, 1}, {1, 1});   // 3x3 stride 1
  CheckConv2dChain(7, 6, 13, 13, 1, 1, 1, {0, 0, 0, 0}, {1, 1}, {1, 1});   // 1x1
  CheckConv2dChain(6, 10, 9, 4, 3, 2, 2, {2, 1, 0, 3}, {1, 1}, {2, 3});    // dilated, grouped
  CheckConv2dChain(4, 12, 40, 30, 3, 3, 1, {1, 1, 1, 1}, {1, 1}, {1, 1});  // several tiles
  // Rows of the padded grid overlapping by shared padding columns (stride 42 of 44; 43 of 43
  // and 41 of 43 where the left or right padding is too narrow to share), dilated (42 of 44).
  CheckConv2dChain(3, 7, 40, 5, 3, 3, 1, {1, 2, 2, 2}, {1, 1}, {1, 1});
  CheckConv2dChain(3, 7, 40, 5, 3, 3, 1, {1, 0, 3, 0}, {1, 1}, {1, 1});
  CheckConv2dChain(3, 7, 40, 5, 3, 3, 1, {0, 1, 0, 3}, {1, 1}, {1, 1});
  CheckConv2dChain(3, 7, 40, 5, 3, 3, 1, {2, 2, 2, 2}, {1, 1}, {2, 2});
  CheckConv2dChain(4, 9, 10, 6, 3, 3, 2, {1, 0, 1, 2}, {2, 2}, {1, 1});    // stride 2: im2col
  CheckConv2dChain(3, 8, 8, 3, 3, 3, 3, {1, 1, 1, 1}, {1, 1}, {1, 1});     // depthwise
}

// Stride 1 with the output as wide as the image: the GEMM over the output pixels of the image
// padded with zero rows only, the window's columns outside the image masked (gemm.h, IndirectB's
// zero taps; on AVX-512 a 3-wide window's masks in mask registers), row panels of even height
// (14 = 7 + 7, 30 = 3 x 10 output channels), a single panel of at most half a micro-tile (3
// output channels per group) over two column panels.
TEST_CASE("simd conv2d nchw, 'same' width: zero taps bit for bit on every target, thread count") {
  CheckConv2dChain(4, 9, 37, 14, 3, 3, 1, {1, 1, 1, 1}, {1, 1}, {1, 1});   // 333 pixels, ragged
  CheckConv2dChain(3, 3, 5, 14, 3, 3, 1, {1, 1, 1, 1}, {1, 1}, {1, 1});    // 15: one partial vector
  CheckConv2dChain(3, 11, 13, 30, 3, 3, 1, {0, 2, 2, 0}, {1, 1}, {1, 1});  // one-sided padding
  CheckConv2dChain(2, 6, 17, 7, 3, 3, 1, {2, 2, 1, 1}, {1, 1}, {1, 1});  // more rows than the image
  CheckConv2dChain(3, 9, 21, 13, 5, 5, 1, {2, 2, 2, 2}, {1, 1}, {1, 1});  // 25 taps
  CheckConv2dChain(4, 8, 19, 6, 3, 3, 2, {2, 2, 2, 2}, {1, 1}, {2, 2});   // dilated, 3 per group
  CheckConv2dChain(2, 7, 2, 5, 2, 2, 1, {0, 3, 0, 3}, {1, 1}, {3, 3});    // every shifted tap out
  CheckConv2dChain(3, 5, 1, 4, 3, 3, 1, {1, 1, 1, 1}, {1, 1}, {1, 1});    // one column
  CheckConv2dChain(4, 7, 20, 13, 1, 3, 1, {0, 0, 1, 1}, {1, 1}, {1, 1});  // one window row
  CheckConv2dChain(64, 8, 8, 40, 3, 3, 1, {1, 1, 1, 1}, {1, 1}, {1, 1});  // deep: 576; 4 x 10 rows
}

TEST_CASE("simd conv2d: layouts, groups, depthwise, strides, dilations, padding") {
  for (const char* il : {"nchw", "nhwc"}) {
    for (const char* fl : {"oihw", "hwio", "ohwi", "ihwo"}) {
      CheckConv2d({il, fl, 2, 4, 7, 9, 6, 3, 2, 1, 1, 0, 2, 1, 1, 1, 1, 1, true});   // single
      CheckConv2d({il, fl, 1, 6, 9, 8, 4, 3, 3, 2, 0, 1, 1, 2, 2, 3, 1, 2, false});  // grouped
      CheckConv2d({il, fl, 1, 5, 6, 7, 10, 3, 3, 5, 1, 1, 1, 1, 1, 2, 2, 1, true});  // depthwise
    }
  }
  ConvCase half{"nhwc", "ohwi", 1, 8, 5, 5, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true};
  half.type = DataType::kFloat16;
  CheckConv2d(half);
  ConvCase wide{"nchw", "oihw", 1, 20, 11, 13, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true};
  CheckConv2d(wide);  // several GEMM tiles
  // nhwc with at least 16 output channels per group: the pixel-major product.
  for (const char* fl : {"oihw", "hwio", "ohwi", "ihwo"}) {
    CheckConv2d({"nhwc", fl, 2, 6, 7, 6, 34, 3, 2, 2, 1, 1, 0, 1, 2, 1, 1, 2, true});
  }
}

struct ConvTCase {
  std::string input_layout, filter_layout;
  uint64_t batches, in_c, h, w, ocg, kh, kw, groups;
  uint32_t pt, pb, pl, pr, sh, sw, dh, dw, oph, opw;
  bool bias;
  DataType type = DataType::kFloat32;
};

void CheckConvTranspose2d(const ConvTCase& c) {
  CAPTURE(c.input_layout);
  CAPTURE(c.filter_layout);
  CAPTURE(c.groups);
  const uint64_t icg = c.in_c / c.groups, out_c = c.ocg * c.groups;
  const uint64_t oh = (c.h - 1) * c.sh + (c.kh - 1) * c.dh + 1 - c.pt - c.pb + c.oph;
  const uint64_t ow = (c.w - 1) * c.sw + (c.kw - 1) * c.dw + 1 - c.pl - c.pr + c.opw;
  const std::string il = c.input_layout;
  const Shape xs = ShapeOf(il, "nchw", {c.batches, c.in_c, c.h, c.w});
  const Shape ws = ShapeOf(c.filter_layout, "iohw", {c.in_c, c.ocg, c.kh, c.kw});
  const Tensor x = MakeTensor(c.type, xs, Values(ElementCount(xs), 21));
  const Tensor w = MakeTensor(c.type, ws, Values(ElementCount(ws), 22));
  const Tensor bias = MakeTensor(c.type, {out_c}, Values(out_c, 23));
  const std::vector<double> xd = Read(x), wd = Read(w), bd = Read(bias);

  // Scatter form: every input pixel times every tap lands on one output position.
  const Shape ys = ShapeOf(il, "nchw", {c.batches, out_c, oh, ow});
  std::vector<double> expected(ElementCount(ys)), magnitude(expected.size());
  for (uint64_t n = 0; n < c.batches; ++n) {
    for (uint64_t o = 0; o < out_c; ++o) {
      for (uint64_t y = 0; y < oh; ++y) {
        for (uint64_t xo = 0; xo < ow; ++xo) {
          const size_t at = Offset(il, ys, "nchw", {n, o, y, xo});
          expected[at] = c.bias ? bd[o] : 0;
          magnitude[at] = std::fabs(expected[at]);
        }
      }
    }
    for (uint64_t ic = 0; ic < c.in_c; ++ic) {
      const uint64_t g = ic / icg;
      for (uint64_t iy = 0; iy < c.h; ++iy) {
        for (uint64_t ix = 0; ix < c.w; ++ix) {
          for (uint64_t o = 0; o < c.ocg; ++o) {
            for (uint64_t ky = 0; ky < c.kh; ++ky) {
              for (uint64_t kx = 0; kx < c.kw; ++kx) {
                const int64_t y = static_cast<int64_t>(iy * c.sh + ky * c.dh) - c.pt;
                const int64_t xo = static_cast<int64_t>(ix * c.sw + kx * c.dw) - c.pl;
                if (y < 0 || xo < 0 || y >= static_cast<int64_t>(oh) ||
                    xo >= static_cast<int64_t>(ow)) {
                  continue;
                }
                const double t = xd[Offset(il, xs, "nchw", {n, ic, iy, ix})] *
                                 wd[Offset(c.filter_layout, ws, "iohw", {ic, o, ky, kx})];
                const size_t at =
                    Offset(il, ys, "nchw",
                           {n, g * c.ocg + o, static_cast<uint64_t>(y), static_cast<uint64_t>(xo)});
                expected[at] += t;
                magnitude[at] += std::fabs(t);
              }
            }
          }
        }
      }
    }
  }

  GraphBuilder b;
  MLConvTranspose2dOptions options;
  options.padding = std::vector<uint32_t>{c.pt, c.pb, c.pl, c.pr};
  options.strides = std::vector<uint32_t>{c.sh, c.sw};
  options.dilations = std::vector<uint32_t>{c.dh, c.dw};
  options.outputPadding = std::vector<uint32_t>{c.oph, c.opw};
  options.groups = static_cast<uint32_t>(c.groups);
  options.inputLayout = il == "nchw" ? MLInputOperandLayout::kNchw : MLInputOperandLayout::kNhwc;
  const auto& names = kConvTranspose2dFilterLayoutNames;
  options.filterLayout = static_cast<MLConvTranspose2dFilterOperandLayout>(
      std::find(names.begin(), names.end(), c.filter_layout) - names.begin());
  std::map<std::string, Tensor> inputs = {{"x", x}, {"w", w}};
  if (c.bias) {
    options.bias = b.Input("b", {c.type, {out_c}});
    inputs["b"] = bias;
  }
  const Operand out =
      ConvTranspose2d(b, b.Input("x", {c.type, xs}), b.Input("w", {c.type, ws}), options);
  REQUIRE(b.Desc(out).shape == ys);
  CheckOp(*b.Build({{"y", out}}), inputs, expected, magnitude, c.type, icg);
}

TEST_CASE("simd convTranspose2d: layouts, groups, strides, dilations, padding, outputPadding") {
  for (const char* il : {"nchw", "nhwc"}) {
    for (const char* fl : {"iohw", "hwoi", "ohwi"}) {
      CheckConvTranspose2d({il, fl, 2, 3, 4, 5, 2, 3, 2, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, true});
      CheckConvTranspose2d({il, fl, 1, 4, 3, 4, 3, 3, 3, 2, 1, 0, 2, 1, 2, 3, 1, 2, 1, 2, false});
      CheckConvTranspose2d({il, fl, 1, 6, 4, 3, 1, 2, 3, 6, 1, 1, 0, 1, 3, 2, 2, 1, 2, 0, true});
    }
  }
  ConvTCase half{"nhwc", "hwoi", 1, 4, 3, 3, 5, 3, 3, 1, 1, 1, 1, 1, 2, 2, 1, 1, 1, 1, true};
  half.type = DataType::kFloat16;
  CheckConvTranspose2d(half);
}

TEST_CASE("simd matmul: broadcast batches, ragged sizes; gemm: transposes, alpha, beta, c") {
  struct MatmulCase {
    Shape a, b;
  };
  const MatmulCase cases[] = {{{1, 1}, {1, 1}},
                              {{3, 7}, {7, 9}},
                              {{2, 1, 5, 17}, {3, 17, 6}},
                              {{4, 33}, {2, 3, 33, 15}},
                              {{2, 3, 9, 8}, {1, 3, 8, 31}},
                              {{2, 3, 5, 7}, {7, 9}},  // b shared: one product of 30 rows
                              {{3, 4, 10}, {1, 10, 19}}};
  for (const MatmulCase& mc : cases) {
    for (DataType type : {DataType::kFloat32, DataType::kFloat16}) {
      const Tensor a = MakeTensor(type, mc.a, Values(ElementCount(mc.a), 31));
      const Tensor bt = MakeTensor(type, mc.b, Values(ElementCount(mc.b), 32));
      GraphBuilder b;
      const Operand out = Matmul(b, b.Input("a", {type, mc.a}), b.Input("b", {type, mc.b}));
      const Shape ys = b.Desc(out).shape;
      const size_t rank = ys.size(), m = ys[rank - 2], n = ys[rank - 1], k = mc.a.back();
      // Independent broadcasting: right-align batch dims, index 0 where a dim is 1.
      const std::vector<double> ad = Read(a), bd = Read(bt);
      const auto batch_offset = [&](const Shape& s, const std::vector<uint64_t>& idx) {
        size_t off = 0;
        const size_t lead = rank - s.size();
        for (size_t d = 0; d + 2 < s.size(); ++d) {
          off = off * s[d] + (s[d] == 1 ? 0 : idx[d + lead]);
        }
        return off * s[s.size() - 2] * s[s.size() - 1];
      };
      std::vector<double> expected(ElementCount(ys)), magnitude(expected.size());
      const size_t batches = expected.size() / (m * n);
      for (size_t bi = 0; bi < batches; ++bi) {
        std::vector<uint64_t> idx(rank - 2);
        for (size_t d = rank - 2, r = bi; d-- > 0;) {
          idx[d] = r % ys[d];
          r /= ys[d];
        }
        const size_t ao = batch_offset(mc.a, idx), bo = batch_offset(mc.b, idx);
        for (size_t i = 0; i < m; ++i) {
          for (size_t j = 0; j < n; ++j) {
            double sum = 0, mag = 0;
            for (size_t p = 0; p < k; ++p) {
              const double t = ad[ao + i * k + p] * bd[bo + p * n + j];
              sum += t;
              mag += std::fabs(t);
            }
            expected[(bi * m + i) * n + j] = sum;
            magnitude[(bi * m + i) * n + j] = mag;
          }
        }
      }
      const auto graph = b.Build({{"y", out}});
      CheckOp(*graph, {{"a", a}, {"b", bt}}, expected, magnitude, type, k);
      // b as a constant (packed when the graph is compiled, when it is one matrix): same bits.
      GraphBuilder bc;
      const Operand cout = Matmul(bc, bc.Input("a", {type, mc.a}), bc.Constant({type, mc.b}, bt));
      const auto constant_graph = bc.Build({{"y", cout}});
      ForEachTarget([&](int64_t) {
        const Tensor y1 = RunSimd(*graph, {{"a", a}, {"b", bt}}, 1);
        CHECK(y1.Bytes() == RunSimd(*constant_graph, {{"a", a}}, 1).Bytes());
        CHECK(y1.Bytes() == RunSimd(*constant_graph, {{"a", a}}, 2).Bytes());
      });
    }
  }

  // gemm: a [M, K] (or [K, M] with aTranspose), b likewise, c broadcast from [N].
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      const size_t m = 7, n = 18, k = 13;
      const Shape as = ta ? Shape{k, m} : Shape{m, k}, bs = tb ? Shape{n, k} : Shape{k, n};
      const Tensor a = MakeTensor(DataType::kFloat32, as, Values(m * k, 41));
      const Tensor bt = MakeTensor(DataType::kFloat32, bs, Values(k * n, 42));
      const Tensor c = MakeTensor(DataType::kFloat32, {n}, Values(n, 43));
      const std::vector<double> ad = Read(a), bd = Read(bt), cd = Read(c);
      const double alpha = 0.5, beta = -1.5;  // float-representable: the casts change nothing
      std::vector<double> expected(m * n), magnitude(m * n);
      for (size_t i = 0; i < m; ++i) {
        for (size_t j = 0; j < n; ++j) {
          double sum = beta * cd[j], mag = std::fabs(sum);
          for (size_t p = 0; p < k; ++p) {
            const double t =
                alpha * (ta ? ad[p * m + i] : ad[i * k + p]) * (tb ? bd[j * k + p] : bd[p * n + j]);
            sum += t;
            mag += std::fabs(t);
          }
          expected[i * n + j] = sum;
          magnitude[i * n + j] = mag;
        }
      }
      GraphBuilder b;
      MLGemmOptions options;
      options.c = b.Input("c", {DataType::kFloat32, {n}});
      options.alpha = alpha;
      options.beta = beta;
      options.aTranspose = ta;
      options.bTranspose = tb;
      const Operand out = Gemm(b, b.Input("a", {DataType::kFloat32, as}),
                               b.Input("b", {DataType::kFloat32, bs}), options);
      const auto graph = b.Build({{"y", out}});
      CheckOp(*graph, {{"a", a}, {"b", bt}, {"c", c}}, expected, magnitude, DataType::kFloat32, k);
      GraphBuilder bc;
      MLGemmOptions constant_options = options;
      constant_options.c = bc.Input("c", {DataType::kFloat32, {n}});
      const Operand cout = Gemm(bc, bc.Input("a", {DataType::kFloat32, as}),
                                bc.Constant({DataType::kFloat32, bs}, bt), constant_options);
      const auto constant_graph = bc.Build({{"y", cout}});
      ForEachTarget([&](int64_t) {
        const Tensor y1 = RunSimd(*graph, {{"a", a}, {"b", bt}, {"c", c}}, 1);
        CHECK(y1.Bytes() == RunSimd(*constant_graph, {{"a", a}, {"c", c}}, 2).Bytes());
      });
    }
  }
}

TEST_CASE("simd gemm sums in float32 as hardware does; linear stays exact in double") {
  // 1e8 * 1 + 1 * 1 in a float32 accumulator: 1e8 + 1 rounds to 1e8 (spacing 8 there), so adding
  // c = -1e8 gives 0 where the exact value is 1 (the corpus's cancellation cases). The check mode
  // accepts it by the sum bound (runner/sum_bound_test.cc); here the core's arithmetic is shown.
  GraphBuilder b;
  MLGemmOptions options;
  options.c = b.Input("c", {DataType::kFloat32, {1, 1}});
  const Operand out = Gemm(b, b.Input("a", {DataType::kFloat32, {1, 2}}),
                           b.Input("b", {DataType::kFloat32, {2, 1}}), options);
  const auto graph = b.Build({{"y", out}});
  const std::map<std::string, Tensor> inputs = {
      {"a", MakeTensor(DataType::kFloat32, {1, 2}, {1e8f, 1.0f})},
      {"b", MakeTensor(DataType::kFloat32, {2, 1}, {1.0f, 1.0f})},
      {"c", MakeTensor(DataType::kFloat32, {1, 1}, {-1e8f})}};
  ForEachTarget([&](int64_t) { CHECK(Read(RunSimd(*graph, inputs, 2)) == std::vector<double>{0.0}); });

  // linear: 3e38 * 2 - 3e38 overflows in float32 but not in double.
  GraphBuilder lb;
  MLLinearOptions lo;
  lo.alpha = 2;
  lo.beta = -3e38;
  const Operand lout = Linear(lb, lb.Input("x", {DataType::kFloat32, {3}}), lo);
  const auto lgraph = lb.Build({{"y", lout}});
  const std::vector<double> got =
      Read(RunSimd(*lgraph, {{"x", MakeTensor(DataType::kFloat32, {3}, {3e38f, 0.5f, -1.0f})}}, 1));
  const double beta = static_cast<double>(-3e38f);
  CHECK(got[0] == static_cast<double>(static_cast<float>(2.0 * static_cast<double>(3e38f) + beta)));
  CHECK(got[1] == static_cast<double>(static_cast<float>(1.0 + beta)));
  CHECK(got[2] == static_cast<double>(static_cast<float>(-2.0 + beta)));
}

}  // namespace
}  // namespace nnref
