// The simd backend's conv2d (§api-mlgraphbuilder-conv2d), as in the reference's ops/conv2d.cc:
// GEMMs on the one core (gemm.h, float32 accumulation as in matmul_gemm.cc) per batch and group.
//  - nchw, stride 1 (any kernel size, dilation, padding, groups): the image is padded once and
//    the product output[oc][pixel] = filter[oc][(c, ky, kx)] x padded[(c, ky, kx)][pixel] reads
//    B in place (IndirectB: one contiguous run per depth step): when the output is as wide as the
//    image ("same" padding), over the output pixels themselves, the image padded with zero rows
//    only and the window's columns outside the image masked to +0 by the GEMM (zero taps);
//    otherwise over a grid of the padded width whose extra columns are dropped, or (small
//    images) over kw shifted copies; 1x1 is a plain GEMM over the channels;
//  - other nchw, and nhwc groups of fewer than 16 output channels (transposed into place):
//    channel-major, output[oc, y*x] = filter[oc, (c, ky, kx)] x col[(c, ky, kx), y*x] with the
//    GEMM's B panels packed straight from the image;
//  - other nhwc: pixel-major, output[y*x, oc] = col[y*x, (ky, kx, c)] x filter[(ky, kx, c), oc].
// A constant filter is arranged and packed into the core's panels once, when the graph is
// compiled. Padded positions are zeros (0 * an infinite filter value gives NaN: the reference
// marks such elements "value or NaN"); every path sums the same terms in the same order, so they
// agree bit for bit. The bias is added in double and the result rounded once. Work splits over
// output blocks only (GEMM tiles, image rows), so the results are bit-identical for any thread
// count.
#include "ops/conv2d.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "ops/simd/gemm.h"
#include "ops/simd/products.h"

namespace nnref::simd {

namespace {

// The filter as the products read it: w[oc][(c, ky, kx)] (channel-major) or per group
// w[(ky, kx, c)][o] (pixel-major), and, for a constant filter, its panels per group packed once
// (gemm.h, PackedOperand: the A operand channel-major, the B operand pixel-major).
struct Filter {
  std::vector<float> w;
  std::vector<PackedOperand> panels;  // empty: not packed
};

class Conv2dKernel final : public Kernel {
 public:
  // nhwc groups with fewer output channels than this are computed channel-major (see Compute).
  static constexpr int64_t kNarrow = 16;

  Conv2dKernel(const Conv2dAttributes& g, Config config, const Tensor& constant_filter)
      : g_(g), config_(std::move(config)) {
    if (constant_filter.valid() && constant_filter.element_count() > 0) {
      filter_source_ = constant_filter;
      filter_ = std::make_shared<const Filter>(Arrange(AsFloat32(constant_filter), true));
    }
  }

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const ImageAxes& ia = g_.image;
    const bool nhwc = ia.channel == 3;
    const Tensor input = ContiguousFloat32(in[0]->data);  // in its own layout
    const Image x = ImageOf(input.shape(), ia), y = ImageOf(out[0].shape, ia);
    const Conv2dFilterAxes& fa = g_.filter;
    const Shape& fs = in[1]->data.shape();
    const int64_t kh = static_cast<int64_t>(fs[fa.height]), kw = static_cast<int64_t>(fs[fa.width]);
    const int64_t icg = static_cast<int64_t>(fs[fa.in]);
    const int64_t groups = g_.groups, ocg = y.channels / groups;
    const int64_t kg = icg * kh * kw;  // GEMM depth
    const int64_t spatial = y.height * y.width;

    // The filter: packed when the graph was compiled, or arranged now.
    Filter local;
    const Filter* f = filter_.get();
    if (f == nullptr || !SameView(in[1]->data, filter_source_)) {
      local = Arrange(AsFloat32(in[1]->data), false);
      f = &local;
    }
    const auto panels = [&](int64_t grp) {
      return f->panels.empty() ? nullptr : &f->panels[static_cast<size_t>(grp)];
    };

