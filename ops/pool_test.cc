// averagePool2d, l2Pool2d, maxPool2d: hand-computed windows, the padding readings of
// spec-notes #3, rounding and outputSizes (spec-notes #4), and a validation error per step.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include "ops/pool2d.h"
#include "ref/testing.h"

namespace nnref {

namespace {

constexpr DataType kF32 = DataType::kFloat32;

Tensor MakeF32(const Shape& s, const std::vector<float>& v) {
  Tensor x = Tensor::Allocate(kF32, s);
  REQUIRE(v.size() == x.element_count());
  for (size_t i = 0; i < v.size(); ++i) x.base<float>()[i] = v[i];
  return x;
}

std::vector<float> Range(size_t n, float start) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + static_cast<float>(i);
  return v;
}

// Runs op on a float32 nchw input; returns {shape, values}.
std::pair<Shape, std::vector<float>> Pool(PoolOp op, const Shape& s, const std::vector<float>& x,
                                          const MLPool2dOptions& o = {}) {
  GraphBuilder b;
  const Operand in = b.Input("x", {kF32, s});
  const OperandValue r =
      b.Build({{"y", Pool2d(b, op, in, o)}})->Compute({{"x", MakeF32(s, x)}}).at("y");
  std::vector<float> v(r.data.element_count());
  for (size_t i = 0; i < v.size(); ++i) v[i] = r.data.At<float>(i);
  return {r.data.shape(), v};
}

std::vector<float> Values(PoolOp op, const Shape& s, const std::vector<float>& x,
                          const MLPool2dOptions& o = {}) {
  return Pool(op, s, x, o).second;
}

MLPool2dOptions Window(uint32_t h, uint32_t w) {
  MLPool2dOptions o;
  o.windowDimensions = {h, w};
  return o;
}

}  // namespace

TEST_CASE("pool2d: 2x2 windows with stride 2, and global pooling by default") {
  MLPool2dOptions o = Window(2, 2);
  o.strides = {2, 2};
  const std::vector<float> x = Range(16, 1);  // 4x4: 1..16
  CHECK(Values(PoolOp::kAverage, {1, 1, 4, 4}, x, o) ==
        std::vector<float>{3.5f, 5.5f, 11.5f, 13.5f});
  CHECK(Values(PoolOp::kMax, {1, 1, 4, 4}, x, o) == std::vector<float>{6, 8, 14, 16});
  // l2 of {1, 2, 5, 6} = sqrt(66); float32 of the correctly rounded root.
  CHECK(Values(PoolOp::kL2, {1, 1, 4, 4}, x, o)[0] == static_cast<float>(std::sqrt(66.0)));
  const auto global = Pool(PoolOp::kAverage, {1, 1, 4, 4}, x);
  CHECK(global.first == Shape{1, 1, 1, 1});
  CHECK(global.second == std::vector<float>{8.5f});
  CHECK(Values(PoolOp::kMax, {1, 1, 4, 4}, x) == std::vector<float>{16});
  CHECK(Values(PoolOp::kL2, {1, 1, 1, 2}, {3, 4}) == std::vector<float>{5});
}

TEST_CASE("pool2d padding (spec-notes #3): average of real elements; padding never wins") {
  MLPool2dOptions o = Window(3, 3);
  o.padding = {1, 1, 1, 1};
  // 3x3 1..9: corner window {1, 2, 4, 5} -> 3; edge window {1..6} -> 3.5; centre -> 5.
  const std::vector<float> avg = Values(PoolOp::kAverage, {1, 1, 3, 3}, Range(9, 1), o);
  CHECK(avg == std::vector<float>{3, 3.5f, 4, 4.5f, 5, 5.5f, 6, 6.5f, 7});
  // All negative: zero padding would win everywhere if padding counted.
  const std::vector<float> mx = Values(PoolOp::kMax, {1, 1, 3, 3}, Range(9, -9), o);
  CHECK(mx == std::vector<float>{-5, -4, -4, -2, -1, -1, -2, -1, -1});
  // l2: padding contributes nothing: [3 4] with one padded column each side, window 3 wide.
  MLPool2dOptions l2 = Window(1, 3);
  l2.padding = {0, 0, 1, 1};
  CHECK(Values(PoolOp::kL2, {1, 1, 1, 2}, {3, 4}, l2) == std::vector<float>{5, 5});
}

