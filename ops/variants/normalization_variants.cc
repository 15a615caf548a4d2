// Variants and mutants of batchNormalization, instanceNormalization, layerNormalization and
// softmax (the sum-family machinery is in sum_engine.cc / sums_internal.h).
//
// Normalizations follow the spec's emulation, output = scale * ((x - mean) / sqrt(variance +
// epsilon)) + bias, with the statistics (instance/layer) from reduceMean: mean, then the mean of
// the squared deviations. Variants evaluate it step by step in the operand type (or float32 for
// float16), with the statistics in two passes or Welford's one pass, and the normalization as
// the emulation's division, as a multiplication by 1/sqrt(variance + epsilon), or folded into one
// scale and shift per channel (x * a + b, the inference-engine form of batchNormalization).
// Statistics that overflow the operand type on finite inputs make their group's outputs NaN (an
// overflow the audit states), not the arbitrary value the next steps would give (x / Inf = 0).
// The folded forms do not apply where variance + epsilon = 0 (they would give NaN for +-Inf).
// Softmax: exp(x - max), their sum in some order, then a division or a multiplication by the
// reciprocal of the sum.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/normalization.h"
#include "ops/softmax.h"
#include "ops/variants/sums_internal.h"

namespace nnref::sums {

namespace {

enum class Stats : uint8_t {
  kTwoPass,  // mean = sum / n; variance = sum((x - mean)^2) / n: the spec's emulation
  kWelford,  // one pass: mean += (x - mean) / k; m2 += (x - old mean) * (x - new mean)
  kNaive,    // variance = sum(x^2) / n - mean^2 (the mutant)
};

enum class Apply : uint8_t {
  kEmulation,  // scale * ((x - mean) / sqrt(variance + epsilon)) + bias
  kRsqrt,      // r = 1 / sqrt(variance + epsilon) rounded once; (x - mean) * r * scale + bias
  kFolded,     // a = scale * r, b = bias - mean * a; x * a + b
  kFoldedFma,  // as kFolded with fma(x, a, b)
};

struct NormMutation {
  bool ignore_epsilon = false, ignore_sqrt = false, ignore_scale = false, ignore_bias = false;
  bool unbiased = false;   // variance divided by n - 1
  bool drop_last = false;  // the last element left out of the statistics' sums (still / n)
};

struct NormMethod {
  Stats stats = Stats::kTwoPass;
  Apply apply = Apply::kEmulation;
  SumSpec sum;  // the statistics' sums
};

// One output element. Sets `degenerate` when a folded form meets 1 / sqrt(variance + epsilon) =
// Infinity (variance + epsilon = 0), where folding is undefined (the emulation gives +-Inf/NaN).
double Normalize(Prec p, Apply apply, bool no_sqrt, double x, double mean, double variance,
                 double epsilon, double scale, double bias, bool& degenerate) {
  const double v = Add(p, variance, epsilon);
  switch (apply) {
    case Apply::kEmulation: {
      const double d = no_sqrt ? v : Sqrt(p, v);
      return Add(p, Mul(p, scale, Div(p, Sub(p, x, mean), d)), bias);
    }
    case Apply::kRsqrt: {
      const double r = Round(p, no_sqrt ? 1 / v : 1 / std::sqrt(v));
      return Add(p, Mul(p, Mul(p, Sub(p, x, mean), r), scale), bias);
    }
    case Apply::kFolded:
    case Apply::kFoldedFma: {
      const double r = Round(p, no_sqrt ? 1 / v : 1 / std::sqrt(v));
      degenerate = degenerate || std::isinf(r);
      const double a = Mul(p, scale, r);
      const double b = Sub(p, bias, Mul(p, mean, a));
      return apply == Apply::kFoldedFma ? Fma(p, x, a, b) : Add(p, Mul(p, x, a), b);
    }
  }
  return 0;
}

// The optional scale (bias) input as values over `shape`, or nullopt when absent.
std::optional<std::vector<double>> Optional(const Context& c, int input, const Shape& shape,
                                            const std::vector<size_t>& axes) {
  if (input < 0) return std::nullopt;
  return ValuesAlong(c.In(static_cast<size_t>(input)), shape, axes);
}

Values1 NormalizationBody(const Context& c, Prec p, const NormMethod& method, NormMutation m) {
  const auto* g = c.Attributes<NormalizationAttributes>();
  if (!g) return std::nullopt;
  const bool batch = c.node.op == OpId::batchNormalization;
  if (batch && (method.stats != Stats::kTwoPass || m.unbiased || m.drop_last)) return std::nullopt;
  const Shape& shape = c.In(0).shape();
  const std::vector<double> x = Values(c.In(0));
  const std::optional<std::vector<double>> scale =
      Optional(c, g->scale_input, shape, g->param_axes);
  const std::optional<std::vector<double>> bias = Optional(c, g->bias_input, shape, g->param_axes);
  if ((m.ignore_scale && !scale) || (m.ignore_bias && !bias) ||
      (m.ignore_epsilon && g->epsilon == 0)) {
    return std::nullopt;
  }
  const double epsilon = m.ignore_epsilon ? 0 : g->epsilon;
  const auto scale_at = [&](size_t i) { return scale && !m.ignore_scale ? (*scale)[i] : 1.0; };
  const auto bias_at = [&](size_t i) { return bias && !m.ignore_bias ? (*bias)[i] : 0.0; };
  std::vector<double> out(x.size());
  bool degenerate = false;
  if (batch) {
    const std::vector<double> mean = ValuesAlong(c.In(1), shape, g->param_axes);
    const std::vector<double> variance = ValuesAlong(c.In(2), shape, g->param_axes);
    for (size_t i = 0; i < x.size(); ++i) {
      out[i] = Normalize(p, method.apply, m.ignore_sqrt, x[i], mean[i], variance[i], epsilon,
                         scale_at(i), bias_at(i), degenerate);
    }
    if (degenerate) return std::nullopt;
    return out;
  }
  std::vector<bool> inner(shape.size(), false);
  for (size_t a : g->reduce_axes) inner[a] = true;
  const SumSpec s = [&] {
    SumSpec r = method.sum;
    r.p = p;
    return r;
  }();
  bool applies = true;
  std::vector<double> xs, dev;
  ForEachGroup(shape, inner, [&](std::span<const int64_t> group) {
    xs.clear();
    for (int64_t k : group) xs.push_back(x[static_cast<size_t>(k)]);
    const size_t n = xs.size();
    if (m.unbiased && n < 2) applies = false;
    const double count = static_cast<double>(n);
    const double var_count = static_cast<double>(m.unbiased ? n - 1 : n);
    const std::span<const double> t = std::span(xs).first(m.drop_last && n > 0 ? n - 1 : n);
    double mean = 0, variance = 0;
    switch (method.stats) {
      case Stats::kTwoPass: {
        mean = Div(p, Sum(t, s), count);
        dev.clear();
        for (double e : t) dev.push_back(Sub(p, e, mean));
        variance = Div(p, Dot(dev, dev, s), var_count);
        break;
      }
      case Stats::kWelford: {
        double m2 = 0;
        for (size_t k = 0; k < t.size(); ++k) {
          const double delta = Sub(p, t[k], mean);
          mean = Add(p, mean, Div(p, delta, static_cast<double>(k + 1)));
          m2 = Add(p, m2, Mul(p, delta, Sub(p, t[k], mean)));
        }
        variance = Div(p, m2, var_count);
        break;
      }
      case Stats::kNaive:
        mean = Div(p, Sum(t, s), count);
        variance = Sub(p, Div(p, Dot(t, t, s), var_count), Mul(p, mean, mean));
        break;
    }
    // Statistics that overflow the operand type on finite inputs: what follows depends on the
    // implementation ((x - mean) / Inf = 0, Inf - Inf = NaN), so the group's outputs are NaN and
    // the audit sees an overflow (a stated rejection) rather than an arbitrary value.
    const bool finite =
        std::all_of(xs.begin(), xs.end(), [](double e) { return std::isfinite(e); });
    const bool overflow = finite && !(std::isfinite(mean) && std::isfinite(variance));
    for (int64_t k : group) {
      const auto i = static_cast<size_t>(k);
      out[i] = overflow ? std::numeric_limits<double>::quiet_NaN()
                        : Normalize(p, method.apply, m.ignore_sqrt, x[i], mean, variance, epsilon,
                                    scale_at(i), bias_at(i), degenerate);
    }
  });
  if (!applies || degenerate) return std::nullopt;
  return out;
}

Values1 SoftmaxBody(const Context& c, const SumSpec& s, bool reciprocal, bool no_max,
                    bool drop_last) {
  const auto* g = c.Attributes<SoftmaxAttributes>();
  if (!g) return std::nullopt;
  const Prec p = s.p;
  const Shape& shape = c.In(0).shape();
  const std::vector<double> x = Values(c.In(0));
  std::vector<bool> inner(shape.size(), false);
  inner[g->axis] = true;
  std::vector<double> out(x.size()), e;
  bool overflowed = false;
  ForEachGroup(shape, inner, [&](std::span<const int64_t> line) {
    double mx = -kInfinity;
    for (int64_t k : line) mx = std::max(mx, x[static_cast<size_t>(k)]);  // NaN skipped
    e.clear();
    for (int64_t k : line) {
      const double v = x[static_cast<size_t>(k)];
      e.push_back(Exp(p, no_max ? v : Sub(p, v, mx)));
      overflowed = overflowed || std::isinf(e.back());
    }
    const size_t n = e.size();
    const double sum = Sum(std::span(e).first(drop_last && n > 0 ? n - 1 : n), s);
    overflowed = overflowed || std::isinf(sum) || sum == 0;
    const double r = reciprocal ? Div(p, 1, sum) : 0;
    for (size_t i = 0; i < n; ++i) {
      out[static_cast<size_t>(line[i])] = reciprocal ? Mul(p, e[i], r) : Div(p, e[i], sum);
    }
  });
  // Without overflow or total underflow, exp(x) / sum(exp(x)) is a legitimate evaluation.
  if (no_max && !overflowed) return std::nullopt;
  return out;
}

}  // namespace

void AddNormalizationAlternatives(std::vector<Alternative>& out) {
  const auto add = [&](std::string op, std::string name, bool legitimate, std::string what, Acc acc,
                       Body body) {
    out.push_back(
        Make(std::move(op), std::move(name), legitimate, std::move(what), acc, std::move(body)));
  };
  // batchNormalization: mean and variance are inputs.
  struct BatchVariant {
    Acc acc;
    Apply apply;
    const char* suffix;
    const char* what;
  };
  for (const BatchVariant& v :
       {BatchVariant{Acc::kF32, Apply::kEmulation, "emulation",
                     "the emulation step by step: (x - mean) / sqrt(variance + epsilon)"},
        BatchVariant{Acc::kF32, Apply::kRsqrt, "rsqrt",
                     "(x - mean) * (1 / sqrt(variance + epsilon)) * scale + bias"},
        BatchVariant{Acc::kF32, Apply::kFolded, "folded",
                     "folded into a = scale / sqrt(variance + epsilon), b = bias - mean * a (as "
                     "inference engines fold it); x * a + b; not where variance + epsilon = 0"},
        BatchVariant{Acc::kF32, Apply::kFoldedFma, "folded-fma",
                     "folded into a and b as above; fma(x, a, b)"},
        BatchVariant{Acc::kF16, Apply::kEmulation, "emulation",
                     "the emulation step by step: (x - mean) / sqrt(variance + epsilon)"},
        BatchVariant{Acc::kF16, Apply::kFoldedFma, "folded-fma",
                     "folded into a = scale / sqrt(variance + epsilon), b = bias - mean * a; "
                     "fma(x, a, b)"},
        BatchVariant{Acc::kF16F32, Apply::kEmulation, "emulation",
                     "the emulation step by step: (x - mean) / sqrt(variance + epsilon)"},
        BatchVariant{Acc::kF16F32, Apply::kFoldedFma, "folded-fma",
                     "folded into a = scale / sqrt(variance + epsilon), b = bias - mean * a; "
                     "fma(x, a, b)"}}) {
    add("batchNormalization", Name(v.acc, v.suffix), true, AccText(v.acc) + "; " + v.what, v.acc,
        [apply = v.apply](const Context& c, Prec p) {
          return NormalizationBody(c, p, {Stats::kTwoPass, apply, kSeq}, {});
        });
  }

  // instanceNormalization and layerNormalization: the statistics too.
  struct GroupVariant {
    Acc acc;
    NormMethod method;
    const char* suffix;
    const char* what;
  };
  const std::vector<GroupVariant> group_variants = {
      {Acc::kF32,
       {Stats::kTwoPass, Apply::kEmulation, kSeq},
       "two-pass",
       "the emulation step by step: mean, mean of squared deviations (sequential sums)"},
      {Acc::kF32,
       {Stats::kTwoPass, Apply::kRsqrt, kSeq},
       "two-pass-rsqrt",
       "two-pass statistics (sequential sums); (x - mean) * (1 / sqrt(variance + epsilon))"},
      {Acc::kF32,
       {Stats::kTwoPass, Apply::kRsqrt, kPair},
       "two-pass-pairwise-rsqrt",
       "two-pass statistics (tree sums, GPU); times 1 / sqrt(variance + epsilon)"},
      {Acc::kF32,
       {Stats::kTwoPass, Apply::kEmulation, kBlk8},
       "two-pass-blocked8",
       "two-pass statistics (8 SIMD lanes); the emulation's division"},
      {Acc::kF32,
       {Stats::kWelford, Apply::kRsqrt, kSeq},
       "welford-rsqrt",
       "Welford's one-pass mean and variance; times 1 / sqrt(variance + epsilon)"},
      {Acc::kF16,
       {Stats::kTwoPass, Apply::kEmulation, kSeq},
       "two-pass",
       "the emulation step by step: mean, mean of squared deviations (sequential sums)"},
      {Acc::kF16,
       {Stats::kWelford, Apply::kRsqrt, kSeq},
       "welford-rsqrt",
       "Welford's one-pass mean and variance; times 1 / sqrt(variance + epsilon)"},
      {Acc::kF16F32,
       {Stats::kTwoPass, Apply::kRsqrt, kSeq},
       "two-pass-rsqrt",
       "two-pass statistics (sequential sums); times 1 / sqrt(variance + epsilon)"},
      {Acc::kF16F32,
       {Stats::kWelford, Apply::kEmulation, kSeq},
       "welford",
       "Welford's one-pass mean and variance; the emulation's division"},
  };
  for (const char* op : {"instanceNormalization", "layerNormalization"}) {
    for (const GroupVariant& v : group_variants) {
      add(op, Name(v.acc, v.suffix), true, AccText(v.acc) + "; " + v.what, v.acc,
          [method = v.method](const Context& c, Prec p) {
            return NormalizationBody(c, p, method, {});
          });
    }
    add(op, "naive-variance", false,
        "variance as E[x^2] - E[x]^2 in the operand type (catastrophic cancellation when |mean| "
        ">> deviation); otherwise as the two-pass variant",
        Acc::kOperand, [](const Context& c, Prec p) {
          return NormalizationBody(c, p, {Stats::kNaive, Apply::kEmulation, kSeq}, {});
        });
    add(op, "unbiased-variance", false, "the variance divided by n - 1 instead of n", Acc::kExact,
        [](const Context& c, Prec p) { return NormalizationBody(c, p, {}, {.unbiased = true}); });
    add(op, "dropped-last-term", false,
        "the last element of every group left out of the mean and variance sums", Acc::kExact,
        [](const Context& c, Prec p) { return NormalizationBody(c, p, {}, {.drop_last = true}); });
  }
  for (const char* op : {"batchNormalization", "instanceNormalization", "layerNormalization"}) {
    const auto mutant = [&](const char* name, const char* what, NormMutation m) {
      add(op, name, false, what, Acc::kExact,
          [m](const Context& c, Prec p) { return NormalizationBody(c, p, {}, m); });
    };
    mutant("ignored-epsilon", "epsilon left out of sqrt(variance + epsilon)",
           {.ignore_epsilon = true});
    mutant("ignored-sqrt", "divides by variance + epsilon instead of its square root",
           {.ignore_sqrt = true});
    mutant("ignored-scale", "the scale left out", {.ignore_scale = true});
    mutant("ignored-bias", "the bias left out", {.ignore_bias = true});
  }

  // softmax
  struct SoftmaxVariant {
    Acc acc;
    SumSpec sum;
    bool reciprocal;
  };
  for (const SoftmaxVariant& v :
       {SoftmaxVariant{Acc::kF32, kSeq, false}, SoftmaxVariant{Acc::kF32, kBlk8, false},
        SoftmaxVariant{Acc::kF32, kPair, true}, SoftmaxVariant{Acc::kF32, kBlk8, true},
        SoftmaxVariant{Acc::kF16, kSeq, false}, SoftmaxVariant{Acc::kF16, kPair, true},
        SoftmaxVariant{Acc::kF16F32, kSeq, false}, SoftmaxVariant{Acc::kF16F32, kBlk8, true}}) {
    const std::string order = OrderName(v.sum.order, v.sum.lanes);
    add("softmax", Name(v.acc, order + (v.reciprocal ? "-reciprocal" : "-divide")), true,
        AccText(v.acc) + "; exp(x - max), their " + order + " sum, then " +
            (v.reciprocal ? "times 1/sum" : "divided by the sum"),
        v.acc, [v](const Context& c, Prec p) {
          SumSpec s = v.sum;
          s.p = p;
          return SoftmaxBody(c, s, v.reciprocal, false, false);
        });
  }
  add("softmax", "no-max-subtraction", false,
      "exp(x) / sum(exp(x)) in the operand type; applies only where an exp overflows or every "
      "term underflows (elsewhere it is a legitimate evaluation)",
      Acc::kOperand, [](const Context& c, Prec p) {
        SumSpec s = kSeq;
        s.p = p;
        return SoftmaxBody(c, s, false, true, false);
      });
  add("softmax", "dropped-last-term", false, "the last exponential left out of the sum",
      Acc::kExact, [](const Context& c, Prec p) {
        SumSpec s = kSeq;
        s.p = p;
        return SoftmaxBody(c, s, false, false, true);
      });
}

}  // namespace nnref::sums
