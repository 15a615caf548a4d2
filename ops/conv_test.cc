// conv2d and convTranspose2d: values derived by hand (or the ONNX operator documentation's worked
// examples, recomputed by hand), layout identities, and a validation-error test per method step.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include "ops/conv2d.h"
#include "ops/conv_transpose2d.h"
#include "ops/registry.h"
#include "ref/testing.h"

namespace nnref {

namespace {

constexpr DataType kF32 = DataType::kFloat32;
constexpr DataType kF16 = DataType::kFloat16;

Tensor MakeF32(const Shape& s, const std::vector<float>& v) {
  Tensor x = Tensor::Allocate(kF32, s);
  REQUIRE(v.size() == x.element_count());
  for (size_t i = 0; i < v.size(); ++i) x.base<float>()[i] = v[i];
  return x;
}

std::vector<float> Range(size_t n, float start = 0) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + static_cast<float>(i);
  return v;
}

// Reorders dense 4-D data: out[p(i)] where out's axis k is in's axis perm[k].
std::vector<float> Permute(const std::vector<float>& in, const Shape& shape,
                           std::array<size_t, 4> perm) {
  Shape out_shape(4);
  for (size_t k = 0; k < 4; ++k) out_shape[k] = shape[perm[k]];
  std::vector<float> out(in.size());
  size_t o = 0;
  std::array<uint64_t, 4> i{};
  for (i[0] = 0; i[0] < out_shape[0]; ++i[0])
    for (i[1] = 0; i[1] < out_shape[1]; ++i[1])
      for (i[2] = 0; i[2] < out_shape[2]; ++i[2])
        for (i[3] = 0; i[3] < out_shape[3]; ++i[3]) {
          std::array<uint64_t, 4> src{};
          for (size_t k = 0; k < 4; ++k) src[perm[k]] = i[k];
          out[o++] = in[((src[0] * shape[1] + src[1]) * shape[2] + src[2]) * shape[3] + src[3]];
        }
  return out;
}
Shape PermuteShape(const Shape& s, std::array<size_t, 4> perm) {
  return {s[perm[0]], s[perm[1]], s[perm[2]], s[perm[3]]};
}

std::vector<float> Values(const OperandValue& v) {
  std::vector<float> out(v.data.element_count());
  for (size_t i = 0; i < out.size(); ++i) out[i] = v.data.At<float>(i);
  return out;
}

// conv2d of `x` (nchw) with `w` (oihw) in the given layouts (data permuted by the test).
std::vector<float> Conv2dIn(MLInputOperandLayout il, MLConv2dFilterOperandLayout fl,
                            const Shape& xs, const std::vector<float>& x, const Shape& ws,
                            const std::vector<float>& w, MLConv2dOptions o) {
  const std::array<size_t, 4> in_perm = il == MLInputOperandLayout::kNhwc
                                            ? std::array<size_t, 4>{0, 2, 3, 1}
                                            : std::array<size_t, 4>{0, 1, 2, 3};
  std::array<size_t, 4> f_perm{0, 1, 2, 3};  // from oihw
  if (fl == MLConv2dFilterOperandLayout::kHwio) f_perm = {2, 3, 1, 0};
  if (fl == MLConv2dFilterOperandLayout::kOhwi) f_perm = {0, 2, 3, 1};
  if (fl == MLConv2dFilterOperandLayout::kIhwo) f_perm = {1, 2, 3, 0};
  GraphBuilder b;
  const Operand xi = b.Input("x", {kF32, PermuteShape(xs, in_perm)});
  const Operand wi = b.Input("w", {kF32, PermuteShape(ws, f_perm)});
  o.inputLayout = il;
  o.filterLayout = fl;
  const Operand y = Conv2d(b, xi, wi, o);
  const OperandValue r = Run(b, y,
                             {{"x", MakeF32(PermuteShape(xs, in_perm), Permute(x, xs, in_perm))},
                              {"w", MakeF32(PermuteShape(ws, f_perm), Permute(w, ws, f_perm))}});
  // Back to nchw for comparison.
  const std::array<size_t, 4> back = il == MLInputOperandLayout::kNhwc
                                         ? std::array<size_t, 4>{0, 3, 1, 2}
                                         : std::array<size_t, 4>{0, 1, 2, 3};
  return Permute(Values(r), r.data.shape(), back);
}

}  // namespace

