// Reductions and softmax: hand-derived values (exact rationals, or mpmath evaluations rounded once
// to float32 by hand; bit patterns below), identities, strided inputs, integer overflow marks, and
// a validation error for every method step.
#include "ops/reduction.h"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "ops/cast_clamp_where.h"
#include "ops/elementwise_unary.h"
#include "ops/registry.h"
#include "ops/softmax.h"
#include "ref/testing.h"

namespace nnref {

namespace {

template <typename T>
OperandValue Reduce1(ReduceOp op, DataType t, const Shape& shape, std::initializer_list<T> values,
                     const MLReduceOptions& options = {}) {
  GraphBuilder b;
  const Operand x = b.Input("x", {t, shape});
  return Run(b, Reduce(b, op, x, options), {{"x", Make<T>(t, shape, values)}});
}

MLReduceOptions Axes(std::vector<uint32_t> axes, bool keep = false) {
  MLReduceOptions o;
  o.axes = std::move(axes);
  o.keepDimensions = keep;
  return o;
}

float Bits(uint32_t u) { return std::bit_cast<float>(u); }
uint32_t BitsOf(float f) { return std::bit_cast<uint32_t>(f); }
uint8_t Lat(const OperandValue& r, size_t i) {
  return r.latitude.valid() ? r.latitude.base<uint8_t>()[i] : 0;
}
constexpr uint8_t kAnyMark = static_cast<uint8_t>(Latitude::kAny);
constexpr float kInf = std::numeric_limits<float>::infinity();

}  // namespace

TEST_CASE("reduceSum: axes, keepDimensions, all axes, empty axes, rank 0") {
  const auto sum = [](const MLReduceOptions& o) {
    return Reduce1<float>(ReduceOp::kSum, DataType::kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6}, o);
  };
  const OperandValue rows = sum(Axes({1}));
  CHECK(rows.data.shape() == Shape{2});
  CHECK(rows.data.base<float>()[0] == 6);
  CHECK(rows.data.base<float>()[1] == 15);
  const OperandValue cols = sum(Axes({0}, true));
  CHECK(cols.data.shape() == Shape{1, 3});
  CHECK(cols.data.base<float>()[0] == 5);
  CHECK(cols.data.base<float>()[2] == 9);
  const OperandValue all = sum({});
  CHECK(all.data.shape() == Shape{});
  CHECK(all.data.base<float>()[0] == 21);
  const OperandValue all_keep = sum(Axes({1, 0}, true));
  CHECK(all_keep.data.shape() == Shape{1, 1});
  CHECK(all_keep.data.base<float>()[0] == 21);
  const OperandValue none = sum(Axes({}));  // present and empty: no reduction
  CHECK(none.data.shape() == Shape{2, 3});
  CHECK(none.data.base<float>()[4] == 5);
  const OperandValue scalar =
      Reduce1<float>(ReduceOp::kL1, DataType::kFloat32, {}, {-2.5f});  // rank 0, no axes
  CHECK(scalar.data.shape() == Shape{});
  CHECK(scalar.data.base<float>()[0] == 2.5f);
}

