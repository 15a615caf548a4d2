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

// The NNEF operator group (ops/nnef_op_list.inc): operators that only the NNEF front end builds,
// through the builders of ops/nnef_*.h (no case-file call, no WebNN limits table).
struct NnefOpInfo {
  OpId id;                   // OpId::nnef_<name>
  std::string_view name;     // the NNEF name (OpName(id))
  std::string_view section;  // NNEF 1.0.2 section
  OpId tolerance_row;        // the WebNN operator whose default tolerance row judges it
};
// In OpId order: NnefRegistry()[i].id == OpId(kOpCount + i).
const std::vector<NnefOpInfo>& NnefRegistry();

}  // namespace nnref
