// Tensor limits tables (the spec's "allowed data types" / "allowed ranks" per operand). One table
// per operator serves both validation and `nnref ops` / opSupportLimits.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "numerics/dtype.h"

namespace nnref {

// A set of data types as a bit mask over DataType's enumerators.
class DataTypeSet {
 public:
  constexpr DataTypeSet() = default;
  constexpr DataTypeSet(std::initializer_list<DataType> types) {
    for (DataType t : types) bits_ |= Bit(t);
  }
  static constexpr DataTypeSet All() {
    DataTypeSet s;
    s.bits_ = 0xff;
    return s;
  }
  constexpr bool Contains(DataType t) const { return (bits_ & Bit(t)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  std::vector<DataType> List() const;
  std::string ToString() const;  // "float32, float16"

 private:
  static constexpr uint8_t Bit(DataType t) {
    return static_cast<uint8_t>(1u << static_cast<int>(t));
  }
  uint8_t bits_ = 0;
};

inline constexpr DataTypeSet kFloatTypes{DataType::kFloat32, DataType::kFloat16};
inline constexpr uint32_t kMaxRankAny = 16;  // "N": any rank up to the builder's limit

struct TensorLimits {
  std::string_view operand;  // "a", "input", "output", ...
  DataTypeSet types;         // allowed data types (empty when `same_as` is set)
  std::string_view same_as;  // "same as" another operand's type, or ""
  uint32_t min_rank = 0;
  uint32_t max_rank = kMaxRankAny;
};

struct OpLimits {
  std::vector<TensorLimits> operands;
  const TensorLimits* Find(std::string_view operand) const;
};

}  // namespace nnref
