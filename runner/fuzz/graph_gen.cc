#include "runner/fuzz/graph_gen.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <set>

#include "ops/registry.h"
#include "ref/error.h"
#include "runner/case.h"
#include "runner/data.h"
#include "runner/execute.h"
#include "runner/fuzz/generator.h"
#include "runner/json.h"

namespace nnref::fuzz {

uint64_t GenStats::attempts() const {
  uint64_t n = 0;
  for (const auto& [op, v] : by_op) n += v.first;
  return n;
}

uint64_t GenStats::accepted() const {
  uint64_t n = 0;
  for (const auto& [op, v] : by_op) n += v.second;
  return n;
}

using gen::Generator;
using gen::kGenerated;

const std::vector<std::string>& GeneratedMethods() { return kGenerated; }

const std::vector<std::pair<std::string, std::string>>& NotGeneratedMethods() {
  static const std::vector<std::pair<std::string, std::string>> v = [] {
    std::vector<std::pair<std::string, std::string>> out;
    for (const OpInfo& info : Registry()) {
      const std::string name(info.name);
      if (std::find(kGenerated.begin(), kGenerated.end(), name) == kGenerated.end())
        out.emplace_back(name, "no argument generator yet");
    }
    return out;
  }();
  return v;
}

FuzzGraph GenerateGraph(uint64_t seed, const GenOptions& options, GenStats* stats) {
  Generator g(seed, options);
  return g.Run(stats);
}

std::vector<std::string> UnconsumedOutputs(const FuzzGraph& g) {
  std::set<std::string> used;
  const std::function<void(const Value&)> collect = [&](const Value& v) {
    if (v.is_string()) used.insert(v.str());
    for (const Value& x : v.items()) collect(x);
    for (const auto& [k, x] : v.members()) collect(x);
  };
  for (const FuzzOp& op : g.ops) {
    for (const auto& [k, v] : op.args) collect(v);
  }
  std::vector<std::string> out;
  for (const FuzzOp& op : g.ops) {
    for (const std::string& o : op.outputs) {
      if (!used.count(o)) out.push_back(o);
    }
  }
  return out;
}

Value CaseValue(const FuzzGraph& g, const std::string& name,
                std::vector<std::pair<std::string, Value>> extra) {
  std::vector<std::pair<std::string, Value>> inputs;
  for (const FuzzTensor& t : g.inputs) {
    std::vector<Value> data;
    for (uint64_t i = 0; i < t.data.element_count(); ++i)
      data.push_back(CanonicalElement(t.data, i));
    std::vector<Value> shape;
    for (uint64_t d : t.desc.shape) shape.push_back(NumberValue(std::to_string(d)));
    std::vector<std::pair<std::string, Value>> m = {
        {"descriptor",
         Value::Object({{"shape", Value::Array(std::move(shape))},
                        {"dataType", Value::Str(std::string(DataTypeName(t.desc.dataType)))}})},
        {"data", Value::Array(std::move(data))}};
    if (t.constant) m.emplace_back("constant", Value::Bool(true));
    inputs.emplace_back(t.name, Value::Object(std::move(m)));
  }
  std::vector<Value> ops;
  for (const FuzzOp& op : g.ops) {
    std::vector<Value> args;
    for (const auto& [k, v] : op.args) args.push_back(Value::Object({{k, v}}));
    std::vector<Value> outs;
    for (const std::string& o : op.outputs) outs.push_back(Value::Str(o));
    ops.push_back(
        Value::Object({{"name", Value::Str(op.name)},
                       {"arguments", Value::Array(std::move(args))},
                       {"outputs", outs.size() == 1 ? outs[0] : Value::Array(std::move(outs))}}));
  }
  std::vector<std::pair<std::string, Value>> c = {
      {"name", Value::Str(name)},
      {"graph", Value::Object({{"inputs", Value::Object(std::move(inputs))},
                               {"operators", Value::Array(std::move(ops))}})}};
  for (auto& e : extra) c.push_back(std::move(e));
  return Value::Object(std::move(c));
}

}  // namespace nnref::fuzz