TEST_CASE("reduceL1 with empty axes is abs element-wise; reduceSumSquare / L2 / mean / logSum") {
  const OperandValue l1 =
      Reduce1<float>(ReduceOp::kL1, DataType::kFloat32, {3}, {-1, 2, -0.5f}, Axes({}));
  CHECK(l1.data.base<float>()[0] == 1);
  CHECK(l1.data.base<float>()[2] == 0.5f);
  CHECK(Reduce1<float>(ReduceOp::kSumSquare, DataType::kFloat32, {2}, {3, -4})
            .data.base<float>()[0] == 25);
  CHECK(Reduce1<float>(ReduceOp::kL2, DataType::kFloat32, {2}, {3, -4}).data.base<float>()[0] == 5);
  CHECK(Reduce1<float>(ReduceOp::kMean, DataType::kFloat32, {4}, {1, 2, 3, 4})
            .data.base<float>()[0] == 2.5f);
  // logSum([2, 2]) = float32(ln 4) = 0x3fb17218.
  CHECK(BitsOf(Reduce1<float>(ReduceOp::kLogSum, DataType::kFloat32, {2}, {2, 2})
                   .data.base<float>()[0]) == 0x3fb17218);
  // 1 + 2^-24 + 2^-24 + 2^-24 + 2^-24: a float32 sum in order loses every small term (1 + 2^-24
  // is a tie that goes to 1); the exact sum 1 + 2^-22 is representable.
  CHECK(Reduce1<float>(ReduceOp::kSum, DataType::kFloat32, {5},
                       {1, 0x1p-24f, 0x1p-24f, 0x1p-24f, 0x1p-24f})
            .data.base<float>()[0] == 1 + 0x1p-22f);
  // 1 + 2^-24 + 2^-60 lies just above a float32 tie: the exact sum rounds up to 1 + 2^-23 (the
  // double sum 1 + 2^-24 would tie to 1). The same for the mean (4 + 2^-22 + 2^-58) / 4.
  CHECK(Reduce1<float>(ReduceOp::kSum, DataType::kFloat32, {3}, {1, 0x1p-24f, 0x1p-60f})
            .data.base<float>()[0] == 1 + 0x1p-23f);
  CHECK(Reduce1<float>(ReduceOp::kMean, DataType::kFloat32, {4}, {2, 0x1p-22f, 0x1p-58f, 2})
            .data.base<float>()[0] == 1 + 0x1p-23f);
  // A sum of -0s is -0 (IEEE), as the emulation's additions give.
  CHECK(BitsOf(Reduce1<float>(ReduceOp::kSum, DataType::kFloat32, {2}, {-0.0f, -0.0f})
                   .data.base<float>()[0]) == 0x80000000);
  // 1 + 2^-60 - 1: a plain double sum gives 0; the compensated sum keeps 2^-60.
  CHECK(Reduce1<float>(ReduceOp::kSum, DataType::kFloat32, {3}, {1, 0x1p-60f, -1})
            .data.base<float>()[0] == 0x1p-60f);
  // L2 of float16 65504 and 65504: the squares overflow float16 but not double.
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat16, {2}});
  const OperandValue r =
      Run(b, ReduceL2(b, x),
          {{"x", Make<Float16>(DataType::kFloat16, {2}, {Float16{0x7bff}, Float16{0x7bff}})}});
  CHECK(r.data.base<Float16>()[0].bits == 0x7c00);  // 65504 * sqrt(2) overflows: Infinity
}

TEST_CASE("reduceLogSumExp: the max is subtracted and log1p keeps small tails") {
  // [1000, 1000]: 1000 + ln 2 = 0x447a2c5d (exp(1000) alone overflows).
  CHECK(BitsOf(Reduce1<float>(ReduceOp::kLogSumExp, DataType::kFloat32, {2}, {1000, 1000})
                   .data.base<float>()[0]) == 0x447a2c5d);
  // [0, -30]: log1p(e^-30) = 0x29d2b706; log(1 + e^-30) in double gives 0x29d28000.
  CHECK(BitsOf(Reduce1<float>(ReduceOp::kLogSumExp, DataType::kFloat32, {2}, {0, -30})
                   .data.base<float>()[0]) == 0x29d2b706);
  const OperandValue inf = Reduce1<float>(ReduceOp::kLogSumExp, DataType::kFloat32, {3, 2},
                                          {kInf, 1, -kInf, -kInf, NAN, 0}, Axes({1}));
  CHECK(inf.data.base<float>()[0] == kInf);
  CHECK(inf.data.base<float>()[1] == -kInf);
  CHECK(std::isnan(inf.data.base<float>()[2]));
  CHECK_FALSE(inf.latitude.valid());
}

