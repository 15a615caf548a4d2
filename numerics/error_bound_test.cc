#include "numerics/error_bound.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

namespace nnref {
namespace {

TEST_CASE("error_bound: one correctly rounded addition is within u |sum|") {
  const ErrorArith f32(DataType::kFloat32);
  const Bounded s = f32.Add(ErrorArith::Exact(1), ErrorArith::Exact(0x1p-30));
  CHECK(s.v == 1 + 0x1p-30);
  // u = 2^-24: the rounding of a value near 1 is at most 2^-24 (plus half a subnormal).
  CHECK(s.e == doctest::Approx(0x1p-24).epsilon(1e-6));
  // Subnormal sums are exact: no rounding term.
  CHECK(f32.Add(ErrorArith::Exact(0x1p-149), ErrorArith::Exact(0x1p-148)).e <= 0x1p-170);
  // float32's actual rounding of 1 + 2^-30 is 1: within the bound.
  CHECK(std::fabs(double{1.0f + 0x1p-30f} - s.v) <= s.e);
}

TEST_CASE("error_bound: products propagate the factors' bounds") {
  const ErrorArith f32(DataType::kFloat32);
  // (3 +- 0.5) * (2 +- 0.25): the extreme products are 3.5 * 2.25 = 7.875 and 2.5 * 1.75 =
  // 4.375, so the value is within 1.875 of 6 before the rounding.
  const Bounded p = f32.Mul({3, 0.5}, {2, 0.25});
  CHECK(p.v == 6);
  CHECK(p.e >= 1.875);
  CHECK(p.e <= 1.875 + 8 * 0x1p-24);
}

TEST_CASE("error_bound: an infinite factor times an interval reaching 0 is open") {
  const ErrorArith f32(DataType::kFloat32);
  const double inf = std::numeric_limits<double>::infinity();
  // -Inf * (-1e-7 +- 2e-7): the legitimate factor may be -3e-7, 0 or 1e-7, so the product may
  // be +Inf, NaN or -Inf: any result passes, whatever the reference's value.
  const Bounded open = f32.Mul({-inf, 0}, {-1e-7, 2e-7});
  CHECK(std::isinf(open.e));
  CHECK(std::isinf(f32.Judge(open, inf)));
  CHECK(std::isinf(f32.Judge(f32.Mul({0, 1e-9}, {inf, 0}), std::nan(""))));
  // Adding a finite bias keeps it open (the normalizations' scale * q + bias).
  CHECK(std::isinf(f32.Judge(f32.Add(open, {2, 0}), inf)));
  // An interval that stays on one side of 0 fixes the sign: the infinity must be matched.
  const Bounded fixed = f32.Mul({-inf, 0}, {-1e-7, 1e-8});
  CHECK(fixed.v == inf);
  CHECK(f32.Judge(fixed, inf) == 0);
  // An exact 0 times Infinity is NaN, exactly.
  CHECK(f32.Judge(f32.Mul({inf, 0}, {0, 0}), std::nan("")) == 0);
}

TEST_CASE("error_bound: exp(x) - 1 in float32 near 0 is within the bound (elu's cancellation)") {
  const ErrorArith f32(DataType::kFloat32);
  const double x = -1e-8;
  const Bounded r = f32.Sub(f32.Exp(ErrorArith::Exact(x)), ErrorArith::Exact(1));
  CHECK(r.v == doctest::Approx(std::expm1(x)).epsilon(1e-12));
  // float32 exp(-1e-8) rounds to 1, so the decomposition gives 0: legitimate, 1e-8 off.
  const float decomposed = std::exp(static_cast<float>(x)) - 1.0f;
  CHECK(decomposed == 0.0f);
  CHECK(std::fabs(double{decomposed} - r.v) <= r.e);
  // ... while a bound from the result alone (a few ULPs of 1e-8) would reject it.
  CHECK(f32.Ulps(18, r.v) < 1e-8);
}

TEST_CASE("error_bound: a cancelling float32 sum may legitimately lose everything") {
  const ErrorArith f32(DataType::kFloat32);
  // [1e8, 1, -1e8]: S = 1, M = 2e8 + 1; float32 gives 0 adding left to right.
  const float acc = (1e8f + 1.0f) - 1e8f;
  CHECK(acc == 0.0f);
  const Bounded s = f32.Sum(1, 2e8 + 1, 0, 2);
  CHECK(std::fabs(double{acc} - 1) <= s.e);
  // The worst case for 2 roundings of partial sums at most (M + |S|) / 2 = 1e8 + 1.
  CHECK(s.e == doctest::Approx(2 * 0x1p-24 * (1e8 + 1)).epsilon(1e-9));
}

TEST_CASE("error_bound: long sums take the probabilistic bound, short ones the worst case") {
  const ErrorArith f16(DataType::kFloat16);
  const double u = 0x1p-11;
  // 600 roundings: lambda sqrt(600) < 600, so the probabilistic bound applies.
  const Bounded big = f16.Sum(10, 70, 0, 600);
  CHECK(big.e == doctest::Approx(ErrorArith::kLambda * std::sqrt(600.0) * u * 40));
  // 4 roundings: the worst case 4 u (M + |S|) / 2 is the smaller.
  const Bounded small = f16.Sum(10, 70, 0, 4);
  CHECK(small.e == doctest::Approx(4 * u * 40));
  // Products that may underflow add half a subnormal each.
  CHECK(f16.Sum(10, 70, 0, 4, 3).e == doctest::Approx(4 * u * 40 + 3 * 0.5 * 0x1p-24));
}

TEST_CASE("error_bound: tan near a pole is as uncertain as sin / cos at their accuracy") {
  const ErrorArith f32(DataType::kFloat32);
  // The float32 nearest pi/2: tan is about -2.29e7 there.
  const double x = double{static_cast<float>(M_PI / 2)};
  const Bounded t = f32.Tan(ErrorArith::Exact(x));
  CHECK(std::fabs(t.v) > 2e7);
  // A tan one float32 ULP off (about 2 in magnitude here) is legitimate.
  const double one_ulp = std::ldexp(1.0, std::ilogb(t.v) - 23);
  CHECK(t.e > one_ulp);
  // Away from poles the bound is the absolute 2^-11 of sin/cos divided by cos, i.e. small.
  const Bounded t1 = f32.Tan(ErrorArith::Exact(0.5));
  CHECK(t1.e < 2e-3);
  CHECK(t1.e > 0x1p-11);
}

TEST_CASE("error_bound: sqrt and log of bounded values; Judge adds the reference's rounding") {
  const ErrorArith f32(DataType::kFloat32);
  // sqrt(4 +- 0.04): within 0.04 / 2 = 0.01 (first order) plus 4.5 ULP.
  const Bounded r = f32.Sqrt({4, 0.04});
  CHECK(r.v == 2);
  CHECK(r.e >= std::sqrt(4.04) - 2);
  CHECK(r.e <= 0.04 / 2 + 5 * 2 * 0x1p-24 * 2.1);
  // log of an interval reaching 0 is unbounded.
  CHECK(std::isinf(f32.Log({1e-3, 1e-3}).e));
  // Judge: e plus half an ULP of the value.
  CHECK(f32.Judge({1, 0}, 1) == doctest::Approx(0x1p-24 + 0.5 * 0x1p-149));
  CHECK(f32.Judge({1, 0}, 1, false) == 0);
  // float16 exp(11.09) = 65533.5 rounds to infinity; an exp within its stated accuracy may
  // give 65504 or infinity: both pass.
  const ErrorArith f16(DataType::kFloat16);
  const Bounded e = f16.Exp(ErrorArith::Exact(11.09));
  CHECK(std::isinf(f16.Judge(e, std::numeric_limits<double>::infinity())));
  // Far beyond the range the result must be infinite: bound 0 against the reference's inf.
  const Bounded big = f16.Exp(ErrorArith::Exact(20));
  CHECK(f16.Judge(big, std::numeric_limits<double>::infinity()) == 0);
}

}  // namespace
}  // namespace nnref

TEST_CASE("CompensatedSum: cancelling terms keep the small one") {
  nnref::CompensatedSum s;
  for (double t : {5.6048e-41, 1.0, -1.0}) s.Add(t);
  CHECK(s.Value() == 5.6048e-41);
  double plain = 0;
  for (double t : {5.6048e-41, 1.0, -1.0}) plain += t;
  CHECK(plain == 0);  // what the model summed before
  nnref::CompensatedSum big;
  for (double t : {1e16, 1.0, -1e16, 1.0}) big += t;
  CHECK(big.Value() == 2.0);
  nnref::CompensatedSum inf;
  inf.Add(INFINITY);
  inf.Add(1.0);
  CHECK(inf.Value() == INFINITY);
}
