// The nnref subcommands, independent of the command-line parser (main.cc holds CLI11).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nnref {

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
  std::string inject_fault;           // --inject-fault OP:ELEMENT:VALUE (test hook)
};

int CommandRun(const RunOptions& o);
int CommandGenerate(const std::string& in, const std::string& out, uint64_t max_tensor_bytes);
int CommandCheck(const std::vector<std::string>& cases, const std::string& actual,
                 const std::string& report, uint64_t max_tensor_bytes);
int CommandTrace(const std::string& file, const std::string& case_name, size_t values,
                 uint64_t max_tensor_bytes);
int CommandOps(bool json, const std::string& backend = "reference");
int CommandTolerance(bool markdown = false);
int CommandCoverage(const std::vector<std::string>& paths);

}  // namespace nnref
