#include "ref/graph/op_id.h"

#include <array>

namespace nnref {

namespace {

constexpr std::array<std::string_view, kOpIdCount> kNames = {
#define NNREF_OP(name, ...) #name,
#include "ops/op_list.inc"
#undef NNREF_OP
#define NNREF_NNEF_OP(name, ...) #name,
#include "ops/nnef_op_list.inc"
#undef NNREF_NNEF_OP
};

}  // namespace

std::string_view OpName(OpId op) { return kNames[static_cast<size_t>(op)]; }

std::optional<OpId> ParseOpId(std::string_view name) {
  for (size_t i = 0; i < kOpCount; ++i) {
    if (kNames[i] == name) return static_cast<OpId>(i);
  }
  return std::nullopt;
}

}  // namespace nnref
