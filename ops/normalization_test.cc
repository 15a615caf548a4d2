// batchNormalization, instanceNormalization and layerNormalization: hand-computed values, one
// rounding of the emulation's composition, and a validation error for every method step.
#include "ops/normalization.h"

#include <doctest/doctest.h>

#include <cmath>

#include "ref/testing.h"

namespace nnref {

TEST_CASE("batchNormalization: axis 1 with scale and bias, by hand") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 2}});
  const Operand mean = b.Input("mean", {DataType::kFloat32, {2}});
  const Operand var = b.Input("var", {DataType::kFloat32, {2}});
  const Operand scale = b.Input("scale", {DataType::kFloat32, {2}});
  const Operand bias = b.Input("bias", {DataType::kFloat32, {2}});
  MLBatchNormalizationOptions o;
  o.scale = scale;
  o.bias = bias;
  o.epsilon = 0;
  // (x - mean) / sqrt(var): column 0 (mean 2, var 4): -0.5, 0.5; column 1 (mean 3, var 1): -1, 1.
  // Times scale [2, 3], plus bias [1, -1]: [[0, -4], [2, 2]].
  const OperandValue r = Run(b, BatchNormalization(b, x, mean, var, o),
                             {{"x", F32({2, 2}, {1, 2, 3, 4})},
                              {"mean", F32({2}, {2, 3})},
                              {"var", F32({2}, {4, 1})},
                              {"scale", F32({2}, {2, 3})},
                              {"bias", F32({2}, {1, -1})}});
  CheckFloats(r.data, {0, -4, 2, 2});
}

TEST_CASE("batchNormalization: axis 0 of a rank-3 input, no scale or bias") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 1, 2}});
  const Operand mean = b.Input("mean", {DataType::kFloat32, {2}});
  const Operand var = b.Input("var", {DataType::kFloat32, {2}});
  MLBatchNormalizationOptions o;
  o.axis = 0;
  o.epsilon = 0;
  const OperandValue r = Run(
      b, BatchNormalization(b, x, mean, var, o),
      {{"x", F32({2, 1, 2}, {1, 3, 5, 9})}, {"mean", F32({2}, {2, 7})}, {"var", F32({2}, {1, 4})}});
  CheckFloats(r.data, {-1, 1, -1, 1});
}

TEST_CASE("batchNormalization float16: the composition is rounded once") {
  // x = 1, mean = 0, variance = 1, epsilon = 2^-10. Exact: 1/sqrt(1 + 2^-10) = 1 - 2^-11 + 3*2^-23
  // + ..., nearest float16 1 - 2^-11 (0x3bff). Stepwise: sqrt(1 + 2^-10) = 1 + 2^-11 - ... rounds
  // to 1, and 1/1 = 1 (0x3c00).
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat16, {1, 1}});
  const Operand mean = b.Input("mean", {DataType::kFloat16, {1}});
  const Operand var = b.Input("var", {DataType::kFloat16, {1}});
  MLBatchNormalizationOptions o;
  o.epsilon = std::ldexp(1.0, -10);
  const OperandValue r =
      Run(b, BatchNormalization(b, x, mean, var, o),
          {{"x", F16({1, 1}, {1})}, {"mean", F16({1}, {0})}, {"var", F16({1}, {1})}});
  CHECK(r.data.base<Float16>()[0].bits == 0x3bff);
}

TEST_CASE("batchNormalization: epsilon is cast to the input type (1e-8 -> float16 0)") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat16, {1, 1}});
  const Operand mean = b.Input("mean", {DataType::kFloat16, {1}});
  const Operand var = b.Input("var", {DataType::kFloat16, {1}});
  MLBatchNormalizationOptions o;
  o.epsilon = 1e-8;  // below half the smallest float16 subnormal (2^-25): casts to 0
  const OperandValue r =
      Run(b, BatchNormalization(b, x, mean, var, o),
          {{"x", F16({1, 1}, {3})}, {"mean", F16({1}, {3})}, {"var", F16({1}, {0})}});
  CHECK(std::isnan(r.data.base<Float16>()[0].ToDouble()));  // 0 / sqrt(0 + 0)
}

