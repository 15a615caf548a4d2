#include "numerics/error_bound.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace nnref {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

// x * y with 0 * inf = 0: a zero bound times an infinite magnitude adds nothing.
double P(double x, double y) { return x == 0 || y == 0 ? 0 : x * y; }

// An operand whose value is left open (any value, infinite or NaN included, is legitimate).
bool Open(Bounded a) { return std::isinf(a.e) || std::isnan(a.e); }

// A step whose exact value is infinite or NaN: IEEE arithmetic and the spec's steps fix special
// values, so they are exact (and a NaN bound means none could be formed: unbounded). An operand
// that is open (Open()) keeps the result open: the callers check that first.
Bounded Special(double v, double e) {
  if (!std::isfinite(v)) return {v, 0};
  if (std::isnan(e)) return {v, kInf};
  return {v, e};
}
}  // namespace

ErrorArith::ErrorArith(DataType type)
    : type_(type),
      u_(type == DataType::kFloat16 ? 0x1p-11 : 0x1p-24),
      eta_(type == DataType::kFloat16 ? 0x1p-24 : 0x1p-149),
      overflow_(type == DataType::kFloat16 ? 65520.0 : 0x1p128 - 0x1p103) {}

double ErrorArith::Ulps(double n, double y) const {
  const double a = std::fabs(y);
  if (!std::isfinite(a)) return n * a;
  const double min_normal = eta_ / (2 * u_);
  if (a < min_normal) return n * eta_;
  // 2u is the spacing at 1; the binade's spacing is 2u 2^e.
  return n * std::ldexp(2 * u_, std::ilogb(a));
}

Bounded ErrorArith::Finish(double v, double e) const {
  if (std::isfinite(v) && std::fabs(v) >= overflow_) overflowed_ = true;
  return Special(v, e);
}

bool ErrorArith::TakeOverflow() const {
  const bool o = overflowed_;
  overflowed_ = false;
  return o;
}

FunctionAccuracy ErrorArith::Accuracy(DataType type, const char* function) {
  const bool half = type == DataType::kFloat16;
  const auto is = [&](const char* name) { return std::strcmp(function, name) == 0; };
  // Vulkan (SPIR-V precision table) and WGSL: exp and exp2 3 + 2|x| ULP (1 + 2|x| for 16-bit).
  if (is("exp")) return {half ? 1.0 : 3.0, 2, 0};
  // log: 3 ULP outside [0.5, 2], absolute 2^-21 inside (2^-7 for 16-bit).
  if (is("log")) return {3, 0, half ? 0x1p-7 : 0x1p-21};
  // sin, cos: absolute 2^-11 (2^-7 for 16-bit); CPU libraries are within 1-2 ULP everywhere.
  if (is("sin") || is("cos")) return {2, 0, half ? 0x1p-7 : 0x1p-11};
  // Division: 2.5 ULP. Square root: inherited from 1 / inversesqrt (2 ULP), i.e. 4.5 ULP.
  if (is("div")) return {2.5, 0, 0};
  if (is("sqrt")) return {4.5, 0, 0};
  // erf and tanh are not Vulkan builtins with their own accuracy (tanh is inherited from
  // sinh / cosh): OpenCL's table gives erf 16 ULP and tanh 5 ULP; glibc, SLEEF and CUDA are
  // within 1-2 ULP.
  // float16 results of these are computed in float32 and rounded: within 1 ULP (2 allowed).
  if (is("erf") || is("erfc")) return {half ? 2.0 : 16.0, 0, 0};  // OpenCL's float32 erf(c)
  if (is("tanh")) return {half ? 2.0 : 5.0, 0, 0};                // OpenCL's float32 tanh
  return {0, 0, 0};
}

double ErrorArith::FunctionError(const FunctionAccuracy& acc, double x, double y) const {
  const double ulps = Ulps(acc.ulp + acc.ulp_per_x * std::fabs(x), y);
  return std::max(ulps, acc.abs);
}

template <typename F>
double ErrorArith::Spread(F f, Bounded a, double fv) {
  if (a.e == 0) return 0;
  if (!std::isfinite(a.e)) return kInf;
  return std::max(std::fabs(f(a.v + a.e) - fv), std::fabs(f(a.v - a.e) - fv));
}

Bounded ErrorArith::Add(Bounded a, Bounded b) const {
  // Addition is exact where its result is subnormal: no eta term.
  const double v = a.v + b.v, prop = a.e + b.e;
  if (Open(a) || Open(b)) return {v, kInf};
  return Finish(v, prop + u_ * (std::fabs(v) + prop));
}

Bounded ErrorArith::Sub(Bounded a, Bounded b) const { return Add(a, Neg(b)); }

Bounded ErrorArith::Mul(Bounded a, Bounded b) const {
  const double v = a.v * b.v;
  // An infinite factor times one whose interval reaches 0: Infinity of either sign or NaN
  // (Inf * 0) are all legitimate (a normalization's x - mean, exactly 0 or nearly, rounded to
  // either side of 0 by its mean, times an infinite scale: fuzz seeds 21014160, 21022978).
  const auto reaches_zero = [](Bounded x) { return x.e > 0 && std::fabs(x.v) <= x.e; };
  if ((std::isinf(a.v) && reaches_zero(b)) || (std::isinf(b.v) && reaches_zero(a)) || Open(a) ||
      Open(b)) {
    return {v, kInf};
  }
  const double prop = P(std::fabs(a.v), b.e) + P(std::fabs(b.v), a.e) + P(a.e, b.e);
  return Finish(v, prop + Rounding(std::fabs(v) + prop));
}