    GemmOutput result(out[0]);
    const float* xin = input.base<float>();
    const int64_t image = x.channels * x.height * x.width;
    if (!nhwc && g_.stride_height == 1 && g_.stride_width == 1) {
      // Stride 1, nchw: B read in place (IndirectB), one contiguous run per depth step
      // (c, ky, kx), from one of two arrangements made once per call:
      //  - the padded image: output pixel (oy, ox) reads padded[c][oy + ky * dh][ox + kx * dw],
      //    a run over a grid of rows of the padded width (or less: `stride`) whose extra
      //    columns are computed and dropped;
      //  - kw shifted copies (`shifted`): copy kx holds padded[c][r][ox + kx * dw] for ox < ow,
      //    rows of the output width, so the run is the output pixels themselves and nothing is
      //    computed twice, for kw times the padded image's memory. Chosen when the grid would
      //    compute a tenth more columns (small images: 8 x 8 with a 3 x 3 window is a grid of
      //    78 columns, 80 computed in vectors of 16, against 64).
      // No im2col matrix, no B packing.
      const int64_t hp = y.height + (kh - 1) * g_.dilation_height;
      const int64_t wp = y.width + (kw - 1) * g_.dilation_width;
      // The padded image's row stride: rows may overlap by padding columns, the right padding
      // of a row being the left padding of the next (zeros either way). Stride s works when
      // every column from s on is right padding (s >= pl + iw), every column of the next row
      // it aliases is left padding (wp - s <= pl), and the output rows do not overlap (s >= ow):
      // 56 x 56 with padding 1 is a grid of rows of 57, one extra column per row instead of 2.
      const int64_t pl = g_.pad_left;
      // Zero taps (`masked`), when the output is as wide as the image ("same" padding, pl + pr =
      // (kw - 1) * dw) and the window more than one column: the image with only its rows padded
      // (zero rows above and below each channel, rows of the image's width), read as the output
      // pixels themselves, the window's columns that fall left or right of the image masked to
      // +0 by the GEMM (IndirectB's zero taps): no padding columns, nothing computed twice, one
      // copy of the image (56 x 56 with padding 1: 3136 columns instead of the grid's 3191, and
      // no crop of the grid's extra columns).
      const bool masked = y.width == x.width && kw > 1 && kw < 256;
      const int64_t stride = std::max({pl + x.width, wp - pl, y.width});
      const auto unit = static_cast<int64_t>(GemmColumnUnit()) / 2;  // one vector
      const int64_t grid_padded = (y.height - 1) * stride + y.width;
      const bool shifted =
          !masked && stride != y.width &&
          10 * ((grid_padded + unit - 1) / unit) > 11 * ((spatial + unit - 1) / unit);
      // row stride of the arrangement
      const int64_t row = masked ? x.width : shifted ? y.width : stride;
      const int64_t plane = hp * row;
      const int64_t copy = x.channels * plane;  // one arrangement of the whole image
      const int64_t grid = shifted || masked ? spatial : grid_padded;  // GEMM columns
      // Masked: reads start up to pl floats before the first plane (masked lanes).
      const int64_t lead = masked ? (pl + 15) / 16 * 16 : 0;
      std::vector<int64_t> offsets(static_cast<size_t>(kg));
      std::vector<uint8_t> taps(masked ? static_cast<size_t>(kg) : 0);
      std::vector<int64_t> shifts;
      for (int64_t kx = 0; masked && kx < kw; ++kx) shifts.push_back(kx * g_.dilation_width - pl);
      for (int64_t c = 0; c < icg; ++c) {
        for (int64_t ky = 0; ky < kh; ++ky) {
          for (int64_t kx = 0; kx < kw; ++kx) {
            const auto p = static_cast<size_t>((c * kh + ky) * kw + kx);
            if (masked) {
              offsets[p] = c * plane + ky * g_.dilation_height * row + kx * g_.dilation_width - pl;
              taps[p] = static_cast<uint8_t>(kx);
            } else {
              offsets[p] = shifted
                               ? kx * copy + c * plane + ky * g_.dilation_height * row
                               : c * plane + ky * g_.dilation_height * row + kx * g_.dilation_width;
            }
          }
        }
      }
      // Scratch buffers kept by the thread across calls (fresh ones cost page faults each call).
      thread_local std::vector<float> padded_buffer;
      thread_local PanelVector grid_buffer;
      const int64_t copies = shifted ? kw : 1;
      // (the last row of the last channel reads wp - stride columns beyond the plane; masked, pr)
      const size_t padded_size =
          static_cast<size_t>(lead + copies * copy + (masked ? wp - row - pl : wp - row)) +
          kGemmIndirectSlack;
      if (padded_buffer.size() < padded_size) padded_buffer.resize(padded_size);
      float* const padded = padded_buffer.data() + lead;
      std::fill(padded_buffer.data(), padded, 0.0f);
      std::fill(padded + copies * copy, padded_buffer.data() + padded_size, 0.0f);
      // The products' rows: the output planes themselves when the grid has no extra columns.
      const bool direct = grid == spatial;
      // Grid rows start on a cache line (64 bytes), so that the tiles of two threads, whole
      // panels of columns, never write to the same line.
      const int64_t grid_ld = (grid + 15) / 16 * 16;
      if (!direct && grid_buffer.size() < static_cast<size_t>(y.channels * grid_ld)) {
        grid_buffer.resize(static_cast<size_t>(y.channels * grid_ld));
      }
      float* const grid_out = grid_buffer.data();
      std::vector<IndirectB> bs(static_cast<size_t>(groups));
      for (int64_t b = 0; b < x.batches; ++b) {
        if (shifted) {
          Shift(xin + b * image, x, hp, y.width, kw, padded);
        } else if (masked) {
          PadPlanes(xin + b * image, x, hp, padded);
        } else {
          Pad(xin + b * image, x, hp, stride, padded);
        }
        float* yb = result.data() + b * spatial * y.channels;
        float* dst = direct ? yb : grid_out;
        const int64_t ld = direct ? spatial : grid_ld;
        std::vector<GemmOperands> problems;
        // The grid's extra columns are dropped as each tile is done (in cache, on its thread):
        // grid column q of a group's product is output pixel (q / row, q % row) when q % row < ow.
        std::vector<TileFn> crops;
        crops.reserve(static_cast<size_t>(groups));
        for (int64_t grp = 0; grp < groups; ++grp) {
          crops.push_back([=, &y](size_t row0, size_t rows, size_t col0, size_t cols) {
            const auto q0 = static_cast<int64_t>(col0), q1 = static_cast<int64_t>(col0 + cols);
            for (size_t r = row0; r < row0 + rows; ++r) {
              const int64_t oc = grp * ocg + static_cast<int64_t>(r);
              const float* src = grid_out + oc * grid_ld;
              float* o = yb + oc * spatial;
              for (int64_t oy = q0 / row; oy * row < q1 && oy < y.height; ++oy) {
                const int64_t lo = std::max(q0, oy * row), hi = std::min(q1, oy * row + y.width);
                if (lo < hi) std::copy(src + lo, src + hi, o + oy * y.width + (lo - oy * row));
              }
            }
          });
        }
        for (int64_t grp = 0; grp < groups; ++grp) {
          bs[static_cast<size_t>(grp)] = {padded + grp * icg * plane, offsets.data()};
          if (masked) {
            bs[static_cast<size_t>(grp)].width = x.width;
            bs[static_cast<size_t>(grp)].taps = taps.data();
            bs[static_cast<size_t>(grp)].shifts = shifts.data();
            bs[static_cast<size_t>(grp)].classes = shifts.size();
          }
          problems.push_back({{f->w.data() + grp * ocg * kg, kg, 1},
                              {},
                              dst + grp * ocg * ld,
                              ld,
                              nullptr,
                              panels(grp),
                              nullptr,
                              &bs[static_cast<size_t>(grp)],
                              direct ? nullptr : &crops[static_cast<size_t>(grp)]});
        }
        Gemm(static_cast<size_t>(ocg), static_cast<size_t>(grid), static_cast<size_t>(kg), problems,
             1.0, *config_.pool);
      }
      return FinishBias(in, nhwc, y, result);
    }

