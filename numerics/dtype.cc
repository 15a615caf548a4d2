#include "numerics/dtype.h"

namespace nnref {

std::string_view DataTypeName(DataType t) {
  switch (t) {
    case DataType::kFloat32:
      return "float32";
    case DataType::kFloat16:
      return "float16";
    case DataType::kInt32:
      return "int32";
    case DataType::kUint32:
      return "uint32";
    case DataType::kInt64:
      return "int64";
    case DataType::kUint64:
      return "uint64";
    case DataType::kInt8:
      return "int8";
    case DataType::kUint8:
      return "uint8";
  }
  return "?";
}

std::optional<DataType> ParseDataType(std::string_view name) {
  for (DataType t : kAllDataTypes) {
    if (DataTypeName(t) == name) return t;
  }
  return std::nullopt;
}

size_t ElementSize(DataType t) {
  switch (t) {
    case DataType::kFloat32:
    case DataType::kInt32:
    case DataType::kUint32:
      return 4;
    case DataType::kFloat16:
      return 2;
    case DataType::kInt64:
    case DataType::kUint64:
      return 8;
    case DataType::kInt8:
    case DataType::kUint8:
      return 1;
  }
  return 0;
}

bool IsFloat(DataType t) { return t == DataType::kFloat32 || t == DataType::kFloat16; }
bool IsSignedInteger(DataType t) {
  return t == DataType::kInt32 || t == DataType::kInt64 || t == DataType::kInt8;
}
bool IsUnsignedInteger(DataType t) {
  return t == DataType::kUint32 || t == DataType::kUint64 || t == DataType::kUint8;
}

}  // namespace nnref