TEST_CASE("pool2d: outputShapeRounding ceil adds partial windows") {
  MLPool2dOptions o = Window(2, 2);
  o.strides = {2, 2};
  CHECK(Pool(PoolOp::kAverage, {1, 1, 3, 3}, Range(9, 1), o).first == Shape{1, 1, 1, 1});
  o.outputShapeRounding = MLRoundingType::kCeil;
  // Windows {1,2,4,5} -> 3, {3,6} -> 4.5, {7,8} -> 7.5, {9} -> 9.
  const auto r = Pool(PoolOp::kAverage, {1, 1, 3, 3}, Range(9, 1), o);
  CHECK(r.first == Shape{1, 1, 2, 2});
  CHECK(r.second == std::vector<float>{3, 4.5f, 7.5f, 9});
  CHECK(Values(PoolOp::kMax, {1, 1, 3, 3}, Range(9, 1), o) == std::vector<float>{5, 6, 8, 9});
}

TEST_CASE("pool2d: outputSizes follows the steps as written (spec-notes #4)") {
  // 4x4, window 2, strides 3: calculated size (4 - 2) / 3 + 1 = 1.67 -> floor 1, ceil 2.
  MLPool2dOptions o = Window(2, 2);
  o.strides = {3, 3};
  o.outputSizes = {2, 2};
  // Windows at 0 and 3: {1,2,5,6} -> 3.5, {4,8} -> 6, {13,14} -> 13.5, {16} -> 16.
  const std::vector<float> expected = {3.5f, 6, 13.5f, 16};
  CHECK(Values(PoolOp::kAverage, {1, 1, 4, 4}, Range(16, 1), o) == expected);
  o.padding = {1, 1, 1, 1};  // step 10: reset to zeros when outputSizes is given
  CHECK(Values(PoolOp::kAverage, {1, 1, 4, 4}, Range(16, 1), o) == expected);
  o.padding = {1, 1, 1};  // not even checked then
  CHECK(Values(PoolOp::kAverage, {1, 1, 4, 4}, Range(16, 1), o) == expected);
  o.outputSizes = {1, 1};
  CHECK(Values(PoolOp::kAverage, {1, 1, 4, 4}, Range(16, 1), o) == std::vector<float>{3.5f});
}

TEST_CASE("pool2d: dilations, nhwc layout, float16 averaging rounds once") {
  MLPool2dOptions o = Window(2, 2);
  o.dilations = {2, 2};
  // out(0,0) = max{1, 3, 9, 11}.
  CHECK(Values(PoolOp::kMax, {1, 1, 4, 4}, Range(16, 1), o) == std::vector<float>{11, 12, 15, 16});
  // nhwc [1, 2, 2, 2]: channel 0 = {1, 3, 5, 7}, channel 1 = {2, 4, 6, 8}.
  MLPool2dOptions nhwc;
  nhwc.layout = MLInputOperandLayout::kNhwc;
  const auto r = Pool(PoolOp::kAverage, {1, 2, 2, 2}, Range(8, 1), nhwc);
  CHECK(r.first == Shape{1, 1, 1, 2});
  CHECK(r.second == std::vector<float>{4, 5});
  // float16 {2048, 1, 1, 0}: the exact mean 512.5 (0x6001); a float16 running sum gives 512.
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat16, {1, 1, 2, 2}});
  Tensor xt = Tensor::Allocate(DataType::kFloat16, {1, 1, 2, 2});
  const uint16_t bits[] = {0x6800, 0x3c00, 0x3c00, 0x0000};
  for (int i = 0; i < 4; ++i) xt.base<Float16>()[i] = Float16{bits[i]};
  const OperandValue h = b.Build({{"y", AveragePool2d(b, x)}})->Compute({{"x", xt}}).at("y");
  CHECK(h.data.base<Float16>()[0].bits == 0x6001);
}

TEST_CASE("averagePool2d: the mean just above a float32 midpoint rounds up") {
  // {1, 1 + 2^-23, FLT_MAX, FLT_MAX - 2^104} / 4 = 2^127 - 1.5 * 2^103 + 0.5 + 2^-25: just above
  // the midpoint between 2^127 - 2^104 (even) and 2^127 - 2^103, so the latter. A double sum
  // loses the 0.5 and lands on the midpoint, which ties to the even neighbour.
  const float max = std::numeric_limits<float>::max();
  const std::vector<float> x = {1, 1 + std::ldexp(1.0f, -23), max, std::nextafter(max, 0.0f)};
  CHECK(Values(PoolOp::kAverage, {1, 1, 2, 2}, x) ==
        std::vector<float>{std::ldexp(1.0f, 127) - std::ldexp(1.0f, 103)});
}

