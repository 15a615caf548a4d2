#include "ops/vulkan/vulkan_backend.h"

#include <array>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "ops/vulkan/family.h"

namespace nnref {

namespace vk {

uint64_t ByteSize(const OperandDescriptor& desc) { return desc.ByteLength(); }

bool Is64Bit(DataType t) { return t == DataType::kInt64 || t == DataType::kUint64; }

std::string CheckBindable(const Graph& graph, size_t index, const DeviceInfo& device) {
  const OperatorNode& node = graph.operators()[index];
  for (const auto* ids : {&node.inputs, &node.outputs}) {
    for (OperandId id : *ids) {
      const uint64_t bytes = ByteSize(graph.operand(id).desc);
      // Tensors are bound whole, padded to 16 bytes: they must fit one storage binding.
      if (bytes + 16 > device.max_storage_buffer_range) {
        return "a tensor of " + std::to_string(bytes) +
               " bytes exceeds the device's maxStorageBufferRange (" +
               std::to_string(device.max_storage_buffer_range) + ")";
      }
    }
  }
  return "";
}

void Dispatch(Device& device, Shader shader, std::span<const uint32_t> params,
              std::span<const Bytes> inputs, Tensor& result, std::span<const uint32_t> spec) {
  const uint64_t count = result.element_count();
  if (count == 0) return;
  const uint64_t size = ElementSize(result.dtype());
  const uint64_t per = size >= 4 ? 1 : 4 / size;
  const uint64_t invocations = (count + per - 1) / per;
  std::span<std::byte> bytes(result.buffer()->data(), count * size);
  device.Run(shader, params, inputs, bytes, (invocations + kLocalSize - 1) / kLocalSize, spec);
}

std::string NativeGemmUnsupported(const Device& device) {
  if (device.info().subgroup_ballot) return "";
  return "the native arithmetic mode's tiled GEMM needs subgroup ballot operations in compute "
         "shaders (VkPhysicalDeviceSubgroupProperties), which this device lacks; use "
         "--vulkan-arithmetic exact";
}

void DispatchGemmTiles(Device& device, Shader shader, std::span<const uint32_t> params,
                       std::span<const Bytes> inputs, Tensor& result, uint64_t batches, uint64_t m,
                       uint64_t n) {
  const uint64_t count = result.element_count();
  if (count == 0) return;
  // gemm_tile.glsl's tile for the device's subgroup size S: 16 rows per subgroup (64 / S of them)
  // by 4 S columns when 8 <= S <= 64, else 32 x 32. The shader loops over the tiles itself, so a
  // device whose actual subgroup size differs only gets a different number of workgroups.
  const uint64_t s = device.info().subgroup_size;
  const bool subgroups = s >= 8 && s <= 64;
  const uint64_t rows = subgroups ? 16 * (kLocalSize / s) : 32, cols = subgroups ? 4 * s : 32;
  const uint64_t tiles = batches * ((m + rows - 1) / rows) * ((n + cols - 1) / cols);
  std::span<std::byte> bytes(result.buffer()->data(), count * ElementSize(result.dtype()));
  device.Run(shader, params, inputs, bytes, tiles);
}

std::vector<OperandValue> OneOutput(Tensor result) {
  std::vector<OperandValue> values(1);
  values[0].data = std::move(result);
  return values;
}

namespace {

const std::array<const Family*, 16> kFamilies = {
    &kElementwiseFamily,
    &kMatmulGemmFamily,
    &kConv2dFamily,
    &kConvTranspose2dFamily,
    &kPool2dFamily,
    &kResample2dFamily,
    &kReductionFamily,
    &kSoftmaxFamily,
    &kNormalizationFamily,
    &kDataMovementFamily,
    &kDataMovementCopyFamily,
    &kIndexingFamily,
    &kScatterFamily,
    &kArgCumulativeFamily,
    &kRnnFamily,
    &kNnefFamily,  // nnef.cc: the NNEF operator group
};

// What the device promises about its arithmetic and what the shaders ask of it (the
// float-controls execution modes `m`, float_controls.h), for the backend: line, so that a verdict
// can be read with it. Without DenormPreserve for float32 the driver may flush float32 subnormals
// (inputs and results) to zero.
std::string DeviceFacts(const DeviceInfo& d, const FloatModes& m) {
  std::string text = std::string("shaderFloat16 ") + (d.shader_float16 ? "yes" : "no") +
                     ", shaderInt64 " + (d.shader_int64 ? "yes" : "no") + "; ";
  const DeviceInfo::FloatControls& f = d.float_controls;
  if (!f.known)
    return text + "float controls unknown (Vulkan 1.1): float32 subnormals may be flushed";
  if (m.denorm_preserve[1]) {
    text += "float32 subnormals preserved (DenormPreserve requested)";
  } else if (f.denorm_preserve[1]) {
    text +=
        "float32 subnormals may be flushed to zero (the device has "
        "shaderDenormPreserveFloat32; not requested: " +
        std::string(f.denorm_behavior_independence) + " denormal independence)";
  } else {
    text += "float32 subnormals may be flushed to zero (no shaderDenormPreserveFloat32)";
  }
  text += m.signed_zero_inf_nan_preserve[1] ? ", signed zeros/Inf/NaN preserved (requested)"
                                            : ", signed zeros/Inf/NaN may not be preserved";
  text += m.rounding_rte[1] ? ", float32 rounds to nearest even (requested)"
                            : ", float32 rounding the driver's choice";
  return text;
}

// How the native mode computes float16 on device `d`, for nnref devices: "float16
// (shaderFloat16)", or "float32 (...)" with the reason.
std::string NativeFloat16Path(const DeviceInfo& d) {
  const char* env = std::getenv("NNREF_VULKAN_FLOAT16");
  const std::string choice = env == nullptr ? "" : env;
  if (!d.shader_float16) return "float32 (no shaderFloat16)";
  if (choice == "float32") return "float32 (NNREF_VULKAN_FLOAT16=float32)";
  return "float16 (shaderFloat16)";
}

bool EnvFlag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

class VulkanBackend final : public Backend {
 public:
  explicit VulkanBackend(const BackendOptions& options) {
    DeviceOptions o;
    o.index = options.device;
    o.validation = EnvFlag("NNREF_VULKAN_VALIDATION");
    o.force_staging = EnvFlag("NNREF_VULKAN_STAGING");
    per_operator_ = EnvFlag("NNREF_VULKAN_PER_OPERATOR");
    o.native = options.arithmetic == Arithmetic::kNative;
    if (const char* f16 = std::getenv("NNREF_VULKAN_FLOAT16")) o.float16 = f16;
    // Test hook: NNREF_VULKAN_FLOAT_MODES=none (request no float-controls mode) or all (every
    // mode at every width, whatever the device supports: the validation layer then names each
    // one the device lacks).
    if (const char* modes = std::getenv("NNREF_VULKAN_FLOAT_MODES"); modes && *modes) {
      const std::string m = modes;
      if (m != "none" && m != "all") {
        error_ = "NNREF_VULKAN_FLOAT_MODES is '" + m + "': it must be 'none' or 'all', or unset";
        return;
      }
      FloatModes forced;
      for (int w = 0; w < 3 && m == "all"; ++w) {
        forced.denorm_preserve[w] = forced.signed_zero_inf_nan_preserve[w] =
            forced.rounding_rte[w] = true;
      }
      o.float_modes = forced;
    }
    if (const char* cap = std::getenv("NNREF_VULKAN_MAX_BINDING")) {
      o.max_binding = std::strtoull(cap, nullptr, 10);
      capped_ = o.max_binding > 0;
    }
    device_ = Device::Create(o, error_);
    options_ = o;
  }
  // On a device adopted from an application (ops/vulkan/interop.h).
  explicit VulkanBackend(std::shared_ptr<Device> device) : device_(std::move(device)) {}