Bounded ErrorArith::MulAdd(Bounded a, Bounded b, Bounded c) const { return Add(Mul(a, b), c); }

Bounded ErrorArith::Div(Bounded a, Bounded b) const {
  const double v = a.v / b.v;
  if (!std::isfinite(v)) return Finish(v, 0);
  if (b.e >= std::fabs(b.v)) return {v, kInf};
  const double prop = (a.e + P(std::fabs(v), b.e)) / (std::fabs(b.v) - b.e);
  return Finish(v, prop + FunctionError(Accuracy(type_, "div"), 0, std::fabs(v) + prop));
}

Bounded ErrorArith::Sqrt(Bounded a) const {
  const double v = std::sqrt(a.v);
  double prop = 0;
  if (a.e > 0) {
    prop = std::sqrt(a.e);  // |sqrt(x') - sqrt(x)| <= sqrt(|x' - x|)
    if (a.v > 0) prop = std::min(prop, a.e / std::sqrt(a.v));
  }
  return Finish(v, prop + FunctionError(Accuracy(type_, "sqrt"), 0, v + prop));
}

Bounded ErrorArith::Max(Bounded a, Bounded b) { return {std::max(a.v, b.v), std::max(a.e, b.e)}; }

Bounded ErrorArith::Min(Bounded a, Bounded b) { return {std::min(a.v, b.v), std::max(a.e, b.e)}; }

Bounded ErrorArith::Exp(Bounded a) const {
  const double v = std::exp(a.v);
  if (!std::isfinite(a.v)) return Finish(v, 0);  // exp(-inf) = 0, exp(inf) = inf: exact
  const double prop = a.e == 0 ? 0 : P(v, std::expm1(a.e));
  return Finish(v, prop + FunctionError(Accuracy(type_, "exp"), a.v, v + prop));
}

Bounded ErrorArith::Log(Bounded a) const {
  const double v = std::log(a.v);
  // An argument of 0 or below whose bound reaches positive values (a sum that cancels: the exact
  // sum is -1e-38, a float32 order gives 0): NaN, -Infinity and finite results are all
  // legitimate.
  if (a.v <= 0 && a.e > 0 && a.v + a.e > 0) return {v, kInf};
  if (!std::isfinite(v) || !std::isfinite(a.v)) return Finish(v, 0);
  if (a.e >= a.v) return {v, kInf};
  const double prop = a.e == 0 ? 0 : -std::log1p(-a.e / a.v);
  return Finish(v, prop + FunctionError(Accuracy(type_, "log"), a.v, std::fabs(v) + prop));
}

Bounded ErrorArith::Erf(Bounded a) const {
  const double v = std::erf(a.v);
  if (!std::isfinite(a.v)) return Finish(v, 0);
  const double prop = Spread([](double x) { return std::erf(x); }, a, v);
  return Finish(v, prop + FunctionError(Accuracy(type_, "erf"), a.v, std::fabs(v) + prop));
}

Bounded ErrorArith::Erfc(Bounded a) const {
  const double v = std::erfc(a.v);
  if (!std::isfinite(a.v)) return Finish(v, 0);
  const double prop = Spread([](double x) { return std::erfc(x); }, a, v);
  return Finish(v, prop + FunctionError(Accuracy(type_, "erfc"), a.v, std::fabs(v) + prop));
}

Bounded ErrorArith::Tanh(Bounded a) const {
  const double v = std::tanh(a.v);
  if (!std::isfinite(a.v)) return Finish(v, 0);
  if (std::fabs(a.v) > 20) {
    // Beyond 20, tanh is +-1 within rounding in both types: a library tanh saturates, and the
    // decompositions give +-1 or, where exp overflows the type, NaN (an overflow).
    return Finish(v, FunctionError(Accuracy(type_, "tanh"), a.v, std::fabs(v)) +
                         Spread([](double x) { return std::tanh(x); }, a, v));
  }
  // The spec's emulation (tanh-method): (E - 1) / (E + 1) with E = exp(2x), step by step. E
  // enters both operands, so its error moves the quotient by the exact derivative 2 / (E + 1)^2
  // (not as two independent errors); the subtraction, the addition and the division add their
  // own.
  // The chains at the exact input; the input's own bound moves tanh by its exact change.
  const Bounded x0 = Exact(a.v);
  const Bounded e2x = Exp(Mul(Exact(2), x0));
  const double big_e = e2x.v, q = (big_e - 1) / (big_e + 1);
  const double spec_prop = 2 * e2x.e / ((big_e + 1) * (big_e + 1 - e2x.e));
  const double spec_round =
      (u_ * std::fabs(big_e - 1) + std::fabs(q) * u_ * (big_e + 1)) / (big_e + 1);
  const double spec =
      spec_prop + spec_round + FunctionError(Accuracy(type_, "div"), 0, std::fabs(q) + spec_prop);
  // Vulkan and WGSL: inherited from sinh(x) / cosh(x), i.e. (P - N) / (P + N) with P = e^x and
  // N = e^-x, each exp at its accuracy: dT/dP = 2N / (P + N)^2, dT/dN = -2P / (P + N)^2.
  const Bounded ex = Exp(x0), emx = Exp(Neg(x0));
  const double sum = ex.v + emx.v, diff = ex.v - emx.v;
  const double gpu_prop = 2 * (emx.v * ex.e + ex.v * emx.e) / (sum * (sum - ex.e - emx.e));
  const double gpu_round = (u_ * std::fabs(diff) + std::fabs(diff / sum) * u_ * sum) / sum;
  const double gpu = gpu_prop + gpu_round +
                     FunctionError(Accuracy(type_, "div"), 0, std::fabs(diff / sum) + gpu_prop);
  // A library or OpenCL tanh at its stated accuracy.
  const double library = FunctionError(Accuracy(type_, "tanh"), a.v, std::fabs(v));
  const double input = Spread([](double x) { return std::tanh(x); }, a, v);
  return Finish(v, input + std::max({spec, gpu, library}));
}

