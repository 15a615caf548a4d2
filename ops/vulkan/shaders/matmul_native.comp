// matmul (§api-mlgraphbuilder-matmul) and gemm (§api-mlgraphbuilder-gemm) of the vulkan backend
// in the native arithmetic mode: the tiled float32 GEMM of gemm_tile.glsl (shared memory, 4 x 4
// register blocks, fma, float16 widened to float32), gemm's alpha and beta applied once at the
// end: fma(beta, c, alpha * sum). The exact mode's matmul.comp computes compensated sums instead.
// Parameters: NNVK_MATMUL_P_* (params.h), as matmul.comp.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_EXT_control_flow_attributes : require

#include "codes.h"
#include "params.h"
#include "common.glsl"

void GemmSetup();
void GemmBatchSetup(uint batch);
uint GemmBatches();
uvec3 GemmShape();
float InitialSum();
float LoadA(uint batch, uint m, uint k);
float LoadB(uint batch, uint k, uint n);
void StoreC(uint batch, uint m, uint n, float sum);

#include "gemm_tile.glsl"

// The parameters, read once (GemmSetup).
uint t_, M_, N_, K_, batches_, a_offset_, b_offset_, a_m_, a_k_, b_k_, b_n_, c_m_, c_n_;
bool gemm_, has_c_;
float alpha_, beta_;

void GemmSetup() {
  t_ = p[NNVK_MATMUL_P_TYPE];
  M_ = p[NNVK_MATMUL_P_M];
  N_ = p[NNVK_MATMUL_P_N];
  K_ = p[NNVK_MATMUL_P_K];
  batches_ = p[NNVK_MATMUL_P_BATCHES];
  a_m_ = p[NNVK_MATMUL_P_A_M];
  a_k_ = p[NNVK_MATMUL_P_A_K];
  b_k_ = p[NNVK_MATMUL_P_B_K];
  b_n_ = p[NNVK_MATMUL_P_B_N];
  gemm_ = p[NNVK_MATMUL_P_GEMM] != 0u;
  has_c_ = p[NNVK_MATMUL_P_HAS_C] != 0u;
  c_m_ = p[NNVK_MATMUL_P_C_M];
  c_n_ = p[NNVK_MATMUL_P_C_N];
  alpha_ = uintBitsToFloat(p[NNVK_MATMUL_P_ALPHA]);
  beta_ = uintBitsToFloat(p[NNVK_MATMUL_P_BETA]);
}

uint GemmBatches() { return batches_; }
uvec3 GemmShape() { return uvec3(M_, N_, K_); }
// As the exact sum: all -0 products sum to -0.
float InitialSum() { return -0.0; }

// The batch's matrix offsets (broadcast batch axes), read once per tile.
void GemmBatchSetup(uint batch) {
  a_offset_ = p[NNVK_MATMUL_P_OFFSETS + 2u * batch];
  b_offset_ = p[NNVK_MATMUL_P_OFFSETS + 2u * batch + 1u];
}

float LoadA(uint batch, uint m, uint k) { return LoadF(0u, t_, a_offset_ + m * a_m_ + k * a_k_); }

float LoadB(uint batch, uint k, uint n) { return LoadF(1u, t_, b_offset_ + k * b_k_ + n * b_n_); }

void StoreC(uint batch, uint m, uint n, float sum) {
  float v = sum;
  if (gemm_) {
    v = alpha_ * sum;
    if (has_c_) v = fma(beta_, LoadF(2u, t_, m * c_m_ + n * c_n_), v);
  }
  StoreOut(t_, (batch * M_ + m) * N_ + n, v);
}
