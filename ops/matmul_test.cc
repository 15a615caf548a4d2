// matmul, gemm and linear: values derived by hand (or from the spec's definitions), one rounding
// where stepwise rounding would differ, and a validation error for every method step.
#include <doctest/doctest.h>

#include <cmath>

#include "ops/elementwise_unary.h"
#include "ops/matmul_gemm.h"
#include "ref/testing.h"

namespace nnref {

TEST_CASE("matmul: [2,3] x [3,2] by hand") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 3}});
  const Operand y = b.Input("y", {DataType::kFloat32, {3, 2}});
  const OperandValue r =
      Run(b, Matmul(b, x, y),
          {{"x", F32({2, 3}, {1, 2, 3, 4, 5, 6})}, {"y", F32({3, 2}, {7, 8, 9, 10, 11, 12})}});
  CHECK(r.data.shape() == Shape{2, 2});
  // [1*7+2*9+3*11, 1*8+2*10+3*12; 4*7+5*9+6*11, 4*8+5*10+6*12]
  CheckFloats(r.data, {58, 64, 139, 154});
}

TEST_CASE("matmul: batch dimensions broadcast bidirectionally") {
  GraphBuilder b;
  // a: [2,1,1,2] (two 1x2 rows), b: [3,2,1] (three 2x1 columns) -> [2,3,1,1].
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 1, 1, 2}});
  const Operand y = b.Input("y", {DataType::kFloat32, {3, 2, 1}});
  const OperandValue r =
      Run(b, Matmul(b, x, y),
          {{"x", F32({2, 1, 1, 2}, {1, 2, 10, 20})}, {"y", F32({3, 2, 1}, {1, 0, 0, 1, 1, 1})}});
  CHECK(r.data.shape() == Shape{2, 3, 1, 1});
  // row [1,2] with columns [1,0], [0,1], [1,1] -> 1, 2, 3; row [10,20] -> 10, 20, 30.
  CheckFloats(r.data, {1, 2, 3, 10, 20, 30});
}

TEST_CASE("matmul: a strided (transposed) input view") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 3}});
  const Operand y = b.Input("y", {DataType::kFloat32, {3, 1}});
  // Storage [[1,4],[2,5],[3,6]] viewed as its transpose [[1,2,3],[4,5,6]].
  const Tensor storage = F32({3, 2}, {1, 4, 2, 5, 3, 6});
  const Tensor view(DataType::kFloat32, {2, 3}, {1, 2}, 0, storage.buffer());
  const OperandValue r = Run(b, Matmul(b, x, y), {{"x", view}, {"y", F32({3, 1}, {1, 10, 100})}});
  CheckFloats(r.data, {321, 654});
}

TEST_CASE("matmul float16 rounds the dot product once") {
  // 1 + 2^-11 + 2^-11 = 1 + 2^-10 exactly. Summing in float16 would round 1 + 2^-11 (a tie) to
  // 1 and then again, giving 1.
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat16, {1, 3}});
  const Operand y = b.Input("y", {DataType::kFloat16, {3, 1}});
  const double e = std::ldexp(1.0, -11);
  const OperandValue r =
      Run(b, Matmul(b, x, y), {{"x", F16({1, 3}, {1, e, e})}, {"y", F16({3, 1}, {1, 1, 1})}});
  CHECK(r.data.base<Float16>()[0].bits == 0x3c01);  // 1 + 2^-10
}

TEST_CASE("matmul of -0 products is -0 (the accumulator starts at -0)") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {1, 2}});
  const Operand y = b.Input("y", {DataType::kFloat32, {2, 1}});
  const OperandValue r =
      Run(b, Matmul(b, x, y), {{"x", F32({1, 2}, {-0.0f, 0.0f})}, {"y", F32({2, 1}, {1, -1})}});
  CHECK(r.data.base<float>()[0] == 0.0f);
  CHECK(std::signbit(r.data.base<float>()[0]));
}

TEST_CASE("matmul: the tolerance query carries K") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 7}});
  const Operand y = b.Input("y", {DataType::kFloat32, {7, 3}});
  Matmul(b, x, y);
  CHECK(b.operators().back().tolerance.size == 7);
  CHECK(b.operators().back().tolerance.op == OpId::matmul);
}

