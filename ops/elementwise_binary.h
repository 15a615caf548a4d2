// Element-wise binary operations — WebNN §api-mlgraphbuilder-binary: add, sub, mul, div, max,
// min, pow.
#pragma once

#include <vector>

#include "ops/limits.h"
#include "ops/op_call.h"

namespace nnref {

enum class BinaryOp : uint8_t { kAdd, kSub, kMul, kDiv, kMax, kMin, kPow };

OpId BinaryOpId(BinaryOp op);
extern const OpLimits kBinaryLimits;

// "create an element-wise binary operation" given op, a, b and options.
Operand ElementwiseBinary(GraphBuilder& builder, BinaryOp op, const Operand& a, const Operand& b,
                          const MLOperatorOptions& options = {});

template <BinaryOp K>
std::vector<Operand> CallBinary(OpCall& call);

}  // namespace nnref