  std::string_view name() const override { return "vulkan"; }

  std::string Describe() const override {
    if (!device_) return "vulkan (unavailable: " + error_ + ")";
    const DeviceInfo& d = device_->info();
    return "vulkan (device " + std::to_string(d.index) + ": " + d.name + ", " + d.type +
           ", Vulkan " + d.api_version + ", " +
           (device_->staging() ? "staging buffers" : "unified memory") +
           (capped_
                ? ", bindings capped at " + std::to_string(d.max_storage_buffer_range) + " bytes"
                : "") +
           "; " + DeviceFacts(d, device_->float_modes()) + "; " +
           (!device_->native()
                ? "exact arithmetic (compensated sums, precise functions)"
                : std::string("native arithmetic (float32 accumulation, tiled matmul/gemm/conv; ") +
                      (device_->float16_native()
                           ? "float16 computed in float16: shaderFloat16"
                           : (d.shader_float16 ? "float16 computed in float32: "
                                                 "NNREF_VULKAN_FLOAT16=float32"
                                               : "float16 computed in float32: no shaderFloat16")) +
                      ")") +
           ")";
  }

  std::optional<std::string> Unavailable() const override {
    if (!device_) return error_;
    return std::nullopt;
  }

  // docs/vulkan.md#graph-execution: one command buffer for the operators made of dispatches.
  std::shared_ptr<const GraphRunner> MakeGraphRunner(
      const Graph& graph, std::span<const std::shared_ptr<const Kernel>> kernels) const override {
    if (!device_ || per_operator_) return nullptr;
    return vk::MakeGraphRunner(device_, graph, kernels);
  }

