// The vulkan backend's element-wise family (shaders/elementwise.comp): binary
// (§api-mlgraphbuilder-binary), unary (§api-mlgraphbuilder-unary), logical
// (§api-mlgraphbuilder-logical), cast (§api-mlgraphbuilder-cast), clamp
// (§api-mlgraphbuilder-clamp), where (§api-mlgraphbuilder-where), the element-wise activations and
// quantizeLinear / dequantizeLinear (blockwise broadcast scale and zeroPoint), for every data type
// the builder admits (int64/uint64 when the device has shaderInt64). Each input is uploaded dense
// in its own shape; broadcasting is a zero stride in the shader's parameter block.
#include <array>
#include <bit>
#include <cstring>
#include <map>

#include "ops/activations.h"
#include "ops/cast_clamp_where.h"
#include "ops/matmul_gemm.h"
#include "ops/vulkan/family.h"
#include "ops/vulkan/record.h"
#include "ops/vulkan/shaders/codes.h"
#include "ops/vulkan/shaders/params.h"

namespace nnref::vk {

namespace {

struct OpEntry {
  uint32_t kind;
  uint32_t code;
  bool integer;  // integer data types are computed for this operator
};

// The entry of each operator of this family; nullopt for the others.
std::optional<OpEntry> EntryOf(OpId op) {
  switch (op) {
    case OpId::add:
      return OpEntry{NNVK_KIND_BINARY, NNVK_ADD, true};
    case OpId::sub:
      return OpEntry{NNVK_KIND_BINARY, NNVK_SUB, true};
    case OpId::mul:
      return OpEntry{NNVK_KIND_BINARY, NNVK_MUL, true};
    case OpId::div:
      return OpEntry{NNVK_KIND_BINARY, NNVK_DIV, true};
    case OpId::max:
      return OpEntry{NNVK_KIND_BINARY, NNVK_MAX, true};
    case OpId::min:
      return OpEntry{NNVK_KIND_BINARY, NNVK_MIN, true};
    case OpId::pow:
      return OpEntry{NNVK_KIND_BINARY, NNVK_POW, true};
    case OpId::prelu:
      return OpEntry{NNVK_KIND_BINARY, NNVK_PRELU, true};
    case OpId::abs:
      return OpEntry{NNVK_KIND_UNARY, NNVK_ABS, true};
    case OpId::ceil:
      return OpEntry{NNVK_KIND_UNARY, NNVK_CEIL, false};
    case OpId::cos:
      return OpEntry{NNVK_KIND_UNARY, NNVK_COS, false};
    case OpId::erf:
      return OpEntry{NNVK_KIND_UNARY, NNVK_ERF, false};
    case OpId::exp:
      return OpEntry{NNVK_KIND_UNARY, NNVK_EXP, false};
    case OpId::floor:
      return OpEntry{NNVK_KIND_UNARY, NNVK_FLOOR, false};
    case OpId::identity:
      return OpEntry{NNVK_KIND_UNARY, NNVK_IDENTITY, true};
    case OpId::log:
      return OpEntry{NNVK_KIND_UNARY, NNVK_LOG, false};
    case OpId::neg:
      return OpEntry{NNVK_KIND_UNARY, NNVK_NEG, true};
    case OpId::reciprocal:
      return OpEntry{NNVK_KIND_UNARY, NNVK_RECIPROCAL, false};
    case OpId::roundEven:
      return OpEntry{NNVK_KIND_UNARY, NNVK_ROUND_EVEN, false};
    case OpId::sin:
      return OpEntry{NNVK_KIND_UNARY, NNVK_SIN, false};
    case OpId::sign:
      return OpEntry{NNVK_KIND_UNARY, NNVK_SIGN, true};
    case OpId::sqrt:
      return OpEntry{NNVK_KIND_UNARY, NNVK_SQRT, false};
    case OpId::tan:
      return OpEntry{NNVK_KIND_UNARY, NNVK_TAN, false};
    case OpId::elu:
      return OpEntry{NNVK_KIND_UNARY, NNVK_ELU, false};
    case OpId::gelu:
      return OpEntry{NNVK_KIND_UNARY, NNVK_GELU, false};
    case OpId::hardSigmoid:
      return OpEntry{NNVK_KIND_UNARY, NNVK_HARD_SIGMOID, false};
    case OpId::hardSwish:
      return OpEntry{NNVK_KIND_UNARY, NNVK_HARD_SWISH, false};
    case OpId::leakyRelu:
      return OpEntry{NNVK_KIND_UNARY, NNVK_LEAKY_RELU, false};
    case OpId::linear:
      return OpEntry{NNVK_KIND_UNARY, NNVK_LINEAR, false};
    case OpId::relu:
      return OpEntry{NNVK_KIND_UNARY, NNVK_RELU, true};
    case OpId::sigmoid:
      return OpEntry{NNVK_KIND_UNARY, NNVK_SIGMOID, false};
    case OpId::softplus:
      return OpEntry{NNVK_KIND_UNARY, NNVK_SOFTPLUS, false};
    case OpId::softsign:
      return OpEntry{NNVK_KIND_UNARY, NNVK_SOFTSIGN, false};
    case OpId::tanh:
      return OpEntry{NNVK_KIND_UNARY, NNVK_TANH, false};
    case OpId::equal:
      return OpEntry{NNVK_KIND_LOGICAL, NNVK_EQUAL, true};
    case OpId::notEqual:
      return OpEntry{NNVK_KIND_LOGICAL, NNVK_NOT_EQUAL, true};
    case OpId::greater:
      return OpEntry{NNVK_KIND_LOGICAL, NNVK_GREATER, true};
    case OpId::greaterOrEqual:
      return OpEntry{NNVK_KIND_LOGICAL, NNVK_GREATER_OR_EQUAL, true};
    case OpId::lesser:
      return OpEntry{NNVK_KIND_LOGICAL, NNVK_LESSER, true};
    case OpId::lesserOrEqual:
      return OpEntry{NNVK_KIND_LOGICAL, NNVK_LESSER_OR_EQUAL, true};
    case OpId::logicalNot:
      return OpEntry{NNVK_KIND_LOGICAL, NNVK_LOGICAL_NOT, true};
    case OpId::logicalAnd:
      return OpEntry{NNVK_KIND_LOGICAL, NNVK_LOGICAL_AND, true};
    case OpId::logicalOr:
      return OpEntry{NNVK_KIND_LOGICAL, NNVK_LOGICAL_OR, true};
    case OpId::logicalXor:
      return OpEntry{NNVK_KIND_LOGICAL, NNVK_LOGICAL_XOR, true};
    case OpId::isNaN:
      return OpEntry{NNVK_KIND_LOGICAL, NNVK_IS_NAN, true};
    case OpId::isInfinite:
      return OpEntry{NNVK_KIND_LOGICAL, NNVK_IS_INFINITE, true};
    case OpId::cast:
      return OpEntry{NNVK_KIND_CAST, 0, true};
    case OpId::clamp:
      return OpEntry{NNVK_KIND_CLAMP, 0, true};
    case OpId::where:
      return OpEntry{NNVK_KIND_WHERE, 0, true};
    case OpId::quantizeLinear:
      return OpEntry{NNVK_KIND_QUANTIZE, 0, false};
    case OpId::dequantizeLinear:
      return OpEntry{NNVK_KIND_DEQUANTIZE, 0, true};
    default:
      return std::nullopt;
  }
}

// The raw bits of a scalar tensor's element as two words (low, high).
std::array<uint32_t, 2> ScalarWords(const Tensor& t) {
  std::array<uint32_t, 2> w{0, 0};
  if (!t.valid()) return w;
  const std::vector<std::byte> bytes = t.Bytes();
  std::memcpy(w.data(), bytes.data(), std::min<size_t>(bytes.size(), sizeof w));
  return w;
}

class ElementwiseKernel final : public RecordableKernel {
 public:
  ElementwiseKernel(OpEntry entry, const OperatorNode& node, std::shared_ptr<Device> device,
                    Shader shader)
      : RecordableKernel(std::move(device)), entry_(entry), shader_(shader) {
    if (const auto* a = node.Attributes<ActivationAttributes>()) {
      alpha_ = static_cast<float>(a->alpha);
      beta_ = static_cast<float>(a->beta);
    }
    if (const auto* a = node.Attributes<LinearAttributes>()) {
      alpha_ = static_cast<float>(a->alpha);
      beta_ = static_cast<float>(a->beta);
    }
    if (const auto* a = node.Attributes<ClampAttributes>()) {
      min_ = ScalarWords(a->min);
      max_ = ScalarWords(a->max);
    }
  }

