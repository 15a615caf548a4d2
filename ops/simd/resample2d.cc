// The simd backend's resample2d (§api-mlgraphbuilder-resample2d-method), as in the reference's
// ops/resample2d.cc.
//
// resample2d walks output rows along the spec's x axis (the second of `axes`). The sampling
// positions per axis come from the exact rational coordinate of the spec's formula
// ((2 o + 1) inputSize - outputSize) / (2 outputSize), clamped (a table per axis, computed once
// per call). Nearest neighbor copies elements (every data type). Linear, float types: LerpRow
// interpolates in double vectors and rounds once. Linear, int8/uint8: the exact integer-weight
// value rounded to nearest, ties to even (the reference marks non-integral results
// implementation-defined).
#include "ops/resample2d.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "numerics/float16.h"
#include "ops/simd/family.h"
#include "ops/simd/rows.h"
#include "ops/simd/window_rows.h"

namespace nnref::simd {

namespace {

// ---------------------------------------------------------------------------------------------
// resample2d

struct AxisTable {
  std::vector<int32_t> index0, index1;  // the samples (equal for nearest neighbor)
  std::vector<int64_t> num;             // linear: weight of index1 = num / den
  int64_t den = 1;
};

// The reference's samples of one axis (ops/resample2d.h) as the rows' tables; den is
// 2 * out_size in both modes (num stays 0 for nearest-neighbor).
AxisTable SampleAxis(int64_t in_size, int64_t out_size, MLInterpolationMode mode) {
  const std::vector<Resample2dAxisSample> samples = SampleResampleAxis(in_size, out_size, mode);
  AxisTable t;
  const size_t n = samples.size();
  t.index0.resize(n);
  t.index1.resize(n);
  t.num.resize(n);
  t.den = 2 * out_size;  // inputCoordinate = num / den
  for (size_t k = 0; k < n; ++k) {
    t.index0[k] = static_cast<int32_t>(samples[k].index0);
    t.index1[k] = static_cast<int32_t>(samples[k].index1);
    t.num[k] = samples[k].frac_num;
  }
  return t;
}

class ResampleKernel final : public Kernel {
 public:
  ResampleKernel(const Resample2dAttributes& a, Config config)
      : a_(a), config_(std::move(config)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    return One(DispatchDataType(out[0].dataType,
                                [&]<typename T>() { return Run<T>(in[0]->data, out[0]); }));
  }

