// Variants and mutants of the recurrent operators (variants.h): gru, gruCell, lstm and lstmCell
// (§api-mlgraphbuilder-gru, -grucell, -lstm, -lstmcell).
//
// Variants (the hidden and cell states carried between steps in the working format):
//  - "emulation": the spec's emulation evaluated step by step, each builder call rounded to the
//    working format: float32 with glibc's float libm (expf, tanhf), float16 with every step
//    rounded to float16 ("f16-acc-f16"), float16 computed in float32 and rounded once per output
//    ("f16-acc-f32"); "-fma": the matrix-vector products accumulated with fma;
//  - "emulation-gpu-plus/minus": the operand type with exp, tanh and division at their stated
//    accuracy, upwards / downwards (elementwise_internal.h);
//  - "fused-kernel": each gate one fma sum over [x, h] x [W, R] from the biases (a kernel that
//    concatenates the matrices), gru's update as n + z * (h - n) (PyTorch's fused gru cell),
//    lstm's cell state as fma(f, c, i * g);
//  - "emulation-gpu-adverse", "emulation-gpu-sinh-cosh-adverse": the emulation in the operand
//    type whose every exp and division errs, call by call, at the side of its stated accuracy
//    that moves the output element furthest from the exact value (first-order sensitivities
//    from probe runs, Steer); tanh from exp(2x) or as sinh / cosh. They show how much of the
//    derived bound (ops/rnn_error.cc) is attainable.
// Mutants (double arithmetic, rounded once per output): gates swapped (z and r; i and f), the
// recurrent weight ignored, the bias ignored, resetAfter inverted, sigmoid for the candidate's
// tanh (gru's new gate, lstm's cell gate), the state not carried (every step from the initial
// state).
#include "ops/rnn.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <utility>

#include "numerics/cast.h"
#include "numerics/error_bound.h"
#include "numerics/float16.h"
#include "ops/variants/elementwise_internal.h"
#include "ops/variants/sums_internal.h"

