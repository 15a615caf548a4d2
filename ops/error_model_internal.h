// Shared helpers of the error models (ops/error_model.cc, ops/*_error.cc). Not a public header.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "numerics/error_bound.h"
#include "ops/error_model.h"

namespace nnref::error_model {

using Bounds = std::vector<std::vector<double>>;

// The element values of `t` as doubles, row-major (any data type).
std::vector<double> Values(const Tensor& t);
// Whether any input bound is nonzero.
bool AnyInputBound(const ErrorModelArgs& a);
// Input k's bounds (zeros when exact), row-major over its own shape.
std::vector<double> InputBound(const ErrorModelArgs& a, size_t k);
// A float32 tensor of `shape` holding `v` rounded up (bounds are never rounded down).
Tensor BoundTensor(const std::vector<double>& v, const Shape& shape);
// A float32 tensor of t's shape holding f(element) (exact for |x| of float16 and float32 data).
Tensor MapToFloat32(const Tensor& t, const std::function<double(double)>& f);
// Runs operator a.index's reference kernel on `inputs` with every float operand computed as
// float32 (the kernels dispatch on the output type and compute in double): magnitudes and
// bounds of float16 graphs then neither overflow nor underflow. Integer inputs stay as given.
std::vector<Tensor> RunFloat32(const ErrorModelArgs& a, std::vector<Tensor> inputs);
// The output's type as arithmetic (float outputs only).
ErrorArith ArithFor(const ErrorModelArgs& a, size_t output = 0);
bool FloatOutput(const ErrorModelArgs& a, size_t output = 0);

// The family models: nullopt when the operator is not of the family (or has no model for these
// input bounds). Element-wise operators and activations: ops/elementwise_error.cc; sums,
// reductions, normalizations, softmax, windows: ops/sums_error.cc.
std::optional<Bounds> ElementwiseBounds(const ErrorModelArgs& a);
bool HasElementwiseModel(OpId op);
std::optional<Bounds> SumBounds(const ErrorModelArgs& a);
bool HasSumModel(OpId op);
// gru, gruCell, lstm, lstmCell: ops/rnn_error.cc.
std::optional<Bounds> RnnBounds(const ErrorModelArgs& a);
bool HasRnnModel(OpId op);

}  // namespace nnref::error_model
