// Hand-derived cases of the NNEF operator group for the backends' unit tests (ops/simd/
// nnef_ops_test.cc, ops/vulkan/nnef_test.cc): conv, deconv, box sums and averages, debox,
// argmax_pool, sample, desample, pad, multilinear_upsample, round, elu, the reductions, quantize
// and the RoI operators, each value worked out by hand in the comments. The including test file
// defines BackendUnderTest(threads) (and, where a backend lacks an operator,
// NNREF_NNEF_NO_QUANTIZE); every graph runs on 1 and 2 threads, which must agree. Test-only:
// include once per test program.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ops/backend.h"
#include "ops/nnef_elementwise.h"
#include "ops/nnef_quantize.h"
#include "ops/nnef_resample.h"
#include "ops/nnef_window.h"
#include "ref/graph/graph.h"

namespace nnref {

// The backend the cases run on (defined by the including test).
std::shared_ptr<const Backend> BackendUnderTest(unsigned threads);

namespace {

using nnef::Border;
using nnef::WindowAxis;

Tensor F32(const Shape& s, const std::vector<float>& v) {
  Tensor x = Tensor::Allocate(DataType::kFloat32, s);
  REQUIRE(x.element_count() == v.size());
  for (size_t i = 0; i < v.size(); ++i) x.base<float>()[i] = v[i];
  return x;
}

Tensor I64(const Shape& s, const std::vector<int64_t>& v) {
  Tensor x = Tensor::Allocate(DataType::kInt64, s);
  REQUIRE(x.element_count() == v.size());
  for (size_t i = 0; i < v.size(); ++i) x.base<int64_t>()[i] = v[i];
  return x;
}

Tensor U8(const Shape& s, const std::vector<uint8_t>& v) {
  Tensor x = Tensor::Allocate(DataType::kUint8, s);
  REQUIRE(x.element_count() == v.size());
  for (size_t i = 0; i < v.size(); ++i) x.base<uint8_t>()[i] = v[i];
  return x;
}

using Inputs = std::map<std::string, Tensor>;
using Ops = std::map<std::string, Operand>;

// The graph `make` builds over `inputs`, computed on the backend under test.
template <typename Make>
Tensor OnBackend(const Inputs& inputs, const Make& make, unsigned threads) {
  GraphBuilder b;
  Ops ops;
  for (const auto& [name, t] : inputs) ops[name] = b.Input(name, {t.dtype(), t.shape()});
  const auto graph = b.Build({{"out", make(b, ops)}});
  std::string why;
  const auto compiled = CompileForBackend(*graph, BackendUnderTest(threads), why);
  REQUIRE_MESSAGE(compiled.has_value(), why);
  return graph->Compute(inputs, {}, compiled->kernels).at("out").data;
}

// The float results on 1 and 2 threads (which must agree).
template <typename Make>
std::vector<float> Floats(const Inputs& inputs, const Make& make) {
  std::vector<std::vector<float>> runs;
  for (unsigned threads : {1u, 2u}) {
    const Tensor t = OnBackend(inputs, make, threads);
    std::vector<float> v;
    for (uint64_t i = 0; i < t.element_count(); ++i) v.push_back(t.At<float>(i));
    runs.push_back(v);
  }
  CHECK(runs[0] == runs[1]);
  return runs[0];
}

template <typename T, typename Make>
std::vector<T> Values(const Inputs& inputs, const Make& make) {
  const Tensor t = OnBackend(inputs, make, 2);
  std::vector<T> v;
  for (uint64_t i = 0; i < t.element_count(); ++i) v.push_back(t.At<T>(i));
  return v;
}

nnef::ConvAttributes Conv(std::vector<WindowAxis> axes, Border border, int64_t groups = 1,
                          bool deconv = false) {
  nnef::ConvAttributes a;
  a.axes = std::move(axes);
  a.border = border;
  a.groups = groups;
  a.deconv = deconv;
  return a;
}

}  // namespace

TEST_CASE("nnef conv: borders, a literal bias, groups, negative padding") {
  // x = [1, 2, 3], filter [1, 10], one replicated item on each side: extended [1, 1, 2, 3, 3],
  // y[i] = e[i] + 10 e[i + 1] + 0.5.
  const auto conv = [](nnef::ConvAttributes a) {
    return [a](GraphBuilder& b, Ops& o) { return nnef::NnefConv(b, o["x"], o["w"], o["b"], a); };
  };
  CHECK(Floats({{"x", F32({1, 1, 3}, {1, 2, 3})},
                {"w", F32({1, 1, 2}, {1, 10})},
                {"b", F32({}, {0.5f})}},
               conv(Conv({WindowAxis{2, 1, 1, 1, 1}}, Border::kReplicate))) ==
        std::vector<float>{11.5f, 21.5f, 32.5f, 33.5f});
  // 'reflect-even' on the same: extended [1, 1, 2, 3, 3] too; 'reflect': [2, 1, 2, 3, 2].
  CHECK(Floats(
            {{"x", F32({1, 1, 3}, {1, 2, 3})}, {"w", F32({1, 1, 2}, {1, 10})}, {"b", F32({}, {0})}},
            conv(Conv({WindowAxis{2, 1, 1, 1, 1}}, Border::kReflect))) ==
        std::vector<float>{12, 21, 32, 23});
  // Two groups of one channel: y[c] = w[c] x[c] + b[c].
  CHECK(Floats({{"x", F32({1, 2, 2}, {1, 2, 3, 4})},
                {"w", F32({2, 1, 1}, {2, 3})},
                {"b", F32({1, 2}, {0, 1})}},
               conv(Conv({WindowAxis{1, 1, 1, 0, 0}}, Border::kConstant, 2))) ==
        std::vector<float>{2, 4, 10, 13});
  // Padding (-1, 0) crops the first item: a 1-tap identity reads x[1..3].
  CHECK(
      Floats({{"x", F32({1, 1, 4}, {1, 2, 3, 4})}, {"w", F32({1, 1, 1}, {1})}, {"b", F32({}, {0})}},
             conv(Conv({WindowAxis{1, 1, 1, -1, 0}}, Border::kConstant))) ==
      std::vector<float>{2, 3, 4});
  // 2-D, stride 2 and dilation 2 on the last axis, constant border: x = [[1, 2, 3, 4, 5]],
  // filter [[1, 1]] (taps 2 apart), padding (0, 0) and (1, 1): extended row [0, 1, ..., 5, 0],
  // windows at 0, 2, 4: 0 + 2, 2 + 4, 4 + 0.
  CHECK(Floats({{"x", F32({1, 1, 1, 5}, {1, 2, 3, 4, 5})},
                {"w", F32({1, 1, 1, 2}, {1, 1})},
                {"b", F32({}, {0})}},
               conv(Conv({WindowAxis{1, 1, 1, 0, 0}, WindowAxis{2, 2, 2, 1, 1}},
                         Border::kConstant))) == std::vector<float>{2, 6, 4});
}

TEST_CASE("nnef conv and deconv of several channels, groups and output panels") {
  // Small integers, so every sum is exact in float32 and the results must be equal. conv: x
  // [2, 4, 9, 11], filter [6, 2, 3, 3] in 2 groups, stride 1, padding 1 with 'replicate', a bias
  // per channel; expected by direct loops over the clamped (replicated) input positions.
  const auto value = [](int64_t i, int64_t m) { return static_cast<float>(i * 7 % m - m / 2); };
  std::vector<float> xv(2 * 4 * 9 * 11), wv(6 * 2 * 3 * 3), bv{1, -2, 3, 0, 5, -1};
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = value(static_cast<int64_t>(i), 9);
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = value(static_cast<int64_t>(i) + 3, 5);
  std::vector<float> want;
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t oc = 0; oc < 6; ++oc) {
      for (int64_t oy = 0; oy < 9; ++oy) {
        for (int64_t ox = 0; ox < 11; ++ox) {
          double acc = static_cast<double>(bv[static_cast<size_t>(oc)]);
          for (int64_t c = 0; c < 2; ++c) {
            for (int64_t ky = 0; ky < 3; ++ky) {
              for (int64_t kx = 0; kx < 3; ++kx) {
                const int64_t iy = std::clamp<int64_t>(oy + ky - 1, 0, 8);
                const int64_t ix = std::clamp<int64_t>(ox + kx - 1, 0, 10);
                const int64_t ic = (oc / 3) * 2 + c;
                acc +=
                    static_cast<double>(
                        xv[static_cast<size_t>(((b * 4 + ic) * 9 + iy) * 11 + ix)]) *
                    static_cast<double>(wv[static_cast<size_t>(((oc * 2 + c) * 3 + ky) * 3 + kx)]);
              }
            }
          }
          want.push_back(static_cast<float>(acc));
        }
      }
    }
  }
  nnef::ConvAttributes a;
  a.axes = {WindowAxis{3, 1, 1, 1, 1}, WindowAxis{3, 1, 1, 1, 1}};
  a.border = Border::kReplicate;
  a.groups = 2;
  const auto conv = [&a](GraphBuilder& b, Ops& o) {
    return nnef::NnefConv(b, o["x"], o["w"], o["b"], a);
  };
  CHECK(
      Floats({{"x", F32({2, 4, 9, 11}, xv)}, {"w", F32({6, 2, 3, 3}, wv)}, {"b", F32({1, 6}, bv)}},
             conv) == want);

  // deconv: x [1, 4, 5, 5], filter [4, 3, 3, 3] (one group: 3 output channels), stride 2,
  // padding 1 on each side: output extent (5 - 1) 2 + 3 - 2 = 9; expected by scattering every
  // input item times the filter to the positions i s + j - p it reaches.
  std::vector<float> dx(4 * 5 * 5), dw(4 * 3 * 3 * 3);
  for (size_t i = 0; i < dx.size(); ++i) dx[i] = value(static_cast<int64_t>(i) + 1, 7);
  for (size_t i = 0; i < dw.size(); ++i) dw[i] = value(static_cast<int64_t>(i) + 2, 5);
  std::vector<double> acc(3 * 9 * 9, 0.0);
  for (int64_t ic = 0; ic < 4; ++ic) {
    for (int64_t iy = 0; iy < 5; ++iy) {
      for (int64_t ix = 0; ix < 5; ++ix) {
        for (int64_t oc = 0; oc < 3; ++oc) {
          for (int64_t ky = 0; ky < 3; ++ky) {
            for (int64_t kx = 0; kx < 3; ++kx) {
              const int64_t oy = iy * 2 + ky - 1, ox = ix * 2 + kx - 1;
              if (oy < 0 || oy >= 9 || ox < 0 || ox >= 9) continue;
              acc[static_cast<size_t>((oc * 9 + oy) * 9 + ox)] +=
                  static_cast<double>(dx[static_cast<size_t>((ic * 5 + iy) * 5 + ix)]) *
                  static_cast<double>(dw[static_cast<size_t>(((ic * 3 + oc) * 3 + ky) * 3 + kx)]);
            }
          }
        }
      }
    }
  }
  const std::vector<float> dwant(acc.begin(), acc.end());
  nnef::ConvAttributes d;
  d.deconv = true;
  d.axes = {WindowAxis{3, 2, 1, 1, 1}, WindowAxis{3, 2, 1, 1, 1}};
  d.border = Border::kConstant;
  const auto deconv = [&d](GraphBuilder& b, Ops& o) {
    return nnef::NnefConv(b, o["x"], o["w"], o["b"], d, {9, 9});
  };
  CHECK(Floats({{"x", F32({1, 4, 5, 5}, dx)}, {"w", F32({4, 3, 3, 3}, dw)}, {"b", F32({}, {0})}},
               deconv) == dwant);
}