TEST_CASE("maxPool2d: integer types, NaN and windows with no real element") {
  {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kInt8, {1, 1, 1, 4}});
    MLPool2dOptions o = Window(1, 2);
    o.strides = {1, 2};
    Tensor xt = Tensor::Allocate(DataType::kInt8, {1, 1, 1, 4});
    const int8_t v[] = {-128, -7, 127, 3};
    for (int i = 0; i < 4; ++i) xt.base<int8_t>()[i] = v[i];
    const OperandValue r = b.Build({{"y", MaxPool2d(b, x, o)}})->Compute({{"x", xt}}).at("y");
    CHECK(r.data.base<int8_t>()[0] == -7);
    CHECK(r.data.base<int8_t>()[1] == 127);
    CHECK_FALSE(r.latitude.valid());
  }
  {
    GraphBuilder b;
    const Operand x = b.Input("x", {kF32, {1, 1, 1, 4}});
    MLPool2dOptions o = Window(1, 2);
    o.strides = {1, 2};
    const OperandValue r =
        b.Build({{"y", MaxPool2d(b, x, o)}})
            ->Compute({{"x", MakeF32({1, 1, 1, 4}, {1, std::nanf(""), -0.0f, 0.0f})}})
            .at("y");
    CHECK(std::isnan(r.data.base<float>()[0]));
    CHECK(r.data.base<float>()[1] == 0.0f);
    CHECK_FALSE(std::signbit(r.data.base<float>()[1]));  // +0 wins over -0
    REQUIRE(r.latitude.valid());
    CHECK(r.latitude.base<uint8_t>()[0] == static_cast<uint8_t>(Latitude::kAny));
    CHECK(r.latitude.base<uint8_t>()[1] == 0);
  }
  // Input [5], window 1, two padded columns in front: outputs 0 and 1 see no real element.
  MLPool2dOptions o = Window(1, 1);
  o.padding = {0, 0, 2, 0};
  for (PoolOp op : {PoolOp::kMax, PoolOp::kAverage, PoolOp::kL2}) {
    GraphBuilder b;
    const Operand x = b.Input("x", {kF32, {1, 1, 1, 1}});
    const OperandValue r =
        b.Build({{"y", Pool2d(b, op, x, o)}})->Compute({{"x", MakeF32({1, 1, 1, 1}, {5})}}).at("y");
    CHECK(r.data.shape() == Shape{1, 1, 1, 3});
    CHECK(r.data.base<float>()[2] == 5);
    if (op == PoolOp::kL2) {  // the sum of no squares is 0: defined
      CHECK(r.data.base<float>()[0] == 0);
      CHECK_FALSE(r.latitude.valid());
    } else {
      REQUIRE(r.latitude.valid());
      CHECK(r.latitude.base<uint8_t>()[0] == static_cast<uint8_t>(Latitude::kAny));
      CHECK(r.latitude.base<uint8_t>()[1] == static_cast<uint8_t>(Latitude::kAny));
      CHECK(r.latitude.base<uint8_t>()[2] == 0);
    }
  }
}

TEST_CASE("pool2d call adapter: roundingType is an alias of outputShapeRounding") {
  GraphBuilder b;
  const Operand x = b.Input("x", {kF32, {1, 1, 3, 3}});
  const OperandLookup lookup = [&](const std::string& n) -> std::optional<Operand> {
    if (n == "x") return x;
    return std::nullopt;
  };
  auto shape_of = [&](const Value& options) {
    const Value input = Value::Str("x");
    OpCall call(b, "averagePool2d", {{"input", &input}, {"options", &options}}, lookup);
    return b.Desc(CallPool2d<PoolOp::kAverage>(call)[0]).shape;
  };
  auto num = [](double d) {
    Number n;
    n.d = d;
    n.i = static_cast<int64_t>(d);
    n.u = static_cast<uint64_t>(d);
    return Value::Num(n);
  };
  const Value window = Value::Array({num(2), num(2)});
  const Value strides = Value::Array({num(2), num(2)});
  CHECK(shape_of(Value::Object({{"windowDimensions", window}, {"strides", strides}})) ==
        Shape{1, 1, 1, 1});
  CHECK(shape_of(Value::Object({{"windowDimensions", window},
                                {"strides", strides},
                                {"roundingType", Value::Str("ceil")}})) == Shape{1, 1, 2, 2});
  CHECK(shape_of(Value::Object({{"windowDimensions", window},
                                {"strides", strides},
                                {"outputShapeRounding", Value::Str("ceil")}})) ==
        Shape{1, 1, 2, 2});
  CHECK(shape_of(Value::Object({{"windowDimensions", window},
                                {"strides", strides},
                                {"outputShapeRounding", Value::Str("floor")},
                                {"roundingType", Value::Str("ceil")}})) == Shape{1, 1, 1, 1});
  CHECK(ErrorOf([&] {
          shape_of(Value::Object({{"outputShapeRounding", Value::Str("round")}}));
        }) == ErrorType::kTypeError);
}

