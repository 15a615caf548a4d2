// Highway bodies of the element-wise row functions (rows.h), compiled once per SIMD target by
// foreach_target.h and chosen at run time by HWY_DYNAMIC_DISPATCH.
//
// Numerics (a production backend's, judged by the tolerances): float32 arithmetic; MulAdd is a
// fused FMA where the target has one. Transcendentals use hwy/contrib/math inside the ranges it
// documents as valid (Exp: <= 104, Log: > 0, Sin/Cos: |x| <= 39000, Tanh: all, Expm1/Log1p);
// elements outside them (and erf, tan and pow, which contrib lacks) take the C library's float
// function in a scalar pass; pow by an exponent of 2 or 3 for the whole row multiplies in double.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/simd/elementwise_hwy.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
// clang-format off
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>
// clang-format on

#include <cmath>
#include <cstring>

#include "numerics/float16.h"
#include "ops/simd/rows.h"

HWY_BEFORE_NAMESPACE();
namespace nnref::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Applies `vec` to full vectors and `scalar` to the remainder, one lane at a time (so the tail
// computes exactly what a full vector would, on every target).
template <class VecFn>
HWY_INLINE void MapRow(const float* x, float* out, size_t n, const VecFn& vec) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(vec(d, hn::LoadU(d, x + i)), d, out + i);
  if (i < n) {
    HWY_ALIGN float in_buf[hn::MaxLanes(d)] = {};
    HWY_ALIGN float out_buf[hn::MaxLanes(d)];
    std::memcpy(in_buf, x + i, (n - i) * sizeof(float));
    hn::Store(vec(d, hn::Load(d, in_buf)), d, out_buf);
    std::memcpy(out + i, out_buf, (n - i) * sizeof(float));
  }
}

template <class VecFn>
HWY_INLINE void MapRow2(const float* a, size_t a_step, const float* b, size_t b_step, float* out,
                        size_t n, const VecFn& vec) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  const auto load = [&](const float* p, size_t step, size_t i) {
    return step ? hn::LoadU(d, p + i) : hn::Set(d, p[0]);
  };
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::StoreU(vec(d, load(a, a_step, i), load(b, b_step, i)), d, out + i);
  }
  if (i < n) {
    HWY_ALIGN float ab[hn::MaxLanes(d)] = {};
    HWY_ALIGN float bb[hn::MaxLanes(d)] = {};
    HWY_ALIGN float ob[hn::MaxLanes(d)];
    for (size_t k = 0; k < n - i; ++k) {
      ab[k] = a[a_step ? i + k : 0];
      bb[k] = b[b_step ? i + k : 0];
    }
    hn::Store(vec(d, hn::Load(d, ab), hn::Load(d, bb)), d, ob);
    std::memcpy(out + i, ob, (n - i) * sizeof(float));
  }
}

void BinaryRowImpl(RowBinary op, const float* a, size_t a_step, const float* b, size_t b_step,
                   float* out, size_t n) {
  switch (op) {
    case RowBinary::kAdd:
      return MapRow2(a, a_step, b, b_step, out, n,
                     [](auto, auto x, auto y) { return hn::Add(x, y); });
    case RowBinary::kSub:
      return MapRow2(a, a_step, b, b_step, out, n,
                     [](auto, auto x, auto y) { return hn::Sub(x, y); });
    case RowBinary::kMul:
      return MapRow2(a, a_step, b, b_step, out, n,
                     [](auto, auto x, auto y) { return hn::Mul(x, y); });
    case RowBinary::kDiv:
      return MapRow2(a, a_step, b, b_step, out, n,
                     [](auto, auto x, auto y) { return hn::Div(x, y); });
    case RowBinary::kMax:
      return MapRow2(a, a_step, b, b_step, out, n,
                     [](auto, auto x, auto y) { return hn::Max(x, y); });
    case RowBinary::kMin:
      return MapRow2(a, a_step, b, b_step, out, n,
                     [](auto, auto x, auto y) { return hn::Min(x, y); });
    case RowBinary::kPrelu:
      return MapRow2(a, a_step, b, b_step, out, n, [](auto d, auto x, auto s) {
        return hn::IfThenElse(hn::Lt(x, hn::Zero(d)), hn::Mul(x, s), x);
      });
    case RowBinary::kPow:
      if (b_step == 0 && a_step == 1 && (b[0] == 2.0f || b[0] == 3.0f)) {
        // A square or cube by one exponent (gelu's x^3): products in double, rounded once to
        // float32. x * x is exact in double; x * x * x is within 2^-53 of the exact cube, so the
        // result is the correctly rounded one but when that cube lies within 2^-53 of a float32
        // midpoint (then 1 ulp off at most). Signed zeros, infinities and NaN come out as pow's.
        if (b[0] == 2.0f) {
          for (size_t i = 0; i < n; ++i) {
            const double x = a[i];
            out[i] = static_cast<float>(x * x);
          }
        } else {
          for (size_t i = 0; i < n; ++i) {
            const double x = a[i];
            out[i] = static_cast<float>(x * x * x);
          }
        }
        return;
      }
      for (size_t i = 0; i < n; ++i) out[i] = std::pow(a[a_step ? i : 0], b[b_step ? i : 0]);
      return;
  }
}

