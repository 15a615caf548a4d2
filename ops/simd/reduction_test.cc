// Tests of the simd backend's reductions, softmax, normalizations, pools and resample2d
// (reduction.cc, softmax.cc, normalization.cc, pool2d.cc, resample2d.cc and their Highway row
// functions) on every compiled SIMD target: ragged row lengths around the vector widths, strided
// (transposed) input views, float16 and integer data, each against an independent double
// computation written here; and bit-identical results for 1 and 2 threads.
#include "ops/reduction.h"

#include <doctest/doctest.h>
#include <hwy/targets.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <vector>

#include "numerics/float16.h"
#include "ops/normalization.h"
#include "ops/pool2d.h"
#include "ops/resample2d.h"
#include "ops/simd/reduction_rows.h"
#include "ops/simd/simd_backend.h"
#include "ops/simd/window_rows.h"
#include "ops/softmax.h"

namespace nnref {
namespace {

using simd::RowPool;
using simd::RowReduce;

// Row lengths: 1, and one below / at / above every vector width (4, 8, 16 float lanes), and long.
const size_t kSizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 100, 1000};

// Runs `body` once per compiled Highway target (each forced in turn), then restores dispatch.
void ForEachTarget(const std::function<void()>& body) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string target_name = hwy::TargetName(target);
    CAPTURE(target_name);
    body();
  }
  hwy::SetSupportedTargetsForTest(0);
}

// Deterministic uniform values in [lo, hi).
struct Rng {
  uint64_t s;
  double Next(double lo, double hi) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + (hi - lo) * static_cast<double>(s >> 11) * 0x1p-53;
  }
};

std::vector<float> RandomRow(size_t n, uint64_t seed, double lo = -4, double hi = 4) {
  Rng rng{seed};
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(rng.Next(lo, hi));
  return v;
}

double D(float f) { return static_cast<double>(f); }

double Ulp32(double v) {
  const double a = std::fabs(v);
  if (a < 0x1p-126) return 0x1p-149;
  int e = 0;
  std::frexp(a, &e);
  return std::ldexp(1.0, e - 24);
}

// |got - want| within `ulps` float32 ULP of want (NaN matches NaN).
void Near(double got, double want, double ulps, const std::string& what) {
  if (std::isnan(want)) {
    CHECK_MESSAGE(std::isnan(got), what << ": got " << got << ", want NaN");
    return;
  }
  if (std::isinf(want)) {
    CHECK_MESSAGE(got == want, what << ": got " << got << ", want " << want);
    return;
  }
  CHECK_MESSAGE(std::fabs(got - want) <= ulps * Ulp32(want),
                what << ": got " << got << ", want " << want << " ("
                     << std::fabs(got - want) / Ulp32(want) << " ulp)");
}

// ---------------------------------------------------------------------------------------------
// Row functions

