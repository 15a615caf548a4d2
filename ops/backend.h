// Backends: kernel sets other than the reference for graphs the builder already validated.
//
// A backend reads each operator node of a built Graph (its method name, operand descriptors and
// the validated attributes of OperatorNode::attributes) and makes its own Kernel for it, or says
// why it cannot ("lstm not implemented", "float16 not supported"), before any work is done (the
// VK-GL-CTS "not supported" verdict). The reference kernels are the nodes' own `kernel`s; they
// know nothing of backends, and backends (ops/simd/, ...) depend on ops/, never the reverse.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "numerics/dtype.h"
#include "ref/graph/graph.h"

namespace nnref {

struct BackendOptions {
  unsigned threads = 0;  // worker threads for one kernel; 0 = every core of the machine
  int device = -1;       // device index for backends with devices (vulkan); -1 = the first
};

class Backend {
 public:
  virtual ~Backend() = default;
  // The name used on the command line and in reports ("simd").
  virtual std::string_view name() const = 0;
  // A one-line description: what it computes with, which SIMD target it picked, ...
  virtual std::string Describe() const = 0;
  // Why the backend has no kernel for `op` with inputs of `type` (nullopt: it has one). Used for
  // `nnref ops --backend`; MakeKernel may still refuse a particular node (e.g. a layout).
  virtual std::optional<std::string> Unsupported(OpId op, DataType type) const = 0;
  // The kernel for operator `index` of `graph`, or null with `why` set when there is none.
  virtual std::shared_ptr<const Kernel> MakeKernel(const Graph& graph, size_t index,
                                                   std::string& why) const = 0;
};

// A graph compiled for a backend: one kernel per operator of the graph, in order.
struct BackendGraph {
  std::shared_ptr<const Backend> backend;
  std::vector<std::shared_ptr<const Kernel>> kernels;
};

// The backend's kernels for every operator of `graph`. When one is missing the result has no
// kernels and `why` names the backend, the operator and the reason ("simd: lstm: not
// implemented"); every missing operator is named once.
std::optional<BackendGraph> CompileForBackend(const Graph& graph,
                                              std::shared_ptr<const Backend> backend,
                                              std::string& why);

}  // namespace nnref
