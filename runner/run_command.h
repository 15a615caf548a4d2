// Running a case, for nnref run (runner/run_command.cc) and nnref trace: RunCase and
// RunTimelineCase. Internal to the commands; formerly in commands.cc.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "ops/backend.h"
#include "ref/graph/graph.h"
#include "runner/case.h"
#include "runner/derived.h"
#include "runner/judge.h"
#include "runner/results.h"

namespace nnref {

// How a case is computed: on the reference (backend null) or on a backend, optionally checked
// operator by operator against the reference.
struct Engine {
  std::shared_ptr<const Backend> backend;
  bool against_reference = false;
  TolerancePolicy policy = TolerancePolicy::kDerived;  // --tolerances
  size_t max_mismatches = 5;  // mismatch samples kept per output (--max-mismatches)
  std::string dump;           // --dump DIR
};

// Runs a timeline case (runner/timeline.h): each readTensor comparison is one output.
CaseResult RunTimelineCase(const Case& c, const BuilderLimits& limits, const JudgeOptions& judge,
                           std::shared_ptr<const Backend> backend = nullptr);

// Runs a case against its expectedOutputs (or expectedError). Graph cases are built on a context
// and computed with createTensor, writeTensor, dispatch and readTensor (runner/api_case.h).
CaseResult RunCase(const Case& c, const BuilderLimits& limits, bool exact = false,
                   const Engine& engine = {});

}  // namespace nnref
