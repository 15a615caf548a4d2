// nnref merge-reports: merges the JSON reports of shards (--shard K/N) into one.
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ref/error.h"
#include "ref/value.h"
#include "runner/commands.h"
#include "runner/json.h"
#include "runner/report.h"
#include "runner/results.h"

namespace nnref {

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

}  // namespace nnref
