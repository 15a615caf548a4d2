// One graph case, one way through: built once on an MLContext, computed once by the reference
// (keeping the operand values the tolerance bounds read), and once by a backend through the
// context's own backend option (MLContextOptions::backend), then each output handed to the judge
// (runner/judge.h). `nnref run`, `check` and the check mode (--against-reference) use it.
//
//   reference context:  dispatch, observed -> the outputs, and the operands the bounds read
//   backend context:    the reference's Graph::Compute, observed -> the outputs' latitude, the
//                       operands the bounds read (all of them for the check mode, which then runs
//                       each backend kernel alone on them); dispatch -> the backend's outputs
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ops/backend.h"
#include "ref/graph/graph.h"
#include "runner/api_case.h"
#include "runner/backend_check.h"
#include "runner/case.h"
#include "runner/derived.h"
#include "runner/judge.h"

namespace nnref {

struct SessionOptions {
  BuilderLimits limits;
  std::shared_ptr<const Backend> backend;  // null: the reference computes the outputs
  bool against_reference = false;          // the check mode (with a backend)
  // The outputs are judged against another implementation's values (`check`'s results file), so
  // the sum bounds apply as they do to a backend's outputs. (The reference's own outputs against
  // a case's data are correctly rounded: no sum bounds.)
  bool judging_other = false;
  JudgeOptions judge;
};

class CaseSession {
 public:
  // Builds `c` with outputs `outputs` on a context with the backend. Spec errors propagate as
  // WebnnError, malformed cases as InputError. When the backend cannot convert the graph (build()
  // rejects with OperationError on the backend's context but builds on the reference's),
  // unsupported() says why ("simd: lstm: not implemented") and nothing can be run.
  CaseSession(const Case& c, std::vector<std::string> outputs, SessionOptions options);

  const std::optional<std::string>& unsupported() const { return unsupported_; }
  const BuiltCase& built() const { return api_.built; }

  // Computes the case (once). Then values() holds each output (the backend's when there is one)
  // with the reference's latitude and one-of sets, and check() the check mode's operator table.
  void Run();
  const std::map<std::string, OperandValue>& values() const { return values_; }
  std::optional<BackendCheck>& check() { return check_; }

  // The rule for output `name`: --exact, the case's tolerance, or the policy's (the table row with
  // its sum bounds, or the derived per-element bounds).
  Judgement Rule(const std::string& name);

  // Judges output `name`: `other` is the tensor it is compared with (a case's expected data or an
  // implementation's result), `other_desc` its descriptor as given. The computed output is the
  // reference's (kActual for a case's data, kExpected for a results file) unless a backend
  // computed it (kNeither).
  OutputResult Judge(const std::string& name, const OperandDescriptor& other_desc,
                     const std::function<Tensor()>& decode_other);

 private:
  const Case& case_;
  SessionOptions options_;
  ApiCase api_;
  std::optional<std::string> unsupported_;
  bool derive_ = false;      // the derived bounds judge (every operand's reference value kept)
  bool sum_bounds_ = false;  // the table's sum bounds apply
  std::map<uint32_t, OperandValue> kept_;  // the reference's operand values the bounds read
  std::map<std::string, OperandValue> values_;
  std::optional<BackendCheck> check_;
  std::unique_ptr<DerivedGraphBounds> derived_;
};

}  // namespace nnref
