#include "ops/conv_common.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "numerics/cast.h"

namespace nnref {

MLInputOperandLayout InputLayoutFromName(const std::string& name) {
  return name == "nhwc" ? MLInputOperandLayout::kNhwc : MLInputOperandLayout::kNchw;
}

ImageAxes AxesOf(MLInputOperandLayout layout) {
  if (layout == MLInputOperandLayout::kNhwc) return {0, 3, 1, 2};
  return {0, 1, 2, 3};
}

void CheckRank(const std::string& op, const OpLimits& limits, std::string_view operand,
               size_t rank) {
  const TensorLimits* row = limits.Find(operand);
  if (rank < row->min_rank || rank > row->max_rank) {
    const std::string allowed =
        row->min_rank == row->max_rank
            ? std::to_string(row->min_rank)
            : std::to_string(row->min_rank) + " to " + std::to_string(row->max_rank);
    ThrowTypeError(op + ": " + std::string(operand) + " rank " + std::to_string(rank) +
                   " is not its allowed rank (" + allowed + ")");
  }
}

void CheckSameType(const std::string& op, std::string_view operand, DataType type,
                   std::string_view same_as, DataType same_as_type) {
  if (type != same_as_type) {
    ThrowTypeError(op + ": " + std::string(operand) + " data type " +
                   std::string(DataTypeName(type)) + " is not the same as " + std::string(same_as) +
                   "'s " + std::string(DataTypeName(same_as_type)));
  }
}

namespace {
std::string ListToString(const std::vector<uint32_t>& list) {
  std::string s = "[";
  for (size_t i = 0; i < list.size(); ++i) s += (i ? ", " : "") + std::to_string(list[i]);
  return s + "]";
}
}  // namespace

std::vector<uint32_t> ListOrDefault(const std::string& op, const char* member,
                                    const std::optional<std::vector<uint32_t>>& list,
                                    std::vector<uint32_t> fallback) {
  if (!list) return fallback;
  if (list->size() != fallback.size()) {
    ThrowTypeError(op + ": options." + member + " " + ListToString(*list) + " has " +
                   std::to_string(list->size()) + " items, not " + std::to_string(fallback.size()));
  }
  return *list;
}

void CheckNoZeroItem(const std::string& op, const char* member, const std::vector<uint32_t>& list) {
  if (std::find(list.begin(), list.end(), 0u) != list.end()) {
    ThrowTypeError(op + ": options." + member + " " + ListToString(list) + " contains 0");
  }
}

ConvWindowLists ConvWindowListsOf(const std::string& op,
                                  const std::optional<std::vector<uint32_t>>& padding,
                                  const std::optional<std::vector<uint32_t>>& strides,
                                  const std::optional<std::vector<uint32_t>>& dilations) {
  ConvWindowLists l;
  l.padding = ListOrDefault(op, "padding", padding, {0, 0, 0, 0});  // steps 7-8
  l.strides = ListOrDefault(op, "strides", strides, {1, 1});        // steps 9-10
  CheckNoZeroItem(op, "strides", l.strides);                        // step 11
  l.dilations = ListOrDefault(op, "dilations", dilations, {1, 1});  // steps 12-13
  CheckNoZeroItem(op, "dilations", l.dilations);                    // step 14
  return l;
}

void CheckConvBias(const GraphBuilder& builder, const std::string& op,
                   const std::optional<Operand>& bias, uint64_t output_channels,
                   DataType input_type) {
  if (!bias) return;
  const OperandDescriptor bd = builder.Desc(*bias);
  if (bd.shape != Shape{output_channels}) {
    ThrowTypeError(op + ": options.bias shape " + ShapeToString(bd.shape) + " is not [" +
                   std::to_string(output_channels) + "]");
  }
  CheckSameType(op, "bias", bd.dataType, "input", input_type);
}

namespace {
// floor(a / b) for b > 0.
__int128 FloorDiv(__int128 a, __int128 b) {
  const __int128 q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}
__int128 CeilDiv(__int128 a, __int128 b) {
  const __int128 q = a / b;
  return (a % b != 0 && a > 0) ? q + 1 : q;
}
}  // namespace

__int128 ConvOutputSize::Floor() const { return FloorDiv(numerator, stride) + 1; }
__int128 ConvOutputSize::Ceil() const { return CeilDiv(numerator, stride) + 1; }

ConvOutputSize CalculateConvOutputSize(uint64_t input_size, uint64_t filter_size,
                                       uint32_t beginning_padding, uint32_t ending_padding,
                                       uint32_t stride, uint32_t dilation) {
  // Step 1: effectiveFilterSize = (filterSize - 1) * dilation + 1. Step 2: the fraction.
  const __int128 effective_filter_size = (__int128{filter_size} - 1) * dilation + 1;
  return {__int128{input_size} - effective_filter_size + beginning_padding + ending_padding,
          stride};
}

__int128 CalculateConvTransposeOutputSize(uint64_t input_size, uint64_t filter_size,
                                          uint32_t beginning_padding, uint32_t ending_padding,
                                          uint32_t stride, uint32_t dilation) {
  const __int128 effective_filter_size = (__int128{filter_size} - 1) * dilation + 1;  // step 1
  return (__int128{input_size} - 1) * stride + effective_filter_size - beginning_padding -
         ending_padding;  // step 2
}

namespace {

// The pair (s, e) with s + e == sum + compensation exactly and s = RN(sum + compensation).
struct Normalized {
  double s, e;
};
Normalized Normalize(double sum, double compensation) {
  const double s = sum + compensation;
  const double bb = s - sum;
  return {s, (sum - (s - bb)) + (compensation - bb)};  // TwoSum's exact error
}

// q rounded to odd towards the exact value q + (something with the sign of `residual`).
double NudgeToOdd(double q, double residual) {
  if (residual == 0 || !std::isfinite(q) || (std::bit_cast<uint64_t>(q) & 1) != 0) return q;
  return std::nextafter(q, residual > 0 ? kInfinity : -kInfinity);
}

}  // namespace

double WindowSum::QuotientToOdd(double divisor) const {
  if (!std::isfinite(sum)) return sum / divisor;
  const Normalized n = Normalize(sum, compensation);
  // q approximates x = (s + e) / divisor; the residual s + e - q * divisor is evaluated exactly
  // up to one rounding: q * divisor = p + p_err (fma) and s - p is exact (Sterbenz). One
  // correction step brings q within half an ulp (plus a hair) of x, so the residual's sign then
  // says on which side of q the exact quotient lies.
  double q = n.s / divisor;
  double residual = 0;
  for (int step = 0; step < 2; ++step) {
    const double p = q * divisor;
    const double p_err = std::fma(q, divisor, -p);
    residual = (n.s - p) + (n.e - p_err);
    if (step == 0) q += residual / divisor;
  }
  return NudgeToOdd(q, residual);
}

double WindowSum::SqrtToOdd() const {
  if (!std::isfinite(sum)) return std::sqrt(sum);
  const Normalized n = Normalize(sum, compensation);
  const double q = std::sqrt(n.s);  // within an ulp of sqrt(s + e): |e| <= ulp(s) / 2
  const double p = q * q;
  const double p_err = std::fma(q, q, -p);
  return NudgeToOdd(q, (n.s - p) + (n.e - p_err));  // the sign of s + e - q^2
}

std::string Int128ToString(__int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  std::string s;
  while (v != 0) {
    const int digit = static_cast<int>(v % 10);
    s.insert(s.begin(), static_cast<char>('0' + (negative ? -digit : digit)));
    v /= 10;
  }
  return negative ? "-" + s : s;
}

void MarkAllIfInputLatitude(std::span<const OperandValue* const> inputs, OperandValue& out) {
  for (const OperandValue* in : inputs) {
    if (in->latitude.valid()) {
      out.latitude = NewLatitude(out.data.shape());
      std::memset(out.latitude.buffer()->data(), static_cast<int>(Latitude::kAny),
                  out.latitude.buffer()->size());
      return;
    }
  }
}

}  // namespace nnref
