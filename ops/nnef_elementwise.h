// NNEF operator group: the element-wise NNEF operations whose semantics no WebNN operator has —
// round (NNEF 1.0.2 4.2.1: floor(x + 0.5), where WebNN's roundEven rounds half to even) and the
// compound elu (4.9.1: select(x < 0.0, exp(x) - 1.0, x), run atomically: WebNN elu gives +0 for
// -0 and takes an alpha NNEF's lacks) — and the reductions WebNN has no operator for:
// argmax_reduce, argmin_reduce, all_reduce and any_reduce (4.4).
//
// Numerics: round and the logical reductions are exact; elu is expm1 in double, rounded once (x
// >= 0, -0 and NaN pass through as the select does). The arg reductions give the index within
// the reduced sub-volume in row-major order of the reduced axes; ties give the first; a NaN in
// the sub-volume marks the element open (Latitude::kAny).
#pragma once

#include <vector>

#include "ref/graph/graph.h"

namespace nnref::nnef {

// round(x) = floor(x + 0.5) of a float32 tensor.
Operand NnefRound(GraphBuilder& builder, const Operand& input);
// elu(x) of a float32 tensor (alpha 1).
Operand NnefElu(GraphBuilder& builder, const Operand& input);

enum class NnefReduceOp : uint8_t { kArgmax, kArgmin, kAll, kAny };
struct NnefReduceAttributes : OpAttributes {
  NnefReduceOp op = NnefReduceOp::kArgmax;
  std::vector<uint32_t> axes;  // ascending, unique; the reduced axes keep extent 1
};
// argmax/argmin: float32 input, int64 output; all/any: uint8 (0/1) input and output.
Operand NnefReduce(GraphBuilder& builder, const Operand& input,
                   const NnefReduceAttributes& attributes);

}  // namespace nnref::nnef
