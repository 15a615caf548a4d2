// The simd backend's operator families. Each family file (elementwise.cc, linear_algebra.cc, ...)
// answers for the operators it knows and makes their kernels; simd_backend.cc asks each in turn.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ops/backend.h"
#include "ref/parallel/parallel.h"

namespace nnref::simd {

struct Config {
  std::shared_ptr<ThreadPool> pool;
};

struct Family {
  // nullopt: not an operator of this family; "" : covered for `type` (the data type of the first
  // input); otherwise why not ("float16 not supported").
  std::optional<std::string> (*unsupported)(OpId op, DataType type);
  // The kernel for operator `index` of `graph` (an operator of this family), or null with `why`.
  std::shared_ptr<const Kernel> (*make)(const Graph& graph, size_t index, const Config& config,
                                        std::string& why);
};

extern const Family kElementwiseFamily;    // elementwise.cc: binary, unary, logical, cast,
                                           // clamp, where, activations
extern const Family kLinearAlgebraFamily;  // linear_algebra.cc: matmul, gemm, linear, conv2d,
                                           // convTranspose2d
extern const Family kWindowFamily;         // window.cc: pools, resample2d
extern const Family kReductionFamily;      // reduction.cc: reductions, softmax, normalizations
extern const Family kLayoutFamily;         // layout.cc: views, concat, pad, tile, gather,
                                           // quantize/dequantize
extern const Family kRecurrentFamily;      // recurrent.cc: gru, gruCell, lstm, lstmCell

// The data type of the first input of operator `index` (the one `unsupported` is asked about).
DataType FirstInputType(const Graph& graph, size_t index);

}  // namespace nnref::simd