  // Every input is read dense in its own shape: nothing on the host.

  void Emit(Sink& sink, std::span<const OperandValue* const>, std::span<const OperandDescriptor> in,
            std::span<const OperandDescriptor> out) const override {
    const OperandDescriptor& desc = out[0];
    const uint64_t count = desc.ElementCount();
    if (count > 0) {
      const size_t rank = desc.shape.size();
      std::vector<uint32_t> params(NNVK_P_SHAPE + 7 * rank, 0);
      params[NNVK_P_KIND] = entry_.kind;
      params[NNVK_P_CODE] = entry_.code;
      params[NNVK_P_OUT_TYPE] = static_cast<uint32_t>(desc.dataType);
      params[NNVK_P_COUNT] = static_cast<uint32_t>(count);
      params[NNVK_P_RANK] = static_cast<uint32_t>(rank);
      params[NNVK_P_ALPHA] = std::bit_cast<uint32_t>(alpha_);
      params[NNVK_P_BETA] = std::bit_cast<uint32_t>(beta_);
      params[NNVK_P_MIN] = min_[0];
      params[NNVK_P_MIN + 1] = min_[1];
      params[NNVK_P_MAX] = max_[0];
      params[NNVK_P_MAX + 1] = max_[1];
      params[NNVK_P_NATIVE] = device_->native() ? 1 : 0;
      for (size_t d = 0; d < rank; ++d) {
        params[NNVK_P_SHAPE + d] = static_cast<uint32_t>(desc.shape[d]);
      }
      std::vector<Source> sources;
      for (size_t k = 0; k < in.size(); ++k) {
        const OperandDescriptor& t = in[k];
        params[NNVK_P_IN_TYPE + k] = static_cast<uint32_t>(t.dataType);
        sources.push_back(Source::Input(k));
        // Dense strides of the input's own shape, right-aligned to the output, and the block
        // size per axis: output size / input size (1 normally, the output size on a broadcast
        // axis, the block length for blockwise broadcasting); missing axes: stride 0.
        const size_t r = t.shape.size();
        uint64_t stride = 1;
        for (size_t d = 0; d < rank; ++d) params[NNVK_P_SHAPE + (k + 4) * rank + d] = 1;
        for (size_t i = 0; i < r; ++i) {
          const size_t axis_in = r - 1 - i, axis_out = rank - 1 - i;
          const uint64_t n = t.shape[axis_in];
          params[NNVK_P_SHAPE + (k + 1) * rank + axis_out] = static_cast<uint32_t>(stride);
          params[NNVK_P_SHAPE + (k + 4) * rank + axis_out] =
              static_cast<uint32_t>(n == 0 ? 1 : desc.shape[axis_out] / n);
          stride *= n;
        }
      }
      // A specialized pipeline for large outputs only (elementwise.comp: its compilation costs
      // as much as computing about 2^18 elements with the generic one on lavapipe).
      const std::array<uint32_t, 2> spec = {entry_.kind, entry_.code};
      const bool specialize = count >= (uint64_t{1} << 18);
      sink.Run(shader_, params, std::move(sources), 0, WordGroups(desc),
               specialize ? std::span<const uint32_t>(spec) : std::span<const uint32_t>());
    }
  }

