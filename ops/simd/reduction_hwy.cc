// Highway bodies of the reduction row functions (reduction_rows.h), compiled once per SIMD target
// by foreach_target.h and chosen at run time by HWY_DYNAMIC_DISPATCH.
//
// Plain sums (|x|, x^2), products and max/min fold into four vector accumulators (4 x lanes
// partial results, reassociated); the plain sum runs in two compensated accumulator pairs
// (TwoSum). Lanes are combined in a fixed order at the end, so a row gives the same bits on one
// target whatever thread computes it. Exponentials use a vector exp for arguments in [-87, 0]
// (ExpNonPositive, at most 2 ulp); the rare arguments below -87 (results in or near the
// subnormal range) take std::exp in a scalar pass. The affine row of the
// normalizations runs in double vectors (PromoteTo/DemoteTo) and rounds once.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/simd/reduction_hwy.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
// clang-format off
#include <hwy/highway.h>
// clang-format on

#include <cmath>
#include <cstring>
#include <limits>

#include "ops/simd/reduction_rows.h"

HWY_BEFORE_NAMESPACE();
namespace nnref::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr float kExpLow = -87.0f;  // below: exp in the scalar pass

inline uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Exact max/min of two non-NaN floats: equal values (including +-0) combine bitwise, so
// max(-0, +0) = +0 and min(-0, +0) = -0.
inline float MaxExact(float a, float b) {
  if (a == b) return FromBits(Bits(a) & Bits(b));
  return a > b ? a : b;
}
inline float MinExact(float a, float b) {
  if (a == b) return FromBits(Bits(a) | Bits(b));
  return a < b ? a : b;
}

template <class D, class V>
HWY_INLINE V VecMaxExact(D, V a, V b) {
  return hn::IfThenElse(hn::Eq(a, b), hn::And(a, b), hn::Max(a, b));
}
template <class D, class V>
HWY_INLINE V VecMinExact(D, V a, V b) {
  return hn::IfThenElse(hn::Eq(a, b), hn::Or(a, b), hn::Min(a, b));
}

// Folds x[0..n) into four accumulators (started at `init`) with acc = step(acc, v); the tail is
// padded with `pad` (a neutral value of the step). Returns the four combined by `combine`.
template <class D, class Step, class Combine>
HWY_INLINE hn::Vec<D> Fold(D d, const float* x, size_t n, float init, float pad, const Step& step,
                           const Combine& combine) {
  const size_t lanes = hn::Lanes(d);
  auto a0 = hn::Set(d, init), a1 = a0, a2 = a0, a3 = a0;
  size_t i = 0;
  for (; i + 4 * lanes <= n; i += 4 * lanes) {
    a0 = step(a0, hn::LoadU(d, x + i));
    a1 = step(a1, hn::LoadU(d, x + i + lanes));
    a2 = step(a2, hn::LoadU(d, x + i + 2 * lanes));
    a3 = step(a3, hn::LoadU(d, x + i + 3 * lanes));
  }
  for (; i + lanes <= n; i += lanes) a0 = step(a0, hn::LoadU(d, x + i));
  if (i < n) {
    HWY_ALIGN float buf[hn::MaxLanes(d)];
    for (size_t k = 0; k < lanes; ++k) buf[k] = i + k < n ? x[i + k] : pad;
    a1 = step(a1, hn::Load(d, buf));
  }
  return combine(combine(a0, a1), combine(a2, a3));
}

// The lanes of v combined in lane order by f.
template <class D, class F>
HWY_INLINE float CombineLanes(D d, hn::Vec<D> v, const F& f) {
  HWY_ALIGN float buf[hn::MaxLanes(d)];
  hn::Store(v, d, buf);
  float r = buf[0];
  for (size_t k = 1; k < hn::Lanes(d); ++k) r = f(r, buf[k]);
  return r;
}

