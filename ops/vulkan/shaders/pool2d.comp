// averagePool2d, l2Pool2d and maxPool2d (§api-mlgraphbuilder-pool2d) of the vulkan backend: one
// invocation per output element (per word for narrow types). Window positions outside the input
// are not elements (as the reference reads spec-notes #3): the average divides by the count of
// real elements, l2 sums their squares, max never picks padding. Sums are compensated
// (common.glsl AddProduct); max selects an element's bits exactly, propagates NaN and prefers +0
// to -0; maxPool2d covers every data type (64-bit integers in the NNVK_INT64 variant).
//
// NNVK_NATIVE (the native arithmetic mode's variant, float32 and float16 only): averagePool2d and
// l2Pool2d sum the window in float32 as a GPU kernel does, in window order, without compensation
// (l2's squares with fma), float16 widened exactly and the result rounded once (production
// float16 pooling kernels accumulate in float32); the window is still scaled by the power of two
// of its largest magnitude (exact), as the native reductions do. maxPool2d selects bits as above.
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

uvec2 Compute(uint e) {
  const uint t = p[NNVK_POOL_P_TYPE];
  const uint C = p[NNVK_POOL_P_CHANNELS], OH = p[NNVK_POOL_P_OUT_H], OW = p[NNVK_POOL_P_OUT_W];
  const uint H = p[NNVK_POOL_P_IN_H], W = p[NNVK_POOL_P_IN_W];
  const bool nhwc = p[NNVK_POOL_P_NHWC] != 0u;
  uint n, c, oy, ox;
  if (nhwc) {
    c = e % C;
    ox = (e / C) % OW;
    oy = (e / (C * OW)) % OH;
    n = e / (C * OW * OH);
  } else {
    ox = e % OW;
    oy = (e / OW) % OH;
    c = (e / (OW * OH)) % C;
    n = e / (OW * OH * C);
  }
  const int y0 = int(oy * p[NNVK_POOL_P_STRIDE_H]) - int(p[NNVK_POOL_P_PAD_TOP]);
  const int x0 = int(ox * p[NNVK_POOL_P_STRIDE_W]) - int(p[NNVK_POOL_P_PAD_LEFT]);
  const uint op = p[NNVK_POOL_P_OP];
  float s = 0.0, comp = 0.0;
  uint count = 0u;
  bool any_nan = false;
  uvec2 best = uvec2(0u);
  // averagePool2d and l2Pool2d scale the window by a power of two that brings its largest
  // magnitude near 1 (exact), so that neither the sum nor the squares overflow or underflow
  // (the reference's double sums do not); the result is scaled back once at the end.
  int k = 0;
  float largest = 0.0;
  for (uint pass = (op == NNVK_POOL_MAX || !IsFloat(t)) ? 1u : 0u; pass < 2u; ++pass) {
    if (pass == 1u && largest > 0.0 && !isinf(largest) && !isnan(largest)) {
      const int e = max(int(floatBitsToUint(largest) >> 23), 1) - 127;
      k = -e;
    }
    for (uint wy = 0u; wy < p[NNVK_POOL_P_WIN_H]; ++wy) {
      const int y = y0 + int(wy * p[NNVK_POOL_P_DIL_H]);
      if (y < 0 || y >= int(H)) continue;
      for (uint wx = 0u; wx < p[NNVK_POOL_P_WIN_W]; ++wx) {
        const int x = x0 + int(wx * p[NNVK_POOL_P_DIL_W]);
        if (x < 0 || x >= int(W)) continue;
        const uint index = nhwc ? ((n * H + uint(y)) * W + uint(x)) * C + c
                                : ((n * C + c) * H + uint(y)) * W + uint(x);
        const uvec2 r = Raw(0u, t, index);
        if (pass == 0u) {
          largest = max(largest, abs(AsFloat(r, t)));
          continue;
        }
        if (IsFloat(t)) {
          const float v = AsFloat(r, t);
          any_nan = any_nan || isnan(v);
          const float scaled = ScaleB(v, k);
#ifdef NNVK_NATIVE
          if (op == NNVK_POOL_AVERAGE) s += scaled;
          if (op == NNVK_POOL_L2) s = fma(scaled, scaled, s);
#else
          if (op == NNVK_POOL_AVERAGE) AddProduct(1.0, scaled, s, comp);
          if (op == NNVK_POOL_L2) AddProduct(scaled, scaled, s, comp);
#endif
          if (op == NNVK_POOL_MAX && count > 0u) {
            const float b = AsFloat(best, t);
            if (v > b || (v == b && SignBit(b) && !SignBit(v))) best = r;
          }
        } else if (count > 0u) {
          const IVAL v = AsInt(r, t), b = AsInt(best, t);
          if (IsUnsigned(t) ? UVAL(v) > UVAL(b) : v > b) best = r;
        }
        if (count == 0u) best = r;
        ++count;
      }
    }
  }
  if (op == NNVK_POOL_MAX) {
    if (IsFloat(t) && any_nan) return FromFloat(kNaN, t);
    if (count == 0u && IsFloat(t)) return FromFloat(-kInf, t);  // no real element: open
    return best;
  }
#ifdef NNVK_NATIVE
  const float sum = s;
#else
  const float sum = Finish(s, comp);
#endif
  if (op == NNVK_POOL_L2) return FromFloat(ScaleB(sqrt(sum), -k), t);
  return FromFloat(count == 0u ? kNaN : ScaleB(sum / float(count), -k), t);
}

NNVK_TYPED_MAIN(Compute, p[NNVK_POOL_P_TYPE],
                p[NNVK_POOL_P_BATCHES] * p[NNVK_POOL_P_CHANNELS] * p[NNVK_POOL_P_OUT_H] *
                    p[NNVK_POOL_P_OUT_W])
