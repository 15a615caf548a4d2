// The simd backend's linear-algebra family: matmul (§api-mlgraphbuilder-matmul), gemm
// (§api-mlgraphbuilder-gemm), linear (§api-mlgraphbuilder-linear), conv2d
// (§api-mlgraphbuilder-conv2d) and convTranspose2d (§api-mlgraphbuilder-convtranspose2d).
//
// Every product runs through the one GEMM core (gemm.h, gemm_hwy.cc): float32 operands (float16
// widened exactly) accumulated in float32 as hardware does, then any bias or c term added in
// double and the result rounded once to the output type. Where the terms cancel, the float32
// sums leave the per-size ULP tolerances (the corpus's cancellation and some random cases) and
// are judged by the sum bound (docs/numerics.md, "The sum bound"); an earlier double-accumulating
// core passed the ULP tolerances everywhere at half the SIMD width.
//  - matmul: one GEMM per output batch element (the batch dimensions broadcast, as step 4.13
//    computed them: broadcast operands are views with stride 0, nothing is copied); a batch that
//    shares b is one GEMM of batch * M rows.
//  - gemm: (alpha * A) x B with alpha * a rounded to float32, then + beta * C in double.
//  - linear: alpha * x + beta element-wise in double (alpha * x exact, no float32 overflow).
//  - conv2d: im2col, then a GEMM per batch and group, channel-major for nchw (and for nhwc groups
//    of fewer than 16 output channels, transposed into place): output[oc, y*x] = filter[oc, (c,
//    ky, kx)] x col[(c, ky, kx), y*x]; pixel-major for other nhwc: output[y*x, oc] = col[y*x, (ky,
//    kx, c)] x filter[(ky, kx, c), oc]. Padded positions are zeros in col (0 * an infinite filter
//    value gives NaN: the reference marks such elements "value or NaN").
//  - convTranspose2d: a GEMM per batch and group into col (every input pixel times every filter
//    tap), then each output element sums the col entries landing on it in ascending tap order
//    (col2im), plus the bias. outputPadding / outputSizes only enlarge the output shape the
//    builder computed; rows no tap reaches get the bias alone.
// Work splits over output blocks only (GEMM tiles, im2col rows, output planes or rows), so the
// results are bit-identical for any thread count.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "numerics/float16.h"
#include "ops/conv2d.h"
#include "ops/conv_transpose2d.h"
#include "ops/matmul_gemm.h"
#include "ops/simd/family.h"
#include "ops/simd/gemm.h"
#include "ops/simd/map.h"

namespace nnref::simd {

namespace {

// A float32 view of `t`: t itself when float32 (strides kept), else a contiguous float32 copy.
Tensor AsFloat32(const Tensor& t) {
  if (t.dtype() == DataType::kFloat32) return t;
  Tensor out = Tensor::Allocate(DataType::kFloat32, t.shape());
  const Tensor src = t.Contiguous();
  HalfToFloatRow(reinterpret_cast<const uint16_t*>(src.base<Float16>()), out.base<float>(),
                 static_cast<size_t>(src.element_count()));
  return out;
}

// A contiguous float32 copy of `t` (or t when it already is one).
Tensor ContiguousFloat32(const Tensor& t) {
  const Tensor f = AsFloat32(t);
  return f.IsContiguous() ? f : f.Contiguous();
}

// The double results of a kernel (contiguous, in the output's shape), rounded once to the output
// type by Finish().
// `overwritten`: the kernel writes every element before reading any (a GEMM's output), so the
// buffer is not zero-filled first.
class DoubleOutput {
 public:
  explicit DoubleOutput(const OperandDescriptor& desc, bool overwritten = false)
      : desc_(desc),
        n_(static_cast<size_t>(ElementCount(desc.shape))),
        acc_(overwritten ? new double[n_] : new double[n_]()) {}
  double* data() { return acc_.get(); }
  std::vector<OperandValue> Finish(const Config& config) const {
    Tensor out = Tensor::AllocateForOverwrite(desc_.dataType, desc_.shape);
    const size_t n = n_;
    const double* src = acc_.get();
    if (desc_.dataType == DataType::kFloat16) {
      Float16* dst = out.base<Float16>();
      config.pool->ParallelFor(n, 1 << 14, [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) dst[i] = Float16::FromDouble(src[i]);
      });
    } else {
      float* dst = out.base<float>();
      config.pool->ParallelFor(n, 1 << 14, [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) dst[i] = static_cast<float>(src[i]);
      });
    }
    std::vector<OperandValue> result;
    result.push_back(OperandValue{std::move(out), {}});
    return result;
  }

