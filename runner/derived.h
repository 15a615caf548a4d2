// Tolerance policies (docs/numerics.md, "Policies"): which rule judges an output.
//   wpt      the per-operator table (ops' default rows, the conformance suite's ULP counts with
//            their reasons) plus the sum bound: the verdicts nnref gave before the derived bounds.
//   derived  per-element bounds from each operator's error model (ops/error_model.h), chained
//            through the graph; an operator without a model is judged by its table row, and the
//            verdict says so.
// A case's own tolerance overrides both.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ref/graph/graph.h"
#include "runner/compare.h"

namespace nnref {

enum class TolerancePolicy : uint8_t { kWpt, kDerived };
std::optional<TolerancePolicy> ParseTolerancePolicy(std::string_view name);
const char* PolicyName(TolerancePolicy policy);

// The tolerance and per-element bounds that judge one output.
struct Judgement {
  Tolerance tolerance;
  std::vector<double> bounds;  // empty: the tolerance alone
  TolerancePolicy policy = TolerancePolicy::kWpt;
  // The derived policy fell back to the table for this output (an operator without a model).
  std::string fallback;
  // Derived: 1 for elements where the spec's steps leave the type's range (ErrorModelArgs).
  std::vector<uint8_t> overflow;

  // For reports: "derived bounds (per element)", or the table's tolerance (and, under the
  // derived policy, why the table judged).
  std::string Describe() const;
};

// Operator `index`'s output `output` judged alone on the reference's values of its inputs (the
// check mode, the audit): the operator's table row with its sum bound, or its derived bounds.
Judgement OperatorJudgement(TolerancePolicy policy, const Graph& graph, size_t index,
                            size_t output, std::span<const OperandValue* const> inputs,
                            std::span<const OperandValue> outputs);

// Graph outputs under the derived policy: the error models chained through the operators that
// feed each output, from the reference's values of every operand.
class DerivedGraphBounds {
 public:
  DerivedGraphBounds(const Graph& graph,
                     std::function<const OperandValue&(OperandId)> value_of);
  // The bounds of operand `id`; nullopt (with `why`) when an operator feeding it has no model.
  std::optional<std::vector<double>> For(OperandId id, std::string* why);
  DataType DataTypeOf(OperandId id) const;

 private:
  const Graph& graph_;
  std::function<const OperandValue&(OperandId)> value_of_;
  std::map<uint32_t, std::optional<std::vector<double>>> memo_;
  std::map<uint32_t, std::string> why_;
};

// The judgement of graph output `id` under `policy`: `wpt` is today's (the tolerance given, with
// the sum bounds when `sum_bounds` are given); derived uses DerivedGraphBounds, falling back to
// `wpt` for outputs an operator without a model feeds.
Judgement GraphOutputJudgement(TolerancePolicy policy, const Tolerance& wpt,
                               std::vector<double> sum_bounds, DerivedGraphBounds* derived,
                               OperandId id);

// `nnref tolerance`: the derived policy's stated accuracies and each operator's model, after the
// table (`markdown`: as markdown).
void PrintDerivedPolicy(bool markdown);

}  // namespace nnref