TEST_CASE("registry holds the sliding-window operators") {
  for (const char* name :
       {"conv2d", "convTranspose2d", "averagePool2d", "l2Pool2d", "maxPool2d", "resample2d"}) {
    const OpInfo* op = FindOp(name);
    REQUIRE_MESSAGE(op != nullptr, name);
    CHECK(op->limits->Find("input") != nullptr);
  }
  CHECK(kConv2dLimits.Find("bias")->max_rank == 1);
  CHECK(kConvTranspose2dLimits.Find("filter")->same_as == "input");
}

// The ONNX Conv examples: x = 0..24 as 5x5, W = 3x3 ones; each output is a window sum.
TEST_CASE("conv2d: 3x3 window sums, with and without padding and strides") {
  const std::vector<float> x = Range(25);
  const std::vector<float> w(9, 1.0f);
  auto conv = [&](MLConv2dOptions o) {
    return Conv2dIn(MLInputOperandLayout::kNchw, MLConv2dFilterOperandLayout::kOihw, {1, 1, 5, 5},
                    x, {1, 1, 3, 3}, w, o);
  };
  CHECK(conv({}) == std::vector<float>{54, 63, 72, 99, 108, 117, 144, 153, 162});
  MLConv2dOptions pad;
  pad.padding = {1, 1, 1, 1};
  CHECK(conv(pad) == std::vector<float>{12,  21, 27, 33,  24,  33,  54,  63, 72,  51,  63,  99, 108,
                                        117, 81, 93, 144, 153, 162, 111, 72, 111, 117, 123, 84});
  pad.strides = {2, 2};
  CHECK(conv(pad) == std::vector<float>{12, 27, 24, 63, 108, 81, 72, 117, 84});
  MLConv2dOptions asym;  // padding only at the end of the width: output 3 x 4
  asym.padding = {0, 0, 0, 1};
  CHECK(conv(asym) == std::vector<float>{54, 63, 72, 51, 99, 108, 117, 81, 144, 153, 162, 111});
}

TEST_CASE("conv2d: channels mix, bias is added, every layout gives the same result") {
  // x: ch0 = [1 2; 3 4], ch1 = [5 6; 7 8]. w (oihw): o0 = {i0: [1 0; 0 0], i1: [0 0; 0 1]},
  // o1 = {i0: all ones, i1: [0 1; 0 0]}. o0 = 1 + 8 = 9; o1 = 1+2+3+4 + 6 = 16.
  const std::vector<float> x = Range(8, 1);
  const std::vector<float> w = {1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 1, 0, 0};
  const Shape xs{1, 2, 2, 2}, ws{2, 2, 2, 2};
  for (auto il : {MLInputOperandLayout::kNchw, MLInputOperandLayout::kNhwc}) {
    for (auto fl : {MLConv2dFilterOperandLayout::kOihw, MLConv2dFilterOperandLayout::kHwio,
                    MLConv2dFilterOperandLayout::kOhwi, MLConv2dFilterOperandLayout::kIhwo}) {
      CAPTURE(static_cast<int>(il));
      CAPTURE(static_cast<int>(fl));
      CHECK(Conv2dIn(il, fl, xs, x, ws, w, {}) == std::vector<float>{9, 16});
      // With padding 1 the 3x3 output's corner (0,0) sees only x(0,0) under w(1,1):
      // o0: ch1 weight 1 at (1,1) times x ch1 (0,0) = 5; o1: ch0 weight 1 * 1 = 1.
      MLConv2dOptions o;
      o.padding = {1, 1, 1, 1};
      const std::vector<float> r = Conv2dIn(il, fl, xs, x, ws, w, o);
      REQUIRE(r.size() == 18);
      CHECK(r[0] == 5);
      CHECK(r[4] == 9);    // centre of o0: the unpadded result
      CHECK(r[9] == 1);    // corner of o1
      CHECK(r[13] == 16);  // centre of o1
    }
  }
  GraphBuilder b;
  const Operand xi = b.Input("x", {kF32, xs});
  const Operand wi = b.Constant({kF32, ws}, MakeF32(ws, w));
  const Operand bias = b.Constant({kF32, {2}}, MakeF32({2}, {0.5f, -1}));
  MLConv2dOptions o;
  o.bias = bias;
  const OperandValue r = Run(b, Conv2d(b, xi, wi, o), {{"x", MakeF32(xs, x)}});
  CHECK(Values(r) == std::vector<float>{9.5f, 15});
  CHECK(b.operators().back().tolerance.size == 2 * 2 * 2);  // kH * kW * inputChannels / groups
}

