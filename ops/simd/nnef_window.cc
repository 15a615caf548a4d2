// The simd backend's operators of the NNEF window group (ops/nnef_window.h, NNEF 1.0.2 4.3), as
// far as implemented: box (4.3.2) with normalize over any rank and any border but 'ignore' next
// to padding — the average pool of exported models that count the padding (border 'constant'),
// or read the border by 'replicate' or the reflections. The other window operators, and box
// without normalize or with 'ignore' padding, are left to MakeKernel's reason (a
// backend-unsupported skip in `nnref nnef --backend simd`).
//
// The input is read once into the extended tensor — every axis padded by its border (chapter 4.3
// "Border Modes", BorderIndex), a selection, so exact — and every window then reads real values
// only: an output row (the last axis) is the average of the window's rows of the extended tensor
// (one per window position of the other axes and per tap of the last axis, gathered into a
// contiguous row when the last axis has a stride other than 1), computed by the Highway row
// function PoolRow (window_rows.h: a compensated float32 sum divided by the window volume), as
// the simd averagePool2d computes its windows. Output rows are split over the thread pool.
#include "ops/nnef_window.h"

#include <algorithm>
#include <cstdint>
#include <vector>

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
    const std::vector<float> ext = Extended(x.base<float>(), xe, ee);
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
  // The input with every axis extended by its padding as the border reads it (0 for 'constant',
  // and for 'ignore', which Make admits only without padding).
  std::vector<float> Extended(const float* x, const std::vector<int64_t>& xe,
                              const std::vector<int64_t>& ee) const {
    const size_t n = xe.size();
    const std::vector<int64_t> xs = Strides(xe);
    // Per axis, the input index each extended position reads (-1: the constant 0).
    std::vector<std::vector<int64_t>> from(n);
    for (size_t k = 0; k < n; ++k) {
      for (int64_t e = 0; e < ee[k]; ++e) {
        from[k].push_back(nnef::BorderIndex(e - a_.axes[k].pad_front, xe[k], a_.border));
      }
    }
    int64_t total = 1;
    for (int64_t e : ee) total *= e;
    std::vector<float> ext(static_cast<size_t>(total));
    const int64_t width = ee[n - 1];
    const int64_t rows = total / width;
    config_.pool->ParallelFor(static_cast<size_t>(rows), 64, [&](size_t begin, size_t end) {
      for (size_t r = begin; r < end; ++r) {
        int64_t rest = static_cast<int64_t>(r), off = 0;
        bool constant = false;
        for (size_t k = n - 1; k-- > 0;) {
          const int64_t i = from[k][static_cast<size_t>(rest % ee[k])];
          rest /= ee[k];
          if (i < 0) constant = true;
          off += i * xs[k];
        }
        float* dst = ext.data() + static_cast<int64_t>(r) * width;
        for (int64_t e = 0; e < width; ++e) {
          const int64_t i = from[n - 1][static_cast<size_t>(e)];
          dst[e] = constant || i < 0 ? 0.0f : x[off + i];
        }
      }
    });
    return ext;
  }

  BoxAttributes a_;
  Config config_;
};

std::optional<std::string> Unsupported(OpId op, DataType type) {
  if (op != OpId::nnef_box) return std::nullopt;
  if (type != DataType::kFloat32) return std::string(DataTypeName(type)) + " not supported";
  return std::string();
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index, const Config& config,
                                   std::string& why) {
  const OperatorNode& node = graph.operators()[index];
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
