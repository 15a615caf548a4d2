// nnref devices: the Vulkan devices (for --backend vulkan --device N).
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "ops/vulkan/vulkan_backend.h"
#include "ref/value.h"
#include "runner/commands.h"
#include "runner/json.h"

namespace nnref {

namespace {
Value Count(uint64_t v) {
  Number n;
  n.d = static_cast<double>(v);
  n.u = v;
  n.i = static_cast<int64_t>(v);
  return Value::Num(n);
}
}  // namespace

int CommandDevices(bool json) {
  std::string why;
  const std::optional<std::vector<VulkanDeviceReport>> devices = ListVulkanDevices(why);
  if (!devices || devices->empty()) {
    std::cerr << "nnref devices: " << (devices ? std::string("no Vulkan device") : why) << "\n";
    return 4;
  }
  if (json) {
    std::vector<Value> rows;
    for (size_t i = 0; i < devices->size(); ++i) {
      const VulkanDeviceReport& d = (*devices)[i];
      rows.push_back(Value::Object({
          {"index", Count(i)},
          {"name", Value::Str(d.name)},
          {"type", Value::Str(d.type)},
          {"driver", Value::Str(d.driver)},
          {"apiVersion", Value::Str(d.api_version)},
          {"shaderFloat16", Value::Bool(d.shader_float16)},
          {"storageBuffer16BitAccess", Value::Bool(d.storage_buffer_16bit)},
          {"storageBuffer8BitAccess", Value::Bool(d.storage_buffer_8bit)},
          {"shaderInt8", Value::Bool(d.shader_int8)},
          {"shaderInt64", Value::Bool(d.shader_int64)},
          {"shaderFloat64", Value::Bool(d.shader_float64)},
          {"subgroupSize", Count(d.subgroup_size)},
          {"maxStorageBufferRange", Count(d.max_storage_buffer_range)},
          {"unifiedMemory", Value::Bool(d.unified_memory)},
      }));
    }
    std::cout << WriteJson(Value::Object({{"devices", Value::Array(std::move(rows))}})) << "\n";
    return 0;
  }
  auto yes = [](bool b) { return b ? "yes" : "no"; };
  for (size_t i = 0; i < devices->size(); ++i) {
    const VulkanDeviceReport& d = (*devices)[i];
    std::cout << "device " << i << ": " << d.name << "\n"
              << "  type: " << d.type << "\n"
              << "  driver: " << d.driver << "\n"
              << "  API version: " << d.api_version << "\n"
              << "  shaderFloat16: " << yes(d.shader_float16) << "\n"
              << "  storageBuffer16BitAccess: " << yes(d.storage_buffer_16bit) << "\n"
              << "  storageBuffer8BitAccess: " << yes(d.storage_buffer_8bit) << "\n"
              << "  shaderInt8: " << yes(d.shader_int8) << "\n"
              << "  shaderInt64: " << yes(d.shader_int64) << "\n"
              << "  shaderFloat64: " << yes(d.shader_float64) << "\n"
              << "  subgroupSize: " << d.subgroup_size << "\n"
              << "  maxStorageBufferRange: " << d.max_storage_buffer_range << "\n"
              << "  unified memory (device-local, host-visible): " << yes(d.unified_memory) << "\n";
  }
  return 0;
}

}  // namespace nnref
