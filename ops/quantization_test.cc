// quantizeLinear and dequantizeLinear: hand-computed values, exact rounding where the emulation's
// stepwise rounding would differ, saturation (spec-notes #14), blockwise parameters, latitude
// marks, and a validation error for every method step.
#include "ops/quantization.h"

#include <doctest/doctest.h>

#include <cmath>

#include "ref/testing.h"

namespace nnref {

namespace {

// quantizeLinear(x, scale, zeroPoint) on float32 inputs with zero points of type Z.
template <typename Z>
OperandValue Quantize(const Tensor& x, const Tensor& scale, const Tensor& zero_point) {
  GraphBuilder b;
  const Operand ix = b.Input("x", {x.dtype(), x.shape()});
  const Operand is = b.Input("s", {scale.dtype(), scale.shape()});
  const Operand iz = b.Input("z", {zero_point.dtype(), zero_point.shape()});
  return b.Build({{"out", QuantizeLinear(b, ix, is, iz)}})
      ->Compute({{"x", x}, {"s", scale}, {"z", zero_point}})
      .at("out");
}

OperandValue Dequantize(const Tensor& x, const Tensor& scale, const Tensor& zero_point) {
  GraphBuilder b;
  const Operand ix = b.Input("x", {x.dtype(), x.shape()});
  const Operand is = b.Input("s", {scale.dtype(), scale.shape()});
  const Operand iz = b.Input("z", {zero_point.dtype(), zero_point.shape()});
  return b.Build({{"out", DequantizeLinear(b, ix, is, iz)}})
      ->Compute({{"x", x}, {"s", scale}, {"z", zero_point}})
      .at("out");
}

template <typename T>
void CheckValues(const Tensor& t, std::initializer_list<T> expected) {
  REQUIRE(t.element_count() == expected.size());
  size_t i = 0;
  for (T e : expected) {
    CHECK_MESSAGE(t.At<T>(i) == e, "element " << i);
    ++i;
  }
}

uint8_t LatitudeAt(const OperandValue& v, size_t i) {
  return v.latitude.valid() ? v.latitude.At<uint8_t>(i) : 0;
}

}  // namespace

TEST_CASE("quantizeLinear uint8: roundEven(x / scale) + zeroPoint, saturated") {
  const OperandValue r = Quantize<uint8_t>(F32({6}, {0, 1.5f, 2.5f, -3, 300, 3.5f}), F32({1}, {1}),
                                           Make<uint8_t>(DataType::kUint8, {1}, {10}));
  CHECK(r.data.dtype() == DataType::kUint8);
  // roundEven: 0, 2, 2, -3, 300, 4; plus 10; 310 saturates to 255.
  CheckValues<uint8_t>(r.data, {10, 12, 12, 7, 255, 14});
  CHECK_FALSE(r.latitude.valid());
}

TEST_CASE("quantizeLinear int8 saturates to -128..127, not 0..255 (spec-notes #14)") {
  const OperandValue r = Quantize<int8_t>(F32({4}, {-200, -1.5f, 0.5f, 200}), F32({1}, {1}),
                                          Make<int8_t>(DataType::kInt8, {1}, {0}));
  CheckValues<int8_t>(r.data, {-128, -2, 0, 127});
}

TEST_CASE("quantizeLinear with 32-bit zero points saturates to their ranges") {
  const Tensor x = F32({3}, {3e9f, -5, -3e9f});  // 3e9 is a float32 value
  const OperandValue u =
      Quantize<uint32_t>(x, F32({1}, {1}), Make<uint32_t>(DataType::kUint32, {1}, {0}));
  CheckValues<uint32_t>(u.data, {3000000000u, 0, 0});
  const OperandValue s =
      Quantize<int32_t>(x, F32({1}, {1}), Make<int32_t>(DataType::kInt32, {1}, {-1}));
  CheckValues<int32_t>(s.data, {INT32_MAX, -6, INT32_MIN});
}

TEST_CASE("quantizeLinear rounds the exact quotient, not a float32 one") {
  // x = 2.5 + 2^-20, scale = 1 + 3*2^-23: x / scale = 2.5 + 2^-24 - ... . Its float32 rounding
  // is 2.5, which roundEven takes to 2 (the emulation's div then roundEven); the exact quotient
  // lies above 2.5 and gives 3.
  const OperandValue r = Quantize<uint8_t>(F32({1}, {2.5f + std::ldexp(1.0f, -20)}),
                                           F32({1}, {1 + 3 * std::ldexp(1.0f, -23)}),
                                           Make<uint8_t>(DataType::kUint8, {1}, {0}));
  CheckValues<uint8_t>(r.data, {3});
  // The emulation's 2 is accepted too (issue 14): the element is one-of {2, 3}, nothing else.
  CHECK(LatitudeAt(r, 0) == static_cast<uint8_t>(Latitude::kOneOf));
  REQUIRE(r.one_of != nullptr);
  CheckValues<uint8_t>(r.one_of->Values(0), {2, 3});
  CHECK(r.one_of->Contains(0, Make<uint8_t>(DataType::kUint8, {1}, {2})));
  CHECK(r.one_of->Contains(0, Make<uint8_t>(DataType::kUint8, {1}, {3})));
  CHECK_FALSE(r.one_of->Contains(0, Make<uint8_t>(DataType::kUint8, {1}, {4})));
}

TEST_CASE("quantizeLinear: a double quotient that is a tie although the exact one is not") {
  // scale = 1 + 3*2^-23. 954903552 / scale rounds in double to 954903210.5 but is 2^-24 above it
  // (roundEven of the double would give 954903210); 1192580864 / scale is 2^-24 below
  // 1192580437.5 (the double's roundEven would give 1192580438).
  const OperandValue r = Quantize<int32_t>(F32({2}, {954903552.0f, 1192580864.0f}),
                                           F32({1}, {1 + 3 * std::ldexp(1.0f, -23)}),
                                           Make<int32_t>(DataType::kInt32, {1}, {0}));
  CheckValues<int32_t>(r.data, {954903211, 1192580437});
}

TEST_CASE("quantizeLinear float16 input") {
  Tensor x = Tensor::Allocate(DataType::kFloat16, {3});
  Tensor s = Tensor::Allocate(DataType::kFloat16, {1});
  x.base<Float16>()[0] = Float16::FromDouble(2.5);
  x.base<Float16>()[1] = Float16::FromDouble(-7);
  x.base<Float16>()[2] = Float16::FromDouble(1000);
  s.base<Float16>()[0] = Float16::FromDouble(2);
  const OperandValue r = Quantize<int8_t>(x, s, Make<int8_t>(DataType::kInt8, {1}, {1}));
  // 1.25 -> 1, -3.5 -> -4, 500 -> saturated; plus 1.
  CheckValues<int8_t>(r.data, {2, -3, 127});
}

TEST_CASE("quantizeLinear: blockwise and per-axis parameters") {
  // Input [2,4], parameters [1,2]: columns 0-1 use (scale 1, zeroPoint 0), columns 2-3 use
  // (scale 2, zeroPoint 10).
  const OperandValue block =
      Quantize<uint8_t>(F32({2, 4}, {2, 4, 6, 8, 1, 3, 5, 7}), F32({1, 2}, {1, 2}),
                        Make<uint8_t>(DataType::kUint8, {1, 2}, {0, 10}));
  // Row 1: 5/2 = 2.5 -> 2 and 7/2 = 3.5 -> 4.
  CheckValues<uint8_t>(block.data, {2, 4, 13, 14, 1, 3, 12, 14});
  // Per-axis along axis 0: row 0 scale 1, row 1 scale 2.
  const OperandValue axis =
      Quantize<uint8_t>(F32({2, 4}, {1, 2, 3, 4, 1, 2, 3, 4}), F32({2, 1}, {1, 2}),
                        Make<uint8_t>(DataType::kUint8, {2, 1}, {0, 0}));
  CheckValues<uint8_t>(axis.data, {1, 2, 3, 4, 0, 1, 2, 2});
}

TEST_CASE("quantizeLinear: NaN and non-positive scales are marked; infinities saturate") {
  const OperandValue r =
      Quantize<uint8_t>(F32({5}, {NAN, INFINITY, -INFINITY, 1, 1}), F32({5}, {1, 1, 1, 0, -1}),
                        Make<uint8_t>(DataType::kUint8, {5}, {0, 0, 0, 0, 0}));
  CHECK(r.data.At<uint8_t>(1) == 255);
  CHECK(r.data.At<uint8_t>(2) == 0);
  CHECK(LatitudeAt(r, 0) == static_cast<uint8_t>(Latitude::kAny));
  CHECK(LatitudeAt(r, 1) == 0);
  CHECK(LatitudeAt(r, 2) == 0);
  CHECK(LatitudeAt(r, 3) == static_cast<uint8_t>(Latitude::kAny));
  CHECK(LatitudeAt(r, 4) == static_cast<uint8_t>(Latitude::kAny));
}

TEST_CASE("dequantizeLinear: (x - zeroPoint) * scale by hand") {
  const OperandValue r = Dequantize(Make<int8_t>(DataType::kInt8, {4}, {-128, 0, 5, 127}),
                                    F32({1}, {0.5f}), Make<int8_t>(DataType::kInt8, {1}, {5}));
  CHECK(r.data.dtype() == DataType::kFloat32);
  CheckValues<float>(r.data, {-66.5f, -2.5f, 0, 61});
}

TEST_CASE("dequantizeLinear: blockwise parameters") {
  // Input [2,2], parameters [1,2]: column j uses scale[0][j] and zeroPoint[0][j].
  const OperandValue r =
      Dequantize(Make<uint8_t>(DataType::kUint8, {2, 2}, {10, 20, 30, 40}), F32({1, 2}, {1, 0.5f}),
                 Make<uint8_t>(DataType::kUint8, {1, 2}, {0, 10}));
  CheckValues<float>(r.data, {10, 5, 30, 15});
}

TEST_CASE("dequantizeLinear int32 -> float16 rounds once") {
  // (2049 - 1) * 1 = 2048 exactly. The emulation casts 2049 to float16 first (2048, a tie to
  // even), then 2048 - 1 = 2047.
  Tensor s = Tensor::Allocate(DataType::kFloat16, {1});
  s.base<Float16>()[0] = Float16::FromDouble(1);
  const OperandValue r = Dequantize(Make<int32_t>(DataType::kInt32, {1}, {2049}), s,
                                    Make<int32_t>(DataType::kInt32, {1}, {1}));
  CHECK(r.data.dtype() == DataType::kFloat16);
  CHECK(r.data.At<Float16>(0).ToDouble() == 2048);
}

TEST_CASE("dequantizeLinear: no double rounding through double (round to odd)") {
  // 1619001343 * (1 + 2^-23) = 1619001536 - 2^-23: just below the float32 midpoint 1619001536
  // between 1619001472 and 1619001600, so the correct result is 1619001472. The nearest double
  // is the midpoint itself, which would then tie to the even 1619001600.
  const OperandValue r =
      Dequantize(Make<int32_t>(DataType::kInt32, {1}, {1619001343}),
                 F32({1}, {1 + std::ldexp(1.0f, -23)}), Make<int32_t>(DataType::kInt32, {1}, {0}));
  CHECK(r.data.At<float>(0) == 1619001472.0f);
}

TEST_CASE("dequantizeLinear: non-positive or NaN scales are marked") {
  const OperandValue r =
      Dequantize(Make<uint8_t>(DataType::kUint8, {4}, {1, 2, 3, 4}), F32({4}, {1, 0, -1, NAN}),
                 Make<uint8_t>(DataType::kUint8, {4}, {0, 0, 0, 0}));
  CHECK(LatitudeAt(r, 0) == 0);
  for (size_t i = 1; i < 4; ++i) CHECK(LatitudeAt(r, i) == static_cast<uint8_t>(Latitude::kAny));
}

TEST_CASE("quantizeLinear validation: every method step") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 4}});
  const Operand xi = b.Input("xi", {DataType::kInt32, {2, 4}});
  const Operand s12 = b.Input("s12", {DataType::kFloat32, {1, 2}});
  const Operand h12 = b.Input("h12", {DataType::kFloat16, {1, 2}});
  const Operand i12 = b.Input("i12", {DataType::kInt32, {1, 2}});
  const Operand z12 = b.Input("z12", {DataType::kUint8, {1, 2}});
  const Operand z64 = b.Input("z64", {DataType::kInt64, {1, 2}});
  const Operand f12 = b.Input("f12", {DataType::kFloat32, {1, 2}});
  const Operand s2 = b.Input("s2", {DataType::kFloat32, {2}});
  const Operand z2 = b.Input("z2", {DataType::kUint8, {2}});
  const Operand s13 = b.Input("s13", {DataType::kFloat32, {1, 3}});
  const Operand z13 = b.Input("z13", {DataType::kUint8, {1, 3}});
  const Operand z21 = b.Input("z21", {DataType::kUint8, {2, 1}});
  GraphBuilder other;
  const Operand foreign = other.Input("z", {DataType::kUint8, {1, 2}});
  CHECK(ErrorOf([&] { QuantizeLinear(b, x, s12, foreign); }) == ErrorType::kTypeError);  // 2
  CHECK(ErrorOf([&] { QuantizeLinear(b, xi, i12, z12); }) == ErrorType::kTypeError);     // 3
  CHECK(ErrorOf([&] { QuantizeLinear(b, x, i12, z12); }) == ErrorType::kTypeError);      // 4
  CHECK(ErrorOf([&] { QuantizeLinear(b, x, h12, z12); }) == ErrorType::kTypeError);      // 5
  CHECK(ErrorOf([&] { QuantizeLinear(b, x, s12, z64); }) == ErrorType::kTypeError);      // 6
  CHECK(ErrorOf([&] { QuantizeLinear(b, x, s12, f12); }) == ErrorType::kTypeError);
  CHECK(ErrorOf([&] { QuantizeLinear(b, x, s2, z2); }) == ErrorType::kTypeError);    // 7
  CHECK(ErrorOf([&] { QuantizeLinear(b, x, s12, z21); }) == ErrorType::kTypeError);  // 8
  CHECK(ErrorOf([&] { QuantizeLinear(b, x, s13, z13); }) == ErrorType::kTypeError);  // 9-10
  const Operand q = QuantizeLinear(b, x, s12, z12);
  CHECK(b.Desc(q) == OperandDescriptor{DataType::kUint8, {2, 4}});  // 11
  b.Build({{"o", q}});
  CHECK(ErrorOf([&] { QuantizeLinear(b, x, s12, z12); }) == ErrorType::kInvalidStateError);  // 1
}

