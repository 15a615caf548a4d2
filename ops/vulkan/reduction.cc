// The vulkan backend's reductions (§api-mlgraphbuilder-reduce) on shaders/reduce.comp. The input
// is uploaded with its kept axes first and its reduced axes last (a permuted copy), so that each
// output element reduces one dense run.
#include "ops/reduction.h"

#include <bit>
#include <numeric>

#include "numerics/float16.h"
#include "ops/arg_cumulative.h"
#include "ops/normalization.h"
#include "ops/softmax.h"
#include "ops/vulkan/family.h"

namespace nnref::vk {

namespace {

constexpr ReduceOp kReduceOps[] = {ReduceOp::kL1,        ReduceOp::kL2,      ReduceOp::kLogSum,
                                   ReduceOp::kLogSumExp, ReduceOp::kMax,     ReduceOp::kMean,
                                   ReduceOp::kMin,       ReduceOp::kProduct, ReduceOp::kSum,
                                   ReduceOp::kSumSquare};

class ReduceKernel final : public Kernel {
 public:
  ReduceKernel(std::shared_ptr<Device> device, const ReduceAttributes& a, Shader shader)
      : device_(std::move(device)), a_(a), shader_(shader) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const OperandDescriptor& desc = out[0];
    Tensor result = Tensor::Allocate(desc.dataType, desc.shape);
    const uint64_t count = desc.ElementCount();
    if (count > 0) {
      const Tensor& input = in[0]->data;
      std::vector<uint32_t> perm;
      uint64_t run = 1;
      for (uint32_t axis = 0; axis < input.rank(); ++axis) {
        if (!a_.reduced[axis]) perm.push_back(axis);
      }
      for (uint32_t axis = 0; axis < input.rank(); ++axis) {
        if (a_.reduced[axis]) {
          perm.push_back(axis);
          run *= input.shape()[axis];
        }
      }
      const std::vector<std::byte> data =
          input.rank() == 0 ? input.Bytes() : input.Permute(perm).Bytes();
      const Bytes views[] = {data};
      const std::vector<uint32_t> params = {
          static_cast<uint32_t>(desc.dataType), static_cast<uint32_t>(a_.op),
          static_cast<uint32_t>(run), static_cast<uint32_t>(count)};
      Dispatch(*device_, shader_, params, views, result);
    }
    return OneOutput(std::move(result));
  }

 private:
  std::shared_ptr<Device> device_;
  ReduceAttributes a_;
  Shader shader_;
};

// softmax on the same shader (op 10): the axis moved last, the result moved back.
class SoftmaxKernel final : public Kernel {
 public:
  SoftmaxKernel(std::shared_ptr<Device> device, size_t axis)
      : device_(std::move(device)), axis_(axis) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const OperandDescriptor& desc = out[0];
    const Tensor& input = in[0]->data;
    const uint32_t rank = static_cast<uint32_t>(input.rank());
    std::vector<uint32_t> perm, inverse(rank);
    for (uint32_t axis = 0; axis < rank; ++axis) {
      if (axis != axis_) perm.push_back(axis);
    }
    perm.push_back(static_cast<uint32_t>(axis_));
    for (uint32_t i = 0; i < rank; ++i) inverse[perm[i]] = i;
    const Tensor moved = input.Permute(perm);
    Tensor result = Tensor::Allocate(desc.dataType, moved.shape());
    const uint64_t count = desc.ElementCount();
    if (count > 0) {
      const std::vector<std::byte> data = moved.Bytes();
      const Bytes views[] = {data};
      const std::vector<uint32_t> params = {static_cast<uint32_t>(desc.dataType), 10,
                                            static_cast<uint32_t>(input.shape()[axis_]),
                                            static_cast<uint32_t>(count)};
      Dispatch(*device_, Shader::kReduce, params, views, result);
    }
    return OneOutput(result.Permute(inverse).Contiguous());
  }

 private:
  std::shared_ptr<Device> device_;
  size_t axis_;
};

// batchNormalization, instanceNormalization, layerNormalization on the same shader (op 11): the
// normalized axes moved last (batch: its channel axis), the result moved back; scale, bias, mean
// and variance widened to float32 (exact) into one auxiliary buffer.
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
      const uint32_t flags = (a_.scale_input >= 0 ? 1u : 0u) | (a_.bias_input >= 0 ? 2u : 0u) |
                             (batch ? 4u : 0u) | (op_ == OpId::instanceNormalization ? 8u : 0u);
      const std::vector<uint32_t> params = {static_cast<uint32_t>(desc.dataType),
                                            11,
                                            static_cast<uint32_t>(batch ? 1 : run),
                                            static_cast<uint32_t>(count),
                                            std::bit_cast<uint32_t>(static_cast<float>(a_.epsilon)),
                                            flags,
                                            static_cast<uint32_t>(aux_len)};
      Dispatch(*device_, Shader::kReduce, params, views, result);
    }
    return OneOutput(rank == 0 ? result : result.Permute(inverse).Contiguous());
  }

 private:
  std::shared_ptr<Device> device_;
  OpId op_;
  NormalizationAttributes a_;
  std::vector<size_t> axes_;
};

