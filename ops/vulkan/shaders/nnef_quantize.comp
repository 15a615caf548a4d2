// The graph.quant quantization of the NNEF group on the vulkan backend (ops/vulkan/nnef.cc;
// parameters NNVK_NNEF_QP_* of nnef_params.h), the reference's Quantizer::Apply
// (ops/nnef_quantize.cc) written again in GLSL double arithmetic (shaderFloat64): the rounding
// decision q = floor(v + 0.5) made on the exact quotient (an fma residual decides halfway cases),
// the decoded value q / r (max - min) + min formed with the quotient and the sum rounded to odd
// (ops/exact_round.h) before the one rounding to float32. Every operation is `precise`: NIR would
// otherwise contract a * b + c into an fma, which changes these error-free transformations.
// logarithmic_quantize needs no double: floor(log2 |x| + 0.5) is decided on the float32 bits
// (log2 |x| = e + log2(mantissa), and the mantissa against sqrt(2), never equal to a float).
#version 450
#extension GL_GOOGLE_include_directive : require
#define IVAL int
#define UVAL uint

#include "codes.h"
#include "nnef_params.h"
#include "common.glsl"
#include "typed_io.glsl"

double D(uint at) { return packDouble2x32(uvec2(p[at], p[at + 1u])); }

bool Finite(double v) { return !isinf(v) && !isnan(v); }

// The neighbour of finite `hi` one unit in the last place toward the sign of `toward` (nonzero).
double Step(double hi, double toward) {
  uvec2 b = unpackDouble2x32(hi);
  if (hi == 0.0) return packDouble2x32(uvec2(1u, toward > 0.0 ? 0u : 0x80000000u));
  const bool up = (hi > 0.0) == (toward > 0.0);  // away from zero: the magnitude grows
  if (up) {
    b.x += 1u;
    if (b.x == 0u) b.y += 1u;
  } else {
    if (b.x == 0u) b.y -= 1u;
    b.x -= 1u;
  }
  return packDouble2x32(b);
}

// hi + lo (lo the exact remainder) rounded to double to odd.
double RoundToOdd(double hi, double lo) {
  if (lo == 0.0 || !Finite(hi) || !Finite(lo)) return hi;
  if ((unpackDouble2x32(hi).x & 1u) != 0u) return hi;
  return Step(hi, lo);
}

double SumToOdd(double a, double b) {
  precise const double s = a + b;
  precise const double bb = s - a;
  precise const double err = (a - (s - bb)) + (b - bb);
  return RoundToOdd(s, err);
}

// floor(a / b + 0.5) for a = a + a_lo exactly and b > 0, halfway cases decided exactly.
double RoundQuotientHalfUp(double a, double b, double a_lo) {
  precise const double v = a / b;
  if (!Finite(v)) return v;
  const double k = floor(v);
  precise const double frac = v - k;
  if (abs(frac - 0.5) > 1e-6) return frac > 0.5 ? k + 1.0 : k;
  precise const double h = k + 0.5;
  precise const double prod = h * b;
  precise const double perr = fma(h, b, -prod);
  precise const double diff = (a - prod) + (a_lo - perr);
  return diff >= 0.0 ? k + 1.0 : k;
}

// NNEF clamp(x, a, b) = max(min(x, b), a) through select: NaN becomes b.
double NnefClamp(double x, double a, double b) {
  const double lo = x < b ? x : b;
  return lo > a ? lo : a;
}

// A double rounded once to float32 (round to nearest even), as bits.
uint ToFloatBits(double v) { return floatBitsToUint(float(v)); }

uvec2 Compute(uint i) {
  const uint xb = in0[i];
  const float xf = uintBitsToFloat(xb);
  const uint kind = p[NNVK_NNEF_QP_KIND];
  if (kind == NNVK_NNEF_Q_LOGARITHMIC) {
    if (isnan(xf) || (xb & 0x7fffffffu) == 0u) return uvec2(xb, 0u);  // NaN, +-0 pass through
    const int lo = int(D(NNVK_NNEF_QP_MIN)), hi = int(D(NNVK_NNEF_QP_MAX));
    const uint sign = xb & 0x80000000u, mag = xb & 0x7fffffffu;
    int q;
    if (mag >= 0x7f800000u) {
      q = hi;  // log2(Inf) clamps to m
    } else {
      // |x| = 2^e * 1.f; the mantissa field normalized for subnormals.
      int e = int(mag >> 23) - 127;
      uint frac = mag & 0x7fffffu;
      if ((mag >> 23) == 0u) {
        const int top = findMSB(frac);  // the leading one at bit top: |x| = 2^(top - 149) * ...
        e = top - 149;
        frac = (frac << uint(23 - top)) & 0x7fffffu;
      }
      // floor(log2 |x| + 0.5) = e + (1.f >= sqrt(2)); sqrt(2) lies between the float32 mantissas
      // 0x3504f3 and 0x3504f4.
      q = clamp(e + (frac >= 0x3504f4u ? 1 : 0), lo, hi);
    }
    uint bits;
    if (q >= 128) {
      bits = 0x7f800000u;
    } else if (q >= -126) {
      bits = uint(q + 127) << 23;
    } else if (q >= -149) {
      bits = 1u << uint(q + 149);
    } else {
      bits = 0u;  // 2^-150 and below round to 0 (2^-150 is a tie to even)
    }
    return uvec2(sign | bits, 0u);
  }
  const double x = double(xf);
  if (kind == NNVK_NNEF_Q_ZERO_POINT) {
    if (isnan(xf)) return uvec2(xb, 0u);
    const double scale = D(NNVK_NNEF_QP_WIDTH), zp = D(NNVK_NNEF_QP_LEVELS);
    precise const double q0 = RoundQuotientHalfUp(x, scale, 0.0) + zp;
    const double q = NnefClamp(q0, D(NNVK_NNEF_QP_MIN), D(NNVK_NNEF_QP_MAX));
    precise const double y = (q - zp) * scale;
    return uvec2(ToFloatBits(y), 0u);
  }
  const double mn = D(NNVK_NNEF_QP_MIN), mx = D(NNVK_NNEF_QP_MAX);
  const double w = D(NNVK_NNEF_QP_WIDTH), r = D(NNVK_NNEF_QP_LEVELS);
  const double z = NnefClamp(x, mn, mx);
  precise const double d = z - mn;
  precise const double a_hi = d * r;
  precise const double a_lo = fma(d, r, -a_hi);
  const double q = RoundQuotientHalfUp(a_hi, w, a_lo);
  // q / r * w + min: the quotient and the sum rounded to odd, then once to float32.
  precise const double num = q * w;
  precise const double num_err = fma(q, w, -num);
  precise const double t = num / r;
  precise const double rem = fma(-t, r, num) + num_err;
  return uvec2(ToFloatBits(SumToOdd(RoundToOdd(t, rem), mn)), 0u);
}

NNVK_TYPED_MAIN(Compute, NNVK_F32, p[NNVK_NNEF_QP_COUNT])
