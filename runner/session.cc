#include "runner/session.h"

#include <set>
#include <utility>

#include "ref/error.h"
#include "runner/execute.h"
#include "runner/sum_bound.h"

namespace nnref {

CaseSession::CaseSession(const Case& c, std::vector<std::string> outputs, SessionOptions options)
    : case_(c), options_(std::move(options)) {
  try {
    api_ = BuildCaseOnContext(c, outputs, options_.limits, options_.backend);
  } catch (const WebnnError& e) {
    if (!options_.backend || e.type() != ErrorType::kOperationError) throw;
    // build() step 19: the conversion for the backend failed. The same case on the reference's
    // context tells a spec error (thrown again here) from an operator the backend lacks.
    api_ = BuildCaseOnContext(c, outputs, options_.limits);
    std::string why = e.what();
    const std::string prefix = "build: ";
    if (why.rfind(prefix, 0) == 0) why = why.substr(prefix.size());
    unsupported_ = why;
    return;
  }
  const JudgeOptions& j = options_.judge;
  derive_ = j.policy == TolerancePolicy::kDerived && !j.exact && !c.tolerance;
  sum_bounds_ = !j.exact && (options_.backend != nullptr || options_.judging_other);
}

void CaseSession::Run() {
  if (unsupported_) throw InputError("internal: CaseSession::Run on an unsupported case");
  const Graph& graph = *api_.built.graph;
  // The operands the bounds read: every one for the derived bounds and the check mode, else
  // those of the outputs' sum bounds.
  const bool keep_all = derive_ || (options_.backend && options_.against_reference);
  std::set<uint32_t> keep;
  if (!keep_all && sum_bounds_) {
    for (const std::string& name : api_.built.output_names) {
      for (OperandId in : SumBoundOperands(graph, api_.built.named.at(name).id)) {
        keep.insert(in.value);
      }
    }
  }
  const auto observe = [this, keep_all, &keep](OperandId id, const OperandValue& v) {
    if (keep_all || keep.count(id.value)) kept_[id.value] = v;
  };
  if (!options_.backend) {
    // The reference computes the outputs: one observed dispatch.
    values_ = DispatchCase(api_, keep_all || !keep.empty() ? observe : ExecutionObserver{});
  } else {
    // The reference first, on the inputs the dispatch then hands to the backend's tensors.
    const std::map<std::string, OperandValue> reference =
        graph.Compute(api_.built.input_values, observe);
    if (options_.against_reference) {
      check_ = CheckAgainstReference(graph, *api_.graph.backend_kernels(), kept_,
                                     options_.judge.max_reported, options_.judge.policy);
    }
    values_ = DispatchCase(api_);
    for (auto& [name, v] : values_) {
      const OperandValue& ref = reference.at(name);
      v.latitude = ref.latitude;
      v.one_of = ref.one_of;
    }
  }
  if (derive_) {
    derived_ = std::make_unique<DerivedGraphBounds>(
        graph, [this](OperandId id) -> const OperandValue& { return kept_.at(id.value); });
  }
}

Judgement CaseSession::Rule(const std::string& name) {
  const BuiltCase& b = api_.built;
  const OperandId id = b.named.at(name).id;
  Judgement judged;
  if (options_.judge.exact) {
    judged.tolerance = ExactTolerance();
    return judged;
  }
  return OutputRule(*b.graph, id, ToleranceFor(case_, b, name), sum_bounds_, derived_.get(),
                    [this](OperandId o) -> const OperandValue& { return kept_.at(o.value); });
}

OutputResult CaseSession::Judge(const std::string& name, const OperandDescriptor& other_desc,
                                const std::function<Tensor()>& decode_other) {
  const Judgement judged = Rule(name);
  const OperandValue& computed = values_.at(name);
  const OperandDescriptor desc = api_.built.graph->output_descriptor(name);
  if (options_.judging_other) {
    if (other_desc != desc) {
      return ShapeMismatch(
          name, judged,
          "the reference gives " + desc.ToString() + ", the result is " + other_desc.ToString());
    }
    return JudgeOutput(options_.judge, name, judged, computed.data, decode_other(), computed,
                       ReferenceSide::kExpected);
  }
  if (other_desc != desc) {
    return ShapeMismatch(
        name, judged,
        "the case expects " + other_desc.ToString() + " but the operator gives " + desc.ToString());
  }
  return JudgeOutput(options_.judge, name, judged, decode_other(), computed.data, computed,
                     options_.backend ? ReferenceSide::kNeither : ReferenceSide::kActual);
}

}  // namespace nnref
