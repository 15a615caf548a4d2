// softmax (§api-mlgraphbuilder-softmax-method) of the vulkan backend in the native arithmetic
// mode: one workgroup per run (the axis moved last by softmax.cc), as a GPU kernel computes it in
// three passes over the run instead of the exact mode's recomputation per output element
// (reduce.comp: O(run^2) per run). Pass 1: the maximum m, each invocation over a strided part,
// then a tree reduction in shared memory; pass 2: the sum of e^(x - m) likewise, in float32;
// pass 3: each output e^(x - m) / sum. e^ is the precise Exp of common.glsl (lavapipe's builtin
// exp is 63 ULP off at places, outside exp's tolerance); no compensation, no double-float x - m.
// Parameters: NNVK_REDUCE_P_TYPE, NNVK_REDUCE_P_RUN, NNVK_REDUCE_P_COUNT (params.h).
#version 450
#extension GL_GOOGLE_include_directive : require

#include "codes.h"
#include "params.h"
#include "common.glsl"
#include "native_io.glsl"

shared float partial[64];

// The tree reduction of `partial` (64 values): maximum (NaN propagates) or sum; all invocations
// call it (uniform control flow) and get the result.
float Reduce(float v, bool is_max) {
  const uint l = gl_LocalInvocationIndex;
  partial[l] = v;
  barrier();
  for (uint half_size = 32u; half_size > 0u; half_size >>= 1) {
    if (l < half_size) {
      const float a = partial[l], b = partial[l + half_size];
      partial[l] = is_max ? (isnan(a) || isnan(b) ? a + b : max(a, b)) : a + b;
    }
    barrier();
  }
  const float r = partial[0];
  barrier();  // before the next Reduce overwrites partial
  return r;
}

void main() {
  const uint t = p[NNVK_REDUCE_P_TYPE], run = p[NNVK_REDUCE_P_RUN];
  const uint runs = run == 0u ? 0u : p[NNVK_REDUCE_P_COUNT] / run;
  const uint l = gl_LocalInvocationIndex;
  // Uniform over the workgroup: the barriers in Reduce are in uniform control flow.
  for (uint r = gl_WorkGroupID.x; r < runs; r += gl_NumWorkGroups.x) {
    const uint base = r * run;
    float m = -kInf;
    for (uint i = l; i < run; i += 64u) {
      const float x = LoadF(0u, t, base + i);
      m = isnan(x) || isnan(m) ? x + m : max(m, x);
    }
    m = Reduce(m, true);
    float s = 0.0;
    // An infinite maximum: e^(x - m) is NaN for x = m (as the reference's emulation gives).
    for (uint i = l; i < run; i += 64u) s += Exp(LoadF(0u, t, base + i) - m);
    s = Reduce(s, false);
    for (uint i = l; i < run; i += 64u) StoreOut(t, base + i, Exp(LoadF(0u, t, base + i) - m) / s);
  }
}