TEST_CASE("nnef deconv: stride, several input channels") {
  // x = [1, 2], filter [1, 10], stride 2: y[i] = sum over taps j with (i - j) even of
  // x[(i - j) / 2] w[j] = [1, 10, 2, 20].
  const auto deconv = [](nnef::ConvAttributes a, std::vector<uint64_t> out) {
    return [a, out](GraphBuilder& b, Ops& o) {
      return nnef::NnefConv(b, o["x"], o["w"], o["b"], a, out);
    };
  };
  CHECK(Floats({{"x", F32({1, 1, 2}, {1, 2})}, {"w", F32({1, 1, 2}, {1, 10})}, {"b", F32({}, {0})}},
               deconv(Conv({WindowAxis{2, 2, 1, 0, 0}}, Border::kConstant, 1, true), {4})) ==
        std::vector<float>{1, 10, 2, 20});
  // Two input channels into one output: 1 * 3 + 2 * 5 + 0.25.
  CHECK(Floats(
            {{"x", F32({1, 2, 1}, {1, 2})}, {"w", F32({2, 1, 1}, {3, 5})}, {"b", F32({}, {0.25f})}},
            deconv(Conv({WindowAxis{1, 1, 1, 0, 0}}, Border::kConstant, 1, true), {1})) ==
        std::vector<float>{13.25f});
}

