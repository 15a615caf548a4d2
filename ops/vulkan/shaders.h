// The SPIR-V of ops/vulkan/shaders/*.comp, compiled by glslc at build time and embedded.
#pragma once

#include <cstddef>
#include <cstdint>

namespace nnref::vk {

// Every shader has the same interface: set 0, binding 0 = a uint array of parameters, bindings
// 1..3 = input tensors, binding 4 = the output tensor, all as uint arrays (32-bit words; narrower
// elements are packed, 64-bit ones take two words); local size 64.
inline constexpr uint32_t kInputBindings = 3;
inline constexpr uint32_t kBindings = kInputBindings + 2;
inline constexpr uint32_t kLocalSize = 64;

enum class Shader : uint8_t {
  kElementwise,    // elementwise.comp: 32-bit integer arithmetic
  kElementwise64,  // elementwise.comp with NNVK_INT64: 64-bit integer arithmetic (shaderInt64)
  kMatmul,         // matmul.comp: matmul and gemm
  kConv2d,         // conv2d.comp: conv2d and convTranspose2d
  kPool2d,         // pool2d.comp
  kPool2d64,       // pool2d.comp with NNVK_INT64 (maxPool2d of int64/uint64)
  kReduce,         // reduce.comp
  kReduce64,       // reduce.comp with NNVK_INT64
  kLayout,         // layout.comp: data movement
  kGather,         // gather.comp: gather and scatter
  kResample,       // resample.comp: resample2d
  kRnn,            // rnn.comp: one step of gru, gruCell, lstm, lstmCell
  kNnef,           // nnef.comp: the NNEF operator group (nnef.cc)
  kNnefQuantize,   // nnef_quantize.comp: the graph.quant quantization (shaderFloat64)
  // The native arithmetic mode's shaders (gemm_tile.glsl: one output tile per workgroup of 64
  // invocations; Device::Run's groups are tiles, not elements / 64: DispatchGemmTiles).
  kMatmulNative,         // matmul_native.comp: matmul and gemm
  kConv2dNative,         // conv2d_native.comp: conv2d and convTranspose2d
  kSoftmaxNative,        // softmax_native.comp: one workgroup per run
  kNormalizationNative,  // normalization_native.comp: instance/layerNormalization, one
                         // workgroup per run
  // The native mode's float16 variants (NNVK_FLOAT16: the Float16 capability, run only on a
  // device with shaderFloat16 enabled, Device::float16_native()).
  kElementwiseF16,   // elementwise.comp: float16 arithmetic in float16_t
  kMatmulNativeF16,  // matmul_native.comp: float16 matmul/gemm accumulated in float16_t
  kConv2dNativeF16,  // conv2d_native.comp: float16 conv2d/convTranspose2d likewise
  // The native mode's reductions of float32 and float16 (reduce_native.comp): one workgroup per
  // output; partials combined by a tree in shared memory, or (NNVK_SUBGROUP: a device with
  // subgroup arithmetic, Device::subgroup_arithmetic()) by subgroupAdd/Max/Min.
  kReduceNative,
  kReduceNativeSubgroup,
  // float16 runs computed in float16 where a float16 kernel does (NNVK_FLOAT16, as above).
  kSoftmaxNativeF16,        // softmax_native.comp: x - max, e^, the quotient in float16
  kNormalizationNativeF16,  // normalization_native.comp: the affine step in float16
  kPool2dNative,  // pool2d.comp with NNVK_NATIVE: float32 and float16 pools, plain float32 sums
  kCount
};

struct ShaderCode {
  const char* name;
  const uint32_t* words;
  size_t count;
  bool needs_int64;    // declares the Int64 capability
  bool needs_float16;  // declares the Float16 capability (shaderFloat16)
};

const ShaderCode& Code(Shader shader);

}  // namespace nnref::vk
