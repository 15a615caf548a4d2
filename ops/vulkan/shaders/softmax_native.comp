// softmax (§api-mlgraphbuilder-softmax-method) of the vulkan backend in the native arithmetic
// mode: one workgroup per run (the axis moved last by softmax.cc), as a GPU kernel computes it in
// three passes over the run instead of the exact mode's recomputation per output element
// (reduce.comp: O(run^2) per run). Pass 1: the maximum m, each invocation over a strided part,
// then a tree reduction in shared memory; pass 2: the sum of e^(x - m) likewise, in float32;
// pass 3: each output e^(x - m) / sum. e^ is the precise Exp of common.glsl (lavapipe's builtin
// exp is 63 ULP off at places, outside exp's tolerance); no compensation, no double-float x - m.
// Parameters: NNVK_REDUCE_P_TYPE, NNVK_REDUCE_P_RUN, NNVK_REDUCE_P_COUNT (params.h).
//
// NNVK_FLOAT16 (the variant for a device with shaderFloat16, Device::float16_native()): float16
// runs are read as float16_t and computed as a float16 kernel does: the maximum in float16, each
// x - m in float16 (the float16 subtraction feeding the exponential), e^(x - m) rounded to
// float16 (a float16 exponential: the precise Exp of the float16 difference, rounded once), the
// denominator accumulated in float32 (a long sum: production float16 softmax kernels keep it in
// float32), and each output the float32 quotient of the float16 e^(x - m) by it, rounded once.
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

#ifdef NNVK_FLOAT16
// Element e of input 0 (float16) as float16_t.
float16_t LoadH(uint e) {
  const f16vec2 h = unpackFloat2x16(in0[e >> 1]);
  return (e & 1u) != 0u ? h.y : h.x;
}

// The float16 softmax of the run at `base` (see the top).
void SoftmaxHalf(uint base, uint run) {
  const uint l = gl_LocalInvocationIndex;
  float16_t m = float16_t(-kInf);
  for (uint i = l; i < run; i += 64u) {
    const float16_t x = LoadH(base + i);
    m = isnan(x) || isnan(m) ? x + m : max(m, x);
  }
  const float16_t mh = float16_t(Reduce(float(m), true));  // a float16 value: exact
  float s = 0.0;
  for (uint i = l; i < run; i += 64u) {
    const float16_t d = LoadH(base + i) - mh;
    s += float(float16_t(Exp(float(d))));
  }
  s = Reduce(s, false);
  for (uint i = l; i < run; i += 64u) {
    const float16_t d = LoadH(base + i) - mh;
    StoreOut(NNVK_F16, base + i, float(float16_t(Exp(float(d)))) / s);
  }
}
#endif

void main() {
  const uint t = p[NNVK_REDUCE_P_TYPE], run = p[NNVK_REDUCE_P_RUN];
  const uint runs = run == 0u ? 0u : p[NNVK_REDUCE_P_COUNT] / run;
  const uint l = gl_LocalInvocationIndex;
  // Uniform over the workgroup: the barriers in Reduce are in uniform control flow.
  for (uint r = gl_WorkGroupID.x; r < runs; r += gl_NumWorkGroups.x) {
    const uint base = r * run;
#ifdef NNVK_FLOAT16
    if (t == NNVK_F16) {
      SoftmaxHalf(base, run);
      continue;
    }
#endif
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
