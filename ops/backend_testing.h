// Test helper for the backends' unit tests (ops/simd, ops/vulkan): one graph whose output is built
// by `make` from inputs of the given tensors, compiled for a backend and computed. Test code only
// (it uses doctest's REQUIRE).
#pragma once

#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ops/backend.h"
#include "ref/graph/graph.h"

namespace nnref {

// Builds the output operand from the graph's inputs ("in0", "in1", ...).
using MakeOperand = std::function<Operand(GraphBuilder&, const std::vector<Operand>&)>;

// The output "out" of the graph `make` builds, computed one kernel at a time with `backend`'s
// kernels (the backend must cover every operator: a refusal fails the test with its reason).
inline Tensor RunOn(const std::shared_ptr<const Backend>& backend,
                    const std::vector<Tensor>& inputs, const MakeOperand& make) {
  GraphBuilder builder;
  std::vector<Operand> operands;
  std::map<std::string, Tensor> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = "in" + std::to_string(i);
    operands.push_back(builder.Input(name, {inputs[i].dtype(), inputs[i].shape()}));
    feeds[name] = inputs[i];
  }
  const std::shared_ptr<const Graph> graph = builder.Build({{"out", make(builder, operands)}});
  std::string why;
  const std::optional<BackendGraph> compiled = CompileForBackend(*graph, backend, why);
  REQUIRE_MESSAGE(compiled, why);
  return graph->Compute(feeds, {}, compiled->kernels).at("out").data;
}

}  // namespace nnref
