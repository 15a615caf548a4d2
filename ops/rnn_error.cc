// Error models of the recurrent operators (ops/error_model.h): gru, gruCell, lstm and lstmCell
// (WebNN §api-mlgraphbuilder-gru, -grucell, -lstm, -lstmcell), cell by cell and time step by
// time step, following the emulations' steps in the output type with numerics/error_bound.h:
//  - each gate's pre-activation is the emulation's grouping (bias + recurrentBias) + (input x
//    weightᵀ + hiddenState x recurrentWeightᵀ) (lstm: cellState * peepholeWeight in front), each
//    matrix-vector product a sum in any order (ErrorArith::Sum, the products rounding apart or
//    fused); it is also bounded as one sum of every term (a kernel that multiplies [x, h] by
//    [W, R] with the biases as the accumulator's start) and the larger bound is kept. Exact zeros
//    are left out, and a sum of exact short fractions is exact;
//  - the activations are the spec's own formulas: sigmoid as 1 / (1 + exp(-x))
//    (§api-mlgraphbuilder-sigmoid-method), tanh as ErrorArith::Tanh's three ways, relu exact. A
//    bounded input moves them by the exact function's change over its interval, to which their
//    own error at exact inputs is added (evaluating the steps on the interval, as ErrorArith
//    does, counts each use of exp(2x) apart: several times larger);
//  - gru: h' = z * h + n * (1 - z), or n + z * (h - n) (fused kernels), the exact change of the
//    inputs' errors plus the two forms' own roundings; lstm: c' = f * c + i * g,
//    h' = o * f2(c').
// The hidden (and cell) state carries its bound into the next step, so errors propagate through
// time. Input bounds are honoured (every operand is a Bounded). Overflow flags: an element of any
// output is flagged when a step of its (direction, batch) row up to its time step left the type's
// range.
//
// Carried as intervals alone, a state's error is multiplied by the absolute Jacobian of every
// step, and bounds grow with the steps (10-65x the output's scale at hidden 4 and 5-6 tanh
// steps) although the signed products of the Jacobians mostly cancel. So each value also holds
// its error as a signed first-order combination of independent local errors (affine
// arithmetic, Signed): value - exact = sum_i c_i eps_i + rho with |eps_i| <= 1, c_i the exact
// derivative of the value with respect to local error i times that error's bound, |rho| <= own.
//  - a local error (symbol) is everything a step adds beyond the first-order propagation of its
//    inputs' errors: its roundings and the primitives' own errors at their stated maximum, the
//    bounds of the other operands (x, the weights, the biases: input bounds), products of two
//    errors and the activations' remainders f(x + d) - f(x) - f'(x) d (Remainder). For a step
//    bounded by an additive interval form (ErrorArith's add and mul, Pre's sums) it is that
//    bound less the form's first-order part sum |d_k| e_k (Signed::Additive), the form holding
//    each |d_k| e_k once; for the activations and gru's update it is written out;
//  - the first-order part is propagated signed: c(y) = sum_k d_k c(x_k), d_k the exact partial
//    derivatives at the exact values (a gate row's recurrent weights, f'(x), h - n, z, 1 - z,
//    f, c, i, g, o...). A product of Jacobians is thus summed before its absolute value;
//  - a value used once (a gate, r * h for resetAfter, tanh(c')) passes its own error on unsigned
//    (own, scaled by |d|: exact); a value used more than once (the states, r * h, each row of
//    the new gate) turns it into a new symbol, so that its uses stay correlated;
//  - |sum_i c_i eps_i + rho| <= sum_i |c_i| + own: each local error at its stated maximum in
//    the direction of its coefficient's sign, which any legitimate implementation may choose,
//    so the bound holds for every one of them. It is a bound, not an estimate: the
//    second-order terms are local errors too. The interval bound being valid as well, each
//    value's bound is the smaller of the two (never more than the intervals alone), and the
//    smaller feeds the next steps' magnitudes, remainders and own errors. Where the interval
//    bound is much the smaller (1.5x), the value restarts from it as one unsigned error.
// The combinations cost about gates * H^3 * steps^2 per row (H states of 2 H new symbols a
// step, H terms per gate row): larger operators keep the interval bounds alone (SignedFits).
// The adverse variants (ops/variants/rnn.cc, emulation-gpu-adverse) attain about half of the
// bound on the corpus's float16 cases (rnn_test.cc).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "numerics/float16.h"
#include "ops/error_model_internal.h"
#include "ops/rnn.h"

