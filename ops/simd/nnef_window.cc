// The simd backend's operators of the NNEF window group (ops/nnef_window.h, NNEF 1.0.2 4.3 and
// pad, 4.5.5): conv and deconv (4.3.1), box and debox (4.3.2), argmax_pool, sample and desample
// (4.3.3) and pad, each over any rank, with every border and any padding, negative (cropping)
// padding included.
//
// The input is read once into the extended tensor — every axis padded (or cropped) by its border
// (chapter 4.3 "Border Modes", BorderIndex), a selection, so exact — and every window then reads
// it without bounds checks. box: an output row (the last axis) is the sum of the window's rows of
// the extended tensor (one per window position of the other axes and per tap of the last axis,
// gathered into a contiguous row when the last axis has a stride other than 1), computed by the
// Highway row function PoolRow (window_rows.h: a compensated float32 sum), divided by the window
// volume (normalize), by the count of positions that are input items ('ignore' next to padding:
// a product of per-axis counts) or by nothing (a window sum), as the simd averagePool2d computes
// its windows. argmax_pool: a running first maximum along the output row, one window position at
// a time (plain loops; exact). sample: one read per output.
//
// conv and deconv are one product per batch and group, on the GEMM core of the simd conv2d
// (gemm.h: float32 multiply-adds, judged by the conv2d row's sum bound): the im2col matrix
// col[(c, tap)][output position] holds the input item each tap reads through the border (0 at a
// constant border position, and for a deconv's taps whose position is not a multiple of the
// stride — the reverse window's (i + p - j d) / s), packed into the GEMM's panels straight from
// the input through a tap table (never stored whole), and the filter is regrouped as
// [output channel][(input channel of the group, tap)]; the bias is added in double before the one
// rounding. debox, desample and pad are plain loops over the outputs (debox and desample sum in
// double, rounded once; pad selects): debox walks the reverse window's taps, desample gathers the
// input items whose index selects the output position (the formula's condition
// index[(i + p - j d) / s] = j). Output rows are split over the thread pool, so results do not
// depend on the count.
#include "ops/nnef_window.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/nnef_common.h"
#include "ops/simd/family.h"
#include "ops/simd/gemm.h"
#include "ops/simd/products.h"
#include "ops/simd/window_rows.h"

