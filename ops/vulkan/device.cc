#include "ops/vulkan/device.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <stdexcept>

namespace nnref::vk {

namespace {

std::string VersionString(uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) +
         "." + std::to_string(VK_API_VERSION_PATCH(v));
}

const char* TypeName(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "CPU";
    default:
      return "other";
  }
}

const char* IndependenceName(VkShaderFloatControlsIndependence i) {
  switch (i) {
    case VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_32_BIT_ONLY:
      return "32-bit only";
    case VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL:
      return "all";
    case VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_NONE:
      return "none";
    default:
      return "other";
  }
}

constexpr VkMemoryPropertyFlags kUnified = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                                           VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                           VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
constexpr VkMemoryPropertyFlags kHost =
    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;

bool HasMemoryType(const VkPhysicalDeviceMemoryProperties& m, VkMemoryPropertyFlags flags) {
  for (uint32_t i = 0; i < m.memoryTypeCount; ++i) {
    if ((m.memoryTypes[i].propertyFlags & flags) == flags) return true;
  }
  return false;
}

// What to do when the loader finds no driver or no device: the same words for `nnref devices`
// and for `nnref run --backend vulkan`.
constexpr const char* kDriverAdvice =
    "install a Vulkan driver (on Debian: apt install mesa-vulkan-drivers, whose lavapipe runs "
    "Vulkan on the CPU; or your GPU's driver) and, if VK_DRIVER_FILES or VK_ICD_FILENAMES is set, "
    "make it name the driver's manifest (/usr/share/vulkan/icd.d/*.json); VK_LOADER_DEBUG=all "
    "shows where the loader looked";

// An instance with the given layers/extensions, or VK_NULL_HANDLE with `why`.
VkInstance MakeInstance(const Api& api, bool validation, std::string& why) {
  uint32_t loader_version = VK_API_VERSION_1_0;
  api.vkEnumerateInstanceVersion(&loader_version);
  if (loader_version < VK_API_VERSION_1_1) {
    why = "the Vulkan loader is " + VersionString(loader_version) + " (1.1 needed)";
    return VK_NULL_HANDLE;
  }
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "nnref";
  app.pEngineName = "nnref";
  app.apiVersion = std::min<uint32_t>(loader_version, VK_API_VERSION_1_3);
  const char* layer = "VK_LAYER_KHRONOS_validation";
  const char* extension = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
  VkInstanceCreateInfo ci{};
  ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  ci.pApplicationInfo = &app;
  if (validation) {
    uint32_t n = 0;
    api.vkEnumerateInstanceLayerProperties(&n, nullptr);
    std::vector<VkLayerProperties> layers(n);
    api.vkEnumerateInstanceLayerProperties(&n, layers.data());
    const bool found = std::any_of(layers.begin(), layers.end(), [&](const VkLayerProperties& l) {
      return std::strcmp(l.layerName, layer) == 0;
    });
    if (!found) {
      why =
          "the validation layer was asked for (NNREF_VULKAN_VALIDATION) but "
          "VK_LAYER_KHRONOS_validation is not installed: install it (on Debian: apt install "
          "vulkan-validationlayers; VK_LAYER_PATH, if set, must name its folder) or unset "
          "NNREF_VULKAN_VALIDATION";
      return VK_NULL_HANDLE;
    }
    ci.enabledLayerCount = 1;
    ci.ppEnabledLayerNames = &layer;
    ci.enabledExtensionCount = 1;
    ci.ppEnabledExtensionNames = &extension;
  }
  VkInstance instance = VK_NULL_HANDLE;
  const VkResult r = api.vkCreateInstance(&ci, nullptr, &instance);
  if (r == VK_ERROR_INCOMPATIBLE_DRIVER) {
    // The loader's answer when it found no driver (ICD) at all, or none for Vulkan 1.1.
    why = std::string("no Vulkan driver (ICD) was found (vkCreateInstance: ") + ResultName(r) +
          "): " + kDriverAdvice;
    return VK_NULL_HANDLE;
  }
  if (r != VK_SUCCESS) {
    why = std::string("vkCreateInstance: ") + ResultName(r);
    return VK_NULL_HANDLE;
  }
  return instance;
}

