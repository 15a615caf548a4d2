#include "ops/error_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

#include "numerics/cast.h"
#include "ops/error_model_internal.h"

namespace nnref {
namespace error_model {

std::vector<double> Values(const Tensor& t) {
  std::vector<double> v(t.element_count());
  DispatchDataType(t.dtype(), [&]<typename T>() {
    for (uint64_t i = 0; i < v.size(); ++i) v[i] = ToDouble(t.At<T>(i));
  });
  return v;
}

bool AnyInputBound(const ErrorModelArgs& a) {
  for (const std::vector<double>& b : a.input_bounds) {
    if (std::any_of(b.begin(), b.end(), [](double x) { return x != 0; })) return true;
  }
  return false;
}

std::vector<double> InputBound(const ErrorModelArgs& a, size_t k) {
  const uint64_t n = a.inputs[k]->data.element_count();
  if (k < a.input_bounds.size() && a.input_bounds[k].size() == n) return a.input_bounds[k];
  return std::vector<double>(n, 0.0);
}

Tensor BoundTensor(const std::vector<double>& v, const Shape& shape) {
  Tensor t = Tensor::Allocate(DataType::kFloat32, shape);
  float* p = t.base<float>();
  for (size_t i = 0; i < v.size(); ++i) {
    float f = static_cast<float>(v[i]);
    if (double{f} < v[i]) f = std::nextafter(f, std::numeric_limits<float>::infinity());
    p[i] = f;
  }
  return t;
}

Tensor MapToFloat32(const Tensor& t, const std::function<double(double)>& f) {
  Tensor out = Tensor::Allocate(DataType::kFloat32, t.shape());
  float* p = out.base<float>();
  DispatchDataType(t.dtype(), [&]<typename T>() {
    for (uint64_t i = 0; i < t.element_count(); ++i) {
      p[i] = static_cast<float>(f(ToDouble(t.At<T>(i))));
    }
  });
  return out;
}

std::vector<Tensor> RunFloat32(const ErrorModelArgs& a, std::vector<Tensor> inputs) {
  const OperatorNode& node = a.graph.operators()[a.index];
  std::vector<OperandValue> values(inputs.size());
  std::vector<const OperandValue*> ptrs;
  for (size_t k = 0; k < inputs.size(); ++k) {
    values[k].data = std::move(inputs[k]);
    ptrs.push_back(&values[k]);
  }
  std::vector<OperandDescriptor> outs;
  for (OperandId id : node.outputs) {
    OperandDescriptor d = a.graph.operand(id).desc;
    if (IsFloat(d.dataType)) d.dataType = DataType::kFloat32;
    outs.push_back(d);
  }
  std::vector<OperandValue> got = node.kernel->Compute(ptrs, outs);
  std::vector<Tensor> r;
  for (OperandValue& v : got) r.push_back(v.data.Contiguous());
  return r;
}

bool FloatOutput(const ErrorModelArgs& a, size_t output) {
  const DataType t = a.graph.operand(a.graph.operators()[a.index].outputs[output]).desc.dataType;
  return t == DataType::kFloat32 || t == DataType::kFloat16;
}

ErrorArith ArithFor(const ErrorModelArgs& a, size_t output) {
  return ErrorArith(
      a.graph.operand(a.graph.operators()[a.index].outputs[output]).desc.dataType);
}

namespace {

// Operators whose every output element is an input element (or a constant the spec fixes):
// an implementation's error in an element is the error of the input element it moved. The
// reference kernel run on the inputs' bounds moves the bounds the same way.
constexpr std::array<OpId, 20> kMovers = {
    OpId::reshape,         OpId::transpose,  OpId::expand,          OpId::slice,
    OpId::reverse,         OpId::split,      OpId::concat,          OpId::pad,
    OpId::tile,            OpId::triangular, OpId::gather,          OpId::gatherElements,
    OpId::gatherND,        OpId::scatterElements, OpId::scatterND,  OpId::identity,
    OpId::maxPool2d,       OpId::reduceMax,  OpId::reduceMin,       OpId::where};

bool IsMover(OpId op) {
  return std::find(kMovers.begin(), kMovers.end(), op) != kMovers.end();
}

// Selection and movement: the kernel applied to the bounds of the float inputs (integer inputs,
// i.e. indices and conditions, as they are). max/min selections are 1-Lipschitz in each
// element, so the selected bound is a bound (maxPool2d, reduceMax, reduceMin: the largest bound
// in the window or group). pad's constant (and triangular's zeros) are exact: pad runs once more
// on zero bounds to find the padded elements.
std::optional<Bounds> MoverBounds(const ErrorModelArgs& a) {
  const OperatorNode& node = a.graph.operators()[a.index];
  Bounds out(node.outputs.size());
  bool any_float = false;
  for (size_t k = 0; k < node.outputs.size(); ++k) {
    if (FloatOutput(a, k)) any_float = true;
  }
  if (!any_float) return out;
  if (!AnyInputBound(a)) {
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      if (FloatOutput(a, k)) out[k].assign(a.outputs[k].data.element_count(), 0.0);
    }
    return out;
  }
  std::vector<Tensor> bound_inputs;
  for (size_t k = 0; k < a.inputs.size(); ++k) {
    const Tensor& t = a.inputs[k]->data;
    if (IsFloat(t.dtype())) {
      bound_inputs.push_back(BoundTensor(InputBound(a, k), t.shape()));
    } else {
      bound_inputs.push_back(t);
    }
  }
  // where: the condition selects; reduceMax / maxPool2d pick the largest bound of the group, and
  // reduceMin, run on the negated bounds, the largest one too (its smallest negated bound).
  const bool min_selection = node.op == OpId::reduceMin;
  if (min_selection) {
    bound_inputs[0] = MapToFloat32(bound_inputs[0], [](double v) { return -v; });
  }
  std::vector<Tensor> moved = RunFloat32(a, bound_inputs);
  if (min_selection) moved[0] = MapToFloat32(moved[0], [](double v) { return -v; });
  if (node.op == OpId::pad) {
    std::vector<Tensor> ones = bound_inputs;
    ones[0] = MapToFloat32(a.inputs[0]->data, [](double) { return 1.0; });
    std::vector<Tensor> zeros = bound_inputs;
    zeros[0] = MapToFloat32(a.inputs[0]->data, [](double) { return 0.0; });
    const std::vector<double> with1 = Values(RunFloat32(a, ones)[0]);
    const std::vector<double> with0 = Values(RunFloat32(a, zeros)[0]);
    std::vector<double> m = Values(moved[0]);
    for (size_t i = 0; i < m.size(); ++i) {
      if (with1[i] == with0[i]) m[i] = 0;  // a padded element: the constant, exact
    }
    out[0] = std::move(m);
    return out;
  }
  for (size_t k = 0; k < node.outputs.size(); ++k) {
    if (FloatOutput(a, k)) out[k] = Values(moved[k]);
  }
  return out;
}

}  // namespace
}  // namespace error_model

