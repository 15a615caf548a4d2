#include "ops/registry.h"

#include <doctest/doctest.h>

#include <set>
#include <utility>

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

// Issue 3's shape and data-movement operators with their spec section ids, written out
// independently of op_list.inc.
TEST_CASE("registry holds the data-movement operators with their sections") {
  const std::pair<const char*, const char*> expected[] = {
      {"reshape", "api-mlgraphbuilder-reshape-method"},
      {"transpose", "api-mlgraphbuilder-transpose"},
      {"expand", "api-mlgraphbuilder-expand"},
      {"slice", "api-mlgraphbuilder-slice"},
      {"reverse", "api-mlgraphbuilder-reverse-method"},
      {"split", "api-mlgraphbuilder-split"},
      {"concat", "api-mlgraphbuilder-concat"},
      {"pad", "api-mlgraphbuilder-pad"},
      {"tile", "api-mlgraphbuilder-tile"},
      {"triangular", "api-mlgraphbuilder-triangular"}};
  for (const auto& [name, section] : expected) {
    const OpInfo* op = FindOp(name);
    REQUIRE_MESSAGE(op != nullptr, name);
    CHECK(op->section == section);
  }
}

// Issue 3's indexing operators with their spec section ids and index data types, written out
// independently of op_list.inc and the limits tables.
TEST_CASE("registry holds the indexing operators with their sections") {
  const std::pair<const char*, const char*> expected[] = {
      {"gather", "api-mlgraphbuilder-gather"},
      {"gatherElements", "api-mlgraphbuilder-gatherelements"},
      {"gatherND", "api-mlgraphbuilder-gathernd"},
      {"scatterElements", "api-mlgraphbuilder-scatterelements"},
      {"scatterND", "api-mlgraphbuilder-scatternd"},
      {"argMin", "api-mlgraphbuilder-argminmax"},
      {"argMax", "api-mlgraphbuilder-argminmax"},
      {"cumulativeSum", "api-mlgraphbuilder-cumulativesum"}};
  for (const auto& [name, section] : expected) {
    const OpInfo* op = FindOp(name);
    REQUIRE_MESSAGE(op != nullptr, name);
    CHECK(op->section == section);
    const TensorLimits* indices = op->limits->Find("indices");
    if (std::string_view(name).substr(0, 6) == "gather" ||
        std::string_view(name).substr(0, 7) == "scatter") {
      REQUIRE_MESSAGE(indices != nullptr, name);
      CHECK(indices->types.ToString() == "int32, uint32, int64");
    }
  }
  CHECK(FindOp("argMax")->limits->Find("output")->types.ToString() == "int32, int64");
}

}  // namespace nnref
