// matmul (§api-mlgraphbuilder-matmul) and gemm (§api-mlgraphbuilder-gemm) of the vulkan backend,
// float32 and float16 (packed two to a word, computed in float32). One invocation per output
// element (two for float16: one word). The dot product is compensated (products split exactly
// with Dekker's method, sums with Knuth's TwoSum, both marked `precise` so that no driver fuses
// or reorders them): as accurate as a float32 dot product computed in twice the precision, since
// a plain float32 sum of K products can leave the 2K-ulp tolerance whenever the products cancel.
// gemm's alpha * AB + beta * C is accumulated the same way.
#version 450
#extension GL_GOOGLE_include_directive : require

#include "codes.h"
#include "params.h"
#include "common.glsl"

#include "float_io.glsl"

// Parameters: NNVK_MATMUL_P_* (params.h).

float Compute(uint e) {
  const uint t = p[NNVK_MATMUL_P_TYPE];
  const uint M = p[NNVK_MATMUL_P_M], N = p[NNVK_MATMUL_P_N], K = p[NNVK_MATMUL_P_K];
  const uint batch = e / (M * N);
  const uint m = (e / N) % M;
  const uint n = e % N;
  const uint a0 = p[NNVK_MATMUL_P_OFFSETS + 2u * batch] + m * p[NNVK_MATMUL_P_A_M];
  const uint b0 = p[NNVK_MATMUL_P_OFFSETS + 2u * batch + 1u] + n * p[NNVK_MATMUL_P_B_N];
  float s = -0.0;  // all -0 products sum to -0, as the exact sum does
  float comp = 0.0;
  for (uint k = 0u; k < K; ++k) {
    AddProduct(Load(0u, t, a0 + k * p[NNVK_MATMUL_P_A_K]), Load(1u, t, b0 + k * p[NNVK_MATMUL_P_B_K]),
               s, comp);
  }
  if (p[NNVK_MATMUL_P_GEMM] != 0u) {
    const float alpha = uintBitsToFloat(p[NNVK_MATMUL_P_ALPHA]);
    if (alpha != 1.0) {
      float s2 = alpha == 0.0 ? 0.0 * s : -0.0, comp2 = 0.0;
      if (alpha != 0.0) AddProduct(alpha, s, s2, comp2);
      s = s2;
      comp = comp2 + alpha * comp;
    }
    if (p[NNVK_MATMUL_P_HAS_C] != 0u) {
      const float cv = Load(2u, t, m * p[NNVK_MATMUL_P_C_M] + n * p[NNVK_MATMUL_P_C_N]);
      AddProduct(uintBitsToFloat(p[NNVK_MATMUL_P_BETA]), cv, s, comp);
    }
  }
  return Finish(s, comp);
}

NNVK_FLOAT_MAIN(Compute, p[NNVK_MATMUL_P_TYPE],
                p[NNVK_MATMUL_P_BATCHES] * p[NNVK_MATMUL_P_M] * p[NNVK_MATMUL_P_N])
