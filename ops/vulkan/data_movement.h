// shaders/layout.comp's kernel, shared by data_movement.cc (the views) and data_movement_copy.cc
// (the copies): every data movement operator is per-output-axis parameters of one index map (see
// the shader; NNVK_LAYOUT_P_* of shaders/params.h).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ops/data_movement.h"
#include "ops/vulkan/family.h"

namespace nnref::vk {

// What the kernel reads of the operator's attributes (ops/data_movement.h): each operator
// fills the members it has.
struct LayoutParams {
  std::vector<uint32_t> permutation;       // transpose
  std::vector<uint64_t> starts, steps;     // slice (steps = strides)
  std::vector<uint32_t> axes;              // reverse: the reversed axes
  uint32_t axis = 0;                       // split, concat
  std::vector<uint64_t> beginningPadding;  // pad
  MLPaddingMode mode = MLPaddingMode::kConstant;
  Tensor value;       // pad: the constant, cast to the input type
  bool upper = true;  // triangular
  int32_t diagonal = 0;
};

// The kernel of data movement operator `op` on `device`.
std::shared_ptr<const Kernel> MakeLayoutKernel(std::shared_ptr<Device> device, OpId op,
                                               LayoutParams a);

}  // namespace nnref::vk
