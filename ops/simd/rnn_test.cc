// Tests of the simd backend's recurrent family (gru, gruCell, lstm, lstmCell) on every compiled
// Highway target, 1 and 2 threads (bit-identical), against plain double recurrences written here
// from the spec's cell definitions (independent of the kernels and of the reference's code).
#include "ops/rnn.h"

#include <doctest/doctest.h>
#include <hwy/targets.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "numerics/float16.h"
#include "ops/backend.h"
#include "ops/simd/simd_backend.h"

namespace nnref {
namespace {

using Act = MLRecurrentNetworkActivation;
using Dir = MLRecurrentNetworkDirection;

// Deterministic values in [-scale, scale], float16-representable multiples of 1/64.
std::vector<double> Values(size_t n, uint64_t seed, double scale = 1.0) {
  std::vector<double> v(n);
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 7;
  for (size_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const auto q = static_cast<int64_t>((s >> 33) % 129) - 64;  // [-64, 64]
    v[i] = scale * static_cast<double>(q) / 64.0;
  }
  return v;
}

Tensor MakeTensor(DataType type, const Shape& shape, const std::vector<double>& v) {
  Tensor t = Tensor::Allocate(type, shape);
  for (size_t i = 0; i < v.size(); ++i) {
    if (type == DataType::kFloat16) {
      t.base<Float16>()[i] = Float16::FromDouble(v[i]);
    } else {
      t.base<float>()[i] = static_cast<float>(v[i]);
    }
  }
  return t;
}

std::vector<double> Read(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.element_count()));
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = t.dtype() == DataType::kFloat16 ? t.At<Float16>(i).ToDouble()
                                           : static_cast<double>(t.At<float>(i));
  }
  return v;
}

double Apply(Act a, double x) {
  switch (a) {
    case Act::kRelu:
      return std::max(x, 0.0);
    case Act::kSigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case Act::kTanh:
      return std::tanh(x);
  }
  return x;
}

// sum over k of v[k] * m[row * n + k].
double RowDot(const std::vector<double>& v, size_t v0, const std::vector<double>& m, size_t row,
              size_t n) {
  double s = 0;
  for (size_t k = 0; k < n; ++k) s += v[v0 + k] * m[row * n + k];
  return s;
}

// One network's problem: operands as doubles (row-major), its options, and the expected outputs.
struct Problem {
  bool lstm = false;
  size_t steps = 3, batch = 2, input = 3, hidden = 4;
  Dir dir = Dir::kForward;
  bool reset_after = true, gru_rzn = false, lstm_ifgo = false, sequence = false;
  bool bias = true, rbias = true, peep = true, init = true;
  std::vector<Act> acts;
  DataType type = DataType::kFloat32;
};

size_t Dirs(const Problem& p) { return p.dir == Dir::kBoth ? 2 : 1; }

