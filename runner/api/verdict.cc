#include "runner/api/verdict.h"

#include <memory>
#include <set>
#include <utility>

#include "ops/tolerance_table.h"
#include "ref/error.h"
#include "runner/judge.h"
#include "runner/sum_bound.h"

namespace nnref::webnn {

std::map<std::string, OutputVerdict> JudgeOutputs(
    const Graph& graph, const std::map<std::string, nnref::Tensor>& inputs,
    const std::map<std::string, nnref::Tensor>& outputs, nnref::TolerancePolicy policy) {
  const std::shared_ptr<const nnref::Graph> g = graph.implementation();
  std::map<std::string, OperandId> ids;
  for (const auto& [name, id] : g->outputs()) ids[name] = id;
  for (const auto& [name, tensor] : outputs) {
    if (!ids.count(name)) {
      std::string list;
      for (const auto& [known, id] : ids) list += (list.empty() ? "" : ", ") + known;
      throw nnref::InputError("JudgeOutputs: the graph has no output named '" + name +
                              "' (outputs: " + list + ")");
    }
  }
  // The reference once, keeping what the bounds read: every operand for the derived bounds, the
  // sum bounds' operands otherwise.
  const bool derive = policy == nnref::TolerancePolicy::kDerived;
  std::set<uint32_t> keep;
  if (!derive) {
    for (const auto& [name, tensor] : outputs) {
      for (OperandId in : nnref::SumBoundOperands(*g, ids.at(name))) keep.insert(in.value);
    }
  }
  std::map<uint32_t, OperandValue> kept;
  const std::map<std::string, OperandValue> reference =
      g->Compute(inputs, [&](OperandId id, const OperandValue& v) {
        if (derive || keep.count(id.value)) kept[id.value] = v;
      });
  const auto value_of = [&](OperandId id) -> const OperandValue& { return kept.at(id.value); };
  std::unique_ptr<nnref::DerivedGraphBounds> derived;
  if (derive) derived = std::make_unique<nnref::DerivedGraphBounds>(*g, value_of);
  nnref::JudgeOptions options;
  options.policy = policy;
  std::map<std::string, OutputVerdict> verdicts;
  for (const auto& [name, given] : outputs) {
    const OperandId id = ids.at(name);
    const OperandValue& want = reference.at(name);
    // An implementation's results: the sum bounds apply (as for `nnref check`).
    const nnref::Judgement rule = nnref::OutputRule(*g, id, nnref::DefaultToleranceFor(*g, id),
                                                    true, derived.get(), value_of);
    const OperandDescriptor want_desc{want.data.dtype(), want.data.shape()};
    const OperandDescriptor given_desc{given.dtype(), given.shape()};
    const nnref::OutputResult r =
        want_desc != given_desc
            ? nnref::ShapeMismatch(name, rule,
                                   "the reference gives " + want_desc.ToString() +
                                       ", the result is " + given_desc.ToString())
            : nnref::JudgeOutput(options, name, rule, want.data, given, want,
                                 nnref::ReferenceSide::kExpected);
    verdicts[name] = OutputVerdict{r.cmp, r.tolerance};
  }
  return verdicts;
}

}  // namespace nnref::webnn
