#include "runner/backend_check.h"

#include "ops/tolerance_table.h"
#include "ref/error.h"
#include "runner/derived.h"
#include "runner/judge.h"
#include "runner/sum_bound.h"

namespace nnref {

Tolerance OperatorTolerance(const Graph& graph, size_t index, size_t output) {
  const OperatorNode& node = graph.operators()[index];
  if (IsInteger(graph.operand(node.outputs[output]).desc.dataType)) {
    return Tolerance::Ulp(0, "integer output: exact");
  }
  const std::optional<Tolerance> t = DefaultTolerance(node.tolerance);
  if (!t)
    throw InputError("internal: no default tolerance row for operator " +
                     std::string(OpName(node.op)));
  return *t;
}

BackendCheck CheckAgainstReference(const Graph& graph, const BackendGraph& kernels,
                                   const std::map<std::string, Tensor>& inputs,
                                   size_t max_reported) {
  return CheckAgainstReference(graph, kernels, inputs, max_reported, TolerancePolicy::kWpt);
}

BackendCheck CheckAgainstReference(const Graph& graph, const BackendGraph& kernels,
                                   const std::map<std::string, Tensor>& inputs, size_t max_reported,
                                   TolerancePolicy policy) {
  std::map<uint32_t, OperandValue> reference;
  graph.Compute(inputs, [&](OperandId id, const OperandValue& v) { reference[id.value] = v; });
  return CheckAgainstReference(graph, kernels, std::move(reference), max_reported, policy);
}

BackendCheck CheckAgainstReference(const Graph& graph, const BackendGraph& kernels,
                                   std::map<uint32_t, OperandValue> reference, size_t max_reported,
                                   TolerancePolicy policy) {
  BackendCheck check;
  check.reference = std::move(reference);
  JudgeOptions options;
  options.policy = policy;
  options.max_reported = max_reported;
  for (size_t index = 0; index < graph.operators().size(); ++index) {
    const OperatorNode& node = graph.operators()[index];
    std::vector<const OperandValue*> in;
    for (OperandId id : node.inputs) in.push_back(&check.reference.at(id.value));
    const std::vector<OperandValue> got =
        graph.RunOperator(index, in, kernels.kernels[index].get());
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      const OperandValue& want = check.reference.at(node.outputs[k].value);
      OperatorCheck oc;
      oc.index = index;
      oc.op = node.op;
      oc.label = node.label;
      oc.output = k;
      oc.operand = node.outputs[k];
      std::vector<OperandValue> ref_out;
      for (OperandId out : node.outputs) ref_out.push_back(check.reference.at(out.value));
      // Sums judged by their terms too (wpt: runner/sum_bound.h, the operator's own row on the
      // reference's inputs) or the derived bounds.
      const Judgement judged = OperatorJudgement(policy, graph, index, k, in, ref_out);
      const Tensor& data = got.at(k).data;
      const OutputResult judgement =
          data.dtype() != want.data.dtype() || data.shape() != want.data.shape()
              ? ShapeMismatch(
                    "", judged,
                    "the backend gives " +
                        OperandDescriptor{data.dtype(), data.shape()}.ToString() + " instead of " +
                        OperandDescriptor{want.data.dtype(), want.data.shape()}.ToString())
              : JudgeOutput(options, "", judged, want.data, data, want, ReferenceSide::kExpected);
      oc.tolerance = judgement.tolerance;
      oc.cmp = judgement.cmp;
      if (!oc.cmp.passed() && !check.first_divergence) {
        check.first_divergence = check.operators.size();
      }
      check.operators.push_back(std::move(oc));
    }
  }
  return check;
}

}  // namespace nnref
