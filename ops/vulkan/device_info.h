// What the vulkan backend knows about a physical device (Describe in device.cc), for `nnref
// devices`, the backend's description and the choice of shaders and execution modes.
#pragma once

#include <cstdint>
#include <string>

#include "ops/vulkan/vk_api.h"

namespace nnref::vk {

// What `nnref devices` lists about a physical device.
struct DeviceInfo {
  uint32_t index = 0;
  std::string name;
  std::string type;         // "integrated GPU", "discrete GPU", "virtual GPU", "CPU", "other"
  std::string driver;       // driver name and info (Vulkan 1.2), else the driver version
  std::string api_version;  // "1.3.230"
  uint32_t vendor_id = 0, device_id = 0;
  bool shader_float16 = false;
  bool storage_buffer_16bit = false;
  bool storage_buffer_8bit = false;
  bool shader_int8 = false;
  bool shader_int64 = false;
  bool shader_float64 = false;
  uint32_t subgroup_size = 0;
  // Subgroup ballot operations (subgroupBroadcast) in compute shaders: the native arithmetic
  // mode's tiled GEMM (shaders/gemm_tile.glsl) needs them.
  bool subgroup_ballot = false;
  // Subgroup arithmetic operations (subgroupAdd/Max/Min) in compute shaders: the native mode's
  // reductions combine partials with them (shaders/reduce_native.comp), else in shared memory.
  bool subgroup_arithmetic = false;
  uint64_t max_storage_buffer_range = 0;
  uint64_t min_storage_buffer_offset_alignment = 16;  // of a binding's offset in its buffer
  bool unified_memory = false;  // a DEVICE_LOCAL + HOST_VISIBLE + HOST_COHERENT memory type
  // VkPhysicalDeviceFloatControlsProperties (Vulkan 1.2; all false below 1.2): what the device
  // promises about subnormals, signed zeros/Inf/NaN and rounding, per width (16, 32, 64 bits).
  // Without shaderDenormPreserveFloat32 a shader's float32 subnormals may be flushed to zero.
  struct FloatControls {
    bool known = false;                        // the device reported them (Vulkan 1.2)
    std::string denorm_behavior_independence;  // "32-bit only", "all", "none"
    std::string rounding_mode_independence;    // likewise
    // The same, as the device reported them (ChooseFloatModes follows their rules).
    VkShaderFloatControlsIndependence denorm_independence =
        VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_NONE;
    VkShaderFloatControlsIndependence rounding_independence =
        VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_NONE;
    bool denorm_preserve[3] = {};               // shaderDenormPreserveFloat16/32/64
    bool denorm_flush_to_zero[3] = {};          // shaderDenormFlushToZeroFloat16/32/64
    bool signed_zero_inf_nan_preserve[3] = {};  // shaderSignedZeroInfNanPreserveFloat16/32/64
    bool rounding_rte[3] = {};                  // shaderRoundingModeRTEFloat16/32/64
    bool rounding_rtz[3] = {};                  // shaderRoundingModeRTZFloat16/32/64
  } float_controls;
};

}  // namespace nnref::vk