TEST_CASE("simd reduction rows: every target, ragged lengths, against double") {
  ForEachTarget([] {
    for (size_t n : kSizes) {
      CAPTURE(n);
      const std::vector<float> x = RandomRow(n, 7 + n);
      double sum = 0, abs = 0, sq = 0, mx = -INFINITY, mn = INFINITY;
      for (float v : x) {
        const double d = v;
        sum += d;
        abs += std::fabs(d);
        sq += d * d;
        mx = std::max(mx, d);
        mn = std::min(mn, d);
      }
      // Compensated: within 2 ulp of the result plus a term far below a plain float sum's error.
      CHECK(std::fabs(simd::SumRow(x.data(), n) - sum) <= 2 * Ulp32(sum) + 0x1p-44 * abs);
      Near(simd::ReduceRow(RowReduce::kSum, x.data(), n), sum, 2 + 0x1p-20 * abs / Ulp32(sum),
           "sum");
      Near(simd::ReduceRow(RowReduce::kSumAbs, x.data(), n), abs, static_cast<double>(n), "L1");
      Near(simd::ReduceRow(RowReduce::kSumSquare, x.data(), n), sq, 2.0 * static_cast<double>(n),
           "sumSquare");
      CHECK(simd::ReduceRow(RowReduce::kMax, x.data(), n) == static_cast<float>(mx));
      CHECK(simd::ReduceRow(RowReduce::kMin, x.data(), n) == static_cast<float>(mn));

      const std::vector<float> p = RandomRow(n, 11 + n, 0.5, 1.5);
      double prod = 1;
      for (float v : p) prod *= D(v);
      Near(simd::ReduceRow(RowReduce::kProduct, p.data(), n), prod, static_cast<double>(n) + 1,
           "product");

      // logSumExp and softmax with the maximum subtracted in double.
      double se = 0;
      for (float v : x) se += std::exp(static_cast<double>(v) - mx);
      Near(simd::LogSumExpRow(x.data(), n), mx + std::log(se), 8, "logSumExp");
      std::vector<float> y(n);
      simd::SoftmaxRow(x.data(), y.data(), n);
      for (size_t i = 0; i < n; ++i) {
        Near(y[i], std::exp(static_cast<double>(x[i]) - mx) / se, 8, "softmax");
      }

      // Affine row: per-element mean/scale/bias rows and broadcast ones.
      const std::vector<float> a = RandomRow(n, 13 + n), b = RandomRow(n, 17 + n);
      std::vector<double> m(n), r(n);
      for (size_t i = 0; i < n; ++i) {
        m[i] = static_cast<double>(b[i]) * 0.5;
        r[i] = 1.0 / (1.5 + static_cast<double>(i));
      }
      simd::NormalizeRow(x.data(), m.data(), 1, a.data(), 1, r.data(), 1, b.data(), 1, y.data(), n);
      for (size_t i = 0; i < n; ++i) {
        const double want = (D(x[i]) - m[i]) * (D(a[i]) * r[i]) + D(b[i]);
        Near(y[i], want, 1, "normalize");
      }
      simd::NormalizeRow(x.data(), m.data(), 0, a.data(), 0, r.data(), 0, b.data(), 0, y.data(), n);
      for (size_t i = 0; i < n; ++i) {
        const double want = (D(x[i]) - m[0]) * (D(a[0]) * r[0]) + D(b[0]);
        Near(y[i], want, 1, "normalize broadcast");
      }

      // Pooling across n channels of 5 window rows.
      std::vector<std::vector<float>> rows;
      std::vector<const float*> ptrs;
      for (uint64_t k = 0; k < 5; ++k) rows.push_back(RandomRow(n, 100 * k + n));
      for (const auto& row : rows) ptrs.push_back(row.data());
      std::vector<float> avg(n), l2(n), pmax(n), psum(n), per(n);
      std::vector<double> divisors(n);
      for (size_t c = 0; c < n; ++c) divisors[c] = static_cast<double>(c % 5 + 1);
      simd::PoolRow(RowPool::kAverage, ptrs.data(), 5, n, avg.data());
      simd::PoolRow(RowPool::kL2, ptrs.data(), 5, n, l2.data());
      simd::PoolRow(RowPool::kMax, ptrs.data(), 5, n, pmax.data());
      simd::PoolRow(RowPool::kSum, ptrs.data(), 5, n, psum.data());
      simd::PoolRow(RowPool::kSum, ptrs.data(), 5, n, per.data(), divisors.data());
      for (size_t c = 0; c < n; ++c) {
        double s = 0, s2 = 0, best = -INFINITY;
        for (const auto& row : rows) {
          s += D(row[c]);
          s2 += D(row[c]) * D(row[c]);
          best = std::max(best, static_cast<double>(row[c]));
        }
        Near(avg[c], s / 5, 2, "averagePool");
        Near(psum[c], s, 2, "sum (NNEF box)");
        Near(per[c], s / divisors[c], 2, "sum over per-channel counts (NNEF box, 'ignore')");
        Near(l2[c], std::sqrt(s2), 4, "l2Pool");
        CHECK(pmax[c] == static_cast<float>(best));
      }

      // Linear interpolation with gathered indices.
      std::vector<int32_t> i0(n), i1(n);
      std::vector<double> tx(n);
      Rng rng{n};
      for (size_t i = 0; i < n; ++i) {
        i0[i] = static_cast<int32_t>(rng.Next(0, static_cast<double>(n)));
        i1[i] = std::min<int32_t>(i0[i] + 1, static_cast<int32_t>(n) - 1);
        tx[i] = rng.Next(0, 1);
      }
      simd::LerpRow(x.data(), a.data(), i0.data(), i1.data(), tx.data(), 0.3, y.data(), n);
      for (size_t i = 0; i < n; ++i) {
        const double top = D(x[static_cast<size_t>(i0[i])]) * (1 - tx[i]) +
                           D(x[static_cast<size_t>(i1[i])]) * tx[i];
        const double bottom = D(a[static_cast<size_t>(i0[i])]) * (1 - tx[i]) +
                              D(a[static_cast<size_t>(i1[i])]) * tx[i];
        Near(y[i], top * 0.7 + bottom * 0.3, 1, "lerp");
      }
    }
  });
}