 private:
  OperandDescriptor desc_;
  size_t n_;
  std::unique_ptr<double[]> acc_;
};

// ---- matmul, gemm --------------------------------------------------------------------------

class MatmulKernel final : public Kernel {
 public:
  explicit MatmulKernel(Config config) : config_(std::move(config)) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Shape& shape = out[0].shape;
    const size_t rank = shape.size();
    const Shape batch(shape.begin(), shape.end() - 2);
    const Tensor a32 = AsFloat32(in[0]->data), b32 = AsFloat32(in[1]->data);
    Shape a_shape = batch, b_shape = batch;
    a_shape.insert(a_shape.end(), a32.shape().end() - 2, a32.shape().end());
    b_shape.insert(b_shape.end(), b32.shape().end() - 2, b32.shape().end());
    const Tensor a = a32.BroadcastTo(a_shape), b = b32.BroadcastTo(b_shape);
    const size_t m = static_cast<size_t>(shape[rank - 2]), n = static_cast<size_t>(shape[rank - 1]);
    const size_t k = static_cast<size_t>(a_shape[rank - 1]);
    DoubleOutput result(out[0], /*overwritten=*/true);
    const Strides out_strides = ContiguousStrides(shape);
    const Strides out_batch(out_strides.begin(), out_strides.end() - 2);
    const Strides a_batch(a.strides().begin(), a.strides().end() - 2);
    const Strides b_batch(b.strides().begin(), b.strides().end() - 2);
    // When b is the same matrix for every batch element and a's rows run evenly through the
    // batch dimensions (e.g. [B, M, K] x [K, N]), the batch is one product of B * M rows.
    bool fold = true;
    int64_t row_run = a.strides()[rank - 2] * static_cast<int64_t>(m);
    for (size_t d = rank - 2; d-- > 0;) {
      if (shape[d] == 1) continue;
      if (b.strides()[d] != 0 || a.strides()[d] != row_run) {
        fold = false;
        break;
      }
      row_run *= static_cast<int64_t>(shape[d]);
    }
    if (fold) {
      const GemmOperands problem{{a.base<float>(), a.strides()[rank - 2], a.strides()[rank - 1]},
                                 {b.base<float>(), b.strides()[rank - 2], b.strides()[rank - 1]},
                                 result.data(),
                                 static_cast<int64_t>(n)};
      Gemm(m * static_cast<size_t>(ElementCount(batch)), n, k, std::span(&problem, 1), 1.0,
           *config_.pool);
      return result.Finish(config_);
    }
    std::vector<GemmOperands> problems;
    ForEachOffsets<3>(
        batch, {&out_batch, &a_batch, &b_batch}, [&](const std::array<int64_t, 3>& off) {
          problems.push_back(
              {{a.base<float>() + off[1], a.strides()[rank - 2], a.strides()[rank - 1]},
               {b.base<float>() + off[2], b.strides()[rank - 2], b.strides()[rank - 1]},
               result.data() + off[0],
               static_cast<int64_t>(n)});
        });
    Gemm(m, n, k, problems, 1.0, *config_.pool);
    return result.Finish(config_);
  }

 private:
  Config config_;
};

