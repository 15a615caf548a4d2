// The simd backend's multilinear_upsample of the NNEF group (ops/nnef_resample.h, NNEF 1.0.2
// 4.3.4): every method (symmetric, asymmetric, aligned) and border, any number of spatial axes;
// and the RoI operators avg_roi_pool, max_roi_pool and roi_resample (4.6; described at their
// kernels below).
//
// Each spatial axis gives every output index its two input taps j0, j0 + 1 (read through the
// border, BorderIndex; a constant border reads 0) with integer weights den - num and num over
// den, from the chapter's coordinate formulas written out below. An output is the sum of its 2^m
// corner terms, each input value times the product of its axes' weights (an exact double: the
// weights are small integers), added in double, divided by the product of the denominators and
// rounded to float32: plain loops over output rows, split over the thread pool. The reference adds
// the same terms exactly (WindowSum); the difference is within the resample2d row it is judged by.
#include "ops/nnef_resample.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/nnef_common.h"
#include "ops/simd/family.h"

namespace nnref::simd {

namespace {

using nnef::UpsampleAttributes;
using nnef::UpsampleMethod;

int64_t FloorDiv(int64_t n, int64_t d) {  // d > 0
  const int64_t q = n / d;
  return (n % d != 0 && n < 0) ? q - 1 : q;
}

// Output index i of an axis of `extent` items up-sampled by `factor`: the input coordinate
// n / d, whose floor is the first tap and whose fraction the second tap's weight.
struct Tap {
  int64_t i0, i1;  // the two input items (-1: a constant border position)
  double w0, w1;   // their weights: den - num and num
  int64_t den;
};

Tap UpsampleTap(int64_t i, int64_t factor, int64_t extent, UpsampleMethod method,
                nnef::Border border) {
  int64_t n = 0, d = 1;
  switch (method) {
    case UpsampleMethod::kAsymmetric:  // i / f
      n = i;
      d = factor;
      break;
    case UpsampleMethod::kSymmetric:  // (i + 1/2) / f - 1/2 = (2 i - f + 1) / (2 f)
      n = 2 * i - factor + 1;
      d = 2 * factor;
      break;
    case UpsampleMethod::kAligned:  // i (X - 1) / (X f - 1); a single item reads itself
      if (extent > 1) {
        n = i * (extent - 1);
        d = extent * factor - 1;
      }
      break;
  }
  const int64_t j0 = FloorDiv(n, d);
  const int64_t num = n - j0 * d;
  return {nnef::BorderIndex(j0, extent, border), nnef::BorderIndex(j0 + 1, extent, border),
          static_cast<double>(d - num), static_cast<double>(num), d};
}

class UpsampleKernel final : public Kernel {
 public:
  UpsampleKernel(const UpsampleAttributes& a, Config config) : a_(a), config_(std::move(config)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Tensor x = in[0]->data.Contiguous();
    const Shape& xs = x.shape();
    const Shape& ys = out[0].shape;
    const size_t rank = ys.size(), m = a_.factors.size();
    std::vector<OperandValue> result(1);
    result[0].data = Tensor::Allocate(DataType::kFloat32, ys);
    const int64_t count = static_cast<int64_t>(result[0].data.element_count());
    if (count == 0) return result;
    std::vector<int64_t> xst(rank, 1);
    for (size_t k = rank; k-- > 1;) xst[k - 1] = xst[k] * static_cast<int64_t>(xs[k]);
    std::vector<std::vector<Tap>> taps(m);
    double den = 1;
    for (size_t k = 0; k < m; ++k) {
      const int64_t extent = static_cast<int64_t>(xs[k + 2]);
      for (int64_t i = 0; i < static_cast<int64_t>(ys[k + 2]); ++i) {
        taps[k].push_back(UpsampleTap(i, a_.factors[k], extent, a_.method, a_.border));
      }
      den *= static_cast<double>(taps[k][0].den);
    }
    const int64_t out_w = static_cast<int64_t>(ys[rank - 1]);
    const int64_t rows = count / out_w;
    const float* src = x.base<float>();
    float* y = result[0].data.base<float>();
    const size_t corners = size_t{1} << m;
    config_.pool->ParallelFor(static_cast<size_t>(rows), 16, [&](size_t begin, size_t end) {
      std::vector<int64_t> o(rank);
      for (size_t r = begin; r < end; ++r) {
        int64_t rest = static_cast<int64_t>(r);
        for (size_t k = rank - 1; k-- > 0;) {
          o[k] = rest % static_cast<int64_t>(ys[k]);
          rest /= static_cast<int64_t>(ys[k]);
        }
        const int64_t base = o[0] * xst[0] + o[1] * xst[1];
        for (int64_t ox = 0; ox < out_w; ++ox) {
          o[rank - 1] = ox;
          double acc = 0;
          for (size_t c = 0; c < corners; ++c) {
            double weight = 1;
            int64_t off = base;
            for (size_t k = 0; k < m && weight != 0; ++k) {
              const Tap& t = taps[k][static_cast<size_t>(o[k + 2])];
              const bool second = ((c >> (m - 1 - k)) & 1) != 0;
              const int64_t idx = second ? t.i1 : t.i0;
              weight *= second ? t.w1 : t.w0;
              if (idx < 0) weight = 0;  // a constant border position contributes 0
              off += idx * xst[k + 2];
            }
            if (weight != 0) acc += static_cast<double>(src[off]) * weight;
          }
          y[static_cast<int64_t>(r) * out_w + ox] = static_cast<float>(acc / den);
        }
      }
    });
    return result;
  }

