// NNEF-specific kernels (ref::Kernel subclasses) for the operations of NNEF 1.0.2 chapter 4 whose
// semantics the WebNN kernels of ops/ do not cover: N-dimensional sliding windows with NNEF
// padding and border modes (conv, deconv, box, debox, argmax_pool, sample, desample),
// multilinear_upsample, the RoI operations, argmax/argmin/all/any reductions, the shape operations
// (views where possible), round (floor(x + 0.5)), and the graph.quant quantization.
//
// Numerics (docs/numerics.md): scalar tensors are float32. Sums (conv, deconv, box, debox,
// desample, avg_roi_pool, the interpolations) add exact double terms in a compensated sum
// (WindowSum, ops/conv_common.h), round to odd and then once to float32, as the WebNN conv and pool
// kernels do; a normalized box divides the compensated sum with one rounding to odd. Selections
// (argmax_pool, sample, max_roi_pool, the arg reductions) are exact. Interpolation weights are
// exact for power-of-two factors and rounded to double otherwise.
//
// Kernels never throw spec errors: the executor checked the arguments. Data-dependent problems
// (an index outside its window, a batch index outside the batch) are NnefError (stage execute).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ref/graph/graph.h"
#include "runner/nnef/quant_file.h"

namespace nnref::nnef {

// Border modes of chapter 4.3 ("Border Modes").
enum class Border : uint8_t { kIgnore, kConstant, kReplicate, kReflect, kReflectEven };
std::optional<Border> ParseBorder(std::string_view name);
std::string_view BorderName(Border b);

// The index of the input that position `i` of the extended input reads under `border`, for an
// input of `extent` items; -1 for a constant (zero) or ignored position. Reflections repeat for
// positions further than one extent away (the chapter-4.3 formulas cover one reflection; this is
// their periodic continuation). 'reflect' of a single item reads that item.
int64_t BorderIndex(int64_t i, int64_t extent, Border border);

// One dimension of a sliding window (chapter 4.3).
struct WindowAxis {
  int64_t size = 1;                                                  // f
  int64_t stride = 1;                                                // s
  int64_t dilation = 1;                                              // d
  int64_t pad_front = 0;                                             // p
  int64_t pad_back = 0;                                              // q
  int64_t DilatedSize() const { return (size - 1) * dilation + 1; }  // f_d
};
// x = floor((p + X + q - f_d) / s) + 1; nullopt when p + X + q < f_d.
std::optional<int64_t> DownscaledExtent(int64_t up, const WindowAxis& a);
// X = (x - 1) * s + f_d - (p + q).
int64_t UpscaledExtent(int64_t down, const WindowAxis& a);
// Automatic padding: x = ceil(X / s), t = max((x - 1) * s + f_d - X, 0), p = floor(t / 2),
// q = ceil(t / 2). Sets pad_front and pad_back.
void AutoPad(WindowAxis& a, int64_t up);

enum class WindowOp : uint8_t { kConv, kDeconv, kBox, kDebox, kArgmaxPool, kSample, kDesample };

// conv / deconv over the spatial axes (inputs: input, filter, bias). `groups` is resolved (> 0).
std::shared_ptr<Kernel> MakeConvKernel(bool deconv, std::vector<WindowAxis> spatial, Border border,
                                       int64_t groups);
// box / debox over every axis (input).
std::shared_ptr<Kernel> MakeBoxKernel(bool debox, std::vector<WindowAxis> axes, Border border,
                                      bool normalize);
// argmax_pool (input) -> index; sample (input, index) -> output; desample (input, index) -> output.
std::shared_ptr<Kernel> MakeArgmaxPoolKernel(std::vector<WindowAxis> axes, Border border);
std::shared_ptr<Kernel> MakeSampleKernel(std::vector<WindowAxis> axes, Border border);
std::shared_ptr<Kernel> MakeDesampleKernel(std::vector<WindowAxis> axes);

enum class UpsampleMethod : uint8_t { kSymmetric, kAsymmetric, kAligned };
std::optional<UpsampleMethod> ParseUpsampleMethod(std::string_view name);
// multilinear_upsample over the spatial axes (factor per spatial axis).
std::shared_ptr<Kernel> MakeMultilinearUpsampleKernel(std::vector<int64_t> factors,
                                                      UpsampleMethod method, Border border);

enum class ArgReduce : uint8_t { kArgmax, kArgmin };
std::shared_ptr<Kernel> MakeArgReduceKernel(ArgReduce op, std::vector<size_t> axes);
enum class LogicalReduce : uint8_t { kAll, kAny };
std::shared_ptr<Kernel> MakeLogicalReduceKernel(LogicalReduce op, std::vector<size_t> axes);

// avg_roi_pool / max_roi_pool (input, rois, batch_index) and roi_resample.
std::shared_ptr<Kernel> MakeRoiPoolKernel(bool max, std::vector<int64_t> output_size);
std::shared_ptr<Kernel> MakeRoiResampleKernel(std::vector<int64_t> output_size,
                                              UpsampleMethod method);

// Shape operations, for any data type; outputs are views of the input where the strides allow.
std::shared_ptr<Kernel> MakeCopyKernel();
std::shared_ptr<Kernel> MakeReshapeKernel(Shape shape);
std::shared_ptr<Kernel> MakeTransposeKernel(std::vector<uint32_t> perm);
// begin/size per axis (already resolved).
std::shared_ptr<Kernel> MakeSliceKernel(std::vector<uint64_t> begin, std::vector<uint64_t> size);
std::shared_ptr<Kernel> MakeConcatKernel(size_t axis);
std::shared_ptr<Kernel> MakeSplitKernel(size_t axis, std::vector<uint64_t> sizes);
std::shared_ptr<Kernel> MakeTileKernel(std::vector<uint64_t> repeats);
// pad with (p, q) per axis (negative crops); `value` is used by 'constant' (and 'ignore').
std::shared_ptr<Kernel> MakePadKernel(std::vector<std::pair<int64_t, int64_t>> padding,
                                      Border border, float value);

// round(x) = floor(x + 0.5).
std::shared_ptr<Kernel> MakeRoundKernel();
// The standard compound elu(x) = select(x < 0.0, exp(x) - 1.0, x) run atomically: x < 0 gives
// expm1(x) rounded once; every other x (-0 and NaN included) is passed through, as the select does.
std::shared_ptr<Kernel> MakeEluKernel();
// The graph.quant quantization of a float32 tensor.
std::shared_ptr<Kernel> MakeQuantizeKernel(Quantizer q);

}  // namespace nnref::nnef
