// Activation functions: elu (§api-mlgraphbuilder-elu), gelu (§api-mlgraphbuilder-gelu-method),
// hardSigmoid (§api-mlgraphbuilder-hard-sigmoid), hardSwish (§api-mlgraphbuilder-hard-swish),
// leakyRelu (§api-mlgraphbuilder-leakyrelu), prelu (§api-mlgraphbuilder-prelu),
// relu (§api-mlgraphbuilder-relu-method), sigmoid (§api-mlgraphbuilder-sigmoid-method),
// softplus (§api-mlgraphbuilder-softplus-method), softsign (§api-mlgraphbuilder-softsign-method)
// and tanh (§api-mlgraphbuilder-tanh-method).
#pragma once

#include <vector>

#include "ops/limits.h"
#include "ops/op_call.h"

namespace nnref {

// The limits tables of elu, gelu, hardSigmoid, hardSwish, leakyRelu, sigmoid, softplus, softsign
// and tanh are identical (input float32/float16, any rank; output same as input).
extern const OpLimits kFloatActivationLimits;
extern const OpLimits kReluLimits;   // §tensor-limits-relu
extern const OpLimits kPreluLimits;  // §tensor-limits-prelu

struct MLEluOptions : MLOperatorOptions {
  double alpha = 1;
};

struct MLHardSigmoidOptions : MLOperatorOptions {
  double alpha = 0.2;
  double beta = 0.5;
};

struct MLLeakyReluOptions : MLOperatorOptions {
  double alpha = 0.01;
};

// The validated options of elu (alpha), hardSigmoid (alpha, beta) and leakyRelu (alpha), already
// cast to the input's data type; 0 where the operator has none. Carried by every activation node.
struct ActivationAttributes : OpAttributes {
  double alpha = 0, beta = 0;
};

Operand Elu(GraphBuilder& builder, const Operand& input, const MLEluOptions& options = {});
Operand Gelu(GraphBuilder& builder, const Operand& input, const MLOperatorOptions& options = {});
Operand HardSigmoid(GraphBuilder& builder, const Operand& input,
                    const MLHardSigmoidOptions& options = {});
Operand HardSwish(GraphBuilder& builder, const Operand& input,
                  const MLOperatorOptions& options = {});
Operand LeakyRelu(GraphBuilder& builder, const Operand& input,
                  const MLLeakyReluOptions& options = {});
Operand Prelu(GraphBuilder& builder, const Operand& input, const Operand& slope,
              const MLOperatorOptions& options = {});
Operand Relu(GraphBuilder& builder, const Operand& input, const MLOperatorOptions& options = {});
Operand Sigmoid(GraphBuilder& builder, const Operand& input, const MLOperatorOptions& options = {});
Operand Softplus(GraphBuilder& builder, const Operand& input,
                 const MLOperatorOptions& options = {});
Operand Softsign(GraphBuilder& builder, const Operand& input,
                 const MLOperatorOptions& options = {});
Operand Tanh(GraphBuilder& builder, const Operand& input, const MLOperatorOptions& options = {});

std::vector<Operand> CallElu(OpCall& call);
std::vector<Operand> CallGelu(OpCall& call);
std::vector<Operand> CallHardSigmoid(OpCall& call);
std::vector<Operand> CallHardSwish(OpCall& call);
std::vector<Operand> CallLeakyRelu(OpCall& call);
std::vector<Operand> CallPrelu(OpCall& call);
std::vector<Operand> CallRelu(OpCall& call);
std::vector<Operand> CallSigmoid(OpCall& call);
std::vector<Operand> CallSoftplus(OpCall& call);
std::vector<Operand> CallSoftsign(OpCall& call);
std::vector<Operand> CallTanh(OpCall& call);

}  // namespace nnref