DeviceInfo Describe(const Api& api, VkPhysicalDevice pd, uint32_t index) {
  DeviceInfo info;
  info.index = index;
  VkPhysicalDeviceProperties base{};
  api.vkGetPhysicalDeviceProperties(pd, &base);
  const bool v12 = base.apiVersion >= VK_API_VERSION_1_2;

  VkPhysicalDeviceFloatControlsProperties controls{};
  controls.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES;
  VkPhysicalDeviceDriverProperties driver{};
  driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
  driver.pNext = &controls;
  VkPhysicalDeviceSubgroupProperties subgroup{};
  subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  subgroup.pNext = v12 ? &driver : nullptr;
  VkPhysicalDeviceProperties2 props{};
  props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  props.pNext = &subgroup;
  api.vkGetPhysicalDeviceProperties2(pd, &props);

  VkPhysicalDeviceShaderFloat16Int8Features f16i8{};
  f16i8.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
  VkPhysicalDevice8BitStorageFeatures s8{};
  s8.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES;
  s8.pNext = &f16i8;
  VkPhysicalDevice16BitStorageFeatures s16{};
  s16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
  s16.pNext = v12 ? &s8 : nullptr;
  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.pNext = &s16;
  api.vkGetPhysicalDeviceFeatures2(pd, &features);

  VkPhysicalDeviceMemoryProperties memory{};
  api.vkGetPhysicalDeviceMemoryProperties(pd, &memory);

  info.name = base.deviceName;
  info.type = TypeName(base.deviceType);
  info.api_version = VersionString(base.apiVersion);
  info.vendor_id = base.vendorID;
  info.device_id = base.deviceID;
  if (v12) {
    info.driver = std::string(driver.driverName) + " (" + driver.driverInfo + ")";
  } else {
    info.driver = "driver version " + std::to_string(base.driverVersion);
  }
  info.shader_float16 = v12 && f16i8.shaderFloat16;
  info.shader_int8 = v12 && f16i8.shaderInt8;
  info.storage_buffer_16bit = s16.storageBuffer16BitAccess;
  info.storage_buffer_8bit = v12 && s8.storageBuffer8BitAccess;
  info.shader_int64 = features.features.shaderInt64;
  info.shader_float64 = features.features.shaderFloat64;
  info.subgroup_size = subgroup.subgroupSize;
  info.subgroup_ballot = (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BALLOT_BIT) != 0 &&
                         (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0;
  info.subgroup_arithmetic =
      (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) != 0 &&
      (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0;
  info.max_storage_buffer_range = base.limits.maxStorageBufferRange;
  info.min_storage_buffer_offset_alignment =
      std::max<uint64_t>(16, base.limits.minStorageBufferOffsetAlignment);
  info.unified_memory = HasMemoryType(memory, kUnified);
  if (v12) {
    DeviceInfo::FloatControls& f = info.float_controls;
    f.known = true;
    f.denorm_behavior_independence = IndependenceName(controls.denormBehaviorIndependence);
    f.rounding_mode_independence = IndependenceName(controls.roundingModeIndependence);
    f.denorm_independence = controls.denormBehaviorIndependence;
    f.rounding_independence = controls.roundingModeIndependence;
    f.denorm_preserve[0] = controls.shaderDenormPreserveFloat16;
    f.denorm_preserve[1] = controls.shaderDenormPreserveFloat32;
    f.denorm_preserve[2] = controls.shaderDenormPreserveFloat64;
    f.denorm_flush_to_zero[0] = controls.shaderDenormFlushToZeroFloat16;
    f.denorm_flush_to_zero[1] = controls.shaderDenormFlushToZeroFloat32;
    f.denorm_flush_to_zero[2] = controls.shaderDenormFlushToZeroFloat64;
    f.signed_zero_inf_nan_preserve[0] = controls.shaderSignedZeroInfNanPreserveFloat16;
    f.signed_zero_inf_nan_preserve[1] = controls.shaderSignedZeroInfNanPreserveFloat32;
    f.signed_zero_inf_nan_preserve[2] = controls.shaderSignedZeroInfNanPreserveFloat64;
    f.rounding_rte[0] = controls.shaderRoundingModeRTEFloat16;
    f.rounding_rte[1] = controls.shaderRoundingModeRTEFloat32;
    f.rounding_rte[2] = controls.shaderRoundingModeRTEFloat64;
    f.rounding_rtz[0] = controls.shaderRoundingModeRTZFloat16;
    f.rounding_rtz[1] = controls.shaderRoundingModeRTZFloat32;
    f.rounding_rtz[2] = controls.shaderRoundingModeRTZFloat64;
  }
  return info;
}

VKAPI_ATTR VkBool32 VKAPI_CALL OnMessage(VkDebugUtilsMessageSeverityFlagBitsEXT,
                                         VkDebugUtilsMessageTypeFlagsEXT,
                                         const VkDebugUtilsMessengerCallbackDataEXT* data,
                                         void* user) {
  static_cast<std::atomic<uint64_t>*>(user)->fetch_add(1);
  std::cerr << "vulkan validation: " << (data && data->pMessage ? data->pMessage : "(no text)")
            << "\n";
  return VK_FALSE;
}

}  // namespace

std::string NoDeviceMessage() {
  return std::string("the Vulkan loader found a driver but no device: ") + kDriverAdvice;
}

std::optional<std::vector<DeviceInfo>> ListDevices(std::string& why) {
  const Api* global = LoadApi(why);
  if (global == nullptr) return std::nullopt;
  Api api = *global;
  VkInstance instance = MakeInstance(api, false, why);
  if (instance == VK_NULL_HANDLE) return std::nullopt;
  if (!LoadInstanceFunctions(api, instance, why)) return std::nullopt;
  uint32_t n = 0;
  api.vkEnumeratePhysicalDevices(instance, &n, nullptr);
  std::vector<VkPhysicalDevice> devices(n);
  api.vkEnumeratePhysicalDevices(instance, &n, devices.data());
  std::vector<DeviceInfo> result;
  for (uint32_t i = 0; i < n; ++i) result.push_back(Describe(api, devices[i], i));
  api.vkDestroyInstance(instance, nullptr);
  return result;
}

std::shared_ptr<Device> Device::Create(const DeviceOptions& options, std::string& why) {
  std::shared_ptr<Device> d(new Device());
  if (!d->Init(options, why)) return nullptr;
  d->queue_mutex_ = &d->own_queue_mutex_;
  return d;
}

ExternalDevice Device::Share() {
  ExternalDevice e;
  e.instance = instance_;
  e.physical_device = physical_;
  e.device = device_;
  e.queue_family_index = queue_family_;
  e.queue_index = 0;
  e.get_instance_proc_addr = api_.vkGetInstanceProcAddr;
  e.queue_mutex = queue_mutex_;
  e.shader_int64 = info_.shader_int64;
  return e;
}

bool Device::Init(const DeviceOptions& options, std::string& why) {
  const Api* global = LoadApi(why);
  if (global == nullptr) return false;
  api_ = *global;
  instance_ = MakeInstance(api_, options.validation, why);
  if (instance_ == VK_NULL_HANDLE) return false;
  if (!LoadInstanceFunctions(api_, instance_, why)) return false;
  if (options.validation) {
    if (api_.vkCreateDebugUtilsMessengerEXT == nullptr) {
      why = "validation requested but VK_EXT_debug_utils is missing";
      return false;
    }
    VkDebugUtilsMessengerCreateInfoEXT mi{};
    mi.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
    mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    mi.pfnUserCallback = OnMessage;
    mi.pUserData = &messages_;
    if (api_.vkCreateDebugUtilsMessengerEXT(instance_, &mi, nullptr, &messenger_) != VK_SUCCESS) {
      why = "vkCreateDebugUtilsMessengerEXT failed";
      return false;
    }
  }
  uint32_t n = 0;
  api_.vkEnumeratePhysicalDevices(instance_, &n, nullptr);
  std::vector<VkPhysicalDevice> devices(n);
  api_.vkEnumeratePhysicalDevices(instance_, &n, devices.data());
  if (n == 0) {
    why = NoDeviceMessage();
    return false;
  }
  const uint32_t index = options.index < 0 ? 0 : static_cast<uint32_t>(options.index);
  if (index >= n) {
    why = "no Vulkan device " + std::to_string(index) + ": there " +
          (n == 1 ? "is 1 device (index 0)"
                  : "are " + std::to_string(n) + " devices (indices 0 to " + std::to_string(n - 1) +
                        ")") +
          "; choose one with --device N (nnref devices lists them)";
    return false;
  }
  physical_ = devices[index];
  info_ = Describe(api_, physical_, index);
  VkPhysicalDeviceProperties base{};
  api_.vkGetPhysicalDeviceProperties(physical_, &base);
  if (base.apiVersion < VK_API_VERSION_1_1) {
    why = info_.name + " supports Vulkan " + info_.api_version + " (1.1 needed)";
    return false;
  }
  api_.vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);
  staging_ = options.force_staging || !info_.unified_memory;
  native_ = options.native;
  if (!options.float16.empty() && options.float16 != "native" && options.float16 != "float32") {
    why = "NNREF_VULKAN_FLOAT16 is '" + options.float16 +
          "': it must be 'native' (float16 computed in float16, needs shaderFloat16) or 'float32' "
          "(float16 widened to float32), or unset (native where the device has shaderFloat16)";
    return false;
  }
  if (native_ && options.float16 == "native" && !info_.shader_float16) {
    why = "NNREF_VULKAN_FLOAT16=native: " + info_.name +
          " has no shaderFloat16 (unset it, or set it to float32)";
    return false;
  }
  float16_native_ = native_ && info_.shader_float16 && options.float16 != "float32";
  // The float controls are Vulkan 1.2 core: the instance (the loader) must be 1.2 too.
  uint32_t loader_version = VK_API_VERSION_1_0;
  api_.vkEnumerateInstanceVersion(&loader_version);
  if (options.float_modes) {
    float_modes_ = *options.float_modes;
  } else if (loader_version >= VK_API_VERSION_1_2) {
    float_modes_ = ChooseFloatModes(info_.float_controls);
  }
  // A test switch: NNREF_VULKAN_SUBGROUP_ARITHMETIC=off makes the native reductions use their
  // shared-memory tree on a device that has subgroup arithmetic.
  const char* subgroup_env = std::getenv("NNREF_VULKAN_SUBGROUP_ARITHMETIC");
  subgroup_arithmetic_ =
      info_.subgroup_arithmetic && !(subgroup_env != nullptr && std::string(subgroup_env) == "off");
  if (options.max_binding > 0 && options.max_binding < info_.max_storage_buffer_range) {
    info_.max_storage_buffer_range = options.max_binding;
  }

  uint32_t qn = 0;
  api_.vkGetPhysicalDeviceQueueFamilyProperties(physical_, &qn, nullptr);
  std::vector<VkQueueFamilyProperties> families(qn);
  api_.vkGetPhysicalDeviceQueueFamilyProperties(physical_, &qn, families.data());
  bool found = false;
  for (uint32_t i = 0; i < qn && !found; ++i) {
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      queue_family_ = i;
      found = true;
    }
  }
  if (!found) {
    why = info_.name + " has no compute queue";
    return false;
  }
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qi{};
  qi.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  qi.queueFamilyIndex = queue_family_;
  qi.queueCount = 1;
  qi.pQueuePriorities = &priority;
  // Narrow types are packed into 32-bit words by the shaders, so only shaderInt64 (the 64-bit
  // integer variant) is ever needed, and shaderFloat64 for the NNEF quantization
  // (nnef_quantize.comp, double arithmetic).
  VkPhysicalDeviceFeatures enabled{};
  enabled.shaderInt64 = info_.shader_int64 ? VK_TRUE : VK_FALSE;
  enabled.shaderFloat64 = info_.shader_float64 ? VK_TRUE : VK_FALSE;
  // shaderFloat16 (Vulkan 1.2, VkPhysicalDeviceShaderFloat16Int8Features) only when the native
  // mode computes float16 natively: the *F16 shader variants declare the Float16 capability.
  VkPhysicalDeviceShaderFloat16Int8Features f16{};
  f16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
  f16.shaderFloat16 = VK_TRUE;
  VkDeviceCreateInfo di{};
  di.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  if (float16_native_) di.pNext = &f16;
  di.queueCreateInfoCount = 1;
  di.pQueueCreateInfos = &qi;
  di.pEnabledFeatures = &enabled;
  VkResult r = api_.vkCreateDevice(physical_, &di, nullptr, &device_);
  if (r != VK_SUCCESS) {
    why = std::string("vkCreateDevice: ") + ResultName(r);
    return false;
  }
  api_.vkGetDeviceQueue(device_, queue_family_, 0, &queue_);
  return InitObjects(options, why);
}

