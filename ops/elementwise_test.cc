// Builder-level tests of the foundation operators: validation errors by type, and values derived
// by hand (not from the kernels).
#include <doctest/doctest.h>

#include <bit>
#include <cmath>

#include "ops/cast_clamp_where.h"
#include "ops/elementwise_binary.h"
#include "ops/elementwise_logical.h"
#include "ops/elementwise_unary.h"
#include "ref/testing.h"

namespace nnref {

TEST_CASE("add broadcasts [2,1] with [3] (hand-computed)") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 1}});
  const Operand y = b.Input("y", {DataType::kFloat32, {3}});
  const OperandValue r = Run(b, ElementwiseBinary(b, BinaryOp::kAdd, x, y),
                             {{"x", Make<float>(DataType::kFloat32, {2, 1}, {10, 20})},
                              {"y", Make<float>(DataType::kFloat32, {3}, {1, 2, 3})}});
  CHECK(r.data.shape() == Shape{2, 3});
  const float expected[] = {11, 12, 13, 21, 22, 23};
  for (int i = 0; i < 6; ++i) CHECK(r.data.base<float>()[i] == expected[i]);
  CHECK_FALSE(r.latitude.valid());
}

TEST_CASE("float16 add rounds once: 2048 + 1 ties to even 2048, 2048 + 3 -> 2052") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat16, {2}});
  const Operand y = b.Input("y", {DataType::kFloat16, {2}});
  // 2048 = 0x6800; 1 = 0x3c00; 3 = 0x4200; 2052 = 0x6802 (ulp at 2048 is 2).
  const OperandValue r =
      Run(b, ElementwiseBinary(b, BinaryOp::kAdd, x, y),
          {{"x", Make<Float16>(DataType::kFloat16, {2}, {Float16{0x6800}, Float16{0x6800}})},
           {"y", Make<Float16>(DataType::kFloat16, {2}, {Float16{0x3c00}, Float16{0x4200}})}});
  CHECK(r.data.base<Float16>()[0].bits == 0x6800);
  CHECK(r.data.base<Float16>()[1].bits == 0x6802);
}

TEST_CASE("integer division truncates toward zero; division by zero is marked") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kInt32, {4}});
  const Operand y = b.Input("y", {DataType::kInt32, {4}});
  const OperandValue r = Run(b, ElementwiseBinary(b, BinaryOp::kDiv, x, y),
                             {{"x", Make<int32_t>(DataType::kInt32, {4}, {7, -7, 5, INT32_MIN})},
                              {"y", Make<int32_t>(DataType::kInt32, {4}, {2, 2, 0, -1})}});
  CHECK(r.data.base<int32_t>()[0] == 3);
  CHECK(r.data.base<int32_t>()[1] == -3);
  REQUIRE(r.latitude.valid());
  CHECK(r.latitude.base<uint8_t>()[0] == 0);
  CHECK(r.latitude.base<uint8_t>()[2] == static_cast<uint8_t>(Latitude::kAny));
  CHECK(r.latitude.base<uint8_t>()[3] == static_cast<uint8_t>(Latitude::kAny));
}

TEST_CASE("uint8 add wraps and marks the overflowing element only") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kUint8, {2}});
  const Operand y = b.Constant(DataType::kUint8, MLNumber::FromDouble(200));
  const OperandValue r = Run(b, ElementwiseBinary(b, BinaryOp::kAdd, x, y),
                             {{"x", Make<uint8_t>(DataType::kUint8, {2}, {55, 56})}});
  CHECK(r.data.base<uint8_t>()[0] == 255);  // 55 + 200 fits
  CHECK(r.data.base<uint8_t>()[1] == 0);    // 56 + 200 = 256 wraps to 0
  REQUIRE(r.latitude.valid());
  CHECK(r.latitude.base<uint8_t>()[0] == 0);
  CHECK(r.latitude.base<uint8_t>()[1] == static_cast<uint8_t>(Latitude::kAny));
}

TEST_CASE("binary validation: type mismatch and shapes are TypeError") {
  GraphBuilder b;
  const Operand f = b.Input("f", {DataType::kFloat32, {2, 3}});
  const Operand i = b.Input("i", {DataType::kInt32, {2, 3}});
  const Operand g = b.Input("g", {DataType::kFloat32, {3, 2}});
  CHECK(ErrorOf([&] { ElementwiseBinary(b, BinaryOp::kAdd, f, i); }) == ErrorType::kTypeError);
  CHECK(ErrorOf([&] { ElementwiseBinary(b, BinaryOp::kMul, f, g); }) == ErrorType::kTypeError);
  b.Build({{"o", ElementwiseUnary(b, UnaryOp::kIdentity, f)}});
  CHECK(ErrorOf([&] { ElementwiseBinary(b, BinaryOp::kAdd, f, f); }) ==
        ErrorType::kInvalidStateError);
}