TEST_CASE("reduceProduct: no intermediate overflow in float; integers exact or marked") {
  // float32(1e38)^9 * float32(1e-38)^9 = 0.99999912766... -> 0x3f7ffff1. In double without
  // rescaling the running product would overflow to Infinity.
  const float a = Bits(0x7e967699), c = Bits(0x006ce3ee);
  CHECK(BitsOf(Reduce1<float>(ReduceOp::kProduct, DataType::kFloat32, {18},
                              {a, a, a, a, a, a, a, a, a, c, c, c, c, c, c, c, c, c})
                   .data.base<float>()[0]) == 0x3f7ffff1);
  const OperandValue z = Reduce1<float>(ReduceOp::kProduct, DataType::kFloat32, {3}, {0, kInf, 2});
  CHECK(std::isnan(z.data.base<float>()[0]));  // 0 * Inf
  const OperandValue ints =
      Reduce1<int32_t>(ReduceOp::kProduct, DataType::kInt32, {3, 3},
                       {65536, 65536, 0, 65536, 65536, 1, -2, 3, 5}, Axes({1}));
  CHECK(ints.data.base<int32_t>()[0] == 0);  // a zero factor: exact 0
  CHECK(Lat(ints, 0) == 0);
  CHECK(ints.data.base<int32_t>()[1] == 0);  // 2^32 wraps to 0
  CHECK(Lat(ints, 1) == kAnyMark);
  CHECK(ints.data.base<int32_t>()[2] == -30);
  CHECK(Lat(ints, 2) == 0);
}

TEST_CASE("integer sums are exact: intermediate overflow is fine, final overflow wraps, marked") {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  const OperandValue s = Reduce1<int32_t>(ReduceOp::kSum, DataType::kInt32, {2, 3},
                                          {kMax, 1, -1, kMax, 1, 0}, Axes({1}));
  CHECK(s.data.base<int32_t>()[0] == kMax);
  CHECK(Lat(s, 0) == 0);
  CHECK(s.data.base<int32_t>()[1] == std::numeric_limits<int32_t>::min());
  CHECK(Lat(s, 1) == kAnyMark);
  const OperandValue u = Reduce1<uint64_t>(ReduceOp::kSum, DataType::kUint64, {2},
                                           {std::numeric_limits<uint64_t>::max(), 1});
  CHECK(u.data.base<uint64_t>()[0] == 0);
  CHECK(Lat(u, 0) == kAnyMark);
  const OperandValue l1 =
      Reduce1<int32_t>(ReduceOp::kL1, DataType::kInt32, {2, 2},
                       {-5, 3, std::numeric_limits<int32_t>::min(), 0}, Axes({1}));
  CHECK(l1.data.base<int32_t>()[0] == 8);
  CHECK(l1.data.base<int32_t>()[1] == std::numeric_limits<int32_t>::min());  // 2^31 wraps
  CHECK(Lat(l1, 1) == kAnyMark);
  const OperandValue sq = Reduce1<int64_t>(ReduceOp::kSumSquare, DataType::kInt64, {2, 2},
                                           {3, -4, int64_t{1} << 32, 0}, Axes({1}));
  CHECK(sq.data.base<int64_t>()[0] == 25);
  CHECK(sq.data.base<int64_t>()[1] == 0);  // 2^64 wraps to 0
  CHECK(Lat(sq, 1) == kAnyMark);
  CHECK(Lat(sq, 0) == 0);
}

TEST_CASE("reduceMax / reduceMin: any data type, signed zeros, NaN marked") {
  const OperandValue m = Reduce1<float>(ReduceOp::kMax, DataType::kFloat32, {3, 2},
                                        {-0.0f, 0.0f, 1, NAN, -kInf, -3}, Axes({1}));
  CHECK(BitsOf(m.data.base<float>()[0]) == 0);  // max(-0, +0) = +0
  CHECK(std::isnan(m.data.base<float>()[1]));
  CHECK(Lat(m, 1) == kAnyMark);
  CHECK(m.data.base<float>()[2] == -3);
  CHECK(Lat(m, 2) == 0);
  const OperandValue n = Reduce1<float>(ReduceOp::kMin, DataType::kFloat32, {2}, {0.0f, -0.0f});
  CHECK(BitsOf(n.data.base<float>()[0]) == 0x80000000);  // min(+0, -0) = -0
  const OperandValue u8 =
      Reduce1<uint8_t>(ReduceOp::kMin, DataType::kUint8, {2, 2}, {7, 200, 255, 9}, Axes({0}));
  CHECK(u8.data.base<uint8_t>()[0] == 7);
  CHECK(u8.data.base<uint8_t>()[1] == 9);
  const OperandValue i8 = Reduce1<int8_t>(ReduceOp::kMax, DataType::kInt8, {3}, {-128, -7, -100});
  CHECK(i8.data.base<int8_t>()[0] == -7);
}

