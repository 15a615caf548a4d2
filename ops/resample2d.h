// resample2d — WebNN §api-mlgraphbuilder-resample2d-method.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ops/limits.h"
#include "ops/op_call.h"

namespace nnref {

// §tensor-limits-resample2d
extern const OpLimits kResample2dLimits;

enum class MLInterpolationMode : uint8_t { kNearestNeighbor, kLinear };
inline const std::vector<std::string> kInterpolationModeNames = {"nearest-neighbor", "linear"};

struct MLResample2dOptions : MLOperatorOptions {
  MLInterpolationMode mode = MLInterpolationMode::kNearestNeighbor;
  std::optional<std::vector<float>> scales;    // sequence<float>: already converted by WebIDL
  std::optional<std::vector<uint32_t>> sizes;  // target sizes of the two axes
  std::optional<std::vector<uint32_t>> axes;   // the two resampled axes, default [2, 3]
};

// The validated attributes of a resample2d node: the mode and the two resampled axes (the
// spec's y and x, in the order of options.axes); the sizes are the descriptors'.
struct Resample2dAttributes : OpAttributes {
  MLInterpolationMode mode = MLInterpolationMode::kNearestNeighbor;
  size_t axis_y = 2, axis_x = 3;
};

// Where output coordinate o of one axis samples the input (the coordinate steps at the top of
// ops/resample2d.cc, exact in 128-bit): nearest-neighbor uses index0 only; linear interpolates
// index0 and index1 with tx = frac_num / frac_den (index1 == index0 when frac_num is 0;
// frac_den is 2 * outputSize, and 1 for nearest-neighbor). Shared by the reference and the simd
// kernels.
struct Resample2dAxisSample {
  int64_t index0, index1;
  int64_t frac_num, frac_den;
};
std::vector<Resample2dAxisSample> SampleResampleAxis(int64_t input_size, int64_t output_size,
                                                     MLInterpolationMode mode);

// Rounds num / den (den > 0) to the nearest integer, ties to even (linear int8/uint8 results).
inline __int128 RoundHalfEven(__int128 num, __int128 den) {
  __int128 q = num / den, r = num % den;
  if (r < 0) {
    q -= 1;
    r += den;
  }
  if (2 * r > den || (2 * r == den && q % 2 != 0)) q += 1;
  return q;
}

Operand Resample2d(GraphBuilder& builder, const Operand& input,
                   const MLResample2dOptions& options = {});

// Reads MLResample2dOptions. `scales` items go through the WebIDL `float` conversion: a value
// that is not finite, or that rounds to +-2^128, is a TypeError.
std::vector<Operand> CallResample2d(OpCall& call);

}  // namespace nnref
