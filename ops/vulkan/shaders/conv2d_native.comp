// conv2d (§api-mlgraphbuilder-conv2d) and convTranspose2d (§api-mlgraphbuilder-convtranspose2d)
// of the vulkan backend in the native arithmetic mode: an implicit GEMM per group on the tiled
// float32 GEMM of gemm_tile.glsl (shared memory, 4 x 4 register blocks, fma, float16 widened to
// float32). For group g: C[m][n] = sum over k of W(m, k) X(k, n), with m the output channel in
// the group, n = (batch, oy, ox) the output pixel and k = (input channel in the group, ky, kx)
// the filter tap; the input's padded positions are read as 0 (a GPU kernel's zero padding), the
// bias added to the sum at the end. convTranspose2d in gather form as conv2d.comp: input row y
// feeds output row y stride + ky dilation - padTop. Parameters: NNVK_CONV_P_* (params.h), as
// conv2d.comp; layouts are strides, the output is written in its own layout (nchw or nhwc).
// DirectGemm (the NNVK_GEMM_DIRECT variant, CPU devices): conv2d in float32 with the filter
// packed by the host (conv2d.cc) as [group][k][output channel in the group, padded to a
// multiple of 4], read as vec4s; with 4 | input channels per group (specialization constant 1)
// the input channels-last and read as vec4s too, k = (ky, kx, input channel).
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

