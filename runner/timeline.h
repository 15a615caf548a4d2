// Running timeline cases (docs/case-format.md "Timeline cases"): the script of a case
// (runner/timeline_script.h, decoded with the case file) is run through the library API
// (runner/api/webnn.h) step by step; each step's expected spec error is checked, and the data of
// each readTensor with `expected` is judged like any output (runner/judge.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ops/backend.h"
#include "ref/graph/graph.h"
#include "runner/case.h"
#include "runner/judge.h"

namespace nnref {

struct TimelineResult {
  Verdict verdict = Verdict::kPass;  // pass, fail or error (a malformed step)
  std::string message;
  std::vector<OutputResult> outputs;  // one per judged read: "timeline[7] readTensor C"
  std::vector<std::string> warnings;
  std::vector<std::string> log;  // one line per step, for `nnref trace`
};

// Runs the script of timeline case `c`: contexts are created with `limits`; reads are judged with
// `judge` (its `exact` is run --exact). `backend` (null: the reference) computes every context's
// graphs (MLContextOptions::backend).
TimelineResult RunTimeline(const Case& c, const BuilderLimits& limits, const JudgeOptions& judge,
                           std::shared_ptr<const Backend> backend = nullptr);

}  // namespace nnref