namespace nnref::simd {

namespace {

using nnef::Border;
using nnef::BoxAttributes;
using nnef::ConvAttributes;
using nnef::WindowAxis;

// Row-major strides of a shape of extents `e`.
std::vector<int64_t> Strides(const std::vector<int64_t>& e) {
  std::vector<int64_t> s(e.size(), 1);
  for (size_t k = e.size(); k-- > 1;) s[k - 1] = s[k] * e[k];
  return s;
}

// Steps `i` through the index space `extent` (row-major); false after the last index.
bool Next(std::vector<int64_t>& i, const std::vector<int64_t>& extent) {
  for (size_t k = i.size(); k-- > 0;) {
    if (++i[k] < extent[k]) return true;
    i[k] = 0;
  }
  return false;
}

// The input (contiguous, extents `xe`) with every axis extended by its padding as `a.border`
// reads it (extents `ee`): a border position reads 0 for 'constant' and 'ignore', the input item
// BorderIndex names for the others. With `real`, also 1 for every position that is an input item
// (0 for the positions 'ignore' leaves out).
std::vector<float> Extended(const float* x, const std::vector<int64_t>& xe,
                            const std::vector<int64_t>& ee, const nnef::WindowAttributes& a,
                            const Config& config, std::vector<uint8_t>* real) {
  const size_t n = xe.size();
  const std::vector<int64_t> xs = Strides(xe);
  // Per axis, the input index each extended position reads (-1: the constant 0).
  std::vector<std::vector<int64_t>> from(n);
  for (size_t k = 0; k < n; ++k) {
    for (int64_t e = 0; e < ee[k]; ++e) {
      from[k].push_back(nnef::BorderIndex(e - a.axes[k].pad_front, xe[k], a.border));
    }
  }
  int64_t total = 1;
  for (int64_t e : ee) total *= e;
  std::vector<float> ext(static_cast<size_t>(total));
  if (real != nullptr) real->assign(static_cast<size_t>(total), 0);
  const int64_t width = ee[n - 1];
  const int64_t rows = total / width;
  config.pool->ParallelFor(static_cast<size_t>(rows), 64, [&](size_t begin, size_t end) {
    for (size_t r = begin; r < end; ++r) {
      int64_t rest = static_cast<int64_t>(r), off = 0;
      bool constant = false;
      for (size_t k = n - 1; k-- > 0;) {
        const int64_t i = from[k][static_cast<size_t>(rest % ee[k])];
        rest /= ee[k];
        if (i < 0) constant = true;
        off += i * xs[k];
      }
      const int64_t row = static_cast<int64_t>(r) * width;
      for (int64_t e = 0; e < width; ++e) {
        const int64_t i = from[n - 1][static_cast<size_t>(e)];
        const bool item = !constant && i >= 0;
        ext[static_cast<size_t>(row + e)] = item ? x[off + i] : 0.0f;
        if (real != nullptr) (*real)[static_cast<size_t>(row + e)] = item ? 1 : 0;
      }
    }
  });
  return ext;
}

// The extents of the input, the output and the extended input of a window operator.
struct Extents {
  std::vector<int64_t> x, y, ext;
  Extents(const Shape& in, const Shape& out, const std::vector<WindowAxis>& axes) {
    for (size_t k = 0; k < axes.size(); ++k) {
      x.push_back(static_cast<int64_t>(in[k]));
      y.push_back(static_cast<int64_t>(out[k]));
      ext.push_back(axes[k].pad_front + x.back() + axes[k].pad_back);
    }
  }
};

class BoxKernel final : public Kernel {
 public:
  BoxKernel(const BoxAttributes& a, Config config) : a_(a), config_(std::move(config)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Tensor x = in[0]->data.Contiguous();
    const size_t n = a_.axes.size();
    std::vector<int64_t> xe(n), ye(n), ee(n);
    for (size_t k = 0; k < n; ++k) {
      xe[k] = static_cast<int64_t>(x.shape()[k]);
      ye[k] = static_cast<int64_t>(out[0].shape[k]);
      ee[k] = a_.axes[k].pad_front + xe[k] + a_.axes[k].pad_back;
    }
    std::vector<OperandValue> result(1);
    result[0].data = Tensor::Allocate(DataType::kFloat32, out[0].shape);
    if (result[0].data.element_count() == 0) return result;
    const std::vector<float> ext = Extended(x.base<float>(), xe, ee, a_, config_, nullptr);
    const std::vector<int64_t> es = Strides(ee);

    // Output rows: every index of the axes but the last.
    const std::vector<int64_t> row_extent(ye.begin(), ye.end() - 1);
    const std::vector<int64_t> win_extent = [&] {
      std::vector<int64_t> w;
      for (size_t k = 0; k + 1 < n; ++k) w.push_back(a_.axes[k].size);
      return w;
    }();
    int64_t rows = 1;
    for (int64_t e : row_extent) rows *= e;
    const WindowAxis& last = a_.axes[n - 1];
    const int64_t out_w = ye[n - 1];
    float* y = result[0].data.base<float>();
    // 'ignore' next to padding with normalize: each window divides by its count of input items,
    // the product over the axes of the taps that land inside the input.
    bool counted = false;
    for (const WindowAxis& w : a_.axes) counted |= w.pad_front > 0 || w.pad_back > 0;
    counted = counted && a_.normalize && a_.border == Border::kIgnore;
    std::vector<std::vector<double>> inside(n);
    if (counted) {
      for (size_t k = 0; k < n; ++k) {
        const WindowAxis& w = a_.axes[k];
        for (int64_t o = 0; o < ye[k]; ++o) {
          int64_t c = 0;
          for (int64_t j = 0; j < w.size; ++j) {
            const int64_t i = o * w.stride + j * w.dilation - w.pad_front;
            c += i >= 0 && i < xe[k] ? 1 : 0;
          }
          inside[k].push_back(static_cast<double>(c));
        }
      }
    }
    const RowPool op = !a_.normalize || counted ? RowPool::kSum : RowPool::kAverage;
    const size_t grain =
        static_cast<size_t>(std::max<int64_t>(1, 4096 / std::max<int64_t>(1, out_w * last.size)));
    config_.pool->ParallelFor(static_cast<size_t>(rows), grain, [&](size_t begin, size_t end) {
      std::vector<double> divisors(counted ? static_cast<size_t>(out_w) : 0);
      std::vector<const float*> window;
      std::vector<float> gathered;  // stride > 1 on the last axis: each tap's row, contiguous
      std::vector<int64_t> o(n - 1), j(n - 1);
      for (size_t r = begin; r < end; ++r) {
        // The output row's index.
        int64_t rest = static_cast<int64_t>(r);
        for (size_t k = n - 1; k-- > 0;) {
          o[k] = rest % row_extent[k];
          rest /= row_extent[k];
        }
        window.clear();
        gathered.resize(0);
        std::fill(j.begin(), j.end(), 0);
        do {
          int64_t base = 0;
          for (size_t k = 0; k + 1 < n; ++k) {
            base += (o[k] * a_.axes[k].stride + j[k] * a_.axes[k].dilation) * es[k];
          }
          for (int64_t t = 0; t < last.size; ++t) {
            const float* p = ext.data() + base + t * last.dilation;
            if (last.stride == 1) {
              window.push_back(p);
            } else {
              const size_t at = gathered.size();
              gathered.resize(at + static_cast<size_t>(out_w));
              for (int64_t ox = 0; ox < out_w; ++ox) {
                gathered[at + static_cast<size_t>(ox)] = p[ox * last.stride];
              }
              window.push_back(nullptr);  // pointed into `gathered` once it stops growing
            }
          }
        } while (Next(j, win_extent));
        if (last.stride != 1) {
          for (size_t k = 0; k < window.size(); ++k) {
            window[k] = gathered.data() + k * static_cast<size_t>(out_w);
          }
        }
        float* row = y + static_cast<int64_t>(r) * out_w;
        if (!counted) {
          PoolRow(op, window.data(), window.size(), static_cast<size_t>(out_w), row);
          continue;
        }
        double prefix = 1;
        for (size_t k = 0; k + 1 < n; ++k) prefix *= inside[k][static_cast<size_t>(o[k])];
        for (size_t ox = 0; ox < divisors.size(); ++ox) divisors[ox] = prefix * inside[n - 1][ox];
        PoolRow(op, window.data(), window.size(), static_cast<size_t>(out_w), row, divisors.data());
        // A window of ignored positions only: no average (the reference marks it open).
        for (size_t ox = 0; ox < divisors.size(); ++ox) {
          if (divisors[ox] == 0) row[ox] = 0;
        }
      }
    });
    return result;
  }

