// Bindings and float tensor access of the native arithmetic mode's shaders (gemm_tile.glsl,
// softmax_native.comp): binding 0 = uint params `p`, 1..3 = inputs, 4 = output, all as 32-bit
// words; float16 elements packed two to a word, computed in float32. Include after codes.h and
// common.glsl. Local size 64.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Params { uint p[]; };
layout(std430, set = 0, binding = 1) readonly buffer In0 { uint in0[]; };
layout(std430, set = 0, binding = 2) readonly buffer In1 { uint in1[]; };
layout(std430, set = 0, binding = 3) readonly buffer In2 { uint in2[]; };
// Not writeonly: float16 results are merged into their word with atomics (StoreOut).
layout(std430, set = 0, binding = 4) buffer Out { uint o[]; };

// Element e of input k (0..2) of type t (NNVK_F32 or NNVK_F16) as float32 (exact).
float LoadF(uint k, uint t, uint e) {
  const uint w = t == NNVK_F16 ? e >> 1 : e;
  const uint word = k == 0u ? in0[w] : (k == 1u ? in1[w] : in2[w]);
  if (t == NNVK_F16) return HalfToFloat(bitfieldExtract(word, int((e & 1u) * 16u), 16));
  return uintBitsToFloat(word);
}

// Writes element e of the output (type t). A float16 element shares its word with a neighbour
// that another invocation (or workgroup) may write: each clears and sets its own 16 bits with
// atomics, which commute with the neighbour's.
void StoreOut(uint t, uint e, float v) {
  if (t == NNVK_F16) {
    const uint shift = (e & 1u) * 16u;
    atomicAnd(o[e >> 1], ~(0xffffu << shift));
    atomicOr(o[e >> 1], FloatToHalf(v) << shift);
  } else {
    o[e] = floatBitsToUint(v);
  }
}

