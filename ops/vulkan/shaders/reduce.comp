// The reductions (§api-mlgraphbuilder-reduce) of the vulkan backend: the host moves the reduced
// axes innermost, so output element e reduces the dense run [e R, e R + R) of the input; one
// invocation per output element (per word for narrow types). Float sums are compensated
// (common.glsl AddProduct) and, for sum, L1, mean, L2 and logSum, taken over the run scaled by the power
// of two that brings its largest magnitude near 1 (exact), so that no intermediate sum or square
// overflows or underflows where the result does not. product keeps its running value as a
// mantissa in [1, 2) and a separate exponent. logSumExp is m + log1p(sum of e^(x - m)) over all
// but one maximum m. Integers wrap in the operand type (64-bit ones in the NNVK_INT64 variant).
#version 450
#extension GL_GOOGLE_include_directive : require
#ifdef NNVK_INT64
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#define IVAL int64_t
#define UVAL uint64_t
#else
#define IVAL int
#define UVAL uint
#endif

#include "codes.h"
#include "params.h"
#include "common.glsl"
#include "typed_io.glsl"

// Parameters and operators: NNVK_REDUCE_* (params.h).

uvec2 ReduceInt(uint op, uint t, uint base, uint R) {
  const bool uns = IsUnsigned(t);
  IVAL acc = (op == NNVK_REDUCE_PRODUCT) ? IVAL(1) : IVAL(0);
  for (uint i = 0u; i < R; ++i) {
    const IVAL v = AsInt(Raw(0u, t, base + i), t);
    if (op == NNVK_REDUCE_MAX || op == NNVK_REDUCE_MIN) {
      if (i == 0u) {
        acc = v;
      } else {
        const bool greater = uns ? UVAL(v) > UVAL(acc) : v > acc;
        const bool less = uns ? UVAL(v) < UVAL(acc) : v < acc;
        if ((op == NNVK_REDUCE_MAX && greater) || (op == NNVK_REDUCE_MIN && less)) acc = v;
      }
    } else if (op == NNVK_REDUCE_PRODUCT) {
      acc *= v;
    } else if (op == NNVK_REDUCE_SUM_SQUARE) {
      acc += v * v;
    } else if (op == NNVK_REDUCE_L1) {
      acc += (!uns && v < IVAL(0)) ? -v : v;
    } else {
      acc += v;
    }
  }
  return FromInt(acc);
}

