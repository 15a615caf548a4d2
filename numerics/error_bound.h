// Running error bounds (docs/numerics.md, "Derived bounds"): the arithmetic of the derived
// tolerance policy. No operator knowledge lives here; each operator's error model (its steps)
// lives beside the operator in ops/ and is written with these primitives.
//
// A Bounded holds v, the exact value of one step of the spec's computation on exact inputs, and
// e, a bound on |x - v| for the value x that any legitimate implementation computes at that step.
// Each primitive propagates the inputs' bounds through the exact function (interval evaluation
// for monotone functions, first-order terms with their second-order remainder for products) and
// adds the step's own error: one rounding in the operand type (|fl(y) - y| <= u |y| + eta / 2,
// eta the smallest subnormal) for IEEE operations, or the function's stated accuracy in ULPs
// and/or absolute terms for transcendental functions (ErrorArith::Accuracy).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "numerics/dtype.h"

namespace nnref {

struct Bounded {
  double v = 0;  // exact value
  double e = 0;  // |legitimate value - v| <= e
};

// The stated accuracy of the primitive functions an implementation may use, in ULPs of the
// result (relative) and as an absolute error; a result within either is legitimate. Sources:
// the Vulkan SPIR-V precision table ("Precision and Operation of SPIR-V Instructions") and
// WGSL's, which bound what GPU implementations promise; CPU libraries (glibc, SLEEF, MLAS) are
// within 1-4 ULP of all of these. docs/numerics.md lists each with its source.
struct FunctionAccuracy {
  double ulp = 0;       // fixed ULPs of the result
  double ulp_per_x = 0;  // plus this many ULPs per |x| (exp: 3 + 2|x|)
  double abs = 0;       // or an absolute error
};

// The sum of doubles with Neumaier's compensation: the exact value of a model's sum where the
// terms cancel ([5.6e-41, 1, -1] sums to 5.6e-41, not to the 0 of plain double addition), to
// within a double rounding of the result plus n^2 u_double^2 of the terms' magnitudes.
class CompensatedSum {
 public:
  void Add(double t) {
    const double s = sum_ + t;
    if (!std::isfinite(s)) {
      sum_ = s;
      return;
    }
    compensation_ += std::fabs(sum_) >= std::fabs(t) ? (sum_ - s) + t : (t - s) + sum_;
    sum_ = s;
  }
  CompensatedSum& operator+=(double t) {
    Add(t);
    return *this;
  }
  double Value() const { return std::isfinite(sum_) ? sum_ + compensation_ : sum_; }

 private:
  double sum_ = 0, compensation_ = 0;
};

// The squares of the partial sums of a sum in its sequential order, forward and backward (an
// implementation's other orders, pairwise, blocked and split, have partial sums no larger for
// the data the corpus and real models hold; the audit's variants check it), and of its terms.
class PartialSquares {
 public:
  void Add(double term) {
    terms_ += term * term;
    before_ += prefix_;  // the prefix before this term (for the backward order)
    before_sq_ += prefix_ * prefix_;
    last_before_ = prefix_;
    prefix_ += term;
    if (n_ > 0) forward_ += prefix_ * prefix_;  // a partial sum the forward order rounds
    ++n_;
  }
  // The larger of the two orders' sums of squared partial sums, plus the squared terms (products
  // that round apart). The backward order rounds S - prefix_k for k = 0 .. n-2.
  double Value() const {
    if (n_ < 2) return terms_;
    const double s = prefix_, count = static_cast<double>(n_ - 1);
    const double sum = before_ - last_before_;
    const double sum_sq = before_sq_ - last_before_ * last_before_;
    const double backward = count * s * s - 2 * s * sum + sum_sq;
    return std::max(forward_, backward) + terms_;
  }

 private:
  double prefix_ = 0, forward_ = 0, terms_ = 0, before_ = 0, before_sq_ = 0, last_before_ = 0;
  uint64_t n_ = 0;
};

class ErrorArith {
 public:
  // Arithmetic in the operand type `type` (float32 or float16).
  explicit ErrorArith(DataType type);

  double u() const { return u_; }      // unit roundoff: 2^-24 (float32), 2^-11 (float16)
  double eta() const { return eta_; }  // smallest subnormal
  // One rounding of a value of magnitude |y|, which may underflow (products, quotients).
  double Rounding(double y) const { return u_ * std::fabs(y) + 0.5 * eta_; }
  // n ULPs of a result of magnitude |y|: the spacing of the type at |y| (2^(e - 10) for
  // float16 and 2^(e - 23) for float32 in the binade [2^e, 2^(e+1)), the smallest subnormal
  // below the normal range).
  double Ulps(double n, double y) const;

