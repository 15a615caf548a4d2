// The vulkan backend's reductions (§api-mlgraphbuilder-reduce), as in the reference's
// ops/reduction.cc, on shaders/reduce.comp (parameters NNVK_REDUCE_P_* of shaders/params.h). The
// input is moved on the device (layout.comp) with its kept axes first and its reduced axes last,
// so that each output element reduces one dense run. softmax.cc, normalization.cc and
// arg_cumulative.cc run their operators on the same shader. In the native arithmetic mode float32
// and float16 reductions run on shaders/reduce_native.comp, one workgroup per output element (one
// invocation per output for runs of at most 16 elements).
#include "ops/reduction.h"

#include "ops/vulkan/family.h"
#include "ops/vulkan/record.h"
#include "ops/vulkan/shaders/params.h"

namespace nnref::vk {

namespace {

// The shader's first operator codes are ReduceOp's values.
static_assert(static_cast<uint32_t>(ReduceOp::kL1) == NNVK_REDUCE_L1 &&
              static_cast<uint32_t>(ReduceOp::kL2) == NNVK_REDUCE_L2 &&
              static_cast<uint32_t>(ReduceOp::kLogSum) == NNVK_REDUCE_LOG_SUM &&
              static_cast<uint32_t>(ReduceOp::kLogSumExp) == NNVK_REDUCE_LOG_SUM_EXP &&
              static_cast<uint32_t>(ReduceOp::kMax) == NNVK_REDUCE_MAX &&
              static_cast<uint32_t>(ReduceOp::kMean) == NNVK_REDUCE_MEAN &&
              static_cast<uint32_t>(ReduceOp::kMin) == NNVK_REDUCE_MIN &&
              static_cast<uint32_t>(ReduceOp::kProduct) == NNVK_REDUCE_PRODUCT &&
              static_cast<uint32_t>(ReduceOp::kSum) == NNVK_REDUCE_SUM &&
              static_cast<uint32_t>(ReduceOp::kSumSquare) == NNVK_REDUCE_SUM_SQUARE);

constexpr ReduceOp kReduceOps[] = {ReduceOp::kL1,        ReduceOp::kL2,      ReduceOp::kLogSum,
                                   ReduceOp::kLogSumExp, ReduceOp::kMax,     ReduceOp::kMean,
                                   ReduceOp::kMin,       ReduceOp::kProduct, ReduceOp::kSum,
                                   ReduceOp::kSumSquare};

class ReduceKernel final : public RecordableKernel {
 public:
  ReduceKernel(std::shared_ptr<Device> device, const ReduceAttributes& a, Shader shader)
      : RecordableKernel(std::move(device)), a_(a), shader_(shader) {}

  // Always recorded: reduced axes that are not the last ones are moved last on the device
  // (layout.comp).

  // Each output element reduces one dense run of the input with its kept axes first and its
  // reduced axes last.
  void Emit(Sink& sink, std::span<const OperandValue* const>, std::span<const OperandDescriptor> in,
            std::span<const OperandDescriptor> out) const override {
    const OperandDescriptor& desc = out[0];
    const uint64_t count = desc.ElementCount();
    if (count == 0) return;
    uint64_t run = 1;
    std::vector<size_t> reduced;
    for (size_t axis = 0; axis < in[0].shape.size(); ++axis) {
      if (!a_.reduced[axis]) continue;
      run *= in[0].shape[axis];
      reduced.push_back(axis);
    }
    std::vector<uint32_t> params(NNVK_REDUCE_P_WORDS, 0);
    params[NNVK_REDUCE_P_TYPE] = static_cast<uint32_t>(desc.dataType);
    params[NNVK_REDUCE_P_OP] = static_cast<uint32_t>(a_.op);  // ReduceOp: the shader's codes
    params[NNVK_REDUCE_P_RUN] = static_cast<uint32_t>(run);
    params[NNVK_REDUCE_P_COUNT] = static_cast<uint32_t>(count);
    std::vector<Source> sources;
    sources.push_back(MovedInput(sink, MoveAxesLast(in[0].shape, reduced), 0, in[0]));
    if (Native(desc.dataType)) {
      const uint64_t groups = NativeGroups(params, run, count);
      sink.Run(NativeShader(), params, std::move(sources), 0, groups);
    } else {
      sink.Run(shader_, params, std::move(sources), 0, WordGroups(desc));
    }
  }

 private:
  // The native mode reduces float runs by workgroup (reduce_native.comp); integers, and the exact
  // mode, one invocation per output (reduce.comp).
  bool Native(DataType type) const {
    return device_->native() && (type == DataType::kFloat32 || type == DataType::kFloat16);
  }
  Shader NativeShader() const {
    return device_->subgroup_arithmetic() ? Shader::kReduceNativeSubgroup : Shader::kReduceNative;
  }
  // reduce_native.comp's workgroups: one per output, or, for runs of at most kShortRun elements,
  // one invocation per output (NNVK_REDUCE_P_PER_INVOCATION set in `params`).
  static constexpr uint64_t kShortRun = 16;
  static uint64_t NativeGroups(std::vector<uint32_t>& params, uint64_t run, uint64_t count) {
    const bool per_invocation = run <= kShortRun;
    params[NNVK_REDUCE_P_PER_INVOCATION] = per_invocation ? 1u : 0u;
    return per_invocation ? (count + kLocalSize - 1) / kLocalSize : count;
  }

  ReduceAttributes a_;
  Shader shader_;
};

bool IsReduce(OpId op) {
  for (ReduceOp r : kReduceOps) {
    if (op == ReduceOpId(r)) return true;
  }
  return false;
}

std::optional<std::string> Unsupported(OpId op, DataType type, const DeviceInfo& device) {
  if (!IsReduce(op)) return std::nullopt;
  if (Is64Bit(type) && !device.shader_int64) {
    return std::string(DataTypeName(type)) + " needs shaderInt64";
  }
  return std::string();  // the builder admitted the type: the shader covers every one
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index,
                                   const std::shared_ptr<Device>& device, std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  const auto* a = AttributesOf<ReduceAttributes>(node, why);
  if (a == nullptr) return nullptr;
  const bool wide = Is64Bit(graph.operand(node.inputs[0]).desc.dataType);
  return std::make_shared<ReduceKernel>(device, *a, wide ? Shader::kReduce64 : Shader::kReduce);
}

}  // namespace

const Family kReductionFamily = {Unsupported, Make, nullptr};

}  // namespace nnref::vk
