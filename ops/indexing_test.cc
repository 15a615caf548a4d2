// gather, gatherElements, gatherND, scatterElements, scatterND, argMin/argMax, cumulativeSum:
// the spec's worked examples, hand-derived values, strided and reversed input views, negative and
// out-of-range indices, duplicate scatter targets, ties, exact prefix sums, and a validation
// error for every method step.
#include "ops/indexing.h"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "ops/arg_cumulative.h"
#include "ops/cast_clamp_where.h"
#include "ref/testing.h"

namespace nnref {

namespace {

constexpr uint8_t kAnyMark = static_cast<uint8_t>(Latitude::kAny);
constexpr uint8_t kOneOfMark = static_cast<uint8_t>(Latitude::kOneOf);
constexpr float kInf = std::numeric_limits<float>::infinity();

uint8_t Lat(const OperandValue& r, uint64_t i) {
  return r.latitude.valid() ? r.latitude.At<uint8_t>(i) : 0;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  std::vector<T> v;
  for (uint64_t i = 0; i < t.element_count(); ++i) v.push_back(t.At<T>(i));
  return v;
}

std::vector<float> Floats(const OperandValue& r) { return Values<float>(r.data); }

// The spec examples' input: [[0, 1, 2], [10, 11, 12], [20, 21, 22], [30, 31, 32]].
Tensor Table43() { return F32({4, 3}, {0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32}); }

template <typename I>
Tensor Indices(DataType t, const Shape& s, std::initializer_list<I> v) {
  return Make<I>(t, s, v);
}

// Builds op(x, i) with x and i as graph inputs, and runs it.
template <typename Fn>
OperandValue Run2(const Tensor& x, const Tensor& i, Fn&& op) {
  GraphBuilder b;
  const Operand xo = b.Input("x", {x.dtype(), x.shape()});
  const Operand io = b.Input("i", {i.dtype(), i.shape()});
  return Run(b, op(b, xo, io), {{"x", x}, {"i", i}});
}

template <typename Fn>
OperandValue Run3(const Tensor& x, const Tensor& i, const Tensor& u, Fn&& op) {
  GraphBuilder b;
  const Operand xo = b.Input("x", {x.dtype(), x.shape()});
  const Operand io = b.Input("i", {i.dtype(), i.shape()});
  const Operand uo = b.Input("u", {u.dtype(), u.shape()});
  return Run(b, op(b, xo, io, uo), {{"x", x}, {"i", i}, {"u", u}});
}

MLGatherOptions GatherAxis(uint32_t axis) {
  MLGatherOptions o;
  o.axis = axis;
  return o;
}
MLScatterOptions ScatterAxis(uint32_t axis) {
  MLScatterOptions o;
  o.axis = axis;
  return o;
}

}  // namespace

// ---------------------------------------------------------------- gather

TEST_CASE("gather: the spec's three examples") {
  const Tensor x = Table43();
  const auto gather = [&](const Tensor& i, uint32_t axis) {
    return Run2(x, i, [&](GraphBuilder& b, const Operand& xo, const Operand& io) {
      return Gather(b, xo, io, GatherAxis(axis));
    });
  };
  const OperandValue r1 = gather(Indices<uint32_t>(DataType::kUint32, {2}, {3, 1}), 0);
  CHECK(r1.data.shape() == Shape{2, 3});
  CHECK(Floats(r1) == std::vector<float>{30, 31, 32, 10, 11, 12});
  CHECK_FALSE(r1.latitude.valid());
  const OperandValue r2 = gather(Indices<uint32_t>(DataType::kUint32, {3}, {2, 1, 1}), 1);
  CHECK(r2.data.shape() == Shape{4, 3});
  CHECK(Floats(r2) == std::vector<float>{2, 1, 1, 12, 11, 11, 22, 21, 21, 32, 31, 31});
  const OperandValue r3 = gather(Indices<uint32_t>(DataType::kUint32, {2, 2}, {0, 1, 1, 2}), 1);
  CHECK(r3.data.shape() == Shape{4, 2, 2});
  CHECK(Floats(r3) ==
        std::vector<float>{0, 1, 1, 2, 10, 11, 11, 12, 20, 21, 21, 22, 30, 31, 31, 32});
}

TEST_CASE("gather: negative indices count from the end; int32 and int64 indices") {
  const Tensor x = Table43();
  const auto op = [](GraphBuilder& b, const Operand& xo, const Operand& io) {
    return Gather(b, xo, io, GatherAxis(1));
  };
  const OperandValue a = Run2(x, Indices<int32_t>(DataType::kInt32, {2}, {-1, -3}), op);
  CHECK(Floats(a) == std::vector<float>{2, 0, 12, 10, 22, 20, 32, 30});
  const OperandValue b = Run2(x, Indices<int64_t>(DataType::kInt64, {1}, {-2}), op);
  CHECK(Floats(b) == std::vector<float>{1, 11, 21, 31});
  CHECK_FALSE(a.latitude.valid());
}

TEST_CASE("gather: out-of-range indices are clamped and the elements read through them marked") {
  const Tensor x = Table43();
  // Axis 0 has size 4: 4 -> 3 (clamped), -5 -> -4 -> 0 (clamped), huge int64 -> 3, -4 -> 0 (valid).
  const OperandValue r =
      Run2(x, Indices<int64_t>(DataType::kInt64, {4}, {4, -5, INT64_MAX, -4}),
           [](GraphBuilder& b, const Operand& xo, const Operand& io) { return Gather(b, xo, io); });
  CHECK(Floats(r) == std::vector<float>{30, 31, 32, 0, 1, 2, 30, 31, 32, 0, 1, 2});
  for (uint64_t i = 0; i < 12; ++i) CHECK(Lat(r, i) == (i < 9 ? kAnyMark : 0));
  // uint32 values above 2^31 are large positive numbers, never negative.
  const OperandValue u =
      Run2(x, Indices<uint32_t>(DataType::kUint32, {1}, {4294967295u}),
           [](GraphBuilder& b, const Operand& xo, const Operand& io) { return Gather(b, xo, io); });
  CHECK(Floats(u) == std::vector<float>{30, 31, 32});
  CHECK(Lat(u, 0) == kAnyMark);
}

TEST_CASE("gather: rank-0 indices give rank - 1; strided and reversed input views") {
  const Tensor v = F32({3}, {5, 6, 7});
  const OperandValue s =
      Run2(v, Indices<int32_t>(DataType::kInt32, {}, {2}),
           [](GraphBuilder& b, const Operand& xo, const Operand& io) { return Gather(b, xo, io); });
  CHECK(s.data.shape() == Shape{});
  CHECK(Floats(s) == std::vector<float>{7});
  // The transpose of Table43 as a view: [[0, 10, 20, 30], [1, 11, 21, 31], [2, 12, 22, 32]].
  const Tensor t = Table43().Permute({1, 0});
  REQUIRE_FALSE(t.IsContiguous());
  const OperandValue g = Run2(t, Indices<int32_t>(DataType::kInt32, {2}, {3, 0}),
                              [](GraphBuilder& b, const Operand& xo, const Operand& io) {
                                return Gather(b, xo, io, GatherAxis(1));
                              });
  CHECK(Floats(g) == std::vector<float>{30, 0, 31, 1, 32, 2});
  // Rows reversed (negative stride): [[30..], [20..], [10..], [0..]].
  const Tensor rv = Table43().Reverse({0});
  const OperandValue h =
      Run2(rv, Indices<int32_t>(DataType::kInt32, {2}, {0, -1}),
           [](GraphBuilder& b, const Operand& xo, const Operand& io) { return Gather(b, xo, io); });
  CHECK(Floats(h) == std::vector<float>{30, 31, 32, 0, 1, 2});
}

TEST_CASE("gather: every data type moves the element's bits unchanged") {
  for (DataType t : DataTypeSet::All().List()) {
    CAPTURE(DataTypeName(t));
    Tensor x = Tensor::Allocate(t, {3});
    const size_t size = ElementSize(t);
    for (size_t i = 0; i < 3 * size; ++i) {
      x.base<uint8_t>()[i] = static_cast<uint8_t>(0x80 + 17 * i);
    }
    const OperandValue r = Run2(
        x, Indices<int32_t>(DataType::kInt32, {3}, {2, 0, 1}),
        [](GraphBuilder& b, const Operand& xo, const Operand& io) { return Gather(b, xo, io); });
    const uint8_t* in = x.base<uint8_t>();
    const uint8_t* out = r.data.base<uint8_t>();
    CHECK(std::memcmp(out, in + 2 * size, size) == 0);
    CHECK(std::memcmp(out + size, in, size) == 0);
    CHECK(std::memcmp(out + 2 * size, in + size, size) == 0);
  }
}

TEST_CASE("gather: validation, step by step") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {4, 3}});
  const Operand i32 = b.Input("i", {DataType::kInt32, {2}});
  const Operand f = b.Input("f", {DataType::kFloat32, {2}});
  const Operand s = b.Input("s", {DataType::kFloat32, {}});
  GraphBuilder other;
  const Operand foreign = other.Input("o", {DataType::kInt32, {2}});
  CHECK(ErrorOf([&] { Gather(b, x, foreign); }) == ErrorType::kTypeError);             // step 2
  CHECK(ErrorOf([&] { Gather(b, x, f); }) == ErrorType::kTypeError);                   // step 3
  CHECK(ErrorOf([&] { Gather(b, x, i32, GatherAxis(2)); }) == ErrorType::kTypeError);  // step 7
  CHECK(ErrorOf([&] { Gather(b, s, i32); }) == ErrorType::kTypeError);  // rank 0: axis 0 >= 0
  const Operand ok = Gather(b, x, i32, GatherAxis(1));
  CHECK(b.Desc(ok).shape == Shape{4, 2});
  b.Build({{"out", ok}});
  CHECK(ErrorOf([&] { Gather(b, x, i32); }) == ErrorType::kInvalidStateError);  // step 1
}

