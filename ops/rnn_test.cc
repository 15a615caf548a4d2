// gru, gruCell, lstm, lstmCell: values derived by hand (relu activations and dyadic weights keep
// every intermediate exact, so the expected values need no rounding argument), identities such as
// zero weights, and a validation error for every method step.
#include "ops/rnn.h"

#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <map>

#include "ref/testing.h"

namespace nnref {

namespace {

using Act = MLRecurrentNetworkActivation;

std::vector<double> Values(const Tensor& t) {
  std::vector<double> v;
  for (uint64_t i = 0; i < t.element_count(); ++i) {
    v.push_back(t.dtype() == DataType::kFloat16 ? t.At<Float16>(i).ToDouble()
                                                : static_cast<double>(t.At<float>(i)));
  }
  return v;
}

// A builder whose operands are all float32 constants, by name.
struct Net {
  GraphBuilder b;
  std::map<std::string, Tensor> data;
  Operand In(const std::string& name, const Shape& s, std::initializer_list<float> v) {
    data[name] = F32(s, v);
    return b.Input(name, {DataType::kFloat32, s});
  }
  std::vector<std::vector<double>> Run(const std::vector<Operand>& outs) {
    static const char* const kNames[] = {"o0", "o1", "o2"};
    std::vector<std::pair<std::string, Operand>> named;
    for (size_t i = 0; i < outs.size(); ++i) named.push_back({kNames[i], outs[i]});
    const auto values = b.Build(named)->Compute(data);
    std::vector<std::vector<double>> r;
    for (size_t i = 0; i < outs.size(); ++i) r.push_back(Values(values.at(kNames[i]).data));
    return r;
  }
};

const std::vector<Act> kRelu2 = {Act::kRelu, Act::kRelu};
const std::vector<Act> kRelu3 = {Act::kRelu, Act::kRelu, Act::kRelu};

}  // namespace

TEST_CASE("gruCell: zero weights give h' = sigmoid(0) * h = h / 2") {
  // z = r = sigmoid(0) = 0.5, n = tanh(0) = 0: h' = 0.5 * h + 0 * 0.5.
  Net n;
  const Operand x = n.In("x", {2, 1}, {3, -7});
  const Operand w = n.In("w", {3, 1}, {0, 0, 0});
  const Operand r = n.In("r", {3, 1}, {0, 0, 0});
  const Operand h = n.In("h", {2, 1}, {0.5f, -3});
  CHECK(n.Run({GruCell(n.b, x, w, r, h, 1)})[0] == std::vector<double>{0.25, -1.5});
}

TEST_CASE("gruCell: hidden size 1 by hand (relu, resetAfter, layouts)") {
  // x = 2, h = 1, recurrentBias n = 1, Rn = 1; Wz = 0.25 -> z = 0.5, Wr = 0.125 -> r = 0.25,
  // Wn = 1. resetAfter: n = 2 + r * (1 + 1) = 2.5, h' = 0.5 * 1 + 2.5 * 0.5 = 1.75.
  // Without resetAfter: n = (0 + 1) + (2 + (r * h) * 1) = 3.25, h' = 0.5 + 1.625 = 2.125.
  for (const bool reset_after : {true, false}) {
    for (const MLGruWeightLayout layout : {MLGruWeightLayout::kZrn, MLGruWeightLayout::kRzn}) {
      Net n;
      const bool zrn = layout == MLGruWeightLayout::kZrn;
      const Operand x = n.In("x", {1, 1}, {2});
      const Operand w = n.In("w", {3, 1}, {zrn ? 0.25f : 0.125f, zrn ? 0.125f : 0.25f, 1});
      const Operand r = n.In("r", {3, 1}, {0, 0, 1});
      const Operand h = n.In("h", {1, 1}, {1});
      MLGruCellOptions o;
      o.recurrentBias = n.In("rb", {3}, {0, 0, 1});
      o.resetAfter = reset_after;
      o.layout = layout;
      o.activations = kRelu2;
      CHECK(n.Run({GruCell(n.b, x, w, r, h, 1, o)})[0] ==
            std::vector<double>{reset_after ? 1.75 : 2.125});
    }
  }
}

TEST_CASE("gruCell: default sigmoid/tanh, rounded once") {
  // x = 1, all weights 1, h = 0: z = r = sigmoid(1), n = tanh(1), h' = tanh(1) * (1 - sigmoid(1)).
  Net n;
  const Operand x = n.In("x", {1, 1}, {1});
  const Operand w = n.In("w", {3, 1}, {1, 1, 1});
  const Operand r = n.In("r", {3, 1}, {1, 1, 1});
  const Operand h = n.In("h", {1, 1}, {0});
  const double s = 1 / (1 + std::exp(-1.0));
  CHECK(n.Run({GruCell(n.b, x, w, r, h, 1)})[0] ==
        std::vector<double>{static_cast<float>(std::tanh(1.0) * (1 - s))});
}

TEST_CASE("gru: h_t = x_t + 2 h_(t-1) over two steps, every direction") {
  // z = 0 (zero weights), r = 1 (bias), Wn = 1, Rn = 2, relu: h_t = x_t + 2 h_(t-1).
  // x = [1, 2]: forward 1, 4; backward (slice 1 first) 2, then 1 + 4 = 5 at slice 0.
  auto run = [](MLRecurrentNetworkDirection dir, bool with_h0) {
    Net n;
    const bool both = dir == MLRecurrentNetworkDirection::kBoth;
    const Operand x = n.In("x", {2, 1, 1}, {1, 2});
    const Operand w =
        both ? n.In("w", {2, 3, 1}, {0, 0, 1, 0, 0, 1}) : n.In("w", {1, 3, 1}, {0, 0, 1});
    const Operand r =
        both ? n.In("r", {2, 3, 1}, {0, 0, 2, 0, 0, 2}) : n.In("r", {1, 3, 1}, {0, 0, 2});
    MLGruOptions o;
    o.bias = both ? n.In("b", {2, 3}, {0, 1, 0, 0, 1, 0}) : n.In("b", {1, 3}, {0, 1, 0});
    if (with_h0) o.initialHiddenState = n.In("h0", {1, 1, 1}, {0.5f});
    o.direction = dir;
    o.returnSequence = true;
    o.activations = kRelu2;
    const std::vector<Operand> outs = Gru(n.b, x, w, r, 2, 1, o);
    REQUIRE(outs.size() == 2);
    CHECK(n.b.Desc(outs[1]).shape == Shape{2, both ? 2u : 1u, 1, 1});
    return n.Run(outs);
  };
  auto fwd = run(MLRecurrentNetworkDirection::kForward, false);
  CHECK(fwd[0] == std::vector<double>{4});
  CHECK(fwd[1] == std::vector<double>{1, 4});
  auto bwd = run(MLRecurrentNetworkDirection::kBackward, false);
  CHECK(bwd[0] == std::vector<double>{5});
  CHECK(bwd[1] == std::vector<double>{5, 2});
  auto both = run(MLRecurrentNetworkDirection::kBoth, false);
  CHECK(both[0] == std::vector<double>{4, 5});
  CHECK(both[1] == std::vector<double>{1, 5, 4, 2});           // [step][direction]
  auto h0 = run(MLRecurrentNetworkDirection::kForward, true);  // 1 + 1 = 2, 2 + 4 = 6
  CHECK(h0[0] == std::vector<double>{6});
  CHECK(h0[1] == std::vector<double>{2, 6});
}

TEST_CASE("gru: without returnSequence one output") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {3, 2, 4}});
  const Operand w = b.Input("w", {DataType::kFloat32, {1, 15, 4}});
  const Operand r = b.Input("r", {DataType::kFloat32, {1, 15, 5}});
  const std::vector<Operand> outs = Gru(b, x, w, r, 3, 5);
  REQUIRE(outs.size() == 1);
  CHECK(b.Desc(outs[0]).shape == Shape{1, 2, 5});
  CHECK(b.operators().back().tolerance.size == 3 * (4 + 5 + 46));
}

