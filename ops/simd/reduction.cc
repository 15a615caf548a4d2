// The simd backend's reduction family: the reductions (§api-mlgraphbuilder-reduce), softmax
// (§api-mlgraphbuilder-softmax-method), batchNormalization (§api-mlgraphbuilder-batchnorm),
// instanceNormalization (§api-mlgraphbuilder-instancenorm) and layerNormalization
// (§api-mlgraphbuilder-layernorm).
//
// Each output group (the reduced elements of one output element, one softmax line, one
// normalization group) is read into a float32 row (float16 widened; a pointer into the input when
// it is already a contiguous float32 run; blocks of neighbouring groups transposed at once when
// the groups run across memory, groups.h) and handed to the Highway row functions
// (reduction_rows.h). Groups are split over the thread pool; a group is always computed whole by
// one call, so results do not depend on the thread count.
//
// Numerics, float types (float32 arithmetic in reassociated vector partial sums):
//  - sum, mean, logSum: compensated vector sums (each lane carries the rounding errors of its
//    additions), so cancellation does not lose the small terms; mean divides in double.
//  - L1, sumSquare, L2: plain vector partial sums (no cancellation). Where float32 loses the
//    result (a sum that overflows although the inputs are finite, or a sum of squares that
//    overflows or underflows, as for L2 of values beyond 2^64 or below 2^-50), the group is
//    summed again in double, as careful libraries do (a scaled-norm fallback).
//  - product: vector partial products; when the float32 product overflows, underflows to 0 or
//    into the subnormals, the group is multiplied again in double with renormalization (frexp).
//  - logSumExp and softmax subtract the maximum first (no overflow) and correct the rounding of
//    x - max; logSumExp takes m + log1p(rest) so that tiny other terms keep their accuracy.
//  - batchNormalization: (x - mean) * (scale / sqrt(variance + epsilon)) + bias, evaluated in
//    double vectors and rounded once (the normalized term and the bias may cancel, and x - mean
//    may exceed the float32 range); 1 / sqrt(variance + epsilon) once per channel.
//  - instance/layerNormalization: two passes over the float32 row: the mean from the compensated
//    sum (kept as a double), then the sum of squared deviations from it in double; then the same
//    affine row as batchNormalization.
// Integer types (reductions that allow them): plain loops with two's-complement wrapping, as the
// reference's wrapped value (it marks the overflowing elements implementation-defined).
#include "ops/reduction.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ops/normalization.h"
#include "ops/simd/family.h"
#include "ops/simd/groups.h"
#include "ops/simd/reduction_rows.h"
#include "ops/softmax.h"