TEST_CASE("reductions walk strided inputs; input latitude marks only the lines it reaches") {
  // A [3, 2] buffer viewed as its [2, 3] transpose (strides {1, 2}).
  Tensor dense = Make<float>(DataType::kFloat32, {3, 2}, {1, 4, 2, 5, 3, 6});
  Tensor view(DataType::kFloat32, {2, 3}, {1, 2}, 0, dense.buffer());  // [[1,2,3],[4,5,6]]
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 3}});
  const OperandValue r = Run(b, ReduceMax(b, x, Axes({1})), {{"x", view}});
  CHECK(r.data.base<float>()[0] == 3);
  CHECK(r.data.base<float>()[1] == 6);

  GraphBuilder g;
  const Operand f = g.Input("f", {DataType::kFloat32, {2, 2}});
  const Operand c = Cast(g, f, DataType::kInt32);  // 1e10 out of range: marked
  const OperandValue s = Run(g, ReduceSum(g, c, Axes({1})),
                             {{"f", Make<float>(DataType::kFloat32, {2, 2}, {1, 2, 1e10f, 3})}});
  CHECK(s.data.base<int32_t>()[0] == 3);
  CHECK(Lat(s, 0) == 0);
  CHECK(Lat(s, 1) == kAnyMark);
}

TEST_CASE("reductions: the tolerance size is the reduced element count") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 3, 4}});
  ReduceSum(b, x, Axes({0, 2}));
  CHECK(b.operators().back().tolerance.size == 8);
  ReduceMean(b, x);
  CHECK(b.operators().back().tolerance.size == 24);
  ReduceL2(b, x, Axes({}));
  CHECK(b.operators().back().tolerance.size == 1);
  CHECK(b.operators().back().tolerance.op == OpId::reduceL2);
}

TEST_CASE("reduction validation: every step of 'create reduction operation'") {
  GraphBuilder b, other;
  const Operand f = b.Input("f", {DataType::kFloat32, {2, 3}});
  const Operand i32 = b.Input("i32", {DataType::kInt32, {2}});
  const Operand i8 = b.Input("i8", {DataType::kInt8, {2}});
  const Operand foreign = other.Input("g", {DataType::kFloat32, {2}});
  CHECK(ErrorOf([&] { ReduceSum(b, foreign); }) == ErrorType::kTypeError);          // step 3
  CHECK(ErrorOf([&] { ReduceMean(b, i32); }) == ErrorType::kTypeError);             // step 4
  CHECK(ErrorOf([&] { ReduceSum(b, i8); }) == ErrorType::kTypeError);               // step 4
  CHECK(ErrorOf([&] { ReduceProduct(b, i8); }) == ErrorType::kTypeError);           // step 4
  CHECK(ErrorOf([&] { ReduceMax(b, i8); }) == ErrorType::kUnknownError);            // any type
  CHECK(ErrorOf([&] { ReduceSum(b, i32); }) == ErrorType::kUnknownError);           // allowed
  CHECK(ErrorOf([&] { ReduceSum(b, f, Axes({2})); }) == ErrorType::kTypeError);     // step 5
  CHECK(ErrorOf([&] { ReduceSum(b, f, Axes({1, 1})); }) == ErrorType::kTypeError);  // duplicate
  const Operand y = ReduceSum(b, f);
  b.Build({{"y", y}});
  CHECK(ErrorOf([&] { ReduceSum(b, f); }) == ErrorType::kInvalidStateError);  // step 2
}

