#include "runner/sum_bound.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "numerics/cast.h"
#include "ops/activations.h"
#include "ops/matmul_gemm.h"
#include "ops/tolerance_table.h"

namespace nnref {
namespace {

// |t| (or -|t| with `negate`) element by element: a fresh contiguous tensor of t's type and
// shape. Exact.
Tensor Abs(const Tensor& t, bool negate = false) {
  const Tensor dense = t.Contiguous();
  Tensor out = Tensor::Allocate(t.dtype(), t.shape());
  DispatchDataType(t.dtype(), [&]<typename T>() {
    const T* src = dense.base<T>();
    T* dst = out.base<T>();
    for (uint64_t i = 0; i < t.element_count(); ++i) {
      if constexpr (kIsFloatStorage<T>) {
        const double a = std::fabs(ToDouble(src[i]));
        dst[i] = RoundTo<T>(negate ? -a : a);
      } else if constexpr (std::is_signed_v<T>) {
        dst[i] = src[i] < 0 ? static_cast<T>(-src[i]) : src[i];
      } else {
        dst[i] = src[i];
      }
    }
  });
  return out;
}

// Adds |out|'s elements to m (row-major).
void AddMagnitudes(const Tensor& out, std::vector<double>& m) {
  const Tensor dense = out.Contiguous();
  m.resize(out.element_count(), 0.0);
  DispatchDataType(out.dtype(), [&]<typename T>() {
    const T* v = dense.base<T>();
    for (uint64_t i = 0; i < m.size(); ++i) {
      m[i] += std::fabs(ToDouble(v[i]));
    }
  });
}

}  // namespace

std::vector<double> OperatorSumBounds(const Graph& graph, size_t index,
                                      std::span<const OperandValue* const> inputs,
                                      double roundings) {
  const OperatorNode& node = graph.operators()[index];
  const DataType out_type = graph.operand(node.outputs[0]).desc.dataType;
  if (!HasSumBound(node.op) || UnitRoundoff(out_type) == 0 || !(roundings > 0)) return {};
  if (node.op == OpId::linear || node.op == OpId::hardSigmoid) {
    // alpha * x + beta: M = |alpha| |x| + |beta| (hardSigmoid's clamp to [0, 1] is exact).
    double alpha = 0, beta = 0;
    if (const auto* l = node.Attributes<LinearAttributes>()) {
      alpha = l->alpha;
      beta = l->beta;
    } else if (const auto* h = node.Attributes<ActivationAttributes>()) {
      alpha = h->alpha;
      beta = h->beta;
    } else {
      return {};
    }
    std::vector<double> x;
    AddMagnitudes(inputs[0]->data, x);
    std::vector<double> bounds(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const double m = std::fabs(alpha) * x[i] + std::fabs(beta);
      bounds[i] = std::isfinite(m) ? SumBound(out_type, roundings, m) : 0.0;
    }
    return bounds;
  }
  std::vector<OperandValue> abs(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) abs[i].data = Abs(inputs[i]->data);
  std::vector<double> m;
  auto run = [&](const std::vector<OperandValue>& in) {
    std::vector<const OperandValue*> ptrs;
    for (const OperandValue& v : in) ptrs.push_back(&v);
    AddMagnitudes(graph.RunOperator(index, ptrs).at(0).data, m);
  };
  if (node.op == OpId::batchNormalization) {
    // (x - mean) / sqrt(variance + epsilon) * scale + bias on |x|, -|mean|, the variance as it is,
    // |scale| and |bias|: (|x| + |mean|) / sqrt(variance + epsilon) * |scale| + |bias|.
    abs[1].data = Abs(inputs[1]->data, /*negate=*/true);
    abs[2].data = inputs[2]->data;
    run(abs);
  } else if (node.op == OpId::gemm && abs.size() == 3) {
    // alpha * A x B + beta * C with alpha, beta of any signs: the two parts, each on |inputs|
    // (the other one zeroed), are |alpha| (|A| x |B|) and |beta| |C|.
    std::vector<OperandValue> products = abs, addend = abs;
    products[2].data = Tensor::Allocate(abs[2].data.dtype(), abs[2].data.shape());
    addend[0].data = Tensor::Allocate(abs[0].data.dtype(), abs[0].data.shape());
    run(products);
    run(addend);
  } else {
    run(abs);
  }
  std::vector<double> bounds(m.size());
  for (size_t i = 0; i < m.size(); ++i) {
    bounds[i] = std::isfinite(m[i]) ? SumBound(out_type, roundings, m[i]) : 0.0;
  }
  return bounds;
}

std::vector<OperandId> SumBoundOperands(const Graph& graph, OperandId id) {
  const OperandNode& operand = graph.operand(id);
  if (operand.kind != OperandNode::Kind::kOperatorOutput) return {};
  const OperatorNode& node = graph.operators()[static_cast<size_t>(operand.producer)];
  if (!HasSumBound(node.op)) return {};
  return node.inputs;
}

std::map<uint32_t, OperandValue> ComputeForSumBounds(
    const Graph& graph, const std::vector<OperandId>& outputs,
    const std::map<std::string, Tensor>& inputs, std::map<std::string, OperandValue>* results) {
  std::set<uint32_t> keep;
  for (OperandId out : outputs) {
    for (OperandId in : SumBoundOperands(graph, out)) keep.insert(in.value);
  }
  std::map<uint32_t, OperandValue> kept;
  if (keep.empty() && results == nullptr) return kept;
  auto computed = graph.Compute(inputs, [&](OperandId id, const OperandValue& v) {
    if (keep.count(id.value)) kept[id.value] = v;
  });
  if (results != nullptr) *results = std::move(computed);
  return kept;
}

std::vector<double> OutputSumBounds(
    const Graph& graph, OperandId id, const Tolerance& tol,
    const std::function<const OperandValue&(OperandId)>& value_of) {
  const std::vector<OperandId> needed = SumBoundOperands(graph, id);
  if (needed.empty() || tol.sign_exact || !(tol.ulp > 0)) return {};
  const size_t index = static_cast<size_t>(graph.operand(id).producer);
  const OperatorNode& node = graph.operators()[index];
  double roundings = tol.ulp;
  const bool computed = std::any_of(needed.begin(), needed.end(), [&](OperandId in) {
    return graph.operand(in).kind == OperandNode::Kind::kOperatorOutput;
  });
  if (computed) {
    const std::optional<Tolerance> own = DefaultTolerance(node.tolerance);
    roundings += std::max(0.0, tol.ulp - (own ? own->ulp : 0.0));
  }
  std::vector<const OperandValue*> in;
  for (OperandId i : needed) in.push_back(&value_of(i));
  return OperatorSumBounds(graph, index, in, roundings);
}

}  // namespace nnref
