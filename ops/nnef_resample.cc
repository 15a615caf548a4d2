// NNEF multilinear_upsample and RoI operators; see nnef_resample.h.
#include "ops/nnef_resample.h"

#include <algorithm>
#include <array>

#include "ops/nnef_common.h"

namespace nnref::nnef {

std::optional<UpsampleMethod> ParseUpsampleMethod(std::string_view name) {
  if (name == "symmetric") return UpsampleMethod::kSymmetric;
  if (name == "asymmetric") return UpsampleMethod::kAsymmetric;
  if (name == "aligned") return UpsampleMethod::kAligned;
  return std::nullopt;
}

namespace {

// One axis of the interpolation: output i reads input j0 with weight (den - num) / den and j0 + 1
// with weight num / den.
struct Tap2 {
  int64_t j0;
  int64_t num, den;
};

Tap2 UpsampleTap(int64_t i, int64_t factor, int64_t extent, UpsampleMethod method) {
  int64_t n = 0, d = 1;
  switch (method) {
    case UpsampleMethod::kAsymmetric:  // j = floor(i / f), u = frac(i / f)
      n = i;
      d = factor;
      break;
    case UpsampleMethod::kSymmetric:  // (i - (f - 1) / 2) / f = (2 i - f + 1) / (2 f)
      n = 2 * i - factor + 1;
      d = 2 * factor;
      break;
    case UpsampleMethod::kAligned:  // i / g, g = (x f - 1) / (x - 1)
      if (extent == 1) {
        n = 0;
        d = 1;
      } else {
        n = i * (extent - 1);
        d = extent * factor - 1;
      }
      break;
  }
  const int64_t j0 = FloorDiv(n, d);
  return {j0, n - j0 * d, d};
}

class UpsampleKernel final : public Kernel {
 public:
  explicit UpsampleKernel(std::shared_ptr<const UpsampleAttributes> a) : a_(std::move(a)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Floats x(in[0]->data);
    const Index xs = ToIndex(in[0]->data.shape());
    const Index ys = ToIndex(out[0].shape);
    const size_t m = a_->factors.size();
    const Index xst = DenseStrides(xs);
    std::vector<std::vector<Tap2>> taps(m);
    double den = 1;
    for (size_t k = 0; k < m; ++k) {
      for (int64_t i = 0; i < ys[k + 2]; ++i) {
        taps[k].push_back(UpsampleTap(i, a_->factors[k], xs[k + 2], a_->method));
      }
      den *= static_cast<double>(taps[k].empty() ? 1 : taps[k][0].den);
    }
    OperandValue result = NewOutput(out[0]);
    float* y = result.data.base<float>();
    int64_t yo = 0;
    Index o(ys.size(), 0);
    const Index corners(m, 2);
    do {
      WindowSum acc;
      Index c(m, 0);
      do {
        double weight = 1;  // an integer: the product of the per-axis numerators
        bool border = false;
        int64_t off = o[0] * xst[0] + o[1] * xst[1];
        for (size_t k = 0; k < m && weight != 0; ++k) {
          const Tap2& t = taps[k][static_cast<size_t>(o[k + 2])];
          weight *= static_cast<double>(c[k] == 0 ? t.den - t.num : t.num);
          const int64_t idx = BorderIndex(t.j0 + c[k], xs[k + 2], a_->border);
          if (idx < 0) border = true;
          off += idx * xst[k + 2];
        }
        // A zero weight leaves its term out; a constant border position contributes 0.
        if (weight != 0 && !border) AddProduct(acc, x[off], weight);
      } while (Next(c, corners));
      y[yo++] = Finish(acc, den);
    } while (Next(o, ys));
    return {std::move(result)};
  }