 private:
  BoxAttributes a_;
  Config config_;
};

// argmax_pool (4.3.3): per output row, a running first maximum over the window positions in
// row-major order (the last axis's taps innermost), as the reference takes it: a position wins
// only when it is greater than the best so far, so NaN never wins after the first position (the
// reference marks those outputs implementation-defined, and so windows of positions 'ignore'
// leaves out only). Exact: a selection.
class ArgmaxPoolKernel final : public Kernel {
 public:
  ArgmaxPoolKernel(const nnef::WindowAttributes& a, Config config)
      : a_(a), config_(std::move(config)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Tensor x = in[0]->data.Contiguous();
    const size_t n = a_.axes.size();
    const Extents e(x.shape(), out[0].shape, a_.axes);
    std::vector<OperandValue> result(1);
    result[0].data = Tensor::Allocate(DataType::kInt64, out[0].shape);
    if (result[0].data.element_count() == 0) return result;
    const bool ignore = a_.border == Border::kIgnore;
    std::vector<uint8_t> real;
    const std::vector<float> ext =
        Extended(x.base<float>(), e.x, e.ext, a_, config_, ignore ? &real : nullptr);
    const std::vector<int64_t> es = Strides(e.ext);
    const std::vector<int64_t> row_extent(e.y.begin(), e.y.end() - 1);
    std::vector<int64_t> win_extent;
    for (size_t k = 0; k + 1 < n; ++k) win_extent.push_back(a_.axes[k].size);
    int64_t rows = 1;
    for (int64_t r : row_extent) rows *= r;
    const WindowAxis& last = a_.axes[n - 1];
    const int64_t out_w = e.y[n - 1];
    int64_t* y = result[0].data.base<int64_t>();
    config_.pool->ParallelFor(static_cast<size_t>(rows), 16, [&](size_t begin, size_t end) {
      std::vector<float> best(static_cast<size_t>(out_w));
      std::vector<uint8_t> have(static_cast<size_t>(out_w));
      std::vector<int64_t> o(n - 1), j(n - 1);
      for (size_t r = begin; r < end; ++r) {
        int64_t rest = static_cast<int64_t>(r);
        for (size_t k = n - 1; k-- > 0;) {
          o[k] = rest % row_extent[k];
          rest /= row_extent[k];
        }
        int64_t* idx = y + static_cast<int64_t>(r) * out_w;
        std::fill(idx, idx + out_w, 0);
        std::fill(have.begin(), have.end(), 0);
        std::fill(j.begin(), j.end(), 0);
        int64_t jl = 0;
        do {
          int64_t base = 0;
          for (size_t k = 0; k + 1 < n; ++k) {
            base += (o[k] * a_.axes[k].stride + j[k] * a_.axes[k].dilation) * es[k];
          }
          for (int64_t t = 0; t < last.size; ++t, ++jl) {
            const int64_t at = base + t * last.dilation;
            for (int64_t ox = 0; ox < out_w; ++ox) {
              const size_t pos = static_cast<size_t>(at + ox * last.stride);
              if (ignore && real[pos] == 0) continue;
              const float v = ext[pos];
              const size_t q = static_cast<size_t>(ox);
              if (have[q] == 0 || v > best[q]) {
                best[q] = v;
                idx[ox] = jl;
                have[q] = 1;
              }
            }
          }
        } while (Next(j, win_extent));
      }
    });
    return result;
  }

