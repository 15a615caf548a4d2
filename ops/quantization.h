// quantizeLinear (§api-mlgraphbuilder-quantizelinear) and dequantizeLinear
// (§api-mlgraphbuilder-dequantizelinear).
#pragma once

#include <vector>

#include "ops/limits.h"
#include "ops/op_call.h"

namespace nnref {

extern const OpLimits kQuantizeLinearLimits;
extern const OpLimits kDequantizeLinearLimits;

Operand QuantizeLinear(GraphBuilder& builder, const Operand& input, const Operand& scale,
                       const Operand& zeroPoint, const MLOperatorOptions& options = {});
Operand DequantizeLinear(GraphBuilder& builder, const Operand& input, const Operand& scale,
                         const Operand& zeroPoint, const MLOperatorOptions& options = {});

std::vector<Operand> CallQuantizeLinear(OpCall& call);
std::vector<Operand> CallDequantizeLinear(OpCall& call);

}  // namespace nnref