// The direct variant (gemm_tile.glsl) of conv2d, transposed against the tiled one: rows are
// output pixels, columns output channels, so that the broadcast operand is the input (one
// scalar per pixel and tap, zero at a padded position) and the per-invocation vec4s are the
// packed filter's row k. A subgroup computes NNVK_DIRECT_ROWS pixels by 4 NNVK_DIRECT_VEC4S S
// channels of one group; k runs over (input channel, ky, kx) in the order of the tiled variant.
void DirectGemm() {
  const uint S = gl_SubgroupSize, lane = gl_SubgroupInvocationID;
  const uint R = NNVK_DIRECT_ROWS, V = NNVK_DIRECT_VEC4S;
  const uint rows = R * gl_NumSubgroups, cols4 = V * S;
  const uint pixels = batches_ * out_h_ * out_w_, K = fc_ * kh_ * kw_;
  const uint oc4 = (group_out_c_ + 3u) / 4u;  // the packed filter's vec4s per k
  const uint tiles_m = (pixels + rows - 1u) / rows, tiles_n = (oc4 + cols4 - 1u) / cols4;
  const uint per_group = tiles_m * tiles_n;
  for (uint g = gl_WorkGroupID.x; g < groups_ * per_group; g += gl_NumWorkGroups.x) {
    const uint group = g / per_group;
    const uint p0 = ((g % per_group) / tiles_n) * rows + gl_SubgroupID * R;
    const uint c0 = ((g % per_group) % tiles_n) * cols4;
    if (p0 >= pixels) continue;  // uniform in the subgroup; there are no barriers
    // The pixel this lane reads for each group of 8 rows (clamped: the rows past the output are
    // not stored): its input window's corner and its input plane.
    int y0[R / 8u], x0[R / 8u];
    uint base[R / 8u], batch[R / 8u];
    [[unroll]] for (uint h = 0u; h < R / 8u; ++h) {
      const uint n = min(p0 + 8u * h + lane % 8u, pixels - 1u);
      const uint q = n / out_w_, ox = n - q * out_w_;
      const uint b = q / out_h_, oy = q - b * out_h_;
      y0[h] = int(oy * stride_h_) - int(pad_top_);
      x0[h] = int(ox * stride_w_) - int(pad_left_);
      base[h] = b * in_strides_.x + group * fc_ * in_strides_.y;
      batch[h] = b;
    }
    uint wcol[V];
    [[unroll]] for (uint c = 0u; c < V; ++c) wcol[c] = min(c0 + lane + S * c, oc4 - 1u);
    vec4 acc[R][V];
    [[unroll]] for (uint i = 0u; i < R; ++i) {
      [[unroll]] for (uint c = 0u; c < V; ++c) acc[i][c] = vec4(0.0);  // InitialSum()
    }
    uint wrow = group * K * oc4;  // the packed filter's row k, in vec4s
    if (kDirectOption != 0u) {
      // Channels-last input [batch, h, w, channels] with 4 | channels per group, k = (ky, kx,
      // input channel): per tap, each pixel's channels as vec4s, zero at a padded position.
      const uint c4 = in_c_ / 4u, fc4 = fc_ / 4u;
      for (uint ky = 0u; ky < kh_; ++ky) {
        for (uint kx = 0u; kx < kw_; ++kx) {
          uint pix[R / 8u];
          bool inside[R / 8u];
          [[unroll]] for (uint h = 0u; h < R / 8u; ++h) {
            const int yy = y0[h] + int(ky * dil_h_), xx = x0[h] + int(kx * dil_w_);
            inside[h] = yy >= 0 && yy < int(in_h_) && xx >= 0 && xx < int(in_w_);
            pix[h] = ((batch[h] * in_h_ + uint(max(yy, 0))) * in_w_ + uint(max(xx, 0))) * c4 +
                     group * fc4;
          }
          for (uint ci4 = 0u; ci4 < fc4; ++ci4) {
            vec4 x4[R / 8u];
            [[unroll]] for (uint h = 0u; h < R / 8u; ++h) {
              x4[h] = vec4(0.0);
              if (inside[h]) x4[h] = in0v[pix[h] + ci4];
            }
            [[unroll]] for (uint cc = 0u; cc < 4u; ++cc) {
              float x[R / 8u];
              [[unroll]] for (uint h = 0u; h < R / 8u; ++h) x[h] = x4[h][cc];
              vec4 w[V];
              [[unroll]] for (uint c = 0u; c < V; ++c) w[c] = in1v[wrow + wcol[c]];
              NNVK_DIRECT_FMA(acc, x, w)
              wrow += oc4;
            }
          }
        }
      }
    } else {  // k = (input channel, ky, kx), the input in its own layout
      for (uint ci = 0u; ci < fc_; ++ci) {
        for (uint ky = 0u; ky < kh_; ++ky) {
          for (uint kx = 0u; kx < kw_; ++kx) {
            float x[R / 8u];
            [[unroll]] for (uint h = 0u; h < R / 8u; ++h) {
              const int yy = y0[h] + int(ky * dil_h_), xx = x0[h] + int(kx * dil_w_);
              x[h] = 0.0;
              if (yy >= 0 && yy < int(in_h_) && xx >= 0 && xx < int(in_w_)) {
                x[h] = uintBitsToFloat(in0[base[h] + ci * in_strides_.y +
                                           uint(yy) * in_strides_.z + uint(xx) * in_strides_.w]);
              }
            }
            vec4 w[V];
            [[unroll]] for (uint c = 0u; c < V; ++c) w[c] = in1v[wrow + wcol[c]];
            NNVK_DIRECT_FMA(acc, x, w)
            wrow += oc4;
          }
        }
      }
    }
    // As StoreC (float32): + bias, the output in its layout, one division per pixel. The bias of
    // this invocation's channels read once (lavapipe reads under a mask even without a bias).
    vec4 bias[V];
    [[unroll]] for (uint c = 0u; c < V; ++c) {
      const uint m4 = group * group_out_c_ + 4u * wcol[c];
      bias[c] = has_bias_ ? vec4(uintBitsToFloat(in2[min(m4, out_c_ - 1u)]),
                                 uintBitsToFloat(in2[min(m4 + 1u, out_c_ - 1u)]),
                                 uintBitsToFloat(in2[min(m4 + 2u, out_c_ - 1u)]),
                                 uintBitsToFloat(in2[min(m4 + 3u, out_c_ - 1u)]))
                          : vec4(0.0);
    }
    const uint plane = out_h_ * out_w_;
    [[unroll]] for (uint i = 0u; i < R; ++i) {
      const uint n = p0 + i;
      if (n >= pixels) break;
      const uint b = n / plane;
      // Element of output channel 0 of this pixel, and the step between channels.
      const uint e0 = nhwc_ ? n * out_c_ : b * out_c_ * plane + (n - b * plane);
      const uint step = nhwc_ ? 1u : plane;
      [[unroll]] for (uint c = 0u; c < V; ++c) {
        [[unroll]] for (uint j = 0u; j < 4u; ++j) {
          const uint m = 4u * (c0 + lane + S * c) + j;
          if (m >= group_out_c_) continue;
          const uint oc = group * group_out_c_ + m;
          const float v = has_bias_ ? acc[i][c][j] + bias[c][j] : acc[i][c][j];
          o[e0 + oc * step] = floatBitsToUint(v);
        }
      }
    }
  }
}