TEST_CASE("matmul validation: every method step") {
  GraphBuilder b;
  const Operand f23 = b.Input("f23", {DataType::kFloat32, {2, 3}});
  const Operand f34 = b.Input("f34", {DataType::kFloat32, {3, 4}});
  const Operand f3 = b.Input("f3", {DataType::kFloat32, {3}});
  const Operand h34 = b.Input("h34", {DataType::kFloat16, {3, 4}});
  const Operand i23 = b.Input("i23", {DataType::kInt32, {2, 3}});
  const Operand i34 = b.Input("i34", {DataType::kInt32, {3, 4}});
  const Operand f2_23 = b.Input("f2_23", {DataType::kFloat32, {2, 2, 3}});
  const Operand f3_34 = b.Input("f3_34", {DataType::kFloat32, {3, 3, 4}});
  GraphBuilder other;
  const Operand foreign = other.Input("z", {DataType::kFloat32, {3, 4}});
  // Step 2: operands of another builder.
  CHECK(ErrorOf([&] { Matmul(b, f23, foreign); }) == ErrorType::kTypeError);
  // Step 3: data types (a's allowed types; b same as a).
  CHECK(ErrorOf([&] { Matmul(b, i23, i34); }) == ErrorType::kTypeError);
  CHECK(ErrorOf([&] { Matmul(b, f23, h34); }) == ErrorType::kTypeError);
  // Step 4: rank below 2 (the spec has no 1-D promotion), K mismatch, batch not broadcastable.
  CHECK(ErrorOf([&] { Matmul(b, f3, f34); }) == ErrorType::kTypeError);
  CHECK(ErrorOf([&] { Matmul(b, f23, f3); }) == ErrorType::kTypeError);
  CHECK(ErrorOf([&] { Matmul(b, f23, f23); }) == ErrorType::kTypeError);
  CHECK(ErrorOf([&] { Matmul(b, f2_23, f3_34); }) == ErrorType::kTypeError);
  CHECK(b.Desc(Matmul(b, f2_23, f34)).shape == Shape{2, 2, 4});
  // Step 1: after build.
  b.Build({{"o", Matmul(b, f23, f34)}});
  CHECK(ErrorOf([&] { Matmul(b, f23, f34); }) == ErrorType::kInvalidStateError);
}

TEST_CASE("gemm: transposes, alpha, beta and a broadcast c by hand") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {3, 2}});  // A^T of A = [[1,2,3],[4,5,6]]
  const Operand y = b.Input("y", {DataType::kFloat32, {2, 3}});  // B^T of B = [[1,0],[0,1],[1,1]]
  const Operand c = b.Input("c", {DataType::kFloat32, {2}});
  MLGemmOptions o;
  o.aTranspose = true;
  o.bTranspose = true;
  o.alpha = 2;
  o.beta = -1;
  o.c = c;
  const OperandValue r = Run(b, Gemm(b, x, y, o),
                             {{"x", F32({3, 2}, {1, 4, 2, 5, 3, 6})},
                              {"y", F32({2, 3}, {1, 0, 1, 0, 1, 1})},
                              {"c", F32({2}, {10, 100})}});
  CHECK(r.data.shape() == Shape{2, 2});
  // A x B = [[4, 5], [10, 11]]; 2*AB - [10, 100] = [[-2, -90], [10, -78]].
  CheckFloats(r.data, {-2, -90, 10, -78});
}

TEST_CASE("gemm: scalar c and default options") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {1, 2}});
  const Operand y = b.Input("y", {DataType::kFloat32, {2, 2}});
  MLGemmOptions o;
  o.c = b.Constant(DataType::kFloat32, MLNumber::FromDouble(0.5));
  const OperandValue r =
      Run(b, Gemm(b, x, y, o), {{"x", F32({1, 2}, {1, 2})}, {"y", F32({2, 2}, {3, 4, 5, 6})}});
  CheckFloats(r.data, {13.5, 16.5});
}

TEST_CASE("gemm float16: alpha*A*B + beta*C is rounded once") {
  // a = 1 + 2^-10, b = 1 + 2^-9, alpha = 2, c = -2, beta = 1.
  // Exact: 2*(1 + 3*2^-10 + 2^-19) - 2 = 3*2^-9 + 2^-18, a float16 value (0x1e01).
  // Stepwise in float16: alpha*a = 2 + 2^-9; times b = 2 + 3*2^-9 + 2^-18 rounds to 2 + 3*2^-9;
  // minus 2 gives 3*2^-9 (0x1e00).
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat16, {1, 1}});
  const Operand y = b.Input("y", {DataType::kFloat16, {1, 1}});
  const Operand c = b.Input("c", {DataType::kFloat16, {1, 1}});
  MLGemmOptions o;
  o.alpha = 2;
  o.c = c;
  const OperandValue r = Run(b, Gemm(b, x, y, o),
                             {{"x", F16({1, 1}, {1 + std::ldexp(1.0, -10)})},
                              {"y", F16({1, 1}, {1 + std::ldexp(1.0, -9)})},
                              {"c", F16({1, 1}, {-2})}});
  CHECK(r.data.base<Float16>()[0].ToDouble() == 3 * std::ldexp(1.0, -9) + std::ldexp(1.0, -18));
  CHECK(r.data.base<Float16>()[0].bits == 0x1e01);
}

