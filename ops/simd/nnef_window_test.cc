// The simd backend's NNEF-group normalized box, argmax_pool, sample (ops/simd/nnef_window.cc) and
// multilinear_upsample (nnef_resample.cc) against values worked out by hand here: each border
// mode on one axis, a 2-D window with stride and dilation on the last axis (the gathered rows), a
// strided input, first maxima and ignored padding, an index outside its window, and the reasons
// it gives for what it leaves out. The other operators of the group: nnef_ops_test.cc.
#include "ops/nnef_window.h"

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "ops/data_movement.h"
#include "ops/nnef_resample.h"
#include "ops/simd/simd_backend.h"
#include "ref/graph/graph.h"

namespace nnref {

namespace {

using nnef::Border;
using nnef::BoxAttributes;
using nnef::WindowAxis;

Tensor F32(const Shape& s, const std::vector<float>& v) {
  Tensor x = Tensor::Allocate(DataType::kFloat32, s);
  REQUIRE(x.element_count() == v.size());
  for (size_t i = 0; i < v.size(); ++i) x.base<float>()[i] = v[i];
  return x;
}

std::vector<float> Values(const Tensor& t) {
  std::vector<float> out;
  for (uint64_t i = 0; i < t.element_count(); ++i) out.push_back(t.At<float>(i));
  return out;
}

// box(x) on the simd backend (the input transposed first when `transpose`), or the reason the
// backend gives.
std::vector<float> SimdBox(const Tensor& x, const BoxAttributes& a, unsigned threads = 2,
                           bool transpose = false, std::string* why_out = nullptr) {
  GraphBuilder b;
  Operand in = b.Input("x", {x.dtype(), x.shape()});
  if (transpose) in = Transpose(b, in);
  const Operand out = nnef::NnefBox(b, in, a);
  const auto graph = b.Build({{"out", out}});
  std::string why;
  const auto compiled = CompileForBackend(*graph, MakeSimdBackend({threads}), why);
  if (!compiled) {
    REQUIRE(why_out != nullptr);
    *why_out = why;
    return {};
  }
  return Values(graph->Compute({{"x", x}}, {}, compiled->kernels).at("out").data);
}

BoxAttributes Box(std::vector<WindowAxis> axes, Border border) {
  BoxAttributes a;
  a.axes = std::move(axes);
  a.border = border;
  a.normalize = true;
  return a;
}

}  // namespace

TEST_CASE("simd nnef box: the border modes on one axis") {
  // [1, 2, 3, 4], windows of 2 with one padding item on each side: 5 outputs, each the mean of
  // (extended[i], extended[i + 1]), the extension read as the border says.
  const Tensor x = F32({4}, {1, 2, 3, 4});
  const WindowAxis w{2, 1, 1, 1, 1};
  // constant: [0, 1, 2, 3, 4, 0]
  CHECK(SimdBox(x, Box({w}, Border::kConstant)) == std::vector<float>{0.5f, 1.5f, 2.5f, 3.5f, 2});
  // replicate: [1, 1, 2, 3, 4, 4]
  CHECK(SimdBox(x, Box({w}, Border::kReplicate)) == std::vector<float>{1, 1.5f, 2.5f, 3.5f, 4});
  // reflect: [2, 1, 2, 3, 4, 3]
  CHECK(SimdBox(x, Box({w}, Border::kReflect)) == std::vector<float>{1.5f, 1.5f, 2.5f, 3.5f, 3.5f});
  // reflect-even: [1, 1, 2, 3, 4, 4]
  CHECK(SimdBox(x, Box({w}, Border::kReflectEven)) == std::vector<float>{1, 1.5f, 2.5f, 3.5f, 4});
  // 'ignore' without padding: the plain mean of each window.
  CHECK(SimdBox(x, Box({WindowAxis{2, 1, 1, 0, 0}}, Border::kIgnore)) ==
        std::vector<float>{1.5f, 2.5f, 3.5f});
}

TEST_CASE("simd nnef box: stride and dilation on the last axis, a strided input, threads") {
  // x = [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]; axis 0: the window of 2; axis 1: 2 taps 2 apart,
  // stride 2, one zero on each side: extended rows [0, 0, 1, 2, 3, 4, 0] and [0, 5, ..., 9, 0],
  // windows starting at 0, 2, 4: (0 + 1 + 0 + 6) / 4, (1 + 3 + 6 + 8) / 4, (3 + 0 + 8 + 0) / 4.
  const Tensor x = F32({2, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  const BoxAttributes a =
      Box({WindowAxis{2, 1, 1, 0, 0}, WindowAxis{2, 2, 2, 1, 1}}, Border::kConstant);
  const std::vector<float> want{1.75f, 4.5f, 2.75f};
  CHECK(SimdBox(x, a, 1) == want);
  CHECK(SimdBox(x, a, 2) == want);
  // The same values from a transposed view of x's transpose.
  const Tensor xt = F32({5, 2}, {0, 5, 1, 6, 2, 7, 3, 8, 4, 9});
  CHECK(SimdBox(xt, a, 2, true) == want);
}

// argmax_pool / sample of x on the simd backend; `index` feeds sample.
template <typename Make>
Tensor SimdRun(const std::map<std::string, Tensor>& inputs, const Make& make, unsigned threads) {
  GraphBuilder b;
  std::map<std::string, Operand> ops;
  for (const auto& [name, t] : inputs) ops[name] = b.Input(name, {t.dtype(), t.shape()});
  const auto graph = b.Build({{"out", make(b, ops)}});
  std::string why;
  const auto compiled = CompileForBackend(*graph, MakeSimdBackend({threads}), why);
  REQUIRE_MESSAGE(compiled.has_value(), why);
  return graph->Compute(inputs, {}, compiled->kernels).at("out").data;
}

std::vector<int64_t> Ints(const Tensor& t) {
  std::vector<int64_t> out;
  for (uint64_t i = 0; i < t.element_count(); ++i) out.push_back(t.At<int64_t>(i));
  return out;
}

Tensor I64(const Shape& s, const std::vector<int64_t>& v) {
  Tensor x = Tensor::Allocate(DataType::kInt64, s);
  for (size_t i = 0; i < v.size(); ++i) x.base<int64_t>()[i] = v[i];
  return x;
}

TEST_CASE("simd nnef argmax_pool and sample") {
  // x = [-1, 3, 3, 0, 2], windows of 2 with stride 2 and one padding item in front.
  nnef::WindowAttributes w;
  w.axes = {WindowAxis{2, 2, 1, 1, 0}};
  const Tensor x = F32({5}, {-1, 3, 3, 0, 2});
  const auto argmax = [&](GraphBuilder& b, std::map<std::string, Operand>& o) {
    return nnef::NnefArgmaxPool(b, o["x"], w);
  };
  // constant: windows (0, -1), (3, 3), (0, 2): 0 wins over -1; the first of equal maxima.
  w.border = Border::kConstant;
  CHECK(Ints(SimdRun({{"x", x}}, argmax, 1)) == std::vector<int64_t>{0, 0, 1});
  // ignore: the padding item is never chosen, so -1 is the first window's maximum.
  w.border = Border::kIgnore;
  CHECK(Ints(SimdRun({{"x", x}}, argmax, 2)) == std::vector<int64_t>{1, 0, 1});
  // sample with 'constant': index [1, 0, 0] reads x[0] = -1, x[1] = 3 and x[3] = 0.
  w.border = Border::kConstant;
  const auto sample = [&](GraphBuilder& b, std::map<std::string, Operand>& o) {
    return nnef::NnefSample(b, o["x"], o["i"], w);
  };
  CHECK(Values(SimdRun({{"x", x}, {"i", I64({3}, {1, 0, 0})}}, sample, 2)) ==
        std::vector<float>{-1, 3, 0});
  // replicate: position 0 of the first window is x[0].
  w.border = Border::kReplicate;
  CHECK(Values(SimdRun({{"x", x}, {"i", I64({3}, {0, 1, 1})}}, sample, 2)) ==
        std::vector<float>{-1, 3, 2});
  // An index outside the window of 2 positions is an error at compute time.
  CHECK_THROWS(SimdRun({{"x", x}, {"i", I64({3}, {0, 2, 1})}}, sample, 2));

  // 2-D: x = [[1, 2, 3], [4, 5, 6]], 2x2 windows at columns 0 and 1; positions row-major.
  nnef::WindowAttributes w2;
  w2.axes = {WindowAxis{2, 1, 1, 0, 0}, WindowAxis{2, 1, 1, 0, 0}};
  const Tensor x2 = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  const auto argmax2 = [&](GraphBuilder& b, std::map<std::string, Operand>& o) {
    return nnef::NnefArgmaxPool(b, o["x"], w2);
  };
  CHECK(Ints(SimdRun({{"x", x2}}, argmax2, 2)) == std::vector<int64_t>{3, 3});
  const auto sample2 = [&](GraphBuilder& b, std::map<std::string, Operand>& o) {
    return nnef::NnefSample(b, o["x"], o["i"], w2);
  };
  // index 3 = (1, 1) -> x[1][1] = 5; index 1 = (0, 1) in the window at column 1 -> x[0][2] = 3.
  CHECK(Values(SimdRun({{"x", x2}, {"i", I64({1, 2}, {3, 1})}}, sample2, 2)) ==
        std::vector<float>{5, 3});
}

TEST_CASE("simd nnef multilinear_upsample: the methods and borders") {
  // x = [0, 4] on one spatial axis, factor 2. symmetric: output i reads coordinate
  // (2i - 1) / 4: taps (j0, num) = (-1, 3), (0, 1), (0, 3), (1, 1) over 4.
  const Tensor x = F32({1, 1, 2}, {0, 4});
  nnef::UpsampleAttributes u;
  u.factors = {2};
  const auto up = [&](GraphBuilder& b, std::map<std::string, Operand>& o) {
    return nnef::NnefMultilinearUpsample(b, o["x"], u);
  };
  u.method = nnef::UpsampleMethod::kSymmetric;
  u.border = Border::kReplicate;  // x[-1] = 0, x[2] = 4
  CHECK(Values(SimdRun({{"x", x}}, up, 2)) == std::vector<float>{0, 1, 3, 4});
  u.border = Border::kConstant;  // x[2] = 0: (4 * 3 + 0 * 1) / 4
  CHECK(Values(SimdRun({{"x", x}}, up, 2)) == std::vector<float>{0, 1, 3, 3});
  // asymmetric: coordinate i / 2: 0, (0 + 4) / 2, 4, (4 + x[2] = 4) / 2 with replicate.
  u.method = nnef::UpsampleMethod::kAsymmetric;
  u.border = Border::kReplicate;
  CHECK(Values(SimdRun({{"x", x}}, up, 2)) == std::vector<float>{0, 2, 4, 4});
  // aligned: coordinate i (X - 1) / (X f - 1) = i / 3: 0, 4/3, 8/3, 4.
  u.method = nnef::UpsampleMethod::kAligned;
  CHECK(Values(SimdRun({{"x", x}}, up, 1)) ==
        std::vector<float>{0, static_cast<float>(4.0 / 3.0), static_cast<float>(8.0 / 3.0), 4});
  // Two spatial axes, asymmetric, factor 2 each: x = [[0, 4], [8, 12]]; output (1, 1) is the
  // mean of the four, 6; (0, 1) = 2, (1, 0) = 4.
  u.factors = {2, 2};
  u.method = nnef::UpsampleMethod::kAsymmetric;
  const Tensor x2 = F32({1, 1, 2, 2}, {0, 4, 8, 12});
  const std::vector<float> y2 = Values(SimdRun({{"x", x2}}, up, 2));
  REQUIRE(y2.size() == 16);
  CHECK(y2[0] == 0);
  CHECK(y2[1] == 2);
  CHECK(y2[4] == 4);
  CHECK(y2[5] == 6);
  CHECK(y2[15] == 12);  // (1.5, 1.5) with the border replicated: x[1][1]
}

TEST_CASE("simd nnef box: what it leaves out, with its reason") {
  // A box of a rank-0 tensor (no window axes): a stated skip, with the reason.
  std::string why;
  CHECK(SimdBox(F32({}, {1}), Box({}, Border::kConstant), 2, false, &why).empty());
  CHECK(why.find("rank-0") != std::string::npos);
  // Every NNEF-group operator has a float32 kernel; argmax_pool of other types (the reference
  // compares any type) is a stated skip.
  const auto backend = MakeSimdBackend({1});
  for (OpId op : {OpId::nnef_conv, OpId::nnef_deconv, OpId::nnef_box, OpId::nnef_debox,
                  OpId::nnef_argmax_pool, OpId::nnef_sample, OpId::nnef_desample, OpId::nnef_pad,
                  OpId::nnef_multilinear_upsample, OpId::nnef_avg_roi_pool, OpId::nnef_max_roi_pool,
                  OpId::nnef_roi_resample, OpId::nnef_round, OpId::nnef_elu,
                  OpId::nnef_argmax_reduce, OpId::nnef_argmin_reduce, OpId::nnef_quantize}) {
    CHECK_FALSE(backend->Unsupported(op, DataType::kFloat32).has_value());
  }
  CHECK_FALSE(backend->Unsupported(OpId::nnef_all_reduce, DataType::kUint8).has_value());
  CHECK(backend->Unsupported(OpId::nnef_argmax_pool, DataType::kInt64) ==
        std::string("int64 not supported"));
}

}  // namespace nnref
