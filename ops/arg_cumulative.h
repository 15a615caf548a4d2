// argMin/argMax (§api-mlgraphbuilder-argminmax) and cumulativeSum
// (§api-mlgraphbuilder-cumulativesum).
#pragma once

#include <cstdint>
#include <vector>

#include "ops/limits.h"
#include "ops/op_call.h"
#include "ref/graph/graph.h"

namespace nnref {

extern const OpLimits kArgMinMaxLimits;
extern const OpLimits kCumulativeSumLimits;

struct MLArgMinMaxOptions : MLOperatorOptions {
  bool keepDimensions = false;
  DataType outputDataType = DataType::kInt32;
};

struct MLCumulativeSumOptions : MLOperatorOptions {
  bool exclusive = false;
  bool reversed = false;
};

// Validated attributes (OperatorNode::attributes) of argMin/argMax and cumulativeSum.
struct ArgMinMaxAttributes : OpAttributes {
  uint32_t axis = 0;
  bool keepDimensions = false;
  DataType outputDataType = DataType::kInt32;
};
struct CumulativeSumAttributes : OpAttributes {
  uint32_t axis = 0;
  bool exclusive = false;
  bool reversed = false;
};

// "create an argMin/argMax operation" given op ("argMin" or "argMax").
Operand ArgMinMax(GraphBuilder& builder, bool is_max, const Operand& input, uint32_t axis,
                  const MLArgMinMaxOptions& options = {});
inline Operand ArgMin(GraphBuilder& b, const Operand& input, uint32_t axis,
                      const MLArgMinMaxOptions& o = {}) {
  return ArgMinMax(b, false, input, axis, o);
}
inline Operand ArgMax(GraphBuilder& b, const Operand& input, uint32_t axis,
                      const MLArgMinMaxOptions& o = {}) {
  return ArgMinMax(b, true, input, axis, o);
}
Operand CumulativeSum(GraphBuilder& builder, const Operand& input, uint32_t axis,
                      const MLCumulativeSumOptions& options = {});

std::vector<Operand> CallArgMin(OpCall& call);
std::vector<Operand> CallArgMax(OpCall& call);
std::vector<Operand> CallCumulativeSum(OpCall& call);

}  // namespace nnref
