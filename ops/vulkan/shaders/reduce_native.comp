// The reductions (§api-mlgraphbuilder-reduce) of float32 and float16 tensors in the vulkan
// backend's native arithmetic mode: one workgroup of 64 invocations per output element (the
// reduced axes moved last by reduction.cc, so output r reduces the dense run [r R, r R + R)), as
// a GPU kernel reduces a long run, instead of the exact mode's one invocation per output, serial
// and compensated over the run (reduce.comp). Each invocation accumulates the strided part i = l,
// l + 64, ... of the run in float32 (squares with fma), then the workgroup combines the 64
// partials: with NNVK_SUBGROUP (a device whose subgroups support arithmetic operations in compute
// shaders) by subgroupAdd/Max/Min within each subgroup and the subgroups' results added in
// subgroup order by every invocation; otherwise by a tree in shared memory (32, 16, ... 1
// partner). The order is fixed, so a device gives the same bits on every run. Runs of at most 16
// elements (NNVK_REDUCE_P_PER_INVOCATION, set by reduction.cc) take one invocation per output
// instead, serial in float32, as GPU reductions over a short innermost axis do (a workgroup there
// would leave most of its 64 invocations idle and pay its barriers).
//
// sum, L1, mean, L2 and logSum first reduce the largest finite magnitude and scale the run by the
// power of two that brings it near 1 (exact), as the native normalizations do, so that a float32
// sum does not overflow where the result does not (without it five corpus cases fail:
// reduceMean.float32.large and .special_values, reduceL2.float32.large_random and
// .special_values, reduceLogSum.float32.special_values). max and min select an element's bits
// exactly (a NaN propagates, max prefers +0 to -0 and min -0): the bits are mapped to unsigned
// keys in the order of the values. product multiplies in float32, the running value kept as a
// mantissa in [1, 2) and an exponent (as reduce.comp). logSumExp is m + log(sum of
// e^(x - m)) with m the maximum, e^ the precise Exp of common.glsl (lavapipe's builtin exp is 63
// ULP off at places) and log the builtin (NativeLog). float16 elements are widened exactly
// (LoadF) and the result rounded once: float16 is accumulated in float32, as production
// backends' float16 reductions do (docs/vulkan.md#float16-in-the-native-mode). Integer types
// stay on reduce.comp.
// Parameters: NNVK_REDUCE_P_TYPE, _OP, _RUN, _COUNT (params.h).
#version 450
#extension GL_GOOGLE_include_directive : require
#ifdef NNVK_SUBGROUP
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

#include "codes.h"
#include "params.h"
#include "common.glsl"
#include "native_io.glsl"

shared uint partial[64];

// The float32 sum of the workgroup's values v (one per invocation); every invocation calls it
// (uniform control flow) and gets the same result.
float SumGroup(float v) {
  const uint l = gl_LocalInvocationIndex;
#ifdef NNVK_SUBGROUP
  const float s = subgroupAdd(v);
  if (gl_SubgroupInvocationID == 0u) partial[gl_SubgroupID] = floatBitsToUint(s);
  barrier();
  float r = uintBitsToFloat(partial[0]);
  for (uint i = 1u; i < gl_NumSubgroups; ++i) r += uintBitsToFloat(partial[i]);
#else
  partial[l] = floatBitsToUint(v);
  barrier();
  for (uint half_size = 32u; half_size > 0u; half_size >>= 1) {
    if (l < half_size) {
      const float a = uintBitsToFloat(partial[l]), b = uintBitsToFloat(partial[l + half_size]);
      partial[l] = floatBitsToUint(a + b);
    }
    barrier();
  }
  const float r = uintBitsToFloat(partial[0]);
#endif
  barrier();  // before the next reduction overwrites partial
  return r;
}

