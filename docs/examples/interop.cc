// The MLTensor explainer's per-frame loop ("Interop with the GPU") with nnref's C++ API on a
// Vulkan device of the application (docs/interop.md):
//
//   for each frame:
//     rent mlTensor1 to the device        ImportExternalBuffer(gpu, frame_tensor)
//     a shader writes the frame into it   interop_frame.comp, submitted with a fence
//     return it                           ImportedBuffer::Destroy(fence)
//     dispatch the graph                  Context::Dispatch (the vulkan backend, same device)
//     rent mlTensor2 (the output)         ImportExternalBuffer(gpu, mask_tensor): waits for it
//     a shader reads it and renders       interop_render.comp into the application's screen
//     return it                           ImportedBuffer::Destroy(fence)
//
// The graph (a stand-in for selfie segmentation): mask = sigmoid(conv2d(frame, 3x3 box blur) -
// 0.5). Every frame is checked three ways: the frame WebNN received equals the frame computed here
// on the CPU; the mask is judged against the reference's computation of the same graph on the
// same input (JudgeOutputs, derived tolerance bounds); every screen pixel equals 2 * the mask.
// Built by CMake as `interop_example` (when the vulkan backend is built) and run by CTest
// (`example.interop`, label vulkan): it prints "interop example: 3 frames as expected".
#include "ops/vulkan/interop.h"

#include <vulkan/vulkan.h>

#include <cstring>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "runner/api/verdict.h"
#include "runner/api/webnn.h"

namespace webnn = nnref::webnn;

namespace {

const uint32_t kFrameSpv[] = {
#include "interop_frame.spv.inc"
};
const uint32_t kRenderSpv[] = {
#include "interop_render.spv.inc"
};

constexpr uint32_t kSide = 8, kPixels = kSide * kSide, kFrames = 3;

void Ok(VkResult r, const char* what) {
  if (r != VK_SUCCESS)
    throw std::runtime_error(std::string(what) + ": VkResult " + std::to_string(r));
}

// The application: a Vulkan device with a compute queue, two compute pipelines (frame and render,
// one layout: two storage buffers and two words of push constants) and a host-visible screen.
struct Application {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  uint32_t family = 0;
  VkQueue queue = VK_NULL_HANDLE;
  std::mutex queue_mu;  // the application and the vulkan backend submit to the same queue
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline frame_pipeline = VK_NULL_HANDLE, render_pipeline = VK_NULL_HANDLE;
  VkDescriptorPool descriptors = VK_NULL_HANDLE;
  VkCommandPool commands = VK_NULL_HANDLE;
  VkBuffer screen = VK_NULL_HANDLE;
  VkDeviceMemory screen_memory = VK_NULL_HANDLE;