 private:
  nnef::WindowAttributes a_;
  Config config_;
};

// sample (4.3.3): each output reads the window position its index selects (row-major in the
// window) from the extended input. Exact: a selection.
class SampleKernel final : public Kernel {
 public:
  SampleKernel(const nnef::WindowAttributes& a, Config config)
      : a_(a), config_(std::move(config)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Tensor x = in[0]->data.Contiguous();
    const Tensor index = in[1]->data.Contiguous();
    const size_t n = a_.axes.size();
    const Extents e(x.shape(), out[0].shape, a_.axes);
    std::vector<OperandValue> result(1);
    result[0].data = Tensor::Allocate(DataType::kFloat32, out[0].shape);
    const int64_t count = static_cast<int64_t>(result[0].data.element_count());
    if (count == 0) return result;
    std::vector<int64_t> ker(n);
    for (size_t k = 0; k < n; ++k) ker[k] = a_.axes[k].size;
    const std::vector<int64_t> ks = Strides(ker);
    const int64_t volume = ks[0] * ker[0];
    const int64_t* ix = index.base<int64_t>();
    // Checked first, in element order, so the error names the first bad index as the reference's.
    for (int64_t i = 0; i < count; ++i) {
      if (ix[i] < 0 || ix[i] >= volume) {
        nnef::ComputeError("sample: index " + std::to_string(ix[i]) + " at element " +
                           std::to_string(i) + " is outside the window of " +
                           std::to_string(volume) + " positions");
      }
    }
    const std::vector<float> ext = Extended(x.base<float>(), e.x, e.ext, a_, config_, nullptr);
    const std::vector<int64_t> es = Strides(e.ext);
    const int64_t out_w = e.y[n - 1];
    const int64_t rows = count / out_w;
    float* y = result[0].data.base<float>();
    config_.pool->ParallelFor(static_cast<size_t>(rows), 16, [&](size_t begin, size_t end) {
      std::vector<int64_t> o(n);
      for (size_t r = begin; r < end; ++r) {
        int64_t rest = static_cast<int64_t>(r), base = 0;
        for (size_t k = n - 1; k-- > 0;) {
          o[k] = rest % e.y[k];
          rest /= e.y[k];
          base += o[k] * a_.axes[k].stride * es[k];
        }
        for (int64_t ox = 0; ox < out_w; ++ox) {
          const int64_t yo = static_cast<int64_t>(r) * out_w + ox;
          const int64_t jl = ix[yo];
          int64_t at = base + ox * a_.axes[n - 1].stride;
          for (size_t k = 0; k < n; ++k) {
            at += ((jl / ks[k]) % ker[k]) * a_.axes[k].dilation * es[k];
          }
          y[yo] = ext[static_cast<size_t>(at)];
        }
      }
    });
    return result;
  }