namespace nnref::error_model {
namespace {

using Act = MLRecurrentNetworkActivation;
using A = ErrorArith;

constexpr Bounded X(double v) { return {v, 0}; }

// x * y with 0 * inf = 0 (a zero bound times an infinite magnitude adds nothing).
double P(double x, double y) { return x == 0 || y == 0 ? 0 : x * y; }

// The arithmetic of one (direction, batch) row and its overflow flag: steps at the exact values
// note it; evaluations at an input interval's ends (a function's own error over the interval) do
// not.
struct Track {
  const ErrorArith& m;
  DataType type;
  bool overflow = false;
  void Note() { overflow = m.TakeOverflow() || overflow; }
  void Discard() const { m.TakeOverflow(); }
};

bool InType(DataType type, double v) {
  if (type == DataType::kFloat16) return Float16::FromDouble(v).ToDouble() == v;
  return static_cast<double>(static_cast<float>(v)) == v;
}

// The weight of the lowest set bit of v (v finite, nonzero).
double Quantum(double v) {
  int e = 0;
  const double f = std::frexp(std::fabs(v), &e);  // [0.5, 1)
  const auto bits = static_cast<uint64_t>(std::ldexp(f, 53));
  return std::ldexp(1.0, e - 53 + std::countr_zero(bits));
}

// A sum of addends and products in any order: S, M, the terms' own bounds and the squares of the
// partial sums in the order the terms are given (ErrorArith::Sum, PartialSquares).
class Terms {
 public:
  // Exact zeros (a zero weight, a zero initial state) are left out: adding one is exact.
  void Add(const Track& t, Bounded a) {
    if (Push(a.v, a.e)) {
      ++addends_;
      NoteExact(t, a.v, a.e == 0);
    }
  }
  void Product(const Track& t, Bounded x, Bounded w) {
    const double p = x.v * w.v;
    if (Push(p, P(std::fabs(x.v), w.e) + P(x.e, std::fabs(w.v)) + P(x.e, w.e))) {
      ++products_;
      product_mag_ += std::fabs(p);
      NoteExact(t, p, x.e == 0 && w.e == 0 && std::fma(x.v, w.v, -p) == 0);
    }
  }
  bool empty() const { return addends_ + products_ == 0; }
  // Exact terms in the type, all multiples of a quantum q with M < 2^p q (p: the type's
  // precision): every partial sum, in any order, is in the type, so the sum is exact. Otherwise
  // n - 1 additions of partial sums (ErrorArith::Sum), and each product that rounds apart rounds
  // once at its own magnitude (and may underflow): u |x w| + eta / 2, added to the terms' bounds
  // (with fma it does not round; the addition's rounding covers it).
  Bounded Value(const Track& t) const {
    const ErrorArith& m = t.m;
    const double n = addends_ + products_;
    if (n == 0) return X(0);
    const int precision = t.type == DataType::kFloat16 ? 11 : 24;
    if (exact_ && mag_ < std::ldexp(quantum_, precision)) return X(s_);
    const double products = m.u() * product_mag_ + products_ * 0.5 * m.eta();
    return m.Sum(s_, mag_, te_ + products, n - 1, 0, squares_.Value());
  }

