// Numerics for the independent case generator.
//
// Element values are held as JS doubles for float32/float16 (the double is exactly the float value) and as
// BigInt for every integer type. Nothing here reads or mirrors the C++ code; every rounding is written out.

export const DTYPES = ['float32', 'float16', 'int32', 'uint32', 'int64', 'uint64', 'int8', 'uint8'];
export const FLOAT_TYPES = ['float32', 'float16'];
export const INT_TYPES = ['int32', 'uint32', 'int64', 'uint64', 'int8', 'uint8'];

const INT_INFO = {
  int8: { bits: 8, signed: true },
  uint8: { bits: 8, signed: false },
  int32: { bits: 32, signed: true },
  uint32: { bits: 32, signed: false },
  int64: { bits: 64, signed: true },
  uint64: { bits: 64, signed: false },
};

export const isFloat = (t) => t === 'float32' || t === 'float16';
export const isInt = (t) => t in INT_INFO;
export const isSigned = (t) => isFloat(t) || INT_INFO[t].signed;
export const intBits = (t) => INT_INFO[t].bits;

export function checkType(t) {
  if (!DTYPES.includes(t)) throw new Error(`unknown data type ${t}`);
}

// ---------------------------------------------------------------------------------------------------------
// Integer types: exact BigInt ranges and two's-complement wrapping.

export function intRange(t) {
  const { bits, signed } = INT_INFO[t];
  const b = BigInt(bits);
  return signed ? [-(1n << (b - 1n)), (1n << (b - 1n)) - 1n] : [0n, (1n << b) - 1n];
}
export const intMin = (t) => intRange(t)[0];
export const intMax = (t) => intRange(t)[1];

export function inIntRange(t, v) {
  const [lo, hi] = intRange(t);
  return v >= lo && v <= hi;
}

// Lowest N bits, reinterpreted (two's complement for signed types).
export function wrapInt(t, v) {
  const { bits, signed } = INT_INFO[t];
  return signed ? BigInt.asIntN(bits, v) : BigInt.asUintN(bits, v);
}

// ---------------------------------------------------------------------------------------------------------
// Exact double bit access.

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

export function doubleBits(x) {
  f64[0] = x;
  return u64[0];
}
export function doubleFromBits(b) {
  u64[0] = BigInt.asUintN(64, b);
  return f64[0];
}

// 2^k as an exact double, built from bits (k in [-1074, 1023]).
export function pow2(k) {
  if (!Number.isInteger(k) || k < -1074 || k > 1023) throw new Error(`pow2 out of range: ${k}`);
  if (k >= -1022) return doubleFromBits(BigInt(k + 1023) << 52n);
  return doubleFromBits(1n << BigInt(k + 1074));
}

// floor(log2(a)) for a finite a > 0, exactly.
export function exponentOf(a) {
  const b = doubleBits(a);
  const e = Number((b >> 52n) & 0x7ffn);
  if (e !== 0) return e - 1023;
  const m = b & ((1n << 52n) - 1n);
  return -1074 + m.toString(2).length - 1;
}

// Round half to even to an integer, for a finite double (exact).
export function roundHalfEvenDouble(x) {
  if (!Number.isFinite(x)) return x;
  const fl = Math.floor(x);
  const frac = x - fl; // exact: x and fl share an exponent range, the difference is representable
  let r;
  if (frac > 0.5) r = fl + 1;
  else if (frac < 0.5) r = fl;
  else r = fl % 2 === 0 ? fl : fl + 1;
  if (r === 0 && (x < 0 || Object.is(x, -0))) return -0;
  return r;
}

// ---------------------------------------------------------------------------------------------------------
// Binary floating-point formats. p = precision in bits (incl. the implicit bit), emin = minimum normal
// exponent, emax = maximum exponent.

export const FORMATS = {
  float16: { p: 11, emin: -14, emax: 15 },
  float32: { p: 24, emin: -126, emax: 127 },
};

