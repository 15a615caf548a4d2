#include "ops/vulkan/vk_api.h"

#include <dlfcn.h>

#include <cstdlib>

namespace nnref::vk {

namespace {

struct Loaded {
  Api api;
  std::string why;  // empty when the loader and its global functions were found
};

Loaded Load() {
  Loaded l;
  // NNREF_VULKAN_LIBRARY lets a test point at a missing library to see the "no loader" path.
  const char* name = std::getenv("NNREF_VULKAN_LIBRARY");
  if (name == nullptr || *name == '\0') name = "libvulkan.so.1";
  void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* err = dlerror();
    l.why = std::string("no Vulkan loader (") + (err ? err : name) +
            "): install it and a driver (on Debian: apt install libvulkan1 mesa-vulkan-drivers)";
    return l;
  }
  l.api.vkGetInstanceProcAddr =
      reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(lib, "vkGetInstanceProcAddr"));
  if (l.api.vkGetInstanceProcAddr == nullptr) {
    l.why = std::string("no Vulkan loader (") + name + " has no vkGetInstanceProcAddr)";
    return l;
  }
#define NNREF_VK_LOAD_GLOBAL(fn)                                                    \
  l.api.fn = reinterpret_cast<PFN_##fn>(l.api.vkGetInstanceProcAddr(nullptr, #fn)); \
  if (l.api.fn == nullptr && l.why.empty()) l.why = "the Vulkan loader lacks " #fn;
  NNREF_VK_GLOBAL_FUNCTIONS(NNREF_VK_LOAD_GLOBAL)
#undef NNREF_VK_LOAD_GLOBAL
  return l;
}

}  // namespace

const Api* LoadApi(std::string& why) {
  static const Loaded loaded = Load();
  if (!loaded.why.empty()) {
    why = loaded.why;
    return nullptr;
  }
  return &loaded.api;
}

bool LoadInstanceFunctions(Api& api, VkInstance instance, std::string& why) {
#define NNREF_VK_LOAD_INSTANCE(fn)                                               \
  api.fn = reinterpret_cast<PFN_##fn>(api.vkGetInstanceProcAddr(instance, #fn)); \
  if (api.fn == nullptr) {                                                       \
    why = "the Vulkan instance lacks " #fn;                                      \
    return false;                                                                \
  }
  NNREF_VK_INSTANCE_FUNCTIONS(NNREF_VK_LOAD_INSTANCE)
#undef NNREF_VK_LOAD_INSTANCE
#define NNREF_VK_LOAD_OPTIONAL(fn) \
  api.fn = reinterpret_cast<PFN_##fn>(api.vkGetInstanceProcAddr(instance, #fn));
  NNREF_VK_DEBUG_FUNCTIONS(NNREF_VK_LOAD_OPTIONAL)
#undef NNREF_VK_LOAD_OPTIONAL
  return true;
}

const char* ResultName(VkResult r) {
  switch (r) {
#define NNREF_VK_CASE(x) \
  case x:                \
    return #x;
    NNREF_VK_CASE(VK_SUCCESS)
    NNREF_VK_CASE(VK_NOT_READY)
    NNREF_VK_CASE(VK_TIMEOUT)
    NNREF_VK_CASE(VK_INCOMPLETE)
    NNREF_VK_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    NNREF_VK_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    NNREF_VK_CASE(VK_ERROR_INITIALIZATION_FAILED)
    NNREF_VK_CASE(VK_ERROR_DEVICE_LOST)
    NNREF_VK_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    NNREF_VK_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    NNREF_VK_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    NNREF_VK_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    NNREF_VK_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    NNREF_VK_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    NNREF_VK_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    NNREF_VK_CASE(VK_ERROR_FRAGMENTED_POOL)
    NNREF_VK_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
#undef NNREF_VK_CASE
    default:
      return "VkResult error";
  }
}

}  // namespace nnref::vk
