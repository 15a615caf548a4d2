// Element-wise operators of the vulkan backend: binary (§api-mlgraphbuilder-binary), unary
// (§api-mlgraphbuilder-unary), logical (§api-mlgraphbuilder-logical), cast, clamp, where and the
// element-wise activations. One shader for every data type: tensors are bound as arrays of 32-bit
// words; 8- and 16-bit elements are packed four or two to a word (each invocation writes whole
// words, so no 8/16-bit storage feature is needed) and 64-bit elements take two words. Floats are
// computed in float32 (float16 converted exactly on load, rounded to nearest even on store);
// integers in 32-bit arithmetic, or 64-bit with NNVK_INT64 (the variant for int64/uint64, which
// needs shaderInt64). Inputs are dense in their own shape; broadcasting is a stride of 0.
#version 450
#extension GL_GOOGLE_include_directive : require
#ifdef NNVK_INT64
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#define IVAL int64_t
#define UVAL uint64_t
#else
#define IVAL int
#define UVAL uint
#endif
#ifdef NNVK_FLOAT16
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif

#include "codes.h"
#include "params.h"
#include "common.glsl"

#include "typed_io.glsl"

float IntToFloat(IVAL v, uint t) { return IsUnsigned(t) ? float(UVAL(v)) : float(v); }

// float -> integer type t: truncation toward zero, saturating, NaN -> 0 (the spec leaves
// out-of-range values open; the reference marks them).
uvec2 FloatToInt(float f, uint t) {
  if (isnan(f)) return uvec2(0u);
  f = trunc(f);
  float lo, hi;
  IVAL vlo, vhi;
  if (t == NNVK_I8) {
    lo = -128.0; hi = 127.0; vlo = IVAL(-128); vhi = IVAL(127);
  } else if (t == NNVK_U8) {
    lo = 0.0; hi = 255.0; vlo = IVAL(0); vhi = IVAL(255);
  } else if (t == NNVK_I32) {
    lo = -2147483648.0; hi = 2147483648.0; vlo = IVAL(int(0x80000000u)); vhi = IVAL(0x7fffffff);
  } else if (t == NNVK_U32) {
    lo = 0.0; hi = 4294967296.0; vlo = IVAL(0); vhi = IVAL(UVAL(0xffffffffu));
#ifdef NNVK_INT64
  } else if (t == NNVK_I64) {
    lo = -9223372036854775808.0; hi = 9223372036854775808.0;
    vlo = int64_t(0x8000000000000000ul); vhi = int64_t(0x7ffffffffffffffful);
  } else {
    lo = 0.0; hi = 18446744073709551616.0; vlo = int64_t(0); vhi = int64_t(0xfffffffffffffffful);
#else
  } else {
    return uvec2(0u);
#endif
  }
  if (f <= lo) return FromInt(vlo);
  if (f >= hi) return FromInt(vhi);
  if (f > 0.0 && IsUnsigned(t)) return FromInt(IVAL(UVAL(f)));
  return FromInt(IVAL(f));
}

#ifdef NNVK_INT64
// quantizeLinear (§api-mlgraphbuilder-quantizelinear): saturate(roundEven(x / scale) + zeroPoint)
// to the output type, rounding the exact quotient: q = x / scale is correctly rounded, so only a
// q exactly halfway between integers can hide which side the exact quotient lies on; the sign of
// x - q scale (exact by Dekker's product) tells. NaN gives 0 (open; the reference marks it).
uvec2 Quantize(float x, float scale, int64_t zp, uint out_t) {
  precise const float q = x / scale;
  if (isnan(q)) return uvec2(0u);
  float r = roundEven(q);
  if (abs(q - trunc(q)) == 0.5) {
    precise const float prod = q * scale;
    precise const float rem = (x - prod) - ProductError(q, scale, prod);  // x - q scale, exact
    const float side = scale > 0.0 ? rem : -rem;  // the sign of (exact quotient - q)
    if (side > 0.0) r = floor(q) + 1.0;
    if (side < 0.0) r = floor(q);
  }
  int64_t lo, hi;
  if (out_t == NNVK_I8) {
    lo = -128l; hi = 127l;
  } else if (out_t == NNVK_U8) {
    lo = 0l; hi = 255l;
  } else if (out_t == NNVK_I32) {
    lo = -2147483648l; hi = 2147483647l;
  } else {
    lo = 0l; hi = 4294967295l;
  }
  // |r| beyond 2^40 saturates whatever the zero point (|zeroPoint| < 2^32).
  r = clamp(r, -1099511627776.0, 1099511627776.0);
  return FromInt(clamp(int64_t(r) + zp, lo, hi));
}
#endif

