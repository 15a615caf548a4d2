// matmul (§api-mlgraphbuilder-matmul) and gemm (§api-mlgraphbuilder-gemm) of the vulkan backend
// in the native arithmetic mode: the tiled float32 GEMM of gemm_tile.glsl (shared memory, 4 x 4
// register blocks, fma, float16 widened to float32), gemm's alpha and beta applied once at the
// end: fma(beta, c, alpha * sum). The exact mode's matmul.comp computes compensated sums instead.
// Parameters: NNVK_MATMUL_P_* (params.h), as matmul.comp.
#version 450
#extension GL_GOOGLE_include_directive : require

#include "codes.h"
#include "params.h"
#include "common.glsl"

uint GemmBatches();
uvec3 GemmShape();
float InitialSum();
float LoadA(uint batch, uint m, uint k);
float LoadB(uint batch, uint k, uint n);
void StoreC(uint batch, uint m, uint n, float sum);

#include "gemm_tile.glsl"

uint GemmBatches() { return p[NNVK_MATMUL_P_BATCHES]; }
uvec3 GemmShape() { return uvec3(p[NNVK_MATMUL_P_M], p[NNVK_MATMUL_P_N], p[NNVK_MATMUL_P_K]); }
// As the exact sum: all -0 products sum to -0.
float InitialSum() { return -0.0; }

float LoadA(uint batch, uint m, uint k) {
  return LoadF(0u, p[NNVK_MATMUL_P_TYPE], p[NNVK_MATMUL_P_OFFSETS + 2u * batch] +
                                              m * p[NNVK_MATMUL_P_A_M] + k * p[NNVK_MATMUL_P_A_K]);
}

float LoadB(uint batch, uint k, uint n) {
  return LoadF(1u, p[NNVK_MATMUL_P_TYPE], p[NNVK_MATMUL_P_OFFSETS + 2u * batch + 1u] +
                                              k * p[NNVK_MATMUL_P_B_K] + n * p[NNVK_MATMUL_P_B_N]);
}

void StoreC(uint batch, uint m, uint n, float sum) {
  const uint t = p[NNVK_MATMUL_P_TYPE];
  const uint M = p[NNVK_MATMUL_P_M], N = p[NNVK_MATMUL_P_N];
  float v = sum;
  if (p[NNVK_MATMUL_P_GEMM] != 0u) {
    v = uintBitsToFloat(p[NNVK_MATMUL_P_ALPHA]) * sum;
    if (p[NNVK_MATMUL_P_HAS_C] != 0u) {
      const float c = LoadF(2u, t, m * p[NNVK_MATMUL_P_C_M] + n * p[NNVK_MATMUL_P_C_N]);
      v = fma(uintBitsToFloat(p[NNVK_MATMUL_P_BETA]), c, v);
    }
  }
  StoreOut(t, (batch * M + m) * N + n, v);
}
