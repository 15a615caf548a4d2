// The GpuDevice of an application's Vulkan device (interop.h): the vulkan backend adopted onto it
// (Device::Adopt) and the rented buffers (Device::CreateImportBuffer / ReleaseImportBuffer).
#include "ops/vulkan/interop.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "ops/vulkan/device.h"
#include "ops/vulkan/family.h"

namespace nnref {

namespace {

template <typename H>
H FromInteger(uint64_t h) {
  return reinterpret_cast<H>(static_cast<uintptr_t>(h));
}

template <typename H>
uint64_t ToInteger(H h) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(h));
}

class VulkanGpuDevice final : public GpuDevice {
 public:
  explicit VulkanGpuDevice(std::shared_ptr<vk::Device> device)
      : device_(std::move(device)), backend_(vk::MakeBackendOnDevice(device_)) {}

  std::string_view api() const override { return "Vulkan"; }
  uint64_t identity() const override { return ToInteger(device_->handle()); }
  std::string Describe() const override {
    return "the application's Vulkan device: " + backend_->Describe();
  }
  std::shared_ptr<const Backend> backend() const override { return backend_; }

  GpuBufferHandle CreateImportBuffer(std::span<const std::byte> bytes) override {
    const uint64_t size = bytes.empty() ? 4 : (bytes.size() + 3) / 4 * 4;
    const vk::ImportBuffer b = device_->CreateImportBuffer(bytes, size);
    return GpuBufferHandle{ToInteger(b.buffer), ToInteger(b.memory), bytes.size(), size};
  }

  void ReleaseImportBuffer(const GpuBufferHandle& buffer, uint64_t fence,
                           std::span<std::byte> out) override {
    if (out.size() > buffer.size) throw std::logic_error("vulkan: release larger than the buffer");
    const vk::ImportBuffer b{FromInteger<VkBuffer>(buffer.buffer),
                             FromInteger<VkDeviceMemory>(buffer.memory), buffer.size};
    device_->ReleaseImportBuffer(b, FromInteger<VkFence>(fence), out);
  }

 private:
  std::shared_ptr<vk::Device> device_;
  std::shared_ptr<const Backend> backend_;
};

// An application of its own (GpuApplication, for timeline scripts): a device the vulkan backend
// creates as any application would (instance, device, queue), the backend adopted onto it as
// onto an application's device, and the application's copies on its queue.
class VulkanGpuApplication final : public GpuApplication {
 public:
  VulkanGpuApplication(std::shared_ptr<vk::Device> own, std::shared_ptr<GpuDevice> gpu)
      : own_(std::move(own)), gpu_(std::move(gpu)) {}
  // The adopted backend's objects go before the device they live on.
  ~VulkanGpuApplication() override {
    gpu_.reset();
    own_.reset();
  }
  VulkanGpuApplication(const VulkanGpuApplication&) = delete;
  VulkanGpuApplication& operator=(const VulkanGpuApplication&) = delete;

  std::shared_ptr<GpuDevice> device() const override { return gpu_; }

  void Write(const GpuBufferHandle& buffer, std::span<const std::byte> bytes) override {
    if (bytes.size() > buffer.size) throw std::logic_error("vulkan: write larger than the buffer");
    if (bytes.empty()) return;
    HostBuffer source(*own_, bytes.size());
    std::memcpy(source.b.mapped, bytes.data(), bytes.size());
    // A copy on the application's queue into the rented buffer, then a barrier to the host (the
    // return reads the buffer through its mapping).
    vk::Device::Recording r;
    r.downloads.push_back(
        {source.b.buffer, FromInteger<VkBuffer>(buffer.buffer), 0, 0, bytes.size()});
    own_->Execute(r);
  }

  std::vector<std::byte> Read(const GpuBufferHandle& buffer) override {
    HostBuffer target(*own_, buffer.size);
    vk::Device::Recording r;
    r.downloads.push_back(
        {FromInteger<VkBuffer>(buffer.buffer), target.b.buffer, 0, 0, buffer.size});
    own_->Execute(r);
    const auto* p = static_cast<const std::byte*>(target.b.mapped);
    return std::vector<std::byte>(p, p + buffer.byte_length);
  }

 private:
  // A host-visible buffer of the application's, destroyed with the scope.
  struct HostBuffer {
    HostBuffer(vk::Device& d, uint64_t bytes) : device(d), b(d.CreateBuffer(bytes, true)) {}
    ~HostBuffer() { device.DestroyBuffer(b); }
    HostBuffer(const HostBuffer&) = delete;
    HostBuffer& operator=(const HostBuffer&) = delete;
    vk::Device& device;
    vk::Device::Buffer b;
  };

  std::shared_ptr<vk::Device> own_;
  std::shared_ptr<GpuDevice> gpu_;
};

}  // namespace

std::shared_ptr<GpuDevice> MakeVulkanGpuDevice(const VulkanDeviceHandles& h, std::string& why) {
  vk::ExternalDevice e;
  e.instance = static_cast<VkInstance>(h.instance);
  e.physical_device = static_cast<VkPhysicalDevice>(h.physical_device);
  e.device = static_cast<VkDevice>(h.device);
  e.queue_family_index = h.queue_family_index;
  e.queue_index = h.queue_index;
  e.get_instance_proc_addr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(h.get_instance_proc_addr);
  e.queue_mutex = h.queue_mutex;
  e.shader_int64 = h.shader_int64;
  vk::DeviceOptions options;
  const char* staging = std::getenv("NNREF_VULKAN_STAGING");
  options.force_staging = staging != nullptr && *staging != '\0' && *staging != '0';
  if (const char* cap = std::getenv("NNREF_VULKAN_MAX_BINDING")) {
    options.max_binding = std::strtoull(cap, nullptr, 10);
  }
  std::shared_ptr<vk::Device> device = vk::Device::Adopt(e, options, why);
  if (!device) return nullptr;
  return std::make_shared<VulkanGpuDevice>(std::move(device));
}

namespace vk {

std::shared_ptr<GpuApplication> MakeGpuApplication(const DeviceOptions& options, std::string& why) {
  DeviceOptions own_options = options;
  own_options.native = false;
  std::shared_ptr<Device> own = Device::Create(own_options, why);
  if (!own) return nullptr;
  // The backend on the application's device, as MakeVulkanGpuDevice adopts it (the device's
  // binding cap and staging choice carry over).
  DeviceOptions adopted;
  adopted.force_staging = options.force_staging;
  adopted.max_binding = options.max_binding;
  std::shared_ptr<Device> device = Device::Adopt(own->Share(), adopted, why);
  if (!device) return nullptr;
  return std::make_shared<VulkanGpuApplication>(
      std::move(own), std::make_shared<VulkanGpuDevice>(std::move(device)));
}

}  // namespace vk

}  // namespace nnref
