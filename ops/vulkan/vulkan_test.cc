// The vulkan backend on the first Vulkan device (lavapipe on CI) with VK_LAYER_KHRONOS_validation
// on: any validation message makes a dispatch throw, so it fails the test. Expected values are
// computed here in double (or exactly) and rounded, independently of the shaders.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "numerics/float16.h"
#include "ops/activations.h"
#include "ops/backend_testing.h"
#include "ops/cast_clamp_where.h"
#include "ops/data_movement.h"
#include "ops/elementwise_binary.h"
#include "ops/elementwise_logical.h"
#include "ops/elementwise_unary.h"
#include "ops/matmul_gemm.h"
#include "ops/rnn.h"
#include "ops/softmax.h"
#include "ops/vulkan/vulkan_backend.h"
#include "ref/graph/graph.h"

namespace nnref {
namespace {

// One backend for the whole test program (instance and device once), validation on.
std::shared_ptr<const Backend> TheBackend() {
  static const std::shared_ptr<const Backend> backend = [] {
    setenv("NNREF_VULKAN_VALIDATION", "1", 1);
    return MakeVulkanBackend();
  }();
  return backend;
}

Tensor Run(const std::vector<Tensor>& inputs,
           const std::function<Operand(GraphBuilder&, const std::vector<Operand>&)>& make) {
  return RunOn(TheBackend(), inputs, make);
}

Tensor F32s(const std::vector<float>& v) {
  Tensor t = Tensor::Allocate(DataType::kFloat32, {v.size()});
  std::memcpy(t.base<float>(), v.data(), v.size() * sizeof(float));
  return t;
}

std::vector<float> Floats(const Tensor& t) {
  std::vector<float> v(t.element_count());
  for (size_t i = 0; i < v.size(); ++i) v[i] = t.At<float>(i);
  return v;
}

double UlpsApart(float a, float b) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (a == b) return 0;
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  if ((ia < 0) != (ib < 0)) return 1e9;
  return std::fabs(static_cast<double>(ia) - static_cast<double>(ib));
}

TEST_CASE("vulkan: a device is there (CI runs lavapipe)") {
  CHECK(std::string(TheBackend()->Describe()).find("unavailable") == std::string::npos);
  CHECK_FALSE(TheBackend()->Unavailable().has_value());
  MESSAGE(TheBackend()->Describe());
}

TEST_CASE("vulkan: a device index that does not exist makes the backend unavailable, saying why") {
  BackendOptions options;
  options.device = 99;
  const std::shared_ptr<const Backend> b = MakeVulkanBackend(options);
  const std::optional<std::string> why = b->Unavailable();
  REQUIRE(why.has_value());
  CHECK(why->find("no Vulkan device 99: there ") == 0);
  CHECK(why->find("--device N") != std::string::npos);
  CHECK(b->Describe() == "vulkan (unavailable: " + *why + ")");
  // Every operator is refused with the same reason (the opt-in skips).
  CHECK(b->Unsupported(OpId::add, DataType::kFloat32) == why);
}

TEST_CASE("vulkan: the float controls are reported for a Vulkan 1.2 device") {
  std::string why;
  const std::optional<std::vector<DeviceReport>> list = ListVulkanDevices(why);
  REQUIRE_MESSAGE(list.has_value(), why);
  REQUIRE(!list->empty());
  std::vector<std::string> keys;
  for (const DeviceField& f : list->front().fields) keys.push_back(f.key);
  for (const char* kind :
       {"shaderDenormPreserve", "shaderDenormFlushToZero", "shaderSignedZeroInfNanPreserve",
        "shaderRoundingModeRTE", "shaderRoundingModeRTZ"}) {
    for (const char* width : {"Float16", "Float32", "Float64"}) {
      const std::string key = std::string(kind) + width;
      CHECK_MESSAGE(std::find(keys.begin(), keys.end(), key) != keys.end(), key);
    }
  }
  // What lavapipe promises (its float controls as vulkaninfo lists them, toolchain notes):
  // round to nearest even, signed zeros/Inf/NaN kept, subnormals neither kept nor flushed.
  if (list->front().name.rfind("llvmpipe", 0) == 0) {
    for (const DeviceField& f : list->front().fields) {
      if (f.key == "shaderRoundingModeRTEFloat32" ||
          f.key == "shaderSignedZeroInfNanPreserveFloat32")
        CHECK_MESSAGE(std::get<bool>(f.value), f.key);
      if (f.key == "shaderDenormPreserveFloat32" || f.key == "shaderDenormFlushToZeroFloat32")
        CHECK_MESSAGE(!std::get<bool>(f.value), f.key);
    }
    CHECK(TheBackend()->Describe().find(
              "float32 subnormals may be flushed to zero (no shaderDenormPreserveFloat32)") !=
          std::string::npos);
  }
}

TEST_CASE("vulkan: the shaders' exp, expm1, log, tanh, sigmoid, softplus, gelu within a few ulp") {
  std::vector<float> x;
  for (int i = -2000; i <= 2000; ++i) x.push_back(static_cast<float>(i) * 0.0437f);
  for (float v : {1e-3f, -1e-3f, 1e-6f, -2e-5f, 80.0f, 88.5f, -87.0f, -87.3f, -95.0f, -103.0f, 0.3f,
                  -0.3f, 0.36f, -0.36f, 1e-30f, 1.5e-38f, 3e-39f}) {
    x.push_back(v);
  }
  struct Row {
    const char* name;
    std::function<Operand(GraphBuilder&, const Operand&)> make;
    std::function<double(double)> exact;
    double max_ulp;
  };
  const Row rows[] = {
      {"exp",
       [](GraphBuilder& b, const Operand& i) { return ElementwiseUnary(b, UnaryOp::kExp, i); },
       [](double v) { return std::exp(v); }, 3},
      {"log",
       [](GraphBuilder& b, const Operand& i) { return ElementwiseUnary(b, UnaryOp::kLog, i); },
       [](double v) { return std::log(v); }, 2},
      {"elu", [](GraphBuilder& b, const Operand& i) { return Elu(b, i); },
       [](double v) { return v > 0 ? v : std::expm1(v); }, 3},
      {"tanh", [](GraphBuilder& b, const Operand& i) { return Tanh(b, i); },
       [](double v) { return std::tanh(v); }, 4},
      {"sigmoid", [](GraphBuilder& b, const Operand& i) { return Sigmoid(b, i); },
       [](double v) { return 1 / (1 + std::exp(-v)); }, 4},
      {"softplus", [](GraphBuilder& b, const Operand& i) { return Softplus(b, i); },
       [](double v) { return std::fmax(v, 0.0) + std::log1p(std::exp(-std::fabs(v))); }, 4},
      {"gelu", [](GraphBuilder& b, const Operand& i) { return Gelu(b, i); },
       [](double v) { return 0.5 * v * std::erfc(-v / std::sqrt(2.0)); }, 8},
  };
  for (const Row& r : rows) {
    const std::string name = r.name;
    CAPTURE(name);
    const std::vector<float> got =
        Floats(Run({F32s(x)}, [&](GraphBuilder& b, const std::vector<Operand>& in) {
          return r.make(b, in[0]);
        }));
    for (size_t i = 0; i < x.size(); ++i) {
      const double e = r.exact(static_cast<double>(x[i]));
      if (std::isnan(e)) continue;
      CAPTURE(x[i]);
      CHECK(UlpsApart(got[i], static_cast<float>(e)) <= r.max_ulp);
    }
  }
}

TEST_CASE("vulkan: the shader's erf within the 2-ULP tolerance (series, 1 - erfc, 1)") {
  // Every 2^-12 on [-4.5, 4.5] (both sides of the switches at |x| = 1 and 4), plus tiny and
  // subnormal arguments, where an absolute approximation such as Abramowitz-Stegun 7.1.26 is
  // far off in ULP.
  std::vector<float> x;
  for (int i = -18432; i <= 18432; ++i) x.push_back(static_cast<float>(i) * 0x1p-12f);
  for (float v : {1e-3f, -1e-3f, 1e-6f, -2e-5f, 1e-18f, 1.1e-18f, 1e-30f, 1.5e-38f, 3e-39f,
                  1.4e-45f, -1.4e-45f, 0.99999994f, 1.0000001f, 3.9999998f, 10.0f, -1e30f}) {
    x.push_back(v);
  }
  const std::vector<float> got =
      Floats(Run({F32s(x)}, [](GraphBuilder& b, const std::vector<Operand>& in) {
        return ElementwiseUnary(b, UnaryOp::kErf, in[0]);
      }));
  double worst = 0;
  float worst_x = 0;
  size_t over_one = 0;  // elements more than 1 ulp off
  for (size_t i = 0; i < x.size(); ++i) {
    const float want = static_cast<float>(std::erf(static_cast<double>(x[i])));
    CAPTURE(x[i]);
    const double ulps = UlpsApart(got[i], want);
    CHECK(ulps <= 2);
    if (ulps > 1) ++over_one;
    if (ulps > worst) {
      worst = ulps;
      worst_x = x[i];
    }
  }
  MESSAGE("erf: worst " << worst << " ulp at x = " << worst_x << "; " << over_one << " of "
                        << x.size() << " more than 1 ulp off");
}

template <typename T>
Tensor Typed(DataType type, const Shape& shape, const std::vector<T>& v) {
  Tensor t = Tensor::Allocate(type, shape);
  REQUIRE(v.size() == t.element_count());
  std::memcpy(t.base<T>(), v.data(), v.size() * sizeof(T));
  return t;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  std::vector<T> v(t.element_count());
  for (size_t i = 0; i < v.size(); ++i) v[i] = t.At<T>(i);
  return v;
}

TEST_CASE("vulkan: float16 is widened exactly and narrowed to nearest even (all 65536 halves)") {
  std::vector<uint16_t> all(65536);
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
  const Tensor wide = Run({Typed<uint16_t>(DataType::kFloat16, {65536}, all)},
                          [](GraphBuilder& b, const std::vector<Operand>& in) {
                            return Cast(b, in[0], DataType::kFloat32);
                          });
  const std::vector<float> w = Values<float>(wide);
  for (size_t i = 0; i < all.size(); ++i) {
    const double want = Float16BitsToDouble(all[i]);
    CAPTURE(i);
    if (std::isnan(want)) {
      REQUIRE(std::isnan(w[i]));
    } else {
      REQUIRE(static_cast<double>(w[i]) == want);
      REQUIRE(std::signbit(w[i]) == std::signbit(want));
    }
  }
  // Midpoints and quarter points between neighbouring halves (ties to even), overflow, NaN; an
  // odd count so that the last output word is half filled.
  std::vector<float> f;
  for (uint32_t h = 0; h < 0x7c00; h += 3) {
    const double lo = Float16BitsToDouble(static_cast<uint16_t>(h));
    const double hi = Float16BitsToDouble(static_cast<uint16_t>(h + 1));
    f.push_back(static_cast<float>((lo + hi) / 2));
    f.push_back(-static_cast<float>(lo + (hi - lo) * 0.25));
  }
  f.push_back(65519.0f);
  f.push_back(65520.0f);
  f.push_back(-1e6f);
  const Tensor narrow = Run({F32s(f)}, [](GraphBuilder& b, const std::vector<Operand>& in) {
    return Cast(b, in[0], DataType::kFloat16);
  });
  const std::vector<uint16_t> n = Values<uint16_t>(narrow);
  for (size_t i = 0; i < f.size(); ++i) {
    CAPTURE(f[i]);
    REQUIRE(n[i] == Float16::FromDouble(static_cast<double>(f[i])).bits);
  }
}

TEST_CASE("vulkan: broadcast and strided inputs, unified memory and the staging path") {
  // a: [37, 300] as the transpose of a dense [300, 37] buffer; b: [300] broadcast over rows.
  Tensor dense = Tensor::Allocate(DataType::kFloat32, {300, 37});
  Tensor b = Tensor::Allocate(DataType::kFloat32, {300});
  for (uint64_t i = 0; i < 300 * 37; ++i) {
    dense.base<float>()[i] = static_cast<float>(std::sin(static_cast<double>(i)));
  }
  for (uint64_t i = 0; i < 300; ++i) b.base<float>()[i] = 0.001f * static_cast<float>(i) - 0.15f;
  const Tensor a = dense.Permute({1, 0});
  setenv("NNREF_VULKAN_STAGING", "1", 1);
  const std::shared_ptr<const Backend> staging = MakeVulkanBackend();
  unsetenv("NNREF_VULKAN_STAGING");
  CHECK(staging->Describe().find("staging buffers") != std::string::npos);
  for (const auto& backend : {TheBackend(), staging}) {
    CAPTURE(backend->Describe());
    const Tensor sum = RunOn(backend, {a, b}, [](GraphBuilder& g, const std::vector<Operand>& in) {
      return ElementwiseBinary(g, BinaryOp::kSub, in[0], in[1]);
    });
    REQUIRE(sum.shape() == Shape{37, 300});
    for (uint64_t row = 0; row < 37; ++row) {
      for (uint64_t col = 0; col < 300; ++col) {
        // float32 subtraction is correctly rounded: bit-exact.
        REQUIRE(sum.At<float>(row * 300 + col) ==
                dense.base<float>()[col * 37 + row] - b.base<float>()[col]);
      }
    }
  }
}

TEST_CASE("vulkan: integer arithmetic wraps in the operand type; 8-bit outputs pack 4 to a word") {
  const std::vector<int8_t> a8 = {127, -128, 100, -7, 0, 5, -1};
  const std::vector<int8_t> b8 = {1, -1, 100, 3, 0, -5, -128};
  const Tensor s8 = Run({Typed(DataType::kInt8, {7}, a8), Typed(DataType::kInt8, {7}, b8)},
                        [](GraphBuilder& g, const std::vector<Operand>& in) {
                          return ElementwiseBinary(g, BinaryOp::kAdd, in[0], in[1]);
                        });
  CHECK(Values<int8_t>(s8) == std::vector<int8_t>{-128, 127, -56, -4, 0, 0, 127});
  const std::vector<uint8_t> u8 = {250, 3, 200, 0, 255};
  const Tensor m8 =
      Run({Typed(DataType::kUint8, {5}, u8)}, [](GraphBuilder& g, const std::vector<Operand>& in) {
        return ElementwiseBinary(g, BinaryOp::kMul, in[0], in[0]);
      });
  // 250^2 = 62500 = 36 mod 256; 200^2 = 40000 = 64 mod 256; 255^2 = 65025 = 1 mod 256.
  CHECK(Values<uint8_t>(m8) == std::vector<uint8_t>{36, 9, 64, 0, 1});
  const std::vector<int32_t> n = {-7, 7, 2147483647, -2147483647 - 1};
  const std::vector<int32_t> d = {2, -2, -1, 3};
  const Tensor q = Run({Typed(DataType::kInt32, {4}, n), Typed(DataType::kInt32, {4}, d)},
                       [](GraphBuilder& g, const std::vector<Operand>& in) {
                         return ElementwiseBinary(g, BinaryOp::kDiv, in[0], in[1]);
                       });
  CHECK(Values<int32_t>(q) == std::vector<int32_t>{-3, -3, -2147483647, -715827882});
  const std::vector<uint32_t> un = {4000000000u, 7u};
  const std::vector<uint32_t> ud = {3u, 2u};
  const Tensor uq = Run({Typed(DataType::kUint32, {2}, un), Typed(DataType::kUint32, {2}, ud)},
                        [](GraphBuilder& g, const std::vector<Operand>& in) {
                          return ElementwiseBinary(g, BinaryOp::kDiv, in[0], in[1]);
                        });
  CHECK(Values<uint32_t>(uq) == std::vector<uint32_t>{1333333333u, 3u});
  const std::vector<uint32_t> ux = {4000000000u, 1u, 2u};
  const std::vector<uint32_t> uy = {1u, 4000000000u, 2u};
  const Tensor gt = Run({Typed(DataType::kUint32, {3}, ux), Typed(DataType::kUint32, {3}, uy)},
                        [](GraphBuilder& g, const std::vector<Operand>& in) {
                          return ElementwiseLogical(g, LogicalOp::kGreater, in[0], in[1]);
                        });
  CHECK(Values<uint8_t>(gt) == std::vector<uint8_t>{1, 0, 0});  // unsigned comparison
}

TEST_CASE("vulkan: int64 and uint64 beyond 32 bits (shaderInt64)") {
  const std::vector<int64_t> a = {int64_t{1} << 40, -(int64_t{3} << 33), 9000000000000000000, -5};
  const std::vector<int64_t> b = {3, 7, 2, -1};
  const Tensor p = Run({Typed(DataType::kInt64, {4}, a), Typed(DataType::kInt64, {4}, b)},
                       [](GraphBuilder& g, const std::vector<Operand>& in) {
                         return ElementwiseBinary(g, BinaryOp::kMul, in[0], in[1]);
                       });
  // 9e18 * 2 wraps: 18e18 - 2^64 = -446744073709551616.
  CHECK(Values<int64_t>(p) ==
        std::vector<int64_t>{int64_t{3} << 40, -(int64_t{21} << 33), -446744073709551616, 5});
  const std::vector<uint64_t> u = {18446744073709551615ull, 1ull << 63};
  const Tensor f =
      Run({Typed(DataType::kUint64, {2}, u)}, [](GraphBuilder& g, const std::vector<Operand>& in) {
        return Cast(g, in[0], DataType::kFloat32);
      });
  CHECK(Values<float>(f) == std::vector<float>{18446744073709551616.0f, 9223372036854775808.0f});
  const std::vector<float> x = {-3.75f, 1e10f, 123456.9f};
  const Tensor i = Run({F32s(x)}, [](GraphBuilder& g, const std::vector<Operand>& in) {
    return Cast(g, in[0], DataType::kInt64);
  });
  CHECK(Values<int64_t>(i) == std::vector<int64_t>{-3, 10000000000, 123456});
}

TEST_CASE("vulkan: where, clamp and logical operators on broadcast operands") {
  const std::vector<uint8_t> c = {1, 0, 0, 1, 1, 0};
  const Tensor w = Run({Typed(DataType::kUint8, {2, 3}, c), F32s({10, 20, 30}), F32s({-1})},
                       [](GraphBuilder& g, const std::vector<Operand>& in) {
                         return Where(g, in[0], in[1], in[2]);
                       });
  CHECK(Floats(w) == std::vector<float>{10, -1, -1, 10, 20, -1});
  MLClampOptions o;
  o.minValue = MLNumber::FromDouble(-2);
  o.maxValue = MLNumber::FromDouble(3);
  const std::vector<int8_t> v = {-100, -2, 0, 3, 100};
  const Tensor cl =
      Run({Typed(DataType::kInt8, {5}, v)},
          [&](GraphBuilder& g, const std::vector<Operand>& in) { return Clamp(g, in[0], o); });
  CHECK(Values<int8_t>(cl) == std::vector<int8_t>{-2, -2, 0, 3, 3});
  const Tensor nan =
      Run({F32s({NAN, 1.0f, INFINITY, -0.0f, -INFINITY})},
          [](GraphBuilder& g, const std::vector<Operand>& in) {
            return ElementwiseLogical(g, LogicalOp::kIsInfinite, in[0], std::nullopt);
          });
  CHECK(Values<uint8_t>(nan) == std::vector<uint8_t>{0, 0, 1, 0, 1});
}

TEST_CASE("vulkan: sin, cos and tan of large arguments (exact argument reduction)") {
  const std::vector<float> x = {1e30f, -1e30f, 3.4028235e38f, 65504.0f,
                                1e4f,  -1e4f,  3.14159265f,   1.57079633f,
                                0.5f,  100.0f, 7.0e7f,        1.5e-40f};
  const struct {
    UnaryOp op;
    double (*f)(double);
  } fns[] = {{UnaryOp::kSin, [](double v) { return std::sin(v); }},
             {UnaryOp::kCos, [](double v) { return std::cos(v); }},
             {UnaryOp::kTan, [](double v) { return std::tan(v); }}};
  for (const auto& fn : fns) {
    const std::vector<float> got =
        Floats(Run({F32s(x)}, [&](GraphBuilder& g, const std::vector<Operand>& in) {
          return ElementwiseUnary(g, fn.op, in[0]);
        }));
    for (size_t i = 0; i < x.size(); ++i) {
      const double want = fn.f(static_cast<double>(x[i]));  // glibc reduces exactly too
      CAPTURE(x[i]);
      CHECK(std::fabs(static_cast<double>(got[i]) - want) <=
            4e-7 * std::fmax(1.0, std::fabs(want)));
    }
  }
}

TEST_CASE("vulkan: pow near overflow and underflow within a few ulp") {
  const std::vector<float> a = {1.5f, 0.5f, 2.0f, 10.0f, 0.9999f, 1.0001f, 3.0f, -2.0f};
  const std::vector<float> b = {218.0f,    148.5f,     -127.5f, 38.5f,
                                800000.0f, -850000.0f, 80.7f,   127.0f};
  const std::vector<float> got =
      Floats(Run({F32s(a), F32s(b)}, [](GraphBuilder& g, const std::vector<Operand>& in) {
        return ElementwiseBinary(g, BinaryOp::kPow, in[0], in[1]);
      }));
  for (size_t i = 0; i < a.size(); ++i) {
    const double want = std::pow(static_cast<double>(a[i]), static_cast<double>(b[i]));
    CAPTURE(a[i]);
    CAPTURE(b[i]);
    CHECK(UlpsApart(got[i], static_cast<float>(want)) <= 4);
  }
}

// Exact dot products of float32 values: every product is exact in double and, for these small
// integers scaled by powers of two, so is the sum.
TEST_CASE("vulkan: matmul with cancelling products and broadcast batches; gemm options") {
  // a: [2, 3, 4], b: [4, 5] broadcast over a's batch. Values mix 2^20-scale terms that cancel.
  std::vector<float> av(24), bv(20);
  for (size_t i = 0; i < av.size(); ++i) {
    av[i] = static_cast<float>((static_cast<int>(i * 7) % 11) - 5) * (i % 2 ? 1048576.0f : 0.001f);
  }
  for (size_t i = 0; i < bv.size(); ++i) {
    bv[i] = static_cast<float>((static_cast<int>(i * 5) % 13) - 6) * (i % 3 ? 1.0f : 0.25f);
  }
  const Tensor a = Typed(DataType::kFloat32, {2, 3, 4}, av);
  const Tensor b = Typed(DataType::kFloat32, {4, 5}, bv);
  const Tensor c = Run({a, b}, [](GraphBuilder& g, const std::vector<Operand>& in) {
    return Matmul(g, in[0], in[1]);
  });
  REQUIRE(c.shape() == Shape{2, 3, 5});
  for (size_t bt = 0; bt < 2; ++bt) {
    for (size_t m = 0; m < 3; ++m) {
      for (size_t n = 0; n < 5; ++n) {
        double want = 0;
        for (size_t k = 0; k < 4; ++k) {
          want += static_cast<double>(av[bt * 12 + m * 4 + k]) * static_cast<double>(bv[k * 5 + n]);
        }
        CAPTURE(bt);
        CAPTURE(m);
        CAPTURE(n);
        CHECK(UlpsApart(c.At<float>(bt * 15 + m * 5 + n), static_cast<float>(want)) <= 1);
      }
    }
  }
  // gemm: alpha * A^T * B^T + beta * c with c [5] broadcast over rows; A: [4, 3], B: [5, 4].
  const Tensor at =
      Typed(DataType::kFloat32, {4, 3}, std::vector<float>(av.begin(), av.begin() + 12));
  const Tensor btr = Typed(DataType::kFloat32, {5, 4}, bv);
  const Tensor cc = F32s({1, -2, 3.5f, 0.25f, 1e6f});
  MLGemmOptions o;
  o.alpha = 0.5;
  o.beta = -2;
  o.aTranspose = true;
  o.bTranspose = true;
  const Tensor gm = Run({at, btr, cc}, [&](GraphBuilder& g, const std::vector<Operand>& in) {
    MLGemmOptions opt = o;
    opt.c = in[2];
    return Gemm(g, in[0], in[1], opt);
  });
  REQUIRE(gm.shape() == Shape{3, 5});
  for (size_t m = 0; m < 3; ++m) {
    for (size_t n = 0; n < 5; ++n) {
      double want = 0;
      for (size_t k = 0; k < 4; ++k) {
        want += static_cast<double>(av[k * 3 + m]) * static_cast<double>(bv[n * 4 + k]);
      }
      want = 0.5 * want - 2 * static_cast<double>(cc.At<float>(n));
      CAPTURE(m);
      CAPTURE(n);
      CHECK(UlpsApart(gm.At<float>(m * 5 + n), static_cast<float>(want)) <= 1);
    }
  }
}

// ---- recurrent operators -------------------------------------------------------------------
// Expected values from an independent double evaluation of the spec's cell equations
// (§api-mlgraphbuilder-gru, §api-mlgraphbuilder-lstm): z = σ(x Wzᵀ + h Rzᵀ + bz + rbz), ...,
// with the state kept in double; the backend keeps it in float32, so the comparison allows a
// small absolute error (the values are O(1)).

// Deterministic values in [-scale, scale).
std::vector<double> Pseudo(size_t n, uint32_t seed, double scale) {
  std::vector<double> v(n);
  uint32_t s = seed;
  for (double& x : v) {
    s = s * 1664525u + 1013904223u;
    x = (static_cast<double>(s >> 8) / 8388608.0 - 1.0) * scale;
  }
  return v;
}

// A float32 or float16 tensor of `v` (rounded); `v` is replaced by the rounded values.
Tensor FloatTensor(DataType type, const Shape& shape, std::vector<double>& v) {
  Tensor t = Tensor::Allocate(type, shape);
  REQUIRE(v.size() == t.element_count());
  for (size_t i = 0; i < v.size(); ++i) {
    if (type == DataType::kFloat16) {
      const Float16 h = Float16::FromDouble(v[i]);
      t.base<Float16>()[i] = h;
      v[i] = h.ToDouble();
    } else {
      t.base<float>()[i] = static_cast<float>(v[i]);
      v[i] = static_cast<double>(t.base<float>()[i]);
    }
  }
  return t;
}

std::vector<double> Doubles(const Tensor& t) {
  std::vector<double> v(t.element_count());
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = t.dtype() == DataType::kFloat16 ? t.At<Float16>(i).ToDouble()
                                           : static_cast<double>(t.At<float>(i));
  }
  return v;
}