std::shared_ptr<Device> Device::Adopt(const ExternalDevice& e, const DeviceOptions& options,
                                      std::string& why) {
  std::shared_ptr<Device> d(new Device());
  d->owned_ = false;  // from here on the destructor leaves the device and instance alone
  if (e.instance == VK_NULL_HANDLE || e.physical_device == VK_NULL_HANDLE ||
      e.device == VK_NULL_HANDLE) {
    why = "the application's Vulkan device needs its instance, physical device and device";
    return nullptr;
  }
  if (e.get_instance_proc_addr != nullptr) {
    d->api_.vkGetInstanceProcAddr = e.get_instance_proc_addr;
  } else {
    const Api* global = LoadApi(why);
    if (global == nullptr) return nullptr;
    d->api_ = *global;
  }
  if (!LoadInstanceFunctions(d->api_, e.instance, why)) return nullptr;
  d->instance_ = e.instance;
  d->physical_ = e.physical_device;
  const Api& api = d->api_;
  // The physical device's index, for reports (nnref devices numbers them so).
  uint32_t n = 0, index = 0;
  api.vkEnumeratePhysicalDevices(e.instance, &n, nullptr);
  std::vector<VkPhysicalDevice> devices(n);
  api.vkEnumeratePhysicalDevices(e.instance, &n, devices.data());
  for (uint32_t i = 0; i < n; ++i) {
    if (devices[i] == e.physical_device) index = i;
  }
  d->info_ = Describe(api, e.physical_device, index);
  VkPhysicalDeviceProperties base{};
  api.vkGetPhysicalDeviceProperties(e.physical_device, &base);
  if (base.apiVersion < VK_API_VERSION_1_1) {
    why = d->info_.name + " supports Vulkan " + d->info_.api_version + " (1.1 needed)";
    return nullptr;
  }
  uint32_t qn = 0;
  api.vkGetPhysicalDeviceQueueFamilyProperties(e.physical_device, &qn, nullptr);
  std::vector<VkQueueFamilyProperties> families(qn);
  api.vkGetPhysicalDeviceQueueFamilyProperties(e.physical_device, &qn, families.data());
  if (e.queue_family_index >= qn ||
      (families[e.queue_family_index].queueFlags & VK_QUEUE_COMPUTE_BIT) == 0 ||
      e.queue_index >= families[e.queue_family_index].queueCount) {
    why = "queue family " + std::to_string(e.queue_family_index) + ", queue " +
          std::to_string(e.queue_index) + " of " + d->info_.name +
          " is not a compute queue of the device";
    return nullptr;
  }
  // Only the features the application enabled may be used.
  d->info_.shader_int64 = d->info_.shader_int64 && e.shader_int64;
  d->device_ = e.device;
  d->queue_family_ = e.queue_family_index;
  d->queue_mutex_ = e.queue_mutex;
  api.vkGetDeviceQueue(e.device, e.queue_family_index, e.queue_index, &d->queue_);
  api.vkGetPhysicalDeviceMemoryProperties(e.physical_device, &d->memory_);
  d->staging_ = options.force_staging || !d->info_.unified_memory;
  if (options.max_binding > 0 && options.max_binding < d->info_.max_storage_buffer_range) {
    d->info_.max_storage_buffer_range = options.max_binding;
  }
  if (!d->InitObjects(options, why)) return nullptr;
  return d;
}

