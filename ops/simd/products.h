// What the simd backend's products share (matmul_gemm.cc, conv2d.cc, conv_transpose2d.cc): float32
// operands for the one GEMM core (gemm.h, gemm_hwy.cc), double results rounded once to the output
// type, and the image geometry of the convolutions.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "numerics/float16.h"
#include "ops/conv_common.h"
#include "ops/simd/family.h"
#include "ops/simd/map.h"

namespace nnref::simd {

// A float32 view of `t`: t itself when float32 (strides kept), else a contiguous float32 copy.
inline Tensor AsFloat32(const Tensor& t) {
  if (t.dtype() == DataType::kFloat32) return t;
  Tensor out = Tensor::Allocate(DataType::kFloat32, t.shape());
  const Tensor src = t.Contiguous();
  HalfToFloatRow(reinterpret_cast<const uint16_t*>(src.base<Float16>()), out.base<float>(),
                 static_cast<size_t>(src.element_count()));
  return out;
}

// A contiguous float32 copy of `t` (or t when it already is one).
inline Tensor ContiguousFloat32(const Tensor& t) {
  const Tensor f = AsFloat32(t);
  return f.IsContiguous() ? f : f.Contiguous();
}

// The double results of a kernel (contiguous, in the output's shape), rounded once to the output
// type by Finish().
// `overwritten`: the kernel writes every element before reading any (a GEMM's output), so the
// buffer is not zero-filled first.
class DoubleOutput {
 public:
  explicit DoubleOutput(const OperandDescriptor& desc, bool overwritten = false)
      : desc_(desc),
        n_(static_cast<size_t>(ElementCount(desc.shape))),
        acc_(overwritten ? new double[n_] : new double[n_]()) {}
  double* data() { return acc_.get(); }
  std::vector<OperandValue> Finish(const Config& config) const {
    Tensor out = Tensor::AllocateForOverwrite(desc_.dataType, desc_.shape);
    const size_t n = n_;
    const double* src = acc_.get();
    if (desc_.dataType == DataType::kFloat16) {
      Float16* dst = out.base<Float16>();
      config.pool->ParallelFor(n, 1 << 14, [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) dst[i] = Float16::FromDouble(src[i]);
      });
    } else {
      float* dst = out.base<float>();
      config.pool->ParallelFor(n, 1 << 14, [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) dst[i] = static_cast<float>(src[i]);
      });
    }
    std::vector<OperandValue> result;
    result.push_back(OperandValue{std::move(out), {}});
    return result;
  }

 private:
  OperandDescriptor desc_;
  size_t n_;
  std::unique_ptr<double[]> acc_;
};

// Dimensions of a 4-D tensor read through image axes.
struct Image {
  int64_t batches, channels, height, width;
};
inline Image ImageOf(const Shape& s, const ImageAxes& ia) {
  return {static_cast<int64_t>(s[ia.batch]), static_cast<int64_t>(s[ia.channel]),
          static_cast<int64_t>(s[ia.height]), static_cast<int64_t>(s[ia.width])};
}

// Output positions o in [0, count) whose input position o * stride + offset lies in [0, size):
// [first, last).
inline void ValidRange(int64_t count, int64_t stride, int64_t offset, int64_t size, int64_t& first,
                       int64_t& last) {
  // o * stride + offset >= 0  <=>  o >= ceil(-offset / stride)
  first = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  // o * stride + offset <= size - 1  <=>  o <= floor((size - 1 - offset) / stride)
  const int64_t top = size - 1 - offset;
  last = top < 0 ? 0 : std::min(count, top / stride + 1);
  first = std::min(first, last);
}

// out (contiguous, layout nchw or nhwc) += bias[channel], in double before the one rounding.
inline void AddBias(const Tensor& bias_tensor, bool nhwc, const Image& y, double* out,
                    const Config& config) {
  const Tensor bias = ContiguousFloat32(bias_tensor);
  const float* pb = bias.base<float>();
  const int64_t spatial = y.height * y.width, channels = y.channels;
  if (nhwc) {
    config.pool->ParallelFor(static_cast<size_t>(y.batches * spatial), 64,
                             [&](size_t begin, size_t end) {
                               for (size_t r = begin; r < end; ++r) {
                                 double* row = out + static_cast<int64_t>(r) * channels;
                                 for (int64_t c = 0; c < channels; ++c) {
                                   row[c] += static_cast<double>(pb[c]);
                                 }
                               }
                             });
  } else {
    config.pool->ParallelFor(
        static_cast<size_t>(y.batches * channels), 1, [&](size_t begin, size_t end) {
          for (size_t p = begin; p < end; ++p) {
            double* plane = out + static_cast<int64_t>(p) * spatial;
            const double bv = static_cast<double>(pb[static_cast<int64_t>(p) % channels]);
            for (int64_t i = 0; i < spatial; ++i) plane[i] += bv;
          }
        });
  }
}

}  // namespace nnref::simd
