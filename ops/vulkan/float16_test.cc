// The native arithmetic mode's two float16 paths (docs/vulkan.md#arithmetic-modes) on the first
// Vulkan device (lavapipe on CI, which has shaderFloat16), validation layer on: float16 computed
// in float16 (the default where the device has shaderFloat16: element-wise arithmetic in
// float16_t, matmul/gemm/conv2d accumulators in float16_t) and float16 computed in float32
// (NNREF_VULKAN_FLOAT16=float32, the path of a device without shaderFloat16). The expected values
// are computed here: step by step with the project's float16 rounding (numerics/float16.h, one
// round-to-nearest-even from double) for the float16 path, one rounding of the exact result for
// the float32 path. The data are chosen so that every product and every float32 partial sum is
// exact (multiples of 1/8 below 4: products of at most 11 significant bits), so that the
// expected bits do not depend on whether the driver fuses a float16 fma or rounds its product.
#include "numerics/float16.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ops/activations.h"
#include "ops/backend_testing.h"
#include "ops/conv2d.h"
#include "ops/elementwise_binary.h"
#include "ops/matmul_gemm.h"
#include "ops/normalization.h"
#include "ops/pool2d.h"
#include "ops/reduction.h"
#include "ops/softmax.h"
#include "ops/vulkan/vulkan_backend.h"
#include "ref/graph/graph.h"

