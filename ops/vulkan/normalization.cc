// The vulkan backend's batchNormalization, instanceNormalization and layerNormalization
// (§api-mlgraphbuilder-batchnorm, -instancenorm, -layernorm), as in the reference's
// ops/normalization.cc, on shaders/reduce.comp (NNVK_REDUCE_NORM): the normalized axes moved last
// (batch: its channel axis), the result moved back, both on the device (layout.comp); scale,
// bias, mean and variance widened to float32 (exact) into one auxiliary buffer, on the host when
// they are there, else on the device (copies and a cast). In the native arithmetic mode instance-
// and layerNormalization run on shaders/normalization_native.comp, one workgroup per run.
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

  // Always recorded: normalized axes that are not the last ones are moved last on the device
  // (layout.comp) and the result moved back; scale, bias, mean and variance computed on the
  // device are widened there (Emit).

  void Emit(Sink& sink, std::span<const OperandValue* const> in,
            std::span<const OperandDescriptor> in_desc,
            std::span<const OperandDescriptor> out) const override {
    const OperandDescriptor& desc = out[0];
    const Shape& shape = in_desc[0].shape;
    uint64_t run = 1;
    for (size_t axis : axes_) run *= shape[axis];
    const uint64_t count = desc.ElementCount();
    if (count == 0) return;
    const MovedAxes m = MoveAxesLast(shape, axes_);
    std::vector<uint32_t> params;
    const uint64_t aux_len = Params(shape, run, params, desc);
    std::vector<Source> sources;
    sources.push_back(MovedInput(sink, m, 0, in_desc[0]));
    sources.push_back(AuxSource(sink, in, in_desc, aux_len));
    const Target result = MovedOutput(sink, m, desc);
    if (device_->native() && op_ != OpId::batchNormalization) {
      // One workgroup per run (normalization_native.comp).
      sink.Run(NativeShader(desc.dataType), params, std::move(sources), result, count / run);
    } else {
      sink.Run(Shader::kReduce, params, std::move(sources), result, WordGroups(desc));
    }
    MoveBack(sink, m, result, desc);
  }

 private:
  // float16 in float16 where the device computes it (normalization_native.comp's NNVK_FLOAT16
  // variant: the affine step).
  Shader NativeShader(DataType type) const {
    return type == DataType::kFloat16 && device_->float16_native() ? Shader::kNormalizationNativeF16
                                                                   : Shader::kNormalizationNative;
  }

  // The slots of the auxiliary binding: (input, slot) for scale 0, bias 1, batchNormalization's
  // mean 2 and variance 3 (inputs 1 and 2).
  std::vector<std::pair<int, size_t>> AuxSlots() const {
    std::vector<std::pair<int, size_t>> slots = {{a_.scale_input, 0}, {a_.bias_input, 1}};
    if (op_ == OpId::batchNormalization) {
      slots.emplace_back(1, 2);
      slots.emplace_back(2, 3);
    }
    return slots;
  }

  // The auxiliary binding: scale, bias, mean, variance widened to float32 (exact), each aux_len
  // long, zeros for an absent one. On the host when they all are there; else on the device:
  // copied into one tensor of their type (a scratch, or the binding itself for float32), widened
  // by one cast dispatch (float16).
  Source AuxSource(Sink& sink, std::span<const OperandValue* const> in,
                   std::span<const OperandDescriptor> in_desc, uint64_t aux_len) const {
    bool on_host = true;
    for (const auto& [k, slot] : AuxSlots()) {
      on_host = on_host && (k < 0 || in[static_cast<size_t>(k)] != nullptr);
    }
    if (on_host) {
      std::vector<float> aux(4 * aux_len, 0.0f);
      for (const auto& [k, slot] : AuxSlots()) {
        if (k < 0) continue;
        const Tensor& t = in[static_cast<size_t>(k)]->data;
        for (uint64_t i = 0; i < aux_len; ++i) {
          aux[slot * aux_len + i] =
              t.dtype() == DataType::kFloat16 ? t.At<Float16>(i).ToFloat() : t.At<float>(i);
        }
      }
      const auto bytes = std::as_bytes(std::span(aux));
      return Source::Host(std::vector<std::byte>(bytes.begin(), bytes.end()));
    }
    const DataType type = in_desc[0].dataType;
    const uint64_t es = ElementSize(type);
    const size_t aux = sink.Scratch(4 * aux_len * sizeof(float));
    const size_t pack = type == DataType::kFloat32 ? aux : sink.Scratch(4 * aux_len * es);
    for (const auto& [k, slot] : AuxSlots()) {
      const uint64_t at = slot * aux_len * es;
      if (k >= 0) {
        sink.Copy(Source::Input(static_cast<size_t>(k)), 0, Target::Scratch(pack), at,
                  aux_len * es);
      } else {
        sink.Copy(Source::Host(std::vector<std::byte>(aux_len * es)), 0, Target::Scratch(pack), at,
                  aux_len * es);
      }
    }
    if (pack != aux) {
      EmitCast(sink, Source::Scratch(pack), type, Target::Scratch(aux), DataType::kFloat32,
               4 * aux_len);
    }
    return Source::Scratch(aux);
  }

  // The shader's parameters for an input of `shape` whose groups have `run` elements; returns
  // the length of each part of the auxiliary binding.
  uint64_t Params(const Shape& shape, uint64_t run, std::vector<uint32_t>& params,
                  const OperandDescriptor& desc) const {
    const bool batch = op_ == OpId::batchNormalization;
    const uint64_t aux_len =
        batch ? run : (op_ == OpId::instanceNormalization ? shape[a_.param_axes[0]] : run);
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
    return aux_len;
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
