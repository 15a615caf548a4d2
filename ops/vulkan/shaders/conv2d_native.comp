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
uint t_, batches_, in_c_, in_h_, in_w_, out_c_, out_h_, out_w_, fc_, kh_, kw_, pad_top_, pad_left_,
    stride_h_, stride_w_, dil_h_, dil_w_, groups_, group_out_c_;
bool has_bias_, nhwc_, transposed_;
uvec4 in_strides_, filter_strides_;

void GemmSetup() {
  t_ = p[NNVK_CONV_P_TYPE];
  batches_ = p[NNVK_CONV_P_BATCHES];
  in_c_ = p[NNVK_CONV_P_IN_C];
  in_h_ = p[NNVK_CONV_P_IN_H];
  in_w_ = p[NNVK_CONV_P_IN_W];
  out_c_ = p[NNVK_CONV_P_OUT_C];
  out_h_ = p[NNVK_CONV_P_OUT_H];
  out_w_ = p[NNVK_CONV_P_OUT_W];
  fc_ = p[NNVK_CONV_P_FILTER_C];
  kh_ = p[NNVK_CONV_P_KH];
  kw_ = p[NNVK_CONV_P_KW];
  pad_top_ = p[NNVK_CONV_P_PAD_TOP];
  pad_left_ = p[NNVK_CONV_P_PAD_LEFT];
  stride_h_ = p[NNVK_CONV_P_STRIDE_H];
  stride_w_ = p[NNVK_CONV_P_STRIDE_W];
  dil_h_ = p[NNVK_CONV_P_DIL_H];
  dil_w_ = p[NNVK_CONV_P_DIL_W];
  groups_ = p[NNVK_CONV_P_GROUPS];
  has_bias_ = p[NNVK_CONV_P_HAS_BIAS] != 0u;
  nhwc_ = p[NNVK_CONV_P_OUT_NHWC] != 0u;
  transposed_ = p[NNVK_CONV_P_TRANSPOSED] != 0u;
  in_strides_ = uvec4(p[NNVK_CONV_P_IN_STRIDES], p[NNVK_CONV_P_IN_STRIDES + 1],
                      p[NNVK_CONV_P_IN_STRIDES + 2], p[NNVK_CONV_P_IN_STRIDES + 3]);
  filter_strides_ = uvec4(p[NNVK_CONV_P_FILTER_STRIDES], p[NNVK_CONV_P_FILTER_STRIDES + 1],
                          p[NNVK_CONV_P_FILTER_STRIDES + 2], p[NNVK_CONV_P_FILTER_STRIDES + 3]);
  // Output channels per group.
  group_out_c_ = transposed_ ? p[NNVK_CONV_P_FILTER_OUT_C] : out_c_ / groups_;
}

void GemmBatchSetup(uint batch) {}

// The groups are the GEMM's batches.
uint GemmBatches() { return groups_; }
uvec3 GemmShape() { return uvec3(group_out_c_, batches_ * out_h_ * out_w_, fc_ * kh_ * kw_); }
// As the exact sum, which starts at +0 (so zero padding cannot change a zero's sign).
float InitialSum() { return 0.0; }

// The filter tap k = (channel in the group, ky, kx) of output channel m of group g.
float LoadA(uint g, uint m, uint k) {
  const uint fc = k / (kh_ * kw_), r = k - fc * (kh_ * kw_);  // few divisions: no vector divide
  const uint ky = r / kw_, kx = r - ky * kw_;
  uint f;
  if (transposed_) {  // filter [in, out/groups, h, w] through its strides
    f = (g * fc_ + fc) * filter_strides_.y + m * filter_strides_.x;
  } else {
    f = (g * group_out_c_ + m) * filter_strides_.x + fc * filter_strides_.y;
  }
  return LoadF(1u, t_, f + ky * filter_strides_.z + kx * filter_strides_.w);
}

// The input element under tap k of output pixel n (0 at a padded position).
float LoadB(uint g, uint k, uint n) {
  const uint fc = k / (kh_ * kw_), r = k - fc * (kh_ * kw_);  // few divisions: no vector divide
  const uint ky = r / kw_, kx = r - ky * kw_;
  const uint q = n / out_w_, ox = n - q * out_w_;
  const uint b = q / out_h_, oy = q - b * out_h_;
  int y, x;
  if (transposed_) {
    const int ys = int(oy) + int(pad_top_) - int(ky * dil_h_);
    const int xs = int(ox) + int(pad_left_) - int(kx * dil_w_);
    if (ys < 0 || xs < 0 || ys % int(stride_h_) != 0 || xs % int(stride_w_) != 0) return 0.0;
    y = ys / int(stride_h_);
    x = xs / int(stride_w_);
  } else {
    y = int(oy * stride_h_) - int(pad_top_) + int(ky * dil_h_);
    x = int(ox * stride_w_) - int(pad_left_) + int(kx * dil_w_);
  }
  if (y < 0 || y >= int(in_h_) || x < 0 || x >= int(in_w_)) return 0.0;
  return LoadF(0u, t_, b * in_strides_.x + (g * fc_ + fc) * in_strides_.y +
                           uint(y) * in_strides_.z + uint(x) * in_strides_.w);
}

void StoreC(uint g, uint m, uint n, float sum) {
  const uint oc = g * group_out_c_ + m;
  const uint b = n / (out_h_ * out_w_), oy = (n / out_w_) % out_h_, ox = n % out_w_;
  float v = sum;
  if (has_bias_) v += LoadF(2u, t_, oc);
  const uint e = nhwc_ ? ((b * out_h_ + oy) * out_w_ + ox) * out_c_ + oc
                       : ((b * out_c_ + oc) * out_h_ + oy) * out_w_ + ox;
  StoreOut(t_, e, v);
}