TEST_CASE("batchNormalization validation: every method step") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 3, 4}});
  const Operand m3 = b.Input("m3", {DataType::kFloat32, {3}});
  const Operand m4 = b.Input("m4", {DataType::kFloat32, {4}});
  const Operand m13 = b.Input("m13", {DataType::kFloat32, {1, 3}});
  const Operand h3 = b.Input("h3", {DataType::kFloat16, {3}});
  const Operand i = b.Input("i", {DataType::kInt32, {2, 3, 4}});
  const Operand i3 = b.Input("i3", {DataType::kInt32, {3}});
  const Operand s0 = b.Input("s0", {DataType::kFloat32, {}});
  GraphBuilder other;
  const Operand foreign = other.Input("z", {DataType::kFloat32, {3}});
  MLBatchNormalizationOptions none;
  // Step 2: every operand, the optional ones included.
  CHECK(ErrorOf([&] { BatchNormalization(b, x, foreign, m3, none); }) == ErrorType::kTypeError);
  MLBatchNormalizationOptions fs;
  fs.scale = foreign;
  CHECK(ErrorOf([&] { BatchNormalization(b, x, m3, m3, fs); }) == ErrorType::kTypeError);
  // Step 3.
  CHECK(ErrorOf([&] { BatchNormalization(b, i, i3, i3, none); }) == ErrorType::kTypeError);
  // Step 4: axis in [0, rank); a rank-0 input has no axis.
  MLBatchNormalizationOptions axis3;
  axis3.axis = 3;
  CHECK(ErrorOf([&] { BatchNormalization(b, x, m3, m3, axis3); }) == ErrorType::kTypeError);
  MLBatchNormalizationOptions axis0;
  axis0.axis = 0;
  CHECK(ErrorOf([&] { BatchNormalization(b, s0, m3, m3, axis0); }) == ErrorType::kTypeError);
  // Steps 5-6: mean's type and shape.
  CHECK(ErrorOf([&] { BatchNormalization(b, x, h3, m3, none); }) == ErrorType::kTypeError);
  CHECK(ErrorOf([&] { BatchNormalization(b, x, m4, m3, none); }) == ErrorType::kTypeError);
  CHECK(ErrorOf([&] { BatchNormalization(b, x, m13, m3, none); }) == ErrorType::kTypeError);
  // Steps 7-8: variance's type and shape.
  CHECK(ErrorOf([&] { BatchNormalization(b, x, m3, h3, none); }) == ErrorType::kTypeError);
  CHECK(ErrorOf([&] { BatchNormalization(b, x, m3, m4, none); }) == ErrorType::kTypeError);
  // Step 10: scale's type and shape; step 11: bias's.
  for (const Operand& bad : {h3, m4}) {
    MLBatchNormalizationOptions o;
    o.scale = bad;
    CHECK(ErrorOf([&] { BatchNormalization(b, x, m3, m3, o); }) == ErrorType::kTypeError);
    MLBatchNormalizationOptions p;
    p.bias = bad;
    CHECK(ErrorOf([&] { BatchNormalization(b, x, m3, m3, p); }) == ErrorType::kTypeError);
  }
  // axis 2 takes [4]-shaped parameters.
  MLBatchNormalizationOptions axis2;
  axis2.axis = 2;
  axis2.scale = m4;
  CHECK(b.Desc(BatchNormalization(b, x, m4, m4, axis2)).shape == Shape{2, 3, 4});
  // Step 1.
  b.Build({{"o", BatchNormalization(b, x, m3, m3, none)}});
  CHECK(ErrorOf([&] { BatchNormalization(b, x, m3, m3, none); }) == ErrorType::kInvalidStateError);
}