TEST_CASE("conv2d: groups and depthwise") {
  // Depthwise: groups = 2 = channels, filter [2, 1, 1, 1] = [2, 3].
  GraphBuilder b;
  const Operand x = b.Input("x", {kF32, {1, 2, 2, 2}});
  const Operand w = b.Input("w", {kF32, {2, 1, 1, 1}});
  MLConv2dOptions o;
  o.groups = 2;
  const Operand y = Conv2d(b, x, w, o);
  CHECK(b.operators().back().tolerance.size == 1);
  // Groups = 2 with 2 output channels per group: filter [4, 1, 1, 1] = [1, -1, 10, 100].
  const Operand w4 = b.Input("w4", {kF32, {4, 1, 1, 1}});
  const Operand y4 = Conv2d(b, x, w4, o);
  auto g = b.Build({{"y", y}, {"y4", y4}});
  const auto r = g->Compute({{"x", MakeF32({1, 2, 2, 2}, Range(8, 1))},
                             {"w", MakeF32({2, 1, 1, 1}, {2, 3})},
                             {"w4", MakeF32({4, 1, 1, 1}, {1, -1, 10, 100})}});
  CHECK(Values(r.at("y")) == std::vector<float>{2, 4, 6, 8, 15, 18, 21, 24});
  CHECK(Values(r.at("y4")) ==
        std::vector<float>{1, 2, 3, 4, -1, -2, -3, -4, 50, 60, 70, 80, 500, 600, 700, 800});
}

TEST_CASE("conv2d: dilations") {
  // x = 0..15 as 4x4, 2x2 ones dilated by 2: out(0,0) = x(0,0)+x(0,2)+x(2,0)+x(2,2) = 20.
  MLConv2dOptions o;
  o.dilations = {2, 2};
  CHECK(Conv2dIn(MLInputOperandLayout::kNchw, MLConv2dFilterOperandLayout::kOihw, {1, 1, 4, 4},
                 Range(16), {1, 1, 2, 2}, std::vector<float>(4, 1.0f),
                 o) == std::vector<float>{20, 24, 36, 40});
}

TEST_CASE("conv2d: the window sum is rounded once") {
  // float32: 2^24 + 1 + 1 = 16777218 is exact; summing in float32 would stop at 2^24.
  CHECK(Conv2dIn(MLInputOperandLayout::kNchw, MLConv2dFilterOperandLayout::kOihw, {1, 1, 1, 3},
                 {16777216.0f, 1, 1}, {1, 1, 1, 3}, {1, 1, 1},
                 {}) == std::vector<float>{16777218.0f});
  // float16: 2048 + 1 + 1 = 2050 (0x6801); summing in float16 would stay at 2048 (0x6800).
  GraphBuilder b;
  const Operand x = b.Input("x", {kF16, {1, 1, 1, 3}});
  const Operand w = b.Input("w", {kF16, {1, 1, 1, 3}});
  Tensor xt = Tensor::Allocate(kF16, {1, 1, 1, 3}), wt = Tensor::Allocate(kF16, {1, 1, 1, 3});
  const uint16_t xb[] = {0x6800, 0x3c00, 0x3c00};
  for (int i = 0; i < 3; ++i) {
    xt.base<Float16>()[i] = Float16{xb[i]};
    wt.base<Float16>()[i] = Float16{0x3c00};
  }
  const OperandValue r = Run(b, Conv2d(b, x, w), {{"x", xt}, {"w", wt}});
  CHECK(r.data.base<Float16>()[0].bits == 0x6801);
}

