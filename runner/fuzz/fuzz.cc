#include "runner/fuzz/fuzz.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>

#include "ops/registry.h"
#include "ref/error.h"
#include "ref/parallel/parallel.h"
#include "runner/backends.h"
#include "runner/case.h"
#include "runner/commands.h"
#include "runner/data.h"
#include "runner/execute.h"
#include "runner/fault_injection.h"
#include "runner/json.h"
#include "runner/session.h"

namespace nnref::fuzz {

namespace {

bool AllNonFinite(const Tensor& t) {
  if (!IsFloat(t.dtype())) return false;
  for (uint64_t i = 0; i < t.element_count(); ++i) {
    if (std::isfinite(ElementAsDouble(t, i))) return false;
  }
  return true;
}

std::string Describe(const Comparison& cmp) {
  std::ostringstream s;
  if (!cmp.shape_ok) return cmp.shape_message;
  s << cmp.mismatches << " of " << cmp.elements << " elements outside the tolerance";
  if (!cmp.first.empty()) {
    const Mismatch& m = cmp.first.front();
    s << "; first at " << m.coordinates << ": expected " << m.expected << ", got " << m.actual;
    if (!m.integer && std::isfinite(m.ulp)) s << " (" << m.ulp << " ULP)";
  }
  return s.str();
}

}  // namespace

namespace {

bool NonFiniteText(const std::string& t) {
  return t == "NaN" || t == "Infinity" || t == "-Infinity";
}

// Every mismatch sample has a NaN or infinity from the backend where the reference has another
// value.
bool NonFinite(const Comparison& cmp) {
  if (cmp.first.empty()) return false;
  for (const Mismatch& m : cmp.first) {
    if (!NonFiniteText(m.actual) || m.actual == m.expected) return false;
  }
  return true;
}

}  // namespace

std::string Signature(const Outcome& o) {
  if (o.kind == Outcome::Kind::kError) return "error";
  return "diverged " + o.op + (o.nonfinite ? " non-finite" : "");
}

namespace {

// What a graph whose run threw (a spec error or anything else) counts as.
Outcome ErrorOutcome(std::string message) {
  Outcome out;
  out.kind = Outcome::Kind::kError;
  out.op = "error";
  out.message = std::move(message);
  return out;
}

}  // namespace

Outcome Evaluate(const FuzzGraph& g, const std::shared_ptr<const Backend>& backend,
                 bool graph_outputs) {
  Outcome out;
  try {
    const std::string text = WriteJson(CaseValue(g, "fuzz"));
    CaseFile f = LoadCaseText(text, "fuzz.json");
    if (!f.broken.empty() || f.cases.size() != 1) {
      return ErrorOutcome(
          "the generated case does not load: " +
          (f.broken.empty() ? std::string("no case") : std::get<2>(f.broken.front())));
    }
    const Case& c = f.cases.front();
    const std::vector<std::string> outputs = RequestedOutputs(c);
    SessionOptions options;
    options.backend = backend;
    options.against_reference = true;
    CaseSession session(c, outputs, options);
    if (session.unsupported()) {
      out.kind = Outcome::Kind::kUnsupported;
      out.message = *session.unsupported();
      return out;
    }
    session.Run();
    const BackendCheck& check = *session.check();
    bool degenerate = true;
    for (const std::string& name : outputs) {
      const OperandId id = session.built().named.at(name).id;
      if (!AllNonFinite(check.reference.at(id.value).data)) degenerate = false;
    }
    out.degenerate = degenerate;
    std::set<size_t> counted;
    const Graph& graph = *session.built().graph;
    for (const OperatorCheck& oc : check.operators) {
      const std::string method(OpName(oc.op));
      const OperatorNode& node = graph.operators()[oc.index];
      if (!node.inputs.empty()) {
        out.types[method].insert(graph.operand(node.inputs[0]).desc.dataType);
      }
      auto& n = out.by_op[method];
      if (counted.insert(oc.index).second) ++n.first;
      if (!oc.cmp.passed()) ++n.second;
    }
    if (check.first_divergence) {
      const OperatorCheck& oc = check.operators[*check.first_divergence];
      out.kind = Outcome::Kind::kDiverged;
      out.op = std::string(OpName(oc.op));
      out.nonfinite = NonFinite(oc.cmp);
      out.message = "operator #" + std::to_string(oc.index) + " (" + out.op + ") output " +
                    std::to_string(oc.output) + ": " + Describe(oc.cmp) + " [" + oc.tolerance + "]";
      return out;
    }
    // Every operator stayed within its own tolerance: the graph's outputs, as the backend's
    // dispatch computed them, against the reference's, under the graph's bounds.
    for (const std::string& name : graph_outputs ? outputs : std::vector<std::string>{}) {
      const OperandId id = session.built().named.at(name).id;
      const Tensor& ref = check.reference.at(id.value).data;
      const OutputResult r =
          session.Judge(name, {ref.dtype(), ref.shape()}, [&ref] { return ref; });
      if (!r.cmp.passed()) {
        out.kind = Outcome::Kind::kDiverged;
        out.op = "output";
        out.nonfinite = NonFinite(r.cmp);
        out.message = "graph output " + name + ": " + Describe(r.cmp) + " [" + r.tolerance + "]";
        return out;
      }
    }
  } catch (const WebnnError& e) {
    return ErrorOutcome(std::string(ErrorTypeName(e.type())) + ": " + e.what());
  } catch (const std::exception& e) {
    return ErrorOutcome(e.what());
  }
  return out;
}

namespace {

// Writes `case_value` as a one-case file at `path` and fills in the reference's expectedOutputs
// as `nnref generate` does (its output silenced). Returns generate's problem count (nonzero e.g.
// when every output is NaN: nothing to compare).
int WriteGeneratedCase(const std::string& path, const Value& case_value) {
  {
    std::ofstream f(path);
    if (!f) throw InputError(path + ": cannot write");
    f << WriteJson(Value::Object({{"format", Value::Str("nnref-case/1")},
                                  {"cases", Value::Array({case_value})}}))
      << "\n";
  }
  std::streambuf* saved = std::cout.rdbuf(nullptr);
  int problems = 0;
  try {
    problems = CommandGenerate(path, path, uint64_t{1} << 31);
  } catch (...) {
    std::cout.rdbuf(saved);
    std::cout.clear();
    throw;
  }
  std::cout.rdbuf(saved);
  std::cout.clear();
  return problems;
}

std::string ShellQuote(const std::string& s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

std::string LastLine(const std::string& path) {
  std::ifstream f(path);
  std::string line, last;
  while (std::getline(f, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

}  // namespace

Outcome EvaluateExternal(const FuzzGraph& g, const std::string& command, const std::string& dir) {
  Outcome out;
  const std::filesystem::path d(dir);
  const std::string case_path = (d / "fuzz.json").string();
  const std::string results_path = (d / "results.json").string();
  const std::string stderr_path = (d / "stderr.txt").string();
  try {
    const Value case_value = CaseValue(g, "fuzz");
    // The reference's expectedOutputs give the external runner the output descriptors; a graph
    // whose outputs are all NaN cannot be generated: degenerate.
    if (WriteGeneratedCase(case_path, case_value)) {
      out.degenerate = true;
      return out;
    }
    std::filesystem::remove(results_path);
    const std::string stdout_path = (d / "stdout.txt").string();
    const std::string line = command + " --out " + ShellQuote(results_path) + " " +
                             ShellQuote(case_path) + " > " + ShellQuote(stdout_path) + " 2> " +
                             ShellQuote(stderr_path);
    const int rc = std::system(line.c_str());
    if (!std::filesystem::exists(results_path)) {
      return ErrorOutcome("--external: the command wrote no results file (exit status " +
                          std::to_string(rc) + "): " + LastLine(stderr_path));
    }
    const Value results = ReadJsonFile(results_path);
    const Value* list = results.Find("cases");
    const Value* entry = nullptr;
    if (list && list->is_array()) {
      for (const Value& v : list->items()) {
        const Value* n = v.Find("name");
        if (n && n->is_string() && n->str() == "fuzz") entry = &v;
      }
    }
    if (!entry) {
      out.kind = Outcome::Kind::kUnsupported;
      // The runner's reason: its last "left out N: WHY" line, or what it printed on stderr.
      std::string why = LastLine(stderr_path);
      const std::string said = LastLine(stdout_path);
      if (const size_t colon = said.find("left out "); colon != std::string::npos) {
        why = said.substr(said.find(": ", colon) + 2);
      }
      out.message = why.empty() ? "no result from the external implementation" : why;
      return out;
    }
    CaseFile f = LoadCaseText(WriteJson(Value::Object({{"format", Value::Str("nnref-case/1")},
                                                       {"cases", Value::Array({case_value})}})),
                              case_path);
    const Case& c = f.cases.front();
    const std::vector<std::string> outputs = RequestedOutputs(c);
    if (const Value* e = entry->Find("error")) {
      const Value* m = entry->Find("message");
      return ErrorOutcome("the external implementation threw " +
                          (e->is_string() ? e->str() : "?") +
                          (m && m->is_string() ? ": " + m->str() : ""));
    }
    SessionOptions options;
    options.judging_other = true;
    CaseSession session(c, outputs, options);
    session.Run();
    bool degenerate = true;
    for (const std::string& name : outputs) {
      if (!AllNonFinite(session.values().at(name).data)) degenerate = false;
    }
    out.degenerate = degenerate;
    const std::string method = g.ops.size() == 1 ? g.ops.front().name : "output";
    for (const FuzzOp& op : g.ops) {
      ++out.by_op[op.name].first;
      const OperandValue& first = session.values().count(op.outputs.front())
                                      ? session.values().at(op.outputs.front())
                                      : OperandValue{};
      if (first.data.valid()) out.types[op.name].insert(first.data.dtype());
    }
    const Value* given = entry->Find("outputs");
    for (const std::string& name : outputs) {
      const Value* data = given ? given->Find(name) : nullptr;
      if (!data) continue;  // an output the runtime did not return: not judged
      const OperandValue& ref = session.values().at(name);
      const OperandDescriptor desc{ref.data.dtype(), ref.data.shape()};
      const OutputResult r = session.Judge(name, desc, [&] {
        return DecodeTensorData(*data, desc.dataType, desc.shape,
                                results_path + ": /outputs/" + name, dir);
      });
      if (!r.cmp.passed()) {
        out.kind = Outcome::Kind::kDiverged;
        out.op = method;
        out.nonfinite = NonFinite(r.cmp);
        if (g.ops.size() == 1) ++out.by_op[method].second;
        out.message = "output " + name + ": " + Describe(r.cmp) + " [" + r.tolerance + "]";
        return out;
      }
    }
  } catch (const WebnnError& e) {
    return ErrorOutcome(std::string(ErrorTypeName(e.type())) + ": " + e.what());
  } catch (const std::exception& e) {
    return ErrorOutcome(e.what());
  }
  return out;
}

std::string KindName(Outcome::Kind k) {
  switch (k) {
    case Outcome::Kind::kPass:
      return "pass";
    case Outcome::Kind::kDiverged:
      return "diverged";
    case Outcome::Kind::kError:
      return "error";
    case Outcome::Kind::kUnsupported:
      return "unsupported";
    case Outcome::Kind::kDegenerate:
      return "degenerate";
  }
  return "?";
}

bool SameFailure(const Outcome& a, const Outcome& b) { return Signature(a) == Signature(b); }

namespace {

// The reference's value of every named operand of `g`.
std::map<std::string, Tensor> ReferenceValues(const FuzzGraph& g) {
  const std::string text = WriteJson(CaseValue(g, "fuzz"));
  CaseFile f = LoadCaseText(text, "fuzz.json");
  const Case& c = f.cases.front();
  const BuiltCase b = BuildCase(c, RequestedOutputs(c));
  std::map<std::string, Tensor> values;
  RunBuiltCase(b, [&](OperandId id, const OperandValue& v) {
    const auto it = b.operand_names.find(id.value);
    if (it != b.operand_names.end()) values[it->second] = v.data;
  });
  return values;
}

void CollectNames(const Value& v, const std::set<std::string>& known, std::set<std::string>& out) {
  if (v.is_string() && known.count(v.str())) out.insert(v.str());
  for (const Value& x : v.items()) CollectNames(x, known, out);
  for (const auto& [k, x] : v.members()) CollectNames(x, known, out);
}

// The operand names (of `names`: inputs and outputs of `names`) the operators of `g` read.
std::set<std::string> Referenced(const FuzzGraph& g, const FuzzGraph& names) {
  std::set<std::string> known, used;
  for (const FuzzTensor& t : names.inputs) known.insert(t.name);
  for (const FuzzOp& op : names.ops) known.insert(op.outputs.begin(), op.outputs.end());
  for (const FuzzOp& op : g.ops) {
    for (const auto& [k, v] : op.args) CollectNames(v, known, used);
  }
  return used;
}

Tensor Copy(const Tensor& t) {
  Tensor c = Tensor::Allocate(t.dtype(), t.shape());
  const std::vector<std::byte> bytes = t.Bytes();
  if (!bytes.empty()) std::memcpy(c.buffer()->data(), bytes.data(), bytes.size());
  return c;
}

// The operators of `keep` alone: what they read from the others becomes graph inputs holding
// the reference's values; unused inputs are dropped.
FuzzGraph Restrict(const FuzzGraph& g, const std::vector<bool>& keep,
                   const std::map<std::string, Tensor>& values) {
  FuzzGraph r;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (keep[i]) r.ops.push_back(g.ops[i]);
  }
  const std::set<std::string> used = Referenced(r, g);
  std::set<std::string> produced;
  for (const FuzzOp& op : r.ops) produced.insert(op.outputs.begin(), op.outputs.end());
  for (const FuzzTensor& t : g.inputs) {
    if (used.count(t.name)) r.inputs.push_back(t);
  }
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (keep[i]) continue;
    for (const std::string& name : g.ops[i].outputs) {
      if (!used.count(name) || produced.count(name)) continue;
      const Tensor& v = values.at(name);
      r.inputs.push_back({name, {v.dtype(), v.shape()}, false, Copy(v)});
    }
  }
  return r;
}

class Shrinker {
 public:
  Shrinker(const Outcome& failure, const std::function<Outcome(const FuzzGraph&)>& evaluate,
           uint64_t budget, ShrinkStats* stats)
      : failure_(failure), evaluate_(evaluate), budget_(budget), stats_(stats) {}

  FuzzGraph Run(FuzzGraph g) {
    std::map<std::string, Tensor> values = ReferenceValues(g);
    // 1. The failing operator alone.
    if (failure_.kind == Outcome::Kind::kDiverged && failure_.op != "output") {
      for (size_t i = 0; i < g.ops.size(); ++i) {
        if (g.ops[i].name != failure_.op) continue;
        std::vector<bool> keep(g.ops.size(), false);
        keep[i] = true;
        if (Try(Restrict(g, keep, values), g)) break;
      }
    }
    // 2. Drop or cut operators one at a time, from the last.
    for (bool progress = true; progress && g.ops.size() > 1;) {
      progress = false;
      for (size_t j = g.ops.size(); j-- > 0 && g.ops.size() > 1;) {
        std::vector<bool> keep(g.ops.size(), true);
        keep[j] = false;
        if (Try(Restrict(g, keep, values), g)) {
          progress = true;
          values = ReferenceValues(g);
        }
      }
    }
    // 3. Halve dimensions: of every input with that dimension (right-aligned), then of one input.
    for (bool progress = true; progress;) {
      progress = false;
      for (size_t i = 0; i < g.inputs.size() && Budget(); ++i) {
        for (size_t axis = 0; axis < g.inputs[i].desc.shape.size(); ++axis) {
          const uint64_t dim = g.inputs[i].desc.shape[axis];
          if (dim <= 1) continue;
          const size_t from_end = g.inputs[i].desc.shape.size() - axis;
          if (Try(Halve(g, i, from_end, dim, true, false), g) ||
              Try(Halve(g, i, from_end, dim, false, false), g) ||
              Try(Halve(g, i, from_end, dim, true, true), g) ||
              Try(Halve(g, i, from_end, dim, false, true), g)) {
            progress = true;
            break;
          }
        }
      }
    }
    // 4. Zero the values, in ever smaller blocks.
    for (size_t i = 0; i < g.inputs.size() && Budget(); ++i) {
      const uint64_t n = g.inputs[i].data.element_count();
      for (uint64_t block = std::max<uint64_t>(1, n / 2); Budget(); block /= 2) {
        for (uint64_t start = 0; start < n && Budget(); start += block) {
          FuzzGraph c = g;
          if (!Zero(c.inputs[i], start, std::min(n, start + block))) continue;
          Try(std::move(c), g);
        }
        if (block == 1) break;
      }
    }
    return g;
  }

 private:
  bool Budget() const { return used_ < budget_; }

  // Evaluates `candidate`; adopts it into `g` when it fails the same way.
  bool Try(FuzzGraph candidate, FuzzGraph& g) {
    if (!Budget() || candidate.ops.empty()) return false;
    ++used_;
    if (stats_) ++stats_->evaluations;
    const Outcome o = evaluate_(candidate);
    if (std::getenv("NNREF_FUZZ_DEBUG")) {
      std::cerr << "shrink: " << candidate.ops.size() << " ops: " << KindName(o.kind) << " " << o.op
                << ": " << o.message << "\n";
    }
    if (!SameFailure(o, failure_)) return false;
    g = std::move(candidate);
    return true;
  }

  // Input `i`'s dimension `from_end` (counted from the last) halved; with `all`, every input
  // whose same dimension has the same size. The first half, or with `second` the second.
  static FuzzGraph Halve(const FuzzGraph& g, size_t i, size_t from_end, uint64_t dim, bool all,
                         bool second) {
    FuzzGraph c = g;
    for (size_t k = 0; k < c.inputs.size(); ++k) {
      FuzzTensor& t = c.inputs[k];
      if (k != i && !all) continue;
      const size_t r = t.desc.shape.size();
      if (r < from_end || t.desc.shape[r - from_end] != dim) continue;
      std::vector<uint64_t> starts(r, 0), sizes = t.desc.shape, steps(r, 1);
      sizes[r - from_end] = (dim + 1) / 2;
      if (second) starts[r - from_end] = dim / 2;
      t.data = Copy(t.data.Slice(starts, sizes, steps));
      t.desc.shape = sizes;
    }
    return c;
  }

  // Elements [begin, end) of `t` set to zero; false when they already were.
  static bool Zero(FuzzTensor& t, uint64_t begin, uint64_t end) {
    bool changed = false;
    t.data = Copy(t.data);
    const size_t size = ElementSize(t.data.dtype());
    std::byte* p = t.data.buffer()->data();
    for (uint64_t e = begin; e < end; ++e) {
      for (size_t b = 0; b < size; ++b) {
        if (p[e * size + b] != std::byte{0}) changed = true;
      }
      std::memset(p + e * size, 0, size);
    }
    return changed;
  }

  const Outcome& failure_;
  const std::function<Outcome(const FuzzGraph&)>& evaluate_;
  uint64_t budget_;
  ShrinkStats* stats_;
  uint64_t used_ = 0;
};

}  // namespace

FuzzGraph Shrink(const FuzzGraph& g, const Outcome& failure,
                 const std::function<Outcome(const FuzzGraph&)>& evaluate, uint64_t max_evaluations,
                 ShrinkStats* stats) {
  Shrinker s(failure, evaluate, max_evaluations, stats);
  return s.Run(g);
}

namespace {}  // namespace

int CommandFuzz(const FuzzOptions& o) {
  SetReferenceThreads(o.threads);
  BackendOptions bo;
  bo.threads = o.threads;
  bo.device = o.device;
  const bool external = !o.external.empty();
  if (external && !o.inject_fault.empty()) {
    throw InputError("--inject-fault needs a backend, not --external");
  }
  // With --external the graphs run elsewhere; the reference stands in for the generator's
  // question of what can run (the external runtime answers per graph: kUnsupported).
  bo.arithmetic = o.arithmetic;
  std::shared_ptr<const Backend> backend = MakeBackend(external ? "reference" : o.backend, bo);
  const std::shared_ptr<const Backend> plain = backend;
  if (!o.inject_fault.empty()) backend = MakeFaultInjectingBackend(backend, o.inject_fault);
  for (const std::string& m : o.only) {
    if (std::find(GeneratedMethods().begin(), GeneratedMethods().end(), m) ==
        GeneratedMethods().end()) {
      throw InputError("--ops: '" + m +
                       "' is not a method the generator draws (see docs/fuzzing.md)");
    }
  }
  if (!o.out.empty()) std::filesystem::create_directories(o.out);
  GenOptions gen;
  gen.max_ops = std::max<size_t>(1, o.max_ops);
  gen.only = o.only;
  std::vector<DataType> types;
  for (const std::string& name : o.types) {
    const std::optional<DataType> t = ParseDataType(name);
    if (!t) throw InputError("--types: '" + name + "' is not a data type");
    types.push_back(*t);
  }
  const bool emit_only = !o.emit.empty();
  gen.supported = [plain, types, emit_only](const std::string& method, DataType t) {
    if (!types.empty() && std::find(types.begin(), types.end(), t) == types.end()) return false;
    const OpInfo* info = FindOp(method);
    return info && (emit_only || !plain->Unsupported(info->id, t));
  };
  if (emit_only) {
    std::filesystem::create_directories(o.emit);
    const uint64_t n = o.count ? o.count : 100;
    uint64_t written = 0;
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t seed = o.seed + i;
      const FuzzGraph g = GenerateGraph(seed, gen);
      if (g.ops.empty()) continue;
      const std::string name = "fuzz.seed" + std::to_string(seed);
      const std::string path = (std::filesystem::path(o.emit) / (name + ".json")).string();
      if (WriteGeneratedCase(path, CaseValue(g, name))) {
        std::filesystem::remove(path);  // e.g. every output NaN: nothing to compare
        continue;
      }
      ++written;
    }
    std::cout << "wrote " << written << " case files to " << o.emit << "\n";
    return 0;
  }
  std::string scratch;
  if (external) {
    std::string templ = (std::filesystem::temp_directory_path() / "nnref-fuzz-XXXXXX").string();
    if (!mkdtemp(templ.data())) throw InputError("--external: cannot create a scratch directory");
    scratch = templ;
    std::cout << "external: " << o.backend << " (" << o.external << "; scratch " << scratch
              << ")\n";
  } else {
    std::cout << "backend: " << backend->Describe() << "\n";
  }
  const uint64_t count = o.count == 0 && o.seconds <= 0 ? 100 : o.count;
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const bool tty = isatty(2) != 0;
  GenStats stats;
  std::map<std::string, std::pair<uint64_t, uint64_t>> by_op;  // method -> (ran, diverged)
  std::map<Outcome::Kind, uint64_t> kinds;
  std::map<std::string, std::set<DataType>> types_by_op;  // first inputs' data types that ran
  std::map<std::string, uint64_t> unsupported;
  uint64_t graphs = 0, failures = 0, last_seed = o.seed;
  double last_progress = -1;
  const auto evaluate = [&backend, &o, &scratch](const FuzzGraph& g) {
    if (!o.external.empty()) return EvaluateExternal(g, o.external, scratch);
    return Evaluate(g, backend, o.graph_outputs);
  };
  std::map<std::string, uint64_t> signatures;  // failure signature -> graphs
  for (uint64_t i = 0; (count == 0 || i < count) && (o.seconds <= 0 || elapsed() < o.seconds);
       ++i) {
    const uint64_t seed = o.seed + i;
    const FuzzGraph g = GenerateGraph(seed, gen, &stats);
    if (g.ops.empty()) continue;
    ++graphs;
    last_seed = seed;
    Outcome r = evaluate(g);
    if (r.degenerate) r = {Outcome::Kind::kDegenerate, "", "", false, true, {}, {}};
    ++kinds[r.kind];
    if (r.kind == Outcome::Kind::kUnsupported) ++unsupported[r.message];
    for (const auto& [m, n] : r.by_op) {
      by_op[m].first += n.first;
      by_op[m].second += n.second;
    }
    for (const auto& [m, t] : r.types) types_by_op[m].insert(t.begin(), t.end());
    if (r.kind == Outcome::Kind::kDiverged || r.kind == Outcome::Kind::kError) {
      ++failures;
      if (tty && !o.quiet) std::cerr << "\r\033[K";
      // The first failure of each signature is printed and shrunk; the others are counted.
      if (signatures[Signature(r)]++ && !o.all_failures) continue;
      std::cout << "seed " << seed << ": " << Signature(r) << ": " << r.message << "\n";
      FuzzGraph small = g;
      ShrinkStats ss;
      if (!o.no_shrink) small = Shrink(g, r, evaluate, 400, &ss);
      const Outcome sr = evaluate(small);
      std::cout << "  shrunk from " << g.ops.size() << " operators to " << small.ops.size() << " ("
                << ss.evaluations << " runs): " << sr.message << "\n";
      if (!o.out.empty()) {
        const std::string name = "fuzz." + o.backend + ".seed" + std::to_string(seed) + "." + r.op +
                                 (r.nonfinite ? ".nonfinite" : "");
        const std::string path = (std::filesystem::path(o.out) / (name + ".json")).string();
        std::vector<Value> labels = {Value::Str("fuzz")};
        Value c = CaseValue(
            small, name,
            {{"labels", Value::Array(std::move(labels))},
             {"fuzz", Value::Object({{"seed", NumberValue(std::to_string(seed))},
                                     {"backend", Value::Str(o.backend)},
                                     {"injectFault", Value::Str(o.inject_fault)},
                                     {"operators", NumberValue(std::to_string(g.ops.size()))},
                                     {"failure", Value::Str(r.message)},
                                     {"shrunkFailure", Value::Str(sr.message)}})}});
        WriteGeneratedCase(path, c);  // with the reference's expected outputs
        std::cout << "  wrote " << path << "\n";
      }
    }
    if (!o.quiet && (tty ? elapsed() - last_progress >= 0.5 : graphs % 100 == 0)) {
      last_progress = elapsed();
      std::ostringstream line;
      line << "fuzz " << o.backend << ": " << graphs << " graphs, " << failures << " failing, "
           << kinds[Outcome::Kind::kUnsupported] << " unsupported, "
           << kinds[Outcome::Kind::kDegenerate] << " degenerate, " << std::fixed
           << std::setprecision(0) << elapsed() << " s";
      if (tty) {
        std::cerr << "\r\033[K" << line.str() << std::flush;
      } else {
        std::cerr << line.str() << "\n";
      }
    }
  }
  if (tty && !o.quiet) std::cerr << "\r\033[K";
  std::cout << "\nby operator (operator checks run / diverged; builder calls accepted / drawn; "
               "data types run):\n";
  for (const std::string& m : o.only.empty() ? GeneratedMethods() : o.only) {
    const auto& r = by_op[m];
    const auto& s = stats.by_op[m];
    std::cout << "  " << std::left << std::setw(22) << m << std::right << std::setw(7) << r.first
              << std::setw(5) << r.second << std::setw(9) << s.second << " / " << s.first << "  ";
    for (DataType t : types_by_op[m]) std::cout << " " << DataTypeName(t);
    std::cout << (r.second ? "  <- diverged" : "") << "\n";
  }
  if (!signatures.empty()) {
    std::cout << "failures by signature (graphs):\n";
    for (const auto& [sig, n] : signatures) std::cout << "  " << n << "  " << sig << "\n";
  }
  if (!unsupported.empty()) {
    std::cout << "unsupported graphs by reason:\n";
    for (const auto& [why, n] : unsupported) std::cout << "  " << n << "  " << why << "\n";
  }
  const uint64_t att = stats.attempts(), acc = stats.accepted();
  std::cout << "generator: " << acc << " of " << att << " builder calls accepted (" << std::fixed
            << std::setprecision(1)
            << (att ? 100.0 * static_cast<double>(acc) / static_cast<double>(att) : 0.0) << "%)\n";
  std::cout << "fuzz " << o.backend << " seeds " << o.seed << ".." << last_seed << ": " << graphs
            << " graphs, " << kinds[Outcome::Kind::kPass] << " pass, "
            << kinds[Outcome::Kind::kDiverged] << " diverged, " << kinds[Outcome::Kind::kError]
            << " errors, " << kinds[Outcome::Kind::kUnsupported] << " unsupported, "
            << kinds[Outcome::Kind::kDegenerate] << " degenerate (all outputs NaN/Inf), "
            << std::setprecision(1) << elapsed() << " s" << std::endl;
  if (!scratch.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(scratch, ec);
  }
  return failures ? 1 : 0;
}

}  // namespace nnref::fuzz
