// instanceNormalization and layerNormalization (§api-mlgraphbuilder-instancenorm, -layernorm) of
// the vulkan backend in the native arithmetic mode: one workgroup per group of normalized
// elements (the run, moved last by normalization.cc), in three passes as a GPU kernel computes it
// instead of the exact mode's statistics recomputed per output element (reduce.comp: O(run^2)
// per run): the largest finite magnitude (a tree reduction of partial maxima in shared memory),
// whose power of two scales the run down when it is 2 or more (exactly; epsilon scaled with the
// variance by its square) so that (x - mean)^2 cannot overflow (case wide_intermediate:
// +-3e38); the mean, a tree reduction of float32 partial sums; the variance, likewise of
// (x - mean)^2; then (x - mean) / sqrt(variance + epsilon) * scale + bias per element. No
// compensation and no double-floats. batchNormalization (given statistics, O(1) per
// element) stays on reduce.comp. Parameters: NNVK_REDUCE_P_* with NNVK_REDUCE_NORM's (params.h);
// binding 2 holds the float32 [scale, bias, mean, variance] (AUX values each).
//
// NNVK_FLOAT16 (the variant for a device with shaderFloat16, Device::float16_native()): float16
// groups keep the statistics in float32 (the mean and the variance are long sums, which
// production float16 normalization kernels accumulate in float32) and (x - mean) / sqrt(variance
// + epsilon) in float32, rounded to float16; the affine step, times scale plus bias, is float16
// arithmetic (a multiplication and an addition in float16_t, each rounded), as a float16 kernel
// applies its float16 scale and bias.
#version 450
#extension GL_GOOGLE_include_directive : require
#ifdef NNVK_FLOAT16
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif

#include "codes.h"
#include "params.h"
#include "common.glsl"
#include "native_io.glsl"

shared float partial[64];

// The sum (or maximum) of the workgroup's 64 values by a tree in shared memory; every
// invocation calls it (uniform control flow) and gets the result.
float Reduce(float v, bool is_max) {
  const uint l = gl_LocalInvocationIndex;
  partial[l] = v;
  barrier();
  for (uint half_size = 32u; half_size > 0u; half_size >>= 1) {
    if (l < half_size) {
      const float b = partial[l + half_size];
      partial[l] = is_max ? max(partial[l], b) : partial[l] + b;
    }
    barrier();
  }
  const float r = partial[0];
  barrier();  // before the next Sum overwrites partial
  return r;
}

void main() {
  const uint t = p[NNVK_REDUCE_P_TYPE], run = p[NNVK_REDUCE_P_RUN];
  const uint runs = run == 0u ? 0u : p[NNVK_REDUCE_P_COUNT] / run;
  const uint flags = p[NNVK_REDUCE_P_FLAGS], A = p[NNVK_REDUCE_P_AUX];
  const float eps = uintBitsToFloat(p[NNVK_REDUCE_P_EPS]);
  const float n = float(run);
  const uint l = gl_LocalInvocationIndex;
  // Uniform over the workgroup: the barriers in Reduce are in uniform control flow.
  for (uint r = gl_WorkGroupID.x; r < runs; r += gl_NumWorkGroups.x) {
    const uint base = r * run;
    float largest = 0.0;
    for (uint i = l; i < run; i += 64u) {
      const float v = abs(LoadF(0u, t, base + i));
      if (!isinf(v) && !isnan(v)) largest = max(largest, v);
    }
    largest = Reduce(largest, true);
    const int k = largest >= 2.0 ? 127 - int(floatBitsToUint(largest) >> 23) : 0;  // down only
    float s = 0.0;
    for (uint i = l; i < run; i += 64u) s += ScaleB(LoadF(0u, t, base + i), k);
    const float mean = Reduce(s, false) / n;
    s = 0.0;
    for (uint i = l; i < run; i += 64u) {
      const float d = ScaleB(LoadF(0u, t, base + i), k) - mean;
      s = fma(d, d, s);
    }
    const float inv = 1.0 / sqrt(Reduce(s, false) / n + ScaleB(ScaleB(eps, k), k));
    for (uint i = l; i < run; i += 64u) {
      const uint e = base + i;
      // The scale and bias index: the channel for instanceNormalization, else the position.
      const uint a = (flags & NNVK_NORM_AUX_INDEX) != 0u ? r % A : i % A;
      float y = (ScaleB(LoadF(0u, t, e), k) - mean) * inv;
#ifdef NNVK_FLOAT16
      if (t == NNVK_F16) {
        // scale and bias are float16 values widened exactly by the host.
        float16_t h = float16_t(y);
        if ((flags & NNVK_NORM_SCALE) != 0u) h = h * float16_t(uintBitsToFloat(in1[a]));
        if ((flags & NNVK_NORM_BIAS) != 0u) h = h + float16_t(uintBitsToFloat(in1[A + a]));
        StoreOut(t, e, float(h));
        continue;
      }
#endif
      if ((flags & NNVK_NORM_SCALE) != 0u) y *= uintBitsToFloat(in1[a]);
      if ((flags & NNVK_NORM_BIAS) != 0u) y += uintBitsToFloat(in1[A + a]);
      StoreOut(t, e, y);
    }
  }
}
