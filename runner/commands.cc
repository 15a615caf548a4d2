#include "runner/commands.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "ops/registry.h"
#include "ops/tolerance_table.h"
#include "ops/vulkan/vulkan_backend.h"
#include "ref/parallel/parallel.h"
#include "runner/api_case.h"
#include "runner/backend_check.h"
#include "runner/backends.h"
#include "runner/case.h"
#include "runner/compare.h"
#include "runner/data.h"
#include "runner/execute.h"
#include "runner/fault_injection.h"
#include "runner/json.h"
#include "runner/derived.h"
#include "runner/sum_bound.h"
#include "runner/timeline.h"

namespace nnref {

namespace {

enum class Verdict { kPass, kFail, kError, kSkip };

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kPass:
      return "pass";
    case Verdict::kFail:
      return "fail";
    case Verdict::kError:
      return "error";
    case Verdict::kSkip:
      return "skip";
  }
  return "?";
}

struct OutputResult {
  std::string name;
  Comparison cmp;
  std::string tolerance;
  std::string dumped = {};  // --dump: the path prefix of the .npy files written for it
  double tol_ulp = 0;       // the ULP bound applied (the HTML histograms mark it)
};

// The .npy "descr" of a data type (little-endian, as the machines nnref runs on).
const char* NpyDescr(DataType t) {
  switch (t) {
    case DataType::kFloat32:
      return "<f4";
    case DataType::kFloat16:
      return "<f2";
    case DataType::kInt32:
      return "<i4";
    case DataType::kUint32:
      return "<u4";
    case DataType::kInt64:
      return "<i8";
    case DataType::kUint64:
      return "<u8";
    case DataType::kInt8:
      return "|i1";
    case DataType::kUint8:
      return "|u1";
  }
  return "?";
}

// Writes an .npy file (format version 1.0: magic, header length, a Python dict literal padded so
// that the data starts at a multiple of 64 bytes).
void WriteNpy(const std::string& path, const std::string& descr, const Shape& shape,
              const std::vector<std::byte>& bytes) {
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i) {
    dims += (i ? ", " : "") + std::to_string(shape[i]);
  }
  if (shape.size() == 1) dims += ",";
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) throw InputError(path + ": cannot write");
  out.write("\x93NUMPY\x01\x00", 8);
  const char len[2] = {static_cast<char>(header.size() & 0xff),
                       static_cast<char>((header.size() >> 8) & 0xff)};
  out.write(len, 2);
  out << header;
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out) throw InputError(path + ": cannot write");
}

// --dump DIR: the expected and actual tensors of a failing output, and actual - expected as
// float64, as DIR/CASE.OUTPUT.{expected,actual,diff}.npy. Returns DIR/CASE.OUTPUT.
std::string DumpOutput(const std::string& dir, const std::string& case_name,
                       const std::string& output, const Tensor& expected, const Tensor& actual) {
  std::string stem = case_name + "." + output;
  for (char& ch : stem) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '-' && ch != '_') {
      ch = '_';
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::string base = (std::filesystem::path(dir) / stem).string();
  WriteNpy(base + ".expected.npy", NpyDescr(expected.dtype()), expected.shape(), expected.Bytes());
  WriteNpy(base + ".actual.npy", NpyDescr(actual.dtype()), actual.shape(), actual.Bytes());
  const uint64_t n = expected.element_count();
  std::vector<std::byte> diff(n * sizeof(double));
  for (uint64_t i = 0; i < n; ++i) {
    const double d = ElementAsDouble(actual, i) - ElementAsDouble(expected, i);
    std::memcpy(diff.data() + i * sizeof(double), &d, sizeof d);
  }
  WriteNpy(base + ".diff.npy", "<f8", expected.shape(), diff);
  return base;
}

struct CaseResult {
  std::string file;
  std::string name;
  Verdict verdict = Verdict::kPass;
  std::string message;
  std::vector<OutputResult> outputs;
  std::vector<std::string> warnings = {};  // non-fatal remarks from the builder methods
  // --against-reference: every operator of the graph, judged alone (runner/backend_check.h).
  std::optional<BackendCheck> check = std::nullopt;
  std::shared_ptr<const Graph> graph = nullptr;  // for naming operands in the check report
  std::map<uint32_t, std::string> operand_names = {};
  // kSkip: the reason code (SkipReasons() below); message holds the details.
  std::string skip = {};
  // The operator a case counts under in the per-operator table: the last operator of its graph.
  std::string op = {};
  // check: problems found in the results file, each at the JSON pointer of its member. A case
  // with findings is an error of the results file, not of the case file.
  std::string results_file = {};
  std::string results_pointer = {};  // check: the case's entry in the results file ("/cases/3")
  std::vector<std::pair<std::string, std::string>> findings = {};  // (pointer, what)
  double seconds = 0;                                              // wall time of the case (JUnit)
};

// Skip reason codes and their text (the summary counts skips per code).
const std::vector<std::pair<std::string, std::string>>& SkipReasons() {
  static const std::vector<std::pair<std::string, std::string>> kReasons = {
      {"no-result", "the results file has no result for the case"},
      {"backend-unsupported", "the backend lacks an operator or data type of the graph"},
      {"filtered", "excluded by the name/label filter"},
      {"reference-only", "the case checks a property of the reference alone (referenceOnly)"},
      {"timeline", "a timeline case has no outputs to check (nnref run checks its steps)"},
  };
  return kReasons;
}

// One row of the per-operator table.
struct OperatorRow {
  uint64_t cases = 0, passed = 0, failed = 0, errors = 0, skipped = 0;
  double max_ulp = 0, max_abs = 0, sum_ulp = 0;
  uint64_t compared = 0;
  double mean_ulp() const { return compared ? sum_ulp / static_cast<double>(compared) : 0; }
  std::array<uint64_t, kUlpBins> hist{};  // elements by ULP bin (runner/compare.h)
  double tol_ulp = 0;                     // the largest ULP tolerance of its outputs
};

struct Summary {
  uint64_t passed = 0, failed = 0, errors = 0, skipped = 0;
  std::map<std::string, uint64_t> skip_reasons;  // code -> cases
  // backend-unsupported skips, per missing operator ("simd: lstm: not implemented"); a case
  // lacking several operators counts under each.
  std::map<std::string, uint64_t> backend_missing;
  std::map<std::string, OperatorRow> operators;  // per-operator table
  // Output elements that passed by the sum bound alone, and the passing cases that needed it.
  uint64_t sum_bound_elements = 0, sum_bound_cases = 0;
  std::string tolerances = "wpt";  // the policy that judged (--tolerances)
  void Add(const CaseResult& r) {
    Add(r.verdict);
    uint64_t by_bound = 0;
    for (const OutputResult& o : r.outputs) by_bound += o.cmp.sum_bound_accepted;
    sum_bound_elements += by_bound;
    if (by_bound && r.verdict == Verdict::kPass) ++sum_bound_cases;
    if (r.verdict == Verdict::kSkip) {
      ++skip_reasons[r.skip];
      if (r.skip == "backend-unsupported") {
        // The message names each missing operator: "simd: a: why; b: why".
        const size_t colon = r.message.find(": ");
        const std::string prefix = r.message.substr(0, colon + 2);
        std::string rest = colon == std::string::npos ? r.message : r.message.substr(colon + 2);
        for (size_t pos; (pos = rest.find("; ")) != std::string::npos;
             rest = rest.substr(pos + 2)) {
          ++backend_missing[prefix + rest.substr(0, pos)];
        }
        ++backend_missing[prefix + rest];
      }
    }
    if (r.file.empty()) return;  // a results-file entry naming no case of the case files
    OperatorRow& row = operators[r.op.empty() ? "(none)" : r.op];
    ++row.cases;
    switch (r.verdict) {
      case Verdict::kPass:
        ++row.passed;
        break;
      case Verdict::kFail:
        ++row.failed;
        break;
      case Verdict::kError:
        ++row.errors;
        break;
      case Verdict::kSkip:
        ++row.skipped;
        break;
    }
    for (const OutputResult& o : r.outputs) {
      if (!o.cmp.shape_ok) continue;
      row.max_ulp = std::max(row.max_ulp, o.cmp.max_ulp);
      row.max_abs = std::max(row.max_abs, o.cmp.max_abs);
      row.sum_ulp += o.cmp.sum_ulp;
      row.compared += o.cmp.compared;
      for (size_t b = 0; b < kUlpBins; ++b) row.hist[b] += o.cmp.ulp_hist[b];
      row.tol_ulp = std::max(row.tol_ulp, o.tol_ulp);
    }
  }
  void Add(Verdict v) {
    switch (v) {
      case Verdict::kPass:
        ++passed;
        break;
      case Verdict::kFail:
        ++failed;
        break;
      case Verdict::kError:
        ++errors;
        break;
      case Verdict::kSkip:
        ++skipped;
        break;
    }
  }
  std::string Line() const {
    std::string s = std::to_string(passed) + " passed, " + std::to_string(failed) + " failed";
    if (errors) s += ", " + std::to_string(errors) + " errors";
    if (skipped) s += ", " + std::to_string(skipped) + " skipped";
    return s;
  }
};

Value Num(double d) {
  Number n;
  n.d = d;
  if (std::isfinite(d)) {
    std::ostringstream os;
    os.precision(17);
    os << d;
    n.text = os.str();
    return Value::Num(n);
  }
  return Value::Str(std::isnan(d) ? "NaN" : (d > 0 ? "Infinity" : "-Infinity"));
}

Value ComparisonJson(const Comparison& c, const std::string& tolerance) {
  if (!c.shape_ok) return Value::Object({{"shapeMismatch", Value::Str(c.shape_message)}});
  std::vector<std::pair<std::string, Value>> m;
  m.reserve(10);  // also keeps GCC 12's -Warray-bounds false positive on the first insert quiet
  m.emplace_back("maxUlp", Num(c.max_ulp));
  m.emplace_back("maxAbs", Num(c.max_abs));
  m.emplace_back("mismatches", Num(static_cast<double>(c.mismatches)));
  m.emplace_back("implementationDefinedSkipped",
                 Num(static_cast<double>(c.implementation_defined)));
  if (c.nan_accepted) m.emplace_back("nanAccepted", Num(static_cast<double>(c.nan_accepted)));
  if (c.one_of_accepted) {
    m.emplace_back("oneOfAccepted", Num(static_cast<double>(c.one_of_accepted)));
  }
  if (c.sum_bound_accepted) {
    m.emplace_back("sumBoundAccepted", Num(static_cast<double>(c.sum_bound_accepted)));
  }
  m.emplace_back("tolerance", Value::Str(tolerance));
  if (c.first.empty()) {
    m.emplace_back("firstMismatch", Value());
  } else {
    std::vector<Value> list;
    for (const Mismatch& x : c.first) {
      list.push_back(Value::Object({{"index", Num(static_cast<double>(x.index))},
                                    {"coordinates", Value::Str(x.coordinates)},
                                    {"expected", Value::Str(x.expected)},
                                    {"actual", Value::Str(x.actual)},
                                    {"ulp", Num(x.ulp)},
                                    {"abs", Num(x.abs)}}));
      // Integers: the exact difference (a number, or a decimal string beyond 2^53); floats of
      // opposite signs: flagged, since their ULP distance counts the values across zero.
      if (x.integer) {
        list.back().members().emplace_back("difference",
                                           x.difference <= (uint64_t{1} << 53)
                                               ? Num(static_cast<double>(x.difference))
                                               : Value::Str(std::to_string(x.difference)));
      }
      if (x.sign_change) list.back().members().emplace_back("oppositeSigns", Value::Bool(true));
      if (x.sum_bound > 0) list.back().members().emplace_back("sumBound", Num(x.sum_bound));
    }
    m.emplace_back("firstMismatch", list.front());
    m.emplace_back("mismatchSamples", Value::Array(std::move(list)));
  }
  return Value::Object(std::move(m));
}

std::string OperandName(const CaseResult& r, OperandId id) {
  const auto it = r.operand_names.find(id.value);
  return it != r.operand_names.end() ? "'" + it->second + "'" : "#" + std::to_string(id.value);
}

std::string OperatorName(const CaseResult& r, const OperatorCheck& oc) {
  std::string s = "operator " + std::to_string(oc.index) + " " + std::string(OpName(oc.op));
  if (!oc.label.empty()) s += " [label '" + oc.label + "']";
  return s + " -> " + OperandName(r, oc.operand);
}

void WriteReportValues(const std::string& path, const Summary& s, std::vector<Value> cases);