TEST_CASE("nnef box sums, 'ignore' next to padding, debox") {
  const Tensor x = F32({4}, {1, 2, 3, 4});
  const auto box = [](nnef::BoxAttributes a, std::vector<uint64_t> out = {}) {
    return [a, out](GraphBuilder& b, Ops& o) { return nnef::NnefBox(b, o["x"], a, out); };
  };
  nnef::BoxAttributes a;
  a.axes = {WindowAxis{2, 1, 1, 1, 1}};
  a.border = Border::kConstant;
  // Sums over [0, 1, 2, 3, 4, 0].
  CHECK(Floats({{"x", x}}, box(a)) == std::vector<float>{1, 3, 5, 7, 4});
  // 'ignore' with normalize: the first and last windows hold one input item each.
  a.border = Border::kIgnore;
  a.normalize = true;
  CHECK(Floats({{"x", x}}, box(a)) == std::vector<float>{1, 1.5f, 2.5f, 3.5f, 4});
  // Negative padding: (-1, 0) crops x[0]; windows of 2 over [2, 3, 4].
  a.axes = {WindowAxis{2, 1, 1, -1, 0}};
  a.border = Border::kConstant;
  CHECK(Floats({{"x", x}}, box(a)) == std::vector<float>{2.5f, 3.5f});
  // debox of [1, 2], window 2, stride 2: every output reads the one input whose window covers
  // it: [1, 1, 2, 2]; normalized by the window volume 2.
  nnef::BoxAttributes d;
  d.debox = true;
  d.axes = {WindowAxis{2, 2, 1, 0, 0}};
  d.border = Border::kConstant;
  const Tensor x2 = F32({2}, {1, 2});
  CHECK(Floats({{"x", x2}}, box(d, {4})) == std::vector<float>{1, 1, 2, 2});
  d.normalize = true;
  CHECK(Floats({{"x", x2}}, box(d, {4})) == std::vector<float>{0.5f, 0.5f, 1, 1});
  // debox, window 3, padding (1, 1), 'replicate': output i sums the extended input at
  // i + 1 - j for j < 3: y[0] = x[1] + x[0] + x[-1] (= x[0]) = 4, y[1] = x[2] (= x[1]) + x[1] +
  // x[0] = 5.
  nnef::BoxAttributes d2;
  d2.debox = true;
  d2.axes = {WindowAxis{3, 1, 1, 1, 1}};
  d2.border = Border::kReplicate;
  CHECK(Floats({{"x", x2}}, box(d2, {2})) == std::vector<float>{4, 5});
}