TEST_CASE("dequantizeLinear validation: every method step") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kInt8, {2, 4}});
  const Operand xf = b.Input("xf", {DataType::kFloat32, {2, 4}});
  const Operand x64 = b.Input("x64", {DataType::kInt64, {2, 4}});
  const Operand s12 = b.Input("s12", {DataType::kFloat16, {1, 2}});
  const Operand si12 = b.Input("si12", {DataType::kInt32, {1, 2}});
  const Operand z12 = b.Input("z12", {DataType::kInt8, {1, 2}});
  const Operand zu12 = b.Input("zu12", {DataType::kUint8, {1, 2}});
  const Operand zf12 = b.Input("zf12", {DataType::kFloat32, {1, 2}});
  const Operand z64 = b.Input("z64", {DataType::kInt64, {1, 2}});
  const Operand s2 = b.Input("s2", {DataType::kFloat16, {2}});
  const Operand z2 = b.Input("z2", {DataType::kInt8, {2}});
  const Operand s13 = b.Input("s13", {DataType::kFloat16, {1, 3}});
  const Operand z13 = b.Input("z13", {DataType::kInt8, {1, 3}});
  const Operand z21 = b.Input("z21", {DataType::kInt8, {2, 1}});
  GraphBuilder other;
  const Operand foreign = other.Input("z", {DataType::kInt8, {2, 4}});
  CHECK(ErrorOf([&] { DequantizeLinear(b, foreign, s12, z12); }) == ErrorType::kTypeError);  // 2
  CHECK(ErrorOf([&] { DequantizeLinear(b, xf, s12, zf12); }) == ErrorType::kTypeError);      // 3
  CHECK(ErrorOf([&] { DequantizeLinear(b, x64, s12, z64); }) == ErrorType::kTypeError);
  CHECK(ErrorOf([&] { DequantizeLinear(b, x, si12, z12); }) == ErrorType::kTypeError);  // 4
  CHECK(ErrorOf([&] { DequantizeLinear(b, x, s12, zf12); }) == ErrorType::kTypeError);  // 5
  CHECK(ErrorOf([&] { DequantizeLinear(b, x, s12, zu12); }) == ErrorType::kTypeError);  // 6
  CHECK(ErrorOf([&] { DequantizeLinear(b, x, s2, z2); }) == ErrorType::kTypeError);     // 7
  CHECK(ErrorOf([&] { DequantizeLinear(b, x, s12, z21); }) == ErrorType::kTypeError);   // 8
  CHECK(ErrorOf([&] { DequantizeLinear(b, x, s13, z13); }) == ErrorType::kTypeError);   // 9-10
  const Operand d = DequantizeLinear(b, x, s12, z12);
  CHECK(b.Desc(d) == OperandDescriptor{DataType::kFloat16, {2, 4}});  // 11
  b.Build({{"o", d}});
  CHECK(ErrorOf([&] { DequantizeLinear(b, x, s12, z12); }) == ErrorType::kInvalidStateError);  // 1
}

}  // namespace nnref