TEST_CASE("simd reduction rows: cancellation, zeros, NaN, infinities, extreme exponents") {
  ForEachTarget([] {
    const float c[] = {1e8f, 1.0f, -1e8f, 1e-8f};
    CHECK(simd::ReduceRow(RowReduce::kSum, c, 4) == 1.0f);
    for (size_t n : kSizes) {
      CAPTURE(n);
      std::vector<float> z(n, -0.0f);
      CHECK(std::signbit(simd::ReduceRow(RowReduce::kSum, z.data(), n)));  // sum of -0s is -0
      CHECK(std::signbit(simd::ReduceRow(RowReduce::kMax, z.data(), n)));
      z[n / 2] = 0.0f;
      CHECK(!std::signbit(simd::ReduceRow(RowReduce::kMax, z.data(), n)));  // +0 beats -0
      for (float& v : z) v = 0.0f;
      z[n - 1] = -0.0f;
      CHECK(std::signbit(simd::ReduceRow(RowReduce::kMin, z.data(), n)));  // -0 beats +0
      std::vector<float> x = RandomRow(n, n);
      x[n - 1] = std::numeric_limits<float>::quiet_NaN();
      CHECK(std::isnan(simd::ReduceRow(RowReduce::kMax, x.data(), n)));
      CHECK(std::isnan(simd::ReduceRow(RowReduce::kMin, x.data(), n)));
      CHECK(std::isnan(simd::LogSumExpRow(x.data(), n)));
      std::vector<float> y(n);
      simd::SoftmaxRow(x.data(), y.data(), n);
      for (float v : y) CHECK(std::isnan(v));
      // A NaN first or in the middle (the max may or may not see it; the sum must), and beside
      // +Infinity (Infinity - Infinity is NaN too): NaN everywhere.
      for (const size_t at : {size_t{0}, n / 2}) {
        x = RandomRow(n, n);
        x[at] = std::numeric_limits<float>::quiet_NaN();
        if (n > 1) x[(at + 1) % n] = std::numeric_limits<float>::infinity();
        CHECK(std::isnan(simd::LogSumExpRow(x.data(), n)));
        simd::SoftmaxRow(x.data(), y.data(), n);
        for (float v : y) CHECK(std::isnan(v));
        if (n == 1) continue;
        x[(at + 1) % n] = 0.5f;
        simd::SoftmaxRow(x.data(), y.data(), n);
        for (float v : y) CHECK(std::isnan(v));
      }
      // Terms whose exp is subnormal (x - max < -87) still count.
      x = RandomRow(n, n, -100, -90);
      x[0] = 0;
      double rest = 0;  // the terms but exp(0) = 1
      for (size_t i = 1; i < n; ++i) rest += std::exp(D(x[i]));
      simd::SoftmaxRow(x.data(), y.data(), n);
      for (size_t i = 0; i < n; ++i) Near(y[i], std::exp(D(x[i])) / (1 + rest), 8, "sm");
      Near(simd::LogSumExpRow(x.data(), n), std::log1p(rest), 8, "logSumExp tiny terms");
    }
  });
}

TEST_CASE("simd exp of softmax and logSumExp: within 2 ulp on [-87, 0], every target") {
  // Every 61st float32 bit pattern in [-87, 0] (about 18 million values, the whole binade range
  // and every residue of the reduction), plus the ends and the points where n changes, against
  // exp in double (correctly rounded to within 2^-53 relative, far below the ulps counted here).
  std::vector<float> x;
  uint32_t bits = 0x80000000u;  // -0
  const float low = -87.0f;
  uint32_t low_bits;
  std::memcpy(&low_bits, &low, sizeof low_bits);
  for (; bits <= low_bits; bits += 61) {
    float v;
    std::memcpy(&v, &bits, sizeof v);
    x.push_back(v);
  }
  for (int k = -125; k <= 0; ++k) {
    const double boundary = (k - 0.5) * 0.6931471805599453;
    x.push_back(std::nextafter(static_cast<float>(boundary), 0.0f));
    x.push_back(static_cast<float>(boundary));
    x.push_back(std::nextafter(static_cast<float>(boundary), -1.0f));
  }
  x.push_back(0.0f);
  x.push_back(low);
  std::vector<float> y(x.size());
  ForEachTarget([&] {
    simd::ExpNonPositiveRow(x.data(), y.data(), x.size());
    double worst = 0;
    float worst_x = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      if (x[i] < low) continue;
      const double want = std::exp(D(x[i]));
      const double err = std::fabs(D(y[i]) - want) / Ulp32(want);
      if (err > worst) {
        worst = err;
        worst_x = x[i];
      }
    }
    MESSAGE("largest error " << worst << " ulp at x = " << worst_x);
    CHECK(worst <= 2.0);
    const float zero[2] = {0.0f, -0.0f};
    float one[2];
    simd::ExpNonPositiveRow(zero, one, 2);
    CHECK(one[0] == 1.0f);  // exp(0) exactly: the maximum's term of softmax
    CHECK(one[1] == 1.0f);
  });
}

// ---------------------------------------------------------------------------------------------
// Kernels through the backend

// A tensor of `shape` whose memory order has the last axis outermost (a transposed view), or a
// contiguous one; float32/float16 values uniform in [lo, hi).
Tensor MakeInput(DataType type, const Shape& shape, bool transposed, uint64_t seed, double lo = -2,
                 double hi = 2) {
  Shape stored = shape;
  std::vector<uint32_t> perm(shape.size());
  if (transposed && shape.size() > 1) {
    stored.assign(1, shape.back());
    stored.insert(stored.end(), shape.begin(), shape.end() - 1);
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<uint32_t>((i + 1) % perm.size());
  }
  Tensor t = Tensor::Allocate(type, stored);
  Rng rng{seed};
  for (uint64_t i = 0; i < t.element_count(); ++i) {
    const double v = rng.Next(lo, hi);
    if (type == DataType::kFloat16) {
      t.base<Float16>()[i] = Float16::FromDouble(v);
    } else {
      t.base<float>()[i] = static_cast<float>(v);
    }
  }
  return transposed && shape.size() > 1 ? t.Permute(perm) : t;
}

double Value(const Tensor& t, uint64_t linear) {
  return t.dtype() == DataType::kFloat16 ? t.At<Float16>(linear).ToDouble()
                                         : static_cast<double>(t.At<float>(linear));
}

