// Timeline cases (runner/timeline_script.h, runner/timeline.h): reads judged as outputs
// (runner/judge.h) with the step's, the case's or the written data's tolerance, --exact, the
// shape mismatch, and malformed steps. Expected texts and counts are worked out by hand.
#include "runner/timeline.h"

#include <doctest/doctest.h>

#include <string>
#include <tuple>

#include "ref/error.h"
#include "runner/case.h"
#include "runner/judge.h"
#include "runner/timeline_script.h"

namespace nnref {
namespace {

// One timeline case `{"name": "t", <members>}` loaded from text.
CaseFile Load(const std::string& members) {
  return LoadCaseText(R"({"name": "t", )" + members + "}", "t.json");
}

TimelineResult Run(const CaseFile& f, bool exact = false) {
  REQUIRE(f.broken.empty());
  REQUIRE(f.cases.size() == 1);
  JudgeOptions judge;
  judge.exact = exact;
  return RunTimeline(f.cases[0], BuilderLimits{}, judge);
}

constexpr const char* kWritten = R"(
  {"step": "createTensor", "tensor": "t",
   "descriptor": {"dataType": "float32", "shape": [3], "readable": true, "writable": true}},
  {"step": "writeTensor", "tensor": "t", "data": [1, 2, 3]},)";

}  // namespace

TEST_CASE("timeline reads of written data are judged exactly, one output each") {
  const CaseFile f = Load(std::string(R"("timeline": [)") + kWritten + R"(
      {"step": "readTensor", "tensor": "t", "expected": [1, 2, 3]},
      {"step": "readTensor", "tensor": "t", "expected": [1, 2.5, 3]}])");
  const TimelineResult r = Run(f);
  CHECK(r.verdict == Verdict::kFail);
  CHECK(r.message ==
        "t.json: case 't': timeline[3] (readTensor): the data read differs from "
        "'expected'");
  REQUIRE(r.outputs.size() == 2);
  CHECK(r.outputs[0].name == "timeline[2] readTensor t");
  CHECK(r.outputs[0].tolerance == "0 ULP");
  CHECK(r.outputs[0].cmp.passed());
  CHECK(r.outputs[1].name == "timeline[3] readTensor t");
  CHECK(r.outputs[1].cmp.shape_ok);
  CHECK(r.outputs[1].cmp.mismatches == 1);  // only element 1: 2 read, 2.5 expected
  REQUIRE(r.log.size() == 4);
  CHECK(r.log[3].find("(MISMATCH)") != std::string::npos);
}

TEST_CASE("timeline reads take the step's tolerance, else the case's") {
  // 2.0000002 rounds to the float32 just above 2 (2 + 2^-22): 1 ULP from the 2 read.
  const CaseFile step = Load(std::string(R"("timeline": [)") + kWritten + R"(
      {"step": "readTensor", "tensor": "t", "expected": [1, 2.0000002, 3],
       "tolerance": {"metric": "ULP", "value": 2}}])");
  TimelineResult r = Run(step);
  CHECK(r.verdict == Verdict::kPass);
  REQUIRE(r.outputs.size() == 1);
  CHECK(r.outputs[0].tolerance == "2 ULP");
  CHECK(r.outputs[0].tol_ulp == 2);
  CHECK(r.outputs[0].cmp.passed());

  const CaseFile c = Load(std::string(R"("tolerance": {"metric": "ATOL", "value": 0.01},
      "timeline": [)") + kWritten +
                          R"(
      {"step": "readTensor", "tensor": "t", "expected": [1.001, 2, 3]}])");
  r = Run(c);
  CHECK(r.verdict == Verdict::kPass);
  REQUIRE(r.outputs.size() == 1);
  CHECK(r.outputs[0].tolerance == "ATOL 0.01");

  // --exact overrides both: 1 ULP is now a mismatch.
  r = Run(step, true);
  CHECK(r.verdict == Verdict::kFail);
  REQUIRE(r.outputs.size() == 1);
  CHECK(r.outputs[0].tolerance == "0 ULP, sign-exact zeros");
  CHECK(r.outputs[0].cmp.mismatches == 1);
}

TEST_CASE("a timeline read expecting another descriptor is a failed output, not compared") {
  const CaseFile f = Load(std::string(R"("timeline": [)") + kWritten + R"(
      {"step": "readTensor", "tensor": "t",
       "expected": {"descriptor": {"dataType": "float32", "shape": [1, 3]}, "data": [1, 2, 3]}}])");
  for (const bool exact : {false, true}) {
    const TimelineResult r = Run(f, exact);
    CHECK(r.verdict == Verdict::kFail);
    REQUIRE(r.outputs.size() == 1);
    CHECK_FALSE(r.outputs[0].cmp.shape_ok);
    CHECK(r.outputs[0].cmp.shape_message ==
          "the step expects float32[1, 3] but the tensor is float32[3]");
    CHECK(r.outputs[0].tolerance == (exact ? "0 ULP, sign-exact zeros" : "0 ULP"));
  }
}

