// The simd backend's convTranspose2d (§api-mlgraphbuilder-convtranspose2d), as in the reference's
// ops/conv_transpose2d.cc: a GEMM (gemm.h) per batch and group into col (every input pixel times
// every filter tap), then each output element sums the col entries landing on it in ascending tap
// order (col2im), plus the bias. outputPadding / outputSizes only enlarge the output shape the
// builder computed; rows no tap reaches get the bias alone. Work splits over output planes or
// rows only, so the results are bit-identical for any thread count.
#include "ops/conv_transpose2d.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "ops/simd/gemm.h"
#include "ops/simd/products.h"

namespace nnref::simd {

namespace {

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
    std::vector<float> col(static_cast<size_t>(groups * taps * in_spatial));
    const float* xin = input.base<float>();
    for (int64_t b = 0; b < x.batches; ++b) {
      const float* xb = xin + b * in_spatial * x.channels;
      std::vector<GemmOperands> problems;
      for (int64_t grp = 0; grp < groups; ++grp) {
        float* cg = col.data() + grp * taps * in_spatial;
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
    if (in.size() > 2) AddBias(in[2]->data, nhwc, y, result.data(), config_);
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

  void Col2imNchw(const float* col, const Image& x, const Image& y, int64_t kh, int64_t kw,
                  int64_t ocg, double* out) const {
    const int64_t in_spatial = x.height * x.width;
    config_.pool->ParallelFor(static_cast<size_t>(y.channels), 1, [&](size_t begin, size_t end) {
      for (size_t oc = begin; oc < end; ++oc) {
        const int64_t grp = static_cast<int64_t>(oc) / ocg, o = static_cast<int64_t>(oc) % ocg;
        const float* cg = col + (grp * ocg + o) * kh * kw * in_spatial;  // rows (o, ky, kx)
        double* plane = out + static_cast<int64_t>(oc) * y.height * y.width;
        for (int64_t oy = 0; oy < y.height; ++oy) {
          double* row = plane + oy * y.width;
          std::fill(row, row + y.width, 0.0);
          for (int64_t ky = 0; ky < kh; ++ky) {
            const int64_t iy =
                Source(oy, ky, g_.stride_height, g_.dilation_height, g_.pad_top, x.height);
            if (iy < 0) continue;
            for (int64_t kx = 0; kx < kw; ++kx) {
              const float* src = cg + (ky * kw + kx) * in_spatial + iy * x.width;
              // Input column ix lands on ox = ix * sw + off; one term per output element per
              // tap, so the terms still arrive in ascending (ky, kx) order.
              const int64_t off = kx * g_.dilation_width - g_.pad_left;
              int64_t ix0, ix1;
              ValidRange(x.width, g_.stride_width, off, y.width, ix0, ix1);
              for (int64_t ix = ix0; ix < ix1; ++ix) {
                row[ix * g_.stride_width + off] += static_cast<double>(src[ix]);
              }
            }
          }
        }
      }
    });
  }

  void Col2imNhwc(const float* col, const Image& x, const Image& y, int64_t kh, int64_t kw,
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
                const float* src = col + grp * taps * in_spatial + (iy * x.width + ix) * taps +
                                    (ky * kw + kx) * ocg;
                double* dst = pixel + grp * ocg;
                for (int64_t o = 0; o < ocg; ++o) dst[o] += static_cast<double>(src[o]);
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

std::optional<std::string> Unsupported(OpId op, DataType type) {
  if (!(op == OpId::convTranspose2d)) return std::nullopt;
  if (!IsFloat(type)) return std::string(DataTypeName(type)) + " not supported";
  return std::string();
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index, const Config& config,
                                   std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  switch (node.op) {
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

const Family kConvTranspose2dFamily = {Unsupported, Make};

}  // namespace nnref::simd
