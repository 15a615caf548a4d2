#include "ops/vulkan/shaders.h"

#include <iterator>

namespace nnref::vk {

namespace {
// glslc -mfmt=num output: a bare comma-separated list of SPIR-V words (ops/vulkan/CMakeLists.txt).
const uint32_t kElementwise[] = {
#include "ops/vulkan/shaders/elementwise.spv.inc"
};
const uint32_t kElementwise64[] = {
#include "ops/vulkan/shaders/elementwise64.spv.inc"
};
const uint32_t kMatmul[] = {
#include "ops/vulkan/shaders/matmul.spv.inc"
};

const uint32_t kConv2d[] = {
#include "ops/vulkan/shaders/conv2d.spv.inc"
};

const uint32_t kPool2d[] = {
#include "ops/vulkan/shaders/pool2d.spv.inc"
};
const uint32_t kPool2d64[] = {
#include "ops/vulkan/shaders/pool2d64.spv.inc"
};

const uint32_t kReduce[] = {
#include "ops/vulkan/shaders/reduce.spv.inc"
};
const uint32_t kReduce64[] = {
#include "ops/vulkan/shaders/reduce64.spv.inc"
};

const uint32_t kLayout[] = {
#include "ops/vulkan/shaders/layout.spv.inc"
};

const uint32_t kGather[] = {
#include "ops/vulkan/shaders/gather.spv.inc"
};

const uint32_t kResample[] = {
#include "ops/vulkan/shaders/resample.spv.inc"
};

const uint32_t kRnn[] = {
#include "ops/vulkan/shaders/rnn.spv.inc"
};

const uint32_t kNnef[] = {
#include "ops/vulkan/shaders/nnef.spv.inc"
};

const uint32_t kNnefQuantize[] = {
#include "ops/vulkan/shaders/nnef_quantize.spv.inc"
};

const uint32_t kMatmulNative[] = {
#include "ops/vulkan/shaders/matmul_native.spv.inc"
};
const uint32_t kConv2dNative[] = {
#include "ops/vulkan/shaders/conv2d_native.spv.inc"
};
const uint32_t kSoftmaxNative[] = {
#include "ops/vulkan/shaders/softmax_native.spv.inc"
};
const uint32_t kNormalizationNative[] = {
#include "ops/vulkan/shaders/normalization_native.spv.inc"
};

const uint32_t kElementwiseF16[] = {
#include "ops/vulkan/shaders/elementwise_f16.spv.inc"
};
const uint32_t kMatmulNativeF16[] = {
#include "ops/vulkan/shaders/matmul_native_f16.spv.inc"
};
const uint32_t kConv2dNativeF16[] = {
#include "ops/vulkan/shaders/conv2d_native_f16.spv.inc"
};

const uint32_t kReduceNative[] = {
#include "ops/vulkan/shaders/reduce_native.spv.inc"
};
const uint32_t kReduceNativeSubgroup[] = {
#include "ops/vulkan/shaders/reduce_native_subgroup.spv.inc"
};

const uint32_t kSoftmaxNativeF16[] = {
#include "ops/vulkan/shaders/softmax_native_f16.spv.inc"
};
const uint32_t kNormalizationNativeF16[] = {
#include "ops/vulkan/shaders/normalization_native_f16.spv.inc"
};

const uint32_t kPool2dNative[] = {
#include "ops/vulkan/shaders/pool2d_native.spv.inc"
};

const ShaderCode kCodes[] = {
    {"elementwise.comp", kElementwise, std::size(kElementwise), false, false},
    {"elementwise.comp (NNVK_INT64)", kElementwise64, std::size(kElementwise64), true, false},
    {"matmul.comp", kMatmul, std::size(kMatmul), false, false},
    {"conv2d.comp", kConv2d, std::size(kConv2d), false, false},
    {"pool2d.comp", kPool2d, std::size(kPool2d), false, false},
    {"pool2d.comp (NNVK_INT64)", kPool2d64, std::size(kPool2d64), true, false},
    {"reduce.comp", kReduce, std::size(kReduce), false, false},
    {"reduce.comp (NNVK_INT64)", kReduce64, std::size(kReduce64), true, false},
    {"layout.comp", kLayout, std::size(kLayout), false, false},
    {"gather.comp", kGather, std::size(kGather), false, false},
    {"resample.comp", kResample, std::size(kResample), false, false},
    {"rnn.comp", kRnn, std::size(kRnn), false, false},
    {"nnef.comp", kNnef, std::size(kNnef), false, false},
    {"nnef_quantize.comp", kNnefQuantize, std::size(kNnefQuantize), false, false},
    {"matmul_native.comp", kMatmulNative, std::size(kMatmulNative), false, false},
    {"conv2d_native.comp", kConv2dNative, std::size(kConv2dNative), false, false},
    {"softmax_native.comp", kSoftmaxNative, std::size(kSoftmaxNative), false, false},
    {"normalization_native.comp", kNormalizationNative, std::size(kNormalizationNative), false,
     false},
    {"elementwise.comp (NNVK_FLOAT16)", kElementwiseF16, std::size(kElementwiseF16), false, true},
    {"matmul_native.comp (NNVK_FLOAT16)", kMatmulNativeF16, std::size(kMatmulNativeF16), false,
     true},
    {"conv2d_native.comp (NNVK_FLOAT16)", kConv2dNativeF16, std::size(kConv2dNativeF16), false,
     true},
    {"reduce_native.comp", kReduceNative, std::size(kReduceNative), false, false},
    {"reduce_native.comp (NNVK_SUBGROUP)", kReduceNativeSubgroup, std::size(kReduceNativeSubgroup),
     false, false},
    {"softmax_native.comp (NNVK_FLOAT16)", kSoftmaxNativeF16, std::size(kSoftmaxNativeF16), false,
     true},
    {"normalization_native.comp (NNVK_FLOAT16)", kNormalizationNativeF16,
     std::size(kNormalizationNativeF16), false, true},
    {"pool2d.comp (NNVK_NATIVE)", kPool2dNative, std::size(kPool2dNative), false, false},
};
static_assert(std::size(kCodes) == static_cast<size_t>(Shader::kCount));
}  // namespace

const ShaderCode& Code(Shader shader) { return kCodes[static_cast<size_t>(shader)]; }

}  // namespace nnref::vk
