// The NNEF operator group (ops/nnef_*.h) built and run directly: border formulas and window
// geometry of NNEF 1.0.2 4.3, hand-derived values for pad, box, round and argmax_reduce, builder
// rejections and a compute-time error. The NNEF front end's tests (runner/nnef/executor_test.cc)
// run the same operators through NNEF documents.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "ops/nnef_elementwise.h"
#include "ops/nnef_window.h"
#include "ops/registry.h"
#include "ops/tolerance_table.h"
#include "ref/testing.h"

namespace nnref::nnef {

namespace {

constexpr DataType kF32 = DataType::kFloat32;

Tensor F32(const Shape& s, const std::vector<float>& v) {
  Tensor x = Tensor::Allocate(kF32, s);
  REQUIRE(v.size() == x.element_count());
  for (size_t i = 0; i < v.size(); ++i) x.base<float>()[i] = v[i];
  return x;
}

// Builds y = make(builder, x) for a float32 input, runs it on `x` and returns y.
OperandValue Run(const Shape& s, const std::vector<float>& x,
                 const std::function<Operand(GraphBuilder&, const Operand&)>& make) {
  GraphBuilder b;
  const Operand in = b.Input("x", {kF32, s});
  return b.Build({{"y", make(b, in)}})->Compute({{"x", F32(s, x)}}).at("y");
}

std::vector<double> Values(const OperandValue& v) {
  std::vector<double> out;
  for (uint64_t i = 0; i < v.data.element_count(); ++i) {
    out.push_back(v.data.dtype() == DataType::kInt64 ? static_cast<double>(v.data.At<int64_t>(i))
                                                     : static_cast<double>(v.data.At<float>(i)));
  }
  return out;
}

}  // namespace

TEST_CASE("nnef window: border index formulas and the geometry of 4.3") {
  // Extent 3: reflect ... 2 1 | 0 1 2 | 1 0 ...; reflect-even ... 1 0 | 0 1 2 | 2 1 ...
  CHECK(BorderIndex(-1, 3, Border::kReflect) == 1);
  CHECK(BorderIndex(-2, 3, Border::kReflect) == 2);
  CHECK(BorderIndex(3, 3, Border::kReflect) == 1);
  CHECK(BorderIndex(4, 3, Border::kReflect) == 0);
  CHECK(BorderIndex(-1, 3, Border::kReflectEven) == 0);
  CHECK(BorderIndex(-2, 3, Border::kReflectEven) == 1);
  CHECK(BorderIndex(3, 3, Border::kReflectEven) == 2);
  CHECK(BorderIndex(5, 3, Border::kReflectEven) == 0);
  CHECK(BorderIndex(-7, 3, Border::kReplicate) == 0);
  CHECK(BorderIndex(9, 3, Border::kReplicate) == 2);
  CHECK(BorderIndex(-1, 3, Border::kConstant) == -1);
  CHECK(BorderIndex(3, 3, Border::kIgnore) == -1);
  CHECK(BorderIndex(-5, 1, Border::kReflect) == 0);
  // Shape rules of 4.3.
  WindowAxis a;
  a.size = 3;
  a.stride = 2;
  a.dilation = 2;                      // f_d = 5
  CHECK(DownscaledExtent(9, a) == 3);  // floor((9 - 5) / 2) + 1
  CHECK(!DownscaledExtent(4, a).has_value());
  CHECK(UpscaledExtent(3, a) == 9);
  AutoPad(a, 9);  // x = ceil(9 / 2) = 5, t = 4 * 2 + 5 - 9 = 4
  CHECK(a.pad_front == 2);
  CHECK(a.pad_back == 2);
}

TEST_CASE("nnef pad: borders WebNN's pad lacks") {
  // reflect-even of [1, 2, 3] by (2, 4): positions -2..6 read 1 0 | 0 1 2 | 2 1 0 0 (period 6).
  NnefPadAttributes a;
  a.padding = {{2, 4}};
  a.border = Border::kReflectEven;
  const auto pad = [&](GraphBuilder& b, const Operand& x) { return NnefPad(b, x, a); };
  CHECK(Values(Run({3}, {1, 2, 3}, pad)) == std::vector<double>{2, 1, 1, 2, 3, 3, 2, 1, 1});
  // Cropping one item in front and reflecting two behind: positions 1..4 read 1 2 | 1 0.
  a.padding = {{-1, 2}};
  a.border = Border::kReflect;
  CHECK(Values(Run({3}, {1, 2, 3}, pad)) == std::vector<double>{2, 3, 2, 1});
  // 'constant' uses the value.
  a.padding = {{1, 0}};
  a.border = Border::kConstant;
  a.value = 7;
  CHECK(Values(Run({3}, {1, 2, 3}, pad)) == std::vector<double>{7, 1, 2, 3});
  // A crop to nothing is rejected by the builder.
  a.padding = {{-2, -1}};
  CHECK(ErrorOf([&] { Run({3}, {1, 2, 3}, pad); }) == ErrorType::kTypeError);
}

TEST_CASE("nnef box, round, argmax_reduce") {
  // Sum of 3-windows over [1..5] with one zero on each side: 0+1+2, 1+2+3, ..., 4+5+0.
  BoxAttributes box;
  box.axes = {WindowAxis{3, 1, 1, 1, 1}};
  const auto run_box = [&](GraphBuilder& b, const Operand& x) { return NnefBox(b, x, box); };
  CHECK(Values(Run({5}, {1, 2, 3, 4, 5}, run_box)) == std::vector<double>{3, 6, 9, 12, 9});
  // 'ignore' with normalize averages the positions inside: 1.5, 2, 3, 4, 4.5.
  box.border = Border::kIgnore;
  box.normalize = true;
  CHECK(Values(Run({5}, {1, 2, 3, 4, 5}, run_box)) == std::vector<double>{1.5, 2, 3, 4, 4.5});
  // round = floor(x + 0.5): halves go up (WebNN roundEven would give 0, 2, -0, -2).
  const auto round = [](GraphBuilder& b, const Operand& x) { return NnefRound(b, x); };
  CHECK(Values(Run({4}, {0.5f, 1.5f, -0.5f, -1.5f}, round)) == std::vector<double>{1, 2, 0, -1});
  // argmax over axis 1 of [[1, 3, 3], [5, 2, 5]]: the first maximum, [1, 0].
  NnefReduceAttributes r;
  r.axes = {1};
  const OperandValue am = Run({2, 3}, {1, 3, 3, 5, 2, 5}, [&](GraphBuilder& b, const Operand& x) {
    return NnefReduce(b, x, r);
  });
  CHECK(am.data.shape() == Shape{2, 1});
  CHECK(Values(am) == std::vector<double>{1, 0});
}

TEST_CASE("nnef window builders: operands must agree with the attributes") {
  GraphBuilder b;
  const Operand x = b.Input("x", {kF32, {1, 1, 4}});
  const Operand w = b.Input("w", {kF32, {1, 1, 2}});
  const Operand bias = b.Input("b", {kF32, {}});
  ConvAttributes c;
  c.axes = {WindowAxis{2, 1, 1, 0, 0}};
  c.groups = 0;  // unresolved
  CHECK(ErrorOf([&] { NnefConv(b, x, w, bias, c); }) == ErrorType::kTypeError);
  c.groups = 1;
  c.axes[0].size = 3;  // not the filter's extent
  CHECK(ErrorOf([&] { NnefConv(b, x, w, bias, c); }) == ErrorType::kTypeError);
  c.axes[0].size = 2;
  CHECK(b.Desc(NnefConv(b, x, w, bias, c)).shape == Shape{1, 1, 3});
  // sample's index must have the output shape.
  WindowAttributes s;
  s.axes = {WindowAxis{}, WindowAxis{}, WindowAxis{2, 2, 1, 0, 0}};
  const Operand bad = b.Input("i", {DataType::kInt64, {1, 1, 3}});
  CHECK(ErrorOf([&] { NnefSample(b, x, bad, s); }) == ErrorType::kTypeError);
}

TEST_CASE("nnef sample: an index outside the window is an OperationError at compute time") {
  GraphBuilder b;
  const Operand x = b.Input("x", {kF32, {1, 1, 2}});
  const Operand i = b.Input("i", {DataType::kInt64, {1, 1, 2}});
  WindowAttributes s;
  s.axes = {WindowAxis{}, WindowAxis{}, WindowAxis{1, 1, 1, 0, 0}};
  const auto g = b.Build({{"y", NnefSample(b, x, i, s)}});
  Tensor idx = Tensor::Allocate(DataType::kInt64, {1, 1, 2});
  idx.base<int64_t>()[0] = 0;
  idx.base<int64_t>()[1] = 3;  // the window has 1 position
  CHECK(ErrorOf([&] {
          g->Compute({{"x", F32({1, 1, 2}, {1, 2})}, {"i", idx}});
        }) == ErrorType::kOperationError);
}

TEST_CASE("nnef registry: the group, in OpId order, each judged by an existing row") {
  // Written out independently of nnef_op_list.inc: what WebNN lacks of NNEF 1.0.2 chapter 4
  // (issue 23) plus pad with NNEF borders and the graph.quant quantization.
  const std::set<std::string> expected = {"conv",          "deconv",       "box",
                                          "debox",         "argmax_pool",  "sample",
                                          "desample",      "pad",          "multilinear_upsample",
                                          "avg_roi_pool",  "max_roi_pool", "roi_resample",
                                          "round",         "elu",          "argmax_reduce",
                                          "argmin_reduce", "all_reduce",   "any_reduce",
                                          "quantize"};
  std::set<std::string> seen;
  for (size_t i = 0; i < NnefRegistry().size(); ++i) {
    const NnefOpInfo& op = NnefRegistry()[i];
    CHECK(static_cast<size_t>(op.id) == kOpCount + i);
    CHECK(OpName(op.id) == op.name);
    CHECK_FALSE(op.section.empty());
    CHECK(IsWebnnOp(op.tolerance_row));
    CHECK_MESSAGE(DefaultTolerance({op.tolerance_row, DataType::kFloat32, 4}).has_value(), op.name);
    seen.insert(std::string(op.name));
  }
  CHECK(seen == expected);
  CHECK(NnefRegistry().size() == kOpIdCount - kOpCount);
}

}  // namespace nnref::nnef