void WriteReport(const std::string& path, const Summary& s,
                 const std::vector<CaseResult>& results) {
  std::vector<Value> cases;
  for (const CaseResult& r : results) {
    std::vector<std::pair<std::string, Value>> outs;
    for (const OutputResult& o : r.outputs)
      outs.emplace_back(o.name, ComparisonJson(o.cmp, o.tolerance));
    cases.push_back(Value::Object({{"file", Value::Str(r.file)},
                                   {"name", Value::Str(r.name)},
                                   {"verdict", Value::Str(VerdictName(r.verdict))},
                                   {"outputs", Value::Object(std::move(outs))},
                                   {"message", Value::Str(r.message)}}));
    if (r.verdict == Verdict::kSkip) {
      cases.back().members().emplace_back("skipReason", Value::Str(r.skip));
    }
    if (!r.op.empty()) cases.back().members().emplace_back("op", Value::Str(r.op));
    if (!r.results_pointer.empty()) {
      cases.back().members().emplace_back(
          "result", Value::Object({{"file", Value::Str(r.results_file)},
                                   {"pointer", Value::Str(r.results_pointer)}}));
    }
    if (!r.findings.empty()) {
      std::vector<Value> list;
      for (const auto& [pointer, what] : r.findings) {
        list.push_back(Value::Object({{"file", Value::Str(r.results_file)},
                                      {"pointer", Value::Str(pointer)},
                                      {"message", Value::Str(what)}}));
      }
      cases.back().members().emplace_back("resultsFileProblems", Value::Array(std::move(list)));
    }
    if (!r.warnings.empty()) {
      std::vector<Value> w;
      for (const std::string& x : r.warnings) w.push_back(Value::Str(x));
      cases.back().members().emplace_back("warnings", Value::Array(std::move(w)));
    }
    if (r.check) {
      std::vector<Value> ops;
      for (const OperatorCheck& oc : r.check->operators) {
        Value v = ComparisonJson(oc.cmp, oc.tolerance);
        std::vector<std::pair<std::string, Value>> head = {
            {"index", Num(static_cast<double>(oc.index))},
            {"op", Value::Str(std::string(OpName(oc.op)))},
            {"label", Value::Str(oc.label)},
            {"operand", Value::Str(OperandName(r, oc.operand))}};
        v.members().insert(v.members().begin(), head.begin(), head.end());
        v.members().emplace_back("meanUlp", Num(oc.cmp.mean_ulp()));
        ops.push_back(std::move(v));
      }
      cases.back().members().emplace_back("operators", Value::Array(std::move(ops)));
      if (r.check->first_divergence) {
        cases.back().members().emplace_back("firstDivergence",
                                            Num(static_cast<double>(*r.check->first_divergence)));
      }
    }
  }
  WriteReportValues(path, s, std::move(cases));
}

// The report file: the summary, the per-operator table and the cases' entries.
void WriteReportValues(const std::string& path, const Summary& s, std::vector<Value> cases) {
  std::vector<std::pair<std::string, Value>> reasons;
  for (const auto& [code, n] : s.skip_reasons) {
    reasons.emplace_back(code, Num(static_cast<double>(n)));
  }
  std::vector<std::pair<std::string, Value>> missing;
  for (const auto& [what, n] : s.backend_missing) {
    missing.emplace_back(what, Num(static_cast<double>(n)));
  }
  std::vector<std::pair<std::string, Value>> ops;
  for (const auto& [op, row] : s.operators) {
    ops.emplace_back(op, Value::Object({{"cases", Num(static_cast<double>(row.cases))},
                                        {"passed", Num(static_cast<double>(row.passed))},
                                        {"failed", Num(static_cast<double>(row.failed))},
                                        {"errors", Num(static_cast<double>(row.errors))},
                                        {"skipped", Num(static_cast<double>(row.skipped))},
                                        {"maxUlp", Num(row.max_ulp)},
                                        {"meanUlp", Num(row.mean_ulp())},
                                        {"maxAbs", Num(row.max_abs)},
                                        {"compared", Num(static_cast<double>(row.compared))}}));
  }
  std::vector<std::pair<std::string, Value>> summary = {
      {"passed", Num(static_cast<double>(s.passed))},
      {"failed", Num(static_cast<double>(s.failed))},
      {"errors", Num(static_cast<double>(s.errors))},
      {"skipped", Num(static_cast<double>(s.skipped))},
      {"skippedByReason", Value::Object(std::move(reasons))},
      {"tolerances", Value::Str(s.tolerances)}};
  if (!missing.empty()) summary.emplace_back("backendMissing", Value::Object(std::move(missing)));
  if (s.sum_bound_elements) {
    summary.emplace_back("sumBoundElements", Num(static_cast<double>(s.sum_bound_elements)));
    summary.emplace_back("sumBoundCases", Num(static_cast<double>(s.sum_bound_cases)));
  }
  const Value root = Value::Object({{"summary", Value::Object(std::move(summary))},
                                    {"operators", Value::Object(std::move(ops))},
                                    {"cases", Value::Array(std::move(cases))}});
  std::ofstream out(path);
  if (!out) throw InputError(path + ": cannot write the report");
  out << WriteJson(root) << "\n";
}

std::string MismatchLines(const Comparison& c) {
  std::string s;
  for (const Mismatch& m : c.first) {
    char buf[160];
    if (m.integer) {
      std::snprintf(buf, sizeof buf, "difference %llu",
                    static_cast<unsigned long long>(m.difference));
    } else if (m.sign_change) {
      std::snprintf(buf, sizeof buf, "opposite signs: abs %g, %g ulp counted across zero", m.abs,
                    m.ulp);
    } else {
      std::snprintf(buf, sizeof buf, "ulp %g, abs %g", m.ulp, m.abs);
    }
    std::string detail = buf;
    if (m.sum_bound > 0) {
      std::snprintf(buf, sizeof buf, ", bound %.6g", m.sum_bound);
      detail += buf;
    }
    s += "      at " + m.coordinates + " (index " + std::to_string(m.index) + "): expected " +
         m.expected + ", got " + m.actual + " (" + detail + ")\n";
  }
  return s;
}

// The operator a case counts under in the per-operator table: the last one of its graph.
std::string LastOperator(const Case& c) {
  if (c.timeline) return "(timeline)";
  return c.operators.empty() ? "" : c.operators.back().name;
}

// Runs a timeline case (runner/timeline.h): each readTensor comparison is one output.
CaseResult RunTimelineCase(const Case& c, const BuilderLimits& limits, bool exact,
                           std::shared_ptr<const Backend> backend = nullptr) {
  const TimelineResult t = RunTimeline(c, limits, exact, std::move(backend));
  CaseResult r{c.file, c.name, Verdict::kPass, t.message, {}};
  r.op = LastOperator(c);
  r.verdict = t.verdict == TimelineResult::Verdict::kPass   ? Verdict::kPass
              : t.verdict == TimelineResult::Verdict::kFail ? Verdict::kFail
                                                            : Verdict::kError;
  for (const TimelineCheck& check : t.checks) {
    r.outputs.push_back(OutputResult{check.name, check.cmp, check.tolerance});
  }
  r.warnings = t.warnings;
  return r;
}

// Runs a case against its expectedOutputs (or expectedError). Graph cases are built on a context
// and computed with createTensor, writeTensor, dispatch and readTensor (runner/api_case.h).
// How a case is computed: on the reference (backend null) or on a backend, optionally checked
// operator by operator against the reference.
struct Engine {
  std::shared_ptr<const Backend> backend;
  bool against_reference = false;
  TolerancePolicy policy = TolerancePolicy::kDerived;  // --tolerances
  size_t max_mismatches = 5;  // mismatch samples kept per output (--max-mismatches)
  std::string dump;           // --dump DIR
};

CaseResult RunCase(const Case& c, const BuilderLimits& limits, bool exact = false,
                   const Engine& engine = {}) {
  if (c.timeline) {
    return RunTimelineCase(c, limits, exact, engine.backend);
  }
  if (engine.backend && c.reference_only) {
    CaseResult r{c.file, c.name, Verdict::kSkip, "reference-only case: " + *c.reference_only, {}};
    r.skip = "reference-only";
    r.op = LastOperator(c);
    return r;
  }
  CaseResult r{c.file, c.name, Verdict::kPass, "", {}};
  r.op = LastOperator(c);
  try {
    const std::vector<std::string> outputs = RequestedOutputs(c);
    if (c.expected_error) {
      try {
        BuildCaseOnContext(c, outputs, limits);
      } catch (const WebnnError& e) {
        const std::string got(ErrorTypeName(e.type()));
        if (got == *c.expected_error) {
          r.message = got + ": " + e.what();
        } else {
          r.verdict = Verdict::kFail;
          r.message = "expected " + *c.expected_error + ", got " + got + ": " + e.what();
        }
        return r;
      }
      r.verdict = Verdict::kFail;
      r.message = "expected " + *c.expected_error + ", but the graph built without error";
      return r;
    }
    if (!c.has_expected_outputs) {
      r.verdict = Verdict::kError;
      r.message = c.Where() + ": no expectedOutputs to compare with (nnref generate fills them)";
      return r;
    }
    ApiCase a;
    try {
      a = BuildCaseOnContext(c, outputs, limits);
    } catch (const WebnnError& e) {
      r.verdict = Verdict::kError;
      r.message = c.Where() + ": unexpected " + std::string(ErrorTypeName(e.type())) +
                  " while building: " + e.what();
      return r;
    }
    const BuiltCase& b = a.built;
    r.warnings = b.warnings;
    std::map<std::string, OperandValue> values;
    // The derived policy's bounds (runner/derived.h) read the reference's value of every operand:
    // the check mode keeps them; otherwise the graph runs once more, observed, before the
    // dispatch takes the input data.
    const bool derive = engine.policy == TolerancePolicy::kDerived && !exact && !c.tolerance;
    std::map<uint32_t, OperandValue> all;
    if (derive && !(engine.backend && engine.against_reference)) {
      b.graph->Compute(b.input_values,
                       [&](OperandId id, const OperandValue& v) { all[id.value] = v; });
    }
    // A backend's outputs are judged with the sum bounds too (runner/sum_bound.h); the
    // reference's own outputs against a case's data are not (they are correctly rounded).
    std::map<uint32_t, OperandValue> kept;
    std::function<const OperandValue&(OperandId)> sum_bound_value;
    if (engine.backend) {
      std::string why;
      const std::optional<BackendGraph> compiled = CompileForBackend(*b.graph, engine.backend, why);
      if (!compiled) {
        r.verdict = Verdict::kSkip;
        r.skip = "backend-unsupported";
        r.message = why;
        return r;
      }
      // The reference runs too: it knows which elements the spec leaves open (latitude) and the
      // magnitudes of sums (sum bounds), and --against-reference compares every operand with it.
      std::map<std::string, OperandValue> reference;
      sum_bound_value = [&](OperandId id) -> const OperandValue& {
        return r.check ? r.check->reference.at(id.value) : kept.at(id.value);
      };
      if (engine.against_reference) {
        r.check = CheckAgainstReference(*b.graph, *compiled, b.input_values, 5, engine.policy);
        r.graph = b.graph;
        r.operand_names = b.operand_names;
        for (const auto& [name, id] : b.graph->outputs()) {
          reference[name] = r.check->reference.at(id.value);
        }
      } else {
        std::vector<OperandId> output_ids;
        for (const auto& [name, id] : b.graph->outputs()) output_ids.push_back(id);
        kept = ComputeForSumBounds(*b.graph, output_ids, b.input_values, &reference);
      }
      values = b.graph->Compute(b.input_values, {}, compiled->kernels);
      for (auto& [name, v] : values) {
        v.latitude = reference.at(name).latitude;
        v.one_of = reference.at(name).one_of;
      }
    } else {
      values = DispatchCase(a);
    }
    std::unique_ptr<DerivedGraphBounds> derived;
    if (derive) {
      derived = std::make_unique<DerivedGraphBounds>(
          *b.graph, [&](OperandId id) -> const OperandValue& {
            return r.check ? r.check->reference.at(id.value) : all.at(id.value);
          });
    }
    for (const TensorSpec& exp : c.expected_outputs) {
      const std::string field = c.Where() + ": graph.expectedOutputs." + exp.name;
      if (!exp.data) throw InputError(field + ": missing 'data'");
      const OperandValue& got = values.at(exp.name);
      OutputResult o;
      o.name = exp.name;
      Tolerance tol = Tolerance::Ulp(0, "--exact: bit-exact, signed zeros included");
      tol.sign_exact = true;
      if (!exact) tol = ToleranceFor(c, b, exp.name);
      // Sums judged by their terms too (wpt: the sum bound of a backend's outputs; the reference's
      // own outputs against a case's data are correctly rounded), or the derived bounds.
      Judgement judged = GraphOutputJudgement(
          derived ? TolerancePolicy::kDerived : TolerancePolicy::kWpt, tol,
          sum_bound_value && !exact
              ? OutputSumBounds(*b.graph, b.named.at(exp.name).id, tol, sum_bound_value)
              : std::vector<double>{},
          derived.get(), b.named.at(exp.name).id);
      tol = judged.tolerance;
      o.tolerance = judged.Describe();
      o.tol_ulp = tol.ulp;
      if (exp.desc != b.graph->output_descriptor(exp.name)) {
        o.cmp.shape_ok = false;
        o.cmp.shape_message = "the case expects " + exp.desc.ToString() +
                              " but the operator gives " +
                              b.graph->output_descriptor(exp.name).ToString();
      } else {
        // Check the expected data's size before decoding (hostile shapes are caught above).
        const Tensor expected = DecodeTensorData(*exp.data, exp.desc.dataType, exp.desc.shape,
                                                 field + ".data", c.base_dir);
        o.cmp = CompareTensors(expected, got.data, got.latitude, tol, engine.max_mismatches,
                               got.one_of.get(),
                               engine.backend ? ReferenceSide::kNeither : ReferenceSide::kActual,
                               judged.bounds);
        if (!o.cmp.passed() && !engine.dump.empty()) {
          o.dumped = DumpOutput(engine.dump, c.name, exp.name, expected, got.data);
        }
      }
      if (!o.cmp.passed()) r.verdict = Verdict::kFail;
      r.outputs.push_back(std::move(o));
    }
    if (r.check && r.check->first_divergence && r.verdict == Verdict::kPass) {
      // The outputs stayed within the case tolerance, but an operator left its own.
      r.verdict = Verdict::kFail;
      r.message = "an operator left its tolerance (see the operator table)";
    }
  } catch (const InputError& e) {
    r.verdict = Verdict::kError;
    r.message = e.what();
    r.outputs.clear();
  } catch (const WebnnError& e) {
    r.verdict = Verdict::kError;
    r.message =
        c.Where() + ": unexpected " + std::string(ErrorTypeName(e.type())) + ": " + e.what();
  }
  return r;
}

