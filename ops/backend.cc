#include "ops/backend.h"

#include <set>

#include "ops/registry.h"

namespace nnref {

std::optional<BackendGraph> CompileForBackend(const Graph& graph,
                                              std::shared_ptr<const Backend> backend,
                                              std::string& why) {
  BackendGraph compiled{backend, {}, nullptr};
  std::set<std::string> missing;
  why.clear();
  for (size_t i = 0; i < graph.operators().size(); ++i) {
    std::string reason;
    std::shared_ptr<const Kernel> kernel = backend->MakeKernel(graph, i, reason);
    if (!kernel) {
      const std::string what = std::string(OpName(graph.operators()[i].op)) + ": " +
                               (reason.empty() ? std::string("not implemented") : reason);
      if (missing.insert(what).second) why += (why.empty() ? "" : "; ") + what;
    }
    compiled.kernels.push_back(std::move(kernel));
  }
  if (!missing.empty()) {
    why = std::string(backend->name()) + ": " + why;
    return std::nullopt;
  }
  compiled.runner = backend->MakeGraphRunner(graph, compiled.kernels);
  return compiled;
}

std::map<std::string, OperandValue> ComputeOnBackend(const Graph& graph,
                                                     const BackendGraph& compiled,
                                                     const std::map<std::string, Tensor>& inputs) {
  if (compiled.runner) return compiled.runner->Compute(graph, inputs);
  return graph.Compute(inputs, {}, compiled.kernels);
}

std::vector<std::string> CoverageGaps(const Backend& backend) {
  std::vector<std::string> gaps;
  auto ask = [&](OpId op, DataType type) {
    const std::optional<std::string> why = backend.Unsupported(op, type);
    if (!why) return;  // a kernel
    const std::string what = std::string(OpName(op)) + " " + std::string(DataTypeName(type));
    if (why->empty()) {
      gaps.push_back(what + ": no kernel and an empty reason");
    } else if (*why == kNoKernelForOperator) {
      gaps.push_back(what + ": no kernel and no reason (no part of the backend claims it)");
    }
  };
  for (const OpInfo& op : Registry()) {
    const TensorLimits& first = op.limits->operands.at(0);
    const DataTypeSet types =
        first.same_as.empty() ? first.types : op.limits->Find(first.same_as)->types;
    for (DataType t : types.List()) ask(op.id, t);
  }
  for (size_t i = kOpCount; i < kOpIdCount; ++i) ask(static_cast<OpId>(i), DataType::kFloat32);
  return gaps;
}

}  // namespace nnref
