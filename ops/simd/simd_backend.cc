#include "ops/simd/simd_backend.h"

#include <array>

#include "ops/simd/family.h"
#include "ops/simd/graph_plan.h"

namespace nnref {

namespace simd {

DataType FirstInputType(const Graph& graph, size_t index) {
  const OperatorNode& node = graph.operators()[index];
  return graph.operand(node.inputs.at(0)).desc.dataType;
}

namespace {

const std::array<const Family*, 20> kFamilies = {
    &kElementwiseFamily,   &kMatmulGemmFamily,   &kConv2dFamily,          &kConvTranspose2dFamily,
    &kPool2dFamily,        &kResample2dFamily,   &kReductionFamily,       &kSoftmaxFamily,
    &kNormalizationFamily, &kQuantizationFamily, &kDataMovementFamily,    &kDataMovementCopyFamily,
    &kIndexingFamily,      &kScatterFamily,      &kArgCumulativeFamily,   &kRnnFamily,
    &kNnefWindowFamily,    &kNnefResampleFamily, &kNnefElementwiseFamily, &kNnefQuantizeFamily};

class SimdBackend final : public Backend {
 public:
  explicit SimdBackend(const BackendOptions& options)
      : config_{std::make_shared<ThreadPool>(options.threads)} {}

  std::string_view name() const override { return "simd"; }

  std::string Describe() const override {
    return std::string("simd (Highway ") + ChosenTargetName() + ", float32 arithmetic, " +
           std::to_string(config_.pool->threads()) + " thread" +
           (config_.pool->threads() == 1 ? "" : "s") + ")";
  }

  std::optional<std::string> Unsupported(OpId op, DataType type) const override {
    for (const Family* f : kFamilies) {
      if (std::optional<std::string> r = f->unsupported(op, type)) {
        if (r->empty()) return std::nullopt;
        return r;
      }
    }
    if (!IsWebnnOp(op)) return std::string(kNnefOnlyOperator);
    return std::string(kNoKernelForOperator);
  }

  std::shared_ptr<const Kernel> MakeKernel(const Graph& graph, size_t index,
                                           std::string& why) const override {
    const OperatorNode& node = graph.operators()[index];
    const DataType type = FirstInputType(graph, index);
    for (const Family* f : kFamilies) {
      std::optional<std::string> r = f->unsupported(node.op, type);
      if (!r) continue;
      if (!r->empty()) {
        why = *r;
        return nullptr;
      }
      return f->make(graph, index, config_, why);
    }
    why = IsWebnnOp(node.op) ? kNoKernelForOperator : kNnefOnlyOperator;
    return nullptr;
  }

  // One plan per compiled graph: intermediates in buffers kept across calls, element-wise
  // operators in place (graph_plan.h).
  std::shared_ptr<const GraphRunner> MakeGraphRunner(
      const Graph& graph, std::span<const std::shared_ptr<const Kernel>> kernels) const override {
    return std::make_shared<GraphPlan>(graph, kernels);
  }

 private:
  Config config_;
};

}  // namespace
}  // namespace simd

std::shared_ptr<const Backend> MakeSimdBackend(const BackendOptions& options) {
  return std::make_shared<simd::SimdBackend>(options);
}

const BackendRegistration& SimdBackendRegistration() {
  static const BackendRegistration registration{"simd", &MakeSimdBackend, "", nullptr};
  return registration;
}

}  // namespace nnref
