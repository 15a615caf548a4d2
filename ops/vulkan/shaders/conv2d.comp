// conv2d (§api-mlgraphbuilder-conv2d) and convTranspose2d (§api-mlgraphbuilder-convtranspose2d,
// in gather form: input row y feeds output row y stride + ky dilation - padTop) of the vulkan backend, float32 and float16: one invocation
// per output element (per word for float16), a direct convolution over the window of its group's
// input channels with a compensated sum (float_io.glsl AddProduct: the tolerance is 2 ulp per
// product, but products that cancel leave it with a plain float32 sum), then the bias. Padded
// positions contribute nothing. Layouts are strides: any input and filter layout is read in
// place; the output is written in its own layout (nchw or nhwc).
#version 450
#extension GL_GOOGLE_include_directive : require

#include "codes.h"
#include "params.h"
#include "common.glsl"
#include "float_io.glsl"

float Compute(uint e) {
  const uint t = p[NNVK_CONV_P_TYPE];
  const uint OC = p[NNVK_CONV_P_OUT_C], OH = p[NNVK_CONV_P_OUT_H], OW = p[NNVK_CONV_P_OUT_W];
  uint n, oc, oy, ox;
  if (p[NNVK_CONV_P_OUT_NHWC] != 0u) {
    oc = e % OC;
    ox = (e / OC) % OW;
    oy = (e / (OC * OW)) % OH;
    n = e / (OC * OW * OH);
  } else {
    ox = e % OW;
    oy = (e / OW) % OH;
    oc = (e / (OW * OH)) % OC;
    n = e / (OW * OH * OC);
  }
  const uint FC = p[NNVK_CONV_P_FILTER_C], KH = p[NNVK_CONV_P_KH], KW = p[NNVK_CONV_P_KW];
  const int H = int(p[NNVK_CONV_P_IN_H]), W = int(p[NNVK_CONV_P_IN_W]);
  float s = 0.0;  // the exact sum starts at +0 too
  float comp = 0.0;
  if (p[NNVK_CONV_P_TRANSPOSED] != 0u) {
    // FC input channels per group; filter [in, out/groups, h, w] through its strides.
    const uint FOC = p[NNVK_CONV_P_FILTER_OUT_C];
    const uint group = oc / FOC, foc = oc % FOC;
    const int SH = int(p[NNVK_CONV_P_STRIDE_H]), SW = int(p[NNVK_CONV_P_STRIDE_W]);
    for (uint gc = 0u; gc < FC; ++gc) {
      const uint ic = group * FC + gc;
      const uint in_base = n * p[NNVK_CONV_P_IN_STRIDES] + ic * p[NNVK_CONV_P_IN_STRIDES + 1];
      const uint f_base =
          ic * p[NNVK_CONV_P_FILTER_STRIDES + 1] + foc * p[NNVK_CONV_P_FILTER_STRIDES];
      for (uint ky = 0u; ky < KH; ++ky) {
        const int ys = int(oy) + int(p[NNVK_CONV_P_PAD_TOP]) - int(ky * p[NNVK_CONV_P_DIL_H]);
        if (ys < 0 || ys % SH != 0 || ys / SH >= H) continue;
        for (uint kx = 0u; kx < KW; ++kx) {
          const int xs = int(ox) + int(p[NNVK_CONV_P_PAD_LEFT]) - int(kx * p[NNVK_CONV_P_DIL_W]);
          if (xs < 0 || xs % SW != 0 || xs / SW >= W) continue;
          const float v = Load(0u, t, in_base + uint(ys / SH) * p[NNVK_CONV_P_IN_STRIDES + 2] +
                                          uint(xs / SW) * p[NNVK_CONV_P_IN_STRIDES + 3]);
          const float w = Load(1u, t, f_base + ky * p[NNVK_CONV_P_FILTER_STRIDES + 2] +
                                          kx * p[NNVK_CONV_P_FILTER_STRIDES + 3]);
          AddProduct(v, w, s, comp);
        }
      }
    }
    if (p[NNVK_CONV_P_HAS_BIAS] != 0u) AddProduct(1.0, Load(2u, t, oc), s, comp);
    return Finish(s, comp);
  }
  const uint group = oc / (OC / p[NNVK_CONV_P_GROUPS]);
  const int y0 = int(oy * p[NNVK_CONV_P_STRIDE_H]) - int(p[NNVK_CONV_P_PAD_TOP]);
  const int x0 = int(ox * p[NNVK_CONV_P_STRIDE_W]) - int(p[NNVK_CONV_P_PAD_LEFT]);
  for (uint fc = 0u; fc < FC; ++fc) {
    const uint ic = group * FC + fc;
    const uint in_base = n * p[NNVK_CONV_P_IN_STRIDES] + ic * p[NNVK_CONV_P_IN_STRIDES + 1];
    const uint f_base = oc * p[NNVK_CONV_P_FILTER_STRIDES] + fc * p[NNVK_CONV_P_FILTER_STRIDES + 1];
    for (uint ky = 0u; ky < KH; ++ky) {
      const int y = y0 + int(ky * p[NNVK_CONV_P_DIL_H]);
      if (y < 0 || y >= H) continue;
      for (uint kx = 0u; kx < KW; ++kx) {
        const int x = x0 + int(kx * p[NNVK_CONV_P_DIL_W]);
        if (x < 0 || x >= W) continue;
        const float v = Load(0u, t, in_base + uint(y) * p[NNVK_CONV_P_IN_STRIDES + 2] +
                                        uint(x) * p[NNVK_CONV_P_IN_STRIDES + 3]);
        const float w = Load(1u, t, f_base + ky * p[NNVK_CONV_P_FILTER_STRIDES + 2] +
                                        kx * p[NNVK_CONV_P_FILTER_STRIDES + 3]);
        AddProduct(v, w, s, comp);
      }
    }
  }
  if (p[NNVK_CONV_P_HAS_BIAS] != 0u) AddProduct(1.0, Load(2u, t, oc), s, comp);
  return Finish(s, comp);
}

NNVK_FLOAT_MAIN(Compute, p[NNVK_CONV_P_TYPE],
                p[NNVK_CONV_P_BATCHES] * p[NNVK_CONV_P_OUT_C] * p[NNVK_CONV_P_OUT_H] *
                    p[NNVK_CONV_P_OUT_W])