 private:
  template <typename T>
  Tensor Run(const Tensor& x, const OperandDescriptor& out_desc) const {
    const size_t ay = a_.axis_y, ax = a_.axis_x;
    const bool linear = a_.mode == MLInterpolationMode::kLinear;
    const Shape& out_shape = out_desc.shape;
    Tensor result = Tensor::Allocate(out_desc.dataType, out_shape);
    if (result.element_count() == 0) return result;
    const auto size = [](const Shape& s, size_t axis) { return static_cast<int64_t>(s[axis]); };
    const AxisTable ty = SampleAxis(size(x.shape(), ay), size(out_shape, ay), a_.mode);
    const AxisTable tx = SampleAxis(size(x.shape(), ax), size(out_shape, ax), a_.mode);
    const int64_t in_width = size(x.shape(), ax), out_width = size(out_shape, ax);
    std::vector<double> wx(static_cast<size_t>(out_width));
    for (size_t i = 0; i < wx.size(); ++i) {
      wx[i] = static_cast<double>(tx.num[i]) / static_cast<double>(tx.den);
    }
    const Strides& is = x.strides();
    const Strides os = ContiguousStrides(out_shape);
    // Output rows: every output coordinate but the x axis, row-major.
    Shape row_shape = out_shape;
    row_shape[ax] = 1;
    const uint64_t rows = ElementCount(row_shape);
    const T* src = x.base<T>();
    T* dst = result.base<T>();
    const size_t grain =
        static_cast<size_t>(std::max<int64_t>(1, 8192 / std::max<int64_t>(1, out_width)));
    config_.pool->ParallelFor(rows, grain, [&](size_t begin, size_t end) {
      std::vector<float> r0(static_cast<size_t>(in_width)), r1(r0.size()),
          line(static_cast<size_t>(out_width));
      for (size_t r = begin; r < end; ++r) {
        // The row's coordinates: the input offset of the unresampled axes, the output offset.
        int64_t in_base = 0, out_base = 0, oy = 0;
        uint64_t rest = r;
        for (size_t axis = row_shape.size(); axis-- > 0;) {
          const int64_t i = static_cast<int64_t>(rest % row_shape[axis]);
          rest /= row_shape[axis];
          out_base += i * os[axis];
          if (axis == ay) {
            oy = i;
          } else if (axis != ax) {
            in_base += i * is[axis];
          }
        }
        const size_t y = static_cast<size_t>(oy);
        const int64_t row0 = in_base + ty.index0[y] * is[ay];
        const int64_t row1 = in_base + ty.index1[y] * is[ay];
        if (!linear) {
          for (int64_t o = 0; o < out_width; ++o) {
            dst[out_base + o * os[ax]] = src[row0 + tx.index0[static_cast<size_t>(o)] * is[ax]];
          }
          continue;
        }
        if constexpr (kIsFloatStorage<T>) {
          for (int64_t i = 0; i < in_width; ++i) {
            r0[static_cast<size_t>(i)] = Load(src, row0 + i * is[ax]);
            r1[static_cast<size_t>(i)] = Load(src, row1 + i * is[ax]);
          }
          const double wy = static_cast<double>(ty.num[y]) / static_cast<double>(ty.den);
          LerpRow(r0.data(), r1.data(), tx.index0.data(), tx.index1.data(), wx.data(), wy,
                  line.data(), static_cast<size_t>(out_width));
          for (int64_t o = 0; o < out_width; ++o) {
            StoreAt<T>(dst, out_base + o * os[ax], line[static_cast<size_t>(o)]);
          }
        } else {  // int8/uint8: exact value with integer weights, rounded half to even
          const int64_t dx = tx.den, dy = ty.den, by = ty.num[y];
          for (int64_t o = 0; o < out_width; ++o) {
            const size_t k = static_cast<size_t>(o);
            const int64_t bx = tx.num[k];
            const auto at = [&](int64_t row, int32_t i) {
              return static_cast<int64_t>(src[row + i * is[ax]]);
            };
            // |value| < 2^8 and den < 2^33 per axis: the weighted sum fits in 128 bits.
            const __int128 num = static_cast<__int128>(at(row0, tx.index0[k]) * (dx - bx) +
                                                       at(row0, tx.index1[k]) * bx) *
                                     (dy - by) +
                                 static_cast<__int128>(at(row1, tx.index0[k]) * (dx - bx) +
                                                       at(row1, tx.index1[k]) * bx) *
                                     by;
            const __int128 den = static_cast<__int128>(dx) * dy;
            // The quotient lies within the samples' range, so it fits in T.
            dst[out_base + o * os[ax]] = static_cast<T>(RoundHalfEven(num, den));
          }
        }
      }
    });
    return result;
  }

  Resample2dAttributes a_;
  Config config_;
};

// ---------------------------------------------------------------------------------------------

std::optional<std::string> Unsupported(OpId op, DataType) {
  if (op == OpId::resample2d) return std::string();  // float32, float16, int8, uint8
  return std::nullopt;
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index, const Config& config,
                                   std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  if (const auto* a = node.Attributes<Resample2dAttributes>()) {
    return std::make_shared<ResampleKernel>(*a, config);
  }
  why = "the node carries no attributes";
  return nullptr;
}

}  // namespace

const Family kResample2dFamily = {Unsupported, Make};

}  // namespace nnref::simd
