// nnref run: runs case files and compares with their expected outputs.
#include "runner/run_command.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ref/error.h"
#include "ref/parallel/parallel.h"
#include "runner/api_case.h"
#include "runner/backend_check.h"
#include "runner/backends.h"
#include "runner/case.h"
#include "runner/commands.h"
#include "runner/compare.h"
#include "runner/data.h"
#include "runner/derived.h"
#include "runner/dump.h"
#include "runner/execute.h"
#include "runner/fault_injection.h"
#include "runner/results.h"
#include "runner/session.h"
#include "runner/sum_bound.h"
#include "runner/timeline.h"

namespace nnref {

// Runs a timeline case (runner/timeline.h): each readTensor comparison is one output.
CaseResult RunTimelineCase(const Case& c, const BuilderLimits& limits, const JudgeOptions& judge,
                           std::shared_ptr<const Backend> backend) {
  TimelineResult t = RunTimeline(c, limits, judge, std::move(backend));
  CaseResult r{c.file, c.name, t.verdict, std::move(t.message), std::move(t.outputs)};
  r.op = LastOperator(c);
  r.warnings = std::move(t.warnings);
  return r;
}

// Runs a case against its expectedOutputs (or expectedError). Graph cases are built on a context
// and computed with createTensor, writeTensor, dispatch and readTensor (runner/api_case.h).
CaseResult RunCase(const Case& c, const BuilderLimits& limits, bool exact, const Engine& engine) {
  if (c.timeline && engine.backend) {
    // A timeline case exercises the backend's context: with the backend unable to run
    // (--allow-unavailable-backend), it is a skip like every graph case, not a failed build.
    if (const std::optional<std::string> why = engine.backend->Unavailable()) {
      CaseResult r{c.file, c.name, Verdict::kSkip, *why, {}};
      r.skip = "backend-unavailable";
      r.op = LastOperator(c);
      return r;
    }
  }
  if (c.timeline) {
    return RunTimelineCase(c, limits,
                           {engine.policy, exact, engine.max_mismatches, engine.dump, c.name},
                           engine.backend);
  }
  if (engine.backend && c.reference_only) {
    CaseResult r{c.file, c.name, Verdict::kSkip, "reference-only case: " + *c.reference_only, {}};
    r.skip = "reference-only";
    r.op = LastOperator(c);
    return r;
  }
  CaseResult r{c.file, c.name, Verdict::kPass, "", {}};
  r.op = LastOperator(c);
  try {
    const std::vector<std::string> outputs = RequestedOutputs(c);
    if (c.expected_error) {
      try {
        BuildCaseOnContext(c, outputs, limits);
      } catch (const WebnnError& e) {
        const std::string got(ErrorTypeName(e.type()));
        if (got == *c.expected_error) {
          r.message = got + ": " + e.what();
        } else {
          r.verdict = Verdict::kFail;
          r.message = "expected " + *c.expected_error + ", got " + got + ": " + e.what();
        }
        return r;
      }
      r.verdict = Verdict::kFail;
      r.message = "expected " + *c.expected_error + ", but the graph built without error";
      return r;
    }
    if (!c.has_expected_outputs) {
      r.verdict = Verdict::kError;
      r.message = c.Where() + ": no expectedOutputs to compare with (nnref generate fills them)";
      return r;
    }
    SessionOptions options;
    options.limits = limits;
    options.backend = engine.backend;
    options.against_reference = engine.against_reference;
    options.judge = {engine.policy, exact, engine.max_mismatches, engine.dump, c.name};
    std::optional<CaseSession> session;
    try {
      session.emplace(c, outputs, options);
    } catch (const WebnnError& e) {
      r.verdict = Verdict::kError;
      r.message = c.Where() + ": unexpected " + std::string(ErrorTypeName(e.type())) +
                  " while building: " + e.what();
      return r;
    }
    const BuiltCase& b = session->built();
    r.warnings = b.warnings;
    if (session->unsupported()) {
      r.verdict = Verdict::kSkip;
      r.skip = engine.backend && engine.backend->Unavailable() ? "backend-unavailable"
                                                               : "backend-unsupported";
      r.message = *session->unsupported();
      return r;
    }
    session->Run();
    if (session->check()) {
      r.check = std::move(session->check());
      r.graph = b.graph;
      r.operand_names = b.operand_names;
    }
    for (const TensorSpec& exp : c.expected_outputs) {
      const std::string field = c.Where() + ": graph.expectedOutputs." + exp.name;
      if (!exp.data) throw InputError(field + ": missing 'data'");
      // The expected data's size is checked against its descriptor before decoding (hostile
      // shapes are caught when the case is read).
      OutputResult o = session->Judge(exp.name, exp.desc, [&] {
        return DecodeTensorData(*exp.data, exp.desc.dataType, exp.desc.shape, field + ".data",
                                c.base_dir);
      });
      if (!o.cmp.passed()) r.verdict = Verdict::kFail;
      r.outputs.push_back(std::move(o));
    }
    if (r.check && r.check->first_divergence && r.verdict == Verdict::kPass) {
      // The outputs stayed within the case tolerance, but an operator left its own.
      r.verdict = Verdict::kFail;
      r.message = "an operator left its tolerance (see the operator table)";
    }
  } catch (const InputError& e) {
    r.verdict = Verdict::kError;
    r.message = e.what();
    r.outputs.clear();
  } catch (const WebnnError& e) {
    r.verdict = Verdict::kError;
    r.message =
        c.Where() + ": unexpected " + std::string(ErrorTypeName(e.type())) + ": " + e.what();
  }
  return r;
}

namespace {

bool Selected(const Case& c, const RunOptions& o) {
  if (!o.filters.empty()) {
    bool any = false;
    for (const std::string& f : o.filters) any = any || c.name.find(f) != std::string::npos;
    if (!any) return false;
  }
  for (const std::string& l : o.labels) {
    if (std::find(c.labels.begin(), c.labels.end(), l) == c.labels.end()) return false;
  }
  return true;
}

}  // namespace

int CommandRun(const RunOptions& o) {
  SetReferenceThreads(o.threads);  // the reference kernels (and data decoding) use them too
  Engine engine;
  if (o.backend != "reference") {
    BackendOptions options;
    options.threads = o.threads;
    options.device = o.device;
    engine.backend = MakeBackend(o.backend, options);
    // A backend that cannot run is an error, not a run of skips that exits 0 (a CI machine that
    // lost its device would stay green); --allow-unavailable-backend opts in to the skips.
    if (const std::optional<std::string> why = engine.backend->Unavailable()) {
      if (!o.allow_unavailable_backend) {
        throw InputError("--backend " + o.backend + " cannot run: " + *why +
                         "\n(--allow-unavailable-backend runs anyway, every graph case a "
                         "'backend-unavailable' skip)");
      }
    }
    if (!o.inject_fault.empty()) {
      engine.backend = MakeFaultInjectingBackend(engine.backend, o.inject_fault);
    }
    std::cout << "backend: " << engine.backend->Describe() << "\n";
  } else if (o.against_reference) {
    throw InputError("--against-reference needs --backend NAME (a backend to compare)");
  }
  engine.against_reference = o.against_reference;
  engine.policy = o.tolerances;
  engine.max_mismatches = o.max_mismatches;
  engine.dump = o.dump;
  // Every file is loaded first: the progress line needs the total.
  std::vector<std::pair<std::string, CaseFile>> files;
  std::vector<CaseResult> unreadable;
  uint64_t total = 0;
  for (const std::string& file : CollectFiles(o.paths)) {
    try {
      files.emplace_back(file, LoadCaseFile(file));
    } catch (const InputError& e) {
      if (InShard(o.shard, file))
        unreadable.push_back({file, "(whole file)", Verdict::kError, e.what(), {}});
      continue;
    }
    for (const auto& [index, name, message] : files.back().second.broken)
      total += InShard(o.shard, name);
    for (const Case& c : files.back().second.cases) total += InShard(o.shard, c.name);
  }
  Collector col(o.verbose, total + unreadable.size());
  col.summary.tolerances = PolicyName(o.tolerances);
  if (engine.backend) col.summary.backend = engine.backend->Describe();
  for (CaseResult& r : unreadable) col.Add(std::move(r));
  uint64_t implementation_defined = 0;
  for (const auto& [file, f] : files) {
    for (const auto& [index, name, message] : f.broken) {
      if (!InShard(o.shard, name)) continue;
      col.Add(
          {file, name.empty() ? "#" + std::to_string(index) : name, Verdict::kError, message, {}});
    }
    for (const Case& c : f.cases) {
      if (!InShard(o.shard, c.name)) continue;
      CaseResult r;
      if (!Selected(c, o)) {
        r = {file, c.name, Verdict::kSkip, "excluded by the name/label filter", {}};
        r.skip = "filtered";
        r.op = LastOperator(c);
      } else {
        r = RunCase(c, Limits(o.max_tensor_bytes), o.exact, engine);
      }
      for (const OutputResult& out : r.outputs)
        implementation_defined += out.cmp.implementation_defined;
      col.Add(std::move(r));
    }
  }
  col.Finish({o.report, o.junit, o.html});
  const Summary& s = col.summary;
  if (o.per_operator) PrintOperatorTable(s);
  PrintSkips(s);
  if (implementation_defined) {
    std::cout << implementation_defined
              << " implementation-defined elements were not compared (the spec leaves them open)\n";
  }
  PrintSumBound(s, o.tolerances);
  std::cout << s.Line() << std::endl;
  if (s.errors) return 2;
  return s.failed ? 1 : 0;
}

}  // namespace nnref
