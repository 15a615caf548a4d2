// Element-wise unary operations — WebNN §api-mlgraphbuilder-unary.
#pragma once

#include <vector>

#include "ops/limits.h"
#include "ops/op_call.h"

namespace nnref {

enum class UnaryOp : uint8_t {
  kAbs,
  kCeil,
  kCos,
  kErf,
  kExp,
  kFloor,
  kIdentity,
  kLog,
  kNeg,
  kReciprocal,
  kRoundEven,
  kSin,
  kSign,
  kSqrt,
  kTan,
};

OpId UnaryOpId(UnaryOp op);
const OpLimits& UnaryLimits(UnaryOp op);

// "create an element-wise unary operation" given op, input, allowed data types and options.
Operand ElementwiseUnary(GraphBuilder& builder, UnaryOp op, const Operand& input,
                         const MLOperatorOptions& options = {});

template <UnaryOp K>
std::vector<Operand> CallUnary(OpCall& call);

}  // namespace nnref