// `f` on the lanes of v inside [lo, hi]; the others (NaN included) are handed 1 instead, for
// FixOutside to recompute: contrib's functions convert to int32 on the way, which for a NaN or
// a value beyond their range is undefined behaviour on HWY_SCALAR (UBSan: "nan is outside the
// range of representable values of type 'int'").
template <class F>
HWY_INLINE auto InRange(float lo, float hi, const F& f) {
  return [lo, hi, f](auto d, auto v) {
    const auto in = hn::And(hn::Ge(v, hn::Set(d, lo)), hn::Le(v, hn::Set(d, hi)));
    return f(d, hn::IfThenElse(in, v, hn::Set(d, 1.0f)));
  };
}

// Elements with x outside [lo, hi] (or NaN) are recomputed by `scalar`.
template <class Scalar>
HWY_INLINE void FixOutside(const float* x, float* out, size_t n, float lo, float hi,
                           const Scalar& scalar) {
  for (size_t i = 0; i < n; ++i) {
    if (!(x[i] >= lo && x[i] <= hi)) out[i] = scalar(x[i]);
  }
}

void UnaryRowImpl(RowUnary op, const float* x, float* out, size_t n, float alpha, float beta) {
  switch (op) {
    case RowUnary::kAbs:
      return MapRow(x, out, n, [](auto, auto v) { return hn::Abs(v); });
    case RowUnary::kCeil:
      return MapRow(x, out, n, [](auto, auto v) { return hn::Ceil(v); });
    case RowUnary::kFloor:
      return MapRow(x, out, n, [](auto, auto v) { return hn::Floor(v); });
    case RowUnary::kRoundEven:
      return MapRow(x, out, n, [](auto, auto v) { return hn::Round(v); });
    case RowUnary::kIdentity:
      if (out != x) std::memmove(out, x, n * sizeof(float));
      return;
    case RowUnary::kNeg:
      return MapRow(x, out, n, [](auto, auto v) { return hn::Neg(v); });
    case RowUnary::kReciprocal:
      return MapRow(x, out, n, [](auto d, auto v) { return hn::Div(hn::Set(d, 1.0f), v); });
    case RowUnary::kSqrt:
      return MapRow(x, out, n, [](auto, auto v) { return hn::Sqrt(v); });
    case RowUnary::kSign:
      return MapRow(x, out, n, [](auto d, auto v) {
        const auto one = hn::Set(d, 1.0f);
        return hn::IfThenElse(hn::Gt(v, hn::Zero(d)), one,
                              hn::IfThenElse(hn::Lt(v, hn::Zero(d)), hn::Neg(one), v));
      });
    case RowUnary::kExp:
      MapRow(x, out, n, InRange(-87.0f, 88.0f, [](auto d, auto v) { return hn::Exp(d, v); }));
      return FixOutside(x, out, n, -87.0f, 88.0f, [](float v) { return std::exp(v); });
    case RowUnary::kLog:
      MapRow(x, out, n,
             InRange(1.17549435e-38f, 3.0e38f, [](auto d, auto v) { return hn::Log(d, v); }));
      return FixOutside(x, out, n, 1.17549435e-38f, 3.0e38f, [](float v) { return std::log(v); });
    case RowUnary::kSin:
      // sin(-0) is -0 (sin is odd); contrib's Sin gives +0, which a reciprocal downstream turns
      // into the wrong infinity. Zeros pass through.
      MapRow(x, out, n, InRange(-39000.0f, 39000.0f, [](auto d, auto v) {
               return hn::IfThenElse(hn::Eq(v, hn::Zero(d)), v, hn::Sin(d, v));
             }));
      return FixOutside(x, out, n, -39000.0f, 39000.0f, [](float v) { return std::sin(v); });
    case RowUnary::kCos:
      MapRow(x, out, n, InRange(-39000.0f, 39000.0f, [](auto d, auto v) { return hn::Cos(d, v); }));
      return FixOutside(x, out, n, -39000.0f, 39000.0f, [](float v) { return std::cos(v); });
    case RowUnary::kTan:
      for (size_t i = 0; i < n; ++i) out[i] = std::tan(x[i]);
      return;
    case RowUnary::kErf:
      for (size_t i = 0; i < n; ++i) out[i] = std::erf(x[i]);
      return;
    case RowUnary::kTanh:
      MapRow(x, out, n, InRange(-9.0f, 9.0f, [](auto d, auto v) { return hn::Tanh(d, v); }));
      return FixOutside(x, out, n, -9.0f, 9.0f, [](float v) { return std::tanh(v); });
    case RowUnary::kRelu:
      return MapRow(x, out, n, [](auto d, auto v) { return hn::Max(v, hn::Zero(d)); });
    case RowUnary::kLeakyRelu:
      return MapRow(x, out, n, [alpha](auto d, auto v) {
        return hn::IfThenElse(hn::Lt(v, hn::Zero(d)), hn::Mul(v, hn::Set(d, alpha)), v);
      });
    case RowUnary::kElu:
      // x > 0 ? x : alpha * expm1(x)
      MapRow(x, out, n, InRange(-87.0f, 3.0e38f, [alpha](auto d, auto v) {
               const auto neg = hn::Min(v, hn::Zero(d));
               return hn::IfThenElse(hn::Gt(v, hn::Zero(d)), v,
                                     hn::Mul(hn::Set(d, alpha), hn::Expm1(d, neg)));
             }));
      return FixOutside(x, out, n, -87.0f, 3.0e38f,
                        [alpha](float v) { return v > 0 ? v : alpha * std::expm1(v); });
    case RowUnary::kHardSigmoid:
      return MapRow(x, out, n, [alpha, beta](auto d, auto v) {
        const auto y = hn::MulAdd(hn::Set(d, alpha), v, hn::Set(d, beta));
        return hn::Min(hn::Max(y, hn::Zero(d)), hn::Set(d, 1.0f));
      });
    case RowUnary::kHardSwish:
      return MapRow(x, out, n, [](auto d, auto v) {
        const auto t =
            hn::Min(hn::Max(hn::Add(v, hn::Set(d, 3.0f)), hn::Zero(d)), hn::Set(d, 6.0f));
        // x * (t / 6): t / 6 <= 1, so x * t cannot overflow where the result does not.
        return hn::Mul(v, hn::Div(t, hn::Set(d, 6.0f)));
      });
    case RowUnary::kSigmoid:
      // 1 / (1 + exp(-x)); exp(-x) overflows to inf for x < -88, giving 0 as it should.
      MapRow(x, out, n, InRange(-87.0f, 87.0f, [](auto d, auto v) {
               const auto one = hn::Set(d, 1.0f);
               return hn::Div(one, hn::Add(one, hn::Exp(d, hn::Neg(v))));
             }));
      // Beyond +-87: e^x / (1 + e^x) for negative x keeps the subnormal results exp(x) gives.
      return FixOutside(x, out, n, -87.0f, 87.0f, [](float v) {
        if (v < 0) {
          const float e = std::exp(v);
          return e / (1.0f + e);
        }
        return 1.0f / (1.0f + std::exp(-v));
      });
    case RowUnary::kSoftplus:
      // max(x, 0) + log1p(exp(-|x|)); beyond +-87 (exp(-|x|) below exp's vector range) in scalar
      MapRow(x, out, n, InRange(-87.0f, 87.0f, [](auto d, auto v) {
               const auto e = hn::Exp(d, hn::Neg(hn::Abs(v)));
               return hn::Add(hn::Max(v, hn::Zero(d)), hn::Log1p(d, e));
             }));
      return FixOutside(x, out, n, -87.0f, 87.0f, [](float v) {
        return std::fmax(v, 0.0f) + std::log1p(std::exp(-std::fabs(v)));
      });
    case RowUnary::kSoftsign:
      return MapRow(x, out, n, [](auto d, auto v) {
        return hn::Div(v, hn::Add(hn::Set(d, 1.0f), hn::Abs(v)));
      });
    case RowUnary::kGelu:
      // 0.5 x erfc(-x / sqrt 2): no cancellation in the negative tail (1 + erf(x) would cancel).
      // erfc(y) ~ exp(-y^2) magnifies the relative error of y by 2y^2 (70x at y = 6), so y is
      // carried as y + y_lo (the rounding error of x / sqrt 2, by FMA) and erfc corrected to
      // first order: erfc(y + y_lo) = erfc(y) - 2/sqrt(pi) exp(-y^2) y_lo.
      for (size_t i = 0; i < n; ++i) {
        constexpr float kC = 0.70710677f;        // 1/sqrt(2) rounded to float
        constexpr float kCLo = 1.21016175e-08f;  // 1/sqrt(2) - kC
        const float v = x[i];
        const float p = v * kC;
        const float p_lo = std::fma(v, kC, -p) + v * kCLo;  // v / sqrt 2 = p + p_lo
        const float y = -p, y_lo = -p_lo;
        const float e = std::isfinite(y_lo)  // not for infinite x
                            ? std::erfc(y) - 1.12837917f * std::exp(-y * y) * y_lo
                            : std::erfc(y);
        out[i] = 0.5f * v * e;
      }
      return;
  }
}