// The largest (or smallest) of the workgroup's keys, likewise.
uint KeyGroup(uint k, bool is_max) {
  const uint l = gl_LocalInvocationIndex;
#ifdef NNVK_SUBGROUP
  const uint s = is_max ? subgroupMax(k) : subgroupMin(k);
  if (gl_SubgroupInvocationID == 0u) partial[gl_SubgroupID] = s;
  barrier();
  uint r = partial[0];
  for (uint i = 1u; i < gl_NumSubgroups; ++i) r = is_max ? max(r, partial[i]) : min(r, partial[i]);
#else
  partial[l] = k;
  barrier();
  for (uint half_size = 32u; half_size > 0u; half_size >>= 1) {
    if (l < half_size) {
      const uint a = partial[l], b = partial[l + half_size];
      partial[l] = is_max ? max(a, b) : min(a, b);
    }
    barrier();
  }
  const uint r = partial[0];
#endif
  barrier();
  return r;
}

shared int partial_e[64];

// A running product mant 2^e with mant brought back to [1, 2) (0, Inf and NaN stay).
void Renormalize(inout float mant, inout int e) {
  if (mant != 0.0 && !isinf(mant) && !isnan(mant)) {
    const int k = max(int(floatBitsToUint(mant) >> 23) & 0xff, 1) - 127;
    mant = ScaleB(mant, -k);
    e += k;
  }
}

// The product of the workgroup's values mant 2^e, by the shared-memory tree in both variants.
void ProductGroup(inout float mant, inout int e) {
  const uint l = gl_LocalInvocationIndex;
  partial[l] = floatBitsToUint(mant);
  partial_e[l] = e;
  barrier();
  for (uint half_size = 32u; half_size > 0u; half_size >>= 1) {
    if (l < half_size) {
      float m = uintBitsToFloat(partial[l]) * uintBitsToFloat(partial[l + half_size]);
      int k = partial_e[l] + partial_e[l + half_size];
      Renormalize(m, k);
      partial[l] = floatBitsToUint(m);
      partial_e[l] = k;
    }
    barrier();
  }
  mant = uintBitsToFloat(partial[0]);
  e = partial_e[0];
  barrier();
}

// A float's bits (float32, or float16 in the low 16 bits) as a key whose unsigned order is the
// order of the values, -0 below +0; NaN (any sign) maps to the extreme key that wins, so that it
// propagates: the largest for max, the smallest for min.
uint Key(uint t, uint e, bool is_max) {
  const float v = LoadF(0u, t, e);
  if (isnan(v)) return is_max ? 0xffffffffu : 0u;
  const uint bits = t == NNVK_F16 ? FloatToHalf(v) : floatBitsToUint(v);  // exact
  const uint sign = t == NNVK_F16 ? 0x8000u : 0x80000000u;
  const uint mask = t == NNVK_F16 ? 0xffffu : 0xffffffffu;
  return (bits & sign) != 0u ? (~bits & mask) : (bits | sign);
}

float FromKey(uint t, uint key) {
  if (key == 0xffffffffu || key == 0u) return kNaN;
  const uint sign = t == NNVK_F16 ? 0x8000u : 0x80000000u;
  const uint mask = t == NNVK_F16 ? 0xffffu : 0xffffffffu;
  const uint bits = (key & sign) != 0u ? (key & ~sign) : (~key & mask);
  return t == NNVK_F16 ? HalfToFloat(bits) : uintBitsToFloat(bits);
}