TEST_CASE("nnef desample and pad") {
  nnef::WindowAttributes w;
  w.axes = {WindowAxis{2, 1, 1, 0, 0}};
  const auto desample = [&w](std::vector<uint64_t> out) {
    return [&w, out](GraphBuilder& b, Ops& o) {
      return nnef::NnefDesample(b, o["x"], o["i"], w, out);
    };
  };
  // x = [1, 2, 4] with indices [1, 0, 0] over windows of 2 (stride 1): input k lands on output
  // k + index[k]: 1 -> 1, 2 -> 1, 4 -> 2.
  CHECK(Floats({{"x", F32({3}, {1, 2, 4})}, {"i", I64({3}, {1, 0, 0})}}, desample({4})) ==
        std::vector<float>{0, 3, 4, 0});
  // Stride 2: [5, 7] with indices [1, 0]: 5 -> 1, 7 -> 2.
  w.axes = {WindowAxis{2, 2, 1, 0, 0}};
  CHECK(Floats({{"x", F32({2}, {5, 7})}, {"i", I64({2}, {1, 0})}}, desample({4})) ==
        std::vector<float>{0, 5, 7, 0});
  // An index outside its window: an error at compute time.
  CHECK_THROWS(Floats({{"x", F32({2}, {5, 7})}, {"i", I64({2}, {1, 2})}}, desample({4})));

  // pad [1, 2, 3] by (2, -1) with 'reflect-even': positions -2, -1, 0, 1 read x[1], x[0], x[0],
  // x[1]; 'constant' with value 9 on (1, 1).
  nnef::NnefPadAttributes p;
  p.padding = {{2, -1}};
  p.border = Border::kReflectEven;
  const auto pad = [&p](GraphBuilder& b, Ops& o) { return nnef::NnefPad(b, o["x"], p); };
  CHECK(Floats({{"x", F32({3}, {1, 2, 3})}}, pad) == std::vector<float>{2, 1, 1, 2});
  p.padding = {{1, 1}};
  p.border = Border::kConstant;
  p.value = 9;
  CHECK(Floats({{"x", F32({3}, {1, 2, 3})}}, pad) == std::vector<float>{9, 1, 2, 3, 9});
  // 2-D 'replicate': [[1, 2], [3, 4]] by (0, 1), (1, 0).
  p.padding = {{0, 1}, {1, 0}};
  p.border = Border::kReplicate;
  CHECK(Floats({{"x", F32({2, 2}, {1, 2, 3, 4})}}, pad) ==
        std::vector<float>{1, 1, 2, 3, 3, 4, 3, 3, 4});
}