 private:
  std::shared_ptr<const UpsampleAttributes> a_;
};

// A RoI coordinate as a double, checked to be finite and within the range any tensor extent has.
double RoiCoordinate(double v, int64_t roi, size_t k) {
  if (!std::isfinite(v) || std::fabs(v) > 9.0e15) {
    ComputeError("RoI " + std::to_string(roi) + ": coordinate " + std::to_string(k) + " (" +
                 std::to_string(v) + ") is not a finite value in range");
  }
  return v;
}

int64_t BatchIndexOf(const Ints& bi, int64_t roi, int64_t batch) {
  const int64_t b = bi.p[roi];
  if (b < 0 || b >= batch) {
    ComputeError("RoI " + std::to_string(roi) + ": batch_index " + std::to_string(b) +
                 " is outside the batch of " + std::to_string(batch));
  }
  return b;
}

class RoiPoolKernel final : public Kernel {
 public:
  explicit RoiPoolKernel(std::shared_ptr<const RoiAttributes> a) : a_(std::move(a)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Floats x(in[0]->data);
    const Floats rois(in[1]->data);
    const Ints bi(in[2]->data);
    const Index xs = ToIndex(in[0]->data.shape());
    const Index ys = ToIndex(out[0].shape);
    const std::vector<int64_t>& size = a_->output_size;
    const size_t m = size.size();
    const auto mi = static_cast<int64_t>(m);
    const Index xst = DenseStrides(xs);
    OperandValue result = NewOutput(out[0]);
    float* y = result.data.base<float>();
    Tensor lat;
    int64_t yo = 0;
    for (int64_t r = 0; r < ys[0]; ++r) {
      const int64_t b = BatchIndexOf(bi, r, xs[0]);
      // Coordinates rounded to the nearest integer (round = floor(x + 0.5)); cell extent
      // ceil(r / p), cell stride floor(r / p); cell i covers [start + i * s, start + i * s + c).
      Index start(m), cell(m), step(m);
      for (size_t k = 0; k < m; ++k) {
        const auto lo = static_cast<int64_t>(
            RoundHalfUp(RoiCoordinate(rois[r * 2 * mi + static_cast<int64_t>(k)], r, k)));
        const auto hi = static_cast<int64_t>(
            RoundHalfUp(RoiCoordinate(rois[r * 2 * mi + static_cast<int64_t>(m + k)], r, m + k)));
        start[k] = lo;
        cell[k] = CeilDiv(hi - lo, size[k]);
        step[k] = FloorDiv(hi - lo, size[k]);
      }
      const bool empty = std::any_of(cell.begin(), cell.end(), [](int64_t c) { return c <= 0; });
      double volume = 1;  // may exceed 64 bits for hostile coordinates
      for (int64_t c : cell) volume *= static_cast<double>(c);
      for (int64_t c = 0; c < ys[1]; ++c) {
        const int64_t base = b * xst[0] + c * xst[1];
        Index o(m, 0);
        const Index out_sp(ys.begin() + 2, ys.end());
        do {
          // The cell clipped to the input: positions outside read the constant border 0, which
          // adds nothing to the sum and is one more candidate for the maximum.
          Index lo(m), extent(m);
          bool outside = false, inside = !empty;
          for (size_t k = 0; k < m && inside; ++k) {
            const int64_t first = start[k] + o[k] * step[k];
            lo[k] = std::max<int64_t>(first, 0);
            const int64_t hi = std::min<int64_t>(first + cell[k], xs[k + 2]);
            extent[k] = hi - lo[k];
            if (extent[k] <= 0) inside = false;
            if (lo[k] != first || hi != first + cell[k]) outside = true;
          }
          bool open = empty;
          double best = 0;
          bool have = outside || !inside;  // the border's 0 is a candidate
          WindowSum acc;
          if (inside) {
            Index t(m, 0);
            do {
              int64_t off = base;
              for (size_t k = 0; k < m; ++k) off += (lo[k] + t[k]) * xst[k + 2];
              const double v = x[off];
              if (a_->max) {
                if (std::isnan(v)) open = true;
                if (!have || v > best) best = v;
                have = true;
              } else {
                acc.Add(v);
              }
            } while (Next(t, extent));
          }
          if (open) MarkOpen(lat, out[0].shape, yo);
          if (empty) {
            y[yo] = 0;
          } else if (a_->max) {
            y[yo] = static_cast<float>(best);  // a float32 value or 0: exact
          } else {
            y[yo] = Finish(acc, volume);
          }
          ++yo;
        } while (Next(o, out_sp));
      }
    }
    if (lat.valid()) result.latitude = lat;
    return {std::move(result)};
  }

