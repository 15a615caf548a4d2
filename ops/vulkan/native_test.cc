// The vulkan backend's native arithmetic mode (BackendOptions::arithmetic = kNative,
// docs/vulkan.md#arithmetic-modes) on the first Vulkan device (lavapipe on CI), validation layer
// on. matmul, gemm, conv2d and convTranspose2d run on the tiled float32 GEMM shaders
// (shaders/gemm_tile.glsl); they are not near correctly rounded, so the expected values are exact
// sums computed here in double, and the bound is the sum bound of docs/numerics.md ("The sum
// bound"), written out here: |got - exact| <= T (u M + smallest subnormal), T = 2 per product,
// u the output type's unit roundoff and M the sum of |terms|, not the tight bound the exact mode
// meets. Shapes straddle the tile sizes (16 rows per subgroup, 4 subgroup-widths of columns,
// 8 k per shared-memory step). On a CPU device (lavapipe) float32 matmul/gemm with K and N
// multiples of 4 and float32 conv2d run the direct variant (gemm_variant.cc); the CTest run
// vulkan_native_test.tiled repeats every case with NNREF_VULKAN_GEMM=tiled, and one case below
// compares the two variants directly.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "numerics/float16.h"
#include "ops/backend_testing.h"
#include "ops/conv2d.h"
#include "ops/conv_transpose2d.h"
#include "ops/elementwise_unary.h"
#include "ops/matmul_gemm.h"
#include "ops/normalization.h"
#include "ops/pool2d.h"
#include "ops/reduction.h"
#include "ops/softmax.h"
#include "ops/vulkan/vulkan_backend.h"
#include "ref/graph/graph.h"

namespace nnref {
namespace {

std::shared_ptr<const Backend> MakeFor(Arithmetic mode) {
  setenv("NNREF_VULKAN_VALIDATION", "1", 1);
  BackendOptions options;
  options.arithmetic = mode;
  return MakeVulkanBackend(options);
}

// One backend per mode for the whole program (instance and device once each).
const std::shared_ptr<const Backend>& Native() {
  static const std::shared_ptr<const Backend> b = MakeFor(Arithmetic::kNative);
  return b;
}
const std::shared_ptr<const Backend>& Exact() {
  static const std::shared_ptr<const Backend> b = MakeFor(Arithmetic::kExact);
  return b;
}

using Make = std::function<Operand(GraphBuilder&, const std::vector<Operand>&)>;

// Deterministic values in [-scale, scale), rounded to `type`; `values` receives the rounded
// values (as double) so that the expected sums use exactly what the device sees.
Tensor Pseudo(DataType type, const Shape& shape, uint32_t seed, double scale,
              std::vector<double>& values) {
  Tensor t = Tensor::Allocate(type, shape);
  values.resize(t.element_count());
  uint32_t s = seed;
  for (size_t i = 0; i < values.size(); ++i) {
    s = s * 1664525u + 1013904223u;
    const double x = (static_cast<double>(s >> 8) / 8388608.0 - 1.0) * scale;
    if (type == DataType::kFloat16) {
      t.base<Float16>()[i] = Float16::FromDouble(x);
      values[i] = t.base<Float16>()[i].ToDouble();
    } else {
      t.base<float>()[i] = static_cast<float>(x);
      values[i] = static_cast<double>(t.base<float>()[i]);
    }
  }
  return t;
}

double ValueAt(const Tensor& t, size_t i) {
  if (t.dtype() == DataType::kFloat16) return t.base<Float16>()[i].ToDouble();
  return static_cast<double>(t.base<float>()[i]);
}

// The sum bound of an output element: T roundings of u M each (plus the subnormal term).
double SumBound(DataType type, double terms, double abs_sum) {
  const double u = type == DataType::kFloat16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -24);
  const double tiny = type == DataType::kFloat16 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -149);
  return 2 * terms * (u * abs_sum + tiny);
}

TEST_CASE("vulkan native: the backend line names the arithmetic mode") {
  CHECK(Native()->Describe().find("native arithmetic") != std::string::npos);
  CHECK(Exact()->Describe().find("exact arithmetic") != std::string::npos);
  // The default is exact.
  CHECK(MakeVulkanBackend()->Describe().find("exact arithmetic") != std::string::npos);
}

