// The judge: one function that judges one output, and the one result type every command reports
// (run, check, the check mode, timeline reads, NNEF cases).
//
// A command decodes the two tensors (a case's expected data, a results file's values, a timeline
// step's `expected`, an NNEF tensor file) and says which of them is the reference's; the judge
// picks the tolerance (--exact, the case's own, the policy's table row with its sum bounds or the
// derived per-element bounds: runner/derived.h), checks descriptors, compares (runner/compare.h)
// and dumps a failing pair (--dump).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "numerics/tolerance.h"
#include "ref/graph/graph.h"
#include "ref/tensor/tensor.h"
#include "runner/compare.h"
#include "runner/derived.h"

namespace nnref {

enum class Verdict { kPass, kFail, kError, kSkip };

const char* VerdictName(Verdict v);

// One judged output.
struct OutputResult {
  std::string name;
  Comparison cmp;
  std::string tolerance;    // Judgement::Describe()
  std::string dumped = {};  // --dump: the path prefix of the .npy files written for it
  double tol_ulp = 0;       // the ULP bound applied (the HTML histograms mark it)
};

// What a command sets once for all the outputs it judges.
struct JudgeOptions {
  TolerancePolicy policy = TolerancePolicy::kDerived;
  bool exact = false;          // --exact: bit-exact, signed zeros included
  size_t max_reported = 5;     // mismatches listed per output
  std::string dump = {};       // --dump DIR: .npy pairs of failing outputs
  std::string case_name = {};  // names the dumped files
};

// The tolerance of --exact.
Tolerance ExactTolerance();

// Judges output `name`: `judged` is the rule (Judge*() below or OperatorJudgement); `reference`
// carries the reference's latitude and one-of sets for its elements, and `side` says which tensor
// is the reference's (runner/compare.h). `expected_desc` and `actual_desc` are checked first: a
// difference is a failed output, with no comparison.
OutputResult JudgeOutput(const JudgeOptions& options, const std::string& name,
                         const Judgement& judged, const Tensor& expected, const Tensor& actual,
                         const OperandValue& reference, ReferenceSide side);

// The rule for graph output `id`: with `derived` (the derived policy), its per-element bounds,
// falling back to `table` for an output that an operator without a model feeds; otherwise
// `table` (a case's tolerance or the operators' rows), with the sum bounds of the output's
// producer when `sum_bounds` (runner/sum_bound.h, reading the reference's values through
// `value_of`).
Judgement OutputRule(const Graph& graph, OperandId id, const Tolerance& table, bool sum_bounds,
                     DerivedGraphBounds* derived,
                     const std::function<const OperandValue&(OperandId)>& value_of);

// The descriptors differ: a failed output that says so (`what` is the sentence).
OutputResult ShapeMismatch(const std::string& name, const Judgement& judged, std::string what);

}  // namespace nnref