bool Device::InitObjects(const DeviceOptions&, std::string& why) {
  VkResult r = VK_SUCCESS;
  VkDescriptorSetLayoutBinding bindings[kBindings]{};
  for (uint32_t i = 0; i < kBindings; ++i) {
    bindings[i].binding = i;
    bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo li{};
  li.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  li.bindingCount = kBindings;
  li.pBindings = bindings;
  VkPipelineLayoutCreateInfo pli{};
  pli.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  pli.setLayoutCount = 1;
  pli.pSetLayouts = &set_layout_;
  VkDescriptorPoolSize pool_size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kBindings};
  VkDescriptorPoolCreateInfo dpi{};
  dpi.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  dpi.maxSets = 1;
  dpi.poolSizeCount = 1;
  dpi.pPoolSizes = &pool_size;
  VkCommandPoolCreateInfo cpi{};
  cpi.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  cpi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  cpi.queueFamilyIndex = queue_family_;
  VkFenceCreateInfo fi{};
  fi.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  if ((r = api_.vkCreateDescriptorSetLayout(device_, &li, nullptr, &set_layout_)) != VK_SUCCESS ||
      (r = api_.vkCreatePipelineLayout(device_, &pli, nullptr, &pipeline_layout_)) != VK_SUCCESS ||
      (r = api_.vkCreateDescriptorPool(device_, &dpi, nullptr, &descriptor_pool_)) != VK_SUCCESS ||
      (r = api_.vkCreateCommandPool(device_, &cpi, nullptr, &command_pool_)) != VK_SUCCESS ||
      (r = api_.vkCreateFence(device_, &fi, nullptr, &fence_)) != VK_SUCCESS) {
    why = std::string("creating the pipeline layout and pools: ") + ResultName(r);
    return false;
  }
  VkCommandBufferAllocateInfo cai{};
  cai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  cai.commandPool = command_pool_;
  cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cai.commandBufferCount = 1;
  if ((r = api_.vkAllocateCommandBuffers(device_, &cai, &command_buffer_)) != VK_SUCCESS) {
    why = std::string("vkAllocateCommandBuffers: ") + ResultName(r);
    return false;
  }
  device_slots_.resize(kBindings);
  staging_slots_.resize(kBindings);
  return true;
}