TEST_CASE("gemm follows the emulation's order: alpha*A first (signed zeros)") {
  // alpha = -1, A = [[+0, -0]], B = [[1], [1]]: alpha*A = [[-0, +0]], products -0 and +0, sum +0.
  // (Scaling the finished dot product instead would give -1 * (+0 + -0) = -0.)
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {1, 2}});
  const Operand y = b.Input("y", {DataType::kFloat32, {2, 1}});
  MLGemmOptions o;
  o.alpha = -1;
  const OperandValue r =
      Run(b, Gemm(b, x, y, o), {{"x", F32({1, 2}, {0.0f, -0.0f})}, {"y", F32({2, 1}, {1, 1})}});
  CHECK(r.data.base<float>()[0] == 0.0f);
  CHECK_FALSE(std::signbit(r.data.base<float>()[0]));
}

TEST_CASE("gemm: alpha and beta are cast to the operand type first") {
  // float16(0.1) = 0.0999755859375; 1 * that * 1 is exact.
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat16, {1, 1}});
  MLGemmOptions o;
  o.alpha = 0.1;
  const OperandValue r = Run(b, Gemm(b, x, x, o), {{"x", F16({1, 1}, {1})}});
  CHECK(r.data.base<Float16>()[0].ToDouble() == 0.0999755859375);
}

TEST_CASE("gemm: the tolerance size counts the emulation's roundings") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 5}});
  const Operand y = b.Input("y", {DataType::kFloat32, {5, 3}});
  const Operand c = b.Input("c", {DataType::kFloat32, {3}});
  Gemm(b, x, y);
  CHECK(b.operators().back().tolerance.size == 10);
  MLGemmOptions o;
  o.c = c;
  Gemm(b, x, y, o);
  CHECK(b.operators().back().tolerance.size == 11);
  o.alpha = 3;
  o.beta = 0.5;
  Gemm(b, x, y, o);
  CHECK(b.operators().back().tolerance.size == 13);
}

TEST_CASE("gemm validation: every method step") {
  GraphBuilder b;
  const Operand f23 = b.Input("f23", {DataType::kFloat32, {2, 3}});
  const Operand f34 = b.Input("f34", {DataType::kFloat32, {3, 4}});
  const Operand f234 = b.Input("f234", {DataType::kFloat32, {2, 3, 4}});
  const Operand h34 = b.Input("h34", {DataType::kFloat16, {3, 4}});
  const Operand i23 = b.Input("i23", {DataType::kInt32, {2, 3}});
  const Operand i34 = b.Input("i34", {DataType::kInt32, {3, 4}});
  const Operand c3 = b.Input("c3", {DataType::kFloat32, {3}});
  const Operand c4 = b.Input("c4", {DataType::kFloat32, {4}});
  const Operand c24 = b.Input("c24", {DataType::kFloat32, {2, 4}});
  const Operand h4 = b.Input("h4", {DataType::kFloat16, {4}});
  const Operand c124 = b.Input("c124", {DataType::kFloat32, {1, 2, 4}});
  GraphBuilder other;
  const Operand foreign = other.Input("z", {DataType::kFloat32, {3, 4}});
  const Operand foreign_c = other.Input("zc", {DataType::kFloat32, {4}});
  MLGemmOptions none;
  // Step 2 (and c: docs/deviations.md).
  CHECK(ErrorOf([&] { Gemm(b, f23, foreign, none); }) == ErrorType::kTypeError);
  MLGemmOptions with_foreign_c;
  with_foreign_c.c = foreign_c;
  CHECK(ErrorOf([&] { Gemm(b, f23, f34, with_foreign_c); }) == ErrorType::kTypeError);
  // Step 3.
  CHECK(ErrorOf([&] { Gemm(b, i23, i34, none); }) == ErrorType::kTypeError);
  CHECK(ErrorOf([&] { Gemm(b, f23, h34, none); }) == ErrorType::kTypeError);
  // Step 4.
  CHECK(ErrorOf([&] { Gemm(b, f234, f34, none); }) == ErrorType::kTypeError);
  CHECK(ErrorOf([&] { Gemm(b, f23, c4, none); }) == ErrorType::kTypeError);
  // Step 11 (after steps 9-10's transposes).
  CHECK(ErrorOf([&] { Gemm(b, f23, f23, none); }) == ErrorType::kTypeError);
  MLGemmOptions at;
  at.aTranspose = true;
  CHECK(ErrorOf([&] { Gemm(b, f23, f34, at); }) == ErrorType::kTypeError);
  MLGemmOptions both;
  both.aTranspose = true;
  both.bTranspose = true;
  CHECK(b.Desc(Gemm(b, f34, f23, both)).shape == Shape{4, 2});
  // Step 12.1: c unidirectionally broadcastable to [2, 4] ([3] and [1,2,4] are not).
  MLGemmOptions o;
  o.c = c3;
  CHECK(ErrorOf([&] { Gemm(b, f23, f34, o); }) == ErrorType::kTypeError);
  o.c = c124;
  CHECK(ErrorOf([&] { Gemm(b, f23, f34, o); }) == ErrorType::kTypeError);
  o.c = c24;
  CHECK(b.Desc(Gemm(b, f23, f34, o)).shape == Shape{2, 4});
  // Step 12.2: c's type same as a.
  o.c = h4;
  CHECK(ErrorOf([&] { Gemm(b, f23, f34, o); }) == ErrorType::kTypeError);
  // Step 1.
  b.Build({{"o", Gemm(b, f23, f34, none)}});
  CHECK(ErrorOf([&] { Gemm(b, f23, f34, none); }) == ErrorType::kInvalidStateError);
}

