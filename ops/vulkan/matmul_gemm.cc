// The vulkan backend's matmul (§api-mlgraphbuilder-matmul) and gemm (§api-mlgraphbuilder-gemm),
// as in the reference's ops/matmul_gemm.cc, on shaders/matmul.comp (compensated dot products; see
// the shader; parameters NNVK_MATMUL_P_* of shaders/params.h), or in the native arithmetic mode
// on shaders/matmul_native.comp (the tiled float32 GEMM of gemm_tile.glsl, same parameters; its
// direct variant on CPU devices for row-major float32 with K and N multiples of 4). Inputs
// are uploaded dense in their own shapes; matmul's broadcast batch axes become per-batch matrix
// offsets, gemm's transposes and c's broadcasting become strides. linear, alpha x + beta, is
// element-wise here (elementwise.cc).
#include "ops/matmul_gemm.h"

#include <array>
#include <bit>

#include "ops/vulkan/family.h"
#include "ops/vulkan/record.h"
#include "ops/vulkan/shaders/params.h"

namespace nnref::vk {

namespace {

class MatmulKernel final : public RecordableKernel {
 public:
  MatmulKernel(std::shared_ptr<Device> device, const GemmAttributes* gemm)
      : RecordableKernel(std::move(device)) {
    if (gemm) gemm_ = *gemm;
    is_gemm_ = gemm != nullptr;
  }

  // A, B and c are read dense in their own shapes: nothing on the host.

  void Emit(Sink& sink, std::span<const OperandValue* const>, std::span<const OperandDescriptor> in,
            std::span<const OperandDescriptor> out) const override {
    const OperandDescriptor& desc = out[0];
    const uint64_t count = desc.ElementCount();
    const OperandDescriptor& ta = in[0];
    const OperandDescriptor& tb = in[1];
    const size_t rank = desc.shape.size();
    const uint64_t M = desc.shape[rank - 2], N = desc.shape[rank - 1];
    uint64_t K = ta.shape[ta.shape.size() - 1];
    if (is_gemm_ && gemm_.aTranspose) K = ta.shape[0];
    if (count > 0) {
      const uint64_t batches = count / (M * N);
      std::vector<uint32_t> params(NNVK_MATMUL_P_OFFSETS + 2 * batches, 0);
      params[NNVK_MATMUL_P_TYPE] = static_cast<uint32_t>(desc.dataType);
      params[NNVK_MATMUL_P_M] = static_cast<uint32_t>(M);
      params[NNVK_MATMUL_P_N] = static_cast<uint32_t>(N);
      params[NNVK_MATMUL_P_K] = static_cast<uint32_t>(K);
      params[NNVK_MATMUL_P_BATCHES] = static_cast<uint32_t>(batches);
      // A is [.., M, K] (gemm aTranspose: [K, M]); B is [.., K, N] (bTranspose: [N, K]).
      const bool at = is_gemm_ && gemm_.aTranspose, bt = is_gemm_ && gemm_.bTranspose;
      params[NNVK_MATMUL_P_A_M] = static_cast<uint32_t>(at ? 1 : K);
      params[NNVK_MATMUL_P_A_K] = static_cast<uint32_t>(at ? M : 1);
      params[NNVK_MATMUL_P_B_K] = static_cast<uint32_t>(bt ? 1 : N);
      params[NNVK_MATMUL_P_B_N] = static_cast<uint32_t>(bt ? K : 1);
      std::vector<Source> sources;
      sources.push_back(Source::Input(0));
      sources.push_back(Source::Input(1));
      if (is_gemm_) {
        params[NNVK_MATMUL_P_ALPHA] = std::bit_cast<uint32_t>(static_cast<float>(gemm_.alpha));
        params[NNVK_MATMUL_P_BETA] = std::bit_cast<uint32_t>(static_cast<float>(gemm_.beta));
        params[NNVK_MATMUL_P_GEMM] = 1;
        if (in.size() > 2) {  // c (the node has a third input exactly with options.c)
          const OperandDescriptor& tc = in[2];
          params[NNVK_MATMUL_P_HAS_C] = 1;
          // c is unidirectionally broadcastable to [M, N] (rank 0, 1 or 2).
          const Shape& s = tc.shape;
          const uint64_t cn = s.empty() ? 1 : s.back();
          const uint64_t cm = s.size() < 2 ? 1 : s[0];
          params[NNVK_MATMUL_P_C_M] = static_cast<uint32_t>(cm == 1 ? 0 : cn);
          params[NNVK_MATMUL_P_C_N] = static_cast<uint32_t>(cn == 1 ? 0 : 1);
          sources.push_back(Source::Input(2));
        }
      }
      // Per output batch, the offsets of its A and B matrices (batch axes broadcast).
      const Shape batch_shape(desc.shape.begin(), desc.shape.end() - 2);
      const size_t br = batch_shape.size();
      auto batch_strides = [&](const OperandDescriptor& t) {
        std::vector<uint64_t> strides(br, 0);
        const size_t r = t.shape.size() - 2;
        uint64_t stride = t.shape[r + 1] * t.shape[r];
        for (size_t i = 0; i < r; ++i) {
          const size_t axis_in = r - 1 - i, axis_out = br - 1 - i;
          const uint64_t n = t.shape[axis_in];
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
        params[NNVK_MATMUL_P_OFFSETS + 2 * batch] = static_cast<uint32_t>(oa);
        params[NNVK_MATMUL_P_OFFSETS + 2 * batch + 1] = static_cast<uint32_t>(ob);
      }
      // The direct variant (CPU devices) reads row-major float32 A and B as aligned vec4s.
      const bool direct =
          desc.dataType == DataType::kFloat32 && !at && !bt && K % 4 == 0 && N % 4 == 0;
      if (device_->native() && direct && PreferDirectGemm(*device_)) {
        const uint32_t spec[] = {NNVK_GEMM_DIRECT, is_gemm_ ? 1u : 0u};
        sink.Run(Shader::kMatmulNative, params, std::move(sources), 0,
                 GemmDirectGroups(device_->info(), batches, M, N / 4), spec);
      } else if (device_->native()) {
        // float16 accumulated in float16_t where the device has shaderFloat16.
        const bool half = desc.dataType == DataType::kFloat16 && device_->float16_native();
        sink.Run(half ? Shader::kMatmulNativeF16 : Shader::kMatmulNative, params,
                 std::move(sources), 0, GemmTileGroups(device_->info(), batches, M, N));
      } else {
        sink.Run(Shader::kMatmul, params, std::move(sources), 0, WordGroups(desc));
      }
    }
  }

 private:
  GemmAttributes gemm_;
  bool is_gemm_ = false;
};

std::optional<std::string> Unsupported(OpId op, DataType type, const DeviceInfo&) {
  if (op != OpId::matmul && op != OpId::gemm) return std::nullopt;
  if (!IsFloat(type)) return std::string(DataTypeName(type)) + " not supported";
  return std::string();
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index,
                                   const std::shared_ptr<Device>& device, std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  const GemmAttributes* gemm = nullptr;
  if (node.op == OpId::gemm) {
    gemm = AttributesOf<GemmAttributes>(node, why);
    if (gemm == nullptr) return nullptr;
  }
  if (device->native() && !(why = NativeGemmUnsupported(*device)).empty()) return nullptr;
  return std::make_shared<MatmulKernel>(device, gemm);
}

}  // namespace

const Family kMatmulGemmFamily = {Unsupported, Make, nullptr};

}  // namespace nnref::vk
