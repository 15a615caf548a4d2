// The case session (runner/session.h): one build on a context, the reference once, a backend
// through the context's backend option, and each output handed to the one judge. Expected values
// are computed by hand below: x = i - 2.5, y = i / 2, out = relu((x + y) * x).
#include "runner/session.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "ops/simd/simd_backend.h"
#include "ref/error.h"
#include "runner/fault_injection.h"

namespace nnref {
namespace {

// out[i] = relu((x + y) * x) for x = i - 2.5, y = i / 2:
//   i:    0     1     2     3     4     5
//   x: -2.5  -1.5  -0.5   0.5   1.5   2.5
//   y:    0   0.5     1   1.5     2   2.5
//   p: 6.25   1.5 -0.25     1  5.25  12.5  ->  relu keeps all but -0.25
constexpr const char* kCase = R"({"cases": [
  {"name": "chain", "graph": {
    "inputs": {
      "x": {"descriptor": {"dataType": "float32", "shape": [2, 3]},
            "data": [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5]},
      "y": {"descriptor": {"dataType": "float32", "shape": [2, 3]},
            "data": [0, 0.5, 1, 1.5, 2, 2.5]}},
    "operators": [
      {"name": "add", "arguments": [{"a": "x"}, {"b": "y"}], "outputs": "s"},
      {"name": "mul", "arguments": [{"a": "s"}, {"b": "x"}], "outputs": "p"},
      {"name": "relu", "arguments": [{"input": "p"}], "outputs": "out"}],
    "expectedOutputs": {"out": {"descriptor": {"dataType": "float32", "shape": [2, 3]},
                                "data": [6.25, 1.5, 0, 1, 5.25, 12.5]}}}},
  {"name": "bad_shapes", "graph": {
    "inputs": {
      "x": {"descriptor": {"dataType": "float32", "shape": [2, 3]}, "data": [1, 2, 3, 4, 5, 6]},
      "y": {"descriptor": {"dataType": "float32", "shape": [4]}, "data": [1, 2, 3, 4]}},
    "operators": [
      {"name": "add", "arguments": [{"a": "x"}, {"b": "y"}], "outputs": "s"},
      {"name": "relu", "arguments": [{"input": "s"}], "outputs": "out"}],
    "expectedOutputs": {"out": {"descriptor": {"dataType": "float32", "shape": [2, 3]},
                                "data": [0, 0, 0, 0, 0, 0]}}}}]})";

CaseFile LoadTestCases() {
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("nnref_session_test_" + std::to_string(getpid()) + ".json");
  std::ofstream(path) << kCase;
  CaseFile f = LoadCaseFile(path.string());
  std::filesystem::remove(path);
  return f;
}

Tensor Out(std::initializer_list<float> values) {
  Tensor t = Tensor::Allocate(DataType::kFloat32, {2, 3});
  int i = 0;
  for (float v : values) t.base<float>()[i++] = v;
  return t;
}

const OperandDescriptor kOutDesc{DataType::kFloat32, {2, 3}};

// The simd backend without relu: a backend that lacks an operator.
class SimdWithoutRelu final : public Backend {
 public:
  std::string_view name() const override { return "partial"; }
  std::string Describe() const override { return "simd without relu"; }
  std::optional<std::string> Unsupported(OpId op, DataType type) const override {
    if (op == OpId::relu) return std::string("not implemented");
    return simd_->Unsupported(op, type);
  }
  std::shared_ptr<const Kernel> MakeKernel(const Graph& graph, size_t index,
                                           std::string& why) const override {
    if (graph.operators()[index].op == OpId::relu) {
      why = "not implemented";
      return nullptr;
    }
    return simd_->MakeKernel(graph, index, why);
  }

 private:
  std::shared_ptr<const Backend> simd_ = MakeSimdBackend(BackendOptions{1});
};

TEST_CASE("session: the reference's outputs judged against a case's data") {
  const CaseFile f = LoadTestCases();
  const Case& c = f.cases.at(0);
  SessionOptions options;
  CaseSession session(c, {"out"}, options);
  CHECK_FALSE(session.unsupported());
  session.Run();
  const OutputResult right = session.Judge("out", kOutDesc, [] {
    return Out({6.25f, 1.5f, 0, 1, 5.25f, 12.5f});
  });
  CHECK(right.cmp.passed());
  const OutputResult wrong = session.Judge("out", kOutDesc, [] {
    return Out({6.25f, 1.5f, 0, 1, 6.25f, 12.5f});
  });
  CHECK(wrong.cmp.mismatches == 1);
  REQUIRE(wrong.cmp.first.size() == 1);
  CHECK(wrong.cmp.first[0].coordinates == "[1, 1]");
  // A descriptor that differs is a failed output, and the data is never decoded.
  bool decoded = false;
  const OutputResult shape = session.Judge("out", {DataType::kFloat32, {6}}, [&] {
    decoded = true;
    return Out({});
  });
  CHECK_FALSE(shape.cmp.shape_ok);
  CHECK_FALSE(decoded);
}

TEST_CASE("session: the rule follows --exact and the policy") {
  const CaseFile f = LoadTestCases();
  const Case& c = f.cases.at(0);
  SUBCASE("exact: 0 ULP, signed zeros, no bounds") {
    SessionOptions options;
    options.judge.exact = true;
    CaseSession session(c, {"out"}, options);
    session.Run();
    const Judgement rule = session.Rule("out");
    CHECK(rule.tolerance.ulp == 0);
    CHECK(rule.tolerance.sign_exact);
    CHECK(rule.bounds.empty());
  }
  SUBCASE("derived: one bound per element") {
    SessionOptions options;
    options.judge.policy = TolerancePolicy::kDerived;
    CaseSession session(c, {"out"}, options);
    session.Run();
    CHECK(session.Rule("out").bounds.size() == 6);
  }
}

TEST_CASE("session: a backend computes through the context, the check mode blames the operator") {
  const CaseFile f = LoadTestCases();
  const Case& c = f.cases.at(0);
  SessionOptions options;
  // Element [1, 1] of mul: (1.5 + 2) * 1.5 = 5.25; the fault gives 9, which relu keeps.
  options.backend = MakeFaultInjectingBackend(MakeSimdBackend(BackendOptions{1}), "mul", 4, 9);
  options.against_reference = true;
  CaseSession session(c, {"out"}, options);
  REQUIRE_FALSE(session.unsupported());
  session.Run();
  CHECK(session.values().at("out").data.base<float>()[4] == 9.0f);  // the backend's output
  REQUIRE(session.check());
  REQUIRE(session.check()->first_divergence);
  CHECK(session.check()->operators[*session.check()->first_divergence].op == OpId::mul);
  const OutputResult out = session.Judge("out", kOutDesc, [] {
    return Out({6.25f, 1.5f, 0, 1, 5.25f, 12.5f});
  });
  CHECK(out.cmp.mismatches == 1);
}

TEST_CASE("session: an operator the backend lacks is unsupported; a spec error stays an error") {
  const CaseFile f = LoadTestCases();
  SessionOptions options;
  options.backend = std::make_shared<SimdWithoutRelu>();
  CaseSession session(f.cases.at(0), {"out"}, options);
  REQUIRE(session.unsupported());
  CHECK(session.unsupported()->find("relu") != std::string::npos);
  CHECK_THROWS_AS(session.Run(), InputError);
  // add of [2, 3] and [4] does not broadcast: a TypeError on every context.
  CHECK_THROWS_AS(CaseSession(f.cases.at(1), {"out"}, options), WebnnError);
}

}  // namespace
}  // namespace nnref