// ---------------------------------------------------------------- gatherElements

TEST_CASE("gatherElements: the spec's three examples; the output takes the indices' shape") {
  const Tensor x = Table43();
  const auto run = [](const Tensor& in, const Tensor& i, uint32_t axis) {
    return Run2(in, i, [&](GraphBuilder& b, const Operand& xo, const Operand& io) {
      return GatherElements(b, xo, io, GatherAxis(axis));
    });
  };
  const OperandValue r1 =
      run(x, Indices<uint32_t>(DataType::kUint32, {2, 3}, {3, 1, 1, 2, 0, 3}), 0);
  CHECK(r1.data.shape() == Shape{2, 3});
  CHECK(Floats(r1) == std::vector<float>{30, 11, 12, 20, 1, 32});
  const OperandValue r2 = run(x, Indices<uint32_t>(DataType::kUint32, {4, 1}, {2, 1, 0, 2}), 1);
  CHECK(r2.data.shape() == Shape{4, 1});
  CHECK(Floats(r2) == std::vector<float>{2, 11, 20, 32});
  const Tensor x3 =
      F32({4, 2, 2}, {0, 1, 10, 11, 100, 101, 110, 111, 200, 201, 210, 211, 300, 301, 310, 311});
  const OperandValue r3 = run(x3, Indices<uint32_t>(DataType::kUint32, {1, 2, 2}, {0, 2, 1, 3}), 0);
  CHECK(r3.data.shape() == Shape{1, 2, 2});
  CHECK(Floats(r3) == std::vector<float>{0, 201, 110, 311});
}

TEST_CASE("gatherElements: negative, out-of-range, strided") {
  const Tensor x = Table43().Permute({1, 0});  // [[0, 10, 20, 30], [1, 11, 21, 31], [2, ...]]
  const OperandValue r = Run2(x, Indices<int64_t>(DataType::kInt64, {3, 2}, {-1, 0, 7, 1, -9, -4}),
                              [](GraphBuilder& b, const Operand& xo, const Operand& io) {
                                return GatherElements(b, xo, io, GatherAxis(1));
                              });
  CHECK(Floats(r) == std::vector<float>{30, 0, 31, 11, 2, 2});
  const std::vector<uint8_t> marks = {0, 0, kAnyMark, 0, kAnyMark, 0};
  for (uint64_t i = 0; i < 6; ++i) CHECK(Lat(r, i) == marks[i]);
}