TEST_CASE("conv2d: a sum just above a float32 midpoint rounds up") {
  // 1 + 2^-24 + 2^-149 * 2^-126: the first two terms make the midpoint between 1 and 1 + 2^-23,
  // the tiny third one lifts it. Summing in double gives exactly the midpoint (ties to even: 1);
  // rounding the exact sum once gives 1 + 2^-23.
  CHECK(Conv2dIn(MLInputOperandLayout::kNchw, MLConv2dFilterOperandLayout::kOihw, {1, 1, 1, 3},
                 {1, std::ldexp(1.0f, -24), std::ldexp(1.0f, -149)}, {1, 1, 1, 3},
                 {1, 1, std::ldexp(1.0f, -126)},
                 {}) == std::vector<float>{1 + std::ldexp(1.0f, -23)});
  // And 1e30 + 1 - 1e30 (cancellation) is 1.
  CHECK(Conv2dIn(MLInputOperandLayout::kNchw, MLConv2dFilterOperandLayout::kOihw, {1, 1, 1, 3},
                 {1e30f, 1, -1e30f}, {1, 1, 1, 3}, {1, 1, 1}, {}) == std::vector<float>{1});
}

TEST_CASE("conv2d kernel reads strided input views") {
  GraphBuilder b;
  const Operand x = b.Input("x", {kF32, {1, 1, 2, 2}});
  const Operand w = b.Input("w", {kF32, {1, 1, 1, 1}});
  Conv2d(b, x, w);
  const OperatorNode& node = b.operators().back();
  // The buffer holds [1 3 2 4]; strides {4, 4, 1, 2} make the view [[1, 2], [3, 4]].
  const Tensor buffer = MakeF32({4}, {1, 3, 2, 4});
  const OperandValue xv{Tensor(kF32, {1, 1, 2, 2}, {4, 4, 1, 2}, 0, buffer.buffer()), {}};
  const OperandValue wv{MakeF32({1, 1, 1, 1}, {2}), {}};
  const std::array<const OperandValue*, 2> ins = {&xv, &wv};
  const OperandDescriptor od{kF32, {1, 1, 2, 2}};
  const auto r = node.kernel->Compute(ins, std::span<const OperandDescriptor>(&od, 1));
  CHECK(Values(r[0]) == std::vector<float>{2, 4, 6, 8});
}

TEST_CASE("conv2d: padding against an infinite filter value is marked value-or-NaN") {
  // Zero padding materialised would give 0 * Inf = NaN at the left output; skipping it gives Inf.
  GraphBuilder b;
  const Operand x = b.Input("x", {kF32, {1, 1, 1, 2}});
  const Operand w = b.Input("w", {kF32, {1, 1, 1, 2}});
  MLConv2dOptions o;
  o.padding = {0, 0, 1, 0};
  const OperandValue r =
      Run(b, Conv2d(b, x, w, o),
          {{"x", MakeF32({1, 1, 1, 2}, {1, 2})},
           {"w", MakeF32({1, 1, 1, 2}, {std::numeric_limits<float>::infinity(), 1})}});
  // out0 = pad * Inf + 1 * 1 (pad skipped) = 1; out1 = 1 * Inf + 2 * 1 = Inf.
  CHECK(Values(r) == std::vector<float>{1, std::numeric_limits<float>::infinity()});
  REQUIRE(r.latitude.valid());
  CHECK(r.latitude.base<uint8_t>()[0] == static_cast<uint8_t>(Latitude::kValueOrNaN));
  CHECK(r.latitude.base<uint8_t>()[1] == 0);
}

