// `nnref nnef`: run a model folder and write its outputs as tensor files, check a model (parse,
// validate, print the flattened graph), or run case folders of cases/nnef and compare with their
// expected tensor files. The case layout is documented in docs/cli.md (NNEF section).
#include "runner/nnef_command.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "ref/parallel/parallel.h"
#include "runner/backend_check.h"
#include "runner/backends.h"
#include "runner/compare.h"
#include "runner/data.h"
#include "runner/fault_injection.h"
#include "runner/json.h"
#include "runner/judge.h"
#include "runner/nnef/executor.h"
#include "runner/nnef/parser.h"
#include "runner/nnef/quant_file.h"
#include "runner/nnef/tensor_file.h"
#include "runner/results.h"

namespace nnref {

namespace fs = std::filesystem;
using nnef::Executor;
using nnef::FlatGraph;
using nnef::Invocation;
using nnef::NnefError;
using nnef::QuantFile;
using nnef::TensorType;

namespace {

// The model folder of a path: the folder itself, or the folder holding a graph.nnef file.
std::string ModelDir(const std::string& path) {
  if (fs::is_directory(path)) return path;
  const fs::path p(path);
  return p.has_parent_path() ? p.parent_path().string() : ".";
}

std::unique_ptr<QuantFile> LoadQuant(const std::string& dir) {
  const fs::path q = fs::path(dir) / "graph.quant";
  if (!fs::exists(q)) return nullptr;
  return std::make_unique<QuantFile>(nnef::ReadQuantFile(q.string()));
}

std::string TypeText(const Tensor& t) {
  switch (t.dtype()) {
    case DataType::kInt64:
      return "integer";
    case DataType::kUint8:
      return "logical";
    default:
      return "scalar";
  }
}

std::string ValuesText(const Tensor& t, size_t count) {
  std::string s;
  const uint64_t n = t.element_count();
  for (uint64_t i = 0; i < n && i < count; ++i) s += (i ? ", " : "") + ElementText(t, i);
  if (n > count) s += ", ... (" + std::to_string(n) + " values)";
  return s;
}

uint64_t OpenCount(const OperandValue& v) {
  if (!v.latitude.valid()) return 0;
  uint64_t n = 0;
  for (uint64_t i = 0; i < v.latitude.element_count(); ++i) n += v.latitude.At<uint8_t>(i) != 0;
  return n;
}

nnef::TraceSink MakeTrace(size_t values) {
  return [values](const std::string& id, const Invocation* producer, std::string_view kernel,
                  const OperandValue& v) {
    std::cout << "  " << id;
    if (producer != nullptr) {
      std::cout << " = " << producer->op;
      if (producer->pos.line > 0) std::cout << " (line " << producer->pos.line << ")";
    }
    if (!kernel.empty() && (producer == nullptr || kernel != producer->op)) {
      std::cout << " [" << kernel << "]";
    }
    std::cout << " : tensor<" << TypeText(v.data) << "> " << ShapeToString(v.data.shape()) << " "
              << ValuesText(v.data, values);
    if (const uint64_t open = OpenCount(v)) {
      std::cout << " [" << open << " implementation-defined]";
    }
    std::cout << "\n";
  };
}

// Decodes an input tensor file for graph input `name`.
Tensor LoadInput(const Executor& ex, const QuantFile* quant, const std::string& name,
                 const std::string& path, uint64_t max_bytes) {
  const nnef::TensorFile f = nnef::ReadTensorFile(path, max_bytes);
  const nnef::QuantEntry* q = quant != nullptr ? quant->Find(name) : nullptr;
  return nnef::DecodeTensorFile(f, ex.InputType(name), q ? &q->algorithm : nullptr, path,
                                max_bytes);
}

// The backend of --backend (null for the reference).
struct Engine {
  std::shared_ptr<const Backend> backend;
  bool against_reference = false;
};

Engine MakeEngine(const NnefOptions& o) {
  SetReferenceThreads(o.threads);
  Engine e;
  if (o.backend != "reference") {
    BackendOptions options;
    options.threads = o.threads;
    options.device = o.device;
    options.arithmetic = o.arithmetic;
    e.backend = MakeBackend(o.backend, options);
    if (!o.inject_fault.empty()) {
      e.backend = MakeFaultInjectingBackend(e.backend, o.inject_fault);
    }
    std::cout << "backend: " << e.backend->Describe() << "\n";
  } else if (o.against_reference) {
    throw InputError("--against-reference needs --backend NAME (a backend to compare)");
  }
  e.against_reference = o.against_reference;
  return e;
}

// "conv (graph.nnef line 12)": an NNEF invocation as a reader finds it.
std::string InvocationText(const Invocation* inv) {
  if (inv == nullptr) return "(graph output copy)";
  std::string s = inv->op;
  if (inv->pos.line > 0) {
    s += " (" + fs::path(inv->pos.file).filename().string() + " line " +
         std::to_string(inv->pos.line) + ")";
  }
  return s;
}

// Operator `index` of the lowered graph in NNEF terms: "NNEF conv (graph.nnef line 12) -> 'x3'".
std::string OriginText(const Executor& ex, size_t index) {
  const Executor::Origin o = ex.OperatorOrigin(index);
  std::string s = "NNEF " + InvocationText(o.invocation);
  if (!o.tensor.empty()) {
    s += o.intermediate ? " computing '" + o.tensor + "' (a step of its lowering)"
                        : " -> '" + o.tensor + "'";
  }
  return s;
}

// The backend's kernel for every lowered operator, or the operators it lacks in NNEF terms (each
// lowered operator with the NNEF operation it comes from, once).
std::optional<BackendGraph> CompileLowered(const Executor& ex,
                                           const std::shared_ptr<const Backend>& backend,
                                           std::string& why) {
  const Graph& g = ex.Lowered();
  BackendGraph bg{backend, {}, nullptr};
  std::vector<std::string> missing;
  for (size_t i = 0; i < g.operators().size(); ++i) {
    std::string reason;
    std::shared_ptr<const Kernel> k = backend->MakeKernel(g, i, reason);
    if (k == nullptr) {
      // The backend's own word for an operator it leaves out (Unsupported), where MakeKernel
      // only found no family for it.
      if (reason.empty() || reason == kNoKernelForOperator) {
        const OperatorNode& node = g.operators()[i];
        const DataType type =
            node.inputs.empty() ? DataType::kFloat32 : g.operand(node.inputs[0]).desc.dataType;
        if (const std::optional<std::string> r = backend->Unsupported(node.op, type)) reason = *r;
      }
      // Without the line, so that the summary counts the cases of one reason together.
      const Invocation* inv = ex.OperatorOrigin(i).invocation;
      const std::string line = std::string(OpName(g.operators()[i].op)) + " (for NNEF " +
                               (inv != nullptr ? inv->op : std::string("output copy")) +
                               "): " + (reason.empty() ? std::string("no kernel") : reason);
      if (std::find(missing.begin(), missing.end(), line) == missing.end()) {
        missing.push_back(line);
      }
      continue;
    }
    bg.kernels.push_back(std::move(k));
  }
  if (missing.empty()) return bg;
  why = std::string(backend->name()) + ": ";
  for (size_t k = 0; k < missing.size(); ++k) why += (k ? "; " : "") + missing[k];
  return std::nullopt;
}

std::map<std::string, OperandValue> ComputeOnBackend(Executor& ex, const Engine& engine,
                                                     const BackendGraph& bg,
                                                     const std::map<std::string, Tensor>& feed,
                                                     const nnef::TraceSink& trace,
                                                     std::optional<BackendCheck>* check,
                                                     std::map<uint32_t, std::string>* names);

// Computes one cycle on the engine's backend (or the reference). With the check mode, `check`
// receives the operator table (each lowered operator alone on the reference's inputs) with its
// labels and operand names in NNEF terms. The backend's outputs carry the reference's latitude.
std::map<std::string, OperandValue> Compute(Executor& ex, const Engine& engine,
                                            const BackendGraph* bg,
                                            const std::map<std::string, Tensor>& feed,
                                            const nnef::TraceSink& trace,
                                            std::optional<BackendCheck>* check,
                                            std::map<uint32_t, std::string>* names) {
  if (bg == nullptr) return ex.Run(feed, trace);
  try {
    return ComputeOnBackend(ex, engine, *bg, feed, trace, check, names);
  } catch (const WebnnError& e) {
    // A data-dependent problem an NNEF operator found (ops/nnef_common.h: ComputeError).
    throw NnefError(nnef::Stage::kExecute, {}, e.what(), "NNEF 1.0.2 chapter 4");
  }
}

std::map<std::string, OperandValue> ComputeOnBackend(Executor& ex, const Engine& engine,
                                                     const BackendGraph& bg,
                                                     const std::map<std::string, Tensor>& feed,
                                                     const nnef::TraceSink& trace,
                                                     std::optional<BackendCheck>* check,
                                                     std::map<uint32_t, std::string>* names) {
  const Graph& g = ex.Lowered();
  const std::map<std::string, Tensor> inputs = ex.Feed(feed);
  std::map<std::string, OperandValue> reference;
  if (engine.against_reference) {
    BackendCheck c = CheckAgainstReference(g, bg, inputs, 5, TolerancePolicy::kWpt);
    for (OperatorCheck& oc : c.operators) {
      const Executor::Origin o = ex.OperatorOrigin(oc.index);
      oc.label = "NNEF " + InvocationText(o.invocation);
      if (names != nullptr) {
        (*names)[oc.operand.value] =
            o.intermediate ? o.tensor + " (a step of its lowering)" : o.tensor;
      }
    }
    for (const auto& [name, id] : g.outputs()) reference[name] = c.reference.at(id.value);
    if (check != nullptr) *check = std::move(c);
  } else {
    reference = g.Compute(inputs);
  }
  std::map<std::string, OperandValue> out = ex.Run(feed, trace, bg.kernels);
  for (auto& [name, v] : out) {
    const auto it = reference.find(name);
    if (it == reference.end()) continue;
    v.latitude = it->second.latitude;
    v.one_of = it->second.one_of;
  }
  return out;
}

nnef::ParseOptions ParseOptionsOf(const NnefOptions& o) {
  nnef::ParseOptions p;
  p.strict = o.strict;
  return p;
}

int RunModel(const NnefOptions& o) {
  const FlatGraph g = nnef::ParseModel(o.path, ParseOptionsOf(o));
  for (const auto& w : g.warnings) std::cerr << w << "\n";
  const std::string dir = ModelDir(o.path);
  const std::unique_ptr<QuantFile> quant = LoadQuant(dir);
  Executor ex(g, dir, quant.get(), {o.max_tensor_bytes});
  const Engine engine = MakeEngine(o);
  std::optional<BackendGraph> bg;
  if (engine.backend) {
    std::string why;
    bg = CompileLowered(ex, engine.backend, why);
    if (!bg) {
      throw InputError("backend-unsupported: " + why +
                       " (nnref nnef never computes these on the reference instead)");
    }
  }
  std::map<std::string, Tensor> inputs;
  for (const std::string& spec : o.inputs) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw InputError("--input " + spec + ": expected NAME=FILE.dat");
    }
    const std::string name = spec.substr(0, eq);
    if (std::find(g.inputs.begin(), g.inputs.end(), name) == g.inputs.end()) {
      std::string list;
      for (const std::string& i : g.inputs) list += (list.empty() ? "" : ", ") + i;
      throw InputError("--input " + spec + ": graph '" + g.name + "' has no input '" + name +
                       "' (inputs: " + list + ")");
    }
    inputs[name] = LoadInput(ex, quant.get(), name, spec.substr(eq + 1), o.max_tensor_bytes);
  }
  if (o.trace) std::cout << "graph " << g.name << "\n";
  std::optional<BackendCheck> check;
  CaseResult shown{o.path, g.name, Verdict::kPass, "", {}};
  const auto outputs =
      Compute(ex, engine, bg ? &*bg : nullptr, inputs,
              o.trace ? MakeTrace(o.values) : nnef::TraceSink{}, &check, &shown.operand_names);
  int status = 0;
  if (check) {
    const bool diverged = check->first_divergence.has_value();
    if (diverged) {
      std::cout << "first divergence: "
                << OriginText(ex, check->operators[*check->first_divergence].index) << "\n";
      status = 1;
    }
    shown.check = std::move(check);
    PrintCheck(shown, true, std::cout);
    if (!diverged) std::cout << "every lowered operator is within its tolerance\n";
  }
  for (const std::string& id : g.outputs) {
    const OperandValue& v = outputs.at(id);
    const std::string path = (fs::path(o.output_dir) / (id + ".dat")).string();
    const Tensor data = v.data.Contiguous();
    nnef::WriteTensorFile(
        path, nnef::EncodeTensor(data, nnef::DefaultFormat(data, ex.OutputType(id)), path));
    std::cout << id << ": tensor<" << TypeText(data) << "> " << ShapeToString(data.shape())
              << " -> " << path;
    if (const uint64_t open = OpenCount(v)) {
      std::cout << " (" << open << " elements implementation-defined)";
    }
    std::cout << "\n";
  }
  return status;
}

