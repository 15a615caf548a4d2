// The tiled GEMM of the native arithmetic mode (docs/vulkan.md#arithmetic-modes), shared by
// matmul_native.comp (matmul, gemm) and conv2d_native.comp (conv2d, convTranspose2d as implicit
// GEMMs): C[batch][m][n] = sum over k of A(batch, m, k) B(batch, k, n), computed as a production
// GPU kernel does. One workgroup of 64 invocations computes one tile of C at a time (looping
// over the tiles when there are more than workgroups); per step of NNVK_TILE_K along k, the A and
// B tiles are staged in shared memory (zero outside the matrices), a barrier, then each
// invocation accumulates its register block in float32 with fma(), in k order, and a barrier
// before the next step. With subgroups of 8 to 64 invocations (SubgroupGemm) a subgroup owns
// NNVK_SG_ROWS rows by NNVK_SG_COLS x S columns, each row's A value read by one lane and
// broadcast; otherwise (SharedGemm) 32 x 32 tiles of 4 x 4 blocks read from shared memory.
// float16 inputs are widened to float32 when staged (exact). The accumulators are NNVK_ACC:
// float32, or float16_t in the NNVK_FLOAT16 variants (float16 operands on a device with
// shaderFloat16: each fma rounds to float16, as a GPU's float16 GEMM does; the includer enables
// GL_EXT_shader_explicit_arithmetic_types_float16). No compensation and no `precise`: the
// driver may fuse and reorder as it would for any shader; the result is judged by the
// tolerances (the sum bound).
//
// Specialization constant 0 chooses the variant: NNVK_GEMM_TILED (the default), the above;
// NNVK_GEMM_DIRECT, the includer's DirectGemm(): no shared memory and no barriers, each
// invocation accumulates a register block of vec4s read from global memory (the variant for
// CPU devices, where a barrier suspends every invocation and shared memory is ordinary memory:
// docs/vulkan.md#arithmetic-modes). The host chooses it (gemm_variant.cc) only for the shapes
// the includer's DirectGemm() handles. Both sum each output's products with fma() in k order
// from the same initial value.
//
// The includer defines, before including this file (after codes.h, params.h, common.glsl):
//   void GemmSetup();                               // reads the parameters into private
//                                                   // variables once (each read of `p` is a
//                                                   // memory access; lavapipe's are per lane)
//   void GemmBatchSetup(uint batch);                // likewise per batch, before its loads
//   uint GemmBatches(); uvec3 GemmShape();          // batches; M, N, K
//   float InitialSum();                             // -0 for matmul (all -0 products give -0)
//   float LoadA(uint batch, uint m, uint k);        // called for m < M, k < K only
//   float LoadB(uint batch, uint k, uint n);        // called for k < K, n < N only
//   void StoreC(uint batch, uint m, uint n, float sum);  // m < M, n < N
//   void DirectGemm();                              // the NNVK_GEMM_DIRECT variant
// with the bindings of native_io.glsl (binding 0 = params p, 1..3 = inputs, 4 = output).
#include "native_io.glsl"

#ifdef NNVK_FLOAT16
#define NNVK_ACC float16_t
#else
#define NNVK_ACC float
#endif

layout(constant_id = 0) const uint kGemmVariant = NNVK_GEMM_TILED;
// Specialization constant 1, an option of the includer's direct variant: matmul_native.comp: 1
// when gemm's alpha, beta and c apply, 0 for matmul; conv2d_native.comp: 1 when the input is
// channels-last with 4 | channels per group (k runs over (ky, kx, input channel), the input read
// as vec4s), 0 otherwise. A constant, not a parameter: lavapipe runs both sides of an `if`
// under a lane mask, so a branch on a parameter costs its untaken side too.
layout(constant_id = 1) const uint kDirectOption = 1u;

// Inputs 0 and 1 and the output as vec4s (the direct variant; the host makes sure offsets are
// multiples of 4).
layout(std430, set = 0, binding = 1) readonly buffer In0v { vec4 in0v[]; };
layout(std430, set = 0, binding = 2) readonly buffer In1v { vec4 in1v[]; };
layout(std430, set = 0, binding = 4) writeonly buffer OutV { vec4 outv[]; };

