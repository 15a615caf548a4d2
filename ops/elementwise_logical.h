// Element-wise logical operations — WebNN §api-mlgraphbuilder-logical.
#pragma once

#include <optional>
#include <vector>

#include "ops/limits.h"
#include "ops/op_call.h"

namespace nnref {

enum class LogicalOp : uint8_t {
  kEqual,
  kNotEqual,
  kGreater,
  kGreaterOrEqual,
  kLesser,
  kLesserOrEqual,
  kLogicalNot,
  kLogicalAnd,
  kLogicalOr,
  kLogicalXor,
  kIsNaN,
  kIsInfinite,
};

OpId LogicalOpId(LogicalOp op);
bool IsUnaryLogical(LogicalOp op);
const OpLimits& LogicalLimits(LogicalOp op);

// "create an element-wise logical operation" given op, a, optional b and options.
Operand ElementwiseLogical(GraphBuilder& builder, LogicalOp op, const Operand& a,
                           const std::optional<Operand>& b, const MLOperatorOptions& options = {});

template <LogicalOp K>
std::vector<Operand> CallLogical(OpCall& call);

}  // namespace nnref