using namespace error_model;

bool HasErrorModel(const OperatorNode& node) {
  const OpId op = node.op;
  return IsMover(op) || HasElementwiseModel(op) || HasSumModel(op) || HasRnnModel(op);
}

const char* ErrorModelSummary(OpId op) {
  if (IsMover(op)) {
    return "exact: every output element is an input element (or a constant); an input's bound "
           "moves with it";
  }
  if (op == OpId::cast || op == OpId::clamp || op == OpId::abs || op == OpId::neg || op == OpId::relu ||
      op == OpId::max || op == OpId::min || op == OpId::ceil || op == OpId::floor || op == OpId::roundEven ||
      op == OpId::sign) {
    return "exact or one rounding; a step function moves by its step where an input bound "
           "crosses it";
  }
  if (op == OpId::add || op == OpId::sub || op == OpId::mul) return "one correctly rounded operation";
  if (op == OpId::quantizeLinear || op == OpId::equal || op == OpId::notEqual || op == OpId::greater ||
      op == OpId::greaterOrEqual || op == OpId::lesser || op == OpId::lesserOrEqual || op == OpId::logicalNot ||
      op == OpId::logicalAnd || op == OpId::logicalOr || op == OpId::logicalXor || op == OpId::isNaN ||
      op == OpId::isInfinite || op == OpId::argMin || op == OpId::argMax) {
    return "integer result: compared exactly";
  }
  if (op == OpId::dequantizeLinear) return "(input - zeroPoint) * scale: two roundings";
  if (op == OpId::div || op == OpId::reciprocal || op == OpId::sqrt || op == OpId::exp || op == OpId::log ||
      op == OpId::sin || op == OpId::cos || op == OpId::erf || op == OpId::pow) {
    return "one primitive at its stated accuracy (table above), its inputs' bounds propagated";
  }
  if (op == OpId::tan) return "sin / cos at their stated accuracies and the division";
  if (op == OpId::tanh) {
    return "the larger of the spec's emulation (exp(2x) - 1) / (exp(2x) + 1), the sinh / cosh "
           "form (Vulkan) and 5 ULP (OpenCL)";
  }
  if (op == OpId::gelu) {
    return "the spec's emulation 0.5 x (1 + erf(x / sqrt 2)) step by step, or the erfc form";
  }
  if (HasElementwiseModel(op)) {
    return "the spec's emulation steps in the output type (each rounding, each primitive at "
           "its stated accuracy)";
  }
  if (op == OpId::matmul || op == OpId::gemm) {
    return "sums of products in any order and accumulator: worst case or 3 sigma of the "
           "partial sums of the sequential orders";
  }
  if (op == OpId::conv2d || op == OpId::convTranspose2d || op == OpId::averagePool2d || op == OpId::l2Pool2d) {
    return "window sums in any order and accumulator: worst case or 3 sigma of estimated "
           "partial sums (the kernel on magnitudes and squares)";
  }
  if (op == OpId::batchNormalization) {
    return "the spec's emulation steps, or folded into x a + (bias - mean a)";
  }
  if (op == OpId::instanceNormalization || op == OpId::layerNormalization) {
    return "the emulation's two passes (mean, then the mean of squared deviations) and steps";
  }
  if (op == OpId::softmax) return "the emulation: exp(x - max), their sum, the division";
  if (HasSumModel(op)) return "the spec's definition: a sum in any order, then its steps";
  if (HasRnnModel(op)) {
    return "the emulation's gates step by step, the state's bound carried through time";
  }
  return nullptr;
}

std::optional<std::vector<std::vector<double>>> OperatorErrorBounds(const ErrorModelArgs& a) {
  const OperatorNode& node = a.graph.operators()[a.index];
  const OpId op = node.op;
  if (IsMover(op)) return MoverBounds(a);
  if (HasElementwiseModel(op)) return ElementwiseBounds(a);
  if (HasSumModel(op)) return SumBounds(a);
  if (HasRnnModel(op)) return RnnBounds(a);
  return std::nullopt;
}

}  // namespace nnref
