// The simd backend's window family: averagePool2d, l2Pool2d, maxPool2d
// (§api-mlgraphbuilder-pool2d) and resample2d (§api-mlgraphbuilder-resample2d-method).
//
// Pooling works channels-last, as production CPU backends do: the input is read once into an
// NHWC buffer (float32 for the float types; used in place when it already is one), and every
// output position reduces the rows of C channels of its window's real elements (padding is not an
// element, as the reference reads the spec) with the Highway row function PoolRow: a vector of
// channels at a time. Output rows (batch, output y) are split over the thread pool. A window
// without a real element gets -Inf / the lowest value (max), NaN (average) or 0 (L2): the
// reference marks the first two implementation-defined.
//
// resample2d walks output rows along the spec's x axis (the second of `axes`). The sampling
// positions per axis come from the exact rational coordinate of the spec's formula
// ((2 o + 1) inputSize - outputSize) / (2 outputSize), clamped (a table per axis, computed once
// per call). Nearest neighbor copies elements (every data type). Linear, float types: LerpRow
// interpolates in double vectors and rounds once. Linear, int8/uint8: the exact integer-weight
// value rounded to nearest, ties to even (the reference marks non-integral results
// implementation-defined).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "numerics/float16.h"
#include "ops/pool2d.h"
#include "ops/resample2d.h"
#include "ops/simd/family.h"
#include "ops/simd/rows.h"
#include "ops/simd/window_rows.h"

namespace nnref::simd {

namespace {

std::vector<OperandValue> One(Tensor t) {
  std::vector<OperandValue> r(1);
  r[0].data = std::move(t);
  return r;
}

// Storage type T as computed: float for float16, else itself.
template <typename T>
using Computed = std::conditional_t<std::is_same_v<T, Float16>, float, T>;

template <typename T>
Computed<T> Load(const T* p, int64_t off) {
  if constexpr (std::is_same_v<T, Float16>) {
    return p[off].ToFloat();
  } else {
    return p[off];
  }
}

template <typename T>
void StoreAt(T* p, int64_t off, Computed<T> v) {
  if constexpr (std::is_same_v<T, Float16>) {
    p[off] = Float16::FromFloat(v);
  } else {
    p[off] = v;
  }
}

// ---------------------------------------------------------------------------------------------
// Pooling

class PoolKernel final : public Kernel {
 public:
  PoolKernel(const Pool2dAttributes& a, Config config) : a_(a), config_(std::move(config)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    return One(DispatchDataType(out[0].dataType,
                                [&]<typename T>() { return Run<T>(in[0]->data, out[0]); }));
  }

