// The derived tolerance policy's per-element error bounds (docs/numerics.md, "Derived bounds").
//
// Each operator's error model states what a legitimate implementation may do — any summation
// order, an operand-type or wider accumulator, FMA or not, float16 computed in float16 or in
// float32, the spec's own decomposition (its emulation steps) evaluated step by step in the
// operand type, primitive functions at their stated accuracy (numerics/error_bound.h) — and
// computes, for every output element, a bound b such that such an implementation, given inputs
// within `input_bounds` of the reference's input values, returns a value within b of the
// reference's output. The bound is tight where the element is well conditioned (elu's positive
// branch, a normalization after its square root) and wide only where the spec's own steps cancel.
// Graphs chain the models: an operator's bounds are the next one's input bounds.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "ref/graph/graph.h"

namespace nnref {

struct ErrorModelArgs {
  const Graph& graph;
  size_t index;                                    // into graph.operators()
  std::span<const OperandValue* const> inputs;     // the reference's input values
  std::span<const std::vector<double>> input_bounds;  // one per input; empty: exact
  std::span<const OperandValue> outputs;           // the reference's outputs
  // When given: per output, 1 for each element where a step of the spec's computation has an
  // exact value beyond the output type's range (an implementation computing the steps in the
  // type overflows there; the bound still holds the exact result).
  std::vector<std::vector<uint8_t>>* overflow = nullptr;
};

// One vector of bounds per output (row-major; empty for integer outputs, which are exact), or
// nullopt when the operator has no error model (or none for inputs that carry bounds): the
// caller then judges with the table policy.
std::optional<std::vector<std::vector<double>>> OperatorErrorBounds(const ErrorModelArgs& args);

// Whether the operator has an error model (for exact inputs).
bool HasErrorModel(const OperatorNode& node);
// One line on the error model of the operator named `op` (`nnref tolerance`), or nullptr when it
// has none.
const char* ErrorModelSummary(OpId op);

}  // namespace nnref