TEST_CASE("gatherElements: validation, step by step") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {4, 3}});
  const Operand i = b.Input("i", {DataType::kUint32, {2, 3}});
  const Operand f = b.Input("f", {DataType::kFloat16, {2, 3}});
  const Operand r1 = b.Input("r1", {DataType::kInt32, {6}});
  const Operand bad = b.Input("bad", {DataType::kInt32, {2, 2}});
  const Operand s = b.Input("s", {DataType::kFloat32, {}});
  const Operand si = b.Input("si", {DataType::kInt32, {}});
  GraphBuilder other;
  const Operand foreign = other.Input("o", {DataType::kFloat32, {4, 3}});
  CHECK(ErrorOf([&] { GatherElements(b, foreign, i); }) == ErrorType::kTypeError);  // step 2
  CHECK(ErrorOf([&] { GatherElements(b, x, f); }) == ErrorType::kTypeError);        // step 3
  CHECK(ErrorOf([&] { GatherElements(b, x, r1); }) == ErrorType::kTypeError);       // step 4
  CHECK(ErrorOf([&] { GatherElements(b, s, si); }) == ErrorType::kTypeError);       // step 4
  CHECK(ErrorOf([&] { GatherElements(b, x, i, GatherAxis(2)); }) == ErrorType::kTypeError);  // 6
  CHECK(ErrorOf([&] { GatherElements(b, x, bad); }) == ErrorType::kTypeError);  // step 9
  CHECK(ErrorOf([&] { GatherElements(b, x, i, GatherAxis(1)); }) == ErrorType::kTypeError);
  const Operand ok = GatherElements(b, x, i);
  CHECK(b.Desc(ok).shape == Shape{2, 3});
  b.Build({{"out", ok}});
  CHECK(ErrorOf([&] { GatherElements(b, x, i); }) == ErrorType::kInvalidStateError);  // step 1
}

// ---------------------------------------------------------------- gatherND

TEST_CASE("gatherND: the spec's five examples") {
  const Tensor x1 = F32({2, 2}, {0, 1, 2, 3});
  const Tensor x2 = F32({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  const auto run = [](const Tensor& in, const Tensor& i) {
    return Run2(in, i, [](GraphBuilder& b, const Operand& xo, const Operand& io) {
      return GatherND(b, xo, io);
    });
  };
  const OperandValue r1 = run(x1, Indices<uint32_t>(DataType::kUint32, {3, 2}, {0, 0, 1, 1, 1, 0}));
  CHECK(r1.data.shape() == Shape{3});
  CHECK(Floats(r1) == std::vector<float>{0, 3, 2});
  const OperandValue r2 = run(x1, Indices<uint32_t>(DataType::kUint32, {2, 1}, {1, 0}));
  CHECK(r2.data.shape() == Shape{2, 2});
  CHECK(Floats(r2) == std::vector<float>{2, 3, 0, 1});
  const OperandValue r3 = run(x2, Indices<uint32_t>(DataType::kUint32, {2, 2}, {0, 1, 1, 0}));
  CHECK(r3.data.shape() == Shape{2, 2});
  CHECK(Floats(r3) == std::vector<float>{2, 3, 4, 5});
  const OperandValue r4 = run(x2, Indices<uint32_t>(DataType::kUint32, {3, 1}, {1, 0, 1}));
  CHECK(r4.data.shape() == Shape{3, 2, 2});
  CHECK(Floats(r4) == std::vector<float>{4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7});
  const OperandValue r5 = run(x2, Indices<uint32_t>(DataType::kUint32, {5, 3},
                                                    {0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 0, 1, 1, 1}));
  CHECK(r5.data.shape() == Shape{5});
  CHECK(Floats(r5) == std::vector<float>{1, 2, 4, 6, 7});
}

TEST_CASE("gatherND: rank-0 output, negative and out-of-range coordinates, reversed view") {
  const Tensor x = F32({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}).Reverse({2});  // [[[1,0],[3,2]],...]
  const auto run = [&](const Tensor& i) {
    return Run2(x, i, [](GraphBuilder& b, const Operand& xo, const Operand& io) {
      return GatherND(b, xo, io);
    });
  };
  const OperandValue s = run(Indices<int32_t>(DataType::kInt32, {3}, {1, -1, -2}));
  CHECK(s.data.shape() == Shape{});
  CHECK(Floats(s) == std::vector<float>{7});
  // Tuple (0, 5) is out of range on axis 1 (clamped to 1): the whole slice [3, 2] is marked.
  const OperandValue r = run(Indices<int64_t>(DataType::kInt64, {2, 2}, {0, 5, -1, 0}));
  CHECK(r.data.shape() == Shape{2, 2});
  CHECK(Floats(r) == std::vector<float>{3, 2, 5, 4});
  const std::vector<uint8_t> marks = {kAnyMark, kAnyMark, 0, 0};
  for (uint64_t i = 0; i < 4; ++i) CHECK(Lat(r, i) == marks[i]);
}

TEST_CASE("gatherND: validation, step by step") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kInt8, {2, 2}});
  const Operand i = b.Input("i", {DataType::kInt64, {3, 2}});
  const Operand f = b.Input("f", {DataType::kUint8, {3, 2}});
  const Operand s = b.Input("s", {DataType::kInt8, {}});
  const Operand si = b.Input("si", {DataType::kInt32, {}});
  const Operand wide = b.Input("w", {DataType::kInt32, {1, 3}});
  GraphBuilder other;
  const Operand foreign = other.Input("o", {DataType::kInt32, {3, 2}});
  CHECK(ErrorOf([&] { GatherND(b, x, foreign); }) == ErrorType::kTypeError);  // step 2
  CHECK(ErrorOf([&] { GatherND(b, x, f); }) == ErrorType::kTypeError);        // step 3
  CHECK(ErrorOf([&] { GatherND(b, s, i); }) == ErrorType::kTypeError);        // step 4: input
  CHECK(ErrorOf([&] { GatherND(b, x, si); }) == ErrorType::kTypeError);       // step 4: indices
  CHECK(ErrorOf([&] { GatherND(b, x, wide); }) == ErrorType::kTypeError);     // step 10
  const Operand ok = GatherND(b, x, i);
  CHECK(b.Desc(ok) == OperandDescriptor{DataType::kInt8, {3}});
  b.Build({{"out", ok}});
  CHECK(ErrorOf([&] { GatherND(b, x, i); }) == ErrorType::kInvalidStateError);  // step 1
}

// ---------------------------------------------------------------- scatterElements

