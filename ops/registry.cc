#include "ops/registry.h"

#include "ops/activations.h"
#include "ops/arg_cumulative.h"
#include "ops/cast_clamp_where.h"
#include "ops/conv2d.h"
#include "ops/conv_transpose2d.h"
#include "ops/data_movement.h"
#include "ops/elementwise_binary.h"
#include "ops/elementwise_logical.h"
#include "ops/elementwise_unary.h"
#include "ops/indexing.h"
#include "ops/matmul_gemm.h"
#include "ops/normalization.h"
#include "ops/pool2d.h"
#include "ops/quantization.h"
#include "ops/reduction.h"
#include "ops/resample2d.h"
#include "ops/rnn.h"
#include "ops/softmax.h"

namespace nnref {

const std::vector<OpInfo>& Registry() {
  static const std::vector<OpInfo> kRegistry = {
#define NNREF_OP(name, section, call, limits) {OpId::name, #name, (section), &(call), &(limits)},
#include "ops/op_list.inc"
#undef NNREF_OP
  };
  return kRegistry;
}

const std::vector<NnefOpInfo>& NnefRegistry() {
  static const std::vector<NnefOpInfo> kRegistry = {
#define NNREF_NNEF_OP(name, row, section) {OpId::nnef_##name, #name, (section), OpId::row},
#include "ops/nnef_op_list.inc"
#undef NNREF_NNEF_OP
  };
  return kRegistry;
}

const OpInfo* FindOp(std::string_view name) {
  for (const OpInfo& op : Registry()) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

}  // namespace nnref