// Compensated sum: every lane keeps its partial sum s and the exact rounding errors of its
// additions (TwoSum, branch-free) in c; the lanes' s and c are added in double at the end. A sum
// of -0s is -0 (the identity of IEEE addition); a non-finite sum is the IEEE result.
double SumRowImpl(const float* x, size_t n) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const size_t lanes = hn::Lanes(d);
  V s0 = hn::Set(d, -0.0f), s1 = s0, c0 = hn::Zero(d), c1 = c0;
  const auto two_sum = [](V& sum, V& comp, V v) {
    const V t = hn::Add(sum, v);
    const V vv = hn::Sub(t, sum);
    const V ss = hn::Sub(t, vv);
    comp = hn::Add(comp, hn::Add(hn::Sub(sum, ss), hn::Sub(v, vv)));
    sum = t;
  };
  size_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    two_sum(s0, c0, hn::LoadU(d, x + i));
    two_sum(s1, c1, hn::LoadU(d, x + i + lanes));
  }
  for (; i + lanes <= n; i += lanes) two_sum(s0, c0, hn::LoadU(d, x + i));
  if (i < n) {
    HWY_ALIGN float buf[hn::MaxLanes(d)];
    for (size_t k = 0; k < lanes; ++k) buf[k] = i + k < n ? x[i + k] : -0.0f;
    two_sum(s1, c1, hn::Load(d, buf));
  }
  HWY_ALIGN float sb[2][hn::MaxLanes(d)], cb[2][hn::MaxLanes(d)];
  hn::Store(s0, d, sb[0]);
  hn::Store(s1, d, sb[1]);
  hn::Store(c0, d, cb[0]);
  hn::Store(c1, d, cb[1]);
  double sum = -0.0, comp = 0;
  for (size_t k = 0; k < lanes; ++k) {
    sum += static_cast<double>(sb[0][k]);
    sum += static_cast<double>(sb[1][k]);
    comp += static_cast<double>(cb[0][k]) + static_cast<double>(cb[1][k]);
  }
  return !std::isfinite(sum) || comp == 0 ? sum : sum + comp;
}

float ReduceRowImpl(RowReduce op, const float* x, size_t n) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const auto add = [](V a, V b) { return hn::Add(a, b); };
  const auto sadd = [](float a, float b) { return a + b; };
  switch (op) {
    case RowReduce::kSum:
      return static_cast<float>(SumRowImpl(x, n));
    case RowReduce::kSumAbs:
      return CombineLanes(
          d,
          Fold(
              d, x, n, 0.0f, 0.0f, [](V a, V v) { return hn::Add(a, hn::Abs(v)); }, add),
          sadd);
    case RowReduce::kSumSquare:
      return CombineLanes(
          d,
          Fold(
              d, x, n, 0.0f, 0.0f, [](V a, V v) { return hn::MulAdd(v, v, a); }, add),
          sadd);
    case RowReduce::kProduct: {
      const auto mul = [](V a, V b) { return hn::Mul(a, b); };
      return CombineLanes(d, Fold(d, x, n, 1.0f, 1.0f, mul, mul),
                          [](float a, float b) { return a * b; });
    }
    case RowReduce::kMax:
    case RowReduce::kMin: {
      const bool is_max = op == RowReduce::kMax;
      auto nan = hn::Zero(d);  // lanes that saw a NaN: all-ones bits
      const auto track = [&](V v) { nan = hn::Or(nan, hn::VecFromMask(d, hn::IsNaN(v))); };
      V r;
      if (is_max) {
        r = Fold(
            d, x, n, x[0], x[0],
            [&](V a, V v) {
              track(v);
              return VecMaxExact(d, a, v);
            },
            [&](V a, V b) { return VecMaxExact(d, a, b); });
      } else {
        r = Fold(
            d, x, n, x[0], x[0],
            [&](V a, V v) {
              track(v);
              return VecMinExact(d, a, v);
            },
            [&](V a, V b) { return VecMinExact(d, a, b); });
      }
      if (!hn::AllFalse(d, hn::MaskFromVec(nan))) return std::numeric_limits<float>::quiet_NaN();
      return is_max ? CombineLanes(d, r, MaxExact) : CombineLanes(d, r, MinExact);
    }
  }
  return 0;
}

