// The Vulkan entry points the backend uses, loaded at run time from the loader library
// (libvulkan.so.1) with dlopen, so that nnref starts, and reports "no Vulkan loader", on a machine
// without one. Only ops/vulkan/ includes this header (and through it the Vulkan C headers).
#pragma once

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <string>

namespace nnref::vk {

// X(name) for every function taken from vkGetInstanceProcAddr(NULL, ...).
#define NNREF_VK_GLOBAL_FUNCTIONS(X) \
  X(vkCreateInstance)                \
  X(vkEnumerateInstanceVersion)      \
  X(vkEnumerateInstanceLayerProperties)

// X(name) for every function taken from vkGetInstanceProcAddr(instance, ...) (device functions
// included: the loader's trampolines dispatch them).
#define NNREF_VK_INSTANCE_FUNCTIONS(X)        \
  X(vkDestroyInstance)                        \
  X(vkEnumeratePhysicalDevices)               \
  X(vkGetPhysicalDeviceProperties)            \
  X(vkGetPhysicalDeviceProperties2)           \
  X(vkGetPhysicalDeviceFeatures2)             \
  X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkGetPhysicalDeviceMemoryProperties)      \
  X(vkCreateDevice)                           \
  X(vkDestroyDevice)                          \
  X(vkGetDeviceQueue)                         \
  X(vkCreateBuffer)                           \
  X(vkDestroyBuffer)                          \
  X(vkGetBufferMemoryRequirements)            \
  X(vkAllocateMemory)                         \
  X(vkFreeMemory)                             \
  X(vkBindBufferMemory)                       \
  X(vkMapMemory)                              \
  X(vkUnmapMemory)                            \
  X(vkCreateShaderModule)                     \
  X(vkDestroyShaderModule)                    \
  X(vkCreateDescriptorSetLayout)              \
  X(vkDestroyDescriptorSetLayout)             \
  X(vkCreatePipelineLayout)                   \
  X(vkDestroyPipelineLayout)                  \
  X(vkCreateComputePipelines)                 \
  X(vkDestroyPipeline)                        \
  X(vkCreateDescriptorPool)                   \
  X(vkDestroyDescriptorPool)                  \
  X(vkResetDescriptorPool)                    \
  X(vkAllocateDescriptorSets)                 \
  X(vkUpdateDescriptorSets)                   \
  X(vkCreateCommandPool)                      \
  X(vkDestroyCommandPool)                     \
  X(vkAllocateCommandBuffers)                 \
  X(vkResetCommandBuffer)                     \
  X(vkBeginCommandBuffer)                     \
  X(vkEndCommandBuffer)                       \
  X(vkCmdBindPipeline)                        \
  X(vkCmdBindDescriptorSets)                  \
  X(vkCmdDispatch)                            \
  X(vkCmdPipelineBarrier)                     \
  X(vkCmdCopyBuffer)                          \
  X(vkCreateFence)                            \
  X(vkDestroyFence)                           \
  X(vkResetFences)                            \
  X(vkWaitForFences)                          \
  X(vkQueueSubmit)                            \
  X(vkDeviceWaitIdle)

// Optional (VK_EXT_debug_utils, present only when the extension was enabled).
#define NNREF_VK_DEBUG_FUNCTIONS(X) \
  X(vkCreateDebugUtilsMessengerEXT) \
  X(vkDestroyDebugUtilsMessengerEXT)

struct Api {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
#define NNREF_VK_MEMBER(name) PFN_##name name = nullptr;
  NNREF_VK_GLOBAL_FUNCTIONS(NNREF_VK_MEMBER)
  NNREF_VK_INSTANCE_FUNCTIONS(NNREF_VK_MEMBER)
  NNREF_VK_DEBUG_FUNCTIONS(NNREF_VK_MEMBER)
#undef NNREF_VK_MEMBER
};

// The process-wide loader: the global functions, or null with `why` set ("no Vulkan loader
// (libvulkan.so.1: cannot open shared object file)"). Loaded once; never unloaded.
const Api* LoadApi(std::string& why);
// Fills the instance-level functions of `api` for `instance`; false (with `why`) if one is missing.
bool LoadInstanceFunctions(Api& api, VkInstance instance, std::string& why);

// "VK_ERROR_OUT_OF_DEVICE_MEMORY" and so on.
const char* ResultName(VkResult r);

}  // namespace nnref::vk
