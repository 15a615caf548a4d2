#include "runner/execute.h"

#include <set>

#include "ops/registry.h"
#include "ops/tolerance_table.h"
#include "runner/api_case.h"
#include "runner/data.h"

namespace nnref {

std::vector<std::string> RequestedOutputs(const Case& c) {
  std::vector<std::string> out;
  if (c.has_expected_outputs) {
    for (const TensorSpec& t : c.expected_outputs) out.push_back(t.name);
    return out;
  }
  std::set<std::string> consumed;
  for (const OperatorSpec& op : c.operators) {
    for (const auto& [key, v] : op.args) {
      if (v->is_string()) consumed.insert(v->str());
      if (v->is_array()) {
        for (const Value& e : v->items()) {
          if (e.is_string()) consumed.insert(e.str());
        }
      }
    }
  }
  for (const OperatorSpec& op : c.operators) {
    for (const std::string& o : op.outputs) {
      if (!consumed.count(o)) out.push_back(o);
    }
  }
  return out;
}

BuiltCase BuildCase(const Case& c, const std::vector<std::string>& outputs,
                    const BuilderLimits& limits) {
  // One way to build a case: on a context, as run, check and generate do (runner/api_case.h).
  auto a = std::make_shared<ApiCase>(BuildCaseOnContext(c, outputs, limits));
  BuiltCase b = std::move(a->built);
  b.owner = a;
  return b;
}

void AddCaseOperator(const OperatorSpec& spec, GraphBuilder& builder, BuiltCase& b,
                     const std::string& w) {
  const OpInfo* info = FindOp(spec.name);
  if (!info) throw InputError(w + ": unknown operator '" + spec.name + "'");
  std::vector<PositionalArg> args;
  for (const auto& [k, v] : spec.args) args.push_back({k, v});
  OpCall call(
      builder, spec.name, std::move(args),
      [&b](const std::string& name) -> std::optional<Operand> {
        const auto it = b.named.find(name);
        if (it == b.named.end()) return std::nullopt;
        return it->second;
      },
      [&b, &w](const std::string& message) { b.warnings.push_back(w + ": " + message); });
  std::vector<Operand> results;
  try {
    results = info->call(call);
  } catch (const InputError& e) {
    throw InputError(w + ": " + e.what());
  }
  if (results.size() != spec.outputs.size()) {
    throw InputError(w + ": the operator produces " + std::to_string(results.size()) +
                     " outputs but 'outputs' names " + std::to_string(spec.outputs.size()));
  }
  for (size_t k = 0; k < results.size(); ++k) {
    b.named[spec.outputs[k]] = results[k];
    b.operand_names[results[k].id.value] = spec.outputs[k];
  }
}

void AddCaseOperators(const Case& c, GraphBuilder& builder, BuiltCase& b, const std::string& at) {
  const std::string where = at.empty() ? c.Where() + ": graph" : at;
  for (size_t i = 0; i < c.operators.size(); ++i) {
    const OperatorSpec& spec = c.operators[i];
    AddCaseOperator(spec, builder, b,
                    where + ".operators[" + std::to_string(i) + "] (" + spec.name + ")");
  }
}

std::map<std::string, OperandValue> RunBuiltCase(const BuiltCase& b,
                                                 const ExecutionObserver& observer) {
  return b.graph->Compute(b.input_values, observer);
}

Tolerance ToleranceFor(const Case& c, const BuiltCase& b, const std::string& output) {
  if (c.tolerance) return *c.tolerance;
  return DefaultToleranceFor(*b.graph, b.named.at(output).id);
}

}  // namespace nnref