TEST_CASE("nnef round, elu, reductions, quantize") {
  const auto round = [](GraphBuilder& b, Ops& o) { return nnef::NnefRound(b, o["x"]); };
  // floor(x + 0.5): 0.49999997 + 0.5 is below 1 (a float32 sum would round it to 1).
  const std::vector<float> r =
      Floats({{"x", F32({6}, {0.49999997f, 0.5f, -0.5f, -1.5f, 2.5f, -2.6f})}}, round);
  CHECK(r == std::vector<float>{0, 1, 0, -1, 3, -3});
  CHECK_FALSE(std::signbit(r[2]));  // floor(0) = +0
  const auto elu = [](GraphBuilder& b, Ops& o) { return nnef::NnefElu(b, o["x"]); };
  const std::vector<float> e = Floats({{"x", F32({4}, {-0.0f, 2, -1, -1e-3f})}}, elu);
  CHECK(e[0] == 0);
  CHECK(std::signbit(e[0]));  // -0 passes through the select
  CHECK(e[1] == 2);
  CHECK(e[2] == static_cast<float>(std::exp(-1.0) - 1.0));
  // exp(-1e-3) - 1 = -1e-3 + 1e-6 / 2 - ..., to float32 accuracy.
  const double t = static_cast<double>(-1e-3f);
  CHECK(e[3] == static_cast<float>(t + t * t / 2 + t * t * t / 6 + t * t * t * t / 24));

  nnef::NnefReduceAttributes ra;
  const auto reduce = [&ra](GraphBuilder& b, Ops& o) { return nnef::NnefReduce(b, o["x"], ra); };
  // argmax over both axes of [[1, 5], [5, 2]]: the first 5, index 1 in row-major order.
  ra.op = nnef::NnefReduceOp::kArgmax;
  ra.axes = {0, 1};
  CHECK(Values<int64_t>({{"x", F32({2, 2}, {1, 5, 5, 2})}}, reduce) == std::vector<int64_t>{1});
  // argmin along axis 1 of [[3, 1, 1], [0, 2, -1]], and argmax along axis 0.
  ra.op = nnef::NnefReduceOp::kArgmin;
  ra.axes = {1};
  const Tensor m = F32({2, 3}, {3, 1, 1, 0, 2, -1});
  CHECK(Values<int64_t>({{"x", m}}, reduce) == std::vector<int64_t>{1, 2});
  ra.op = nnef::NnefReduceOp::kArgmax;
  ra.axes = {0};
  CHECK(Values<int64_t>({{"x", m}}, reduce) == std::vector<int64_t>{0, 1, 0});
  // all / any along axis 0 of [[1, 0], [1, 1]].
  const Tensor l = U8({2, 2}, {1, 0, 1, 1});
  ra.op = nnef::NnefReduceOp::kAll;
  CHECK(Values<uint8_t>({{"x", l}}, reduce) == std::vector<uint8_t>{1, 0});
  ra.op = nnef::NnefReduceOp::kAny;
  ra.axes = {1};
  CHECK(Values<uint8_t>({{"x", U8({2, 2}, {0, 0, 0, 1})}}, reduce) == std::vector<uint8_t>{0, 1});

  // linear_quantize(min 0, max 1, bits 2): r = 3 levels apart by 1/3; 0.5 -> round(1.5) = 2 ->
  // 2/3; 2 clamps to 1; -1 to 0; 0.1 -> round(0.3) = 0.
  nnef::Quantizer q;
  q.kind = nnef::Quantizer::Kind::kLinear;
  q.bits = 2;
  q.min = 0;
  q.max = 1;
  const auto quantize = [&q](GraphBuilder& b, Ops& o) { return nnef::NnefQuantize(b, o["x"], q); };
  CHECK(Floats({{"x", F32({4}, {0.5f, 2, -1, 0.1f})}}, quantize) ==
        std::vector<float>{static_cast<float>(2.0 / 3.0), 1, 0, 0});
  // logarithmic_quantize(max 4, bits 3): m = 2, r = 7, exponents clamped to [-5, 2]; the
  // exponent is floor(log2 |x| + 0.5): 3 -> 1.58 -> 2 (4); -0.3 -> -1.74 -> -2 (-0.25); 1e-3 ->
  // -9.97 -> -5 (1/32); 0 stays 0; the float32 neighbours of sqrt(2) round to 2^0 and 2^1.
  q.kind = nnef::Quantizer::Kind::kLogarithmic;
  q.bits = 3;
  q.max = 4;
  float below = 0, above = 0;
  const uint32_t below_bits = 0x3fb504f3u, above_bits = 0x3fb504f4u;  // 1.41421354, 1.41421366
  std::memcpy(&below, &below_bits, sizeof below);
  std::memcpy(&above, &above_bits, sizeof above);
  CHECK(Floats({{"x", F32({6}, {3, -0.3f, 1e-3f, 0, below, above})}}, quantize) ==
        std::vector<float>{4, -0.25f, 0.03125f, 0, 1, 2});
  // zero_point_linear_quantize(zero_point 3, scale 0.5, bits 4, unsigned): codes [0, 15],
  // q = clamp(round(x / 0.5) + 3): 1.2 -> 2.4 -> 5 (1); 0.75 -> 1.5 -> 2 + 3 (1); -0.75 -> -1.5
  // -> -1 + 3 (-0.5); 100 -> 15 (6); -100 -> 0 (-1.5).
  q.kind = nnef::Quantizer::Kind::kZeroPointLinear;
  q.bits = 4;
  q.scale = 0.5;
  q.zero_point = 3;
  q.is_signed = false;
  CHECK(Floats({{"x", F32({5}, {1.2f, 0.75f, -0.75f, 100, -100})}}, quantize) ==
        std::vector<float>{1, 1, -0.5f, 6, -1.5f});
  // min_max_linear_quantize(min -1, max 1, bits 2, signed, symmetric): r = 4 - 1 - 1 = 2 steps
  // of 1: 0.5 -> 1.5 -> 2 (1); 0.49 -> 1.49 -> 1 (0); -0.5 -> 0.5 -> 1 (0); -3 -> -1.
  q.kind = nnef::Quantizer::Kind::kMinMaxLinear;
  q.bits = 2;
  q.min = -1;
  q.max = 1;
  q.is_signed = true;
  q.symmetric = true;
  CHECK(Floats({{"x", F32({4}, {0.5f, 0.49f, -0.5f, -3})}}, quantize) ==
        std::vector<float>{1, 0, 0, -1});
}

