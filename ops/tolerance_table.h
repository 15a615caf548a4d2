// The default per-operator tolerance table: one row per WebNN operator (OpId), each with its
// reason, and the operators that also pass within the sum bound. `nnref tolerance` prints it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "numerics/dtype.h"
#include "numerics/tolerance.h"
#include "ref/graph/graph.h"
#include "ref/graph/op_id.h"

namespace nnref {

enum class ToleranceMetric : uint8_t { kUlp, kAtol };

// One row of the table. `per_size` rows scale with ToleranceQuery::size: value = base +
// per_size*size. A ULP row may also carry an absolute bound (`or_atol_*`, 0: none): an element
// then passes within either (log: ULP away from 0, absolute near the zero at x = 1).
struct ToleranceRow {
  OpId op;
  ToleranceMetric metric;
  double float32;   // base for float32 outputs
  double float16;   // base for float16 outputs
  double per_size;  // extra per unit of ToleranceQuery::size (0: none)
  std::string_view reason;
  double or_atol_float32 = 0;  // ULP rows only: an absolute bound accepted as well
  double or_atol_float16 = 0;
};

// The rows in the order `nnref tolerance` prints them.
const std::vector<ToleranceRow>& DefaultToleranceTable();

// Whether an element of `op` also passes within SumBound (numerics/tolerance.h, "The sum bound").
bool HasSumBound(OpId op);
// nullopt when the operator has no row (callers treat that as an internal error).
std::optional<Tolerance> DefaultTolerance(const ToleranceQuery& q);

// The default tolerance of operand `id` of `graph`: 0 for integer types, else the sum of the
// default rows of the operators feeding it (InputError when an operator has no row).
Tolerance DefaultToleranceFor(const Graph& graph, OperandId id);

}  // namespace nnref
