// Bindings and float tensor access shared by the float-only shaders (matmul, conv2d, ...):
// binding 0 = uint params, 1..3 = inputs, 4 = output, all as 32-bit words; float16 elements are
// packed two to a word and computed in float32. Include after common.glsl.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Params { uint p[]; };
layout(std430, set = 0, binding = 1) readonly buffer In0 { uint in0[]; };
layout(std430, set = 0, binding = 2) readonly buffer In1 { uint in1[]; };
layout(std430, set = 0, binding = 3) readonly buffer In2 { uint in2[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Out { uint o[]; };

// Element e of input k (0..2) of type t (NNVK_F32 or NNVK_F16) as float32 (exact).
float Load(uint k, uint t, uint e) {
  const uint w = t == NNVK_F16 ? e >> 1 : e;
  const uint word = k == 0u ? in0[w] : (k == 1u ? in1[w] : in2[w]);
  if (t == NNVK_F16) return HalfToFloat(bitfieldExtract(word, int((e & 1u) * 16u), 16));
  return uintBitsToFloat(word);
}

// main(): every invocation writes whole output words: `count` elements of type t, element e
// computed by COMPUTE(e).
#define NNVK_FLOAT_MAIN(COMPUTE, T, COUNT)                                      \
  void main() {                                                                \
    const uint t_ = (T), count_ = (COUNT);                                     \
    const uint per_ = t_ == NNVK_F16 ? 2u : 1u;                                \
    const uint groups_ = (count_ + per_ - 1u) / per_;                          \
    const uint step_ = gl_NumWorkGroups.x * gl_WorkGroupSize.x;                \
    for (uint g = gl_GlobalInvocationID.x; g < groups_; g += step_) {          \
      if (per_ == 1u) {                                                        \
        o[g] = floatBitsToUint(COMPUTE(g));                                    \
      } else {                                                                 \
        uint w = FloatToHalf(COMPUTE(2u * g));                                 \
        if (2u * g + 1u < count_) w |= FloatToHalf(COMPUTE(2u * g + 1u)) << 16; \
        o[g] = w;                                                              \
      }                                                                        \
    }                                                                          \
  }