// Computes the outputs of `make` (over inputs named in0, in1, ...) on the vulkan backend.
std::vector<Tensor> RunMany(
    const std::vector<Tensor>& inputs,
    const std::function<std::vector<Operand>(GraphBuilder&, const std::vector<Operand>&)>& make) {
  GraphBuilder builder;
  std::vector<Operand> ops;
  std::map<std::string, Tensor> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = "in" + std::to_string(i);
    ops.push_back(builder.Input(name, {inputs[i].dtype(), inputs[i].shape()}));
    feeds[name] = inputs[i];
  }
  const std::vector<Operand> outs = make(builder, ops);
  std::vector<std::pair<std::string, Operand>> named;
  for (size_t i = 0; i < outs.size(); ++i) named.push_back({"out" + std::to_string(i), outs[i]});
  const std::shared_ptr<const Graph> graph = builder.Build(named);
  std::string why;
  const std::optional<BackendGraph> compiled = CompileForBackend(*graph, TheBackend(), why);
  REQUIRE_MESSAGE(compiled, why);
  const auto values = graph->Compute(feeds, {}, compiled->kernels);
  std::vector<Tensor> result;
  for (size_t i = 0; i < outs.size(); ++i) result.push_back(values.at(named[i].first).data);
  return result;
}

double Sigm(double v) { return 1 / (1 + std::exp(-v)); }

