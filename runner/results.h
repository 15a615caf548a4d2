// Case results and their summary, shared by the commands that judge cases (run, check, trace and
// merge-reports): the verdicts, the per-operator table, the printed lines, the shards and the
// Collector that prints and counts the results and writes the report files (runner/report.h).
// Internal to the commands (runner/commands.h is the public list); formerly in commands.cc.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ref/graph/graph.h"
#include "runner/backend_check.h"
#include "runner/case.h"
#include "runner/commands.h"
#include "runner/compare.h"
#include "runner/derived.h"
#include "runner/judge.h"

namespace nnref {

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
const std::vector<std::pair<std::string, std::string>>& SkipReasons();

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
  // The backend's description (Backend::Describe: device, what it promises); empty: reference.
  std::string backend;
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

// An operand of a case's graph by its name in the case ('x'), else its id (#3).
std::string OperandName(const CaseResult& r, OperandId id);
// "operator INDEX OP [label 'LABEL'] -> OPERAND", for the --against-reference lines.
std::string OperatorName(const CaseResult& r, const OperatorCheck& oc);
// The mismatch samples of a comparison, a line each.
std::string MismatchLines(const Comparison& c);
// The operator a case counts under in the per-operator table: the last one of its graph.
std::string LastOperator(const Case& c);

// Prints a case's verdict and details (nothing for a pass or skip unless verbose).
void PrintResult(const CaseResult& r, bool verbose, std::ostream& out = std::cout);
// --against-reference: the first divergence, then one line per operator.
void PrintCheck(const CaseResult& r, bool verbose, std::ostream& out);
// How many output elements passed by the sum bound alone (docs/numerics.md, "The sum bound").
void PrintSumBound(const Summary& s, TolerancePolicy policy);
// The skip counts per reason code; backend skips also per missing operator.
void PrintSkips(const Summary& s);
// The per-operator table: cases by verdict and the error distances over the compared elements.
void PrintOperatorTable(const Summary& s);

// --shard K/N: whether the case named `name` belongs to shard K (by the hash of its name).
bool InShard(const Shard& shard, const std::string& name);
// The builder limits of --max-tensor-bytes.
BuilderLimits Limits(uint64_t max_bytes);

// Collects, prints and counts case results; on a terminal, a progress line once the run takes
// longer than a second (NNREF_PROGRESS_AFTER_MS changes the delay: a test hook).
class Collector {
 public:
  Collector(bool verbose, uint64_t total);
  void Add(CaseResult r);
  // Clears the progress line and writes the report files asked for.
  void Finish(const ReportFiles& files);
  Summary summary;
  std::vector<CaseResult> results;

 private:
  void ClearProgress();
  void ShowProgress(std::chrono::steady_clock::time_point now);
  bool verbose_;
  uint64_t total_, done_ = 0, failed_ = 0;
  bool tty_ = false, shown_ = false, ever_shown_ = false;
  long delay_ms_ = 1000;
  std::chrono::steady_clock::time_point start_, last_, shown_at_;
};

}  // namespace nnref