namespace nnref {
namespace {

using Act = MLRecurrentNetworkActivation;
using elementwise_variants::Arith;
using elementwise_variants::AtBound;
using elementwise_variants::Format;
using elementwise_variants::FormatOf;
using elementwise_variants::Primitive;
using elementwise_variants::UlpOf;
using sums::Acc;

// The primitives of an adverse run ("emulation-gpu-adverse"): call k (exp, a division) errs by
// its full stated accuracy in the operand type (ErrorArith::Accuracy: exp 3 + 2|x| ULP, float16
// 1 + 2|x|; division 2.5 ULP) in direction signs[k] (0: correctly rounded), the ULPs WGSL's of
// the exact result (adverse.cc's rules: results below the normal range and divisors outside the
// stated range correctly rounded, exp >= 0, tanh in [-1, 1]). A probe run (double arithmetic)
// moves call `probe` alone by its bound upwards: the outputs' sensitivities to it.
struct Steer {
  DataType type = DataType::kFloat32;
  bool sinh_cosh = false;  // tanh as (exp(x) - exp(-x)) / (exp(x) + exp(-x)), else from exp(2x)
  std::vector<int8_t> signs;
  size_t probe = SIZE_MAX;
  size_t calls = 0;
};

// How an alternative evaluates the steps.
struct Plan {
  Arith a;                 // working format and primitives (kFloat64: the mutants)
  bool fma = false;        // products fused into the sums
  bool fused = false;      // "fused-kernel"
  Steer* steer = nullptr;  // the adverse variants' primitives
};

struct Mutation {
  bool swap_gates = false;
  bool no_recurrent = false;
  bool no_bias = false;
  bool invert_reset_after = false;
  bool sigmoid_candidate = false;
  bool no_carry = false;
};

double Fma(const Arith& a, double x, double y, double z) {
  if (a.format == Format::kFloat32) {
    return static_cast<double>(
        std::fma(static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)));
  }
  return a.R(std::fma(x, y, z));  // float16: innocuous double rounding (sums_internal.h)
}

// acc + x[0] * w[0] + x[1] * w[1] + ..., sequentially.
double Dot(const Plan& p, double acc, std::span<const double> x, const double* w) {
  for (size_t k = 0; k < x.size(); ++k) {
    acc = p.fma ? Fma(p.a, x[k], w[k], acc) : p.a.Add(acc, p.a.Mul(x[k], w[k]));
  }
  return acc;
}

// A steered primitive call whose exact result is `exact` and stated bound `bound` (absolute).
double Steered(const Plan& pl, double exact, double bound) {
  Steer& s = *pl.steer;
  const size_t k = s.calls++;
  if (pl.a.format == Format::kFloat64) {
    return k == s.probe && std::isfinite(bound) && std::isfinite(exact) ? exact + bound : exact;
  }
  const int dir = k < s.signs.size() ? s.signs[k] : 0;
  const double min_normal = pl.a.format == Format::kFloat16 ? 0x1p-14 : 0x1p-126;
  if (dir == 0 || !std::isfinite(exact) || std::fabs(exact) < min_normal) return pl.a.R(exact);
  return AtBound(exact, bound, dir, pl.a.format);
}

double SteeredExp(const Plan& pl, double x) {
  const double exact = std::exp(x);
  const FunctionAccuracy acc = ErrorArith::Accuracy(pl.steer->type, "exp");
  const double ulps = acc.ulp + acc.ulp_per_x * std::fabs(x);
  return std::max(0.0, Steered(pl, exact, ulps * UlpOf(exact, FormatOf(pl.steer->type))));
}

double SteeredDiv(const Plan& pl, double a, double b) {
  const double q = a / b;
  const bool half = pl.steer->type == DataType::kFloat16;
  const double range = half ? 0x1p14 : 0x1p126, m = std::fabs(b);
  const double ulps = m >= 1 / range && m <= range ? 2.5 : 0;  // correctly rounded outside
  return Steered(pl, q, ulps * UlpOf(q, FormatOf(pl.steer->type)));
}

// tanh from exp(2x) (the spec's emulation) or as sinh / cosh (Vulkan's inherited tanh), every
// call made whatever the values (the calls' order is the same in every run); +-1 where an exp
// overflows.
double SteeredTanh(const Plan& pl, double x) {
  const Arith& a = pl.a;
  if (pl.steer->sinh_cosh) {
    const double ep = SteeredExp(pl, x), em = SteeredExp(pl, -x);
    const double q = SteeredDiv(pl, a.Sub(ep, em), a.Add(ep, em));
    if (std::isnan(x)) return x;
    if (std::isinf(ep) || std::isinf(em)) return std::copysign(1.0, x);
    return std::clamp(q, -1.0, 1.0);
  }
  const double e = SteeredExp(pl, a.Mul(2, x));
  const double q = SteeredDiv(pl, a.Sub(e, 1), a.Add(e, 1));
  if (std::isnan(x)) return x;
  if (std::isinf(e)) return 1;
  return std::clamp(q, -1.0, 1.0);
}

// The activations as the spec's operators: sigmoid 1 / (1 + exp(-x)), tanh the primitive.
double Activate(const Plan& pl, Act act, double v) {
  const Arith& a = pl.a;
  switch (act) {
    case Act::kRelu:
      return std::isnan(v) ? v : (v > 0 ? v : 0.0);
    case Act::kSigmoid:
      if (pl.steer != nullptr) return SteeredDiv(pl, 1, a.Add(SteeredExp(pl, -v), 1));
      return a.Div(1, a.Add(a.Exp(-v), 1));
    case Act::kTanh:
      if (pl.steer != nullptr) return SteeredTanh(pl, v);
      return a.Fn(Primitive::kTanh, v);
  }
  return v;
}

// One direction's operands; null where absent.
struct Params {
  const double* w = nullptr;   // [gates * H, inputSize]
  const double* r = nullptr;   // [gates * H, H]
  const double* b = nullptr;   // [gates * H]
  const double* rb = nullptr;  // [gates * H]
  const double* p = nullptr;   // [3 * H]: i, o, f
  size_t in = 0, hs = 0;
};

double B(const double* v, size_t i) { return v == nullptr ? 0.0 : v[i]; }

// A gate's pre-activation: (b + rb) + (x · W[row] + s · R[row]) (+ c * p in front), the
// emulation's grouping (a missing bias is its zero constant); fused: one sum from b + rb.
double Pre(const Plan& pl, const Params& q, size_t row, std::span<const double> x,
           std::span<const double> s, const double* c = nullptr, const double* peep = nullptr) {
  const Arith& a = pl.a;
  const double bias = a.Add(B(q.b, row), B(q.rb, row));
  const double* w = q.w + row * q.in;
  const double* r = q.r + row * q.hs;
  double v = pl.fused ? Dot(pl, Dot(pl, bias, x, w), s, r)
                      : a.Add(bias, a.Add(Dot(pl, -0.0, x, w), Dot(pl, -0.0, s, r)));
  if (c != nullptr && peep != nullptr) {
    if (!pl.fused) {
      v = a.Add(a.Mul(*c, *peep), v);
    } else {
      v = pl.fma ? Fma(a, *c, *peep, v) : a.Add(v, a.Mul(*c, *peep));
    }
  }
  return v;
}

// gruCell (§api-mlgraphbuilder-grucell) for one batch row.
std::vector<double> GruCell(const Plan& pl, const RecurrentAttributes& at, const Mutation& mu,
                            const Params& q, std::span<const double> x, std::span<const double> h) {
  const Arith& a = pl.a;
  const size_t hs = h.size();
  const bool zrn = at.gru_layout == MLGruWeightLayout::kZrn;
  size_t z_row = zrn ? 0 : hs, r_row = zrn ? hs : 0;
  if (mu.swap_gates) std::swap(z_row, r_row);
  const Act gate = at.activations[0];
  const Act cell = mu.sigmoid_candidate ? Act::kSigmoid : at.activations[1];
  const bool reset_after = at.reset_after != mu.invert_reset_after;
  std::vector<double> r(hs), rh(hs), out(hs);
  for (size_t j = 0; j < hs; ++j) {
    r[j] = Activate(pl, gate, Pre(pl, q, r_row + j, x, h));
    rh[j] = a.Mul(r[j], h[j]);
  }
  for (size_t j = 0; j < hs; ++j) {
    const double z = Activate(pl, gate, Pre(pl, q, z_row + j, x, h));
    const size_t row = 2 * hs + j;
    double pre;
    if (!reset_after) {
      pre = Pre(pl, q, row, x, rh);
    } else if (pl.fused) {
      const double xb = Dot(pl, B(q.b, row), x, q.w + row * q.in);
      const double hb = Dot(pl, B(q.rb, row), h, q.r + row * hs);
      pre = pl.fma ? Fma(a, r[j], hb, xb) : a.Add(xb, a.Mul(r[j], hb));
    } else {
      // b + (x · Wn + r * (rb + h · Rn)).
      const double hb = a.Add(B(q.rb, row), Dot(pl, -0.0, h, q.r + row * hs));
      pre = a.Add(B(q.b, row), a.Add(Dot(pl, -0.0, x, q.w + row * q.in), a.Mul(r[j], hb)));
    }
    const double n = Activate(pl, cell, pre);
    if (!pl.fused) {
      out[j] = a.Add(a.Mul(z, h[j]), a.Mul(n, a.Sub(1, z)));
    } else {
      out[j] = pl.fma ? Fma(a, z, a.Sub(h[j], n), n) : a.Add(n, a.Mul(z, a.Sub(h[j], n)));
    }
  }
  return out;
}

// lstmCell (§api-mlgraphbuilder-lstmcell) for one batch row; peepholes packed i, o, f.
void LstmCell(const Plan& pl, const RecurrentAttributes& at, const Mutation& mu, const Params& q,
              std::span<const double> x, std::span<const double> h, std::span<const double> c,
              std::vector<double>& h_out, std::vector<double>& c_out) {
  const Arith& a = pl.a;
  const size_t hs = h.size();
  const bool iofg = at.lstm_layout == MLLstmWeightLayout::kIofg;
  size_t i_row = 0, f_row = iofg ? 2 * hs : hs;
  const size_t o_row = iofg ? hs : 3 * hs, g_row = iofg ? 3 * hs : 2 * hs;
  size_t pi = 0, pf = 2 * hs;
  const size_t po = hs;
  if (mu.swap_gates) {
    std::swap(i_row, f_row);
    std::swap(pi, pf);
  }
  const Act gate = at.activations[0], filter = at.activations[2];
  const Act cell = mu.sigmoid_candidate ? Act::kSigmoid : at.activations[1];
  h_out.assign(hs, 0.0);
  c_out.assign(hs, 0.0);
  for (size_t j = 0; j < hs; ++j) {
    const double* cj = &c[j];
    const auto peep = [&](size_t k) { return q.p == nullptr ? nullptr : q.p + k + j; };
    const double i = Activate(pl, gate, Pre(pl, q, i_row + j, x, h, cj, peep(pi)));
    const double f = Activate(pl, gate, Pre(pl, q, f_row + j, x, h, cj, peep(pf)));
    const double g = Activate(pl, cell, Pre(pl, q, g_row + j, x, h));
    const double o = Activate(pl, gate, Pre(pl, q, o_row + j, x, h, cj, peep(po)));
    const double ct =
        pl.fused && pl.fma ? Fma(a, f, c[j], a.Mul(i, g)) : a.Add(a.Mul(f, c[j]), a.Mul(i, g));
    c_out[j] = ct;
    h_out[j] = a.Mul(o, Activate(pl, filter, ct));
  }
}

using Outputs = std::vector<std::vector<double>>;

// The operator's outputs (hidden (, cell) (, sequence)), row-major, before their rounding.
std::optional<Outputs> Run(const RecurrentAttributes& at, const Plan& pl, const Mutation& mu,
                           std::span<const OperandValue* const> in) {
  const bool lstm = at.lstm, cell = at.cell;
  if ((mu.sigmoid_candidate && at.activations[1] != Act::kTanh) || (mu.no_bias && at.bias < 0) ||
      (mu.invert_reset_after && lstm) || (mu.no_carry && (cell || at.steps < 2))) {
    return std::nullopt;
  }
  const auto load = [&](int slot) {
    return slot < 0 ? std::vector<double>{} : sums::Values(in[static_cast<size_t>(slot)]->data);
  };
  const std::vector<double> x = load(0), w = load(1);
  std::vector<double> r = load(2);
  if (mu.no_recurrent) r.assign(r.size(), 0.0);
  const std::vector<double> b = mu.no_bias ? std::vector<double>{} : load(at.bias);
  const std::vector<double> rb = load(at.recurrent_bias), p = load(at.peephole_weight);
  const std::vector<double> h0 = load(cell ? 3 : at.initial_hidden_state);
  const std::vector<double> c0 =
      lstm ? load(cell ? 4 : at.initial_cell_state) : std::vector<double>{};
  const size_t gates = lstm ? 4 : 3, batch = at.batch, n_in = at.input_size, hs = at.hidden_size;
  const size_t steps = cell ? 1 : at.steps;
  const size_t dirs = !cell && at.direction == MLRecurrentNetworkDirection::kBoth ? 2 : 1;
  const size_t state = dirs * batch * hs;
  Outputs out(lstm ? 2 : 1, std::vector<double>(state));
  const bool sequence = at.return_sequence && !cell;
  if (sequence) out.emplace_back(steps * state);
  const auto ptr = [](const std::vector<double>& v, size_t offset) {
    return v.empty() ? nullptr : v.data() + offset;
  };
  const auto init = [&](const std::vector<double>& v, size_t offset) {
    if (v.empty()) return std::vector<double>(hs, 0.0);
    return std::vector<double>(v.begin() + static_cast<std::ptrdiff_t>(offset),
                               v.begin() + static_cast<std::ptrdiff_t>(offset + hs));
  };
  std::vector<double> h_next, c_next;
  for (size_t dir = 0; dir < dirs; ++dir) {
    const bool reverse =
        dir == 1 || (!cell && at.direction == MLRecurrentNetworkDirection::kBackward);
    const Params q{ptr(w, dir * gates * hs * n_in),
                   ptr(r, dir * gates * hs * hs),
                   ptr(b, dir * gates * hs),
                   ptr(rb, dir * gates * hs),
                   ptr(p, dir * 3 * hs),
                   n_in,
                   hs};
    for (size_t n = 0; n < batch; ++n) {
      const size_t offset = (dir * batch + n) * hs;
      const std::vector<double> h_init = init(h0, offset), c_init = init(c0, offset);
      std::vector<double> h = h_init, c = c_init;
      for (size_t step = 0; step < steps; ++step) {
        const size_t t = reverse ? steps - step - 1 : step;
        const std::span<const double> xt(x.data() + (t * batch + n) * n_in, n_in);
        if (mu.no_carry) {
          h = h_init;
          c = c_init;
        }
        if (lstm) {
          LstmCell(pl, at, mu, q, xt, h, c, h_next, c_next);
          h.swap(h_next);
          c.swap(c_next);
        } else {
          h = GruCell(pl, at, mu, q, xt, h);
        }
        if (sequence) {
          std::copy(h.begin(), h.end(),
                    out.back().begin() +
                        static_cast<std::ptrdiff_t>(((t * dirs + dir) * batch + n) * hs));
        }
      }
      std::copy(h.begin(), h.end(), out[0].begin() + static_cast<std::ptrdiff_t>(offset));
      if (lstm) std::copy(c.begin(), c.end(), out[1].begin() + static_cast<std::ptrdiff_t>(offset));
    }
  }
  return out;
}

bool SameValues(const Tensor& a, const Tensor& b) {
  const std::vector<double> x = sums::Values(a), y = sums::Values(b);
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    if (!(x[i] == y[i] || (std::isnan(x[i]) && std::isnan(y[i])))) return false;
  }
  return true;
}