TEST_CASE("lstmCell: hidden size 1 by hand (relu), layouts and the spec's peephole") {
  // x = 1, h = 0, c = 4, weights i 0.5, o 1, f 0.25, g 2: i = 0.5, o = 1, f = 0.25, g = 2,
  // c' = 0.25 * 4 + 0.5 * 2 = 2, h' = 1 * relu(2) = 2 (both layouts).
  for (const MLLstmWeightLayout layout : {MLLstmWeightLayout::kIofg, MLLstmWeightLayout::kIfgo}) {
    Net n;
    const Operand x = n.In("x", {1, 1}, {1});
    const Operand w = layout == MLLstmWeightLayout::kIofg ? n.In("w", {4, 1}, {0.5f, 1, 0.25f, 2})
                                                          : n.In("w", {4, 1}, {0.5f, 0.25f, 2, 1});
    const Operand r = n.In("r", {4, 1}, {0, 0, 0, 0});
    const Operand h = n.In("h", {1, 1}, {0});
    const Operand c = n.In("c", {1, 1}, {4});
    MLLstmCellOptions o;
    o.layout = layout;
    o.activations = kRelu3;
    const auto r2 = n.Run(LstmCell(n.b, x, w, r, h, c, 1, o));
    CHECK(r2[0] == std::vector<double>{2});
    CHECK(r2[1] == std::vector<double>{2});
  }
  // Peephole [i 0.125, o 0.5, f 0] with the incoming c = 4 (spec-notes #12): i = 1, f = 0.25,
  // o = 4 * 0.5 + 1 = 3; c' = 0.25 * 4 + 1 * 2 = 3, h' = 3 * 3 = 9. (With the new cell state,
  // as ONNX does, o would be 2.5 and h' 7.5.)
  Net n;
  const Operand x = n.In("x", {1, 1}, {1});
  const Operand w = n.In("w", {4, 1}, {0.5f, 1, 0.25f, 2});
  const Operand r = n.In("r", {4, 1}, {0, 0, 0, 0});
  const Operand h = n.In("h", {1, 1}, {0});
  const Operand c = n.In("c", {1, 1}, {4});
  MLLstmCellOptions o;
  o.peepholeWeight = n.In("p", {3}, {0.125f, 0.5f, 0});
  o.activations = kRelu3;
  const auto r2 = n.Run(LstmCell(n.b, x, w, r, h, c, 1, o));
  CHECK(r2[0] == std::vector<double>{9});
  CHECK(r2[1] == std::vector<double>{3});
}

