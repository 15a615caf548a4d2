// Shapes and the spec's broadcasting algorithms (WebNN §algorithms-broadcasting).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nnref {

using Shape = std::vector<uint64_t>;

// Product of the dimensions; nullopt when it overflows uint64.
std::optional<uint64_t> CheckedElementCount(const Shape& shape);
// Product of the dimensions of a shape already known to be valid (no overflow).
uint64_t ElementCount(const Shape& shape);
std::string ShapeToString(const Shape& shape);

// "unidirectionally broadcast the shapes": shapeFrom stretched to shapeTo, or failure.
std::optional<Shape> BroadcastUnidirectional(const Shape& from, const Shape& to);
// "bidirectionally broadcast the shapes".
std::optional<Shape> BroadcastBidirectional(const Shape& a, const Shape& b);
// "blockwise broadcast the shapes": same rank, each dim of `from` divides the one of `to`.
bool BlockwiseBroadcastable(const Shape& from, const Shape& to);

}  // namespace nnref