float BinaryF(uint op, float a, float b) {
  switch (op) {
    case NNVK_ADD: return a + b;
    case NNVK_SUB: return a - b;
    case NNVK_MUL: return a * b;
    case NNVK_DIV: return a / b;
    case NNVK_MAX:
    case NNVK_MIN: {
      if (isnan(a)) return a;
      if (isnan(b)) return b;
      const bool want_max = op == NNVK_MAX;
      if (a == b) return SignBit(a) == want_max ? b : a;  // max(-0, +0) = +0, min = -0
      return (a > b) == want_max ? a : b;
    }
    case NNVK_POW: return PowF(a, b);
    case NNVK_PRELU: return a >= 0.0 ? a : a * b;
  }
  return a;
}

IVAL BinaryI(uint op, IVAL a, IVAL b, bool uns) {
  switch (op) {
    case NNVK_ADD: return a + b;
    case NNVK_SUB: return a - b;
    case NNVK_MUL: return a * b;
    case NNVK_DIV:
      // Division by zero gives 0 and the overflowing quotient (min / -1) wraps: the spec leaves
      // both open, and the guard keeps the hardware's trap out of it.
      if (b == IVAL(0)) return IVAL(0);
      if (uns) return IVAL(UVAL(a) / UVAL(b));
      if (b == IVAL(-1)) return -a;
      return a / b;
    case NNVK_MAX: return (uns ? UVAL(a) > UVAL(b) : a > b) ? a : b;
    case NNVK_MIN: return (uns ? UVAL(a) < UVAL(b) : a < b) ? a : b;
    case NNVK_PRELU: return (uns || a >= IVAL(0)) ? a : a * b;
    case NNVK_POW: {
      if (!uns && b < IVAL(0)) {  // 1 / a^|b| truncated: nonzero only for |a| == 1
        if (a == IVAL(1)) return IVAL(1);
        if (a == IVAL(-1)) return (b & IVAL(1)) == IVAL(0) ? IVAL(1) : IVAL(-1);
        return IVAL(0);
      }
      UVAL result = UVAL(1), base = UVAL(a);
      for (UVAL e = UVAL(b); e != UVAL(0); e >>= 1) {  // wrapping square-and-multiply
        if ((e & UVAL(1)) != UVAL(0)) result *= base;
        base *= base;
      }
      return IVAL(result);
    }
  }
  return a;
}

#ifdef NNVK_FLOAT16
// The native mode's float16 variant (a device with shaderFloat16): float16 operands to a float16
// result are computed in float16_t by the operators below, as a production GPU backend's float16
// kernels do: the arithmetic (add, sub, mul, div, max, min, prelu; abs, neg, sqrt, reciprocal,
// ceil, floor, roundEven, sign, identity, relu), clamp, and the activations made of it (linear
// as one fma and leakyRelu, with alpha and beta cast to float16 as the spec's builder steps do;
// hardSwish, softsign), every operation rounded to float16. The functions (exp, log, tanh, erf, the trigonometric ones, pow and the
// activations built on them) keep the float32 path: their float16 builtins are no more accurate
// than float32 ones rounded.
float16_t Half(uint bits) { return unpackFloat2x16(bits & 0xffffu).x; }
uint HalfBits(float16_t h) { return packFloat2x16(f16vec2(h, float16_t(0.0))) & 0xffffu; }

bool HalfArithmetic(uint kind, uint op) {
  if (kind == NNVK_KIND_CLAMP) return true;
  if (kind == NNVK_KIND_BINARY) return op != NNVK_POW;
  if (kind != NNVK_KIND_UNARY) return false;
  switch (op) {
    case NNVK_ABS: case NNVK_CEIL: case NNVK_FLOOR: case NNVK_IDENTITY: case NNVK_NEG:
    case NNVK_RECIPROCAL: case NNVK_ROUND_EVEN: case NNVK_SIGN: case NNVK_SQRT:
    case NNVK_HARD_SWISH: case NNVK_LEAKY_RELU: case NNVK_RELU: case NNVK_SOFTSIGN:
    case NNVK_LINEAR:
      return true;
  }
  return false;
}

