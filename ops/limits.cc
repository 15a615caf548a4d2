#include "ops/limits.h"

namespace nnref {

std::vector<DataType> DataTypeSet::List() const {
  std::vector<DataType> out;
  for (DataType t : kAllDataTypes) {
    if (Contains(t)) out.push_back(t);
  }
  return out;
}

std::string DataTypeSet::ToString() const {
  std::string s;
  for (DataType t : List()) {
    if (!s.empty()) s += ", ";
    s += DataTypeName(t);
  }
  return s;
}

const TensorLimits* OpLimits::Find(std::string_view operand) const {
  for (const TensorLimits& t : operands) {
    if (t.operand == operand) return &t;
  }
  return nullptr;
}

}  // namespace nnref