TEST_CASE("lstmCell: zero weights give c' = c / 2, h' = tanh(c / 2) / 2") {
  Net n;
  const Operand x = n.In("x", {1, 2}, {5, -5});
  const Operand w = n.In("w", {4, 2}, {0, 0, 0, 0, 0, 0, 0, 0});
  const Operand r = n.In("r", {4, 1}, {0, 0, 0, 0});
  const Operand h = n.In("h", {1, 1}, {7});
  const Operand c = n.In("c", {1, 1}, {2});
  const auto r2 = n.Run(LstmCell(n.b, x, w, r, h, c, 1));
  CHECK(r2[0] == std::vector<double>{static_cast<float>(0.5 * std::tanh(1.0))});
  CHECK(r2[1] == std::vector<double>{1});
}

TEST_CASE("lstm: c_t = c_(t-1) + x_t over two steps, every direction") {
  // i = o = f = 1 (bias i, o; recurrentBias f), g = relu(x), relu filters: c_t = c + x_t,
  // h_t = c_t. x = [1, 2]: forward c 1, 3; backward c 2 (slice 1), 3 (slice 0).
  auto run = [](MLRecurrentNetworkDirection dir) {
    Net n;
    const bool both = dir == MLRecurrentNetworkDirection::kBoth;
    const Operand x = n.In("x", {2, 1, 1}, {1, 2});
    const Operand w =
        both ? n.In("w", {2, 4, 1}, {0, 0, 0, 1, 0, 0, 0, 1}) : n.In("w", {1, 4, 1}, {0, 0, 0, 1});
    const Operand r =
        both ? n.In("r", {2, 4, 1}, {0, 0, 0, 0, 0, 0, 0, 0}) : n.In("r", {1, 4, 1}, {0, 0, 0, 0});
    MLLstmOptions o;
    o.bias = both ? n.In("b", {2, 4}, {1, 1, 0, 0, 1, 1, 0, 0}) : n.In("b", {1, 4}, {1, 1, 0, 0});
    o.recurrentBias =
        both ? n.In("rb", {2, 4}, {0, 0, 1, 0, 0, 0, 1, 0}) : n.In("rb", {1, 4}, {0, 0, 1, 0});
    o.direction = dir;
    o.returnSequence = true;
    o.activations = kRelu3;
    const std::vector<Operand> outs = Lstm(n.b, x, w, r, 2, 1, o);
    REQUIRE(outs.size() == 3);
    return n.Run(outs);
  };
  auto fwd = run(MLRecurrentNetworkDirection::kForward);
  CHECK(fwd[0] == std::vector<double>{3});
  CHECK(fwd[1] == std::vector<double>{3});
  CHECK(fwd[2] == std::vector<double>{1, 3});
  auto bwd = run(MLRecurrentNetworkDirection::kBackward);
  CHECK(bwd[2] == std::vector<double>{3, 2});
  auto both = run(MLRecurrentNetworkDirection::kBoth);
  CHECK(both[0] == std::vector<double>{3, 3});
  CHECK(both[2] == std::vector<double>{1, 3, 3, 2});
}

