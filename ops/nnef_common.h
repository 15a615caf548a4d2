// Pieces shared by the NNEF operator group (ops/nnef_*.cc): row-major index walks, the exact
// window sum with its single rounding, per-element latitude copies, and the data-dependent errors
// the NNEF kernels raise at compute time. Internal to the NNEF group.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "numerics/cast.h"
#include "ops/conv_common.h"
#include "ref/graph/graph.h"

namespace nnref::nnef {

using Index = std::vector<int64_t>;

// Row-major odometer over `extents`; false after the last index.
inline bool Next(Index& idx, const Index& extents) {
  for (size_t k = idx.size(); k-- > 0;) {
    if (++idx[k] < extents[k]) return true;
    idx[k] = 0;
  }
  return false;
}

inline Index ToIndex(const Shape& s) { return Index(s.begin(), s.end()); }

inline int64_t Volume(const Index& extents) {
  int64_t v = 1;
  for (int64_t e : extents) v *= e;
  return v;
}

inline Index DenseStrides(const Index& extents) {
  Index st(extents.size(), 1);
  for (size_t k = extents.size(); k-- > 1;) st[k - 1] = st[k] * extents[k];
  return st;
}

inline int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

inline int64_t CeilDiv(int64_t a, int64_t b) { return -FloorDiv(-a, b); }

// floor(v + 0.5): the NNEF round primitive (4.2.1) on doubles.
inline double RoundHalfUp(double v) {
  const double f = std::floor(v);
  return v - f >= 0.5 ? f + 1 : f;
}

// A dense float32 copy of a scalar tensor and its data pointer.
struct Floats {
  Tensor t;
  const float* p;
  explicit Floats(const Tensor& x) : t(x.Contiguous()), p(t.base<float>()) {}
  double operator[](int64_t i) const { return static_cast<double>(p[i]); }
};

// A dense int64 copy of an integer tensor.
struct Ints {
  Tensor t;
  const int64_t* p;
  explicit Ints(const Tensor& x) : t(x.Contiguous()), p(t.base<int64_t>()) {}
};

inline OperandValue NewOutput(const OperandDescriptor& d) {
  return OperandValue{Tensor::Allocate(d.dataType, d.shape), Tensor()};
}

// Adds v * w to a compensated sum with the product split exactly.
inline void AddProduct(WindowSum& acc, double v, double w) {
  const double p = v * w;
  acc.Add(p);
  if (std::isfinite(p)) {
    const double e = std::fma(v, w, -p);
    if (e != 0) acc.Add(e);
  }
}

// The sum (divided by `divisor`) rounded to odd, then once to float32.
inline float Finish(const WindowSum& acc, double divisor = 1) {
  return RoundTo<float>(acc.QuotientToOdd(divisor));
}

// Marks element `at` of a lazily allocated latitude tensor as any value.
inline void MarkOpen(Tensor& lat, const Shape& shape, int64_t at) {
  if (!lat.valid()) lat = NewLatitude(shape);
  lat.base<uint8_t>()[at] = static_cast<uint8_t>(Latitude::kAny);
}

// Per-element latitude of an output that reads element `src` of `source` into element `dst`.
inline void CopyLatitude(const OperandValue& source, int64_t src, int64_t dst, Tensor& lat,
                         const Shape& shape) {
  if (!source.latitude.valid()) return;
  const uint8_t v = source.latitude.At<uint8_t>(static_cast<uint64_t>(src));
  if (v == 0) return;
  if (!lat.valid()) lat = NewLatitude(shape);
  uint8_t& d = lat.base<uint8_t>()[dst];
  if (d != static_cast<uint8_t>(Latitude::kAny)) d = v;
}

// A data-dependent problem found while computing (an index outside its window, a batch index
// outside the batch, a non-finite RoI coordinate): an OperationError whose message the NNEF
// front end reports as an execution error.
[[noreturn]] inline void ComputeError(const std::string& message) {
  throw WebnnError(ErrorType::kOperationError, message);
}

// The default-table row that judges an NNEF-group operator (the second column of
// ops/nnef_op_list.inc: the WebNN operator with the same numerics); other operators: themselves.
OpId NnefToleranceRow(OpId op);

// Adds an NNEF-group operator node: `attributes` are shared by the node and its kernel.
std::vector<Operand> AddNnefNode(GraphBuilder& builder, OpId op, const std::vector<Operand>& inputs,
                                 std::shared_ptr<const Kernel> kernel,
                                 std::shared_ptr<const OpAttributes> attributes,
                                 std::vector<OperandDescriptor> outputs, uint64_t size = 0);

}  // namespace nnref::nnef
