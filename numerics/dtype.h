// The eight WebNN operand data types (WebNN §api-mloperanddescriptor, MLOperandDataType) and the
// C++ storage type of each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

#include "numerics/float16.h"

namespace nnref {

enum class DataType : uint8_t {
  kFloat32,
  kFloat16,
  kInt32,
  kUint32,
  kInt64,
  kUint64,
  kInt8,
  kUint8
};

inline constexpr DataType kAllDataTypes[] = {
    DataType::kFloat32, DataType::kFloat16, DataType::kInt32, DataType::kUint32,
    DataType::kInt64,   DataType::kUint64,  DataType::kInt8,  DataType::kUint8};

// The spec's name ("float32", ...).
std::string_view DataTypeName(DataType t);
// Parses a spec name; nullopt for anything else (including "float64", "bool").
std::optional<DataType> ParseDataType(std::string_view name);

// Bytes per element (the ArrayBufferView element size of the appendix table).
size_t ElementSize(DataType t);
bool IsFloat(DataType t);
bool IsSignedInteger(DataType t);
bool IsUnsignedInteger(DataType t);
inline bool IsInteger(DataType t) { return !IsFloat(t); }
// Bit width of an element (8, 16, 32, 64).
inline int BitWidth(DataType t) { return static_cast<int>(ElementSize(t) * 8); }

// Storage type for each data type.
template <DataType T>
struct StorageOf;
template <>
struct StorageOf<DataType::kFloat32> {
  using type = float;
};
template <>
struct StorageOf<DataType::kFloat16> {
  using type = Float16;
};
template <>
struct StorageOf<DataType::kInt32> {
  using type = int32_t;
};
template <>
struct StorageOf<DataType::kUint32> {
  using type = uint32_t;
};
template <>
struct StorageOf<DataType::kInt64> {
  using type = int64_t;
};
template <>
struct StorageOf<DataType::kUint64> {
  using type = uint64_t;
};
template <>
struct StorageOf<DataType::kInt8> {
  using type = int8_t;
};
template <>
struct StorageOf<DataType::kUint8> {
  using type = uint8_t;
};
template <DataType T>
using Storage = typename StorageOf<T>::type;

template <typename T>
constexpr bool kIsFloatStorage = std::is_same_v<T, float> || std::is_same_v<T, Float16>;

// Calls fn.template operator()<T>() with the storage type of `t`: one switch for every
// type-generic kernel in the project.
template <typename Fn>
decltype(auto) DispatchDataType(DataType t, Fn&& fn) {
  switch (t) {
    case DataType::kFloat32:
      return fn.template operator()<float>();
    case DataType::kFloat16:
      return fn.template operator()<Float16>();
    case DataType::kInt32:
      return fn.template operator()<int32_t>();
    case DataType::kUint32:
      return fn.template operator()<uint32_t>();
    case DataType::kInt64:
      return fn.template operator()<int64_t>();
    case DataType::kUint64:
      return fn.template operator()<uint64_t>();
    case DataType::kInt8:
      return fn.template operator()<int8_t>();
    case DataType::kUint8:
      return fn.template operator()<uint8_t>();
  }
  return fn.template operator()<float>();  // unreachable: every enumerator is handled above
}

template <typename T>
constexpr DataType DataTypeOf();
template <>
constexpr DataType DataTypeOf<float>() {
  return DataType::kFloat32;
}
template <>
constexpr DataType DataTypeOf<Float16>() {
  return DataType::kFloat16;
}
template <>
constexpr DataType DataTypeOf<int32_t>() {
  return DataType::kInt32;
}
template <>
constexpr DataType DataTypeOf<uint32_t>() {
  return DataType::kUint32;
}
template <>
constexpr DataType DataTypeOf<int64_t>() {
  return DataType::kInt64;
}
template <>
constexpr DataType DataTypeOf<uint64_t>() {
  return DataType::kUint64;
}
template <>
constexpr DataType DataTypeOf<int8_t>() {
  return DataType::kInt8;
}
template <>
constexpr DataType DataTypeOf<uint8_t>() {
  return DataType::kUint8;
}

}  // namespace nnref