TEST_CASE("nnef normalized box, argmax_pool, sample, multilinear_upsample") {
  // [1, 2, 3, 4], windows of 2 with one padding item on each side, averaged: 'replicate' reads
  // [1, 1, 2, 3, 4, 4], 'reflect' [2, 1, 2, 3, 4, 3].
  const Tensor x = F32({4}, {1, 2, 3, 4});
  nnef::BoxAttributes a;
  a.axes = {WindowAxis{2, 1, 1, 1, 1}};
  a.normalize = true;
  const auto box = [&a](GraphBuilder& b, Ops& o) { return nnef::NnefBox(b, o["x"], a); };
  a.border = Border::kReplicate;
  CHECK(Floats({{"x", x}}, box) == std::vector<float>{1, 1.5f, 2.5f, 3.5f, 4});
  a.border = Border::kReflect;
  CHECK(Floats({{"x", x}}, box) == std::vector<float>{1.5f, 1.5f, 2.5f, 3.5f, 3.5f});
  a.border = Border::kConstant;
  CHECK(Floats({{"x", x}}, box) == std::vector<float>{0.5f, 1.5f, 2.5f, 3.5f, 2});

  // x = [-1, 3, 3, 0, 2], windows of 2, stride 2, one padding item in front: 'constant' windows
  // (0, -1), (3, 3), (0, 2) give the first maxima 0, 0, 1; 'ignore' never picks the padding.
  nnef::WindowAttributes w;
  w.axes = {WindowAxis{2, 2, 1, 1, 0}};
  const Tensor y = F32({5}, {-1, 3, 3, 0, 2});
  const auto argmax = [&w](GraphBuilder& b, Ops& o) { return nnef::NnefArgmaxPool(b, o["x"], w); };
  w.border = Border::kConstant;
  CHECK(Values<int64_t>({{"x", y}}, argmax) == std::vector<int64_t>{0, 0, 1});
  w.border = Border::kIgnore;
  CHECK(Values<int64_t>({{"x", y}}, argmax) == std::vector<int64_t>{1, 0, 1});
  // sample with index [1, 0, 0]: x[0] = -1, x[1] = 3, x[3] = 0; an index of 2 is outside.
  w.border = Border::kConstant;
  const auto sample = [&w](GraphBuilder& b, Ops& o) {
    return nnef::NnefSample(b, o["x"], o["i"], w);
  };
  CHECK(Floats({{"x", y}, {"i", I64({3}, {1, 0, 0})}}, sample) == std::vector<float>{-1, 3, 0});
  CHECK_THROWS(Floats({{"x", y}, {"i", I64({3}, {0, 2, 1})}}, sample));

  // multilinear_upsample of [0, 4] by 2: symmetric output i reads coordinate (2i - 1) / 4, i.e.
  // -1/4, 1/4, 3/4, 5/4: with 'replicate' (x[-1] = 0, x[2] = 4) [0, 1, 3, 4]; asymmetric reads
  // i / 2: [0, 2, 4, (4 + x[2]) / 2 = 4].
  nnef::UpsampleAttributes u;
  u.factors = {2};
  const auto up = [&u](GraphBuilder& b, Ops& o) {
    return nnef::NnefMultilinearUpsample(b, o["x"], u);
  };
  const Tensor z = F32({1, 1, 2}, {0, 4});
  u.method = nnef::UpsampleMethod::kSymmetric;
  u.border = Border::kReplicate;
  CHECK(Floats({{"x", z}}, up) == std::vector<float>{0, 1, 3, 4});
  u.border = Border::kConstant;  // x[2] = 0: (4 * 3 + 0 * 1) / 4
  CHECK(Floats({{"x", z}}, up) == std::vector<float>{0, 1, 3, 3});
  u.method = nnef::UpsampleMethod::kAsymmetric;
  u.border = Border::kReplicate;
  CHECK(Floats({{"x", z}}, up) == std::vector<float>{0, 2, 4, 4});
}

