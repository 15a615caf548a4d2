// NNEF operator group: the quantization that a graph.quant entry applies to a tensor (NNEF 1.0.2
// chapter 7.1: "as if the appropriate quantization was applied to each tensor after its value is
// computed"), with the algorithms of chapter 4.9.5 and the 1.0.x tooling. Quantizer::Apply is
// that operation, computed in double from the fragment's formula and rounded once to float32: the
// rounding decision q = floor(v + 0.5) is made on the exact value of v where v is a quotient (an
// fma-based residual decides halfway cases), and the decoded value q / r * (max - min) + min is
// formed with the quotient and the sum rounded to odd (ops/exact_round.h) before the final
// rounding (docs/numerics.md, NNEF section). Parsing and checking the algorithm's arguments is the
// NNEF front end's (runner/nnef/quant_file.h).
#pragma once

#include <cstdint>
#include <optional>

#include "ref/graph/graph.h"

namespace nnref::nnef {

// An executable, validated quantization algorithm.
//
// linear_quantize: r = 2^bits - 1, z = clamp(x, min, max), q = round((z - min) / (max - min) * r),
//   y = q / r * (max - min) + min.  Codes q in [0, r]; code -> q / r * (max - min) + min.
// logarithmic_quantize: m = ceil(log2(max)), r = 2^bits - 1, q = round(clamp(log2(|x|), m - r, m)),
//   y = sign(x) * 2^q (the fragment spends every bit on the exponent; x = 0 gives 0).
// zero_point_linear_quantize: signed codes [-2^(bits-1) (+1 when symmetric), 2^(bits-1) - 1],
//   unsigned codes [0, 2^bits - 1]; q = clamp(round(x / scale) + zero_point, lo, hi),
//   y = (q - zero_point) * scale; code -> (q - zero_point) * scale.
// min_max_linear_quantize: r = 2^bits - 1 - (signed && symmetric), z = clamp(x, min, max),
//   k = round((z - min) / (max - min) * r), y = k / r * (max - min) + min; a stored code q
//   corresponds to k = q - lo where lo is the smallest code (-2^(bits-1) + symmetric when signed,
//   0 otherwise).
// round(v) is floor(v + 0.5), as the NNEF `round` primitive. min, max and scale are float32
// values (the literals rounded once, as constant tensors of the graph would be).
struct Quantizer {
  enum class Kind : uint8_t { kLinear, kLogarithmic, kZeroPointLinear, kMinMaxLinear };
  Kind kind = Kind::kLinear;
  int64_t bits = 8;
  double min = 0, max = 1;  // kLinear, kMinMaxLinear; max also for kLogarithmic
  double scale = 1;         // kZeroPointLinear
  int64_t zero_point = 0;   // kZeroPointLinear
  bool is_signed = false;   // kZeroPointLinear, kMinMaxLinear
  bool symmetric = false;   // kZeroPointLinear, kMinMaxLinear

  // The pseudo-quantized value of x, rounded once to float32.
  float Apply(float x) const;
  // The real value of a stored code (tooling quint/qint tensor files), rounded once to float32.
  // nullopt when this algorithm has no code interpretation (logarithmic_quantize) or the code is
  // outside its code range.
  std::optional<float> DecodeCode(int64_t code) const;
  // Smallest and largest code of the algorithm (linear kinds).
  int64_t MinCode() const;
  int64_t MaxCode() const;
};

struct QuantizeAttributes : OpAttributes {
  Quantizer quantizer;
};
// quantize: y = quantizer.Apply(x) per element of a float32 tensor.
Operand NnefQuantize(GraphBuilder& builder, const Operand& input, const Quantizer& quantizer);

}  // namespace nnref::nnef