 private:
  void NoteExact(const Track& t, double v, bool exact) {
    exact_ = exact_ && exact && std::isfinite(v) && InType(t.type, v);
    if (exact_) quantum_ = std::min(quantum_, Quantum(v));
  }
  bool Push(double v, double e) {
    if (v == 0 && e == 0) return false;
    s_ += v;
    mag_ += std::fabs(v);
    te_ += e;
    squares_.Add(v);
    return true;
  }
  double s_ = 0, mag_ = 0, te_ = 0, addends_ = 0, products_ = 0, product_mag_ = 0;
  bool exact_ = true;
  double quantum_ = std::numeric_limits<double>::infinity();
  PartialSquares squares_;
};

Bounded Larger(Bounded a, Bounded b) { return {a.v, std::max(a.e, b.e)}; }

// a + b and a * b: one correctly rounded operation, exact when the operands are exact and the
// exact result is in the type (products and sums of the corpus's short fractions).
Bounded AddE(const Track& t, Bounded a, Bounded b) {
  if (b.v == 0 && b.e == 0) return a;  // x + 0 = x
  if (a.v == 0 && a.e == 0) return b;
  const double s = a.v + b.v, bb = s - a.v;
  const bool exact = (a.v - (s - bb)) + (b.v - bb) == 0;
  if (a.e == 0 && b.e == 0 && std::isfinite(s) && exact && InType(t.type, s)) return X(s);
  return t.m.Add(a, b);
}
Bounded MulE(const Track& t, Bounded a, Bounded b) {
  const double p = a.v * b.v;
  const bool exact = std::isfinite(p) && std::fma(a.v, b.v, -p) == 0;
  if (a.e == 0 && b.e == 0 && exact && InType(t.type, p)) return X(p);
  return t.m.Mul(a, b);
}

// bias (the given ones of `biases`, added first) + (x · w + s · r) (+ c * p in front): the
// emulation's grouping, and the same terms as one sum (biases, products of x, of s, then c * p).
// w and r are the gate row's weights (x.size() and s.size() long); s may be empty (gru's new gate
// with resetAfter: its recurrent part is bounded apart).
Bounded Pre(const Track& t, std::initializer_list<const Bounded*> biases,
            std::span<const Bounded> x, const Bounded* w, std::span<const Bounded> s,
            const Bounded* r, const Bounded* c = nullptr, const Bounded* p = nullptr) {
  Terms tx, ts, all;
  Bounded bias{};
  bool has_bias = false;
  for (const Bounded* b : biases) {
    if (b == nullptr) continue;
    all.Add(t, *b);
    bias = has_bias ? AddE(t, bias, *b) : *b;
    has_bias = true;
  }
  for (size_t k = 0; k < x.size(); ++k) {
    tx.Product(t, x[k], w[k]);
    all.Product(t, x[k], w[k]);
  }
  for (size_t k = 0; k < s.size(); ++k) {
    ts.Product(t, s[k], r[k]);
    all.Product(t, s[k], r[k]);
  }
  Bounded chain = AddE(t, tx.Value(t), ts.Value(t));
  if (has_bias) chain = AddE(t, bias, chain);
  if (c != nullptr && p != nullptr) {
    chain = AddE(t, MulE(t, *c, *p), chain);
    all.Product(t, *c, *p);
  }
  return Larger(chain, all.Value(t));
}

double Sigmoid(double x) {
  if (x >= 0) return 1 / (1 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1 + e);
}

// sigmoid (§api-mlgraphbuilder-sigmoid-method: 1 / (1 + exp(-x))) or tanh, evaluated on `x`.
Bounded Steps(const ErrorArith& m, Act act, Bounded x) {
  if (act == Act::kSigmoid) return m.Div(X(1), m.Add(m.Exp(A::Neg(x)), X(1)));
  return m.Tanh(x);
}

// tanh's own error at an exact x: ErrorArith::Tanh's three ways (the spec's (exp(2x) - 1) /
// (exp(2x) + 1), GPUs' (exp(x) - exp(-x)) / (exp(x) + exp(-x)), a library tanh at its stated
// accuracy), each quotient's operands moved together: the exp errors through the quotient's exact
// change, then the numerator's and denominator's roundings (2u relative) and the division's own
// error. ErrorArith::Tanh bounds the quotients as of independent operands, several times larger
// where exp(2x) is large; the smaller is kept.
double TanhOwn(const Track& t, double x) {
  const ErrorArith& m = t.m;
  const double stepwise = m.Tanh(X(x)).e;
  if (!std::isfinite(x) || std::fabs(x) > 20) return stepwise;
  const double q = std::tanh(x);
  const auto quotient = [&](double change) {  // the quotient's operands moved: |q'| <= |q| + change
    const double moved = std::fabs(q) + change;
    const double rounded = moved * 2 * m.u() * (1 + 2 * m.u());
    return change + rounded + m.Div(X(moved + rounded), X(1)).e;
  };
  // E = exp(2x): q(E') - q(E) = 2 (E' - E) / ((E' + 1) (E + 1)).
  const Bounded e2 = m.Exp(X(2 * x));
  const double room = e2.v + 1 - e2.e;
  const double spec = room > 0 ? quotient(2 * e2.e / ((e2.v + 1) * room)) : stepwise;
  // A = exp(x), B = exp(-x): q(A', B') - q = 2 ((A' - A) B - A (B' - B)) / ((A' + B') (A + B)).
  const Bounded a = m.Exp(X(x)), b = m.Exp(X(-x));
  const double sum = a.v + b.v, room2 = sum - a.e - b.e;
  const double gpu = room2 > 0 ? quotient(2 * (a.e * b.v + a.v * b.e) / (sum * room2)) : stepwise;
  const FunctionAccuracy acc = ErrorArith::Accuracy(t.type, "tanh");
  const double library = std::max(m.Ulps(acc.ulp + acc.ulp_per_x * std::fabs(x), q), acc.abs);
  return std::min(stepwise, std::max({spec, gpu, library}));
}

// The activation's own error at an exact x.
double Own(const Track& t, Act act, double x) {
  return act == Act::kTanh ? TanhOwn(t, x) : Steps(t.m, act, X(x)).e;
}

// An activation of a bounded input: the exact function's change over the input's interval (both
// are monotone: its ends) plus the steps' own error at exact inputs, the largest of the
// interval's ends and middle (`local`: that own error; 0 for relu). Never more than the steps
// evaluated on the interval, which treat the two uses of exp(2x) in (exp(2x) - 1) / (exp(2x) + 1)
// as independent.
Bounded Activate(Track& t, Act act, Bounded x, double& local) {
  local = 0;
  if (act == Act::kRelu) {
    // max(0, x), exact; over the interval it moves by at most its ends' move (0 below 0).
    if (std::isnan(x.v)) return x;
    const auto relu = [](double v) { return v > 0 ? v : 0.0; };
    const double r = relu(x.v);
    return {r, std::max(relu(x.v + x.e) - r, r - relu(x.v - x.e))};
  }
  t.Note();
  const Bounded chain = Steps(t.m, act, x);
  const double own = Own(t, act, x.v);
  t.Note();
  local = std::numeric_limits<double>::infinity();
  if (!std::isfinite(x.v) || !std::isfinite(x.e)) return chain;
  if (x.e == 0) {
    local = std::min(chain.e, own);
    return {chain.v, local};
  }
  const auto f = [act](double v) { return act == Act::kSigmoid ? Sigmoid(v) : std::tanh(v); };
  const double fv = f(x.v);
  const double spread = std::max(std::fabs(f(x.v + x.e) - fv), std::fabs(f(x.v - x.e) - fv));
  local = std::max({own, Own(t, act, x.v - x.e), Own(t, act, x.v + x.e)});
  t.Discard();
  return {chain.v, std::min(chain.e, spread + local)};
}

// gru's h' = z h + n (1 - z) (§api-mlgraphbuilder-grucell), or n + z (h - n) (fused kernels).
// For bounded z, h, n (errors a, b, c) the exact change is a (h - n) + z b + (1 - z) c +
// a (b - c), plus the larger of the two forms' roundings at the exact values; each of the four
// roundings moves by at most u times its operand's change. Never more than either form
// evaluated on the intervals (which count z's or n's two uses apart). `rest`: the bound less its
// first-order part |h - n| a + |z| b + |1 - z| c.
Bounded Update(const ErrorArith& m, Bounded z, Bounded h, Bounded n, double& rest) {
  const Bounded spec = m.Add(m.Mul(z, h), m.Mul(n, m.Sub(X(1), z)));
  const Bounded lerp = m.Add(n, m.Mul(z, m.Sub(h, n)));
  const Bounded zx = X(z.v), hx = X(h.v), nx = X(n.v);
  const double own = std::max(m.Add(m.Mul(zx, hx), m.Mul(nx, m.Sub(X(1), zx))).e,
                              m.Add(nx, m.Mul(zx, m.Sub(hx, nx))).e);
  const double first = z.e * std::fabs(h.v - n.v) + std::fabs(z.v) * h.e + std::fabs(1 - z.v) * n.e;
  const double in = z.e + h.e + n.e;
  const double slack = 4 * m.u() * in * (2 + std::fabs(z.v) + std::fabs(h.v) + std::fabs(n.v) + in);
  rest = z.e * (h.e + n.e) + own + slack;
  return {spec.v, std::min(std::max(spec.e, lerp.e), first + rest)};
}

// --- The signed first-order model (the header comment) ---

// An error as signed coefficients of the symbols (independent errors in [-1, 1], each
// coefficient holding its symbol's size) plus `own`, a bound on a part not yet given a symbol:
// an intermediate with one use passes it on (scaled by the use's |derivative|); a state, used
// by every gate of the next step, gives it a symbol.
struct Lin {
  std::vector<double> c;
  double own = 0;
};

// A step's value: its interval bound (b.e, tightened to the signed model's radius) and its
// error in symbols. Invariant: value - b.v = sum_i l.c[i] eps_i + rho, |eps_i| <= 1,
// |rho| <= l.own, and |value - b.v| <= b.e.
struct Val {
  Bounded b;
  Lin l;
};

using Part = std::pair<double, const Val*>;  // a first-order derivative and its input

// The signed model of one (direction, batch) row; off beyond its budget or once a value is not
// finite (the interval bounds stand alone).
class Signed {
 public:
  explicit Signed(bool on) : on_(on) {}
  bool on() const { return on_; }