    // Two arrangements of the product per batch and group:
    //  - channel-major (nchw, and nhwc groups of fewer than kNarrow output channels, e.g.
    //    depthwise, whose pixel-major product would be too narrow for the micro-tile):
    //    out[oc][pixel] = filter[oc][(c, ky, kx)] x col[(c, ky, kx)][pixel]; for nhwc the
    //    result is transposed into place afterwards;
    //  - pixel-major (other nhwc): out[pixel][oc] = col[pixel][(ky, kx, c)] x
    //    filter[(ky, kx, c)][oc], written straight into the nhwc output.
    const bool channel_major = ChannelMajor(ocg);
    // Pixel-major: the im2col matrix col, every element written (zeros in the padding), so not
    // zero-filled. Channel-major: no col; the GEMM packs its panels straight from the image
    // (PackIm2col), which saves writing and reading back a matrix kh * kw times the image.
    const std::unique_ptr<float[]> col(
        channel_major ? nullptr : new float[static_cast<size_t>(groups * kg * spatial)]);
    std::vector<float> transposed(nhwc && channel_major ? static_cast<size_t>(y.channels * spatial)
                                                        : 0);
    // Element strides of the contiguous input image: channel, row, column.
    const int64_t cs = nhwc ? 1 : x.height * x.width, ys = nhwc ? x.width * x.channels : x.width,
                  xs = nhwc ? x.channels : 1;
    for (int64_t b = 0; b < x.batches; ++b) {
      std::vector<GemmOperands> problems;
      float* yb = result.data() + b * spatial * y.channels;
      if (channel_major) {
        float* dst = nhwc ? transposed.data() : yb;
        const float* xb = xin + b * image;
        std::vector<PackBFn> packers;
        packers.reserve(static_cast<size_t>(groups));
        for (int64_t grp = 0; grp < groups; ++grp) {
          packers.push_back(
              [=, this](size_t p0, size_t kc, size_t col0, size_t cols, size_t nr, float* block) {
                PackIm2col(xb, x, y, kh, kw, cs, ys, xs, grp * icg, p0, kc, col0, cols, nr, block);
              });
        }
        for (int64_t grp = 0; grp < groups; ++grp) {
          problems.push_back({{f->w.data() + grp * ocg * kg, kg, 1},
                              {},
                              dst + grp * ocg * spatial,
                              spatial,
                              &packers[static_cast<size_t>(grp)],
                              panels(grp)});
        }
        Gemm(static_cast<size_t>(ocg), static_cast<size_t>(spatial), static_cast<size_t>(kg),
             problems, 1.0, *config_.pool);
        if (nhwc) {
          const int64_t channels = y.channels;
          const float* t = transposed.data();
          config_.pool->ParallelFor(static_cast<size_t>(spatial), 64,
                                    [&](size_t begin, size_t end) {
                                      for (size_t px = begin; px < end; ++px) {
                                        float* row = yb + static_cast<int64_t>(px) * channels;
                                        for (int64_t c = 0; c < channels; ++c)
                                          row[c] = t[c * spatial + static_cast<int64_t>(px)];
                                      }
                                    });
        }
      } else {
        Im2colNhwc(xin + b * image, x, y, kh, kw, icg, groups, col.get());
        for (int64_t grp = 0; grp < groups; ++grp) {
          problems.push_back({{col.get() + grp * kg, groups * kg, 1},
                              {f->w.data() + grp * kg * ocg, ocg, 1},
                              yb + grp * ocg,
                              y.channels,
                              nullptr,
                              nullptr,
                              panels(grp)});
        }
        Gemm(static_cast<size_t>(spatial), static_cast<size_t>(ocg), static_cast<size_t>(kg),
             problems, 1.0, *config_.pool);
      }
    }
    return FinishBias(in, nhwc, y, result);
  }