// Builds one operator on input "x" (descriptor of `x`), makes the simd kernel for it and runs it
// on the view `x` (constants of the graph as their values).
Tensor RunSimd(const std::function<Operand(GraphBuilder&, const Operand&)>& build, const Tensor& x,
               unsigned threads = 2) {
  GraphBuilder b;
  const Operand in = b.Input("x", {x.dtype(), x.shape()});
  const auto graph = b.Build({{"y", build(b, in)}});
  REQUIRE(graph->operators().size() == 1);
  const auto backend = MakeSimdBackend({threads});
  std::string why;
  const auto kernel = backend->MakeKernel(*graph, 0, why);
  REQUIRE_MESSAGE(kernel, why);
  const OperatorNode& node = graph->operators()[0];
  std::vector<OperandValue> values(node.inputs.size());
  std::vector<const OperandValue*> ptrs;
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    const OperandNode& operand = graph->operand(node.inputs[k]);
    values[k].data = operand.kind == OperandNode::Kind::kConstant ? operand.constant : x;
    ptrs.push_back(&values[k]);
  }
  const std::vector<OperandDescriptor> outs{graph->operand(node.outputs[0]).desc};
  return kernel->Compute(ptrs, outs).at(0).data;
}

Operand Constant(GraphBuilder& b, const std::vector<float>& v, const Shape& shape) {
  Tensor t = Tensor::Allocate(DataType::kFloat32, shape);
  std::memcpy(t.base<float>(), v.data(), v.size() * sizeof(float));
  return b.Constant({DataType::kFloat32, shape}, t);
}

// Row-major multi-index of `linear` in `shape`.
std::vector<uint64_t> Index(uint64_t linear, const Shape& shape) {
  std::vector<uint64_t> idx(shape.size());
  for (size_t a = shape.size(); a-- > 0;) {
    idx[a] = linear % shape[a];
    linear /= shape[a];
  }
  return idx;
}

TEST_CASE("simd reductions: axes, keepDimensions, transposed views, float16") {
  const Shape shape{5, 7, 9};
  const std::vector<std::vector<uint32_t>> axes_sets = {{},     {0},    {1},      {2},
                                                        {0, 2}, {2, 1}, {0, 1, 2}};
  const ReduceOp ops[] = {ReduceOp::kSum,   ReduceOp::kMean,      ReduceOp::kL1,
                          ReduceOp::kL2,    ReduceOp::kSumSquare, ReduceOp::kMax,
                          ReduceOp::kMin,   ReduceOp::kProduct,   ReduceOp::kLogSumExp,
                          ReduceOp::kLogSum};
  ForEachTarget([&] {
    for (DataType type : {DataType::kFloat32, DataType::kFloat16}) {
      for (bool transposed : {false, true}) {
        // Positive values for logSum (log of a sum) and product (bounded magnitude).
        const Tensor x = MakeInput(type, shape, transposed, 42, 0.6, 1.6);
        const Tensor xs = MakeInput(type, shape, transposed, 43);
        for (ReduceOp op : ops) {
          const bool positive = op == ReduceOp::kLogSum || op == ReduceOp::kProduct;
          const Tensor& in = positive ? x : xs;
          for (const auto& axes : axes_sets) {
            for (bool keep : {false, true}) {
              CAPTURE(OpName(ReduceOpId(op)));
              CAPTURE(DataTypeName(type));
              CAPTURE(transposed);
              CAPTURE(axes.size());
              CAPTURE(keep);
              MLReduceOptions o;
              o.axes = axes;
              o.keepDimensions = keep;
              const Tensor y = RunSimd(
                  [&](GraphBuilder& b, const Operand& v) { return Reduce(b, op, v, o); }, in);
              // Expected: the reduced values of each output element, in double.
              std::vector<bool> reduced(3, false);
              for (uint32_t a : axes) reduced[a] = true;
              std::vector<std::vector<double>> groups(y.element_count());
              for (uint64_t i = 0; i < in.element_count(); ++i) {
                const auto idx = Index(i, shape);
                uint64_t g = 0;
                for (size_t a = 0; a < 3; ++a) {
                  if (!reduced[a]) g = g * shape[a] + idx[a];
                }
                groups[g].push_back(Value(in, i));
              }
              for (uint64_t g = 0; g < groups.size(); ++g) {
                const auto& v = groups[g];
                double s = 0, s1 = 0, s2 = 0, p = 1, mx = -INFINITY, mn = INFINITY;
                for (double d : v) {
                  s += d;
                  s1 += std::fabs(d);
                  s2 += d * d;
                  p *= d;
                  mx = std::max(mx, d);
                  mn = std::min(mn, d);
                }
                double se = 0;
                for (double d : v) se += std::exp(d - mx);
                const double n = static_cast<double>(v.size());
                double want = 0, ulps = 4;
                switch (op) {
                  case ReduceOp::kSum:
                    want = s;
                    ulps = 2 + 0x1p-20 * s1 / Ulp32(s);
                    break;
                  case ReduceOp::kMean:
                    want = s / n;
                    ulps = 2 + 0x1p-20 * s1 / n / Ulp32(s / n);
                    break;
                  case ReduceOp::kL1:
                    want = s1;
                    ulps = n + 1;
                    break;
                  case ReduceOp::kL2:
                    want = std::sqrt(s2);
                    ulps = n + 1;
                    break;
                  case ReduceOp::kSumSquare:
                    want = s2;
                    ulps = 2 * n;
                    break;
                  case ReduceOp::kMax:
                    want = mx;
                    ulps = 0;
                    break;
                  case ReduceOp::kMin:
                    want = mn;
                    ulps = 0;
                    break;
                  case ReduceOp::kProduct:
                    want = p;
                    ulps = n + 1;
                    break;
                  case ReduceOp::kLogSumExp:
                    want = mx + std::log(se);
                    ulps = 8;
                    break;
                  case ReduceOp::kLogSum:
                    want = std::log(s);
                    ulps = 8;
                    break;
                }
                if (type == DataType::kFloat16) {
                  // Computed in float32 and rounded once to float16: within 1 float16 ulp.
                  const double got = y.At<Float16>(g).ToDouble();
                  if (std::isinf(Float16::FromDouble(want).ToDouble())) {
                    CHECK(got == Float16::FromDouble(want).ToDouble());  // beyond float16
                  } else {
                    CHECK_MESSAGE(std::fabs(got - want) <= 0x1p-10 * std::fabs(want) + 0x1p-20,
                                  "group " << g << ": got " << got << ", want " << want);
                  }
                } else {
                  Near(y.At<float>(g), want, ulps, "reduction");
                }
              }
            }
          }
        }
      }
    }
  });
}