class GemmKernel final : public Kernel {
 public:
  GemmKernel(const GemmAttributes& attributes, Config config)
      : alpha_(attributes.alpha),
        beta_(attributes.beta),
        a_transpose_(attributes.aTranspose),
        b_transpose_(attributes.bTranspose),
        config_(std::move(config)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Shape& shape = out[0].shape;  // [M, N]
    const size_t m = static_cast<size_t>(shape[0]), n = static_cast<size_t>(shape[1]);
    const Tensor a = AsFloat32(in[0]->data), b = AsFloat32(in[1]->data);
    const MatrixView av = View(a, a_transpose_), bv = View(b, b_transpose_);
    const size_t k = static_cast<size_t>(a.shape()[a_transpose_ ? 0 : 1]);
    DoubleOutput result(out[0], /*overwritten=*/true);
    const GemmOperands problem{av, bv, result.data(), static_cast<int64_t>(n)};
    Gemm(m, n, k, std::span(&problem, 1), alpha_, *config_.pool);
    if (in.size() > 2) {  // + beta * C (C broadcast to [M, N]); beta * c is exact in double
      const Tensor c = AsFloat32(in[2]->data).BroadcastTo(shape);
      const float* pc = c.base<float>();
      const int64_t rs = c.strides()[0], cs = c.strides()[1];
      const double beta = beta_;
      double* po = result.data();
      config_.pool->ParallelFor(m, std::max<size_t>(1, 4096 / n), [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) {
          double* row = po + i * n;
          const float* crow = pc + static_cast<int64_t>(i) * rs;
          for (size_t j = 0; j < n; ++j) {
            row[j] += beta * static_cast<double>(crow[static_cast<int64_t>(j) * cs]);
          }
        }
      });
    }
    return result.Finish(config_);
  }

 private:
  static MatrixView View(const Tensor& t, bool transpose) {
    const Strides& s = t.strides();
    return transpose ? MatrixView{t.base<float>(), s[1], s[0]}
                     : MatrixView{t.base<float>(), s[0], s[1]};
  }
  double alpha_, beta_;  // cast to a's data type by the builder
  bool a_transpose_, b_transpose_;
  Config config_;
};

class LinearKernel final : public Kernel {
 public:
  LinearKernel(const LinearAttributes& attributes, Config config)
      : alpha_(attributes.alpha), beta_(attributes.beta), config_(std::move(config)) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    // alpha * x is exact in double and cannot overflow there; the sum rounds once to double
    // before the rounding to the output type.
    const double alpha = alpha_, beta = beta_;
    OperandValue v;
    v.data =
        FloatMap<1>({&in[0]->data}, out[0], config_,
                    [alpha, beta](const auto& rows, const auto& steps, float* o, size_t n) {
                      const float* x = rows[0];
                      const size_t step = steps[0];
                      for (size_t i = 0; i < n; ++i) {
                        o[i] = static_cast<float>(alpha * static_cast<double>(x[i * step]) + beta);
                      }
                    });
    std::vector<OperandValue> result;
    result.push_back(std::move(v));
    return result;
  }

 private:
  double alpha_, beta_;  // cast to the input's data type by the builder
  Config config_;
};

// ---- conv2d --------------------------------------------------------------------------------

// Dimensions of a 4-D tensor read through image axes.
struct Image {
  int64_t batches, channels, height, width;
};
Image ImageOf(const Shape& s, const ImageAxes& ia) {
  return {static_cast<int64_t>(s[ia.batch]), static_cast<int64_t>(s[ia.channel]),
          static_cast<int64_t>(s[ia.height]), static_cast<int64_t>(s[ia.width])};
}

// Output positions o in [0, count) whose input position o * stride + offset lies in [0, size):
// [first, last).
void ValidRange(int64_t count, int64_t stride, int64_t offset, int64_t size, int64_t& first,
                int64_t& last) {
  // o * stride + offset >= 0  <=>  o >= ceil(-offset / stride)
  first = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  // o * stride + offset <= size - 1  <=>  o <= floor((size - 1 - offset) / stride)
  const int64_t top = size - 1 - offset;
  last = top < 0 ? 0 : std::min(count, top / stride + 1);
  first = std::min(first, last);
}

class Conv2dKernel final : public Kernel {
 public:
  // nhwc groups with fewer output channels than this are computed channel-major (see Compute).
  static constexpr int64_t kNarrow = 16;

