// Highway bodies of the window row functions (window_rows.h), compiled once per SIMD target by
// foreach_target.h and chosen at run time by HWY_DYNAMIC_DISPATCH. Channels that do not fill a
// vector are finished by scalar code with the same semantics.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/simd/window_hwy.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "ops/simd/window_rows.h"

HWY_BEFORE_NAMESPACE();
namespace nnref::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

inline float MaxExactScalar(float a, float b) {
  if (a == b) {
    uint32_t ua, ub;
    std::memcpy(&ua, &a, sizeof ua);
    std::memcpy(&ub, &b, sizeof ub);
    ua &= ub;
    std::memcpy(&a, &ua, sizeof a);
    return a;
  }
  return a > b ? a : b;
}

// One channel's result in scalar code (the tail channels, and the double recomputation).
float PoolChannel(RowPool op, const float* const* rows, size_t count, size_t c,
                  const double* divisors) {
  if (op == RowPool::kMax) {
    float best = rows[0][c];
    for (size_t k = 0; k < count; ++k) {
      const float v = rows[k][c];
      if (std::isnan(v)) return std::numeric_limits<float>::quiet_NaN();
      best = MaxExactScalar(best, v);
    }
    return best;
  }
  double sum = 0;
  for (size_t k = 0; k < count; ++k) {
    const double v = static_cast<double>(rows[k][c]);
    sum += op == RowPool::kL2 ? v * v : v;
  }
  if (op == RowPool::kSum) {
    return static_cast<float>(divisors == nullptr ? sum : sum / divisors[c]);
  }
  return static_cast<float>(op == RowPool::kL2 ? std::sqrt(sum) : sum / static_cast<double>(count));
}

void PoolRowImpl(RowPool op, const float* const* rows, size_t count, size_t channels, float* out,
                 const double* divisors) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const size_t lanes = hn::Lanes(d);
  HWY_ALIGN float sb[hn::MaxLanes(d)], cb[hn::MaxLanes(d)];
  size_t c = 0;
  for (; c + lanes <= channels; c += lanes) {
    switch (op) {
      case RowPool::kMax: {
        V best = hn::LoadU(d, rows[0] + c);
        auto nan = hn::Zero(d);
        for (size_t k = 0; k < count; ++k) {
          const V v = hn::LoadU(d, rows[k] + c);
          nan = hn::Or(nan, hn::VecFromMask(d, hn::IsNaN(v)));
          best = hn::IfThenElse(hn::Eq(best, v), hn::And(best, v), hn::Max(best, v));
        }
        const V qnan = hn::Set(d, std::numeric_limits<float>::quiet_NaN());
        hn::StoreU(hn::IfThenElse(hn::MaskFromVec(nan), qnan, best), d, out + c);
        break;
      }
      case RowPool::kAverage:
      case RowPool::kSum: {
        // Compensated sum (TwoSum per lane), finished in double: no loss to cancellation.
        V s = hn::Set(d, -0.0f), comp = hn::Zero(d);
        for (size_t k = 0; k < count; ++k) {
          const V v = hn::LoadU(d, rows[k] + c);
          const V t = hn::Add(s, v);
          const V vv = hn::Sub(t, s);
          comp = hn::Add(comp, hn::Add(hn::Sub(s, hn::Sub(t, vv)), hn::Sub(v, vv)));
          s = t;
        }
        hn::Store(s, d, sb);
        hn::Store(comp, d, cb);
        for (size_t l = 0; l < lanes; ++l) {
          const double sum = static_cast<double>(sb[l]);
          const double total = std::isfinite(sum) ? sum + static_cast<double>(cb[l]) : sum;
          const double divisor = op == RowPool::kAverage ? static_cast<double>(count)
                                 : divisors == nullptr   ? 1.0
                                                         : divisors[c + l];
          out[c + l] = std::isfinite(sum) ? static_cast<float>(total / divisor)
                                          : PoolChannel(op, rows, count, c + l, divisors);
        }
        break;
      }
      case RowPool::kL2: {
        V s = hn::Zero(d);
        for (size_t k = 0; k < count; ++k) {
          const V v = hn::LoadU(d, rows[k] + c);
          s = hn::MulAdd(v, v, s);
        }
        hn::Store(s, d, sb);
        for (size_t l = 0; l < lanes; ++l) {
          // Beyond the float32 range of squares (overflow, or underflow below 2^-100): double.
          out[c + l] = std::isfinite(sb[l]) && sb[l] >= 0x1p-100f
                           ? std::sqrt(sb[l])
                           : PoolChannel(op, rows, count, c + l, divisors);
        }
        break;
      }
    }
  }
  for (; c < channels; ++c) out[c] = PoolChannel(op, rows, count, c, divisors);
}

void LerpRowImpl(const float* r0, const float* r1, const int32_t* i0, const int32_t* i1,
                 const double* tx, double ty, float* out, size_t n) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const hn::Rebind<int32_t, decltype(dd)> di;
  const size_t lanes = hn::Lanes(dd);
  const auto one = hn::Set(dd, 1.0), wy1 = hn::Set(dd, ty), wy0 = hn::Set(dd, 1.0 - ty);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto x0 = hn::LoadU(di, i0 + i), x1 = hn::LoadU(di, i1 + i);
    const auto wx1 = hn::LoadU(dd, tx + i);
    const auto wx0 = hn::Sub(one, wx1);
    const auto at = [&](const float* r, decltype(x0) idx) {
      return hn::PromoteTo(dd, hn::GatherIndex(df, r, idx));
    };
    const auto top = hn::MulAdd(at(r0, x0), wx0, hn::Mul(at(r0, x1), wx1));
    const auto bottom = hn::MulAdd(at(r1, x0), wx0, hn::Mul(at(r1, x1), wx1));
    hn::StoreU(hn::DemoteTo(df, hn::MulAdd(top, wy0, hn::Mul(bottom, wy1))), df, out + i);
  }
  for (; i < n; ++i) {
    const double w1 = tx[i], w0 = 1.0 - w1;
    const double top = static_cast<double>(r0[i0[i]]) * w0 + static_cast<double>(r0[i1[i]]) * w1;
    const double bottom = static_cast<double>(r1[i0[i]]) * w0 + static_cast<double>(r1[i1[i]]) * w1;
    out[i] = static_cast<float>(top * (1.0 - ty) + bottom * ty);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace nnref::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace nnref::simd {

HWY_EXPORT(PoolRowImpl);
HWY_EXPORT(LerpRowImpl);

void PoolRow(RowPool op, const float* const* rows, size_t count, size_t channels, float* out,
             const double* divisors) {
  HWY_DYNAMIC_DISPATCH(PoolRowImpl)(op, rows, count, channels, out, divisors);
}
void LerpRow(const float* r0, const float* r1, const int32_t* i0, const int32_t* i1,
             const double* tx, double ty, float* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(LerpRowImpl)(r0, r1, i0, i1, tx, ty, out, n);
}

}  // namespace nnref::simd
#endif  // HWY_ONCE