TEST_CASE("simd reductions: integer types wrap modulo 2^N") {
  Tensor x = Tensor::Allocate(DataType::kInt32, {2, 3});
  const int32_t v[] = {2147483647, 1, 5, -7, 3, -2147483647 - 1};
  std::memcpy(x.base<int32_t>(), v, sizeof v);
  MLReduceOptions o;
  o.axes = std::vector<uint32_t>{1};
  const auto run = [&](ReduceOp op) {
    return RunSimd([&](GraphBuilder& g, const Operand& in) { return Reduce(g, op, in, o); }, x);
  };
  const auto wrap = [](int64_t s) { return static_cast<int32_t>(static_cast<uint32_t>(s)); };
  Tensor s = run(ReduceOp::kSum);
  CHECK(s.At<int32_t>(0) == wrap(2147483647LL + 1 + 5));
  CHECK(s.At<int32_t>(1) == wrap(-7 + 3 - 2147483648LL));
  Tensor l1 = run(ReduceOp::kL1);
  CHECK(l1.At<int32_t>(1) == wrap(7 + 3 + 2147483648LL));
  Tensor sq = run(ReduceOp::kSumSquare);
  CHECK(sq.At<int32_t>(1) == wrap(49 + 9));  // (-2^31)^2 = 2^62 wraps to 0
  Tensor p = run(ReduceOp::kProduct);
  CHECK(p.At<int32_t>(0) == wrap(static_cast<int64_t>(2147483647LL * 5)));
  CHECK(run(ReduceOp::kMax).At<int32_t>(1) == 3);
  CHECK(run(ReduceOp::kMin).At<int32_t>(1) == -2147483647 - 1);
  Tensor u = Tensor::Allocate(DataType::kUint8, {4});
  const uint8_t uv[] = {7, 255, 0, 200};
  std::memcpy(u.base<uint8_t>(), uv, sizeof uv);
  const Tensor m = RunSimd([](GraphBuilder& g, const Operand& in) { return ReduceMax(g, in); }, u);
  CHECK(m.At<uint8_t>(0) == 255);
}

TEST_CASE("simd softmax: every axis, transposed views, float16") {
  const Shape shape{4, 33, 17};
  ForEachTarget([&] {
    for (DataType type : {DataType::kFloat32, DataType::kFloat16}) {
      for (bool transposed : {false, true}) {
        const Tensor x = MakeInput(type, shape, transposed, 5, -10, 10);
        for (uint32_t axis = 0; axis < 3; ++axis) {
          CAPTURE(axis);
          CAPTURE(transposed);
          const Tensor y =
              RunSimd([&](GraphBuilder& b, const Operand& v) { return Softmax(b, v, axis); }, x);
          for (uint64_t i = 0; i < x.element_count(); ++i) {
            auto idx = Index(i, shape);
            double mx = -INFINITY, se = 0;
            std::vector<uint64_t> j = idx;
            for (j[axis] = 0; j[axis] < shape[axis]; ++j[axis]) {
              mx = std::max(mx, Value(x, (j[0] * shape[1] + j[1]) * shape[2] + j[2]));
            }
            for (j[axis] = 0; j[axis] < shape[axis]; ++j[axis]) {
              se += std::exp(Value(x, (j[0] * shape[1] + j[1]) * shape[2] + j[2]) - mx);
            }
            const double want = std::exp(Value(x, i) - mx) / se;
            if (type == DataType::kFloat16) {
              CHECK(std::fabs(y.At<Float16>(i).ToDouble() - want) <= 0x1p-10 * want + 0x1p-25);
            } else {
              Near(y.At<float>(i), want, 8, "softmax");
            }
          }
        }
      }
    }
  });
}

