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
#include "ops/vulkan/record.h"
#include "ops/vulkan/shaders/params.h"

namespace nnref::vk {

namespace {

class NormalizationKernel final : public RecordableKernel {
 public:
  NormalizationKernel(std::shared_ptr<Device> device, OpId op, const NormalizationAttributes& a)
      : RecordableKernel(std::move(device)),
        op_(op),
        a_(a),
        // The axes moved last: instanceNormalization's reduced (spatial) axes; batch's channel
        // axis and layerNormalization's axes in the order of scale and bias.
        axes_(op_ == OpId::instanceNormalization ? a.reduce_axes : a.param_axes) {}

  // Recorded when the normalized axes are the last ones, in order (the input is not moved), and
  // the scale, bias (and batchNormalization's mean and variance) are on the host, where they
  // are widened to float32 into one auxiliary binding.
  std::string NeedsHost(std::span<const OperandDescriptor> in, std::span<const OperandDescriptor>,
                        std::span<const bool> on_host) const override {
    if (!AxesLast(in[0].shape.size())) {
      return "the normalized axes are not the last ones in order: the input is moved on the host";
    }
    for (int k : AuxInputs()) {
      if (!on_host[static_cast<size_t>(k)]) {
        return "input " + std::to_string(k) +
               " (scale, bias, mean or variance) is computed on the device, and the kernel widens "
               "it on the host";
      }
    }
    return "";
  }

  void Emit(Sink& sink, std::span<const OperandValue* const> in,
            std::span<const OperandDescriptor> in_desc,
            std::span<const OperandDescriptor> out) const override {
    const OperandDescriptor& desc = out[0];
    const Shape& shape = in_desc[0].shape;
    uint64_t run = 1;
    for (size_t axis : axes_) run *= shape[axis];
    const uint64_t count = desc.ElementCount();
    if (count == 0) return;
    std::vector<uint32_t> params;
    std::vector<float> aux = Aux(in, shape, run, params, desc);
    std::vector<Source> sources;
    sources.push_back(Source::Input(0));
    const auto bytes = std::as_bytes(std::span(aux));
    sources.push_back(Source::Host(std::vector<std::byte>(bytes.begin(), bytes.end())));
    if (device_->native() && op_ != OpId::batchNormalization) {
      // One workgroup per run (normalization_native.comp).
      sink.Run(NativeShader(desc.dataType), params, std::move(sources), 0, count / run);
    } else {
      sink.Run(Shader::kReduce, params, std::move(sources), 0, WordGroups(desc));
    }
  }

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    if (AxesLast(in[0]->data.rank())) return RecordableKernel::Compute(in, out);
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
    if (count > 0) {
      std::vector<uint32_t> params;
      const std::vector<float> aux = Aux(in, input.shape(), run, params, desc);
      const std::vector<std::byte> data = moved.Bytes();
      const Bytes views[] = {data, std::as_bytes(std::span(aux))};
      if (device_->native() && !batch) {
        // One workgroup per run (normalization_native.comp).
        std::span<std::byte> bytes(result.buffer()->data(), count * ElementSize(desc.dataType));
        device_->Run(NativeShader(desc.dataType), params, views, bytes, count / run);
      } else {
        Dispatch(*device_, Shader::kReduce, params, views, result);
      }
    }
    return OneOutput(rank == 0 ? result : result.Permute(inverse).Contiguous());
  }

 private:
  // float16 in float16 where the device computes it (normalization_native.comp's NNVK_FLOAT16
  // variant: the affine step).
  Shader NativeShader(DataType type) const {
    return type == DataType::kFloat16 && device_->float16_native() ? Shader::kNormalizationNativeF16
                                                                   : Shader::kNormalizationNative;
  }

  // The inputs widened into the auxiliary binding: scale, bias, and batchNormalization's mean
  // and variance (inputs 1 and 2).
  std::vector<int> AuxInputs() const {
    std::vector<int> k;
    if (a_.scale_input >= 0) k.push_back(a_.scale_input);
    if (a_.bias_input >= 0) k.push_back(a_.bias_input);
    if (op_ == OpId::batchNormalization) {
      k.push_back(1);
      k.push_back(2);
    }
    return k;
  }

  // Whether the axes moved last are already the last ones, in order (the move is the identity).
  bool AxesLast(size_t rank) const {
    for (size_t i = 0; i < axes_.size(); ++i) {
      if (axes_[i] != rank - axes_.size() + i) return false;
    }
    return true;
  }

  // The auxiliary binding (scale, bias, mean, variance widened to float32, each aux_len long)
  // and the shader's parameters, for an input of `shape` whose groups have `run` elements.
  std::vector<float> Aux(std::span<const OperandValue* const> in, const Shape& shape, uint64_t run,
                         std::vector<uint32_t>& params, const OperandDescriptor& desc) const {
    const bool batch = op_ == OpId::batchNormalization;
    const uint64_t aux_len =
        batch ? run : (op_ == OpId::instanceNormalization ? shape[a_.param_axes[0]] : run);
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
    const uint32_t flags = (a_.scale_input >= 0 ? NNVK_NORM_SCALE : 0u) |
                           (a_.bias_input >= 0 ? NNVK_NORM_BIAS : 0u) |
                           (batch ? NNVK_NORM_MEAN_VAR : 0u) |
                           (op_ == OpId::instanceNormalization ? NNVK_NORM_AUX_INDEX : 0u);
    params.assign(NNVK_REDUCE_P_WORDS, 0);
    params[NNVK_REDUCE_P_TYPE] = static_cast<uint32_t>(desc.dataType);
    params[NNVK_REDUCE_P_OP] = NNVK_REDUCE_NORM;
    params[NNVK_REDUCE_P_RUN] = static_cast<uint32_t>(batch ? 1 : run);
    params[NNVK_REDUCE_P_COUNT] = static_cast<uint32_t>(desc.ElementCount());
    params[NNVK_REDUCE_P_EPS] = std::bit_cast<uint32_t>(static_cast<float>(a_.epsilon));
    params[NNVK_REDUCE_P_FLAGS] = flags;
    params[NNVK_REDUCE_P_AUX] = static_cast<uint32_t>(aux_len);
    return aux;
  }

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