// Row `row` of a [rows, k] matrix dotted with a length-k vector.
double RowDot(const double* m, size_t row, size_t k, const double* v) {
  double s = 0;
  for (size_t i = 0; i < k; ++i) s += m[row * k + i] * v[i];
  return s;
}

// Every element of `got` within `abs_err` of `want`.
void CheckClose(const std::vector<double>& got, const std::vector<double>& want, double abs_err) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CAPTURE(got[i]);
    CAPTURE(want[i]);
    CHECK(std::fabs(got[i] - want[i]) <= abs_err);
  }
}

struct RnnCase {
  size_t steps = 3, batch = 2, input = 3, hidden = 5;
  MLRecurrentNetworkDirection direction = MLRecurrentNetworkDirection::kBoth;
  DataType type = DataType::kFloat32;
};

size_t Dirs(const RnnCase& c) { return c.direction == MLRecurrentNetworkDirection::kBoth ? 2 : 1; }

// The steps of direction `dir` in the order they are computed.
std::vector<size_t> StepOrder(const RnnCase& c, size_t dir) {
  std::vector<size_t> order;
  for (size_t s = 0; s < c.steps; ++s) {
    const bool back = dir == 1 || c.direction == MLRecurrentNetworkDirection::kBackward;
    order.push_back(back ? c.steps - 1 - s : s);
  }
  return order;
}

