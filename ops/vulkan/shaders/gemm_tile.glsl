// The tiled GEMM of the native arithmetic mode (docs/vulkan.md#arithmetic-modes), shared by
// matmul_native.comp (matmul, gemm) and conv2d_native.comp (conv2d, convTranspose2d as implicit
// GEMMs): C[batch][m][n] = sum over k of A(batch, m, k) B(batch, k, n), computed as a production
// GPU kernel does. One workgroup of 64 invocations computes one NNVK_TILE x NNVK_TILE tile of C
// at a time (looping over the tiles when there are more than workgroups); per step of
// NNVK_TILE_K along k, the A and B tiles are staged in shared memory (zero outside the matrices),
// a barrier, then each invocation accumulates its 4 x 4 register block (rows ty + 8i, columns
// tx + 8j) in float32 with fma(), in k order, and a barrier before the next step. float16 inputs
// are widened to float32 when loaded. No compensation and no `precise`: the driver may fuse and
// reorder as it would for any shader; the result is judged by the tolerances (the sum bound).
//
// The includer defines, before including this file (after codes.h, params.h, common.glsl):
//   uint GemmBatches(); uvec3 GemmShape();          // batches; M, N, K
//   float InitialSum();                             // -0 for matmul (all -0 products give -0)
//   float LoadA(uint batch, uint m, uint k);        // called for m < M, k < K only
//   float LoadB(uint batch, uint k, uint n);        // called for k < K, n < N only
//   void StoreC(uint batch, uint m, uint n, float sum);  // m < M, n < N
// with the bindings below (binding 0 = params p, 1..3 = inputs, 4 = output as 32-bit words).
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Params { uint p[]; };
layout(std430, set = 0, binding = 1) readonly buffer In0 { uint in0[]; };
layout(std430, set = 0, binding = 2) readonly buffer In1 { uint in1[]; };
layout(std430, set = 0, binding = 3) readonly buffer In2 { uint in2[]; };
// Not writeonly: float16 results are merged into their word with atomics (StoreOut).
layout(std430, set = 0, binding = 4) buffer Out { uint o[]; };

#define NNVK_TILE NNVK_GEMM_TILE  // C tile (params.h: the C++ side counts workgroups by it)
#define NNVK_TILE_K 16u  // k step staged in shared memory
#define NNVK_BLOCK 4u    // register block per invocation: 4 x 4 (8 x 8 invocations)

shared float tile_a[NNVK_TILE_K][NNVK_TILE];  // [k][m]
shared float tile_b[NNVK_TILE_K][NNVK_TILE];  // [k][n]

// Element e of input k (0..2) of type t (NNVK_F32 or NNVK_F16) as float32 (exact).
float LoadF(uint k, uint t, uint e) {
  const uint w = t == NNVK_F16 ? e >> 1 : e;
  const uint word = k == 0u ? in0[w] : (k == 1u ? in1[w] : in2[w]);
  if (t == NNVK_F16) return HalfToFloat(bitfieldExtract(word, int((e & 1u) * 16u), 16));
  return uintBitsToFloat(word);
}

// Writes element e of the output (type t). A float16 element shares its word with a neighbour
// that another invocation (or workgroup) may write: each clears and sets its own 16 bits with
// atomics, which commute with the neighbour's.
void StoreOut(uint t, uint e, float v) {
  if (t == NNVK_F16) {
    const uint shift = (e & 1u) * 16u;
    atomicAnd(o[e >> 1], ~(0xffffu << shift));
    atomicOr(o[e >> 1], FloatToHalf(v) << shift);
  } else {
    o[e] = floatBitsToUint(v);
  }
}

void main() {
  const uvec3 shape = GemmShape();
  const uint M = shape.x, N = shape.y, K = shape.z;
  const uint tiles_m = (M + NNVK_TILE - 1u) / NNVK_TILE, tiles_n = (N + NNVK_TILE - 1u) / NNVK_TILE;
  const uint per_batch = tiles_m * tiles_n;
  const uint total = GemmBatches() * per_batch;
  const uint l = gl_LocalInvocationID.x;
  const uint tx = l % 8u, ty = l / 8u;
  // The loop is uniform over the workgroup (it depends on the workgroup id only), so the
  // barriers inside are in uniform control flow.
  for (uint g = gl_WorkGroupID.x; g < total; g += gl_NumWorkGroups.x) {
    const uint batch = g / per_batch;
    const uint m0 = ((g % per_batch) / tiles_n) * NNVK_TILE;
    const uint n0 = ((g % per_batch) % tiles_n) * NNVK_TILE;
    float acc[NNVK_BLOCK][NNVK_BLOCK];
    const float init = InitialSum();
    for (uint i = 0u; i < NNVK_BLOCK; ++i) {
      for (uint j = 0u; j < NNVK_BLOCK; ++j) acc[i][j] = init;
    }
    for (uint k0 = 0u; k0 < K; k0 += NNVK_TILE_K) {
      // Stage the tiles: 512 elements each, 8 per invocation; consecutive invocations read
      // consecutive k of A (its usual contiguous axis) and consecutive n of B.
      for (uint r = 0u; r < 8u; ++r) {
        const uint idx = l + 64u * r;
        const uint am = idx / NNVK_TILE_K, ak = idx % NNVK_TILE_K;
        tile_a[ak][am] =
            (m0 + am < M && k0 + ak < K) ? LoadA(batch, m0 + am, k0 + ak) : 0.0;
        const uint bk = idx / NNVK_TILE, bn = idx % NNVK_TILE;
        tile_b[bk][bn] =
            (k0 + bk < K && n0 + bn < N) ? LoadB(batch, k0 + bk, n0 + bn) : 0.0;
      }
      barrier();
      // Only the k of the matrices: a zero product past K would turn a -0 sum into +0.
      const uint kn = min(NNVK_TILE_K, K - k0);
      for (uint kk = 0u; kk < kn; ++kk) {
        float a[NNVK_BLOCK], b[NNVK_BLOCK];
        for (uint i = 0u; i < NNVK_BLOCK; ++i) a[i] = tile_a[kk][ty + 8u * i];
        for (uint j = 0u; j < NNVK_BLOCK; ++j) b[j] = tile_b[kk][tx + 8u * j];
        for (uint i = 0u; i < NNVK_BLOCK; ++i) {
          for (uint j = 0u; j < NNVK_BLOCK; ++j) acc[i][j] = fma(a[i], b[j], acc[i][j]);
        }
      }
      barrier();
    }
    for (uint i = 0u; i < NNVK_BLOCK; ++i) {
      const uint m = m0 + ty + 8u * i;
      if (m >= M) continue;
      for (uint j = 0u; j < NNVK_BLOCK; ++j) {
        const uint n = n0 + tx + 8u * j;
        if (n < N) StoreC(batch, m, n, acc[i][j]);
      }
    }
  }
}