 private:
  std::shared_ptr<const RoiAttributes> a_;
};

class RoiResampleKernel final : public Kernel {
 public:
  explicit RoiResampleKernel(std::shared_ptr<const RoiAttributes> a) : a_(std::move(a)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Floats x(in[0]->data);
    const Floats rois(in[1]->data);
    const Ints bi(in[2]->data);
    const Index xs = ToIndex(in[0]->data.shape());
    const Index ys = ToIndex(out[0].shape);
    const std::vector<int64_t>& size = a_->output_size;
    const size_t m = size.size();
    const auto mi = static_cast<int64_t>(m);
    const Index xst = DenseStrides(xs);
    OperandValue result = NewOutput(out[0]);
    float* y = result.data.base<float>();
    int64_t yo = 0;
    const Index corners(m, 2);
    const Index out_sp(ys.begin() + 2, ys.end());
    for (int64_t r = 0; r < ys[0]; ++r) {
      const int64_t b = BatchIndexOf(bi, r, xs[0]);
      // Per axis and output position: the two input indices (clamped: replicate border) and
      // their weights, from the sampling coordinate of the method (see docs/nnef-execution.md).
      std::vector<std::vector<std::array<double, 4>>> taps(m);
      for (size_t k = 0; k < m; ++k) {
        const double lo = RoiCoordinate(rois[r * 2 * mi + static_cast<int64_t>(k)], r, k);
        const double hi = RoiCoordinate(rois[r * 2 * mi + static_cast<int64_t>(m + k)], r, m + k);
        const double extent = hi - lo;
        const auto h = static_cast<double>(size[k]);
        for (int64_t i = 0; i < size[k]; ++i) {
          const auto di = static_cast<double>(i);
          double c = lo;
          switch (a_->method) {
            case UpsampleMethod::kSymmetric:
              c = lo + (di + 0.5) * extent / h - 0.5;
              break;
            case UpsampleMethod::kAsymmetric:
              c = lo + di * extent / h;
              break;
            case UpsampleMethod::kAligned:
              c = size[k] > 1 ? lo + di * (extent - 1) / (h - 1) : lo;
              break;
          }
          const double j0 = std::floor(c);
          const double u = c - j0;
          const auto last = static_cast<double>(xs[k + 2] - 1);
          taps[k].push_back({std::clamp(j0, 0.0, last), 1 - u, std::clamp(j0 + 1, 0.0, last), u});
        }
      }
      for (int64_t c = 0; c < ys[1]; ++c) {
        Index o(m, 0);
        do {
          WindowSum acc;
          Index cr(m, 0);
          do {
            double weight = 1;
            int64_t off = b * xst[0] + c * xst[1];
            for (size_t k = 0; k < m; ++k) {
              const std::array<double, 4>& t = taps[k][static_cast<size_t>(o[k])];
              weight *= t[cr[k] == 0 ? 1 : 3];
              off += static_cast<int64_t>(t[cr[k] == 0 ? 0 : 2]) * xst[k + 2];
            }
            if (weight != 0) AddProduct(acc, x[off], weight);
          } while (Next(cr, corners));
          y[yo++] = Finish(acc);
        } while (Next(o, out_sp));
      }
    }
    return {std::move(result)};
  }