// A [batch.., M, K] x [K, N] matmul (b broadcast over a's batches) against exact double sums.
void CheckMatmul(DataType type, uint64_t batches, uint64_t M, uint64_t K, uint64_t N) {
  CAPTURE(DataTypeName(type));
  CAPTURE(batches);
  CAPTURE(M);
  CAPTURE(K);
  CAPTURE(N);
  std::vector<double> av, bv;
  const Tensor a = Pseudo(type, {batches, M, K}, static_cast<uint32_t>(M * 131 + K), 2, av);
  const Tensor b = Pseudo(type, {K, N}, static_cast<uint32_t>(N * 17 + 5), 1, bv);
  const Tensor c = RunOn(Native(), {a, b}, [](GraphBuilder& g, const std::vector<Operand>& in) {
    return Matmul(g, in[0], in[1]);
  });
  REQUIRE(c.shape() == Shape{batches, M, N});
  size_t bad = 0;
  for (uint64_t bt = 0; bt < batches; ++bt) {
    for (uint64_t m = 0; m < M; ++m) {
      for (uint64_t n = 0; n < N; ++n) {
        double exact = 0, abs_sum = 0;
        for (uint64_t k = 0; k < K; ++k) {
          const double p = av[(bt * M + m) * K + k] * bv[k * N + n];
          exact += p;  // products of float32 (or float16) values: exact in double; the sum's
          abs_sum += std::fabs(p);  // rounding in double is far below the bound
        }
        const double got = ValueAt(c, (bt * M + m) * N + n);
        if (!(std::fabs(got - exact) <= SumBound(type, static_cast<double>(K), abs_sum))) {
          if (++bad <= 5) {
            MESSAGE("[" << bt << ", " << m << ", " << n << "]: got " << got << ", exact " << exact);
          }
        }
      }
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("vulkan native: matmul within the sum bound, sizes around the tiles") {
  for (const DataType type : {DataType::kFloat32, DataType::kFloat16}) {
    CheckMatmul(type, 1, 1, 1, 1);
    CheckMatmul(type, 2, 7, 9, 5);
    CheckMatmul(type, 1, 17, 8, 33);
    CheckMatmul(type, 3, 16, 23, 32);
    CheckMatmul(type, 1, 130, 65, 70);  // more than one tile each way, a ragged k step
    // K and N multiples of 4 (the direct variant on CPU devices for float32): one vec4, ragged
    // row and column tiles (128 rows, 16 vec4s of columns on lavapipe), batches.
    CheckMatmul(type, 1, 1, 4, 4);
    CheckMatmul(type, 2, 7, 4, 12);
    CheckMatmul(type, 1, 130, 68, 72);
    CheckMatmul(type, 3, 16, 24, 260);
  }
  // More tiles than one dispatch's 65535 workgroups: the shader loops over the rest.
  CheckMatmul(DataType::kFloat32, 66000, 1, 3, 1);
}

// gemm with alpha, beta and c ([N] broadcast over the rows, or [M, N]) against exact sums.
void CheckGemm(uint64_t M, uint64_t K, uint64_t N, bool a_transpose, bool b_transpose,
               bool c_full) {
  CAPTURE(M);
  CAPTURE(K);
  CAPTURE(N);
  CAPTURE(a_transpose);
  CAPTURE(b_transpose);
  std::vector<double> av, bv, cv;
  const Tensor a = Pseudo(DataType::kFloat32, a_transpose ? Shape{K, M} : Shape{M, K}, 3, 1, av);
  const Tensor b = Pseudo(DataType::kFloat32, b_transpose ? Shape{N, K} : Shape{K, N}, 4, 1, bv);
  const Tensor c = Pseudo(DataType::kFloat32, c_full ? Shape{M, N} : Shape{N}, 5, 4, cv);
  const double alpha = 0.75, beta = -1.5;
  const Tensor y = RunOn(Native(), {a, b, c}, [&](GraphBuilder& g, const std::vector<Operand>& in) {
    MLGemmOptions o;
    o.c = in[2];
    o.alpha = alpha;
    o.beta = beta;
    o.aTranspose = a_transpose;
    o.bTranspose = b_transpose;
    return Gemm(g, in[0], in[1], o);
  });
  REQUIRE(y.shape() == Shape{M, N});
  size_t bad = 0;
  for (uint64_t m = 0; m < M; ++m) {
    for (uint64_t n = 0; n < N; ++n) {
      double ab = 0, abs_ab = 0;
      for (uint64_t k = 0; k < K; ++k) {
        const double p =
            av[a_transpose ? k * M + m : m * K + k] * bv[b_transpose ? n * K + k : k * N + n];
        ab += p;
        abs_ab += std::fabs(p);
      }
      const double cmn = cv[c_full ? m * N + n : n];
      const double exact = alpha * ab + beta * cmn;
      // gemm's two parts: |alpha| |A||B| and |beta| |C|, K + 1 terms (numerics.md).
      const double bound = SumBound(DataType::kFloat32, static_cast<double>(K + 1),
                                    std::fabs(alpha) * abs_ab + std::fabs(beta * cmn));
      if (!(std::fabs(static_cast<double>(y.At<float>(m * N + n)) - exact) <= bound)) ++bad;
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("vulkan native: gemm's alpha and beta, transposes and c broadcast") {
  CheckGemm(19, 13, 37, true, true, false);
  CheckGemm(19, 12, 36, false, false, false);  // the direct variant on CPU devices
  CheckGemm(70, 20, 136, false, false, true);
  CheckGemm(21, 16, 8, true, false, true);
}

// The textbook case of numerics.md: [1e8, 1, -1e8] . [1, 1, 1] is exactly 1; a float32
// accumulator in k order gives 0 (1e8 + 1 rounds to 1e8). The exact mode's compensated sum
// gives 1; the native mode gives 0, which the sum bound admits (6 u 2e8, about 72) and no ULP
// bound would.
TEST_CASE("vulkan native: accumulates in float32, where the exact mode does not") {
  Tensor a = Tensor::Allocate(DataType::kFloat32, {1, 3});
  Tensor b = Tensor::Allocate(DataType::kFloat32, {3, 1});
  const float av[3] = {1e8f, 1.0f, -1e8f};
  for (size_t i = 0; i < 3; ++i) {
    a.base<float>()[i] = av[i];
    b.base<float>()[i] = 1.0f;
  }
  const Make mm = [](GraphBuilder& g, const std::vector<Operand>& in) {
    return Matmul(g, in[0], in[1]);
  };
  CHECK(RunOn(Exact(), {a, b}, mm).At<float>(0) == 1.0f);
  const float native = RunOn(Native(), {a, b}, mm).At<float>(0);
  CHECK(native == 0.0f);
  CHECK(std::fabs(static_cast<double>(native) - 1.0) <= SumBound(DataType::kFloat32, 3, 2e8 + 1));
}

// On ordinary data the two modes differ in many elements (float32 rounding of every partial
// sum against one rounding of the exact sum), and both stay within the bound.
TEST_CASE("vulkan native: differs from the compensated result on random data") {
  const uint64_t M = 40, K = 1000, N = 24;
  std::vector<double> av, bv;
  const Tensor a = Pseudo(DataType::kFloat32, {M, K}, 11, 1, av);
  const Tensor b = Pseudo(DataType::kFloat32, {K, N}, 12, 1, bv);
  const Make mm = [](GraphBuilder& g, const std::vector<Operand>& in) {
    return Matmul(g, in[0], in[1]);
  };
  const Tensor native = RunOn(Native(), {a, b}, mm);
  const Tensor exact = RunOn(Exact(), {a, b}, mm);
  size_t differ = 0, bad = 0;
  for (uint64_t m = 0; m < M; ++m) {
    for (uint64_t n = 0; n < N; ++n) {
      double sum = 0, abs_sum = 0;
      for (uint64_t k = 0; k < K; ++k) {
        sum += av[m * K + k] * bv[k * N + n];
        abs_sum += std::fabs(av[m * K + k] * bv[k * N + n]);
      }
      const float got = native.At<float>(m * N + n);
      if (got != exact.At<float>(m * N + n)) ++differ;
      if (!(std::fabs(static_cast<double>(got) - sum) <=
            SumBound(DataType::kFloat32, static_cast<double>(K), abs_sum))) {
        ++bad;
      }
    }
  }
  MESSAGE(differ << " of " << M * N << " elements differ between native and exact");
  CHECK(differ > M * N / 4);
  CHECK(bad == 0);
}

// conv2d (nchw/oihw and nhwc/ohwi, padding, strides, dilations, groups, bias) and
// convTranspose2d against a direct double evaluation of the spec's definition.
struct ConvCase {
  uint64_t n, c, h, w, oc, kh, kw;
  uint32_t groups, stride, dilation, pad;
  bool nhwc;
};

void CheckConv(DataType type, const ConvCase& k) {
  CAPTURE(DataTypeName(type));
  CAPTURE(k.c);
  CAPTURE(k.oc);
  CAPTURE(k.groups);
  CAPTURE(k.stride);
  CAPTURE(k.nhwc);
  const uint64_t fc = k.c / k.groups;
  std::vector<double> xv, wv, bv;
  // Logical nchw / oihw index helpers; the tensors are laid out per the layouts.
  const Shape xs = k.nhwc ? Shape{k.n, k.h, k.w, k.c} : Shape{k.n, k.c, k.h, k.w};
  const Shape ws = k.nhwc ? Shape{k.oc, k.kh, k.kw, fc} : Shape{k.oc, fc, k.kh, k.kw};
  const Tensor x = Pseudo(type, xs, 21, 1, xv);
  const Tensor w = Pseudo(type, ws, 22, 1, wv);
  const Tensor bias = Pseudo(type, {k.oc}, 23, 1, bv);
  auto X = [&](uint64_t b, uint64_t c, uint64_t y, uint64_t xx) {
    return k.nhwc ? xv[((b * k.h + y) * k.w + xx) * k.c + c]
                  : xv[((b * k.c + c) * k.h + y) * k.w + xx];
  };
  auto W = [&](uint64_t o, uint64_t i, uint64_t y, uint64_t xx) {
    return k.nhwc ? wv[((o * k.kh + y) * k.kw + xx) * fc + i]
                  : wv[((o * fc + i) * k.kh + y) * k.kw + xx];
  };
  const Tensor out =
      RunOn(Native(), {x, w, bias}, [&](GraphBuilder& g, const std::vector<Operand>& in) {
        MLConv2dOptions o;
        o.padding = std::vector<uint32_t>{k.pad, k.pad, k.pad, k.pad};
        o.strides = std::vector<uint32_t>{k.stride, k.stride};
        o.dilations = std::vector<uint32_t>{k.dilation, k.dilation};
        o.groups = k.groups;
        o.inputLayout = k.nhwc ? MLInputOperandLayout::kNhwc : MLInputOperandLayout::kNchw;
        o.filterLayout =
            k.nhwc ? MLConv2dFilterOperandLayout::kOhwi : MLConv2dFilterOperandLayout::kOihw;
        o.bias = in[2];
        return Conv2d(g, in[0], in[1], o);
      });
  const uint64_t ekh = (k.kh - 1) * k.dilation + 1, ekw = (k.kw - 1) * k.dilation + 1;
  const uint64_t oh = (k.h + 2 * k.pad - ekh) / k.stride + 1,
                 ow = (k.w + 2 * k.pad - ekw) / k.stride + 1;
  REQUIRE(out.element_count() == k.n * k.oc * oh * ow);
  size_t bad = 0;
  for (uint64_t b = 0; b < k.n; ++b) {
    for (uint64_t o = 0; o < k.oc; ++o) {
      const uint64_t g = o / (k.oc / k.groups);
      for (uint64_t y = 0; y < oh; ++y) {
        for (uint64_t xx = 0; xx < ow; ++xx) {
          double sum = bv[o], abs_sum = std::fabs(bv[o]);
          for (uint64_t i = 0; i < fc; ++i) {
            for (uint64_t ky = 0; ky < k.kh; ++ky) {
              for (uint64_t kx = 0; kx < k.kw; ++kx) {
                const int64_t iy = static_cast<int64_t>(y * k.stride + ky * k.dilation) - k.pad;
                const int64_t ix = static_cast<int64_t>(xx * k.stride + kx * k.dilation) - k.pad;
                if (iy < 0 || ix < 0 || iy >= static_cast<int64_t>(k.h) ||
                    ix >= static_cast<int64_t>(k.w)) {
                  continue;  // padding contributes nothing
                }
                const double p =
                    X(b, g * fc + i, static_cast<uint64_t>(iy), static_cast<uint64_t>(ix)) *
                    W(o, i, ky, kx);
                sum += p;
                abs_sum += std::fabs(p);
              }
            }
          }
          const size_t e =
              k.nhwc ? ((b * oh + y) * ow + xx) * k.oc + o : ((b * k.oc + o) * oh + y) * ow + xx;
          const double terms = static_cast<double>(fc * k.kh * k.kw + 1);
          if (!(std::fabs(ValueAt(out, e) - sum) <= SumBound(type, terms, abs_sum))) ++bad;
        }
      }
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("vulkan native: conv2d within the sum bound (implicit GEMM)") {
  for (const DataType type : {DataType::kFloat32, DataType::kFloat16}) {
    CheckConv(type, {1, 3, 9, 11, 5, 3, 3, 1, 1, 1, 1, false});
    CheckConv(type, {2, 8, 12, 10, 20, 3, 2, 2, 2, 1, 1, true});
    CheckConv(type, {1, 6, 13, 13, 6, 3, 3, 6, 1, 2, 2, false});  // depthwise, dilated
    CheckConv(type, {1, 40, 7, 7, 33, 1, 1, 1, 1, 1, 0, true});   // k = 40: five k steps
    // The direct variant's tiles (float32 on CPU devices; 128 pixels by 64 channels on
    // lavapipe): ragged both ways, a channel count not a multiple of 4, groups of 35 channels.
    CheckConv(type, {1, 8, 10, 13, 70, 3, 3, 1, 1, 1, 1, false});
    CheckConv(type, {2, 6, 9, 8, 70, 2, 3, 2, 2, 1, 0, true});
    // 4 | input channels per group: the direct variant reads a channels-last input as vec4s
    // (an nchw input transposed by the host), k = (ky, kx, channel).
    CheckConv(type, {1, 8, 6, 7, 12, 3, 3, 2, 1, 2, 2, false});
    CheckConv(type, {2, 4, 5, 6, 8, 3, 3, 1, 2, 1, 1, false});
  }
}

// The two variants of the GEMM shaders (NNREF_VULKAN_GEMM=tiled|direct, gemm_variant.cc) both
// sum each output's products with fma in k order from the same start (-0 for matmul, +0 for
// conv2d, whose zero padding is a product with 0 in both), so they agree bit for bit; for
// conv2d with input channels per group not a multiple of 4 (with a multiple of 4 the direct
// variant sums in (ky, kx, channel) order, checked against the sum bound above).
TEST_CASE("vulkan native: the direct and tiled GEMM variants agree bit for bit") {
  const char* saved = std::getenv("NNREF_VULKAN_GEMM");
  const std::string restore = saved == nullptr ? "" : saved;
  auto both = [](const std::vector<Tensor>& inputs, const Make& make) {
    setenv("NNREF_VULKAN_GEMM", "direct", 1);
    const Tensor direct = RunOn(Native(), inputs, make);
    setenv("NNREF_VULKAN_GEMM", "tiled", 1);
    const Tensor tiled = RunOn(Native(), inputs, make);
    REQUIRE(direct.element_count() == tiled.element_count());
    size_t differ = 0;
    for (uint64_t i = 0; i < direct.element_count(); ++i) {
      uint32_t d = 0, t = 0;
      std::memcpy(&d, &direct.base<float>()[i], 4);
      std::memcpy(&t, &tiled.base<float>()[i], 4);
      if (d != t) ++differ;
    }
    CHECK(differ == 0);
  };
  std::vector<double> v;
  both({Pseudo(DataType::kFloat32, {2, 130, 68}, 31, 2, v),
        Pseudo(DataType::kFloat32, {68, 72}, 32, 1, v)},
       [](GraphBuilder& g, const std::vector<Operand>& in) { return Matmul(g, in[0], in[1]); });
  both({Pseudo(DataType::kFloat32, {1, 6, 10, 13}, 33, 1, v),
        Pseudo(DataType::kFloat32, {70, 6, 3, 3}, 34, 1, v)},
       [](GraphBuilder& g, const std::vector<Operand>& in) {
         MLConv2dOptions o;
         o.padding = std::vector<uint32_t>{1, 2, 1, 0};
         return Conv2d(g, in[0], in[1], o);
       });
  // The tiled variant when forced also on shapes the direct one takes; an unknown value is an
  // error naming the variable.
  setenv("NNREF_VULKAN_GEMM", "fast", 1);
  CHECK_THROWS_WITH_AS(RunOn(Native(),
                             {Pseudo(DataType::kFloat32, {4, 4}, 35, 1, v),
                              Pseudo(DataType::kFloat32, {4, 4}, 36, 1, v)},
                             [](GraphBuilder& g, const std::vector<Operand>& in) {
                               return Matmul(g, in[0], in[1]);
                             }),
                       doctest::Contains("NNREF_VULKAN_GEMM"), std::exception);
  if (saved == nullptr) {
    unsetenv("NNREF_VULKAN_GEMM");
  } else {
    setenv("NNREF_VULKAN_GEMM", restore.c_str(), 1);
  }
}

// convTranspose2d through the same shader: against the scatter form of its definition.
TEST_CASE("vulkan native: convTranspose2d within the sum bound") {
  const uint64_t C = 4, H = 5, W = 6, OC = 3, KH = 3, KW = 3, S = 2;
  std::vector<double> xv, wv;
  const Tensor x = Pseudo(DataType::kFloat32, {1, C, H, W}, 31, 1, xv);
  const Tensor w = Pseudo(DataType::kFloat32, {C, OC, KH, KW}, 32, 1, wv);  // iohw
  const Tensor y = RunOn(Native(), {x, w}, [&](GraphBuilder& g, const std::vector<Operand>& in) {
    MLConvTranspose2dOptions o;
    o.strides = std::vector<uint32_t>{S, S};
    o.padding = std::vector<uint32_t>{1, 1, 1, 1};
    return ConvTranspose2d(g, in[0], in[1], o);
  });
  const uint64_t OH = (H - 1) * S + KH - 2, OW = (W - 1) * S + KW - 2;
  REQUIRE(y.shape() == Shape{1, OC, OH, OW});
  std::vector<double> sum(OC * OH * OW, 0), abs_sum(OC * OH * OW, 0), terms(OC * OH * OW, 0);
  for (uint64_t c = 0; c < C; ++c) {
    for (uint64_t iy = 0; iy < H; ++iy) {
      for (uint64_t ix = 0; ix < W; ++ix) {
        for (uint64_t o = 0; o < OC; ++o) {
          for (uint64_t ky = 0; ky < KH; ++ky) {
            for (uint64_t kx = 0; kx < KW; ++kx) {
              const int64_t oy = static_cast<int64_t>(iy * S + ky) - 1;
              const int64_t ox = static_cast<int64_t>(ix * S + kx) - 1;
              if (oy < 0 || ox < 0 || oy >= static_cast<int64_t>(OH) ||
                  ox >= static_cast<int64_t>(OW)) {
                continue;
              }
              const size_t e =
                  (o * OH + static_cast<uint64_t>(oy)) * OW + static_cast<uint64_t>(ox);
              const double p = xv[(c * H + iy) * W + ix] * wv[((c * OC + o) * KH + ky) * KW + kx];
              sum[e] += p;
              abs_sum[e] += std::fabs(p);
              terms[e] += 1;
            }
          }
        }
      }
    }
  }
  size_t bad = 0;
  for (size_t e = 0; e < sum.size(); ++e) {
    if (!(std::fabs(static_cast<double>(y.At<float>(e)) - sum[e]) <=
          SumBound(DataType::kFloat32, std::max(terms[e], 1.0), abs_sum[e]))) {
      ++bad;
    }
  }
  CHECK(bad == 0);
}

double UlpsApart(float a, double exact) {
  const float e = static_cast<float>(exact);
  if (a == e) return 0;
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &e, 4);
  if ((ia < 0) != (ib < 0)) return 1e9;
  return std::fabs(static_cast<double>(ia) - static_cast<double>(ib));
}

// log is the builtin in the native mode (subnormal inputs scaled first): within its tolerance,
// 3 ULP or 2^-21 absolute (tolerance_table.cc), over the whole float32 range including subnormal
// inputs and the neighbourhood of x = 1, where the builtin's error is absolute.
TEST_CASE("vulkan native: builtin log within its tolerance") {
  std::vector<float> x;
  for (int e = -149; e < 128; ++e) {
    for (const double m : {1.0, 1.1, 1.37, 1.5, 1.75, 1.999})
      x.push_back(std::ldexp(1.0f, e) * static_cast<float>(m));
  }
  for (double v = 0.5; v <= 2.0; v += 1.0 / 4096) x.push_back(static_cast<float>(v));
  Tensor t = Tensor::Allocate(DataType::kFloat32, {x.size()});
  std::memcpy(t.base<float>(), x.data(), x.size() * sizeof(float));
  const Tensor y = RunOn(Native(), {t}, [](GraphBuilder& g, const std::vector<Operand>& in) {
    return ElementwiseUnary(g, UnaryOp::kLog, in[0]);
  });
  double max_ulp = 0, max_abs_near_1 = 0;
  size_t bad = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i])) continue;
    const double exact = std::log(static_cast<double>(x[i]));
    const float got = y.At<float>(i);
    const double ulp = UlpsApart(got, exact), abs = std::fabs(static_cast<double>(got) - exact);
    if (ulp <= 3 || abs <= 0x1p-21) {
      if (std::fabs(static_cast<double>(x[i]) - 1) >= 0.5)
        max_ulp = std::max(max_ulp, ulp);
      else
        max_abs_near_1 = std::max(max_abs_near_1, abs);
    } else if (++bad <= 5) {
      MESSAGE("log(" << x[i] << "): got " << got << ", exact " << exact);
    }
  }
  MESSAGE("native log: max " << max_ulp << " ulp for |x - 1| >= 1/2, max abs " << max_abs_near_1
                             << " nearer 1");
  CHECK(bad == 0);
}

// softmax and layerNormalization by workgroup reductions (one workgroup per run): against double
// evaluations of their definitions, within the tolerance table's ULP (softmax 3 + 3 x run,
// layerNormalization 840), on runs longer than a workgroup and not a multiple of 64.
TEST_CASE("vulkan native: softmax and layerNormalization by workgroup reductions") {
  const uint64_t rows = 5, run = 1000;
  std::vector<double> xv;
  const Tensor x = Pseudo(DataType::kFloat32, {rows, run}, 41, 8, xv);
  const Tensor sm = RunOn(Native(), {x}, [](GraphBuilder& g, const std::vector<Operand>& in) {
    return Softmax(g, in[0], 1);
  });
  const Tensor ln = RunOn(Native(), {x}, [](GraphBuilder& g, const std::vector<Operand>& in) {
    MLLayerNormalizationOptions o;
    o.axes = std::vector<uint32_t>{1};
    return LayerNormalization(g, in[0], o);
  });
  double sm_ulp = 0, ln_ulp = 0;
  for (uint64_t r = 0; r < rows; ++r) {
    double m = -INFINITY, sum = 0, mean = 0, var = 0;
    for (uint64_t i = 0; i < run; ++i) m = std::max(m, xv[r * run + i]);
    for (uint64_t i = 0; i < run; ++i) sum += std::exp(xv[r * run + i] - m);
    for (uint64_t i = 0; i < run; ++i) mean += xv[r * run + i] / static_cast<double>(run);
    for (uint64_t i = 0; i < run; ++i) {
      var += (xv[r * run + i] - mean) * (xv[r * run + i] - mean) / static_cast<double>(run);
    }
    for (uint64_t i = 0; i < run; ++i) {
      const size_t e = r * run + i;
      sm_ulp = std::max(sm_ulp, UlpsApart(sm.At<float>(e), std::exp(xv[e] - m) / sum));
      ln_ulp = std::max(ln_ulp, UlpsApart(ln.At<float>(e), (xv[e] - mean) / std::sqrt(var + 1e-5)));
    }
  }
  MESSAGE("native softmax: max " << sm_ulp << " ulp; layerNormalization: max " << ln_ulp << " ulp");
  CHECK(sm_ulp <= 3 + 3 * static_cast<double>(run));
  CHECK(ln_ulp <= 840);
}

// The reductions by workgroup (reduce_native.comp: each of 64 invocations sums the strided part
// l, l + 64, ... of the run in float32, then the 64 partials are combined, by subgroup arithmetic
// or a shared-memory tree; vulkan_native_test.shared_tree runs these cases again with the tree,
// NNREF_VULKAN_SUBGROUP_ARITHMETIC=off). Against double evaluations written here, within the
// bound of that summation: ceil(run / 64) additions per partial and 6 levels of the tree (at most
// 64 serial additions for the subgroup results), each rounding at most u times the sum of
// |terms| (SumBound's T, 2 per term, covers it twice over).
double RowBound(uint64_t run, double abs_sum) {
  return SumBound(DataType::kFloat32, static_cast<double>((run + 63) / 64 + 64), abs_sum);
}

Tensor Reduced(const Tensor& x, ReduceOp op, std::vector<uint32_t> axes) {
  return RunOn(Native(), {x}, [&](GraphBuilder& g, const std::vector<Operand>& in) {
    MLReduceOptions o;
    o.axes = axes;
    return Reduce(g, op, in[0], o);
  });
}

TEST_CASE("vulkan native: reductions by workgroup over long runs") {
  const uint64_t rows = 3, run = 100003;  // not a multiple of 64
  std::vector<double> xv;
  const Tensor x = Pseudo(DataType::kFloat32, {rows, run}, 77, 1, xv);
  const Tensor sum = Reduced(x, ReduceOp::kSum, {1});
  const Tensor mean = Reduced(x, ReduceOp::kMean, {1});
  const Tensor l1 = Reduced(x, ReduceOp::kL1, {1});
  const Tensor sq = Reduced(x, ReduceOp::kSumSquare, {1});
  const Tensor l2 = Reduced(x, ReduceOp::kL2, {1});
  const Tensor lse = Reduced(x, ReduceOp::kLogSumExp, {1});
  const Tensor mx = Reduced(x, ReduceOp::kMax, {1});
  const Tensor mn = Reduced(x, ReduceOp::kMin, {1});
  const double u = std::ldexp(1.0, -24), n = static_cast<double>(run);
  for (uint64_t r = 0; r < rows; ++r) {
    CAPTURE(r);
    double s = 0, a = 0, s2 = 0, m = -INFINITY, lo = INFINITY;
    for (uint64_t i = 0; i < run; ++i) {
      const double v = xv[r * run + i];
      s += v;
      a += std::fabs(v);
      s2 += v * v;
      m = std::max(m, v);
      lo = std::min(lo, v);
    }
    double e = 0;
    for (uint64_t i = 0; i < run; ++i) e += std::exp(xv[r * run + i] - m);
    const auto got = [&](const Tensor& t) { return static_cast<double>(t.At<float>(r)); };
    CHECK(std::fabs(got(sum) - s) <= RowBound(run, a));
    CHECK(std::fabs(got(mean) - s / n) <= RowBound(run, a) / n + u * std::fabs(s / n));
    CHECK(std::fabs(got(l1) - a) <= RowBound(run, a));
    CHECK(std::fabs(got(sq) - s2) <= RowBound(run, s2));
    // sqrt halves the relative error of the sum of squares, then rounds.
    CHECK(std::fabs(got(l2) - std::sqrt(s2)) <= (RowBound(run, s2) / s2 / 2 + u) * std::sqrt(s2));
    // log(sum e^(x - m)): the sum's relative error (plus Exp's 3 ULP per term) as an absolute
    // error of its log, then m + log rounds.
    CHECK(std::fabs(got(lse) - (m + std::log(e))) <=
          RowBound(run, e) / e + 3 * u + 2 * u * std::fabs(m + std::log(e)));
    CHECK(got(mx) == m);  // selection: exact
    CHECK(got(mn) == lo);
  }
}

// Integers in [-8, 8): every float32 partial and the total are exact, so the result is exact
// whatever the order: bit for bit, over a run moved last (axes 0 and 2, on the device) too.
TEST_CASE("vulkan native: reductions of exactly summable data, bit for bit") {
  const Shape shape{64, 3, 50};
  Tensor x = Tensor::Allocate(DataType::kFloat32, shape);
  uint32_t seed = 5;
  for (size_t i = 0; i < x.element_count(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    x.base<float>()[i] = static_cast<float>(static_cast<int>((seed >> 16) % 16) - 8);
  }
  const Tensor sum = Reduced(x, ReduceOp::kSum, {0, 2});
  const Tensor sq = Reduced(x, ReduceOp::kSumSquare, {0, 2});
  const Tensor last = Reduced(x, ReduceOp::kSum, {1, 2});  // on the device, not moved
  for (uint64_t c = 0; c < 3; ++c) {
    double s = 0, s2 = 0;
    for (uint64_t a = 0; a < 64; ++a) {
      for (uint64_t w = 0; w < 50; ++w) {
        const double v = static_cast<double>(x.At<float>((a * 3 + c) * 50 + w));
        s += v;
        s2 += v * v;
      }
    }
    CHECK(static_cast<double>(sum.At<float>(c)) == s);
    CHECK(static_cast<double>(sq.At<float>(c)) == s2);
  }
  for (uint64_t a = 0; a < 64; ++a) {
    double s = 0;
    for (size_t i = 0; i < 150; ++i) s += static_cast<double>(x.At<float>(a * 150 + i));
    CHECK(static_cast<double>(last.At<float>(a)) == s);
  }
}

// Special values across invocations: a NaN anywhere in a long run propagates through max, min and
// sum; max prefers +0 to -0 and min -0 to +0 (the reference's choice); a sum of -0s is -0 (the
// sum starts from -0, the identity of IEEE addition) with the shared-memory tree; subgroupAdd's
// sign of a zero sum is the device's (lavapipe's is +0, also when every lane adds -0).
TEST_CASE("vulkan native: reductions' NaN and signed zeros across the workgroup") {
  const uint64_t run = 1000;
  Tensor x = Tensor::Allocate(DataType::kFloat32, {4, run});
  for (uint64_t i = 0; i < run; ++i) {
    x.base<float>()[i] = static_cast<float>(i % 7) - 3.0f;                          // row 0: NaN
    x.base<float>()[run + i] = (i % 2) != 0 ? 0.0f : -0.0f;                         // row 1: +-0
    x.base<float>()[2 * run + i] = -0.0f;                                           // row 2: -0
    x.base<float>()[3 * run + i] = -1.0f / static_cast<float>(1 + (i * 37) % 101);  // row 3
  }
  x.base<float>()[777] = NAN;
  const Tensor mx = Reduced(x, ReduceOp::kMax, {1});
  const Tensor mn = Reduced(x, ReduceOp::kMin, {1});
  const Tensor sum = Reduced(x, ReduceOp::kSum, {1});
  CHECK(std::isnan(mx.At<float>(0)));
  CHECK(std::isnan(mn.At<float>(0)));
  CHECK(std::isnan(sum.At<float>(0)));
  CHECK(mx.At<float>(1) == 0.0f);
  CHECK_FALSE(std::signbit(mx.At<float>(1)));
  CHECK(std::signbit(mn.At<float>(1)));
  const char* subgroup = std::getenv("NNREF_VULKAN_SUBGROUP_ARITHMETIC");
  if (subgroup != nullptr && std::string(subgroup) == "off") CHECK(std::signbit(sum.At<float>(2)));
  CHECK(sum.At<float>(2) == 0.0f);
  CHECK(mx.At<float>(3) == -1.0f / 101.0f);
  CHECK(mn.At<float>(3) == -1.0f);
}

// Runs of at most 16 elements take one invocation per output (serial float32): 70000 runs of 7
// integers, summed exactly; max and min of runs with a NaN, or +-0.
TEST_CASE("vulkan native: short-run reductions, one invocation per output") {
  const uint64_t runs = 70000, run = 7;  // more than 65535 invocations' worth of workgroups
  Tensor x = Tensor::Allocate(DataType::kFloat32, {runs, run});
  uint32_t seed = 11;
  for (size_t i = 0; i < x.element_count(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    x.base<float>()[i] = static_cast<float>(static_cast<int>((seed >> 16) % 64) - 32);
  }
  x.base<float>()[3 * run + 2] = NAN;
  x.base<float>()[5 * run + 0] = -0.0f;
  for (uint64_t i = 1; i < run; ++i) x.base<float>()[5 * run + i] = i % 2 != 0 ? 0.0f : -0.0f;
  const Tensor sum = Reduced(x, ReduceOp::kSum, {1});
  const Tensor mx = Reduced(x, ReduceOp::kMax, {1});
  const Tensor mn = Reduced(x, ReduceOp::kMin, {1});
  size_t bad = 0;
  for (uint64_t r = 0; r < runs; ++r) {
    if (r == 3) continue;
    double s = 0, m = -INFINITY, lo = INFINITY;
    for (uint64_t i = 0; i < run; ++i) {
      const double v = static_cast<double>(x.At<float>(r * run + i));
      s += v;
      m = std::max(m, v);
      lo = std::min(lo, v);
    }
    if (static_cast<double>(sum.At<float>(r)) != s || static_cast<double>(mx.At<float>(r)) != m ||
        static_cast<double>(mn.At<float>(r)) != lo) {
      ++bad;
    }
  }
  CHECK(bad == 0);
  CHECK(std::isnan(sum.At<float>(3)));
  CHECK(std::isnan(mx.At<float>(3)));
  CHECK(std::isnan(mn.At<float>(3)));
  CHECK_FALSE(std::signbit(mx.At<float>(5)));
  CHECK(std::signbit(mn.At<float>(5)));
}

// reduceProduct: a run of 1000 factors 1 + j/64 (j in -6..6, exact) against the double product,
// within 2 u per rounding (ceil(run / 64) per partial plus 64 combining them); and a run whose
// first 500 factors are 2^100 and last 500 are 2^-100, 1 exactly, where a float32 product in run
// order overflows: the running product keeps its exponent apart.
TEST_CASE("vulkan native: reduceProduct over a workgroup") {
  const uint64_t run = 1000;
  Tensor x = Tensor::Allocate(DataType::kFloat32, {2, run});
  double expected = 1;
  for (uint64_t i = 0; i < run; ++i) {
    const float v = 1.0f + static_cast<float>(static_cast<int>(i % 13) - 6) / 64.0f;
    x.base<float>()[i] = v;
    expected *= static_cast<double>(v);
    x.base<float>()[run + i] = i < run / 2 ? std::ldexp(1.0f, 100) : std::ldexp(1.0f, -100);
  }
  const Tensor prod = Reduced(x, ReduceOp::kProduct, {1});
  const double got = static_cast<double>(prod.At<float>(0));
  CHECK(std::fabs(got - expected) <=
        2 * static_cast<double>(run / 64 + 1 + 64) * std::ldexp(1.0, -24) * expected);
  CHECK(prod.At<float>(1) == 1.0f);
}

// averagePool2d and l2Pool2d in plain float32 sums over a 20 x 20 window (400 terms, in window
// order: T = 400 roundings) against double; maxPool2d exact.
TEST_CASE("vulkan native: pools sum in float32") {
  std::vector<double> xv;
  const Tensor x = Pseudo(DataType::kFloat32, {1, 2, 20, 20}, 9, 4, xv);
  const auto pool = [&](PoolOp op) {
    return RunOn(Native(), {x}, [&](GraphBuilder& g, const std::vector<Operand>& in) {
      MLPool2dOptions o;
      o.windowDimensions = std::vector<uint32_t>{20, 20};
      return Pool2d(g, op, in[0], o);
    });
  };
  const Tensor avg = pool(PoolOp::kAverage), l2 = pool(PoolOp::kL2), mx = pool(PoolOp::kMax);
  const double u = std::ldexp(1.0, -24);
  for (uint64_t c = 0; c < 2; ++c) {
    double s = 0, a = 0, s2 = 0, m = -INFINITY;
    for (uint64_t i = 0; i < 400; ++i) {
      const double v = xv[c * 400 + i];
      s += v;
      a += std::fabs(v);
      s2 += v * v;
      m = std::max(m, v);
    }
    CHECK(std::fabs(static_cast<double>(avg.At<float>(c)) - s / 400) <=
          SumBound(DataType::kFloat32, 400, a) / 400 + u * std::fabs(s / 400));
    CHECK(std::fabs(static_cast<double>(l2.At<float>(c)) - std::sqrt(s2)) <=
          (SumBound(DataType::kFloat32, 400, s2) / s2 / 2 + u) * std::sqrt(s2));
    CHECK(static_cast<double>(mx.At<float>(c)) == m);
  }
}

}  // namespace
}  // namespace nnref