  const std::shared_ptr<Device>& device() const { return device_; }

  std::shared_ptr<GpuApplication> MakeGpuApplication(std::string& why) const override {
    if (!device_) {
      why = error_;
      return nullptr;
    }
    return vk::MakeGpuApplication(options_, why);
  }

  std::string GpuInterop() const override {
    return "contexts created from an application's Vulkan device (createContext(gpuDevice): "
           "MakeVulkanGpuDevice, ops/vulkan/interop.h) rent importableToWebGPU tensors to it";
  }

  std::optional<std::string> Unsupported(OpId op, DataType type) const override {
    if (!device_) return error_;
    for (const Family* f : kFamilies) {
      if (std::optional<std::string> r = f->unsupported(op, type, device_->info())) {
        if (r->empty()) return std::nullopt;
        return r;
      }
    }
    return std::string(IsWebnnOp(op) ? kNoKernelForOperator : kNnefOnlyOperator);
  }

  std::shared_ptr<const Kernel> MakeKernel(const Graph& graph, size_t index,
                                           std::string& why) const override {
    if (!device_) {
      why = error_;
      return nullptr;
    }
    const OperatorNode& node = graph.operators()[index];
    const DataType type = graph.operand(node.inputs.at(0)).desc.dataType;
    for (const Family* f : kFamilies) {
      std::optional<std::string> r = f->unsupported(node.op, type, device_->info());
      if (!r) continue;
      if (!r->empty()) {
        why = *r;
        return nullptr;
      }
      why = CheckBindable(graph, index, device_->info());
      if (why.empty()) return f->make(graph, index, device_, why);
      // A tensor larger than one binding: the output cut into boxes by rows where the operator
      // allows it (split.cc), else refused with both reasons.
      std::string split_why;
      std::optional<SplitGeometry> geometry = SplitGeometryOf(graph, index, *f, split_why);
      if (!geometry) {
        why += " (not split: " + split_why + ")";
        return nullptr;
      }
      std::shared_ptr<const Kernel> inner = f->make(graph, index, device_, split_why);
      if (!inner) {
        why = split_why;
        return nullptr;
      }
      std::shared_ptr<const Kernel> split =
          SplitRows(std::move(inner), graph, index, std::move(*geometry),
                    device_->info().max_storage_buffer_range - 16, split_why);
      if (!split) {
        why += " (not split: " + split_why + ")";
        return nullptr;
      }
      why.clear();
      return split;
    }
    why = IsWebnnOp(node.op) ? kNoKernelForOperator : kNnefOnlyOperator;
    return nullptr;
  }