 private:
  nnef::WindowAttributes a_;
  Config config_;
};

// Per output position o of one axis (of `out_extent`) and tap j: the input index the tap reads
// through the border (>= 0), -1 for a constant or ignored border position, -2 for a tap that
// does not contribute (a reverse window's o + p - j d that is not a multiple of the stride).
// Forward: position o s + j d - p; reverse: (o + p - j d) / s. Row-major [o][j].
std::vector<int64_t> TapTable(const WindowAxis& a, int64_t out_extent, int64_t in_extent,
                              bool reverse, Border border) {
  std::vector<int64_t> t;
  t.reserve(static_cast<size_t>(out_extent * a.size));
  for (int64_t o = 0; o < out_extent; ++o) {
    for (int64_t j = 0; j < a.size; ++j) {
      int64_t pos = o * a.stride + j * a.dilation - a.pad_front;
      if (reverse) {
        const int64_t v = o + a.pad_front - j * a.dilation;
        const int64_t q = v >= 0 ? v / a.stride : -((-v + a.stride - 1) / a.stride);  // floor
        if (q * a.stride != v) {
          t.push_back(-2);
          continue;
        }
        pos = q;
      }
      t.push_back(nnef::BorderIndex(pos, in_extent, border));
    }
  }
  return t;
}

// The flat index `flat` of a row-major index space `extent` as an index.
void Unflatten(int64_t flat, const std::vector<int64_t>& extent, std::vector<int64_t>& index) {
  for (size_t k = extent.size(); k-- > 0;) {
    index[k] = flat % extent[k];
    flat /= extent[k];
  }
}

// conv / deconv (4.3.1): per batch and group, output[oc][o] = sum over (c, tap) of
// filter'[oc][(c, tap)] x col[(c, tap)][o] on the GEMM core, plus the bias in double.
class ConvKernel final : public Kernel {
 public:
  ConvKernel(const ConvAttributes& a, Config config) : a_(a), config_(std::move(config)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Tensor x = in[0]->data.Contiguous();
    const Tensor w = in[1]->data.Contiguous();
    const Tensor bias = in[2]->data.Contiguous();
    const Shape& xs = x.shape();
    const Shape& ws = w.shape();
    const Shape& ys = out[0].shape;
    const size_t m = a_.axes.size();
    const int64_t batches = static_cast<int64_t>(xs[0]), in_channels = static_cast<int64_t>(xs[1]);
    const int64_t out_channels = static_cast<int64_t>(ys[1]), groups = a_.groups;
    const int64_t ipg = in_channels / groups, opg = out_channels / groups;
    std::vector<int64_t> ker(m), out_sp(m), in_sp(m);
    int64_t volume = 1, spatial = 1, in_spatial = 1;
    for (size_t k = 0; k < m; ++k) {
      ker[k] = static_cast<int64_t>(ws[k + 2]);
      out_sp[k] = static_cast<int64_t>(ys[k + 2]);
      in_sp[k] = static_cast<int64_t>(xs[k + 2]);
      volume *= ker[k];
      spatial *= out_sp[k];
      in_spatial *= in_sp[k];
    }
    const int64_t depth = ipg * volume;  // the GEMM's k
    GemmOutput result(out[0]);
    if (spatial == 0 || out_channels == 0 || batches == 0) return result.Finish(config_);

    // taps[tap][o]: the input spatial offset tap `tap` reads at output position o (-1: zero).
    std::vector<std::vector<int64_t>> tables(m);
    for (size_t k = 0; k < m; ++k) {
      tables[k] = TapTable(a_.axes[k], out_sp[k], in_sp[k], a_.deconv, a_.border);
    }
    const std::vector<int64_t> in_st = Strides(in_sp);
    std::vector<int64_t> taps(static_cast<size_t>(volume * spatial));
    config_.pool->ParallelFor(static_cast<size_t>(volume), 1, [&](size_t begin, size_t end) {
      std::vector<int64_t> j(m), o(m);
      for (size_t tap = begin; tap < end; ++tap) {
        Unflatten(static_cast<int64_t>(tap), ker, j);
        int64_t* dst = taps.data() + static_cast<int64_t>(tap) * spatial;
        std::fill(o.begin(), o.end(), 0);
        for (int64_t p = 0; p < spatial; ++p) {
          int64_t off = 0;
          for (size_t k = 0; k < m; ++k) {
            const int64_t t = tables[k][static_cast<size_t>(o[k] * ker[k] + j[k])];
            if (t < 0) {
              off = -1;
              break;
            }
            off += t * in_st[k];
          }
          dst[p] = off;
          Next(o, out_sp);
        }
      }
    });

    // The filter as [oc][(c within the group, tap)]: conv's (c_out, C_in / G, f...) already is;
    // deconv's (c_in, C_out / G, f...) is regrouped.
    const float* wp = w.base<float>();
    std::vector<float> packed;
    if (a_.deconv) {
      packed.resize(static_cast<size_t>(out_channels * depth));
      for (int64_t oc = 0; oc < out_channels; ++oc) {
        const int64_t g = oc / opg, ol = oc % opg;
        for (int64_t c = 0; c < ipg; ++c) {
          const float* src = wp + ((g * ipg + c) * opg + ol) * volume;
          std::copy(src, src + volume, packed.data() + oc * depth + c * volume);
        }
      }
      wp = packed.data();
    }

    // The im2col matrix of each group is never stored: the GEMM packs its B panels straight from
    // the input through the tap table (gemm.h, PackBFn), as the simd conv2d does.
    const float* xp = x.base<float>();
    for (int64_t b = 0; b < batches; ++b) {
      const float* xb = xp + b * in_channels * in_spatial;
      std::vector<PackBFn> packers;
      packers.reserve(static_cast<size_t>(groups));
      for (int64_t g = 0; g < groups; ++g) {
        packers.push_back([=, &taps](size_t p0, size_t kc, size_t col0, size_t cols, size_t nr,
                                     float* panels) {
          for (size_t p = 0; p < kc; ++p) {
            const int64_t row = static_cast<int64_t>(p0 + p);
            const float* channel = xb + (g * ipg + row / volume) * in_spatial;
            const int64_t* t = taps.data() + (row % volume) * spatial + static_cast<int64_t>(col0);
            for (size_t j0 = 0; j0 < cols; j0 += nr) {
              float* d = panels + (j0 / nr) * kc * nr + p * nr;
              const size_t n = std::min(nr, cols - j0);
              for (size_t j = 0; j < n; ++j) {
                const int64_t off = t[j0 + j];
                d[j] = off < 0 ? 0.0f : channel[off];
              }
              std::fill(d + n, d + nr, 0.0f);
            }
          }
        });
      }
      std::vector<GemmOperands> problems;
      float* yb = result.data() + b * out_channels * spatial;
      for (int64_t g = 0; g < groups; ++g) {
        problems.push_back({{wp + g * opg * depth, depth, 1},
                            {},
                            yb + g * opg * spatial,
                            spatial,
                            &packers[static_cast<size_t>(g)]});
      }
      Gemm(static_cast<size_t>(opg), static_cast<size_t>(spatial), static_cast<size_t>(depth),
           problems, 1.0, *config_.pool);
    }
    // The bias added in double to each float32 sum before the one rounding.
    const float* bp = bias.base<float>();
    const bool per_channel = bias.element_count() > 1;
    const auto channels = static_cast<size_t>(out_channels);
    return result.Finish(config_, static_cast<size_t>(batches) * channels,
                         static_cast<size_t>(spatial), [&](size_t plane, size_t) {
                           return static_cast<double>(bp[per_channel ? plane % channels : 0]);
                         });
  }

