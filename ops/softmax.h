// softmax — WebNN §api-mlgraphbuilder-softmax-method.
#pragma once

#include <vector>

#include "ops/limits.h"
#include "ops/op_call.h"

namespace nnref {

extern const OpLimits kSoftmaxLimits;  // §tensor-limits-softmax

// The validated attributes of a softmax node: the axis along which it normalizes.
struct SoftmaxAttributes : OpAttributes {
  uint32_t axis = 0;
};

Operand Softmax(GraphBuilder& builder, const Operand& input, uint32_t axis,
                const MLOperatorOptions& options = {});

std::vector<Operand> CallSoftmax(OpCall& call);

}  // namespace nnref