  Conv2dKernel(const Conv2dAttributes& g, Config config) : g_(g), config_(std::move(config)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const ImageAxes& ia = g_.image;
    const bool nhwc = ia.channel == 3;
    const Tensor input = ContiguousFloat32(in[0]->data);  // in its own layout
    const Tensor filter = AsFloat32(in[1]->data);
    const Image x = ImageOf(input.shape(), ia), y = ImageOf(out[0].shape, ia);
    const Conv2dFilterAxes& fa = g_.filter;
    const Shape& fs = filter.shape();
    const int64_t kh = static_cast<int64_t>(fs[fa.height]), kw = static_cast<int64_t>(fs[fa.width]);
    const int64_t icg = static_cast<int64_t>(fs[fa.in]);
    const int64_t groups = g_.groups, ocg = y.channels / groups;
    const int64_t kg = icg * kh * kw;  // GEMM depth
    const int64_t spatial = y.height * y.width;

    // Two arrangements of the product per batch and group:
    //  - channel-major (nchw, and nhwc groups of fewer than kNarrow output channels, e.g.
    //    depthwise, whose pixel-major product would be too narrow for the micro-tile):
    //    out[oc][pixel] = filter[oc][(c, ky, kx)] x col[(c, ky, kx)][pixel]; for nhwc the
    //    result is transposed into place afterwards;
    //  - pixel-major (other nhwc): out[pixel][oc] = col[pixel][(ky, kx, c)] x
    //    filter[(ky, kx, c)][oc], written straight into the nhwc output.
    const bool channel_major = !nhwc || ocg < kNarrow;
    std::vector<float> w(static_cast<size_t>(y.channels * kg));
    {
      const Strides& st = filter.strides();
      const float* f = filter.base<float>();
      for (int64_t oc = 0; oc < y.channels; ++oc) {
        const int64_t grp = oc / ocg, o = oc % ocg;
        for (int64_t c = 0; c < icg; ++c) {
          for (int64_t ky = 0; ky < kh; ++ky) {
            for (int64_t kx = 0; kx < kw; ++kx) {
              const float v =
                  f[oc * st[fa.out] + c * st[fa.in] + ky * st[fa.height] + kx * st[fa.width]];
              const int64_t index = channel_major
                                        ? oc * kg + (c * kh + ky) * kw + kx
                                        : grp * kg * ocg + ((ky * kw + kx) * icg + c) * ocg + o;
              w[static_cast<size_t>(index)] = v;
            }
          }
        }
      }
    }

    DoubleOutput result(out[0], /*overwritten=*/true);
    // Pixel-major: the im2col matrix col, every element written (zeros in the padding), so not
    // zero-filled. Channel-major: no col; the GEMM packs its panels straight from the image
    // (PackIm2col), which saves writing and reading back a matrix kh * kw times the image.
    const std::unique_ptr<float[]> col(
        channel_major ? nullptr : new float[static_cast<size_t>(groups * kg * spatial)]);
    std::vector<double> transposed(nhwc && channel_major ? static_cast<size_t>(y.channels * spatial)
                                                         : 0);
    const float* xin = input.base<float>();
    const int64_t image = x.channels * x.height * x.width;
    // Element strides of the contiguous input image: channel, row, column.
    const int64_t cs = nhwc ? 1 : x.height * x.width, ys = nhwc ? x.width * x.channels : x.width,
                  xs = nhwc ? x.channels : 1;
    for (int64_t b = 0; b < x.batches; ++b) {
      std::vector<GemmOperands> problems;
      double* yb = result.data() + b * spatial * y.channels;
      if (channel_major) {
        double* dst = nhwc ? transposed.data() : yb;
        const float* xb = xin + b * image;
        std::vector<PackBFn> packers;
        packers.reserve(static_cast<size_t>(groups));
        for (int64_t grp = 0; grp < groups; ++grp) {
          packers.push_back([=, this](size_t p0, size_t kc, size_t col0, size_t cols, size_t nr,
                                      float* panels) {
            PackIm2col(xb, x, y, kh, kw, cs, ys, xs, grp * icg, p0, kc, col0, cols, nr, panels);
          });
        }
        for (int64_t grp = 0; grp < groups; ++grp) {
          problems.push_back({{w.data() + grp * ocg * kg, kg, 1},
                              {},
                              dst + grp * ocg * spatial,
                              spatial,
                              &packers[static_cast<size_t>(grp)]});
        }
        Gemm(static_cast<size_t>(ocg), static_cast<size_t>(spatial), static_cast<size_t>(kg),
             problems, 1.0, *config_.pool);
        if (nhwc) {
          const int64_t channels = y.channels;
          const double* t = transposed.data();
          config_.pool->ParallelFor(static_cast<size_t>(spatial), 64,
                                    [&](size_t begin, size_t end) {
                                      for (size_t px = begin; px < end; ++px) {
                                        double* row = yb + static_cast<int64_t>(px) * channels;
                                        for (int64_t c = 0; c < channels; ++c)
                                          row[c] = t[c * spatial + static_cast<int64_t>(px)];
                                      }
                                    });
        }
      } else {
        Im2colNhwc(xin + b * image, x, y, kh, kw, icg, groups, col.get());
        for (int64_t grp = 0; grp < groups; ++grp) {
          problems.push_back({{col.get() + grp * kg, groups * kg, 1},
                              {w.data() + grp * kg * ocg, ocg, 1},
                              yb + grp * ocg,
                              y.channels});
        }
        Gemm(static_cast<size_t>(spatial), static_cast<size_t>(ocg), static_cast<size_t>(kg),
             problems, 1.0, *config_.pool);
      }
    }
    if (in.size() > 2) AddBias(in[2]->data, nhwc, y, result.data(), config_);
    return result.Finish(config_);
  }

