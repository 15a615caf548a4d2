// Legitimate variants and known-wrong mutants of the operators (issue: verdicts with evidence).
//
// A tolerance policy is only trustworthy when it accepts every way a correct implementation may
// compute an operator and rejects the ways a broken one does. This folder holds both as kernels
// over the reference's input values:
//   - variants: what a legitimate implementation may do that the reference does not — any
//     summation order, an operand-type (float32 / float16) or wider accumulator, FMA or not,
//     float16 computed in float16 or in float32, the spec's decomposition (its emulation steps)
//     evaluated step by step in the operand type, transcendental functions at their stated
//     accuracy;
//   - mutants: what no correct implementation does — a dropped term, an ignored bias, epsilon or
//     square root, padding counted in an average, transposed weights, a neighbour's element,
//     truncation instead of rounding, flushed subnormals, a tanh-approximated gelu, softmax
//     without the max subtraction, E[x^2] - E[x]^2 variances...
// `nnref tolerance --audit` runs all of them over case files and reports, per operator and data
// type, the variants a policy rejects (too tight) and the mutants it accepts (too loose).
//
// Alternatives are test instruments, not backends: they run one operator on the reference's
// values of its inputs (as the check mode does) and are never used to produce results.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ref/graph/graph.h"

namespace nnref {

struct Alternative {
  std::optional<OpId> op;  // the operator it computes; nullopt: any (an output-level mutant)
  std::string name;        // short stable id, e.g. "f16-sequential-sum"
  bool legitimate;         // a variant (true) or a mutant (false)
  std::string what;        // one line: what it computes, or which bug it models
  // The operator's outputs (declared data types and shapes, in order) computed from `inputs`,
  // the reference's values of operator `index`'s inputs in order; nullopt when the alternative
  // does not apply to this node (e.g. "ignores the bias" on a node without one, or a float16-only
  // variant on float32).
  std::function<std::optional<std::vector<Tensor>>(
      const Graph& graph, size_t index, std::span<const OperandValue* const> inputs)>
      compute;
};

// The operator named `name` (a registration's method name; an unknown name is a programming
// error and throws std::logic_error).
OpId OpNamed(std::string_view name);

// Every alternative of every operator, in a stable order.
const std::vector<Alternative>& AllAlternatives();
// The alternatives of operator `op`, in the same order.
std::vector<const Alternative*> AlternativesFor(OpId op);

// Registration, one function per family file (ops/variants/*.cc).
void AddGenericAlternatives(std::vector<Alternative>& out);      // variants.cc: output-level
void AddSumAlternatives(std::vector<Alternative>& out);          // sums.cc
void AddElementwiseAlternatives(std::vector<Alternative>& out);  // elementwise.cc
void AddRnnAlternatives(std::vector<Alternative>& out);          // rnn.cc
void AddAdverseAlternatives(std::vector<Alternative>& out);      // adverse.cc

}  // namespace nnref
