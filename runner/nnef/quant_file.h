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
// (tensor_file.h); their formulas are documented at Quantizer (ops/nnef_quantize.h). Arguments must
// all be named, literal values (numbers, optionally negative; true/false; strings; arrays); any
// other algorithm name is rejected.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ops/nnef_quantize.h"
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

// Checks the algorithm name and arguments (all required ones present, no unknown ones, types,
// 1 <= bits <= 32 for the linear kinds and 1 <= bits <= 62 for the logarithmic one, min < max,
// scale > 0, max > 0, finite values); throws NnefError (stage quant-file) naming the argument.
Quantizer MakeQuantizer(const QuantAlgorithm& algorithm);

}  // namespace nnref::nnef
