// The check mode: a backend's results compared with the reference operator by operator.
//
// The reference computes the whole graph and keeps every operand. Then each backend kernel runs
// alone on the reference's values of its operator's inputs, and its outputs are compared with
// the reference's outputs under that operator's own default tolerance (ops/tolerance_table.cc;
// exact for integer outputs), skipping what the spec leaves open. Feeding the reference's inputs
// judges every operator on its own, so an error is blamed on the operator that made it, not on
// the ones downstream that inherit it: the first operator in graph order that leaves its
// tolerance is the first divergence.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ops/backend.h"
#include "runner/compare.h"

namespace nnref {

struct OperatorCheck {
  size_t index = 0;  // in Graph::operators()
  OpId op = OpId::identity;
  std::string label;      // MLOperatorOptions.label
  size_t output = 0;      // which output of the operator
  OperandId operand;      // that output's operand
  std::string tolerance;  // Tolerance::Describe()
  Comparison cmp;
};

struct BackendCheck {
  std::vector<OperatorCheck> operators;  // one per operator output, graph order
  // Index into `operators` of the first that left its tolerance, if any.
  std::optional<size_t> first_divergence;
  // The reference's value of every operand (by id), for reports and the graph outputs.
  std::map<uint32_t, OperandValue> reference;
};

// `kernels` holds one backend kernel per operator of `graph`.
// `policy` (runner/derived.h): the operators' table rows with their sum bounds (wpt) or their
// derived bounds.
enum class TolerancePolicy : uint8_t;
BackendCheck CheckAgainstReference(const Graph& graph, const BackendGraph& kernels,
                                   const std::map<std::string, Tensor>& inputs,
                                   size_t max_reported, TolerancePolicy policy);
BackendCheck CheckAgainstReference(const Graph& graph, const BackendGraph& kernels,
                                   const std::map<std::string, Tensor>& inputs,
                                   size_t max_reported = 5);
// The same on the reference's value of every operand (by id), already computed (the case
// session's one reference run).
BackendCheck CheckAgainstReference(const Graph& graph, const BackendGraph& kernels,
                                   std::map<uint32_t, OperandValue> reference,
                                   size_t max_reported, TolerancePolicy policy);

// The per-operator tolerance the check uses: the operator's default row (0 ULP for integer
// outputs).
Tolerance OperatorTolerance(const Graph& graph, size_t index, size_t output);

}  // namespace nnref
