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

// The value of input `i` of operator `index` when it is a constant of the graph (weights), else
// an invalid tensor.
inline Tensor ConstantInput(const Graph& graph, size_t index, size_t i) {
  const OperatorNode& node = graph.operators()[index];
  if (i >= node.inputs.size()) return {};
  const OperandNode& o = graph.operand(node.inputs[i]);
  return o.kind == OperandNode::Kind::kConstant ? o.constant : Tensor();
}

// Whether x and y are the same view of the same buffer (a kernel's input is the constant it
// packed when the graph was compiled).
inline bool SameView(const Tensor& x, const Tensor& y) {
  return x.valid() && x.buffer() == y.buffer() && x.offset() == y.offset() &&
         x.dtype() == y.dtype() && x.shape() == y.shape() && x.strides() == y.strides();
}

// A contiguous float32 copy of `t` (or t when it already is one).
inline Tensor ContiguousFloat32(const Tensor& t) {
  const Tensor f = AsFloat32(t);
  return f.IsContiguous() ? f : f.Contiguous();
}

// The float32 sums of a GEMM (contiguous, in the output's shape) and their rounding to the
// output: for a float32 output the GEMM writes the output tensor itself, for float16 a float32
// buffer. A term (bias, beta * c) is added in double to each sum before the one rounding.
class GemmOutput {
 public:
  explicit GemmOutput(const OperandDescriptor& desc)
      : desc_(desc),
        n_(static_cast<size_t>(ElementCount(desc.shape))),
        out_(Tensor::AllocateForOverwrite(desc.dataType, desc.shape)),
        sums_(desc.dataType == DataType::kFloat32 ? nullptr : new float[n_]) {}
  float* data() { return sums_ ? sums_.get() : out_.base<float>(); }

  // The output: the sums rounded to its type.
  std::vector<OperandValue> Finish(const Config& config) {
    return Finish(config, 1, n_, [](size_t, size_t) { return 0.0; }, false);
  }
  // The output: sums[r * row_len + j] + term(r, j) (in double) rounded once to its type, for
  // `rows` rows of row_len elements.
  template <class Term>
  std::vector<OperandValue> Finish(const Config& config, size_t rows, size_t row_len,
                                   const Term& term, bool has_term = true) {
    float* sums = data();
    if (desc_.dataType == DataType::kFloat16) {
      Float16* dst = out_.base<Float16>();
      config.pool->ParallelFor(rows, std::max<size_t>(1, (1 << 14) / std::max<size_t>(row_len, 1)),
                               [&](size_t begin, size_t end) {
                                 for (size_t r = begin; r < end; ++r) {
                                   const size_t o = r * row_len;
                                   for (size_t j = 0; j < row_len; ++j) {
                                     const double v = static_cast<double>(sums[o + j]);
                                     // (no term: -0 stays -0)
                                     dst[o + j] =
                                         Float16::FromDouble(has_term ? v + term(r, j) : v);
                                   }
                                 }
                               });
    } else if (has_term) {
      config.pool->ParallelFor(rows, std::max<size_t>(1, (1 << 14) / std::max<size_t>(row_len, 1)),
                               [&](size_t begin, size_t end) {
                                 for (size_t r = begin; r < end; ++r) {
                                   float* row = sums + r * row_len;
                                   for (size_t j = 0; j < row_len; ++j) {
                                     row[j] = static_cast<float>(static_cast<double>(row[j]) +
                                                                 term(r, j));
                                   }
                                 }
                               });
    }
    std::vector<OperandValue> result;
    result.push_back(OperandValue{std::move(out_), {}});
    return result;
  }

 private:
  OperandDescriptor desc_;
  size_t n_;
  Tensor out_;
  std::unique_ptr<float[]> sums_;
};

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