namespace nnref::simd {

namespace {

constexpr uint64_t kTaskElements = 1 << 15;  // input elements per thread-pool task, at least

size_t GrainFor(uint64_t count) {
  return static_cast<size_t>(std::max<uint64_t>(1, kTaskElements / std::max<uint64_t>(1, count)));
}

OperandValue Single(Tensor t) {
  OperandValue v;
  v.data = std::move(t);
  return v;
}

std::vector<OperandValue> One(Tensor t) {
  std::vector<OperandValue> r;
  r.push_back(Single(std::move(t)));
  return r;
}

void Store(const Tensor& out, uint64_t index, float v) {
  if (out.dtype() == DataType::kFloat16) {
    out.base<Float16>()[index] = Float16::FromFloat(v);
  } else {
    out.base<float>()[index] = v;
  }
}

// ---------------------------------------------------------------------------------------------
// Reductions

// Sum of f(x) over a row in double (the fallback for float32 overflow/underflow).
template <class F>
double DoubleSum(const float* x, uint64_t n, const F& f) {
  double s = 0;
  for (uint64_t i = 0; i < n; ++i) s += f(static_cast<double>(x[i]));
  return s;
}

// Product in double with renormalization: no intermediate overflow or underflow.
float DoubleProduct(const float* x, uint64_t n) {
  double m = 1;
  int64_t e = 0;
  for (uint64_t i = 0; i < n; ++i) {
    m *= static_cast<double>(x[i]);
    if (m != 0 && std::isfinite(m)) {
      int k = 0;
      m = std::frexp(m, &k);
      e += k;
    }
  }
  const int64_t clamped = std::clamp<int64_t>(e, -4000, 4000);
  return static_cast<float>(std::ldexp(m, static_cast<int>(clamped)));
}

bool Finite(float v) { return std::isfinite(v); }

float ReduceFloatRow(ReduceOp op, const float* x, uint64_t n) {
  const auto abs = [](double v) { return std::fabs(v); };
  const auto square = [](double v) { return v * v; };
  switch (op) {
    case ReduceOp::kSum:
      return static_cast<float>(SumRow(x, n));
    case ReduceOp::kL1: {
      const float s = ReduceRow(RowReduce::kSumAbs, x, n);
      return Finite(s) ? s : static_cast<float>(DoubleSum(x, n, abs));
    }
    case ReduceOp::kMean:
      return static_cast<float>(SumRow(x, n) / static_cast<double>(n));
    case ReduceOp::kLogSum:
      return static_cast<float>(std::log(SumRow(x, n)));
    case ReduceOp::kSumSquare:
    case ReduceOp::kL2: {
      const float s = ReduceRow(RowReduce::kSumSquare, x, n);
      const bool l2 = op == ReduceOp::kL2;
      if (Finite(s) && s >= 0x1p-100f) return l2 ? std::sqrt(s) : s;
      const double d = DoubleSum(x, n, square);  // exact squares; no float32 range limit
      return static_cast<float>(l2 ? std::sqrt(d) : d);
    }
    case ReduceOp::kProduct: {
      const float p = ReduceRow(RowReduce::kProduct, x, n);
      if (std::isnan(p) || (Finite(p) && std::fabs(p) >= std::numeric_limits<float>::min())) {
        return p;
      }
      return DoubleProduct(x, n);
    }
    case ReduceOp::kMax:
      return ReduceRow(RowReduce::kMax, x, n);
    case ReduceOp::kMin:
      return ReduceRow(RowReduce::kMin, x, n);
    case ReduceOp::kLogSumExp:
      return LogSumExpRow(x, n);
  }
  return 0;
}

// One integer reduction with two's-complement wrapping (computed in the unsigned type).
template <typename T>
T ReduceIntegerGroup(ReduceOp op, const GroupSplit<1>& split, const T* src, int64_t base) {
  using U = std::make_unsigned_t<T>;
  const bool extreme = op == ReduceOp::kMax || op == ReduceOp::kMin;
  U acc = op == ReduceOp::kProduct ? U{1} : U{0};
  T best = src[base];
  split.ForEachRun(0, base, [&](int64_t off, int64_t step, uint64_t n) {
    const T* p = src + off;
    for (uint64_t i = 0; i < n; ++i) {
      const T v = p[static_cast<int64_t>(i) * step];
      const U u = static_cast<U>(v);
      switch (op) {
        case ReduceOp::kMax:
          best = v > best ? v : best;
          break;
        case ReduceOp::kMin:
          best = v < best ? v : best;
          break;
        case ReduceOp::kProduct:
          acc = static_cast<U>(acc * u);
          break;
        case ReduceOp::kL1:
          acc = static_cast<U>(acc + (v < T{0} ? static_cast<U>(U{0} - u) : u));
          break;
        case ReduceOp::kSumSquare:
          acc = static_cast<U>(acc + static_cast<U>(u * u));
          break;
        default:
          acc = static_cast<U>(acc + u);
      }
    }
  });
  return extreme ? best : static_cast<T>(acc);
}

class ReduceKernel final : public Kernel {
 public:
  ReduceKernel(const ReduceAttributes& a, Config config)
      : op_(a.op), reduced_(a.reduced), config_(std::move(config)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Tensor& x = in[0]->data;
    Tensor result = Tensor::Allocate(out[0].dataType, out[0].shape);
    const GroupSplit<1> split(x.shape(), reduced_, {x.strides()});
    if (split.groups == 0 || split.count == 0) return One(std::move(result));
    const size_t grain = GrainFor(split.count);
    if (IsFloat(x.dtype())) {
      ForEachGroup(split, config_, x, nullptr,
                   [&](uint64_t g, const std::array<int64_t, 1>&, const float* row, float*) {
                     Store(result, g, ReduceFloatRow(op_, row, split.count));
                   });
    } else {
      DispatchDataType(x.dtype(), [&]<typename T>() {
        if constexpr (std::is_integral_v<T>) {
          const T* src = x.base<T>();
          T* dst = result.base<T>();
          config_.pool->ParallelFor(split.groups, grain, [&](size_t begin, size_t end) {
            for (size_t g = begin; g < end; ++g) {
              dst[g] = ReduceIntegerGroup<T>(op_, split, src, split.GroupOffsets(g)[0]);
            }
          });
        }
        return 0;
      });
    }
    return One(std::move(result));
  }

 private:
  ReduceOp op_;
  std::vector<bool> reduced_;
  Config config_;
};

// ---------------------------------------------------------------------------------------------
// softmax

class SoftmaxKernel final : public Kernel {
 public:
  SoftmaxKernel(uint32_t axis, Config config) : axis_(axis), config_(std::move(config)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Tensor& x = in[0]->data;
    Tensor result = Tensor::Allocate(out[0].dataType, out[0].shape);
    std::vector<bool> reduced(x.rank(), false);
    reduced[axis_] = true;
    const GroupSplit<2> split(x.shape(), reduced, {x.strides(), ContiguousStrides(x.shape())});
    ForEachGroup(split, config_, x, &result,
                 [&](uint64_t, const std::array<int64_t, 2>&, const float* row, float* dst) {
                   SoftmaxRow(row, dst, split.count);
                 });
    return One(std::move(result));
  }

