// resample2d: the spec's linear example, hand-derived nearest-neighbor samples, output sizes by
// floor (spec-notes #9), integer linear results, and a validation error per method step.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include "ops/resample2d.h"
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

OperandValue Resample(const Shape& s, const std::vector<float>& x, const MLResample2dOptions& o) {
  GraphBuilder b;
  const Operand in = b.Input("x", {kF32, s});
  return b.Build({{"y", Resample2d(b, in, o)}})->Compute({{"x", MakeF32(s, x)}}).at("y");
}

std::vector<float> Values(const OperandValue& v) {
  std::vector<float> out(v.data.element_count());
  for (size_t i = 0; i < out.size(); ++i) out[i] = v.data.At<float>(i);
  return out;
}

MLResample2dOptions Sizes(uint32_t h, uint32_t w, MLInterpolationMode mode) {
  MLResample2dOptions o;
  o.sizes = {h, w};
  o.mode = mode;
  return o;
}

constexpr auto kNearest = MLInterpolationMode::kNearestNeighbor;
constexpr auto kLinear = MLInterpolationMode::kLinear;

}  // namespace

TEST_CASE("resample2d linear: the spec's 4x4 -> 8x8 example") {
  const std::vector<float> x = {0, 1, 2, 3, 0, 1, 2, 3, 12, 13, 14, 15, 12, 13, 14, 15};
  const std::vector<float> row0 = {0, 0.25f, 0.75f, 1.25f, 1.75f, 2.25f, 2.75f, 3};
  std::vector<float> expected;
  for (float offset : {0.0f, 0.0f, 0.0f, 3.0f, 9.0f, 12.0f, 12.0f, 12.0f}) {
    for (float v : row0) expected.push_back(v + offset);
  }
  CHECK(Values(Resample({1, 1, 4, 4}, x, Sizes(8, 8, kLinear))) == expected);
  MLResample2dOptions scales;  // the same through scales
  scales.mode = kLinear;
  scales.scales = {2.0f, 2.0f};
  CHECK(Values(Resample({1, 1, 4, 4}, x, scales)) == expected);
}