// The direct variant's register block (params.h): NNVK_DIRECT_ROWS rows per subgroup,
// NNVK_DIRECT_VEC4S vec4s of columns per invocation (columns 4 (lane + S c) .. + 3, S the
// subgroup size). Row 8 h + i's operand is loaded by lane i and broadcast to the subgroup.

// acc[8 h + I][c] += broadcast(x[h] of lane I) * y[c] for I = 0..7 (the lane must be a constant).
#define NNVK_DIRECT_FMA_ROW(ACC, X, Y, H, I)                                   \
  {                                                                            \
    const vec4 xi = vec4(subgroupBroadcast(X[H], I));                          \
    [[unroll]] for (uint c = 0u; c < NNVK_DIRECT_VEC4S; ++c) {                 \
      ACC[8u * H + I][c] = fma(xi, Y[c], ACC[8u * H + I][c]);                  \
    }                                                                          \
  }
#define NNVK_DIRECT_FMA(ACC, X, Y)                                                 \
  [[unroll]] for (uint h = 0u; h < NNVK_DIRECT_ROWS / 8u; ++h) {                   \
    NNVK_DIRECT_FMA_ROW(ACC, X, Y, h, 0u) NNVK_DIRECT_FMA_ROW(ACC, X, Y, h, 1u)    \
    NNVK_DIRECT_FMA_ROW(ACC, X, Y, h, 2u) NNVK_DIRECT_FMA_ROW(ACC, X, Y, h, 3u)    \
    NNVK_DIRECT_FMA_ROW(ACC, X, Y, h, 4u) NNVK_DIRECT_FMA_ROW(ACC, X, Y, h, 5u)    \
    NNVK_DIRECT_FMA_ROW(ACC, X, Y, h, 6u) NNVK_DIRECT_FMA_ROW(ACC, X, Y, h, 7u)    \
  }

#define NNVK_TILE_K 8u  // k step staged in shared memory
// The subgroup path (subgroups of 8 invocations or more): each subgroup computes NNVK_SG_ROWS
// rows x NNVK_SG_COLS columns per invocation (columns lane + S c, S the subgroup size); a row's
// A value is loaded by one invocation and broadcast to the subgroup.
#define NNVK_SG_ROWS 16u  // a multiple of 8
#define NNVK_SG_COLS 4u
#define NNVK_MAX_ROWS 128u  // NNVK_SG_ROWS x (64 / 8 subgroups)
#define NNVK_MAX_COLS 256u  // NNVK_SG_COLS x 64 (one subgroup of 64)
// The fallback for subgroups smaller than 8: a 32 x 32 tile, 4 x 4 per invocation.
#define NNVK_SMALL_TILE 32u
#define NNVK_SMALL_BLOCK 4u

// The staged tiles: A [k][m] in columns 0..NNVK_MAX_ROWS-1, B [k][n] after it (12 KiB, under
// the 16 KiB every device has).
shared float tile[NNVK_TILE_K][NNVK_MAX_ROWS + NNVK_MAX_COLS];

// Stages A rows m0.. (`rows`) and B columns n0.. (`cols`, a power of two) of step k0 in `tile`,
// zero outside the matrices. Each invocation keeps one k of A and one column of B (when cols <=
// 64) over its loop, so that the index arithmetic of that coordinate (divisions, for conv2d's
// implicit GEMM) is loop-invariant.
void Stage(uint batch, uint m0, uint n0, uint k0, uint rows, uint cols, uvec3 shape) {
  const uint l = gl_LocalInvocationIndex, size = gl_WorkGroupSize.x;
  const uint ak = l % NNVK_TILE_K;
  for (uint am = l / NNVK_TILE_K; am < rows; am += size / NNVK_TILE_K) {
    tile[ak][am] = (m0 + am < shape.x && k0 + ak < shape.z) ? LoadA(batch, m0 + am, k0 + ak) : 0.0;
  }
  if (cols <= size) {
    const uint bn = l % cols;
    for (uint bk = l / cols; bk < NNVK_TILE_K; bk += size / cols) {
      tile[bk][NNVK_MAX_ROWS + bn] =
          (k0 + bk < shape.z && n0 + bn < shape.y) ? LoadB(batch, k0 + bk, n0 + bn) : 0.0;
    }
  } else {
    for (uint bn = l; bn < cols; bn += size) {
      for (uint bk = 0u; bk < NNVK_TILE_K; ++bk) {
        tile[bk][NNVK_MAX_ROWS + bn] =
            (k0 + bk < shape.z && n0 + bn < shape.y) ? LoadB(batch, k0 + bk, n0 + bn) : 0.0;
      }
    }
  }
}

