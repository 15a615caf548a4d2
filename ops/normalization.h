// batchNormalization (§api-mlgraphbuilder-batchnorm), instanceNormalization
// (§api-mlgraphbuilder-instancenorm) and layerNormalization (§api-mlgraphbuilder-layernorm).
#pragma once

#include <optional>
#include <vector>

#include "ops/conv_common.h"  // MLInputOperandLayout
#include "ops/limits.h"
#include "ops/op_call.h"

namespace nnref {

extern const OpLimits kBatchNormalizationLimits;
extern const OpLimits kInstanceNormalizationLimits;
extern const OpLimits kLayerNormalizationLimits;

struct MLBatchNormalizationOptions : MLOperatorOptions {
  std::optional<Operand> scale;
  std::optional<Operand> bias;
  uint32_t axis = 1;
  double epsilon = 1e-5;
};

struct MLInstanceNormalizationOptions : MLOperatorOptions {
  std::optional<Operand> scale;
  std::optional<Operand> bias;
  double epsilon = 1e-5;
  MLInputOperandLayout layout = MLInputOperandLayout::kNchw;
};

struct MLLayerNormalizationOptions : MLOperatorOptions {
  std::optional<Operand> scale;
  std::optional<Operand> bias;
  std::optional<std::vector<uint32_t>> axes;  // absent: all axes but the first
  double epsilon = 1e-5;
};

// The validated attributes of a batchNormalization, instanceNormalization or layerNormalization
// node. output = scale * (input - mean) / sqrt(variance + epsilon) + bias, where
//  - batchNormalization: mean and variance are inputs 1 and 2; reduce_axes is empty;
//  - instanceNormalization / layerNormalization: mean and variance (population) are computed per
//    group over reduce_axes (ascending input axes).
// Scale and bias (when present) are node inputs scale_input / bias_input (-1: absent, i.e. 1 and
// 0); their axis k runs along input axis param_axes[k].
struct NormalizationAttributes : OpAttributes {
  std::vector<size_t> reduce_axes;
  std::vector<size_t> param_axes;
  double epsilon = 1e-5;  // already cast to the input's data type
  int scale_input = -1;
  int bias_input = -1;
};

Operand BatchNormalization(GraphBuilder& builder, const Operand& input, const Operand& mean,
                           const Operand& variance,
                           const MLBatchNormalizationOptions& options = {});
Operand InstanceNormalization(GraphBuilder& builder, const Operand& input,
                              const MLInstanceNormalizationOptions& options = {});
Operand LayerNormalization(GraphBuilder& builder, const Operand& input,
                           const MLLayerNormalizationOptions& options = {});

std::vector<Operand> CallBatchNormalization(OpCall& call);
std::vector<Operand> CallInstanceNormalization(OpCall& call);
std::vector<Operand> CallLayerNormalization(OpCall& call);

}  // namespace nnref