float16_t BinaryH(uint op, float16_t a, float16_t b) {
  switch (op) {
    case NNVK_ADD: return a + b;
    case NNVK_SUB: return a - b;
    case NNVK_MUL: return a * b;
    case NNVK_DIV: return a / b;
    case NNVK_MAX:
    case NNVK_MIN: {
      if (isnan(a)) return a;
      if (isnan(b)) return b;
      const bool want_max = op == NNVK_MAX;
      if (a == b) return (HalfBits(a) >= 0x8000u) == want_max ? b : a;  // max(-0, +0) = +0
      return (a > b) == want_max ? a : b;
    }
    case NNVK_PRELU: return a >= float16_t(0.0) ? a : a * b;
  }
  return a;
}

float16_t UnaryH(uint op, float16_t x, float16_t alpha, float16_t beta) {
  const float16_t zero = float16_t(0.0), one = float16_t(1.0);
  switch (op) {
    case NNVK_ABS: return abs(x);
    case NNVK_CEIL: return ceil(x);
    case NNVK_FLOOR: return floor(x);
    case NNVK_IDENTITY: return x;
    case NNVK_NEG: return -x;
    case NNVK_RECIPROCAL: return one / x;
    case NNVK_ROUND_EVEN: return roundEven(x);
    case NNVK_SIGN: return x > zero ? one : (x < zero ? -one : x);
    case NNVK_SQRT: return sqrt(x);
    case NNVK_HARD_SWISH:
      return x * (min(max(x + float16_t(3.0), zero), float16_t(6.0)) / float16_t(6.0));
    case NNVK_LEAKY_RELU: return x >= zero ? x : alpha * x;
    case NNVK_RELU: return x > zero ? x : (isnan(x) ? x : zero);
    case NNVK_SOFTSIGN: return x / (one + abs(x));
    // A GPU's fused float16 fma (alpha x not rounded, so it cannot overflow alone: case
    // linear.float16.intermediate_overflow, 2 x 60000 - 64992), written with float32 operations:
    // lavapipe's float16 fma() rounds the product to float16 (Infinity there). The product of
    // two halves is exact in float32; the sum rounds in float32, then to float16.
    case NNVK_LINEAR: return float16_t(float(alpha) * float(x) + float(beta));
  }
  return x;
}
#endif

float UnaryF(uint op, float x, float alpha, float beta) {
  switch (op) {
    case NNVK_ABS: return abs(x);
    case NNVK_CEIL: return ceil(x);
    case NNVK_COS: return Trig(x, 1u);
    case NNVK_ERF: return Erf(x);
    // exp and tanh keep the precise forms in the native arithmetic mode too: lavapipe's builtins
    // leave their tolerances (exp: 63 ULP at |x| near 44 and 88, and subnormal results flushed,
    // against 32; tanh: 3.3e4 ULP near 0, against 16; docs/vulkan.md#arithmetic-modes).
    case NNVK_EXP: return Exp(x);
    case NNVK_FLOOR: return floor(x);
    case NNVK_IDENTITY: return x;
    // The native mode's log: the builtin (3 ULP, or 2^-21 absolute near x = 1, its tolerance).
    case NNVK_LOG: return p[NNVK_P_NATIVE] != 0u ? NativeLog(x) : Log(x);
    case NNVK_NEG: return -x;
    case NNVK_RECIPROCAL: return 1.0 / x;
    case NNVK_ROUND_EVEN: return roundEven(x);
    case NNVK_SIN: return Trig(x, 0u);
    case NNVK_SIGN: return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : x);
    case NNVK_SQRT: return sqrt(x);
    case NNVK_TAN: return Trig(x, 2u);
    case NNVK_ELU: return x > 0.0 ? x : alpha * Expm1(x);
    case NNVK_GELU: return Gelu(x);
    case NNVK_HARD_SIGMOID: {
      const float y = MulAdd(alpha, x, beta);
      return isnan(y) ? y : (y > 1.0 ? 1.0 : (y < 0.0 ? 0.0 : y));
    }
    case NNVK_HARD_SWISH: return x * (min(max(x + 3.0, 0.0), 6.0) / 6.0);
    case NNVK_LEAKY_RELU: return x >= 0.0 ? x : alpha * x;
    case NNVK_RELU: return x > 0.0 ? x : (isnan(x) ? x : 0.0);
    case NNVK_SIGMOID: {
      if (x >= 0.0) return 1.0 / (1.0 + Exp(-x));
      const float e = Exp(x);
      return e / (1.0 + e);
    }
    case NNVK_SOFTPLUS: return max(x, 0.0) + Log1p(Exp(-abs(x)));
    case NNVK_SOFTSIGN: return x / (1.0 + abs(x));
    case NNVK_TANH: return Tanh(x);
    case NNVK_LINEAR: return MulAdd(alpha, x, beta);
  }
  return x;
}