  Application() {
    VkApplicationInfo ai{};
    ai.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    ai.pApplicationName = "nnref interop example";
    ai.apiVersion = VK_API_VERSION_1_1;
    VkInstanceCreateInfo ici{};
    ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    ici.pApplicationInfo = &ai;
    Ok(vkCreateInstance(&ici, nullptr, &instance), "vkCreateInstance");
    uint32_t n = 1;
    const VkResult r = vkEnumeratePhysicalDevices(instance, &n, &physical);
    if (n == 0 || (r != VK_SUCCESS && r != VK_INCOMPLETE)) throw std::runtime_error("no device");
    uint32_t qn = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &qn, nullptr);
    std::vector<VkQueueFamilyProperties> families(qn);
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &qn, families.data());
    while (family < qn && !(families[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++family;
    if (family == qn) throw std::runtime_error("no compute queue");
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo qi{};
    qi.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    qi.queueFamilyIndex = family;
    qi.queueCount = 1;
    qi.pQueuePriorities = &priority;
    VkDeviceCreateInfo di{};
    di.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    di.queueCreateInfoCount = 1;
    di.pQueueCreateInfos = &qi;
    Ok(vkCreateDevice(physical, &di, nullptr, &device), "vkCreateDevice");
    vkGetDeviceQueue(device, family, 0, &queue);

    VkDescriptorSetLayoutBinding bindings[2]{};
    for (uint32_t i = 0; i < 2; ++i) {
      bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    }
    VkDescriptorSetLayoutCreateInfo li{};
    li.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    li.bindingCount = 2;
    li.pBindings = bindings;
    Ok(vkCreateDescriptorSetLayout(device, &li, nullptr, &set_layout), "set layout");
    VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, 8};
    VkPipelineLayoutCreateInfo pli{};
    pli.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    pli.setLayoutCount = 1;
    pli.pSetLayouts = &set_layout;
    pli.pushConstantRangeCount = 1;
    pli.pPushConstantRanges = &push;
    Ok(vkCreatePipelineLayout(device, &pli, nullptr, &layout), "pipeline layout");
    frame_pipeline = Pipeline(kFrameSpv, sizeof(kFrameSpv));
    render_pipeline = Pipeline(kRenderSpv, sizeof(kRenderSpv));
    // One descriptor set and one command buffer per submission, freed with their pools.
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4 * kFrames};
    VkDescriptorPoolCreateInfo dpi{};
    dpi.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    dpi.maxSets = 2 * kFrames;
    dpi.poolSizeCount = 1;
    dpi.pPoolSizes = &size;
    Ok(vkCreateDescriptorPool(device, &dpi, nullptr, &descriptors), "descriptor pool");
    VkCommandPoolCreateInfo cpi{};
    cpi.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    cpi.queueFamilyIndex = family;
    Ok(vkCreateCommandPool(device, &cpi, nullptr, &commands), "command pool");

    VkBufferCreateInfo bi{};

    bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    bi.size = kPixels * sizeof(float);
    bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    Ok(vkCreateBuffer(device, &bi, nullptr, &screen), "screen buffer");
    VkMemoryRequirements req{};
    vkGetBufferMemoryRequirements(device, screen, &req);
    VkPhysicalDeviceMemoryProperties mp{};
    vkGetPhysicalDeviceMemoryProperties(physical, &mp);
    const VkMemoryPropertyFlags want =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type = 0;
    while (type < mp.memoryTypeCount && !((req.memoryTypeBits & (1u << type)) &&
                                          (mp.memoryTypes[type].propertyFlags & want) == want)) {
      ++type;
    }
    VkMemoryAllocateInfo mai{};
    mai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = type;
    Ok(vkAllocateMemory(device, &mai, nullptr, &screen_memory), "screen memory");
    Ok(vkBindBufferMemory(device, screen, screen_memory, 0), "bind screen");
  }

  ~Application() {
    vkDestroyBuffer(device, screen, nullptr);
    vkFreeMemory(device, screen_memory, nullptr);
    vkDestroyCommandPool(device, commands, nullptr);
    vkDestroyDescriptorPool(device, descriptors, nullptr);
    vkDestroyPipeline(device, frame_pipeline, nullptr);
    vkDestroyPipeline(device, render_pipeline, nullptr);
    vkDestroyPipelineLayout(device, layout, nullptr);
    vkDestroyDescriptorSetLayout(device, set_layout, nullptr);
    vkDestroyDevice(device, nullptr);
    vkDestroyInstance(instance, nullptr);
  }

