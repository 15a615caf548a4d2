// conv2d (§api-mlgraphbuilder-conv2d) and convTranspose2d (§api-mlgraphbuilder-convtranspose2d)
// of the vulkan backend in the native arithmetic mode: an implicit GEMM per group on the tiled
// float32 GEMM of gemm_tile.glsl (shared memory, 4 x 4 register blocks, fma, float16 widened to
// float32). For group g: C[m][n] = sum over k of W(m, k) X(k, n), with m the output channel in
// the group, n = (batch, oy, ox) the output pixel and k = (input channel in the group, ky, kx)
// the filter tap; the input's padded positions are read as 0 (a GPU kernel's zero padding), the
// bias added to the sum at the end. convTranspose2d in gather form as conv2d.comp: input row y
// feeds output row y stride + ky dilation - padTop. Parameters: NNVK_CONV_P_* (params.h), as
// conv2d.comp; layouts are strides, the output is written in its own layout (nchw or nhwc).
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

bool Transposed() { return p[NNVK_CONV_P_TRANSPOSED] != 0u; }
// Output channels per group.
uint GroupOutC() {
  return Transposed() ? p[NNVK_CONV_P_FILTER_OUT_C] : p[NNVK_CONV_P_OUT_C] / p[NNVK_CONV_P_GROUPS];
}

// The groups are the GEMM's batches.
uint GemmBatches() { return p[NNVK_CONV_P_GROUPS]; }
uvec3 GemmShape() {
  return uvec3(GroupOutC(),
               p[NNVK_CONV_P_BATCHES] * p[NNVK_CONV_P_OUT_H] * p[NNVK_CONV_P_OUT_W],
               p[NNVK_CONV_P_FILTER_C] * p[NNVK_CONV_P_KH] * p[NNVK_CONV_P_KW]);
}
// As the exact sum, which starts at +0 (so zero padding cannot change a zero's sign).
float InitialSum() { return 0.0; }

// The filter tap k = (channel in the group, ky, kx) of output channel m of group g.
float LoadA(uint g, uint m, uint k) {
  const uint KH = p[NNVK_CONV_P_KH], KW = p[NNVK_CONV_P_KW];
  const uint fc = k / (KH * KW), ky = (k / KW) % KH, kx = k % KW;
  uint f;
  if (Transposed()) {  // filter [in, out/groups, h, w] through its strides
    const uint ic = g * p[NNVK_CONV_P_FILTER_C] + fc;
    f = ic * p[NNVK_CONV_P_FILTER_STRIDES + 1] + m * p[NNVK_CONV_P_FILTER_STRIDES];
  } else {
    const uint oc = g * GroupOutC() + m;
    f = oc * p[NNVK_CONV_P_FILTER_STRIDES] + fc * p[NNVK_CONV_P_FILTER_STRIDES + 1];
  }
  return LoadF(1u, p[NNVK_CONV_P_TYPE], f + ky * p[NNVK_CONV_P_FILTER_STRIDES + 2] +
                                            kx * p[NNVK_CONV_P_FILTER_STRIDES + 3]);
}

// The input element under tap k of output pixel n (0 at a padded position).
float LoadB(uint g, uint k, uint n) {
  const uint KH = p[NNVK_CONV_P_KH], KW = p[NNVK_CONV_P_KW];
  const uint fc = k / (KH * KW), ky = (k / KW) % KH, kx = k % KW;
  const uint OH = p[NNVK_CONV_P_OUT_H], OW = p[NNVK_CONV_P_OUT_W];
  const uint b = n / (OH * OW), oy = (n / OW) % OH, ox = n % OW;
  const int H = int(p[NNVK_CONV_P_IN_H]), W = int(p[NNVK_CONV_P_IN_W]);
  int y, x;
  if (Transposed()) {
    const int SH = int(p[NNVK_CONV_P_STRIDE_H]), SW = int(p[NNVK_CONV_P_STRIDE_W]);
    const int ys = int(oy) + int(p[NNVK_CONV_P_PAD_TOP]) - int(ky * p[NNVK_CONV_P_DIL_H]);
    const int xs = int(ox) + int(p[NNVK_CONV_P_PAD_LEFT]) - int(kx * p[NNVK_CONV_P_DIL_W]);
    if (ys < 0 || xs < 0 || ys % SH != 0 || xs % SW != 0) return 0.0;
    y = ys / SH;
    x = xs / SW;
  } else {
    y = int(oy * p[NNVK_CONV_P_STRIDE_H]) - int(p[NNVK_CONV_P_PAD_TOP]) +
        int(ky * p[NNVK_CONV_P_DIL_H]);
    x = int(ox * p[NNVK_CONV_P_STRIDE_W]) - int(p[NNVK_CONV_P_PAD_LEFT]) +
        int(kx * p[NNVK_CONV_P_DIL_W]);
  }
  if (y < 0 || y >= H || x < 0 || x >= W) return 0.0;
  const uint ic = g * p[NNVK_CONV_P_FILTER_C] + fc;
  return LoadF(0u, p[NNVK_CONV_P_TYPE],
               b * p[NNVK_CONV_P_IN_STRIDES] + ic * p[NNVK_CONV_P_IN_STRIDES + 1] +
                   uint(y) * p[NNVK_CONV_P_IN_STRIDES + 2] + uint(x) * p[NNVK_CONV_P_IN_STRIDES + 3]);
}

void StoreC(uint g, uint m, uint n, float sum) {
  const uint t = p[NNVK_CONV_P_TYPE];
  const uint OC = p[NNVK_CONV_P_OUT_C], OH = p[NNVK_CONV_P_OUT_H], OW = p[NNVK_CONV_P_OUT_W];
  const uint oc = g * GroupOutC() + m;
  const uint b = n / (OH * OW), oy = (n / OW) % OH, ox = n % OW;
  float v = sum;
  if (p[NNVK_CONV_P_HAS_BIAS] != 0u) v += LoadF(2u, t, oc);
  const uint e = p[NNVK_CONV_P_OUT_NHWC] != 0u ? ((b * OH + oy) * OW + ox) * OC + oc
                                                : ((b * OC + oc) * OH + oy) * OW + ox;
  StoreOut(t, e, v);
}