IVAL UnaryI(uint op, IVAL x, bool uns) {
  switch (op) {
    case NNVK_ABS: return (!uns && x < IVAL(0)) ? -x : x;
    case NNVK_NEG: return -x;
    case NNVK_SIGN: return uns ? IVAL(x != IVAL(0)) : IVAL(x > IVAL(0)) - IVAL(x < IVAL(0));
    case NNVK_RELU: return (!uns && x < IVAL(0)) ? IVAL(0) : x;
  }
  return x;  // identity
}

uint Logical(uint op, uvec2 ra, uvec2 rb, uint t) {
  if (op == NNVK_IS_NAN) return IsFloat(t) && isnan(AsFloat(ra, t)) ? 1u : 0u;
  if (op == NNVK_IS_INFINITE) return IsFloat(t) && isinf(AsFloat(ra, t)) ? 1u : 0u;
  bool eq, gt, a_true, b_true;
  if (IsFloat(t)) {
    const float a = AsFloat(ra, t), b = AsFloat(rb, t);
    eq = a == b;
    gt = a > b;
    a_true = a != 0.0;
    b_true = b != 0.0;
    // With a NaN, every ordered comparison and equal are false, notEqual true.
    if (isnan(a) || isnan(b)) {
      if (op == NNVK_NOT_EQUAL) return 1u;
      if (op <= NNVK_LESSER_OR_EQUAL) return 0u;
    }
  } else {
    const IVAL a = AsInt(ra, t), b = AsInt(rb, t);
    eq = a == b;
    gt = IsUnsigned(t) ? UVAL(a) > UVAL(b) : a > b;
    a_true = a != IVAL(0);
    b_true = b != IVAL(0);
  }
  switch (op) {
    case NNVK_EQUAL: return eq ? 1u : 0u;
    case NNVK_NOT_EQUAL: return eq ? 0u : 1u;
    case NNVK_GREATER: return gt ? 1u : 0u;
    case NNVK_GREATER_OR_EQUAL: return (gt || eq) ? 1u : 0u;
    case NNVK_LESSER: return (!gt && !eq) ? 1u : 0u;
    case NNVK_LESSER_OR_EQUAL: return gt ? 0u : 1u;
    case NNVK_LOGICAL_NOT: return a_true ? 0u : 1u;
    case NNVK_LOGICAL_AND: return (a_true && b_true) ? 1u : 0u;
    case NNVK_LOGICAL_OR: return (a_true || b_true) ? 1u : 0u;
    case NNVK_LOGICAL_XOR: return (a_true != b_true) ? 1u : 0u;
  }
  return 0u;
}

// Specialization constants: the operator's kind and code, so that the driver compiles only that
// operator's code, or NNVK_SPEC_GENERIC (the default): read from the parameters, one pipeline for
// every operator. elementwise.cc specializes for large tensors only: the generic pipeline runs at
// about 1 us per element on lavapipe (every operator in one function), a specialized one is
// about fifteen times faster but costs its own JIT compilation (a few hundred ms).
layout(constant_id = 0) const uint kSpecKind = NNVK_SPEC_GENERIC;
layout(constant_id = 1) const uint kSpecOp = NNVK_SPEC_GENERIC;