TEST_CASE("scatterElements: the spec's three examples") {
  const Tensor x = Table43();
  const auto run = [](const Tensor& in, const Tensor& i, const Tensor& u, uint32_t axis) {
    return Run3(in, i, u,
                [&](GraphBuilder& b, const Operand& xo, const Operand& io, const Operand& uo) {
                  return ScatterElements(b, xo, io, uo, ScatterAxis(axis));
                });
  };
  const OperandValue r1 = run(x, Indices<uint32_t>(DataType::kUint32, {2, 3}, {3, 1, 1, 2, 0, 3}),
                              F32({2, 3}, {-1, -2, -3, -4, -5, -6}), 0);
  CHECK(r1.data.shape() == Shape{4, 3});
  CHECK(Floats(r1) == std::vector<float>{0, -5, 2, 10, -2, -3, -4, 21, 22, -1, 31, -6});
  CHECK_FALSE(r1.latitude.valid());
  const OperandValue r2 = run(x, Indices<uint32_t>(DataType::kUint32, {4, 1}, {2, 1, 0, 2}),
                              F32({4, 1}, {-1, -2, -3, -4}), 1);
  CHECK(Floats(r2) == std::vector<float>{0, 1, -1, 10, -2, 12, -3, 21, 22, 30, 31, -4});
  const Tensor x3 =
      F32({4, 2, 2}, {0, 1, 10, 11, 100, 101, 110, 111, 200, 201, 210, 211, 300, 301, 310, 311});
  const OperandValue r3 = run(x3, Indices<uint32_t>(DataType::kUint32, {1, 2, 2}, {0, 2, 1, 3}),
                              F32({1, 2, 2}, {-1, -2, -3, -4}), 0);
  CHECK(Floats(r3) ==
        std::vector<float>{-1, 1, 10, 11, 100, 101, -3, 111, 200, -2, 210, 211, 300, 301, 310, -4});
}

TEST_CASE("scatterElements: duplicates marked only when the values differ; negative aliases") {
  const Tensor x = F32({1, 4}, {0, 1, 2, 3});
  const auto run = [&](const Tensor& i, const Tensor& u) {
    return Run3(x, i, u,
                [](GraphBuilder& b, const Operand& xo, const Operand& io, const Operand& uo) {
                  return ScatterElements(b, xo, io, uo, ScatterAxis(1));
                });
  };
  // Element 1 gets 7 then 9 (differ: marked, the last wins); element 3 gets 5 twice, once as -1.
  const OperandValue r =
      run(Indices<int32_t>(DataType::kInt32, {1, 4}, {1, 3, 1, -1}), F32({1, 4}, {7, 5, 9, 5}));
  CHECK(Floats(r) == std::vector<float>{0, 9, 2, 5});
  const std::vector<uint8_t> marks = {0, kAnyMark, 0, 0};
  for (uint64_t i = 0; i < 4; ++i) CHECK(Lat(r, i) == marks[i]);
  // +0 and -0 differ in bits: marked.
  const OperandValue z =
      run(Indices<int32_t>(DataType::kInt32, {1, 2}, {0, 0}), F32({1, 2}, {0.0f, -0.0f}));
  CHECK(std::signbit(Floats(z)[0]));
  CHECK(Lat(z, 0) == kAnyMark);
}

TEST_CASE("scatterElements: an out-of-range index marks its whole line along the axis") {
  const Tensor x = F32({2, 3}, {0, 1, 2, 10, 11, 12});
  const OperandValue r =
      Run3(x, Indices<int64_t>(DataType::kInt64, {2, 1}, {-4, 1}), F32({2, 1}, {-1, -2}),
           [](GraphBuilder& b, const Operand& xo, const Operand& io, const Operand& uo) {
             return ScatterElements(b, xo, io, uo, ScatterAxis(1));
           });
  CHECK(Floats(r) == std::vector<float>{-1, 1, 2, 10, -2, 12});  // -4 clamped to -3 -> 0
  for (uint64_t i = 0; i < 6; ++i) CHECK(Lat(r, i) == (i < 3 ? kAnyMark : 0));
}

TEST_CASE("scatterElements: strided input and updates, int8 data") {
  // x = [[1, 3], [2, 4]] (a transposed view), updates = reversed view of [5, 6] = [6, 5].
  const Tensor x = Make<int8_t>(DataType::kInt8, {2, 2}, {1, 2, 3, 4}).Permute({1, 0});
  const Tensor u = Make<int8_t>(DataType::kInt8, {1, 2}, {5, 6}).Reverse({1});
  const OperandValue r = Run3(x, Indices<uint32_t>(DataType::kUint32, {1, 2}, {1, 0}), u,
                              [](GraphBuilder& b, const Operand& xo, const Operand& io,
                                 const Operand& uo) { return ScatterElements(b, xo, io, uo); });
  CHECK(Values<int8_t>(r.data) == std::vector<int8_t>{1, 5, 6, 4});
}

TEST_CASE("scatterElements: validation, step by step") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {4, 3}});
  const Operand i = b.Input("i", {DataType::kInt32, {2, 3}});
  const Operand u = b.Input("u", {DataType::kFloat32, {2, 3}});
  const Operand fi = b.Input("fi", {DataType::kFloat32, {2, 3}});
  const Operand ui = b.Input("ui", {DataType::kInt32, {2, 3}});
  const Operand r1 = b.Input("r1", {DataType::kInt32, {6}});
  const Operand u1 = b.Input("u1", {DataType::kFloat32, {6}});
  const Operand bi = b.Input("bi", {DataType::kInt32, {2, 2}});
  const Operand bu = b.Input("bu", {DataType::kFloat32, {3, 3}});
  GraphBuilder other;
  const Operand foreign = other.Input("o", {DataType::kFloat32, {2, 3}});
  CHECK(ErrorOf([&] { ScatterElements(b, x, i, foreign); }) == ErrorType::kTypeError);  // 2
  CHECK(ErrorOf([&] { ScatterElements(b, x, fi, u); }) == ErrorType::kTypeError);       // 3
  CHECK(ErrorOf([&] { ScatterElements(b, x, i, ui); }) == ErrorType::kTypeError);       // 4
  CHECK(ErrorOf([&] { ScatterElements(b, x, r1, u1); }) == ErrorType::kTypeError);      // 5
  CHECK(ErrorOf([&] { ScatterElements(b, x, i, u1); }) == ErrorType::kTypeError);       // 5
  CHECK(ErrorOf([&] { ScatterElements(b, x, i, u, ScatterAxis(2)); }) ==
        ErrorType::kTypeError);                                                    // 7
  CHECK(ErrorOf([&] { ScatterElements(b, x, bi, u); }) == ErrorType::kTypeError);  // 10
  CHECK(ErrorOf([&] { ScatterElements(b, x, i, bu); }) == ErrorType::kTypeError);  // 11
  const Operand ok = ScatterElements(b, x, i, u);
  CHECK(b.Desc(ok) == b.Desc(x));
  b.Build({{"out", ok}});
  CHECK(ErrorOf([&] { ScatterElements(b, x, i, u); }) == ErrorType::kInvalidStateError);  // 1
}