bool Selected(const Case& c, const RunOptions& o) {
  if (!o.filters.empty()) {
    bool any = false;
    for (const std::string& f : o.filters) any = any || c.name.find(f) != std::string::npos;
    if (!any) return false;
  }
  for (const std::string& l : o.labels) {
    if (std::find(c.labels.begin(), c.labels.end(), l) == c.labels.end()) return false;
  }
  return true;
}

void PrintCheck(const CaseResult& r, bool verbose, std::ostream& out);

// Prints a case's verdict and details (nothing for a pass or skip unless verbose).
void PrintResult(const CaseResult& r, bool verbose, std::ostream& out = std::cout) {
  if (&out == &std::cout) {
    for (const std::string& w : r.warnings) std::cerr << "warning: " << w << "\n";
  }
  if (r.verdict == Verdict::kPass && !verbose) return;
  if (r.verdict == Verdict::kSkip && !verbose) return;
  if (!r.findings.empty()) {
    // A problem of the results file: blamed on it, each at its member's JSON pointer.
    out << "ERROR " << r.results_file << ": case '" << r.name << "'"
        << (r.file.empty() ? "" : " (of " + r.file + ")") << "\n";
    for (const auto& [pointer, what] : r.findings) {
      out << "    " << r.results_file << ": " << pointer << ": " << what << "\n";
    }
    return;
  }
  out << (r.verdict == Verdict::kPass    ? "PASS "
          : r.verdict == Verdict::kFail  ? "FAIL "
          : r.verdict == Verdict::kError ? "ERROR "
                                         : "SKIP ")
      << r.file << ": " << r.name;
  if (!r.results_pointer.empty()) {
    out << "  [result: " << r.results_file << " " << r.results_pointer << "]";
  }
  out << "\n";
  if (!r.message.empty() && r.verdict != Verdict::kPass) out << "    " << r.message << "\n";
  for (const OutputResult& o : r.outputs) {
    if (o.cmp.passed() && !verbose) continue;
    if (!o.cmp.shape_ok) {
      out << "    output '" << o.name << "': " << o.cmp.shape_message << "\n";
      continue;
    }
    out << "    output '" << o.name << "': " << o.cmp.mismatches << " of " << o.cmp.elements
        << " elements outside " << o.tolerance;
    if (o.cmp.integer) {
      out << " (max difference " << o.cmp.max_abs << ")";
    } else {
      out << " (max " << o.cmp.max_ulp << " ulp, " << o.cmp.max_abs << " abs)";
    }
    if (o.cmp.implementation_defined) {
      out << "; " << o.cmp.implementation_defined << " implementation-defined skipped";
    }
    if (o.cmp.one_of_accepted) {
      out << "; " << o.cmp.one_of_accepted << " accepted as another value of their set";
    }
    if (o.cmp.sum_bound_accepted) {
      out << "; " << o.cmp.sum_bound_accepted
          << (o.tolerance.rfind("derived", 0) == 0 ? " within their bound" : " within the sum bound");
    }
    out << "\n" << MismatchLines(o.cmp);
    if (!o.dumped.empty()) {
      out << "      wrote " << o.dumped << ".{expected,actual,diff}.npy\n";
    }
  }
  PrintCheck(r, verbose, out);
}

// --against-reference: the first divergence, then one line per operator.
void PrintCheck(const CaseResult& r, bool verbose, std::ostream& out) {
  if (!r.check) return;
  const BackendCheck& check = *r.check;
  if (check.first_divergence) {
    const OperatorCheck& oc = check.operators[*check.first_divergence];
    out << "    first divergence: " << OperatorName(r, oc) << "\n";
    if (!oc.cmp.shape_ok) {
      out << "      " << oc.cmp.shape_message << "\n";
    } else {
      out << "      " << oc.cmp.mismatches << " of " << oc.cmp.elements << " elements outside "
          << oc.tolerance << "\n"
          << MismatchLines(oc.cmp);
    }
  } else if (!verbose) {
    return;
  }
  out << "    operators (each on the reference's inputs, under its own tolerance):\n";
  for (const OperatorCheck& oc : check.operators) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "max %g ulp, mean %.3g ulp, max abs %g", oc.cmp.max_ulp,
                  oc.cmp.mean_ulp(), oc.cmp.max_abs);
    out << "      " << (oc.cmp.passed() ? "ok   " : "FAIL ") << OperatorName(r, oc) << ": " << buf
        << " (" << oc.tolerance;
    if (oc.cmp.sum_bound_accepted) {
      out << "; " << oc.cmp.sum_bound_accepted
          << (oc.tolerance.rfind("derived", 0) == 0 ? " within their bound"
                                                    : " within the sum bound");
    }
    out << ")\n";
  }
}

// How many output elements passed by the sum bound alone (docs/numerics.md, "The sum bound").
void PrintSumBound(const Summary& s, TolerancePolicy policy) {
  if (s.sum_bound_elements == 0) return;
  if (policy == TolerancePolicy::kDerived) {
    std::cout << "tolerances: derived; " << s.sum_bound_elements
              << " elements not bit-exact passed within their bound (in " << s.sum_bound_cases
              << " passing cases)\n";
    return;
  }
  std::cout << s.sum_bound_elements << " elements of sums passed by the sum bound alone ("
            << s.sum_bound_cases << " passing cases needed it)\n";
}

// The skip counts per reason code; backend skips also per missing operator.
void PrintSkips(const Summary& s) {
  if (s.skip_reasons.empty()) return;
  std::cout << "skipped cases, by reason:\n";
  for (const auto& [code, text] : SkipReasons()) {
    const auto it = s.skip_reasons.find(code);
    if (it == s.skip_reasons.end()) continue;
    std::cout << "  " << it->second << "  " << code << ": " << text << "\n";
    if (code != "backend-unsupported") continue;
    for (const auto& [what, n] : s.backend_missing) {
      std::cout << "      " << n << "  " << what << "\n";
    }
  }
}

// The per-operator table: cases by verdict and the error distances over the compared elements.
void PrintOperatorTable(const Summary& s) {
  std::printf("%-22s %6s %6s %6s %6s %6s %12s %12s %12s\n", "operator", "cases", "pass", "fail",
              "error", "skip", "max ulp", "mean ulp", "max abs");
  for (const auto& [op, r] : s.operators) {
    std::printf("%-22s %6llu %6llu %6llu %6llu %6llu %12.6g %12.4g %12.6g\n", op.c_str(),
                static_cast<unsigned long long>(r.cases), static_cast<unsigned long long>(r.passed),
                static_cast<unsigned long long>(r.failed),
                static_cast<unsigned long long>(r.errors),
                static_cast<unsigned long long>(r.skipped), r.max_ulp, r.mean_ulp(), r.max_abs);
  }
  std::fflush(stdout);
}

// --shard K/N: a case belongs to shard K when the FNV-1a hash of its name is K-1 modulo N, so the
// split depends on the case names alone (not on paths, file order or the machine).
bool InShard(const Shard& shard, const std::string& name) {
  if (shard.count <= 1) return true;
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const char ch : name) {
    h ^= static_cast<unsigned char>(ch);
    h *= 0x100000001b3ULL;
  }
  return h % shard.count == shard.index - 1;
}

// &, <, > and " as entities, for text and attribute values of XML and HTML. With `xml`, also a
// newline as &#10; and the other control characters but tab, not allowed in XML 1.0, as '?'.
std::string MarkupEscape(const std::string& text, bool xml) {
  std::string s;
  for (const char ch : text) {
    switch (ch) {
      case '&':
        s += "&amp;";
        break;
      case '<':
        s += "&lt;";
        break;
      case '>':
        s += "&gt;";
        break;
      case '"':
        s += "&quot;";
        break;
      default:
        if (!xml) {
          s += ch;
        } else if (ch == '\n') {
          s += "&#10;";
        } else {
          s += (static_cast<unsigned char>(ch) < 0x20 && ch != '\t') ? '?' : ch;
        }
    }
  }
  return s;
}

std::string XmlEscape(const std::string& text) { return MarkupEscape(text, true); }

// --junit FILE: one <testsuite> per case file, one <testcase> per case; a failure or error carries
// the first line of its details as `message` and the whole printout as its text.
void WriteJunit(const std::string& path, const Summary& s, const std::vector<CaseResult>& results) {
  std::map<std::string, std::vector<const CaseResult*>> by_file;
  std::vector<std::string> order;
  for (const CaseResult& r : results) {
    const std::string file = r.file.empty() ? r.results_file : r.file;
    if (!by_file.count(file)) order.push_back(file);
    by_file[file].push_back(&r);
  }
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"nnref\" tests=\""
    << results.size() << "\" failures=\"" << s.failed << "\" errors=\"" << s.errors
    << "\" skipped=\"" << s.skipped << "\">\n";
  for (const std::string& file : order) {
    uint64_t failures = 0, errors = 0, skipped = 0;
    double seconds = 0;
    for (const CaseResult* r : by_file[file]) {
      failures += r->verdict == Verdict::kFail;
      errors += r->verdict == Verdict::kError;
      skipped += r->verdict == Verdict::kSkip;
      seconds += r->seconds;
    }
    char time[32];
    std::snprintf(time, sizeof time, "%.3f", seconds);
    x << "  <testsuite name=\"" << XmlEscape(file) << "\" tests=\"" << by_file[file].size()
      << "\" failures=\"" << failures << "\" errors=\"" << errors << "\" skipped=\"" << skipped
      << "\" time=\"" << time << "\">\n"
      << "    <properties><property name=\"tolerances\" value=\"" << XmlEscape(s.tolerances)
      << "\"/></properties>\n";
    for (const CaseResult* r : by_file[file]) {
      std::snprintf(time, sizeof time, "%.3f", r->seconds);
      x << "    <testcase classname=\"" << XmlEscape(file) << "\" name=\"" << XmlEscape(r->name)
        << "\" time=\"" << time << "\"";
      if (r->verdict == Verdict::kPass) {
        x << "/>\n";
        continue;
      }
      x << ">\n";
      if (r->verdict == Verdict::kSkip) {
        x << "      <skipped message=\"" << XmlEscape(r->skip + ": " + r->message) << "\"/>\n";
      } else {
        std::ostringstream text;
        PrintResult(*r, false, text);
        std::string details = text.str();
        // The message: the first detail line (after the header), trimmed.
        std::string first;
        const size_t nl = details.find('\n');
        if (nl != std::string::npos) {
          const size_t end = details.find('\n', nl + 1);
          first = details.substr(nl + 1, end == std::string::npos ? end : end - nl - 1);
          first.erase(0, first.find_first_not_of(' '));
        }
        // The first mismatch, when there is one, is the most telling line.
        for (const OutputResult& o : r->outputs) {
          if (!o.cmp.first.empty()) {
            const Mismatch& m = o.cmp.first.front();
            first = "output '" + o.name + "' at " + m.coordinates + ": expected " + m.expected +
                    ", got " + m.actual;
            break;
          }
        }
        const char* tag = r->verdict == Verdict::kFail ? "failure" : "error";
        x << "      <" << tag << " message=\"" << XmlEscape(first) << "\" type=\""
          << VerdictName(r->verdict) << "\">" << XmlEscape(details) << "</" << tag << ">\n";
      }
      x << "    </testcase>\n";
    }
    x << "  </testsuite>\n";
  }
  x << "</testsuites>\n";
  std::ofstream out(path);
  if (!out) throw InputError(path + ": cannot write the JUnit file");
  out << x.str();
}