  // out (contiguous, layout nchw or nhwc) += bias[channel], in double before the one rounding.
  static void AddBias(const Tensor& bias_tensor, bool nhwc, const Image& y, double* out,
                      const Config& config) {
    const Tensor bias = ContiguousFloat32(bias_tensor);
    const float* pb = bias.base<float>();
    const int64_t spatial = y.height * y.width, channels = y.channels;
    if (nhwc) {
      config.pool->ParallelFor(static_cast<size_t>(y.batches * spatial), 64,
                               [&](size_t begin, size_t end) {
                                 for (size_t r = begin; r < end; ++r) {
                                   double* row = out + static_cast<int64_t>(r) * channels;
                                   for (int64_t c = 0; c < channels; ++c) {
                                     row[c] += static_cast<double>(pb[c]);
                                   }
                                 }
                               });
    } else {
      config.pool->ParallelFor(
          static_cast<size_t>(y.batches * channels), 1, [&](size_t begin, size_t end) {
            for (size_t p = begin; p < end; ++p) {
              double* plane = out + static_cast<int64_t>(p) * spatial;
              const double bv = static_cast<double>(pb[static_cast<int64_t>(p) % channels]);
              for (int64_t i = 0; i < spatial; ++i) plane[i] += bv;
            }
          });
    }
  }

 private:
  // The GEMM's B panels (gemm.h, PackBFn) of the channel-major im2col matrix of one group:
  // B[(c, ky, kx)][pixel] = x[c_base + c][oy * sh - pt + ky * dh][ox * sw - pl + kx * dw] (0 in
  // the padding), pixel = oy * ow + ox, for depth [p0, p0 + kc) and pixels [col0, col0 + cols);
  // x one contiguous image with element strides cs, ys, xs.
  void PackIm2col(const float* xin, const Image& x, const Image& y, int64_t kh, int64_t kw,
                  int64_t cs, int64_t ys, int64_t xs, int64_t c_base, size_t p0, size_t kc,
                  size_t col0, size_t cols, size_t nr, float* panels) const {
    const int64_t width = y.width;
    for (size_t p = 0; p < kc; ++p) {
      const int64_t ri = static_cast<int64_t>(p0 + p);
      const int64_t c = c_base + ri / (kh * kw), ky = ri / kw % kh, kx = ri % kw;
      const int64_t x_off = kx * g_.dilation_width - g_.pad_left;
      int64_t ox0, ox1;  // the output columns that read inside the image
      ValidRange(width, g_.stride_width, x_off, x.width, ox0, ox1);
      const float* channel = xin + c * cs;
      for (size_t j0 = 0; j0 < cols; j0 += nr) {
        float* d = panels + (j0 / nr) * kc * nr + p * nr;
        const int64_t q_begin = static_cast<int64_t>(col0 + j0);
        const int64_t q_end = q_begin + static_cast<int64_t>(std::min(nr, cols - j0));
        for (int64_t q = q_begin; q < q_end;) {  // one output row's run of pixels at a time
          const int64_t oy = q / width, ox_begin = q - oy * width;
          const int64_t run = std::min(q_end - q, width - ox_begin), ox_end = ox_begin + run;
          float* dq = d + (q - q_begin);
          const int64_t iy = oy * g_.stride_height - g_.pad_top + ky * g_.dilation_height;
          if (iy < 0 || iy >= x.height) {
            std::fill(dq, dq + run, 0.0f);
          } else {
            const int64_t lo = std::clamp(ox0, ox_begin, ox_end);
            const int64_t hi = std::clamp(ox1, lo, ox_end);
            std::fill(dq, dq + (lo - ox_begin), 0.0f);
            const float* src = channel + iy * ys + x_off * xs;
            const int64_t step = g_.stride_width * xs;
            if (step == 1) {  // a plain copy
              std::memcpy(dq + (lo - ox_begin), src + lo, static_cast<size_t>(hi - lo) * sizeof(float));
            } else {
              for (int64_t ox = lo; ox < hi; ++ox) dq[ox - ox_begin] = src[ox * step];
            }
            std::fill(dq + (hi - ox_begin), dq + run, 0.0f);
          }
          q += run;
        }
        std::fill(d + (q_end - q_begin), d + nr, 0.0f);
      }
    }
  }