TEST_CASE("lstm: initial states, two outputs without returnSequence") {
  // Zero weights: c' = c / 2, h' = tanh(c') / 2 per step; with c0 = 4 and one step: c = 2.
  Net n;
  const Operand x = n.In("x", {1, 1, 1}, {9});
  const Operand w = n.In("w", {1, 4, 1}, {0, 0, 0, 0});
  const Operand r = n.In("r", {1, 4, 1}, {0, 0, 0, 0});
  MLLstmOptions o;
  o.initialHiddenState = n.In("h0", {1, 1, 1}, {3});
  o.initialCellState = n.In("c0", {1, 1, 1}, {4});
  const std::vector<Operand> outs = Lstm(n.b, x, w, r, 1, 1, o);
  REQUIRE(outs.size() == 2);
  const auto v = n.Run(outs);
  CHECK(v[0] == std::vector<double>{static_cast<float>(0.5 * std::tanh(2.0))});
  CHECK(v[1] == std::vector<double>{2});
}

TEST_CASE("gru float16: one templated kernel serves float16") {
  // Zero weights: z = 0.5, n = tanh(0) = 0, so h' = h0 / 2 = 0.375.
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat16, {1, 1, 1}});
  const Operand w = b.Input("w", {DataType::kFloat16, {1, 3, 1}});
  const Operand r = b.Input("r", {DataType::kFloat16, {1, 3, 1}});
  MLGruOptions o;
  o.initialHiddenState = b.Input("h0", {DataType::kFloat16, {1, 1, 1}});
  const Operand out = Gru(b, x, w, r, 1, 1, o)[0];
  auto f16 = [](const Shape& s, double v) {
    Tensor t = Tensor::Allocate(DataType::kFloat16, s);
    for (uint64_t i = 0; i < t.element_count(); ++i) t.base<Float16>()[i] = Float16::FromDouble(v);
    return t;
  };
  const auto values = b.Build({{"o", out}})
                          ->Compute({{"x", f16({1, 1, 1}, 1)},
                                     {"w", f16({1, 3, 1}, 0)},
                                     {"r", f16({1, 3, 1}, 0)},
                                     {"h0", f16({1, 1, 1}, 0.75)}});
  CHECK(Values(values.at("o").data) == std::vector<double>{0.375});
}

