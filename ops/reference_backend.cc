#include "ops/reference_backend.h"

namespace nnref {

namespace {

class ReferenceBackend final : public Backend {
 public:
  std::string_view name() const override { return "reference"; }

  std::string Describe() const override {
    return "reference (the operators' own kernels: exact or correctly rounded, docs/numerics.md)";
  }

  // Every operator the builder accepts has its kernel: the builder attaches it to the node (the
  // operators of runner/nnef attach their own). The data types are those of the operator's
  // limits, which the builder has already enforced.
  std::optional<std::string> Unsupported(OpId, DataType) const override { return std::nullopt; }

  std::shared_ptr<const Kernel> MakeKernel(const Graph& graph, size_t index,
                                           std::string& why) const override {
    const std::shared_ptr<const Kernel>& kernel = graph.operators()[index].kernel;
    if (!kernel) why = "node without a kernel";
    return kernel;
  }
};

}  // namespace

std::shared_ptr<const Backend> MakeReferenceBackend(const BackendOptions&) {
  return std::make_shared<ReferenceBackend>();
}

const BackendRegistration& ReferenceBackendRegistration() {
  static const BackendRegistration registration{"reference", &MakeReferenceBackend, "", nullptr};
  return registration;
}

}  // namespace nnref
