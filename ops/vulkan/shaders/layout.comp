// Data movement of the vulkan backend: reshape, transpose, expand, slice, reverse, split, pad,
// tile, triangular and concat (§api-mlgraphbuilder-reshape-method ... §api-mlgraphbuilder-concat) as
// one index map. Output element e is decoded into coordinates; each coordinate goes through the
// axis's padding (constant, edge, reflection), tiling (modulo the input size), slicing
// (start + c step) and reversal, and selects the input element by the input's dense strides
// (0 on a broadcast axis). The element's bits are copied unchanged, so every data type is exact
// (64-bit elements as two words, no shaderInt64 needed).
#version 450
#extension GL_GOOGLE_include_directive : require
#define IVAL int
#define UVAL uint

#include "codes.h"
#include "params.h"
#include "common.glsl"
#include "typed_io.glsl"

// concat: output element e = (outer, c, inner) with c along the axis; the inputs are packed one
// after the other in binding 1 (input k: outer x size_k x inner elements).
uvec2 Concat(uint t, uint e) {
  const uint inner = p[NNVK_LAYOUT_P_INNER], n = p[NNVK_LAYOUT_P_CONCAT];
  uint total = 0u;
  for (uint k = 0u; k < n; ++k) total += p[NNVK_LAYOUT_P_AXES + k];
  const uint outer_count = p[NNVK_LAYOUT_P_COUNT] / (inner * total);
  const uint i = e % inner, outer = e / (inner * total);
  uint c = (e / inner) % total;
  uint start = 0u;
  for (uint k = 0u; k < n; ++k) {
    const uint size = p[NNVK_LAYOUT_P_AXES + k];
    if (c < size) return Raw(0u, t, start + (outer * size + c) * inner + i);
    c -= size;
    start += outer_count * size * inner;
  }
  return uvec2(0u);
}

uvec2 Compute(uint e) {
  const uint t = p[NNVK_LAYOUT_P_TYPE], rank = p[NNVK_LAYOUT_P_RANK];
  if (p[NNVK_LAYOUT_P_CONCAT] != 0u) return Concat(t, e);
  uint rem = e;
  int off = int(p[NNVK_LAYOUT_P_BASE]);
  bool outside = false;
  int row = 0, col = 0;
  for (int d = int(rank) - 1; d >= 0; --d) {
    const uint a = NNVK_LAYOUT_P_AXES + uint(d) * NNVK_LAYOUT_AXIS_WORDS;
    const uint out_dim = p[a], c = rem % out_dim;
    rem /= out_dim;
    const int in_dim = int(p[a + 1u]);
    const uint flags = p[a + 6u];
    int x = int(c);
    if (d == int(rank) - 1) col = x;
    if (d == int(rank) - 2) row = x;
    const uint mode = p[NNVK_LAYOUT_P_PAD_MODE];
    if (mode != NNVK_PAD_NONE) {
      x -= int(p[a + 5u]);
      if (x < 0 || x >= in_dim) {
        if (mode == NNVK_PAD_CONSTANT) {
          outside = true;
        } else if (mode == NNVK_PAD_EDGE) {
          x = clamp(x, 0, in_dim - 1);
        } else {
          x = x < 0 ? -x : 2 * (in_dim - 1) - x;
        }
      }
    }
    if ((flags & NNVK_AXIS_TILE) != 0u) x = x % in_dim;
    x = int(p[a + 3u]) + x * int(p[a + 4u]);
    if ((flags & NNVK_AXIS_REVERSE) != 0u) x = in_dim - 1 - x;
    off += x * int(p[a + 2u]);
  }
  if (outside) return uvec2(p[NNVK_LAYOUT_P_VALUE], p[NNVK_LAYOUT_P_VALUE + 1u]);
  const uint tri = p[NNVK_LAYOUT_P_TRIANGULAR];
  if (tri != NNVK_TRIANGULAR_NONE) {
    const int diagonal = int(p[NNVK_LAYOUT_P_DIAGONAL]);
    const bool keep = tri == NNVK_TRIANGULAR_UPPER ? col - row >= diagonal : col - row <= diagonal;
    if (!keep) return uvec2(0u);  // zero bits: +0 or integer 0
  }
  return Raw(0u, t, uint(off));
}

NNVK_TYPED_MAIN(Compute, p[NNVK_LAYOUT_P_TYPE], p[NNVK_LAYOUT_P_COUNT])
