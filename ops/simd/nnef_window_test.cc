// The simd backend's NNEF-group box (ops/simd/nnef_window.cc) against averages worked out by hand
// here: each border mode on one axis, a 2-D window with stride and dilation on the last axis (the
// gathered rows), a strided input, and the reasons it gives for the boxes it leaves out.
#include "ops/nnef_window.h"

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "ops/data_movement.h"
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

TEST_CASE("simd nnef box: what it leaves out, with its reason") {
  const Tensor x = F32({4}, {1, 2, 3, 4});
  std::string why;
  BoxAttributes sum = Box({WindowAxis{2, 1, 1, 1, 1}}, Border::kConstant);
  sum.normalize = false;
  CHECK(SimdBox(x, sum, 2, false, &why).empty());
  CHECK(why.find("box without normalize") != std::string::npos);
  CHECK(SimdBox(x, Box({WindowAxis{2, 1, 1, 1, 1}}, Border::kIgnore), 2, false, &why).empty());
  CHECK(why.find("'ignore' next to padding") != std::string::npos);
  // Another NNEF-group operator: the backend's NNEF-only reason.
  CHECK(MakeSimdBackend({1})->Unsupported(OpId::nnef_sample, DataType::kFloat32) ==
        std::string(kNnefOnlyOperator));
  CHECK_FALSE(MakeSimdBackend({1})->Unsupported(OpId::nnef_box, DataType::kFloat32).has_value());
}

}  // namespace nnref