// An alternative of `op` for the output types `acc` allows (gpu: +1 / -1, primitives at their
// stated accuracy). A mutant returns nullopt when every output equals the reference's.
Alternative MakeRnn(const std::string& op, std::string name, bool legitimate, std::string what,
                    Acc acc, int gpu, bool fma, bool fused, Mutation mu) {
  Alternative alt;
  const OpId id = OpNamed(op);
  alt.op = id;
  alt.name = std::move(name);
  alt.legitimate = legitimate;
  alt.what = std::move(what);
  alt.compute =
      [id, legitimate, acc, gpu, fma, fused, mu](
          const Graph& graph, size_t index,
          std::span<const OperandValue* const> inputs) -> std::optional<std::vector<Tensor>> {
    const OperatorNode& node = graph.operators()[index];
    const auto* at = node.Attributes<RecurrentAttributes>();
    if (node.op != id || at == nullptr) return std::nullopt;
    const DataType type = graph.operand(node.outputs[0]).desc.dataType;
    const std::optional<sums::Prec> prec = sums::PrecFor(acc, type);
    if (!prec) return std::nullopt;
    const Format format = *prec == sums::Prec::kF16   ? Format::kFloat16
                          : *prec == sums::Prec::kF32 ? Format::kFloat32
                                                      : Format::kFloat64;
    const Plan pl{Arith{format, gpu}, fma, fused};
    const std::optional<Outputs> v = Run(*at, pl, mu, inputs);
    if (!v || v->size() != node.outputs.size()) return std::nullopt;
    std::vector<Tensor> out;
    for (size_t k = 0; k < v->size(); ++k) {
      const OperandDescriptor& desc = graph.operand(node.outputs[k]).desc;
      if ((*v)[k].size() != desc.ElementCount()) return std::nullopt;
      Tensor t = Tensor::Allocate(desc.dataType, desc.shape);
      for (size_t i = 0; i < (*v)[k].size(); ++i) {
        if (desc.dataType == DataType::kFloat16) {
          t.base<Float16>()[i] = RoundTo<Float16>((*v)[k][i]);
        } else {
          t.base<float>()[i] = RoundTo<float>((*v)[k][i]);
        }
      }
      out.push_back(std::move(t));
    }
    if (!legitimate) {
      const std::vector<OperandValue> ref = graph.RunOperator(index, inputs);
      bool same = true;
      for (size_t k = 0; k < out.size(); ++k) same = same && SameValues(ref[k].data, out[k]);
      if (same) return std::nullopt;
    }
    return out;
  };
  return alt;
}