  // y, whose error is sum (d * the part's error) + a remainder bounded by `rest`.
  Val Make(Bounded y, std::initializer_list<Part> parts, double rest) {
    Val v{y, {}};
    if (!(rest >= 0)) on_ = false;  // NaN
    if (!on_) return v;
    for (const auto& [d, x] : parts) Axpy(v.l, d, x->l);
    v.l.own += rest;
    Tighten(v);
    return v;
  }
  // y bounded by an additive interval form (the primitives of numerics/error_bound.h, Pre): the
  // form holds sum |d| * (the part's bound) once, plus a bound on everything else (roundings,
  // products of errors, the other operands' bounds), which is y.e less the first-order sum.
  Val Additive(Bounded y, std::initializer_list<Part> parts) {
    double first = 0;
    for (const auto& [d, x] : parts) first += std::fabs(d) * x->b.e;
    const double rest = y.e - first;
    return Make(y, parts, rest < 0 ? 0 : rest);
  }
  // A gate's pre-activation `v` (Pre: additive) over states s through the weights r (and the
  // cell state c through the peephole p).
  void Through(Val& v, const Bounded* r, std::span<const Val> s, const Val* c = nullptr,
               const Bounded* p = nullptr) {
    if (!on_) return;
    double first = 0;
    for (size_t k = 0; k < s.size(); ++k) {
      Axpy(v.l, r[k].v, s[k].l);
      first += std::fabs(r[k].v) * s[k].b.e;
    }
    if (c != nullptr && p != nullptr) {
      Axpy(v.l, p->v, c->l);
      first += std::fabs(p->v) * c->b.e;
    }
    const double rest = v.b.e - first;
    if (std::isnan(rest)) on_ = false;
    v.l.own += rest < 0 ? 0 : rest;
    Tighten(v);
  }
  // Gives v's unassigned part a symbol (v is used more than once).
  void Symbol(Val& v) {
    if (!on_ || v.l.own == 0) return;
    if (!std::isfinite(v.l.own)) {
      on_ = false;
      return;
    }
    v.l.c.resize(symbols_ + 1, 0.0);
    v.l.c[symbols_++] = v.l.own;
    v.l.own = 0;
  }

