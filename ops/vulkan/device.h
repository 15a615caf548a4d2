// One Vulkan device of the vulkan backend: instance, device, compute queue, the cached pipelines
// (one per shader variant), the reused buffers, and one synchronous dispatch at a time.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ops/vulkan/device_info.h"
#include "ops/vulkan/float_controls.h"
#include "ops/vulkan/shaders.h"
#include "ops/vulkan/vk_api.h"

namespace nnref::vk {

// Every physical device, or nullopt with `why` in plain words that say what to do ("no Vulkan
// loader (...): install ...", "no Vulkan driver (ICD) was found (vkCreateInstance:
// VK_ERROR_INCOMPATIBLE_DRIVER): install ..."). An empty list is possible: NoDeviceMessage().
std::optional<std::vector<DeviceInfo>> ListDevices(std::string& why);
// Why there is no device when the loader lists none, and what to do.
std::string NoDeviceMessage();

struct DeviceOptions {
  int index = -1;              // physical device index; -1: the first one
  bool validation = false;     // VK_LAYER_KHRONOS_validation with a debug messenger
  bool force_staging = false;  // copy through staging buffers even with unified memory (tests)
  // Test hook: bind at most this many bytes per tensor (0: the device's maxStorageBufferRange),
  // so that the splitting of large tensors runs on small ones.
  uint64_t max_binding = 0;
  // The backend's arithmetic mode (BackendOptions::arithmetic): the families pick their shaders
  // by it (docs/vulkan.md#arithmetic-modes).
  bool native = false;
  // NNREF_VULKAN_FLOAT16 in the native mode: "native" (float16 computed in float16, needs
  // shaderFloat16), "float32" (float16 widened to float32), or "" (native where the device has
  // shaderFloat16, else float32). Another value, or "native" without shaderFloat16: no device.
  std::string float16;
  // Test hook: request exactly these float-controls execution modes instead of
  // ChooseFloatModes's (float_controls.h), even ones the device lacks.
  std::optional<FloatModes> float_modes;
};

// An application's device the backend runs on without creating or destroying it (a context
// created from a GPU device, ops/vulkan/interop.h).
struct ExternalDevice {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  uint32_t queue_family_index = 0;  // a family with VK_QUEUE_COMPUTE_BIT
  uint32_t queue_index = 0;         // vkGetDeviceQueue(device, family, index)
  // The application's entry point; null: the loader's (libvulkan.so.1).
  PFN_vkGetInstanceProcAddr get_instance_proc_addr = nullptr;
  // Locked around every vkQueueSubmit of the backend when the application shares the queue
  // (Vulkan requires submissions to one queue to be externally synchronized); null: not shared.
  std::mutex* queue_mutex = nullptr;
  bool shader_int64 = false;  // enabled by the application at vkCreateDevice
};

// A buffer rented to the application (GpuDevice::CreateImportBuffer): host-visible memory.
struct ImportBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
};

// One input of a dispatch: bytes copied into a storage buffer (padded to whole 32-bit words).
using Bytes = std::span<const std::byte>;

class Device {
 public:
  // The device, or null with `why`.
  static std::shared_ptr<Device> Create(const DeviceOptions& options, std::string& why);
  // The backend's objects (pipelines, pools, buffers) on an application's device, which stays the
  // application's: never waited idle, never destroyed. Null with `why` (no compute queue family,
  // Vulkan below 1.1, a missing entry point).
  static std::shared_ptr<Device> Adopt(const ExternalDevice& device, const DeviceOptions& options,
                                       std::string& why);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const DeviceInfo& info() const { return info_; }
  bool staging() const { return staging_; }
  // Native arithmetic (float32 accumulation, tiled shaders) rather than exact (compensated).
  bool native() const { return native_; }
  // The native mode computes float16 in float16 (shaderFloat16 enabled; the *F16 shader
  // variants: element-wise arithmetic in float16_t, GEMM accumulators in float16_t) rather than
  // widened to float32 (docs/vulkan.md#arithmetic-modes).
  bool float16_native() const { return float16_native_; }
  // The float-controls execution modes every pipeline's shader declares (float_controls.h):
  // ChooseFloatModes of the device's properties on a device created here at Vulkan 1.2 or
  // later; none on an application's device (Adopt: its API version is the application's choice).
  const FloatModes& float_modes() const { return float_modes_; }
  // The native reductions combine a workgroup's partials with subgroup arithmetic (the device
  // has it in compute shaders, and NNREF_VULKAN_SUBGROUP_ARITHMETIC is not "off"), else with a
  // tree in shared memory.
  bool subgroup_arithmetic() const { return subgroup_arithmetic_; }
  // Validation messages seen so far (warnings and errors of the validation layer).
  uint64_t validation_messages() const { return messages_.load(); }
  // Queue submissions and fence waits so far (Run: one each per dispatch; Execute: one each per
  // recorded segment), for tests of graph execution.
  uint64_t submissions() const { return submissions_.load(); }
  uint64_t fence_waits() const { return fence_waits_.load(); }
  // Buffers made by CreateBuffer so far (graph execution's buffers, for tests of their reuse).
  uint64_t buffers_created() const { return buffers_created_.load(); }