Device::~Device() {
  if (device_ != VK_NULL_HANDLE) {
    // Every submission was waited for (Run is synchronous); the application's device is not
    // waited idle: its other queues are the application's.
    if (owned_) api_.vkDeviceWaitIdle(device_);
    for (Buffer& b : device_slots_) Destroy(b);
    for (Buffer& b : staging_slots_) Destroy(b);
    for (const auto& [key, p] : pipelines_) {
      if (p != VK_NULL_HANDLE) api_.vkDestroyPipeline(device_, p, nullptr);
    }
    if (fence_) api_.vkDestroyFence(device_, fence_, nullptr);
    if (command_pool_) api_.vkDestroyCommandPool(device_, command_pool_, nullptr);
    if (descriptor_pool_) api_.vkDestroyDescriptorPool(device_, descriptor_pool_, nullptr);
    if (graph_pool_) api_.vkDestroyDescriptorPool(device_, graph_pool_, nullptr);
    if (pipeline_layout_) api_.vkDestroyPipelineLayout(device_, pipeline_layout_, nullptr);
    if (set_layout_) api_.vkDestroyDescriptorSetLayout(device_, set_layout_, nullptr);
    if (owned_) api_.vkDestroyDevice(device_, nullptr);
  }
  if (!owned_) return;
  if (messenger_ != VK_NULL_HANDLE) {
    api_.vkDestroyDebugUtilsMessengerEXT(instance_, messenger_, nullptr);
  }
  if (instance_ != VK_NULL_HANDLE) api_.vkDestroyInstance(instance_, nullptr);
}

void Device::Check(VkResult r, const char* what) {
  if (r != VK_SUCCESS) {
    throw std::runtime_error(std::string("vulkan: ") + what + ": " + ResultName(r));
  }
}

VkPipeline Device::Pipeline(Shader shader, std::span<const uint32_t> spec) {
  VkPipeline& p = pipelines_[{shader, std::vector<uint32_t>(spec.begin(), spec.end())}];
  if (p != VK_NULL_HANDLE) return p;
  const ShaderCode& code = Code(shader);
  if (code.needs_float16 && !float16_native_) {
    throw std::runtime_error(std::string(code.name) +
                             " needs shaderFloat16, which this device does not have enabled");
  }
  // The embedded module, with the device's float-controls execution modes declared.
  const std::vector<uint32_t> words =
      float_modes_.any() ? WithFloatModes({code.words, code.count}, float_modes_)
                         : std::vector<uint32_t>(code.words, code.words + code.count);
  VkShaderModuleCreateInfo si{};
  si.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  si.codeSize = words.size() * sizeof(uint32_t);
  si.pCode = words.data();
  VkShaderModule module = VK_NULL_HANDLE;
  Check(api_.vkCreateShaderModule(device_, &si, nullptr, &module), "vkCreateShaderModule");
  VkComputePipelineCreateInfo ci{};
  ci.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = module;
  ci.stage.pName = "main";
  std::vector<VkSpecializationMapEntry> entries(spec.size());
  for (size_t i = 0; i < spec.size(); ++i) {
    entries[i].constantID = static_cast<uint32_t>(i);
    entries[i].offset = static_cast<uint32_t>(i * sizeof(uint32_t));
    entries[i].size = sizeof(uint32_t);
  }
  VkSpecializationInfo info{};
  info.mapEntryCount = static_cast<uint32_t>(entries.size());
  info.pMapEntries = entries.data();
  info.dataSize = spec.size_bytes();
  info.pData = spec.data();
  if (!spec.empty()) ci.stage.pSpecializationInfo = &info;
  ci.layout = pipeline_layout_;
  const VkResult r = api_.vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &ci, nullptr, &p);
  api_.vkDestroyShaderModule(device_, module, nullptr);
  Check(r, "vkCreateComputePipelines");
  return p;
}

void Device::Destroy(Buffer& b) {
  if (b.mapped) api_.vkUnmapMemory(device_, b.memory);
  if (b.buffer) api_.vkDestroyBuffer(device_, b.buffer, nullptr);
  if (b.memory) api_.vkFreeMemory(device_, b.memory, nullptr);
  b = Buffer{};
}

Device::Buffer& Device::Slot(std::vector<Buffer>& slots, size_t slot, VkDeviceSize bytes,
                             bool host) {
  Buffer& b = slots[slot];
  if (b.buffer != VK_NULL_HANDLE && b.size >= bytes) return b;
  Destroy(b);
  // Grow geometrically so that a run of growing tensors reallocates only a few times.
  VkDeviceSize size = 256;
  while (size < bytes) size *= 2;
  b = CreateBuffer(size, host);
  return b;
}