std::string HtmlEscape(const std::string& text) { return MarkupEscape(text, false); }

std::string BinLabel(size_t b) {
  if (b == 0) return "0";
  if (b == kUlpBins - 1) return "\u2265 2^32";
  const uint64_t lo = uint64_t{1} << (b - 1);
  return b == 1 ? "1" : std::to_string(lo) + "\u2013" + std::to_string(2 * lo - 1);
}

// One operator's histogram as inline SVG: a bar per ULP bin (log-scaled height, the count in the
// bar's title), a dashed line at the edge of the bin holding the tolerance.
std::string HistogramSvg(const std::string& op, const OperatorRow& row) {
  size_t last = 0;
  for (size_t b = 0; b < kUlpBins; ++b) {
    if (row.hist[b]) last = b;
  }
  const size_t tol_bin = UlpBin(row.tol_ulp);
  last = std::min(kUlpBins - 1, std::max(last, tol_bin) + 1);
  const size_t bins = last + 1;
  uint64_t most = 1;
  for (size_t b = 0; b < bins; ++b) most = std::max(most, row.hist[b]);
  const double width = 480, height = 140, left = 40, plot_h = 100, top = 10;
  const double bar = (width - left - 10) / static_cast<double>(bins);
  std::ostringstream s;
  s << "<svg class=\"hist\" data-op=\"" << HtmlEscape(op)
    << "\" xmlns=\"http://www.w3.org/2000/svg\""
    << " width=\"" << width << "\" height=\"" << height << "\" role=\"img\">"
    << "<title>" << HtmlEscape(op) << ": elements by ULP distance (log scale)</title>";
  s << "<line x1=\"" << left << "\" y1=\"" << top + plot_h << "\" x2=\"" << width - 10 << "\" y2=\""
    << top + plot_h << "\" stroke=\"#444\"/>";
  for (size_t b = 0; b < bins; ++b) {
    const uint64_t n = row.hist[b];
    const double h =
        n ? plot_h * std::log1p(static_cast<double>(n)) / std::log1p(static_cast<double>(most)) : 0;
    const double x = left + bar * static_cast<double>(b);
    const bool over = b > tol_bin;
    s << "<rect class=\"bar\" data-bin=\"" << b << "\" data-count=\"" << n << "\" x=\"" << x + 1
      << "\" y=\"" << top + plot_h - h << "\" width=\"" << std::max(1.0, bar - 2) << "\" height=\""
      << h << "\" fill=\"" << (over ? "#c0392b" : "#2e86c1") << "\"><title>" << BinLabel(b)
      << " ULP: " << n << " elements</title></rect>";
    if ((b % 4 == 0 && b + 3 < bins) || b + 1 == bins) {
      s << "<text x=\"" << x + bar / 2 << "\" y=\"" << top + plot_h + 14
        << "\" font-size=\"9\" text-anchor=\"middle\">"
        << (b == 0 ? "0" : "2^" + std::to_string(b - 1)) << "</text>";
    }
  }
  const double tx = left + bar * static_cast<double>(tol_bin + 1);
  s << "<line class=\"tolerance\" x1=\"" << tx << "\" y1=\"" << top << "\" x2=\"" << tx
    << "\" y2=\"" << top + plot_h << "\" stroke=\"#c0392b\" stroke-dasharray=\"4 3\"><title>"
    << "tolerance " << row.tol_ulp << " ULP"
    << "</title></line>";
  s << "<text x=\"" << left << "\" y=\"" << height - 4 << "\" font-size=\"10\">ULP distance "
    << "(bins [2^k, 2^(k+1))); dashed: tolerance " << row.tol_ulp << " ULP</text>";
  s << "</svg>";
  return s.str();
}

// --html FILE: one self-contained page (no network, no external files): the summary, the
// per-operator table, a histogram per operator and the failing cases with their first mismatches.
void WriteHtml(const std::string& path, const Summary& s, const std::vector<CaseResult>& results) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
    << "<title>nnref report</title><style>"
    << "body{font-family:sans-serif;margin:1em 2em}table{border-collapse:collapse}"
    << "td,th{border:1px solid #bbb;padding:2px 8px;text-align:right}"
    << "td:first-child,th:first-child{text-align:left}.fail{color:#c0392b}"
    << "pre{background:#f4f4f4;padding:6px;overflow-x:auto}</style></head><body>\n"
    << "<h1>nnref report</h1>\n";
  h << "<table id=\"summary\"><tbody>"
    << "<tr><th>passed</th><td>" << s.passed << "</td></tr>"
    << "<tr><th>failed</th><td>" << s.failed << "</td></tr>"
    << "<tr><th>errors</th><td>" << s.errors << "</td></tr>"
    << "<tr><th>skipped</th><td>" << s.skipped << "</td></tr>"
    << "<tr><th>tolerances</th><td>" << HtmlEscape(s.tolerances) << "</td></tr>";
  for (const auto& [code, n] : s.skip_reasons) {
    h << "<tr class=\"skip-reason\"><th>skipped: " << HtmlEscape(code) << "</th><td>" << n
      << "</td></tr>";
  }
  h << "</tbody></table>\n<h2>Operators</h2>\n<table id=\"operators\"><thead><tr><th>operator</th>"
    << "<th>cases</th><th>pass</th><th>fail</th><th>error</th><th>skip</th><th>max ULP</th>"
    << "<th>mean ULP</th><th>max abs</th></tr></thead><tbody>\n";
  char buf[160];
  for (const auto& [op, r] : s.operators) {
    std::snprintf(buf, sizeof buf, "<td>%g</td><td>%.4g</td><td>%g</td>", r.max_ulp, r.mean_ulp(),
                  r.max_abs);
    h << "<tr data-op=\"" << HtmlEscape(op) << "\""
      << (r.failed || r.errors ? " class=\"fail\"" : "") << "><td>" << HtmlEscape(op) << "</td><td>"
      << r.cases << "</td><td>" << r.passed << "</td><td>" << r.failed << "</td><td>" << r.errors
      << "</td><td>" << r.skipped << "</td>" << buf << "</tr>\n";
  }
  h << "</tbody></table>\n<h2>Error distribution per operator</h2>\n<div id=\"plots\">\n";
  for (const auto& [op, r] : s.operators) {
    h << "<figure><figcaption>" << HtmlEscape(op) << "</figcaption>" << HistogramSvg(op, r)
      << "</figure>\n";
  }
  h << "</div>\n<h2>Failing cases</h2>\n<div id=\"failures\">\n";
  for (const CaseResult& r : results) {
    if (r.verdict != Verdict::kFail && r.verdict != Verdict::kError) continue;
    std::ostringstream text;
    PrintResult(r, false, text);
    h << "<div class=\"case " << VerdictName(r.verdict) << "\" data-name=\"" << HtmlEscape(r.name)
      << "\"><h3>" << HtmlEscape(r.name) << "</h3><pre>" << HtmlEscape(text.str())
      << "</pre></div>\n";
  }
  h << "</div>\n<p id=\"rendered\"></p>\n<script>\n"
    << "document.getElementById('rendered').textContent = 'rendered: ' +\n"
    << "  document.querySelectorAll('svg.hist').length + ' plots, ' +\n"
    << "  document.querySelectorAll('#operators tbody tr').length + ' operators, ' +\n"
    << "  document.querySelectorAll('#failures .case').length + ' failing cases';\n"
    << "</script>\n</body></html>\n";
  std::ofstream out(path);
  if (!out) throw InputError(path + ": cannot write the HTML page");
  out << h.str();
}

// Collects, prints and counts case results; on a terminal, a progress line once the run takes
// longer than a second (NNREF_PROGRESS_AFTER_MS changes the delay: a test hook).
class Collector {
 public:
  Collector(bool verbose, uint64_t total) : verbose_(verbose), total_(total) {
    tty_ = isatty(STDOUT_FILENO) != 0;
    if (const char* ms = std::getenv("NNREF_PROGRESS_AFTER_MS")) delay_ms_ = std::atol(ms);
    start_ = last_ = std::chrono::steady_clock::now();
  }
  void Add(CaseResult r) {
    const auto now = std::chrono::steady_clock::now();
    r.seconds = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    ClearProgress();
    PrintResult(r, verbose_);
    summary.Add(r);
    if (r.verdict == Verdict::kFail || r.verdict == Verdict::kError) ++failed_;
    ++done_;
    results.push_back(std::move(r));
    ShowProgress(now);
  }
  // Clears the progress line and writes the report files asked for.
  void Finish(const ReportFiles& files) {
    ClearProgress();
    if (!files.report.empty()) WriteReport(files.report, summary, results);
    if (!files.junit.empty()) WriteJunit(files.junit, summary, results);
    if (!files.html.empty()) WriteHtml(files.html, summary, results);
  }
  Summary summary;
  std::vector<CaseResult> results;

 private:
  void ClearProgress() {
    if (!shown_) return;
    std::cout << "\r\033[K" << std::flush;
    shown_ = false;
  }
  void ShowProgress(std::chrono::steady_clock::time_point now) {
    if (!tty_) return;
    const auto since_start = std::chrono::duration_cast<std::chrono::milliseconds>(now - start_);
    const auto since_shown = std::chrono::duration_cast<std::chrono::milliseconds>(now - shown_at_);
    if (since_start.count() < delay_ms_ || (ever_shown_ && since_shown.count() < 100)) return;
    char line[128];
    std::snprintf(line, sizeof line, "[%llu/%llu cases] %llu failed, %.1f s",
                  static_cast<unsigned long long>(done_), static_cast<unsigned long long>(total_),
                  static_cast<unsigned long long>(failed_),
                  static_cast<double>(since_start.count()) / 1000);
    std::cout << "\r" << line << "\033[K" << std::flush;
    shown_ = ever_shown_ = true;
    shown_at_ = now;
  }
  bool verbose_;
  uint64_t total_, done_ = 0, failed_ = 0;
  bool tty_ = false, shown_ = false, ever_shown_ = false;
  long delay_ms_ = 1000;
  std::chrono::steady_clock::time_point start_, last_, shown_at_;
};

BuilderLimits Limits(uint64_t max_bytes) {
  BuilderLimits l;
  l.max_tensor_byte_length = max_bytes;
  return l;
}

}  // namespace

Shard ParseShard(const std::string& text) {
  const size_t slash = text.find('/');
  const auto number = [&](const std::string& t) -> uint64_t {
    if (t.empty() || t.size() > 6 || t.find_first_not_of("0123456789") != std::string::npos) {
      return 0;
    }
    return std::stoull(t);
  };
  Shard s;
  if (slash != std::string::npos) {
    s.index = number(text.substr(0, slash));
    s.count = number(text.substr(slash + 1));
  }
  if (slash == std::string::npos || s.index < 1 || s.count < 1 || s.index > s.count) {
    throw InputError("--shard: '" + text + "' is not K/N with 1 <= K <= N (e.g. 2/4)");
  }
  return s;
}

