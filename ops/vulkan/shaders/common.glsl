// Shared GLSL of the vulkan backend's shaders: float16 conversions done in integer arithmetic
// (exact, round-to-nearest-even, subnormals kept, whatever the driver's float controls) and
// float32 functions precise enough for the operators' tolerances where lavapipe's builtins are not
// (../../../docs/vulkan.md "Precision": exp 16 ulp, log near 1 439 ulp, tanh near 0 3.3e4 ulp).
// The polynomials are truncated Taylor series of the reduced argument, written for this file.

#define kInf uintBitsToFloat(0x7f800000u)
#define kNaN uintBitsToFloat(0x7fc00000u)
const float kLn2Hi = 0.693145751953125;       // 16 significant bits: n * kLn2Hi is exact
const float kLn2Lo = 1.428606765330187e-06;   // ln 2 - kLn2Hi
const float kLog2e = 1.4426950408889634;

// float16 bits -> float32 (exact).
float HalfToFloat(uint h) {
  const uint sign = (h & 0x8000u) << 16;
  const uint e = (h >> 10) & 0x1fu;
  const uint m = h & 0x3ffu;
  if (e == 31u) return uintBitsToFloat(sign | 0x7f800000u | (m << 13));
  if (e == 0u) {
    // m * 2^-24: both exact in float32 and so is the product.
    return uintBitsToFloat(sign | floatBitsToUint(float(m) * 5.9604644775390625e-08));
  }
  return uintBitsToFloat(sign | ((e + 112u) << 23) | (m << 13));
}

// float32 -> float16 bits, rounded to nearest even (overflow to infinity, NaN stays NaN).
uint FloatToHalf(float f) {
  const uint x = floatBitsToUint(f);
  const uint sign = (x >> 16) & 0x8000u;
  const uint ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return sign | 0x7e00u | ((ax >> 13) & 0x3ffu);
  if (ax >= 0x477ff000u) return sign | 0x7c00u;  // >= 65520 rounds to infinity
  if (ax >= 0x38800000u) {                        // a normal float16 (>= 2^-14)
    const uint m = ax - 0x38000000u;              // exponent rebiased from 127 to 15
    return sign | ((m + 0x0fffu + ((m >> 13) & 1u)) >> 13);
  }
  const uint e = ax >> 23;
  if (e < 102u) return sign;  // below 2^-25: rounds to zero
  const uint mant = (ax & 0x7fffffu) | 0x800000u;
  const uint shift = 126u - e;  // value / 2^-24 = mant >> shift
  uint q = mant >> shift;
  const uint rem = mant & ((1u << shift) - 1u);
  const uint half_unit = 1u << (shift - 1u);
  if (rem > half_unit || (rem == half_unit && (q & 1u) != 0u)) q += 1u;
  return sign | q;
}

bool SignBit(float x) { return (floatBitsToUint(x) >> 31) != 0u; }

// p * 2^n with one rounding at most (two exact power-of-two scalings), n in [-252, 254].
float ScaleB(float p, int n) {
  const int n1 = n / 2;
  const int n2 = n - n1;
  precise const float result =
      p * uintBitsToFloat(uint(n1 + 127) << 23) * uintBitsToFloat(uint(n2 + 127) << 23);
  return result;
}

// e^r - 1 for |r| <= 0.35 (Taylor series to r^8: truncation below 1e-9 relative).
float Expm1Small(float r) {
  precise float q = 1.0 / 40320.0;
  q = q * r + 1.0 / 5040.0;
  q = q * r + 1.0 / 720.0;
  q = q * r + 1.0 / 120.0;
  q = q * r + 1.0 / 24.0;
  q = q * r + 1.0 / 6.0;
  q = q * r + 0.5;
  precise const float result = r + (r * r) * q;
  return result;
}

// e^x within about 2 ulp: x = n ln2 + r (Cody-Waite, |r| <= ln2 / 2), e^x = 2^n (1 + expm1(r)).
float Exp(float x) {
  if (isnan(x)) return x;
  if (x > 89.0) return kInf;
  if (x < -104.0) return 0.0;
  const float n = roundEven(x * kLog2e);
  precise const float r = (x - n * kLn2Hi) - n * kLn2Lo;
  precise const float p = 1.0 + Expm1Small(r);
  return ScaleB(p, int(n));
}