Bounded ErrorArith::Sin(Bounded a) const {
  const double v = std::sin(a.v);
  const double prop = std::min(a.e, 2.0);  // 1-Lipschitz, bounded
  return Finish(v, prop + FunctionError(Accuracy(type_, "sin"), a.v, std::fabs(v) + prop));
}

Bounded ErrorArith::Cos(Bounded a) const {
  const double v = std::cos(a.v);
  const double prop = std::min(a.e, 2.0);
  return Finish(v, prop + FunctionError(Accuracy(type_, "cos"), a.v, std::fabs(v) + prop));
}

Bounded ErrorArith::Tan(Bounded a) const {
  Bounded q = Div(Sin(a), Cos(a));
  q.v = std::tan(a.v);  // the exact value (sin(x) / cos(x) in double is not)
  return q;
}

Bounded ErrorArith::Pow(Bounded a, Bounded b) const {
  const double v = std::pow(a.v, b.v);
  if (!std::isfinite(v) || !std::isfinite(a.v) || !std::isfinite(b.v)) return Finish(v, 0);
  // 0^b is exact; a < 0 has a real result for integral b only, computed as |a|^b with the sign.
  if (a.v == 0 && a.e == 0) return {v, 0};
  // WGSL and Vulkan: inherited from exp2(b * log2(a)), log2 and exp2 at the accuracies of log and
  // exp (for the argument t of exp2: 3 + 2|t| ULP).
  const Bounded mag = Abs(a);
  const double l2 = std::log2(mag.v);
  if (mag.e >= mag.v) return {v, kInf};
  const double l2_prop = mag.e == 0 ? 0 : -std::log1p(-mag.e / mag.v) / std::log(2.0);
  const Bounded log2a =
      Finish(l2, l2_prop + FunctionError(Accuracy(type_, "log"), mag.v, std::fabs(l2) + l2_prop));
  const Bounded t = Mul(b, log2a);
  const double p = std::exp2(t.v);
  const double p_prop = t.e == 0 ? 0 : P(p, std::expm1(t.e * std::log(2.0)));
  const Bounded r = Finish(p, p_prop + FunctionError(Accuracy(type_, "exp"), t.v, p + p_prop));
  return Finish(v, r.e);
}

Bounded ErrorArith::Sum(double value, double magnitude, double term_error, double roundings,
                        double underflows, double partial_squares) const {
  if (!std::isfinite(value)) return Finish(value, 0);
  const double partial = 0.5 * (magnitude + std::fabs(value)) + term_error;
  if (partial >= overflow_) overflowed_ = true;  // a partial sum may leave the range
  const double worst = roundings * u_ * partial;
  // Any order: each rounded value is at most `partial`; the caller's squares (known or estimated
  // partial sums) when smaller.
  double squares = roundings * partial * partial;
  if (partial_squares >= 0) {
    squares = std::min(squares, partial_squares + 2 * partial * term_error);
  }
  const double probable = kLambda * u_ * std::sqrt(squares);
  return Finish(value, term_error + std::min(worst, probable) + underflows * 0.5 * eta_);
}

double ErrorArith::Judge(Bounded exact, double ref, bool rounded) const {
  const double overflow = overflow_;
  // A NaN reference must be matched, unless the exact value's interval leaves it open (a log
  // whose argument's bound reaches positive values).
  if (std::isnan(ref)) return std::isinf(exact.e) ? kInf : 0;
  if (std::isfinite(exact.v) && std::fabs(exact.v) - exact.e < overflow &&
      std::fabs(exact.v) + exact.e >= overflow) {
    return kInf;
  }
  if (std::isinf(exact.e) || std::isnan(exact.e)) return kInf;  // open: anything passes
  if (std::isinf(ref)) return 0;
  return exact.e + (rounded ? Rounding(ref) : 0.0);
}

}  // namespace nnref
