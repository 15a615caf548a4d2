// NNEF operator group: the sliding-window operations of NNEF 1.0.2 chapter 4.3 that WebNN has no
// operator for — N-dimensional windows with NNEF's padding and border modes: conv and deconv
// (4.3.1), box and debox (4.3.2), argmax_pool, sample and desample (4.3.3) — and pad (4.5.5) with
// the borders WebNN's pad lacks ('reflect-even', reflections further than one extent, negative
// padding mixed with reflections). One window geometry (WindowAxis, 4.3 "Output shape
// calculation") serves these operators, the NNEF shape propagation (runner/nnef/shapes.h) and the
// NNEF lowering (runner/nnef/lower_*.cc).
//
// The builders take resolved attributes (explicit or automatic padding already applied); they
// check that the operands agree with them (TypeError otherwise) and add one node whose
// attributes (OperatorNode::attributes) are what a backend builds its kernel from. The NNEF
// argument rules themselves (chapter 4, in spec order) are checked by the NNEF front end.
//
// Numerics (docs/numerics.md): sums (conv, deconv, box, debox, desample) add exact double terms
// (products split with fma) in the compensated WindowSum (ops/conv_common.h), round to odd and
// then once to float32, as the WebNN conv and pool kernels do; a normalized box divides the
// compensated sum with one rounding to odd. Selections (argmax_pool, sample, pad) are exact.
// Kernels raise an OperationError for data-dependent problems (an index outside its window).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "ops/data_movement.h"
#include "ref/graph/graph.h"

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

// The WebNN padding mode (§api-mlgraphbuilder-pad) that reads border positions as `border` does
// within one reflection: 'constant' and 'ignore' -> "constant", 'replicate' -> "edge", 'reflect'
// -> "reflection"; nullopt for 'reflect-even' (WebNN has no symmetric mode).
std::optional<MLPaddingMode> WebnnPaddingMode(Border border);

// One axis of a sliding window (chapter 4.3).
struct WindowAxis {
  int64_t size = 1;                                                  // f
  int64_t stride = 1;                                                // s
  int64_t dilation = 1;                                              // d
  int64_t pad_front = 0;                                             // p
  int64_t pad_back = 0;                                              // q
  int64_t DilatedSize() const { return (size - 1) * dilation + 1; }  // f_d
  bool operator==(const WindowAxis&) const = default;
};
// x = floor((p + X + q - f_d) / s) + 1; nullopt when p + X + q < f_d.
std::optional<int64_t> DownscaledExtent(int64_t up, const WindowAxis& a);
// X = (x - 1) * s + f_d - (p + q).
int64_t UpscaledExtent(int64_t down, const WindowAxis& a);
// Automatic padding: x = ceil(X / s), t = max((x - 1) * s + f_d - X, 0), p = floor(t / 2),
// q = ceil(t / 2). Sets pad_front and pad_back.
void AutoPad(WindowAxis& a, int64_t up);

// The attributes every window operator carries.
struct WindowAttributes : OpAttributes {
  // conv/deconv: one per spatial axis (input axes 2..); the others: one per input axis.
  std::vector<WindowAxis> axes;
  Border border = Border::kConstant;
};
struct ConvAttributes : WindowAttributes {
  bool deconv = false;
  int64_t groups = 1;  // resolved (> 0): NNEF's 0 (depth-wise) is the input channel count
};
struct BoxAttributes : WindowAttributes {
  bool debox = false;
  bool normalize = false;
};
struct NnefPadAttributes : OpAttributes {
  std::vector<std::pair<int64_t, int64_t>> padding;  // (p, q) per axis; negative crops
  Border border = Border::kConstant;                 // 'ignore' reads as 'constant'
  float value = 0;                                   // the constant border's value
};

// conv / deconv (4.3.1): input [b, c, spatial...], filter, bias (one value, or one per output
// channel). A deconv's spatial output extents `deconv_spatial_out` must down-scale to the input's;
// a conv's are computed. Output float32.
Operand NnefConv(GraphBuilder& builder, const Operand& input, const Operand& filter,
                 const Operand& bias, const ConvAttributes& attributes,
                 const std::vector<uint64_t>& deconv_spatial_out = {});
// box / debox (4.3.2) over every axis; a debox's output extents are given as for deconv.
Operand NnefBox(GraphBuilder& builder, const Operand& input, const BoxAttributes& attributes,
                const std::vector<uint64_t>& debox_out = {});
// argmax_pool (4.3.3): the flat index within each window of its first maximum (int64).
Operand NnefArgmaxPool(GraphBuilder& builder, const Operand& input,
                       const WindowAttributes& attributes);
// sample (4.3.3): the window position `index` selects, per output position.
Operand NnefSample(GraphBuilder& builder, const Operand& input, const Operand& index,
                   const WindowAttributes& attributes);
// desample (4.3.3): sums each input item into the up-scaled position its index selects; output
// extents `out` must down-scale to the input's.
Operand NnefDesample(GraphBuilder& builder, const Operand& input, const Operand& index,
                     const WindowAttributes& attributes, const std::vector<uint64_t>& out);
// pad (4.5.5) with any NNEF border and negative (cropping) padding, float32 input.
Operand NnefPad(GraphBuilder& builder, const Operand& input, const NnefPadAttributes& attributes);

}  // namespace nnref::nnef
