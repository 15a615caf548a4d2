// docs/examples/interop.cc: the "texturize and render" shader. Reads the rented output tensor (the
// segmentation mask) and composites it into the application's screen buffer: screen = 2 * mask
// (exact, so the example can check every pixel).
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Mask { float v[]; } mask;
layout(std430, set = 0, binding = 1) buffer Screen { float v[]; } screen;
layout(push_constant) uniform Push { uint count; uint frame; } p;

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i >= p.count) return;
  screen.v[i] = 2.0 * mask.v[i];
}