// e^x - 1 without the cancellation of Exp(x) - 1 near 0.
float Expm1(float x) {
  if (isnan(x)) return x;
  if (x > 20.0) return Exp(x);  // -1 is below half an ulp
  if (x < -18.0) return -1.0;   // e^x is below half an ulp of 1
  if (abs(x) <= 0.34) return Expm1Small(x);
  const float n = roundEven(x * kLog2e);
  precise const float r = (x - n * kLn2Hi) - n * kLn2Lo;
  const int k = int(n);
  const float two_k = ScaleB(1.0, k);
  // 2^k - 1 is exact for |k| <= 24; 2^k * expm1(r) is an exact scaling: one rounding in the sum.
  precise const float result = (two_k - 1.0) + two_k * Expm1Small(r);
  return result;
}

// The reduction of LogScaled and LogHiLo: x > 0 finite = 2^k (1 + f) with 1 + f in
// [sqrt(1/2), sqrt(2)) (f exact), s = f / (2 + f) and R = 2 s^2/3 + 2 s^4/5 + ... + 2 s^10/11, so
// that log(1 + f) = 2 atanh(s) = f - s (f - R).
void LogReduce(float x, out int k, out float f_out, out float s_out, out float r_out) {
  k = 0;
  if (x < 1.1754943508222875e-38) {  // subnormal: scale into the normal range (exact)
    x *= 16777216.0;
    k = -24;
  }
  const uint bits = floatBitsToUint(x);
  k += int(bits >> 23) - 127;
  float m = uintBitsToFloat((bits & 0x7fffffu) | 0x3f800000u);
  if (m > 1.4142135) {
    m *= 0.5;
    k += 1;
  }
  precise const float f = m - 1.0;
  precise const float s = f / (2.0 + f);
  precise const float z = s * s;
  precise float R = 2.0 / 11.0;
  R = R * z + 2.0 / 9.0;
  R = R * z + 2.0 / 7.0;
  R = R * z + 2.0 / 5.0;
  R = R * z + 2.0 / 3.0;
  R *= z;
  f_out = f;
  s_out = s;
  r_out = R;
}

// Natural logarithm within about 1 ulp: x = 2^k m, m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact),
// log(1 + f) = 2 atanh(s) with s = f / (2 + f), = f - s (f - R), R = 2 s^2/3 + 2 s^4/5 + ...
// LogScaled(x, j) = log(x 2^j), j folded into the exponent before the final sum (no cancellation
// between log x and j log 2).
float LogScaled(float x, int j) {
  if (isnan(x) || x < 0.0) return kNaN;
  if (x == 0.0) return -kInf;
  if (isinf(x)) return x;
  int k;
  float f, s, R;
  LogReduce(x, k, f, s, R);
  k += j;
  precise const float log_m = f - s * (f - R);
  const float fk = float(k);
  precise const float result = fk * kLn2Hi + (log_m + fk * kLn2Lo);
  return result;
}

float Log(float x) { return LogScaled(x, 0); }

// The native arithmetic mode's log (elementwise.comp, reduce_native.comp): the builtin, with
// subnormal inputs scaled by 2^24 first (lavapipe's builtin reads a subnormal's exponent field as
// if normal: log(1e-45) gave -88.03 instead of -103.28, case log.float32.special_values).
float NativeLog(float x) {
  if (x > 0.0 && x < uintBitsToFloat(0x00800000u)) return log(x * 16777216.0) - 16.635532333438686;
  return log(x);
}

// log(1 + y) for y > -1: log(u) for u = 1 + y rounded, plus the first-order correction for the
// rounding of u.
float Log1p(float y) {
  precise const float u = 1.0 + y;
  if (u == 1.0) return y;
  if (isinf(u)) return u;
  precise const float result = Log(u) + (y - (u - 1.0)) / u;
  return result;
}