 private:
  std::shared_ptr<Device> device_;
  std::string error_;
  DeviceOptions options_;  // the device's (MakeGpuApplication makes another like it)
  bool capped_ = false;    // NNREF_VULKAN_MAX_BINDING (test hook)
  // NNREF_VULKAN_PER_OPERATOR: no graph runner, every operator its own submission (comparisons).
  bool per_operator_ = false;
};

}  // namespace

std::shared_ptr<const Backend> MakeBackendOnDevice(std::shared_ptr<Device> device) {
  return std::make_shared<VulkanBackend>(std::move(device));
}

}  // namespace vk

std::shared_ptr<const Backend> MakeVulkanBackend(const BackendOptions& options) {
  return std::make_shared<vk::VulkanBackend>(options);
}

VulkanCounters VulkanBackendCounters(const Backend& backend) {
  const auto* vulkan = dynamic_cast<const vk::VulkanBackend*>(&backend);
  if (vulkan == nullptr || !vulkan->device()) return {};
  return {vulkan->device()->submissions(), vulkan->device()->fence_waits(),
          vulkan->device()->buffers_created()};
}

std::optional<std::vector<DeviceReport>> ListVulkanDevices(std::string& why) {
  std::optional<std::vector<vk::DeviceInfo>> list = vk::ListDevices(why);
  if (!list) return std::nullopt;
  if (list->empty()) {
    why = vk::NoDeviceMessage();
    return std::nullopt;
  }
  std::vector<DeviceReport> result;
  for (const vk::DeviceInfo& d : *list) {
    result.push_back(DeviceReport{
        d.name,
        {
            {"type", "type", d.type},
            {"driver", "driver", d.driver},
            {"apiVersion", "API version", d.api_version},
            {"shaderFloat16", "shaderFloat16", d.shader_float16},
            {"storageBuffer16BitAccess", "storageBuffer16BitAccess", d.storage_buffer_16bit},
            {"storageBuffer8BitAccess", "storageBuffer8BitAccess", d.storage_buffer_8bit},
            {"shaderInt8", "shaderInt8", d.shader_int8},
            {"shaderInt64", "shaderInt64", d.shader_int64},
            {"shaderFloat64", "shaderFloat64", d.shader_float64},
            {"subgroupSize", "subgroupSize", uint64_t{d.subgroup_size}},
            // Subgroup arithmetic in compute shaders: the native reductions use it.
            {"subgroupArithmetic", "subgroup arithmetic (compute)", d.subgroup_arithmetic},
            {"maxStorageBufferRange", "maxStorageBufferRange",
             uint64_t{d.max_storage_buffer_range}},
            {"unifiedMemory", "unified memory (device-local, host-visible)", d.unified_memory},
            // How --vulkan-arithmetic native computes float16 on it (NNREF_VULKAN_FLOAT16).
            {"nativeFloat16", "native arithmetic computes float16 in", vk::NativeFloat16Path(d)},
        }});
    // The float controls (VkPhysicalDeviceFloatControlsProperties, Vulkan 1.2), by their names.
    const vk::DeviceInfo::FloatControls& f = d.float_controls;
    if (!f.known) continue;
    std::vector<DeviceField>& fields = result.back().fields;
    fields.push_back({"denormBehaviorIndependence", "denormBehaviorIndependence",
                      f.denorm_behavior_independence});
    fields.push_back(
        {"roundingModeIndependence", "roundingModeIndependence", f.rounding_mode_independence});
    const char* widths[3] = {"Float16", "Float32", "Float64"};
    const std::pair<const char*, const bool*> kinds[5] = {
        {"shaderDenormPreserve", f.denorm_preserve},
        {"shaderDenormFlushToZero", f.denorm_flush_to_zero},
        {"shaderSignedZeroInfNanPreserve", f.signed_zero_inf_nan_preserve},
        {"shaderRoundingModeRTE", f.rounding_rte},
        {"shaderRoundingModeRTZ", f.rounding_rtz}};
    for (const auto& [kind, values] : kinds) {
      for (size_t w = 0; w < 3; ++w) {
        const std::string key = std::string(kind) + widths[w];
        fields.push_back({key, key, values[w]});
      }
    }
    // What the backend's shaders declare on it (float_controls.h).
    fields.push_back({"requestedFloatModes", "float-controls execution modes requested",
                      vk::ChooseFloatModes(f).Describe()});
  }
  return result;
}

const BackendRegistration& VulkanBackendRegistration() {
  static const BackendRegistration registration{"vulkan", &MakeVulkanBackend, "Vulkan",
                                                &ListVulkanDevices};
  return registration;
}

}  // namespace nnref
