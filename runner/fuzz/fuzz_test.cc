// nnref fuzz: the generator is deterministic and its graphs are valid, its data reaches the
// numerics it is meant to (subnormals, signed zeros, large magnitudes, ties), and the shrinker
// reduces a graph whose one operator a fault-injecting backend corrupts to that operator alone
// on one element.
#include "runner/fuzz/fuzz.h"

#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "ops/simd/simd_backend.h"
#include "runner/case.h"
#include "runner/data.h"
#include "runner/execute.h"
#include "runner/fault_injection.h"
#include "runner/json.h"

namespace nnref::fuzz {
namespace {

TEST_CASE("fuzz generator: a function of the seed") {
  GenOptions o;
  for (uint64_t seed : {1u, 2u, 77u}) {
    const std::string a = WriteJson(CaseValue(GenerateGraph(seed, o), "g"));
    const std::string b = WriteJson(CaseValue(GenerateGraph(seed, o), "g"));
    CHECK(a == b);
  }
  CHECK(WriteJson(CaseValue(GenerateGraph(1, o), "g")) !=
        WriteJson(CaseValue(GenerateGraph(2, o), "g")));
}

TEST_CASE("fuzz generator: every graph loads and builds on the reference; sizes as asked") {
  GenOptions o;
  o.max_ops = 12;
  GenStats stats;
  std::set<std::string> methods;
  for (uint64_t seed = 0; seed < 150; ++seed) {
    const FuzzGraph g = GenerateGraph(seed, o, &stats);
    REQUIRE(!g.ops.empty());
    CHECK(g.ops.size() <= 12);
    for (const FuzzOp& op : g.ops) methods.insert(op.name);
    const CaseFile f = LoadCaseText(WriteJson(CaseValue(g, "g")), "g.json");
    REQUIRE(f.broken.empty());
    REQUIRE(f.cases.size() == 1);
    const Case& c = f.cases.front();
    CHECK_NOTHROW(BuildCase(c, RequestedOutputs(c)));
  }
  // Most draws are valid, and the graphs reach most of the generated methods.
  CHECK(stats.accepted() * 10 > stats.attempts() * 8);
  CHECK(methods.size() > GeneratedMethods().size() * 3 / 4);
}

TEST_CASE("fuzz generator: the data reaches subnormals, -0, large magnitudes and ties") {
  GenOptions o;
  bool subnormal = false, negative_zero = false, large = false, tie = false;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    const FuzzGraph g = GenerateGraph(seed, o);
    for (const FuzzTensor& t : g.inputs) {
      if (t.desc.dataType != DataType::kFloat32) continue;
      std::set<float> seen;
      for (uint64_t i = 0; i < t.data.element_count(); ++i) {
        const float v = t.data.At<float>(i);
        if (v != 0 && std::fabs(v) < 1.17549435e-38f) subnormal = true;
        if (v == 0 && std::signbit(v)) negative_zero = true;
        if (std::fabs(v) > 1e12f && std::isfinite(v)) large = true;
        if (!seen.insert(v).second && v != 0) tie = true;
      }
    }
  }
  CHECK(subnormal);
  CHECK(negative_zero);
  CHECK(large);
  CHECK(tie);
}

TEST_CASE("fuzz: the simd backend passes generated graphs") {
  const auto backend = MakeSimdBackend(BackendOptions{1});
  GenOptions o;
  o.max_ops = 8;
  o.only = {"add", "mul", "relu", "sigmoid", "reshape", "transpose", "concat", "reduceSum"};
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const Outcome r = Evaluate(GenerateGraph(seed, o), backend);
    CHECK_MESSAGE(r.kind == Outcome::Kind::kPass, "seed ", seed, ": ", r.message);
  }
}

TEST_CASE("fuzz shrinker: an injected fault shrinks to the faulty operator on one element") {
  // Every relu output gets element 0 replaced by 1000: no relu of these inputs gives that.
  const auto backend = MakeFaultInjectingBackend(MakeSimdBackend(BackendOptions{1}), "relu:0:1000");
  const auto evaluate = [&backend](const FuzzGraph& g) { return Evaluate(g, backend); };
  GenOptions o;
  o.max_ops = 10;
  o.only = {"add", "mul", "relu", "sigmoid", "reshape", "transpose", "concat", "reduceSum"};
  size_t shrunk = 0;
  for (uint64_t seed = 0; seed < 60 && shrunk < 3; ++seed) {
    const FuzzGraph g = GenerateGraph(seed, o);
    const Outcome r = evaluate(g);
    if (r.kind != Outcome::Kind::kDiverged) continue;
    CHECK(r.op == "relu");
    if (g.ops.size() < 3) continue;  // want graphs with something to remove
    ShrinkStats stats;
    const FuzzGraph small = Shrink(g, r, evaluate, 400, &stats);
    const Outcome s = evaluate(small);
    CHECK(SameFailure(s, r));
    REQUIRE(small.ops.size() == 1);
    CHECK(small.ops[0].name == "relu");
    // The fault is on element 0: every dimension halves down to 1.
    REQUIRE(small.inputs.size() == 1);
    CHECK(ElementCount(small.inputs[0].desc.shape) == 1);
    CHECK(stats.evaluations > 0);
    ++shrunk;
  }
  CHECK(shrunk > 0);
}