 private:
  UpsampleAttributes a_;
  Config config_;
};

// The RoI operators' per-RoI checks, made before any arithmetic in the order the reference makes
// them (RoI by RoI: the batch index, then the coordinates lo_0, hi_0, lo_1, ...), so that a bad
// RoI raises the same error: a batch index outside the batch or a coordinate that is not finite
// (or beyond any tensor extent) is an OperationError at compute time.
void CheckRois(const float* rois, const int64_t* batch_index, int64_t count, size_t m,
               int64_t batch) {
  for (int64_t r = 0; r < count; ++r) {
    const int64_t b = batch_index[r];
    if (b < 0 || b >= batch) {
      nnef::ComputeError("RoI " + std::to_string(r) + ": batch_index " + std::to_string(b) +
                         " is outside the batch of " + std::to_string(batch));
    }
    for (size_t k = 0; k < m; ++k) {
      for (size_t c : {k, m + k}) {
        const double v =
            static_cast<double>(rois[r * 2 * static_cast<int64_t>(m) + static_cast<int64_t>(c)]);
        if (!std::isfinite(v) || std::fabs(v) > 9.0e15) {
          nnef::ComputeError("RoI " + std::to_string(r) + ": coordinate " + std::to_string(c) +
                             " (" + std::to_string(v) + ") is not a finite value in range");
        }
      }
    }
  }
}

// avg_roi_pool / max_roi_pool (4.6.1): per RoI, the coordinates rounded by floor(x + 0.5), the
// cell extent ceil(r / p) and stride floor(r / p); each output cell is pooled as avg_pool /
// max_pool with their 'constant' border: positions outside the input read 0 (a term of the sum,
// one more candidate for the maximum), the average divides by the cell volume. An empty cell
// gives 0 (the reference marks it open). Sums in double, rounded once; maxima exact. Planes
// (RoI, channel) are split over the thread pool.
class RoiPoolKernel final : public Kernel {
 public:
  RoiPoolKernel(const nnef::RoiAttributes& a, Config config) : a_(a), config_(std::move(config)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Tensor x = in[0]->data.Contiguous();
    const Tensor rt = in[1]->data.Contiguous();
    const Tensor bt = in[2]->data.Contiguous();
    const Shape& xs = x.shape();
    const Shape& ys = out[0].shape;
    const size_t m = a_.output_size.size();
    const int64_t count = static_cast<int64_t>(ys[0]), channels = static_cast<int64_t>(ys[1]);
    const float* rois = rt.base<float>();
    const int64_t* bi = bt.base<int64_t>();
    CheckRois(rois, bi, count, m, static_cast<int64_t>(xs[0]));
    std::vector<OperandValue> result(1);
    result[0].data = Tensor::Allocate(DataType::kFloat32, ys);
    if (result[0].data.element_count() == 0) return result;
    std::vector<int64_t> in_sp(m), out_sp(m);
    int64_t in_plane = 1, out_plane = 1;
    for (size_t k = 0; k < m; ++k) {
      in_sp[k] = static_cast<int64_t>(xs[k + 2]);
      out_sp[k] = static_cast<int64_t>(ys[k + 2]);
      in_plane *= in_sp[k];
      out_plane *= out_sp[k];
    }
    const std::vector<int64_t> st = [&] {
      std::vector<int64_t> s(m, 1);
      for (size_t k = m; k-- > 1;) s[k - 1] = s[k] * in_sp[k];
      return s;
    }();
    const float* xp = x.base<float>();
    float* y = result[0].data.base<float>();
    const bool max = a_.max;
    const auto mi = static_cast<int64_t>(m);
    config_.pool->ParallelFor(
        static_cast<size_t>(count * channels), 1, [&](size_t begin, size_t end) {
          std::vector<int64_t> start(m), cell(m), step(m), o(m), lo(m), extent(m), t(m);
          for (size_t plane = begin; plane < end; ++plane) {
            const int64_t r = static_cast<int64_t>(plane) / channels;
            const int64_t c = static_cast<int64_t>(plane) % channels;
            const float* src = xp + (bi[r] * channels + c) * in_plane;
            float* dst = y + static_cast<int64_t>(plane) * out_plane;
            bool empty = false;
            double volume = 1;
            for (size_t k = 0; k < m; ++k) {
              const auto round = [](float v) {
                return static_cast<int64_t>(std::floor(static_cast<double>(v) + 0.5));
              };
              const int64_t a = round(rois[r * 2 * mi + static_cast<int64_t>(k)]);
              const int64_t b = round(rois[r * 2 * mi + mi + static_cast<int64_t>(k)]);
              const int64_t extent_k = b - a, p = a_.output_size[k];
              start[k] = a;
              cell[k] = FloorDiv(extent_k + p - 1, p);  // ceil
              step[k] = FloorDiv(extent_k, p);
              empty = empty || cell[k] <= 0;
              volume *= static_cast<double>(cell[k]);
            }
            std::fill(o.begin(), o.end(), 0);
            for (int64_t at = 0; at < out_plane; ++at) {
              bool inside = !empty, clipped = false;
              for (size_t k = 0; k < m && inside; ++k) {
                const int64_t first = start[k] + o[k] * step[k];
                lo[k] = std::max<int64_t>(first, 0);
                const int64_t hi = std::min<int64_t>(first + cell[k], in_sp[k]);
                extent[k] = hi - lo[k];
                inside = extent[k] > 0;
                clipped = clipped || lo[k] != first || hi != first + cell[k];
              }
              // Positions outside the input read the constant border's 0.
              float best = 0;
              bool have = clipped || !inside;
              double sum = 0;
              if (inside) {
                std::fill(t.begin(), t.end(), 0);
                while (true) {
                  int64_t off = 0;
                  for (size_t k = 0; k < m; ++k) off += (lo[k] + t[k]) * st[k];
                  const float v = src[off];
                  if (max) {
                    if (!have || v > best) best = v;
                    have = true;
                  } else {
                    sum += static_cast<double>(v);
                  }
                  size_t k = m;
                  while (k-- > 0 && ++t[k] == extent[k]) t[k] = 0;
                  if (k == static_cast<size_t>(-1)) break;
                }
              }
              dst[at] = empty ? 0.0f : max ? best : static_cast<float>(sum / volume);
              for (size_t k = m; k-- > 0;) {
                if (++o[k] < out_sp[k]) break;
                o[k] = 0;
              }
            }
          }
        });
    return result;
  }