 private:
  ConvAttributes a_;
  Config config_;
};

// debox (4.3.2): each output sums the input items its reverse window's taps read (through the
// border), in double, divided by the window volume (normalize), by its count of taps that read
// input items ('ignore' with normalize) or by nothing; rounded once.
class DeboxKernel final : public Kernel {
 public:
  DeboxKernel(const BoxAttributes& a, Config config) : a_(a), config_(std::move(config)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Tensor x = in[0]->data.Contiguous();
    const size_t n = a_.axes.size();
    const Extents e(x.shape(), out[0].shape, a_.axes);
    std::vector<OperandValue> result(1);
    result[0].data = Tensor::Allocate(DataType::kFloat32, out[0].shape);
    const int64_t count = static_cast<int64_t>(result[0].data.element_count());
    if (count == 0) return result;
    std::vector<std::vector<int64_t>> tables(n);
    std::vector<int64_t> ker(n);
    double volume = 1;
    for (size_t k = 0; k < n; ++k) {
      tables[k] = TapTable(a_.axes[k], e.y[k], e.x[k], true, a_.border);
      ker[k] = a_.axes[k].size;
      volume *= static_cast<double>(ker[k]);
    }
    const std::vector<int64_t> xs = Strides(e.x);
    const float* xp = x.base<float>();
    float* y = result[0].data.base<float>();
    const bool ignore = a_.border == Border::kIgnore;
    config_.pool->ParallelFor(static_cast<size_t>(count), 64, [&](size_t begin, size_t end) {
      std::vector<int64_t> o(n), j(n);
      for (size_t at = begin; at < end; ++at) {
        Unflatten(static_cast<int64_t>(at), e.y, o);
        std::fill(j.begin(), j.end(), 0);
        double sum = 0, items = 0;
        do {
          int64_t off = 0;
          bool skip = false, border = false;
          for (size_t k = 0; k < n && !skip; ++k) {
            const int64_t t = tables[k][static_cast<size_t>(o[k] * ker[k] + j[k])];
            skip = t == -2;
            border = border || t == -1;
            off += t * xs[k];
          }
          if (skip || (border && ignore)) continue;
          items += 1;
          if (!border) sum += static_cast<double>(xp[off]);
        } while (Next(j, ker));
        double v = sum;
        if (a_.normalize) v = ignore ? (items == 0 ? 0 : sum / items) : sum / volume;
        y[at] = static_cast<float>(v);
      }
    });
    return result;
  }