TEST_CASE("timeline steps that cannot run are errors naming the step and member") {
  const CaseFile f =
      Load(R"("timeline": [{"step": "readTensor", "tensor": "nope", "expected": [1]}])");
  const TimelineResult r = Run(f);
  CHECK(r.verdict == Verdict::kError);
  CHECK(r.message.find("timeline[0] (readTensor).tensor: no tensor named 'nope'") !=
        std::string::npos);
  CHECK(r.outputs.empty());
}

TEST_CASE("timeline decoding names the malformed step") {
  const CaseFile f = Load(R"("timeline": [{"step": "createContext"}, {"step": "sleep"}])");
  REQUIRE(f.broken.size() == 1);
  CHECK(std::get<2>(f.broken[0]) == "t.json: case 't': timeline[1].step: unknown step 'sleep'");

  // A member no step uses is a warning, and the script still decodes.
  const CaseFile w = Load(R"("timeline": [{"step": "createContext", "tensor": "x"}])");
  REQUIRE(w.cases.size() == 1);
  REQUIRE(w.cases[0].timeline);
  REQUIRE(w.cases[0].timeline->steps.size() == 1);
  CHECK(w.cases[0].timeline->steps[0].kind == StepKind::kCreateContext);
  REQUIRE(w.cases[0].timeline->warnings.size() == 1);
  CHECK(w.cases[0].timeline->warnings[0] ==
        "t.json: case 't': timeline[0] (createContext): member 'tensor' is not used by this step");
}

}  // namespace nnref

namespace nnref {

TEST_CASE("timeline GPU interop: awaiting work that waits for an unreturned rental is an error") {
  // Read directly while rented, and through a dispatch's output: either would never end in a
  // one-thread script, so the step is refused with what to do instead (no hang).
  constexpr const char* kRented = R"("timeline": [
      {"step": "createContext", "options": {"gpuDevice": "gpu"}},
      {"step": "createTensor", "tensor": "x",
       "descriptor": {"dataType": "float32", "shape": [2], "readable": true,
                      "importableToWebGPU": true}},
      {"step": "createTensor", "tensor": "y",
       "descriptor": {"dataType": "float32", "shape": [2], "readable": true}},
      {"step": "build", "graph": "g", "inputs": {"a": {"descriptor": {"dataType": "float32",
       "shape": [2]}}}, "operators": [{"name": "neg", "arguments": [{"input": "a"}],
       "outputs": "b"}], "outputs": ["b"]},
      {"step": "importExternalBuffer", "tensor": "x", "gpuDevice": "gpu", "gpuBuffer": "B"},)";
  const TimelineResult direct = Run(Load(std::string(kRented) + R"(
      {"step": "readTensor", "tensor": "x", "expected": [0, 0]}])"));
  CHECK(direct.verdict == Verdict::kError);
  CHECK(direct.message.find("timeline[5] (readTensor): the read of 'x' waits for a GPU buffer") !=
        std::string::npos);
  const TimelineResult indirect = Run(Load(std::string(kRented) + R"(
      {"step": "dispatch", "graph": "g", "inputs": {"a": "x"}, "outputs": {"b": "y"}},
      {"step": "readTensor", "tensor": "y", "promise": "r"},
      {"step": "await", "promise": "r"}])"));
  CHECK(indirect.verdict == Verdict::kError);
  CHECK(indirect.message.find("the read of 'y' waits for a GPU buffer") != std::string::npos);
  // Returned first, the same await passes: -(GPU's 1.5, -2) = (-1.5, 2).
  const TimelineResult returned = Run(Load(std::string(kRented) + R"(
      {"step": "dispatch", "graph": "g", "inputs": {"a": "x"}, "outputs": {"b": "y"}},
      {"step": "readTensor", "tensor": "y", "promise": "r"},
      {"step": "gpuWrite", "gpuBuffer": "B", "data": [1.5, -2]},
      {"step": "returnBuffer", "gpuBuffer": "B"},
      {"step": "await", "promise": "r", "expected": [-1.5, 2]}])"));
  CHECK(returned.verdict == Verdict::kPass);
  CHECK(returned.message == "");
}

}  // namespace nnref
