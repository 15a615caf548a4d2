// Distances between an actual and an expected element (case-format "Tolerance").
#pragma once

#include <cstdint>

#include "numerics/dtype.h"

namespace nnref {

inline constexpr uint64_t kInfiniteDistance = UINT64_MAX;

// Number of representable float32 values between a and b (their positions in the ordered list of
// float32 values). +0 and -0 share one position. NaN vs NaN (any payload) is 0; NaN vs non-NaN,
// and an infinity vs anything but the same infinity, is kInfiniteDistance.
uint64_t UlpDistanceFloat32(float a, float b);
uint64_t UlpDistanceFloat16(Float16 a, Float16 b);

// |a - b| computed exactly for integers of any storage type (returned saturated to uint64).
uint64_t IntegerDistance(int64_t a, int64_t b);
uint64_t IntegerDistance(uint64_t a, uint64_t b);

}  // namespace nnref
