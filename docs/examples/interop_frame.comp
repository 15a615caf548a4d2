// docs/examples/interop.cc: the "tensorization" shader. Writes frame `frame` of a synthetic video
// (8x8, a bright 4x4 square moving one pixel per frame over a dim background) into the rented
// tensor, packed as the explainer's array<f32>. Binding 1 is unused (one layout for both shaders).
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Tensor { float v[]; } tensor;
layout(std430, set = 0, binding = 1) buffer Unused { float v[]; } unused;
layout(push_constant) uniform Push { uint count; uint frame; } p;

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i >= p.count) return;
  const uint x = i % 8u, y = i / 8u;
  const bool inside = x >= p.frame && x < p.frame + 4u && y >= 2u && y < 6u;
  tensor.v[i] = inside ? 1.0 : 0.125 * float((x + y) % 3u);
}
