// cast (§api-mlgraphbuilder-cast), clamp (§api-mlgraphbuilder-clamp) and
// where (§api-mlgraphbuilder-where).
#pragma once

#include <optional>
#include <vector>

#include "ops/limits.h"
#include "ops/op_call.h"

namespace nnref {

extern const OpLimits kCastLimits;
extern const OpLimits kClampLimits;
extern const OpLimits kWhereLimits;

struct MLClampOptions : MLOperatorOptions {
  std::optional<MLNumber> minValue;
  std::optional<MLNumber> maxValue;
};

// clamp's validated bounds: rank-0 tensors of the input's data type, minValue and maxValue cast
// to it (-Infinity / +Infinity, or the type's extremes, when not given).
struct ClampAttributes : OpAttributes {
  Tensor min, max;
};

Operand Cast(GraphBuilder& builder, const Operand& input, DataType type,
             const MLOperatorOptions& options = {});
Operand Clamp(GraphBuilder& builder, const Operand& input, const MLClampOptions& options = {});
Operand Where(GraphBuilder& builder, const Operand& condition, const Operand& true_value,
              const Operand& false_value, const MLOperatorOptions& options = {});

std::vector<Operand> CallCast(OpCall& call);
std::vector<Operand> CallClamp(OpCall& call);
std::vector<Operand> CallWhere(OpCall& call);

}  // namespace nnref
