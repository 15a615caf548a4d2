#include "runner/derived.h"

#include <cstdio>

#include "numerics/error_bound.h"
#include "ops/error_model.h"
#include "ops/registry.h"
#include "ref/error.h"
#include "runner/backend_check.h"
#include "runner/sum_bound.h"

namespace nnref {

std::optional<TolerancePolicy> ParseTolerancePolicy(std::string_view name) {
  if (name == "wpt") return TolerancePolicy::kWpt;
  if (name == "derived") return TolerancePolicy::kDerived;
  return std::nullopt;
}

const char* PolicyName(TolerancePolicy policy) {
  return policy == TolerancePolicy::kDerived ? "derived" : "wpt";
}

namespace {

Tolerance DerivedTolerance() {
  return Tolerance::Ulp(0, "derived: per-element bounds of the operators' error models");
}

}  // namespace

std::string Judgement::Describe() const {
  if (policy == TolerancePolicy::kDerived && fallback.empty() && !bounds.empty()) {
    return "derived bounds (per element)";
  }
  return tolerance.Describe() + (fallback.empty() ? "" : " (" + fallback + ")");
}

Judgement OperatorJudgement(TolerancePolicy policy, const Graph& graph, size_t index,
                            size_t output, std::span<const OperandValue* const> inputs,
                            std::span<const OperandValue> outputs) {
  Judgement j;
  j.policy = policy;
  if (policy == TolerancePolicy::kDerived) {
    std::vector<std::vector<uint8_t>> overflow;
    ErrorModelArgs args{graph, index, inputs, {}, outputs};
    args.overflow = &overflow;
    const auto bounds = OperatorErrorBounds(args);
    if (bounds) {
      j.tolerance = DerivedTolerance();
      if (output < bounds->size()) j.bounds = (*bounds)[output];
      if (output < overflow.size()) j.overflow = std::move(overflow[output]);
      return j;
    }
    j.fallback = "no error model: the table row";
  }
  j.tolerance = OperatorTolerance(graph, index, output);
  if (output == 0) j.bounds = OperatorSumBounds(graph, index, inputs, j.tolerance.ulp);
  return j;
}

DataType DerivedGraphBounds::DataTypeOf(OperandId id) const {
  return graph_.operand(id).desc.dataType;
}

DerivedGraphBounds::DerivedGraphBounds(const Graph& graph,
                                       std::function<const OperandValue&(OperandId)> value_of)
    : graph_(graph), value_of_(std::move(value_of)) {}

std::optional<std::vector<double>> DerivedGraphBounds::For(OperandId id, std::string* why) {
  if (const auto it = memo_.find(id.value); it != memo_.end()) {
    if (!it->second && why) *why = why_[id.value];
    return it->second;
  }
  const OperandNode& operand = graph_.operand(id);
  if (operand.kind != OperandNode::Kind::kOperatorOutput) {
    memo_[id.value] = std::vector<double>{};  // inputs and constants: exact
    return memo_[id.value];
  }
  const size_t index = static_cast<size_t>(operand.producer);
  const OperatorNode& node = graph_.operators()[index];
  std::vector<const OperandValue*> inputs;
  std::vector<std::vector<double>> input_bounds;
  std::string reason;
  bool ok = true;
  for (OperandId in : node.inputs) {
    inputs.push_back(&value_of_(in));
    std::optional<std::vector<double>> b = For(in, &reason);
    if (!b) {
      ok = false;
      break;
    }
    input_bounds.push_back(std::move(*b));
  }
  std::vector<OperandValue> outputs;
  if (ok) {
    for (OperandId out : node.outputs) outputs.push_back(value_of_(out));
    const ErrorModelArgs args{graph_, index, inputs, input_bounds, outputs};
    const auto bounds = OperatorErrorBounds(args);
    if (bounds) {
      for (size_t k = 0; k < node.outputs.size(); ++k) {
        memo_[node.outputs[k].value] = k < bounds->size() ? (*bounds)[k] : std::vector<double>{};
      }
      return memo_[id.value];
    }
    reason = "operator " + std::to_string(index) + " (" + std::string(OpName(node.op)) + ") has no error model";
  }
  for (OperandId out : node.outputs) {
    memo_[out.value] = std::nullopt;
    why_[out.value] = reason;
  }
  if (why) *why = reason;
  return std::nullopt;
}

Judgement GraphOutputJudgement(TolerancePolicy policy, const Tolerance& wpt,
                               std::vector<double> sum_bounds, DerivedGraphBounds* derived,
                               OperandId id) {
  Judgement j;
  j.policy = policy;
  // Integer outputs are exact under both policies (the table's 0).
  const bool integer = derived != nullptr && IsInteger(derived->DataTypeOf(id));
  if (policy == TolerancePolicy::kDerived && derived != nullptr && !integer) {
    std::string why;
    std::optional<std::vector<double>> b = derived->For(id, &why);
    if (b) {
      j.tolerance = DerivedTolerance();
      j.bounds = std::move(*b);
      return j;
    }
    j.fallback = why + ": the table";
  }
  j.tolerance = wpt;
  j.bounds = std::move(sum_bounds);
  return j;
}

void PrintDerivedPolicy(bool markdown) {
  struct Fn {
    const char* name;
    const char* source;
  };
  static constexpr Fn kFunctions[] = {
      {"exp", "Vulkan / WGSL: 3 + 2|x| ULP (16-bit: 1 + 2|x|)"},
      {"log", "Vulkan / WGSL: 3 ULP, absolute 2^-21 (16-bit 2^-7) inside [0.5, 2]"},
      {"sin", "Vulkan / WGSL: absolute 2^-11 (16-bit 2^-7); or 2 ULP"},
      {"cos", "as sin"},
      {"div", "Vulkan: 2.5 ULP"},
      {"sqrt", "Vulkan: inherited from 1 / inversesqrt (2 ULP + 2.5 ULP)"},
      {"erf", "OpenCL: 16 ULP (float16 computed in float32: 2)"},
      {"erfc", "OpenCL: 16 ULP (float16 computed in float32: 2)"},
      {"tanh", "OpenCL: 5 ULP (float16 computed in float32: 2)"},
  };
  const auto value = [](DataType t, const char* fn) {
    const FunctionAccuracy a = ErrorArith::Accuracy(t, fn);
    char buf[64];
    if (a.ulp_per_x > 0) {
      std::snprintf(buf, sizeof buf, "%g + %g|x| ULP", a.ulp, a.ulp_per_x);
    } else if (a.abs > 0) {
      std::snprintf(buf, sizeof buf, "%g ULP or %g", a.ulp, a.abs);
    } else {
      std::snprintf(buf, sizeof buf, "%g ULP", a.ulp);
    }
    return std::string(buf);
  };
  if (markdown) {
    std::printf(
        "\n## The derived policy (`--tolerances derived`)\n\nPer-element bounds from each "
        "operator's error model (docs/numerics.md, \"Derived bounds\"): IEEE operations round "
        "once (u = 2^-24, 2^-11), sums in any order are bounded by the worst case or %g sigma of "
        "their partial sums, and primitive functions have these stated accuracies:\n\n"
        "| function | float32 | float16 | source |\n|---|---|---|---|\n",
        ErrorArith::kLambda);
    for (const Fn& f : kFunctions) {
      std::printf("| %s | %s | %s | %s |\n", f.name, value(DataType::kFloat32, f.name).c_str(),
                  value(DataType::kFloat16, f.name).c_str(), f.source);
    }
    std::printf("\n| operator | error model |\n|---|---|\n");
  } else {
    std::printf(
        "\nderived policy (--tolerances derived): per-element bounds of each operator's error "
        "model;\nsums in any order: the worst case or %g sigma of their partial sums; stated "
        "accuracies:\n",
        ErrorArith::kLambda);
    std::printf("%-8s %-22s %-22s  %s\n", "function", "float32", "float16", "source");
    for (const Fn& f : kFunctions) {
      std::printf("%-8s %-22s %-22s  %s\n", f.name, value(DataType::kFloat32, f.name).c_str(),
                  value(DataType::kFloat16, f.name).c_str(), f.source);
    }
    std::printf("%-22s %s\n", "operator", "error model");
  }
  for (const OpInfo& op : Registry()) {
    const char* summary = ErrorModelSummary(op.id);
    const std::string text = summary ? summary : "none: judged by its table row";
    if (markdown) {
      std::printf("| %.*s | %s |\n", static_cast<int>(op.name.size()), op.name.data(),
                  text.c_str());
    } else {
      std::printf("%-22.*s %s\n", static_cast<int>(op.name.size()), op.name.data(), text.c_str());
    }
  }
}

}  // namespace nnref
