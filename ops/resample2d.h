// resample2d — WebNN §api-mlgraphbuilder-resample2d-method.
#pragma once

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

Operand Resample2d(GraphBuilder& builder, const Operand& input,
                   const MLResample2dOptions& options = {});

// Reads MLResample2dOptions. `scales` items go through the WebIDL `float` conversion: a value
// that is not finite, or that rounds to +-2^128, is a TypeError.
std::vector<Operand> CallResample2d(OpCall& call);

}  // namespace nnref
