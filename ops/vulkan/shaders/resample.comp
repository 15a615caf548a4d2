// resample2d (§api-mlgraphbuilder-resample2d-method) of the vulkan backend. For a resampled axis
// with input size n and output size m, output coordinate o maps to the input coordinate
// clamp(((2o + 1) n - m) / (2m), 0, n - 1), kept as the exact fraction num / den (den = 2m) in
// integers, as the reference does: nearest-neighbor takes ceil(coordinate - 1/2) (halves go down)
// and copies the element's bits (every data type); linear weighs the four neighbours with the
// integer weights (den - r) and r of each axis: float32/float16 sum v W exactly (Dekker products,
// compensated, the samples scaled by a power of two against overflow) and divide once by den_y den_x; int8/uint8 compute the integer sum and round the
// quotient to nearest, ties to even (the reference marks non-integral results).
#version 450
#extension GL_GOOGLE_include_directive : require
#define IVAL int
#define UVAL uint

#include "codes.h"
#include "params.h"
#include "common.glsl"
#include "typed_io.glsl"

// The clamped input coordinate of output coordinate o as num / den.
void Coordinate(uint o, uint n, uint m, out uint num, out uint den) {
  den = 2u * m;
  const int raw = int((2u * o + 1u) * n) - int(m);
  num = raw < 0 ? 0u : uint(raw);
  num = min(num, (n - 1u) * den);
}

uvec2 Compute(uint e) {
  const uint t = p[NNVK_RESAMPLE_P_TYPE];
  uint c[4];
  uint rem = e;
  for (int d = 3; d >= 0; --d) {
    c[d] = rem % p[NNVK_RESAMPLE_P_OUT + uint(d)];
    rem /= p[NNVK_RESAMPLE_P_OUT + uint(d)];
  }
  const uint ay = p[NNVK_RESAMPLE_P_AXIS_Y], ax = p[NNVK_RESAMPLE_P_AXIS_X];
  uint base = 0u;
  for (uint d = 0u; d < 4u; ++d) {
    if (d != ay && d != ax) base += c[d] * p[NNVK_RESAMPLE_P_STRIDES + d];
  }
  uint ny, dy, nx, dx;
  Coordinate(c[ay], p[NNVK_RESAMPLE_P_IN + ay], p[NNVK_RESAMPLE_P_OUT + ay], ny, dy);
  Coordinate(c[ax], p[NNVK_RESAMPLE_P_IN + ax], p[NNVK_RESAMPLE_P_OUT + ax], nx, dx);
  const uint sy = p[NNVK_RESAMPLE_P_STRIDES + ay], sx = p[NNVK_RESAMPLE_P_STRIDES + ax];
  if (p[NNVK_RESAMPLE_P_LINEAR] == 0u) {
    // ceil(num / den - 1/2) = ceil((num - den/2) / den), >= 0 here.
    const int hy = int(ny) - int(dy / 2u), hx = int(nx) - int(dx / 2u);
    const uint iy = hy <= 0 ? 0u : (uint(hy) + dy - 1u) / dy;
    const uint ix = hx <= 0 ? 0u : (uint(hx) + dx - 1u) / dx;
    return Raw(0u, t, base + iy * sy + ix * sx);
  }
  const uint y0 = ny / dy, ry = ny % dy, x0 = nx / dx, rx = nx % dx;
  const uint y1 = min(y0 + 1u, p[NNVK_RESAMPLE_P_IN + ay] - 1u);
  const uint x1 = min(x0 + 1u, p[NNVK_RESAMPLE_P_IN + ax] - 1u);
  const uint wy[2] = uint[2](dy - ry, ry), wx[2] = uint[2](dx - rx, rx);
  const uint iy[2] = uint[2](y0, y1), ix[2] = uint[2](x0, x1);
  if (IsFloat(t)) {
    // The samples scaled by the power of two bringing the largest finite one near 1 (exact), so
    // that v W cannot overflow; scaled back once. Only the samples with a weight count: a large
    // neighbour of weight 0 would scale a small (subnormal) sample of the result to zero.
    float largest = 0.0;
    for (uint a = 0u; a < 2u; ++a) {
      for (uint b = 0u; b < 2u; ++b) {
        if (wy[a] * wx[b] == 0u) continue;
        const float v = abs(AsFloat(Raw(0u, t, base + iy[a] * sy + ix[b] * sx), t));
        if (!isinf(v)) largest = max(largest, v);
      }
    }
    const int k = largest > 0.0 ? 127 - max(int(floatBitsToUint(largest) >> 23), 1) : 0;
    float s = 0.0, comp = 0.0;
    for (uint a = 0u; a < 2u; ++a) {
      for (uint b = 0u; b < 2u; ++b) {
        const uint w = wy[a] * wx[b];
        if (w == 0u) continue;  // a zero weight leaves the term out (no Inf * 0)
        const float v = AsFloat(Raw(0u, t, base + iy[a] * sy + ix[b] * sx), t);
        AddProduct(ScaleB(v, k), float(w), s, comp);
      }
    }
    precise const float r = Finish(s, comp) / float(dy * dx);
    return FromFloat(ScaleB(r, -k), t);
  }
  int sum = 0;
  for (uint a = 0u; a < 2u; ++a) {
    for (uint b = 0u; b < 2u; ++b) {
      sum += AsInt(Raw(0u, t, base + iy[a] * sy + ix[b] * sx), t) * int(wy[a] * wx[b]);
    }
  }
  const int D = int(dy * dx);
  int q = sum >= 0 ? sum / D : -((-sum + D - 1) / D);  // floor
  const int r2 = 2 * (sum - q * D);
  if (r2 > D || (r2 == D && (q & 1) != 0)) q += 1;
  return uvec2(uint(q), 0u);
}

NNVK_TYPED_MAIN(Compute, p[NNVK_RESAMPLE_P_TYPE], p[NNVK_RESAMPLE_P_COUNT])