TEST_CASE("comparisons with NaN and signed zero follow IEEE") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {3}});
  const Operand y = b.Input("y", {DataType::kFloat32, {3}});
  const Operand eq = ElementwiseLogical(b, LogicalOp::kEqual, x, y);
  const Operand ne = ElementwiseLogical(b, LogicalOp::kNotEqual, x, y);
  auto g = b.Build({{"eq", eq}, {"ne", ne}});
  const auto r = g->Compute({{"x", Make<float>(DataType::kFloat32, {3}, {NAN, -0.0f, 1})},
                             {"y", Make<float>(DataType::kFloat32, {3}, {NAN, 0.0f, 2})}});
  const uint8_t* e = r.at("eq").data.base<uint8_t>();
  const uint8_t* n = r.at("ne").data.base<uint8_t>();
  CHECK((e[0] == 0 && e[1] == 1 && e[2] == 0));
  CHECK((n[0] == 1 && n[1] == 0 && n[2] == 1));
}

TEST_CASE("logical and isNaN validation") {
  GraphBuilder b;
  const Operand f = b.Input("f", {DataType::kFloat32, {2}});
  const Operand i = b.Input("i", {DataType::kInt32, {2}});
  CHECK(ErrorOf([&] { ElementwiseLogical(b, LogicalOp::kLogicalNot, f, std::nullopt); }) ==
        ErrorType::kTypeError);
  CHECK(ErrorOf([&] { ElementwiseLogical(b, LogicalOp::kIsNaN, i, std::nullopt); }) ==
        ErrorType::kTypeError);
  CHECK(ErrorOf([&] { ElementwiseUnary(b, UnaryOp::kExp, i); }) == ErrorType::kTypeError);
}

TEST_CASE("roundEven: the spec's example") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {10}});
  const OperandValue r =
      Run(b, ElementwiseUnary(b, UnaryOp::kRoundEven, x),
          {{"x", Make<float>(DataType::kFloat32, {10},
                             {0.1f, 0.9f, 1.1f, 1.9f, -3.5f, -2.5f, -1.5f, 1.5f, 2.5f, 3.5f})}});
  const float expected[] = {0, 1, 1, 2, -4, -2, -2, 2, 2, 4};
  for (int k = 0; k < 10; ++k) CHECK(r.data.base<float>()[k] == expected[k]);
}

TEST_CASE("sign(NaN) is 0 and marked value-or-NaN") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {3}});
  const OperandValue r = Run(b, ElementwiseUnary(b, UnaryOp::kSign, x),
                             {{"x", Make<float>(DataType::kFloat32, {3}, {NAN, -2, 0})}});
  CHECK(r.data.base<float>()[0] == 0);
  CHECK(r.data.base<float>()[1] == -1);
  REQUIRE(r.latitude.valid());
  CHECK(r.latitude.base<uint8_t>()[0] == static_cast<uint8_t>(Latitude::kValueOrNaN));
  CHECK(r.latitude.base<uint8_t>()[1] == 0);
}

TEST_CASE("cast: table rows, and out-of-range float->int is marked") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {4}});
  const Operand i8 = b.Input("i8", {DataType::kInt8, {2}});
  auto g = b.Build({{"u8", Cast(b, x, DataType::kUint8)}, {"w", Cast(b, i8, DataType::kUint8)}});
  const auto r = g->Compute({{"x", Make<float>(DataType::kFloat32, {4}, {2.9f, -0.5f, 300, NAN})},
                             {"i8", Make<int8_t>(DataType::kInt8, {2}, {-1, 5})}});
  const OperandValue& u8 = r.at("u8");
  CHECK(u8.data.base<uint8_t>()[0] == 2);
  CHECK(u8.data.base<uint8_t>()[1] == 0);  // trunc(-0.5) = -0: in range
  REQUIRE(u8.latitude.valid());
  CHECK(u8.latitude.base<uint8_t>()[0] == 0);
  CHECK(u8.latitude.base<uint8_t>()[2] == static_cast<uint8_t>(Latitude::kAny));
  CHECK(u8.latitude.base<uint8_t>()[3] == static_cast<uint8_t>(Latitude::kAny));
  CHECK(r.at("w").data.base<uint8_t>()[0] == 255);  // the spec's NOTE: int8 -1 -> uint8 255
  CHECK_FALSE(r.at("w").latitude.valid());
}