TEST_CASE("pool2d validation: one error per method step") {
  GraphBuilder b;
  const Operand x = b.Input("x", {kF32, {1, 2, 4, 4}});
  const auto type_error = [&](const std::function<void()>& f) {
    return ErrorOf(f) == ErrorType::kTypeError;
  };
  GraphBuilder other;
  const Operand foreign = other.Input("f", {kF32, {1, 2, 4, 4}});
  CHECK(type_error([&] { MaxPool2d(b, foreign); }));  // step 3
  const Operand xi = b.Input("xi", {DataType::kInt32, {1, 2, 4, 4}});
  CHECK(type_error([&] { AveragePool2d(b, xi); }));  // step 4
  CHECK(type_error([&] { L2Pool2d(b, xi); }));
  CHECK(b.Desc(MaxPool2d(b, xi)).shape == Shape{1, 2, 1, 1});  // maxPool2d: any type
  const Operand x3 = b.Input("x3", {kF32, {2, 4, 4}});
  CHECK(type_error([&] { MaxPool2d(b, x3); }));  // step 5
  MLPool2dOptions o;
  o.windowDimensions = {2};
  CHECK(type_error([&] { MaxPool2d(b, x, o); }));  // step 8
  o.windowDimensions = {2, 0};
  CHECK(type_error([&] { MaxPool2d(b, x, o); }));  // step 9
  o = Window(2, 2);
  o.padding = {1, 1, 1};
  CHECK(type_error([&] { MaxPool2d(b, x, o); }));  // step 11
  o = Window(2, 2);
  o.strides = {1, 1, 1};
  CHECK(type_error([&] { MaxPool2d(b, x, o); }));  // step 13
  o.strides = {1, 0};
  CHECK(type_error([&] { MaxPool2d(b, x, o); }));  // step 14
  o = Window(2, 2);
  o.strides = {3, 3};
  o.outputSizes = {2};
  CHECK(type_error([&] { MaxPool2d(b, x, o); }));  // step 15.1
  o = Window(2, 2);
  o.outputSizes = {3, 3};  // the calculated size with strides 1, but not smaller than them
  CHECK(type_error([&] { MaxPool2d(b, x, o); }));  // step 15.2
  o = Window(2, 2);
  o.dilations = {1};
  CHECK(type_error([&] { MaxPool2d(b, x, o); }));  // step 17
  o.dilations = {0, 1};
  CHECK(type_error([&] { MaxPool2d(b, x, o); }));  // step 18
  o = Window(2, 2);
  o.strides = {3, 3};
  o.outputSizes = {1, 2};                          // floor height with ceil width
  CHECK(type_error([&] { MaxPool2d(b, x, o); }));  // step 20.3.2
  o = Window(5, 2);                                // taller than the input
  CHECK(type_error([&] { MaxPool2d(b, x, o); }));  // step 20.5
  o = Window(3, 3);
  o.dilations = {2, 1};  // effective height 5
  CHECK(type_error([&] { AveragePool2d(b, x, o); }));
  o = Window(3, 2);
  o.layout = MLInputOperandLayout::kNhwc;  // x read as nhwc: 2 x 4 spatial
  CHECK(type_error([&] { MaxPool2d(b, x, o); }));
  o.windowDimensions = {2, 4};
  CHECK(b.Desc(MaxPool2d(b, x, o)).shape == Shape{1, 1, 1, 4});
  o = Window(2, 3);
  AveragePool2d(b, x, o);
  CHECK(b.operators().back().tolerance.size == 6);  // the window's element count
  b.Build({{"y", MaxPool2d(b, x)}});
  CHECK(ErrorOf([&] { MaxPool2d(b, x); }) == ErrorType::kInvalidStateError);  // step 2
}

}  // namespace nnref
