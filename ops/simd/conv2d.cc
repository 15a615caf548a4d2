// The simd backend's conv2d (§api-mlgraphbuilder-conv2d), as in the reference's ops/conv2d.cc:
// im2col, then a GEMM (gemm.h, float32 accumulation as in matmul_gemm.cc) per batch and group,
// channel-major for nchw (and for nhwc groups of fewer than 16 output channels, transposed into
// place): output[oc, y*x] = filter[oc, (c, ky, kx)] x col[(c, ky, kx), y*x]; pixel-major for other
// nhwc: output[y*x, oc] = col[y*x, (ky, kx, c)] x filter[(ky, kx, c), oc]. Padded positions are
// zeros in col (0 * an infinite filter value gives NaN: the reference marks such elements "value
// or NaN"). The bias is added in double and the result rounded once. Work splits over output
// blocks only (GEMM tiles, im2col rows), so the results are bit-identical for any thread count.
#include "ops/conv2d.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "ops/simd/gemm.h"
#include "ops/simd/products.h"

namespace nnref::simd {

namespace {

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
          packers.push_back(
              [=, this](size_t p0, size_t kc, size_t col0, size_t cols, size_t nr, float* panels) {
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
              std::memcpy(dq + (lo - ox_begin), src + lo,
                          static_cast<size_t>(hi - lo) * sizeof(float));
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

// ---- the family ----------------------------------------------------------------------------

std::optional<std::string> Unsupported(OpId op, DataType type) {
  if (!(op == OpId::conv2d)) return std::nullopt;
  if (!IsFloat(type)) return std::string(DataTypeName(type)) + " not supported";
  return std::string();
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index, const Config& config,
                                   std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  switch (node.op) {
    case OpId::conv2d:
      if (const auto* a = node.Attributes<Conv2dAttributes>()) {
        return std::make_shared<Conv2dKernel>(*a, config);
      }
      break;
    default:
      break;
  }
  why = "no attributes";
  return nullptr;
}

}  // namespace

const Family kConv2dFamily = {Unsupported, Make};

}  // namespace nnref::simd
