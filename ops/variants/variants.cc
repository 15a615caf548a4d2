#include "ops/variants/variants.h"

#include <cmath>
#include <stdexcept>

#include "numerics/cast.h"
#include "numerics/float16.h"

namespace nnref {

namespace {

// The reference's output 0 as doubles, row-major.
std::vector<double> ToDoubles(const Tensor& t) {
  std::vector<double> v(t.element_count());
  for (uint64_t i = 0; i < v.size(); ++i) {
    v[i] = t.dtype() == DataType::kFloat16 ? ToDouble(t.At<Float16>(i)) : double{t.At<float>(i)};
  }
  return v;
}

Tensor FromDoubles(DataType dtype, const Shape& shape, const std::vector<double>& v) {
  Tensor t = Tensor::Allocate(dtype, shape);
  for (uint64_t i = 0; i < v.size(); ++i) {
    if (dtype == DataType::kFloat16) {
      t.base<Float16>()[i] = RoundTo<Float16>(v[i]);
    } else {
      t.base<float>()[i] = RoundTo<float>(v[i]);
    }
  }
  return t;
}

// An output-level mutant: the reference's (single, float) output transformed by `f`, which
// returns nullopt when the transformation changes nothing on this output.
Alternative OutputMutant(
    std::string name, std::string what,
    std::function<std::optional<std::vector<double>>(const std::vector<double>&, const Shape&)>
        f) {
  Alternative a;
  a.op = std::nullopt;
  a.name = std::move(name);
  a.legitimate = false;
  a.what = std::move(what);
  a.compute = [f](const Graph& graph, size_t index, std::span<const OperandValue* const> inputs)
      -> std::optional<std::vector<Tensor>> {
    const OperatorNode& node = graph.operators()[index];
    if (node.outputs.size() != 1) return std::nullopt;
    const DataType type = graph.operand(node.outputs[0]).desc.dataType;
    if (type != DataType::kFloat32 && type != DataType::kFloat16) return std::nullopt;
    const std::vector<OperandValue> ref = graph.RunOperator(index, inputs);
    const Tensor& out = ref[0].data;
    std::optional<std::vector<double>> v = f(ToDoubles(out), out.shape());
    if (!v) return std::nullopt;
    return std::vector<Tensor>{FromDoubles(type, out.shape(), *v)};
  };
  return a;
}

}  // namespace

void AddGenericAlternatives(std::vector<Alternative>& out) {
  // "*": applies to every operator with one float output.
  out.push_back(OutputMutant(
      "reversed-output", "the output's elements in reverse row-major order",
      [](const std::vector<double>& v, const Shape&) -> std::optional<std::vector<double>> {
        std::vector<double> r(v.rbegin(), v.rend());
        if (r == v) return std::nullopt;
        return r;
      }));
  out.push_back(OutputMutant(
      "neighbour-element", "each element replaced by its next neighbour along the last axis",
      [](const std::vector<double>& v, const Shape& shape) -> std::optional<std::vector<double>> {
        if (shape.empty() || shape.back() < 2) return std::nullopt;
        const uint64_t n = shape.back();
        std::vector<double> r(v.size());
        for (uint64_t i = 0; i < v.size(); ++i) {
          const uint64_t row = i / n, col = i % n;
          r[i] = v[row * n + (col + 1) % n];
        }
        if (r == v) return std::nullopt;
        return r;
      }));
  // A uniform 2% error (a wrong constant or scale). Not 1%: at float16 that is 10 ULP, which
  // the stated accuracies of a 3-step chain and the rounding noise of a long sum reach
  // legitimately (docs/numerics.md, "The audit").
  out.push_back(OutputMutant(
      "scaled-2pct", "every element multiplied by 1.02 (a 2% relative error)",
      [](const std::vector<double>& v, const Shape&) -> std::optional<std::vector<double>> {
        std::vector<double> r(v.size());
        for (size_t i = 0; i < v.size(); ++i) r[i] = v[i] * 1.02;
        return r;
      }));
  out.push_back(OutputMutant(
      "flush-subnormals", "subnormal results flushed to zero (denormals-are-zero hardware)",
      [](const std::vector<double>& v, const Shape&) -> std::optional<std::vector<double>> {
        // Judged for float32 and float16 alike by the float32 threshold: float16's subnormals
        // are flushed by the float16 variant of the same name in elementwise.cc.
        std::vector<double> r(v);
        bool changed = false;
        for (double& x : r) {
          if (x != 0 && std::fabs(x) < 0x1p-126) {
            x = 0;
            changed = true;
          }
        }
        if (!changed) return std::nullopt;
        return r;
      }));
}

const std::vector<Alternative>& AllAlternatives() {
  static const std::vector<Alternative> all = [] {
    std::vector<Alternative> v;
    AddSumAlternatives(v);
    AddElementwiseAlternatives(v);
    AddRnnAlternatives(v);
    AddAdverseAlternatives(v);
    AddGenericAlternatives(v);
    return v;
  }();
  return all;
}

OpId OpNamed(std::string_view name) {
  const std::optional<OpId> id = ParseOpId(name);
  if (!id) throw std::logic_error("variants: no operator named " + std::string(name));
  return *id;
}

std::vector<const Alternative*> AlternativesFor(OpId op) {
  std::vector<const Alternative*> r;
  for (const Alternative& a : AllAlternatives()) {
    if (!a.op || *a.op == op) r.push_back(&a);
  }
  return r;
}

}  // namespace nnref
