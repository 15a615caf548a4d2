#include "ops/elementwise.h"

namespace nnref {

void CheckDataType(const std::string& op, std::string_view operand, DataType type,
                   const DataTypeSet& allowed) {
  if (!allowed.Contains(type)) {
    ThrowTypeError(op + ": " + std::string(operand) + " data type " +
                   std::string(DataTypeName(type)) + " is not one of the allowed data types (" +
                   allowed.ToString() + ")");
  }
}

Shape BroadcastOrThrow(const std::string& op, const Shape& a, const Shape& b) {
  auto s = BroadcastBidirectional(a, b);
  if (!s) {
    ThrowTypeError(op + ": shapes " + ShapeToString(a) + " and " + ShapeToString(b) +
                   " are not bidirectionally broadcastable");
  }
  return *s;
}

}  // namespace nnref
