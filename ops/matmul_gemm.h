// matmul (§api-mlgraphbuilder-matmul), gemm (§api-mlgraphbuilder-gemm) and
// linear (§api-mlgraphbuilder-linear).
#pragma once

#include <optional>
#include <vector>

#include "ops/limits.h"
#include "ops/op_call.h"

namespace nnref {

extern const OpLimits kMatmulLimits;
extern const OpLimits kGemmLimits;
extern const OpLimits kLinearLimits;

struct MLGemmOptions : MLOperatorOptions {
  std::optional<Operand> c;
  double alpha = 1.0;
  double beta = 1.0;
  bool aTranspose = false;
  bool bTranspose = false;
};

struct MLLinearOptions : MLOperatorOptions {
  double alpha = 1;
  double beta = 0;
};

// The validated options of a gemm node (§api-mlgraphbuilder-gemm steps 5-10): alpha and beta
// already cast to a's data type. The node has a third input exactly when options.c exists.
struct GemmAttributes : OpAttributes {
  double alpha = 1, beta = 1;
  bool aTranspose = false, bTranspose = false;
};

// The validated options of a linear node (§api-mlgraphbuilder-linear steps 4-5), cast to the
// input's data type.
struct LinearAttributes : OpAttributes {
  double alpha = 1, beta = 0;
};

Operand Matmul(GraphBuilder& builder, const Operand& a, const Operand& b,
               const MLOperatorOptions& options = {});
Operand Gemm(GraphBuilder& builder, const Operand& a, const Operand& b,
             const MLGemmOptions& options = {});
Operand Linear(GraphBuilder& builder, const Operand& input, const MLLinearOptions& options = {});

std::vector<Operand> CallMatmul(OpCall& call);
std::vector<Operand> CallGemm(OpCall& call);
std::vector<Operand> CallLinear(OpCall& call);

}  // namespace nnref