// Parses and validates: the document (chapter 6 steps 1-3), graph.quant, and every variable's
// tensor file that is present (format and stored shape, step 4). Prints the flattened graph.
int CheckModel(const NnefOptions& o) {
  const FlatGraph g = nnef::ParseModel(o.path, ParseOptionsOf(o));
  std::cout << g.ToString();
  for (const auto& w : g.warnings) std::cerr << w << "\n";
  const std::string dir = ModelDir(o.path);
  const std::unique_ptr<QuantFile> quant = LoadQuant(dir);
  if (quant) {
    for (const nnef::QuantEntry& e : quant->entries) {
      if (g.tensors.find(e.tensor) == g.tensors.end()) {
        throw NnefError(nnef::Stage::kQuantFile, e.pos,
                        "'" + e.tensor + "' is not a tensor identifier of the graph");
      }
      (void)nnef::MakeQuantizer(e.algorithm);
    }
  }
  for (const Invocation& inv : g.ops) {
    if (inv.id != nnef::NnefOp::kVariable) continue;
    const nnef::ArgValue* label = inv.Arg("label");
    if (label == nullptr) continue;
    const std::string path = (fs::path(dir) / (label->str + ".dat")).string();
    if (!fs::exists(path)) {
      std::cerr << "note: " << path << " not found; variable '" << label->str << "' not checked\n";
      continue;
    }
    const nnef::TensorFile f = nnef::ReadTensorFile(path, o.max_tensor_bytes);
    const std::string id = inv.results.empty() ? "" : inv.results[0].value.str;
    const nnef::TensorInfo& info = g.Tensor(id);
    Shape want(info.shape.begin(), info.shape.end()), have = f.header.shape;
    while (!want.empty() && want.back() == 1) want.pop_back();
    while (!have.empty() && have.back() == 1) have.pop_back();
    if (want != have) {
      throw NnefError(nnef::Stage::kTensorFile, {path, 0, 0},
                      "the stored shape " + ShapeToString(f.header.shape) +
                          " conflicts with the variable's shape",
                      "NNEF 1.0.2 chapter 6, step 4");
    }
    const nnef::QuantEntry* q = quant ? quant->Find(id) : nullptr;
    (void)nnef::DecodeTensorFile(f, inv.dtype, q ? &q->algorithm : nullptr, path,
                                 o.max_tensor_bytes);
  }
  return 0;
}

