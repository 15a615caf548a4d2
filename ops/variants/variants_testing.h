// Test helpers of the alternatives' tests (test code only).
#pragma once

#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ref/graph/graph.h"

namespace nnref {

// A one-operator graph with its input values (inputs fed from `feeds`, constants as built).
struct Built {
  std::string op;
  std::shared_ptr<const Graph> graph;
  std::vector<OperandValue> values;
  std::vector<const OperandValue*> ptrs;
};

inline Built BuildOne(GraphBuilder& b, const std::vector<Operand>& outs,
                      const std::map<std::string, Tensor>& feeds) {
  std::vector<std::pair<std::string, Operand>> named;
  for (size_t k = 0; k < outs.size(); ++k) named.emplace_back("out" + std::to_string(k), outs[k]);
  Built r;
  r.graph = b.Build(named);
  REQUIRE(r.graph->operators().size() == 1);
  const OperatorNode& node = r.graph->operators()[0];
  r.op = std::string(OpName(node.op));
  for (OperandId id : node.inputs) {
    const OperandNode& n = r.graph->operand(id);
    r.values.push_back({n.kind == OperandNode::Kind::kInput ? feeds.at(n.name) : n.constant, {}});
  }
  for (const OperandValue& v : r.values) r.ptrs.push_back(&v);
  return r;
}

inline Built BuildOne(GraphBuilder& b, const Operand& out,
                      const std::map<std::string, Tensor>& feeds) {
  return BuildOne(b, std::vector<Operand>{out}, feeds);
}

}  // namespace nnref