// ---------------------------------------------------------------- scatterND

TEST_CASE("scatterND: the spec's examples (values from the algorithm)") {
  const auto run = [](const Tensor& in, const Tensor& i, const Tensor& u) {
    return Run3(in, i, u,
                [](GraphBuilder& b, const Operand& xo, const Operand& io, const Operand& uo) {
                  return ScatterND(b, xo, io, uo);
                });
  };
  const OperandValue r1 =
      run(F32({8}, {0, 1, 2, 3, 4, 5, 6, 7}),
          Indices<uint32_t>(DataType::kUint32, {4, 1}, {4, 3, 1, 7}), F32({4}, {-1, -2, -3, -4}));
  CHECK(Floats(r1) == std::vector<float>{0, -3, 2, -2, -1, 5, 6, -4});
  const OperandValue r2 =
      run(F32({2, 2}, {0, 1, 2, 3}), Indices<uint32_t>(DataType::kUint32, {2, 2}, {0, 0, 1, 1}),
          F32({2}, {-1, -2}));
  CHECK(Floats(r2) == std::vector<float>{-1, 1, 2, -2});
  // The third example's comment (indices [[2], [0]]); its code has [1, 0] and a different update.
  const OperandValue r3 =
      run(F32({3, 2}, {0, 1, 2, 3, 4, 5}), Indices<uint32_t>(DataType::kUint32, {2, 1}, {2, 0}),
          F32({2, 2}, {-1, -2, -3, -4}));
  CHECK(r3.data.shape() == Shape{3, 2});
  CHECK(Floats(r3) == std::vector<float>{-3, -4, 2, 3, -1, -2});
  const OperandValue r4 = run(F32({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}),
                              Indices<uint32_t>(DataType::kUint32, {2, 2}, {0, 1, 1, 0}),
                              F32({2, 2}, {-1, -2, -3, -4}));
  CHECK(r4.data.shape() == Shape{2, 2, 2});
  CHECK(Floats(r4) == std::vector<float>{0, 1, -1, -2, -3, -4, 6, 7});
  CHECK_FALSE(r4.latitude.valid());
}

TEST_CASE("scatterND: rank-0 updates, negative coordinates, duplicates, out of range") {
  const Tensor x = Make<int32_t>(DataType::kInt32, {2, 2}, {0, 1, 2, 3});
  const auto run = [&](const Tensor& i, const Tensor& u) {
    return Run3(x, i, u,
                [](GraphBuilder& b, const Operand& xo, const Operand& io, const Operand& uo) {
                  return ScatterND(b, xo, io, uo);
                });
  };
  const OperandValue s = run(Indices<int32_t>(DataType::kInt32, {2}, {-1, 0}),
                             Make<int32_t>(DataType::kInt32, {}, {9}));
  CHECK(Values<int32_t>(s.data) == std::vector<int32_t>{0, 1, 9, 3});
  CHECK_FALSE(s.latitude.valid());
  // Rows: 1 then -1 (the same row) with different updates: that row is marked, the last wins.
  const OperandValue d = run(Indices<int64_t>(DataType::kInt64, {2, 1}, {1, -1}),
                             Make<int32_t>(DataType::kInt32, {2, 2}, {5, 6, 5, 7}));
  CHECK(Values<int32_t>(d.data) == std::vector<int32_t>{0, 1, 5, 7});
  const std::vector<uint8_t> marks = {0, 0, 0, kAnyMark};
  for (uint64_t i = 0; i < 4; ++i) CHECK(Lat(d, i) == marks[i]);
  // An out-of-range coordinate: clamped (2 -> 1), and the whole output is marked.
  const OperandValue o = run(Indices<uint32_t>(DataType::kUint32, {1, 1}, {2}),
                             Make<int32_t>(DataType::kInt32, {1, 2}, {8, 9}));
  CHECK(Values<int32_t>(o.data) == std::vector<int32_t>{0, 1, 8, 9});
  for (uint64_t i = 0; i < 4; ++i) CHECK(Lat(o, i) == kAnyMark);
}

TEST_CASE("scatterND: validation, step by step") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat16, {3, 2}});
  const Operand i = b.Input("i", {DataType::kInt32, {2, 1}});
  const Operand u = b.Input("u", {DataType::kFloat16, {2, 2}});
  const Operand fi = b.Input("fi", {DataType::kFloat16, {2, 1}});
  const Operand uf = b.Input("uf", {DataType::kFloat32, {2, 2}});
  const Operand s = b.Input("s", {DataType::kFloat16, {}});
  const Operand si = b.Input("si", {DataType::kInt32, {}});
  const Operand wide = b.Input("w", {DataType::kInt32, {2, 3}});
  const Operand bu = b.Input("bu", {DataType::kFloat16, {2, 3}});
  GraphBuilder other;
  const Operand foreign = other.Input("o", {DataType::kInt32, {2, 1}});
  CHECK(ErrorOf([&] { ScatterND(b, x, foreign, u); }) == ErrorType::kTypeError);  // step 2
  CHECK(ErrorOf([&] { ScatterND(b, x, fi, u); }) == ErrorType::kTypeError);       // step 3
  CHECK(ErrorOf([&] { ScatterND(b, x, i, uf); }) == ErrorType::kTypeError);       // step 4
  CHECK(ErrorOf([&] { ScatterND(b, s, i, s); }) == ErrorType::kTypeError);        // step 5
  CHECK(ErrorOf([&] { ScatterND(b, x, si, u); }) == ErrorType::kTypeError);       // step 5
  CHECK(ErrorOf([&] { ScatterND(b, x, wide, u); }) == ErrorType::kTypeError);     // step 10
  CHECK(ErrorOf([&] { ScatterND(b, x, i, bu); }) == ErrorType::kTypeError);       // step 15
  const Operand ok = ScatterND(b, x, i, u);
  CHECK(b.Desc(ok) == b.Desc(x));
  b.Build({{"out", ok}});
  CHECK(ErrorOf([&] { ScatterND(b, x, i, u); }) == ErrorType::kInvalidStateError);  // step 1
}

// ---------------------------------------------------------------- argMin / argMax