// Expected normalization: groups over `reduce` axes; scale/bias looked up by `param(index)`.
void CheckNormalization(const Tensor& x, const Tensor& y, const std::vector<size_t>& reduce,
                        const std::function<double(const std::vector<uint64_t>&, bool)>& param,
                        double epsilon, double ulps) {
  const Shape& shape = x.shape();
  std::vector<bool> reduced(shape.size(), false);
  for (size_t a : reduce) reduced[a] = true;
  std::map<uint64_t, std::pair<double, double>> stats;  // group -> (sum, count)
  const auto group_of = [&](const std::vector<uint64_t>& idx) {
    uint64_t g = 0;
    for (size_t a = 0; a < shape.size(); ++a) {
      if (!reduced[a]) g = g * shape[a] + idx[a];
    }
    return g;
  };
  for (uint64_t i = 0; i < x.element_count(); ++i) {
    auto& s = stats[group_of(Index(i, shape))];
    s.first += Value(x, i);
    s.second += 1;
  }
  std::map<uint64_t, double> var;
  for (uint64_t i = 0; i < x.element_count(); ++i) {
    const uint64_t g = group_of(Index(i, shape));
    const double c = Value(x, i) - stats[g].first / stats[g].second;
    var[g] += c * c / stats[g].second;
  }
  for (uint64_t i = 0; i < x.element_count(); ++i) {
    const auto idx = Index(i, shape);
    const uint64_t g = group_of(idx);
    const double term = (Value(x, i) - stats[g].first / stats[g].second) /
                        std::sqrt(var[g] + epsilon) * param(idx, true);
    const double want = term + param(idx, false);
    // The variance is a float32 sum of n squares: relative error up to about n * 2^-24 in the
    // normalized term, which the bias may cancel; then `ulps` roundings.
    const double allowed = (stats[g].second + 4) * 0x1p-24 * std::fabs(term) + ulps * Ulp32(want);
    CHECK_MESSAGE(std::fabs(D(y.At<float>(i)) - want) <= allowed,
                  "normalization: got " << y.At<float>(i) << ", want " << want);
  }
}