 private:
  bool ChannelMajor(int64_t ocg) const { return g_.image.channel != 3 || ocg < kNarrow; }

  // The filter in the arrangement of the products, packed for the GEMM core when `pack`.
  Filter Arrange(const Tensor& filter, bool pack) const {
    const Conv2dFilterAxes& fa = g_.filter;
    const Shape& fs = filter.shape();
    const int64_t kh = static_cast<int64_t>(fs[fa.height]), kw = static_cast<int64_t>(fs[fa.width]);
    const int64_t icg = static_cast<int64_t>(fs[fa.in]);
    const int64_t channels = static_cast<int64_t>(fs[fa.out]);
    const int64_t groups = g_.groups, ocg = channels / groups, kg = icg * kh * kw;
    const bool channel_major = ChannelMajor(ocg);
    Filter f;
    f.w.resize(static_cast<size_t>(channels * kg));
    const Strides& st = filter.strides();
    const float* src = filter.base<float>();
    for (int64_t oc = 0; oc < channels; ++oc) {
      const int64_t grp = oc / ocg, o = oc % ocg;
      for (int64_t c = 0; c < icg; ++c) {
        for (int64_t ky = 0; ky < kh; ++ky) {
          for (int64_t kx = 0; kx < kw; ++kx) {
            const float v =
                src[oc * st[fa.out] + c * st[fa.in] + ky * st[fa.height] + kx * st[fa.width]];
            const int64_t index = channel_major
                                      ? oc * kg + (c * kh + ky) * kw + kx
                                      : grp * kg * ocg + ((ky * kw + kx) * icg + c) * ocg + o;
            f.w[static_cast<size_t>(index)] = v;
          }
        }
      }
    }
    if (pack) {
      for (int64_t grp = 0; grp < groups; ++grp) {
        if (channel_major) {
          f.panels.push_back(PackGemmA({f.w.data() + grp * ocg * kg, kg, 1},
                                       static_cast<size_t>(ocg), static_cast<size_t>(kg), 1.0));
        } else {
          f.panels.push_back(PackGemmB({f.w.data() + grp * kg * ocg, ocg, 1},
                                       static_cast<size_t>(kg), static_cast<size_t>(ocg)));
        }
      }
    }
    return f;
  }

