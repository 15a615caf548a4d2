// Helpers shared by the unit tests (test code only; never included by the libraries).
#pragma once

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

// Builds `out` as the only output and computes it.
inline OperandValue Run(GraphBuilder& b, const Operand& out,
                        const std::map<std::string, Tensor>& in) {
  return b.Build({{"out", out}})->Compute(in).at("out");
}

}  // namespace nnref