TEST_CASE("instanceNormalization nchw and nhwc, by hand") {
  // Channel 0 holds [0, 0, 2, 2] (mean 1, variance 1) and channel 1 [1, 3, 1, 3] (mean 2,
  // variance 1); normalized [-1, -1, 1, 1] and [-1, 1, -1, 1]; scale [2, 3], bias [0.5, -1].
  for (const bool nhwc : {false, true}) {
    CAPTURE(nhwc);
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat32, {1, 2, 2, 2}});
    const Operand scale = b.Input("scale", {DataType::kFloat32, {2}});
    const Operand bias = b.Input("bias", {DataType::kFloat32, {2}});
    MLInstanceNormalizationOptions o;
    o.scale = scale;
    o.bias = bias;
    o.epsilon = 0;
    o.layout = nhwc ? MLInputOperandLayout::kNhwc : MLInputOperandLayout::kNchw;
    const Tensor input = nhwc ? F32({1, 2, 2, 2}, {0, 1, 0, 3, 2, 1, 2, 3})
                              : F32({1, 2, 2, 2}, {0, 0, 2, 2, 1, 3, 1, 3});
    const OperandValue r =
        Run(b, InstanceNormalization(b, x, o),
            {{"x", input}, {"scale", F32({2}, {2, 3})}, {"bias", F32({2}, {0.5f, -1})}});
    if (nhwc) {
      CheckFloats(r.data, {-1.5, -4, -1.5, 2, 2.5, -4, 2.5, 2});
    } else {
      CheckFloats(r.data, {-1.5, -1.5, 2.5, 2.5, -4, 2, -4, 2});
    }
  }
}

TEST_CASE("instanceNormalization: each sample has its own statistics") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 1, 1, 2}});
  MLInstanceNormalizationOptions o;
  o.epsilon = 0;
  // [1, 3]: mean 2, variance 1; [10, 30]: mean 20, variance 100.
  const OperandValue r =
      Run(b, InstanceNormalization(b, x, o), {{"x", F32({2, 1, 1, 2}, {1, 3, 10, 30})}});
  CheckFloats(r.data, {-1, 1, -1, 1});
}

TEST_CASE("instanceNormalization validation: every method step") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {1, 2, 3, 4}});
  const Operand x3 = b.Input("x3", {DataType::kFloat32, {2, 3, 4}});
  const Operand i = b.Input("i", {DataType::kInt32, {1, 2, 3, 4}});
  const Operand p2 = b.Input("p2", {DataType::kFloat32, {2}});
  const Operand p4 = b.Input("p4", {DataType::kFloat32, {4}});
  const Operand h2 = b.Input("h2", {DataType::kFloat16, {2}});
  GraphBuilder other;
  const Operand foreign = other.Input("z", {DataType::kFloat32, {2}});
  MLInstanceNormalizationOptions fs;
  fs.bias = foreign;
  CHECK(ErrorOf([&] { InstanceNormalization(b, x, fs); }) == ErrorType::kTypeError);  // step 2
  CHECK(ErrorOf([&] { InstanceNormalization(b, i); }) == ErrorType::kTypeError);      // step 3
  CHECK(ErrorOf([&] { InstanceNormalization(b, x3); }) == ErrorType::kTypeError);     // step 4
  for (const Operand& bad : {h2, p4}) {  // steps 7 (scale) and 8 (bias): type, then shape
    MLInstanceNormalizationOptions o;
    o.scale = bad;
    CHECK(ErrorOf([&] { InstanceNormalization(b, x, o); }) == ErrorType::kTypeError);
    MLInstanceNormalizationOptions p;
    p.bias = bad;
    CHECK(ErrorOf([&] { InstanceNormalization(b, x, p); }) == ErrorType::kTypeError);
  }
  // Step 6: with nhwc the channel axis is 3, so [4] fits and [2] does not.
  MLInstanceNormalizationOptions nhwc;
  nhwc.layout = MLInputOperandLayout::kNhwc;
  nhwc.scale = p4;
  CHECK(b.Desc(InstanceNormalization(b, x, nhwc)).shape == Shape{1, 2, 3, 4});
  nhwc.scale = p2;
  CHECK(ErrorOf([&] { InstanceNormalization(b, x, nhwc); }) == ErrorType::kTypeError);
  b.Build({{"o", InstanceNormalization(b, x)}});
  CHECK(ErrorOf([&] { InstanceNormalization(b, x); }) == ErrorType::kInvalidStateError);  // 1
}

