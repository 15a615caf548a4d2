// nnref check: judges another implementation's outputs (a results file) against the reference.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ref/error.h"
#include "ref/value.h"
#include "runner/api_case.h"
#include "runner/case.h"
#include "runner/commands.h"
#include "runner/compare.h"
#include "runner/data.h"
#include "runner/derived.h"
#include "runner/dump.h"
#include "runner/execute.h"
#include "runner/json.h"
#include "runner/results.h"
#include "runner/session.h"
#include "runner/sum_bound.h"

namespace nnref {

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
    SessionOptions options;
    options.limits = Limits(opt.max_tensor_bytes);
    options.judging_other = true;
    options.judge = {opt.tolerances, false, opt.max_mismatches, opt.dump, c.name};
    CaseSession session(c, names, options);
    r.warnings = session.built().warnings;
    session.Run();
    for (const auto& [name, given] : e.outputs->members()) {
      const std::string p = outs + "/" + PointerToken(name);
      const OperandValue& ref = session.values().at(name);
      OutputResult o;
      // Problems of the given value are the results file's.
      try {
        const Value* data = &given;
        OperandDescriptor desc{ref.data.dtype(), ref.data.shape()};
        if (given.is_object() && given.Find("descriptor")) {
          desc = DecodeDescriptor(given, p);
          data = given.Find("data");
          if (!data) throw InputError(p + ": missing 'data'");
        }
        o = session.Judge(name, desc, [&] {
          return DecodeTensorData(*data, desc.dataType, desc.shape, p,
                                  std::filesystem::path(opt.actual).parent_path().string());
        });
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

}  // namespace nnref
