// Helpers shared by the index-driven kernels (ops/indexing.cc, ops/scatter.cc,
// ops/arg_cumulative.cc): reading index tensors, resolving an index against a dimension, and
// carrying latitude codes from inputs to the outputs that copy them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/limits.h"
#include "ref/graph/graph.h"

namespace nnref {

// The data types of an index operand (gather*, scatter*): int32, uint32 and int64.
inline constexpr DataTypeSet kIndexTypes{DataType::kInt32, DataType::kUint32, DataType::kInt64};

// Latitude::kAny as the code stored in a latitude tensor.
inline constexpr auto kAnyCode = static_cast<uint8_t>(Latitude::kAny);

// A size or position in a message.
inline std::string Str(uint64_t v) { return std::to_string(v); }

// The axis steps of gather, gatherElements and scatterElements: TypeError unless
// options.axis < the input rank.
inline void CheckAxis(const std::string& name, uint32_t axis, size_t rank) {
  if (axis >= rank) {
    ThrowTypeError(name + ": axis " + Str(axis) + " is out of range for input rank " + Str(rank));
  }
}

// gatherND's output shape and scatterND's expected updates shape: the indices' leading axes, then
// the input's axes from coordinateSize (the indices' last dimension) on. TypeError when
// coordinateSize is greater than the input rank.
inline Shape GatherNDShape(const std::string& name, const Shape& input, const Shape& indices) {
  const uint64_t coordinate_size = indices.back();
  if (coordinate_size > input.size()) {
    ThrowTypeError(name + ": indices' last dimension " + Str(coordinate_size) +
                   " is greater than the input rank " + Str(input.size()));
  }
  Shape shape(indices.begin(), indices.end() - 1);
  shape.insert(shape.end(), input.begin() + static_cast<std::ptrdiff_t>(coordinate_size),
               input.end());
  return shape;
}

// The elements of an int32, uint32 or int64 index tensor (any view) read as int64, in row-major
// order. The storage stays the tensor's own: a dense copy is made only for a strided view.
class IndexReader {
 public:
  explicit IndexReader(const Tensor& indices) : t_(indices.Contiguous()) {}
  int64_t operator[](uint64_t i) const {
    switch (t_.dtype()) {
      case DataType::kInt32:
        return t_.base<int32_t>()[i];
      case DataType::kUint32:
        return t_.base<uint32_t>()[i];
      default:  // int64; the builder methods admit no other index type
        return t_.base<int64_t>()[i];
    }
  }

 private:
  Tensor t_;
};

// An index resolved against a dimension of size n. The argument texts of gather, gatherElements,
// gatherND, scatterElements and scatterND say the values "must be in the range -N (inclusive) to
// N (exclusive) where N is the size of the [...] dimension, and a negative index means indexing
// from the end of the dimension". A value outside that range has no specified result: the notes
// only say the indices "can not be clamped to the allowed range when the graph is built" and that
// implementations "can introduce clamp() in the compiled graph". The reference clamps to
// [-n, n-1] (below -n gives 0, n or more gives n-1) and the kernels mark what it affects
// implementation-defined (docs/deviations.md).
struct ResolvedIndex {
  uint64_t position = 0;  // in [0, n)
  bool in_range = true;
};

inline ResolvedIndex ResolveIndex(int64_t value, uint64_t n) {
  const auto size = static_cast<int64_t>(n);  // a valid dimension: at most 2^31 - 1
  if (value >= size) return {n - 1, false};
  if (value < -size) return {0, false};
  return {static_cast<uint64_t>(value < 0 ? value + size : value), true};
}

// The latitude codes of `v` as a view of its data's shape: its own tensor, or all exact (one
// zero broadcast with stride 0).
inline Tensor LatitudeView(const OperandValue& v) {
  if (v.latitude.valid()) return v.latitude;
  return NewLatitude({}).BroadcastTo(v.data.shape());
}

// The code an output element gets when it copies an input element with code `code`. A kOneOf
// set describes the input, not the output, so kOneOf becomes kAny.
inline uint8_t CarriedCode(uint8_t code) {
  return code == static_cast<uint8_t>(Latitude::kOneOf) ? static_cast<uint8_t>(Latitude::kAny)
                                                        : code;
}

// The code of a result computed from two inputs with codes a and b: kAny wins, then
// kValueOrNaN (a NaN input gives a NaN result).
inline uint8_t CombinedCode(uint8_t a, uint8_t b) {
  a = CarriedCode(a);
  b = CarriedCode(b);
  if (a == kAnyCode || b == kAnyCode) return kAnyCode;
  return a != 0 ? a : b;  // both exact, or kValueOrNaN
}

// `v` without axis `axis` (used for shapes and strides).
template <typename V>
V WithoutAxis(const V& v, size_t axis) {
  V r;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i != axis) r.push_back(v[i]);
  }
  return r;
}

}  // namespace nnref