TEST_CASE("resample2d nearest-neighbor: upsampling repeats, halves round down") {
  CHECK(Values(Resample({1, 1, 2, 2}, {1, 2, 3, 4}, Sizes(4, 4, kNearest))) ==
        std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
  // 4 -> 2: coordinates 0.5 and 2.5; ceil(c - 0.5) takes 0 and 2.
  CHECK(Values(Resample({1, 1, 1, 4}, {10, 20, 30, 40}, Sizes(1, 2, kNearest))) ==
        std::vector<float>{10, 30});
  // 3 -> 2: coordinates 0.25 and 1.75 -> 0 and 2.
  CHECK(Values(Resample({1, 1, 1, 3}, {10, 20, 30}, Sizes(1, 2, kNearest))) ==
        std::vector<float>{10, 30});
}

TEST_CASE("resample2d: output size is floor(size * scale) (spec-notes #9)") {
  MLResample2dOptions o;
  o.scales = {1.5f, 0.5f};
  GraphBuilder b;
  const Operand x = b.Input("x", {kF32, {1, 1, 3, 3}});
  CHECK(b.Desc(Resample2d(b, x, o)).shape == Shape{1, 1, 4, 1});  // 4.5 -> 4, 1.5 -> 1
  o.scales = {0.1f, 1.0f};  // 3 * 0.1f = 0.3000000045 -> 0: not a valid dimension
  CHECK(ErrorOf([&] { Resample2d(b, x, o); }) == ErrorType::kTypeError);
  o.scales = {1.0f / 3.0f, 1.0f};  // 3 * 0.3333333433 = 1.0000000298 -> 1
  CHECK(b.Desc(Resample2d(b, x, o)).shape == Shape{1, 1, 1, 3});
  o.sizes = {5, 6};  // sizes win over scales
  CHECK(b.Desc(Resample2d(b, x, o)).shape == Shape{1, 1, 5, 6});
  // The coordinates use the final size: 3 -> 4 by scale 1.5 samples at (o + 0.5) * 3/4 - 0.5.
  MLResample2dOptions l;
  l.mode = kLinear;
  l.scales = {1.0f, 1.5f};
  // Coordinates -0.125 -> 0, 0.625, 1.375, 2.125 -> 2 over [0, 8, 16].
  CHECK(Values(Resample({1, 1, 1, 3}, {0, 8, 16}, l)) == std::vector<float>{0, 5, 11, 16});
}

TEST_CASE("resample2d: axes pick the resampled dimensions") {
  MLResample2dOptions o = Sizes(4, 4, kNearest);
  o.axes = {1, 2};  // nhwc data
  const OperandValue r = Resample({1, 2, 2, 1}, {1, 2, 3, 4}, o);
  CHECK(r.data.shape() == Shape{1, 4, 4, 1});
  CHECK(Values(r) == std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
  // Swapped axes [3, 2]: sizes[0] goes to axis 3.
  MLResample2dOptions s = Sizes(4, 1, kLinear);
  s.axes = {3, 2};
  const OperandValue t = Resample({1, 1, 2, 2}, {1, 2, 3, 4}, s);
  CHECK(t.data.shape() == Shape{1, 1, 1, 4});
  // Height 2 -> 1 samples row coordinate 0.5: the mean of the rows, {2, 3}, then widened to 4.
  CHECK(Values(t) == std::vector<float>{2, 2.25f, 2.75f, 3});
}

TEST_CASE("resample2d linear on uint8: exact where the result is an integer, else marked") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kUint8, {1, 1, 1, 2}});
  const Operand y = Resample2d(b, x, Sizes(1, 4, kLinear));
  auto g = b.Build({{"y", y}});
  auto run = [&](uint8_t a, uint8_t c) {
    Tensor t = Tensor::Allocate(DataType::kUint8, {1, 1, 1, 2});
    t.base<uint8_t>()[0] = a;
    t.base<uint8_t>()[1] = c;
    return g->Compute({{"x", t}}).at("y");
  };
  // Coordinates 0, 0.25, 0.75, 1.
  const OperandValue exact = run(0, 8);
  const uint8_t* e = exact.data.base<uint8_t>();
  CHECK((e[0] == 0 && e[1] == 2 && e[2] == 6 && e[3] == 8));
  CHECK_FALSE(exact.latitude.valid());
  const OperandValue open = run(0, 255);  // 63.75 and 191.25
  const uint8_t* v = open.data.base<uint8_t>();
  CHECK((v[0] == 0 && v[1] == 64 && v[2] == 191 && v[3] == 255));
  REQUIRE(open.latitude.valid());
  const uint8_t* la = open.latitude.base<uint8_t>();
  CHECK((la[0] == 0 && la[1] == 1 && la[2] == 1 && la[3] == 0));
}

TEST_CASE("resample2d linear: an infinite sample at an integral coordinate") {
  const float inf = std::numeric_limits<float>::infinity();
  // 2 -> 3: coordinates 0 (exactly the sample), 0.5, 1 (clamped).
  const OperandValue r = Resample({1, 1, 1, 2}, {inf, 1}, Sizes(1, 3, kLinear));
  CHECK(Values(r) == std::vector<float>{inf, inf, 1});
  // The literal formula multiplies the zero weight of the (single) row by that row too:
  // Inf * 0 = NaN at elements 0 and 1, where the row's value is infinite.
  REQUIRE(r.latitude.valid());
  CHECK(r.latitude.base<uint8_t>()[0] == static_cast<uint8_t>(Latitude::kValueOrNaN));
  CHECK(r.latitude.base<uint8_t>()[1] == static_cast<uint8_t>(Latitude::kValueOrNaN));
  CHECK(r.latitude.base<uint8_t>()[2] == 0);
}

