#include "ref/graph/graph.h"

#include <doctest/doctest.h>

#include "ref/testing.h"

namespace nnref {

TEST_CASE("input: the method steps' errors") {
  GraphBuilder b;
  const OperandDescriptor d{DataType::kFloat32, {2, 3}};
  b.Input("x", d);
  CHECK(ErrorOf([&] { b.Input("", d); }) == ErrorType::kTypeError);   // step 2
  CHECK(ErrorOf([&] { b.Input("x", d); }) == ErrorType::kTypeError);  // step 3: duplicate
  CHECK(ErrorOf([&] { b.Input("z", {DataType::kFloat32, {2, 0}}); }) == ErrorType::kTypeError);
  CHECK(ErrorOf([&] {
          b.Input("big", {DataType::kFloat32, {65536, 65536}});
        }) == ErrorType::kTypeError);  // element count beyond the range of long
  CHECK(ErrorOf([&] {
          b.Input("r", {DataType::kFloat32, Shape(17, 1)});
        }) == ErrorType::kTypeError);  // rank beyond the implementation limit
}

TEST_CASE("build rejects inputs and constants as outputs, and building twice") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2}});
  const Operand c = b.Constant(DataType::kFloat32, MLNumber::FromDouble(1.5));
  CHECK(ErrorOf([&] { b.Build({{"out", x}}); }) == ErrorType::kTypeError);
  CHECK(ErrorOf([&] { b.Build({{"out", c}}); }) == ErrorType::kTypeError);
  CHECK(ErrorOf([&] { b.Build({}); }) == ErrorType::kTypeError);
  GraphBuilder other;
  const Operand foreign = other.Input("y", {DataType::kFloat32, {2}});
  CHECK(ErrorOf([&] { b.Build({{"out", foreign}}); }) == ErrorType::kTypeError);
}

TEST_CASE("constant(dataType, value) casts with the spec's algorithm") {
  GraphBuilder b;
  const Operand c = b.Constant(DataType::kInt8, MLNumber::FromDouble(300.7));
  CHECK(b.Node(c.id).constant.base<int8_t>()[0] == 127);  // clamped to the int8 range
  const Operand h = b.Constant(DataType::kUint8, MLNumber::FromDouble(2.5));
  CHECK(b.Node(h.id).constant.base<uint8_t>()[0] == 2);  // ties to even
}

}  // namespace nnref