int CommandMergeReports(const std::vector<std::string>& reports, const std::string& output) {
  std::vector<Value> cases;
  std::map<std::string, std::string> seen;  // "file\nname" -> the report holding it
  std::map<std::string, OperatorRow> ops;
  std::map<std::string, uint64_t> reasons, missing;
  uint64_t passed = 0, failed = 0, errors = 0, skipped = 0;
  std::string tolerances;  // the shards' policy (all the same, or a mix named as such)
  const auto count = [](const Value* v) {
    return v && v->is_number() ? static_cast<uint64_t>(v->number().d) : uint64_t{0};
  };
  const auto number = [](const Value* v) {
    if (!v) return 0.0;
    if (v->is_string())
      return v->str() == "Infinity" ? std::numeric_limits<double>::infinity() : 0.0;
    return v->is_number() ? v->number().d : 0.0;
  };
  for (const std::string& path : reports) {
    const Value root = ReadJsonFile(path);
    const Value* list = root.Find("cases");
    if (!list || !list->is_array() || !root.Find("summary")) {
      throw InputError(path + ": not an nnref report (no \"summary\" and \"cases\")");
    }
    for (const Value& c : list->items()) {
      const Value* file = c.Find("file");
      const Value* name = c.Find("name");
      const Value* verdict = c.Find("verdict");
      if (!file || !name || !verdict || !file->is_string() || !name->is_string() ||
          !verdict->is_string()) {
        throw InputError(path + ": a case lacks file, name or verdict");
      }
      const std::string key = file->str() + "\n" + name->str();
      if (const auto it = seen.find(key); it != seen.end()) {
        throw InputError(path + ": case '" + name->str() + "' of " + file->str() + " is also in " +
                         it->second + " (do the shards overlap?)");
      }
      seen[key] = path;
      const std::string v = verdict->str();
      passed += v == "pass";
      failed += v == "fail";
      errors += v == "error";
      skipped += v == "skip";
      if (v == "skip") {
        const Value* why = c.Find("skipReason");
        ++reasons[why && why->is_string() ? why->str() : ""];
      }
      cases.push_back(c);
    }
    if (const Value* m = root.Find("summary")->Find("backendMissing"); m && m->is_object()) {
      for (const auto& [what, n] : m->members()) missing[what] += count(&n);
    }
    if (const Value* t = root.Find("summary")->Find("tolerances"); t && t->is_string()) {
      tolerances = tolerances.empty() || tolerances == t->str() ? t->str() : "mixed";
    }
    if (const Value* o = root.Find("operators"); o && o->is_object()) {
      for (const auto& [op, row] : o->members()) {
        OperatorRow& r = ops[op];
        r.cases += count(row.Find("cases"));
        r.passed += count(row.Find("passed"));
        r.failed += count(row.Find("failed"));
        r.errors += count(row.Find("errors"));
        r.skipped += count(row.Find("skipped"));
        const uint64_t compared = count(row.Find("compared"));
        r.max_ulp = std::max(r.max_ulp, number(row.Find("maxUlp")));
        r.max_abs = std::max(r.max_abs, number(row.Find("maxAbs")));
        r.sum_ulp += number(row.Find("meanUlp")) * static_cast<double>(compared);
        r.compared += compared;
      }
    }
  }
  Summary s;
  s.passed = passed;
  s.failed = failed;
  s.errors = errors;
  s.skipped = skipped;
  s.skip_reasons = reasons;
  s.backend_missing = missing;
  s.operators = ops;
  if (!tolerances.empty()) s.tolerances = tolerances;
  WriteReportValues(output, s, std::move(cases));
  PrintSkips(s);
  std::cout << "merged " << reports.size() << " reports into " << output << ": " << s.Line()
            << std::endl;
  if (s.errors) return 2;
  return s.failed ? 1 : 0;
}

size_t ParseMaxMismatches(const std::string& text) {
  if (text == "all") return std::numeric_limits<size_t>::max();
  size_t n = 0;
  if (text.empty() || text.size() > 9 ||
      text.find_first_not_of("0123456789") != std::string::npos) {
    throw InputError("--max-mismatches: '" + text + "' is neither a count nor 'all'");
  }
  for (const char ch : text) n = n * 10 + static_cast<size_t>(ch - '0');
  return n;
}

int CommandRun(const RunOptions& o) {
  SetReferenceThreads(o.threads);  // the reference kernels (and data decoding) use them too
  Engine engine;
  if (o.backend != "reference") {
    BackendOptions options;
    options.threads = o.threads;
    options.device = o.device;
    engine.backend = MakeBackend(o.backend, options);
    if (!o.inject_fault.empty()) {
      engine.backend = MakeFaultInjectingBackend(engine.backend, o.inject_fault);
    }
    std::cout << "backend: " << engine.backend->Describe() << "\n";
  } else if (o.against_reference) {
    throw InputError("--against-reference needs --backend NAME (a backend to compare)");
  }
  engine.against_reference = o.against_reference;
  engine.policy = o.tolerances;
  engine.max_mismatches = o.max_mismatches;
  engine.dump = o.dump;
  // Every file is loaded first: the progress line needs the total.
  std::vector<std::pair<std::string, CaseFile>> files;
  std::vector<CaseResult> unreadable;
  uint64_t total = 0;
  for (const std::string& file : CollectFiles(o.paths)) {
    try {
      files.emplace_back(file, LoadCaseFile(file));
    } catch (const InputError& e) {
      if (InShard(o.shard, file))
        unreadable.push_back({file, "(whole file)", Verdict::kError, e.what(), {}});
      continue;
    }
    for (const auto& [index, name, message] : files.back().second.broken)
      total += InShard(o.shard, name);
    for (const Case& c : files.back().second.cases) total += InShard(o.shard, c.name);
  }
  Collector col(o.verbose, total + unreadable.size());
  col.summary.tolerances = PolicyName(o.tolerances);
  for (CaseResult& r : unreadable) col.Add(std::move(r));
  uint64_t implementation_defined = 0;
  for (const auto& [file, f] : files) {
    for (const auto& [index, name, message] : f.broken) {
      if (!InShard(o.shard, name)) continue;
      col.Add(
          {file, name.empty() ? "#" + std::to_string(index) : name, Verdict::kError, message, {}});
    }
    for (const Case& c : f.cases) {
      if (!InShard(o.shard, c.name)) continue;
      CaseResult r;
      if (!Selected(c, o)) {
        r = {file, c.name, Verdict::kSkip, "excluded by the name/label filter", {}};
        r.skip = "filtered";
        r.op = LastOperator(c);
      } else {
        r = RunCase(c, Limits(o.max_tensor_bytes), o.exact, engine);
      }
      for (const OutputResult& out : r.outputs)
        implementation_defined += out.cmp.implementation_defined;
      col.Add(std::move(r));
    }
  }
  col.Finish({o.report, o.junit, o.html});
  const Summary& s = col.summary;
  if (o.per_operator) PrintOperatorTable(s);
  PrintSkips(s);
  if (implementation_defined) {
    std::cout << implementation_defined
              << " implementation-defined elements were not compared (the spec leaves them open)\n";
  }
  PrintSumBound(s, o.tolerances);
  std::cout << s.Line() << std::endl;
  if (s.errors) return 2;
  return s.failed ? 1 : 0;
}

namespace {

Value DescriptorJson(const OperandDescriptor& d) {
  std::vector<Value> shape;
  for (uint64_t x : d.shape) shape.push_back(Num(static_cast<double>(x)));
  return Value::Object({{"shape", Value::Array(std::move(shape))},
                        {"dataType", Value::Str(std::string(DataTypeName(d.dataType)))}});
}

Value TensorJson(const OperandValue& v) {
  std::vector<Value> data;
  const uint64_t n = v.data.element_count();
  std::vector<Value> open, or_nan;
  std::vector<std::pair<std::string, Value>> one_of;  // element index -> its acceptable values
  for (uint64_t i = 0; i < n; ++i) {
    data.push_back(CanonicalElement(v.data, i));
    if (v.latitude.valid()) {
      const auto l = static_cast<Latitude>(v.latitude.At<uint8_t>(i));
      if (l == Latitude::kAny) open.push_back(Num(static_cast<double>(i)));
      if (l == Latitude::kValueOrNaN) or_nan.push_back(Num(static_cast<double>(i)));
      if (l == Latitude::kOneOf && v.one_of) {
        const Tensor set = v.one_of->Values(i);
        std::vector<Value> values;
        for (uint64_t j = 0; j < set.element_count(); ++j)
          values.push_back(CanonicalElement(set, j));
        one_of.emplace_back(std::to_string(i), Value::Array(std::move(values)));
      }
    }
  }
  std::vector<std::pair<std::string, Value>> m;
  m.emplace_back("data", Value::Array(std::move(data)));
  m.emplace_back("descriptor", DescriptorJson({v.data.dtype(), v.data.shape()}));
  if (!open.empty()) m.emplace_back("implementationDefined", Value::Array(std::move(open)));
  if (!or_nan.empty()) m.emplace_back("valueOrNaN", Value::Array(std::move(or_nan)));
  if (!one_of.empty()) m.emplace_back("oneOf", Value::Object(std::move(one_of)));
  return Value::Object(std::move(m));
}

void SetMember(Value& obj, const std::string& key, Value v) {
  for (auto& [k, existing] : obj.members()) {
    if (k == key) {
      existing = std::move(v);
      return;
    }
  }
  obj.members().emplace_back(key, std::move(v));
}

}  // namespace

namespace {

// In WPT's JavaScript the special values are literals: "NaN", "Infinity", "-Infinity" and "-0"
// strings of data arrays become NaN, Infinity, -Infinity and -0.
void SpecialValuesAsLiterals(Value& v, bool in_data) {
  if (in_data && v.is_string() &&
      (v.str() == "NaN" || v.str() == "Infinity" || v.str() == "-Infinity" || v.str() == "-0")) {
    v = NumberValue(v.str());
    return;
  }
  if (v.is_array()) {
    for (Value& x : v.items()) SpecialValuesAsLiterals(x, in_data);
  } else if (v.is_object()) {
    for (auto& [k, x] : v.members()) SpecialValuesAsLiterals(x, in_data || k == "data");
  }
}

// `generate --format wpt`: the graph cases as a WPT WebNN conformance test file
// (webnn/conformance_tests/*.https.any.js): META lines, the tests array, the harness call.
// Error, timeline and reference-only cases have no form there and are left out.
std::string WptFile(const CaseFile& f, const std::string& in, const std::set<std::string>& failed,
                    size_t& written) {
  std::string stem = std::filesystem::path(in).stem().string();
  std::string ident;
  bool upper = false;
  for (const char ch : stem) {
    if (std::isalnum(static_cast<unsigned char>(ch))) {
      ident += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(ch))) : ch;
      upper = false;
    } else {
      upper = !ident.empty();
    }
  }
  if (ident.empty() || std::isdigit(static_cast<unsigned char>(ident[0]))) ident = "nnref" + ident;
  ident += "Tests";
  std::vector<Value> tests;
  std::vector<std::string> ops;
  for (const Case& c : f.cases) {
    if (c.timeline || c.expected_error || c.reference_only || !c.node) continue;
    if (failed.count(c.name)) continue;  // its problem was reported; no half-written test
    const Value* graph = c.node->Find("graph");
    if (!graph || !graph->Find("expectedOutputs")) continue;
    Value g = *graph;
    for (auto& [k, outs] : g.members()) {
      if (k != "expectedOutputs") continue;
      for (auto& [name, t] : outs.members()) {  // the data and descriptor only
        std::vector<std::pair<std::string, Value>> keep;
        for (auto& [field, x] : t.members()) {
          if (field == "data" || field == "descriptor") keep.emplace_back(field, x);
        }
        t = Value::Object(std::move(keep));
      }
    }
    SpecialValuesAsLiterals(g, false);
    std::vector<std::pair<std::string, Value>> test = {{"name", Value::Str(c.name)},
                                                       {"graph", std::move(g)}};
    if (const Value* tol = c.node->Find("tolerance")) test.emplace_back("tolerance", *tol);
    tests.push_back(Value::Object(std::move(test)));
    for (const OperatorSpec& op : c.operators) {
      if (std::find(ops.begin(), ops.end(), op.name) == ops.end()) ops.push_back(op.name);
    }
  }
  written = tests.size();
  std::string names;
  for (const std::string& op : ops) names += (names.empty() ? "" : ", ") + op;
  std::ostringstream js;
  js << "// META: title=test WebNN API operations: " << names
     << "\n// META: global=window\n// META: variant=?cpu\n// META: variant=?gpu\n"
        "// META: variant=?npu\n// META: script=../resources/utils.js\n// META: timeout=long\n\n"
        "'use strict';\n\n"
        "// Generated by `nnref generate --format wpt` from "
     << std::filesystem::path(in).filename().string()
     << "; the expected outputs are the nnref reference's.\n\nconst " << ident << " = "
     << WriteJson(Value::Array(std::move(tests))) << ";\n\nwebnn_conformance_test(" << ident
     << ", buildAndExecuteGraph, getPrecisionTolerance);\n";
  return js.str();
}

}  // namespace

