// The vulkan backend's matmul (§api-mlgraphbuilder-matmul) and gemm (§api-mlgraphbuilder-gemm)
// on shaders/matmul.comp (compensated dot products; see the shader). Inputs are uploaded dense in
// their own shapes; matmul's broadcast batch axes become per-batch matrix offsets, gemm's
// transposes and c's broadcasting become strides.
#include <array>
#include <bit>

#include "ops/conv2d.h"
#include "ops/conv_transpose2d.h"
#include "ops/matmul_gemm.h"
#include "ops/vulkan/family.h"
#include "ops/vulkan/shaders/codes.h"

namespace nnref::vk {

namespace {

constexpr size_t kOffsets = 16;  // matmul.comp's P_OFFSETS

class MatmulKernel final : public Kernel {
 public:
  MatmulKernel(std::shared_ptr<Device> device, const GemmAttributes* gemm)
      : device_(std::move(device)) {
    if (gemm) gemm_ = *gemm;
    is_gemm_ = gemm != nullptr;
  }

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const OperandDescriptor& desc = out[0];
    Tensor result = Tensor::Allocate(desc.dataType, desc.shape);
    const uint64_t count = desc.ElementCount();
    const Tensor& ta = in[0]->data;
    const Tensor& tb = in[1]->data;
    const size_t rank = desc.shape.size();
    const uint64_t M = desc.shape[rank - 2], N = desc.shape[rank - 1];
    uint64_t K = ta.shape()[ta.rank() - 1];
    if (is_gemm_ && gemm_.aTranspose) K = ta.shape()[0];
    if (count > 0) {
      const uint64_t batches = count / (M * N);
      std::vector<uint32_t> params(kOffsets + 2 * batches, 0);
      params[0] = static_cast<uint32_t>(desc.dataType);
      params[1] = static_cast<uint32_t>(M);
      params[2] = static_cast<uint32_t>(N);
      params[3] = static_cast<uint32_t>(K);
      params[4] = static_cast<uint32_t>(batches);
      // A is [.., M, K] (gemm aTranspose: [K, M]); B is [.., K, N] (bTranspose: [N, K]).
      const bool at = is_gemm_ && gemm_.aTranspose, bt = is_gemm_ && gemm_.bTranspose;
      params[5] = static_cast<uint32_t>(at ? 1 : K);
      params[6] = static_cast<uint32_t>(at ? M : 1);
      params[7] = static_cast<uint32_t>(bt ? 1 : N);
      params[8] = static_cast<uint32_t>(bt ? K : 1);
      std::vector<std::vector<std::byte>> data{ta.Bytes(), tb.Bytes()};
      if (is_gemm_) {
        params[12] = std::bit_cast<uint32_t>(static_cast<float>(gemm_.alpha));
        params[13] = std::bit_cast<uint32_t>(static_cast<float>(gemm_.beta));
        params[14] = 1;
        if (in.size() > 2) {  // c (the node has a third input exactly with options.c)
          const Tensor& tc = in[2]->data;
          params[9] = 1;
          // c is unidirectionally broadcastable to [M, N] (rank 0, 1 or 2).
          const Shape& s = tc.shape();
          const uint64_t cn = s.empty() ? 1 : s.back();
          const uint64_t cm = s.size() < 2 ? 1 : s[0];
          params[10] = static_cast<uint32_t>(cm == 1 ? 0 : cn);
          params[11] = static_cast<uint32_t>(cn == 1 ? 0 : 1);
          data.push_back(tc.Bytes());
        }
      }
      // Per output batch, the offsets of its A and B matrices (batch axes broadcast).
      const Shape batch_shape(desc.shape.begin(), desc.shape.end() - 2);
      const size_t br = batch_shape.size();
      auto batch_strides = [&](const Tensor& t) {
        std::vector<uint64_t> strides(br, 0);
        const size_t r = t.rank() - 2;
        uint64_t stride = t.shape()[t.rank() - 1] * t.shape()[t.rank() - 2];
        for (size_t i = 0; i < r; ++i) {
          const size_t axis_in = r - 1 - i, axis_out = br - 1 - i;
          const uint64_t n = t.shape()[axis_in];
          strides[axis_out] = (n == 1 && batch_shape[axis_out] != 1) ? 0 : stride;
          stride *= n;
        }
        return strides;
      };
      const std::vector<uint64_t> sa = batch_strides(ta), sb = batch_strides(tb);
      for (uint64_t batch = 0; batch < batches; ++batch) {
        uint64_t rem = batch, oa = 0, ob = 0;
        for (size_t d = br; d-- > 0;) {
          const uint64_t coord = rem % batch_shape[d];
          rem /= batch_shape[d];
          oa += coord * sa[d];
          ob += coord * sb[d];
        }
        params[kOffsets + 2 * batch] = static_cast<uint32_t>(oa);
        params[kOffsets + 2 * batch + 1] = static_cast<uint32_t>(ob);
      }
      std::vector<Bytes> views(data.begin(), data.end());
      Dispatch(*device_, Shader::kMatmul, params, views, result);
    }
    return OneOutput(std::move(result));
  }

