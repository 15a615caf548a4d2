// The report files of run and check: the JSON report (merge-reports writes one too), the JUnit
// XML file and the self-contained HTML page. Internal to the commands; formerly in commands.cc.
#pragma once

#include <string>
#include <vector>

#include "ref/value.h"
#include "runner/results.h"

namespace nnref {

// A JSON number; a non-finite one as the string "NaN", "Infinity" or "-Infinity".
Value Num(double d);

// --report FILE: the summary, the per-operator table and an entry per case.
void WriteReport(const std::string& path, const Summary& s, const std::vector<CaseResult>& results);
// The report file: the summary, the per-operator table and the cases' entries.
void WriteReportValues(const std::string& path, const Summary& s, std::vector<Value> cases);
// --junit FILE: one <testsuite> per case file, one <testcase> per case.
void WriteJunit(const std::string& path, const Summary& s, const std::vector<CaseResult>& results);
// --html FILE: one self-contained page (the summary, the per-operator table and histograms, the
// failing cases).
void WriteHtml(const std::string& path, const Summary& s, const std::vector<CaseResult>& results);

}  // namespace nnref
