#include "ops/registry.h"

#include <doctest/doctest.h>

#include <set>

namespace nnref {

// The foundation issue's operator list, written out independently of op_list.inc.
TEST_CASE("registry holds every foundation operator exactly once") {
  const char* expected[] = {"add",
                            "sub",
                            "mul",
                            "div",
                            "max",
                            "min",
                            "pow",
                            "equal",
                            "notEqual",
                            "greater",
                            "greaterOrEqual",
                            "lesser",
                            "lesserOrEqual",
                            "logicalNot",
                            "logicalAnd",
                            "logicalOr",
                            "logicalXor",
                            "isNaN",
                            "isInfinite",
                            "abs",
                            "ceil",
                            "cos",
                            "erf",
                            "exp",
                            "floor",
                            "identity",
                            "log",
                            "neg",
                            "reciprocal",
                            "sin",
                            "sign",
                            "sqrt",
                            "tan",
                            "roundEven",
                            "cast",
                            "clamp",
                            "where"};
  std::set<std::string_view> names;
  for (const OpInfo& op : Registry()) {
    CHECK(names.insert(op.name).second);
    CHECK(op.limits != nullptr);
    CHECK(op.section.substr(0, 19) == "api-mlgraphbuilder-");
  }
  for (const char* e : expected) CHECK_MESSAGE(FindOp(e) != nullptr, e);
  CHECK(FindOp("conv3d") == nullptr);
}

}  // namespace nnref