 private:
  BoxAttributes a_;
  Config config_;
};

// desample (4.3.3): output position i gathers, in double, the input items k whose index selects
// it: per axis k = (i + p - j d) / s for the index's window position j (a whole number inside
// the input); rounded once.
class DesampleKernel final : public Kernel {
 public:
  DesampleKernel(const nnef::WindowAttributes& a, Config config)
      : a_(a), config_(std::move(config)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Tensor x = in[0]->data.Contiguous();
    const Tensor index = in[1]->data.Contiguous();
    const size_t n = a_.axes.size();
    const Extents e(x.shape(), out[0].shape, a_.axes);
    std::vector<int64_t> ker(n);
    for (size_t k = 0; k < n; ++k) ker[k] = a_.axes[k].size;
    const std::vector<int64_t> ks = Strides(ker);
    const int64_t volume = ks[0] * ker[0];
    const int64_t* ix = index.base<int64_t>();
    const int64_t in_count = static_cast<int64_t>(x.element_count());
    // Checked first, in element order, so the error names the first bad index as the reference's.
    for (int64_t i = 0; i < in_count; ++i) {
      if (ix[i] < 0 || ix[i] >= volume) {
        nnef::ComputeError("desample: index " + std::to_string(ix[i]) + " at element " +
                           std::to_string(i) + " is outside the window of " +
                           std::to_string(volume) + " positions");
      }
    }
    std::vector<OperandValue> result(1);
    result[0].data = Tensor::Allocate(DataType::kFloat32, out[0].shape);
    const int64_t count = static_cast<int64_t>(result[0].data.element_count());
    if (count == 0) return result;
    std::vector<std::vector<int64_t>> tables(n);
    for (size_t k = 0; k < n; ++k) {
      // 'constant': positions outside the input are not input items (no index selects them).
      tables[k] = TapTable(a_.axes[k], e.y[k], e.x[k], true, Border::kConstant);
    }
    const std::vector<int64_t> xs = Strides(e.x);
    const float* xp = x.base<float>();
    float* y = result[0].data.base<float>();
    config_.pool->ParallelFor(static_cast<size_t>(count), 64, [&](size_t begin, size_t end) {
      std::vector<int64_t> o(n), j(n);
      for (size_t at = begin; at < end; ++at) {
        Unflatten(static_cast<int64_t>(at), e.y, o);
        std::fill(j.begin(), j.end(), 0);
        double sum = 0;
        int64_t jl = 0;
        do {
          int64_t off = 0;
          bool inside = true;
          for (size_t k = 0; k < n && inside; ++k) {
            const int64_t t = tables[k][static_cast<size_t>(o[k] * ker[k] + j[k])];
            inside = t >= 0;
            off += t * xs[k];
          }
          if (inside && ix[off] == jl) sum += static_cast<double>(xp[off]);
          ++jl;
        } while (Next(j, ker));
        y[at] = static_cast<float>(sum);
      }
    });
    return result;
  }