TEST_CASE("gru validation: every method step") {
  GraphBuilder b;
  auto in = [&](const std::string& name, const Shape& s, DataType t = DataType::kFloat32) {
    return b.Input(name, {t, s});
  };
  const Operand x = in("x", {2, 1, 3});
  const Operand w = in("w", {1, 6, 3});
  const Operand r = in("r", {1, 6, 2});
  GraphBuilder other;
  const Operand foreign = other.Input("z", {DataType::kFloat32, {1, 6}});
  CHECK_NOTHROW(Gru(b, x, w, r, 2, 2));
  MLGruOptions o;
  o.bias = foreign;  // step 2
  CHECK(ErrorOf([&] { Gru(b, x, w, r, 2, 2, o); }) == ErrorType::kTypeError);
  const Operand xi = in("xi", {2, 1, 3}, DataType::kInt32);  // step 3
  CHECK(ErrorOf([&] { Gru(b, xi, w, r, 2, 2); }) == ErrorType::kTypeError);
  const Operand wh = in("wh", {1, 6, 3}, DataType::kFloat16);
  CHECK(ErrorOf([&] { Gru(b, x, wh, r, 2, 2); }) == ErrorType::kTypeError);
  const Operand x2 = in("x2", {2, 3});  // step 4
  CHECK(ErrorOf([&] { Gru(b, x2, w, r, 2, 2); }) == ErrorType::kTypeError);
  CHECK(ErrorOf([&] { Gru(b, x, w, r, 3, 2); }) == ErrorType::kTypeError);  // step 5
  MLGruOptions both;  // step 9: direction both needs numDirections 2
  both.direction = MLRecurrentNetworkDirection::kBoth;
  CHECK(ErrorOf([&] { Gru(b, x, w, r, 2, 2, both); }) == ErrorType::kTypeError);
  const Operand w4 = in("w4", {1, 6, 4});
  CHECK(ErrorOf([&] { Gru(b, x, w4, r, 2, 2); }) == ErrorType::kTypeError);
  const Operand r3 = in("r3", {1, 6, 3});  // step 10
  CHECK(ErrorOf([&] { Gru(b, x, w, r3, 2, 2); }) == ErrorType::kTypeError);
  // hiddenSize 0: step 9 already rejects it (3 * 0 is no valid weight dimension). Step 11 alone
  // is unreachable: a recurrentWeight whose 3 * hiddenSize is valid but 6 * hiddenSize is not
  // would have more than 2^31 elements and cannot be created.
  CHECK(ErrorOf([&] { Gru(b, x, w, r, 2, 0); }) == ErrorType::kTypeError);
  MLGruOptions ob;  // step 12
  ob.bias = in("b5", {1, 5});
  CHECK(ErrorOf([&] { Gru(b, x, w, r, 2, 2, ob); }) == ErrorType::kTypeError);
  ob.bias = in("bh", {1, 6}, DataType::kFloat16);
  CHECK(ErrorOf([&] { Gru(b, x, w, r, 2, 2, ob); }) == ErrorType::kTypeError);
  MLGruOptions orb;  // step 13
  orb.recurrentBias = in("rb", {6});
  CHECK(ErrorOf([&] { Gru(b, x, w, r, 2, 2, orb); }) == ErrorType::kTypeError);
  MLGruOptions oh;  // step 14
  oh.initialHiddenState = in("h0", {1, 2, 2});
  CHECK(ErrorOf([&] { Gru(b, x, w, r, 2, 2, oh); }) == ErrorType::kTypeError);
  MLGruOptions oa;  // step 15
  oa.activations = kRelu3;
  CHECK(ErrorOf([&] { Gru(b, x, w, r, 2, 2, oa); }) == ErrorType::kTypeError);
  b.Build({{"out", Gru(b, x, w, r, 2, 2)[0]}});  // step 1
  CHECK(ErrorOf([&] { Gru(b, x, w, r, 2, 2); }) == ErrorType::kInvalidStateError);
}

TEST_CASE("gruCell validation: every method step") {
  GraphBuilder b;
  auto in = [&](const std::string& name, const Shape& s, DataType t = DataType::kFloat32) {
    return b.Input(name, {t, s});
  };
  const Operand x = in("x", {1, 3});
  const Operand w = in("w", {6, 3});
  const Operand r = in("r", {6, 2});
  const Operand h = in("h", {1, 2});
  GraphBuilder other;
  const Operand foreign = other.Input("z", {DataType::kFloat32, {1, 2}});
  CHECK_NOTHROW(GruCell(b, x, w, r, h, 2));
  CHECK(ErrorOf([&] { GruCell(b, x, w, r, foreign, 2); }) == ErrorType::kTypeError);  // step 2
  const Operand hh = in("hh", {1, 2}, DataType::kFloat16);                            // step 3
  CHECK(ErrorOf([&] { GruCell(b, x, w, r, hh, 2); }) == ErrorType::kTypeError);
  const Operand h3 = in("h3", {1, 1, 2});  // step 4
  CHECK(ErrorOf([&] { GruCell(b, x, w, r, h3, 2); }) == ErrorType::kTypeError);
  const Operand w4 = in("w4", {6, 4});  // step 7
  CHECK(ErrorOf([&] { GruCell(b, x, w4, r, h, 2); }) == ErrorType::kTypeError);
  const Operand r3 = in("r3", {6, 3});  // step 8
  CHECK(ErrorOf([&] { GruCell(b, x, w, r3, h, 2); }) == ErrorType::kTypeError);
  const Operand h22 = in("h22", {2, 2});  // step 9
  CHECK(ErrorOf([&] { GruCell(b, x, w, r, h22, 2); }) == ErrorType::kTypeError);
  CHECK(ErrorOf([&] { GruCell(b, x, w, r, h, 0); }) == ErrorType::kTypeError);  // 7/10
  MLGruCellOptions ob;                                                          // step 11
  ob.bias = in("b", {1, 6});
  CHECK(ErrorOf([&] { GruCell(b, x, w, r, h, 2, ob); }) == ErrorType::kTypeError);
  MLGruCellOptions orb;  // step 12
  orb.recurrentBias = in("rb", {6}, DataType::kFloat16);
  CHECK(ErrorOf([&] { GruCell(b, x, w, r, h, 2, orb); }) == ErrorType::kTypeError);
  MLGruCellOptions oa;  // step 13
  oa.activations = std::vector<Act>{Act::kSigmoid};
  CHECK(ErrorOf([&] { GruCell(b, x, w, r, h, 2, oa); }) == ErrorType::kTypeError);
  b.Build({{"out", GruCell(b, x, w, r, h, 2)}});  // step 1
  CHECK(ErrorOf([&] { GruCell(b, x, w, r, h, 2); }) == ErrorType::kInvalidStateError);
}

