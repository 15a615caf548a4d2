// The NNEF operation list (nnef_ops.inc, nnef_op.h): names round-trip, the list agrees with the
// standard library text (stdlib.nnef, written from chapter 4), sections agree with the NNEF
// 1.0.2 text, and a parsed graph carries the identity of each invocation.
#include "runner/nnef/nnef_op.h"

#include <doctest/doctest.h>

#include <set>
#include <string>

#include "runner/nnef/nnef_testing.h"
#include "runner/nnef/syntax.h"

namespace nnref::nnef {

extern const std::string_view kStandardLibraryText;  // stdlib.cc (generated from stdlib.nnef)

namespace {

using testing::Parse;

TEST_CASE("NnefOp: every name parses back to its operation; other names do not parse") {
  std::set<std::string> names;
  for (size_t i = 0; i < kNnefOpCount; ++i) {
    const auto op = static_cast<NnefOp>(i);
    CAPTURE(i);
    REQUIRE(!NnefOpName(op).empty());
    CHECK(ParseNnefOp(NnefOpName(op)) == op);
    CHECK(names.insert(std::string(NnefOpName(op))).second);  // no name listed twice
  }
  // Standard fragments the front end does not treat by name (compounds it only expands), other
  // spellings, WebNN method names and expression operators.
  for (const char* other : {"max_pool", "linear", "Conv", "conv ", "", "conv2d", "argMax", "+",
                            "integer", "shape_of", "KHR_enable_fragment_definitions"}) {
    CAPTURE(other);
    CHECK(!ParseNnefOp(other).has_value());
  }
}

TEST_CASE("NnefOp: the list is every body-less standard fragment plus the recorded compounds") {
  // stdlib.nnef declares the chapter-4 primitives without a body: each must be in the list (not
  // as a compound); each list entry must be a standard fragment, with a body exactly when it is
  // a compound (4.9).
  const Document lib = ParseLibrary(kStandardLibraryText, "<standard library>");
  std::set<std::string> fragments;
  size_t primitives = 0;
  for (const auto& f : lib.fragments) {
    fragments.insert(f->name);
    const std::optional<NnefOp> id = ParseNnefOp(f->name);
    CAPTURE(f->name);
    if (!f->has_body) {
      ++primitives;
      REQUIRE(id.has_value());
      CHECK(NnefOpFamily(*id) != NnefFamily::kCompound);
    } else if (id) {
      CHECK(NnefOpFamily(*id) == NnefFamily::kCompound);
    }
  }
  CHECK(primitives > 60);  // the primitives of 4.1 .. 4.8
  for (size_t i = 0; i < kNnefOpCount; ++i) {
    const std::string name(NnefOpName(static_cast<NnefOp>(i)));
    CAPTURE(name);
    CHECK(fragments.count(name) == 1);
  }
}

TEST_CASE("NnefOp: sections are those of the NNEF 1.0.2 text") {
  // Looked up in the specification: "4.3.3. Index Based Sampling" defines argmax_pool, sample
  // and desample; "4.6.2. RoI Align" roi_resample; "4.5.6. Tiling" tile; "4.8. Variable Updates"
  // update; "4.4. Reduce Operations" the reductions; "4.9.1. Activation Functions" softmax.
  CHECK(NnefOpSection(*ParseNnefOp("argmax_pool")) == "4.3.3");
  CHECK(NnefOpSection(*ParseNnefOp("desample")) == "4.3.3");
  CHECK(NnefOpSection(*ParseNnefOp("box")) == "4.3.2");
  CHECK(NnefOpSection(*ParseNnefOp("roi_resample")) == "4.6.2");
  CHECK(NnefOpSection(*ParseNnefOp("tile")) == "4.5.6");
  CHECK(NnefOpSection(*ParseNnefOp("update")) == "4.8");
  CHECK(NnefOpSection(*ParseNnefOp("any_reduce")) == "4.4");
  CHECK(NnefOpSection(*ParseNnefOp("softmax")) == "4.9.1");
  CHECK(NnefRule(NnefOp::kArgmaxPool) == "4.3.3 argmax_pool");
  // The rule reaches the message of a rejected invocation.
  const NnefError e = testing::ErrorOf(testing::Doc("y = argmax_pool(x, size = [1, 1, 2, 2, 2]);"));
  CHECK(e.rule().starts_with("4.3.3 argmax_pool: "));
}

TEST_CASE("NnefOp: a flattened graph carries each invocation's operation") {
  const FlatGraph g =
      Parse(testing::Doc("y = tanh(max_pool(x, size = [1, 1, 2, 2], stride = [1, 1, 2, 2]));"));
  REQUIRE(!g.ops.empty());
  for (const Invocation& inv : g.ops) {
    CAPTURE(inv.op);
    REQUIRE(inv.id.has_value());
    CHECK(NnefOpName(*inv.id) == inv.op);
  }
  CHECK(g.ops.front().id == NnefOp::kExternal);
  REQUIRE(g.compounds.size() == 1);
  CHECK(g.compounds[0].id == NnefOp::kTanh);
}

}  // namespace
}  // namespace nnref::nnef