// The bits of output element e.
uvec2 Compute(uint e) {
  const uint rank = p[NNVK_P_RANK];
  uint off0 = 0u, off1 = 0u, off2 = 0u, rem = e;
  for (int d = int(rank) - 1; d >= 0; --d) {
    const uint n = p[NNVK_P_SHAPE + uint(d)];
    const uint c = rem % n;
    rem /= n;
    off0 += (c / p[NNVK_P_SHAPE + 4u * rank + uint(d)]) * p[NNVK_P_SHAPE + rank + uint(d)];
    off1 += (c / p[NNVK_P_SHAPE + 5u * rank + uint(d)]) * p[NNVK_P_SHAPE + 2u * rank + uint(d)];
    off2 += (c / p[NNVK_P_SHAPE + 6u * rank + uint(d)]) * p[NNVK_P_SHAPE + 3u * rank + uint(d)];
  }
  const uint kind = kSpecKind == NNVK_SPEC_GENERIC ? p[NNVK_P_KIND] : kSpecKind;
  const uint op = kSpecOp == NNVK_SPEC_GENERIC ? p[NNVK_P_CODE] : kSpecOp;
  const uint out_t = p[NNVK_P_OUT_TYPE], t = p[NNVK_P_IN_TYPE];
  const float alpha = uintBitsToFloat(p[NNVK_P_ALPHA]), beta = uintBitsToFloat(p[NNVK_P_BETA]);
  if (kind == NNVK_KIND_WHERE) {
    const bool cond = Raw(0u, NNVK_U8, off0).x != 0u;
    return cond ? Raw(1u, out_t, off1) : Raw(2u, out_t, off2);
  }
  const uvec2 ra = Raw(0u, t, off0);
#ifdef NNVK_INT64
  if (kind == NNVK_KIND_QUANTIZE || kind == NNVK_KIND_DEQUANTIZE) {
    const float scale = AsFloat(Raw(1u, p[NNVK_P_IN_TYPE + 1u], off1), p[NNVK_P_IN_TYPE + 1u]);
    const uint zt = p[NNVK_P_IN_TYPE + 2u];
    const int64_t zp = AsInt(Raw(2u, zt, off2), zt);
    if (kind == NNVK_KIND_DEQUANTIZE) {
      // (x - zeroPoint) exact in 64 bits, converted (exact for 8-bit inputs), times scale.
      precise const float y = float(AsInt(ra, t) - zp) * scale;
      return FromFloat(y, out_t);
    }
    return Quantize(AsFloat(ra, t), scale, zp, out_t);
  }
#endif
  if (kind == NNVK_KIND_LOGICAL) {
    const uvec2 rb = (op == NNVK_LOGICAL_NOT || op >= NNVK_IS_NAN) ? uvec2(0u)
                                                                   : Raw(1u, t, off1);
    return uvec2(Logical(op, ra, rb, t), 0u);
  }
  if (kind == NNVK_KIND_CAST) {
    if (IsFloat(t)) {
      const float f = AsFloat(ra, t);
      return IsFloat(out_t) ? FromFloat(f, out_t) : FloatToInt(f, out_t);
    }
    const IVAL v = AsInt(ra, t);
    return IsFloat(out_t) ? FromFloat(IntToFloat(v, t), out_t) : FromInt(v);
  }
#ifdef NNVK_FLOAT16
  if (t == NNVK_F16 && out_t == NNVK_F16 && HalfArithmetic(kind, op)) {
    const float16_t a = Half(ra.x);
    float16_t r;
    if (kind == NNVK_KIND_BINARY) {
      r = BinaryH(op, a, Half(Raw(1u, t, off1).x));
    } else if (kind == NNVK_KIND_CLAMP) {
      const float16_t lo = Half(p[NNVK_P_MIN]), hi = Half(p[NNVK_P_MAX]);
      r = a < lo ? lo : a;
      r = r > hi ? hi : r;
    } else {
      r = UnaryH(op, a, float16_t(alpha), float16_t(beta));
    }
    return uvec2(HalfBits(r), 0u);
  }
#endif
  if (IsFloat(t)) {
    const float a = AsFloat(ra, t);
    float r;
    if (kind == NNVK_KIND_BINARY) {
      r = BinaryF(op, a, AsFloat(Raw(1u, t, off1), t));
    } else if (kind == NNVK_KIND_CLAMP) {
      const float lo = AsFloat(uvec2(p[NNVK_P_MIN], p[NNVK_P_MIN + 1]), t);
      const float hi = AsFloat(uvec2(p[NNVK_P_MAX], p[NNVK_P_MAX + 1]), t);
      r = a < lo ? lo : a;
      r = r > hi ? hi : r;
    } else {
      r = UnaryF(op, a, alpha, beta);
    }
    return FromFloat(r, out_t);
  }
  const bool uns = IsUnsigned(t);
  const IVAL a = AsInt(ra, t);
  IVAL r;
  if (kind == NNVK_KIND_BINARY) {
    r = BinaryI(op, a, AsInt(Raw(1u, t, off1), t), uns);
  } else if (kind == NNVK_KIND_CLAMP) {
    const IVAL lo = AsInt(uvec2(p[NNVK_P_MIN], p[NNVK_P_MIN + 1]), t);
    const IVAL hi = AsInt(uvec2(p[NNVK_P_MAX], p[NNVK_P_MAX + 1]), t);
    r = (uns ? UVAL(a) < UVAL(lo) : a < lo) ? lo : a;
    r = (uns ? UVAL(r) > UVAL(hi) : r > hi) ? hi : r;
  } else {
    r = UnaryI(op, a, uns);
  }
  return FromInt(r);
}

NNVK_TYPED_MAIN(Compute, p[NNVK_P_OUT_TYPE], p[NNVK_P_COUNT])