namespace {

// Replaces every graph input's data that is not an explicit array (the random, range and fill
// forms, npy files, a bare number) with the array of its values, as `run` decodes them: WPT's
// harness and other consumers know arrays only.
void InlineInputData(Case& c) {
  if (!c.node) return;
  Value* graph = nullptr;
  for (auto& [k, v] : c.node->members()) {
    if (k == "graph") graph = &v;
  }
  Value* inputs = nullptr;
  if (graph) {
    for (auto& [k, v] : graph->members()) {
      if (k == "inputs") inputs = &v;
    }
  }
  if (!inputs || !inputs->is_object()) return;
  for (auto& [name, input] : inputs->members()) {
    const auto spec = std::find_if(c.inputs.begin(), c.inputs.end(),
                                   [&](const TensorSpec& t) { return t.name == name; });
    if (spec == c.inputs.end() || !input.is_object()) continue;
    for (auto& [field, data] : input.members()) {
      if (field != "data" || data.is_array()) continue;
      const std::string where = c.Where() + ": graph.inputs." + name + ".data";
      // A JSON array of every value: bounded, so that a large generated input is refused with a
      // message instead of exhausting memory (a value costs tens of bytes in the tree).
      constexpr uint64_t kMaxInlined = uint64_t{1} << 22;
      if (ElementCount(spec->desc.shape) > kMaxInlined) {
        throw InputError(where + ": " + std::to_string(ElementCount(spec->desc.shape)) +
                         " values are too many to write as an array (at most " +
                         std::to_string(kMaxInlined) + ")");
      }
      const Tensor t = DecodeTensorData(data, spec->desc.dataType, spec->desc.shape, where,
                                        c.base_dir);
      std::vector<Value> values;
      values.reserve(static_cast<size_t>(t.element_count()));
      for (uint64_t i = 0; i < t.element_count(); ++i) values.push_back(CanonicalElement(t, i));
      data = Value::Array(std::move(values));
    }
  }
}

}  // namespace

int CommandGenerate(const std::string& in, const std::string& out, uint64_t max_tensor_bytes,
                    const std::string& format, bool inline_data) {
  if (format != "nnref" && format != "wpt") {
    throw InputError("--format: '" + format + "' (choose one of: nnref, wpt)");
  }
  // WPT's harness reads explicit arrays only.
  inline_data = inline_data || format == "wpt";
  CaseFile f = LoadCaseFile(in);
  int problems = 0;
  std::set<std::string> failed;  // cases whose outputs (or inlined inputs) could not be written
  for (const auto& [index, name, message] : f.broken) {
    std::cerr << "error: " << message << "\n";
    ++problems;
  }
  for (Case& c : f.cases) {
    if (c.timeline) continue;  // a timeline case's expectations are its own steps
    try {
      const std::vector<std::string> outputs = RequestedOutputs(c);
      if (c.expected_error) {
        try {
          BuildCaseOnContext(c, outputs, Limits(max_tensor_bytes));
          std::cerr << "error: " << c.Where() << ": expected " << *c.expected_error
                    << " but the graph built\n";
          ++problems;
        } catch (const WebnnError& e) {
          if (ErrorTypeName(e.type()) != *c.expected_error) {
            std::cerr << "error: " << c.Where() << ": expected " << *c.expected_error << ", got "
                      << ErrorTypeName(e.type()) << ": " << e.what() << "\n";
            ++problems;
          }
        }
        continue;
      }
      ApiCase a = BuildCaseOnContext(c, outputs, Limits(max_tensor_bytes));
      const auto values = DispatchCase(a);
      if (inline_data) InlineInputData(c);
      std::vector<std::pair<std::string, Value>> expected;
      for (const std::string& name : outputs)
        expected.emplace_back(name, TensorJson(values.at(name)));
      Value* graph = nullptr;
      for (auto& [k, v] : c.node->members()) {
        if (k == "graph") graph = &v;
      }
      SetMember(*graph, "expectedOutputs", Value::Object(std::move(expected)));
    } catch (const InputError& e) {
      std::cerr << "error: " << e.what() << "\n";
      ++problems;
      failed.insert(c.name);
    } catch (const WebnnError& e) {
      std::cerr << "error: " << c.Where() << ": " << ErrorTypeName(e.type()) << ": " << e.what()
                << "\n";
      ++problems;
      failed.insert(c.name);
    }
  }
  std::ofstream o(out);
  if (!o) throw InputError(out + ": cannot write");
  if (format == "wpt") {
    size_t written = 0;
    o << WptFile(f, in, failed, written);
    std::cout << "wrote " << out << " (" << written << " of " << f.cases.size()
              << " cases; error, timeline and reference-only cases have no WPT conformance form";
  } else {
    o << WriteJson(f.single_case ? f.root->items().front() : *f.root) << "\n";
    std::cout << "wrote " << out << " (" << f.cases.size() << " cases";
  }
  if (problems) std::cout << ", " << problems << " with problems";
  std::cout << ")\n";
  return problems ? 2 : 0;
}

namespace {

// One reference token of a JSON pointer (RFC 6901): "~" -> "~0", "/" -> "~1".
std::string PointerToken(const std::string& key) {
  std::string t;
  for (const char ch : key) {
    if (ch == '~') {
      t += "~0";
    } else if (ch == '/') {
      t += "~1";
    } else {
      t += ch;
    }
  }
  return t;
}

// The error names a result may state: the ECMAScript TypeError and RangeError, and the
// DOMException names of WebIDL's error names table (WebNN throws TypeError and DOMExceptions,
// e.g. DataError, OperationError, NotSupportedError, InvalidStateError).
const std::vector<std::string>& ErrorNames() {
  static const std::vector<std::string> kNames = {
      "TypeError",         "RangeError",           "DataError",          "OperationError",
      "NotSupportedError", "InvalidStateError",    "AbortError",         "UnknownError",
      "NotAllowedError",   "NotFoundError",        "InvalidAccessError", "QuotaExceededError",
      "SecurityError",     "SyntaxError",          "TimeoutError",       "NetworkError",
      "EncodingError",     "NotReadableError",     "ConstraintError",    "DataCloneError",
      "IndexSizeError",    "InvalidCharacterError"};
  return kNames;
}

std::string Join(const std::vector<std::string>& names, const std::string& sep = ", ") {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : sep) + n;
  return s;
}

// The known name closest to `name` by edit distance, if it is close (at most a third of the
// name's length away): the likely intended case of a misspelled result.
std::string Nearest(const std::string& name, const std::map<std::string, bool>& known) {
  std::string best;
  size_t best_d = name.size() / 3 + 1;
  std::vector<size_t> row, prev;
  for (const auto& [k, unused] : known) {
    const size_t diff = k.size() > name.size() ? k.size() - name.size() : name.size() - k.size();
    if (diff >= best_d) continue;
    prev.resize(k.size() + 1);
    row.resize(k.size() + 1);
    for (size_t j = 0; j <= k.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= name.size(); ++i) {
      row[0] = i;
      for (size_t j = 1; j <= k.size(); ++j) {
        row[j] = std::min(
            {prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (name[i - 1] == k[j - 1] ? 0 : 1)});
      }
      std::swap(row, prev);
    }
    if (prev[k.size()] < best_d) {
      best_d = prev[k.size()];
      best = k;
    }
  }
  return best;
}

// One entry of the results file's "cases" array.
struct ResultEntry {
  std::string pointer;  // "/cases/3"
  std::string name;
  const Value* outputs = nullptr;
  std::optional<std::string> error;
  std::string message;
  std::vector<std::pair<std::string, std::string>> findings;  // (pointer, what)
};

std::vector<ResultEntry> ReadResultEntries(const Value& list) {
  std::vector<ResultEntry> entries;
  for (size_t i = 0; i < list.items().size(); ++i) {
    const Value& v = list.items()[i];
    ResultEntry e;
    e.pointer = "/cases/" + std::to_string(i);
    const auto finding = [&](const std::string& pointer, const std::string& what) {
      e.findings.emplace_back(pointer, what);
    };
    if (!v.is_object()) {
      finding(e.pointer,
              "must be an object {\"name\", \"outputs\"} or {\"name\", \"error\"}, not " +
                  v.KindName());
      entries.push_back(std::move(e));
      continue;
    }
    for (const auto& [k, m] : v.members()) {
      const std::string p = e.pointer + "/" + PointerToken(k);
      if (k == "name") {
        if (!m.is_string() || m.str().empty()) {
          finding(p, "must be a non-empty string (the case's name), not " + m.KindName());
        } else {
          e.name = m.str();
        }
      } else if (k == "outputs") {
        if (!m.is_object()) {
          finding(p, "must be an object {OUTPUT: DATA or TENSOR}, not " + m.KindName());
        } else {
          e.outputs = &m;
        }
      } else if (k == "error") {
        if (!m.is_string()) {
          finding(p,
                  "must be a string, the error's name (e.g. \"TypeError\"), not " + m.KindName());
        } else if (std::find(ErrorNames().begin(), ErrorNames().end(), m.str()) ==
                   ErrorNames().end()) {
          finding(p, "'" + m.str() +
                         "' is not an error name (choose one of: " + Join(ErrorNames()) + ")");
        } else {
          e.error = m.str();
        }
      } else if (k == "message") {
        if (!m.is_string()) {
          finding(p, "must be a string, not " + m.KindName());
        } else {
          e.message = m.str();
        }
      } else {
        finding(p, "unknown member (choose one of: name, outputs, error, message)");
      }
    }
    if (!v.Find("name")) finding(e.pointer, "missing 'name' (the case's name)");
    if (v.Find("outputs") && v.Find("error")) {
      finding(e.pointer, "has both 'outputs' and 'error': a result either computed or threw");
    } else if (!v.Find("outputs") && !v.Find("error")) {
      finding(e.pointer,
              "needs 'outputs' (the values computed) or 'error' (the error the implementation "
              "threw)");
    }
    entries.push_back(std::move(e));
  }
  return entries;
}

// Operand names a result may give for a case: its outputs first, then every other operator output
// and input (all of which the reference can compute).
struct CaseOperands {
  std::vector<std::string> outputs, others;
  bool Has(const std::string& n) const {
    return std::find(outputs.begin(), outputs.end(), n) != outputs.end() ||
           std::find(others.begin(), others.end(), n) != others.end();
  }
  std::string Describe() const {
    std::string s = "the case's outputs: " + Join(outputs);
    if (!others.empty()) s += "; its other operands: " + Join(others);
    return s;
  }
};

CaseOperands OperandsOf(const Case& c) {
  CaseOperands o;
  o.outputs = RequestedOutputs(c);
  for (const OperatorSpec& op : c.operators) {
    for (const std::string& n : op.outputs) {
      if (!o.Has(n)) o.others.push_back(n);
    }
  }
  for (const TensorSpec& t : c.inputs) {
    if (!o.Has(t.name)) o.others.push_back(t.name);
  }
  return o;
}