// The expected outputs in double, by name: "h" (and "c"), "s" with returnSequence.
std::map<std::string, std::vector<double>> Expect(const Problem& p,
                                                  std::map<std::string, std::vector<double>>& v) {
  const size_t dirs = Dirs(p), hs = p.hidden, g = p.lstm ? 4 : 3, state = p.batch * hs;
  std::map<std::string, std::vector<double>> e;
  e["h"].assign(dirs * state, 0);
  if (p.lstm) e["c"].assign(dirs * state, 0);
  if (p.sequence) e["s"].assign(p.steps * dirs * state, 0);
  for (size_t d = 0; d < dirs; ++d) {
    const bool back = d == 1 || p.dir == Dir::kBackward;
    std::vector<double> h(state, 0), c(state, 0);
    if (p.init) {
      for (size_t i = 0; i < state; ++i) h[i] = v["h0"][d * state + i];
      if (p.lstm) {
        for (size_t i = 0; i < state; ++i) c[i] = v["c0"][d * state + i];
      }
    }
    // Per direction slices of the weights.
    const std::vector<double> w(v["w"].begin() + long(d * g * hs * p.input),
                                v["w"].begin() + long((d + 1) * g * hs * p.input));
    const std::vector<double> r(v["r"].begin() + long(d * g * hs * hs),
                                v["r"].begin() + long((d + 1) * g * hs * hs));
    auto bias = [&](const char* name, size_t row) {
      return v.count(name) ? v[name][d * g * hs + row] : 0.0;
    };
    for (size_t s = 0; s < p.steps; ++s) {
      const size_t t = back ? p.steps - 1 - s : s;
      std::vector<double> hn(state), cn(state);
      for (size_t n = 0; n < p.batch; ++n) {
        const size_t x0 = (t * p.batch + n) * p.input, h0 = n * hs;
        // Gate `k` of the layout's order, unit j: x·W + h·R + biases.
        auto gate = [&](size_t block, size_t j, const std::vector<double>& hv) {
          const size_t row = block * hs + j;
          return RowDot(v["x"], x0, w, row, p.input) + RowDot(hv, h0, r, row, hs) + bias("b", row) +
                 bias("rb", row);
        };
        if (!p.lstm) {
          const size_t zb = p.gru_rzn ? 1 : 0, rbk = p.gru_rzn ? 0 : 1;
          std::vector<double> rh(state, 0);
          std::vector<double> rg(hs);
          for (size_t j = 0; j < hs; ++j) {
            rg[j] = Apply(p.acts[0], gate(rbk, j, h));
            rh[h0 + j] = rg[j] * h[h0 + j];
          }
          for (size_t j = 0; j < hs; ++j) {
            const double z = Apply(p.acts[0], gate(zb, j, h));
            double pre;
            if (p.reset_after) {
              const size_t row = 2 * hs + j;
              pre = RowDot(v["x"], x0, w, row, p.input) + bias("b", row) +
                    rg[j] * (RowDot(h, h0, r, row, hs) + bias("rb", row));
            } else {
              pre = gate(2, j, rh);
            }
            const double nn = Apply(p.acts[1], pre);
            hn[h0 + j] = (1 - z) * nn + z * h[h0 + j];
          }
        } else {
          // Blocks of the layout: iofg or ifgo.
          const size_t ib = 0, ob = p.lstm_ifgo ? 3 : 1, fb = p.lstm_ifgo ? 1 : 2,
                       gb = p.lstm_ifgo ? 2 : 3;
          auto ph = [&](size_t k, size_t j) {
            return p.peep ? v["p"][d * 3 * hs + k * hs + j] : 0.0;
          };
          for (size_t j = 0; j < hs; ++j) {
            const double cc = c[h0 + j];
            const double i = Apply(p.acts[0], gate(ib, j, h) + ph(0, j) * cc);
            const double f = Apply(p.acts[0], gate(fb, j, h) + ph(2, j) * cc);
            const double o = Apply(p.acts[0], gate(ob, j, h) + ph(1, j) * cc);
            const double gg = Apply(p.acts[1], gate(gb, j, h));
            cn[h0 + j] = f * cc + i * gg;
            hn[h0 + j] = o * Apply(p.acts[2], cn[h0 + j]);
          }
        }
      }
      h = hn;
      c = cn;
      if (p.sequence) {
        for (size_t i = 0; i < state; ++i) e["s"][(t * dirs + d) * state + i] = h[i];
      }
    }
    for (size_t i = 0; i < state; ++i) e["h"][d * state + i] = h[i];
    if (p.lstm) {
      for (size_t i = 0; i < state; ++i) e["c"][d * state + i] = c[i];
    }
  }
  return e;
}

std::map<std::string, Tensor> RunSimd(const Graph& graph,
                                      const std::map<std::string, Tensor>& inputs,
                                      unsigned threads) {
  std::string why;
  const auto compiled = CompileForBackend(graph, MakeSimdBackend({threads}), why);
  REQUIRE_MESSAGE(compiled.has_value(), why);
  std::map<std::string, Tensor> out;
  for (auto& [name, value] : graph.Compute(inputs, {}, compiled->kernels)) out[name] = value.data;
  return out;
}

