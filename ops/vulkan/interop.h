// GPU interop on Vulkan (the MLTensor explainer, "Interop with the GPU"; docs/interop.md): the
// GpuDevice (ops/gpu_interop.h) of an application's Vulkan device, from which a context is created
// (webnn::Context::Create(gpuDevice), the analogue of ML.createContext(GPUDevice)) and to which
// importableToWebGPU tensors are rented (webnn::ImportExternalBuffer).
//
// The vulkan backend runs on the application's device and queue: it creates its own pipelines,
// pools, fence and buffers there and destroys them when the last context and buffer using the
// GpuDevice are gone (so the application drops them before it destroys its device), but never
// creates, waits idle or destroys the instance, the device or the queue. The handles are passed as
// void* so that this header needs no Vulkan headers.
//
// The application's side of a rental (what the explainer's GPUBuffer usage means in Vulkan):
// - The buffer (GpuBufferHandle::buffer, a VkBuffer: reinterpret_cast<VkBuffer>(handle.buffer))
//   has usage STORAGE_BUFFER | TRANSFER_SRC | TRANSFER_DST, memory host-visible and coherent,
//   bound at offset 0, holding the tensor's elements packed (row major, the element type's
//   bytes), `size` bytes in all (byte_length rounded up to a whole 32-bit word, the tail zero). It
//   is the backend's: do not free or bind other memory to it.
// - Its contents are there when ImportExternalBuffer's future resolves (host writes are visible
//   to the application's later submissions).
// - Before returning it (ImportedBuffer::Destroy(fence)) the application's work on it must end
//   with a barrier making its writes available to the host (dstStageMask HOST, dstAccessMask
//   HOST_READ), and either have completed or signal `fence` (reinterpret_cast<uint64_t>(VkFence)),
//   which the application hands over: the return waits for it on the context's timeline and then
//   destroys it (WebGPU's destroy() after submit, in Vulkan terms); the buffer is destroyed
//   after that.
// - The backend submits to the given queue; if the application submits to the same queue from
//   other threads it passes the mutex it holds around its own vkQueueSubmit calls.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "ops/gpu_interop.h"

namespace nnref {

struct VulkanDeviceHandles {
  void* instance = nullptr;         // VkInstance (Vulkan 1.1 or later)
  void* physical_device = nullptr;  // VkPhysicalDevice
  void* device = nullptr;           // VkDevice created on it
  uint32_t queue_family_index = 0;  // a queue family with VK_QUEUE_COMPUTE_BIT ...
  uint32_t queue_index = 0;         // ... and one of its queues created with the device
  // PFN_vkGetInstanceProcAddr of the application's loader; null: libvulkan.so.1's.
  void* get_instance_proc_addr = nullptr;
  // Held around the backend's vkQueueSubmit when the application shares the queue; may be null.
  std::mutex* queue_mutex = nullptr;
  // Whether the device was created with shaderInt64 (the backend's int64/uint64 kernels need it;
  // without it they are "not supported").
  bool shader_int64 = false;
};

// The GpuDevice of the application's Vulkan device, or null with `why` (no loader, Vulkan below
// 1.1, no compute queue at the given family and index, a missing entry point).
// NNREF_VULKAN_MAX_BINDING and NNREF_VULKAN_STAGING apply as for MakeVulkanBackend; the
// validation layer is the application's to enable on its instance.
std::shared_ptr<GpuDevice> MakeVulkanGpuDevice(const VulkanDeviceHandles& handles,
                                               std::string& why);

}  // namespace nnref