TEST_CASE("vulkan: gru (resetAfter true and false, both layouts, every direction) against double") {
  for (const bool reset_after : {true, false}) {
    for (const auto layout : {MLGruWeightLayout::kZrn, MLGruWeightLayout::kRzn}) {
      for (const auto direction :
           {MLRecurrentNetworkDirection::kForward, MLRecurrentNetworkDirection::kBackward,
            MLRecurrentNetworkDirection::kBoth}) {
        for (const DataType type : {DataType::kFloat32, DataType::kFloat16}) {
          RnnCase c;
          c.direction = direction;
          c.type = type;
          const size_t D = Dirs(c), H = c.hidden, I = c.input, N = c.batch, G = 3 * H;
          CAPTURE(reset_after);
          CAPTURE(static_cast<int>(layout));
          CAPTURE(static_cast<int>(direction));
          CAPTURE(DataTypeName(type));
          std::vector<double> x = Pseudo(c.steps * N * I, 1, 1.5), w = Pseudo(D * G * I, 2, 0.8),
                              r = Pseudo(D * G * H, 3, 0.8), b = Pseudo(D * G, 4, 0.5),
                              rb = Pseudo(D * G, 5, 0.5), h0 = Pseudo(D * N * H, 6, 1.0);
          const std::vector<Tensor> in = {
              FloatTensor(type, {c.steps, N, I}, x), FloatTensor(type, {D, G, I}, w),
              FloatTensor(type, {D, G, H}, r),       FloatTensor(type, {D, G}, b),
              FloatTensor(type, {D, G}, rb),         FloatTensor(type, {D, N, H}, h0)};
          const std::vector<Tensor> got =
              RunMany(in, [&](GraphBuilder& g, const std::vector<Operand>& o) {
                MLGruOptions opt;
                opt.bias = o[3];
                opt.recurrentBias = o[4];
                opt.initialHiddenState = o[5];
                opt.resetAfter = reset_after;
                opt.returnSequence = true;
                opt.direction = direction;
                opt.layout = layout;
                return Gru(g, o[0], o[1], o[2], static_cast<uint32_t>(c.steps),
                           static_cast<uint32_t>(H), opt);
              });
          REQUIRE(got.size() == 2);
          CHECK(got[0].shape() == Shape{D, N, H});
          CHECK(got[1].shape() == Shape{c.steps, D, N, H});
          // zrn: update rows first; rzn: reset rows first; the new gate's rows last in both.
          const size_t zr = layout == MLGruWeightLayout::kZrn ? 0 : H;
          const size_t rr = layout == MLGruWeightLayout::kZrn ? H : 0, nr = 2 * H;
          std::vector<double> out(D * N * H), seq(c.steps * D * N * H);
          for (size_t d = 0; d < D; ++d) {
            const double* wd = w.data() + d * G * I;
            const double* rd = r.data() + d * G * H;
            const double* bd = b.data() + d * G;
            const double* rbd = rb.data() + d * G;
            std::vector<double> h(h0.begin() + static_cast<ptrdiff_t>(d * N * H),
                                  h0.begin() + static_cast<ptrdiff_t>((d + 1) * N * H));
            for (size_t t : StepOrder(c, d)) {
              std::vector<double> next(N * H);
              for (size_t n = 0; n < N; ++n) {
                const double* xn = x.data() + (t * N + n) * I;
                const double* hn = h.data() + n * H;
                std::vector<double> rgate(H), rh(H);
                for (size_t j = 0; j < H; ++j) {
                  rgate[j] = Sigm(RowDot(wd, rr + j, I, xn) + RowDot(rd, rr + j, H, hn) +
                                  bd[rr + j] + rbd[rr + j]);
                  rh[j] = rgate[j] * hn[j];
                }
                for (size_t j = 0; j < H; ++j) {
                  const double z = Sigm(RowDot(wd, zr + j, I, xn) + RowDot(rd, zr + j, H, hn) +
                                        bd[zr + j] + rbd[zr + j]);
                  const double pre =
                      reset_after ? RowDot(wd, nr + j, I, xn) + bd[nr + j] +
                                        rgate[j] * (RowDot(rd, nr + j, H, hn) + rbd[nr + j])
                                  : RowDot(wd, nr + j, I, xn) + RowDot(rd, nr + j, H, rh.data()) +
                                        bd[nr + j] + rbd[nr + j];
                  next[n * H + j] = (1 - z) * std::tanh(pre) + z * hn[j];
                }
              }
              h = next;
              std::copy(h.begin(), h.end(),
                        seq.begin() + static_cast<ptrdiff_t>((t * D + d) * N * H));
            }
            std::copy(h.begin(), h.end(), out.begin() + static_cast<ptrdiff_t>(d * N * H));
          }
          // float16: the outputs are rounded once from the float32 state (values below 2: within
          // an ulp, 2^-10); float32: measured 8.7e-8 (the float32 state and activations).
          const double tol = type == DataType::kFloat16 ? 0x1p-10 : 4e-7;
          CheckClose(Doubles(got[0]), out, tol);
          CheckClose(Doubles(got[1]), seq, tol);
        }
      }
    }
  }
}

