// The "vulkan" backend: GLSL compute shaders (ops/vulkan/shaders) on a Vulkan device (lavapipe on
// a machine without a GPU), computing as a GPU backend does: float32 arithmetic, float16 stored
// as float16 and computed in float32, builtins only where they are precise enough for the
// operator's tolerance (docs/vulkan.md). Judged by the tolerances like the simd backend.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ops/backend.h"

namespace nnref {

// A vulkan backend on device `options.device` (-1: the first). Without a loader or a device the
// backend still exists: Describe() says why and MakeKernel refuses every operator with that
// reason, so cases are listed skips, never crashes. NNREF_VULKAN_VALIDATION=1 in the environment
// turns on VK_LAYER_KHRONOS_validation (any message makes the dispatch throw);
// NNREF_VULKAN_STAGING=1 copies through staging buffers even on unified memory.
std::shared_ptr<const Backend> MakeVulkanBackend(const BackendOptions& options = {});

// One line per field of `nnref devices`.
struct VulkanDeviceReport {
  std::string name, type, driver, api_version;
  bool shader_float16 = false, storage_buffer_16bit = false, storage_buffer_8bit = false;
  bool shader_int8 = false, shader_int64 = false, shader_float64 = false;
  bool unified_memory = false;
  unsigned subgroup_size = 0;
  unsigned long long max_storage_buffer_range = 0;
};
// The Vulkan devices, or nullopt with `why` (no loader, no instance).
std::optional<std::vector<VulkanDeviceReport>> ListVulkanDevices(std::string& why);

}  // namespace nnref