 private:
  uint32_t axis_;
  Config config_;
};

// ---------------------------------------------------------------------------------------------
// Normalizations

// Operand `index` (float32/float16, 1-D or the param axes' shape) as float32 values, or `fill`.
std::vector<float> ParamValues(std::span<const OperandValue* const> in, int index, uint64_t size,
                               float fill) {
  std::vector<float> v(size, fill);
  if (index < 0) return v;
  const Tensor& t = in[static_cast<size_t>(index)]->data;
  for (uint64_t i = 0; i < size; ++i) {
    v[i] = t.dtype() == DataType::kFloat16 ? t.base<Float16>()[t.LinearToOffset(i)].ToFloat()
                                           : t.base<float>()[t.LinearToOffset(i)];
  }
  return v;
}

class BatchNormalizationKernel final : public Kernel {
 public:
  BatchNormalizationKernel(const NormalizationAttributes& a, Config config)
      : a_(a), config_(std::move(config)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Tensor& x = in[0]->data;
    Tensor result = Tensor::Allocate(out[0].dataType, out[0].shape);
    const size_t axis = a_.param_axes.at(0);
    const uint64_t channels = x.shape()[axis];
    const std::vector<float> mean = ParamValues(in, 1, channels, 0);
    const std::vector<float> variance = ParamValues(in, 2, channels, 1);
    const std::vector<float> scale = ParamValues(in, a_.scale_input, channels, 1);
    const std::vector<float> bias = ParamValues(in, a_.bias_input, channels, 0);
    std::vector<double> mean_d(channels), rstd(channels);  // once per channel, in double
    for (uint64_t c = 0; c < channels; ++c) {
      mean_d[c] = static_cast<double>(mean[c]);
      rstd[c] = 1.0 / std::sqrt(static_cast<double>(variance[c]) + a_.epsilon);
    }
    // Groups: the channel axis last (one row over the channels), else the axes after it (one
    // row per channel and leading index).
    const bool channel_last = axis + 1 == x.rank();
    std::vector<bool> reduced(x.rank(), false);
    for (size_t a = channel_last ? axis : axis + 1; a < x.rank(); ++a) reduced[a] = true;
    const GroupSplit<2> split(x.shape(), reduced, {x.strides(), ContiguousStrides(x.shape())});
    ForEachGroup(split, config_, x, &result,
                 [&](uint64_t g, const std::array<int64_t, 2>&, const float* row, float* dst) {
                   const size_t c = channel_last ? 0 : g % channels;
                   const size_t step = channel_last ? 1 : 0;
                   NormalizeRow(row, &mean_d[c], step, &scale[c], step, &rstd[c], step, &bias[c],
                                step, dst, split.count);
                 });
    return One(std::move(result));
  }

 private:
  NormalizationAttributes a_;
  Config config_;
};

// instanceNormalization and layerNormalization: mean and variance per group over reduce_axes.
// Scale and bias run either along reduced axes only (layerNormalization: one row, read once) or
// along group axes only (instanceNormalization: one value per group).
class GroupNormalizationKernel final : public Kernel {
 public:
  GroupNormalizationKernel(const NormalizationAttributes& a, Config config)
      : a_(a), config_(std::move(config)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Tensor& x = in[0]->data;
    const Shape& shape = x.shape();
    Tensor result = Tensor::Allocate(out[0].dataType, out[0].shape);
    std::vector<bool> reduced(x.rank(), false);
    for (size_t a : a_.reduce_axes) reduced[a] = true;
    const Tensor scale = Param(in, a_.scale_input, shape, 1.0f);
    const Tensor bias = Param(in, a_.bias_input, shape, 0.0f);
    const GroupSplit<4> split(
        shape, reduced, {x.strides(), ContiguousStrides(shape), scale.strides(), bias.strides()});
    if (split.groups == 0 || split.count == 0) return One(std::move(result));
    const bool params_reduced = std::all_of(a_.param_axes.begin(), a_.param_axes.end(),
                                            [&](size_t a) { return reduced[a]; });
    // layerNormalization: the scale and bias rows in group order, shared by every group.
    std::vector<float> scale_row, bias_row;
    if (params_reduced) {
      std::vector<float> s, b;
      const float* sp = split.Read(scale, 2, 0, s);
      scale_row.assign(sp, sp + split.count);
      const float* bp = split.Read(bias, 3, 0, b);
      bias_row.assign(bp, bp + split.count);
    }
    const double epsilon = a_.epsilon;
    const uint64_t n = split.count;
    ForEachGroup(
        split, config_, x, &result,
        [&](uint64_t, const std::array<int64_t, 4>& off, const float* row, float* dst) {
          // The mean from the compensated sum, kept as a double.
          const double mean = SumRow(row, n) / static_cast<double>(n);
          // The squared deviations are summed in double: a float32 sum's relative error (up to
          // n eps) reaches the output through rstd, and where the normalized value cancels
          // against the bias it left the operator's tolerance (models.m2m100: 969 ULP).
          const double variance = SumSquaredDeviationDouble(row, n, mean) / static_cast<double>(n);
          const double rstd = 1.0 / std::sqrt(variance + epsilon);
          if (params_reduced) {
            NormalizeRow(row, &mean, 0, scale_row.data(), 1, &rstd, 0, bias_row.data(), 1, dst, n);
          } else {
            const float s = ValueAt(scale, off[2]), b = ValueAt(bias, off[3]);
            NormalizeRow(row, &mean, 0, &s, 0, &rstd, 0, &b, 0, dst, n);
          }
        });
    return One(std::move(result));
  }

