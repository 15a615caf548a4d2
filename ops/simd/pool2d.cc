// The simd backend's averagePool2d, l2Pool2d and maxPool2d (§api-mlgraphbuilder-pool2d), as in
// the reference's ops/pool2d.cc.
//
// Pooling works channels-last, as production CPU backends do: the input is read once into an
// NHWC buffer (float32 for the float types; used in place when it already is one), and every
// output position reduces the rows of C channels of its window's real elements (padding is not an
// element, as the reference reads the spec) with the Highway row function PoolRow: a vector of
// channels at a time. Output rows (batch, output y) are split over the thread pool. A window
// without a real element gets -Inf / the lowest value (max), NaN (average) or 0 (L2): the
// reference marks the first two implementation-defined.
#include "ops/pool2d.h"

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

bool IsPool(OpId op) {
  return op == OpId::averagePool2d || op == OpId::l2Pool2d || op == OpId::maxPool2d;
}

std::optional<std::string> Unsupported(OpId op, DataType type) {
  if (!IsPool(op)) return std::nullopt;
  // averagePool2d/l2Pool2d: float types (all the builder admits); maxPool2d: every type.
  if (op != OpId::maxPool2d && !IsFloat(type)) {
    return std::string(DataTypeName(type)) + " not supported";
  }
  return std::string();
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index, const Config& config,
                                   std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  if (const auto* a = node.Attributes<Pool2dAttributes>()) {
    return std::make_shared<PoolKernel>(*a, config);
  }
  why = "the node carries no attributes";
  return nullptr;
}

}  // namespace

const Family kPool2dFamily = {Unsupported, Make};

}  // namespace nnref::simd