export function maxFinite(t) {
  const { p, emax } = FORMATS[t];
  return (2 - pow2(1 - p)) * pow2(emax);
}
export function minSubnormal(t) {
  const { p, emin } = FORMATS[t];
  return pow2(emin - (p - 1));
}

// Round a double to the nearest value of the format, ties to even, with overflow to +-Infinity (a value
// that rounds, with unbounded exponent, to more than the largest finite value becomes Infinity; this equals
// the spec's ConvertToFloat with its 2^16 / 2^128 bounds). Keeps the sign of zero and underflow.
export function roundToFormat(x, t) {
  const fmt = FORMATS[t];
  if (Number.isNaN(x)) return NaN;
  if (x === 0 || !Number.isFinite(x)) return x;
  const a = Math.abs(x);
  const e = exponentOf(a);
  const qe = Math.max(e, fmt.emin) - (fmt.p - 1); // exponent of one unit in the last place
  const r = a / pow2(qe); // exact (power-of-two scaling, result < 2^p)
  const n = roundHalfEvenDouble(r);
  let y = n * pow2(qe); // exact
  if (y > maxFinite(t)) y = Infinity;
  return x < 0 ? -y : y;
}

export const roundF16 = (x) => roundToFormat(x, 'float16');

// roundF16 without BigInt, for the float16 accumulation orders of models_eval.mjs (hundreds of millions of
// calls): the same value for every double (models_selftest.mjs compares the two on ties, subnormals, the overflow
// threshold and a million random doubles). The exponent e of |x| is read from its bits; adding and subtracting
// C = 2^(e + 42) rounds |x| (in [2^e, 2^(e+1))) to a multiple of 2^(e - 10), eleven significant bits, by the
// double addition's round-half-even; below 2^-14 the multiple is of 2^-24 (float16's subnormal spacing).
const f16scratch = new Float64Array(1);
const f16hi = new Uint32Array(f16scratch.buffer, 4, 1); // little-endian: the high word holds the exponent
const f16c = Float64Array.from({ length: 16 + 15 }, (_, i) => 2 ** (i - 15 + 42)); // C for e = -15 .. 15
export function roundF16Fast(x) {
  const a = Math.abs(x);
  if (!(a < 65520)) return Number.isNaN(x) ? NaN : x < 0 ? -Infinity : Infinity; // 65520: halfway to 2^16
  let y;
  if (a < 6.103515625e-5) {
    // subnormal range: a * 2^24 < 2^10, and adding 2^52 rounds it to an integer, half to even
    y = ((a * 16777216 + 4503599627370496) - 4503599627370496) / 16777216;
  } else {
    f16scratch[0] = a;
    const e = (f16hi[0] >>> 20) - 1023;
    const c = f16c[e + 15];
    y = (a + c) - c;
  }
  return x < 0 || (x === 0 && 1 / x < 0) ? -y : y;
}

// Round a double to the given float type. float32 uses Math.fround (IEEE RNE); the self-test checks that
// roundToFormat(x, 'float32') agrees with it.
export function roundTo(t, x) {
  if (t === 'float32') return Math.fround(x);
  if (t === 'float16') return roundF16(x);
  throw new Error(`roundTo: not a float type ${t}`);
}

// binary16 bits <-> value, written independently of roundToFormat (used by the self-test).
export function f16FromBits(bits) {
  const s = (bits >> 15) & 1;
  const e = (bits >> 10) & 0x1f;
  const m = bits & 0x3ff;
  let v;
  if (e === 31) v = m === 0 ? Infinity : NaN;
  else if (e === 0) v = m * Math.pow(2, -24);
  else v = (1024 + m) * Math.pow(2, e - 25);
  return s ? -v : v;
}

// Bits of a double that is exactly a binary16 value (throws otherwise).
export function f16Bits(v) {
  if (Number.isNaN(v)) return 0x7e00;
  const s = v < 0 || Object.is(v, -0) ? 0x8000 : 0;
  const a = Math.abs(v);
  if (a === Infinity) return s | 0x7c00;
  if (a === 0) return s;
  let bits;
  if (a < Math.pow(2, -14)) {
    const m = a / Math.pow(2, -24);
    if (!Number.isInteger(m)) throw new Error(`f16Bits: ${v} is not a float16 value`);
    bits = m;
  } else {
    const e = exponentOf(a);
    const m = (a / Math.pow(2, e) - 1) * 1024;
    if (!Number.isInteger(m) || e > 15) throw new Error(`f16Bits: ${v} is not a float16 value`);
    bits = ((e + 15) << 10) | m;
  }
  return s | bits;
}