// tanh(x) = -expm1(-2|x|) / (2 + expm1(-2|x|)) with the sign of x: no cancellation near 0.
float Tanh(float x) {
  const float ax = abs(x);
  if (isnan(x)) return x;
  if (ax < 2.44140625e-04) return x;  // x^3/3 is below half an ulp of x
  float t = 1.0;
  if (ax < 9.1) {
    const float e = Expm1(-2.0 * ax);
    precise const float q = -e / (2.0 + e);
    t = q;
  }
  return SignBit(x) ? -t : t;
}

// sin, cos and tan with an exact argument reduction (lavapipe's builtins are 1.4 ulp on
// [-20, 20] but lose every bit for large arguments: sin(1e30) came back as -1). |x| = m 2^E with
// m a 24-bit integer; x (2/pi) mod 4 is computed in integer arithmetic from a 96-bit window of the
// bits of 2/pi starting where the bits stop contributing multiples of 4 (Payne and Hanek), which
// gives the quadrant and a fraction f in [-1/2, 1/2) good to far beyond float32; the builtins then
// see only r = f pi/2 in [-pi/4, pi/4], where they are accurate.
const uint kTwoOverPi[8] = uint[8](0u, 0xA2F9836Eu, 0x4E441529u, 0xFC2757D1u, 0xF534DDC0u,
                                   0xDB629599u, 0x3C439041u, 0xFE5163ABu);

uint TwoOverPiWord(int g) {  // 32 bits of kTwoOverPi starting at bit g (0 = MSB of word 0)
  const int q = g >> 5, sh = g & 31;
  if (sh == 0) return kTwoOverPi[q];
  return (kTwoOverPi[q] << sh) | (kTwoOverPi[q + 1] >> (32 - sh));
}

// |x| = (q + f) pi/2 (mod 2 pi) with q in 0..3: returns r = f pi/2 and sets q.
float ReduceHalfPi(float ax, out uint q) {
  if (ax <= 0.78539816) {
    q = 0u;
    return ax;
  }
  const uint bits = floatBitsToUint(ax);
  const int E = int(bits >> 23) - 150;  // ax = m 2^E
  const uint m = (bits & 0x7fffffu) | 0x800000u;
  // Fractional bit i of 2/pi (i >= 1) is bit i + 31 of the table; start at i = E - 2.
  const int g = E - 2 + 31;
  const uint w0 = TwoOverPiWord(g), w1 = TwoOverPiWord(g + 32), w2 = TwoOverPiWord(g + 64);
  uint h0, l0, h1, l1, h2, l2;
  umulExtended(m, w0, h0, l0);
  umulExtended(m, w1, h1, l1);
  umulExtended(m, w2, h2, l2);
  uint c1, c2, c3;
  const uint p0 = l2;
  const uint p1 = uaddCarry(h2, l1, c1);
  uint p2 = uaddCarry(h1, l0, c2);
  p2 = uaddCarry(p2, c1, c3);
  // x (2/pi) = P 2^-93 with P = p3:p2:p1:p0; bits 93-94 are the quadrant, 0-92 the fraction.
  q = (p2 >> 29) & 3u;
  uint f2 = p2 & 0x1fffffffu, f1 = p1, f0 = p0;
  bool negative = false;
  if ((f2 & 0x10000000u) != 0u) {  // fraction >= 1/2: next quadrant, fraction - 1
    q = (q + 1u) & 3u;
    negative = true;
    uint b0, b1, b2;  // 2^93 - F
    f0 = usubBorrow(0u, f0, b0);
    f1 = usubBorrow(0u, f1, b1);
    f1 = usubBorrow(f1, b0, b2);
    f2 = (0x20000000u - f2 - b1 - b2) & 0x3fffffffu;
  }
  precise const float f = float(f2) * 1.862645149230957e-09 + float(f1) * 4.336808689942018e-19 +
                          float(f0) * 1.0097419586828951e-28;  // 2^-29, 2^-61, 2^-93
  precise const float r = f * 1.5707963267948966;
  return negative ? -r : r;
}

