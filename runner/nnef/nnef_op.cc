#include "runner/nnef/nnef_op.h"

#include <array>

namespace nnref::nnef {
namespace {

struct Row {
  std::string_view name;
  std::string_view section;
  NnefFamily family;
};

constexpr std::array<Row, kNnefOpCount> kRows = {{
#define NNREF_NNEF_OPERATION(id, name, section, family) {name, section, NnefFamily::family},
#include "runner/nnef/nnef_ops.inc"
#undef NNREF_NNEF_OPERATION
}};

const Row& RowOf(NnefOp op) { return kRows[static_cast<size_t>(op)]; }

}  // namespace

std::string_view NnefOpName(NnefOp op) { return RowOf(op).name; }

std::optional<NnefOp> ParseNnefOp(std::string_view name) {
  for (size_t i = 0; i < kRows.size(); ++i) {
    if (kRows[i].name == name) return static_cast<NnefOp>(i);
  }
  return std::nullopt;
}

std::string_view NnefOpSection(NnefOp op) { return RowOf(op).section; }

NnefFamily NnefOpFamily(NnefOp op) { return RowOf(op).family; }

std::string NnefRule(NnefOp op) {
  return std::string(NnefOpSection(op)) + " " + std::string(NnefOpName(op));
}

}  // namespace nnref::nnef
