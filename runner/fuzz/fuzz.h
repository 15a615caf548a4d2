// `nnref fuzz` (docs/fuzzing.md): random valid graphs (runner/fuzz/graph_gen.h) run on a backend
// in the check mode (runner/session.h: every operator judged alone against the reference), and a
// shrinker that reduces a diverging graph to a small case file that still diverges.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ops/backend.h"
#include "runner/fuzz/graph_gen.h"

namespace nnref::fuzz {

// What one graph did on the backend.
struct Outcome {
  enum class Kind { kPass, kDiverged, kError, kUnsupported, kDegenerate };
  Kind kind = Kind::kPass;
  // kDiverged: the first operator that left its tolerance (method name and index in the case's
  // operators), or, when every operator stayed within its own, the graph output that left the
  // graph's bound ("output NAME"). kError: the backend's exception. kUnsupported: why.
  // kDegenerate: every output of the graph is NaN or infinite (not counted; see `degenerate`).
  std::string op;
  std::string message;
  // kDiverged: the backend gave NaN or an infinity where the reference did not (an intermediate
  // overflow in the backend's float32 arithmetic, or another formula's special values).
  bool nonfinite = false;
  // Every output of the graph is NaN or infinite on the reference: `nnref fuzz` leaves such
  // graphs out (kDegenerate); the shrinker does not mind.
  bool degenerate = false;
  // Per method: operator checks run and diverged, and the data types of the first inputs.
  std::map<std::string, std::pair<uint64_t, uint64_t>> by_op;
  std::map<std::string, std::set<DataType>> types;
};

// Runs `g` on `backend` in the check mode; with `graph_outputs`, also judges the graph's outputs
// (the backend's whole dispatch) against the reference's under the derived graph bounds.
Outcome Evaluate(const FuzzGraph& g, const std::shared_ptr<const Backend>& backend,
                 bool graph_outputs = false);

// Runs `g` on an external implementation: `command` is run as `COMMAND --out RESULTS CASE` (the
// interface of tools/ort-check/ort_results.mjs) in `dir`, and the graph outputs of its results
// file (the format of `nnref check --actual`) are judged against the reference under the derived
// graph bounds, as `check` judges them. No result for the case: kUnsupported (the runtime cannot
// express the graph), with the last line the command printed on stderr.
Outcome EvaluateExternal(const FuzzGraph& g, const std::string& command, const std::string& dir);

// "diverged matmul", "diverged matmul non-finite", "error": what makes two failures the same.
std::string Signature(const Outcome& o);

// Failure signature: the same failure kind on the same method (and class).
bool SameFailure(const Outcome& a, const Outcome& b);

struct ShrinkStats {
  uint64_t evaluations = 0;
};

// Reduces `g` (whose outcome is `failure`) to a smaller graph with the same failure: operators cut
// (replaced by graph inputs holding the reference's values) or dropped, dimensions halved, values
// replaced by zeros. Stops after `max_evaluations` runs.
FuzzGraph Shrink(const FuzzGraph& g, const Outcome& failure,
                 const std::function<Outcome(const FuzzGraph&)>& evaluate,
                 uint64_t max_evaluations = 400, ShrinkStats* stats = nullptr);

struct FuzzOptions {
  std::string backend = "simd";
  uint64_t seed = 1;
  uint64_t count = 0;  // graphs (0: unlimited, until --seconds)
  double seconds = 0;  // wall-clock limit (0: none)
  std::string out;     // directory for the shrunk cases ("" : not written)
  size_t max_ops = 30;
  std::vector<std::string> only;  // --ops: the methods to generate
  std::string inject_fault;       // --inject-fault OP:ELEMENT:VALUE (test hook)
  unsigned threads = 0;
  int device = -1;
  Arithmetic arithmetic = Arithmetic::kExact;  // --vulkan-arithmetic
  bool no_shrink = false;
  bool graph_outputs = false;  // --graph-outputs: judge the graph outputs too
  bool all_failures = false;   // --all-failures: shrink and write every failure, not the first
                               // of each signature
  bool quiet = false;          // no progress line
  // --emit DIR: write each generated graph as a case file with the reference's expectedOutputs,
  // run nothing (for another runtime: tools/ort-check.sh DIR).
  std::string emit;
  std::vector<std::string> types;  // --types: data types drawn for first operands (all)
  // --external CMD: run each graph on an external implementation instead of a backend
  // (EvaluateExternal); --backend then only names it in the output (e.g. "ort").
  std::string external;
};

// Returns 0 when nothing diverged, 1 when something did, 2 on errors of the command itself.
int CommandFuzz(const FuzzOptions& o);

}  // namespace nnref::fuzz
