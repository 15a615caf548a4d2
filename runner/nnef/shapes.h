// Shape propagation and argument validity of the NNEF primitives (chapter 4). Used by the
// expander for every primitive invocation; the window geometry (ResolveWindowAxis) is public so
// that the lowering resolves padding exactly as shape propagation did.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ops/nnef_window.h"
#include "runner/nnef/ir.h"

namespace nnref::nnef {

// Extent of `s` along `axis`, counting the implicit trailing singleton dimensions (2.2).
inline int64_t ExtentAt(const Extents& s, size_t axis) { return axis < s.size() ? s[axis] : 1; }

// 4.2.2 broadcasting: NNEF aligns dimensions from the FRONT (missing trailing dimensions are
// singleton); per dimension the extents must be equal or one of them 1. The result rank is the
// larger rank. nullopt when the shapes do not agree.
std::optional<Extents> Broadcast(const Extents& a, const Extents& b);

// One axis of a sliding-window operation (4.3), everything resolved: the window (WindowAxis of
// ops/nnef_window.h, with the explicit or automatically computed padding), `up` the up-scaled
// extent (input of a basic op / output of a reverse op) and `down` the down-scaled one.
struct ResolvedWindowAxis {
  WindowAxis window;
  int64_t up = 1;
  int64_t down = 1;
};

// Resolves the window geometry of one axis. Basic ops: `in` = X (up-scaled). Reverse ops
// (`reverse`): `in` = x (down-scaled) and `output_extent` the requested X if output_shape was
// given. `padding` is nullopt for automatic padding. Throws ArgumentError on invalid geometry.
ResolvedWindowAxis ResolveWindowAxis(int64_t in, int64_t size, int64_t stride, int64_t dilation,
                                     std::optional<std::pair<int64_t, int64_t>> padding,
                                     bool reverse, std::optional<int64_t> output_extent);

// Thrown by the shape rules; the expander adds the position.
struct ArgumentError {
  std::string message;
  std::string rule;
};

struct ShapeLimits {
  int64_t max_volume = int64_t{1} << 40;
};

// Shape of a tensor-position argument: the tensor's shape for kTensor (nullptr if unknown,
// i.e. downstream of a custom operation), {} for a literal.
using ShapeLookup = std::function<const Extents*(const ArgValue&)>;

struct InferredShapes {
  bool known = true;  // false when an input shape is unknown (results then have no shapes)
  // Per declared result: one shape for a tensor result, one per item for a tensor-array result.
  std::vector<std::vector<Extents>> results;
};

// Checks the argument validity rules of primitive `op` and computes its result shapes. `args`
// holds every declared parameter in declaration order. Throws ArgumentError (also for an
// operation without a shape rule: the compounds).
InferredShapes InferPrimitive(NnefOp op, const std::vector<NamedValue>& args,
                              const ShapeLookup& lookup, const ShapeLimits& limits);

// Volume of `s`; throws ArgumentError when it exceeds `limit` (or overflows).
int64_t CheckedVolume(const Extents& s, int64_t limit);

}  // namespace nnref::nnef