TEST_CASE("simd normalizations: layer (axes in any order), instance (both layouts), batch") {
  ForEachTarget([] {
    for (bool transposed : {false, true}) {
      CAPTURE(transposed);
      // layerNormalization over axes {2, 1} of [3, 5, 17]: scale/bias of shape [17, 5].
      const Shape shape{3, 5, 17};
      const Tensor x = MakeInput(DataType::kFloat32, shape, transposed, 9, -3, 5);
      const std::vector<float> sv = RandomRow(85, 1), bv = RandomRow(85, 2);
      const Tensor y = RunSimd(
          [&](GraphBuilder& b, const Operand& v) {
            MLLayerNormalizationOptions o;
            o.axes = std::vector<uint32_t>{2, 1};
            o.scale = Constant(b, sv, {17, 5});
            o.bias = Constant(b, bv, {17, 5});
            o.epsilon = 1e-3;
            return LayerNormalization(b, v, o);
          },
          x);
      CheckNormalization(
          x, y, {1, 2},
          [&](const std::vector<uint64_t>& idx, bool scale) {
            const size_t k = static_cast<size_t>(idx[2] * 5 + idx[1]);
            return static_cast<double>(scale ? sv[k] : bv[k]);
          },
          static_cast<double>(1e-3f), 2);

      // instanceNormalization, nchw and nhwc.
      for (auto layout : {MLInputOperandLayout::kNchw, MLInputOperandLayout::kNhwc}) {
        const bool nchw = layout == MLInputOperandLayout::kNchw;
        const Shape s4 = nchw ? Shape{2, 3, 6, 7} : Shape{2, 6, 7, 3};
        const Tensor x4 = MakeInput(DataType::kFloat32, s4, transposed, 3, -1, 3);
        const std::vector<float> sc = RandomRow(3, 4), bi = RandomRow(3, 5);
        const Tensor y4 = RunSimd(
            [&](GraphBuilder& b, const Operand& v) {
              MLInstanceNormalizationOptions o;
              o.layout = layout;
              o.scale = Constant(b, sc, {3});
              o.bias = Constant(b, bi, {3});
              return InstanceNormalization(b, v, o);
            },
            x4);
        const size_t channel = nchw ? 1 : 3;
        CheckNormalization(
            x4, y4, nchw ? std::vector<size_t>{2, 3} : std::vector<size_t>{1, 2},
            [&](const std::vector<uint64_t>& idx, bool scale) {
              return static_cast<double>(scale ? sc[idx[channel]] : bi[idx[channel]]);
            },
            static_cast<double>(1e-5f), 2);

        // batchNormalization along the channel axis.
        const std::vector<float> mean = RandomRow(3, 6), variance = RandomRow(3, 7, 0.5, 2);
        const Tensor yb = RunSimd(
            [&](GraphBuilder& b, const Operand& v) {
              MLBatchNormalizationOptions o;
              o.axis = static_cast<uint32_t>(channel);
              o.scale = Constant(b, sc, {3});
              o.bias = Constant(b, bi, {3});
              return BatchNormalization(b, v, Constant(b, mean, {3}), Constant(b, variance, {3}),
                                        o);
            },
            x4);
        for (uint64_t i = 0; i < x4.element_count(); ++i) {
          const uint64_t c = Index(i, s4)[channel];
          const double want =
              (Value(x4, i) - D(mean[c])) /
                  std::sqrt(static_cast<double>(variance[c]) + static_cast<double>(1e-5f)) *
                  D(sc[c]) +
              D(bi[c]);
          Near(yb.At<float>(i), want, 2, "batchNormalization");
        }
      }
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Window family

TEST_CASE("simd pools: both layouts, windows, strides, dilations, padding, integer max") {
  ForEachTarget([] {
    for (auto layout : {MLInputOperandLayout::kNchw, MLInputOperandLayout::kNhwc}) {
      for (bool transposed : {false, true}) {
        const bool nchw = layout == MLInputOperandLayout::kNchw;
        const Shape shape = nchw ? Shape{2, 5, 9, 11} : Shape{2, 9, 11, 5};
        const ImageAxes ia = AxesOf(layout);
        const Tensor x = MakeInput(DataType::kFloat32, shape, transposed, 21, -3, 3);
        MLPool2dOptions o;
        o.layout = layout;
        o.windowDimensions = std::vector<uint32_t>{3, 2};
        o.strides = std::vector<uint32_t>{2, 1};
        o.dilations = std::vector<uint32_t>{1, 2};
        o.padding = std::vector<uint32_t>{1, 0, 2, 1};
        for (PoolOp op : {PoolOp::kAverage, PoolOp::kL2, PoolOp::kMax}) {
          CAPTURE(OpName(PoolOpId(op)));
          CAPTURE(nchw);
          CAPTURE(transposed);
          const Tensor y =
              RunSimd([&](GraphBuilder& b, const Operand& v) { return Pool2d(b, op, v, o); }, x);
          const Shape& os = y.shape();
          for (uint64_t i = 0; i < y.element_count(); ++i) {
            const auto idx = Index(i, os);
            double s = 0, s2 = 0, best = -INFINITY;
            int count = 0;
            for (int64_t ky = 0; ky < 3; ++ky) {
              for (int64_t kx = 0; kx < 2; ++kx) {
                const int64_t iy = static_cast<int64_t>(idx[ia.height]) * 2 - 1 + ky;
                const int64_t ix = static_cast<int64_t>(idx[ia.width]) - 2 + kx * 2;
                if (iy < 0 || iy >= 9 || ix < 0 || ix >= 11) continue;
                std::vector<uint64_t> j = idx;
                j[ia.height] = static_cast<uint64_t>(iy);
                j[ia.width] = static_cast<uint64_t>(ix);
                const double v =
                    Value(x, ((j[0] * shape[1] + j[1]) * shape[2] + j[2]) * shape[3] + j[3]);
                s += v;
                s2 += v * v;
                best = std::max(best, v);
                ++count;
              }
            }
            if (count == 0) continue;  // no real element: left open by the reference
            const double want = op == PoolOp::kAverage ? s / count
                                : op == PoolOp::kL2    ? std::sqrt(s2)
                                                       : best;
            Near(y.At<float>(i), want, op == PoolOp::kMax ? 0 : 2, "pool");
          }
        }
      }
    }
  });
  // maxPool2d of int8 (every data type is allowed): exact selection.
  Tensor x = Tensor::Allocate(DataType::kInt8, {1, 2, 3, 3});
  for (int i = 0; i < 18; ++i) x.base<int8_t>()[i] = static_cast<int8_t>((i * 37) % 256 - 128);
  MLPool2dOptions o;
  o.windowDimensions = std::vector<uint32_t>{2, 2};
  const Tensor y =
      RunSimd([&](GraphBuilder& b, const Operand& v) { return MaxPool2d(b, v, o); }, x);
  for (uint64_t c = 0; c < 2; ++c) {
    for (uint64_t oy = 0; oy < 2; ++oy) {
      for (uint64_t ox = 0; ox < 2; ++ox) {
        int best = -1000;
        for (uint64_t ky = 0; ky < 2; ++ky) {
          for (uint64_t kx = 0; kx < 2; ++kx) {
            best = std::max<int>(best, x.base<int8_t>()[c * 9 + (oy + ky) * 3 + ox + kx]);
          }
        }
        CHECK(y.At<int8_t>((c * 2 + oy) * 2 + ox) == best);
      }
    }
  }
}

// The spec's resample2d formula in double for one axis: (index0, index1, weight of index1).
struct Sample {
  uint64_t i0, i1;
  double t;
};
Sample SampleOf(uint64_t o, uint64_t in, uint64_t out, bool linear) {
  const double scale = static_cast<double>(out) / static_cast<double>(in);
  const double c =
      std::clamp((static_cast<double>(o) + 0.5) / scale - 0.5, 0.0, static_cast<double>(in - 1));
  if (!linear) {
    const auto i = static_cast<uint64_t>(std::ceil(c - 0.5));
    return {i, i, 0};
  }
  const auto i0 = static_cast<uint64_t>(std::floor(c));
  return {i0, static_cast<uint64_t>(std::ceil(c)), c - std::floor(c)};
}

TEST_CASE("simd resample2d: linear and nearest neighbor, axes, float32 and uint8") {
  ForEachTarget([] {
    for (bool linear : {false, true}) {
      for (const auto& axes : std::vector<std::vector<uint32_t>>{{2, 3}, {1, 2}, {3, 1}}) {
        for (bool transposed : {false, true}) {
          const Shape shape{2, 5, 6, 7};
          const Tensor x = MakeInput(DataType::kFloat32, shape, transposed, 77, -5, 5);
          MLResample2dOptions o;
          o.mode = linear ? MLInterpolationMode::kLinear : MLInterpolationMode::kNearestNeighbor;
          o.axes = axes;
          o.sizes = std::vector<uint32_t>{11, 3};
          CAPTURE(linear);
          CAPTURE(axes[0]);
          CAPTURE(transposed);
          const Tensor y =
              RunSimd([&](GraphBuilder& b, const Operand& v) { return Resample2d(b, v, o); }, x);
          for (uint64_t i = 0; i < y.element_count(); ++i) {
            const auto idx = Index(i, y.shape());
            const Sample sy = SampleOf(idx[axes[0]], shape[axes[0]], 11, linear);
            const Sample sx = SampleOf(idx[axes[1]], shape[axes[1]], 3, linear);
            const auto at = [&](uint64_t iy, uint64_t ix) {
              std::vector<uint64_t> j = idx;
              j[axes[0]] = iy;
              j[axes[1]] = ix;
              return Value(x, ((j[0] * shape[1] + j[1]) * shape[2] + j[2]) * shape[3] + j[3]);
            };
            const double want =
                (at(sy.i0, sx.i0) * (1 - sx.t) + at(sy.i0, sx.i1) * sx.t) * (1 - sy.t) +
                (at(sy.i1, sx.i0) * (1 - sx.t) + at(sy.i1, sx.i1) * sx.t) * sy.t;
            Near(y.At<float>(i), want, linear ? 2 : 0, "resample2d");
          }
        }
      }
    }
  });
  // uint8 linear: integral results between 10 and 30, and the clamped ends.
  Tensor u = Tensor::Allocate(DataType::kUint8, {1, 1, 1, 2});
  u.base<uint8_t>()[0] = 10;
  u.base<uint8_t>()[1] = 30;
  MLResample2dOptions o;
  o.mode = MLInterpolationMode::kLinear;
  o.sizes = std::vector<uint32_t>{1, 4};
  const Tensor y =
      RunSimd([&](GraphBuilder& b, const Operand& v) { return Resample2d(b, v, o); }, u);
  // Coordinates -0.25 -> 0 (clamped), 0.25, 0.75, 1.25 -> 1: 10, 15, 25, 30.
  const uint8_t want[] = {10, 15, 25, 30};
  for (uint64_t i = 0; i < 4; ++i) CHECK(y.At<uint8_t>(i) == want[i]);
}

// ---------------------------------------------------------------------------------------------

TEST_CASE("simd reduction and window kernels: 1 and 2 threads give identical bits") {
  struct Op {
    const char* name;
    Shape shape;
    std::function<Operand(GraphBuilder&, const Operand&)> build;
  };
  const std::vector<Op> ops = {
      {"softmax", {64, 1000}, [](GraphBuilder& b, const Operand& v) { return Softmax(b, v, 1); }},
      {"softmax split over threads", {200, 1000},  // above 2 x 2^16 elements: two tasks
       [](GraphBuilder& b, const Operand& v) { return Softmax(b, v, 1); }},
      {"softmax axis 0",
       {300, 70},
       [](GraphBuilder& b, const Operand& v) { return Softmax(b, v, 0); }},
      {"layerNormalization",
       {128, 768},
       [](GraphBuilder& b, const Operand& v) { return LayerNormalization(b, v); }},
      {"reduceSum axis 0",
       {300, 70},
       [](GraphBuilder& b, const Operand& v) {
         MLReduceOptions o;
         o.axes = std::vector<uint32_t>{0};
         return ReduceSum(b, v, o);
       }},
      {"reduceLogSumExp axis 1",
       {300, 700},
       [](GraphBuilder& b, const Operand& v) {
         MLReduceOptions o;
         o.axes = std::vector<uint32_t>{1};
         return ReduceLogSumExp(b, v, o);
       }},
      {"instanceNormalization nhwc",
       {2, 20, 20, 40},
       [](GraphBuilder& b, const Operand& v) {
         MLInstanceNormalizationOptions o;
         o.layout = MLInputOperandLayout::kNhwc;
         return InstanceNormalization(b, v, o);
       }},
      {"instanceNormalization nchw, the ResBlock's 32 groups of 640 (two tasks)",
       {1, 32, 10, 64},
       [](GraphBuilder& b, const Operand& v) { return InstanceNormalization(b, v, {}); }},
      {"layerNormalization, 25 groups of 700 in two tasks",
       {25, 700},
       [](GraphBuilder& b, const Operand& v) { return LayerNormalization(b, v); }},
      {"averagePool2d",
       {1, 16, 64, 64},
       [](GraphBuilder& b, const Operand& v) {
         MLPool2dOptions o;
         o.windowDimensions = std::vector<uint32_t>{3, 3};
         o.padding = std::vector<uint32_t>{1, 1, 1, 1};
         return AveragePool2d(b, v, o);
       }},
      {"resample2d linear",
       {1, 8, 40, 40},
       [](GraphBuilder& b, const Operand& v) {
         MLResample2dOptions o;
         o.mode = MLInterpolationMode::kLinear;
         o.scales = std::vector<float>{1.7f, 2.3f};
         return Resample2d(b, v, o);
       }},
  };
  for (const Op& op : ops) {
    CAPTURE(op.name);
    const Tensor x = MakeInput(DataType::kFloat32, op.shape, false, 99);
    const Tensor one = RunSimd(op.build, x, 1);
    const Tensor two = RunSimd(op.build, x, 2);
    REQUIRE(one.element_count() == two.element_count());
    CHECK(std::memcmp(one.base<float>(), two.base<float>(), one.element_count() * sizeof(float)) ==
          0);
  }
}

}  // namespace
}  // namespace nnref