// ----- cases ------------------------------------------------------------------------------------

std::vector<std::string> CaseDirs(const std::string& path) {
  std::vector<std::string> dirs;
  if (fs::exists(fs::path(path) / "case.json")) return {path};
  std::error_code ec;
  if (!fs::is_directory(path, ec)) throw InputError(path + ": not a folder");
  for (const auto& e : fs::recursive_directory_iterator(path, ec)) {
    if (e.is_regular_file() && e.path().filename() == "case.json") {
      dirs.push_back(e.path().parent_path().string());
    }
  }
  if (dirs.empty()) throw InputError(path + ": no case folder (with a case.json) below it");
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

bool BoolMember(const Value& obj, const char* key, const std::string& where) {
  const Value* v = obj.Find(key);
  if (v == nullptr) return false;
  if (!v->is_bool()) throw InputError(where + ": '" + key + "' must be true or false");
  return v->boolean();
}

const std::string* StringMember(const Value& obj, const char* key, const std::string& where) {
  const Value* v = obj.Find(key);
  if (v == nullptr) return nullptr;
  if (!v->is_string()) throw InputError(where + ": '" + key + "' must be a string");
  return &v->str();
}

std::vector<std::pair<std::string, std::string>> FileMap(const Value& obj, const char* key,
                                                         const std::string& where) {
  std::vector<std::pair<std::string, std::string>> out;
  const Value* v = obj.Find(key);
  if (v == nullptr) return out;
  if (!v->is_object()) throw InputError(where + ": '" + key + "' must be an object");
  for (const auto& [name, file] : v->members()) {
    if (!file.is_string()) {
      throw InputError(where + ": " + key + "." + name + " must be a file name");
    }
    out.emplace_back(name, file.str());
  }
  return out;
}

std::optional<Tolerance> ToleranceMember(const Value& obj, const std::string& where) {
  const Value* t = obj.Find("tolerance");
  if (t == nullptr) return std::nullopt;
  const Value* metric = t->Find("metricType");
  const Value* value = t->Find("value");
  if (!t->is_object() || metric == nullptr || !metric->is_string() || value == nullptr ||
      !value->is_number() || !(value->number().d >= 0)) {
    throw InputError(where +
                     ": tolerance must be {\"metricType\": \"ULP\"|\"ATOL\", \"value\": N}");
  }
  if (metric->str() == "ULP") return Tolerance::Ulp(value->number().d, "case tolerance");
  if (metric->str() == "ATOL") return Tolerance::Atol(value->number().d, "case tolerance");
  throw InputError(where + ": tolerance metricType must be \"ULP\" or \"ATOL\"");
}

// One case folder, judged as every case is (runner/judge.h): a result per output.
CaseResult RunCase(const std::string& dir, const NnefOptions& o, const Engine& engine) {
  const std::string where = (fs::path(dir) / "case.json").string();
  CaseResult r{where, fs::path(dir).filename().string(), Verdict::kPass, "", {}};
  r.op = "(nnef)";
  const auto Fail = [&r](std::string d) {
    r.verdict = Verdict::kFail;
    r.message = std::move(d);
    return r;
  };
  const auto Error = [&r](std::string d) {
    r.verdict = Verdict::kError;
    r.message = std::move(d);
    return r;
  };
  const Value spec = ReadJsonFile(where);
  if (!spec.is_object()) throw InputError(where + ": expected an object");
  const std::string* expected_error = StringMember(spec, "expectedError", where);
  const std::string* message = StringMember(spec, "message", where);
  // "strict": parse with the pure 1.0.2 grammar (as --strict); "expectedWarning": some parse
  // warning must contain this text (the NNEF-Tools forms accepted outside --strict).
  NnefOptions case_options = o;
  case_options.strict = o.strict || BoolMember(spec, "strict", where);
  const std::string* expected_warning = StringMember(spec, "expectedWarning", where);
  const std::optional<Tolerance> tolerance = ToleranceMember(spec, where);
  const auto inputs = FileMap(spec, "inputs", where);
  const auto outputs = FileMap(spec, "outputs", where);
  const auto at = [&](const std::string& file) { return (fs::path(dir) / file).string(); };

  // --actual: the other runtime's folder for this case, and what it holds.
  const fs::path actual_dir =
      o.actual.empty() ? fs::path() : fs::path(o.actual) / fs::path(dir).filename();
  std::optional<std::string> actual_error;
  if (!o.actual.empty() && fs::exists(actual_dir / "error")) {
    std::ifstream f(actual_dir / "error");
    std::string stage;
    f >> stage;
    actual_error = stage;
  }
  const auto actual_output = [&](const std::string& name) { return actual_dir / (name + ".dat"); };
  const auto any_actual_output = [&] {
    return std::any_of(outputs.begin(), outputs.end(),
                       [&](const auto& kv) { return fs::exists(actual_output(kv.first)); });
  };
  if (!o.actual.empty() && !actual_error && !any_actual_output()) {
    r.verdict = Verdict::kSkip;
    r.skip = "no-result";
    r.message = "no " + actual_dir.string() + "/<output>.dat or error file";
    return r;
  }
  if (actual_error && expected_error == nullptr) {
    return Fail("the implementation rejected the model (" + *actual_error + ", in " +
                (actual_dir / "error").string() + "); the reference runs it");
  }

  std::unique_ptr<QuantFile> quant;
  std::unique_ptr<Executor> ex;
  std::map<std::string, OperandValue> results;
  std::string divergence;  // the check mode's first divergence in NNEF terms
  try {
    const FlatGraph g = nnef::ParseModel(dir, ParseOptionsOf(case_options));
    // The per-operator table counts the case under its graph's last operation.
    for (const Invocation& inv : g.ops) {
      if (inv.id != nnef::NnefOp::kExternal && inv.id != nnef::NnefOp::kVariable) {
        r.op = "nnef " + inv.op;
      }
    }
    if (expected_warning != nullptr &&
        std::none_of(g.warnings.begin(), g.warnings.end(), [&](const std::string& w) {
          return w.find(*expected_warning) != std::string::npos;
        })) {
      return Fail("no parse warning mentions \"" + *expected_warning + "\"");
    }
    quant = LoadQuant(dir);
    ex = std::make_unique<Executor>(g, dir, quant.get(), nnef::ExecutorOptions{o.max_tensor_bytes});
    std::map<std::string, Tensor> feed;
    for (const auto& [name, file] : inputs) {
      if (std::find(g.inputs.begin(), g.inputs.end(), name) == g.inputs.end()) {
        return Error(where + ": inputs." + name + " is not an input of graph '" + g.name + "'");
      }
      feed[name] = LoadInput(*ex, quant.get(), name, at(file), o.max_tensor_bytes);
    }
    std::optional<BackendGraph> bg;
    if (engine.backend) {
      std::string why;
      bg = CompileLowered(*ex, engine.backend, why);
      if (!bg) {
        r.verdict = Verdict::kSkip;
        r.skip = "backend-unsupported";
        r.message = why;
        return r;
      }
    }
    results =
        Compute(*ex, engine, bg ? &*bg : nullptr, feed,
                o.trace ? MakeTrace(o.values) : nnef::TraceSink{}, &r.check, &r.operand_names);
    if (r.check && r.check->first_divergence) {
      divergence = OriginText(*ex, r.check->operators[*r.check->first_divergence].index);
    }
  } catch (const NnefError& e) {
    if (expected_error == nullptr) return Error(e.what());
    const std::string stage(nnef::StageName(e.stage()));
    if (!o.actual.empty()) {
      // The reference's rejection is the case's; the other runtime must reject at that stage.
      if (!actual_error) {
        return Fail("expected a " + *expected_error +
                    " error, but the implementation gave outputs");
      }
      if (*actual_error != *expected_error) {
        return Fail("expected a " + *expected_error + " error, the implementation rejected at " +
                    *actual_error);
      }
      r.message = "rejected as expected (" + *actual_error + ")";
      return r;
    }
    if (stage != *expected_error) {
      return Fail("expected a " + *expected_error + " error, got: " + e.what());
    }
    if (message != nullptr && std::string(e.what()).find(*message) == std::string::npos) {
      return Fail("the " + stage + " error does not mention \"" + *message + "\": " + e.what());
    }
    r.message = std::string("rejected as expected: ") + e.what();
    return r;
  }
  if (expected_error != nullptr) {
    return Fail("expected a " + *expected_error + " error, but the model ran");
  }
  if (outputs.empty()) return Error(where + ": no outputs to compare");
  JudgeOptions judge;
  judge.policy = TolerancePolicy::kWpt;  // NNEF graphs have no derived bounds yet
  judge.case_name = r.name;
  if (!o.actual.empty()) {
    // The other runtime's outputs against the reference's (which the case's expected files
    // hold too), each decoded into the output's type.
    for (const auto& [name, file] : outputs) {
      const auto it = results.find(name);
      if (it == results.end()) return Error(where + ": outputs." + name + " is not a graph output");
      const std::string path = actual_output(name).string();
      if (!fs::exists(path)) continue;  // an output the runtime did not write: not judged
      Tensor given;
      try {
        const nnef::TensorFile f = nnef::ReadTensorFile(path, o.max_tensor_bytes);
        given = nnef::DecodeTensorFile(f, ex->OutputType(name), nullptr, path, o.max_tensor_bytes);
      } catch (const NnefError& e) {
        return Error(std::string("actual output: ") + e.what());
      }
      Judgement rule;
      rule.tolerance = tolerance ? *tolerance : ex->DefaultToleranceFor(name);
      if (given.shape() != it->second.data.shape()) {
        return Fail("output '" + name + "': " + path + " has shape " +
                    ShapeToString(given.shape()) + ", the reference's is " +
                    ShapeToString(it->second.data.shape()));
      }
      OutputResult out = JudgeOutput(judge, name, rule, it->second.data, given, it->second,
                                     ReferenceSide::kExpected);
      if (!out.cmp.passed()) r.verdict = Verdict::kFail;
      r.outputs.push_back(std::move(out));
    }
    return r;
  }
  for (const auto& [name, file] : outputs) {
    const auto it = results.find(name);
    if (it == results.end()) return Error(where + ": outputs." + name + " is not a graph output");
    // The expected file belongs to the case: a problem with it is a broken case, not a verdict.
    Tensor expected;
    try {
      const nnef::TensorFile f = nnef::ReadTensorFile(at(file), o.max_tensor_bytes);
      expected =
          nnef::DecodeTensorFile(f, ex->OutputType(name), nullptr, at(file), o.max_tensor_bytes);
    } catch (const NnefError& e) {
      return Error(std::string("expected output: ") + e.what());
    }
    Judgement rule;
    rule.tolerance = tolerance ? *tolerance : ex->DefaultToleranceFor(name);
    OutputResult out = JudgeOutput(judge, name, rule, expected, it->second.data, it->second,
                                   ReferenceSide::kActual);
    if (!out.cmp.passed()) r.verdict = Verdict::kFail;
    r.outputs.push_back(std::move(out));
  }
  if (!divergence.empty()) {
    // Reported even when the outputs stayed within the case tolerance: an operator left its own.
    r.verdict = Verdict::kFail;
    r.message = "first divergence: " + divergence + " (see the operator table)";
  }
  return r;
}

int RunCases(const NnefOptions& o) {
  if (!o.actual.empty() && (o.backend != "reference" || o.against_reference)) {
    throw InputError(
        "--actual judges another runtime's outputs against the reference: "
        "no --backend or --against-reference with it");
  }
  if (!o.actual.empty() && !fs::is_directory(o.actual)) {
    throw InputError("--actual " + o.actual + ": not a directory (DIR/<case>/<output>.dat)");
  }
  std::vector<std::string> dirs;
  for (const std::string& dir : CaseDirs(o.path)) {
    if (InShard(o.shard, dir)) dirs.push_back(dir);
  }
  const Engine engine = MakeEngine(o);
  Collector col(o.verbose, dirs.size());
  col.summary.tolerances = PolicyName(TolerancePolicy::kWpt);
  for (const std::string& dir : dirs) {
    CaseResult r;
    try {
      r = RunCase(dir, o, engine);
    } catch (const InputError& e) {
      r = {(fs::path(dir) / "case.json").string(),
           fs::path(dir).filename().string(),
           Verdict::kError,
           e.what(),
           {}};
      r.op = "(nnef)";
    }
    col.Add(std::move(r));
  }
  col.Finish(o.files);
  const Summary& s = col.summary;
  PrintSkips(s);
  std::cout << s.Line() << std::endl;
  if (s.errors) return 2;
  return s.failed ? 1 : 0;
}

}  // namespace

int CommandNnef(const NnefOptions& options) {
  if (options.cases) return RunCases(options);
  if (options.check) return CheckModel(options);
  return RunModel(options);
}

}  // namespace nnref
