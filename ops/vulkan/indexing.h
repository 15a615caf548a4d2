// shaders/gather.comp's kernel, shared by indexing.cc (gather, gatherElements, gatherND) and
// scatter.cc (scatterElements, scatterND).
#pragma once

#include <cstdint>
#include <memory>

#include "ops/vulkan/family.h"

namespace nnref::vk {

// The kernel of gather.comp's mode `mode` (NNVK_GATHER_MODE_*, shaders/params.h) along `axis`
// (gather, gatherElements, scatterElements) on `device`.
std::shared_ptr<const Kernel> MakeGatherKernel(std::shared_ptr<Device> device, uint32_t mode,
                                               uint32_t axis);

}  // namespace nnref::vk
