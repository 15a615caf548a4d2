// The simd backend's multilinear_upsample of the NNEF group (ops/nnef_resample.h, NNEF 1.0.2
// 4.3.4): every method (symmetric, asymmetric, aligned) and border, any number of spatial axes.
// The RoI operators are left to MakeKernel's reason (a backend-unsupported skip).
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
#include <cstdint>
#include <string>
#include <vector>

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

std::optional<std::string> Unsupported(OpId op, DataType type) {
  if (op != OpId::nnef_multilinear_upsample) return std::nullopt;
  if (type != DataType::kFloat32) return std::string(DataTypeName(type)) + " not supported";
  return std::string();
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index, const Config& config,
                                   std::string& why) {
  const auto* a = graph.operators()[index].Attributes<UpsampleAttributes>();
  if (a == nullptr || a->factors.empty()) {
    why = "the node carries no attributes";
    return nullptr;
  }
  return std::make_shared<UpsampleKernel>(*a, config);
}

}  // namespace

const Family kNnefResampleFamily = {Unsupported, Make};

}  // namespace nnref::simd