// Judges one case's result (no findings, not a timeline case).
void JudgeResult(const Case& c, const ResultEntry& e, const CheckOptions& opt, CaseResult& r) {
  const std::string said = e.message.empty() ? "" : ": " + e.message;
  if (c.expected_error) {
    if (!e.error) {
      r.verdict = Verdict::kFail;
      r.message = "expected " + *c.expected_error +
                  ", but the result gives outputs (the implementation threw no error)";
    } else if (*e.error != *c.expected_error) {
      r.verdict = Verdict::kFail;
      r.message = "expected " + *c.expected_error + ", the implementation threw " + *e.error + said;
    } else {
      r.message = *e.error + " as expected" + said;
    }
    return;
  }
  if (e.error) {
    r.verdict = Verdict::kFail;
    r.message = "the implementation threw " + *e.error + said +
                "; the case has no expectedError (the reference computes it)";
    return;
  }
  const CaseOperands operands = OperandsOf(c);
  const std::string outs = e.pointer + "/outputs";
  if (e.outputs->members().empty()) {
    r.findings.emplace_back(outs, "is empty: give at least one output (" + operands.Describe() +
                                      "), or 'error' if the implementation threw");
  }
  std::vector<std::string> names;
  for (const auto& [k, v] : e.outputs->members()) {
    const std::string p = outs + "/" + PointerToken(k);
    if (!operands.Has(k)) {
      r.findings.emplace_back(
          p, "the case has no operand named '" + k + "' (" + operands.Describe() + ")");
    } else if (std::find(names.begin(), names.end(), k) != names.end()) {
      r.findings.emplace_back(p, "output '" + k + "' is given twice");
    } else {
      names.push_back(k);
    }
  }
  if (!r.findings.empty()) {
    r.verdict = Verdict::kError;
    return;
  }
  try {
    ApiCase a = BuildCaseOnContext(c, names, Limits(opt.max_tensor_bytes));
    const BuiltCase& b = a.built;
    r.warnings = b.warnings;
    // The reference's values of the operands the outputs' sum bounds read (runner/sum_bound.h),
    // when an output has one: the graph runs once more, observed, before the dispatch takes the
    // input data.
    std::vector<OperandId> outputs;
    for (const std::string& name : names) {
      if (b.named.count(name)) outputs.push_back(b.named.at(name).id);
    }
    const bool derive = opt.tolerances == TolerancePolicy::kDerived && !c.tolerance;
    std::map<uint32_t, OperandValue> kept;
    if (derive) {
      // The derived bounds read every operand's reference value (runner/derived.h).
      b.graph->Compute(b.input_values,
                       [&](OperandId id, const OperandValue& v) { kept[id.value] = v; });
    } else {
      kept = ComputeForSumBounds(*b.graph, outputs, b.input_values);
    }
    const auto values = DispatchCase(a);
    const auto kept_value = [&](OperandId id) -> const OperandValue& { return kept.at(id.value); };
    std::unique_ptr<DerivedGraphBounds> derived;
    if (derive) derived = std::make_unique<DerivedGraphBounds>(*b.graph, kept_value);
    for (const auto& [name, given] : e.outputs->members()) {
      const std::string p = outs + "/" + PointerToken(name);
      const OperandValue& ref = values.at(name);
      OutputResult o;
      o.name = name;
      const OperandId id = b.named.at(name).id;
      const Tolerance table = ToleranceFor(c, b, name);
      const Judgement judged = GraphOutputJudgement(
          derive ? TolerancePolicy::kDerived : TolerancePolicy::kWpt, table,
          derive ? std::vector<double>{} : OutputSumBounds(*b.graph, id, table, kept_value),
          derived.get(), id);
      const Tolerance& tol = judged.tolerance;
      o.tolerance = judged.Describe();
      o.tol_ulp = tol.ulp;
      // Problems of the given value are the results file's.
      try {
        const Value* data = &given;
        OperandDescriptor desc{ref.data.dtype(), ref.data.shape()};
        if (given.is_object() && given.Find("descriptor")) {
          const OperandDescriptor d = DecodeDescriptor(given, p);
          data = given.Find("data");
          if (!data) throw InputError(p + ": missing 'data'");
          if (d != desc) {
            o.cmp.shape_ok = false;
            o.cmp.shape_message =
                "the reference gives " + desc.ToString() + ", the result is " + d.ToString();
          }
        }
        if (o.cmp.shape_ok) {
          const Tensor got =
              DecodeTensorData(*data, desc.dataType, desc.shape, p,
                               std::filesystem::path(opt.actual).parent_path().string());
          o.cmp = CompareTensors(ref.data, got, ref.latitude, tol, opt.max_mismatches,
                                 ref.one_of.get(), ReferenceSide::kExpected, judged.bounds);
          if (!o.cmp.passed() && !opt.dump.empty()) {
            o.dumped = DumpOutput(opt.dump, c.name, name, ref.data, got);
          }
        }
      } catch (const InputError& x) {
        std::string what = x.what();
        if (what.rfind(p, 0) == 0) {
          const size_t colon = what.find(": ", p.size());
          r.findings.emplace_back(what.substr(0, colon),
                                  colon == std::string::npos ? what : what.substr(colon + 2));
        } else {
          r.findings.emplace_back(p, what);
        }
        continue;
      }
      if (!o.cmp.passed()) r.verdict = Verdict::kFail;
      r.outputs.push_back(std::move(o));
    }
    if (!r.findings.empty()) {
      r.verdict = Verdict::kError;
      r.outputs.clear();
    }
  } catch (const InputError& x) {
    r.verdict = Verdict::kError;
    r.message = x.what();
  } catch (const WebnnError& x) {
    r.verdict = Verdict::kError;
    r.message = c.Where() +
                ": the reference rejects the case: " + std::string(ErrorTypeName(x.type())) + ": " +
                x.what();
  }
}

}  // namespace

int CommandCheck(const CheckOptions& opt) {
  // Results: {"cases": [{"name", "outputs": {name: DATA or TENSOR}} or {"name", "error"}]}.
  const std::string& actual_path = opt.actual;
  const Value actual = ReadJsonFile(actual_path);
  const Value* list = actual.Find("cases");
  if (!list || !list->is_array()) {
    throw InputError(actual_path +
                     ": /cases: expected {\"cases\": [{\"name\", \"outputs\" or \"error\"}, ...]}");
  }
  const std::vector<ResultEntry> entries = ReadResultEntries(*list);
  std::map<std::string, std::vector<size_t>> by_name;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!entries[i].name.empty()) by_name[entries[i].name].push_back(i);
  }
  std::vector<std::pair<std::string, CaseFile>> files;
  uint64_t total = 0;
  for (const std::string& file : CollectFiles(opt.paths)) {
    files.emplace_back(file, LoadCaseFile(file));
    for (const auto& [index, name, message] : files.back().second.broken) {
      total += InShard(opt.shard, name);
    }
    for (const Case& c : files.back().second.cases) total += InShard(opt.shard, c.name);
  }
  Collector col(false, total);
  col.summary.tolerances = PolicyName(opt.tolerances);
  const auto add = [&](CaseResult r) { col.Add(std::move(r)); };
  std::map<std::string, bool> known;  // case names of the case files
  for (const auto& [file, f] : files) {
    for (const auto& [index, name, message] : f.broken) {
      known[name] = true;
      if (!InShard(opt.shard, name)) continue;
      add({file, name.empty() ? "#" + std::to_string(index) : name, Verdict::kError, message, {}});
    }
    for (const Case& c : f.cases) {
      known[c.name] = true;
      if (!InShard(opt.shard, c.name)) continue;
      CaseResult r{file, c.name, Verdict::kPass, "", {}};
      r.op = LastOperator(c);
      r.results_file = actual_path;
      const auto it = by_name.find(c.name);
      if (it == by_name.end()) {
        r.verdict = Verdict::kSkip;
        r.skip = "no-result";
        r.message = "no result for this case in " + actual_path;
      } else if (it->second.size() > 1) {
        r.verdict = Verdict::kError;
        for (size_t k = 1; k < it->second.size(); ++k) {
          r.findings.emplace_back(entries[it->second[k]].pointer + "/name",
                                  "the case is given again (first at " +
                                      entries[it->second[0]].pointer + "); give one result a case");
        }
      } else {
        const ResultEntry& e = entries[it->second.front()];
        r.results_pointer = e.pointer;
        if (!e.findings.empty()) {
          r.verdict = Verdict::kError;
          r.findings = e.findings;
        } else if (c.timeline) {
          r.verdict = Verdict::kSkip;
          r.skip = "timeline";
          r.message = "a timeline case has no outputs to check (nnref run checks its steps)";
        } else {
          JudgeResult(c, e, opt, r);
        }
      }
      add(std::move(r));
    }
  }
  // Results for cases the case files do not have: a warning, unless the entry is broken too.
  for (const auto& [name, idx] : by_name) {
    if (known.count(name) || !InShard(opt.shard, name)) continue;
    const std::string nearest = Nearest(name, known);
    for (const size_t i : idx) {
      std::cout << "warning: " << actual_path << ": " << entries[i].pointer
                << "/name: no case named '" << name << "' in the case files given"
                << (nearest.empty() ? "" : " (did you mean '" + nearest + "'?)") << "\n";
    }
  }
  for (const ResultEntry& e : entries) {
    if ((!e.name.empty() && known.count(e.name)) || e.findings.empty()) continue;
    if (!InShard(opt.shard, e.name.empty() ? e.pointer : e.name)) continue;
    CaseResult r{"", e.name.empty() ? "(unnamed)" : e.name, Verdict::kError, "", {}};
    r.results_file = actual_path;
    r.findings = e.findings;
    add(std::move(r));
  }
  col.Finish({opt.report, opt.junit, opt.html});
  const Summary& s = col.summary;
  PrintOperatorTable(s);
  PrintSkips(s);
  PrintSumBound(s, opt.tolerances);
  std::cout << s.Line() << std::endl;
  if (s.errors) return 2;
  return s.failed ? 1 : 0;
}

int CommandTrace(const std::string& file, const std::string& case_name, size_t values,
                 uint64_t max_tensor_bytes) {
  const CaseFile f = LoadCaseFile(file);
  const Case* found = nullptr;
  for (const Case& c : f.cases) {
    if (c.name == case_name) found = &c;
  }
  if (!found) {
    for (const auto& [index, name, message] : f.broken) {
      if (name == case_name) throw InputError(message);
    }
    throw InputError(file + ": no case named '" + case_name + "'");
  }
  const Case& c = *found;
  std::cout << "case " << c.name << " (" << c.file << ")\n";
  if (c.timeline) {  // a timeline case: one line per step
    const TimelineResult t = RunTimeline(c, Limits(max_tensor_bytes), false);
    for (const std::string& line : t.log) std::cout << line << "\n";
    const CaseResult r = RunTimelineCase(c, Limits(max_tensor_bytes), false);
    std::cout << "verdict: " << VerdictName(r.verdict) << "\n";
    PrintResult(r, true);
    return r.verdict == Verdict::kPass ? 0 : r.verdict == Verdict::kError ? 2 : 1;
  }
  BuiltCase b;
  try {
    b = BuildCase(c, RequestedOutputs(c), Limits(max_tensor_bytes));
  } catch (const WebnnError& e) {
    std::cout << "build: " << ErrorTypeName(e.type()) << ": " << e.what() << "\n";
    if (c.expected_error) {
      const bool ok = *c.expected_error == ErrorTypeName(e.type());
      std::cout << (ok ? "as expected" : "expected " + *c.expected_error) << "\n";
      return ok ? 0 : 1;
    }
    return 1;
  }
  size_t step = 0;
  const auto observer = [&](OperandId id, const OperandValue& v) {
    const OperandNode& node = b.graph->operand(id);
    const auto it = b.operand_names.find(id.value);
    const std::string name =
        it != b.operand_names.end() ? it->second : "#" + std::to_string(id.value);
    std::string origin = node.kind == OperandNode::Kind::kInput      ? "input"
                         : node.kind == OperandNode::Kind::kConstant ? "constant"
                                                                     : "";
    if (node.producer >= 0) {
      const OperatorNode& op = b.graph->operators()[static_cast<size_t>(node.producer)];
      origin = std::string(OpName(op.op)) + "(";
      for (size_t k = 0; k < op.inputs.size(); ++k) {
        const auto n = b.operand_names.find(op.inputs[k].value);
        origin +=
            (k ? ", " : "") +
            (n != b.operand_names.end() ? n->second : "#" + std::to_string(op.inputs[k].value));
      }
      origin += ")";
    }
    const uint64_t n = v.data.element_count();
    // Extremes are located by index and printed from the element itself (exact for int64).
    uint64_t nan = 0, inf = 0, open = 0, or_nan = 0, one_of = 0;
    std::optional<uint64_t> lo, hi;
    // Element order by value in the element's own type (exact for 64-bit integers).
    const auto less = [&](uint64_t x, uint64_t y) {
      return DispatchDataType(v.data.dtype(), [&]<typename T>() {
        if constexpr (kIsFloatStorage<T>) {
          return ToDouble(v.data.At<T>(x)) < ToDouble(v.data.At<T>(y));
        } else {
          return v.data.At<T>(x) < v.data.At<T>(y);
        }
      });
    };
    for (uint64_t i = 0; i < n; ++i) {
      if (v.latitude.valid()) {
        const auto l = static_cast<Latitude>(v.latitude.At<uint8_t>(i));
        if (l == Latitude::kAny) ++open;
        if (l == Latitude::kValueOrNaN) ++or_nan;
        if (l == Latitude::kOneOf) ++one_of;
      }
      const double d = ElementAsDouble(v.data, i);
      if (std::isnan(d)) {
        ++nan;
        continue;
      }
      if (std::isinf(d)) ++inf;
      if (!lo || less(i, *lo)) lo = i;
      if (!hi || less(*hi, i)) hi = i;
    }
    std::cout << "[" << step++ << "] " << name << " = " << origin << "\n    "
              << DataTypeName(v.data.dtype()) << ShapeToString(v.data.shape()) << "  min "
              << (lo ? ElementText(v.data, *lo) : "-") << "  max "
              << (hi ? ElementText(v.data, *hi) : "-") << "  NaN " << nan << "  Inf " << inf;
    if (open) std::cout << "  implementation-defined " << open;
    if (or_nan) std::cout << "  value-or-NaN " << or_nan;
    if (one_of) std::cout << "  one-of " << one_of;
    std::cout << "\n    values:";
    for (uint64_t i = 0; i < n && i < values; ++i) std::cout << " " << ElementText(v.data, i);
    if (n > values) std::cout << " ... (" << n << " elements)";
    std::cout << "\n";
  };
  const auto outputs = RunBuiltCase(b, observer);
  if (!c.has_expected_outputs) return 0;
  const CaseResult r = RunCase(c, Limits(max_tensor_bytes));
  std::cout << "verdict: " << VerdictName(r.verdict) << "\n";
  PrintResult(r, true);
  return r.verdict == Verdict::kPass ? 0 : 1;
}