float ReduceFloat(uint op, uint t, uint base, uint R) {
  if (op == NNVK_REDUCE_MAX || op == NNVK_REDUCE_MIN) {
    float best = AsFloat(Raw(0u, t, base), t);
    for (uint i = 0u; i < R; ++i) {
      const float v = AsFloat(Raw(0u, t, base + i), t);
      if (isnan(v)) return v;
      const bool want_max = op == NNVK_REDUCE_MAX;
      if (v == best) {
        if (SignBit(best) == want_max && SignBit(v) != want_max) best = v;
      } else if ((v > best) == want_max) {
        best = v;
      }
    }
    return best;
  }
  if (op == NNVK_REDUCE_PRODUCT) {
    float mant = 1.0;
    int e = 0;
    for (uint i = 0u; i < R; ++i) {
      mant *= AsFloat(Raw(0u, t, base + i), t);
      if (mant != 0.0 && !isinf(mant) && !isnan(mant)) {
        const int k = max(int(floatBitsToUint(mant) >> 23) & 0xff, 1) - 127;
        mant = ScaleB(mant, -k);
        e += k;
      }
    }
    if (mant == 0.0 || isinf(mant) || isnan(mant) || e == 0) return mant;
    if (e > 260) return mant * kInf;
    if (e < -260) return mant * 0.0;
    return ScaleB(ScaleB(mant, e / 2), e - e / 2);
  }
  if (op == NNVK_REDUCE_LOG_SUM_EXP) {
    float m = -kInf;
    uint at = 0u;
    for (uint i = 0u; i < R; ++i) {
      const float v = AsFloat(Raw(0u, t, base + i), t);
      if (isnan(v)) return v;
      if (v > m) {
        m = v;
        at = i;
      }
    }
    if (isinf(m)) return m;  // +Inf, or a line of -Inf
    float s = 0.0, comp = 0.0;
    for (uint i = 0u; i < R; ++i) {
      if (i == at) continue;
      AddProduct(1.0, Exp(AsFloat(Raw(0u, t, base + i), t) - m), s, comp);
    }
    precise const float r = m + Log1p(Finish(s, comp));
    return r;
  }
  // Sums: scale the run by 2^k (exact) with its largest finite magnitude near 1.
  int k = 0;
  if (op != NNVK_REDUCE_SUM_SQUARE) {
    float largest = 0.0;
    for (uint i = 0u; i < R; ++i) {
      const float v = abs(AsFloat(Raw(0u, t, base + i), t));
      if (!isinf(v)) largest = max(largest, v);
    }
    if (largest > 0.0) k = 127 - max(int(floatBitsToUint(largest) >> 23), 1);
  }
  float s = -0.0, comp = 0.0;  // -0: the identity of IEEE addition, as the exact sum
  for (uint i = 0u; i < R; ++i) {
    const float v = ScaleB(AsFloat(Raw(0u, t, base + i), t), k);
    if (op == NNVK_REDUCE_L1) {
      AddProduct(1.0, abs(v), s, comp);
    } else if (op == NNVK_REDUCE_L2 || op == NNVK_REDUCE_SUM_SQUARE) {
      AddProduct(v, v, s, comp);
    } else {
      AddProduct(1.0, v, s, comp);
    }
  }
  const float sum = Finish(s, comp);
  if (op == NNVK_REDUCE_L2) return ScaleB(sqrt(sum), -k);
  if (op == NNVK_REDUCE_MEAN) return ScaleB(sum / float(R), -k);
  if (op == NNVK_REDUCE_LOG_SUM) return LogScaled(sum, -k);
  if (op == NNVK_REDUCE_SUM_SQUARE) return sum;
  return ScaleB(sum, -k);  // sum, L1
}

// softmax (§api-mlgraphbuilder-softmax-method) of element i of the run at base: e^(x_i - m) / sum
// of e^(x_j - m), m the maximum; x - m carried as a double-float (its float32 rounding, times
// |x - m|, would otherwise show in the exponential), the sum compensated. A NaN, an +Inf, or a
// line of -Inf gives NaN, as the spec's emulation does.
float Softmax(uint t, uint base, uint R, uint i) {
  float m = -kInf;
  for (uint j = 0u; j < R; ++j) m = max(m, AsFloat(Raw(0u, t, base + j), t));
  float s = 0.0, comp = 0.0, mine = 0.0;
  for (uint j = 0u; j < R; ++j) {
    const float x = AsFloat(Raw(0u, t, base + j), t);
    if (isnan(x) || isinf(m)) return kNaN;
    precise const float d = x - m;
    const float ex = ExpHiLo(d, SumError(x, -m, d));
    AddProduct(1.0, ex, s, comp);
    if (j == i) mine = ex;
  }
  precise const float r = mine / Finish(s, comp);
  return r;
}

// (sh + sl) / n as a double-float (qh, ql), n > 0.
void DivideHiLo(float sh, float sl, float n, out float qh, out float ql) {
  precise const float q = sh / n;
  precise const float prod = q * n;
  precise const float rem = ((sh - prod) - ProductError(q, n, prod)) + sl;
  qh = q;
  precise const float l = rem / n;
  ql = l;
}