 private:
  nnef::WindowAttributes a_;
  Config config_;
};

// pad (4.5.5): each output reads the input item BorderIndex names per axis, or the constant
// value; 'ignore' reads as 'constant'. A selection: exact.
class PadKernel final : public Kernel {
 public:
  PadKernel(const nnef::NnefPadAttributes& a, Config config) : a_(a), config_(std::move(config)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Tensor x = in[0]->data.Contiguous();
    const size_t n = x.shape().size();
    std::vector<OperandValue> result(1);
    result[0].data = Tensor::Allocate(DataType::kFloat32, out[0].shape);
    const int64_t count = static_cast<int64_t>(result[0].data.element_count());
    if (count == 0) return result;
    const float* xp = x.base<float>();
    float* y = result[0].data.base<float>();
    if (n == 0) {
      y[0] = xp[0];
      return result;
    }
    const Border border = a_.border == Border::kIgnore ? Border::kConstant : a_.border;
    std::vector<int64_t> xe(n), ye(n);
    std::vector<std::vector<int64_t>> from(n);
    for (size_t k = 0; k < n; ++k) {
      xe[k] = static_cast<int64_t>(x.shape()[k]);
      ye[k] = static_cast<int64_t>(out[0].shape[k]);
      for (int64_t o = 0; o < ye[k]; ++o) {
        from[k].push_back(nnef::BorderIndex(o - a_.padding[k].first, xe[k], border));
      }
    }
    const std::vector<int64_t> xs = Strides(xe);
    const int64_t width = ye[n - 1];
    const std::vector<int64_t> row_extent(ye.begin(), ye.end() - 1);
    config_.pool->ParallelFor(static_cast<size_t>(count / width), 16,
                              [&](size_t begin, size_t end) {
                                std::vector<int64_t> o(n - 1);
                                for (size_t r = begin; r < end; ++r) {
                                  Unflatten(static_cast<int64_t>(r), row_extent, o);
                                  int64_t base = 0;
                                  bool constant = false;
                                  for (size_t k = 0; k + 1 < n; ++k) {
                                    const int64_t i = from[k][static_cast<size_t>(o[k])];
                                    constant = constant || i < 0;
                                    base += i * xs[k];
                                  }
                                  float* dst = y + static_cast<int64_t>(r) * width;
                                  for (int64_t c = 0; c < width; ++c) {
                                    const int64_t i = from[n - 1][static_cast<size_t>(c)];
                                    dst[c] = constant || i < 0 ? a_.value : xp[base + i];
                                  }
                                }
                              });
    return result;
  }

 private:
  nnef::NnefPadAttributes a_;
  Config config_;
};

std::optional<std::string> Unsupported(OpId op, DataType type) {
  switch (op) {
    case OpId::nnef_conv:
    case OpId::nnef_deconv:
    case OpId::nnef_box:
    case OpId::nnef_debox:
    case OpId::nnef_sample:
    case OpId::nnef_desample:
    case OpId::nnef_pad:
    case OpId::nnef_argmax_pool:  // any input type in the reference; float32 here
      if (type != DataType::kFloat32) return std::string(DataTypeName(type)) + " not supported";
      return std::string();
    default:
      return std::nullopt;
  }
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index, const Config& config,
                                   std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  if (node.op == OpId::nnef_pad) {
    const auto* p = node.Attributes<nnef::NnefPadAttributes>();
    if (p == nullptr) {
      why = "the node carries no attributes";
      return nullptr;
    }
    return std::make_shared<PadKernel>(*p, config);
  }
  const auto* w = node.Attributes<nnef::WindowAttributes>();
  if (w == nullptr) {
    why = "the node carries no attributes";
    return nullptr;
  }
  if (w->axes.empty()) {
    // A stated skip (docs/nnef-execution.md, on the backends): the window kernels index window
    // axes, and a rank-0 window (no axes) runs on the reference.
    why = std::string(OpName(node.op)) + " of a rank-0 tensor (no window axes): a stated skip";
    return nullptr;
  }
  switch (node.op) {
    case OpId::nnef_conv:
    case OpId::nnef_deconv:
      if (const auto* c = node.Attributes<ConvAttributes>()) {
        return std::make_shared<ConvKernel>(*c, config);
      }
      break;
    case OpId::nnef_box:
    case OpId::nnef_debox:
      if (const auto* b = node.Attributes<BoxAttributes>()) {
        if (b->debox) return std::make_shared<DeboxKernel>(*b, config);
        return std::make_shared<BoxKernel>(*b, config);
      }
      break;
    case OpId::nnef_argmax_pool:
      return std::make_shared<ArgmaxPoolKernel>(*w, config);
    case OpId::nnef_sample:
      return std::make_shared<SampleKernel>(*w, config);
    case OpId::nnef_desample:
      return std::make_shared<DesampleKernel>(*w, config);
    default:
      break;
  }
  why = "the node carries no attributes";
  return nullptr;
}

}  // namespace

const Family kNnefWindowFamily = {Unsupported, Make};

}  // namespace nnref::simd
