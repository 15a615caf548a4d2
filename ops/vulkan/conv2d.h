// shaders/conv2d.comp's kernel, shared by conv2d.cc and conv_transpose2d.cc (the same shader in
// gather form): what it reads of Conv2dAttributes / ConvTranspose2dAttributes.
#pragma once

#include <memory>

#include "ops/conv_common.h"
#include "ops/vulkan/family.h"

namespace nnref::vk {

// What the kernel reads of Conv2dAttributes / ConvTranspose2dAttributes.
struct ConvParams {
  int64_t pad_top = 0, pad_left = 0;
  int64_t stride_height = 1, stride_width = 1;
  int64_t dilation_height = 1, dilation_width = 1;
  int64_t groups = 1;
  ImageAxes image{0, 1, 2, 3};
  size_t fo = 0, fi = 1, fh = 2, fw = 3;  // which filter axis holds out, in, height, width
  bool transposed = false;
};

template <typename A>
ConvParams ConvParamsOf(const A& a) {
  ConvParams p;
  p.pad_top = a.pad_top;
  p.pad_left = a.pad_left;
  p.stride_height = a.stride_height;
  p.stride_width = a.stride_width;
  p.dilation_height = a.dilation_height;
  p.dilation_width = a.dilation_width;
  p.groups = a.groups;
  p.image = a.image;
  p.fo = a.filter.out;
  p.fi = a.filter.in;
  p.fh = a.filter.height;
  p.fw = a.filter.width;
  return p;
}

// The kernel of conv2d (or, with p.transposed, convTranspose2d) on `device`.
std::shared_ptr<const Kernel> MakeConv2dKernel(std::shared_ptr<Device> device, const ConvParams& p);

}  // namespace nnref::vk
