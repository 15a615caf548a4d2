// The simd backend's batchNormalization (§api-mlgraphbuilder-batchnorm), instanceNormalization
// (§api-mlgraphbuilder-instancenorm) and layerNormalization (§api-mlgraphbuilder-layernorm), as in
// the reference's ops/normalization.cc. Each normalization group is read into a float32 row
// (float16 widened; groups.h, as the reductions of reduction.cc); groups are split over the thread
// pool and always computed whole by one call, so results do not depend on the thread count.
//  - batchNormalization: (x - mean) * (scale / sqrt(variance + epsilon)) + bias, evaluated in
//    double vectors and rounded once (the normalized term and the bias may cancel, and x - mean
//    may exceed the float32 range); 1 / sqrt(variance + epsilon) once per channel.
//  - instance/layerNormalization: two passes over the float32 row: the mean from the compensated
//    sum (kept as a double), then the sum of squared deviations from it in double; then the same
//    affine row as batchNormalization.
#include "ops/normalization.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ops/simd/family.h"
#include "ops/simd/groups.h"
#include "ops/simd/reduction_rows.h"

namespace nnref::simd {

namespace {

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

// Elements per thread-pool task of instance/layerNormalization, at least: a group costs three
// passes (sum, squared deviations in double, the affine row), so from 2^13 elements a second
// thread pays on a spinning pool (the stable-diffusion ResBlock's 32 groups of 640 elements:
// docs/performance.md, "Issue 25: the ResBlock on two threads").
constexpr uint64_t kNormalizationTaskElements = 1 << 13;

// instanceNormalization and layerNormalization: mean and variance per group over reduce_axes.
// Scale and bias run either along reduced axes only (layerNormalization: one row, read once) or
// along group axes only (instanceNormalization: one value per group).
class GroupNormalizationKernel final : public IntoKernel {
 public:
  GroupNormalizationKernel(const NormalizationAttributes& a, Config config)
      : a_(a), config_(std::move(config)) {}

 private:
  // Into a plan buffer or a fresh tensor (IntoKernel); never in place (a group is read for its
  // mean and variance before it is written, and the plan does not rely on that).
  Tensor Run(std::span<const OperandValue* const> in, std::span<const OperandDescriptor> out,
             const Tensor* into) const override {
    const Tensor& x = in[0]->data;
    const Shape& shape = x.shape();
    // Every element is written (ForEachGroup writes each group whole): no zero fill.
    Tensor result =
        into != nullptr ? *into : Tensor::AllocateForOverwrite(out[0].dataType, out[0].shape);
    std::vector<bool> reduced(x.rank(), false);
    for (size_t a : a_.reduce_axes) reduced[a] = true;
    const Tensor scale = Param(in, a_.scale_input, shape, 1.0f);
    const Tensor bias = Param(in, a_.bias_input, shape, 0.0f);
    const GroupSplit<4> split(
        shape, reduced, {x.strides(), ContiguousStrides(shape), scale.strides(), bias.strides()});
    if (split.groups == 0 || split.count == 0) return result;
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
        },
        kNormalizationTaskElements);
    return result;
  }

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

bool IsNormalization(OpId op) {
  return op == OpId::batchNormalization || op == OpId::instanceNormalization ||
         op == OpId::layerNormalization;
}

std::optional<std::string> Unsupported(OpId op, DataType type) {
  if (!IsNormalization(op)) return std::nullopt;
  if (!IsFloat(type)) return std::string(DataTypeName(type)) + " not supported";
  return std::string();
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index, const Config& config,
                                   std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  if (const auto* a = node.Attributes<NormalizationAttributes>()) {
    if (node.op == OpId::batchNormalization) {
      return std::make_shared<BatchNormalizationKernel>(*a, config);
    }
    return std::make_shared<GroupNormalizationKernel>(*a, config);
  }
  why = "the node carries no attributes";
  return nullptr;
}

}  // namespace

const Family kNormalizationFamily = {Unsupported, Make};

}  // namespace nnref::simd