float SumSquaredDeviationRowImpl(const float* x, size_t n, float mean_hi, float mean_lo) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const V hi = hn::Set(d, mean_hi), lo = hn::Set(d, mean_lo);
  const auto add = [](V a, V b) { return hn::Add(a, b); };
  return CombineLanes(d,
                      Fold(
                          d, x, n, 0.0f, mean_hi + mean_lo,
                          [hi, lo](V a, V v) {
                            // x - hi is exact near the mean (Sterbenz); then the low part.
                            const V c = hn::Sub(hn::Sub(v, hi), lo);
                            return hn::MulAdd(c, c, a);
                          },
                          add),
                      [](float a, float b) { return a + b; });
}

// Sum over x[0..n) of (x - mean)^2 in double (the elements widened exactly, four accumulators in
// the double lanes, then the lanes and the tail added in order).
double SumSquaredDeviationDoubleImpl(const float* x, size_t n, double mean) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;  // as many float lanes as double lanes
  using V = hn::Vec<decltype(dd)>;
  const size_t lanes = hn::Lanes(dd);
  const V m = hn::Set(dd, mean);
  V a0 = hn::Zero(dd), a1 = a0, a2 = a0, a3 = a0;
  size_t i = 0;
  const auto sq = [&](size_t at, V acc) {
    const V c = hn::Sub(hn::PromoteTo(dd, hn::LoadU(df, x + at)), m);
    return hn::MulAdd(c, c, acc);
  };
  for (; i + 4 * lanes <= n; i += 4 * lanes) {
    a0 = sq(i, a0);
    a1 = sq(i + lanes, a1);
    a2 = sq(i + 2 * lanes, a2);
    a3 = sq(i + 3 * lanes, a3);
  }
  for (; i + lanes <= n; i += lanes) a0 = sq(i, a0);
  HWY_ALIGN double buf[hn::MaxLanes(dd)];
  hn::Store(hn::Add(hn::Add(a0, a1), hn::Add(a2, a3)), dd, buf);
  double sum = 0;
  for (size_t k = 0; k < lanes; ++k) sum += buf[k];
  for (; i < n; ++i) {
    const double c = static_cast<double>(x[i]) - mean;
    sum += c * c;
  }
  return sum;
}

// The maximum of x[0..n), NaN when any element is NaN (kTrackNaN; otherwise a NaN element may
// or may not make it NaN: softmax does not need to know, since x - max is NaN for that element
// and its NaN reaches every output through the sum); the sign of a zero maximum is left open
// (x - (+0) and x - (-0) are equal, so the exponentials do not see it).
template <bool kTrackNaN>
HWY_INLINE float MaxRowForExp(const float* x, size_t n) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  auto nan = hn::Zero(d);
  const V r = Fold(
      d, x, n, x[0], x[0],
      [&](V a, V v) {
        if constexpr (kTrackNaN) nan = hn::Or(nan, hn::VecFromMask(d, hn::IsNaN(v)));
        return hn::Max(a, v);
      },
      [](V a, V b) { return hn::Max(a, b); });
  if (kTrackNaN && !hn::AllFalse(d, hn::MaskFromVec(nan))) {
    return std::numeric_limits<float>::quiet_NaN();
  }
  return CombineLanes(d, r, [](float a, float b) { return a > b ? a : b; });
}

