// NNEF quantization files (NNEF 1.0.2 chapter 5.3 and chapter 7): `graph.quant` maps tensor
// identifiers of the graph to a quantization algorithm given as an invocation with named
// compile-time arguments:
//
//   "conv1": linear_quantize(min = 0.0, max = 1.0, bits = 8);
//   'filter1': logarithmic_quantize(max = 4.0, bits = 5);   # comments run to the end of the line
//
// Chapter 7.1: the two descriptions together "are interpreted as if the appropriate quantization
// was applied to each tensor after its value is computed" — for external inputs, constants,
// variables and activations alike. Quantizer::Apply is that operation, computed in double from the
// fragment's formula and rounded once to float32 (numerics policy). The algorithms:
//
// - linear_quantize(min, max, bits)          chapter 4.9.5 (spec)
// - logarithmic_quantize(max, bits)          chapter 4.9.5 (spec)
// - zero_point_linear_quantize(zero_point, scale, bits, signed, symmetric)   1.0.x tooling
// - min_max_linear_quantize(min, max, bits, signed, symmetric)               1.0.x tooling
//
// The last two are what the 1.0.x tooling writes next to its quint/qint tensor files
// (tensor_file.h); their formulas are documented at Quantizer below. Arguments must all be named,
// literal values (numbers, optionally negative; true/false; strings; arrays); any other algorithm
// name is rejected.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runner/nnef/error.h"
#include "runner/nnef/ir.h"

namespace nnref::nnef {

struct QuantAlgorithm {
  std::string name;              // e.g. "linear_quantize"
  std::vector<NamedValue> args;  // named arguments in source order
  SourcePos pos;                 // of the algorithm name

  const ArgValue* Arg(std::string_view arg) const;  // nullptr when absent
  std::string ToString() const;  // "linear_quantize(min = 0.0, max = 1.0, bits = 8)"
};

struct QuantEntry {
  std::string tensor;  // the tensor identifier (quotes removed)
  SourcePos pos;       // of the identifier string
  QuantAlgorithm algorithm;
};

struct QuantFile {
  std::string file;
  std::vector<QuantEntry> entries;  // in file order; identifiers are unique
  const QuantEntry* Find(std::string_view tensor) const;
};

// Parses the text of a quantization file; `file` names it in errors (NnefError, stage
// quant-file, with line:column).
QuantFile ParseQuantFile(std::string_view text, const std::string& file);
QuantFile ReadQuantFile(const std::string& path);

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

// Checks the algorithm name and arguments (all required ones present, no unknown ones, types,
// 1 <= bits <= 32 for the linear kinds and 1 <= bits <= 62 for the logarithmic one, min < max,
// scale > 0, max > 0, finite values); throws NnefError (stage quant-file) naming the argument.
Quantizer MakeQuantizer(const QuantAlgorithm& algorithm);

}  // namespace nnref::nnef