TEST_CASE("latitude propagates through a later element-wise operator") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2}});
  const Operand c = Cast(b, x, DataType::kInt32);
  const Operand y = ElementwiseBinary(b, BinaryOp::kAdd, c, c);
  const OperandValue r = Run(b, y, {{"x", Make<float>(DataType::kFloat32, {2}, {1.5f, 1e10f})}});
  CHECK(r.data.base<int32_t>()[0] == 2);
  REQUIRE(r.latitude.valid());
  CHECK(r.latitude.base<uint8_t>()[0] == 0);
  CHECK(r.latitude.base<uint8_t>()[1] != 0);
}

TEST_CASE("clamp: bounds cast to the input type, min > max rejected, NaN passes") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {4}});
  MLClampOptions o;
  o.minValue = MLNumber::FromDouble(0);
  o.maxValue = MLNumber::FromDouble(6);
  const OperandValue r =
      Run(b, Clamp(b, x, o), {{"x", Make<float>(DataType::kFloat32, {4}, {-1, 3, 7, NAN})}});
  CHECK(r.data.base<float>()[0] == 0);
  CHECK(r.data.base<float>()[1] == 3);
  CHECK(r.data.base<float>()[2] == 6);
  CHECK(std::isnan(r.data.base<float>()[3]));
  GraphBuilder b2;
  const Operand u = b2.Input("u", {DataType::kUint8, {1}});
  MLClampOptions bad;
  bad.minValue = MLNumber::FromDouble(10);
  bad.maxValue = MLNumber::FromDouble(-5);  // casts to 0 for uint8: 10 > 0
  CHECK(ErrorOf([&] { Clamp(b2, u, bad); }) == ErrorType::kTypeError);
  CHECK(ErrorOf([&] { Clamp(b2, u, {}); }) == ErrorType::kUnknownError);  // no options: fine
}

TEST_CASE("where broadcasts condition against values") {
  GraphBuilder b;
  const Operand c = b.Input("c", {DataType::kUint8, {2, 1}});
  const Operand t = b.Input("t", {DataType::kInt32, {3}});
  const Operand f = b.Constant(DataType::kInt32, MLNumber::FromDouble(-1));
  const OperandValue r = Run(b, Where(b, c, t, f),
                             {{"c", Make<uint8_t>(DataType::kUint8, {2, 1}, {0, 7})},
                              {"t", Make<int32_t>(DataType::kInt32, {3}, {1, 2, 3})}});
  const int32_t expected[] = {-1, -1, -1, 1, 2, 3};
  for (int k = 0; k < 6; ++k) CHECK(r.data.base<int32_t>()[k] == expected[k]);
  CHECK(ErrorOf([&] { Where(b, c, t, f); }) == ErrorType::kInvalidStateError);  // already built
  GraphBuilder b2;
  const Operand fc2 = b2.Input("fc", {DataType::kFloat32, {1}});
  const Operand t2 = b2.Input("t", {DataType::kInt32, {3}});
  CHECK(ErrorOf([&] { Where(b2, fc2, t2, t2); }) == ErrorType::kTypeError);
}

}  // namespace nnref

namespace nnref {

TEST_CASE("errors name the operator's label, sanitized") {
  GraphBuilder b;
  const Operand f = b.Input("f", {DataType::kFloat32, {2}});
  const Operand i = b.Input("i", {DataType::kInt32, {2}});
  try {
    ElementwiseBinary(b, BinaryOp::kAdd, f, i, {"my\nadd\xE2\x80\xAE"});
    FAIL("no error");
  } catch (const WebnnError& e) {
    CHECK(e.type() == ErrorType::kTypeError);
    CHECK(std::string(e.what()).rfind("add [label 'my\\x0Aadd\\u202E']", 0) == 0);
  }
  ElementwiseBinary(b, BinaryOp::kAdd, f, f, {"sum"});
  CHECK(b.operators().back().op == OpId::add);  // the node keeps the method name; the label apart
  CHECK(b.operators().back().label == "sum");
}

}  // namespace nnref