namespace {

OperandValue RunArg(bool is_max, const Tensor& x, uint32_t axis,
                    const MLArgMinMaxOptions& options = {}) {
  GraphBuilder b;
  const Operand xo = b.Input("x", {x.dtype(), x.shape()});
  return Run(b, ArgMinMax(b, is_max, xo, axis, options), {{"x", x}});
}

MLArgMinMaxOptions ArgOptions(bool keep, DataType type) {
  MLArgMinMaxOptions o;
  o.keepDimensions = keep;
  o.outputDataType = type;
  return o;
}

}  // namespace

TEST_CASE("argMin/argMax: axes, keepDimensions, int64 output, every input type") {
  // [[3, 9, 1], [7, 2, 8]]
  const Tensor x = F32({2, 3}, {3, 9, 1, 7, 2, 8});
  const OperandValue max1 = RunArg(true, x, 1);
  CHECK(max1.data.shape() == Shape{2});
  CHECK(max1.data.dtype() == DataType::kInt32);
  CHECK(Values<int32_t>(max1.data) == std::vector<int32_t>{1, 2});
  const OperandValue min0 = RunArg(false, x, 0, ArgOptions(true, DataType::kInt64));
  CHECK(min0.data.shape() == Shape{1, 3});
  CHECK(Values<int64_t>(min0.data) == std::vector<int64_t>{0, 1, 0});
  CHECK_FALSE(min0.latitude.valid());
  for (DataType t : DataTypeSet::All().List()) {
    CAPTURE(DataTypeName(t));
    Tensor v = Tensor::Allocate(t, {4});
    DispatchDataType(t, [&]<typename T>() {
      const double values[] = {5, 100, 0, 7};
      for (int i = 0; i < 4; ++i) v.base<T>()[i] = CastNumber<T>(MLNumber::FromDouble(values[i]));
      return 0;
    });
    CHECK(Values<int32_t>(RunArg(true, v, 0).data) == std::vector<int32_t>{1});
    CHECK(Values<int32_t>(RunArg(false, v, 0).data) == std::vector<int32_t>{2});
  }
  // Integer extremes compare exactly: int64 2^62 + 1 > 2^62 (equal as doubles).
  const Tensor big =
      Make<int64_t>(DataType::kInt64, {2}, {(int64_t{1} << 62) + 1, int64_t{1} << 62});
  CHECK(Values<int32_t>(RunArg(true, big, 0).data) == std::vector<int32_t>{0});
  CHECK(Values<int32_t>(RunArg(false, big, 0).data) == std::vector<int32_t>{1});
}

TEST_CASE("argMax: ties give the first index, marked one-of with every tied index") {
  // Row 0 ties at 1 and 3 (value 4); row 1 has one maximum; row 2 ties +0 and -0.
  const Tensor x = F32({3, 4}, {1, 4, 2, 4, 5, 1, 2, 3, -1, 0.0f, -0.0f, -2});
  const OperandValue r = RunArg(true, x, 1);
  CHECK(Values<int32_t>(r.data) == std::vector<int32_t>{1, 0, 1});
  CHECK(Lat(r, 0) == kOneOfMark);
  CHECK(Lat(r, 1) == 0);
  CHECK(Lat(r, 2) == kOneOfMark);
  REQUIRE(r.one_of != nullptr);
  CHECK(Values<int32_t>(r.one_of->Values(0)) == std::vector<int32_t>{1, 3});
  CHECK(Values<int32_t>(r.one_of->Values(2)) == std::vector<int32_t>{1, 2});
  const Tensor other = Make<int32_t>(DataType::kInt32, {3}, {3, 0, 2});
  const Tensor wrong = Make<int32_t>(DataType::kInt32, {3}, {2, 4, -1});
  CHECK(r.one_of->Contains(0, other));
  CHECK(r.one_of->Contains(2, other));
  CHECK_FALSE(r.one_of->Contains(0, wrong));  // index 2 holds 2, not 4
  CHECK_FALSE(r.one_of->Contains(1, wrong));  // outside the axis
  CHECK_FALSE(r.one_of->Contains(2, wrong));
  // argMin on a strided view: the columns of x; column 2 = [2, 2, -0] has one minimum.
  const OperandValue c = RunArg(false, x.Permute({1, 0}), 1);
  CHECK(Values<int32_t>(c.data) == std::vector<int32_t>{2, 2, 2, 2});
  CHECK_FALSE(c.latitude.valid());
}

TEST_CASE("argMin/argMax: a NaN in the line gives its first NaN, marked") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = F32({2, 3}, {1, nan, nan, kInf, -kInf, 3});
  const OperandValue mx = RunArg(true, x, 1);
  CHECK(Values<int32_t>(mx.data) == std::vector<int32_t>{1, 0});
  CHECK(Lat(mx, 0) == kAnyMark);
  CHECK(Lat(mx, 1) == 0);
  const OperandValue mn = RunArg(false, x, 1);
  CHECK(Values<int32_t>(mn.data) == std::vector<int32_t>{1, 1});
}

TEST_CASE("argMax ties feeding another operator become implementation-defined there") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 2}});
  const Operand table = b.Input("t", {DataType::kFloat32, {2}});
  const Operand idx = ArgMax(b, x, 1);
  const Operand g = Gather(b, table, idx);
  const Operand c = Cast(b, idx, DataType::kInt64);
  const auto values = b.Build({{"idx", idx}, {"g", g}, {"c", c}})
                          ->Compute({{"x", F32({2, 2}, {1, 1, 0, 3})}, {"t", F32({2}, {10, 20})}});
  CHECK(Lat(values.at("idx"), 0) == kOneOfMark);
  CHECK(values.at("idx").one_of != nullptr);
  CHECK(Floats(values.at("g")) == std::vector<float>{10, 20});
  CHECK(Lat(values.at("g"), 0) == kAnyMark);
  CHECK(Lat(values.at("g"), 1) == 0);
  CHECK(Lat(values.at("c"), 0) == kAnyMark);  // element-wise copy of the code without its set
  CHECK(values.at("c").one_of == nullptr);
}

TEST_CASE("argMin/argMax: validation, step by step") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kUint8, {2, 3}});
  const Operand s = b.Input("s", {DataType::kFloat32, {}});
  GraphBuilder other;
  const Operand foreign = other.Input("o", {DataType::kFloat32, {2}});
  CHECK(ErrorOf([&] { ArgMax(b, foreign, 0); }) == ErrorType::kTypeError);  // step 3
  CHECK(ErrorOf([&] { ArgMin(b, x, 2); }) == ErrorType::kTypeError);        // step 4
  CHECK(ErrorOf([&] { ArgMin(b, s, 0); }) == ErrorType::kTypeError);        // step 4, rank 0
  for (DataType t : {DataType::kUint32, DataType::kFloat32, DataType::kInt8, DataType::kUint64}) {
    CHECK(ErrorOf([&] { ArgMax(b, x, 0, ArgOptions(false, t)); }) == ErrorType::kTypeError);  // 5
  }
  const Operand ok = ArgMin(b, x, 0, ArgOptions(false, DataType::kInt64));
  CHECK(b.Desc(ok) == OperandDescriptor{DataType::kInt64, {3}});
  b.Build({{"out", ok}});
  CHECK(ErrorOf([&] { ArgMax(b, x, 0); }) == ErrorType::kInvalidStateError);  // step 2
}