  VkPipeline Pipeline(const uint32_t* code, size_t bytes) {
    VkShaderModuleCreateInfo si{};
    si.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    si.codeSize = bytes;
    si.pCode = code;
    VkShaderModule module = VK_NULL_HANDLE;
    Ok(vkCreateShaderModule(device, &si, nullptr, &module), "shader module");
    VkComputePipelineCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    ci.stage.module = module;
    ci.stage.pName = "main";
    ci.layout = layout;
    VkPipeline p = VK_NULL_HANDLE;
    Ok(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &ci, nullptr, &p), "pipeline");
    vkDestroyShaderModule(device, module, nullptr);
    return p;
  }

  // Runs `pipeline` over kPixels invocations with binding 0 = a, binding 1 = b, then makes its
  // writes visible to the host (what a returned buffer needs, interop.h). Returns the fence its
  // submission signals; the caller hands it over to the return.
  VkFence Run(VkPipeline pipeline, VkBuffer a, VkBuffer b, uint32_t frame) {
    VkDescriptorSetAllocateInfo dai{};
    dai.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    dai.descriptorPool = descriptors;
    dai.descriptorSetCount = 1;
    dai.pSetLayouts = &set_layout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    Ok(vkAllocateDescriptorSets(device, &dai, &set), "descriptor set");
    VkDescriptorBufferInfo infos[2] = {{a, 0, VK_WHOLE_SIZE}, {b, 0, VK_WHOLE_SIZE}};
    VkWriteDescriptorSet writes[2]{};
    for (uint32_t i = 0; i < 2; ++i) {
      writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
      writes[i].dstSet = set;
      writes[i].dstBinding = i;
      writes[i].descriptorCount = 1;
      writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[i].pBufferInfo = &infos[i];
    }
    vkUpdateDescriptorSets(device, 2, writes, 0, nullptr);
    VkCommandBufferAllocateInfo cai{};
    cai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    cai.commandPool = commands;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = 1;
    VkCommandBuffer cb = VK_NULL_HANDLE;
    Ok(vkAllocateCommandBuffers(device, &cai, &cb), "command buffer");
    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    Ok(vkBeginCommandBuffer(cb, &begin), "begin");
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
    const uint32_t push[2] = {kPixels, frame};
    vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), push);
    vkCmdDispatch(cb, (kPixels + 63) / 64, 1, 1);
    VkMemoryBarrier barrier{};
    barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                         &barrier, 0, nullptr, 0, nullptr);
    Ok(vkEndCommandBuffer(cb), "end");
    VkFenceCreateInfo fi{};
    fi.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    VkFence fence = VK_NULL_HANDLE;
    Ok(vkCreateFence(device, &fi, nullptr, &fence), "fence");
    VkSubmitInfo submit{};
    submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cb;
    std::lock_guard lock(queue_mu);
    Ok(vkQueueSubmit(queue, 1, &submit, fence), "submit");
    return fence;
  }
  std::vector<float> Screen() {
    void* mapped = nullptr;
    Ok(vkMapMemory(device, screen_memory, 0, VK_WHOLE_SIZE, 0, &mapped), "map screen");
    std::vector<float> pixels(kPixels);
    std::memcpy(pixels.data(), mapped, kPixels * sizeof(float));
    vkUnmapMemory(device, screen_memory);
    return pixels;
  }
};

// The frame interop_frame.comp writes, computed on the CPU.
std::vector<float> ExpectedFrame(uint32_t frame) {
  std::vector<float> v(kPixels);
  for (uint32_t i = 0; i < kPixels; ++i) {
    const uint32_t x = i % kSide, y = i / kSide;
    const bool inside = x >= frame && x < frame + 4 && y >= 2 && y < 6;
    v[i] = inside ? 1.0f : 0.125f * static_cast<float>((x + y) % 3);
  }
  return v;
}

std::vector<float> Floats(const std::vector<std::byte>& bytes) {
  std::vector<float> v(bytes.size() / sizeof(float));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
  return v;
}

template <typename H>
uint64_t Integer(H handle) {
  return reinterpret_cast<uint64_t>(handle);
}