  // One channel's hp rows of `width` floats, `width` apart, at dst: row r holds image row r - pt
  // (zeros above and below the image), its columns [c0, c1) from the image row's columns
  // [from, from + c1 - c0), zeros elsewhere (Pad and Shift).
  static void PadRows(const float* src, const Image& x, int64_t pt, int64_t hp, int64_t width,
                      int64_t from, int64_t c0, int64_t c1, float* dst) {
    for (int64_t r = 0; r < hp; ++r) {
      float* row = dst + r * width;
      const int64_t iy = r - pt;
      if (iy < 0 || iy >= x.height) {
        std::fill(row, row + width, 0.0f);
        continue;
      }
      std::fill(row, row + c0, 0.0f);
      std::copy(src + iy * x.width + from, src + iy * x.width + from + (c1 - c0), row + c0);
      std::fill(row + c1, row + width, 0.0f);
    }
  }

  // padded[c][r][q] = x[c][r - pad_top][q - pad_left] for r < hp, q < wp (0 outside the image),
  // rows `wp` apart (the stride; columns from it on are the next row's first ones, which must
  // be zeros as they are: see the caller); x one contiguous nchw image.
  void Pad(const float* xin, const Image& x, int64_t hp, int64_t wp, float* padded) const {
    const int64_t pt = g_.pad_top, pl = g_.pad_left;
    const int64_t x0 = std::min(pl, wp), x1 = std::clamp(pl + x.width, x0, wp);
    config_.pool->ParallelFor(static_cast<size_t>(x.channels), 4, [&](size_t begin, size_t end) {
      for (size_t c = begin; c < end; ++c) {
        const float* src = xin + static_cast<int64_t>(c) * x.height * x.width;
        float* dst = padded + static_cast<int64_t>(c) * hp * wp;
        PadRows(src, x, pt, hp, wp, 0, x0, x1, dst);
      }
    });
  }

