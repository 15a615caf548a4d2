// libFuzzer target: bytes as the results file of `nnref check --actual` for a fixed case file
// (every data type, a multi-output operator, an expected error), judged as `check` judges it.
// Only InputError may escape CommandCheck; anything else is a bug.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <string>

#include "ref/error.h"
#include "runner/commands.h"

namespace {

const char kCases[] = R"({"cases": [
 {"name": "f32", "graph": {"inputs": {"x": {"data": [1, -2, 3.5, 0], "descriptor": {"shape": [2, 2], "dataType": "float32"}}},
  "operators": [{"name": "relu", "arguments": [{"input": "x"}], "outputs": "y"}],
  "expectedOutputs": {"y": {"data": [1, 0, 3.5, 0], "descriptor": {"shape": [2, 2], "dataType": "float32"}}}}},
 {"name": "f16", "graph": {"inputs": {"x": {"data": [1, 2, 3], "descriptor": {"shape": [3], "dataType": "float16"}}},
  "operators": [{"name": "split", "arguments": [{"input": "x"}, {"splits": [1, 2]}], "outputs": ["a", "b"]}],
  "expectedOutputs": {"a": {"data": [1], "descriptor": {"shape": [1], "dataType": "float16"}},
                      "b": {"data": [2, 3], "descriptor": {"shape": [2], "dataType": "float16"}}}}},
 {"name": "i64", "graph": {"inputs": {"x": {"data": [5, -7], "descriptor": {"shape": [2], "dataType": "int64"}}},
  "operators": [{"name": "argMax", "arguments": [{"input": "x"}, {"axis": 0}], "outputs": "y"}],
  "expectedOutputs": {"y": {"data": 0, "descriptor": {"shape": [], "dataType": "int32"}}}}},
 {"name": "u8", "graph": {"inputs": {"x": {"data": [0, 1], "descriptor": {"shape": [2], "dataType": "uint8"}}},
  "operators": [{"name": "logicalNot", "arguments": [{"input": "x"}], "outputs": "y"}],
  "expectedOutputs": {"y": {"data": [1, 0], "descriptor": {"shape": [2], "dataType": "uint8"}}}}},
 {"name": "err", "expectedError": "TypeError", "graph": {"inputs": {"x": {"data": [1], "descriptor": {"shape": [1], "dataType": "int32"}}},
  "operators": [{"name": "exp", "arguments": [{"input": "x"}], "outputs": "y"}]}}
]})";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nnref;
  static const std::string dir = "/tmp/nnref_results_fuzzer." + std::to_string(getpid());
  static const bool written = [] {
    std::ofstream(dir + ".cases.json") << kCases;
    return true;
  }();
  (void)written;
  {
    std::ofstream out(dir + ".results.json", std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  CheckOptions o;
  o.paths = {dir + ".cases.json"};
  o.actual = dir + ".results.json";
  std::streambuf* saved = std::cout.rdbuf(nullptr);  // check's report is not the point
  try {
    CommandCheck(o);
  } catch (const InputError&) {
  }
  std::cout.rdbuf(saved);
  std::cout.clear();
  return 0;
}