void HalfToFloatRowImpl(const uint16_t* in, float* out, size_t n) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  const hn::ScalableTag<float> df;
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  const size_t lanes = hn::Lanes(df);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::StoreU(hn::PromoteTo(df, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(in + i))),
               df, out + i);
  }
  for (; i < n; ++i) out[i] = Float16{in[i]}.ToFloat();
#else
  for (size_t i = 0; i < n; ++i) out[i] = Float16{in[i]}.ToFloat();
#endif
}

void FloatToHalfRowImpl(const float* in, uint16_t* out, size_t n) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  const hn::ScalableTag<float> df;
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  const size_t lanes = hn::Lanes(df);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::StoreU(hn::DemoteTo(dh, hn::LoadU(df, in + i)), dh,
               reinterpret_cast<hwy::float16_t*>(out + i));
  }
  for (; i < n; ++i) out[i] = Float16::FromFloat(in[i]).bits;
#else
  for (size_t i = 0; i < n; ++i) out[i] = Float16::FromFloat(in[i]).bits;
#endif
}

const char* TargetNameImpl() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace nnref::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace nnref::simd {

HWY_EXPORT(BinaryRowImpl);
HWY_EXPORT(UnaryRowImpl);
HWY_EXPORT(HalfToFloatRowImpl);
HWY_EXPORT(FloatToHalfRowImpl);
HWY_EXPORT(TargetNameImpl);

void BinaryRow(RowBinary op, const float* a, size_t a_step, const float* b, size_t b_step,
               float* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(BinaryRowImpl)(op, a, a_step, b, b_step, out, n);
}
void UnaryRow(RowUnary op, const float* x, float* out, size_t n, float alpha, float beta) {
  HWY_DYNAMIC_DISPATCH(UnaryRowImpl)(op, x, out, n, alpha, beta);
}
void HalfToFloatRow(const uint16_t* in, float* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(HalfToFloatRowImpl)(in, out, n);
}
void FloatToHalfRow(const float* in, uint16_t* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(FloatToHalfRowImpl)(in, out, n);
}
const char* ChosenTargetName() { return HWY_DYNAMIC_DISPATCH(TargetNameImpl)(); }

}  // namespace nnref::simd
#endif  // HWY_ONCE
