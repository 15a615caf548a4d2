#include "runner/results.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <string>

#include "ref/error.h"
#include "ref/graph/op_id.h"
#include "runner/report.h"

namespace nnref {

// Skip reason codes and their text (the summary counts skips per code).
const std::vector<std::pair<std::string, std::string>>& SkipReasons() {
  static const std::vector<std::pair<std::string, std::string>> kReasons = {
      {"no-result", "the results file has no result for the case"},
      {"backend-unsupported", "the backend lacks an operator or data type of the graph"},
      {"backend-unavailable",
       "the backend cannot run at all (see the backend: line; --allow-unavailable-backend)"},
      {"filtered", "excluded by the name/label filter"},
      {"reference-only", "the case checks a property of the reference alone (referenceOnly)"},
      {"timeline", "a timeline case has no outputs to check (nnref run checks its steps)"},
  };
  return kReasons;
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
    if (m.flushed_subnormal) detail += "; a subnormal flushed to zero";
    if (m.step_overflow) detail += "; the spec's steps overflow the type here";
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

// Prints a case's verdict and details (nothing for a pass or skip unless verbose).
void PrintResult(const CaseResult& r, bool verbose, std::ostream& out) {
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
    if (o.cmp.flushed_subnormals) {
      // nnref keeps subnormals (docs/numerics.md); a device that may flush them says so on the
      // backend line (vulkan: "float32 subnormals may be flushed to zero").
      out << "; " << o.cmp.flushed_subnormals
          << " of them a subnormal against zero (flushed subnormals: the spec's arithmetic keeps "
             "them)";
    }
    if (o.cmp.step_overflows) {
      // The derived policy's stated rejection (docs/numerics.md): computing the spec's steps in
      // the operand type overflows where WebNN's result is finite.
      out << "; " << o.cmp.step_overflows
          << " of them an infinity where the spec's steps overflow the type and the result is "
             "finite (an intermediate overflow: WebNN's result is the finite one)";
    }
    if (o.cmp.one_of_accepted) {
      out << "; " << o.cmp.one_of_accepted << " accepted as another value of their set";
    }
    if (o.cmp.sum_bound_accepted) {
      out << "; " << o.cmp.sum_bound_accepted
          << (o.tolerance.rfind("derived", 0) == 0 ? " within their bound"
                                                   : " within the sum bound");
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

BuilderLimits Limits(uint64_t max_bytes) {
  BuilderLimits l;
  l.max_tensor_byte_length = max_bytes;
  return l;
}

Collector::Collector(bool verbose, uint64_t total) : verbose_(verbose), total_(total) {
  tty_ = isatty(STDOUT_FILENO) != 0;
  if (const char* ms = std::getenv("NNREF_PROGRESS_AFTER_MS")) delay_ms_ = std::atol(ms);
  start_ = last_ = std::chrono::steady_clock::now();
}

void Collector::Add(CaseResult r) {
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

void Collector::Finish(const ReportFiles& files) {
  ClearProgress();
  if (!files.report.empty()) WriteReport(files.report, summary, results);
  if (!files.junit.empty()) WriteJunit(files.junit, summary, results);
  if (!files.html.empty()) WriteHtml(files.html, summary, results);
}

void Collector::ClearProgress() {
  if (!shown_) return;
  std::cout << "\r\033[K" << std::flush;
  shown_ = false;
}

void Collector::ShowProgress(std::chrono::steady_clock::time_point now) {
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

}  // namespace nnref
