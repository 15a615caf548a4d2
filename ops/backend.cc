#include "ops/backend.h"

#include <set>

namespace nnref {

std::optional<BackendGraph> CompileForBackend(const Graph& graph,
                                              std::shared_ptr<const Backend> backend,
                                              std::string& why) {
  BackendGraph compiled{backend, {}};
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
  return compiled;
}

}  // namespace nnref
