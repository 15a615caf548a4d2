#include "ops/support_limits.h"

#include <algorithm>

#include "ops/registry.h"

namespace nnref {

const MLTensorLimits* MLOperatorSupportLimits::Find(std::string_view member) const {
  for (const auto& [member_name, limits] : members) {
    if (member_name == member) return &limits;
  }
  return nullptr;
}

const MLOperatorSupportLimits* MLOpSupportLimits::Find(std::string_view op) const {
  for (const MLOperatorSupportLimits& o : operators) {
    if (o.name == op) return &o;
  }
  return nullptr;
}

MLOpSupportLimits OpSupportLimitsFor(const BuilderLimits& limits) {
  const auto max_rank = static_cast<uint32_t>(std::min<size_t>(limits.max_rank, UINT32_MAX));
  const MLTensorLimits any{DataTypeSet::All().List(), {0, max_rank}};
  MLOpSupportLimits result;
  result.maxTensorByteLength = limits.max_tensor_byte_length;
  result.input = any;
  result.constant = any;
  result.output = any;
  for (const OpInfo& op : Registry()) {
    MLOperatorSupportLimits entry{op.name, {}};
    for (const TensorLimits& t : op.limits->operands) {
      const TensorLimits* source = t.same_as.empty() ? &t : op.limits->Find(t.same_as);
      const DataTypeSet types = source ? source->types : DataTypeSet{};
      entry.members.emplace_back(t.operand, MLTensorLimits{types.List(),
                                                           {std::min(t.min_rank, max_rank),
                                                            std::min(t.max_rank, max_rank)}});
    }
    result.operators.push_back(std::move(entry));
  }
  return result;
}

}  // namespace nnref