 private:
  nnef::RoiAttributes a_;
  Config config_;
};

// roi_resample (4.6.2): per RoI and spatial axis, output i samples the input at the method's
// coordinate (symmetric lo + (i + 0.5) r / h - 0.5, asymmetric lo + i r / h, aligned
// lo + i (r - 1) / (h - 1)), between the two items around it clamped to the input (replicate)
// with weights 1 - u and u; the 2^m corner terms are added in double and rounded once. Planes
// (RoI, channel) are split over the thread pool.
class RoiResampleKernel final : public Kernel {
 public:
  RoiResampleKernel(const nnef::RoiAttributes& a, Config config)
      : a_(a), config_(std::move(config)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Tensor x = in[0]->data.Contiguous();
    const Tensor rt = in[1]->data.Contiguous();
    const Tensor bt = in[2]->data.Contiguous();
    const Shape& xs = x.shape();
    const Shape& ys = out[0].shape;
    const size_t m = a_.output_size.size();
    const int64_t count = static_cast<int64_t>(ys[0]), channels = static_cast<int64_t>(ys[1]);
    const float* rois = rt.base<float>();
    const int64_t* bi = bt.base<int64_t>();
    CheckRois(rois, bi, count, m, static_cast<int64_t>(xs[0]));
    std::vector<OperandValue> result(1);
    result[0].data = Tensor::Allocate(DataType::kFloat32, ys);
    if (result[0].data.element_count() == 0) return result;
    std::vector<int64_t> in_sp(m), out_sp(m);
    int64_t in_plane = 1, out_plane = 1;
    for (size_t k = 0; k < m; ++k) {
      in_sp[k] = static_cast<int64_t>(xs[k + 2]);
      out_sp[k] = static_cast<int64_t>(ys[k + 2]);
      in_plane *= in_sp[k];
      out_plane *= out_sp[k];
    }
    std::vector<int64_t> st(m, 1);
    for (size_t k = m; k-- > 1;) st[k - 1] = st[k] * in_sp[k];
    // Per RoI, axis and output index: the two items (offsets along the axis) and weights.
    struct RoiTap {
      int64_t i0, i1;
      double w0, w1;
    };
    const auto mi = static_cast<int64_t>(m);
    std::vector<std::vector<std::vector<RoiTap>>> taps(static_cast<size_t>(count));
    for (int64_t r = 0; r < count; ++r) {
      auto& roi = taps[static_cast<size_t>(r)];
      roi.resize(m);
      for (size_t k = 0; k < m; ++k) {
        const double lo = static_cast<double>(rois[r * 2 * mi + static_cast<int64_t>(k)]);
        const double hi = static_cast<double>(rois[r * 2 * mi + mi + static_cast<int64_t>(k)]);
        const double h = static_cast<double>(out_sp[k]), extent = hi - lo;
        for (int64_t i = 0; i < out_sp[k]; ++i) {
          const double di = static_cast<double>(i);
          double c = lo;
          if (a_.method == nnef::UpsampleMethod::kSymmetric) {
            c = lo + (di + 0.5) * extent / h - 0.5;
          } else if (a_.method == nnef::UpsampleMethod::kAsymmetric) {
            c = lo + di * extent / h;
          } else if (out_sp[k] > 1) {
            c = lo + di * (extent - 1) / (h - 1);
          }
          const double j0 = std::floor(c), u = c - j0;
          const double last = static_cast<double>(in_sp[k] - 1);
          roi[k].push_back({static_cast<int64_t>(std::clamp(j0, 0.0, last)) * st[k],
                            static_cast<int64_t>(std::clamp(j0 + 1, 0.0, last)) * st[k], 1 - u, u});
        }
      }
    }
    const float* xp = x.base<float>();
    float* y = result[0].data.base<float>();
    const size_t corners = size_t{1} << m;
    config_.pool->ParallelFor(static_cast<size_t>(count * channels), 1,
                              [&](size_t begin, size_t end) {
                                std::vector<int64_t> o(m);
                                for (size_t plane = begin; plane < end; ++plane) {
                                  const int64_t r = static_cast<int64_t>(plane) / channels;
                                  const int64_t c = static_cast<int64_t>(plane) % channels;
                                  const auto& roi = taps[static_cast<size_t>(r)];
                                  const float* src = xp + (bi[r] * channels + c) * in_plane;
                                  float* dst = y + static_cast<int64_t>(plane) * out_plane;
                                  std::fill(o.begin(), o.end(), 0);
                                  for (int64_t at = 0; at < out_plane; ++at) {
                                    double acc = 0;
                                    for (size_t corner = 0; corner < corners; ++corner) {
                                      double weight = 1;
                                      int64_t off = 0;
                                      for (size_t k = 0; k < m; ++k) {
                                        const RoiTap& t = roi[k][static_cast<size_t>(o[k])];
                                        const bool second = ((corner >> (m - 1 - k)) & 1) != 0;
                                        weight *= second ? t.w1 : t.w0;
                                        off += second ? t.i1 : t.i0;
                                      }
                                      if (weight != 0)
                                        acc += static_cast<double>(src[off]) * weight;
                                    }
                                    dst[at] = static_cast<float>(acc);
                                    for (size_t k = m; k-- > 0;) {
                                      if (++o[k] < out_sp[k]) break;
                                      o[k] = 0;
                                    }
                                  }
                                }
                              });
    return result;
  }

