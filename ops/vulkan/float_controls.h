// The float-controls execution modes the vulkan backend asks of a device (SPV_KHR_float_controls,
// core in Vulkan 1.2): keep subnormals, keep signed zeros, infinities and NaNs, round to nearest
// even — each for a width (16, 32, 64 bits) only where the device says it can
// (VkPhysicalDeviceFloatControlsProperties) and where the properties' independence rules allow
// the combination. The shaders are compiled once without the modes; a pipeline's module gets them
// when it is created (WithFloatModes), so a device that can keep float32 subnormals is asked to,
// and one that cannot runs the same code (docs/vulkan.md#float-controls).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ops/vulkan/device_info.h"

namespace nnref::vk {

// Per width: [0] 16, [1] 32, [2] 64 bits.
struct FloatModes {
  bool denorm_preserve[3] = {};               // DenormPreserve
  bool signed_zero_inf_nan_preserve[3] = {};  // SignedZeroInfNanPreserve
  bool rounding_rte[3] = {};                  // RoundingModeRTE
  bool any() const;
  // "DenormPreserve 32, SignedZeroInfNanPreserve 16/32/64, RoundingModeRTE 16/32/64", or "none".
  std::string Describe() const;
  bool operator==(const FloatModes&) const = default;
};

// The modes to request of a device with these properties: each one the device supports, except
// where the independence rules forbid the mix (32-bit only: the 16- and 64-bit widths must use
// the same denormal (rounding) mode; none: every width the same), where the widths that must
// agree are all left without it. Nothing when the properties are unknown (below Vulkan 1.2).
FloatModes ChooseFloatModes(const DeviceInfo::FloatControls& controls);

// `module` (SPIR-V words) with `modes` declared on its GLCompute entry point: the capabilities,
// the SPV_KHR_float_controls extension and one OpExecutionMode per mode and width, each added only
// when the module does not already have it. Throws std::runtime_error naming what is wrong with a
// module that is not SPIR-V (magic, an instruction running past the end, no GLCompute entry
// point).
std::vector<uint32_t> WithFloatModes(std::span<const uint32_t> module, const FloatModes& modes);

}  // namespace nnref::vk
