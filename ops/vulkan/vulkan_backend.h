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

// A vulkan backend on device `options.device` (-1: the first). Without a loader, a driver, the
// device or a validation layer asked for, the backend still exists: Unavailable() and Describe()
// say why and what to do, and MakeKernel refuses every operator with that reason (nnref run
// then exits 2 unless --allow-unavailable-backend, never crashes). NNREF_VULKAN_VALIDATION=1 in the
// environment turns on VK_LAYER_KHRONOS_validation (any message makes the dispatch throw);
// NNREF_VULKAN_STAGING=1 copies through staging buffers even on unified memory.
std::shared_ptr<const Backend> MakeVulkanBackend(const BackendOptions& options = {});

// Queue submissions and fence waits of a vulkan backend's device so far (zeros for another
// backend or one without a device): tests of graph execution (one submission per graph).
struct VulkanCounters {
  uint64_t submissions = 0;
  uint64_t fence_waits = 0;
  uint64_t buffers_created = 0;  // device buffers made (graph execution's, staging, arenas)
};
VulkanCounters VulkanBackendCounters(const Backend& backend);

// The Vulkan devices for `nnref devices` (the field names of VkPhysicalDeviceFeatures and its
// extensions), or nullopt with `why` (no loader, no instance, no device).
std::optional<std::vector<DeviceReport>> ListVulkanDevices(std::string& why);

// The registration the runner's backend list holds (NNREF_BACKEND_DIRS: "ops/vulkan").
const BackendRegistration& VulkanBackendRegistration();

}  // namespace nnref