// sin (which = 0) or cos (which = 1) of x, or tan (which = 2).
float Trig(float x, uint which) {
  if (isnan(x) || isinf(x)) return kNaN;
  uint q;
  const float r = ReduceHalfPi(abs(x), q);
  const float s = sin(r), c = cos(r);
  // sin(|x|) and cos(|x|) by quadrant.
  float sin_x = (q == 0u) ? s : (q == 1u) ? c : (q == 2u) ? -s : -c;
  const float cos_x = (q == 0u) ? c : (q == 1u) ? -s : (q == 2u) ? -c : s;
  if (SignBit(x)) sin_x = -sin_x;
  if (which == 0u) return sin_x;
  if (which == 1u) return cos_x;
  return sin_x / cos_x;
}

// Error-free transformations (Dekker, Knuth), `precise` so that no driver fuses or reorders them.
// x = hi + lo exactly (Veltkamp's split with 2^12 + 1); |x| < 2^100.
void Split(float x, out float hi, out float lo) {
  precise const float t = 4097.0 * x;
  precise const float h = t - (t - x);
  hi = h;
  precise const float l = x - h;
  lo = l;
}

// The rounding error of the product x * y = p (exact when nothing overflows or underflows).
// Below |p| = 2^-100 the pieces' products fall under the float32 grid and Dekker's sum would be
// off by up to a subnormal spacing (fuzz seed 20022359: a compensated matmul 2 ulp off at 1e-40,
// where a plain float32 sum is within 1): the error is then computed for x 2^64 (exact: |x| <
// 2^50 when p is not 0) and scaled back, one rounding to the grid. A product that underflowed
// to 0 has an error below half the smallest subnormal: 0 on the grid.
float ProductError(float x, float y, float p) {
  if (isinf(p) || isnan(p) || abs(x) > 1e30 || abs(y) > 1e30) return 0.0;
  if (p == 0.0) return 0.0;
  const bool tiny = abs(p) < 7.88860905e-31;  // 2^-100
  precise const float xs = tiny ? x * 18446744073709551616.0 : x;  // 2^64
  precise const float ps = tiny ? p * 18446744073709551616.0 : p;
  float xh, xl, yh, yl;
  Split(xs, xh, xl);
  Split(y, yh, yl);
  precise const float e = ((xh * yh - ps) + xh * yl + xl * yh) + xl * yl;
  if (!tiny) return e;
  precise const float back = e * 5.42101086e-20;  // 2^-64
  return back;
}

// The rounding error of the sum a + b = s.
float SumError(float a, float b, float s) {
  if (isinf(s) || isnan(s)) return 0.0;
  precise const float z = s - a;
  precise const float e = (a - (s - z)) + (b - z);
  return e;
}

// a x + b with the product's and the sum's rounding errors carried into one final rounding
// (within an ulp of the exact result, where two float32 roundings can be far off when a x and b
// cancel), and without overflow in a x when the result is finite (scaled by 1/4 then).
float MulAdd(float a, float x, float b) {
  precise const float p = a * x;
  if (isinf(p) && !isinf(a) && !isinf(x)) {
    precise const float scaled = (a * 0.25) * x + b * 0.25;
    return scaled * 4.0;
  }
  precise const float s = p + b;
  precise const float c = SumError(p, b, s) + ProductError(a, x, p);
  if (c == 0.0) return s;  // keeps the sign of an exact zero
  precise const float r = s + c;
  return r;
}

// log(x) as hi + lo for x > 0 finite, to about 2^-30 relative (for pow).
void LogHiLo(float x, out float hi, out float lo) {
  int k;
  float f, s, R;
  LogReduce(x, k, f, s, R);
  // log(1 + f) = f - (f^2/2 - s (f^2/2 + R)): f^2/2 kept exactly as a double-float, so that only
  // s (f^2/2 + R), about f^3/3, carries a float32 rounding.
  precise const float ff = f * f;
  precise const float hf_hi = 0.5 * ff;
  precise const float hf_lo = 0.5 * ProductError(f, f, ff);
  precise const float corr = s * (hf_hi + R);
  const float fk = float(k);
  precise const float a = fk * kLn2Hi;  // exact
  precise const float h1 = a + f;
  precise const float h2 = h1 - hf_hi;
  hi = h2;
  precise const float l =
      SumError(a, f, h1) + SumError(h1, -hf_hi, h2) + ((corr - hf_lo) + fk * kLn2Lo);
  lo = l;
}

