// nnref: verdicts through the library API. A C++ test harness that embeds nnref judges another
// implementation's outputs of an MLGraph the way `nnref check` judges a results file: the
// reference computes the graph on the same inputs, and each given output is compared with the
// reference's under a tolerance policy (docs/numerics.md, "Tolerance policies"):
//   kDerived  per-element bounds from each operator's error model, chained through the graph
//   kWpt      the conformance suite's per-operator ULP rows with the sum bound
// The same judge as the command line (runner/judge.h). Library nnref_verdict (nnref::verdict).
#pragma once

#include <map>
#include <string>

#include "ref/tensor/tensor.h"
#include "runner/api/webnn.h"
#include "runner/compare.h"
#include "runner/derived.h"

namespace nnref::webnn {

struct OutputVerdict {
  nnref::Comparison comparison;  // element counts, max ULP and absolute error, first mismatches
  std::string tolerance;         // the rule that judged ("derived bounds (per element)", ...)
  bool passed() const { return comparison.passed(); }
};

// Judges `outputs` (an implementation's values of some outputs of `graph`, by output name) for
// `inputs` (every graph input, by name). Each output's descriptor must match the graph's (else a
// failed verdict that says so). Throws nnref::InputError when an output or input name is unknown
// or an input is missing. Elements the spec leaves open are not compared (OperandValue::latitude).
std::map<std::string, OutputVerdict> JudgeOutputs(
    const Graph& graph, const std::map<std::string, nnref::Tensor>& inputs,
    const std::map<std::string, nnref::Tensor>& outputs,
    nnref::TolerancePolicy policy = nnref::TolerancePolicy::kDerived);

}  // namespace nnref::webnn
