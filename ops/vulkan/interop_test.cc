// GPU interop on an application's Vulkan device (lavapipe on CI): the application creates its
// instance (with VK_LAYER_KHRONOS_validation and a messenger counting every message), device and
// queue; a context is created from them; tensors are rented to the device, written and read there
// by the application's own commands, returned, and computed on by the vulkan backend on the same
// device. Expected values are computed here. At the end the application destroys its device:
// the validation layer then reports any object the backend left on it, and every test checks
// that no message was counted. The timeline's part alone: runner/api/interop_test.cc.
#include "ops/vulkan/interop.h"

#include <doctest/doctest.h>
#include <vulkan/vulkan.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ops/vulkan/vulkan_backend.h"
#include "ref/testing.h"
#include "runner/api/webnn.h"

namespace nnref::webnn {
namespace {

using namespace std::chrono_literals;

void Ok(VkResult r, const char* what) {
  if (r != VK_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed: " + std::to_string(r));
}

VKAPI_ATTR VkBool32 VKAPI_CALL CountMessage(VkDebugUtilsMessageSeverityFlagBitsEXT,
                                            VkDebugUtilsMessageTypeFlagsEXT,
                                            const VkDebugUtilsMessengerCallbackDataEXT* data,
                                            void* user) {
  static_cast<std::atomic<int>*>(user)->fetch_add(1);
  const std::string text = data && data->pMessage ? data->pMessage : "(no text)";
  MESSAGE("validation: " << text);
  return VK_FALSE;
}

// The application: its instance, device, queue and command pool, and what it records.
class App {
 public:
  App() {
    VkApplicationInfo ai{};
    ai.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    ai.apiVersion = VK_API_VERSION_1_1;
    const char* layer = "VK_LAYER_KHRONOS_validation";
    const char* ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    VkInstanceCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    ci.pApplicationInfo = &ai;
    ci.enabledLayerCount = 1;
    ci.ppEnabledLayerNames = &layer;
    ci.enabledExtensionCount = 1;
    ci.ppEnabledExtensionNames = &ext;
    Ok(vkCreateInstance(&ci, nullptr, &instance), "vkCreateInstance (validation layer)");
    auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
    VkDebugUtilsMessengerCreateInfoEXT mi{};
    mi.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
    mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
    mi.pfnUserCallback = CountMessage;
    mi.pUserData = &messages;
    Ok(create_messenger(instance, &mi, nullptr, &messenger), "vkCreateDebugUtilsMessengerEXT");
    uint32_t n = 1;
    const VkResult r = vkEnumeratePhysicalDevices(instance, &n, &physical);
    if (n == 0 || (r != VK_SUCCESS && r != VK_INCOMPLETE)) throw std::runtime_error("no device");
    uint32_t qn = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &qn, nullptr);
    std::vector<VkQueueFamilyProperties> families(qn);
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &qn, families.data());
    while (family < qn && !(families[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++family;
    device = MakeDevice();
    vkGetDeviceQueue(device, family, 0, &queue);
    VkCommandPoolCreateInfo pi{};
    pi.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pi.queueFamilyIndex = family;
    Ok(vkCreateCommandPool(device, &pi, nullptr, &pool), "vkCreateCommandPool");
  }
  ~App() {
    vkDestroyCommandPool(device, pool, nullptr);
    vkDestroyDevice(device, nullptr);  // the layer reports objects left on it
    auto destroy_messenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
    destroy_messenger(instance, messenger, nullptr);
    vkDestroyInstance(instance, nullptr);
    // (in the test case's scope): no validation message, including objects left on the device
    CHECK(messages.load() == 0);
  }
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  VkDevice MakeDevice() const {
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo qi{};
    qi.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    qi.queueFamilyIndex = family;
    qi.queueCount = 1;
    qi.pQueuePriorities = &priority;
    VkPhysicalDeviceFeatures features{};
    features.shaderInt64 = VK_TRUE;
    VkDeviceCreateInfo di{};
    di.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    di.queueCreateInfoCount = 1;
    di.pQueueCreateInfos = &qi;
    di.pEnabledFeatures = &features;
    VkDevice d = VK_NULL_HANDLE;
    Ok(vkCreateDevice(physical, &di, nullptr, &d), "vkCreateDevice");
    return d;
  }

  VulkanDeviceHandles Handles(VkDevice d = VK_NULL_HANDLE) {
    VulkanDeviceHandles h;
    h.instance = instance;
    h.physical_device = physical;
    h.device = d ? d : device;
    h.queue_family_index = family;
    h.queue_index = 0;
    h.get_instance_proc_addr = reinterpret_cast<void*>(&vkGetInstanceProcAddr);
    h.queue_mutex = &queue_mu;
    h.shader_int64 = true;
    return h;
  }

  std::shared_ptr<GpuDevice> Gpu() {
    std::string why;
    std::shared_ptr<GpuDevice> gpu = MakeVulkanGpuDevice(Handles(), why);
    if (!gpu) throw std::runtime_error(why);
    return gpu;
  }

  // Records with `record`, then a barrier making transfer writes visible to the host, and
  // submits signalling the returned fence (the caller destroys it with DestroyFence).
  VkFence Submit(const std::function<void(VkCommandBuffer)>& record) {
    VkCommandBufferAllocateInfo ai{};
    ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    ai.commandPool = pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cb = VK_NULL_HANDLE;
    Ok(vkAllocateCommandBuffers(device, &ai, &cb), "vkAllocateCommandBuffers");
    VkCommandBufferBeginInfo bi{};
    bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    Ok(vkBeginCommandBuffer(cb, &bi), "vkBeginCommandBuffer");
    record(cb);
    VkMemoryBarrier barrier{};
    barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                         &barrier, 0, nullptr, 0, nullptr);
    Ok(vkEndCommandBuffer(cb), "vkEndCommandBuffer");
    VkFenceCreateInfo fi{};
    fi.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    VkFence fence = VK_NULL_HANDLE;
    Ok(vkCreateFence(device, &fi, nullptr, &fence), "vkCreateFence");
    VkSubmitInfo si{};
    si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb;
    {
      std::lock_guard lock(queue_mu);
      Ok(vkQueueSubmit(queue, 1, &si, fence), "vkQueueSubmit");
    }
    command_buffers.push_back(cb);
    return fence;
  }
  void Finish(VkFence fence) {
    Ok(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
    vkDestroyFence(device, fence, nullptr);
  }
  // vkCmdUpdateBuffer of `values` into the rented buffer, then the fence.
  VkFence Upload(const GpuBufferHandle& h, const std::vector<float>& values) {
    return Submit([&](VkCommandBuffer cb) {
      vkCmdUpdateBuffer(cb, reinterpret_cast<VkBuffer>(h.buffer), 0, values.size() * 4,
                        values.data());
    });
  }
  // The rented buffer's contents as read by the device: copied into a buffer of the application.
  std::vector<std::byte> Download(const GpuBufferHandle& h) {
    VkBufferCreateInfo bi{};
    bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    bi.size = h.size;
    bi.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VkBuffer dst = VK_NULL_HANDLE;
    Ok(vkCreateBuffer(device, &bi, nullptr, &dst), "vkCreateBuffer");
    VkMemoryRequirements req{};
    vkGetBufferMemoryRequirements(device, dst, &req);
    VkPhysicalDeviceMemoryProperties mp{};
    vkGetPhysicalDeviceMemoryProperties(physical, &mp);
    uint32_t type = 0;
    const VkMemoryPropertyFlags want =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    while (!((req.memoryTypeBits & (1u << type)) &&
             (mp.memoryTypes[type].propertyFlags & want) == want)) {
      ++type;
    }
    VkMemoryAllocateInfo ai{};
    ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = type;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    Ok(vkAllocateMemory(device, &ai, nullptr, &memory), "vkAllocateMemory");
    Ok(vkBindBufferMemory(device, dst, memory, 0), "vkBindBufferMemory");
    Finish(Submit([&](VkCommandBuffer cb) {
      VkBufferCopy copy{0, 0, h.size};
      vkCmdCopyBuffer(cb, reinterpret_cast<VkBuffer>(h.buffer), dst, 1, &copy);
    }));
    void* mapped = nullptr;
    Ok(vkMapMemory(device, memory, 0, VK_WHOLE_SIZE, 0, &mapped), "vkMapMemory");
    std::vector<std::byte> bytes(h.size);
    std::memcpy(bytes.data(), mapped, h.size);
    vkUnmapMemory(device, memory);
    vkDestroyBuffer(device, dst, nullptr);
    vkFreeMemory(device, memory, nullptr);
    return bytes;
  }

  VkInstance instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  uint32_t family = 0;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  VkCommandPool pool = VK_NULL_HANDLE;
  std::mutex queue_mu;
  std::vector<VkCommandBuffer> command_buffers;  // freed with the pool
  std::atomic<int> messages{0};
};

const Shape kShape = {2, 3};

MLTensorDescriptor Desc(bool readable, bool writable, bool importable,
                        DataType type = DataType::kFloat32, const Shape& shape = kShape) {
  MLTensorDescriptor d;
  d.dataType = type;
  d.shape = shape;
  d.readable = readable;
  d.writable = writable;
  d.importableToWebGPU = importable;
  return d;
}

std::vector<float> Floats(const std::vector<std::byte>& bytes, size_t n) {
  std::vector<float> v(n);
  std::memcpy(v.data(), bytes.data(), n * 4);
  return v;
}

// y = 2 * x + 1 on the vulkan backend: one multiply (exact) and one add rounded to float32.
Graph AffineGraph(Context& c) {
  GraphBuilder b(c);
  const Operand x = b.Input("x", {DataType::kFloat32, kShape});
  const Operand y = b.Add(b.Mul(x, b.Constant(DataType::kFloat32, MLNumber::FromDouble(2.0))),
                          b.Constant(DataType::kFloat32, MLNumber::FromDouble(1.0)));
  return b.Build({{"y", y}}).get();
}

std::vector<float> Affine(const std::vector<float>& x) {
  std::vector<float> y;
  for (float v : x) {
    const float twice = 2.0f * v;
    y.push_back(twice + 1.0f);
  }
  return y;
}

TEST_CASE("vulkan interop: a context on the application's device; rent, write, return, dispatch") {
  App app;
  {
    std::shared_ptr<GpuDevice> gpu = app.Gpu();
    CHECK(gpu->api() == "Vulkan");
    CHECK(gpu->identity() == reinterpret_cast<uint64_t>(app.device));
    Context context = Context::Create(gpu).get();
    REQUIRE(context.gpuDevice() == gpu);
    Graph graph = AffineGraph(context);
    REQUIRE(graph.backend_kernels() != nullptr);  // computed by the vulkan backend
    Tensor x = context.CreateTensor(Desc(false, true, true)).get();
    Tensor y = context.CreateTensor(Desc(true, false, true)).get();
    context.WriteTensor(x, std::vector<float>{1, 2, 3, 4, 5, 6});
    ImportedBuffer rented = ImportExternalBuffer(gpu, x).get();
    const GpuBufferHandle h = rented.handle();
    CHECK(h.byte_length == 24);
    CHECK(h.size == 24);
    // The device sees the tensor's data (the write queued before the import).
    CHECK(Floats(app.Download(h), 6) == std::vector<float>{1, 2, 3, 4, 5, 6});
    // The application writes the frame with its own commands, then returns the buffer with the
    // fence of that submission.
    const std::vector<float> frame = {0.5f, -1.25f, 3.0f, 1e-3f, -0.0f, 1e20f};
    const VkFence fence = app.Upload(h, frame);
    rented.Destroy(reinterpret_cast<uint64_t>(fence));
    context.Dispatch(graph, {{"x", x}}, {{"y", y}});
    const std::vector<float> got = Floats(context.ReadTensor(y).get(), 6);
    CHECK(got == Affine(frame));
    // The output rented back and read by the device.
    ImportedBuffer out = ImportExternalBuffer(gpu, y).get();
    CHECK(Floats(app.Download(out.handle()), 6) == Affine(frame));
    out.Destroy();
    CHECK(Floats(context.ReadTensor(y).get(), 6) == Affine(frame));  // returned unchanged
  }
  // Every context, buffer and the backend are gone; the device is still the application's.
  VkFence fence = app.Submit([](VkCommandBuffer) {});
  app.Finish(fence);
  CHECK(app.messages.load() == 0);
}

TEST_CASE("vulkan interop: packed layout, whole words, vkCmdFillBuffer") {
  App app;
  {
    std::shared_ptr<GpuDevice> gpu = app.Gpu();
    Context context = Context::Create(gpu).get();
    // The explainer's example: int8 [2, 3, 4] imports as 24 bytes (an array<u32> of length 6).
    Tensor t = context.CreateTensor(Desc(true, true, true, DataType::kInt8, {2, 3, 4})).get();
    ImportedBuffer b = ImportExternalBuffer(gpu, t).get();
    CHECK(b.handle().size == 24);
    const VkFence fence = app.Submit([&](VkCommandBuffer cb) {
      vkCmdFillBuffer(cb, reinterpret_cast<VkBuffer>(b.handle().buffer), 0, VK_WHOLE_SIZE,
                      0x04030201u);
    });
    b.Destroy(reinterpret_cast<uint64_t>(fence));
    const std::vector<std::byte> bytes = context.ReadTensor(t).get();
    REQUIRE(bytes.size() == 24);
    for (size_t i = 0; i < 24; ++i) CHECK(bytes[i] == std::byte(i % 4 + 1));  // little endian
    // 5 int8 elements: 5 bytes in a buffer of 8, the tail zero.
    Tensor u = context.CreateTensor(Desc(true, true, true, DataType::kInt8, {5})).get();
    context.WriteTensor(u, std::vector<int8_t>{-1, -2, -3, -4, -5});
    ImportedBuffer c = ImportExternalBuffer(gpu, u).get();
    CHECK(c.handle().byte_length == 5);
    CHECK(c.handle().size == 8);
    const std::vector<std::byte> seen = app.Download(c.handle());
    CHECK(seen == std::vector<std::byte>{std::byte{0xff}, std::byte{0xfe}, std::byte{0xfd},
                                         std::byte{0xfc}, std::byte{0xfb}, std::byte{0},
                                         std::byte{0}, std::byte{0}});
  }
  CHECK(app.messages.load() == 0);
}

TEST_CASE("vulkan interop: a dispatch waits while its input is rented") {
  App app;
  {
    std::shared_ptr<GpuDevice> gpu = app.Gpu();
    Context context = Context::Create(gpu).get();
    Graph graph = AffineGraph(context);
    Tensor x = context.CreateTensor(Desc(false, true, true)).get();
    Tensor y = context.CreateTensor(Desc(true, false, false)).get();
    Tensor other = context.CreateTensor(Desc(true, true, false)).get();
    ImportedBuffer rented = ImportExternalBuffer(gpu, x).get();
    context.Dispatch(graph, {{"x", x}}, {{"y", y}});  // not an error: it waits
    std::future<std::vector<std::byte>> read = context.ReadTensor(y);
    std::atomic<bool> done{false};
    std::vector<float> got;
    std::thread waiter([&] {
      got = Floats(read.get(), 6);
      done = true;
    });
    context.WriteTensor(other, std::vector<float>{1, 2, 3, 4, 5, 6});  // not blocked
    CHECK(Floats(context.ReadTensor(other).get(), 6) == std::vector<float>{1, 2, 3, 4, 5, 6});
    std::this_thread::sleep_for(100ms);
    CHECK_FALSE(done.load());
    const std::vector<float> frame = {6, 5, 4, 3, 2, 1};
    const VkFence fence = app.Upload(rented.handle(), frame);
    rented.Destroy(reinterpret_cast<uint64_t>(fence));
    waiter.join();
    CHECK(got == Affine(frame));
  }
  CHECK(app.messages.load() == 0);
}

TEST_CASE("vulkan interop readings") {
  App app;
  {
    std::shared_ptr<GpuDevice> gpu = app.Gpu();
    Context context = Context::Create(gpu).get();
    SUBCASE("importable tensors on a context without a GPU device: NotSupportedError") {
      MLContextOptions options;
      options.backend = MakeVulkanBackend();
      Context plain = Context::Create(options).get();
      CHECK(ErrorOf([&] { plain.CreateTensor(Desc(true, true, true)).get(); }) ==
            ErrorType::kNotSupportedError);
    }
    SUBCASE("a tensor not created importable: TypeError") {
      Tensor t = context.CreateTensor(Desc(true, true, false)).get();
      CHECK(ErrorOf([&] { ImportExternalBuffer(gpu, t).get(); }) == ErrorType::kTypeError);
    }
    SUBCASE("importing twice: InvalidStateError") {
      Tensor t = context.CreateTensor(Desc(true, true, true)).get();
      ImportedBuffer b = ImportExternalBuffer(gpu, t).get();
      CHECK(ErrorOf([&] { ImportExternalBuffer(gpu, t).get(); }) == ErrorType::kInvalidStateError);
    }
    SUBCASE("a context not created from that device: TypeError") {
      VkDevice second = app.MakeDevice();
      {
        std::string why;
        std::shared_ptr<GpuDevice> other = MakeVulkanGpuDevice(app.Handles(second), why);
        REQUIRE_MESSAGE(other, why);
        CHECK(other->identity() != gpu->identity());
        Tensor t = context.CreateTensor(Desc(true, true, true)).get();
        CHECK(ErrorOf([&] { ImportExternalBuffer(other, t).get(); }) == ErrorType::kTypeError);
        // A second GpuDevice wrapping the same VkDevice is the same device.
        std::shared_ptr<GpuDevice> same = app.Gpu();
        CHECK(ImportExternalBuffer(same, t).get().valid());
      }
      vkDestroyDevice(second, nullptr);
    }
    SUBCASE("destroying a rented tensor: the buffer lives until returned, contents discarded") {
      Tensor t = context.CreateTensor(Desc(true, true, true)).get();
      ImportedBuffer b = ImportExternalBuffer(gpu, t).get();
      t.Destroy();
      const VkFence fence = app.Upload(b.handle(), {1, 2, 3, 4, 5, 6});
      app.Finish(fence);
      CHECK(Floats(app.Download(b.handle()), 6) == std::vector<float>{1, 2, 3, 4, 5, 6});
      b.Destroy();
      context.CreateTensor(Desc(true, true, false)).get();  // after the return
    }
    SUBCASE("the context lost while rented: the return frees the buffer") {
      Tensor t = context.CreateTensor(Desc(true, true, true)).get();
      ImportedBuffer b = ImportExternalBuffer(gpu, t).get();
      std::future<std::vector<std::byte>> read = context.ReadTensor(t);
      context.Destroy();
      CHECK(ErrorOf([&] { read.get(); }) == ErrorType::kInvalidStateError);
      const VkFence fence = app.Upload(b.handle(), {1, 2, 3, 4, 5, 6});
      b.Destroy(reinterpret_cast<uint64_t>(fence));  // waits for and destroys the fence, frees
      CHECK(ErrorOf([&] { ImportExternalBuffer(gpu, t).get(); }) == ErrorType::kInvalidStateError);
    }
  }
  CHECK(app.messages.load() == 0);  // includes objects left on the device at vkDestroyDevice
}

TEST_CASE("vulkan interop: a device that cannot run the backend is refused with a reason") {
  App app;
  VulkanDeviceHandles h = app.Handles();
  h.queue_family_index = 99;
  std::string why;
  CHECK(MakeVulkanGpuDevice(h, why) == nullptr);
  CHECK(why.find("queue family 99") != std::string::npos);
  h = app.Handles();
  h.device = nullptr;
  CHECK(MakeVulkanGpuDevice(h, why) == nullptr);
  CHECK(app.messages.load() == 0);
}

}  // namespace
}  // namespace nnref::webnn
