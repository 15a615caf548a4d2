// The operator registry, generated from op_list.inc.
#pragma once

#include <string_view>
#include <vector>

#include "ops/limits.h"
#include "ops/op_call.h"
#include "ref/graph/op_id.h"

namespace nnref {

struct OpInfo {
  OpId id;
  std::string_view name;     // the MLGraphBuilder method name (OpName(id))
  std::string_view section;  // WebNN spec section id
  std::vector<Operand> (*call)(OpCall&);
  const OpLimits* limits;
};

// In OpId order: Registry()[i].id == OpId(i).
const std::vector<OpInfo>& Registry();
const OpInfo* FindOp(std::string_view name);

}  // namespace nnref
