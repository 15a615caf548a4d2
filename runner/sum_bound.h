// The sum bound of the operators whose result is a sum (ops/tolerance_table.h, HasSumBound;
// docs/numerics.md, "The sum bound"): per output element, the absolute error that an accumulator
// in the operand type may make, from the magnitude M = sum of |terms|. M is the operator's own
// reference kernel run on |inputs|: for these operators every term is a product of input
// elements (or one element) and |a * b| = |a| * |b|, so on |inputs| nothing cancels and the
// result is M (gemm, whose alpha and beta may have either sign, takes its two parts apart;
// batchNormalization runs on -|mean| and the variance as it is). For linear and hardSigmoid,
// alpha * x + beta, M = |alpha| |x| + |beta|.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "numerics/tolerance.h"
#include "ref/graph/graph.h"

namespace nnref {

// Row-major per-element bounds SumBound(output type, roundings, M) of operator `index`'s output,
// `inputs` its input values (the reference's); empty when the operator has no sum bound, its
// output is not a float, or `roundings` is 0. An element whose M overflows the output type gets
// bound 0 (only the ULP tolerance judges it).
std::vector<double> OperatorSumBounds(const Graph& graph, size_t index,
                                      std::span<const OperandValue* const> inputs,
                                      double roundings);

// The graph operands whose reference values OutputSumBounds reads for graph output `id`.
std::vector<OperandId> SumBoundOperands(const Graph& graph, OperandId id);

// The reference's values (by operand id) of the operands the sum bounds of graph outputs
// `outputs` read: the graph computed once on `inputs`, observed. With `results`, the graph always
// runs and its outputs go there too; without, it runs only when some output has a sum bound.
std::map<uint32_t, OperandValue> ComputeForSumBounds(
    const Graph& graph, const std::vector<OperandId>& outputs,
    const std::map<std::string, Tensor>& inputs,
    std::map<std::string, OperandValue>* results = nullptr);

// The bounds of graph output `id` judged under `tol` (a case's or the default tolerance): the
// producer's sum bound with T = tol.ulp, or, when the producer's inputs were computed by other
// operators (whose errors the implementation's terms carry), T = tol.ulp plus the part of tol.ulp
// that is not the producer's own row again (a relative error r of the terms moves the sum by at
// most 2r M). Empty when the producer has no sum bound or `tol` is exact or absolute only.
// `value_of` gives the reference's values of the operands SumBoundOperands names.
std::vector<double> OutputSumBounds(const Graph& graph, OperandId id, const Tolerance& tol,
                                    const std::function<const OperandValue&(OperandId)>& value_of);

}  // namespace nnref