TEST_CASE("softmax: spec values, rows sum to 1, large inputs, axis 0, strided input") {
  // softmax([1, 2, 3]) = 0x3db861f3, 0x3e7a9a1a, 0x3f2a4d3b.
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 3}});
  const OperandValue r =
      Run(b, Softmax(b, x, 1),
          {{"x", Make<float>(DataType::kFloat32, {2, 3}, {1, 2, 3, 1000, 1000, -kInf})}});
  const float* y = r.data.base<float>();
  CHECK(BitsOf(y[0]) == 0x3db861f3);
  CHECK(BitsOf(y[1]) == 0x3e7a9a1a);
  CHECK(BitsOf(y[2]) == 0x3f2a4d3b);
  CHECK(y[3] == 0.5f);  // exp(1000) alone would overflow
  CHECK(y[4] == 0.5f);
  CHECK(y[5] == 0);
  // Axis 0 over a transposed view: columns of [[1, 2], [1, 2]] -> 0.5 each.
  Tensor dense = Make<float>(DataType::kFloat32, {2, 2}, {1, 1, 2, 2});
  Tensor view(DataType::kFloat32, {2, 2}, {1, 2}, 0, dense.buffer());
  GraphBuilder g;
  const Operand v = g.Input("v", {DataType::kFloat32, {2, 2}});
  const OperandValue c = Run(g, Softmax(g, v, 0), {{"v", view}});
  for (int i = 0; i < 4; ++i) CHECK(c.data.base<float>()[i] == 0.5f);
  // A random-looking float16 row sums to 1 within the rounding of its elements.
  GraphBuilder h;
  const Operand w = h.Input("w", {DataType::kFloat16, {5}});
  const OperandValue s =
      Run(h, Softmax(h, w, 0),
          {{"w", Make<Float16>(
                     DataType::kFloat16, {5},
                     {Float16::FromDouble(0.3), Float16::FromDouble(-1.7), Float16::FromDouble(2.2),
                      Float16::FromDouble(0), Float16::FromDouble(-0.4)})}});
  double total = 0;
  for (int i = 0; i < 5; ++i) total += s.data.base<Float16>()[i].ToDouble();
  CHECK(std::fabs(total - 1) < 5 * 0x1p-11);
}

TEST_CASE("softmax: NaN and +Infinity follow the emulation (the whole line is NaN)") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {3, 2}});
  const OperandValue r =
      Run(b, Softmax(b, x, 1),
          {{"x", Make<float>(DataType::kFloat32, {3, 2}, {NAN, 1, kInf, 1, 2, 3})}});
  const float* y = r.data.base<float>();
  CHECK(std::isnan(y[0]));
  CHECK(std::isnan(y[1]));
  CHECK(std::isnan(y[2]));
  CHECK(std::isnan(y[3]));
  CHECK_FALSE(std::isnan(y[4]));
  CHECK_FALSE(r.latitude.valid());
}

TEST_CASE("softmax: input latitude marks only the lines it reaches") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 2}});
  const Operand s = ElementwiseUnary(b, UnaryOp::kSign, x);  // sign(NaN): 0, value-or-NaN
  const OperandValue r =
      Run(b, Softmax(b, s, 1), {{"x", Make<float>(DataType::kFloat32, {2, 2}, {NAN, 1, 2, 3})}});
  CHECK(Lat(r, 0) == kAnyMark);
  CHECK(Lat(r, 1) == kAnyMark);
  CHECK(Lat(r, 2) == 0);
  CHECK(Lat(r, 3) == 0);
  CHECK(r.data.base<float>()[2] == 0.5f);
}

TEST_CASE("softmax validation and tolerance size") {
  GraphBuilder b, other;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 7}});
  const Operand s = b.Input("s", {DataType::kFloat32, {}});
  const Operand i = b.Input("i", {DataType::kInt32, {2}});
  const Operand foreign = other.Input("g", {DataType::kFloat32, {2}});
  CHECK(ErrorOf([&] { Softmax(b, foreign, 0); }) == ErrorType::kTypeError);  // step 2
  CHECK(ErrorOf([&] { Softmax(b, i, 0); }) == ErrorType::kTypeError);        // step 3
  CHECK(ErrorOf([&] { Softmax(b, x, 2); }) == ErrorType::kTypeError);        // step 4
  CHECK(ErrorOf([&] { Softmax(b, s, 0); }) == ErrorType::kTypeError);        // rank 0: step 4
  const Operand y = Softmax(b, x, 1);
  CHECK(b.operators().back().tolerance.size == 7);
  b.Build({{"y", y}});
  CHECK(ErrorOf([&] { Softmax(b, x, 0); }) == ErrorType::kInvalidStateError);  // step 1
}

TEST_CASE("registry holds the ten reductions") {
  for (const char* name :
       {"reduceL1", "reduceL2", "reduceLogSum", "reduceLogSumExp", "reduceMax", "reduceMean",
        "reduceMin", "reduceProduct", "reduceSum", "reduceSumSquare"}) {
    CHECK_MESSAGE(FindOp(name) != nullptr, name);
  }
}

}  // namespace nnref