TEST_CASE("resample2d call adapter: scales are WebIDL floats") {
  GraphBuilder b;
  const Operand x = b.Input("x", {kF32, {1, 1, 3, 3}});
  const OperandLookup lookup = [&](const std::string& n) -> std::optional<Operand> {
    if (n == "x") return x;
    return std::nullopt;
  };
  auto call = [&](const Value& scales) {
    const Value input = Value::Str("x");
    const Value options = Value::Object({{"scales", scales}});
    OpCall c(b, "resample2d", {{"input", &input}, {"options", &options}}, lookup);
    return b.Desc(CallResample2d(c)[0]).shape;
  };
  auto num = [](double d) {
    Number n;
    n.d = d;
    return Value::Num(n);
  };
  CHECK(call(Value::Array({num(2.5), num(1)})) == Shape{1, 1, 7, 3});
  CHECK(ErrorOf([&] { call(Value::Array({Value::Str("NaN"), num(1)})); }) == ErrorType::kTypeError);
  CHECK(ErrorOf([&] {
          call(Value::Array({Value::Str("Infinity"), num(1)}));
        }) == ErrorType::kTypeError);
  CHECK(ErrorOf([&] { call(Value::Array({num(1e39), num(1)})); }) == ErrorType::kTypeError);
}

TEST_CASE("resample2d validation: one error per method step") {
  GraphBuilder b;
  const Operand x = b.Input("x", {kF32, {1, 2, 3, 3}});
  const auto type_error = [&](const std::function<void()>& f) {
    return ErrorOf(f) == ErrorType::kTypeError;
  };
  GraphBuilder other;
  const Operand foreign = other.Input("f", {kF32, {1, 2, 3, 3}});
  CHECK(type_error([&] { Resample2d(b, foreign); }));  // step 2
  const Operand xi = b.Input("xi", {DataType::kInt32, {1, 2, 3, 3}});
  CHECK(type_error([&] { Resample2d(b, xi); }));  // step 3
  const Operand xi8 = b.Input("xi8", {DataType::kInt8, {1, 2, 3, 3}});
  CHECK(b.Desc(Resample2d(b, xi8)).shape == Shape{1, 2, 3, 3});
  const Operand x3 = b.Input("x3", {kF32, {2, 3, 3}});
  CHECK(type_error([&] { Resample2d(b, x3); }));  // step 4
  MLResample2dOptions o;
  o.scales = {1.0f, 0.0f};
  CHECK(type_error([&] { Resample2d(b, x, o); }));  // step 6
  o.scales = {1.0f, -2.0f};
  CHECK(type_error([&] { Resample2d(b, x, o); }));
  o.scales = {1.0f, 1.0f, 1.0f};
  CHECK(type_error([&] { Resample2d(b, x, o); }));
  o.sizes = {2, 2};  // scales are checked even when sizes are given
  CHECK(type_error([&] { Resample2d(b, x, o); }));
  o = {};
  o.sizes = {2};
  CHECK(type_error([&] { Resample2d(b, x, o); }));  // step 7
  o.sizes = {2, 0};
  CHECK(type_error([&] { Resample2d(b, x, o); }));
  o = {};
  o.axes = {2, 2};
  CHECK(type_error([&] { Resample2d(b, x, o); }));  // step 9: duplicates
  o.axes = {2, 4};
  CHECK(type_error([&] { Resample2d(b, x, o); }));  // step 9: out of range
  o.axes = {2};
  CHECK(type_error([&] { Resample2d(b, x, o); }));  // length other than 2 (deviation)
  o.axes = {1, 2, 3};
  CHECK(type_error([&] { Resample2d(b, x, o); }));
  o = {};
  o.sizes = {2147483648u, 2};
  CHECK(type_error([&] { Resample2d(b, x, o); }));  // step 10.3.3
  o = {};
  o.scales = {0.25f, 1.0f};                         // floor(0.75) = 0
  CHECK(type_error([&] { Resample2d(b, x, o); }));  // step 10.3.3
  o = {};
  o.axes = {0, 1};
  o.sizes = {2, 4};
  CHECK(b.Desc(Resample2d(b, x, o)).shape == Shape{2, 4, 3, 3});
  Resample2d(b, x);
  CHECK(b.operators().back().tolerance.size == 0);
  Resample2d(b, x, Sizes(6, 6, kLinear));
  CHECK(b.operators().back().tolerance.size == 3);
  b.Build({{"y", Resample2d(b, x)}});
  CHECK(ErrorOf([&] { Resample2d(b, x); }) == ErrorType::kInvalidStateError);  // step 1
}

}  // namespace nnref
