// gather, gatherElements, gatherND (§api-mlgraphbuilder-gather, -gatherelements, -gathernd) and
// scatterElements, scatterND (§api-mlgraphbuilder-scatterelements, -scatternd) of the vulkan
// backend, every data type (element bits are copied). Binding 1 = input, 2 = indices (int32,
// uint32 or int64, read as words: no shaderInt64), 3 = updates. A negative index counts from the
// end; an out-of-range one is clamped to [-N, N-1], as the reference does (it marks what is read
// or written through it). Scatters are computed in gather form, one invocation per output
// element, scanning the updates in row-major order so that the last update to an element wins
// (the reference's order; duplicates with different values are open and marked).
#version 450
#extension GL_GOOGLE_include_directive : require
#define IVAL int
#define UVAL uint

#include "codes.h"
#include "params.h"
#include "common.glsl"
#include "typed_io.glsl"

// Index `pos` of the indices, clamped to [-n, n-1] and made non-negative.
uint IndexAt(uint pos, uint n) {
  const uint it = p[NNVK_GATHER_P_INDEX_TYPE];
  const uvec2 r = Raw(1u, it, pos);
  int v;
  if (it == NNVK_U32) {
    v = r.x > 0x7fffffffu ? 0x7fffffff : int(r.x);
  } else if (it == NNVK_I64) {
    const bool fits = (r.y == 0u && r.x <= 0x7fffffffu) || (r.y == 0xffffffffu && r.x >= 0x80000000u);
    v = fits ? int(r.x) : ((r.y & 0x80000000u) != 0u ? int(0x80000000u) : 0x7fffffff);
  } else {
    v = int(r.x);
  }
  v = clamp(v, -int(n), int(n) - 1);
  return uint(v < 0 ? v + int(n) : v);
}

uvec2 Compute(uint e) {
  const uint t = p[NNVK_GATHER_P_TYPE], mode = p[NNVK_GATHER_P_MODE], N = p[NNVK_GATHER_P_N];
  const uint inner = p[NNVK_GATHER_P_INNER], J = p[NNVK_GATHER_P_J];
  if (mode == NNVK_GATHER_MODE_GATHER) {
    const uint i = e % inner, j = (e / inner) % J, o = e / (inner * J);
    return Raw(0u, t, (o * N + IndexAt(j, N)) * inner + i);
  }
  if (mode == NNVK_GATHER_MODE_ELEMENTS) {
    const uint i = e % inner, o = e / (inner * J);
    return Raw(0u, t, (o * N + IndexAt(e, N)) * inner + i);
  }
  if (mode == NNVK_GATHER_MODE_ND) {
    const uint tuple = e / inner, i = e % inner;
    uint off = i;
    for (uint d = 0u; d < N; ++d) {
      off += IndexAt(tuple * N + d, p[NNVK_GATHER_P_DIMS + d]) * p[NNVK_GATHER_P_DIMS + N + d];
    }
    return Raw(0u, t, off);
  }
  uvec2 result = Raw(0u, t, e);
  if (mode == NNVK_GATHER_MODE_SCATTER_ELEMENTS) {
    // Output e = (o, a, i) on the input's shape; updates (and indices) are (o, j, i), j < J.
    const uint i = e % inner, a = (e / inner) % N, o = e / (inner * N);
    for (uint j = 0u; j < J; ++j) {
      const uint u = (o * J + j) * inner + i;
      if (IndexAt(u, N) == a) result = Raw(2u, t, u);
    }
    return result;
  }
  // scatterND: output e = (tuple coordinates, i); update u = tuple * slice + i.
  const uint i = e % inner;
  uint rem = e / inner;
  for (uint tuple = 0u; tuple < J; ++tuple) {
    uint target = 0u;
    for (uint d = 0u; d < N; ++d) {
      target += IndexAt(tuple * N + d, p[NNVK_GATHER_P_DIMS + d]) *
                (p[NNVK_GATHER_P_DIMS + N + d] / inner);
    }
    if (target == rem) result = Raw(2u, t, tuple * inner + i);
  }
  return result;
}

NNVK_TYPED_MAIN(Compute, p[NNVK_GATHER_P_TYPE], p[NNVK_GATHER_P_COUNT])