  // An operand value (already in the type: exact) or one carrying an upstream bound.
  static Bounded Exact(double v) { return {v, 0}; }
  // A constant the spec defines exactly (sqrt(2), 1/6...) as the implementation holds it:
  // rounded into the type once.
  Bounded Constant(double exact) const { return {exact, Rounding(exact)}; }

  // IEEE operations, correctly rounded (Vulkan and WGSL require it for add, sub and mul).
  Bounded Add(Bounded a, Bounded b) const;
  Bounded Sub(Bounded a, Bounded b) const;
  Bounded Mul(Bounded a, Bounded b) const;
  // fma(a, b, c): one rounding; an implementation may also multiply and add apart (two).
  Bounded MulAdd(Bounded a, Bounded b, Bounded c) const;
  // Division and square root at the accuracy GPUs are allowed (2.5 ULP for division, square root
  // inherited from 1/inversesqrt); an implementation may also divide as a * (1 / b).
  Bounded Div(Bounded a, Bounded b) const;
  Bounded Sqrt(Bounded a) const;
  // Exact operations: selection and sign changes add no error.
  static Bounded Neg(Bounded a) { return {-a.v, a.e}; }
  static Bounded Abs(Bounded a) { return {std::fabs(a.v), a.e}; }
  static Bounded Max(Bounded a, Bounded b);
  static Bounded Min(Bounded a, Bounded b);

  // Transcendental functions at their stated accuracy.
  Bounded Exp(Bounded a) const;
  Bounded Log(Bounded a) const;
  Bounded Erf(Bounded a) const;
  Bounded Erfc(Bounded a) const;  // 1 - erf(a) as a library function (no cancellation)
  Bounded Tanh(Bounded a) const;
  Bounded Sin(Bounded a) const;
  Bounded Cos(Bounded a) const;
  Bounded Tan(Bounded a) const;  // sin / cos, as WGSL and Vulkan derive it
  Bounded Pow(Bounded a, Bounded b) const;  // exp2(b * log2(a)) for a > 0, exact products else

  // A sum of n terms in any order and any accumulator at least as wide as the type: `value`
  // the exact sum S, `magnitude` M = sum of |terms| (exact), `term_error` the sum of the terms'
  // own bounds, `roundings` how many roundings a term may pass through (n - 1 additions, plus
  // one per product when products round apart). Every rounding is of a partial sum, which is a
  // subset sum and so at most max(P, N) = (M + |S|) / 2 in magnitude (P, N: the sums of the
  // positive and negative terms). The bound is the smaller of the worst case (every rounding at
  // its maximum) and the probabilistic bound of mean-independent rounding errors
  // (Azuma-Hoeffding): lambda * u * sqrt(sum of the squared rounded values), exceeded with
  // probability at most 2 exp(-lambda^2 / 2). The squared values are `partial_squares` when the
  // caller knows them (the partial sums of the sequential orders and the products:
  // PartialSquares), else roundings * ((M + |S|) / 2)^2 (docs/numerics.md, "Sums").
  // `underflows`: how many of the roundings may underflow (products, divisions): half a
  // subnormal each (additions are exact where their result is subnormal).
  Bounded Sum(double value, double magnitude, double term_error, double roundings,
              double underflows = 0, double partial_squares = -1) const;

  // The bound that judges an element whose exact value is `exact` and whose reference value (the
  // exact value rounded once to the type when `rounded`) is `ref`: exact.e plus the reference's
  // own rounding (u |ref| + eta / 2). At the edge of the type's range a legitimate result may be
  // finite or infinite, so an element whose exact interval reaches the overflow threshold has an
  // infinite bound (anything passes); an infinite or NaN reference otherwise must be matched.
  double Judge(Bounded exact, double ref, bool rounded = true) const;

  // Whether a step since the last call had an exact value beyond the type's range (so that an
  // implementation computing the steps in the type overflows there), and resets it.
  bool TakeOverflow() const;

  static constexpr double kLambda = 3;  // the probabilistic bound's multiple of sigma
  static FunctionAccuracy Accuracy(DataType type, const char* function);

 private:
  // Propagation through a monotone function f over [v - e, v + e].
  template <typename F>
  static double Spread(F f, Bounded a, double fv);
  double FunctionError(const FunctionAccuracy& acc, double x, double y) const;

  // Rounds once (the primitives' common end): special values are exact; records overflow.
  Bounded Finish(double v, double e) const;

  DataType type_;
  double u_;
  double eta_;
  double overflow_;  // the smallest magnitude that rounds to infinity
  mutable bool overflowed_ = false;
};

}  // namespace nnref
