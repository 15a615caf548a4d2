// The simd backend's element-wise family on every compiled Highway target: ragged row lengths
// around every vector width, broadcast (step 0) operands, strided and broadcast tensor views,
// float16 rows, and bit-identical results for 1 and 2 threads. Expected values are computed
// here in double and rounded to float, independently of the kernels.
#include <doctest/doctest.h>
#include <hwy/targets.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "numerics/float16.h"
#include "numerics/ulp.h"
#include "ops/activations.h"
#include "ops/elementwise_binary.h"
#include "ops/elementwise_unary.h"
#include "ops/simd/family.h"
#include "ops/simd/rows.h"
#include "ops/simd/simd_backend.h"
#include "ref/graph/graph.h"

namespace nnref::simd {
namespace {

// Runs `body` once per Highway target compiled into the binary and supported by this CPU.
template <class Body>
void ForEachTarget(const Body& body) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string name = hwy::TargetName(target);
    CAPTURE(name);
    body();
  }
  hwy::SetSupportedTargetsForTest(0);
}

std::vector<float> Ramp(size_t n, float scale, float shift) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    v[i] = scale * static_cast<float>((static_cast<int>(i * 37) % 101) - 50) / 50.0f + shift;
  }
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

TEST_CASE("simd rows: binary arithmetic is exact float32 arithmetic at every length and step") {
  ForEachTarget([] {
    for (size_t n = 1; n <= 70; ++n) {
      const std::vector<float> a = Ramp(n, 3.0f, 0.25f), b = Ramp(n + 7, 2.0f, 1.5f);
      std::vector<float> out(n, std::nanf(""));  // NaN prefill: every element must be written
      for (size_t b_step : {size_t{0}, size_t{1}}) {
        BinaryRow(RowBinary::kAdd, a.data(), 1, b.data() + 3, b_step, out.data(), n);
        for (size_t i = 0; i < n; ++i) {
          REQUIRE(out[i] == a[i] + b[3 + (b_step ? i : 0)]);
        }
        BinaryRow(RowBinary::kDiv, b.data() + 3, b_step, a.data(), 1, out.data(), n);
        for (size_t i = 0; i < n; ++i) {
          const double q = static_cast<double>(b[3 + (b_step ? i : 0)]) / static_cast<double>(a[i]);
          REQUIRE(out[i] == static_cast<float>(q));  // IEEE division is correctly rounded
        }
        BinaryRow(RowBinary::kPrelu, a.data(), 1, b.data(), b_step, out.data(), n);
        for (size_t i = 0; i < n; ++i) {
          const float s = b[b_step ? i : 0];
          REQUIRE(out[i] == (a[i] < 0 ? a[i] * s : a[i]));
        }
      }
    }
  });
}

TEST_CASE("simd rows: pow by a row-wide exponent of 2 or 3 within 1 ulp, special values as pow") {
  // Exact cubes and squares (1.5^3 = 3.375), (1 + 2^-12)^3 = 1 + 3 * 2^-12 + 3 * 2^-24 + 2^-36,
  // which rounds up to 1 + 3 * 2^-12 + 2^-22 (the 2^-36 decides the tie), signed zeros, the
  // infinities, NaN, an overflow to infinity and an underflow to 0; then ramps against pow in
  // long double.
  const float t = 1.0f + 0x1p-12f;
  const std::vector<float> a = {1.5f,      -1.5f,         t,     -0.0f,  0.0f, INFINITY,
                                -INFINITY, std::nanf(""), 1e13f, 1e-20f, -3.0f};
  const float cube[] = {3.375f,    -3.375f,       1.0f + 3 * 0x1p-12f + 0x1p-22f,
                        -0.0f,     0.0f,          INFINITY,
                        -INFINITY, std::nanf(""), INFINITY,
                        0.0f,      -27.0f};
  ForEachTarget([&] {
    std::vector<float> out(a.size());
    const float three = 3.0f, two = 2.0f;
    BinaryRow(RowBinary::kPow, a.data(), 1, &three, 0, out.data(), a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      CAPTURE(i);
      if (std::isnan(cube[i])) {
        REQUIRE(std::isnan(out[i]));
      } else {
        REQUIRE(std::memcmp(&out[i], &cube[i], 4) == 0);  // bits: the sign of a zero too
      }
    }
    BinaryRow(RowBinary::kPow, a.data(), 1, &two, 0, out.data(), a.size());
    REQUIRE(out[0] == 2.25f);
    REQUIRE(out[1] == 2.25f);
    REQUIRE(!std::signbit(out[3]));  // (-0)^2 = +0
    REQUIRE(out[6] == INFINITY);
    for (size_t n = 1; n <= 70; ++n) {
      const std::vector<float> x = Ramp(n, 7.0f, 0.1f);
      std::vector<float> y(n, std::nanf(""));
      for (const float e : {2.0f, 3.0f}) {
        BinaryRow(RowBinary::kPow, x.data(), 1, &e, 0, y.data(), n);
        for (size_t i = 0; i < n; ++i) {
          const auto exact = static_cast<float>(std::pow(static_cast<long double>(x[i]), e));
          REQUIRE(UlpsApart(y[i], exact) <= 1);
        }
      }
    }
  });
}

