// convTranspose2d — WebNN §api-mlgraphbuilder-convtranspose2d.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ops/conv_common.h"
#include "ops/limits.h"
#include "ops/op_call.h"

namespace nnref {

// §tensor-limits-convTranspose2d
extern const OpLimits kConvTranspose2dLimits;

enum class MLConvTranspose2dFilterOperandLayout : uint8_t { kIohw, kHwoi, kOhwi };
inline const std::vector<std::string> kConvTranspose2dFilterLayoutNames = {"iohw", "hwoi", "ohwi"};

struct MLConvTranspose2dOptions : MLOperatorOptions {
  std::optional<std::vector<uint32_t>> padding;        // [beginningHeight, endingHeight, ...Width]
  std::optional<std::vector<uint32_t>> strides;        // [strideHeight, strideWidth]
  std::optional<std::vector<uint32_t>> dilations;      // [dilationHeight, dilationWidth]
  std::optional<std::vector<uint32_t>> outputPadding;  // [height, width]
  std::optional<std::vector<uint32_t>> outputSizes;    // [outputHeight, outputWidth]
  uint32_t groups = 1;
  MLInputOperandLayout inputLayout = MLInputOperandLayout::kNchw;
  MLConvTranspose2dFilterOperandLayout filterLayout = MLConvTranspose2dFilterOperandLayout::kIohw;
  std::optional<Operand> bias;
};

// Which shape index of the filter holds each logical filter axis.
struct ConvTranspose2dFilterAxes {
  size_t in, out, height, width;
};
ConvTranspose2dFilterAxes ConvTranspose2dFilterAxesOf(MLConvTranspose2dFilterOperandLayout layout);

// The validated attributes of a convTranspose2d node (steps 7-20 of
// §api-mlgraphbuilder-convtranspose2d); outputPadding and outputSizes live in the output shape.
struct ConvTranspose2dAttributes : OpAttributes {
  int64_t pad_top = 0,
          pad_left = 0;  // beginning paddings: output rows/columns cropped at the start
  int64_t stride_height = 1, stride_width = 1;
  int64_t dilation_height = 1, dilation_width = 1;
  int64_t groups = 1;
  ImageAxes image{0, 1, 2, 3};  // input and output
  ConvTranspose2dFilterAxes filter{0, 1, 2, 3};
};

Operand ConvTranspose2d(GraphBuilder& builder, const Operand& input, const Operand& filter,
                        const MLConvTranspose2dOptions& options = {});

std::vector<Operand> CallConvTranspose2d(OpCall& call);

}  // namespace nnref