 private:
  void Axpy(Lin& d, double s, const Lin& x) const {
    if (s == 0) return;
    if (d.c.size() < x.c.size()) d.c.resize(x.c.size(), 0.0);
    for (size_t i = 0; i < x.c.size(); ++i) d.c[i] += s * x.c[i];
    d.own += std::fabs(s) * x.own;
  }
  // |sum c_i eps_i + rho| <= sum |c_i| + own: the smaller of it and the interval bound. Where
  // the interval bound is much the smaller (kReset), the error is that bound, unassigned: the
  // coefficients' cancellations downstream are then unlikely to recover what they lost.
  void Tighten(Val& v) {
    double radius = v.l.own;
    for (double c : v.l.c) radius += std::fabs(c);
    if (!std::isfinite(radius) || !std::isfinite(v.b.v) || std::isnan(v.b.e)) {
      on_ = false;
      return;
    }
    if (radius <= v.b.e) {
      v.b.e = radius;
    } else if (radius > kReset * v.b.e) {
      v.l = Lin{{}, v.b.e};
    }
  }
  static constexpr double kReset = 1.5;

  bool on_;
  size_t symbols_ = 0;
};

// The largest |f''| of sigmoid or tanh on [lo, hi]: at the ends or at the extremes of f'' inside
// (sigmoid: +-ln(2 + sqrt(3)); tanh: +-atanh(1 / sqrt(3))).
double Curvature(Act act, double lo, double hi) {
  const bool sigmoid = act == Act::kSigmoid;
  const auto f2 = [sigmoid](double x) {
    if (sigmoid) {
      const double s = Sigmoid(x);
      return std::fabs(s * (1 - s) * (1 - 2 * s));
    }
    const double th = std::tanh(x);
    return std::fabs(2 * th * (1 - th * th));
  };
  const double peak = sigmoid ? 1.3169578969248166 : 0.6584789484624084;
  double most = std::max(f2(lo), f2(hi));
  for (double c : {-peak, peak}) {
    if (lo <= c && c <= hi) most = std::max(most, f2(c));
  }
  return most;
}

// The largest |f(v + d) - f(v) - f'(v) d| over |d| <= e for sigmoid and tanh: f' is even and
// decreasing in |x|, so the remainder's derivative f'(v + d) - f'(v) vanishes at d = 0 and
// d = -2v only, and its extremes are at d = +-e and -2v. Computed in double (8 double ULPs of
// |f(v)| + e added for its cancellation), and never more than Taylor's |f''| / 2 e^2.
double Remainder(Act act, double v, double e) {
  const auto f = [act](double x) { return act == Act::kSigmoid ? Sigmoid(x) : std::tanh(x); };
  const double fv = f(v);
  const double d1 = act == Act::kSigmoid ? fv * (1 - fv) : 1 - fv * fv;
  const auto rem = [&](double d) { return std::fabs(f(v + d) - fv - d1 * d); };
  double most = std::max(rem(e), rem(-e));
  if (2 * std::fabs(v) <= e) most = std::max(most, rem(-2 * v));
  most += 0x1p-50 * (std::fabs(fv) + e);
  return std::min(most, 0.5 * Curvature(act, v - e, v + e) * e * e);
}

// An activation: f(x + d) - f(x) = f'(x) d + a remainder (relu: its kink; sigmoid and tanh:
// Remainder), plus the steps' own error.
Val Activation(Track& t, Signed& sg, Act act, const Val& x) {
  double local = 0;
  const Bounded y = Activate(t, act, x.b, local);
  if (!sg.on()) return {y, {}};
  const double v = x.b.v, e = x.b.e;
  double d = 0, rest = 0;
  if (act == Act::kRelu) {
    d = v > 0 ? 1 : 0;
    rest = v > 0 ? std::max(0.0, e - v) : std::max(0.0, v + e);
  } else {
    const double fv = act == Act::kSigmoid ? Sigmoid(v) : std::tanh(v);
    d = act == Act::kSigmoid ? fv * (1 - fv) : 1 - fv * fv;
    rest = Remainder(act, v, e);
  }
  return sg.Make(y, {{d, &x}}, rest + local);
}

Val Product(const ErrorArith& m, Signed& sg, const Val& a, const Val& b) {
  return sg.Additive(m.Mul(a.b, b.b), {{b.b.v, &a}, {a.b.v, &b}});
}

std::vector<Bounded> Intervals(std::span<const Val> v) {
  std::vector<Bounded> b(v.size());
  for (size_t i = 0; i < v.size(); ++i) b[i] = v[i].b;
  return b;
}

// One direction's operands (the rows of its gates); null where the option is absent.
struct Params {
  const Bounded* w = nullptr;   // [gates * H, inputSize]
  const Bounded* r = nullptr;   // [gates * H, H]
  const Bounded* b = nullptr;   // [gates * H]
  const Bounded* rb = nullptr;  // [gates * H]
  const Bounded* p = nullptr;   // [3 * H]: i, o, f (lstm)
};

const Bounded* Row(const Bounded* v, size_t row) { return v == nullptr ? nullptr : v + row; }

// gruCell (§api-mlgraphbuilder-grucell) for one batch row: x [inputSize], h [H] -> h' (each
// element given a symbol).
std::vector<Val> GruCell(Track& t, Signed& sg, const RecurrentAttributes& at, const Params& q,
                         std::span<const Bounded> x, std::span<const Val> h) {
  const ErrorArith& m = t.m;
  const size_t in = x.size(), hs = h.size();
  const bool zrn = at.gru_layout == MLGruWeightLayout::kZrn;
  const size_t z_row = zrn ? 0 : hs, r_row = zrn ? hs : 0, n_row = 2 * hs;
  const Act gate = at.activations[0], cell = at.activations[1];
  const std::vector<Bounded> hb = Intervals(h);
  const auto gate_pre = [&](size_t row, std::span<const Val> s, std::span<const Bounded> sb) {
    const Bounded* rw = q.r + row * hs;
    Val v{Pre(t, {Row(q.b, row), Row(q.rb, row)}, x, q.w + row * in, sb, rw), {}};
    sg.Through(v, rw, s);
    return v;
  };
  std::vector<Val> r(hs), rh(hs), out(hs);
  for (size_t j = 0; j < hs; ++j) {
    r[j] = Activation(t, sg, gate, gate_pre(r_row + j, h, hb));
    if (!at.reset_after) {
      rh[j] = Product(m, sg, r[j], h[j]);
      sg.Symbol(rh[j]);  // used by every row of the new gate
    }
  }
  const std::vector<Bounded> rhb = Intervals(rh);
  for (size_t j = 0; j < hs; ++j) {
    const Val z = Activation(t, sg, gate, gate_pre(z_row + j, h, hb));
    const size_t row = n_row + j;
    Val pre;
    if (at.reset_after) {
      // b + (x · Wn + r * (rb + h · Rn)); each part also as one sum with its bias.
      const Bounded* rw = q.r + row * hs;
      Val hr{Pre(t, {Row(q.rb, row)}, {}, nullptr, hb, rw), {}};
      sg.Through(hr, rw, h);
      const Bounded xb = Pre(t, {Row(q.b, row)}, x, q.w + row * in, {}, nullptr);
      const Bounded x_part = Pre(t, {}, x, q.w + row * in, {}, nullptr);
      const Bounded inner = m.Add(x_part, m.Mul(r[j].b, hr.b));
      Bounded p = q.b != nullptr ? m.Add(q.b[row], inner) : inner;
      p = Larger(p, m.Add(xb, m.Mul(r[j].b, hr.b)));
      pre = sg.Additive(p, {{r[j].b.v, &hr}, {hr.b.v, &r[j]}});
    } else {
      // (b + rb) + (x · Wn + (r * h) · Rn).
      pre = gate_pre(row, rh, rhb);
    }
    const Val n = Activation(t, sg, cell, pre);
    double rest = 0;
    const Bounded y = Update(m, z.b, h[j].b, n.b, rest);
    out[j] = sg.Make(y, {{h[j].b.v - n.b.v, &z}, {z.b.v, &h[j]}, {1 - z.b.v, &n}}, rest);
    sg.Symbol(out[j]);
  }
  return out;
}

// lstmCell (§api-mlgraphbuilder-lstmcell) for one batch row: x [inputSize], h, c [H] -> h', c'.
// The peepholes use the incoming cell state and are packed i, o, f (as ops/rnn.cc).
void LstmCell(Track& t, Signed& sg, const RecurrentAttributes& at, const Params& q,
              std::span<const Bounded> x, std::span<const Val> h, std::span<const Val> c,
              std::vector<Val>& h_out, std::vector<Val>& c_out) {
  const ErrorArith& m = t.m;
  const size_t in = x.size(), hs = h.size();
  const bool iofg = at.lstm_layout == MLLstmWeightLayout::kIofg;
  const size_t i_row = 0, o_row = iofg ? hs : 3 * hs, f_row = iofg ? 2 * hs : hs,
               g_row = iofg ? 3 * hs : 2 * hs;
  const Act gate = at.activations[0], cell = at.activations[1], filter = at.activations[2];
  const std::vector<Bounded> hb = Intervals(h);
  h_out.assign(hs, {});
  c_out.assign(hs, {});
  for (size_t j = 0; j < hs; ++j) {
    const auto pre = [&](size_t row, const Bounded* peep) {
      const Bounded* rw = q.r + row * hs;
      Val v{Pre(t, {Row(q.b, row), Row(q.rb, row)}, x, q.w + row * in, hb, rw,
                peep != nullptr ? &c[j].b : nullptr, peep),
            {}};
      sg.Through(v, rw, h, &c[j], peep);
      return v;
    };
    const Val i = Activation(t, sg, gate, pre(i_row + j, Row(q.p, j)));
    const Val f = Activation(t, sg, gate, pre(f_row + j, Row(q.p, 2 * hs + j)));
    const Val g = Activation(t, sg, cell, pre(g_row + j, nullptr));
    const Val o = Activation(t, sg, gate, pre(o_row + j, Row(q.p, hs + j)));
    const Bounded ct = m.Add(m.Mul(f.b, c[j].b), m.Mul(i.b, g.b));
    c_out[j] = sg.Additive(ct, {{c[j].b.v, &f}, {f.b.v, &c[j]}, {g.b.v, &i}, {i.b.v, &g}});
    sg.Symbol(c_out[j]);  // carried, and used by h'
    h_out[j] = Product(m, sg, o, Activation(t, sg, filter, c_out[j]));
    sg.Symbol(h_out[j]);
  }
}

// Input `slot` as Bounded values (empty when the slot is absent).
std::vector<Bounded> BoundedSlot(const ErrorModelArgs& a, int slot) {
  if (slot < 0) return {};
  const auto k = static_cast<size_t>(slot);
  const std::vector<double> v = Values(a.inputs[k]->data);
  const std::vector<double> e = InputBound(a, k);
  std::vector<Bounded> b(v.size());
  for (size_t i = 0; i < v.size(); ++i) b[i] = {v[i], e[i]};
  return b;
}

const Bounded* At(const std::vector<Bounded>& v, size_t offset) {
  return v.empty() ? nullptr : v.data() + offset;
}

// `count` elements of `init` from `offset`, or zeros (exact) when the option is absent; each
// bounded element's error is a symbol.
std::vector<Val> State(Signed& sg, const std::vector<Bounded>& init, size_t offset, size_t count) {
  std::vector<Val> s(count, Val{X(0), {}});
  if (init.empty()) return s;
  for (size_t j = 0; j < count; ++j) {
    s[j].b = init[offset + j];
    s[j].l.own = s[j].b.e;
    sg.Symbol(s[j]);
  }
  return s;
}

// The signed model's work, at most gates * H^3 * steps^2 multiply-adds a (direction, batch) row
// (each gate row combines H states' coefficients over the up to 2 H symbols a step adds; about
// 0.5 s for a gru, 1 s for an lstm at the limit: hidden 128 and 26-30 steps), and its memory,
// H states of 2 H (steps + 1) coefficients: larger operators keep the interval bounds alone.
bool SignedFits(size_t gates, size_t hs, size_t steps, size_t rows) {
  const double h = static_cast<double>(hs), t = static_cast<double>(steps);
  const double work = static_cast<double>(gates) * h * h * h * t * t * static_cast<double>(rows);
  return work <= 6e9 && h * 2 * h * (t + 1) <= 0x1p21;
}

}  // namespace

bool HasRnnModel(OpId op) {
  return op == OpId::gru || op == OpId::gruCell || op == OpId::lstm || op == OpId::lstmCell;
}

std::optional<Bounds> RnnBounds(const ErrorModelArgs& a) {
  const OperatorNode& node = a.graph.operators()[a.index];
  const auto* at = node.Attributes<RecurrentAttributes>();
  if (at == nullptr) return std::nullopt;
  if (!FloatOutput(a)) return Bounds(node.outputs.size());
  const ErrorArith m = ArithFor(a);
  const bool lstm = at->lstm, cell = at->cell;
  const size_t gates = lstm ? 4 : 3;
  const size_t batch = at->batch, in = at->input_size, hs = at->hidden_size;
  const size_t steps = cell ? 1 : at->steps;
  const size_t dirs = !cell && at->direction == MLRecurrentNetworkDirection::kBoth ? 2 : 1;
  const std::vector<Bounded> x = BoundedSlot(a, 0), w = BoundedSlot(a, 1), r = BoundedSlot(a, 2);
  const std::vector<Bounded> b = BoundedSlot(a, at->bias), rb = BoundedSlot(a, at->recurrent_bias),
                             p = BoundedSlot(a, at->peephole_weight);
  const std::vector<Bounded> h0 = BoundedSlot(a, cell ? 3 : at->initial_hidden_state);
  const std::vector<Bounded> c0 =
      lstm ? BoundedSlot(a, cell ? 4 : at->initial_cell_state) : std::vector<Bounded>{};
  // Outputs: hidden (, cell) (, sequence).
  const size_t n_out = node.outputs.size();
  const size_t seq = at->return_sequence && !cell ? (lstm ? 2 : 1) : n_out;
  std::vector<std::vector<double>> ref(n_out);
  Bounds out(n_out);
  std::vector<std::vector<uint8_t>> flags(n_out);
  for (size_t k = 0; k < n_out; ++k) {
    ref[k] = Values(a.outputs[k].data);
    out[k].assign(ref[k].size(), 0.0);
    flags[k].assign(ref[k].size(), 0);
  }
  const auto put = [&](size_t k, size_t index, Bounded v, bool flagged) {
    if (k >= n_out || index >= ref[k].size()) return;
    out[k][index] = m.Judge(v, ref[k][index]);
    flags[k][index] = flagged ? 1 : 0;
  };
  const bool signed_on = SignedFits(gates, hs, steps, dirs * batch);
  std::vector<Val> h_next, c_next;
  for (size_t dir = 0; dir < dirs; ++dir) {
    const bool reverse =
        dir == 1 || (!cell && at->direction == MLRecurrentNetworkDirection::kBackward);
    const Params q{At(w, dir * gates * hs * in), At(r, dir * gates * hs * hs),
                   At(b, dir * gates * hs), At(rb, dir * gates * hs), At(p, dir * 3 * hs)};
    for (size_t n = 0; n < batch; ++n) {
      const size_t state = (dir * batch + n) * hs;
      Signed sg(signed_on);
      std::vector<Val> h = State(sg, h0, state, hs), c = State(sg, c0, state, hs);
      m.TakeOverflow();
      Track track{m, a.graph.operand(node.outputs[0]).desc.dataType};
      for (size_t step = 0; step < steps; ++step) {
        const size_t t = reverse ? steps - step - 1 : step;
        const std::span<const Bounded> xt(x.data() + (t * batch + n) * in, in);
        if (lstm) {
          LstmCell(track, sg, *at, q, xt, h, c, h_next, c_next);
          c.swap(c_next);
          h.swap(h_next);
        } else {
          h = GruCell(track, sg, *at, q, xt, h);
        }
        track.Note();
        if (seq < n_out) {
          for (size_t j = 0; j < hs; ++j) {
            put(seq, ((t * dirs + dir) * batch + n) * hs + j, h[j].b, track.overflow);
          }
        }
      }
      for (size_t j = 0; j < hs; ++j) {
        put(0, state + j, h[j].b, track.overflow);
        if (lstm) put(1, state + j, c[j].b, track.overflow);
      }
    }
  }
  if (a.overflow != nullptr) *a.overflow = std::move(flags);
  return out;
}

}  // namespace nnref::error_model