TEST_CASE("linear: alpha*x + beta by hand") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {3}});
  MLLinearOptions o;
  o.alpha = -2;
  o.beta = 0.5;
  CheckFloats(Run(b, Linear(b, x, o), {{"x", F32({3}, {1, 0, -3})}}).data, {-1.5, 0.5, 6.5});
}

TEST_CASE("linear: defaults are the identity, rank 0") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {}});
  const OperandValue r = Run(b, Linear(b, x), {{"x", F32({}, {1.25f})}});
  CHECK(r.data.shape().empty());
  CheckFloats(r.data, {1.25});
}

TEST_CASE("linear rounds alpha*x + beta once (float32 and float16)") {
  // float32: x = 1 + 2^-23, alpha = 1 + 2^-22, beta = -1. alpha*x = 1 + 3*2^-23 + 2^-45;
  // stepwise it rounds to 1 + 3*2^-23 and the sum is 3*2^-23. Exact: 3*2^-23 + 2^-45, which is
  // a float32 value.
  {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat32, {1}});
    MLLinearOptions o;
    o.alpha = 1 + std::ldexp(1.0, -22);
    o.beta = -1;
    const OperandValue r = Run(b, Linear(b, x, o), {{"x", F32({1}, {1 + std::ldexp(1.0f, -23)})}});
    CHECK(static_cast<double>(r.data.base<float>()[0]) ==
          3 * std::ldexp(1.0, -23) + std::ldexp(1.0, -45));
  }
  // float16: x = 1 + 2^-10, alpha = 1 + 2^-9, beta = -1: exact 3*2^-10 + 2^-19 (stepwise 3*2^-10).
  {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat16, {1}});
    MLLinearOptions o;
    o.alpha = 1 + std::ldexp(1.0, -9);
    o.beta = -1;
    const OperandValue r = Run(b, Linear(b, x, o), {{"x", F16({1}, {1 + std::ldexp(1.0, -10)})}});
    CHECK(r.data.base<Float16>()[0].ToDouble() == 3 * std::ldexp(1.0, -10) + std::ldexp(1.0, -19));
  }
}

TEST_CASE("linear: no double rounding through double (round to odd)") {
  // x = 786429 * 2^-42 = 3*2^-24 * (1 - 2^-18), alpha = 1 + 2^-18, beta = 1.
  // Exact: 1 + 3*2^-24 - 3*2^-60, just below the float32 midpoint 1 + 3*2^-24 between 1 + 2^-23
  // and 1 + 2^-22, so the correctly rounded result is 1 + 2^-23. Rounding to the nearest double
  // first gives the midpoint itself, which then ties to the even 1 + 2^-22.
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {1}});
  MLLinearOptions o;
  o.alpha = 1 + std::ldexp(1.0, -18);
  o.beta = 1;
  const OperandValue r = Run(b, Linear(b, x, o), {{"x", F32({1}, {std::ldexp(786429.0f, -42)})}});
  CHECK(static_cast<double>(r.data.base<float>()[0]) == 1 + std::ldexp(1.0, -23));
}

TEST_CASE("linear validation: every method step") {
  GraphBuilder b;
  const Operand i = b.Input("i", {DataType::kInt32, {2}});
  const Operand f = b.Input("f", {DataType::kFloat32, {2}});
  GraphBuilder other;
  const Operand foreign = other.Input("z", {DataType::kFloat32, {2}});
  CHECK(ErrorOf([&] { Linear(b, foreign); }) == ErrorType::kTypeError);  // step 2
  CHECK(ErrorOf([&] { Linear(b, i); }) == ErrorType::kTypeError);        // step 3
  b.Build({{"o", Linear(b, f)}});
  CHECK(ErrorOf([&] { Linear(b, f); }) == ErrorType::kInvalidStateError);  // step 1
}

}  // namespace nnref
