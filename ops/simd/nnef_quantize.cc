// The simd backend's graph.quant quantization of the NNEF group (ops/nnef_quantize.h, NNEF 1.0.2
// chapter 7.1 with the algorithms of 4.9.5 and the tooling): y = quantizer.Apply(x) per element,
// over the backend's strided row driver (map.h, TypedMap: rows split over the thread pool).
//
// The element function is the algorithm's one definition, nnef::Quantizer::Apply (ops/, the
// quantizer the node's attributes carry), not a second formula: a quantization is a step
// function, so an implementation that rounded its quotient differently would move halfway and
// near-halfway inputs a whole step (2^-bits of the range) — a difference no tolerance row judges
// as rounding. Apply decides those cases on the exact quotient and rounds the decoded value once;
// computing it anywhere else is the same arithmetic, so the check mode compares the backend's
// row driver (strided inputs, thread splits) rather than the formula.
#include "ops/nnef_quantize.h"

#include <string>

#include "ops/simd/family.h"
#include "ops/simd/map.h"

namespace nnref::simd {

namespace {

using nnef::QuantizeAttributes;
using nnef::Quantizer;

class QuantizeKernel final : public Kernel {
 public:
  QuantizeKernel(const Quantizer& q, Config config) : q_(q), config_(std::move(config)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Quantizer& q = q_;
    return One(TypedMap<float, float>({&in[0]->data}, out[0], config_,
                                      [&q](float v) { return q.Apply(v); }));
  }

 private:
  Quantizer q_;
  Config config_;
};

std::optional<std::string> Unsupported(OpId op, DataType type) {
  if (op != OpId::nnef_quantize) return std::nullopt;
  if (type != DataType::kFloat32) return std::string(DataTypeName(type)) + " not supported";
  return std::string();
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index, const Config& config,
                                   std::string& why) {
  const auto* a = graph.operators()[index].Attributes<QuantizeAttributes>();
  if (a == nullptr) {
    why = "the node carries no attributes";
    return nullptr;
  }
  return std::make_shared<QuantizeKernel>(a->quantizer, config);
}

}  // namespace

const Family kNnefQuantizeFamily = {Unsupported, Make};

}  // namespace nnref::simd