// argMin, argMax and cumulativeSum on the same shader (ops 12-14): the axis moved last;
// cumulativeSum's result (one per input element) moved back.
// What ArgCumulativeKernel reads of ArgMinMaxAttributes / CumulativeSumAttributes.
struct ArgCumulativeParams {
  uint32_t axis = 0;
  bool is_max = false;                       // argMax (else argMin)
  bool exclusive = false, reversed = false;  // cumulativeSum
};

class ArgCumulativeKernel final : public Kernel {
 public:
  ArgCumulativeKernel(std::shared_ptr<Device> device, OpId op, const ArgCumulativeParams& a,
                      Shader shader)
      : device_(std::move(device)), op_(op), a_(a), shader_(shader) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const OperandDescriptor& desc = out[0];
    const Tensor& input = in[0]->data;
    const uint32_t rank = static_cast<uint32_t>(input.rank());
    std::vector<uint32_t> perm, inverse(rank);
    for (uint32_t axis = 0; axis < rank; ++axis) {
      if (axis != a_.axis) perm.push_back(axis);
    }
    perm.push_back(a_.axis);
    for (uint32_t i = 0; i < rank; ++i) inverse[perm[i]] = i;
    const Tensor moved = input.Permute(perm);
    const bool cumulative = op_ == OpId::cumulativeSum;
    Tensor result = cumulative ? Tensor::Allocate(desc.dataType, moved.shape())
                               : Tensor::Allocate(desc.dataType, desc.shape);
    const uint64_t count = desc.ElementCount();
    if (count > 0) {
      const std::vector<std::byte> data = moved.Bytes();
      const Bytes views[] = {data};
      const uint32_t code = cumulative ? 14u : (a_.is_max ? 13u : 12u);
      const std::vector<uint32_t> params = {static_cast<uint32_t>(input.dtype()),
                                            code,
                                            static_cast<uint32_t>(input.shape()[a_.axis]),
                                            static_cast<uint32_t>(count),
                                            (a_.exclusive ? 1u : 0u) | (a_.reversed ? 2u : 0u),
                                            0,
                                            0,
                                            static_cast<uint32_t>(desc.dataType)};
      Dispatch(*device_, shader_, params, views, result);
    }
    return OneOutput(cumulative ? result.Permute(inverse).Contiguous() : result);
  }

 private:
  std::shared_ptr<Device> device_;
  OpId op_;
  ArgCumulativeParams a_;
  Shader shader_;
};

bool IsArgCumulative(OpId op) {
  return op == OpId::argMin || op == OpId::argMax || op == OpId::cumulativeSum;
}

bool IsNormalization(OpId op) {
  return op == OpId::batchNormalization || op == OpId::instanceNormalization ||
         op == OpId::layerNormalization;
}

bool IsReduce(OpId op) {
  for (ReduceOp r : kReduceOps) {
    if (op == ReduceOpId(r)) return true;
  }
  return false;
}

std::optional<std::string> Unsupported(OpId op, DataType type, const DeviceInfo& device) {
  if (op == OpId::softmax || IsNormalization(op)) return std::string();  // float32, float16
  if (!IsReduce(op) && !IsArgCumulative(op)) return std::nullopt;
  if (Is64Bit(type) && !device.shader_int64) {
    return std::string(DataTypeName(type)) + " needs shaderInt64";
  }
  return std::string();  // the builder admitted the type: the shader covers every one
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index,
                                   const std::shared_ptr<Device>& device, std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  if (node.op == OpId::softmax) {
    const auto* s = AttributesOf<SoftmaxAttributes>(node, why);
    if (s == nullptr) return nullptr;
    return std::make_shared<SoftmaxKernel>(device, s->axis);
  }
  if (IsArgCumulative(node.op)) {
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
  if (IsNormalization(node.op)) {
    const auto* n = AttributesOf<NormalizationAttributes>(node, why);
    if (n == nullptr) return nullptr;
    return std::make_shared<NormalizationKernel>(device, node.op, *n);
  }
  const auto* a = AttributesOf<ReduceAttributes>(node, why);
  if (a == nullptr) return nullptr;
  const bool wide = Is64Bit(graph.operand(node.inputs[0]).desc.dataType);
  return std::make_shared<ReduceKernel>(device, *a, wide ? Shader::kReduce64 : Shader::kReduce);
}

}  // namespace

const Family kReductionFamily = {Unsupported, Make, nullptr};

}  // namespace nnref::vk