TEST_CASE("fuzz: a NaN from the backend where the reference is finite is the non-finite class") {
  GenOptions o;
  o.max_ops = 4;
  o.only = {"add", "sigmoid", "tanh"};
  o.supported = [](const std::string&, DataType t) { return t == DataType::kFloat32; };
  const auto nan = MakeFaultInjectingBackend(MakeSimdBackend(BackendOptions{1}), "tanh:0:nan");
  const auto big = MakeFaultInjectingBackend(MakeSimdBackend(BackendOptions{1}), "tanh:0:7");
  size_t seen = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    const FuzzGraph g = GenerateGraph(seed, o);
    const Outcome a = Evaluate(g, nan);
    if (a.kind != Outcome::Kind::kDiverged) continue;
    // tanh of a finite input is finite: NaN is outside every bound, and says so.
    CHECK(a.op == "tanh");
    CHECK(a.nonfinite);
    CHECK(Signature(a) == "diverged tanh non-finite");
    // 7 is outside tanh's range but finite: the other class.
    const Outcome b = Evaluate(g, big);
    REQUIRE(b.kind == Outcome::Kind::kDiverged);
    CHECK(!b.nonfinite);
    CHECK(Signature(b) == "diverged tanh");
    CHECK(!SameFailure(a, b));
    ++seen;
  }
  CHECK(seen > 3);
}

TEST_CASE("fuzz shrinker: the shrunk graph keeps failing the same way, or stays as given") {
  const auto backend = MakeSimdBackend(BackendOptions{1});
  const auto evaluate = [&backend](const FuzzGraph& g) { return Evaluate(g, backend); };
  // A passing graph has nothing to shrink towards: the shrinker returns it unchanged.
  GenOptions o;
  o.only = {"add", "relu"};
  const FuzzGraph g = GenerateGraph(3, o);
  Outcome fake;
  fake.kind = Outcome::Kind::kDiverged;
  fake.op = "relu";
  const FuzzGraph same = Shrink(g, fake, evaluate, 50);
  CHECK(WriteJson(CaseValue(same, "g")) == WriteJson(CaseValue(g, "g")));
}

// --external: an implementation run as COMMAND --out RESULTS CASE. The fake implementations here
// are shell scripts that write a fixed results file for the graph x + y with x = [1, 2] and
// y = [3, 0.5] (exact sum [4, 2.5]).
TEST_CASE("fuzz --external: judged under the derived bounds, unsupported with the runner's reason") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("nnref-fuzz-external-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  FuzzGraph g;
  for (const auto& [name, values] :
       {std::pair<std::string, std::vector<float>>{"x", {1, 2}}, {"y", {3, 0.5f}}}) {
    FuzzTensor t;
    t.name = name;
    t.desc = {DataType::kFloat32, {2}};
    t.data = Tensor::Allocate(DataType::kFloat32, {2});
    t.data.base<float>()[0] = values[0];
    t.data.base<float>()[1] = values[1];
    g.inputs.push_back(t);
  }
  g.ops.push_back({"add", {{"a", Value::Str("x")}, {"b", Value::Str("y")}}, {"sum"}});
  const auto fake = [&dir](const std::string& name, const std::string& body) {
    const std::string path = (dir / name).string();
    std::ofstream(path) << "# $1 is --out, $2 the results file, $3 the case\n" << body << "\n";
    return "sh " + path;
  };
  const Outcome right =
      EvaluateExternal(g, fake("right.sh", R"(echo '{"cases":[{"name":"fuzz","outputs":{"sum":[4,2.5]}}]}' > "$2")"), dir.string());
  CHECK(right.kind == Outcome::Kind::kPass);
  const Outcome wrong =
      EvaluateExternal(g, fake("wrong.sh", R"(echo '{"cases":[{"name":"fuzz","outputs":{"sum":[4,2.5001]}}]}' > "$2")"), dir.string());
  CAPTURE(wrong.message);
  CHECK(wrong.kind == Outcome::Kind::kDiverged);
  CHECK(wrong.op == "add");
  CHECK(wrong.message.find("output sum") != std::string::npos);
  const Outcome nan =
      EvaluateExternal(g, fake("nan.sh", R"(echo '{"cases":[{"name":"fuzz","outputs":{"sum":[4,"NaN"]}}]}' > "$2")"), dir.string());
  CHECK(nan.kind == Outcome::Kind::kDiverged);
  CHECK(nan.nonfinite);
  const Outcome none = EvaluateExternal(
      g, fake("none.sh", R"(echo '{"cases":[]}' > "$2"; echo '  left out 1: not mapped to ONNX')"),
      dir.string());
  CHECK(none.kind == Outcome::Kind::kUnsupported);
  CHECK(none.message == "not mapped to ONNX");
  const Outcome broken =
      EvaluateExternal(g, fake("broken.sh", "echo 'cannot start' >&2; exit 3"), dir.string());
  CHECK(broken.kind == Outcome::Kind::kError);
  CHECK(broken.message.find("cannot start") != std::string::npos);
  // The shrinker works with an external evaluation too: it keeps a failing graph failing.
  const auto evaluate_wrong = [&](const FuzzGraph& x) {
    return EvaluateExternal(x, "sh " + (dir / "wrong.sh").string(), dir.string());
  };
  const FuzzGraph small = Shrink(g, wrong, evaluate_wrong, 20);
  CHECK(evaluate_wrong(small).kind == Outcome::Kind::kDiverged);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace nnref::fuzz
