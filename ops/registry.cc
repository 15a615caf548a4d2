#include "ops/registry.h"

#include "ops/cast_clamp_where.h"
#include "ops/elementwise_binary.h"
#include "ops/elementwise_logical.h"
#include "ops/elementwise_unary.h"

namespace nnref {

const std::vector<OpInfo>& Registry() {
  static const std::vector<OpInfo> kRegistry = {
#define NNREF_OP(name, section, call, limits) {#name, (section), &(call), &(limits)},
#include "ops/op_list.inc"
#undef NNREF_OP
  };
  return kRegistry;
}

const OpInfo* FindOp(std::string_view name) {
  for (const OpInfo& op : Registry()) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

}  // namespace nnref
