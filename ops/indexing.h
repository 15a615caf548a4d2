// Gather and scatter operations — WebNN §api-mlgraphbuilder-gather,
// §api-mlgraphbuilder-gatherelements, §api-mlgraphbuilder-gathernd (ops/indexing.cc),
// §api-mlgraphbuilder-scatterelements and §api-mlgraphbuilder-scatternd (ops/scatter.cc).
#pragma once

#include <cstdint>
#include <vector>

#include "ops/limits.h"
#include "ops/op_call.h"
#include "ref/graph/graph.h"

namespace nnref {

extern const OpLimits kGatherLimits;
extern const OpLimits kGatherElementsLimits;
extern const OpLimits kGatherNDLimits;
extern const OpLimits kScatterElementsLimits;
extern const OpLimits kScatterNDLimits;

struct MLGatherOptions : MLOperatorOptions {
  uint32_t axis = 0;
};

struct MLScatterOptions : MLOperatorOptions {
  uint32_t axis = 0;
};

// Validated attributes (OperatorNode::attributes) of gather and gatherElements (GatherAttributes)
// and scatterElements (ScatterAttributes); gatherND and scatterND have none.
struct GatherAttributes : OpAttributes {
  uint32_t axis = 0;
};
struct ScatterAttributes : OpAttributes {
  uint32_t axis = 0;
};

Operand Gather(GraphBuilder& builder, const Operand& input, const Operand& indices,
               const MLGatherOptions& options = {});
Operand GatherElements(GraphBuilder& builder, const Operand& input, const Operand& indices,
                       const MLGatherOptions& options = {});
Operand GatherND(GraphBuilder& builder, const Operand& input, const Operand& indices,
                 const MLOperatorOptions& options = {});
Operand ScatterElements(GraphBuilder& builder, const Operand& input, const Operand& indices,
                        const Operand& updates, const MLScatterOptions& options = {});
Operand ScatterND(GraphBuilder& builder, const Operand& input, const Operand& indices,
                  const Operand& updates, const MLOperatorOptions& options = {});

std::vector<Operand> CallGather(OpCall& call);
std::vector<Operand> CallGatherElements(OpCall& call);
std::vector<Operand> CallGatherND(OpCall& call);
std::vector<Operand> CallScatterElements(OpCall& call);
std::vector<Operand> CallScatterND(OpCall& call);

}  // namespace nnref
