// Helpers shared by the unit tests (test code only; never included by the libraries).
#pragma once

#include <doctest/doctest.h>

#include <functional>
#include <initializer_list>
#include <map>
#include <string>

#include "ref/error.h"
#include "ref/graph/graph.h"

namespace nnref {

// The spec error type `f` throws; kUnknownError when it throws none.
inline ErrorType ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const WebnnError& e) {
    return e.type();
  }
  return ErrorType::kUnknownError;
}

// A dense tensor of storage type T holding `v` in row-major order.
template <typename T>
Tensor Make(DataType t, const Shape& s, std::initializer_list<T> v) {
  Tensor x = Tensor::Allocate(t, s);
  size_t i = 0;
  for (T e : v) x.base<T>()[i++] = e;
  return x;
}

inline Tensor F32(const Shape& s, std::initializer_list<float> v) {
  return Make<float>(DataType::kFloat32, s, v);
}

// A float16 tensor from doubles, each rounded once to binary16.
inline Tensor F16(const Shape& s, std::initializer_list<double> v) {
  Tensor x = Tensor::Allocate(DataType::kFloat16, s);
  size_t i = 0;
  for (double e : v) x.base<Float16>()[i++] = Float16::FromDouble(e);
  return x;
}

// Checks a float32/float16 tensor element by element against exact expected values.
inline void CheckFloats(const Tensor& t, std::initializer_list<double> expected) {
  REQUIRE(t.element_count() == expected.size());
  size_t i = 0;
  for (double e : expected) {
    const double v = t.dtype() == DataType::kFloat16 ? t.At<Float16>(i).ToDouble()
                                                     : static_cast<double>(t.At<float>(i));
    CHECK_MESSAGE(v == e, "element " << i << ": " << v << " != " << e);
    ++i;
  }
}

// Builds `out` as the only output and computes it.
inline OperandValue Run(GraphBuilder& b, const Operand& out,
                        const std::map<std::string, Tensor>& in) {
  return b.Build({{"out", out}})->Compute(in).at("out");
}

}  // namespace nnref
