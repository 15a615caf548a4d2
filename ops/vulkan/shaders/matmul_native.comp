// matmul (§api-mlgraphbuilder-matmul) and gemm (§api-mlgraphbuilder-gemm) of the vulkan backend
// in the native arithmetic mode: the tiled float32 GEMM of gemm_tile.glsl (shared memory, 4 x 4
// register blocks, fma, float16 widened to float32), gemm's alpha and beta applied once at the
// end: fma(beta, c, alpha * sum). DirectGemm (the NNVK_GEMM_DIRECT variant, CPU devices): float32
// A [M, K] and B [K, N] row-major with K and N multiples of 4, read as vec4s. The exact mode's
// matmul.comp computes compensated sums instead.
// Parameters: NNVK_MATMUL_P_* (params.h), as matmul.comp.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_EXT_control_flow_attributes : require
#ifdef NNVK_FLOAT16
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif

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
void DirectGemm();

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

// The direct variant (gemm_tile.glsl): a subgroup computes NNVK_DIRECT_ROWS rows by
// 4 NNVK_DIRECT_VEC4S S columns, each invocation a block of NNVK_DIRECT_ROWS x NNVK_DIRECT_VEC4S
// vec4s. Per 4 steps of k, lane i reads the vec4 A[m0 + 8 h + i][k..k+3] of each group of 8
// rows (broadcast to the subgroup), and per k its vec4s of B's row k. The host uses it for
// float32, a_k = b_n = 1, K and N multiples of 4 (so every vec4 is aligned and whole).
void DirectGemm() {
  const uint S = gl_SubgroupSize, lane = gl_SubgroupInvocationID;
  const uint R = NNVK_DIRECT_ROWS, V = NNVK_DIRECT_VEC4S;
  const uint rows = R * gl_NumSubgroups, cols4 = V * S;
  const uint K4 = K_ / 4u, N4 = N_ / 4u;
  const uint tiles_m = (M_ + rows - 1u) / rows, tiles_n = (N4 + cols4 - 1u) / cols4;
  const uint per_batch = tiles_m * tiles_n;
  for (uint g = gl_WorkGroupID.x; g < batches_ * per_batch; g += gl_NumWorkGroups.x) {
    const uint batch = g / per_batch;
    const uint m0 = ((g % per_batch) / tiles_n) * rows + gl_SubgroupID * R;
    const uint c0 = ((g % per_batch) % tiles_n) * cols4;
    if (m0 >= M_) continue;  // uniform in the subgroup; there are no barriers
    GemmBatchSetup(batch);
    // The vec4 index of A's row this lane loads for each group of 8 rows, and of B's column
    // vec4s of this lane (clamped to the matrices: the values past them are not stored).
    uint arow[R / 8u], bcol[V];
    [[unroll]] for (uint h = 0u; h < R / 8u; ++h) {
      arow[h] = (a_offset_ + min(m0 + 8u * h + lane % 8u, M_ - 1u) * K_) / 4u;
    }
    [[unroll]] for (uint c = 0u; c < V; ++c) {
      bcol[c] = b_offset_ / 4u + min(c0 + lane + S * c, N4 - 1u);
    }
    vec4 acc[R][V];
    [[unroll]] for (uint i = 0u; i < R; ++i) {
      [[unroll]] for (uint c = 0u; c < V; ++c) acc[i][c] = vec4(-0.0);  // InitialSum()
    }
    for (uint k4 = 0u; k4 < K4; ++k4) {
      vec4 a4[R / 8u];
      [[unroll]] for (uint h = 0u; h < R / 8u; ++h) a4[h] = in0v[arow[h] + k4];
      [[unroll]] for (uint kk = 0u; kk < 4u; ++kk) {
        float a[R / 8u];
        [[unroll]] for (uint h = 0u; h < R / 8u; ++h) a[h] = a4[h][kk];
        vec4 b[V];
        [[unroll]] for (uint c = 0u; c < V; ++c) b[c] = in1v[bcol[c] + (4u * k4 + kk) * N4];
        NNVK_DIRECT_FMA(acc, a, b)
      }
    }
    [[unroll]] for (uint i = 0u; i < R; ++i) {
      if (m0 + i >= M_) break;
      [[unroll]] for (uint c = 0u; c < V; ++c) {
        const uint n4 = c0 + lane + S * c;
        if (n4 >= N4) continue;
        if (kDirectOption != 0u) {  // gemm
          [[unroll]] for (uint j = 0u; j < 4u; ++j) {
            StoreC(batch, m0 + i, 4u * n4 + j, acc[i][c][j]);
          }
        } else {  // float32 [.., M, N] with N a multiple of 4: a whole vec4
          outv[(batch * M_ + m0 + i) * N4 + n4] = acc[i][c];
        }
      }
    }
  }
}