// The outputs' elements in one list (output by output).
std::vector<double> Flat(const Outputs& v) {
  std::vector<double> f;
  for (const std::vector<double>& o : v) f.insert(f.end(), o.begin(), o.end());
  return f;
}

// An adverse variant (Steer): for each output element, the sensitivities of that element to
// every primitive call (probe runs in double) give the directions that move it furthest from
// the exact value, upwards or downwards; of the two runs in the operand type (and the correctly
// rounded one) the farther is kept for that element. Every run is a legitimate evaluation; the
// bounds being per element, each element shows what a legitimate run attains there.
Alternative MakeAdverse(const std::string& op, std::string name, std::string what, bool sinh_cosh) {
  Alternative alt;
  const OpId id = OpNamed(op);
  alt.op = id;
  alt.name = std::move(name);
  alt.legitimate = true;
  alt.what = std::move(what);
  alt.compute =
      [id, sinh_cosh](
          const Graph& graph, size_t index,
          std::span<const OperandValue* const> inputs) -> std::optional<std::vector<Tensor>> {
    const OperatorNode& node = graph.operators()[index];
    const auto* at = node.Attributes<RecurrentAttributes>();
    if (node.op != id || at == nullptr) return std::nullopt;
    const DataType type = graph.operand(node.outputs[0]).desc.dataType;
    if (type != DataType::kFloat16 && type != DataType::kFloat32) return std::nullopt;
    Steer steer{type, sinh_cosh, {}, SIZE_MAX, 0};
    const Plan exact{Arith{Format::kFloat64, 0}, false, false, &steer};
    const std::optional<Outputs> base = Run(*at, exact, {}, inputs);
    if (!base || base->size() != node.outputs.size()) return std::nullopt;
    const std::vector<double> want = Flat(*base);
    const size_t calls = steer.calls, n = want.size();
    // Work: calls + 2 n + 1 runs of at most steps * 2 directions * batch * 4 gates * H *
    // (H + inputSize + 4) operations each.
    const auto real = [](size_t v) { return static_cast<double>(v); };
    const double run = real(at->cell ? 1 : at->steps) * 8 * real(at->batch) *
                       real(at->hidden_size) * (real(at->hidden_size) + real(at->input_size) + 4);
    if (static_cast<double>(calls + 2 * n + 1) * run > 5e7) return std::nullopt;
    std::vector<double> sens(calls * n);
    for (size_t c = 0; c < calls; ++c) {
      steer.calls = 0;
      steer.probe = c;
      const std::optional<Outputs> v = Run(*at, exact, {}, inputs);
      if (!v) return std::nullopt;
      const std::vector<double> f = Flat(*v);
      for (size_t e = 0; e < n; ++e) sens[c * n + e] = f[e] - want[e];
    }
    steer.probe = SIZE_MAX;
    const Plan plan{Arith{FormatOf(type), 0}, false, false, &steer};
    steer.calls = 0;
    steer.signs.assign(calls, 0);
    const std::optional<Outputs> nearest = Run(*at, plan, {}, inputs);
    if (!nearest) return std::nullopt;
    std::vector<double> worst = Flat(*nearest);
    for (size_t e = 0; e < n; ++e) {
      for (const int dir : {1, -1}) {
        for (size_t c = 0; c < calls; ++c) {
          const double d = sens[c * n + e];
          steer.signs[c] = static_cast<int8_t>(d > 0 ? dir : (d < 0 ? -dir : 0));
        }
        steer.calls = 0;
        const std::optional<Outputs> v = Run(*at, plan, {}, inputs);
        if (!v) return std::nullopt;
        const double got = Flat(*v)[e];
        if (std::isfinite(got) && (!std::isfinite(worst[e]) ||
                                   std::fabs(got - want[e]) > std::fabs(worst[e] - want[e]))) {
          worst[e] = got;
        }
      }
    }
    std::vector<Tensor> out;
    size_t e = 0;
    for (size_t k = 0; k < base->size(); ++k) {
      const OperandDescriptor& desc = graph.operand(node.outputs[k]).desc;
      if ((*base)[k].size() != desc.ElementCount()) return std::nullopt;
      Tensor t = Tensor::Allocate(desc.dataType, desc.shape);
      for (size_t i = 0; i < (*base)[k].size(); ++i, ++e) {
        if (desc.dataType == DataType::kFloat16) {
          t.base<Float16>()[i] = RoundTo<Float16>(worst[e]);
        } else {
          t.base<float>()[i] = RoundTo<float>(worst[e]);
        }
      }
      out.push_back(std::move(t));
    }
    return out;
  };
  return alt;
}

}  // namespace