  // col[oy * ow + ox][(group, ky, kx, c)] = x[oy * sh - pt + ky * dh][ox * sw - pl + kx * dw]
  // [group * icg + c] (0 in the padding), x one contiguous nhwc image.
  void Im2colNhwc(const float* xin, const Image& x, const Image& y, int64_t kh, int64_t kw,
                  int64_t icg, int64_t groups, float* col) const {
    const int64_t kg = icg * kh * kw, row_len = groups * kg;
    config_.pool->ParallelFor(
        static_cast<size_t>(y.height * y.width), 16, [&](size_t begin, size_t end) {
          for (size_t r = begin; r < end; ++r) {
            const int64_t oy = static_cast<int64_t>(r) / y.width,
                          ox = static_cast<int64_t>(r) % y.width;
            float* dst = col + static_cast<int64_t>(r) * row_len;
            for (int64_t ky = 0; ky < kh; ++ky) {
              const int64_t iy = oy * g_.stride_height - g_.pad_top + ky * g_.dilation_height;
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t ix = ox * g_.stride_width - g_.pad_left + kx * g_.dilation_width;
                const bool inside = iy >= 0 && iy < x.height && ix >= 0 && ix < x.width;
                for (int64_t grp = 0; grp < groups; ++grp) {
                  float* d = dst + grp * kg + (ky * kw + kx) * icg;
                  if (inside) {
                    std::memcpy(d, xin + (iy * x.width + ix) * x.channels + grp * icg,
                                static_cast<size_t>(icg) * sizeof(float));
                  } else {
                    std::fill(d, d + icg, 0.0f);
                  }
                }
              }
            }
          }
        });
  }

  Conv2dAttributes g_;
  Config config_;
};

// ---- convTranspose2d ----------------------------------------------------------------------

