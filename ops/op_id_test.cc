// OpId (ref/graph/op_id.h) against the registry and the tolerance table built from the same list.
#include "ref/graph/op_id.h"

#include <doctest/doctest.h>

#include <array>

#include "ops/registry.h"
#include "ops/tolerance_table.h"

namespace nnref {
namespace {

TEST_CASE("OpId: registry names round-trip and the enum order is the registry order") {
  const std::vector<OpInfo>& registry = Registry();
  REQUIRE(registry.size() == kOpCount);
  for (size_t i = 0; i < registry.size(); ++i) {
    const OpInfo& info = registry[i];
    CAPTURE(info.name);
    CHECK(static_cast<size_t>(info.id) == i);
    CHECK(OpName(info.id) == info.name);
    const std::optional<OpId> parsed = ParseOpId(info.name);
    REQUIRE(parsed.has_value());
    CHECK(*parsed == info.id);
    CHECK(IsWebnnOp(info.id));
  }
}

TEST_CASE("OpId: ParseOpId takes exact method names only") {
  CHECK_FALSE(ParseOpId("").has_value());
  CHECK_FALSE(ParseOpId("ADD").has_value());
  CHECK_FALSE(ParseOpId("frobnicate").has_value());
  CHECK_FALSE(ParseOpId("conv").has_value());  // NNEF-only: OpId::nnef_conv, not parsed
  CHECK(OpName(OpId::nnef_conv) == "conv");
  CHECK_FALSE(IsWebnnOp(OpId::nnef_conv));
  CHECK(static_cast<size_t>(OpId::nnef_conv) == kOpCount);
}

TEST_CASE("OpId: every WebNN operator has exactly one tolerance row, NNEF-only ones none") {
  std::array<int, kOpIdCount> rows{};
  for (const ToleranceRow& r : DefaultToleranceTable()) ++rows[static_cast<size_t>(r.op)];
  for (size_t i = 0; i < kOpIdCount; ++i) {
    const auto op = static_cast<OpId>(i);
    CAPTURE(OpName(op));
    CHECK(rows[i] == (IsWebnnOp(op) ? 1 : 0));
  }
}

}  // namespace
}  // namespace nnref
