// nnref trace: prints every operand of one case as it is computed.
#include <cmath>
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>

#include "numerics/dtype.h"
#include "ref/error.h"
#include "ref/graph/op_id.h"
#include "runner/case.h"
#include "runner/commands.h"
#include "runner/data.h"
#include "runner/execute.h"
#include "runner/results.h"
#include "runner/run_command.h"
#include "runner/timeline.h"

namespace nnref {

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
    const TimelineResult t = RunTimeline(c, Limits(max_tensor_bytes), JudgeOptions{});
    for (const std::string& line : t.log) std::cout << line << "\n";
    const CaseResult r = RunTimelineCase(c, Limits(max_tensor_bytes), JudgeOptions{});
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

}  // namespace nnref
