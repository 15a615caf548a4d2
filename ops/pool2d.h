// Pooling operations — WebNN §api-mlgraphbuilder-pool2d: averagePool2d, l2Pool2d, maxPool2d.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ops/conv_common.h"
#include "ops/limits.h"
#include "ops/op_call.h"

namespace nnref {

// §tensor-limits-pooling-averagepool2d-l2pool2d and §tensor-limits-pooling-maxpool2d
extern const OpLimits kAveragePool2dL2Pool2dLimits;
extern const OpLimits kMaxPool2dLimits;

enum class PoolOp : uint8_t { kAverage, kL2, kMax };
OpId PoolOpId(PoolOp op);  // OpId::averagePool2d, l2Pool2d or maxPool2d

enum class MLRoundingType : uint8_t { kFloor, kCeil };

struct MLPool2dOptions : MLOperatorOptions {
  std::optional<std::vector<uint32_t>> windowDimensions;  // [windowHeight, windowWidth]
  std::optional<std::vector<uint32_t>> padding;    // [beginningHeight, endingHeight, ...Width]
  std::optional<std::vector<uint32_t>> strides;    // [strideHeight, strideWidth]
  std::optional<std::vector<uint32_t>> dilations;  // [dilationHeight, dilationWidth]
  MLInputOperandLayout layout = MLInputOperandLayout::kNchw;
  MLRoundingType outputShapeRounding = MLRoundingType::kFloor;
  std::optional<std::vector<uint32_t>> outputSizes;  // [outputHeight, outputWidth]
};

// The validated attributes of a pooling node (the output sizes are the output descriptor's).
struct Pool2dAttributes : OpAttributes {
  PoolOp op = PoolOp::kMax;
  int64_t window_height = 1, window_width = 1;
  int64_t pad_top = 0, pad_left = 0;  // beginning paddings
  int64_t stride_height = 1, stride_width = 1;
  int64_t dilation_height = 1, dilation_width = 1;
  ImageAxes image{};  // input and output
};

// "create a pooling operation" with the method's allowed data types.
Operand Pool2d(GraphBuilder& builder, PoolOp op, const Operand& input,
               const MLPool2dOptions& options = {});
Operand AveragePool2d(GraphBuilder& builder, const Operand& input,
                      const MLPool2dOptions& options = {});
Operand L2Pool2d(GraphBuilder& builder, const Operand& input, const MLPool2dOptions& options = {});
Operand MaxPool2d(GraphBuilder& builder, const Operand& input, const MLPool2dOptions& options = {});

// Reads MLPool2dOptions; the older member name `roundingType` is accepted for
// `outputShapeRounding` with a warning on stderr (spec-notes #2).
template <PoolOp K>
std::vector<Operand> CallPool2d(OpCall& call);

}  // namespace nnref