 private:
  nnef::RoiAttributes a_;
  Config config_;
};

std::optional<std::string> Unsupported(OpId op, DataType type) {
  if (op != OpId::nnef_multilinear_upsample && op != OpId::nnef_avg_roi_pool &&
      op != OpId::nnef_max_roi_pool && op != OpId::nnef_roi_resample) {
    return std::nullopt;
  }
  if (type != DataType::kFloat32) return std::string(DataTypeName(type)) + " not supported";
  return std::string();
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index, const Config& config,
                                   std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  if (node.op != OpId::nnef_multilinear_upsample) {
    const auto* r = node.Attributes<nnef::RoiAttributes>();
    if (r == nullptr || r->output_size.empty()) {
      why = "the node carries no attributes";
      return nullptr;
    }
    if (node.op == OpId::nnef_roi_resample) return std::make_shared<RoiResampleKernel>(*r, config);
    return std::make_shared<RoiPoolKernel>(*r, config);
  }
  const auto* a = node.Attributes<UpsampleAttributes>();
  if (a == nullptr || a->factors.empty()) {
    why = "the node carries no attributes";
    return nullptr;
  }
  return std::make_shared<UpsampleKernel>(*a, config);
}

}  // namespace

const Family kNnefResampleFamily = {Unsupported, Make};

}  // namespace nnref::simd