bool RunFrames(Application& app) {
  // createContext(gpuDevice): the vulkan backend runs on the application's device and queue.
  std::string why;
  const std::shared_ptr<nnref::GpuDevice> gpu = nnref::MakeVulkanGpuDevice(
      {app.instance, app.physical, app.device, app.family, 0,
       reinterpret_cast<void*>(&vkGetInstanceProcAddr), &app.queue_mu, false},
      why);
  if (!gpu) throw std::runtime_error("MakeVulkanGpuDevice: " + why);
  webnn::Context context = webnn::Context::Create(gpu).get();
  std::cout << gpu->Describe() << "\n";

  const webnn::MLOperandDescriptor image{nnref::DataType::kFloat32, {1, 1, kSide, kSide}};
  webnn::GraphBuilder builder(context);
  const webnn::Operand input = builder.Input("input", image);
  const webnn::Operand box = builder.Constant({nnref::DataType::kFloat32, {1, 1, 3, 3}},
                                              std::vector<float>(9, 1.0f / 9.0f));
  nnref::MLConv2dOptions conv;
  conv.padding = {1, 1, 1, 1};
  const webnn::Operand blurred = builder.Conv2d(input, box, conv);
  const webnn::Operand centred = builder.Sub(
      blurred, builder.Constant(nnref::DataType::kFloat32, nnref::MLNumber::FromDouble(0.5)));
  const webnn::Graph graph = builder.Build({{"output", builder.Sigmoid(centred)}}).get();

  // The explainer: "Create a couple MLTensors to be shared with WebGPU."
  webnn::MLTensorDescriptor shared;
  static_cast<webnn::MLOperandDescriptor&>(shared) = image;
  shared.readable = true;  // read back here only to check the example
  shared.importableToWebGPU = true;
  const webnn::Tensor mlTensor1 = context.CreateTensor(shared).get();
  const webnn::Tensor mlTensor2 = context.CreateTensor(shared).get();

  bool as_expected = true;
  for (uint32_t frame = 0; frame < kFrames; ++frame) {
    // "Wait for all ML work involving `mlTensor1` to complete, then rent it out to WebGPU."
    webnn::ImportedBuffer tensorized = webnn::ImportExternalBuffer(gpu, mlTensor1).get();
    VkFence written =
        app.Run(app.frame_pipeline, reinterpret_cast<VkBuffer>(tensorized.handle().buffer),
                app.screen /* unused */, frame);
    // "Return the buffer to WebNN." The fence is handed over: the return waits for it on the
    // context's timeline, then destroys it.
    tensorized.Destroy(Integer(written));
    // "Perform some inference described by `graph` on the frame."
    context.Dispatch(graph, {{"input", mlTensor1}}, {{"output", mlTensor2}});
    // "Wait for all ML work involving `mlTensor2` to complete, then rent it out to WebGPU."
    webnn::ImportedBuffer mask = webnn::ImportExternalBuffer(gpu, mlTensor2).get();
    VkFence rendered = app.Run(app.render_pipeline,
                               reinterpret_cast<VkBuffer>(mask.handle().buffer), app.screen, frame);
    // "Return the buffer to WebNN for the next frame."
    mask.Destroy(Integer(rendered));

    // The checks (the reads resolve after both returns, so after both shaders).
    const std::vector<float> seen = Floats(context.ReadTensor(mlTensor1).get());
    const std::vector<std::byte> mask_bytes = context.ReadTensor(mlTensor2).get();
    const std::vector<float> mask_values = Floats(mask_bytes);
    const std::vector<float> screen = app.Screen();
    nnref::Tensor in = nnref::Tensor::Allocate(image.dataType, image.shape);
    std::memcpy(in.buffer()->data(), seen.data(), seen.size() * sizeof(float));
    nnref::Tensor out = nnref::Tensor::Allocate(image.dataType, image.shape);
    std::memcpy(out.buffer()->data(), mask_bytes.data(), mask_bytes.size());
    const webnn::OutputVerdict verdict =
        webnn::JudgeOutputs(graph, {{"input", in}}, {{"output", out}}).at("output");
    bool composited = true;
    for (uint32_t i = 0; i < kPixels; ++i)
      composited = composited && screen[i] == 2 * mask_values[i];
    const bool frame_ok = seen == ExpectedFrame(frame);
    std::cout << "frame " << frame << ": input " << (frame_ok ? "as written" : "WRONG") << ", mask "
              << (verdict.passed() ? "pass" : "FAIL") << " against the reference ("
              << verdict.tolerance << ", max " << verdict.comparison.max_ulp << " ULP), screen "
              << (composited ? "= 2 * mask" : "WRONG") << "\n";
    as_expected = as_expected && frame_ok && verdict.passed() && composited;
  }
  return as_expected;
}

}  // namespace

int main() {
  try {
    Application app;
    const bool ok = RunFrames(app);  // every context and buffer gone before the device
    std::cout << (ok ? "interop example: 3 frames as expected" : "interop example: FAILED") << "\n";
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "interop example: " << e.what() << "\n";
    return 1;
  }
}
