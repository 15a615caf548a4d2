// Reduction operations — WebNN §api-mlgraphbuilder-reduce: reduceL1, reduceL2, reduceLogSum,
// reduceLogSumExp, reduceMax, reduceMean, reduceMin, reduceProduct, reduceSum, reduceSumSquare.
#pragma once

#include <optional>
#include <vector>

#include "ops/limits.h"
#include "ops/op_call.h"

namespace nnref {

enum class ReduceOp : uint8_t {
  kL1,
  kL2,
  kLogSum,
  kLogSumExp,
  kMax,
  kMean,
  kMin,
  kProduct,
  kSum,
  kSumSquare,
};

OpId ReduceOpId(ReduceOp op);  // OpId::reduceSum, ...
const OpLimits& ReduceLimits(ReduceOp op);

struct MLReduceOptions : MLOperatorOptions {
  std::optional<std::vector<uint32_t>> axes;  // absent: every axis; empty: none
  bool keepDimensions = false;
};

// The validated attributes of a reduction node: which input axes are reduced (one flag per input
// axis) and whether they stay as size-1 output axes.
struct ReduceAttributes : OpAttributes {
  ReduceOp op = ReduceOp::kSum;
  std::vector<bool> reduced;
  bool keepDimensions = false;
};

// "create reduction operation" given op, input and options (the method's allowed data types come
// from ReduceLimits(op)).
Operand Reduce(GraphBuilder& builder, ReduceOp op, const Operand& input,
               const MLReduceOptions& options = {});

inline Operand ReduceL1(GraphBuilder& b, const Operand& input, const MLReduceOptions& o = {}) {
  return Reduce(b, ReduceOp::kL1, input, o);
}
inline Operand ReduceL2(GraphBuilder& b, const Operand& input, const MLReduceOptions& o = {}) {
  return Reduce(b, ReduceOp::kL2, input, o);
}
inline Operand ReduceLogSum(GraphBuilder& b, const Operand& input, const MLReduceOptions& o = {}) {
  return Reduce(b, ReduceOp::kLogSum, input, o);
}
inline Operand ReduceLogSumExp(GraphBuilder& b, const Operand& input,
                               const MLReduceOptions& o = {}) {
  return Reduce(b, ReduceOp::kLogSumExp, input, o);
}
inline Operand ReduceMax(GraphBuilder& b, const Operand& input, const MLReduceOptions& o = {}) {
  return Reduce(b, ReduceOp::kMax, input, o);
}
inline Operand ReduceMean(GraphBuilder& b, const Operand& input, const MLReduceOptions& o = {}) {
  return Reduce(b, ReduceOp::kMean, input, o);
}
inline Operand ReduceMin(GraphBuilder& b, const Operand& input, const MLReduceOptions& o = {}) {
  return Reduce(b, ReduceOp::kMin, input, o);
}
inline Operand ReduceProduct(GraphBuilder& b, const Operand& input, const MLReduceOptions& o = {}) {
  return Reduce(b, ReduceOp::kProduct, input, o);
}
inline Operand ReduceSum(GraphBuilder& b, const Operand& input, const MLReduceOptions& o = {}) {
  return Reduce(b, ReduceOp::kSum, input, o);
}
inline Operand ReduceSumSquare(GraphBuilder& b, const Operand& input,
                               const MLReduceOptions& o = {}) {
  return Reduce(b, ReduceOp::kSumSquare, input, o);
}

template <ReduceOp K>
std::vector<Operand> CallReduce(OpCall& call);

}  // namespace nnref