 private:
  std::shared_ptr<Device> device_;
  GemmAttributes gemm_;
  bool is_gemm_ = false;
};

// conv2d (§api-mlgraphbuilder-conv2d) on shaders/conv2d.comp: input and filter uploaded dense in
// their own layouts and read through strides; the output is written in the input layout.
// What Conv2dKernel reads of Conv2dAttributes / ConvTranspose2dAttributes.
struct ConvParams {
  int64_t pad_top = 0, pad_left = 0;
  int64_t stride_height = 1, stride_width = 1;
  int64_t dilation_height = 1, dilation_width = 1;
  int64_t groups = 1;
  ImageAxes image{0, 1, 2, 3};
  size_t fo = 0, fi = 1, fh = 2, fw = 3;  // which filter axis holds out, in, height, width
  bool transposed = false;
};

template <typename A>
ConvParams ConvParamsOf(const A& a) {
  ConvParams p;
  p.pad_top = a.pad_top;
  p.pad_left = a.pad_left;
  p.stride_height = a.stride_height;
  p.stride_width = a.stride_width;
  p.dilation_height = a.dilation_height;
  p.dilation_width = a.dilation_width;
  p.groups = a.groups;
  p.image = a.image;
  p.fo = a.filter.out;
  p.fi = a.filter.in;
  p.fh = a.filter.height;
  p.fw = a.filter.width;
  return p;
}

class Conv2dKernel final : public Kernel {
 public:
  // convTranspose2d (p.transposed): the same shader in gather form.
  Conv2dKernel(std::shared_ptr<Device> device, const ConvParams& p)
      : device_(std::move(device)), a_(p) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const OperandDescriptor& desc = out[0];
    Tensor result = Tensor::Allocate(desc.dataType, desc.shape);
    const uint64_t count = desc.ElementCount();
    if (count > 0) {
      const Tensor& input = in[0]->data;
      const Tensor& filter = in[1]->data;
      const ImageAxes ia = a_.image;
      const size_t fo = a_.fo, fi = a_.fi, fh = a_.fh, fw = a_.fw;
      const Strides is = ContiguousStrides(input.shape());
      const Strides fs = ContiguousStrides(filter.shape());
      const auto u = [](uint64_t v) { return static_cast<uint32_t>(v); };
      std::vector<uint32_t> params(30, 0);
      params[28] = a_.transposed ? 1 : 0;
      params[29] = u(filter.shape()[fo]);
      params[0] = u(static_cast<uint64_t>(desc.dataType));
      params[1] = u(desc.shape[ia.batch]);
      params[2] = u(input.shape()[ia.channel]);
      params[3] = u(input.shape()[ia.height]);
      params[4] = u(input.shape()[ia.width]);
      params[5] = u(desc.shape[ia.channel]);
      params[6] = u(desc.shape[ia.height]);
      params[7] = u(desc.shape[ia.width]);
      // Input channels per group: the filter's for conv2d, the input's / groups for transpose.
      params[8] = a_.transposed ? u(input.shape()[ia.channel] / static_cast<uint64_t>(a_.groups))
                                : u(filter.shape()[fi]);
      params[9] = u(filter.shape()[fh]);
      params[10] = u(filter.shape()[fw]);
      const auto s = [](int64_t v) { return static_cast<uint32_t>(v); };
      params[11] = s(a_.pad_top);
      params[12] = s(a_.pad_left);
      params[13] = s(a_.stride_height);
      params[14] = s(a_.stride_width);
      params[15] = s(a_.dilation_height);
      params[16] = s(a_.dilation_width);
      params[17] = s(a_.groups);
      params[18] = in.size() > 2 ? 1 : 0;    // the node has a bias input exactly with options.bias
      params[19] = ia.channel == 3 ? 1 : 0;  // nhwc
      params[20] = u(static_cast<uint64_t>(is[ia.batch]));
      params[21] = u(static_cast<uint64_t>(is[ia.channel]));
      params[22] = u(static_cast<uint64_t>(is[ia.height]));
      params[23] = u(static_cast<uint64_t>(is[ia.width]));
      params[24] = u(static_cast<uint64_t>(fs[fo]));
      params[25] = u(static_cast<uint64_t>(fs[fi]));
      params[26] = u(static_cast<uint64_t>(fs[fh]));
      params[27] = u(static_cast<uint64_t>(fs[fw]));
      std::vector<std::vector<std::byte>> data{input.Bytes(), filter.Bytes()};
      if (params[18]) data.push_back(in[2]->data.Bytes());
      std::vector<Bytes> views(data.begin(), data.end());
      Dispatch(*device_, Shader::kConv2d, params, views, result);
    }
    return OneOutput(std::move(result));
  }

 private:
  std::shared_ptr<Device> device_;
  ConvParams a_;
};

std::optional<std::string> Unsupported(OpId op, DataType type, const DeviceInfo&) {
  if (op != OpId::matmul && op != OpId::gemm && op != OpId::conv2d && op != OpId::convTranspose2d) {
    return std::nullopt;
  }
  if (!IsFloat(type)) return std::string(DataTypeName(type)) + " not supported";
  return std::string();
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index,
                                   const std::shared_ptr<Device>& device, std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  if (node.op == OpId::conv2d) {
    const auto* conv = AttributesOf<Conv2dAttributes>(node, why);
    if (conv == nullptr) return nullptr;
    return std::make_shared<Conv2dKernel>(device, ConvParamsOf(*conv));
  }
  if (node.op == OpId::convTranspose2d) {
    const auto* conv = AttributesOf<ConvTranspose2dAttributes>(node, why);
    if (conv == nullptr) return nullptr;
    ConvParams p = ConvParamsOf(*conv);
    p.transposed = true;
    return std::make_shared<Conv2dKernel>(device, p);
  }
  const GemmAttributes* gemm = nullptr;
  if (node.op == OpId::gemm) {
    gemm = AttributesOf<GemmAttributes>(node, why);
    if (gemm == nullptr) return nullptr;
  }
  return std::make_shared<MatmulKernel>(device, gemm);
}

}  // namespace

const Family kLinearAlgebraFamily = {Unsupported, Make, nullptr};

}  // namespace nnref::vk