TEST_CASE("lstm validation: every method step") {
  GraphBuilder b;
  auto in = [&](const std::string& name, const Shape& s, DataType t = DataType::kFloat32) {
    return b.Input(name, {t, s});
  };
  const Operand x = in("x", {2, 1, 3});
  const Operand w = in("w", {1, 8, 3});
  const Operand r = in("r", {1, 8, 2});
  GraphBuilder other;
  const Operand foreign = other.Input("z", {DataType::kFloat32, {1, 6}});
  CHECK_NOTHROW(Lstm(b, x, w, r, 2, 2));
  MLLstmOptions of;  // step 2
  of.peepholeWeight = foreign;
  CHECK(ErrorOf([&] { Lstm(b, x, w, r, 2, 2, of); }) == ErrorType::kTypeError);
  const Operand rh = in("rh", {1, 8, 2}, DataType::kFloat16);  // step 4
  CHECK(ErrorOf([&] { Lstm(b, x, w, rh, 2, 2); }) == ErrorType::kTypeError);
  const Operand w2 = in("w2", {8, 3});  // step 5
  CHECK(ErrorOf([&] { Lstm(b, x, w2, r, 2, 2); }) == ErrorType::kTypeError);
  CHECK(ErrorOf([&] { Lstm(b, x, w, r, 0, 2); }) == ErrorType::kTypeError);  // step 6
  CHECK(ErrorOf([&] { Lstm(b, x, w, r, 1, 2); }) == ErrorType::kTypeError);  // step 7
  const Operand w6 = in("w6", {1, 6, 3});                                    // step 10
  CHECK(ErrorOf([&] { Lstm(b, x, w6, r, 2, 2); }) == ErrorType::kTypeError);
  MLLstmOptions both;  // steps 3 and 10: numDirections 2
  both.direction = MLRecurrentNetworkDirection::kBoth;
  CHECK(ErrorOf([&] { Lstm(b, x, w, r, 2, 2, both); }) == ErrorType::kTypeError);
  const Operand r3 = in("r3", {1, 8, 3});  // step 11
  CHECK(ErrorOf([&] { Lstm(b, x, w, r3, 2, 2); }) == ErrorType::kTypeError);
  CHECK(ErrorOf([&] { Lstm(b, x, w, r, 2, 0); }) == ErrorType::kTypeError);  // 10/12
  MLLstmOptions ob;                                                          // step 13
  ob.bias = in("b", {1, 6});
  CHECK(ErrorOf([&] { Lstm(b, x, w, r, 2, 2, ob); }) == ErrorType::kTypeError);
  MLLstmOptions orb;  // step 14
  orb.recurrentBias = in("rb", {2, 8});
  CHECK(ErrorOf([&] { Lstm(b, x, w, r, 2, 2, orb); }) == ErrorType::kTypeError);
  MLLstmOptions op;  // step 15
  op.peepholeWeight = in("p", {1, 8});
  CHECK(ErrorOf([&] { Lstm(b, x, w, r, 2, 2, op); }) == ErrorType::kTypeError);
  MLLstmOptions oh;  // step 16
  oh.initialHiddenState = in("h0", {1, 1, 2}, DataType::kFloat16);
  CHECK(ErrorOf([&] { Lstm(b, x, w, r, 2, 2, oh); }) == ErrorType::kTypeError);
  MLLstmOptions oc;  // step 17
  oc.initialCellState = in("c0", {1, 2});
  CHECK(ErrorOf([&] { Lstm(b, x, w, r, 2, 2, oc); }) == ErrorType::kTypeError);
  MLLstmOptions oa;  // step 18
  oa.activations = kRelu2;
  CHECK(ErrorOf([&] { Lstm(b, x, w, r, 2, 2, oa); }) == ErrorType::kTypeError);
  b.Build({{"out", Lstm(b, x, w, r, 2, 2)[0]}});  // step 1
  CHECK(ErrorOf([&] { Lstm(b, x, w, r, 2, 2); }) == ErrorType::kInvalidStateError);
}