// ---------------------------------------------------------------- cumulativeSum

namespace {

OperandValue RunCumSum(const Tensor& x, uint32_t axis, bool exclusive = false,
                       bool reversed = false) {
  GraphBuilder b;
  const Operand xo = b.Input("x", {x.dtype(), x.shape()});
  MLCumulativeSumOptions o;
  o.exclusive = exclusive;
  o.reversed = reversed;
  return Run(b, CumulativeSum(b, xo, axis, o), {{"x", x}});
}

}  // namespace

TEST_CASE("cumulativeSum: the spec's examples, and both options together") {
  const Tensor x = F32({4}, {1, 2, 3, 4});
  CHECK(Floats(RunCumSum(x, 0)) == std::vector<float>{1, 3, 6, 10});
  CHECK(Floats(RunCumSum(x, 0, true)) == std::vector<float>{0, 1, 3, 6});
  CHECK(Floats(RunCumSum(x, 0, false, true)) == std::vector<float>{10, 9, 7, 4});
  CHECK(Floats(RunCumSum(x, 0, true, true)) == std::vector<float>{9, 7, 4, 0});
}

TEST_CASE("cumulativeSum: axes of a rank-2 strided view") {
  // The transpose of [[1, 2, 3], [4, 5, 6]]: [[1, 4], [2, 5], [3, 6]].
  const Tensor x = Make<int32_t>(DataType::kInt32, {2, 3}, {1, 2, 3, 4, 5, 6}).Permute({1, 0});
  CHECK(Values<int32_t>(RunCumSum(x, 0).data) == std::vector<int32_t>{1, 4, 3, 9, 6, 15});
  CHECK(Values<int32_t>(RunCumSum(x, 1, false, true).data) ==
        std::vector<int32_t>{5, 4, 7, 5, 9, 6});
}

TEST_CASE("cumulativeSum: each float prefix sum is exact, rounded once") {
  // float32 1, 2^-24, 2^-60: 1 + 2^-24 is a tie (to even: 1); 1 + 2^-24 + 2^-60 is above it and
  // rounds up to 1 + 2^-23. A double accumulator holds 1 + 2^-24 and would round that to 1.
  const float tie = std::ldexp(1.0f, -24), tiny = std::ldexp(1.0f, -60);
  CHECK(Floats(RunCumSum(F32({3}, {1, tie, tiny}), 0)) ==
        std::vector<float>{1, 1, 1 + std::ldexp(1.0f, -23)});
  // 3e38 + 2^-149 - 3e38 is exactly 2^-149 (a double sum loses it).
  const float big = 3e38f, sub = std::ldexp(1.0f, -149);
  CHECK(Floats(RunCumSum(F32({3}, {big, sub, -big}), 0)) == std::vector<float>{big, big, sub});
  // float16 2048, 1, 1: 2049 is a tie (to even: 2048), 2050 is exact; a float16 running sum would
  // stay at 2048.
  CheckFloats(RunCumSum(F16({3}, {2048, 1, 1}), 0).data, {2048, 2048, 2050});
  // Overflow to infinity only where the exact sum rounds there: 65519 rounds down to 65504,
  // 65520 is halfway to 2^16 and goes to the even side, infinity.
  const double inf = std::numeric_limits<double>::infinity();
  CheckFloats(RunCumSum(F16({3}, {65504, 15, -15}), 0).data, {65504, 65504, 65504});
  CheckFloats(RunCumSum(F16({2}, {65504, 16}), 0, false, true).data, {inf, 16});
}

namespace {

// The value S * 2^unit rounded to `bits` significant bits, half to even, by integer arithmetic
// (independent of the kernel's expansion): the correctly rounded result when it is normal.
double RoundFixed(__int128 s, int unit, int bits) {
  const bool negative = s < 0;
  unsigned __int128 m =
      negative ? static_cast<unsigned __int128>(-s) : static_cast<unsigned __int128>(s);
  int length = 0;
  while ((m >> length) != 0) ++length;
  int shift = length > bits ? length - bits : 0;
  if (shift > 0) {
    const unsigned __int128 rest = m & ((static_cast<unsigned __int128>(1) << shift) - 1);
    const unsigned __int128 half = static_cast<unsigned __int128>(1) << (shift - 1);
    m >>= shift;
    if (rest > half || (rest == half && (m & 1) != 0)) ++m;
  }
  const double v = std::ldexp(static_cast<double>(static_cast<uint64_t>(m)), unit + shift);
  return negative ? -v : v;
}

}  // namespace