TEST_CASE("simd rows: unary functions within their bounds, including the scalar fix-ups") {
  struct Row {
    RowUnary op;
    double (*exact)(double);
    double max_ulp;
  };
  const Row rows[] = {
      {RowUnary::kExp, [](double x) { return std::exp(x); }, 4},
      {RowUnary::kLog, [](double x) { return std::log(x); }, 4},
      {RowUnary::kSin, [](double x) { return std::sin(x); }, 4},
      {RowUnary::kCos, [](double x) { return std::cos(x); }, 4},
      {RowUnary::kTanh, [](double x) { return std::tanh(x); }, 6},
      {RowUnary::kSqrt, [](double x) { return std::sqrt(x); }, 0},
      {RowUnary::kFloor, [](double x) { return std::floor(x); }, 0},
      {RowUnary::kRoundEven, [](double x) { return std::nearbyint(x); }, 0},
      {RowUnary::kSigmoid, [](double x) { return 1 / (1 + std::exp(-x)); }, 6},
      {RowUnary::kSoftplus,
       [](double x) { return std::fmax(x, 0.0) + std::log1p(std::exp(-std::fabs(x))); }, 6},
      {RowUnary::kGelu, [](double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }, 8},
  };
  // Inputs in and out of contrib/math's documented ranges (the scalar fix-ups), and the tails.
  std::vector<float> x = {0.5f, 2.5f, 1e-3f, 7.0f, 20.0f, 80.0f, 95.0f, 1e5f, -3.0f, -0.75f,
                          -9.5f, -90.0f, -104.0f, 4.5e4f, 1.0f, 1.5f, 0.0f, 3.0f, -8.0f};
  ForEachTarget([&] {
    for (const Row& r : rows) {
      for (size_t n : {size_t{1}, size_t{3}, size_t{7}, size_t{9}, size_t{15}, size_t{17},
                       x.size()}) {
        std::vector<float> out(n, std::nanf(""));
        UnaryRow(r.op, x.data(), out.data(), n, 0, 0);
        for (size_t i = 0; i < n; ++i) {
          const double e = r.exact(static_cast<double>(x[i]));
          if (std::isnan(e)) continue;  // outside the domain: not this test's business
          const float want = static_cast<float>(e);
          CAPTURE(static_cast<int>(r.op));
          CAPTURE(x[i]);
          CHECK(UlpsApart(out[i], want) <= r.max_ulp);
        }
      }
    }
  });
}