// e^(yh + yl) for |yl| <= ulp(yh).
float ExpHiLo(float yh, float yl) {
  if (isnan(yh)) return yh;
  if (yh > 89.0) return kInf;
  if (yh < -104.0) return 0.0;
  const float n = roundEven(yh * kLog2e);
  precise const float r = ((yh - n * kLn2Hi) - n * kLn2Lo) + yl;
  precise const float p = 1.0 + Expm1Small(r);
  return ScaleB(p, int(n));
}

// pow(a, b) (IEEE pow's special values), |a|^b as e^(b log|a|) with log in double-float: a
// float32 log would leave up to |b log a| 2^-24 relative error in the result (64 ulp near
// overflow), above the 32-ulp tolerance.
float PowF(float a, float b) {
  if (b == 0.0 || a == 1.0) return 1.0;
  if (isnan(a) || isnan(b)) return kNaN;
  if (b == 1.0) return a;
  const float ax = abs(a);
  if (isinf(b)) {
    if (ax == 1.0) return 1.0;
    return ((ax > 1.0) == (b > 0.0)) ? kInf : 0.0;
  }
  const bool integer = trunc(b) == b;
  const bool odd = integer && abs(b) < 16777216.0 && (int(abs(b)) & 1) == 1;
  if (SignBit(a) && !integer && ax != 0.0 && !isinf(a)) return kNaN;
  float r;
  if (ax == 0.0) {
    r = b > 0.0 ? 0.0 : kInf;
  } else if (isinf(ax)) {
    r = b > 0.0 ? kInf : 0.0;
  } else {
    float lh, ll;
    LogHiLo(ax, lh, ll);
    precise const float yh = b * lh;
    precise const float yl = ProductError(b, lh, yh) + b * ll;
    precise const float y = yh + yl;
    r = ExpHiLo(y, SumError(yh, yl, y));
  }
  return (SignBit(a) && odd) ? -r : r;
}

// Adds x * y to the unevaluated sum s + comp (compensated: the product's and the sum's rounding
// errors go into comp), as accurate as a float32 sum computed in twice the precision.
void AddProduct(float x, float y, inout float s, inout float comp) {
  precise const float prod = x * y;
  precise const float sum = s + prod;
  precise const float c = comp + (SumError(s, prod, sum) + ProductError(x, y, prod));
  s = sum;
  if (!isinf(sum) && !isnan(sum)) comp = c;
}

float Finish(float s, float comp) {
  if (comp == 0.0) return s;  // keeps the sign of an exact zero
  precise const float r = s + comp;
  return r;
}

// erfc(z) for z >= 0 with small relative error: t exp(-z^2 + P(t)), t = 1 / (1 + z/2), P the
// Chebyshev fit of Numerical Recipes' erfcc (fractional error below 1.2e-7), with -z^2 and the
// exponent carried as double-floats (z = zh + zl): z^2's rounding would otherwise cost z^2 2^-24
// relative (50 ulp at z = 10).
float ErfcPositive(float zh, float zl) {
  precise const float t = 1.0 / (1.0 + 0.5 * zh);
  precise float poly = 0.17087277;
  poly = poly * t - 0.82215223;
  poly = poly * t + 1.48851587;
  poly = poly * t - 1.13520398;
  poly = poly * t + 0.27886807;
  poly = poly * t - 0.18628806;
  poly = poly * t + 0.09678418;
  poly = poly * t + 0.37409196;
  poly = poly * t + 1.00002368;
  poly = poly * t - 1.26551223;
  precise const float z2 = zh * zh;
  precise const float z2l = ProductError(zh, zh, z2) + 2.0 * zh * zl;
  precise const float eh = poly - z2;
  precise const float el = SumError(poly, -z2, eh) - z2l;
  return t * ExpHiLo(eh, el);
}