 private:
  template <typename T>
  Tensor Run(const Tensor& x, const OperandDescriptor& out_desc) const {
    using S = Computed<T>;
    const ImageAxes& ia = a_.image;
    const auto dim = [](const Shape& s, size_t axis) { return static_cast<int64_t>(s[axis]); };
    const int64_t batches = dim(x.shape(), ia.batch), channels = dim(x.shape(), ia.channel);
    const int64_t height = dim(x.shape(), ia.height), width = dim(x.shape(), ia.width);
    const int64_t out_height = dim(out_desc.shape, ia.height);
    const int64_t out_width = dim(out_desc.shape, ia.width);
    Tensor result = Tensor::Allocate(out_desc.dataType, out_desc.shape);
    if (result.element_count() == 0) return result;

    // The input channels-last: element (n, y, x, c) at ((n * H + y) * W + x) * C + c.
    const Strides& is = x.strides();
    const bool in_place = std::is_same_v<T, S> && is[ia.channel] == 1 && is[ia.width] == channels &&
                          is[ia.height] == width * channels &&
                          is[ia.batch] == height * width * channels;
    std::vector<S> buffer;
    const S* nhwc = nullptr;
    if (in_place) {
      nhwc = reinterpret_cast<const S*>(x.base<T>());
    } else {
      buffer.resize(static_cast<size_t>(batches * height * width * channels));
      const T* src = x.base<T>();
      config_.pool->ParallelFor(
          static_cast<size_t>(batches * height), 16, [&](size_t begin, size_t end) {
            for (size_t r = begin; r < end; ++r) {
              const int64_t n = static_cast<int64_t>(r) / height;
              const int64_t y = static_cast<int64_t>(r) % height;
              S* dst = buffer.data() + static_cast<int64_t>(r) * width * channels;
              for (int64_t c = 0; c < channels; ++c) {
                const int64_t base = n * is[ia.batch] + y * is[ia.height] + c * is[ia.channel];
                for (int64_t w = 0; w < width; ++w) {
                  dst[w * channels + c] = Load(src, base + w * is[ia.width]);
                }
              }
            }
          });
      nhwc = buffer.data();
    }

    const Strides os = ContiguousStrides(out_desc.shape);
    T* dst = result.base<T>();
    const size_t rows = static_cast<size_t>(batches * out_height);
    const size_t grain = static_cast<size_t>(
        std::max<int64_t>(1, 4096 / std::max<int64_t>(1, out_width * channels)));
    config_.pool->ParallelFor(rows, grain, [&](size_t begin, size_t end) {
      std::vector<const S*> window;
      std::vector<S> out_row(static_cast<size_t>(out_width * channels));
      for (size_t r = begin; r < end; ++r) {
        const int64_t n = static_cast<int64_t>(r) / out_height;
        const int64_t oy = static_cast<int64_t>(r) % out_height;
        for (int64_t ox = 0; ox < out_width; ++ox) {
          window.clear();
          for (int64_t ky = 0; ky < a_.window_height; ++ky) {
            const int64_t y = oy * a_.stride_height - a_.pad_top + ky * a_.dilation_height;
            if (y < 0 || y >= height) continue;
            for (int64_t kx = 0; kx < a_.window_width; ++kx) {
              const int64_t xx = ox * a_.stride_width - a_.pad_left + kx * a_.dilation_width;
              if (xx < 0 || xx >= width) continue;
              window.push_back(nhwc + ((n * height + y) * width + xx) * channels);
            }
          }
          S* o = out_row.data() + ox * channels;
          Reduce<S>(window, static_cast<size_t>(channels), o);
        }
        // Write the row (out_width x channels) into the output's layout.
        for (int64_t ox = 0; ox < out_width; ++ox) {
          const int64_t base = n * os[ia.batch] + oy * os[ia.height] + ox * os[ia.width];
          for (int64_t c = 0; c < channels; ++c) {
            StoreAt<T>(dst, base + c * os[ia.channel],
                       out_row[static_cast<size_t>(ox * channels + c)]);
          }
        }
      }
    });
    return result;
  }

  template <typename S>
  void Reduce(const std::vector<const S*>& window, size_t channels, S* out) const {
    if (window.empty()) {  // no real element: open for max and average; 0 for L2
      S fill{};
      if constexpr (std::is_floating_point_v<S>) {
        fill = a_.op == PoolOp::kMax  ? -std::numeric_limits<S>::infinity()
               : a_.op == PoolOp::kL2 ? S{0}
                                      : std::numeric_limits<S>::quiet_NaN();
      } else {
        fill = std::numeric_limits<S>::lowest();
      }
      std::fill(out, out + channels, fill);
      return;
    }
    if constexpr (std::is_same_v<S, float>) {
      const RowPool op = a_.op == PoolOp::kMax  ? RowPool::kMax
                         : a_.op == PoolOp::kL2 ? RowPool::kL2
                                                : RowPool::kAverage;
      PoolRow(op, window.data(), window.size(), channels, out);
    } else {  // integer maxPool2d: exact selection
      std::copy(window[0], window[0] + channels, out);
      for (size_t k = 1; k < window.size(); ++k) {
        const S* row = window[k];
        for (size_t c = 0; c < channels; ++c) out[c] = std::max(out[c], row[c]);
      }
    }
  }

  Pool2dAttributes a_;
  Config config_;
};

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

bool IsPool(OpId op) {
  return op == OpId::averagePool2d || op == OpId::l2Pool2d || op == OpId::maxPool2d;
}

std::optional<std::string> Unsupported(OpId op, DataType type) {
  if (IsPool(op)) {
    // averagePool2d/l2Pool2d: float types (all the builder admits); maxPool2d: every type.
    if (op != OpId::maxPool2d && !IsFloat(type)) {
      return std::string(DataTypeName(type)) + " not supported";
    }
    return std::string();
  }
  if (op == OpId::resample2d) return std::string();  // float32, float16, int8, uint8
  return std::nullopt;
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index, const Config& config,
                                   std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  if (IsPool(node.op)) {
    if (const auto* a = node.Attributes<Pool2dAttributes>()) {
      return std::make_shared<PoolKernel>(*a, config);
    }
  } else if (const auto* a = node.Attributes<Resample2dAttributes>()) {
    return std::make_shared<ResampleKernel>(*a, config);
  }
  why = "the node carries no attributes";
  return nullptr;
}

}  // namespace

const Family kWindowFamily = {Unsupported, Make};

}  // namespace nnref::simd