TEST_CASE("conv2d validation: one error per method step") {
  GraphBuilder b;
  const Operand x = b.Input("x", {kF32, {1, 4, 5, 5}});
  const Operand w = b.Input("w", {kF32, {2, 4, 3, 3}});
  const auto type_error = [&](const std::function<void()>& f) {
    return ErrorOf(f) == ErrorType::kTypeError;
  };
  GraphBuilder other;
  const Operand foreign = other.Input("f", {kF32, {1, 4, 5, 5}});
  CHECK(type_error([&] { Conv2d(b, foreign, w); }));  // step 2
  CHECK(type_error([&] { Conv2d(b, x, foreign); }));
  MLConv2dOptions foreign_bias;
  foreign_bias.bias = other.Input("fb", {kF32, {2}});
  CHECK(type_error([&] { Conv2d(b, x, w, foreign_bias); }));
  const Operand xi = b.Input("xi", {DataType::kInt32, {1, 4, 5, 5}});
  const Operand wi = b.Input("wi", {DataType::kInt32, {2, 4, 3, 3}});
  CHECK(type_error([&] { Conv2d(b, xi, wi); }));  // step 3
  const Operand x3 = b.Input("x3", {kF32, {4, 5, 5}});
  CHECK(type_error([&] { Conv2d(b, x3, w); }));  // step 4
  const Operand w3 = b.Input("w3", {kF32, {4, 3, 3}});
  CHECK(type_error([&] { Conv2d(b, x, w3); }));  // step 5
  const Operand wh = b.Input("wh", {kF16, {2, 4, 3, 3}});
  CHECK(type_error([&] { Conv2d(b, x, wh); }));  // step 6
  MLConv2dOptions o;
  o.padding = {1, 1, 1};
  CHECK(type_error([&] { Conv2d(b, x, w, o); }));  // step 8
  o = {};
  o.strides = {1};
  CHECK(type_error([&] { Conv2d(b, x, w, o); }));  // step 10
  o.strides = {1, 0};
  CHECK(type_error([&] { Conv2d(b, x, w, o); }));  // step 11
  o = {};
  o.dilations = {1, 1, 1};
  CHECK(type_error([&] { Conv2d(b, x, w, o); }));  // step 13
  o.dilations = {0, 1};
  CHECK(type_error([&] { Conv2d(b, x, w, o); }));  // step 14
  o = {};
  o.groups = 0;
  CHECK(type_error([&] { Conv2d(b, x, w, o); }));            // step 15
  o.groups = 3;                                              // 4 % 3 != 0
  CHECK(type_error([&] { Conv2d(b, x, w, o); }));            // step 16.5
  o.groups = 2;                                              // 4 / 2 = 2 != filter's 4
  CHECK(type_error([&] { Conv2d(b, x, w, o); }));            // step 16.6
  const Operand w3o = b.Input("w3o", {kF32, {3, 2, 3, 3}});  // 3 output channels, groups 2
  CHECK(type_error([&] { Conv2d(b, x, w3o, o); }));          // step 16.7
  o = {};
  o.bias = b.Input("b3", {kF32, {3}});
  CHECK(type_error([&] { Conv2d(b, x, w, o); }));  // step 16.8.1
  o.bias = b.Input("bh", {kF16, {2}});
  CHECK(type_error([&] { Conv2d(b, x, w, o); }));  // step 16.8.2
  const Operand big = b.Input("big", {kF32, {2, 4, 6, 3}});
  CHECK(type_error([&] { Conv2d(b, x, big); }));  // step 16.12: output height 0
  o = {};
  o.dilations = {3, 1};  // effective height 7 > 5
  CHECK(type_error([&] { Conv2d(b, x, w, o); }));
  // Valid: the same filter read as ohwi needs inputChannels 3 ... here hwio [3,3,4,2] is valid.
  const Operand whwio = b.Input("whwio", {kF32, {3, 3, 4, 2}});
  o = {};
  o.filterLayout = MLConv2dFilterOperandLayout::kHwio;
  CHECK(b.Desc(Conv2d(b, x, whwio, o)).shape == Shape{1, 2, 3, 3});
  o.inputLayout = MLInputOperandLayout::kNhwc;  // x read as nhwc: 4x5 spatial, 5 channels
  CHECK(type_error([&] { Conv2d(b, x, whwio, o); }));
  b.Build({{"y", Conv2d(b, x, w)}});
  CHECK(ErrorOf([&] { Conv2d(b, x, w); }) == ErrorType::kInvalidStateError);  // step 1
}

