// MLContext.opSupportLimits() (WebNN §api-mlcontext-opsupportlimits): the MLOpSupportLimits
// dictionary, built from the one limits table of each registered operator (ops/op_list.inc). Both
// the library API (runner/api, Context::OpSupportLimits) and `nnref ops --json` call
// OpSupportLimitsFor(), so they cannot disagree.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "numerics/dtype.h"
#include "ops/conv_common.h"
#include "ref/graph/graph.h"

namespace nnref {

// §api-mlcontext-rankrange-dictionary
struct MLRankRange {
  uint32_t min = 0;
  uint32_t max = 0;
  friend bool operator==(const MLRankRange&, const MLRankRange&) = default;
};

// §api-mlcontext-tensorlimits-dictionary
struct MLTensorLimits {
  std::vector<DataType> dataTypes;  // MLDataTypeList
  MLRankRange rankRange;
  friend bool operator==(const MLTensorLimits&, const MLTensorLimits&) = default;
};

// One operator's member of MLOpSupportLimits: an MLBinarySupportLimits, MLSingleInputSupportLimits,
// MLConv2dSupportLimits, ... dictionary, as (member name, MLTensorLimits) pairs in the order of the
// operator's limits table ("a", "b", "output"; "input", "filter", "bias", "output"; ...).
struct MLOperatorSupportLimits {
  std::string_view name;  // the MLGraphBuilder method, e.g. "conv2d"
  std::vector<std::pair<std::string_view, MLTensorLimits>> members;
  const MLTensorLimits* Find(std::string_view member) const;
};

// §api-mlcontext-opsupportlimits-dictionary
struct MLOpSupportLimits {
  MLInputOperandLayout preferredInputLayout = MLInputOperandLayout::kNchw;
  uint64_t maxTensorByteLength = 0;
  MLTensorLimits input;                            // graph input operands
  MLTensorLimits constant;                         // graph constant operands
  MLTensorLimits output;                           // graph output operands
  std::vector<MLOperatorSupportLimits> operators;  // every registered operator, op_list order
  const MLOperatorSupportLimits* Find(std::string_view op) const;
};

// The dictionary for an implementation with `limits` ("check dimensions": maximum rank and byte
// length). A "same as" row reports the data types of the row it refers to; an "N" rank range is
// capped at limits.max_rank.
MLOpSupportLimits OpSupportLimitsFor(const BuilderLimits& limits);

}  // namespace nnref