TEST_CASE("simd rows: float16 conversions are IEEE round-to-nearest-even on every target") {
  ForEachTarget([] {
    std::vector<uint16_t> all(65536);
    for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
    std::vector<float> widened(all.size());
    HalfToFloatRow(all.data(), widened.data(), all.size());
    for (size_t i = 0; i < all.size(); ++i) {
      const double want = Float16{all[i]}.ToDouble();
      if (std::isnan(want)) {
        REQUIRE(std::isnan(widened[i]));
      } else {
        REQUIRE(static_cast<double>(widened[i]) == want);
        REQUIRE(std::signbit(widened[i]) == std::signbit(want));
      }
    }
    // Floats at and between every pair of neighbouring float16 values (ties to even), overflow.
    std::vector<float> f;
    for (uint32_t h = 0; h < 0x7c00; h += 7) {
      const double lo = Float16{static_cast<uint16_t>(h)}.ToDouble();
      const double hi = Float16{static_cast<uint16_t>(h + 1)}.ToDouble();
      f.push_back(static_cast<float>((lo + hi) / 2));
      f.push_back(-static_cast<float>(lo + (hi - lo) * 0.25));
    }
    f.push_back(1e6f);
    f.push_back(-INFINITY);
    std::vector<uint16_t> narrowed(f.size());
    FloatToHalfRow(f.data(), narrowed.data(), f.size());
    for (size_t i = 0; i < f.size(); ++i) {
      CAPTURE(f[i]);
      REQUIRE(narrowed[i] == Float16::FromDouble(static_cast<double>(f[i])).bits);
    }
  });
}

// add(a, b) with b broadcast over a's rows, and a a transposed (strided) view.
OperandValue RunAdd(const Backend& backend, const Tensor& a, const Tensor& b) {
  GraphBuilder builder;
  const Operand x = builder.Input("a", {a.dtype(), a.shape()});
  const Operand y = builder.Input("b", {b.dtype(), b.shape()});
  const Operand sum = ElementwiseBinary(builder, BinaryOp::kAdd, x, y);
  const Operand out = ElementwiseUnary(builder, UnaryOp::kExp, sum);
  const std::shared_ptr<const Graph> graph = builder.Build({{"out", out}});
  std::string why;
  const std::optional<BackendGraph> compiled =
      CompileForBackend(*graph, std::shared_ptr<const Backend>(&backend, [](const Backend*) {}),
                        why);
  REQUIRE_MESSAGE(compiled, why);
  return graph->Compute({{"a", a}, {"b", b}}, {}, compiled->kernels).at("out");
}

TEST_CASE("simd backend: broadcast and strided operands, float16, and 1 vs 2 threads") {
  const std::shared_ptr<const Backend> one = MakeSimdBackend(BackendOptions{1});
  const std::shared_ptr<const Backend> two = MakeSimdBackend(BackendOptions{2});
  for (DataType type : {DataType::kFloat32, DataType::kFloat16}) {
    CAPTURE(DataTypeName(type));
    // a: [37, 300] as the transpose of a dense [300, 37] buffer; b: [300] broadcast over rows.
    const Shape dense_shape = {300, 37};
    Tensor dense = Tensor::Allocate(type, dense_shape);
    Tensor b = Tensor::Allocate(type, {300});
    const auto set = [type](const Tensor& t, uint64_t i, double v) {
      if (type == DataType::kFloat16) {
        t.base<Float16>()[i] = Float16::FromDouble(v);
      } else {
        t.base<float>()[i] = static_cast<float>(v);
      }
    };
    const auto get = [type](const Tensor& t, uint64_t i) {
      return type == DataType::kFloat16 ? t.At<Float16>(i).ToDouble()
                                        : static_cast<double>(t.At<float>(i));
    };
    for (uint64_t i = 0; i < 300 * 37; ++i) set(dense, i, std::sin(static_cast<double>(i)));
    for (uint64_t i = 0; i < 300; ++i) set(b, i, 0.001 * static_cast<double>(i) - 0.15);
    const Tensor a = dense.Permute({1, 0});
    const OperandValue r1 = RunAdd(*one, a, b);
    const OperandValue r2 = RunAdd(*two, a, b);
    REQUIRE(r1.data.shape() == Shape{37, 300});
    REQUIRE(r1.data.Bytes() == r2.data.Bytes());  // bit-identical for any thread count
    for (uint64_t row = 0; row < 37; ++row) {
      for (uint64_t col = 0; col < 300; ++col) {
        const double want = std::exp(get(dense, col * 37 + row) + get(b, col));
        const double got = get(r1.data, row * 300 + col);
        // float32: exp within 4 ulp of the exact sum's exp, plus the sum's rounding (1 ulp of
        // the sum, |sum| < 1.2, times exp' = exp): a relative 2^-20 covers both.
        const double rel = type == DataType::kFloat16 ? 2e-3 : std::ldexp(1.0, -20);
        REQUIRE(std::fabs(got - want) <= rel * want);
      }
    }
  }
}