// op's result over the run of `run` elements at `base`: this invocation takes the elements first,
// first + stride, ...; with `group` (uniform over the workgroup: a workgroup per run) the
// workgroup's partials are then combined, else (first 0, stride 1: an invocation per run) the
// invocation's own sum is the run's.
float ReduceRun(uint t, uint op, uint base, uint run, uint first, uint stride, bool group) {
  float result;
  if (op == NNVK_REDUCE_MAX || op == NNVK_REDUCE_MIN || op == NNVK_REDUCE_LOG_SUM_EXP) {
    const bool is_max = op != NNVK_REDUCE_MIN;
    uint best = is_max ? 0u : 0xffffffffu;  // the identity: below (above) every element's key
    for (uint i = first; i < run; i += stride) {
      const uint k = Key(t, base + i, is_max);
      best = is_max ? max(best, k) : min(best, k);
    }
    if (group) best = KeyGroup(best, is_max);
    result = FromKey(t, best);
    if (op == NNVK_REDUCE_LOG_SUM_EXP) {
      const float m = result;
      float s = 0.0;
      for (uint i = first; i < run; i += stride) s += Exp(LoadF(0u, t, base + i) - m);
      if (group) s = SumGroup(s);
      // +Inf, a run of -Inf, or NaN: m itself.
      result = (isinf(m) || isnan(m)) ? m : m + NativeLog(s);
    }
  } else if (op == NNVK_REDUCE_PRODUCT) {
    // The running product as mant 2^e, renormalized after every factor (the exact mode's
    // representation): a float32 product of [1e30, 1e30, 1e-30, 1e-30] in run order overflows
    // (reduceProduct.float32.special_values expects 1).
    float mant = 1.0;
    int e = 0;
    for (uint i = first; i < run; i += stride) {
      mant *= LoadF(0u, t, base + i);
      Renormalize(mant, e);
    }
    if (group) ProductGroup(mant, e);
    if (mant == 0.0 || isinf(mant) || isnan(mant) || e == 0) {
      result = mant;
    } else if (e > 260) {
      result = mant * kInf;
    } else if (e < -260) {
      result = mant * 0.0;
    } else {
      result = ScaleB(ScaleB(mant, e / 2), e - e / 2);
    }
  } else {
    // Sums. The scale: 2^k with the largest finite magnitude near 1.
    int k = 0;
    if (op != NNVK_REDUCE_SUM_SQUARE) {
      uint largest = 0u;  // the bits of a finite magnitude order as its value
      for (uint i = first; i < run; i += stride) {
        const float v = abs(LoadF(0u, t, base + i));
        if (!isinf(v) && !isnan(v)) largest = max(largest, floatBitsToUint(v));
      }
      if (group) largest = KeyGroup(largest, true);
      if (largest != 0u) k = 127 - max(int(largest >> 23), 1);
    }
    float s = uintBitsToFloat(0x80000000u);  // -0, the identity of IEEE addition
    for (uint i = first; i < run; i += stride) {
      const float v = ScaleB(LoadF(0u, t, base + i), k);
      if (op == NNVK_REDUCE_L1) {
        s += abs(v);
      } else if (op == NNVK_REDUCE_L2 || op == NNVK_REDUCE_SUM_SQUARE) {
        s = fma(v, v, s);
      } else {
        s += v;
      }
    }
    const float sum = group ? SumGroup(s) : s;
    if (op == NNVK_REDUCE_L2) {
      result = ScaleB(sqrt(sum), -k);
    } else if (op == NNVK_REDUCE_MEAN) {
      result = ScaleB(sum / float(run), -k);
    } else if (op == NNVK_REDUCE_LOG_SUM) {
      // log(sum 2^-k) = log(sum) - k log 2.
      result = NativeLog(sum) - float(k) * 0.69314718055994531;
    } else if (op == NNVK_REDUCE_SUM_SQUARE) {
      result = sum;
    } else {
      result = ScaleB(sum, -k);  // sum, L1
    }
  }
  return result;
}

void main() {
  const uint t = p[NNVK_REDUCE_P_TYPE], op = p[NNVK_REDUCE_P_OP], run = p[NNVK_REDUCE_P_RUN];
  const uint outputs = run == 0u ? 0u : p[NNVK_REDUCE_P_COUNT];
  if (p[NNVK_REDUCE_P_PER_INVOCATION] != 0u) {
    // Short runs: one invocation per output, serial in float32 (no barrier is reached).
    for (uint r = gl_GlobalInvocationID.x; r < outputs; r += gl_NumWorkGroups.x * 64u) {
      StoreOut(t, r, ReduceRun(t, op, r * run, run, 0u, 1u, false));
    }
    return;
  }
  const uint l = gl_LocalInvocationIndex;
  // Uniform over the workgroup: the barriers of the reductions are in uniform control flow.
  for (uint r = gl_WorkGroupID.x; r < outputs; r += gl_NumWorkGroups.x) {
    const float result = ReduceRun(t, op, r * run, run, l, 64u, true);
    if (l == 0u) StoreOut(t, r, result);
  }
}
