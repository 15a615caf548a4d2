// Tensor data in case files (case-format "DATA forms"): arrays, single values, generators
// (fill, range, random) and .npy files; values as JSON numbers or strings ("NaN", "Infinity",
// "-Infinity", "-0", big integers, "0x" bit patterns). And the canonical text of an element.
#pragma once

#include <string>

#include "numerics/dtype.h"
#include "ref/tensor/tensor.h"
#include "ref/value.h"

namespace nnref {

// Decodes `data` into a new tensor of `dtype` and `shape`. `where` names the field for errors
// (e.g. "cases/x.json: case 'abc': graph.inputs.a.data"); `base_dir` resolves npy paths.
Tensor DecodeTensorData(const Value& data, DataType dtype, const Shape& shape,
                        const std::string& where, const std::string& base_dir);

// One element of a tensor as canonical JSON: the shortest decimal that reads back to the same
// bits, or the strings "NaN", "Infinity", "-Infinity", "-0"; 64-bit integers beyond 2^53 as
// decimal strings.
Value CanonicalElement(const Tensor& t, uint64_t linear_index);
// The element as readable text for messages and traces.
std::string ElementText(const Tensor& t, uint64_t linear_index);
// The element as a double (approximate for 64-bit integers beyond 2^53).
double ElementAsDouble(const Tensor& t, uint64_t linear_index);

// The fixed pseudo-random generator of the "random" form (splitmix64); documented in
// docs/case-format.md so other tools can reproduce the data.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  double NextUnit();  // [0, 1): (Next() >> 11) * 2^-53
  // The generator `draws` calls to Next() later (the state is a counter), so separate blocks of
  // a tensor can be generated independently.
  void Skip(uint64_t draws) { state_ += draws * 0x9E3779B97F4A7C15ull; }

 private:
  uint64_t state_;
};

// Decimal text -> float16 with a single rounding (no double-rounding through double).
Float16 Float16FromDecimal(const std::string& text);

}  // namespace nnref