// exp(x) for x in [kExpLow, 0] (the arguments softmax and logSumExp have after subtracting the
// maximum): x = n ln2 + r with n = round(x / ln2) in [-126, 0] and |r| <= ln2 / 2 (Cody-Waite: the
// high part of ln2 has 9 significant bits, so n * ln2_hi and x - n * ln2_hi are exact), e^r by
// its Taylor polynomial of degree 7 in Horner form (truncation below 0.1 ulp), times 2^n built in
// the exponent bits (a normal number: n >= -126). exp(0) is exactly 1. Against exp in double on every 61st
// float32 of [-87, 0] (reduction_test.cc): at most 0.91 ulp with FMA (AVX2, AVX-512), 1.17 ulp
// without; the test allows 2. Cheaper than hwy's Exp, which covers the whole
// float range (its scaling by 2^n takes two multiplications).
template <class D, class V>
HWY_INLINE V ExpNonPositive(D d, V x) {
  const hn::RebindToSigned<D> di;
  // t = x / ln2 + 1.5 * 2^23 rounds x / ln2 to an integer n held in t's low mantissa bits
  // (bits(t) = bits(1.5 * 2^23) + n), so n = t - 1.5 * 2^23 exactly and 2^n needs no conversion.
  const V magic = hn::Set(d, 12582912.0f);
  const V t = hn::MulAdd(x, hn::Set(d, 1.44269504088896341f), magic);
  const V n = hn::Sub(t, magic);
  V r = hn::NegMulAdd(n, hn::Set(d, 0.693359375f), x);  // exact
  r = hn::NegMulAdd(n, hn::Set(d, -2.12194440e-4f), r);
  V p = hn::Set(d, 1.0f / 5040.0f);
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f / 720.0f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f / 120.0f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f / 24.0f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f / 6.0f));
  p = hn::MulAdd(p, r, hn::Set(d, 0.5f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f));
  // bits(t) - bits(1.5 * 2^23) + 127 = n + 127, the biased exponent of 2^n.
  const auto scale =
      hn::ShiftLeft<23>(hn::Sub(hn::BitCast(di, t), hn::Set(di, 0x4B400000 - 127)));
  return hn::Mul(p, hn::BitCast(d, scale));
}

// exp(v - m) for diff = fl(v - m) >= kExpLow: the rounding error of the subtraction (TwoSum)
// would otherwise become a relative error |v - m| * 2^-24 of the result; exp(diff + err) is taken
// as exp(diff) * (1 + err). `neg_m` is -m. Lanes with diff below kExpLow (or -Inf) give garbage
// or NaN, which the callers replace; a NaN diff gives NaN.
template <class D, class V>
HWY_INLINE V ExpOfDifference(D d, V v, V neg_m, V diff) {
  const V vv = hn::Sub(diff, v);  // -m as rounded inside diff
  const V err = hn::Add(hn::Sub(v, hn::Sub(diff, vv)), hn::Sub(neg_m, vv));
  const V e = ExpNonPositive(d, diff);
  return hn::MulAdd(e, err, e);
}

// out[i] = ExpNonPositive(x[i]) for x[i] in [kExpLow, 0] (the exp of softmax and logSumExp, for
// its accuracy test).
void ExpNonPositiveRowImpl(const float* x, float* out, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(ExpNonPositive(d, hn::LoadU(d, x + i)), d, out + i);
  if (i < n) {
    HWY_ALIGN float buf[hn::MaxLanes(d)] = {};
    std::memcpy(buf, x + i, (n - i) * sizeof(float));
    hn::Store(ExpNonPositive(d, hn::Load(d, buf)), d, buf);
    std::memcpy(out + i, buf, (n - i) * sizeof(float));
  }
}

