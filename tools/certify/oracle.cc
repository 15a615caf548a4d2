#include "tools/certify/oracle.h"

#include <mpfr.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>

namespace nnref::certify {

namespace {

using LD = long double;
constexpr double kInf = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------------------------------------
// Values fixed by convention or by IEEE special values (NaN, ±Infinity and ±0 inputs), shared by
// both tiers. The conventions are the spec's formulas read as the reference documents them
// (ops/activations.cc, ops/elementwise_unary.cc): sign(NaN) = 0, relu/leakyRelu/elu of ±0 = +0,
// hardSwish(x <= -3) = -0, gelu(-Inf) = -0, softsign(±Inf) = ±1, tanh(±Inf) = ±1.
std::optional<double> Special(Fn fn, double x, double alpha, double beta) {
  const bool nan = std::isnan(x), inf = std::isinf(x), zero = x == 0;
  if (fn == Fn::kSign) {
    if (nan) return 0.0;
    return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0);
  }
  if (nan) return x;
  const double s = std::signbit(x) ? -1.0 : 1.0;
  switch (fn) {
    case Fn::kAbs:
      return std::fabs(x);
    case Fn::kCeil:
      if (inf || zero) return x;
      return std::nullopt;
    case Fn::kFloor:
    case Fn::kRoundEven:
      if (inf || zero) return x;
      return std::nullopt;
    case Fn::kIdentity:
      return x;
    case Fn::kNeg:
      return -x;
    case Fn::kReciprocal:
      if (inf) return s * 0.0;
      if (zero) return s * kInf;
      return std::nullopt;
    case Fn::kSqrt:
      if (zero) return x;
      if (x < 0) return std::numeric_limits<double>::quiet_NaN();
      if (inf) return kInf;
      return std::nullopt;
    case Fn::kExp:
      if (inf) return x > 0 ? kInf : 0.0;
      if (zero) return 1.0;
      return std::nullopt;
    case Fn::kLog:
      if (zero) return -kInf;
      if (x < 0) return std::numeric_limits<double>::quiet_NaN();
      if (inf) return kInf;
      if (x == 1) return 0.0;
      return std::nullopt;
    case Fn::kSin:
    case Fn::kTan:
      if (inf) return std::numeric_limits<double>::quiet_NaN();
      if (zero) return x;
      return std::nullopt;
    case Fn::kCos:
      if (inf) return std::numeric_limits<double>::quiet_NaN();
      if (zero) return 1.0;
      return std::nullopt;
    case Fn::kErf:
    case Fn::kTanh:
    case Fn::kSoftsign:
      if (inf) return s;
      if (zero) return x;
      return std::nullopt;
    case Fn::kElu:
      if (x >= 0) return x > 0 ? x : 0.0;
      if (inf) return -alpha;
      return std::nullopt;
    case Fn::kGelu:
      if (inf) return x > 0 ? kInf : -0.0;
      if (zero) return x;
      return std::nullopt;
    case Fn::kHardSigmoid:
      if (inf) {
        const double t = alpha == 0 ? beta : alpha * x;
        return t <= 0 ? 0.0 : (t >= 1 ? 1.0 : t);
      }
      return std::nullopt;
    case Fn::kHardSwish:
      if (x >= 3) return x;
      if (x <= -3) return -0.0;
      if (zero) return x;
      return std::nullopt;
    case Fn::kLeakyRelu:
      if (x >= 0) return x > 0 ? x : 0.0;
      if (inf) return alpha > 0 ? -kInf : (alpha < 0 ? kInf : 0.0);
      return std::nullopt;
    case Fn::kRelu:
      return x > 0 ? x : 0.0;
    case Fn::kSigmoid:
      if (inf) return x > 0 ? 1.0 : 0.0;
      if (zero) return 0.5;
      return std::nullopt;
    case Fn::kSoftplus:
      if (inf) return x > 0 ? kInf : 0.0;
      return std::nullopt;
    case Fn::kSign:
      break;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Tier 1: long double.

constexpr LD kRel1 = 0x1p-56L;  // 256 long-double ulps per libm call (glibc ldbl-96: a few)
constexpr LD kExact1 = 0;

// v = f(x) in long double and its relative bound; nullopt when the formula is not covered.
struct LdValue {
  LD v;
  LD rel;
};

LdValue EvalLd(Fn fn, LD x, LD alpha, LD beta) {
  switch (fn) {
    case Fn::kCeil:
      return {ceill(x), kExact1};
    case Fn::kFloor:
      return {floorl(x), kExact1};
    case Fn::kRoundEven:
      return {nearbyintl(x), kExact1};
    case Fn::kReciprocal:
      return {1 / x, 0x1p-63L};
    case Fn::kSqrt:
      return {sqrtl(x), 0x1p-63L};
    case Fn::kExp:
      return {expl(x), kRel1};
    case Fn::kLog:
      return {logl(x), kRel1};
    case Fn::kSin:
      return {sinl(x), kRel1};
    case Fn::kCos:
      return {cosl(x), kRel1};
    case Fn::kTan:
      return {tanl(x), kRel1};
    case Fn::kErf:
      return {erfl(x), kRel1};
    case Fn::kTanh:
      return {tanhl(x), kRel1};
    case Fn::kElu:
      return {alpha * expm1l(x), 2 * kRel1};
    case Fn::kGelu: {
      const LD z = -x * sqrtl(0.5L);
      const LD cond = (z > 0 ? 2 * z * z + 1 : 1) * 0x1p-62L;  // erfc's conditioning
      return {0.5L * x * erfcl(z), 2 * kRel1 + cond};
    }
    case Fn::kHardSigmoid: {
      const LD t = alpha * x + beta;  // the product is exact (24 + 24 bits)
      return {t <= 0 ? 0.0L : (t >= 1 ? 1.0L : t), 0x1p-63L};
    }
    case Fn::kHardSwish:
      return {x * (x + 3) / 6, 0x1p-61L};
    case Fn::kLeakyRelu:
      return {0.0L + alpha * x, kExact1};
    case Fn::kSigmoid:
      if (x >= 0) return {1 / (1 + expl(-x)), 4 * kRel1};
      {
        const LD e = expl(x);
        return {e / (1 + e), 4 * kRel1};
      }
    case Fn::kSoftplus:
      return {x > 0 ? x + log1pl(expl(-x)) : log1pl(expl(x)), 4 * kRel1};
    case Fn::kSoftsign:
      return {x / (1 + fabsl(x)), 0x1p-61L};
    default:
      return {x, kExact1};  // abs, identity, neg, relu, sign: Special() covers them
  }
}

// Float32 results known without evaluation, where the function has saturated: the exact value
// lies closer to a float32 value than a quarter of its ulp (or below 2^-150 in magnitude, or
// beyond 2^128 - 2^103), by the bounds in the comments. These skip the long-double calls on
// about half of all float32 inputs; the smoke's audit checks them against MPFR with the rest.
std::optional<double> Saturated(Fn fn, double x, double alpha) {
  switch (fn) {
    case Fn::kExp:  // e^-104 = 6.8e-46 < 2^-150 = 7.0e-46; e^89 = 4.5e38 > 2^128
      if (x <= -104) return 0.0;
      if (x >= 89) return kInf;
      return std::nullopt;
    case Fn::kSigmoid:  // 1 - sigmoid(x) < e^-x <= e^-18 = 1.5e-8 < 2^-25; sigmoid(x) < e^x
      if (x >= 18) return 1.0;
      if (x <= -104) return 0.0;
      return std::nullopt;
    case Fn::kSoftplus:  // 0 < softplus(x) - max(x, 0) < e^-|x|; half an ulp of x >= 18 is 2^-20
      if (x >= 18) return x;
      if (x <= -104) return 0.0;
      return std::nullopt;
    case Fn::kElu:  // alpha (e^x - 1) = -alpha (1 - e^x), e^x <= e^-18 = 1.5e-8 < 2^-25
      if (x <= -18) return 0.0 + -alpha;
      return std::nullopt;
    case Fn::kTanh:  // 1 - |tanh x| < 2 e^-2|x| <= 4.2e-9 < 2^-25; |x - tanh x| < |x|^3 / 3
      if (x >= 10) return 1.0;
      if (x <= -10) return -1.0;
      if (std::fabs(x) < 0x1p-12) return x;  // |x|^3 / 3 < |x| 2^-25.5
      return std::nullopt;
    case Fn::kSin:  // |x - sin x| < |x|^3 / 6 < |x| 2^-26.5 for |x| < 2^-12
    case Fn::kTan:  // |tan x - x| < |x|^3 / 2.9 < |x| 2^-25.5 for |x| < 2^-12
      if (std::fabs(x) < 0x1p-12) return x;
      return std::nullopt;
    case Fn::kCos:  // 0 < 1 - cos x < x^2 / 2 < 2^-25 for |x| < 2^-12
      if (std::fabs(x) < 0x1p-12) return 1.0;
      return std::nullopt;
    case Fn::kErf:  // 1 - |erf x| = erfc |x| <= erfc 4 = 1.5e-8 < 2^-25
      if (x >= 4) return 1.0;
      if (x <= -4) return -1.0;
      return std::nullopt;
    case Fn::kGelu:
      // x - gelu(x) = x Phi(-x) <= x 9.9e-10 < x 2^-26 for x >= 6;
      // |gelu(x)| = |x| Phi(x) <= 15 Phi(-15) = 5.5e-50 < 2^-150 for x <= -15.
      if (x >= 6) return x;
      if (x <= -15) return -0.0;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

// ---------------------------------------------------------------------------------------------
// Tier 2: MPFR.

// An MPFR value rounded to double *to odd* (truncate; force the last bit to 1 when inexact), so
// that one more rounding to float32 or float16 equals one rounding of the MPFR value.
double ToOddDouble(mpfr_srcptr v) {
  if (mpfr_nan_p(v)) return std::numeric_limits<double>::quiet_NaN();
  double d = mpfr_get_d(v, MPFR_RNDZ);
  if (mpfr_cmp_d(v, d) != 0 && (std::bit_cast<uint64_t>(d) & 1) == 0) {
    d = std::nextafter(d, mpfr_sgn(v) > 0 ? kInf : -kInf);
  }
  return d;
}

// The result of a Ziv iteration: the exact/bounded value y and a relative slack exponent k
// (|y - f(x)| <= 2^(k - prec) |y|; ignored when exact).
class Mp {
 public:
  explicit Mp(mpfr_prec_t p) : p_(p) {
    mpfr_inits2(p, a_, b_, c_, y_, static_cast<mpfr_ptr>(nullptr));
  }
  ~Mp() { mpfr_clears(a_, b_, c_, y_, static_cast<mpfr_ptr>(nullptr)); }
  Mp(const Mp&) = delete;
  Mp& operator=(const Mp&) = delete;

  // Evaluates fn at x into y_. Returns false when some step was inexact and sets `slack`.
  bool Eval(Fn fn, double x, double alpha, double beta, int& slack) {
    bool inexact = false;
    auto step = [&](int t) { inexact |= t != 0; };
    mpfr_set_d(a_, x, MPFR_RNDN);  // exact (p >= 53)
    slack = 2;
    switch (fn) {
      case Fn::kCeil:
        mpfr_ceil(y_, a_);  // exact at p >= 53 (the return value says whether y != x)
        break;
      case Fn::kFloor:
        mpfr_floor(y_, a_);  // exact at p >= 53 (the return value says whether y != x)
        break;
      case Fn::kRoundEven:
        mpfr_rint(y_, a_, MPFR_RNDN);  // exact at p >= 53 (the return value says whether y != x)
        break;
      case Fn::kReciprocal:
        step(mpfr_ui_div(y_, 1, a_, MPFR_RNDN));
        break;
      case Fn::kSqrt:
        step(mpfr_sqrt(y_, a_, MPFR_RNDN));
        break;
      case Fn::kExp:
        step(mpfr_exp(y_, a_, MPFR_RNDN));
        break;
      case Fn::kLog:
        step(mpfr_log(y_, a_, MPFR_RNDN));
        break;
      case Fn::kSin:
        step(mpfr_sin(y_, a_, MPFR_RNDN));
        break;
      case Fn::kCos:
        step(mpfr_cos(y_, a_, MPFR_RNDN));
        break;
      case Fn::kTan:
        step(mpfr_tan(y_, a_, MPFR_RNDN));
        break;
      case Fn::kErf:
        step(mpfr_erf(y_, a_, MPFR_RNDN));
        break;
      case Fn::kTanh:
        step(mpfr_tanh(y_, a_, MPFR_RNDN));
        break;
      case Fn::kElu:  // alpha * (exp(x) - 1), x < 0
        step(mpfr_expm1(b_, a_, MPFR_RNDN));
        step(mpfr_mul_d(y_, b_, alpha, MPFR_RNDN));
        slack = 3;
        break;
      case Fn::kGelu: {  // 0.5 x erfc(-x / sqrt 2)
        step(mpfr_sqrt_ui(b_, 2, MPFR_RNDN));
        step(mpfr_div(c_, a_, b_, MPFR_RNDN));
        mpfr_neg(c_, c_, MPFR_RNDN);
        const double z = mpfr_get_d(c_, MPFR_RNDN);
        step(mpfr_erfc(b_, c_, MPFR_RNDN));
        step(mpfr_mul(y_, b_, a_, MPFR_RNDN));
        mpfr_div_2ui(y_, y_, 1, MPFR_RNDN);
        // z carries 2 roundings, times erfc's condition number (at most 2 z^2 + 1), plus 2.
        const double zz = z > 0 ? std::min(z * z, 1e30) : 0;
        slack = 4 + static_cast<int>(std::ceil(std::log2(2 * zz + 1)));
        break;
      }
      case Fn::kHardSigmoid: {
        step(mpfr_mul_d(b_, a_, alpha, MPFR_RNDN));
        step(mpfr_add_d(b_, b_, beta, MPFR_RNDN));
        if (mpfr_sgn(b_) <= 0) {
          mpfr_set_zero(y_, 1);
          return true;  // clamped: exact whatever b's error (beyond 0 it stays beyond)
        }
        if (mpfr_cmp_ui(b_, 1) >= 0) {
          mpfr_set_ui(y_, 1, MPFR_RNDN);
          return true;
        }
        mpfr_set(y_, b_, MPFR_RNDN);
        break;
      }
      case Fn::kHardSwish:
        step(mpfr_add_ui(b_, a_, 3, MPFR_RNDN));
        step(mpfr_mul(b_, b_, a_, MPFR_RNDN));
        step(mpfr_div_ui(y_, b_, 6, MPFR_RNDN));
        slack = 3;
        break;
      case Fn::kLeakyRelu:
        step(mpfr_mul_d(y_, a_, alpha, MPFR_RNDN));
        break;
      case Fn::kSigmoid:
        if (x >= 0) {  // 1 / (1 + exp(-x))
          mpfr_neg(b_, a_, MPFR_RNDN);
          step(mpfr_exp(b_, b_, MPFR_RNDN));
          step(mpfr_add_ui(b_, b_, 1, MPFR_RNDN));
          step(mpfr_ui_div(y_, 1, b_, MPFR_RNDN));
        } else {  // e / (1 + e)
          step(mpfr_exp(b_, a_, MPFR_RNDN));
          step(mpfr_add_ui(c_, b_, 1, MPFR_RNDN));
          step(mpfr_div(y_, b_, c_, MPFR_RNDN));
        }
        slack = 4;
        break;
      case Fn::kSoftplus:
        if (x > 0) {  // x + log1p(exp(-x))
          mpfr_neg(b_, a_, MPFR_RNDN);
          step(mpfr_exp(b_, b_, MPFR_RNDN));
          step(mpfr_log1p(b_, b_, MPFR_RNDN));
          step(mpfr_add(y_, a_, b_, MPFR_RNDN));
        } else {
          step(mpfr_exp(b_, a_, MPFR_RNDN));
          step(mpfr_log1p(y_, b_, MPFR_RNDN));
        }
        slack = 4;
        break;
      case Fn::kSoftsign:
        mpfr_abs(b_, a_, MPFR_RNDN);
        step(mpfr_add_ui(b_, b_, 1, MPFR_RNDN));
        step(mpfr_div(y_, a_, b_, MPFR_RNDN));
        slack = 3;
        break;
      default:  // abs, identity, neg, relu, sign: Special() covers every input
        mpfr_set(y_, a_, MPFR_RNDN);
        break;
    }
    return !inexact;
  }

  // Rounds [y - 2^(slack - p) |y|, y + ...] to T at both ends; false when they differ.
  template <typename Round>
  bool Decide(bool exact, int slack, Round round, double& out) {
    if (exact || mpfr_zero_p(y_)) {  // a zero from underflow keeps the true value's sign
      out = ToOddDouble(y_);
      return true;
    }
    mpfr_abs(b_, y_, MPFR_RNDN);
    mpfr_mul_2si(b_, b_, slack - static_cast<long>(p_), MPFR_RNDU);
    mpfr_sub(c_, y_, b_, MPFR_RNDD);
    mpfr_add(b_, y_, b_, MPFR_RNDU);
    const double lo = ToOddDouble(c_), hi = ToOddDouble(b_);
    if (round(lo) != round(hi)) return false;
    out = ToOddDouble(y_);
    return true;
  }

 private:
  mpfr_prec_t p_;
  mpfr_t a_, b_, c_, y_;
};

uint32_t F32Bits(double d) { return std::bit_cast<uint32_t>(static_cast<float>(d)); }
uint16_t F16Bits(double d) { return std::bit_cast<uint16_t>(static_cast<_Float16>(d)); }

// Ziv's loop in MPFR; `round` maps a double (to odd) to the output bits.
template <typename Bits, typename Round>
Bits Tier2(Fn fn, double x, double alpha, double beta, Round round, OracleStats& stats) {
  if (const auto s = Special(fn, x, alpha, beta)) return round(*s);
  int e = 0;
  std::frexp(x, &e);
  mpfr_prec_t p = 128 + (e < 0 ? -e : 0);
  for (; p <= 16384; p *= 2) {
    Mp mp(p);
    int slack = 0;
    const bool exact = mp.Eval(fn, x, alpha, beta, slack);
    double out = 0;
    if (mp.Decide(exact, slack, round, out)) return round(out);
  }
  ++stats.undecided;
  Mp mp(16384);
  int slack = 0;
  mp.Eval(fn, x, alpha, beta, slack);
  double out = 0;
  mp.Decide(true, slack, round, out);
  return round(out);
}

// An option cast to float32 / float16 (round to nearest even). Through a volatile: g++ 12 -O2
// folded static_cast<double>(static_cast<float>(alpha)) in this constructor to alpha itself.
double CastFloat32(double v) {
  volatile float f = static_cast<float>(v);
  return static_cast<double>(f);
}
double CastFloat16(double v) {
  volatile _Float16 h = static_cast<_Float16>(v);
  return static_cast<double>(h);
}

}  // namespace

Oracle::Oracle(Fn fn, double alpha, double beta)
    : fn_(fn),
      alpha32_(CastFloat32(alpha)),
      beta32_(CastFloat32(beta)),
      alpha16_(CastFloat16(alpha)),
      beta16_(CastFloat16(beta)) {}

bool Oracle::Float32Tier1(uint32_t x_bits, uint32_t& out) const {
  const double x = static_cast<double>(std::bit_cast<float>(x_bits));
  if (const auto s = Special(fn_, x, alpha32_, beta32_)) {
    out = F32Bits(*s);
    return true;
  }
  if (const auto s = Saturated(fn_, x, alpha32_)) {
    out = F32Bits(*s);
    return true;
  }
  const LdValue r =
      EvalLd(fn_, static_cast<LD>(x), static_cast<LD>(alpha32_), static_cast<LD>(beta32_));
  if (std::isnan(r.v)) {
    out = F32Bits(std::numeric_limits<double>::quiet_NaN());
    return true;
  }
  if (std::isinf(r.v)) {  // beyond long double's range: far beyond float's
    out = F32Bits(static_cast<double>(r.v));
    return true;
  }
  if (fabsl(r.v) < 0x1p-16000L) {  // rounds to ±0 whatever its error; the sign is v's
    out = std::signbit(r.v) ? 0x80000000u : 0u;
    return true;
  }
  const LD e = 2 * fabsl(r.v) * r.rel;
  const float lo = static_cast<float>(r.v - e), hi = static_cast<float>(r.v + e);
  if (std::bit_cast<uint32_t>(lo) != std::bit_cast<uint32_t>(hi)) return false;
  out = std::bit_cast<uint32_t>(lo);
  return true;
}

uint32_t Oracle::Float32Mpfr(uint32_t x_bits, OracleStats& stats) const {
  const double x = static_cast<double>(std::bit_cast<float>(x_bits));
  return Tier2<uint32_t>(fn_, x, alpha32_, beta32_, F32Bits, stats);
}

uint32_t Oracle::Float32(uint32_t x_bits, OracleStats& stats) const {
  uint32_t out = 0;
  if (Float32Tier1(x_bits, out)) return out;
  ++stats.tier2;
  return Float32Mpfr(x_bits, stats);
}

uint16_t Oracle::Float16(uint16_t x_bits, OracleStats& stats) const {
  const double x = static_cast<double>(std::bit_cast<_Float16>(x_bits));
  ++stats.tier2;
  return Tier2<uint16_t>(fn_, x, alpha16_, beta16_, F16Bits, stats);
}

bool SameFloat32(uint32_t a, uint32_t b) {
  return a == b || (std::isnan(std::bit_cast<float>(a)) && std::isnan(std::bit_cast<float>(b)));
}

bool SameFloat16(uint16_t a, uint16_t b) {
  auto nan = [](uint16_t v) { return (v & 0x7c00) == 0x7c00 && (v & 0x03ff) != 0; };
  return a == b || (nan(a) && nan(b));
}

void FreeOracleCaches() { mpfr_free_cache(); }

}  // namespace nnref::certify
