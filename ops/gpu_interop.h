// GPU interop (the MLTensor explainer, "Interop with the GPU"; docs/interop.md): an application's
// GPU device that a context can be created from (WebNN §api-ml-createcontext, createContext(
// gpuDevice); context type "webgpu") and to which MLTensors created with
// MLTensorDescriptor.importableToWebGPU are rented (the explainer's
// GPUDevice.importExternalBuffer({source: mlTensor})).
//
// This header names no GPU API: handles travel as integers, so that the reference and the C++ API
// (runner/api/webnn.h) compile without Vulkan headers. A backend folder that runs on an
// application's device implements GpuDevice (ops/vulkan/interop.h: MakeVulkanGpuDevice), and only
// that folder includes its API's headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ops/backend.h"

namespace nnref {

// A buffer on the application's device that holds a rented tensor: the explainer's GPUBuffer
// "created with STORAGE, COPY_SRC and COPY_DST" usage, holding the tensor's elements packed (row
// major, no padding, the tensor's element type; "a 1D packed array of type T").
struct GpuBufferHandle {
  uint64_t buffer = 0;       // the API's buffer handle (Vulkan: a VkBuffer)
  uint64_t memory = 0;       // the memory bound to it at offset 0 (Vulkan: a VkDeviceMemory)
  uint64_t byte_length = 0;  // the packed tensor's bytes (MLOperandDescriptor byte length)
  uint64_t size = 0;         // the buffer's size: byte_length rounded up to whole 32-bit words
                             // (at least one word), the tail bytes zero
};

// An application's GPU device (the explainer's GPUDevice). Shared by the contexts created from it
// and the buffers rented to it; every method may be called from any thread.
class GpuDevice {
 public:
  virtual ~GpuDevice() = default;
  // "Vulkan".
  virtual std::string_view api() const = 0;
  // The identity of the device (Vulkan: the VkDevice handle): two GpuDevice objects wrapping the
  // same device are the same GPUDevice for importExternalBuffer's "context created from this
  // device" check.
  virtual uint64_t identity() const = 0;
  // One line for reports: the device's name and how the backend runs on it.
  virtual std::string Describe() const = 0;
  // The kernel set a context created from this device computes with (the backend running on the
  // application's device), or null: the reference kernels (host memory; used by tests).
  virtual std::shared_ptr<const Backend> backend() const = 0;
  // Creates a buffer of the interop usage on the device holding `bytes` (the tensor's packed
  // data) and returns it. Throws std::runtime_error when the device cannot (out of memory, a lost
  // device).
  virtual GpuBufferHandle CreateImportBuffer(std::span<const std::byte> bytes) = 0;
  // The return: waits for `fence` (an API fence the application's last submission using the
  // buffer signals, Vulkan: a VkFence; 0: the application has already waited for that work) and
  // destroys it (the application handed it over), copies the buffer's first out.size() bytes
  // into `out` (empty: the contents are discarded) and destroys the buffer. Throws
  // std::runtime_error on a device error.
  virtual void ReleaseImportBuffer(const GpuBufferHandle& buffer, uint64_t fence,
                                   std::span<std::byte> out) = 0;
};

// An application on a GPU device, as a timeline script plays it (cases/timeline: its gpuWrite
// and gpuRead steps are what the application's shaders would do with a rented buffer;
// docs/case-format.md "GPU interop steps"). Made by Backend::MakeGpuApplication for a backend
// that runs on devices (the vulkan backend: its own instance, device and queue, with the backend
// adopted onto them as on any application's device), else a host-memory one (runner/).
class GpuApplication {
 public:
  virtual ~GpuApplication() = default;
  // The GPU device contexts are created from (createContext(gpuDevice)) and tensors rented to.
  virtual std::shared_ptr<GpuDevice> device() const = 0;
  // The application's device writes `bytes` (at most buffer.size) at the start of the rented
  // buffer (Vulkan: a copy on its queue from a buffer of its own) and waits for it; the writes
  // are then available to the return.
  virtual void Write(const GpuBufferHandle& buffer, std::span<const std::byte> bytes) = 0;
  // The rented buffer's first buffer.byte_length bytes as the application's device reads them
  // (Vulkan: a copy on its queue into a buffer of its own).
  virtual std::vector<std::byte> Read(const GpuBufferHandle& buffer) = 0;
};

}  // namespace nnref
