// Random valid WebNN graphs for `nnref fuzz` (docs/fuzzing.md).
//
// A graph is generated operator by operator: a builder method is picked, its arguments are drawn
// (operands from the graph so far or new inputs and constants, shapes with broadcasting, options),
// and the call is made on the reference's own GraphBuilder through the registry (the case
// runner's AddCaseOperator). What the builder rejects is dropped and counted, so every graph that
// comes out is valid by the spec's own steps. Input data is drawn to exercise numerics (wide
// ranges, kinks, subnormals, large magnitudes, cancelling sums, ties), not only uniform values.
//
// Everything is a function of the seed: the generator draws from splitmix64 (runner/data.h) with
// its own integer and real mappings, never from <random>'s distributions (whose output differs
// between standard libraries).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ref/graph/graph.h"
#include "ref/tensor/tensor.h"
#include "ref/value.h"

namespace nnref::fuzz {

// A graph input (input() or constant()) with its data.
struct FuzzTensor {
  std::string name;
  OperandDescriptor desc;
  bool constant = false;
  Tensor data;
};

// One builder call as the case format writes it.
struct FuzzOp {
  std::string name;  // builder method
  std::vector<std::pair<std::string, Value>> args;
  std::vector<std::string> outputs;
};

struct FuzzGraph {
  std::vector<FuzzTensor> inputs;
  std::vector<FuzzOp> ops;
};

struct GenOptions {
  size_t max_ops = 30;            // 1..max_ops operators per graph
  uint64_t max_elements = 2048;   // per operand
  std::vector<std::string> only;  // methods to generate (empty: every generated one)
  // When set, the data types the target computes for a method's first operand (the backend's
  // Unsupported()): the others are not drawn for it.
  std::function<bool(const std::string& method, DataType type)> supported;
};

// What the generator tried, by method: attempts (argument sets drawn) and accepted (built).
struct GenStats {
  std::map<std::string, std::pair<uint64_t, uint64_t>> by_op;  // method -> (attempts, accepted)
  uint64_t attempts() const;
  uint64_t accepted() const;
};

// The builder methods the generator draws arguments for, and those it does not (with why).
const std::vector<std::string>& GeneratedMethods();
const std::vector<std::pair<std::string, std::string>>& NotGeneratedMethods();

// A random valid graph of 1..max_ops operators (fewer when the attempts run out); a function of
// `seed` and `options` alone.
FuzzGraph GenerateGraph(uint64_t seed, const GenOptions& options, GenStats* stats = nullptr);

// The graph as a case of the corpus format (docs/case-format.md): graph.inputs with inline data
// and graph.operators; `extra` members are appended to the case object (seed, failure, ...).
Value CaseValue(const FuzzGraph& g, const std::string& name,
                std::vector<std::pair<std::string, Value>> extra = {});

// The names of the operator outputs no later operator consumes (the outputs of the case).
std::vector<std::string> UnconsumedOutputs(const FuzzGraph& g);

}  // namespace nnref::fuzz