// erf (§api-mlgraphbuilder-unary: erf) within the 2-ULP tolerance (the Abramowitz-Stegun 7.1.26
// polynomial is only 1.5e-7 absolute: 19 ulp at erf(0.1), 1e-9 for erf(1.4e-45)).
//  - |x| < 1: the Maclaurin series erf(x) = c x (1 + s Q(s)), c = 2 / sqrt(pi), s = x^2,
//    Q(s) = sum_{n >= 1} (-1)^n s^(n-1) / (n! (2n + 1)) to n = 11 (the next term is below
//    1e-10 relative); c x, s and the products are carried as double-floats and the correction
//    c x s Q(s) (at most a quarter of c x) added with its errors, so only Q's float32 Horner
//    error (a third of an ulp of the result) and the final rounding remain.
//  - 1 <= |x| < 4: 1 - erfc(|x|), erfc at most 0.16 with relative error 1.2e-7 (ErfcPositive):
//    below 0.4 ulp of the result before its rounding.
//  - |x| >= 4: erfc(4) = 1.5e-8 is below half an ulp under 1: the result is 1.
float Erf(float x) {
  if (isnan(x)) return x;
  const float ax = abs(x);
  float y = 1.0;
  if (ax < 1.0) {
    const float c_hi = 1.128379225730896;       // float(2 / sqrt(pi))
    const float c_lo = -5.863538343753305e-08;  // 2 / sqrt(pi) - c_hi
    precise const float s = ax * ax;
    precise float q = -1.0892221569136495e-09;
    q = q * s + 1.3122533282228233e-08;
    q = q * s - 1.4503852696634567e-07;
    q = q * s + 1.4589169268219848e-06;
    q = q * s - 1.3227513591118623e-05;
    q = q * s + 1.0683760774554685e-04;
    q = q * s - 7.575757335871458e-04;
    q = q * s + 4.629629664123058e-03;
    q = q * s - 2.380952425301075e-02;
    q = q * s + 0.10000000149011612;
    q = q * s - 0.3333333432674408;
    precise const float a = c_hi * ax;
    float a_err = c_lo * ax;
    if (ax > 1e-18) {  // ProductError's splits would underflow below (there s q is negligible)
      precise const float e = ProductError(c_hi, ax, a) + c_lo * ax;
      a_err = e;
    }
    // y = a + a s q with the roundings of s, s q, a (s q) and of the sum carried along.
    precise const float s_err = ProductError(ax, ax, s);
    precise const float p = s * q;
    precise const float p_err = ProductError(s, q, p) + s_err * q;
    precise const float r = a * p;
    precise const float r_err = ProductError(a, p, r) + (a * p_err + a_err * p);
    precise const float sum = a + r;
    precise const float total = sum + (SumError(a, r, sum) + r_err + a_err);
    y = total;
  } else if (ax < 4.0) {
    precise const float one_minus = 1.0 - ErfcPositive(ax, 0.0);
    y = one_minus;
  }
  return SignBit(x) ? -y : y;
}

// gelu(x) = x/2 (1 + erf(x / sqrt 2)) = x/2 erfc(-x / sqrt 2): no cancellation for negative x.
// z = -x / sqrt 2 is kept as a double-float (1/sqrt 2 in two parts, the product's error by
// Dekker's method); for x > 0, erfc(z) = 2 - erfc(-z).
float Gelu(float x) {
  if (isnan(x)) return x;
  if (isinf(x)) return x > 0.0 ? x : 0.0;
  const float c_hi = 0.70710676908493042;      // float(1 / sqrt 2)
  const float c_lo = 1.2101617041793133e-08;   // 1 / sqrt 2 - c_hi
  precise const float ph = -x * c_hi;
  precise const float pl = ProductError(-x, c_hi, ph) - x * c_lo;
  float e;
  if (ph >= 0.0) {
    e = ErfcPositive(ph, pl);
  } else {
    precise const float twominus = 2.0 - ErfcPositive(-ph, -pl);
    e = twominus;
  }
  precise const float y = (0.5 * x) * e;
  return y;
}
