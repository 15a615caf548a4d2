#include "runner/judge.h"

#include <utility>

#include "runner/dump.h"
#include "runner/sum_bound.h"

namespace nnref {

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

Tolerance ExactTolerance() {
  Tolerance t = Tolerance::Ulp(0, "--exact: bit-exact, signed zeros included");
  t.sign_exact = true;
  return t;
}

OutputResult JudgeOutput(const JudgeOptions& options, const std::string& name,
                         const Judgement& judged, const Tensor& expected, const Tensor& actual,
                         const OperandValue& reference, ReferenceSide side) {
  OutputResult o;
  o.name = name;
  // --exact overrides every rule, the bounds included.
  Judgement exact;
  exact.tolerance = ExactTolerance();
  const Judgement& rule = options.exact ? exact : judged;
  o.tolerance = rule.Describe();
  o.tol_ulp = rule.tolerance.ulp;
  o.cmp = CompareTensors(expected, actual, reference.latitude, rule.tolerance, options.max_reported,
                         reference.one_of.get(), side, rule.bounds, rule.overflow);
  if (!o.cmp.passed() && !options.dump.empty()) {
    o.dumped = DumpOutput(options.dump, options.case_name, name, expected, actual);
  }
  return o;
}

Judgement OutputRule(const Graph& graph, OperandId id, const Tolerance& table, bool sum_bounds,
                     DerivedGraphBounds* derived,
                     const std::function<const OperandValue&(OperandId)>& value_of) {
  std::vector<double> bounds;
  if (sum_bounds) bounds = OutputSumBounds(graph, id, table, value_of);
  return GraphOutputJudgement(derived ? TolerancePolicy::kDerived : TolerancePolicy::kWpt, table,
                              std::move(bounds), derived, id);
}

OutputResult ShapeMismatch(const std::string& name, const Judgement& judged, std::string what) {
  OutputResult o;
  o.name = name;
  o.tolerance = judged.Describe();
  o.tol_ulp = judged.tolerance.ulp;
  o.cmp.shape_ok = false;
  o.cmp.shape_message = std::move(what);
  return o;
}

}  // namespace nnref