// ONNX ConvTranspose example: x = 0..8 as 3x3, W = ones [1, 2, 3, 3] (iohw): each output is the
// sum of the inputs whose 3x3 footprint covers it.
TEST_CASE("convTranspose2d: footprint sums, two output channels") {
  GraphBuilder b;
  const Operand x = b.Input("x", {kF32, {1, 1, 3, 3}});
  const Operand w = b.Input("w", {kF32, {1, 2, 3, 3}});
  const OperandValue r = Run(b, ConvTranspose2d(b, x, w),
                             {{"x", MakeF32({1, 1, 3, 3}, Range(9))},
                              {"w", MakeF32({1, 2, 3, 3}, std::vector<float>(18, 1.0f))}});
  CHECK(r.data.shape() == Shape{1, 2, 5, 5});
  const std::vector<float> plane = {0,  1,  3, 3,  2,  3,  8,  15, 12, 7,  9,  21, 36,
                                    27, 15, 9, 20, 33, 24, 13, 6,  13, 21, 15, 8};
  std::vector<float> expected = plane;
  expected.insert(expected.end(), plane.begin(), plane.end());
  CHECK(Values(r) == expected);
  CHECK(b.operators().back().tolerance.size == 9);
}

TEST_CASE("convTranspose2d: strides, padding, outputPadding and outputSizes") {
  // x = [1 2; 3 4], 2x2 ones filter, strides 2: each input fills its own 2x2 block.
  auto run = [](MLConvTranspose2dOptions o) {
    GraphBuilder b;
    const Operand x = b.Input("x", {kF32, {1, 1, 2, 2}});
    const Operand w = b.Input("w", {kF32, {1, 1, 2, 2}});
    o.strides = {2, 2};
    const OperandValue r = Run(
        b, ConvTranspose2d(b, x, w, o),
        {{"x", MakeF32({1, 1, 2, 2}, {1, 2, 3, 4})}, {"w", MakeF32({1, 1, 2, 2}, {1, 1, 1, 1})}});
    return std::make_pair(r.data.shape(), Values(r));
  };
  const auto full = run({});
  CHECK(full.first == Shape{1, 1, 4, 4});
  CHECK(full.second == std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
  MLConvTranspose2dOptions o;
  o.padding = {1, 1, 1, 1};  // crops one row/column on each side
  CHECK(run(o).second == std::vector<float>{1, 2, 3, 4});
  o = {};
  o.outputPadding = {1, 1};  // a 5th row/column on which nothing lands
  const auto padded = run(o);
  CHECK(padded.first == Shape{1, 1, 5, 5});
  CHECK(padded.second == std::vector<float>{1, 1, 2, 2, 0, 1, 1, 2, 2, 0, 3, 3, 4,
                                            4, 0, 3, 3, 4, 4, 0, 0, 0, 0, 0, 0});
  o = {};
  o.outputSizes = {5, 5};
  o.outputPadding = {7, 7};  // ignored with outputSizes (and not checked against strides)
  CHECK(run(o) == padded);
  o = {};
  o.padding = {0, 1, 0, 1};  // the ending row is cropped, and outputPadding brings it back
  o.outputPadding = {1, 1};
  CHECK(run(o) == full);
}

TEST_CASE("convTranspose2d: groups, dilations, bias and filter layouts") {
  {
    GraphBuilder b;
    const Operand x = b.Input("x", {kF32, {1, 2, 1, 1}});
    const Operand w = b.Input("w", {kF32, {2, 1, 1, 1}});  // iohw: [inputChannels, out/groups]
    MLConvTranspose2dOptions grouped;
    grouped.groups = 2;
    const Operand y2 = ConvTranspose2d(b, x, w, grouped);
    const Operand y1 = ConvTranspose2d(b, x, w);
    auto g = b.Build({{"y2", y2}, {"y1", y1}});
    const auto r =
        g->Compute({{"x", MakeF32({1, 2, 1, 1}, {1, 10})}, {"w", MakeF32({2, 1, 1, 1}, {2, 3})}});
    CHECK(Values(r.at("y2")) == std::vector<float>{2, 30});  // each group alone
    CHECK(Values(r.at("y1")) == std::vector<float>{32});     // 1*2 + 10*3
  }
  {
    // x = [1, 2], w = [1, 10] dilated by 2: out_x = in_x + 2 * filter_x -> [1, 2, 10, 20].
    GraphBuilder b;
    const Operand x = b.Input("x", {kF32, {1, 1, 1, 2}});
    const Operand w = b.Input("w", {kF32, {1, 1, 1, 2}});
    MLConvTranspose2dOptions o;
    o.dilations = {1, 2};
    o.bias = b.Constant({kF32, {1}}, MakeF32({1}, {0.5f}));
    const OperandValue r =
        Run(b, ConvTranspose2d(b, x, w, o),
            {{"x", MakeF32({1, 1, 1, 2}, {1, 2})}, {"w", MakeF32({1, 1, 1, 2}, {1, 10})}});
    CHECK(Values(r) == std::vector<float>{1.5f, 2.5f, 10.5f, 20.5f});
  }
  // Layouts: x nchw [1, 2, 2, 2] = 1..8; filter iohw [2, 3, 2, 2] = 1..24, strides 2. The other
  // layouts (data permuted here) must give the same values; two elements checked by hand:
  // out(o=0, y=0, x=0) = x(c0,0,0) * w(0,0,0,0) + x(c1,0,0) * w(1,0,0,0) = 1*1 + 5*13 = 66;
  // out(o=2, y=3, x=3) = x(c0,1,1) * w(0,2,1,1) + x(c1,1,1) * w(1,2,1,1) = 4*12 + 8*24 = 240.
  const std::vector<float> x = Range(8, 1), w = Range(24, 1);
  std::vector<float> reference;
  struct Layout {
    MLInputOperandLayout input;
    MLConvTranspose2dFilterOperandLayout filter;
    std::array<size_t, 4> filter_perm;  // from iohw
  };
  for (const Layout& l :
       {Layout{
            MLInputOperandLayout::kNchw, MLConvTranspose2dFilterOperandLayout::kIohw, {0, 1, 2, 3}},
        Layout{
            MLInputOperandLayout::kNhwc, MLConvTranspose2dFilterOperandLayout::kHwoi, {2, 3, 1, 0}},
        Layout{MLInputOperandLayout::kNchw,
               MLConvTranspose2dFilterOperandLayout::kOhwi,
               {1, 2, 3, 0}}}) {
    const bool nhwc = l.input == MLInputOperandLayout::kNhwc;
    const std::array<size_t, 4> in_perm =
        nhwc ? std::array<size_t, 4>{0, 2, 3, 1} : std::array<size_t, 4>{0, 1, 2, 3};
    const Shape xs{1, 2, 2, 2}, ws{2, 3, 2, 2};
    GraphBuilder b;
    const Operand xi = b.Input("x", {kF32, PermuteShape(xs, in_perm)});
    const Operand wi = b.Input("w", {kF32, PermuteShape(ws, l.filter_perm)});
    MLConvTranspose2dOptions o;
    o.strides = {2, 2};
    o.inputLayout = l.input;
    o.filterLayout = l.filter;
    const OperandValue r =
        Run(b, ConvTranspose2d(b, xi, wi, o),
            {{"x", MakeF32(PermuteShape(xs, in_perm), Permute(x, xs, in_perm))},
             {"w", MakeF32(PermuteShape(ws, l.filter_perm), Permute(w, ws, l.filter_perm))}});
    const std::vector<float> nchw =
        nhwc ? Permute(Values(r), r.data.shape(), {0, 3, 1, 2}) : Values(r);
    REQUIRE(nchw.size() == 48);
    CHECK(nchw[0] == 66);
    CHECK(nchw[2 * 16 + 15] == 240);
    if (reference.empty()) reference = nchw;
    CHECK(nchw == reference);
  }
}

TEST_CASE("convTranspose2d validation: one error per method step") {
  GraphBuilder b;
  const Operand x = b.Input("x", {kF32, {1, 4, 3, 3}});
  const Operand w = b.Input("w", {kF32, {4, 2, 3, 3}});
  const auto type_error = [&](const std::function<void()>& f) {
    return ErrorOf(f) == ErrorType::kTypeError;
  };
  GraphBuilder other;
  const Operand foreign = other.Input("f", {kF32, {1, 4, 3, 3}});
  CHECK(type_error([&] { ConvTranspose2d(b, foreign, w); }));  // step 2
  CHECK(type_error([&] { ConvTranspose2d(b, x, foreign); }));
  const Operand x3 = b.Input("x3", {kF32, {4, 3, 3}});
  CHECK(type_error([&] { ConvTranspose2d(b, x3, w); }));  // step 3
  const Operand xi = b.Input("xi", {DataType::kInt32, {1, 4, 3, 3}});
  CHECK(type_error([&] { ConvTranspose2d(b, xi, w); }));  // step 4
  const Operand w3 = b.Input("w3", {kF32, {4, 2, 3}});
  CHECK(type_error([&] { ConvTranspose2d(b, x, w3); }));  // step 5
  const Operand wh = b.Input("wh", {kF16, {4, 2, 3, 3}});
  CHECK(type_error([&] { ConvTranspose2d(b, x, wh); }));  // step 6
  MLConvTranspose2dOptions o;
  o.padding = {0, 0};
  CHECK(type_error([&] { ConvTranspose2d(b, x, w, o); }));  // step 8
  o = {};
  o.strides = {2, 2, 2};
  CHECK(type_error([&] { ConvTranspose2d(b, x, w, o); }));  // step 10
  o.strides = {0, 2};
  CHECK(type_error([&] { ConvTranspose2d(b, x, w, o); }));  // step 11
  o = {};
  o.dilations = {2};
  CHECK(type_error([&] { ConvTranspose2d(b, x, w, o); }));  // step 13
  o.dilations = {2, 0};
  CHECK(type_error([&] { ConvTranspose2d(b, x, w, o); }));  // step 14
  o = {};
  o.outputPadding = {0, 0, 0};
  CHECK(type_error([&] { ConvTranspose2d(b, x, w, o); }));  // step 16
  o = {};
  o.outputSizes = {5};
  CHECK(type_error([&] { ConvTranspose2d(b, x, w, o); }));  // step 17.1
  o = {};
  o.strides = {2, 2};
  o.outputPadding = {1, 2};
  CHECK(type_error([&] { ConvTranspose2d(b, x, w, o); }));  // step 18.1
  o.outputPadding = {1, 1};
  CHECK(b.Desc(ConvTranspose2d(b, x, w, o)).shape == Shape{1, 2, 8, 8});
  o = {};
  o.groups = 0;
  CHECK(type_error([&] { ConvTranspose2d(b, x, w, o); }));  // step 19
  const Operand w5 = b.Input("w5", {kF32, {5, 2, 3, 3}});
  CHECK(type_error([&] { ConvTranspose2d(b, x, w5); }));  // step 20.5
  o.groups = 3;  // 4 input channels do not divide into 3 groups
  CHECK(type_error([&] { ConvTranspose2d(b, x, w, o); }));  // spec-notes #11
  o.groups = 2;
  CHECK(b.Desc(ConvTranspose2d(b, x, w, o)).shape == Shape{1, 4, 5, 5});  // 2 * groups outputs
  o = {};
  o.bias = b.Input("b4", {kF32, {4}});
  CHECK(type_error([&] { ConvTranspose2d(b, x, w, o); }));  // step 20.8.1
  o.bias = b.Input("bh", {kF16, {2}});
  CHECK(type_error([&] { ConvTranspose2d(b, x, w, o); }));  // step 20.8.2
  o = {};
  o.strides = {2, 2};  // calculated 7 x 7: outputSizes may be 7 or 8
  o.outputSizes = {8, 7};
  CHECK(b.Desc(ConvTranspose2d(b, x, w, o)).shape == Shape{1, 2, 8, 7});
  o.outputSizes = {6, 7};
  CHECK(type_error([&] { ConvTranspose2d(b, x, w, o); }));  // step 20.11.2: below
  o.outputSizes = {9, 7};
  CHECK(type_error([&] { ConvTranspose2d(b, x, w, o); }));  // step 20.11.2: too far above
  o.outputSizes = {7, 9};
  CHECK(type_error([&] { ConvTranspose2d(b, x, w, o); }));  // step 20.11.3
  o = {};
  o.padding = {3, 3, 0, 0};                                 // calculated height 5 - 6 = -1
  CHECK(type_error([&] { ConvTranspose2d(b, x, w, o); }));  // step 20.13
  b.Build({{"y", ConvTranspose2d(b, x, w)}});
  CHECK(ErrorOf([&] { ConvTranspose2d(b, x, w); }) == ErrorType::kInvalidStateError);  // step 1
}

}  // namespace nnref
