// The simd backend's operators of the NNEF window group (ops/nnef_window.h, NNEF 1.0.2 4.3), as
// far as implemented: box (4.3.2) with normalize — the average pool of exported models that count
// the padding (border 'constant') or read the border by 'replicate' or the reflections — and
// argmax_pool and sample (4.3.3), which max_pool lowers to, each over any rank and with every
// border ('ignore' next to padding excepted for box). conv, deconv, debox, desample, box without
// normalize, and negative padding are left to MakeKernel's reason (a backend-unsupported skip in
// `nnref nnef --backend simd`).
//
// The input is read once into the extended tensor — every axis padded by its border (chapter 4.3
// "Border Modes", BorderIndex), a selection, so exact — and every window then reads it without
// bounds checks. box: an output row (the last axis) is the average of the window's rows of the
// extended tensor (one per window position of the other axes and per tap of the last axis,
// gathered into a contiguous row when the last axis has a stride other than 1), computed by the
// Highway row function PoolRow (window_rows.h: a compensated float32 sum divided by the window
// volume), as the simd averagePool2d computes its windows. argmax_pool: a running first maximum
// along the output row, one window position at a time (plain loops; exact). sample: one read per
// output. Output rows are split over the thread pool, so results do not depend on the count.
#include "ops/nnef_window.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/nnef_common.h"
#include "ops/simd/family.h"
#include "ops/simd/window_rows.h"

namespace nnref::simd {

namespace {

using nnef::Border;
using nnef::BoxAttributes;
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
    const size_t grain =
        static_cast<size_t>(std::max<int64_t>(1, 4096 / std::max<int64_t>(1, out_w * last.size)));
    config_.pool->ParallelFor(static_cast<size_t>(rows), grain, [&](size_t begin, size_t end) {
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
        PoolRow(RowPool::kAverage, window.data(), window.size(), static_cast<size_t>(out_w),
                y + static_cast<int64_t>(r) * out_w);
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

std::optional<std::string> Unsupported(OpId op, DataType type) {
  if (op != OpId::nnef_box && op != OpId::nnef_argmax_pool && op != OpId::nnef_sample) {
    return std::nullopt;
  }
  if (type != DataType::kFloat32) return std::string(DataTypeName(type)) + " not supported";
  return std::string();
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index, const Config& config,
                                   std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  if (node.op != OpId::nnef_box) {
    const auto* w = node.Attributes<nnef::WindowAttributes>();
    if (w == nullptr) {
      why = "the node carries no attributes";
      return nullptr;
    }
    if (w->axes.empty()) {
      why = std::string(OpName(node.op)) + " of a rank-0 tensor: not implemented";
      return nullptr;
    }
    for (const WindowAxis& axis : w->axes) {
      if (axis.pad_front < 0 || axis.pad_back < 0) {
        why = std::string(OpName(node.op)) + " with negative padding: not implemented";
        return nullptr;
      }
    }
    if (node.op == OpId::nnef_argmax_pool) return std::make_shared<ArgmaxPoolKernel>(*w, config);
    return std::make_shared<SampleKernel>(*w, config);
  }
  const auto* a = node.Attributes<BoxAttributes>();
  if (a == nullptr) {
    why = "the node carries no attributes";
    return nullptr;
  }
  if (a->debox) {
    why = "debox: not implemented";
    return nullptr;
  }
  if (!a->normalize) {
    why = "box without normalize (a window sum): not implemented";
    return nullptr;
  }
  if (a->axes.empty()) {
    why = "box of a rank-0 tensor: not implemented";
    return nullptr;
  }
  for (const WindowAxis& w : a->axes) {
    if (w.pad_front < 0 || w.pad_back < 0) {
      why = "box with negative padding: not implemented";
      return nullptr;
    }
    if (a->border == Border::kIgnore && (w.pad_front != 0 || w.pad_back != 0)) {
      why = "box with border 'ignore' next to padding (a per-window count): not implemented";
      return nullptr;
    }
  }
  return std::make_shared<BoxKernel>(*a, config);
}

}  // namespace

const Family kNnefWindowFamily = {Unsupported, Make};

}  // namespace nnref::simd
