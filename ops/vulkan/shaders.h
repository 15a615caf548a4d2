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
  kCount
};

struct ShaderCode {
  const char* name;
  const uint32_t* words;
  size_t count;
  bool needs_int64;  // declares the Int64 capability
};

const ShaderCode& Code(Shader shader);

}  // namespace nnref::vk