// Builds the network (the cell operator when `cell`, which needs steps 1 and one direction),
// runs it on every target with 1 and 2 threads and checks the outputs.
void Check(const Problem& p, bool cell = false) {
  const size_t dirs = Dirs(p), hs = p.hidden, g = p.lstm ? 4 : 3;
  const Shape dshape = cell ? Shape{} : Shape{dirs};
  auto with = [&](Shape tail) {
    Shape s = dshape;
    s.insert(s.end(), tail.begin(), tail.end());
    return s;
  };
  std::map<std::string, Shape> shapes = {
      {"x", cell ? Shape{p.batch, p.input} : Shape{p.steps, p.batch, p.input}},
      {"w", with({g * hs, p.input})},
      {"r", with({g * hs, hs})}};
  if (p.bias) shapes["b"] = with({g * hs});
  if (p.rbias) shapes["rb"] = with({g * hs});
  if (p.lstm && p.peep) shapes["p"] = with({3 * hs});
  if (p.init || cell) {
    shapes["h0"] = with({p.batch, hs});
    if (p.lstm) shapes["c0"] = with({p.batch, hs});
  }
  std::map<std::string, std::vector<double>> values;
  std::map<std::string, Tensor> inputs;
  uint64_t seed = 1;
  GraphBuilder b;
  std::map<std::string, Operand> ops;
  for (const auto& [name, shape] : shapes) {
    const double scale = name == "x" || name == "h0" || name == "c0" ? 1.0 : 0.75;
    values[name] = Values(static_cast<size_t>(ElementCount(shape)), seed++, scale);
    inputs[name] = MakeTensor(p.type, shape, values[name]);
    ops.emplace(name, b.Input(name, {p.type, shape}));
    // The inputs are what the tensors hold (float16 rounding is exact for these values).
    values[name] = Read(inputs[name]);
  }
  Problem q = p;
  q.init = p.init || cell;
  const auto expected = Expect(q, values);
  auto opt = [&](const char* name) -> std::optional<Operand> {
    if (!ops.count(name)) return std::nullopt;
    return ops.at(name);
  };
  std::vector<std::pair<std::string, Operand>> outs;
  if (!p.lstm) {
    if (cell) {
      MLGruCellOptions o;
      o.bias = opt("b");
      o.recurrentBias = opt("rb");
      o.resetAfter = p.reset_after;
      o.layout = p.gru_rzn ? MLGruWeightLayout::kRzn : MLGruWeightLayout::kZrn;
      o.activations = p.acts;
      outs.push_back({"h", GruCell(b, ops.at("x"), ops.at("w"), ops.at("r"), ops.at("h0"),
                                   static_cast<uint32_t>(hs), o)});
    } else {
      MLGruOptions o;
      o.bias = opt("b");
      o.recurrentBias = opt("rb");
      o.initialHiddenState = opt("h0");
      o.resetAfter = p.reset_after;
      o.returnSequence = p.sequence;
      o.direction = p.dir;
      o.layout = p.gru_rzn ? MLGruWeightLayout::kRzn : MLGruWeightLayout::kZrn;
      o.activations = p.acts;
      const auto r = Gru(b, ops.at("x"), ops.at("w"), ops.at("r"), static_cast<uint32_t>(p.steps),
                         static_cast<uint32_t>(hs), o);
      outs.push_back({"h", r[0]});
      if (p.sequence) outs.push_back({"s", r[1]});
    }
  } else {
    const auto layout = p.lstm_ifgo ? MLLstmWeightLayout::kIfgo : MLLstmWeightLayout::kIofg;
    if (cell) {
      MLLstmCellOptions o;
      o.bias = opt("b");
      o.recurrentBias = opt("rb");
      o.peepholeWeight = opt("p");
      o.layout = layout;
      o.activations = p.acts;
      const auto r = LstmCell(b, ops.at("x"), ops.at("w"), ops.at("r"), ops.at("h0"), ops.at("c0"),
                              static_cast<uint32_t>(hs), o);
      outs = {{"h", r[0]}, {"c", r[1]}};
    } else {
      MLLstmOptions o;
      o.bias = opt("b");
      o.recurrentBias = opt("rb");
      o.peepholeWeight = opt("p");
      o.initialHiddenState = opt("h0");
      o.initialCellState = opt("c0");
      o.returnSequence = p.sequence;
      o.direction = p.dir;
      o.layout = layout;
      o.activations = p.acts;
      const auto r = Lstm(b, ops.at("x"), ops.at("w"), ops.at("r"), static_cast<uint32_t>(p.steps),
                          static_cast<uint32_t>(hs), o);
      outs = {{"h", r[0]}, {"c", r[1]}};
      if (p.sequence) outs.push_back({"s", r[2]});
    }
  }
  const auto graph = b.Build(outs);
  // float32 state and arithmetic: a few float32 roundings per step; float16 outputs add their
  // own rounding.
  const double unit = p.type == DataType::kFloat16 ? std::ldexp(1.0, -11) : 0.0;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string target_name = hwy::TargetName(target);
    INFO("target " << target_name);
    const auto y1 = RunSimd(*graph, inputs, 1), y2 = RunSimd(*graph, inputs, 2);
    for (const auto& [name, want] : expected) {
      INFO("output " << name);
      const std::vector<double> got = Read(y1.at(name)), got2 = Read(y2.at(name));
      REQUIRE(got.size() == want.size());
      size_t bad = 0;
      for (size_t i = 0; i < got.size(); ++i) {
        const double bound = unit * std::fabs(want[i]) + 2e-6 * (1 + std::fabs(want[i]));
        if (!(std::fabs(got[i] - want[i]) <= bound)) {
          if (bad++ < 3) MESSAGE("element " << i << ": " << got[i] << " vs " << want[i]);
        }
      }
      CHECK(bad == 0);
      CHECK(got == got2);
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST_CASE("simd gru: directions, layouts, resetAfter, sequences, options") {
  for (Dir dir : {Dir::kForward, Dir::kBackward, Dir::kBoth}) {
    for (bool reset_after : {true, false}) {
      Problem p;
      p.dir = dir;
      p.reset_after = reset_after;
      p.sequence = true;
      p.acts = {Act::kSigmoid, Act::kTanh};
      Check(p);
      p.gru_rzn = true;
      p.bias = p.init = false;
      p.sequence = false;
      p.acts = {Act::kTanh, Act::kRelu};
      Check(p);
    }
  }
  Problem wide;  // several GEMM tiles and batch-row tasks: 2 threads really split the work
  wide.steps = 5;
  wide.batch = 64;
  wide.input = 13;
  wide.hidden = 40;
  wide.dir = Dir::kBoth;
  wide.acts = {Act::kSigmoid, Act::kTanh};
  Check(wide);
  Problem half;
  half.type = DataType::kFloat16;
  half.dir = Dir::kBoth;
  half.sequence = true;
  half.acts = {Act::kSigmoid, Act::kTanh};
  Check(half);
}

TEST_CASE("simd gruCell") {
  for (bool reset_after : {true, false}) {
    Problem p;
    p.steps = 1;
    p.reset_after = reset_after;
    p.acts = {Act::kSigmoid, Act::kTanh};
    Check(p, true);
    p.gru_rzn = true;
    p.rbias = false;
    p.type = DataType::kFloat16;
    Check(p, true);
  }
}

TEST_CASE("simd lstm: directions, layouts, peepholes, sequences, options") {
  for (Dir dir : {Dir::kForward, Dir::kBackward, Dir::kBoth}) {
    Problem p;
    p.lstm = true;
    p.dir = dir;
    p.sequence = true;
    p.acts = {Act::kSigmoid, Act::kTanh, Act::kTanh};
    Check(p);
    p.lstm_ifgo = true;
    p.peep = p.init = p.rbias = false;
    p.sequence = false;
    p.acts = {Act::kTanh, Act::kRelu, Act::kSigmoid};
    Check(p);
  }
  Problem wide;
  wide.lstm = true;
  wide.steps = 4;
  wide.batch = 50;
  wide.input = 11;
  wide.hidden = 33;
  wide.dir = Dir::kBoth;
  wide.sequence = true;
  wide.acts = {Act::kSigmoid, Act::kTanh, Act::kTanh};
  Check(wide);
  Problem half;
  half.lstm = true;
  half.type = DataType::kFloat16;
  half.dir = Dir::kBackward;
  half.lstm_ifgo = true;
  half.acts = {Act::kSigmoid, Act::kTanh, Act::kTanh};
  Check(half);
}

TEST_CASE("simd lstmCell") {
  Problem p;
  p.lstm = true;
  p.steps = 1;
  p.acts = {Act::kSigmoid, Act::kTanh, Act::kTanh};
  Check(p, true);
  p.lstm_ifgo = true;
  p.bias = false;
  p.type = DataType::kFloat16;
  Check(p, true);
}

}  // namespace
}  // namespace nnref
