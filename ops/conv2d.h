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

// Which shape index of the filter holds each logical filter axis.
struct Conv2dFilterAxes {
  size_t out, in, height, width;
};
Conv2dFilterAxes Conv2dFilterAxesOf(MLConv2dFilterOperandLayout layout);

// The validated attributes of a conv2d node (steps 7-16 of §api-mlgraphbuilder-conv2d), used by
// the reference kernel and the backends alike.
struct Conv2dAttributes : OpAttributes {
  int64_t pad_top = 0, pad_left = 0;  // beginning paddings (the ending ones only shape the output)
  int64_t stride_height = 1, stride_width = 1;
  int64_t dilation_height = 1, dilation_width = 1;
  int64_t groups = 1;
  ImageAxes image{0, 1, 2, 3};  // input and output
  Conv2dFilterAxes filter{0, 1, 2, 3};
};

Operand Conv2d(GraphBuilder& builder, const Operand& input, const Operand& filter,
               const MLConv2dOptions& options = {});

std::vector<Operand> CallConv2d(OpCall& call);

}  // namespace nnref