const f32a = new Float32Array(1);
const u32a = new Uint32Array(f32a.buffer);
export function f32Bits(v) {
  f32a[0] = v;
  return u32a[0];
}
export function f32FromBits(b) {
  u32a[0] = b >>> 0;
  return f32a[0];
}

// Neighbours of a float-type value toward +Inf / -Inf (finite inputs).
export function nextUp(t, v) {
  if (t === 'float16') {
    if (Object.is(v, -0)) v = 0;
    const b = f16Bits(v);
    if (v === 0) return f16FromBits(1);
    return v > 0 ? f16FromBits(b + 1) : f16FromBits(b - 1);
  }
  if (Object.is(v, -0)) v = 0;
  const b = f32Bits(v);
  if (v === 0) return f32FromBits(1);
  return v > 0 ? f32FromBits(b + 1) : f32FromBits(b - 1);
}
export const nextDown = (t, v) => -nextUp(t, -v);

// True when the double x lies exactly halfway between two neighbouring values of the float type (including
// the halfway point between the largest finite value and the overflow bound).
export function isMidpoint(t, x) {
  if (!Number.isFinite(x)) return false;
  const a = Math.abs(x);
  const r = roundTo(t, a);
  if (r === a) return false;
  const bound = pow2(FORMATS[t].emax + 1); // the overflow bound, treated as the next value above max
  let L, U;
  if (r < a) {
    L = r;
    U = r === maxFinite(t) ? bound : nextUp(t, r);
  } else {
    U = r === Infinity ? bound : r;
    L = U === bound ? maxFinite(t) : nextDown(t, U);
  }
  return (L + U) / 2 === a;
}

// ---------------------------------------------------------------------------------------------------------
// Exact decimal literal vs double comparison (to reject literals whose decimal -> double -> type rounding
// would differ from decimal -> type rounding: only possible when the double is an exact midpoint).