TEST_CASE("vulkan: lstm with peepholes (both layouts, every direction) against double") {
  for (const auto layout : {MLLstmWeightLayout::kIofg, MLLstmWeightLayout::kIfgo}) {
    for (const auto direction :
         {MLRecurrentNetworkDirection::kForward, MLRecurrentNetworkDirection::kBackward,
          MLRecurrentNetworkDirection::kBoth}) {
      for (const DataType type : {DataType::kFloat32, DataType::kFloat16}) {
        RnnCase c;
        c.direction = direction;
        c.type = type;
        const size_t D = Dirs(c), H = c.hidden, I = c.input, N = c.batch, G = 4 * H;
        CAPTURE(static_cast<int>(layout));
        CAPTURE(static_cast<int>(direction));
        CAPTURE(DataTypeName(type));
        std::vector<double> x = Pseudo(c.steps * N * I, 11, 1.5), w = Pseudo(D * G * I, 12, 0.8),
                            r = Pseudo(D * G * H, 13, 0.8), b = Pseudo(D * G, 14, 0.5),
                            rb = Pseudo(D * G, 15, 0.5), p = Pseudo(D * 3 * H, 16, 0.7),
                            h0 = Pseudo(D * N * H, 17, 1.0), c0 = Pseudo(D * N * H, 18, 2.0);
        const std::vector<Tensor> in = {
            FloatTensor(type, {c.steps, N, I}, x), FloatTensor(type, {D, G, I}, w),
            FloatTensor(type, {D, G, H}, r),       FloatTensor(type, {D, G}, b),
            FloatTensor(type, {D, G}, rb),         FloatTensor(type, {D, 3 * H}, p),
            FloatTensor(type, {D, N, H}, h0),      FloatTensor(type, {D, N, H}, c0)};
        const std::vector<Tensor> got =
            RunMany(in, [&](GraphBuilder& g, const std::vector<Operand>& o) {
              MLLstmOptions opt;
              opt.bias = o[3];
              opt.recurrentBias = o[4];
              opt.peepholeWeight = o[5];
              opt.initialHiddenState = o[6];
              opt.initialCellState = o[7];
              opt.returnSequence = true;
              opt.direction = direction;
              opt.layout = layout;
              return Lstm(g, o[0], o[1], o[2], static_cast<uint32_t>(c.steps),
                          static_cast<uint32_t>(H), opt);
            });
        REQUIRE(got.size() == 3);
        CHECK(got[2].shape() == Shape{c.steps, D, N, H});
        // Gate rows: iofg or ifgo; the peepholes are packed i, o, f in both.
        const bool iofg = layout == MLLstmWeightLayout::kIofg;
        const size_t ir = 0, orow = iofg ? H : 3 * H, fr = iofg ? 2 * H : H,
                     gr = iofg ? 3 * H : 2 * H;
        std::vector<double> hid(D * N * H), cel(D * N * H), seq(c.steps * D * N * H);
        for (size_t d = 0; d < D; ++d) {
          const double* wd = w.data() + d * G * I;
          const double* rd = r.data() + d * G * H;
          const double* bd = b.data() + d * G;
          const double* rbd = rb.data() + d * G;
          const double* pd = p.data() + d * 3 * H;
          const auto at = static_cast<ptrdiff_t>(d * N * H), to = static_cast<ptrdiff_t>(N * H);
          std::vector<double> h(h0.begin() + at, h0.begin() + at + to);
          std::vector<double> cs(c0.begin() + at, c0.begin() + at + to);
          for (size_t t : StepOrder(c, d)) {
            std::vector<double> hn_all(N * H), cn_all(N * H);
            for (size_t n = 0; n < N; ++n) {
              const double* xn = x.data() + (t * N + n) * I;
              const double* hn = h.data() + n * H;
              for (size_t j = 0; j < H; ++j) {
                auto pre = [&](size_t row) {
                  return RowDot(wd, row + j, I, xn) + RowDot(rd, row + j, H, hn) + bd[row + j] +
                         rbd[row + j];
                };
                const double cj = cs[n * H + j];
                const double ig = Sigm(pre(ir) + pd[j] * cj);
                const double og = Sigm(pre(orow) + pd[H + j] * cj);
                const double fg = Sigm(pre(fr) + pd[2 * H + j] * cj);
                const double gg = std::tanh(pre(gr));
                const double cn = fg * cj + ig * gg;
                cn_all[n * H + j] = cn;
                hn_all[n * H + j] = og * std::tanh(cn);
              }
            }
            h = hn_all;
            cs = cn_all;
            std::copy(h.begin(), h.end(),
                      seq.begin() + static_cast<ptrdiff_t>((t * D + d) * N * H));
          }
          std::copy(h.begin(), h.end(), hid.begin() + at);
          std::copy(cs.begin(), cs.end(), cel.begin() + at);
        }
        // Cell states stay below 4: float16 within an ulp there (2^-9); float32: measured 1.5e-7.
        const double tol = type == DataType::kFloat16 ? 0x1p-9 : 6e-7;
        CheckClose(Doubles(got[0]), hid, tol);
        CheckClose(Doubles(got[1]), cel, tol);
        CheckClose(Doubles(got[2]), seq, tol);
      }
    }
  }
}

