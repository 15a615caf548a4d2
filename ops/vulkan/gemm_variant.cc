// The variant of the native arithmetic mode's GEMM shaders (gemm_tile.glsl: specialization
// constant 0, NNVK_GEMM_TILED or NNVK_GEMM_DIRECT of shaders/params.h) chosen per device: the
// tiled GEMM with shared memory and barriers for GPUs, the direct register-blocked one for CPU
// devices (docs/vulkan.md#arithmetic-modes).
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "ops/vulkan/family.h"
#include "ops/vulkan/shaders/params.h"

namespace nnref::vk {

bool PreferDirectGemm(const Device& device) {
  const DeviceInfo& info = device.info();
  const char* env = std::getenv("NNREF_VULKAN_GEMM");
  const std::string choice = env == nullptr ? "" : env;
  if (!choice.empty() && choice != "direct" && choice != "tiled") {
    throw std::runtime_error("NNREF_VULKAN_GEMM is '" + choice +
                             "': it must be 'tiled' or 'direct' (or unset: direct on a CPU "
                             "device, tiled otherwise)");
  }
  // The direct variant broadcasts from lanes 0..7 of a subgroup.
  if (info.subgroup_size < 8 || info.subgroup_size > 64) return false;
  if (!choice.empty()) return choice == "direct";
  return info.type == "CPU";
}

uint64_t GemmDirectGroups(const DeviceInfo& info, uint64_t batches, uint64_t rows,
                          uint64_t vec4_columns) {
  // The direct variant's tile for the device's subgroup size S: NNVK_DIRECT_ROWS rows per
  // subgroup (64 / S of them) by NNVK_DIRECT_VEC4S S vec4 columns. The shader loops over the
  // tiles itself, so an actual subgroup size that differs only changes the number of workgroups.
  const uint64_t s = info.subgroup_size;
  const uint64_t tile_rows = NNVK_DIRECT_ROWS * (kLocalSize / s);
  const uint64_t tile_columns = NNVK_DIRECT_VEC4S * s;
  return batches * ((rows + tile_rows - 1) / tile_rows) *
         ((vec4_columns + tile_columns - 1) / tile_columns);
}

void DispatchGemmDirect(Device& device, Shader shader, std::span<const uint32_t> params,
                        std::span<const Bytes> inputs, Tensor& result, uint64_t batches,
                        uint64_t rows, uint64_t vec4_columns, bool option) {
  const uint64_t count = result.element_count();
  if (count == 0) return;
  const uint64_t tiles = GemmDirectGroups(device.info(), batches, rows, vec4_columns);
  const uint32_t spec[] = {NNVK_GEMM_DIRECT, option ? 1u : 0u};
  std::span<std::byte> bytes(result.buffer()->data(), count * ElementSize(result.dtype()));
  device.Run(shader, params, inputs, bytes, tiles, spec);
}

}  // namespace nnref::vk