TEST_CASE("cumulativeSum: random prefix sums equal exact fixed-point sums rounded by hand") {
  std::mt19937 rng(20240531);
  // float32: every value is m * 2^(e - 23) with |m| < 2^24 and e >= -40, so every value and every
  // sum is a multiple of 2^-63, and every nonzero sum is a normal float32. Blocks of six terms
  // A, h, t, -A, -h, -t: A has 24 significant bits near 1, h is half an ulp of A (A + h is a
  // float32 tie) and t = +-2^-63 .. 2^-54 decides that tie (A + h + t rounds away from even when t
  // points that way); t lies below a double ulp of A, so a double accumulator drops it.
  std::uniform_int_distribution<int32_t> mant(1 << 23, (1 << 24) - 1);
  std::uniform_int_distribution<int> near_one(-2, 2), tiny(-40, -31), sign(0, 1);
  const size_t n = 300;
  Tensor x = Tensor::Allocate(DataType::kFloat32, {n});
  std::vector<__int128> fixed(n);
  for (size_t i = 0; i < n; i += 6) {
    const int e = near_one(rng);
    const std::pair<int32_t, int> terms[3] = {{sign(rng) != 0 ? mant(rng) : -mant(rng), e},
                                              {sign(rng) != 0 ? 1 : -1, e - 24},
                                              {sign(rng) != 0 ? 1 : -1, tiny(rng)}};
    for (size_t k = 0; k < 6; ++k) {
      const auto [m0, exponent] = terms[k % 3];
      const int32_t m = k < 3 ? m0 : -m0;
      x.base<float>()[i + k] = std::ldexp(static_cast<float>(m), exponent - 23);
      fixed[i + k] = static_cast<__int128>(m) << (exponent + 40);
    }
  }
  for (const bool reversed : {false, true}) {
    for (const bool exclusive : {false, true}) {
      CAPTURE(reversed);
      CAPTURE(exclusive);
      const std::vector<float> got = Floats(RunCumSum(x, 0, exclusive, reversed));
      __int128 sum = 0;
      for (size_t s = 0; s < n; ++s) {
        const size_t i = reversed ? n - 1 - s : s;
        if (!exclusive) sum += fixed[i];
        CHECK(static_cast<double>(got[i]) == RoundFixed(sum, -63, 24));
        if (exclusive) sum += fixed[i];
      }
    }
  }
  // float16: multiples of 2^-24 below 16 in magnitude; sums stay below 2^11 (normal or exact).
  std::uniform_int_distribution<int32_t> mant16(-2047, 2047);
  std::uniform_int_distribution<int> expo16(-14, 4);
  Tensor h = Tensor::Allocate(DataType::kFloat16, {n});
  __int128 sum = 0;
  std::vector<double> expected;
  for (size_t i = 0; i < n; ++i) {
    const int32_t m = mant16(rng);
    const int e = expo16(rng);
    h.base<Float16>()[i] = Float16::FromDouble(std::ldexp(m, e - 10));
    sum += static_cast<__int128>(m) << (e + 14);
    expected.push_back(RoundFixed(sum, -24, 11));
  }
  const OperandValue r = RunCumSum(h, 0);
  for (size_t i = 0; i < n; ++i) CHECK(r.data.At<Float16>(i).ToDouble() == expected[i]);
}

TEST_CASE("cumulativeSum: signed zeros, infinities, NaN") {
  const std::vector<float> a = Floats(RunCumSum(F32({2}, {-0.0f, -0.0f}), 0));
  CHECK((std::signbit(a[0]) && std::signbit(a[1])));
  const std::vector<float> e = Floats(RunCumSum(F32({2}, {-0.0f, -0.0f}), 0, true));
  CHECK((!std::signbit(e[0]) && std::signbit(e[1])));  // the empty sum is +0
  const std::vector<float> m = Floats(RunCumSum(F32({3}, {-0.0f, 0.0f, -0.0f}), 0));
  CHECK((std::signbit(m[0]) && !std::signbit(m[1]) && !std::signbit(m[2])));
  const std::vector<float> c = Floats(RunCumSum(F32({2}, {1, -1}), 0));
  CHECK((c[1] == 0 && !std::signbit(c[1])));
  const std::vector<float> inf = Floats(RunCumSum(F32({3}, {kInf, -kInf, 1}), 0));
  CHECK(inf[0] == kInf);
  CHECK(std::isnan(inf[1]));
  CHECK(std::isnan(inf[2]));
  const std::vector<float> r = Floats(RunCumSum(F32({3}, {NAN, 1, kInf}), 0, false, true));
  CHECK((std::isnan(r[0]) && r[1] == kInf && r[2] == kInf));
}

TEST_CASE("cumulativeSum: integer overflow wraps and marks only the elements out of range") {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  const OperandValue r = RunCumSum(Make<int32_t>(DataType::kInt32, {3}, {kMax, 1, -1}), 0);
  CHECK(Values<int32_t>(r.data) ==
        std::vector<int32_t>{kMax, std::numeric_limits<int32_t>::min(), kMax});
  CHECK(Lat(r, 0) == 0);
  CHECK(Lat(r, 1) == kAnyMark);
  CHECK(Lat(r, 2) == 0);  // back in range: exact
  const OperandValue u =
      RunCumSum(Make<uint64_t>(DataType::kUint64, {2}, {UINT64_MAX, 2}), 0, false, true);
  CHECK(Values<uint64_t>(u.data) == std::vector<uint64_t>{1, 2});
  CHECK(Lat(u, 0) == kAnyMark);
  const OperandValue i = RunCumSum(Make<int64_t>(DataType::kInt64, {2}, {INT64_MIN, -1}), 0, true);
  CHECK(Values<int64_t>(i.data) == std::vector<int64_t>{0, INT64_MIN});
  CHECK_FALSE(i.latitude.valid());
  const OperandValue w = RunCumSum(Make<uint32_t>(DataType::kUint32, {2}, {5, 7}), 0);
  CHECK(Values<uint32_t>(w.data) == std::vector<uint32_t>{5, 12});
}

TEST_CASE("cumulativeSum: an input mark reaches every sum that includes the element") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {4}});
  const Operand i = Cast(b, x, DataType::kInt32);  // 1e10 does not fit: marked
  MLCumulativeSumOptions o;
  o.exclusive = true;
  const OperandValue r = Run(b, CumulativeSum(b, i, 0, o), {{"x", F32({4}, {1, 1e10f, 2, 3})}});
  const std::vector<uint8_t> marks = {0, 0, kAnyMark, kAnyMark};
  for (uint64_t k = 0; k < 4; ++k) CHECK(Lat(r, k) == marks[k]);
}

TEST_CASE("cumulativeSum: validation, step by step") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 3}});
  const Operand i8 = b.Input("i8", {DataType::kInt8, {2}});
  const Operand u8 = b.Input("u8", {DataType::kUint8, {2}});
  GraphBuilder other;
  const Operand foreign = other.Input("o", {DataType::kFloat32, {2}});
  CHECK(ErrorOf([&] { CumulativeSum(b, foreign, 0); }) == ErrorType::kTypeError);  // step 2
  CHECK(ErrorOf([&] { CumulativeSum(b, i8, 0); }) == ErrorType::kTypeError);       // step 3
  CHECK(ErrorOf([&] { CumulativeSum(b, u8, 0); }) == ErrorType::kTypeError);       // step 3
  CHECK(ErrorOf([&] { CumulativeSum(b, x, 2); }) == ErrorType::kTypeError);        // step 4
  const Operand ok = CumulativeSum(b, x, 1);
  CHECK(b.Desc(ok) == b.Desc(x));
  b.Build({{"out", ok}});
  CHECK(ErrorOf([&] { CumulativeSum(b, x, 0); }) == ErrorType::kInvalidStateError);  // step 1
}

}  // namespace nnref
