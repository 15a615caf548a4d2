// Operator identity: one enumerator per MLGraphBuilder operator method, named as the method
// (OpId::conv2d), in the order of ops/op_list.inc, which is the list itself; then the operators
// that only runner/nnef builds (ops/nnef_op_list.inc), named nnef_<NNEF name>. Only the first
// column of each list is read here, so ref/ depends on no symbol of ops/ or runner/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "numerics/dtype.h"

namespace nnref {

enum class OpId : uint8_t {
#define NNREF_OP(name, ...) name,
#include "ops/op_list.inc"
#undef NNREF_OP
#define NNREF_NNEF_OP(name, ...) nnef_##name,
#include "ops/nnef_op_list.inc"
#undef NNREF_NNEF_OP
};

// The number of WebNN operator methods: OpIds 0 .. kOpCount-1 (registry order).
inline constexpr size_t kOpCount = 0
#define NNREF_OP(name, ...) +1
#include "ops/op_list.inc"
#undef NNREF_OP
    ;
// All OpIds, the NNEF-only ones included.
inline constexpr size_t kOpIdCount = kOpCount
#define NNREF_NNEF_OP(name, ...) +1
#include "ops/nnef_op_list.inc"
#undef NNREF_NNEF_OP
    ;

// Whether `op` is a WebNN operator method (not an NNEF-only operator).
constexpr bool IsWebnnOp(OpId op) { return static_cast<size_t>(op) < kOpCount; }

// The method name ("conv2d"); for an NNEF-only operator its NNEF name ("conv").
std::string_view OpName(OpId op);
// The OpId of a WebNN method name (exact spelling); nullopt for any other string, NNEF-only
// names included.
std::optional<OpId> ParseOpId(std::string_view name);

// What an operator tells the default tolerance table (ops/tolerance_table.h) about itself: the
// operator whose row applies, its output type, and the size parameter that some rows scale with
// (e.g. the reduced element count).
struct ToleranceQuery {
  OpId op = OpId::identity;
  DataType output = DataType::kFloat32;
  uint64_t size = 0;
};

}  // namespace nnref