export function decimalEqualsDouble(str, d) {
  const m = /^(-?)(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(str);
  if (!m) throw new Error(`not a decimal: ${str}`);
  const neg = m[1] === '-';
  const frac = m[3] || '';
  let N = BigInt(m[2] + frac);
  let e10 = (m[4] ? parseInt(m[4], 10) : 0) - frac.length;
  if (N === 0n) return d === 0;
  if ((d < 0) !== neg) return false;
  const a = Math.abs(d);
  // a = M * 2^e2
  const b = doubleBits(a);
  const E = Number((b >> 52n) & 0x7ffn);
  let M = b & ((1n << 52n) - 1n);
  let e2;
  if (E === 0) e2 = -1074;
  else {
    M |= 1n << 52n;
    e2 = E - 1075;
  }
  // Compare N * 10^e10 with M * 2^e2.
  let L = N, R = M;
  if (e10 >= 0) L *= 10n ** BigInt(e10);
  else R *= 10n ** BigInt(-e10);
  if (e2 >= 0) R *= 1n << BigInt(e2);
  else L *= 1n << BigInt(-e2);
  return L === R;
}

// ---------------------------------------------------------------------------------------------------------
// BigInt -> float, round to nearest even computed exactly from the integer (no detour through a double).

export function bigintToFloat(v, t) {
  const fmt = FORMATS[t];
  if (v === 0n) return 0;
  const neg = v < 0n;
  const a = neg ? -v : v;
  const L = a.toString(2).length;
  let y;
  if (L <= fmt.p) {
    y = Number(a);
  } else {
    const sh = BigInt(L - fmt.p);
    let q = a >> sh;
    const rem = a - (q << sh);
    const half = 1n << (sh - 1n);
    if (rem > half || (rem === half && (q & 1n) === 1n)) q += 1n;
    y = Number(q) * pow2(Number(sh));
  }
  if (y > maxFinite(t)) y = Infinity;
  return neg ? -y : y;
}

// ---------------------------------------------------------------------------------------------------------
// The spec's cast algorithm for MLNumber values (clamp options): ConvertToFloat / ConvertToInt.
// x is a JS number (double) or a BigInt.

export function convertNumber(x, t) {
  if (isFloat(t)) {
    if (typeof x === 'bigint') return bigintToFloat(x, t);
    return roundTo(t, x);
  }
  const [lo, hi] = intRange(t); // note: uint32 converted as unsigned (spec-notes #1)
  if (typeof x === 'bigint') return x < lo ? lo : x > hi ? hi : x;
  if (Number.isNaN(x)) return 0n;
  if (x < lo) return lo;
  if (x > hi) return hi;
  const r = roundHalfEvenDouble(x);
  return BigInt(r === 0 ? 0 : r);
}

// ---------------------------------------------------------------------------------------------------------
// erf.
//
// erfTo(t, x): erf evaluated in 400-bit fixed point with BigInt (Taylor series
// erf(x) = 2/sqrt(pi) * sum_n (-1)^n x^(2n+1) / (n! (2n+1)), with pi from Machin's formula), then rounded
// once, to nearest even, directly to the target format. The truncation error is below 2^-380, so the result
// is the correctly rounded erf. For |x| >= 6, erfc(x) < 2.2e-17 and erf rounds to +-1 in every format used.
//
// erfDouble(x): a second, independent method in plain double arithmetic (positive-term series
// exp(-x^2) * sum 2^n x^(2n+1) / (2n+1)!! for |x| < 2.5, continued fraction for erfc above), accurate to
// about 1e-15; used only by the self-test to cross-check erfTo.

const ERF_S = 400n; // fraction bits of the fixed-point arithmetic
const ERF_W = ERF_S + 64n; // working precision for the constants

function atanInv(k, w) { // atan(1/k) * 2^w, k integer > 1
  const one = 1n << w;
  const kk = BigInt(k);
  let power = one / kk; // 1/k^(2n+1)
  let sum = power;
  const k2 = kk * kk;
  for (let n = 1n; power !== 0n; n++) {
    power /= k2;
    const term = power / (2n * n + 1n);
    sum += n % 2n === 1n ? -term : term;
  }
  return sum;
}

function isqrt(n) { // floor(sqrt(n)) for BigInt n >= 0
  if (n < 2n) return n;
  let x = 1n << (BigInt(n.toString(2).length) / 2n + 1n);
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

let TWO_OVER_SQRT_PI_FIXED = null; // 2/sqrt(pi) * 2^ERF_S
function twoOverSqrtPi() {
  if (TWO_OVER_SQRT_PI_FIXED === null) {
    const w = ERF_W;
    const pi = 16n * atanInv(5, w) - 4n * atanInv(239, w); // pi * 2^w
    const sqrtPi = isqrt(pi << w); // sqrt(pi) * 2^w
    const v = (2n << (2n * w)) / sqrtPi; // 2/sqrt(pi) * 2^w
    TWO_OVER_SQRT_PI_FIXED = v >> (w - ERF_S);
  }
  return TWO_OVER_SQRT_PI_FIXED;
}

// Exact fixed-point image of a double (x * 2^S), for |x| >= 2^-200.
function toFixed(x, S) {
  const b = doubleBits(Math.abs(x));
  const E = Number((b >> 52n) & 0x7ffn);
  let M = b & ((1n << 52n) - 1n);
  let e2;
  if (E === 0) e2 = -1074;
  else {
    M |= 1n << 52n;
    e2 = E - 1075;
  }
  const sh = BigInt(e2) + S;
  return sh >= 0n ? M << sh : M >> -sh;
}

// Round the positive rational N / 2^S to the format (p bits, emin), ties to even.
export function roundFixed(N, S, fmt) {
  if (N === 0n) return 0;
  const L = BigInt(N.toString(2).length);
  const e = L - 1n - S; // floor(log2(value))
  const qe = (e > BigInt(fmt.emin) ? e : BigInt(fmt.emin)) - BigInt(fmt.p - 1);
  const sh = qe + S;
  let q;
  if (sh <= 0n) q = N << -sh;
  else {
    q = N >> sh;
    const rem = N - (q << sh);
    const half = 1n << (sh - 1n);
    if (rem > half || (rem === half && (q & 1n) === 1n)) q += 1n;
  }
  const y = Number(q) * pow2(Number(qe));
  const max = (2 - pow2(1 - fmt.p)) * pow2(fmt.emax);
  return y > max ? Infinity : y;
}

const FLOAT64 = { p: 53, emin: -1022, emax: 1023 };

function erfFixed(a) { // erf(a) * 2^S for a double a > 0
  const S = ERF_S;
  const X = toFixed(a, S);
  const x2 = (X * X) >> S;
  let term = X; // (-1)^n x^(2n+1) / n!
  let sum = X;
  for (let n = 1n; ; n++) {
    term = -((term * x2) >> S) / n;
    if (term === 0n) break;
    sum += term / (2n * n + 1n);
  }
  return (twoOverSqrtPi() * sum) >> S;
}

function erfRounded(x, fmt) {
  if (Number.isNaN(x)) return NaN;
  if (x === 0) return x; // keeps -0
  const a = Math.abs(x);
  let r;
  if (a >= 6) r = 1;
  else if (a < 2 ** -200) r = roundFixed((toFixed(a, 1200n) * twoOverSqrtPi()) >> ERF_S, 1200n, fmt);
  else r = roundFixed(erfFixed(a), ERF_S, fmt);
  return x < 0 ? -r : r;
}

export const erf = (x) => erfRounded(x, FLOAT64);
export const erfTo = (t, x) => erfRounded(x, FORMATS[t]);

const TWO_OVER_SQRT_PI = 1.1283791670955126; // 2/sqrt(pi) = 1.12837916709551257389...
const ONE_OVER_SQRT_PI = 0.5641895835477563; // 1/sqrt(pi) = 0.56418958354775628694...

// Dekker's exact product of two doubles: a*b = hi + lo.
function twoProduct(a, b) {
  const hi = a * b;
  const SPLIT = 134217729; // 2^27 + 1
  const split = (x) => {
    const c = SPLIT * x;
    const xh = c - (c - x);
    return [xh, x - xh];
  };
  const [ah, al] = split(a);
  const [bh, bl] = split(b);
  const lo = ((ah * bh - hi) + ah * bl + al * bh) + al * bl;
  return [hi, lo];
}

function expMinusSquare(a) {
  const [hi, lo] = twoProduct(a, a);
  return Math.exp(-hi) * (1 - lo);
}

export function erfSeries(a) {
  const a2x2 = 2 * a * a;
  let term = a;
  let sum = a;
  for (let n = 1; n < 500; n++) {
    term *= a2x2 / (2 * n + 1);
    sum += term;
    if (term < sum * 1e-18) break;
  }
  return TWO_OVER_SQRT_PI * expMinusSquare(a) * sum;
}

export function erfcContinuedFraction(a) {
  let f = a;
  for (let k = 300; k >= 1; k--) f = a + (k / 2) / f;
  return ONE_OVER_SQRT_PI * expMinusSquare(a) / f;
}

export function erfDouble(x) {
  if (Number.isNaN(x)) return NaN;
  if (x === 0) return x;
  const a = Math.abs(x);
  const r = a >= 6 ? 1 : a < 2.5 ? erfSeries(a) : 1 - erfcContinuedFraction(a);
  return x < 0 ? -r : r;
}

// pow with C99/IEEE 754 semantics (JS Math.pow differs for pow(1, NaN) and pow(-1, +-Infinity)).
export function powC(x, y) {
  if (y === 0) return 1;
  if (x === 1) return 1;
  if (x === -1 && (y === Infinity || y === -Infinity)) return 1;
  return Math.pow(x, y);
}