// Normalization (§api-mlgraphbuilder-batchnorm, -instancenorm, -layernorm) of element e, whose
// group is the run of R elements holding it: scale ((x - mean) / sqrt(variance + epsilon)) + bias,
// the population mean and variance of the spec's emulation computed over the group (or given:
// batch). Missing scale is 1 and missing bias 0, still added (-0 becomes +0 as in the emulation).
// Every quantity is carried as a double-float (value + error term): the result is
// scale q + bias with q near -bias / scale whenever they cancel (batchNormalization's 6-ulp
// tolerance), and x - mean cancels when the variance is small against epsilon. A group of large
// values is scaled down by a power of two (exact; epsilon scaled with it, the quotient unchanged)
// so that (x - mean)^2 cannot overflow.
float Normalize(uint t, uint e, uint R) {
  const uint flags = p[NNVK_REDUCE_P_FLAGS], A = p[NNVK_REDUCE_P_AUX];
  const uint a = (flags & NNVK_NORM_AUX_INDEX) != 0u ? (e / R) % A : e % A;
  float mh, ml = 0.0, vh, vl = 0.0;
  int k = 0;
  if ((flags & NNVK_NORM_MEAN_VAR) != 0u) {
    // Given mean and variance: scale x and the mean by 2^k and the variance by 4^k when x or the
    // mean is large (x - mean could overflow where the quotient does not).
    const float m = uintBitsToFloat(Raw(1u, NNVK_F32, 2u * A + a).x);
    const float x0 = abs(AsFloat(Raw(0u, t, e), t));
    float largest = 0.0;
    if (!isinf(x0)) largest = x0;
    if (!isinf(m)) largest = max(largest, abs(m));
    if (largest >= 2.0) k = 127 - int(floatBitsToUint(largest) >> 23);
    mh = ScaleB(m, k);
    vh = uintBitsToFloat(Raw(1u, NNVK_F32, 3u * A + a).x);  // not scaled: q is, below
  } else {
    const uint base = (e / R) * R;
    float largest = 0.0;
    for (uint i = 0u; i < R; ++i) {
      const float v = abs(AsFloat(Raw(0u, t, base + i), t));
      if (!isinf(v)) largest = max(largest, v);
    }
    if (largest >= 2.0) k = 127 - int(floatBitsToUint(largest) >> 23);  // down only
    const float n = float(R);
    float s = -0.0, comp = 0.0;
    for (uint i = 0u; i < R; ++i) {
      AddProduct(1.0, ScaleB(AsFloat(Raw(0u, t, base + i), t), k), s, comp);
    }
    DivideHiLo(s, comp, n, mh, ml);
    s = 0.0;
    comp = 0.0;
    for (uint i = 0u; i < R; ++i) {
      const float xs = ScaleB(AsFloat(Raw(0u, t, base + i), t), k);
      precise const float dh = xs - mh;
      precise const float dl = SumError(xs, -mh, dh) - ml;
      AddProduct(dh, dh, s, comp);
      precise const float c2 = comp + 2.0 * dh * dl;
      if (!isinf(s) && !isnan(s)) comp = c2;
    }
    DivideHiLo(s, comp, n, vh, vl);
  }
  const bool given = (flags & NNVK_NORM_MEAN_VAR) != 0u;
  // Group statistics are of the scaled values: epsilon scales with the variance (by 4^k).
  const float eps = given ? uintBitsToFloat(p[NNVK_REDUCE_P_EPS])
                          : ScaleB(ScaleB(uintBitsToFloat(p[NNVK_REDUCE_P_EPS]), k), k);
  // sqrt(vh + vl + eps) as (rh, rl).
  precise const float ah = vh + eps;
  precise const float al = SumError(vh, eps, ah) + vl;
  const float rh = sqrt(ah);
  precise const float rr = rh * rh;
  const bool exact_root = rh == 0.0 || isinf(rh) || isnan(rh);
  precise const float rl =
      exact_root ? 0.0 : (((ah - rr) - ProductError(rh, rh, rr)) + al) / (2.0 * rh);
  // (x - mean) / sqrt(...) as (qh, ql).
  const float xs = ScaleB(AsFloat(Raw(0u, t, e), t), k);
  precise const float nh0 = xs - mh;
  precise const float nl0 = SumError(xs, -mh, nh0) - ml;
  // A tiny x - mean (below 2^-100: a group of subnormals) is divided as (x - mean) 2^64 (exact),
  // the quotient scaled back: otherwise qh0 rh and its error fall under the float32 grid, and the
  // remainder's rounding, divided by a small root, costs tens of ulp of a normal quotient (fuzz
  // seeds 20013024, 20025458: 22 and 15 ulp at 6e-33 and 4e-37).
  const bool up = abs(nh0) < 7.88860905e-31;  // 2^-100
  precise const float nh = up ? nh0 * 18446744073709551616.0 : nh0;  // 2^64
  precise const float nl = up ? nl0 * 18446744073709551616.0 : nl0;
  precise const float qs = nh / rh;
  precise const float qp = qs * rh;
  precise const float qrem = (((nh - qp) - ProductError(qs, rh, qp)) + nl) - qs * rl;
  precise const float qh0 = up ? qs * 5.42101086e-20 : qs;  // 2^-64, one rounding
  // Below the normal range the remainder is itself rounded to the subnormal grid, and dividing
  // it by a small root would amplify that rounding (fuzz seed 2001279): the quotient alone is
  // then the better value (its error is half a subnormal spacing plus the mean's). A zero
  // quotient keeps the correction: x - mean may live in the low part alone
  // (epsilon_dominates_small_variance).
  const bool subnormal_q = qh0 != 0.0 && abs(qh0) < 1.17549435e-38;
  precise const float ql0 = (isinf(qh0) || isnan(qh0) || isinf(rh) || subnormal_q)
                                ? 0.0
                                : (up ? (qrem / rh) * 5.42101086e-20 : qrem / rh);
  // A group of equal values: x - mean is exactly 0 and so is q (epsilon > 0 may have underflowed
  // in the scaling). Given statistics: only x - mean was scaled; scale the quotient back.
  const bool zero =
      nh == 0.0 && nl == 0.0 && uintBitsToFloat(p[NNVK_REDUCE_P_EPS]) > 0.0 && !isnan(rh);
  const float qh = zero ? 0.0 : (given ? ScaleB(qh0, -k) : qh0);
  const float ql = zero ? 0.0 : (given ? ScaleB(ql0, -k) : ql0);
  // scale q + bias, one final rounding.
  const float scale =
      (flags & NNVK_NORM_SCALE) != 0u ? uintBitsToFloat(Raw(1u, NNVK_F32, a).x) : 1.0;
  const float bias =
      (flags & NNVK_NORM_BIAS) != 0u ? uintBitsToFloat(Raw(1u, NNVK_F32, A + a).x) : 0.0;
  precise const float ph = scale * qh;
  precise const float pl = ProductError(scale, qh, ph) + scale * ql;
  precise const float yh = ph + bias;
  precise const float yl = SumError(ph, bias, yh) + pl;
  if (yl == 0.0 || isinf(yh) || isnan(yh)) return yh;
  precise const float y = yh + yl;
  return y;
}