 private:
  static float ValueAt(const Tensor& t, int64_t off) {
    return t.dtype() == DataType::kFloat16 ? t.base<Float16>()[off].ToFloat()
                                           : t.base<float>()[off];
  }

  // Scale/bias input `index` as a view over `shape` (its axis k along param_axes[k], stride 0
  // elsewhere), or a broadcast float32 `fill`.
  Tensor Param(std::span<const OperandValue* const> in, int index, const Shape& shape,
               float fill) const {
    if (index < 0) {
      Tensor t = Tensor::Allocate(DataType::kFloat32, {});
      *t.base<float>() = fill;
      return t.BroadcastTo(shape);
    }
    const Tensor& t = in[static_cast<size_t>(index)]->data;
    Strides strides(shape.size(), 0);
    for (size_t k = 0; k < a_.param_axes.size(); ++k) strides[a_.param_axes[k]] = t.strides()[k];
    return Tensor(t.dtype(), shape, std::move(strides), t.offset(), t.buffer());
  }

  NormalizationAttributes a_;
  Config config_;
};

// ---------------------------------------------------------------------------------------------

enum class Kind : uint8_t { kReduce, kSoftmax, kBatchNorm, kGroupNorm };

std::optional<Kind> KindOf(OpId op) {
  switch (op) {
    case OpId::softmax:
      return Kind::kSoftmax;
    case OpId::batchNormalization:
      return Kind::kBatchNorm;
    case OpId::instanceNormalization:
    case OpId::layerNormalization:
      return Kind::kGroupNorm;
    case OpId::reduceL1:
    case OpId::reduceL2:
    case OpId::reduceLogSum:
    case OpId::reduceLogSumExp:
    case OpId::reduceMax:
    case OpId::reduceMean:
    case OpId::reduceMin:
    case OpId::reduceProduct:
    case OpId::reduceSum:
    case OpId::reduceSumSquare:
      return Kind::kReduce;
    default:
      return std::nullopt;
  }
}

std::optional<std::string> Unsupported(OpId op, DataType type) {
  const std::optional<Kind> kind = KindOf(op);
  if (!kind) return std::nullopt;
  // Every data type the builder admits: floats for all; integers for the reductions that allow
  // them (sum, L1, sumSquare, product, max, min; the builder rejects the others).
  if (!IsFloat(type) && *kind != Kind::kReduce) {
    return std::string(DataTypeName(type)) + " not supported";
  }
  return std::string();
}

template <typename A>
const A* Need(const OperatorNode& node, std::string& why) {
  const A* a = node.Attributes<A>();
  if (!a) why = "the node carries no attributes";
  return a;
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index, const Config& config,
                                   std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  switch (KindOf(node.op).value_or(Kind::kReduce)) {
    case Kind::kReduce:
      if (const auto* a = Need<ReduceAttributes>(node, why)) {
        return std::make_shared<ReduceKernel>(*a, config);
      }
      return nullptr;
    case Kind::kSoftmax:
      if (const auto* a = Need<SoftmaxAttributes>(node, why)) {
        return std::make_shared<SoftmaxKernel>(a->axis, config);
      }
      return nullptr;
    case Kind::kBatchNorm:
      if (const auto* a = Need<NormalizationAttributes>(node, why)) {
        return std::make_shared<BatchNormalizationKernel>(*a, config);
      }
      return nullptr;
    case Kind::kGroupNorm:
      if (const auto* a = Need<NormalizationAttributes>(node, why)) {
        return std::make_shared<GroupNormalizationKernel>(*a, config);
      }
      return nullptr;
  }
  return nullptr;
}

}  // namespace

const Family kReductionFamily = {Unsupported, Make};

}  // namespace nnref::simd