// Subgroups of 8 or more: the workgroup's tile is NNVK_SG_ROWS x (subgroups) rows by
// NNVK_SG_COLS x S columns.
void SubgroupGemm(uvec3 shape) {
  const uint S = gl_SubgroupSize, lane = gl_SubgroupInvocationID, sg = gl_SubgroupID;
  const uint rows = NNVK_SG_ROWS * gl_NumSubgroups, cols = NNVK_SG_COLS * S;
  const uint tiles_m = (shape.x + rows - 1u) / rows, tiles_n = (shape.y + cols - 1u) / cols;
  const uint per_batch = tiles_m * tiles_n;
  const uint total = GemmBatches() * per_batch;
  // Uniform over the workgroup (the workgroup id only): the barriers are in uniform control flow.
  for (uint g = gl_WorkGroupID.x; g < total; g += gl_NumWorkGroups.x) {
    const uint batch = g / per_batch;
    GemmBatchSetup(batch);
    const uint m0 = ((g % per_batch) / tiles_n) * rows, n0 = ((g % per_batch) % tiles_n) * cols;
    NNVK_ACC acc[NNVK_SG_ROWS][NNVK_SG_COLS];
    const NNVK_ACC init = NNVK_ACC(InitialSum());
    [[unroll]] for (uint i = 0u; i < NNVK_SG_ROWS; ++i) {
      [[unroll]] for (uint c = 0u; c < NNVK_SG_COLS; ++c) acc[i][c] = init;
    }
    for (uint k0 = 0u; k0 < shape.z; k0 += NNVK_TILE_K) {
      Stage(batch, m0, n0, k0, rows, cols, shape);
      barrier();
      // Only the k of the matrices: a zero product past K would turn a -0 sum into +0.
      // A subgroup whose rows are all past M skips the products (not the barriers).
      const uint kn = m0 + sg * NNVK_SG_ROWS < shape.x ? min(NNVK_TILE_K, shape.z - k0) : 0u;
      for (uint kk = 0u; kk < kn; ++kk) {
        // Row 8 h + i of the subgroup's band is loaded by lane i and broadcast (the lane must
        // be a constant).
        float a[NNVK_SG_ROWS / 8u];
        [[unroll]] for (uint h = 0u; h < NNVK_SG_ROWS / 8u; ++h) {
          a[h] = tile[kk][sg * NNVK_SG_ROWS + 8u * h + lane % 8u];
        }
        float b[NNVK_SG_COLS];
        [[unroll]] for (uint c = 0u; c < NNVK_SG_COLS; ++c) b[c] = tile[kk][NNVK_MAX_ROWS + lane + S * c];
        [[unroll]] for (uint h = 0u; h < NNVK_SG_ROWS / 8u; ++h) {
#define NNVK_ROW(I)                                                                  \
  {                                                                                   \
    const NNVK_ACC ai = NNVK_ACC(subgroupBroadcast(a[h], I));                         \
    [[unroll]] for (uint c = 0u; c < NNVK_SG_COLS; ++c) {                             \
      acc[8u * h + I][c] = fma(ai, NNVK_ACC(b[c]), acc[8u * h + I][c]);               \
    }                                                                                 \
  }
          NNVK_ROW(0u) NNVK_ROW(1u) NNVK_ROW(2u) NNVK_ROW(3u)
          NNVK_ROW(4u) NNVK_ROW(5u) NNVK_ROW(6u) NNVK_ROW(7u)
#undef NNVK_ROW
        }
      }
      barrier();
    }
    [[unroll]] for (uint i = 0u; i < NNVK_SG_ROWS; ++i) {
      const uint m = m0 + sg * NNVK_SG_ROWS + i;
      if (m >= shape.x) continue;
      [[unroll]] for (uint c = 0u; c < NNVK_SG_COLS; ++c) {
        const uint n = n0 + lane + S * c;
        if (n < shape.y) StoreC(batch, m, n, float(acc[i][c]));
      }
    }
  }
}