TEST_CASE("vulkan: gruCell and lstmCell without optional operands; relu keeps NaN") {
  const size_t N = 2, I = 3, H = 3;
  std::vector<double> x = Pseudo(N * I, 21, 1.0), w = Pseudo(4 * H * I, 22, 0.8),
                      r = Pseudo(4 * H * H, 23, 0.8), h = Pseudo(N * H, 24, 1.0),
                      c = Pseudo(N * H, 25, 1.0);
  x[0] = std::nan("");  // batch row 0: NaN through relu (as the reference's relu)
  std::vector<double> w3(w.begin(), w.begin() + static_cast<ptrdiff_t>(3 * H * I)),
      r3(r.begin(), r.begin() + static_cast<ptrdiff_t>(3 * H * H));
  const DataType f32 = DataType::kFloat32;
  const Tensor tx = FloatTensor(f32, {N, I}, x), th = FloatTensor(f32, {N, H}, h);
  // gruCell, resetAfter false, relu: h' = z h + (1 - z) relu(Wn x + Rn (r h)) with no biases.
  const std::vector<Tensor> gru =
      RunMany({tx, FloatTensor(f32, {3 * H, I}, w3), FloatTensor(f32, {3 * H, H}, r3), th},
              [&](GraphBuilder& g, const std::vector<Operand>& o) {
                MLGruCellOptions opt;
                opt.resetAfter = false;
                opt.activations = std::vector<MLRecurrentNetworkActivation>{
                    MLRecurrentNetworkActivation::kSigmoid, MLRecurrentNetworkActivation::kRelu};
                return std::vector<Operand>{GruCell(g, o[0], o[1], o[2], o[3], H, opt)};
              });
  // lstmCell, no bias, no peephole: c' = f c + i g, h' = o tanh(c').
  const std::vector<Tensor> lstm =
      RunMany({tx, FloatTensor(f32, {4 * H, I}, w), FloatTensor(f32, {4 * H, H}, r), th,
               FloatTensor(f32, {N, H}, c)},
              [&](GraphBuilder& g, const std::vector<Operand>& o) {
                return LstmCell(g, o[0], o[1], o[2], o[3], o[4], H);
              });
  std::vector<double> gru_want(N * H), h_want(N * H), c_want(N * H);
  for (size_t n = 0; n < N; ++n) {
    const double* xn = x.data() + n * I;
    const double* hn = h.data() + n * H;
    std::vector<double> rh(H);
    for (size_t j = 0; j < H; ++j) {
      rh[j] = Sigm(RowDot(w3.data(), H + j, I, xn) + RowDot(r3.data(), H + j, H, hn)) * hn[j];
    }
    for (size_t j = 0; j < H; ++j) {
      const double z = Sigm(RowDot(w3.data(), j, I, xn) + RowDot(r3.data(), j, H, hn));
      const double pre =
          RowDot(w3.data(), 2 * H + j, I, xn) + RowDot(r3.data(), 2 * H + j, H, rh.data());
      const double nv = std::isnan(pre) ? pre : std::fmax(pre, 0.0);
      gru_want[n * H + j] = z * hn[j] + (1 - z) * nv;
      auto pre4 = [&](size_t gate) {
        return RowDot(w.data(), gate * H + j, I, xn) + RowDot(r.data(), gate * H + j, H, hn);
      };
      const double cj = c[n * H + j];
      const double cn = Sigm(pre4(2)) * cj + Sigm(pre4(0)) * std::tanh(pre4(3));
      c_want[n * H + j] = cn;
      h_want[n * H + j] = Sigm(pre4(1)) * std::tanh(cn);
    }
  }
  const std::vector<double> g0 = Doubles(gru[0]);
  for (size_t j = 0; j < H; ++j) CHECK(std::isnan(g0[j]));  // row 0 saw the NaN
  for (size_t j = 0; j < H; ++j) CHECK(std::isnan(Doubles(lstm[0])[j]));
  const auto tail = [&](const std::vector<double>& v) {
    return std::vector<double>(v.begin() + static_cast<ptrdiff_t>(H), v.end());
  };
  // Measured 1.4e-8: one step in float32.
  CheckClose(tail(g0), tail(gru_want), 1e-7);
  CheckClose(tail(Doubles(lstm[0])), tail(h_want), 1e-7);
  CheckClose(tail(Doubles(lstm[1])), tail(c_want), 1e-7);
}