 private:
  std::shared_ptr<const RoiAttributes> a_;
};

void Require(bool ok, const char* op, const std::string& what) {
  if (!ok) ThrowTypeError(std::string(op) + ": " + what);
}

Shape RoiOutput(const GraphBuilder& builder, const char* op, const Operand& input,
                const Operand& rois, const Operand& batch_index, const RoiAttributes& a) {
  const OperandDescriptor& x = builder.Desc(input);
  const OperandDescriptor& r = builder.Desc(rois);
  const OperandDescriptor& bi = builder.Desc(batch_index);
  Require(x.dataType == DataType::kFloat32 && r.dataType == DataType::kFloat32 &&
              bi.dataType == DataType::kInt64,
          op, "input and rois must be float32, batch_index int64");
  Require(x.shape.size() >= 3 && a.output_size.size() == x.shape.size() - 2, op,
          "output_size must have one item per spatial axis");
  const size_t m = a.output_size.size();
  Require(r.shape.size() == 2 && r.shape[1] == 2 * m && bi.ElementCount() == r.shape[0], op,
          "rois must be [N, 2m] and batch_index hold N items");
  Shape out{r.shape[0], x.shape[1]};
  for (int64_t s : a.output_size) {
    Require(s > 0, op, "output_size items must be positive");
    out.push_back(static_cast<uint64_t>(s));
  }
  return out;
}

}  // namespace

Operand NnefMultilinearUpsample(GraphBuilder& builder, const Operand& input,
                                const UpsampleAttributes& attributes) {
  const OperandDescriptor& d = builder.Desc(input);
  const char* op = "multilinear_upsample";
  Require(d.dataType == DataType::kFloat32, op, "the input must be float32");
  Require(d.shape.size() >= 2 && attributes.factors.size() == d.shape.size() - 2, op,
          "factor must have one item per spatial axis");
  Require(attributes.border != Border::kIgnore, op, "the border must not be 'ignore'");
  Shape out = d.shape;
  for (size_t k = 0; k < attributes.factors.size(); ++k) {
    Require(attributes.factors[k] > 0, op, "factor items must be positive");
    out[k + 2] *= static_cast<uint64_t>(attributes.factors[k]);
  }
  auto a = std::make_shared<const UpsampleAttributes>(attributes);
  return AddNnefNode(builder, OpId::nnef_multilinear_upsample, {input},
                     std::make_shared<UpsampleKernel>(a), a, {{DataType::kFloat32, out}},
                     uint64_t{1} << std::min<size_t>(attributes.factors.size(), 16))[0];
}

Operand NnefRoiPool(GraphBuilder& builder, const Operand& input, const Operand& rois,
                    const Operand& batch_index, const RoiAttributes& attributes) {
  const char* op = attributes.max ? "max_roi_pool" : "avg_roi_pool";
  const Shape out = RoiOutput(builder, op, input, rois, batch_index, attributes);
  const Shape& xs = builder.Desc(input).shape;
  auto a = std::make_shared<const RoiAttributes>(attributes);
  return AddNnefNode(builder, attributes.max ? OpId::nnef_max_roi_pool : OpId::nnef_avg_roi_pool,
                     {input, rois, batch_index}, std::make_shared<RoiPoolKernel>(a), a,
                     {{DataType::kFloat32, out}}, ElementCount(xs) / (xs[0] * xs[1]))[0];
}

Operand NnefRoiResample(GraphBuilder& builder, const Operand& input, const Operand& rois,
                        const Operand& batch_index, const RoiAttributes& attributes) {
  const Shape out = RoiOutput(builder, "roi_resample", input, rois, batch_index, attributes);
  auto a = std::make_shared<const RoiAttributes>(attributes);
  return AddNnefNode(builder, OpId::nnef_roi_resample, {input, rois, batch_index},
                     std::make_shared<RoiResampleKernel>(a), a, {{DataType::kFloat32, out}},
                     uint64_t{1} << std::min<size_t>(attributes.output_size.size(), 16))[0];
}

}  // namespace nnref::nnef
