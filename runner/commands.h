// The nnref subcommands, independent of the command-line parser (main.cc holds CLI11). Each is
// defined in a file of its own (runner/run_command.cc, runner/check_command.cc, ...).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/backend.h"
#include "runner/derived.h"

namespace nnref {

// --shard K/N: run only the cases of part K (1..N) of N disjoint parts.
struct Shard {
  uint64_t index = 1, count = 1;
};
// "K/N" with 1 <= K <= N; throws InputError otherwise.
Shard ParseShard(const std::string& text);

// Report files written at the end of run and check.
struct ReportFiles {
  std::string report;  // --report FILE (JSON)
  std::string junit;   // --junit FILE (JUnit XML)
  std::string html;    // --html FILE (a self-contained page)
};

struct RunOptions {
  std::vector<std::string> paths;
  std::vector<std::string> filters;  // substrings of case names (any matches)
  std::vector<std::string> labels;   // required labels (all must be present)
  std::string report;                // --report FILE
  bool verbose = false;
  bool exact = false;  // compare bit-exactly (0 ULP) instead of with the case tolerance
  uint64_t max_tensor_bytes = uint64_t{1} << 31;
  std::string backend = "reference";  // --backend: "reference" or a name of runner/backends.h
  bool against_reference = false;     // --against-reference: every operand vs the reference
  unsigned threads = 0;               // --threads (reference and backends): 0 = every core
  int device = -1;                    // --device N (vulkan): -1 = the first device
  std::string inject_fault;           // --inject-fault OP:ELEMENT:VALUE (test hook)
  size_t max_mismatches = 5;          // --max-mismatches: samples kept per output
  bool per_operator = false;          // --per-operator: print the per-operator table
  std::string dump;                   // --dump DIR: .npy tensors of failing outputs
  std::string junit;                  // --junit FILE
  std::string html;                   // --html FILE
  Shard shard;                        // --shard K/N
  TolerancePolicy tolerances = TolerancePolicy::kDerived;  // --tolerances
  // --allow-unavailable-backend: a backend that cannot run gives skips, not exit 2
  bool allow_unavailable_backend = false;
  // --vulkan-arithmetic exact|native (the vulkan backend's arithmetic mode)
  Arithmetic arithmetic = Arithmetic::kExact;
};

struct CheckOptions {
  std::vector<std::string> paths;  // case files or directories
  std::string actual;              // --actual RESULTS.json
  std::string report;              // --report FILE
  uint64_t max_tensor_bytes = uint64_t{1} << 31;
  size_t max_mismatches = 10;  // --max-mismatches
  std::string dump;            // --dump DIR: .npy tensors of failing outputs
  std::string junit;           // --junit FILE
  std::string html;            // --html FILE
  Shard shard;                 // --shard K/N
  TolerancePolicy tolerances = TolerancePolicy::kDerived;  // --tolerances
};

// --max-mismatches: a count or "all"; throws InputError otherwise.
size_t ParseMaxMismatches(const std::string& text);

int CommandRun(const RunOptions& o);
// format "nnref" (the case file, completed) or "wpt" (a WPT conformance test .https.any.js file).
// `inline_data` (always on for wpt): graph inputs given by a data form (random, range, fill,
// npy) are written as explicit arrays.
int CommandGenerate(const std::string& in, const std::string& out, uint64_t max_tensor_bytes,
                    const std::string& format = "nnref", bool inline_data = false);
int CommandCheck(const CheckOptions& o);
int CommandTrace(const std::string& file, const std::string& case_name, size_t values,
                 uint64_t max_tensor_bytes);
int CommandOps(bool json, const std::string& backend = "reference");
int CommandTolerance(bool markdown = false);
// `nnref devices`: the Vulkan devices; exit code 4 when there is no loader or no device.
int CommandDevices(bool json);
// Merges the JSON reports of shards (--shard K/N) into one: the cases of all, the summary and the
// per-operator table recomputed. A case in two reports is an error (overlapping shards).
int CommandMergeReports(const std::vector<std::string>& reports, const std::string& output);
int CommandCoverage(const std::vector<std::string>& paths);

}  // namespace nnref