TEST_CASE("vulkan: a tensor beyond maxStorageBufferRange is refused unless it can be cut by rows") {
  GraphBuilder builder;
  // 48 Mi float32 elements = 192 MiB, above lavapipe's 128 MiB (no data is ever allocated).
  const Operand x = builder.Input("x", {DataType::kFloat32, {48, 1024, 1024}});
  const Operand y = Transpose(builder, x);
  const std::shared_ptr<const Graph> graph = builder.Build({{"y", y}});
  std::string why;
  const std::optional<BackendGraph> compiled = CompileForBackend(*graph, TheBackend(), why);
  CHECK_FALSE(compiled);
  CHECK(why.find("maxStorageBufferRange") != std::string::npos);
  // An element-wise operator on the same tensor runs box by box instead.
  GraphBuilder b2;
  const Operand x2 = b2.Input("x", {DataType::kFloat32, {48, 1024, 1024}});
  const std::shared_ptr<const Graph> g2 =
      b2.Build({{"y", ElementwiseUnary(b2, UnaryOp::kNeg, x2)}});
  CHECK_MESSAGE(CompileForBackend(*g2, TheBackend(), why), why);
}

// A backend whose bindings are capped at `bytes` (the test hook NNREF_VULKAN_MAX_BINDING).
std::shared_ptr<const Backend> CappedBackend(const char* bytes) {
  setenv("NNREF_VULKAN_MAX_BINDING", bytes, 1);
  std::shared_ptr<const Backend> backend = MakeVulkanBackend();
  unsetenv("NNREF_VULKAN_MAX_BINDING");
  return backend;
}

