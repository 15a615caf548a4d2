// `nnref nnef`: run an NNEF model folder, check a model, or run NNEF case folders (cases/nnef).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runner/commands.h"

namespace nnref {

struct NnefOptions {
  std::string path;                 // model folder / graph.nnef, or (with `cases`) case folder(s)
  std::vector<std::string> inputs;  // NAME=FILE.dat
  std::string output_dir = ".";     // where the outputs are written (NAME.dat)
  bool check = false;               // parse and validate only; print the flattened graph
  bool cases = false;               // `path` is a case folder or a folder of case folders
  bool trace = false;               // print every tensor as it is computed
  bool verbose = false;             // print passing cases too
  bool strict = false;              // the pure NNEF 1.0.2 grammar (no NNEF-Tools forms)
  size_t values = 8;                // leading values printed per tensor by --trace
  uint64_t max_tensor_bytes = uint64_t{1} << 31;
  // --backend NAME (runner/backends.h): the lowered graph computed with that backend's kernels;
  // "reference" computes with the operators' own kernels. --against-reference: every lowered
  // operator also judged alone against the reference (runner/backend_check.h).
  std::string backend = "reference";
  bool against_reference = false;
  unsigned threads = 0;
  int device = -1;
  std::string inject_fault;  // test hook, as `run --inject-fault` (runner/fault_injection.h)
  // With `cases`: --actual DIR judges another NNEF runtime's outputs instead of computing them
  // on a backend: DIR/<case folder name>/<output>.dat (NNEF tensor files, as `nnref nnef MODEL
  // --output-dir` writes them), or DIR/<case>/error holding the stage the runtime rejected the
  // model at (parse, validate, tensor-file, quant-file, execute). Judged against the reference's
  // outputs under the case's tolerance, as `check --actual` judges WebNN results.
  std::string actual;
  // With `cases`: the report files (--report, --junit, --html) and --shard, as for `run`.
  ReportFiles files;
  Shard shard;
};

// Exit codes: 0 success (every case passed), 1 a case failed, 2 bad input or a case error.
int CommandNnef(const NnefOptions& options);

}  // namespace nnref