// The stable-diffusion ResBlock's element-wise shapes: mul of [1, 320, 8, 8] by a [320, 1, 1]
// scale (320 rows of 64: 160 and 160 rows on two threads, TaskGrain) and sigmoid of 20480
// elements in one row (10 chunks of kRowChunk, 5 and 5). Both bit for bit against the product
// written here (float32 multiplication is exact-then-rounded) and between 1 and 2 threads.
TEST_CASE("simd backend: the ResBlock's broadcast mul and long sigmoid, 1 vs 2 threads") {
  const std::shared_ptr<const Backend> one = MakeSimdBackend(BackendOptions{1});
  const std::shared_ptr<const Backend> two = MakeSimdBackend(BackendOptions{2});
  const Shape xs = {1, 320, 8, 8}, gs = {320, 1, 1};
  const std::vector<float> xv = Ramp(20480, 1.5f, 0.01f), gv = Ramp(320, 0.2f, 1.0f);
  Tensor x = Tensor::Allocate(DataType::kFloat32, xs), g = Tensor::Allocate(DataType::kFloat32, gs);
  std::memcpy(x.base<float>(), xv.data(), xv.size() * sizeof(float));
  std::memcpy(g.base<float>(), gv.data(), gv.size() * sizeof(float));
  GraphBuilder builder;
  const Operand a = builder.Input("x", {DataType::kFloat32, xs});
  const Operand b = builder.Input("g", {DataType::kFloat32, gs});
  const Operand product = ElementwiseBinary(builder, BinaryOp::kMul, a, b);
  const Operand sig = Sigmoid(builder, a);
  const std::shared_ptr<const Graph> graph = builder.Build({{"mul", product}, {"sig", sig}});
  std::map<std::string, OperandValue> r[2];
  for (int t = 0; t < 2; ++t) {
    std::string why;
    const std::optional<BackendGraph> compiled = CompileForBackend(*graph, t == 0 ? one : two, why);
    REQUIRE_MESSAGE(compiled, why);
    r[t] = graph->Compute({{"x", x}, {"g", g}}, {}, compiled->kernels);
  }
  for (const char* name : {"mul", "sig"}) {
    CAPTURE(name);
    REQUIRE(r[0].at(name).data.Bytes() == r[1].at(name).data.Bytes());
  }
  size_t bad = 0;
  for (size_t i = 0; i < 20480; ++i) {
    const float want = xv[i] * gv[i / 64];
    if (r[1].at("mul").data.base<float>()[i] != want) ++bad;
    const double s = 1.0 / (1.0 + std::exp(-static_cast<double>(xv[i])));
    if (std::fabs(static_cast<double>(r[1].at("sig").data.base<float>()[i]) - s) >
        std::ldexp(s, -20)) {
      ++bad;
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("simd TaskGrain: tasks of at least task_elements, units shared evenly") {
  CHECK(TaskGrain(320, 64, 8192, 2) == 160);  // 20480 elements: two tasks of 160 rows
  CHECK(TaskGrain(10, 2048, 8192, 2) == 5);   // 20480 in chunks of 2048: 5 and 5
  CHECK(TaskGrain(32, 640, 8192, 2) == 16);   // instanceNormalization's 32 groups of 640
  CHECK(TaskGrain(3, 2048, 8192, 2) == 3);    // 6144 elements: one task
  CHECK(TaskGrain(320, 64, 8192, 1) == 320);  // one thread: one task
  CHECK(TaskGrain(7, 1 << 20, 8192, 4) == 2);  // 4 tasks of 2, 2, 2, 1
  CHECK(TaskGrain(1, 1 << 20, 8192, 2) == 1);
  CHECK(TaskGrain(0, 64, 8192, 2) == 1);
}

}  // namespace
}  // namespace nnref::simd