Device::Buffer Device::CreateBuffer(VkDeviceSize size, bool host) {
  ++buffers_created_;
  Buffer b;
  VkBufferCreateInfo bi{};
  bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  bi.size = size;
  bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
             VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  Check(api_.vkCreateBuffer(device_, &bi, nullptr, &b.buffer), "vkCreateBuffer");
  VkMemoryRequirements req{};
  api_.vkGetBufferMemoryRequirements(device_, b.buffer, &req);
  // Unified memory when there is one (lavapipe, integrated GPUs); else device-local for the
  // bound buffers and host-visible for the staging copies.
  const VkMemoryPropertyFlags want =
      host ? kHost
           : (staging_ ? VkMemoryPropertyFlags{VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT} : kUnified);
  uint32_t type = UINT32_MAX;
  for (uint32_t i = 0; i < memory_.memoryTypeCount && type == UINT32_MAX; ++i) {
    if ((req.memoryTypeBits & (1u << i)) && (memory_.memoryTypes[i].propertyFlags & want) == want) {
      type = i;
    }
  }
  if (type == UINT32_MAX) {
    Destroy(b);
    throw std::runtime_error("vulkan: no suitable memory type");
  }
  VkMemoryAllocateInfo ai{};
  ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = type;
  try {
    Check(api_.vkAllocateMemory(device_, &ai, nullptr, &b.memory), "vkAllocateMemory");
    Check(api_.vkBindBufferMemory(device_, b.buffer, b.memory, 0), "vkBindBufferMemory");
    if (host || !staging_) {
      Check(api_.vkMapMemory(device_, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped), "vkMapMemory");
    }
  } catch (...) {
    Destroy(b);
    throw;
  }
  b.size = size;
  return b;
}

// Ends `cb`, submits it alone (under the application's queue lock when one was given) and waits
// for its fence: the one submission of Run and of each Execute segment.
VkCommandBuffer Device::BeginCommands() {
  VkCommandBuffer cb = command_buffer_;
  Check(api_.vkResetCommandBuffer(cb, 0), "vkResetCommandBuffer");
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  Check(api_.vkBeginCommandBuffer(cb, &begin), "vkBeginCommandBuffer");
  return cb;
}

void Device::SubmitAndWait(VkCommandBuffer cb) {
  Check(api_.vkEndCommandBuffer(cb), "vkEndCommandBuffer");
  VkSubmitInfo submit{};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cb;
  Check(api_.vkResetFences(device_, 1, &fence_), "vkResetFences");
  {
    std::unique_lock<std::mutex> queue_lock;
    if (queue_mutex_ != nullptr) queue_lock = std::unique_lock<std::mutex>(*queue_mutex_);
    Check(api_.vkQueueSubmit(queue_, 1, &submit, fence_), "vkQueueSubmit");
    ++submissions_;
  }
  Check(api_.vkWaitForFences(device_, 1, &fence_, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  ++fence_waits_;
}

void Device::Run(Shader shader, std::span<const uint32_t> params, std::span<const Bytes> inputs,
                 std::span<std::byte> output, uint64_t groups, std::span<const uint32_t> spec) {
  if (inputs.size() > kInputBindings) throw std::logic_error("vulkan: too many inputs");
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t before = messages_.load();
  const VkPipeline pipeline = Pipeline(shader, spec);

  // The data of every binding: params, inputs (unused ones get a small dummy), output.
  std::vector<Bytes> data(kBindings);
  data[0] = std::as_bytes(params);
  for (size_t i = 0; i < inputs.size(); ++i) data[1 + i] = inputs[i];
  const size_t out_slot = kBindings - 1;
  std::vector<VkDeviceSize> sizes(kBindings);
  for (size_t i = 0; i < kBindings; ++i) {
    const size_t n = i == out_slot ? output.size() : data[i].size();
    sizes[i] = std::max<VkDeviceSize>(16, (n + 15) / 16 * 16);  // whole words, never empty
  }

  VkDescriptorBufferInfo buffer_infos[kBindings]{};
  for (size_t i = 0; i < kBindings; ++i) {
    Buffer& b = Slot(device_slots_, i, sizes[i], false);
    void* host = b.mapped;
    if (staging_) host = Slot(staging_slots_, i, sizes[i], true).mapped;
    if (i != out_slot && !data[i].empty()) std::memcpy(host, data[i].data(), data[i].size());
    buffer_infos[i] = {b.buffer, 0, VK_WHOLE_SIZE};
  }

  Check(api_.vkResetDescriptorPool(device_, descriptor_pool_, 0), "vkResetDescriptorPool");
  VkDescriptorSetAllocateInfo dai{};
  dai.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  dai.descriptorPool = descriptor_pool_;
  dai.descriptorSetCount = 1;
  dai.pSetLayouts = &set_layout_;
  VkDescriptorSet set = VK_NULL_HANDLE;
  Check(api_.vkAllocateDescriptorSets(device_, &dai, &set), "vkAllocateDescriptorSets");
  VkWriteDescriptorSet writes[kBindings]{};
  for (uint32_t i = 0; i < kBindings; ++i) {
    writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[i].dstSet = set;
    writes[i].dstBinding = i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &buffer_infos[i];
  }
  api_.vkUpdateDescriptorSets(device_, kBindings, writes, 0, nullptr);

  VkCommandBuffer cb = BeginCommands();
  VkMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  if (staging_) {
    // Host writes are visible to transfers once submitted; copy the inputs in, then make the
    // transfer writes visible to the shader.
    for (size_t i = 0; i < out_slot; ++i) {
      VkBufferCopy copy{0, 0, sizes[i]};
      api_.vkCmdCopyBuffer(cb, staging_slots_[i].buffer, device_slots_[i].buffer, 1, &copy);
    }
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
    api_.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
                              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier, 0, nullptr, 0,
                              nullptr);
  }
  api_.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  api_.vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout_, 0, 1, &set, 0,
                               nullptr);
  const uint32_t group_count = static_cast<uint32_t>(std::clamp<uint64_t>(groups, 1, 65535));
  api_.vkCmdDispatch(cb, group_count, 1, 1);
  if (staging_) {
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    api_.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                              VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &barrier, 0, nullptr, 0,
                              nullptr);
    VkBufferCopy copy{0, 0, sizes[out_slot]};
    api_.vkCmdCopyBuffer(cb, device_slots_[out_slot].buffer, staging_slots_[out_slot].buffer, 1,
                         &copy);
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    api_.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                              &barrier, 0, nullptr, 0, nullptr);
  } else {
    // The shader's writes must be visible to the host reads after the fence.
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    api_.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                              0, 1, &barrier, 0, nullptr, 0, nullptr);
  }
  SubmitAndWait(cb);
  const void* result = staging_ ? staging_slots_[out_slot].mapped : device_slots_[out_slot].mapped;
  if (!output.empty()) std::memcpy(output.data(), result, output.size());
  if (messages_.load() != before) {
    throw std::runtime_error(std::string("vulkan: the validation layer reported a problem with ") +
                             Code(shader).name + " (see the messages above)");
  }
}