  // --- Graph execution (graph.cc; docs/vulkan.md#graph-execution) ---
  struct Buffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    void* mapped = nullptr;  // host-visible memory (unified, or `host`)
    VkDeviceSize size = 0;
  };
  // A buffer of at least `bytes` (usage storage | transfer source | transfer destination):
  // host-visible coherent and mapped when `host`, else as Run's bound buffers (unified memory,
  // mapped; device-local when staging). Throws std::runtime_error.
  Buffer CreateBuffer(VkDeviceSize bytes, bool host);
  void DestroyBuffer(Buffer& b) { Destroy(b); }
  struct Range {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceSize offset = 0, size = 0;
  };
  struct BufferCopy {
    VkBuffer src = VK_NULL_HANDLE, dst = VK_NULL_HANDLE;
    VkDeviceSize src_offset = 0, dst_offset = 0, size = 0;
  };
  struct RecordedDispatch {
    Shader shader;
    std::vector<uint32_t> spec;
    Range bindings[kBindings];  // params, the inputs (unused ones: any buffer), the output
    uint64_t groups = 1;        // 0: no dispatch, the copies only
    bool barrier = false;       // after the shader writes before it (it reads one of them)
    // Copies between device buffers recorded before the dispatch (after a barrier from shader
    // and transfer writes to transfer reads and writes, followed by one from transfer writes to
    // shader and transfer reads and writes): independent of each other.
    std::vector<BufferCopy> copies;
  };
  // A segment of a graph: uploads (staging to device), the dispatches in order, downloads.
  struct Recording {
    std::vector<BufferCopy> uploads;
    std::vector<RecordedDispatch> dispatches;
    std::vector<BufferCopy> downloads;
  };
  // Records `r` into one command buffer (a transfer-to-shader barrier after the uploads, the
  // dispatches with a shader-write-to-read barrier where `barrier` says, a shader-to-transfer
  // barrier before the downloads and a host-read barrier at the end), submits it once and waits
  // for its fence once. Host writes to mapped buffers before the call are visible to it, and its
  // writes to mapped buffers are visible to the host after it. Throws std::runtime_error on a
  // Vulkan error or a validation message.
  void Execute(const Recording& r);

  // Runs `shader` once with binding 0 = params, bindings 1..inputs.size() = inputs and the last
  // binding = the output (output.size() bytes, written back), dispatching `groups` workgroups
  // (capped at 65535: the shaders loop over their work). Blocks until the result is back. Throws
  // std::runtime_error on a Vulkan error or a validation message.
  // `spec`: the values of the shader's specialization constants 0, 1, ... (a pipeline per
  // distinct list, cached).
  void Run(Shader shader, std::span<const uint32_t> params, std::span<const Bytes> inputs,
           std::span<std::byte> output, uint64_t groups, std::span<const uint32_t> spec = {});

  // Interop (ops/vulkan/interop.h): a buffer of `size` bytes (usage storage | transfer source |
  // transfer destination) in host-visible coherent memory holding `bytes` then zeros. Throws
  // std::runtime_error.
  ImportBuffer CreateImportBuffer(std::span<const std::byte> bytes, VkDeviceSize size);
  // Waits for `fence` (unless null) and destroys it, copies the first out.size() bytes of the
  // buffer into `out` and destroys the buffer. Throws std::runtime_error.
  void ReleaseImportBuffer(const ImportBuffer& buffer, VkFence fence, std::span<std::byte> out);
  VkDevice handle() const { return device_; }
  // This device (made by Create) as an application's device that another Device can adopt
  // (Adopt): the same instance, device and queue, both sides locking one mutex around their
  // submissions. GpuApplication's Vulkan device (ops/vulkan/interop.cc) is made so.
  ExternalDevice Share();

 private:
  Device() = default;
  // Ends, submits and waits for one command buffer (Run, Execute).
  void SubmitAndWait(VkCommandBuffer cb);
  // The shared command buffer, reset and begun for one submission (Run, Execute).
  VkCommandBuffer BeginCommands();
  bool Init(const DeviceOptions& options, std::string& why);
  // What Init and Adopt share once the device and queue exist: the device's description, the
  // pipeline layout, pools, fence and command buffer.
  bool InitObjects(const DeviceOptions& options, std::string& why);
  VkPipeline Pipeline(Shader shader, std::span<const uint32_t> spec);
  // Slot `slot` grown to at least `bytes` (device-local, or host-visible when `host`).
  Buffer& Slot(std::vector<Buffer>& slots, size_t slot, VkDeviceSize bytes, bool host);
  void Destroy(Buffer& b);
  void Check(VkResult r, const char* what);

  Api api_;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  bool owned_ = true;                  // created here (else the application's: ExternalDevice)
  std::mutex* queue_mutex_ = nullptr;  // ExternalDevice::queue_mutex, or own_queue_mutex_
  std::mutex own_queue_mutex_;         // a created device's queue (shared by Share)
  VkPhysicalDeviceMemoryProperties memory_{};
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout_ = VK_NULL_HANDLE;
  VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkCommandBuffer command_buffer_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  DeviceInfo info_;
  bool staging_ = false;
  bool native_ = false;
  bool float16_native_ = false;
  FloatModes float_modes_;
  bool subgroup_arithmetic_ = false;
  std::atomic<uint64_t> messages_{0};
  std::atomic<uint64_t> submissions_{0}, fence_waits_{0}, buffers_created_{0};
  VkDescriptorPool graph_pool_ = VK_NULL_HANDLE;  // Execute's sets
  uint32_t graph_pool_sets_ = 0;

  std::mutex mutex_;  // one dispatch at a time: the command buffer, buffers and pool are shared
  // By shader and specialization constants, created on first use.
  std::map<std::pair<Shader, std::vector<uint32_t>>, VkPipeline> pipelines_;
  std::vector<Buffer> device_slots_;   // the bound buffers: params, inputs..., output
  std::vector<Buffer> staging_slots_;  // host-visible copies when staging_
};

}  // namespace nnref::vk
