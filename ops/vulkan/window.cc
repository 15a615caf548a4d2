// The vulkan backend's pooling operators (§api-mlgraphbuilder-pool2d) on shaders/pool2d.comp:
// the input uploaded dense in its layout (nchw or nhwc), the output written in the same layout;
// resample2d on shaders/resample.comp.
#include "ops/pool2d.h"
#include "ops/resample2d.h"
#include "ops/vulkan/family.h"

namespace nnref::vk {

namespace {

class Pool2dKernel final : public Kernel {
 public:
  Pool2dKernel(std::shared_ptr<Device> device, uint32_t op, const Pool2dAttributes& a,
               Shader shader)
      : device_(std::move(device)), op_(op), a_(a), shader_(shader) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const OperandDescriptor& desc = out[0];
    Tensor result = Tensor::Allocate(desc.dataType, desc.shape);
    const uint64_t count = desc.ElementCount();
    if (count > 0) {
      const Tensor& input = in[0]->data;
      const ImageAxes ia = a_.image;
      const auto u = [](uint64_t v) { return static_cast<uint32_t>(v); };
      const auto s = [](int64_t v) { return static_cast<uint32_t>(v); };
      std::vector<uint32_t> params = {
          u(static_cast<uint64_t>(desc.dataType)),
          op_,
          u(desc.shape[ia.batch]),
          u(desc.shape[ia.channel]),
          u(input.shape()[ia.height]),
          u(input.shape()[ia.width]),
          u(desc.shape[ia.height]),
          u(desc.shape[ia.width]),
          s(a_.window_height),
          s(a_.window_width),
          s(a_.pad_top),
          s(a_.pad_left),
          s(a_.stride_height),
          s(a_.stride_width),
          s(a_.dilation_height),
          s(a_.dilation_width),
          ia.channel == 3 ? 1u : 0u,  // nhwc
      };
      const std::vector<std::byte> data = input.Bytes();
      const Bytes views[] = {data};
      Dispatch(*device_, shader_, params, views, result);
    }
    return OneOutput(std::move(result));
  }

 private:
  std::shared_ptr<Device> device_;
  uint32_t op_;
  Pool2dAttributes a_;
  Shader shader_;
};

// resample2d (§api-mlgraphbuilder-resample2d-method) on shaders/resample.comp.
class Resample2dKernel final : public Kernel {
 public:
  Resample2dKernel(std::shared_ptr<Device> device, const Resample2dAttributes& a)
      : device_(std::move(device)), a_(a) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const OperandDescriptor& desc = out[0];
    Tensor result = Tensor::Allocate(desc.dataType, desc.shape);
    const uint64_t count = desc.ElementCount();
    if (count > 0) {
      const Tensor& input = in[0]->data;
      const Strides dense = ContiguousStrides(input.shape());
      std::vector<uint32_t> params(20, 0);
      params[0] = static_cast<uint32_t>(desc.dataType);
      params[1] = a_.mode == MLInterpolationMode::kLinear ? 1 : 0;
      params[2] = static_cast<uint32_t>(count);
      params[3] = static_cast<uint32_t>(a_.axis_y);
      params[4] = static_cast<uint32_t>(a_.axis_x);
      for (size_t d = 0; d < 4; ++d) {
        params[8 + d] = static_cast<uint32_t>(desc.shape[d]);
        params[12 + d] = static_cast<uint32_t>(input.shape()[d]);
        params[16 + d] = static_cast<uint32_t>(dense[d]);
      }
      const std::vector<std::byte> data = input.Bytes();
      const Bytes views[] = {data};
      Dispatch(*device_, Shader::kResample, params, views, result);
    }
    return OneOutput(std::move(result));
  }

 private:
  std::shared_ptr<Device> device_;
  Resample2dAttributes a_;
};

int PoolCode(OpId op) {
  switch (op) {
    case OpId::averagePool2d:
      return 0;
    case OpId::l2Pool2d:
      return 1;
    case OpId::maxPool2d:
      return 2;
    default:
      return -1;
  }
}

std::optional<std::string> Unsupported(OpId op, DataType type, const DeviceInfo& device) {
  if (op == OpId::resample2d) return std::string();  // float32, float16, int8, uint8
  const int code = PoolCode(op);
  if (code < 0) return std::nullopt;
  if (code < 2 && !IsFloat(type)) return std::string(DataTypeName(type)) + " not supported";
  if (Is64Bit(type) && !device.shader_int64) {
    return std::string(DataTypeName(type)) + " needs shaderInt64";
  }
  return std::string();
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index,
                                   const std::shared_ptr<Device>& device, std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  if (node.op == OpId::resample2d) {
    const auto* r = AttributesOf<Resample2dAttributes>(node, why);
    if (r == nullptr) return nullptr;
    const Shape& out = graph.operand(node.outputs[0]).desc.shape;
    // The linear weights' products must stay exact: den_y den_x = 4 m_y m_x below 2^24, and
    // their product with an 8-bit value within int32.
    if (r->mode == MLInterpolationMode::kLinear &&
        4 * out[r->axis_y] * out[r->axis_x] >= (uint64_t{1} << 22)) {
      why = "linear resample2d with an output plane of " +
            std::to_string(out[r->axis_y] * out[r->axis_x]) + " elements is not implemented";
      return nullptr;
    }
    return std::make_shared<Resample2dKernel>(device, *r);
  }
  const auto* a = AttributesOf<Pool2dAttributes>(node, why);
  if (a == nullptr) return nullptr;
  const bool wide = Is64Bit(graph.operand(node.inputs[0]).desc.dataType);
  return std::make_shared<Pool2dKernel>(device, static_cast<uint32_t>(PoolCode(node.op)), *a,
                                        wide ? Shader::kPool2d64 : Shader::kPool2d);
}

}  // namespace

const Family kWindowFamily = {Unsupported, Make, nullptr};

}  // namespace nnref::vk