TEST_CASE("lstmCell validation: every method step") {
  GraphBuilder b;
  auto in = [&](const std::string& name, const Shape& s, DataType t = DataType::kFloat32) {
    return b.Input(name, {t, s});
  };
  const Operand x = in("x", {1, 3});
  const Operand w = in("w", {8, 3});
  const Operand r = in("r", {8, 2});
  const Operand h = in("h", {1, 2});
  const Operand c = in("c", {1, 2});
  GraphBuilder other;
  const Operand foreign = other.Input("z", {DataType::kFloat32, {1, 2}});
  CHECK_NOTHROW(LstmCell(b, x, w, r, h, c, 2));
  CHECK(ErrorOf([&] { LstmCell(b, x, w, r, h, foreign, 2); }) == ErrorType::kTypeError);  // 2
  const Operand ch = in("ch", {1, 2}, DataType::kFloat16);                                // step 3
  CHECK(ErrorOf([&] { LstmCell(b, x, w, r, h, ch, 2); }) == ErrorType::kTypeError);
  const Operand c1 = in("c1", {2});  // step 4
  CHECK(ErrorOf([&] { LstmCell(b, x, w, r, h, c1, 2); }) == ErrorType::kTypeError);
  const Operand w4 = in("w4", {8, 4});  // step 7
  CHECK(ErrorOf([&] { LstmCell(b, x, w4, r, h, c, 2); }) == ErrorType::kTypeError);
  const Operand r1 = in("r1", {8, 1});  // step 8
  CHECK(ErrorOf([&] { LstmCell(b, x, w, r1, h, c, 2); }) == ErrorType::kTypeError);
  const Operand h3 = in("h3", {1, 3});  // step 9
  CHECK(ErrorOf([&] { LstmCell(b, x, w, r, h3, c, 2); }) == ErrorType::kTypeError);
  const Operand c21 = in("c21", {2, 2});  // step 10
  CHECK(ErrorOf([&] { LstmCell(b, x, w, r, h, c21, 2); }) == ErrorType::kTypeError);
  CHECK(ErrorOf([&] { LstmCell(b, x, w, r, h, c, 0); }) == ErrorType::kTypeError);  // 7/11
  MLLstmCellOptions ob;                                                             // step 12
  ob.bias = in("b", {6});
  CHECK(ErrorOf([&] { LstmCell(b, x, w, r, h, c, 2, ob); }) == ErrorType::kTypeError);
  MLLstmCellOptions orb;  // step 13
  orb.recurrentBias = in("rb", {8}, DataType::kFloat16);
  CHECK(ErrorOf([&] { LstmCell(b, x, w, r, h, c, 2, orb); }) == ErrorType::kTypeError);
  MLLstmCellOptions op;  // step 14
  op.peepholeWeight = in("p", {8});
  CHECK(ErrorOf([&] { LstmCell(b, x, w, r, h, c, 2, op); }) == ErrorType::kTypeError);
  MLLstmCellOptions oa;  // step 15
  oa.activations = std::vector<Act>{Act::kTanh, Act::kTanh, Act::kTanh, Act::kTanh};
  CHECK(ErrorOf([&] { LstmCell(b, x, w, r, h, c, 2, oa); }) == ErrorType::kTypeError);
  b.Build({{"out", LstmCell(b, x, w, r, h, c, 2)[0]}});  // step 1
  CHECK(ErrorOf([&] { LstmCell(b, x, w, r, h, c, 2); }) == ErrorType::kInvalidStateError);
}

}  // namespace nnref
