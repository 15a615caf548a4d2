// The vulkan backend's batchNormalization, instanceNormalization and layerNormalization
// (§api-mlgraphbuilder-batchnorm, -instancenorm, -layernorm), as in the reference's
// ops/normalization.cc, on shaders/reduce.comp (NNVK_REDUCE_NORM): the normalized axes moved last
// (batch: its channel axis), the result moved back; scale, bias, mean and variance widened to
// float32 (exact) into one auxiliary buffer. In the native arithmetic mode instance- and
// layerNormalization run on shaders/normalization_native.comp, one workgroup per run.
#include "ops/normalization.h"

#include <bit>

#include "numerics/float16.h"
#include "ops/vulkan/family.h"
#include "ops/vulkan/shaders/params.h"

namespace nnref::vk {

namespace {

class NormalizationKernel final : public Kernel {
 public:
  NormalizationKernel(std::shared_ptr<Device> device, OpId op, const NormalizationAttributes& a)
      : device_(std::move(device)),
        op_(op),
        a_(a),
        // The axes moved last: instanceNormalization's reduced (spatial) axes; batch's channel
        // axis and layerNormalization's axes in the order of scale and bias.
        axes_(op_ == OpId::instanceNormalization ? a.reduce_axes : a.param_axes) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const OperandDescriptor& desc = out[0];
    const Tensor& input = in[0]->data;
    const uint32_t rank = static_cast<uint32_t>(input.rank());
    std::vector<bool> moved_last(rank, false);
    for (size_t axis : axes_) moved_last[axis] = true;
    std::vector<uint32_t> perm, inverse(rank);
    for (uint32_t axis = 0; axis < rank; ++axis) {
      if (!moved_last[axis]) perm.push_back(axis);
    }
    uint64_t run = 1;
    for (size_t axis : axes_) {
      perm.push_back(static_cast<uint32_t>(axis));
      run *= input.shape()[axis];
    }
    for (uint32_t i = 0; i < rank; ++i) inverse[perm[i]] = i;
    const Tensor moved = rank == 0 ? input : input.Permute(perm);
    Tensor result = Tensor::Allocate(desc.dataType, moved.shape());
    const uint64_t count = desc.ElementCount();
    const bool batch = op_ == OpId::batchNormalization;
    const uint64_t aux_len =
        batch ? run : (op_ == OpId::instanceNormalization ? input.shape()[a_.param_axes[0]] : run);
    if (count > 0) {
      std::vector<float> aux(4 * aux_len, 0.0f);
      const auto put = [&](int input_index, size_t slot) {
        if (input_index < 0) return;
        const Tensor& t = in[static_cast<size_t>(input_index)]->data;
        for (uint64_t i = 0; i < aux_len; ++i) {
          aux[slot * aux_len + i] =
              t.dtype() == DataType::kFloat16 ? t.At<Float16>(i).ToFloat() : t.At<float>(i);
        }
      };
      put(a_.scale_input, 0);
      put(a_.bias_input, 1);
      if (batch) {
        put(1, 2);
        put(2, 3);
      }
      const std::vector<std::byte> data = moved.Bytes();
      const Bytes views[] = {data, std::as_bytes(std::span(aux))};
      const uint32_t flags = (a_.scale_input >= 0 ? NNVK_NORM_SCALE : 0u) |
                             (a_.bias_input >= 0 ? NNVK_NORM_BIAS : 0u) |
                             (batch ? NNVK_NORM_MEAN_VAR : 0u) |
                             (op_ == OpId::instanceNormalization ? NNVK_NORM_AUX_INDEX : 0u);
      std::vector<uint32_t> params(NNVK_REDUCE_P_WORDS, 0);
      params[NNVK_REDUCE_P_TYPE] = static_cast<uint32_t>(desc.dataType);
      params[NNVK_REDUCE_P_OP] = NNVK_REDUCE_NORM;
      params[NNVK_REDUCE_P_RUN] = static_cast<uint32_t>(batch ? 1 : run);
      params[NNVK_REDUCE_P_COUNT] = static_cast<uint32_t>(count);
      params[NNVK_REDUCE_P_EPS] = std::bit_cast<uint32_t>(static_cast<float>(a_.epsilon));
      params[NNVK_REDUCE_P_FLAGS] = flags;
      params[NNVK_REDUCE_P_AUX] = static_cast<uint32_t>(aux_len);
      if (device_->native() && !batch) {
        // One workgroup per run (normalization_native.comp).
        std::span<std::byte> bytes(result.buffer()->data(), count * ElementSize(desc.dataType));
        device_->Run(Shader::kNormalizationNative, params, views, bytes, count / run);
      } else {
        Dispatch(*device_, Shader::kReduce, params, views, result);
      }
    }
    return OneOutput(rank == 0 ? result : result.Permute(inverse).Contiguous());
  }

 private:
  std::shared_ptr<Device> device_;
  OpId op_;
  NormalizationAttributes a_;
  std::vector<size_t> axes_;
};

bool IsNormalization(OpId op) {
  return op == OpId::batchNormalization || op == OpId::instanceNormalization ||
         op == OpId::layerNormalization;
}

std::optional<std::string> Unsupported(OpId op, DataType, const DeviceInfo&) {
  if (IsNormalization(op)) return std::string();  // float32, float16
  return std::nullopt;
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index,
                                   const std::shared_ptr<Device>& device, std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  const auto* n = AttributesOf<NormalizationAttributes>(node, why);
  if (n == nullptr) return nullptr;
  return std::make_shared<NormalizationKernel>(device, node.op, *n);
}

}  // namespace

const Family kNormalizationFamily = {Unsupported, Make, nullptr};

}  // namespace nnref::vk