void AddRnnAlternatives(std::vector<Alternative>& out) {
  for (const std::string op : {"gru", "gruCell", "lstm", "lstmCell"}) {
    const bool gru = op.starts_with("gru"), sequence = !op.ends_with("Cell");
    for (const Acc acc : {Acc::kF32, Acc::kF16, Acc::kF16F32}) {
      const std::string text = sums::AccText(acc);
      out.push_back(MakeRnn(op, sums::Name(acc, "emulation"), true,
                            "the spec's emulation step by step; " + text, acc, 0, false, false,
                            {}));
      out.push_back(MakeRnn(op, sums::Name(acc, "emulation-fma"), true,
                            "the spec's emulation step by step, fma dot products; " + text, acc, 0,
                            true, false, {}));
      out.push_back(MakeRnn(op, sums::Name(acc, "fused-kernel"), true,
                            std::string("each gate one fma sum over [x, h] from the biases, ") +
                                (gru ? "h' = n + z (h - n)" : "c' = fma(f, c, i g)") + "; " + text,
                            acc, 0, true, true, {}));
    }
    for (const int gpu : {1, -1}) {
      out.push_back(MakeRnn(op, gpu > 0 ? "emulation-gpu-plus" : "emulation-gpu-minus", true,
                            std::string("the spec's emulation in the operand type, exp, tanh and "
                                        "division at ") +
                                (gpu > 0 ? "+" : "-") + "their stated accuracy",
                            Acc::kOperand, gpu, false, false, {}));
    }
    out.push_back(MakeAdverse(
        op, "emulation-gpu-adverse",
        "the spec's emulation in the operand type, tanh from exp(2x); each exp (3 + 2|x| ULP, "
        "float16 1 + 2|x|) and division (2.5 ULP) at the side of its bound that moves the element "
        "furthest, by its first-order sensitivity",
        false));
    out.push_back(MakeAdverse(
        op, "emulation-gpu-sinh-cosh-adverse",
        "emulation-gpu-adverse with tanh as (exp(x) - exp(-x)) / (exp(x) + exp(-x)) (Vulkan's "
        "inherited tanh)",
        true));
    const auto mutant = [&](std::string name, std::string what, Mutation mu) {
      out.push_back(
          MakeRnn(op, std::move(name), false, std::move(what), Acc::kExact, 0, false, false, mu));
    };
    mutant("gates-swapped",
           gru ? "the update (z) and reset (r) gates' rows swapped"
               : "the input (i) and forget (f) gates' rows (and peepholes) swapped",
           {.swap_gates = true});
    mutant("recurrent-weight-ignored", "recurrentWeight taken as zero", {.no_recurrent = true});
    mutant("bias-ignored", "options.bias left out", {.no_bias = true});
    if (gru) {
      mutant("reset-after-inverted", "resetAfter's two formulas of the new gate swapped",
             {.invert_reset_after = true});
    }
    mutant("sigmoid-candidate",
           gru ? "sigmoid instead of tanh for the new gate"
               : "sigmoid instead of tanh for the cell gate",
           {.sigmoid_candidate = true});
    if (sequence) {
      mutant("state-not-carried", "every step computed from the initial state", {.no_carry = true});
    }
  }
}

}  // namespace nnref