namespace {

// `nnref ops --backend NAME`: per operator, the data types of its first operand the backend
// computes and, for the others, why not.
int BackendOps(bool json, const std::string& name) {
  const std::shared_ptr<const Backend> backend = MakeBackend(name, BackendOptions{1});
  std::vector<Value> rows;
  size_t covered_ops = 0;
  for (const OpInfo& op : Registry()) {
    const TensorLimits& first = op.limits->operands.at(0);
    const DataTypeSet types =
        first.same_as.empty() ? first.types : op.limits->Find(first.same_as)->types;
    std::vector<Value> yes;
    std::vector<std::pair<std::string, Value>> no;
    std::string yes_text;
    std::vector<std::pair<std::string, std::string>> reasons;  // reason -> its data types
    for (DataType t : types.List()) {
      const std::string type_name(DataTypeName(t));
      const std::optional<std::string> why = backend->Unsupported(op.id, t);
      if (!why) {
        yes.push_back(Value::Str(type_name));
        yes_text += (yes_text.empty() ? "" : ", ") + type_name;
        continue;
      }
      no.emplace_back(type_name, Value::Str(*why));
      auto it = std::find_if(reasons.begin(), reasons.end(),
                             [&](const auto& r) { return r.first == *why; });
      if (it == reasons.end()) {
        reasons.emplace_back(*why, type_name);
      } else {
        it->second += ", " + type_name;
      }
    }
    std::string no_text;
    for (const auto& [why, names] : reasons) {
      no_text += (no_text.empty() ? "" : "; ") + why + ": " + names;
    }
    if (!yes.empty()) ++covered_ops;
    if (json) {
      rows.push_back(Value::Object({{"op", Value::Str(std::string(op.name))},
                                    {"dataTypes", Value::Array(std::move(yes))},
                                    {"unsupported", Value::Object(std::move(no))}}));
    } else {
      std::cout << op.name << ": " << (yes_text.empty() ? "-" : yes_text);
      if (!no_text.empty()) std::cout << "  (" << no_text << ")";
      std::cout << "\n";
    }
  }
  if (json) {
    std::cout << WriteJson(Value::Object({{"backend", Value::Str(name)},
                                          {"describe", Value::Str(backend->Describe())},
                                          {"operators", Value::Array(std::move(rows))}}))
              << "\n";
  } else {
    std::cout << backend->Describe() << ": " << covered_ops << " of " << Registry().size()
              << " operators\n";
  }
  return 0;
}

}  // namespace

int CommandOps(bool json, const std::string& backend) {
  if (backend != "reference") return BackendOps(json, backend);
  if (!json) {
    for (const OpInfo& op : Registry()) {
      std::cout << op.name << "  (" << op.section << ")\n";
      for (const TensorLimits& t : op.limits->operands) {
        const TensorLimits* src = &t;
        if (!t.same_as.empty()) src = op.limits->Find(t.same_as);
        std::cout << "    " << t.operand << ": "
                  << (t.same_as.empty() ? t.types.ToString()
                                        : "same as " + std::string(t.same_as) + " (" +
                                              src->types.ToString() + ")")
                  << "; rank " << t.min_rank << ".." << t.max_rank << "\n";
      }
    }
    std::cout << Registry().size() << " operators\n";
    return 0;
  }
  // opSupportLimits() (§api-mlcontext-opsupportlimits), the same function the library API uses.
  std::cout << WriteJson(OpSupportLimitsValue(OpSupportLimitsFor(BuilderLimits{}))) << "\n";
  return 0;
}

// A row's value for one type: "3", or "3 or 4.76837e-07" when an absolute bound is accepted too.
std::string RowValue(double base, double or_atol) {
  char buf[64];
  if (or_atol > 0) {
    std::snprintf(buf, sizeof buf, "%g or %g", base, or_atol);
  } else {
    std::snprintf(buf, sizeof buf, "%g", base);
  }
  return buf;
}

int CommandTolerance(bool markdown) {
  if (markdown) {
    std::printf(
        "# Default tolerances\n\nGenerated by `build/bin/nnref tolerance --markdown` from "
        "ops/tolerance_table.cc; do not edit by hand (a test checks it).\n\n"
        "| operator | metric | float32 | float16 | per size unit | reason |\n"
        "|---|---|---|---|---|---|\n");
    for (const ToleranceRow& r : DefaultToleranceTable()) {
      const bool either = r.or_atol_float32 > 0 || r.or_atol_float16 > 0;
      const std::string_view name = OpName(r.op);
      std::printf("| %.*s | %s | %s | %s | %g | %.*s |\n", static_cast<int>(name.size()),
                  name.data(),
                  HasSumBound(r.op) ? "ULP or sum bound"
                  : either          ? "ULP or ATOL"
                  : r.metric == ToleranceMetric::kUlp ? "ULP"
                                                      : "ATOL",
                  RowValue(r.float32, r.or_atol_float32).c_str(),
                  RowValue(r.float16, r.or_atol_float16).c_str(), r.per_size,
                  static_cast<int>(r.reason.size()), r.reason.data());
    }
    std::printf(
        "\nInteger outputs are compared exactly. A graph's default tolerance for an output "
        "is the sum of the rows of the operators feeding it; an element passes within "
        "either the ULP or the ATOL bound. When an implementation is judged, the rows marked "
        "\"sum bound\" (sums of products or elements) also pass an element within T * (u * M + "
        "the smallest subnormal) of the expected value, with T the ULP tolerance, u the unit "
        "roundoff of the output type and M the sum of the |terms| (docs/numerics.md, \"The sum "
        "bound\").\n");
    PrintDerivedPolicy(true);
    return 0;
  }
  std::printf("%-16s %-6s %10s %10s %8s  %s\n", "operator", "metric", "float32", "float16",
              "per-size", "reason");
  for (const ToleranceRow& r : DefaultToleranceTable()) {
    const std::string_view name = OpName(r.op);
    std::printf("%-16.*s %-6s %10s %10s %8g  %.*s\n", static_cast<int>(name.size()), name.data(),
                HasSumBound(r.op)                   ? "ULP+S"
                : r.metric == ToleranceMetric::kUlp ? "ULP"
                                                    : "ATOL",
                RowValue(r.float32, r.or_atol_float32).c_str(),
                RowValue(r.float16, r.or_atol_float16).c_str(), r.per_size,
                static_cast<int>(r.reason.size()), r.reason.data());
  }
  std::printf(
      "Integer outputs are compared exactly. A graph's default tolerance for an output is\n"
      "the sum of the rows of the operators feeding it; an element passes within either\n"
      "the ULP or the ATOL bound. ULP+S: the sum bound applies too when an implementation\n"
      "is judged (docs/numerics.md, \"The sum bound\").\n");
  PrintDerivedPolicy(false);
  return 0;
}

}  // namespace nnref

namespace nnref {

// docs/operator-coverage.md: every registered operator, its allowed input data types, and the
// types the case corpus exercises (by the first input of each operator node in each case).
int CommandCoverage(const std::vector<std::string>& paths) {
  std::map<OpId, std::map<DataType, int>> covered;
  std::map<std::string, int> error_cases;
  for (const std::string& file : CollectFiles(paths)) {
    const CaseFile f = LoadCaseFile(file);
    if (!f.broken.empty()) throw InputError(std::get<2>(f.broken.front()));
    for (const Case& c : f.cases) {
      if (c.timeline) continue;  // coverage counts graph cases
      if (c.expected_error) {
        for (const OperatorSpec& op : c.operators) ++error_cases[op.name];
        continue;
      }
      BuiltCase b;
      try {
        b = BuildCase(c, RequestedOutputs(c));
      } catch (const WebnnError& e) {
        throw InputError(c.Where() + ": does not build: " + std::string(ErrorTypeName(e.type())) +
                         ": " + e.what());
      }
      for (const OperatorNode& node : b.graph->operators()) {
        const DataType t =
            b.graph->operand(node.inputs.empty() ? node.outputs[0] : node.inputs[0]).desc.dataType;
        ++covered[node.op][t];
      }
    }
  }
  std::cout << "# Operator coverage\n\n"
               "Generated by `build/bin/nnref coverage cases/` from the operator registry "
               "(ops/op_list.inc) and the case corpus; do not edit by hand (a test checks it).\n\n"
               "| operator | spec section | allowed input types | covered by cases | cases | "
               "error cases |\n|---|---|---|---|---|---|\n";
  for (const OpInfo& op : Registry()) {
    const TensorLimits& first = op.limits->operands.front();
    std::string types;
    int cases = 0;
    bool all = true;
    for (DataType t : first.types.List()) {
      const int n = covered[op.id][t];
      cases += n;
      if (n == 0) all = false;
      if (n == 0) continue;
      if (!types.empty()) types += ", ";
      types += DataTypeName(t);
    }
    std::cout << "| " << op.name << " | " << op.section << " | " << first.types.ToString() << " | "
              << (all             ? "all"
                  : types.empty() ? "**none**"
                                  : types + " (**partial**)")
              << " | " << cases << " | " << error_cases[std::string(op.name)] << " |\n";
  }
  return 0;
}

namespace {
Value Count(uint64_t v) {
  Number n;
  n.d = static_cast<double>(v);
  n.u = v;
  n.i = static_cast<int64_t>(v);
  return Value::Num(n);
}
}  // namespace

int CommandDevices(bool json) {
  std::string why;
  const std::optional<std::vector<VulkanDeviceReport>> devices = ListVulkanDevices(why);
  if (!devices || devices->empty()) {
    std::cerr << "nnref devices: " << (devices ? std::string("no Vulkan device") : why) << "\n";
    return 4;
  }
  if (json) {
    std::vector<Value> rows;
    for (size_t i = 0; i < devices->size(); ++i) {
      const VulkanDeviceReport& d = (*devices)[i];
      rows.push_back(Value::Object({
          {"index", Count(i)},
          {"name", Value::Str(d.name)},
          {"type", Value::Str(d.type)},
          {"driver", Value::Str(d.driver)},
          {"apiVersion", Value::Str(d.api_version)},
          {"shaderFloat16", Value::Bool(d.shader_float16)},
          {"storageBuffer16BitAccess", Value::Bool(d.storage_buffer_16bit)},
          {"storageBuffer8BitAccess", Value::Bool(d.storage_buffer_8bit)},
          {"shaderInt8", Value::Bool(d.shader_int8)},
          {"shaderInt64", Value::Bool(d.shader_int64)},
          {"shaderFloat64", Value::Bool(d.shader_float64)},
          {"subgroupSize", Count(d.subgroup_size)},
          {"maxStorageBufferRange", Count(d.max_storage_buffer_range)},
          {"unifiedMemory", Value::Bool(d.unified_memory)},
      }));
    }
    std::cout << WriteJson(Value::Object({{"devices", Value::Array(std::move(rows))}})) << "\n";
    return 0;
  }
  auto yes = [](bool b) { return b ? "yes" : "no"; };
  for (size_t i = 0; i < devices->size(); ++i) {
    const VulkanDeviceReport& d = (*devices)[i];
    std::cout << "device " << i << ": " << d.name << "\n"
              << "  type: " << d.type << "\n"
              << "  driver: " << d.driver << "\n"
              << "  API version: " << d.api_version << "\n"
              << "  shaderFloat16: " << yes(d.shader_float16) << "\n"
              << "  storageBuffer16BitAccess: " << yes(d.storage_buffer_16bit) << "\n"
              << "  storageBuffer8BitAccess: " << yes(d.storage_buffer_8bit) << "\n"
              << "  shaderInt8: " << yes(d.shader_int8) << "\n"
              << "  shaderInt64: " << yes(d.shader_int64) << "\n"
              << "  shaderFloat64: " << yes(d.shader_float64) << "\n"
              << "  subgroupSize: " << d.subgroup_size << "\n"
              << "  maxStorageBufferRange: " << d.max_storage_buffer_range << "\n"
              << "  unified memory (device-local, host-visible): " << yes(d.unified_memory) << "\n";
  }
  return 0;
}

}  // namespace nnref