float LogSumExpRowImpl(const float* x, size_t n) {
  const float m = MaxRowForExp<true>(x, n);
  if (!std::isfinite(m)) return m;  // NaN; +Inf (the sum is Inf); all -Inf (log 0)
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const size_t lanes = hn::Lanes(d);
  const V vm = hn::Set(d, m), neg_m = hn::Set(d, -m), low = hn::Set(d, kExpLow);
  const V one = hn::Set(d, 1.0f);
  V sum = hn::Zero(d), count = hn::Zero(d);  // sum of exp(x - m) below m; count of x == m
  bool any_low = false;
  const auto step = [&](V v, hn::Mask<decltype(d)> valid) {
    const V diff = hn::Sub(v, vm);
    const auto is_max = hn::And(hn::Eq(diff, hn::Zero(d)), valid);
    const auto is_low = hn::And(hn::Lt(diff, low), valid);
    any_low = any_low || !hn::AllFalse(d, is_low);
    const auto take = hn::AndNot(hn::Or(is_max, is_low), valid);
    sum = hn::Add(sum, hn::IfThenElseZero(take, ExpOfDifference(d, v, neg_m, diff)));
    count = hn::Add(count, hn::IfThenElseZero(is_max, one));
  };
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) step(hn::LoadU(d, x + i), hn::FirstN(d, lanes));
  if (i < n) {
    HWY_ALIGN float buf[hn::MaxLanes(d)];
    for (size_t k = 0; k < lanes; ++k) buf[k] = i + k < n ? x[i + k] : m;
    step(hn::Load(d, buf), hn::FirstN(d, n - i));
  }
  const auto sadd = [](float a, float b) { return a + b; };
  float rest = CombineLanes(d, sum, sadd) + (CombineLanes(d, count, sadd) - 1.0f);
  if (any_low) {
    for (size_t k = 0; k < n; ++k) {
      if (x[k] - m < kExpLow) rest += std::exp(x[k] - m);
    }
  }
  return m + std::log1p(rest);
}

void SoftmaxRowImpl(const float* x, float* out, size_t n) {
  const float m = MaxRowForExp<false>(x, n);
  if (!std::isfinite(m)) {  // NaN - m, Inf - Inf or -Inf - -Inf: NaN in every term of the sum
    for (size_t i = 0; i < n; ++i) out[i] = std::numeric_limits<float>::quiet_NaN();
    return;
  }
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const size_t lanes = hn::Lanes(d);
  const V vm = hn::Set(d, m), neg_m = hn::Set(d, -m), low = hn::Set(d, kExpLow);
  V s0 = hn::Zero(d), s1 = s0;
  bool any_low = false;
  // `valid`: the lanes that hold elements (the padding of the last vector is -Inf, whose exp is
  // 0, and must not send the whole row through the scalar pass).
  const auto exp_of = [&](V v, hn::Mask<decltype(d)> valid) {
    const V diff = hn::Sub(v, vm);
    const auto is_low = hn::Lt(diff, low);
    any_low = any_low || !hn::AllFalse(d, hn::And(is_low, valid));
    return hn::IfThenZeroElse(is_low, ExpOfDifference(d, v, neg_m, diff));
  };
  const auto all = hn::FirstN(d, lanes);
  size_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    const V e0 = exp_of(hn::LoadU(d, x + i), all), e1 = exp_of(hn::LoadU(d, x + i + lanes), all);
    hn::StoreU(e0, d, out + i);
    hn::StoreU(e1, d, out + i + lanes);
    s0 = hn::Add(s0, e0);
    s1 = hn::Add(s1, e1);
  }
  for (; i + lanes <= n; i += lanes) {
    const V e = exp_of(hn::LoadU(d, x + i), all);
    hn::StoreU(e, d, out + i);
    s0 = hn::Add(s0, e);
  }
  if (i < n) {
    HWY_ALIGN float buf[hn::MaxLanes(d)];
    for (size_t k = 0; k < lanes; ++k) buf[k] = i + k < n ? x[i + k] : -INFINITY;
    const V e = exp_of(hn::Load(d, buf), hn::FirstN(d, n - i));  // padding: exp(-Inf) = 0
    hn::Store(e, d, buf);
    std::memcpy(out + i, buf, (n - i) * sizeof(float));
    s1 = hn::Add(s1, e);
  }
  float sum = CombineLanes(d, hn::Add(s0, s1), [](float a, float b) { return a + b; });
  if (any_low) {
    for (size_t k = 0; k < n; ++k) {
      if (x[k] - m < kExpLow) {
        out[k] = std::exp(x[k] - m);
        sum += out[k];
      }
    }
  }
  // One division, then a multiplication per element (one more rounding than a division).
  const float inverse = 1.0f / sum;
  const V vs = hn::Set(d, inverse);
  i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(hn::Mul(hn::LoadU(d, out + i), vs), d, out + i);
  for (; i < n; ++i) out[i] *= inverse;
}