// argMin/argMax (§api-mlgraphbuilder-argminmax): the first extreme index of the run (ties may
// return any tied index: the reference accepts each), or the first NaN's.
uvec2 ArgMinMax(uint t, uint base, uint R, bool is_max) {
  uint best_at = 0u;
  if (IsFloat(t)) {
    float best = AsFloat(Raw(0u, t, base), t);
    if (isnan(best)) return uvec2(0u);
    for (uint i = 1u; i < R; ++i) {
      const float v = AsFloat(Raw(0u, t, base + i), t);
      if (isnan(v)) return uvec2(i, 0u);
      if (is_max ? v > best : v < best) {
        best = v;
        best_at = i;
      }
    }
  } else {
    const bool uns = IsUnsigned(t);
    IVAL best = AsInt(Raw(0u, t, base), t);
    for (uint i = 1u; i < R; ++i) {
      const IVAL v = AsInt(Raw(0u, t, base + i), t);
      const bool greater = uns ? UVAL(v) > UVAL(best) : v > best;
      const bool less = uns ? UVAL(v) < UVAL(best) : v < best;
      if (is_max ? greater : less) {
        best = v;
        best_at = i;
      }
    }
  }
  return uvec2(best_at, 0u);  // int32 or int64 (high word 0): indices are below 2^31
}

