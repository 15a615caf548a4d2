// The __float128 slow path of ops/correctly_rounded.h (bounds and sources are listed there).
#include "ops/correctly_rounded.h"

#include <quadmath.h>

#include <limits>

#include <cstring>

namespace nnref {

namespace {

constexpr double kQuadLibRel = 0x1p-100;       // one libquadmath call
constexpr double kQuadCompositeRel = 0x1p-98;  // one call and at most three quad roundings

struct QuadValue {
  Quad q;
  Quad rel;  // |q - f(x)| <= rel |q|
};

// 1 / sqrt 2 rounded once (sqrtq is correctly rounded, and 0.5 is exact).
Quad SqrtHalf() {
  static const Quad kValue = sqrtq(static_cast<Quad>(0.5));
  return kValue;
}

Quad QAbs(Quad q) { return q < 0 ? -q : q; }

// The last significand bit of a finite quad (the low bit of its low 64-bit word, x86-64 order).
bool LastBitOdd(Quad q) {
  uint64_t w[2];
  std::memcpy(w, &q, sizeof w);
  return (w[0] & 1) != 0;
}

QuadValue EvaluateQuad(CrFunction f, double xd, double alpha) {
  const Quad x = xd;  // exact
  switch (f) {
    case CrFunction::kExp:
      return {expq(x), kQuadLibRel};
    case CrFunction::kLog:
      return {logq(x), kQuadLibRel};
    case CrFunction::kSin:
      return {sinq(x), kQuadLibRel};
    case CrFunction::kCos:
      return {cosq(x), kQuadLibRel};
    case CrFunction::kTan:
      return {tanq(x), kQuadLibRel};
    case CrFunction::kErf:
      return {erfq(x), kQuadLibRel};
    case CrFunction::kTanh:
      return {tanhq(x), kQuadLibRel};
    case CrFunction::kSigmoid:
      if (x >= 0) return {1 / (1 + expq(-x)), kQuadCompositeRel};
      {
        const Quad e = expq(x);
        return {e / (1 + e), kQuadCompositeRel};
      }
    case CrFunction::kSoftplus:
      return {x > 0 ? x + log1pq(expq(-x)) : log1pq(expq(x)), kQuadCompositeRel};
    case CrFunction::kSoftsign:
      return {x / (1 + QAbs(x)), kQuadCompositeRel};
    case CrFunction::kGelu: {
      const Quad z = -x * SqrtHalf();  // 2 roundings: the constant and the product
      const double zd = static_cast<double>(z);
      // erfc's relative condition number: at most 2 z^2 + 1 for z > 0, below 1 otherwise.
      const double conditioning = (zd > 0 ? 2 * zd * zd + 1 : 1) * 0x1p-111;
      return {static_cast<Quad>(0.5) * x * erfcq(z),
              static_cast<Quad>(kQuadCompositeRel + conditioning)};
    }
    case CrFunction::kElu:
      return {static_cast<Quad>(alpha) * expm1q(x), kQuadCompositeRel};
    case CrFunction::kHardSwish: {
      // Exact: x + 3 needs at most 86 bits and x (x + 3) at most 110 for 2^-60 <= |x| < 3 (the
      // kernel takes |x| < 2^-60 apart), so n is exact; n / 6 is then rounded to odd with the fma
      // remainder, and one more rounding to double to odd and to T is correct (ziv_round.h).
      const Quad n = x * (x + 3);
      Quad q = n / 6;
      const Quad rest = fmaq(-6, q, n);
      // (An infinity of double widened, not HUGE_VALQ: clang has no __builtin_huge_valq.)
      const Quad inf = static_cast<Quad>(std::numeric_limits<double>::infinity());
      if (rest != 0 && !LastBitOdd(q)) q = nextafterq(q, rest > 0 ? inf : -inf);
      return {q, 0};
    }
  }
  return {x, 0};
}

}  // namespace

ZivStats& GetZivStats() {
  static ZivStats stats;
  return stats;
}

template <typename T>
T RoundSlow(CrFunction f, double x, double alpha) {
  GetZivStats().quad.fetch_add(1, std::memory_order_relaxed);
  const QuadValue v = EvaluateQuad(f, x, alpha);
  T out;
  if (RoundsUniquely(v.q, ZivQuadBound(v.q, v.rel), out)) return out;
  GetZivStats().undecided.fetch_add(1, std::memory_order_relaxed);
  return RoundTo<T>(QuadToOddDouble(v.q));
}

template float RoundSlow<float>(CrFunction, double, double);
template Float16 RoundSlow<Float16>(CrFunction, double, double);

template <typename T>
T RoundNormalizationSlow(double x, double m, double v, double eps, double s, double b) {
  GetZivStats().quad.fetch_add(1, std::memory_order_relaxed);
  // The double steps in quad: each rounds once at 2^-113, so |q - y| < 8 * 2^-113 (|t| + |q|).
  const Quad t = static_cast<Quad>(s) * ((static_cast<Quad>(x) - static_cast<Quad>(m)) /
                                         sqrtq(static_cast<Quad>(v) + static_cast<Quad>(eps)));
  const Quad q = t + static_cast<Quad>(b);
  const Quad e = static_cast<Quad>(0x1p-109) * (QAbs(t) + QAbs(q));
  T out;
  if (RoundsUniquely(q, e + ZivQuadBound(q, 0), out)) return out;
  GetZivStats().undecided.fetch_add(1, std::memory_order_relaxed);
  return RoundTo<T>(QuadToOddDouble(q));
}

template float RoundNormalizationSlow<float>(double, double, double, double, double, double);
template Float16 RoundNormalizationSlow<Float16>(double, double, double, double, double, double);

}  // namespace nnref