class ConvTranspose2dKernel final : public Kernel {
 public:
  ConvTranspose2dKernel(const ConvTranspose2dAttributes& g, Config config)
      : g_(g), config_(std::move(config)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const ImageAxes& ia = g_.image;
    const bool nhwc = ia.channel == 3;
    const Tensor input = ContiguousFloat32(in[0]->data);
    const Tensor filter = AsFloat32(in[1]->data);
    const Image x = ImageOf(input.shape(), ia), y = ImageOf(out[0].shape, ia);
    const ConvTranspose2dFilterAxes& fa = g_.filter;
    const Shape& fs = filter.shape();
    const int64_t kh = static_cast<int64_t>(fs[fa.height]), kw = static_cast<int64_t>(fs[fa.width]);
    const int64_t ocg = static_cast<int64_t>(fs[fa.out]);
    const int64_t groups = g_.groups, icg = x.channels / groups;
    const int64_t taps = ocg * kh * kw;  // GEMM width (nhwc) or height (nchw) per group
    const int64_t in_spatial = x.height * x.width;

    // The filter per group: nchw: [(oc, ky, kx)][c] (A); nhwc: [c][(ky, kx, oc)] (B).
    std::vector<float> w(static_cast<size_t>(groups * icg * taps));
    {
      const Strides& st = filter.strides();
      const float* f = filter.base<float>();
      for (int64_t ic = 0; ic < x.channels; ++ic) {
        const int64_t grp = ic / icg, c = ic % icg;
        for (int64_t o = 0; o < ocg; ++o) {
          for (int64_t ky = 0; ky < kh; ++ky) {
            for (int64_t kx = 0; kx < kw; ++kx) {
              const float v =
                  f[ic * st[fa.in] + o * st[fa.out] + ky * st[fa.height] + kx * st[fa.width]];
              const int64_t index = nhwc ? (grp * icg + c) * taps + (ky * kw + kx) * ocg + o
                                         : (grp * taps + (o * kh + ky) * kw + kx) * icg + c;
              w[static_cast<size_t>(index)] = v;
            }
          }
        }
      }
    }

    DoubleOutput result(out[0]);
    // col per group: nchw [(oc, ky, kx)][iy * iw + ix]; nhwc [iy * iw + ix][(ky, kx, oc)].
    std::vector<double> col(static_cast<size_t>(groups * taps * in_spatial));
    const float* xin = input.base<float>();
    for (int64_t b = 0; b < x.batches; ++b) {
      const float* xb = xin + b * in_spatial * x.channels;
      std::vector<GemmOperands> problems;
      for (int64_t grp = 0; grp < groups; ++grp) {
        double* cg = col.data() + grp * taps * in_spatial;
        if (nhwc) {
          problems.push_back(
              {{xb + grp * icg, x.channels, 1}, {w.data() + grp * icg * taps, taps, 1}, cg, taps});
        } else {
          problems.push_back({{w.data() + grp * taps * icg, icg, 1},
                              {xb + grp * icg * in_spatial, in_spatial, 1},
                              cg,
                              in_spatial});
        }
      }
      if (nhwc) {
        Gemm(static_cast<size_t>(in_spatial), static_cast<size_t>(taps), static_cast<size_t>(icg),
             problems, 1.0, *config_.pool);
      } else {
        Gemm(static_cast<size_t>(taps), static_cast<size_t>(in_spatial), static_cast<size_t>(icg),
             problems, 1.0, *config_.pool);
      }
      double* yb = result.data() + b * y.height * y.width * y.channels;
      if (nhwc) {
        Col2imNhwc(col.data(), x, y, kh, kw, ocg, yb);
      } else {
        Col2imNchw(col.data(), x, y, kh, kw, ocg, yb);
      }
    }
    if (in.size() > 2) Conv2dKernel::AddBias(in[2]->data, nhwc, y, result.data(), config_);
    return result.Finish(config_);
  }

 private:
  // The input row (or column) feeding output row oy through tap ky: oy = iy * s + ky * d - pad,
  // or -1 when none does.
  static int64_t Source(int64_t o, int64_t k, int64_t stride, int64_t dilation, int64_t pad,
                        int64_t size) {
    const int64_t scaled = o + pad - k * dilation;
    if (scaled < 0 || scaled % stride != 0) return -1;
    const int64_t i = scaled / stride;
    return i < size ? i : -1;
  }