  // padded[c][r][q] = x[c][r - pad_top][q] for r < hp (zero rows above and below the image, none
  // left or right: the masked arrangement), planes hp * iw apart; x one contiguous nchw image.
  void PadPlanes(const float* xin, const Image& x, int64_t hp, float* padded) const {
    const int64_t pt = g_.pad_top, iw = x.width, ih = x.height;
    config_.pool->ParallelFor(static_cast<size_t>(x.channels), 4, [&](size_t begin, size_t end) {
      for (size_t c = begin; c < end; ++c) {
        const float* src = xin + static_cast<int64_t>(c) * ih * iw;
        float* dst = padded + static_cast<int64_t>(c) * hp * iw;
        std::fill(dst, dst + pt * iw, 0.0f);
        std::memcpy(dst + pt * iw, src, static_cast<size_t>(ih * iw) * sizeof(float));
        std::fill(dst + (pt + ih) * iw, dst + hp * iw, 0.0f);
      }
    });
  }

  // The kw shifted copies of the stride-1 product: shifted[kx][c][r][ox] = padded[c][r][ox + kx *
  // dw] for r < hp, ox < ow (0 outside the image; padded as Pad's, of the padded width ow + (kw -
  // 1) * dw); x one contiguous nchw image.
  void Shift(const float* xin, const Image& x, int64_t hp, int64_t ow, int64_t kw,
             float* shifted) const {
    const int64_t pt = g_.pad_top;
    const int64_t copy = x.channels * hp * ow;
    config_.pool->ParallelFor(static_cast<size_t>(kw * x.channels), 4,
                              [&](size_t begin, size_t end) {
                                for (size_t task = begin; task < end; ++task) {
                                  const int64_t kx = static_cast<int64_t>(task) / x.channels;
                                  const int64_t c = static_cast<int64_t>(task) % x.channels;
                                  const float* src = xin + c * x.height * x.width;
                                  float* dst = shifted + kx * copy + c * hp * ow;
                                  // Output column ox reads input column ox + shift; those inside
                                  // the image: [o0, o1).
                                  const int64_t shift = kx * g_.dilation_width - g_.pad_left;
                                  const int64_t o0 = std::clamp<int64_t>(-shift, 0, ow);
                                  const int64_t o1 = std::clamp<int64_t>(x.width - shift, o0, ow);
                                  PadRows(src, x, pt, hp, ow, o0 + shift, o0, o1, dst);
                                }
                              });
  }

  // The result with the bias (in[2], when given) added in double before the one rounding.
  std::vector<OperandValue> FinishBias(std::span<const OperandValue* const> in, bool nhwc,
                                       const Image& y, GemmOutput& result) const {
    if (in.size() <= 2) return result.Finish(config_);
    const Tensor bias = ContiguousFloat32(in[2]->data);
    const float* pb = bias.base<float>();
    const auto channels = static_cast<size_t>(y.channels);
    const auto spatial = static_cast<size_t>(y.height * y.width);
    const auto batches = static_cast<size_t>(y.batches);
    if (nhwc) {
      return result.Finish(config_, batches * spatial, channels,
                           [pb](size_t, size_t c) { return static_cast<double>(pb[c]); });
    }
    return result.Finish(config_, batches * channels, spatial, [pb, channels](size_t r, size_t) {
      return static_cast<double>(pb[r % channels]);
    });
  }

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
  Tensor filter_source_;                  // the constant filter, when it is one
  std::shared_ptr<const Filter> filter_;  // its arrangement and panels
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
        return std::make_shared<Conv2dKernel>(*a, config, ConstantInput(graph, index, 1));
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
