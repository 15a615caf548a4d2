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

Operand ConvTranspose2d(GraphBuilder& builder, const Operand& input, const Operand& filter,
                        const MLConvTranspose2dOptions& options = {});

std::vector<Operand> CallConvTranspose2d(OpCall& call);

}  // namespace nnref
