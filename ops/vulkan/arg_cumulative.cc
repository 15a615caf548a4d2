// The vulkan backend's argMin/argMax (§api-mlgraphbuilder-argminmax) and cumulativeSum
// (§api-mlgraphbuilder-cumulativesum), as in the reference's ops/arg_cumulative.cc, on
// shaders/reduce.comp (NNVK_REDUCE_ARG_MIN, _ARG_MAX, _CUMSUM): the axis moved last;
// cumulativeSum's result (one per input element) moved back, both on the device (layout.comp).
#include "ops/arg_cumulative.h"

#include "ops/vulkan/family.h"
#include "ops/vulkan/record.h"
#include "ops/vulkan/shaders/params.h"

namespace nnref::vk {

namespace {

// What ArgCumulativeKernel reads of ArgMinMaxAttributes / CumulativeSumAttributes.
struct ArgCumulativeParams {
  uint32_t axis = 0;
  bool is_max = false;                       // argMax (else argMin)
  bool exclusive = false, reversed = false;  // cumulativeSum
};

class ArgCumulativeKernel final : public RecordableKernel {
 public:
  ArgCumulativeKernel(std::shared_ptr<Device> device, OpId op, const ArgCumulativeParams& a,
                      Shader shader)
      : RecordableKernel(std::move(device)), op_(op), a_(a), shader_(shader) {}

  // Always recorded: an axis that is not the last is moved last on the device (layout.comp),
  // and cumulativeSum's result moved back.

  // Runs along the axis moved last.
  void Emit(Sink& sink, std::span<const OperandValue* const>, std::span<const OperandDescriptor> in,
            std::span<const OperandDescriptor> out) const override {
    const OperandDescriptor& desc = out[0];
    const uint64_t count = desc.ElementCount();
    if (count == 0) return;
    const size_t axes[] = {a_.axis};
    const MovedAxes m = MoveAxesLast(in[0].shape, axes);
    std::vector<uint32_t> params = Params(in[0], desc);
    std::vector<Source> sources;
    sources.push_back(MovedInput(sink, m, 0, in[0]));
    // cumulativeSum's result is in the moved order (argMin/argMax: the kept axes, in order).
    const Target result = op_ == OpId::cumulativeSum ? MovedOutput(sink, m, desc) : Target(0);
    sink.Run(shader_, params, std::move(sources), result, WordGroups(desc));
    MoveBack(sink, m, result, desc);
  }

 private:
  // reduce.comp's parameters: runs along the axis (moved last), `count` outputs.
  std::vector<uint32_t> Params(const OperandDescriptor& input,
                               const OperandDescriptor& desc) const {
    const bool cumulative = op_ == OpId::cumulativeSum;
    std::vector<uint32_t> params(NNVK_REDUCE_P_WORDS, 0);
    params[NNVK_REDUCE_P_TYPE] = static_cast<uint32_t>(input.dataType);
    params[NNVK_REDUCE_P_OP] =
        cumulative ? NNVK_REDUCE_CUMSUM : (a_.is_max ? NNVK_REDUCE_ARG_MAX : NNVK_REDUCE_ARG_MIN);
    params[NNVK_REDUCE_P_RUN] = static_cast<uint32_t>(input.shape[a_.axis]);
    params[NNVK_REDUCE_P_COUNT] = static_cast<uint32_t>(desc.ElementCount());
    params[NNVK_REDUCE_P_CUM_FLAGS] =
        (a_.exclusive ? NNVK_REDUCE_EXCLUSIVE : 0u) | (a_.reversed ? NNVK_REDUCE_REVERSED : 0u);
    params[NNVK_REDUCE_P_OUT_TYPE] = static_cast<uint32_t>(desc.dataType);
    return params;
  }

  OpId op_;
  ArgCumulativeParams a_;
  Shader shader_;
};

bool IsArgCumulative(OpId op) {
  return op == OpId::argMin || op == OpId::argMax || op == OpId::cumulativeSum;
}

std::optional<std::string> Unsupported(OpId op, DataType type, const DeviceInfo& device) {
  if (!IsArgCumulative(op)) return std::nullopt;
  if (Is64Bit(type) && !device.shader_int64) {
    return std::string(DataTypeName(type)) + " needs shaderInt64";
  }
  return std::string();  // the builder admitted the type: the shader covers every one
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index,
                                   const std::shared_ptr<Device>& device, std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  ArgCumulativeParams c;
  if (node.op == OpId::cumulativeSum) {
    const auto* a = AttributesOf<CumulativeSumAttributes>(node, why);
    if (a == nullptr) return nullptr;
    c.axis = a->axis;
    c.exclusive = a->exclusive;
    c.reversed = a->reversed;
  } else {
    const auto* a = AttributesOf<ArgMinMaxAttributes>(node, why);
    if (a == nullptr) return nullptr;
    c.axis = a->axis;
    c.is_max = node.op == OpId::argMax;
  }
  const bool wide = Is64Bit(graph.operand(node.inputs[0]).desc.dataType);
  return std::make_shared<ArgCumulativeKernel>(device, node.op, c,
                                               wide ? Shader::kReduce64 : Shader::kReduce);
}

}  // namespace

const Family kArgCumulativeFamily = {Unsupported, Make, nullptr};

}  // namespace nnref::vk