TEST_CASE("layerNormalization: default axes (all but the first) with scale") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 2, 2}});
  const Operand scale = b.Input("scale", {DataType::kFloat32, {2, 2}});
  MLLayerNormalizationOptions o;
  o.scale = scale;
  o.epsilon = 0;
  // Sample 0 [0, 0, 2, 2] -> [-1, -1, 1, 1]; sample 1 [1, 3, 1, 3] -> [-1, 1, -1, 1];
  // times scale [1, 2, 3, 4].
  const OperandValue r =
      Run(b, LayerNormalization(b, x, o),
          {{"x", F32({2, 2, 2}, {0, 0, 2, 2, 1, 3, 1, 3})}, {"scale", F32({2, 2}, {1, 2, 3, 4})}});
  CheckFloats(r.data, {-1, -2, 3, 4, -1, 2, -3, 4});
}

TEST_CASE("layerNormalization: axes [2, 1] index scale in the order of axes") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {1, 2, 3}});
  const Operand scale = b.Input("scale", {DataType::kFloat32, {3, 2}});
  MLLayerNormalizationOptions o;
  o.axes = std::vector<uint32_t>{2, 1};
  o.scale = scale;
  o.epsilon = 0;
  // x = [[0,0,0],[2,2,2]] normalizes to [[-1,-1,-1],[1,1,1]]; element (j, k) takes scale[k][j].
  const OperandValue r = Run(
      b, LayerNormalization(b, x, o),
      {{"x", F32({1, 2, 3}, {0, 0, 0, 2, 2, 2})}, {"scale", F32({3, 2}, {1, 10, 2, 20, 3, 30})}});
  CheckFloats(r.data, {-1, -2, -3, 10, 20, 30});
}

TEST_CASE("layerNormalization: axes [0] normalizes columns") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 2}});
  MLLayerNormalizationOptions o;
  o.axes = std::vector<uint32_t>{0};
  o.epsilon = 0;
  const OperandValue r = Run(b, LayerNormalization(b, x, o), {{"x", F32({2, 2}, {1, 10, 3, 30})}});
  CheckFloats(r.data, {-1, -1, 1, 1});
}

TEST_CASE("layerNormalization with empty axes gives the bias (spec-notes #13)") {
  SUBCASE("explicit empty axes, scalar bias") {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat32, {2}});
    const Operand bias = b.Input("bias", {DataType::kFloat32, {}});
    MLLayerNormalizationOptions o;
    o.axes.emplace();  // present and empty
    o.bias = bias;
    const OperandValue r =
        Run(b, LayerNormalization(b, x, o), {{"x", F32({2}, {5, -7})}, {"bias", F32({}, {0.25f})}});
    CheckFloats(r.data, {0.25, 0.25});
  }
  SUBCASE("rank 1 with default axes: 0, and NaN where x - x is NaN") {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat32, {3}});
    const OperandValue r = Run(b, LayerNormalization(b, x), {{"x", F32({3}, {5, -7, INFINITY})}});
    CHECK(r.data.base<float>()[0] == 0);
    CHECK(r.data.base<float>()[1] == 0);
    CHECK(std::isnan(r.data.base<float>()[2]));
  }
  SUBCASE("rank 0") {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat32, {}});
    CheckFloats(Run(b, LayerNormalization(b, x), {{"x", F32({}, {42})}}).data, {0});
  }
}