TEST_CASE("nnef RoI pooling and resampling") {
  // x = 0..15 as one 4x4 plane; the RoI (y0, x0, y1, x1) = (0, 0, 2, 2) as one 1x1 cell: rows and
  // columns 0..1 = {0, 1, 4, 5}.
  std::vector<float> v(16);
  for (size_t i = 0; i < 16; ++i) v[i] = static_cast<float>(i);
  const Inputs in{
      {"x", F32({1, 1, 4, 4}, v)}, {"r", F32({1, 4}, {0, 0, 2, 2})}, {"b", I64({1}, {0})}};
  nnef::RoiAttributes a;
  a.output_size = {1, 1};
  const auto pool = [&a](GraphBuilder& b, Ops& o) {
    return nnef::NnefRoiPool(b, o["x"], o["r"], o["b"], a);
  };
  CHECK(Floats(in, pool) == std::vector<float>{2.5f});
  a.max = true;
  CHECK(Floats(in, pool) == std::vector<float>{5});
  // 2x2 cells of the RoI (1, 1, 3, 3) (the cell extent and stride 1): x[1..2][1..2].
  a.output_size = {2, 2};
  Inputs in2 = in;
  in2["r"] = F32({1, 4}, {1, 1, 3, 3});
  CHECK(Floats(in2, pool) == std::vector<float>{5, 6, 9, 10});
  // A RoI reaching past the input: the cell (3, 3)..(5, 5) clipped to x[3][3] = 15 and the
  // border's 0s: the maximum 15, the average 15 / 4.
  a.output_size = {1, 1};
  in2["r"] = F32({1, 4}, {3, 3, 5, 5});
  CHECK(Floats(in2, pool) == std::vector<float>{15});
  a.max = false;
  CHECK(Floats(in2, pool) == std::vector<float>{3.75f});
  // A batch index outside the batch: an error at compute time.
  in2["b"] = I64({1}, {1});
  CHECK_THROWS(Floats(in2, pool));

  const auto resample = [&a](GraphBuilder& b, Ops& o) {
    return nnef::NnefRoiResample(b, o["x"], o["r"], o["b"], a);
  };
  // symmetric, 1x1 of (0, 0, 2, 2): the coordinate 0 + 0.5 * 2 - 0.5 = 0.5 on each axis, the
  // mean of {0, 1, 4, 5}.
  a.method = nnef::UpsampleMethod::kSymmetric;
  CHECK(Floats(in, resample) == std::vector<float>{2.5f});
  // asymmetric, 2x2 of (1, 1, 3, 3): coordinates 1 and 2: x[1][1], x[1][2], x[2][1], x[2][2].
  a.method = nnef::UpsampleMethod::kAsymmetric;
  a.output_size = {2, 2};
  Inputs in3 = in;
  in3["r"] = F32({1, 4}, {1, 1, 3, 3});
  CHECK(Floats(in3, resample) == std::vector<float>{5, 6, 9, 10});
  // aligned, 1x3 of (0, 0, 0, 3): columns 0, 1, 2 of row 0 (i (r - 1) / (h - 1) = i).
  a.method = nnef::UpsampleMethod::kAligned;
  a.output_size = {1, 3};
  in3["r"] = F32({1, 4}, {0, 0, 0, 3});
  CHECK(Floats(in3, resample) == std::vector<float>{0, 1, 2});
}

}  // namespace nnref