void Device::Execute(const Recording& r) {
  if (r.dispatches.empty() && r.uploads.empty() && r.downloads.empty()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t before = messages_.load();
  // One descriptor set per dispatch (an entry with groups == 0 is copies only).
  std::vector<uint32_t> set_of(r.dispatches.size(), UINT32_MAX);
  uint32_t sets = 0;
  for (size_t d = 0; d < r.dispatches.size(); ++d) {
    if (r.dispatches[d].groups > 0) set_of[d] = sets++;
  }
  // One descriptor set per dispatch, from a pool kept for graphs (grown to a power of two).
  if (sets > graph_pool_sets_) {
    if (graph_pool_ != VK_NULL_HANDLE) api_.vkDestroyDescriptorPool(device_, graph_pool_, nullptr);
    graph_pool_ = VK_NULL_HANDLE;
    graph_pool_sets_ = 0;
    uint32_t n = 16;
    while (n < sets) n *= 2;
    VkDescriptorPoolSize pool_size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, n * kBindings};
    VkDescriptorPoolCreateInfo dpi{};
    dpi.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    dpi.maxSets = n;
    dpi.poolSizeCount = 1;
    dpi.pPoolSizes = &pool_size;
    Check(api_.vkCreateDescriptorPool(device_, &dpi, nullptr, &graph_pool_),
          "vkCreateDescriptorPool");
    graph_pool_sets_ = n;
  } else if (graph_pool_ != VK_NULL_HANDLE) {
    Check(api_.vkResetDescriptorPool(device_, graph_pool_, 0), "vkResetDescriptorPool");
  }
  std::vector<VkDescriptorSet> set(sets, VK_NULL_HANDLE);
  std::vector<VkPipeline> pipelines(sets, VK_NULL_HANDLE);
  if (sets > 0) {
    const std::vector<VkDescriptorSetLayout> layouts(sets, set_layout_);
    VkDescriptorSetAllocateInfo dai{};
    dai.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    dai.descriptorPool = graph_pool_;
    dai.descriptorSetCount = sets;
    dai.pSetLayouts = layouts.data();
    Check(api_.vkAllocateDescriptorSets(device_, &dai, set.data()), "vkAllocateDescriptorSets");
    std::vector<VkDescriptorBufferInfo> infos(size_t{sets} * kBindings);
    std::vector<VkWriteDescriptorSet> writes(size_t{sets} * kBindings);
    for (size_t e = 0; e < r.dispatches.size(); ++e) {
      if (set_of[e] == UINT32_MAX) continue;
      const uint32_t d = set_of[e];
      const RecordedDispatch& rd = r.dispatches[e];
      pipelines[d] = Pipeline(rd.shader, rd.spec);
      for (uint32_t i = 0; i < kBindings; ++i) {
        const size_t w = size_t{d} * kBindings + i;
        infos[w] = {rd.bindings[i].buffer, rd.bindings[i].offset, rd.bindings[i].size};
        writes[w].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
        writes[w].dstSet = set[d];
        writes[w].dstBinding = i;
        writes[w].descriptorCount = 1;
        writes[w].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[w].pBufferInfo = &infos[w];
      }
    }
    api_.vkUpdateDescriptorSets(device_, static_cast<uint32_t>(writes.size()), writes.data(), 0,
                                nullptr);
  }

  VkCommandBuffer cb = BeginCommands();
  const auto barrier = [&](VkAccessFlags src_access, VkAccessFlags dst_access,
                           VkPipelineStageFlags src, VkPipelineStageFlags dst) {
    VkMemoryBarrier b{};
    b.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    b.srcAccessMask = src_access;
    b.dstAccessMask = dst_access;
    api_.vkCmdPipelineBarrier(cb, src, dst, 0, 1, &b, 0, nullptr, 0, nullptr);
  };
  const auto copy = [&](const BufferCopy& c) {
    const VkBufferCopy region{c.src_offset, c.dst_offset, c.size};
    api_.vkCmdCopyBuffer(cb, c.src, c.dst, 1, &region);
  };
  if (!r.uploads.empty()) {
    for (const BufferCopy& c : r.uploads) copy(c);
    barrier(VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
  }
  for (size_t e = 0; e < r.dispatches.size(); ++e) {
    const RecordedDispatch& rd = r.dispatches[e];
    if (!rd.copies.empty()) {
      // The copies read what earlier dispatches, copies and the uploads wrote, and write
      // buffers that earlier ones read or wrote; what follows reads or writes what they wrote.
      barrier(VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
              VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
              VK_PIPELINE_STAGE_TRANSFER_BIT);
      for (const BufferCopy& c : rd.copies) copy(c);
      barrier(VK_ACCESS_TRANSFER_WRITE_BIT,
              VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                  VK_ACCESS_TRANSFER_WRITE_BIT,
              VK_PIPELINE_STAGE_TRANSFER_BIT,
              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT);
    }
    if (set_of[e] == UINT32_MAX) continue;
    const uint32_t d = set_of[e];
    if (rd.barrier) {
      // The dispatch reads what an earlier one of this segment wrote, or writes a buffer an
      // earlier one read or wrote (graph.cc shares buffers between intermediates).
      barrier(VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
    }
    api_.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines[d]);
    api_.vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout_, 0, 1,
                                 &set[d], 0, nullptr);
    const uint32_t groups = static_cast<uint32_t>(std::clamp<uint64_t>(rd.groups, 1, 65535));
    api_.vkCmdDispatch(cb, groups, 1, 1);
  }
  if (!r.downloads.empty()) {
    barrier(VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT,
            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_PIPELINE_STAGE_TRANSFER_BIT);
    for (const BufferCopy& c : r.downloads) copy(c);
    barrier(VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_PIPELINE_STAGE_HOST_BIT);
  }
  // Mapped buffers the shaders and copies wrote are read by the host after the fence.
  barrier(VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_PIPELINE_STAGE_HOST_BIT);
  SubmitAndWait(cb);
  if (messages_.load() != before) {
    throw std::runtime_error(
        "vulkan: the validation layer reported a problem with a graph's command buffer (see the "
        "messages above)");
  }
}

}  // namespace nnref::vk

