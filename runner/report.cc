#include "runner/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "ref/error.h"
#include "ref/graph/op_id.h"
#include "runner/json.h"

namespace nnref {

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

namespace {

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
  if (c.flushed_subnormals) {
    m.emplace_back("flushedSubnormals", Num(static_cast<double>(c.flushed_subnormals)));
  }
  if (c.step_overflows) {
    m.emplace_back("stepOverflows", Num(static_cast<double>(c.step_overflows)));
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

}  // namespace

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
  if (!s.backend.empty()) summary.emplace_back("backend", Value::Str(s.backend));
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

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

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

}  // namespace nnref
