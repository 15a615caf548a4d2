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
#include "common.glsl"

#include "float_io.glsl"

// Params: type, M, N, K, batches, A strides (m, k), B strides (k, n), has C, C strides (m, n),
// alpha bits, beta bits, gemm, spare; then per batch the element offsets of A and B.
#define P_TYPE 0
#define P_M 1
#define P_N 2
#define P_K 3
#define P_BATCHES 4
#define P_A_M 5
#define P_A_K 6
#define P_B_K 7
#define P_B_N 8
#define P_HAS_C 9
#define P_C_M 10
#define P_C_N 11
#define P_ALPHA 12
#define P_BETA 13
#define P_GEMM 14
#define P_OFFSETS 16

float Compute(uint e) {
  const uint t = p[P_TYPE], M = p[P_M], N = p[P_N], K = p[P_K];
  const uint batch = e / (M * N);
  const uint m = (e / N) % M;
  const uint n = e % N;
  const uint a0 = p[P_OFFSETS + 2u * batch] + m * p[P_A_M];
  const uint b0 = p[P_OFFSETS + 2u * batch + 1u] + n * p[P_B_N];
  float s = -0.0;  // all -0 products sum to -0, as the exact sum does
  float comp = 0.0;
  for (uint k = 0u; k < K; ++k) {
    AddProduct(Load(0u, t, a0 + k * p[P_A_K]), Load(1u, t, b0 + k * p[P_B_K]), s, comp);
  }
  if (p[P_GEMM] != 0u) {
    const float alpha = uintBitsToFloat(p[P_ALPHA]);
    if (alpha != 1.0) {
      float s2 = alpha == 0.0 ? 0.0 * s : -0.0, comp2 = 0.0;
      if (alpha != 0.0) AddProduct(alpha, s, s2, comp2);
      s = s2;
      comp = comp2 + alpha * comp;
    }
    if (p[P_HAS_C] != 0u) {
      const float cv = Load(2u, t, m * p[P_C_M] + n * p[P_C_N]);
      AddProduct(uintBitsToFloat(p[P_BETA]), cv, s, comp);
    }
  }
  return Finish(s, comp);
}

NNVK_FLOAT_MAIN(Compute, p[P_TYPE], p[P_BATCHES] * p[P_M] * p[P_N])