namespace nnref::vk {

ImportBuffer Device::CreateImportBuffer(std::span<const std::byte> bytes, VkDeviceSize size) {
  ImportBuffer b;
  b.size = size;
  VkBufferCreateInfo bi{};
  bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  bi.size = size;
  // The explainer's GPUBufferUsageFlags.STORAGE, COPY_SRC and COPY_DST.
  bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
             VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  Check(api_.vkCreateBuffer(device_, &bi, nullptr, &b.buffer), "vkCreateBuffer");
  VkMemoryRequirements req{};
  api_.vkGetBufferMemoryRequirements(device_, b.buffer, &req);
  // Unified memory when there is one, else any host-visible coherent memory: the contents are
  // written and read by the host at the import and the return.
  uint32_t type = UINT32_MAX;
  for (const VkMemoryPropertyFlags want : {kUnified, kHost}) {
    for (uint32_t i = 0; i < memory_.memoryTypeCount && type == UINT32_MAX; ++i) {
      if ((req.memoryTypeBits & (1u << i)) &&
          (memory_.memoryTypes[i].propertyFlags & want) == want) {
        type = i;
      }
    }
  }
  if (type == UINT32_MAX) {
    api_.vkDestroyBuffer(device_, b.buffer, nullptr);
    throw std::runtime_error("vulkan: no host-visible memory type for an imported buffer");
  }
  VkMemoryAllocateInfo ai{};
  ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = type;
  void* mapped = nullptr;
  VkResult r = api_.vkAllocateMemory(device_, &ai, nullptr, &b.memory);
  if (r == VK_SUCCESS) r = api_.vkBindBufferMemory(device_, b.buffer, b.memory, 0);
  if (r == VK_SUCCESS) r = api_.vkMapMemory(device_, b.memory, 0, VK_WHOLE_SIZE, 0, &mapped);
  if (r != VK_SUCCESS) {
    api_.vkDestroyBuffer(device_, b.buffer, nullptr);
    if (b.memory != VK_NULL_HANDLE) api_.vkFreeMemory(device_, b.memory, nullptr);
    throw std::runtime_error(std::string("vulkan: creating an imported buffer: ") + ResultName(r));
  }
  std::memset(mapped, 0, size);
  if (!bytes.empty()) std::memcpy(mapped, bytes.data(), bytes.size());
  // Host-coherent: the writes are visible to the application's submissions that follow.
  api_.vkUnmapMemory(device_, b.memory);
  return b;
}

void Device::ReleaseImportBuffer(const ImportBuffer& b, VkFence fence, std::span<std::byte> out) {
  VkResult waited = VK_SUCCESS;
  if (fence != VK_NULL_HANDLE) {  // handed over by the application: waited for, then destroyed
    waited = api_.vkWaitForFences(device_, 1, &fence, VK_TRUE, UINT64_MAX);
    api_.vkDestroyFence(device_, fence, nullptr);
  }
  VkResult r = VK_SUCCESS;
  if (!out.empty() && waited == VK_SUCCESS) {
    void* mapped = nullptr;
    r = api_.vkMapMemory(device_, b.memory, 0, VK_WHOLE_SIZE, 0, &mapped);
    if (r == VK_SUCCESS) {
      std::memcpy(out.data(), mapped, out.size());
      api_.vkUnmapMemory(device_, b.memory);
    }
  }
  api_.vkDestroyBuffer(device_, b.buffer, nullptr);
  api_.vkFreeMemory(device_, b.memory, nullptr);
  Check(waited, "vkWaitForFences (the returned buffer's fence)");
  Check(r, "vkMapMemory (the returned buffer)");
}

}  // namespace nnref::vk
