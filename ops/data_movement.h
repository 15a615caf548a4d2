// Shape and data-movement operations — WebNN §api-mlgraphbuilder-reshape-method,
// §api-mlgraphbuilder-transpose, §api-mlgraphbuilder-expand, §api-mlgraphbuilder-slice,
// §api-mlgraphbuilder-reverse-method, §api-mlgraphbuilder-split (data_movement.cc: views of the
// input, no element copied) and §api-mlgraphbuilder-concat, §api-mlgraphbuilder-pad,
// §api-mlgraphbuilder-tile, §api-mlgraphbuilder-triangular (data_movement_copy.cc: new tensors).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ops/limits.h"
#include "ops/op_call.h"
#include "ref/graph/graph.h"

namespace nnref {

extern const OpLimits kReshapeLimits;     // §tensor-limits-reshape
extern const OpLimits kTransposeLimits;   // §tensor-limits-transpose
extern const OpLimits kExpandLimits;      // §tensor-limits-expand
extern const OpLimits kSliceLimits;       // §tensor-limits-slice
extern const OpLimits kReverseLimits;     // §tensor-limits-reverse
extern const OpLimits kSplitLimits;       // §tensor-limits-split
extern const OpLimits kConcatLimits;      // §tensor-limits-concat
extern const OpLimits kPadLimits;         // §tensor-limits-pad
extern const OpLimits kTileLimits;        // §tensor-limits-tile
extern const OpLimits kTriangularLimits;  // §tensor-limits-triangular

struct MLTransposeOptions : MLOperatorOptions {
  std::optional<std::vector<uint32_t>> permutation;  // absent: [N-1, ..., 0]
};

struct MLSliceOptions : MLOperatorOptions {
  std::optional<std::vector<uint32_t>> strides;  // absent: all 1
};

struct MLReverseOptions : MLOperatorOptions {
  std::optional<std::vector<uint32_t>> axes;  // absent: every axis; empty: none
};

struct MLSplitOptions : MLOperatorOptions {
  uint32_t axis = 0;
};

enum class MLPaddingMode : uint8_t { kConstant, kEdge, kReflection };

struct MLPadOptions : MLOperatorOptions {
  MLPaddingMode mode = MLPaddingMode::kConstant;
  MLNumber value = MLNumber::FromDouble(0);
};

struct MLTriangularOptions : MLOperatorOptions {
  bool upper = true;
  int32_t diagonal = 0;
};

// Validated attributes of the operator nodes (OperatorNode::attributes) that backends build their
// kernels from. reshape and expand need none: the output descriptor says everything.
struct TransposeAttributes : OpAttributes {
  std::vector<uint32_t> permutation;  // output axis i is input axis permutation[i]
};
struct SliceAttributes : OpAttributes {
  std::vector<uint64_t> starts, sizes, strides;  // sizes: before striding (the method's sizes)
};
struct ReverseAttributes : OpAttributes {
  std::vector<uint32_t> axes;  // every reversed axis (the default "all" resolved)
};
struct SplitAttributes : OpAttributes {
  uint32_t axis = 0;
  std::vector<uint64_t> sizes;  // of each output along axis
};
struct ConcatAttributes : OpAttributes {
  uint32_t axis = 0;
};
struct PadAttributes : OpAttributes {
  std::vector<uint64_t> beginningPadding, endingPadding;
  MLPaddingMode mode = MLPaddingMode::kConstant;
  Tensor value;  // 0-d, the input's data type: options.value cast once
};
struct TileAttributes : OpAttributes {
  std::vector<uint64_t> repetitions;
};
struct TriangularAttributes : OpAttributes {
  bool upper = true;
  int32_t diagonal = 0;
};

Operand Reshape(GraphBuilder& builder, const Operand& input, const std::vector<uint32_t>& newShape,
                const MLOperatorOptions& options = {});
Operand Transpose(GraphBuilder& builder, const Operand& input,
                  const MLTransposeOptions& options = {});
Operand Expand(GraphBuilder& builder, const Operand& input, const std::vector<uint32_t>& newShape,
               const MLOperatorOptions& options = {});
Operand Slice(GraphBuilder& builder, const Operand& input, const std::vector<uint32_t>& starts,
              const std::vector<uint32_t>& sizes, const MLSliceOptions& options = {});
Operand Reverse(GraphBuilder& builder, const Operand& input, const MLReverseOptions& options = {});
// split(input, splits) with `splits` an unsigned long (the number of equal parts) ...
std::vector<Operand> Split(GraphBuilder& builder, const Operand& input, uint32_t splits,
                           const MLSplitOptions& options = {});
// ... or a sequence<unsigned long> (the size of each part along the axis).
std::vector<Operand> Split(GraphBuilder& builder, const Operand& input,
                           const std::vector<uint32_t>& splits, const MLSplitOptions& options = {});
Operand Concat(GraphBuilder& builder, const std::vector<Operand>& inputs, uint32_t axis,
               const MLOperatorOptions& options = {});
Operand Pad(GraphBuilder& builder, const Operand& input,
            const std::vector<uint32_t>& beginningPadding,
            const std::vector<uint32_t>& endingPadding, const MLPadOptions& options = {});
Operand Tile(GraphBuilder& builder, const Operand& input, const std::vector<uint32_t>& repetitions,
             const MLOperatorOptions& options = {});
Operand Triangular(GraphBuilder& builder, const Operand& input,
                   const MLTriangularOptions& options = {});

// Helpers shared by data_movement.cc and data_movement_copy.cc.
namespace data_movement {
inline constexpr uint64_t kMaxDimension = 2147483647;  // "valid dimension": in the range of long
inline constexpr uint64_t kMaxTensorCount = 8192;      // "valid tensor count"
// TypeError unless limits.min_rank <= rank <= limits.max_rank ("allowed ranks").
void CheckAllowedRank(const std::string& name, const char* operand, size_t rank,
                      const TensorLimits& limits);
// TypeError unless every axis is < rank and none repeats (`what` names the list in messages).
void CheckAxes(const std::string& name, const char* what, const std::vector<uint32_t>& axes,
               size_t rank);
std::string ListToString(const std::vector<uint32_t>& v);  // "[1, 2]"
}  // namespace data_movement

std::vector<Operand> CallReshape(OpCall& call);
std::vector<Operand> CallTranspose(OpCall& call);
std::vector<Operand> CallExpand(OpCall& call);
std::vector<Operand> CallSlice(OpCall& call);
std::vector<Operand> CallReverse(OpCall& call);
std::vector<Operand> CallSplit(OpCall& call);
std::vector<Operand> CallConcat(OpCall& call);
std::vector<Operand> CallPad(OpCall& call);
std::vector<Operand> CallTile(OpCall& call);
std::vector<Operand> CallTriangular(OpCall& call);

}  // namespace nnref