TEST_CASE("layerNormalization float16: mean, variance and the composition round once") {
  // [-1, 1]: mean 0, variance 1, epsilon 2^-10: +-1/sqrt(1 + 2^-10) -> +-(1 - 2^-11) (0x3bff);
  // stepwise float16 would round sqrt(1 + 2^-10) to 1 and give +-1.
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat16, {1, 2}});
  MLLayerNormalizationOptions o;
  o.epsilon = std::ldexp(1.0, -10);
  const OperandValue r = Run(b, LayerNormalization(b, x, o), {{"x", F16({1, 2}, {-1, 1})}});
  CHECK(r.data.base<Float16>()[0].bits == 0xbbff);
  CHECK(r.data.base<Float16>()[1].bits == 0x3bff);
}

TEST_CASE("layerNormalization validation: every method step") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 3, 4}});
  const Operand i = b.Input("i", {DataType::kInt32, {2, 3, 4}});
  const Operand p34 = b.Input("p34", {DataType::kFloat32, {3, 4}});
  const Operand p43 = b.Input("p43", {DataType::kFloat32, {4, 3}});
  const Operand p4 = b.Input("p4", {DataType::kFloat32, {4}});
  const Operand h34 = b.Input("h34", {DataType::kFloat16, {3, 4}});
  GraphBuilder other;
  const Operand foreign = other.Input("z", {DataType::kFloat32, {3, 4}});
  MLLayerNormalizationOptions fs;
  fs.scale = foreign;
  CHECK(ErrorOf([&] { LayerNormalization(b, x, fs); }) == ErrorType::kTypeError);  // step 2
  CHECK(ErrorOf([&] { LayerNormalization(b, i); }) == ErrorType::kTypeError);      // step 3
  // Step 5: duplicates and out-of-range axes.
  MLLayerNormalizationOptions dup;
  dup.axes = std::vector<uint32_t>{1, 1};
  CHECK(ErrorOf([&] { LayerNormalization(b, x, dup); }) == ErrorType::kTypeError);
  MLLayerNormalizationOptions range;
  range.axes = std::vector<uint32_t>{3};
  CHECK(ErrorOf([&] { LayerNormalization(b, x, range); }) == ErrorType::kTypeError);
  // Steps 7-8: scale/bias type, and rank equal to the number of axes.
  for (const Operand& bad : {h34, p4}) {
    MLLayerNormalizationOptions o;
    o.scale = bad;
    CHECK(ErrorOf([&] { LayerNormalization(b, x, o); }) == ErrorType::kTypeError);
    MLLayerNormalizationOptions p;
    p.bias = bad;
    CHECK(ErrorOf([&] { LayerNormalization(b, x, p); }) == ErrorType::kTypeError);
  }
  // Step 9: each dimension must match the input axis it stands for.
  MLLayerNormalizationOptions swapped;
  swapped.scale = p43;
  CHECK(ErrorOf([&] { LayerNormalization(b, x, swapped); }) == ErrorType::kTypeError);
  MLLayerNormalizationOptions swapped_bias;
  swapped_bias.bias = p43;
  CHECK(ErrorOf([&] { LayerNormalization(b, x, swapped_bias); }) == ErrorType::kTypeError);
  MLLayerNormalizationOptions reversed;
  reversed.axes = std::vector<uint32_t>{2, 1};
  reversed.scale = p43;
  reversed.bias = p43;
  CHECK(b.Desc(LayerNormalization(b, x, reversed)).shape == Shape{2, 3, 4});
  MLLayerNormalizationOptions ok;
  ok.scale = p34;
  b.Build({{"o", LayerNormalization(b, x, ok)}});
  CHECK(ErrorOf([&] { LayerNormalization(b, x); }) == ErrorType::kInvalidStateError);  // step 1
}

}  // namespace nnref