TEST_CASE("vulkan: element-wise operators split into boxes that fit a binding") {
  // Bindings capped at 64 bytes (16 float32 elements): every tensor below is split.
  const std::shared_ptr<const Backend> capped = CappedBackend("64");
  CHECK(capped->Describe().find("bindings capped at 64 bytes") != std::string::npos);
  // add of [5, 7, 33] and [7, 1] (broadcast along the last axis and the first): the split axis
  // is the last one (33 elements do not fit), boxes of 16, 16 and 1 elements.
  Tensor a = Tensor::Allocate(DataType::kFloat32, {5, 7, 33});
  Tensor b = Tensor::Allocate(DataType::kFloat32, {7, 1});
  for (size_t i = 0; i < 5 * 7 * 33; ++i) a.base<float>()[i] = 0.1f * static_cast<float>(i) - 7.0f;
  for (size_t i = 0; i < 7; ++i) b.base<float>()[i] = 1000.0f / static_cast<float>(i + 3);
  const auto add = [](GraphBuilder& g, const std::vector<Operand>& in) {
    return ElementwiseBinary(g, BinaryOp::kAdd, in[0], in[1]);
  };
  const std::vector<float> sum = Floats(RunOn(capped, {a, b}, add));
  REQUIRE(sum.size() == 5 * 7 * 33);
  for (size_t i = 0; i < sum.size(); ++i) {
    const size_t row = (i / 33) % 7;
    const float want = a.base<float>()[i] + b.base<float>()[row];  // one IEEE rounding
    CHECK_MESSAGE(sum[i] == want, "element " << i);
  }
  // The same numbers as without the split, bit for bit.
  const std::vector<float> whole = Floats(Run({a, b}, add));
  CHECK(std::memcmp(sum.data(), whole.data(), sum.size() * sizeof(float)) == 0);

  // where with a uint8 condition [3, 1, 40], float16 values [3, 10, 1] and [40]: the widest
  // element (2 bytes) sets the box (32 elements); the split axis is the last.
  Tensor cond = Tensor::Allocate(DataType::kUint8, {3, 1, 40});
  Tensor t = Tensor::Allocate(DataType::kFloat16, {3, 10, 1});
  Tensor f = Tensor::Allocate(DataType::kFloat16, {40});
  for (size_t i = 0; i < 120; ++i) cond.base<uint8_t>()[i] = static_cast<uint8_t>(i % 3 == 0);
  for (size_t i = 0; i < 30; ++i) t.base<Float16>()[i] = Float16::FromFloat(float(i) + 0.5f);
  for (size_t i = 0; i < 40; ++i) f.base<Float16>()[i] = Float16::FromFloat(-float(i));
  const Tensor picked =
      RunOn(capped, {cond, t, f}, [](GraphBuilder& g, const std::vector<Operand>& in) {
        return Where(g, in[0], in[1], in[2]);
      });
  REQUIRE(picked.shape() == Shape{3, 10, 40});
  for (size_t i = 0; i < 3; ++i) {
    for (size_t j = 0; j < 10; ++j) {
      for (size_t k = 0; k < 40; ++k) {
        const float got = picked.base<Float16>()[(i * 10 + j) * 40 + k].ToFloat();
        const float want = (i * 40 + k) % 3 == 0 ? float(i * 10 + j) + 0.5f : -float(k);
        CHECK_MESSAGE(got == want, i << "," << j << "," << k);
      }
    }
  }
  // cast float32 [2, 100] -> int8 (the float32 input sets the box: 16 elements).
  Tensor c = Tensor::Allocate(DataType::kFloat32, {2, 100});
  for (size_t i = 0; i < 200; ++i) c.base<float>()[i] = static_cast<float>(i) - 100.25f;
  const Tensor cast = RunOn(capped, {c}, [](GraphBuilder& g, const std::vector<Operand>& in) {
    return Cast(g, in[0], DataType::kInt8);
  });
  for (size_t i = 0; i < 200; ++i) {
    const int want = static_cast<int>(std::trunc(static_cast<double>(i) - 100.25));  // in range
    if (want >= -128 && want <= 127) CHECK(cast.base<int8_t>()[i] == want);
  }
  // Not cut by rows (a transpose; graph_test.cc has the operators that are): refused under the
  // cap, with the reason.
  GraphBuilder builder;
  const Operand x = builder.Input("x", {DataType::kFloat32, {4, 8}});
  const std::shared_ptr<const Graph> graph = builder.Build({{"y", Transpose(builder, x)}});
  std::string why;
  CHECK_FALSE(CompileForBackend(*graph, capped, why));
  CHECK(why.find("maxStorageBufferRange") != std::string::npos);
  CHECK(why.find("not split") != std::string::npos);
}

TEST_CASE("vulkan: an add beyond the device's real maxStorageBufferRange") {
  const uint64_t range = 128ull << 20;  // lavapipe's; the test is meaningful where it applies
  // [34, 1024, 1024] float32 = 136 MiB plus a broadcast [1024] row.
  const uint64_t n = 34ull << 20;
  Tensor a = Tensor::Allocate(DataType::kFloat32, {34, 1024, 1024});
  Tensor b = Tensor::Allocate(DataType::kFloat32, {1024});
  float* pa = a.base<float>();
  for (uint64_t i = 0; i < n; ++i) pa[i] = static_cast<float>(i % 65521) * 0.25f;
  for (size_t i = 0; i < 1024; ++i) b.base<float>()[i] = static_cast<float>(i);
  CHECK(n * 4 > range);
  const Tensor sum = Run({a, b}, [](GraphBuilder& g, const std::vector<Operand>& in) {
    return ElementwiseBinary(g, BinaryOp::kAdd, in[0], in[1]);
  });
  const float* ps = sum.base<float>();
  uint64_t wrong = 0;
  for (uint64_t i = 0; i < n; ++i) wrong += ps[i] != pa[i] + static_cast<float>(i % 1024);
  CHECK(wrong == 0);
}

TEST_CASE("vulkan: gru whose packed weights exceed maxStorageBufferRange is refused") {
  GraphBuilder builder;
  // weight and recurrentWeight [1, 9216, 3072] float32: 108 MiB each, bindable alone, not packed
  // together (lavapipe's range is 128 MiB; no data is ever allocated).
  const Operand x = builder.Input("x", {DataType::kFloat32, {1, 1, 3072}});
  const Operand w = builder.Input("w", {DataType::kFloat32, {1, 9216, 3072}});
  const Operand r = builder.Input("r", {DataType::kFloat32, {1, 9216, 3072}});
  const std::vector<Operand> y = Gru(builder, x, w, r, 1, 3072);
  const std::shared_ptr<const Graph> graph = builder.Build({{"y", y[0]}});
  std::string why;
  const std::optional<BackendGraph> compiled = CompileForBackend(*graph, TheBackend(), why);
  CHECK_FALSE(compiled);
  CHECK(why.find("packed weights of one direction") != std::string::npos);
}

}  // namespace
}  // namespace nnref