  void Col2imNchw(const double* col, const Image& x, const Image& y, int64_t kh, int64_t kw,
                  int64_t ocg, double* out) const {
    const int64_t in_spatial = x.height * x.width;
    config_.pool->ParallelFor(static_cast<size_t>(y.channels), 1, [&](size_t begin, size_t end) {
      for (size_t oc = begin; oc < end; ++oc) {
        const int64_t grp = static_cast<int64_t>(oc) / ocg, o = static_cast<int64_t>(oc) % ocg;
        const double* cg = col + (grp * ocg + o) * kh * kw * in_spatial;  // rows (o, ky, kx)
        double* plane = out + static_cast<int64_t>(oc) * y.height * y.width;
        for (int64_t oy = 0; oy < y.height; ++oy) {
          double* row = plane + oy * y.width;
          std::fill(row, row + y.width, 0.0);
          for (int64_t ky = 0; ky < kh; ++ky) {
            const int64_t iy =
                Source(oy, ky, g_.stride_height, g_.dilation_height, g_.pad_top, x.height);
            if (iy < 0) continue;
            for (int64_t kx = 0; kx < kw; ++kx) {
              const double* src = cg + (ky * kw + kx) * in_spatial + iy * x.width;
              // Input column ix lands on ox = ix * sw + off; one term per output element per
              // tap, so the terms still arrive in ascending (ky, kx) order.
              const int64_t off = kx * g_.dilation_width - g_.pad_left;
              int64_t ix0, ix1;
              ValidRange(x.width, g_.stride_width, off, y.width, ix0, ix1);
              for (int64_t ix = ix0; ix < ix1; ++ix) row[ix * g_.stride_width + off] += src[ix];
            }
          }
        }
      }
    });
  }

  void Col2imNhwc(const double* col, const Image& x, const Image& y, int64_t kh, int64_t kw,
                  int64_t ocg, double* out) const {
    const int64_t in_spatial = x.height * x.width, taps = ocg * kh * kw;
    const int64_t groups = y.channels / ocg;
    config_.pool->ParallelFor(static_cast<size_t>(y.height), 1, [&](size_t begin, size_t end) {
      for (size_t r = begin; r < end; ++r) {
        const int64_t oy = static_cast<int64_t>(r);
        double* row = out + oy * y.width * y.channels;
        std::fill(row, row + y.width * y.channels, 0.0);
        for (int64_t ky = 0; ky < kh; ++ky) {
          const int64_t iy =
              Source(oy, ky, g_.stride_height, g_.dilation_height, g_.pad_top, x.height);
          if (iy < 0) continue;
          for (int64_t ox = 0; ox < y.width; ++ox) {
            double* pixel = row + ox * y.channels;
            for (int64_t kx = 0; kx < kw; ++kx) {
              const int64_t ix =
                  Source(ox, kx, g_.stride_width, g_.dilation_width, g_.pad_left, x.width);
              if (ix < 0) continue;
              for (int64_t grp = 0; grp < groups; ++grp) {
                const double* src = col + grp * taps * in_spatial + (iy * x.width + ix) * taps +
                                    (ky * kw + kx) * ocg;
                double* dst = pixel + grp * ocg;
                for (int64_t o = 0; o < ocg; ++o) dst[o] += src[o];
              }
            }
          }
        }
      }
    });
  }

  ConvTranspose2dAttributes g_;
  Config config_;
};

// ---- the family ----------------------------------------------------------------------------

bool IsLinearAlgebra(OpId op) {
  return op == OpId::matmul || op == OpId::gemm || op == OpId::linear || op == OpId::conv2d ||
         op == OpId::convTranspose2d;
}

std::optional<std::string> Unsupported(OpId op, DataType type) {
  if (!IsLinearAlgebra(op)) return std::nullopt;
  if (!IsFloat(type)) return std::string(DataTypeName(type)) + " not supported";
  return std::string();
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index, const Config& config,
                                   std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  switch (node.op) {
    case OpId::matmul:
      return std::make_shared<MatmulKernel>(config);
    case OpId::gemm:
      if (const auto* a = node.Attributes<GemmAttributes>()) {
        return std::make_shared<GemmKernel>(*a, config);
      }
      break;
    case OpId::linear:
      if (const auto* a = node.Attributes<LinearAttributes>()) {
        return std::make_shared<LinearKernel>(*a, config);
      }
      break;
    case OpId::conv2d:
      if (const auto* a = node.Attributes<Conv2dAttributes>()) {
        return std::make_shared<Conv2dKernel>(*a, config);
      }
      break;
    case OpId::convTranspose2d:
      if (const auto* a = node.Attributes<ConvTranspose2dAttributes>()) {
        return std::make_shared<ConvTranspose2dKernel>(*a, config);
      }
      break;
    default:
      break;
  }
  why = "no attributes";
  return nullptr;
}

}  // namespace

const Family kLinearAlgebraFamily = {Unsupported, Make};

}  // namespace nnref::simd