// Subgroups smaller than 8 (or none): a 32 x 32 tile, 8 x 8 invocations, 4 x 4 each (rows
// ty + 8 i, columns tx + 8 j), every operand read from shared memory.
void SharedGemm(uvec3 shape) {
  const uint T = NNVK_SMALL_TILE;
  const uint tiles_m = (shape.x + T - 1u) / T, tiles_n = (shape.y + T - 1u) / T;
  const uint per_batch = tiles_m * tiles_n;
  const uint total = GemmBatches() * per_batch;
  const uint tx = gl_LocalInvocationIndex % 8u, ty = gl_LocalInvocationIndex / 8u;
  for (uint g = gl_WorkGroupID.x; g < total; g += gl_NumWorkGroups.x) {
    const uint batch = g / per_batch;
    GemmBatchSetup(batch);
    const uint m0 = ((g % per_batch) / tiles_n) * T, n0 = ((g % per_batch) % tiles_n) * T;
    NNVK_ACC acc[NNVK_SMALL_BLOCK][NNVK_SMALL_BLOCK];
    const NNVK_ACC init = NNVK_ACC(InitialSum());
    [[unroll]] for (uint i = 0u; i < NNVK_SMALL_BLOCK; ++i) {
      [[unroll]] for (uint j = 0u; j < NNVK_SMALL_BLOCK; ++j) acc[i][j] = init;
    }
    for (uint k0 = 0u; k0 < shape.z; k0 += NNVK_TILE_K) {
      Stage(batch, m0, n0, k0, T, T, shape);
      barrier();
      const uint kn = min(NNVK_TILE_K, shape.z - k0);
      for (uint kk = 0u; kk < kn; ++kk) {
        float a[NNVK_SMALL_BLOCK], b[NNVK_SMALL_BLOCK];
        [[unroll]] for (uint i = 0u; i < NNVK_SMALL_BLOCK; ++i) a[i] = tile[kk][ty + 8u * i];
        [[unroll]] for (uint j = 0u; j < NNVK_SMALL_BLOCK; ++j) b[j] = tile[kk][NNVK_MAX_ROWS + tx + 8u * j];
        [[unroll]] for (uint i = 0u; i < NNVK_SMALL_BLOCK; ++i) {
          [[unroll]] for (uint j = 0u; j < NNVK_SMALL_BLOCK; ++j) acc[i][j] = fma(NNVK_ACC(a[i]), NNVK_ACC(b[j]), acc[i][j]);
        }
      }
      barrier();
    }
    [[unroll]] for (uint i = 0u; i < NNVK_SMALL_BLOCK; ++i) {
      const uint m = m0 + ty + 8u * i;
      if (m >= shape.x) continue;
      [[unroll]] for (uint j = 0u; j < NNVK_SMALL_BLOCK; ++j) {
        const uint n = n0 + tx + 8u * j;
        if (n < shape.y) StoreC(batch, m, n, float(acc[i][j]));
      }
    }
  }
}

void main() {
  GemmSetup();
  if (kGemmVariant == NNVK_GEMM_DIRECT) {
    DirectGemm();
    return;
  }
  const uvec3 shape = GemmShape();  // M, N, K
  // gl_SubgroupSize is the same for every invocation: a uniform choice.
  if (gl_SubgroupSize >= 8u && gl_SubgroupSize <= 64u) {
    SubgroupGemm(shape);
  } else {
    SharedGemm(shape);
  }
}
