// The NNEF operator group on the vulkan backend (ops/vulkan/nnef.cc; modes and parameters in
// nnef_params.h). The host resolves each window's geometry — which element of x every tap of an
// output reads through the NNEF border, or that it reads the constant 0, or that it takes no
// part — into the tap table (binding 2); this shader does the arithmetic per output element:
// compensated float32 sums (AddProduct/Finish of common.glsl: as accurate as a sum in twice the
// precision) divided once, first maxima and minima, selections (raw bits: exact, subnormals kept)
// and the element-wise round and elu.
#version 450
#extension GL_GOOGLE_include_directive : require
#define IVAL int
#define UVAL uint

#include "codes.h"
#include "nnef_params.h"
#include "common.glsl"
#include "typed_io.glsl"

int Tap(uint i, uint k) { return int(in1[i * p[NNVK_NNEF_P_TAPS] + k]); }
uint X(int off) { return in0[uint(off)]; }
float XF(int off) { return uintBitsToFloat(in0[uint(off)]); }
uint AuxIndex(uint i) { return in2[2u * i]; }  // the low word of an int64 (checked on the host)

uvec2 Reduce(uint i, uint mode) {
  const uint taps = p[NNVK_NNEF_P_TAPS];
  bool have = false;
  float best = 0.0;
  uint best_bits = 0u, best_k = 0u;
  for (uint k = 0u; k < taps; ++k) {
    const int off = Tap(i, k);
    if (off == NNVK_NNEF_SKIP) continue;
    const uint bits = off >= 0 ? X(off) : 0u;
    const float v = uintBitsToFloat(bits);
    const bool wins = mode == NNVK_NNEF_ARGMIN ? v < best : v > best;
    if (!have || wins) {
      best = v;
      best_bits = bits;
      best_k = k;
      have = true;
    }
  }
  if (mode == NNVK_NNEF_MAX) return uvec2(best_bits, 0u);
  return uvec2(best_k, 0u);  // int64: the high word 0
}

uvec2 Compute(uint i) {
  const uint mode = p[NNVK_NNEF_P_MODE];
  const uint taps = p[NNVK_NNEF_P_TAPS];
  switch (mode) {
    case NNVK_NNEF_ROUND: {
      // floor(x + 0.5) without the float32 sum (0.49999997 + 0.5 rounds to 1): x - floor(x) is
      // exact for every float32 x, so comparing it with 0.5 decides as the exact sum would.
      const float x = uintBitsToFloat(in0[i]);
      const float f = floor(x);
      precise const float frac = x - f;
      return uvec2(floatBitsToUint(frac >= 0.5 ? f + 1.0 : f), 0u);
    }
    case NNVK_NNEF_ELU: {
      const float x = uintBitsToFloat(in0[i]);
      return uvec2(x < 0.0 ? floatBitsToUint(Expm1(x)) : in0[i], 0u);
    }
    case NNVK_NNEF_MAX:
    case NNVK_NNEF_ARGMAX:
    case NNVK_NNEF_ARGMIN:
      return Reduce(i, mode);
    case NNVK_NNEF_SELECT: {
      const uint k = p[NNVK_NNEF_P_FLAG] != 0u ? AuxIndex(i) : 0u;
      const int off = Tap(i, k);
      return uvec2(off >= 0 ? X(off) : p[NNVK_NNEF_P_VALUE], 0u);
    }
    case NNVK_NNEF_ALL:
    case NNVK_NNEF_ANY: {
      const bool all = mode == NNVK_NNEF_ALL;
      for (uint k = 0u; k < taps; ++k) {
        const bool v = Raw(0u, NNVK_U8, uint(Tap(i, k))).x != 0u;
        if (v != all) return uvec2(all ? 0u : 1u, 0u);
      }
      return uvec2(all ? 1u : 0u, 0u);
    }
    case NNVK_NNEF_CONV: {
      // Output (b, oc, o): sum over the group's input channels c and taps k of
      // x[b, c, tap(o, k)] * w[oc][c][k], plus bias[oc]. A ZERO tap adds 0 * w (as the formula).
      const uint spatial = p[NNVK_NNEF_P_SPATIAL], cout = p[NNVK_NNEF_P_COUT];
      const uint ipg = p[NNVK_NNEF_P_IPG], opg = p[NNVK_NNEF_P_OPG];
      const uint o = i % spatial, oc = (i / spatial) % cout, b = i / (spatial * cout);
      const uint g = oc / opg;
      const uint in_spatial = p[NNVK_NNEF_P_IN_SPATIAL];
      float s = 0.0, comp = 0.0;
      for (uint c = 0u; c < ipg; ++c) {
        const uint xbase = (b * p[NNVK_NNEF_P_CIN] + g * ipg + c) * in_spatial;
        const uint wbase = (oc * ipg + c) * taps;
        for (uint k = 0u; k < taps; ++k) {
          const int off = Tap(o, k);
          if (off == NNVK_NNEF_SKIP) continue;
          const float v = off >= 0 ? uintBitsToFloat(in0[xbase + uint(off)]) : 0.0;
          AddProduct(v, uintBitsToFloat(in2[wbase + k]), s, comp);
        }
      }
      AddProduct(uintBitsToFloat(in2[cout * ipg * taps + oc]), 1.0, s, comp);
      return uvec2(floatBitsToUint(Finish(s, comp)), 0u);
    }
    default:
      break;
  }
  // The sums.
  float s = 0.0, comp = 0.0;
  for (uint k = 0u; k < taps; ++k) {
    const int off = Tap(i, k);
    if (off < 0) continue;  // ZERO adds 0 (a finite factor), SKIP nothing
    if (mode == NNVK_NNEF_DESAMPLE) {
      if (AuxIndex(uint(off)) == k) AddProduct(XF(off), 1.0, s, comp);
    } else if (mode == NNVK_NNEF_WEIGHTED) {
      const float w = uintBitsToFloat(in2[i * taps + k]);
      if (w != 0.0) AddProduct(XF(off), w, s, comp);
    } else {
      AddProduct(XF(off), 1.0, s, comp);
    }
  }
  const float sum = Finish(s, comp);
  if (mode == NNVK_NNEF_WEIGHTED) {
    precise const float q = sum / uintBitsToFloat(p[NNVK_NNEF_P_VALUE]);
    return uvec2(floatBitsToUint(q), 0u);
  }
  if (mode == NNVK_NNEF_SUM && p[NNVK_NNEF_P_FLAG] != 0u) {
    const float d = uintBitsToFloat(in2[i]);
    precise const float q = sum / d;
    return uvec2(floatBitsToUint(d == 0.0 ? 0.0 : q), 0u);
  }
  return uvec2(floatBitsToUint(sum), 0u);
}

NNVK_TYPED_MAIN(Compute, p[NNVK_NNEF_P_OUT_TYPE], p[NNVK_NNEF_P_COUNT])
