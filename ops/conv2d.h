// conv2d — WebNN §api-mlgraphbuilder-conv2d.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ops/conv_common.h"
#include "ops/limits.h"
#include "ops/op_call.h"

namespace nnref {

// §tensor-limits-conv2d
extern const OpLimits kConv2dLimits;

enum class MLConv2dFilterOperandLayout : uint8_t { kOihw, kHwio, kOhwi, kIhwo };
inline const std::vector<std::string> kConv2dFilterLayoutNames = {"oihw", "hwio", "ohwi", "ihwo"};

struct MLConv2dOptions : MLOperatorOptions {
  std::optional<std::vector<uint32_t>> padding;    // [beginningHeight, endingHeight, ...Width]
  std::optional<std::vector<uint32_t>> strides;    // [strideHeight, strideWidth]
  std::optional<std::vector<uint32_t>> dilations;  // [dilationHeight, dilationWidth]
  uint32_t groups = 1;
  MLInputOperandLayout inputLayout = MLInputOperandLayout::kNchw;
  MLConv2dFilterOperandLayout filterLayout = MLConv2dFilterOperandLayout::kOihw;
  std::optional<Operand> bias;
};

Operand Conv2d(GraphBuilder& builder, const Operand& input, const Operand& filter,
               const MLConv2dOptions& options = {});

std::vector<Operand> CallConv2d(OpCall& call);

}  // namespace nnref