void NormalizeRowImpl(const float* x, const double* m, size_t m_step, const float* a, size_t a_step,
                      const double* r, size_t r_step, const float* b, size_t b_step, float* out,
                      size_t n) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;  // as many float lanes as double lanes
  const size_t lanes = hn::Lanes(dd);
  const auto loadf = [&](const float* p, size_t step, size_t i) {
    return step ? hn::PromoteTo(dd, hn::LoadU(df, p + i)) : hn::Set(dd, static_cast<double>(*p));
  };
  const auto loadd = [&](const double* p, size_t step, size_t i) {
    return step ? hn::LoadU(dd, p + i) : hn::Set(dd, *p);
  };
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto c = hn::Sub(hn::PromoteTo(dd, hn::LoadU(df, x + i)), loadd(m, m_step, i));
    const auto scale = hn::Mul(loadf(a, a_step, i), loadd(r, r_step, i));
    hn::StoreU(hn::DemoteTo(df, hn::MulAdd(c, scale, loadf(b, b_step, i))), df, out + i);
  }
  for (; i < n; ++i) {
    const double c = static_cast<double>(x[i]) - m[m_step * i];
    const double scale = static_cast<double>(a[a_step * i]) * r[r_step * i];
    out[i] = static_cast<float>(c * scale + static_cast<double>(b[b_step * i]));
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace nnref::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace nnref::simd {

HWY_EXPORT(SumRowImpl);
HWY_EXPORT(ReduceRowImpl);
HWY_EXPORT(SumSquaredDeviationRowImpl);
HWY_EXPORT(SumSquaredDeviationDoubleImpl);
HWY_EXPORT(LogSumExpRowImpl);
HWY_EXPORT(SoftmaxRowImpl);
HWY_EXPORT(ExpNonPositiveRowImpl);
HWY_EXPORT(NormalizeRowImpl);

double SumRow(const float* x, size_t n) { return HWY_DYNAMIC_DISPATCH(SumRowImpl)(x, n); }
float ReduceRow(RowReduce op, const float* x, size_t n) {
  return HWY_DYNAMIC_DISPATCH(ReduceRowImpl)(op, x, n);
}
float SumSquaredDeviationRow(const float* x, size_t n, float mean_hi, float mean_lo) {
  return HWY_DYNAMIC_DISPATCH(SumSquaredDeviationRowImpl)(x, n, mean_hi, mean_lo);
}
double SumSquaredDeviationDouble(const float* x, size_t n, double mean) {
  return HWY_DYNAMIC_DISPATCH(SumSquaredDeviationDoubleImpl)(x, n, mean);
}
float LogSumExpRow(const float* x, size_t n) {
  return HWY_DYNAMIC_DISPATCH(LogSumExpRowImpl)(x, n);
}
void SoftmaxRow(const float* x, float* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(SoftmaxRowImpl)(x, out, n);
}
void ExpNonPositiveRow(const float* x, float* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(ExpNonPositiveRowImpl)(x, out, n);
}
void NormalizeRow(const float* x, const double* m, size_t m_step, const float* a, size_t a_step,
                  const double* r, size_t r_step, const float* b, size_t b_step, float* out,
                  size_t n) {
  HWY_DYNAMIC_DISPATCH(NormalizeRowImpl)(x, m, m_step, a, a_step, r, r_step, b, b_step, out, n);
}

}  // namespace nnref::simd
#endif  // HWY_ONCE