// cumulativeSum (§api-mlgraphbuilder-cumulativesum) at position i of the run: the compensated sum
// of the elements before it (exclusive) or up to it, counted from the end when reversed (O(R) per
// element: simple, and the corpus runs are short). Integers wrap.
uvec2 CumulativeSum(uint t, uint base, uint R, uint i) {
  const uint flags = p[NNVK_REDUCE_P_CUM_FLAGS];
  const bool exclusive = (flags & NNVK_REDUCE_EXCLUSIVE) != 0u;
  const bool reversed = (flags & NNVK_REDUCE_REVERSED) != 0u;
  uint first, last;  // the inclusive range of run positions summed, in summation order
  if (!reversed) {
    first = 0u;
    last = i;
  } else {
    first = R - 1u;
    last = i;
  }
  const int stepping = reversed ? -1 : 1;
  const uint terms = (reversed ? first - last : last - first) + (exclusive ? 0u : 1u);
  if (IsFloat(t)) {
    // Scaled by the power of two bringing the largest finite term near 1, as the sums above
    // (FLT_MAX + FLT_MAX - FLT_MAX is FLT_MAX exactly).
    float largest = 0.0;
    for (uint n = 0u; n < terms; ++n) {
      const float v = abs(AsFloat(Raw(0u, t, base + uint(int(first) + stepping * int(n))), t));
      if (!isinf(v)) largest = max(largest, v);
    }
    const int k = largest > 0.0 ? 127 - max(int(floatBitsToUint(largest) >> 23), 1) : 0;
    float s = -0.0, comp = 0.0;
    if (terms == 0u) s = 0.0;  // the empty sum is +0
    for (uint n = 0u; n < terms; ++n) {
      const float v = AsFloat(Raw(0u, t, base + uint(int(first) + stepping * int(n))), t);
      AddProduct(1.0, ScaleB(v, k), s, comp);
    }
    return FromFloat(ScaleB(Finish(s, comp), -k), t);
  }
  IVAL acc = IVAL(0);
  for (uint n = 0u; n < terms; ++n) {
    acc += AsInt(Raw(0u, t, base + uint(int(first) + stepping * int(n))), t);
  }
  return FromInt(acc);
}

uint OutType() {
  const uint op = p[NNVK_REDUCE_P_OP];
  return (op == NNVK_REDUCE_ARG_MIN || op == NNVK_REDUCE_ARG_MAX) ? p[NNVK_REDUCE_P_OUT_TYPE]
                                                                  : p[NNVK_REDUCE_P_TYPE];
}

uvec2 Compute(uint e) {
  const uint t = p[NNVK_REDUCE_P_TYPE], op = p[NNVK_REDUCE_P_OP], R = p[NNVK_REDUCE_P_RUN];
  if (op == NNVK_REDUCE_ARG_MIN || op == NNVK_REDUCE_ARG_MAX) {
    return ArgMinMax(t, e * R, R, op == NNVK_REDUCE_ARG_MAX);
  }
  if (op == NNVK_REDUCE_CUMSUM) return CumulativeSum(t, (e / R) * R, R, e % R);
  if (op == NNVK_REDUCE_NORM) return FromFloat(Normalize(t, e, R), t);
  if (op == NNVK_REDUCE_SOFTMAX) return FromFloat(Softmax(t, (e / R) * R, R, e % R), t);
  if (!IsFloat(t)) return ReduceInt(op, t, e * R, R);
  return FromFloat(ReduceFloat(op, t, e * R, R), t);
}

NNVK_TYPED_MAIN(Compute, OutType(), p[NNVK_REDUCE_P_COUNT])
