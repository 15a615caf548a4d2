// Typed tensor access shared by the shaders that handle every data type (elementwise, pool2d):
// the five bindings as 32-bit words; 8- and 16-bit elements packed four or two to a word, 64-bit
// elements in two words; IVAL/UVAL are the integer arithmetic types (32-bit, or 64-bit with
// NNVK_INT64). Include after codes.h and common.glsl.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Params { uint p[]; };
layout(std430, set = 0, binding = 1) readonly buffer In0 { uint in0[]; };
layout(std430, set = 0, binding = 2) readonly buffer In1 { uint in1[]; };
layout(std430, set = 0, binding = 3) readonly buffer In2 { uint in2[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Out { uint o[]; };

uint Word(uint k, uint w) {
  if (k == 0u) return in0[w];
  if (k == 1u) return in1[w];
  return in2[w];
}

uint ElemSize(uint t) {
  if (t == NNVK_F16) return 2u;
  if (t == NNVK_I8 || t == NNVK_U8) return 1u;
  if (t == NNVK_I64 || t == NNVK_U64) return 8u;
  return 4u;
}

bool IsFloat(uint t) { return t == NNVK_F32 || t == NNVK_F16; }
bool IsUnsigned(uint t) { return t == NNVK_U32 || t == NNVK_U64 || t == NNVK_U8; }

// The bits of element e of input k (type t): low word, high word (64-bit types only).
uvec2 Raw(uint k, uint t, uint e) {
  const uint s = ElemSize(t);
  if (s == 8u) return uvec2(Word(k, 2u * e), Word(k, 2u * e + 1u));
  if (s == 4u) return uvec2(Word(k, e), 0u);
  if (s == 2u) return uvec2(bitfieldExtract(Word(k, e >> 1), int((e & 1u) * 16u), 16), 0u);
  return uvec2(bitfieldExtract(Word(k, e >> 2), int((e & 3u) * 8u), 8), 0u);
}

float AsFloat(uvec2 r, uint t) {
  return t == NNVK_F16 ? HalfToFloat(r.x) : uintBitsToFloat(r.x);
}

// Integer value: sign-extended for signed types, zero-extended for unsigned ones.
IVAL AsInt(uvec2 r, uint t) {
#ifdef NNVK_INT64
  if (t == NNVK_I64 || t == NNVK_U64) return int64_t(packUint2x32(r));
  if (t == NNVK_I32) return int64_t(int(r.x));
  if (t == NNVK_I8) return int64_t(bitfieldExtract(int(r.x), 0, 8));
  return int64_t(uint64_t(r.x));
#else
  if (t == NNVK_I8) return bitfieldExtract(int(r.x), 0, 8);
  return int(r.x);
#endif
}

uvec2 FromInt(IVAL v) {
#ifdef NNVK_INT64
  return unpackUint2x32(uint64_t(v));
#else
  return uvec2(uint(v), 0u);
#endif
}

uvec2 FromFloat(float f, uint t) {
  return uvec2(t == NNVK_F16 ? FloatToHalf(f) : floatBitsToUint(f), 0u);
}


// main(): every invocation writes whole output words (four 8-bit, two 16-bit, one 32-bit
// element, or one 64-bit element in two words); COMPUTE(e) gives the bits of element e.
#define NNVK_TYPED_MAIN(COMPUTE, OUT_T, COUNT)                                   \
  void main() {                                                                 \
    const uint count_ = (COUNT);                                                \
    const uint size_ = ElemSize(OUT_T);                                         \
    const uint per_ = size_ >= 4u ? 1u : 4u / size_;                            \
    const uint groups_ = (count_ + per_ - 1u) / per_;                           \
    const uint step_ = gl_NumWorkGroups.x * gl_WorkGroupSize.x;                 \
    for (uint g = gl_GlobalInvocationID.x; g < groups_; g += step_) {           \
      if (size_ == 8u) {                                                        \
        const uvec2 r_ = COMPUTE(g);                                            \
        o[2u * g] = r_.x;                                                       \
        o[2u * g + 1u] = r_.y;                                                  \
      } else if (size_ == 4u) {                                                 \
        o[g] = COMPUTE(g).x;                                                    \
      } else {                                                                  \
        uint w_ = 0u;                                                           \
        const uint mask_ = size_ == 2u ? 0xffffu : 0xffu;                       \
        for (uint j = 0u; j < per_; ++j) {                                      \
          const uint e_ = g * per_ + j;                                         \
          if (e_ < count_) w_ |= (COMPUTE(e_).x & mask_) << (j * size_ * 8u);   \
        }                                                                       \
        o[g] = w_;                                                              \
      }                                                                         \
    }                                                                           \
  }