 private:
  OpEntry entry_;
  Shader shader_;
  float alpha_ = 0, beta_ = 0;
  std::array<uint32_t, 2> min_{}, max_{};
};

std::optional<std::string> Unsupported(OpId op, DataType type, const DeviceInfo& device) {
  const std::optional<OpEntry> entry = EntryOf(op);
  if (!entry) return std::nullopt;
  if (!IsFloat(type) && !entry->integer) {
    return std::string(DataTypeName(type)) + " not supported";
  }
  if (Is64Bit(type) && !device.shader_int64) {
    return std::string(DataTypeName(type)) + " needs shaderInt64";
  }
  const uint32_t kind = entry->kind;
  if ((kind == NNVK_KIND_QUANTIZE || kind == NNVK_KIND_DEQUANTIZE) && !device.shader_int64) {
    return std::string("needs shaderInt64");
  }
  return std::string();
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index,
                                   const std::shared_ptr<Device>& device, std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  const std::optional<OpEntry> entry = EntryOf(node.op);
  if (!entry) {
    why = "not implemented";
    return nullptr;
  }
  bool wide = entry->kind == NNVK_KIND_QUANTIZE || entry->kind == NNVK_KIND_DEQUANTIZE;
  for (const auto* ids : {&node.inputs, &node.outputs}) {
    for (OperandId id : *ids) wide = wide || Is64Bit(graph.operand(id).desc.dataType);
  }
  if (wide && !device->info().shader_int64) {
    why = "int64/uint64 and quantization need shaderInt64";
    return nullptr;
  }
  if (node.inputs.size() > kInputBindings || node.outputs.size() != 1) {
    why = "unexpected operand count";
    return nullptr;
  }
  // The native mode's float16 arithmetic in float16_t (shaderFloat16; the shader decides per
  // operator which ones, docs/vulkan.md#arithmetic-modes).
  bool half = false;
  for (const auto* ids : {&node.inputs, &node.outputs}) {
    for (OperandId id : *ids) half = half || graph.operand(id).desc.dataType == DataType::kFloat16;
  }
  Shader shader = Shader::kElementwise;
  if (wide) {
    shader = Shader::kElementwise64;
  } else if (half && device->float16_native()) {
    shader = Shader::kElementwiseF16;
  }
  return std::make_shared<ElementwiseKernel>(*entry, node, device, shader);
}

// Every operator of the family but quantizeLinear and dequantizeLinear, whose blockwise
// broadcasting of scale and zeroPoint does not slice with the output.
bool Splittable(OpId op) {
  const std::optional<OpEntry> entry = EntryOf(op);
  return entry && entry->kind != NNVK_KIND_QUANTIZE && entry->kind != NNVK_KIND_DEQUANTIZE;
}

}  // namespace

void EmitCast(Sink& sink, Source from, DataType from_type, Target to, DataType to_type,
              uint64_t count) {
  if (count == 0) return;
  // One axis of `count` elements: input stride 1, block 1 (elementwise.comp's layout above).
  std::vector<uint32_t> params(NNVK_P_SHAPE + 7, 0);
  params[NNVK_P_KIND] = NNVK_KIND_CAST;
  params[NNVK_P_OUT_TYPE] = static_cast<uint32_t>(to_type);
  params[NNVK_P_IN_TYPE] = static_cast<uint32_t>(from_type);
  params[NNVK_P_COUNT] = static_cast<uint32_t>(count);
  params[NNVK_P_RANK] = 1;
  params[NNVK_P_SHAPE] = static_cast<uint32_t>(count);
  params[NNVK_P_SHAPE + 1] = 1;                                     // input 0's stride
  for (size_t k = 0; k < 3; ++k) params[NNVK_P_SHAPE + 4 + k] = 1;  // blocks
  std::vector<Source> sources;
  sources.push_back(std::move(from));
  const bool wide = Is64Bit(from_type) || Is64Bit(to_type);
  sink.Run(wide ? Shader::kElementwise64 : Shader::kElementwise, params, std::move(sources), to,
           WordGroups({to_type, {count}}));
}

const Family kElementwiseFamily = {Unsupported, Make, Splittable};

}  // namespace nnref::vk
