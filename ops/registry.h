// The operator registry, generated from op_list.inc.
#pragma once

#include <string_view>
#include <vector>

#include "ops/limits.h"
#include "ops/op_call.h"

namespace nnref {

struct OpInfo {
  std::string_view name;     // the MLGraphBuilder method name
  std::string_view section;  // WebNN spec section id
  std::vector<Operand> (*call)(OpCall&);
  const OpLimits* limits;
};

const std::vector<OpInfo>& Registry();
const OpInfo* FindOp(std::string_view name);

}  // namespace nnref