namespace nnref {
namespace {

// A native-mode backend with NNREF_VULKAN_FLOAT16 set to `float16` (unset when empty).
std::shared_ptr<const Backend> MakeNative(const char* float16) {
  setenv("NNREF_VULKAN_VALIDATION", "1", 1);
  if (*float16 == '\0') {
    unsetenv("NNREF_VULKAN_FLOAT16");
  } else {
    setenv("NNREF_VULKAN_FLOAT16", float16, 1);
  }
  BackendOptions options;
  options.arithmetic = Arithmetic::kNative;
  std::shared_ptr<const Backend> b = MakeVulkanBackend(options);
  unsetenv("NNREF_VULKAN_FLOAT16");
  return b;
}

// float16 in float16 (the device's default: lavapipe has shaderFloat16) and in float32.
const std::shared_ptr<const Backend>& Half() {
  static const std::shared_ptr<const Backend> b = MakeNative("");
  return b;
}
const std::shared_ptr<const Backend>& Wide() {
  static const std::shared_ptr<const Backend> b = MakeNative("float32");
  return b;
}

using Make = std::function<Operand(GraphBuilder&, const std::vector<Operand>&)>;

double H(double x) { return Float16::FromDouble(x).ToDouble(); }

// A float16 tensor of the given values (each must be a float16 value).
Tensor HalfTensor(const Shape& shape, const std::vector<double>& values) {
  Tensor t = Tensor::Allocate(DataType::kFloat16, shape);
  REQUIRE(values.size() == t.element_count());
  for (size_t i = 0; i < values.size(); ++i) {
    t.base<Float16>()[i] = Float16::FromDouble(values[i]);
    REQUIRE(t.base<Float16>()[i].ToDouble() == values[i]);
  }
  return t;
}

// Multiples of 1/8 in [0, 4): every product of two is exact in float16 (at most 11 significant
// bits, no subnormal), every float32 sum of up to 2^12 of them exact.
std::vector<double> Eighths(size_t n, uint32_t seed) {
  std::vector<double> v(n);
  uint32_t s = seed;
  for (double& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<double>((s >> 16) % 32) / 8.0;
  }
  return v;
}

const Make kMatmul = [](GraphBuilder& g, const std::vector<Operand>& in) {
  return Matmul(g, in[0], in[1]);
};

TEST_CASE("vulkan float16: the backend line names the float16 path") {
  REQUIRE_FALSE(Half()->Unavailable());
  REQUIRE_FALSE(Wide()->Unavailable());
  CHECK(Half()->Describe().find("float16 computed in float16: shaderFloat16") != std::string::npos);
  CHECK(Wide()->Describe().find("float16 computed in float32: NNREF_VULKAN_FLOAT16=float32") !=
        std::string::npos);
  setenv("NNREF_VULKAN_FLOAT16", "native", 1);  // explicit: the same as the default here
  BackendOptions native;
  native.arithmetic = Arithmetic::kNative;
  CHECK(MakeVulkanBackend(native)->Describe().find("float16 computed in float16") !=
        std::string::npos);
  // The exact mode ignores the switch; a wrong value is an error naming the variable.
  CHECK(MakeVulkanBackend()->Describe().find("float16 computed") == std::string::npos);
  setenv("NNREF_VULKAN_FLOAT16", "half", 1);
  const std::shared_ptr<const Backend> bad = MakeVulkanBackend(native);
  unsetenv("NNREF_VULKAN_FLOAT16");
  REQUIRE(bad->Unavailable());
  CHECK(bad->Unavailable()->find("NNREF_VULKAN_FLOAT16 is 'half'") != std::string::npos);
}

// K ones: in float16, 2048 + 1 = 2049 lies halfway between 2048 and 2050 (the spacing is 2
// there) and rounds to the even 2048, so a float16 accumulator stops at 2048; a float32 one
// reaches 3000, a float16 value (even).
TEST_CASE("vulkan float16: a float16 accumulator stops at 2048") {
  const size_t K = 3000;
  const Tensor a = HalfTensor({1, K}, std::vector<double>(K, 1.0));
  const Tensor b = HalfTensor({K, 1}, std::vector<double>(K, 1.0));
  CHECK(RunOn(Half(), {a, b}, kMatmul).base<Float16>()[0].ToDouble() == 2048.0);
  CHECK(RunOn(Wide(), {a, b}, kMatmul).base<Float16>()[0].ToDouble() == 3000.0);
  // conv2d as an implicit GEMM over K = input channels x 1 x 1.
  const Tensor x = HalfTensor({1, K, 1, 1}, std::vector<double>(K, 1.0));
  const Tensor w = HalfTensor({1, K, 1, 1}, std::vector<double>(K, 1.0));
  const Make conv = [](GraphBuilder& g, const std::vector<Operand>& in) {
    return Conv2d(g, in[0], in[1]);
  };
  CHECK(RunOn(Half(), {x, w}, conv).base<Float16>()[0].ToDouble() == 2048.0);
  CHECK(RunOn(Wide(), {x, w}, conv).base<Float16>()[0].ToDouble() == 3000.0);
}

// matmul [M, K] x [K, N]: the float16 path bit for bit as acc = round16(acc + a b) in k order
// from -0; the float32 path as round16(exact sum).
void CheckMatmulSteps(size_t M, size_t K, size_t N) {
  CAPTURE(M);
  CAPTURE(K);
  CAPTURE(N);
  const std::vector<double> av = Eighths(M * K, static_cast<uint32_t>(M + 7 * K));
  const std::vector<double> bv = Eighths(K * N, static_cast<uint32_t>(N + 3));
  const Tensor a = HalfTensor({M, K}, av), b = HalfTensor({K, N}, bv);
  const Tensor half = RunOn(Half(), {a, b}, kMatmul);
  const Tensor wide = RunOn(Wide(), {a, b}, kMatmul);
  size_t bad_half = 0, bad_wide = 0, differ = 0;
  for (size_t m = 0; m < M; ++m) {
    for (size_t n = 0; n < N; ++n) {
      double acc = -0.0, exact = 0;
      for (size_t k = 0; k < K; ++k) {
        acc = H(acc + av[m * K + k] * bv[k * N + n]);
        exact += av[m * K + k] * bv[k * N + n];
      }
      const double got_half = half.base<Float16>()[m * N + n].ToDouble();
      const double got_wide = wide.base<Float16>()[m * N + n].ToDouble();
      if (got_half != acc && ++bad_half <= 5) {
        MESSAGE("float16 path [" << m << ", " << n << "]: got " << got_half << ", expected "
                                 << acc);
      }
      if (got_wide != H(exact) && ++bad_wide <= 5) {
        MESSAGE("float32 path [" << m << ", " << n << "]: got " << got_wide << ", expected "
                                 << H(exact));
      }
      if (acc != H(exact)) ++differ;
    }
  }
  CHECK(bad_half == 0);
  CHECK(bad_wide == 0);
  CHECK(differ > 0);  // the data make the two paths differ
}

TEST_CASE("vulkan float16: matmul accumulated in float16 step by step") {
  CheckMatmulSteps(5, 200, 3);
  CheckMatmulSteps(20, 37, 70);  // ragged k step (8), several column tiles
  CheckMatmulSteps(130, 64, 9);  // more than one row tile
}

// gemm: the float16 sum, then alpha sum + beta c in float32, rounded once.
TEST_CASE("vulkan float16: gemm's sum in float16, its epilogue rounded once") {
  const size_t M = 3, K = 300, N = 4;
  const std::vector<double> av = Eighths(M * K, 5), bv = Eighths(K * N, 6);
  const std::vector<double> cv = Eighths(N, 7);
  const Tensor a = HalfTensor({M, K}, av), b = HalfTensor({K, N}, bv), c = HalfTensor({N}, cv);
  const Make gemm = [](GraphBuilder& g, const std::vector<Operand>& in) {
    MLGemmOptions o;
    o.c = in[2];
    o.alpha = 0.5;
    o.beta = 2;
    return Gemm(g, in[0], in[1], o);
  };
  const Tensor half = RunOn(Half(), {a, b, c}, gemm);
  for (size_t m = 0; m < M; ++m) {
    for (size_t n = 0; n < N; ++n) {
      double acc = -0.0;
      for (size_t k = 0; k < K; ++k) acc = H(acc + av[m * K + k] * bv[k * N + n]);
      // 0.5 acc and 2 c are exact; their float32 sum is exact too (eighths below 2^12).
      CHECK(half.base<Float16>()[m * N + n].ToDouble() == H(0.5 * acc + 2 * cv[n]));
    }
  }
}

// conv2d (nchw, oihw, no padding): k runs over (input channel, ky, kx) in the tiled GEMM; the
// sum starts at +0 and the bias is added to it at the end (float32, one rounding).
TEST_CASE("vulkan float16: conv2d accumulated in float16 step by step") {
  const size_t C = 24, H_ = 5, W = 4, O = 3, KH = 3, KW = 2;
  const size_t OH = H_ - KH + 1, OW = W - KW + 1;
  const std::vector<double> xv = Eighths(C * H_ * W, 21), wv = Eighths(O * C * KH * KW, 22);
  const std::vector<double> bias = Eighths(O, 23);
  const Tensor x = HalfTensor({1, C, H_, W}, xv), w = HalfTensor({O, C, KH, KW}, wv);
  const Tensor bt = HalfTensor({O}, bias);
  const Make conv = [](GraphBuilder& g, const std::vector<Operand>& in) {
    MLConv2dOptions o;
    o.bias = in[2];
    return Conv2d(g, in[0], in[1], o);
  };
  const Tensor half = RunOn(Half(), {x, w, bt}, conv);
  const Tensor wide = RunOn(Wide(), {x, w, bt}, conv);
  REQUIRE(half.shape() == Shape{1, O, OH, OW});
  size_t differ = 0;
  for (size_t o = 0; o < O; ++o) {
    for (size_t oy = 0; oy < OH; ++oy) {
      for (size_t ox = 0; ox < OW; ++ox) {
        double acc = 0, exact = 0;
        for (size_t c = 0; c < C; ++c) {
          for (size_t ky = 0; ky < KH; ++ky) {
            for (size_t kx = 0; kx < KW; ++kx) {
              const double p =
                  xv[(c * H_ + oy + ky) * W + ox + kx] * wv[((o * C + c) * KH + ky) * KW + kx];
              acc = H(acc + p);
              exact += p;
            }
          }
        }
        const size_t e = (o * OH + oy) * OW + ox;
        CAPTURE(e);
        CHECK(half.base<Float16>()[e].ToDouble() == H(acc + bias[o]));
        CHECK(wide.base<Float16>()[e].ToDouble() == H(exact + bias[o]));
        if (H(acc + bias[o]) != H(exact + bias[o])) ++differ;
      }
    }
  }
  CHECK(differ > 0);
}

// Every finite float16 value of one sign: the first 31744 bit patterns (0 .. 0x7bff), and their
// negatives.
std::vector<double> FiniteHalves() {
  std::vector<double> v;
  for (uint16_t bits = 0; bits < 0x7c00; ++bits) {
    v.push_back(Float16::FromBits(bits).ToDouble());
    v.push_back(Float16::FromBits(static_cast<uint16_t>(bits | 0x8000)).ToDouble());
  }
  return v;
}

// softsign x / (1 + |x|): the float16 path rounds 1 + |x| to float16 first, then the quotient;
// the float32 path has 1 + |x| exact and rounds the quotient once (float32 then float16: the
// double rounding is innocuous for a quotient, 24 >= 2 x 11 + 2). Hand case: x = 1 + 2^-10,
// 1 + x = 2 + 2^-10 halfway between the float16 values 2 and 2 + 2^-9, rounds to 2, and x / 2 =
// 0.5 + 2^-11 is exact; the exact quotient 0.5 (1 + 2^-10) / (1 + 2^-11) lies just below
// 0.5 + 2^-12, the midpoint, so the float32 path gives 0.5.
TEST_CASE("vulkan float16: softsign in float16 over every finite half") {
  const std::vector<double> xs = FiniteHalves();
  const Tensor x = HalfTensor({xs.size()}, xs);
  const Make softsign = [](GraphBuilder& g, const std::vector<Operand>& in) {
    return Softsign(g, in[0]);
  };
  const Tensor half = RunOn(Half(), {x}, softsign);
  const Tensor wide = RunOn(Wide(), {x}, softsign);
  size_t bad_half = 0, bad_wide = 0, differ = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double v = xs[i];
    const double expect_half = H(v / H(1 + std::fabs(v)));
    const double expect_wide = H(v / (1 + std::fabs(v)));
    if (half.base<Float16>()[i].ToDouble() != expect_half && ++bad_half <= 5) {
      MESSAGE("float16 path x = " << v << ": got " << half.base<Float16>()[i].ToDouble()
                                  << ", expected " << expect_half);
    }
    if (wide.base<Float16>()[i].ToDouble() != expect_wide && ++bad_wide <= 5) {
      MESSAGE("float32 path x = " << v << ": got " << wide.base<Float16>()[i].ToDouble()
                                  << ", expected " << expect_wide);
    }
    if (expect_half != expect_wide) ++differ;
  }
  CHECK(bad_half == 0);
  CHECK(bad_wide == 0);
  CHECK(differ > 0);
  const Tensor one = HalfTensor({1}, {1 + std::ldexp(1.0, -10)});
  CHECK(RunOn(Half(), {one}, softsign).base<Float16>()[0].ToDouble() == 0.5 + std::ldexp(1, -11));
  CHECK(RunOn(Wide(), {one}, softsign).base<Float16>()[0].ToDouble() == 0.5);
}

// add, mul, div: one float16 operation, correctly rounded in float16 on both paths (a float32
// result of float16 operands rounded to float16 is the correctly rounded float16 result), so the
// two paths agree bit for bit; checked against one rounding of the exact result.
TEST_CASE("vulkan float16: add, mul and div correctly rounded on both paths") {
  std::vector<double> av, bv;
  uint32_t s = 99;
  for (size_t i = 0; i < 4096; ++i) {
    s = s * 1664525u + 1013904223u;
    const uint16_t ab = static_cast<uint16_t>(s >> 16) & 0x7bff;  // finite
    s = s * 1664525u + 1013904223u;
    const uint16_t bb = static_cast<uint16_t>(s >> 16);
    av.push_back(Float16::FromBits(ab).ToDouble());
    // b: finite, nonzero (no Inf/NaN results to compare)
    const uint16_t bf = (bb & 0x7c00) == 0x7c00 ? static_cast<uint16_t>(bb & 0x83ff) : bb;
    bv.push_back((bf & 0x7fff) == 0 ? 1.0 : Float16::FromBits(bf).ToDouble());
  }
  const Tensor a = HalfTensor({av.size()}, av), b = HalfTensor({bv.size()}, bv);
  for (const BinaryOp op : {BinaryOp::kAdd, BinaryOp::kMul, BinaryOp::kDiv}) {
    const Make make = [op](GraphBuilder& g, const std::vector<Operand>& in) {
      return ElementwiseBinary(g, op, in[0], in[1]);
    };
    const Tensor half = RunOn(Half(), {a, b}, make);
    const Tensor wide = RunOn(Wide(), {a, b}, make);
    size_t bad = 0;
    for (size_t i = 0; i < av.size(); ++i) {
      const double exact = op == BinaryOp::kAdd   ? av[i] + bv[i]
                           : op == BinaryOp::kMul ? av[i] * bv[i]
                                                  : av[i] / bv[i];
      // The double result of the sum and the product is exact (11-bit significands within
      // double's range); the quotient's double rounding to float16 is innocuous.
      const double expect = H(exact);
      const double h = half.base<Float16>()[i].ToDouble(), w = wide.base<Float16>()[i].ToDouble();
      const bool same = (h == expect || (std::isnan(h) && std::isnan(expect))) &&
                        (w == expect || (std::isnan(w) && std::isnan(expect)));
      if (!same && ++bad <= 5) {
        MESSAGE(static_cast<int>(op) << ": " << av[i] << ", " << bv[i] << ": float16 path " << h
                                     << ", float32 path " << w << ", expected " << expect);
      }
    }
    CHECK(bad == 0);
  }
}

// The reductions and pools accumulate float16 in float32 on both paths (production float16
// reductions do): reduceSum of 1 followed by 1000 x 2^-12 is 1 + 1000 / 4096 = 1.244140625, a
// float16 value, exactly (every float32 partial is exact); a float16 accumulator would drop the
// 2^-12s added to 1 (half its spacing, 2^-10 there, is 2^-11). reduceMean of 70000 ones is 1: the
// sum exceeds float16's largest value (65504), so a float16 accumulator would give Infinity. An
// averagePool2d of a 60 x 50 window of ones is 1 (a float16 sum stops at 2048). maxPool2d and
// reduceMax select float16 values exactly.
TEST_CASE("vulkan float16: reductions and pools accumulate in float32") {
  std::vector<double> v(1001, std::ldexp(1.0, -12));
  v[0] = 1.0;
  const Tensor x = HalfTensor({1001}, v);
  const Tensor ones = HalfTensor({70000}, std::vector<double>(70000, 1.0));
  const Tensor window = HalfTensor({1, 1, 60, 50}, std::vector<double>(3000, 1.0));
  for (const auto* backend : {&Half(), &Wide()}) {
    const auto reduce = [&](const Tensor& t, ReduceOp op) {
      return RunOn(*backend, {t}, [op](GraphBuilder& g, const std::vector<Operand>& in) {
        return Reduce(g, op, in[0]);
      });
    };
    CHECK(reduce(x, ReduceOp::kSum).base<Float16>()[0].ToDouble() == 1.244140625);
    CHECK(reduce(ones, ReduceOp::kMean).base<Float16>()[0].ToDouble() == 1.0);
    CHECK(reduce(x, ReduceOp::kMax).base<Float16>()[0].ToDouble() == 1.0);
    CHECK(reduce(x, ReduceOp::kMin).base<Float16>()[0].ToDouble() == std::ldexp(1.0, -12));
    const Tensor avg =
        RunOn(*backend, {window}, [](GraphBuilder& g, const std::vector<Operand>& in) {
          return Pool2d(g, PoolOp::kAverage, in[0]);
        });
    CHECK(avg.base<Float16>()[0].ToDouble() == 1.0);
  }
}

// softmax of float16 in float16: x - m rounded to float16 before the exponential. x = [8,
// -1 + 2^-8]: x - m = -8.99609375, halfway between the float16 values -9 and -8.9921875 (spacing
// 2^-7), rounds to the even -9; e^-9 rounded to float16, the float32 sum 1 + e, and the quotient
// rounded to float16. The float32 path computes e^-8.99609375 (0.39% larger: about 8 float16
// ULP). Expected values within a float16 ULP (the float32 exponential is within a few float32
// ULP before its rounding to float16).
TEST_CASE("vulkan float16: softmax's x - max and e^ in float16, the sum in float32") {
  const Tensor x = HalfTensor({1, 2}, {8.0, -1.0 + std::ldexp(1.0, -8)});
  const Make softmax = [](GraphBuilder& g, const std::vector<Operand>& in) {
    return Softmax(g, in[0], 1);
  };
  const double half_path_e = H(std::exp(-9.0));
  const float sum = static_cast<float>(1.0 + half_path_e);
  const double half_path = H(static_cast<double>(static_cast<float>(half_path_e) / sum));
  const double d = -8.99609375, wide_e = std::exp(d);
  const double wide_path = H(wide_e / (1.0 + wide_e));
  const double ulp = std::ldexp(1.0, -23);  // float16 spacing at 1.2e-4 (2^-14 .. 2^-13)
  const double got_half = RunOn(Half(), {x}, softmax).base<Float16>()[1].ToDouble();
  const double got_wide = RunOn(Wide(), {x}, softmax).base<Float16>()[1].ToDouble();
  CHECK(std::fabs(got_half - half_path) <= ulp);
  CHECK(std::fabs(got_wide - wide_path) <= ulp);
  CHECK(std::fabs(got_wide - got_half) >= 4 * ulp);
}

// layerNormalization of float16: the statistics in float32, the affine step in float16. x = [-2,
// 0 x 6, 2]: mean 0, variance 1, q = [-2, 0, ..., 2] times 1/sqrt(1 + 1e-5) (+-2 rounded to
// float16). scale 40000, bias -20000: on the float16 path 2 x 40000 overflows to Infinity before
// the bias is added (and -2 gives -Infinity); on the float32 path 80000 / sqrt(1 + 1e-5) - 20000
// = 59999.6 rounds to the float16 60000 (spacing 32), and -100000 is beyond float16's range
// (-Infinity on both paths); q = 0 gives the bias, -20000, on both.
TEST_CASE("vulkan float16: layerNormalization's scale and bias in float16") {
  const Tensor x = HalfTensor({1, 8}, {-2, 0, 0, 0, 0, 0, 0, 2});
  const Tensor scale = HalfTensor({8}, std::vector<double>(8, 40000.0));
  const Tensor bias = HalfTensor({8}, std::vector<double>(8, -20000.0));
  const Make ln = [](GraphBuilder& g, const std::vector<Operand>& in) {
    MLLayerNormalizationOptions o;
    o.axes = std::vector<uint32_t>{1};
    o.scale = in[1];
    o.bias = in[2];
    return LayerNormalization(g, in[0], o);
  };
  const Tensor half = RunOn(Half(), {x, scale, bias}, ln);
  const Tensor wide = RunOn(Wide(), {x, scale, bias}, ln);
  CHECK(half.base<Float16>()[7].ToDouble() == INFINITY);
  CHECK(wide.base<Float16>()[7].ToDouble() == H(80000.0 / std::sqrt(1 + 1e-5) - 20000.0));
  CHECK(H(80000.0 / std::sqrt(1 + 1e-5) - 20000.0) == 60000.0);
  CHECK(half.base<Float16>()[0].ToDouble() == -INFINITY);
  CHECK(wide.base<Float16>()[0].ToDouble() == -INFINITY);
  CHECK(half.base<Float16>()[3].ToDouble() == -20000.0);
  CHECK(wide.base<Float16>()[3].ToDouble() == -20000.0);
}

}  // namespace
}  // namespace nnref
