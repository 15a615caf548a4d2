// Pieces shared by the sliding-window operators conv2d (§api-mlgraphbuilder-conv2d),
// convTranspose2d (§api-mlgraphbuilder-convtranspose2d) and the pooling operations
// (§api-mlgraphbuilder-pool2d): the MLInputOperandLayout enum, the list-option steps ("if it does
// not exist, set it to ...; otherwise, if its size is not N, throw"), the output-size arithmetic
// kept exact, and the axes of a 4-D tensor for a layout.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ops/limits.h"
#include "ref/graph/graph.h"

namespace nnref {

// MLInputOperandLayout (§api-mloperanddescriptor).
enum class MLInputOperandLayout : uint8_t { kNchw, kNhwc };
inline const std::vector<std::string> kInputLayoutNames = {"nchw", "nhwc"};
MLInputOperandLayout InputLayoutFromName(const std::string& name);  // one of kInputLayoutNames

// Which shape index holds each logical axis of a 4-D image tensor.
struct ImageAxes {
  size_t batch, channel, height, width;
};
ImageAxes AxesOf(MLInputOperandLayout layout);

// TypeError unless `rank` is the operand's allowed rank in `limits`.
void CheckRank(const std::string& op, const OpLimits& limits, std::string_view operand,
               size_t rank);
// TypeError unless `type` equals `same_as_type` (a "same as" row of a limits table).
void CheckSameType(const std::string& op, std::string_view operand, DataType type,
                   std::string_view same_as, DataType same_as_type);

// "If options.member does not exist, set it to `fallback`. Otherwise, if its size is not
// fallback.size(), throw a TypeError."
std::vector<uint32_t> ListOrDefault(const std::string& op, const char* member,
                                    const std::optional<std::vector<uint32_t>>& list,
                                    std::vector<uint32_t> fallback);
// "If any item in options.member is equal to 0, throw a TypeError."
void CheckNoZeroItem(const std::string& op, const char* member, const std::vector<uint32_t>& list);

// Steps 7-14 of conv2d and convTranspose2d: options.padding (default [0, 0, 0, 0]), then
// options.strides and options.dilations (default [1, 1] each, no item 0), in that order.
struct ConvWindowLists {
  std::vector<uint32_t> padding, strides, dilations;
};
ConvWindowLists ConvWindowListsOf(const std::string& op,
                                  const std::optional<std::vector<uint32_t>>& padding,
                                  const std::optional<std::vector<uint32_t>>& strides,
                                  const std::optional<std::vector<uint32_t>>& dilations);

// conv2d step 16.8 and convTranspose2d step 20.8: when options.bias exists, its shape must be
// [outputChannels] (16.8.1, 20.8.1) and its data type the input's (16.8.2, 20.8.2).
void CheckConvBias(const GraphBuilder& builder, const std::string& op,
                   const std::optional<Operand>& bias, uint64_t output_channels,
                   DataType input_type);

// A valid dimension: an integer greater than zero and in the range of long (§api-mloperand...).
constexpr int64_t kMaxDimension = 2147483647;
inline bool IsValidDimension(__int128 v) { return v > 0 && v <= kMaxDimension; }

// "calculate conv output size" (§api-mlgraphbuilder-conv2d), kept as the exact fraction
// numerator / stride + 1. The numerator is computed in 128 bits: (filterSize - 1) * dilation can
// reach 2^64.
struct ConvOutputSize {
  __int128 numerator;  // inputSize - effectiveFilterSize + beginningPadding + endingPadding
  uint32_t stride;
  __int128 Floor() const;  // floor(numerator / stride + 1)
  __int128 Ceil() const;   // ceil(numerator / stride + 1)
};
ConvOutputSize CalculateConvOutputSize(uint64_t input_size, uint64_t filter_size,
                                       uint32_t beginning_padding, uint32_t ending_padding,
                                       uint32_t stride, uint32_t dilation);

// "calculate convtranspose output size": (inputSize - 1) * stride + effectiveFilterSize -
// beginningPadding - endingPadding, exact.
__int128 CalculateConvTransposeOutputSize(uint64_t input_size, uint64_t filter_size,
                                          uint32_t beginning_padding, uint32_t ending_padding,
                                          uint32_t stride, uint32_t dilation);

// The accumulator of the window sums of conv2d, convTranspose2d, averagePool2d, l2Pool2d and
// resample2d: double with Neumaier's compensated summation. The terms added are exact in double
// (float32/float16 values, their products and squares, and the exact halves of a product split
// by fma), and the compensation collects each addition's rounding error, so sum + compensation is
// the exact sum in all but contrived cases, even under heavy cancellation (1e30 + 1 - 1e30 is 1).
// Once the running sum is not finite (an infinite or NaN term) it is the IEEE result and the
// compensation is ignored.
//
// The results are rounded to double *to odd* (the exact value when it is a double, else the
// neighbouring double whose last bit is odd). Rounding such a double once more to float32 or
// float16 (p <= 24 <= 51 bits) gives the correctly rounded value of the exact result (Boldo and
// Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to
// odd", 2008), so `RoundTo<T>(acc.QuotientToOdd(n))` rounds once.
struct WindowSum {
  double sum = 0;
  double compensation = 0;
  void Add(double term) {
    const double t = sum + term;
    if (std::isfinite(t)) {
      compensation += std::fabs(sum) >= std::fabs(term) ? (sum - t) + term : (term - t) + sum;
    }
    sum = t;
  }
  // (sum + compensation) / divisor, divisor > 0, rounded to odd.
  double QuotientToOdd(double divisor = 1) const;
  // sqrt(sum + compensation) for a non-negative sum, rounded to odd.
  double SqrtToOdd() const;
};

// Decimal text of a 128-bit integer, for error messages.
std::string Int128ToString(__int128 v);

// Kernels that set latitude of their own replace the executor's whole-output marking, so they
// call this: when any input carried latitude, every output element becomes kAny (as the executor
// would do for a kernel that tracks none).
void MarkAllIfInputLatitude(std::span<const OperandValue* const> inputs, OperandValue& out);

}  // namespace nnref
