// The coverage test: every backend of the list (runner/backends.h, the reference's included) has,
// for every operator of ops/op_list.inc and each data type of its first operand, and for every
// NNEF-only operator of ops/nnef_op_list.inc, a kernel or a stated reason (ops/backend.h,
// CoverageGaps). Adding an operator to the list without giving each backend a kernel or a reason
// fails here: this is the checklist of docs/adding-an-operator.md. The test-only backends below
// show that it can fail.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "ops/backend.h"
#include "ops/registry.h"
#include "runner/backends.h"

namespace nnref {
namespace {

// A test-only backend: a kernel for every operator except those in `gaps` (answered as an
// operator no part of the backend claims) and `empty` (answered with an empty reason); the
// NNEF-only operators get a stated reason unless `nnef_gap`.
class FakeBackend final : public Backend {
 public:
  std::set<OpId> gaps, empty;
  bool nnef_gap = false;
  std::string_view name() const override { return "fake"; }
  std::string Describe() const override { return "fake (test only)"; }
  std::optional<std::string> Unsupported(OpId op, DataType type) const override {
    if (!IsWebnnOp(op)) {
      return nnef_gap ? std::string(kNoKernelForOperator) : std::string(kNnefOnlyOperator);
    }
    if (gaps.count(op) > 0) return std::string(kNoKernelForOperator);
    if (empty.count(op) > 0 && type == DataType::kFloat16) return std::string();
    if (op == OpId::lstm) return std::string("lstm: left to the reference on purpose");
    return std::nullopt;
  }
  std::shared_ptr<const Kernel> MakeKernel(const Graph&, size_t, std::string& why) const override {
    why = "fake";
    return nullptr;
  }
};

void CheckCovered(bool on_devices) {
  size_t checked = 0;
  for (const BackendRegistration* b : RegisteredBackends()) {
    if ((b->list_devices != nullptr) != on_devices) continue;
    CAPTURE(b->name);
    const std::shared_ptr<const Backend> backend = MakeBackend(std::string(b->name), {1, -1});
    REQUIRE(backend);
    CHECK(backend->name() == b->name);
    const std::vector<std::string> gaps = CoverageGaps(*backend);
    std::string text;
    for (const std::string& g : gaps) text += g + "\n";
    CAPTURE(text);
    CHECK(gaps.empty());
    ++checked;
  }
  if (!on_devices) CHECK(checked >= 1);  // the reference at least
}

TEST_CASE("every backend without devices covers the operator list") { CheckCovered(false); }

// On the first device (lavapipe on CI); a backend without a device answers every operator with
// why (no loader, no device): a stated reason, so this passes there too.
TEST_CASE("every backend on devices covers the operator list [device]") { CheckCovered(true); }

TEST_CASE("the backend list: the reference first, names unique, unknown names refused") {
  const std::vector<std::string> names = BackendNames();
  REQUIRE(!names.empty());
  CHECK(names.front() == "reference");
  CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size());
  CHECK(BackendChoices("reference").rfind("reference (default)", 0) == 0);
  CHECK_THROWS_WITH_AS(MakeBackend("no-such-backend", {}),
                       doctest::Contains("no such backend (choose one of: reference"),
                       std::exception);
}

TEST_CASE("a backend with an unclaimed operator or an empty reason is reported") {
  FakeBackend fake;
  SUBCASE("covered, with a stated reason for lstm and the NNEF-only operators") {
    CHECK(CoverageGaps(fake).empty());
  }
  SUBCASE("cumulativeSum unclaimed: one gap per data type of its input") {
    fake.gaps = {OpId::cumulativeSum};
    const std::vector<std::string> gaps = CoverageGaps(fake);
    // cumulativeSum's input: float32, float16, int32, uint32, int64, uint64 (WebNN
    // §api-mlgraphbuilder-cumulativesum, its table of constraints).
    REQUIRE(gaps.size() == 6);
    for (const std::string& g : gaps) {
      CHECK(g.rfind("cumulativeSum ", 0) == 0);
      CHECK(g.find("no kernel and no reason") != std::string::npos);
    }
    CHECK(std::count(gaps.begin(), gaps.end(),
                     "cumulativeSum float16: no kernel and no reason (no part of the backend "
                     "claims it)") == 1);
  }
  SUBCASE("an empty reason for gelu float16") {
    fake.empty = {OpId::gelu};
    const std::vector<std::string> gaps = CoverageGaps(fake);
    REQUIRE(gaps.size() == 1);
    CHECK(gaps[0] == "gelu float16: no kernel and an empty reason");
  }
  SUBCASE("the NNEF-only operators are walked too") {
    fake.nnef_gap = true;
    const std::vector<std::string> gaps = CoverageGaps(fake);
    CHECK(gaps.size() == kOpIdCount - kOpCount);
    REQUIRE(!gaps.empty());
    CHECK(gaps[0].rfind(std::string(OpName(static_cast<OpId>(kOpCount))), 0) == 0);
  }
}

}  // namespace
}  // namespace nnref
