// Exact and high-precision arithmetic for the activation and reduction cases (activations.mjs, reduce.mjs).
//
// Three tools, all BigInt, none of them reading or mirroring the C++ code:
//
// 1. Exact dyadic numbers {m, e} = m * 2^e (m BigInt, e integer). Every float32/float16 value is one, and so
//    are their exact sums and products. roundDyadic() rounds one to a float type, ties to even, once.
// 2. Exact rationals: roundRatio(num, den, t, e2) rounds num/den * 2^e2 once (quotient plus a sticky bit);
//    sqrtDyadic() rounds the square root of a dyadic once (integer square root plus a sticky bit).
// 3. Fixed point for transcendental results: a value v is held as N ~ v * 2^W (W >= 320 fraction bits).
//    expNonPos, logPos, erfFix work at W + 64 guard bits; ziv() evaluates a function at W bits with an
//    error bound of 2^32 units of 2^-W (far above the real error, a few hundred units) and accepts the
//    result only if both ends of the error interval round to the same value of the type; otherwise it
//    doubles W and tries again. So every transcendental result here is the correctly rounded value of the
//    exact function of the (rounded) inputs. Float16/float32 results are never finer than 2^-149, so an
//    absolute error of 2^-288 decides the rounding unless the exact value lies within 2^-288 of a midpoint.

import { FORMATS, doubleBits, pow2, maxFinite } from './numerics.mjs';

export const bitLength = (n) => (n === 0n ? 0 : n.toString(2).length); // n >= 0

// ---------------------------------------------------------------------------------------------------------
// Rounding of exact non-negative values to a float format (ties to even, overflow to Infinity).

// value = (N + s) / 2^S with N >= 0 BigInt, S integer (Number, may be negative) and s = 0, or s a positive
// amount below one unit when sticky is true. Requires, when sticky, at least two bits below the format's
// last place (the callers guarantee it).
export function roundPos(N, S, t, sticky = false) {
  const fmt = FORMATS[t];
  if (N === 0n) {
    if (sticky && S < fmt.p - fmt.emin + 2) throw new Error('roundPos: sticky value too coarse');
    return 0;
  }
  const e = bitLength(N) - 1 - S; // floor(log2(value))
  if (e > fmt.emax) return Infinity;
  if (e < fmt.emin - fmt.p) return 0; // value < 2^(emin - p + 1) / 2: below half the smallest subnormal
  const qe = Math.max(e, fmt.emin) - (fmt.p - 1); // exponent of the last place
  const sh = qe + S; // bits of N below the last place
  let q;
  if (sh <= 0) {
    if (sticky) throw new Error('roundPos: sticky value too coarse');
    q = N << BigInt(-sh);
  } else {
    if (sticky && sh < 2) throw new Error('roundPos: sticky value too coarse');
    const b = BigInt(sh);
    q = N >> b;
    const rem = N - (q << b);
    const half = 1n << (b - 1n);
    if (rem > half || (rem === half && (sticky || (q & 1n) === 1n))) q += 1n;
  }
  const y = Number(q) * pow2(qe); // exact: q < 2^(p+1)
  return y > maxFinite(t) ? Infinity : y;
}

// Signed N / 2^S. A zero result takes the sign of N (N = 0 gives +0).
export function roundSigned(N, S, t, sticky = false) {
  if (N < 0n) return -roundPos(-N, S, t, sticky);
  return roundPos(N, S, t, sticky);
}

// ---------------------------------------------------------------------------------------------------------
// Exact dyadic numbers.

export function dyadic(x) { // a finite double -> {m, e}, exactly
  if (!Number.isFinite(x)) throw new Error(`dyadic: ${x} is not finite`);
  if (x === 0) return { m: 0n, e: 0 };
  const b = doubleBits(Math.abs(x));
  const E = Number((b >> 52n) & 0x7ffn);
  let M = b & ((1n << 52n) - 1n);
  let e;
  if (E === 0) e = -1074;
  else {
    M |= 1n << 52n;
    e = E - 1075;
  }
  return { m: x < 0 ? -M : M, e };
}
export const dInt = (n) => ({ m: BigInt(n), e: 0 });
export function dAdd(a, b) {
  if (a.m === 0n) return b;
  if (b.m === 0n) return a;
  const e = Math.min(a.e, b.e);
  return { m: (a.m << BigInt(a.e - e)) + (b.m << BigInt(b.e - e)), e };
}
export const dNeg = (a) => ({ m: -a.m, e: a.e });
export const dSub = (a, b) => dAdd(a, dNeg(b));
export const dMul = (a, b) => ({ m: a.m * b.m, e: a.e + b.e });
export const dAbs = (a) => ({ m: a.m < 0n ? -a.m : a.m, e: a.e });
export const dSign = (a) => (a.m > 0n ? 1 : a.m < 0n ? -1 : 0);
export const dCmp = (a, b) => dSign(dSub(a, b));

export function roundDyadic(d, t) {
  return roundSigned(d.m, -d.e, t);
}

// The double value of a dyadic that is exactly a double (for tests).
export function dyadicToNumber(d) {
  return Number(d.m) * pow2(d.e);
}

// num / den * 2^e2, rounded once to the type (den > 0; sign from num). A zero num gives +0.
export function roundRatio(num, den, t, e2 = 0) {
  if (den <= 0n) throw new Error('roundRatio: den must be positive');
  if (num === 0n) return 0;
  const fmt = FORMATS[t];
  const neg = num < 0n;
  const a = neg ? -num : num;
  const k = bitLength(a) - bitLength(den); // log2(a/den) within 1
  const S = Math.max(fmt.p + 4 - k, fmt.p - fmt.emin + 3 + e2, 0);
  const q = (a << BigInt(S)) / den;
  const sticky = q * den !== a << BigInt(S);
  const r = roundPos(q, S - e2, t, sticky);
  return neg ? -r : r;
}

export function isqrt(n) { // floor(sqrt(n)), BigInt n >= 0
  if (n < 2n) return n;
  let x = 1n << BigInt(Math.ceil(bitLength(n) / 2) + 1);
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

// sqrt of a dyadic d >= 0, rounded once.
export function sqrtDyadic(d, t) {
  if (d.m < 0n) return NaN;
  if (d.m === 0n) return 0;
  const fmt = FORMATS[t];
  let { m, e } = d;
  if (e % 2 !== 0) {
    m <<= 1n;
    e -= 1;
  }
  const h = e / 2;
  const k = Math.max(fmt.p - fmt.emin + 3 + h, Math.ceil((2 * (fmt.p + 4) - bitLength(m)) / 2), 0);
  const M = m << BigInt(2 * k);
  const r = isqrt(M);
  return roundPos(r, k - h, t, r * r !== M);
}

// ---------------------------------------------------------------------------------------------------------
// Fixed point. A fixed value at scale W is a BigInt N standing for N / 2^W.

const GUARD = 64;

export function fixed(x, W) { // exact fixed image of a finite double (throws if bits would be lost)
  const d = dyadic(x);
  return dyadicToFixed(d, W, true);
}
export function dyadicToFixed(d, W, exact = false) {
  const sh = d.e + W;
  if (sh >= 0) return d.m << BigInt(sh);
  const r = d.m >> BigInt(-sh); // floor
  if (exact && r << BigInt(-sh) !== d.m) throw new Error('dyadicToFixed: inexact');
  return r;
}
export const shiftTo = (N, from, to) => (to >= from ? N << BigInt(to - from) : N >> BigInt(from - to));

// Constants, computed once at CW bits and truncated to the scale asked for (error < 1 unit).
let CW = 0;
let C_LN2 = 0n;
let C_SQRT2 = 0n;
let C_2_SQRTPI = 0n;

function atanhInv(k, w) { // atanh(1/k) * 2^w
  const one = 1n << BigInt(w);
  const kk = BigInt(k);
  const k2 = kk * kk;
  let p = one / kk;
  let sum = p;
  for (let n = 1n; p !== 0n; n++) {
    p /= k2;
    sum += p / (2n * n + 1n);
  }
  return sum;
}
function atanInv(k, w) { // atan(1/k) * 2^w
  const one = 1n << BigInt(w);
  const kk = BigInt(k);
  const k2 = kk * kk;
  let p = one / kk;
  let sum = p;
  for (let n = 1n; p !== 0n; n++) {
    p /= k2;
    const term = p / (2n * n + 1n);
    sum += n % 2n === 1n ? -term : term;
  }
  return sum;
}
function ensureConstants(W) {
  if (W <= CW) return;
  const w = Math.max(2 * W, 2048) + 64;
  C_LN2 = 2n * atanhInv(3, w); // ln 2 = 2 atanh(1/3)
  C_SQRT2 = isqrt(2n << BigInt(2 * w));
  const pi = 16n * atanInv(5, w) - 4n * atanInv(239, w); // Machin
  const sqrtPi = isqrt(pi << BigInt(w));
  C_2_SQRTPI = (2n << BigInt(2 * w)) / sqrtPi;
  CW = w;
}
export function LN2(W) { ensureConstants(W); return C_LN2 >> BigInt(CW - W); }
export function SQRT2(W) { ensureConstants(W); return C_SQRT2 >> BigInt(CW - W); }
export function TWO_OVER_SQRTPI(W) { ensureConstants(W); return C_2_SQRTPI >> BigInt(CW - W); }

export const fmul = (a, b, W) => (a * b) / (1n << BigInt(W)); // truncates toward zero (series terms reach 0)
export const fdiv = (a, b, W) => (a << BigInt(W)) / b;

// exp(X) for a fixed X <= 0 (a little above 0 is tolerated), result at scale W.
export function expNonPos(X, W) {
  if (X > 1n << BigInt(W)) throw new Error('expNonPos: argument above 1');
  const w = W + GUARD;
  const x = X << BigInt(GUARD);
  const one = 1n << BigInt(w);
  if (x < -BigInt(W + 2) * one) return 0n; // exp(x) < 2^-(W+2)
  const ln2 = LN2(w);
  // k = round(x / ln2), r = x - k ln2 with |r| <= ln2/2 (about)
  let k;
  if (x >= 0n) k = (x + ln2 / 2n) / ln2;
  else k = -((-x + ln2 / 2n) / ln2);
  const r = x - k * ln2;
  let term = one;
  let sum = one;
  for (let n = 1n; term !== 0n; n++) {
    term = fmul(term, r, w) / n;
    sum += term;
  }
  const kn = Number(k);
  const res = kn >= 0 ? sum << BigInt(kn) : sum >> BigInt(-kn);
  return res >> BigInt(GUARD);
}

// log of a positive dyadic d, result at scale W.
export function logDyadic(d, W) {
  if (d.m <= 0n) throw new Error('logDyadic: non-positive argument');
  const w = W + GUARD;
  const L = bitLength(d.m);
  let e = L - 1 + d.e; // d = m * 2^e with m in [1, 2)
  let M = shiftTo(d.m, L - 1, w); // m at scale w (floor)
  const one = 1n << BigInt(w);
  if (M > SQRT2(w)) {
    M >>= 1n; // m / 2 in [sqrt2/2, 1)
    e += 1;
  }
  const t = fdiv(M - one, M + one, w); // |t| <= 0.172
  const t2 = fmul(t, t, w);
  let p = t;
  let sum = t;
  for (let n = 1n; p !== 0n; n++) {
    p = fmul(p, t2, w);
    sum += p / (2n * n + 1n);
  }
  const res = 2n * sum + BigInt(e) * LN2(w);
  return res >> BigInt(GUARD);
}

// erf(Z) for a fixed Z >= 0 at scale W. The alternating Taylor series cancels about 1.45 z^2 bits, so the
// working scale adds that many bits.
export function erfFix(Z, W) {
  if (Z < 0n) throw new Error('erfFix: negative argument');
  const z = Number(Z >> BigInt(Math.max(W - 60, 0))) / 2 ** Math.min(W, 60);
  const extra = Math.ceil(1.45 * z * z) + GUARD + 16;
  const w = W + extra;
  const X = Z << BigInt(extra);
  const x2 = fmul(X, X, w);
  let term = X; // (-1)^n x^(2n+1) / n!
  let sum = X;
  for (let n = 1n; ; n++) {
    term = -fmul(term, x2, w) / n;
    if (term === 0n) break;
    sum += term / (2n * n + 1n);
  }
  return fmul(TWO_OVER_SQRTPI(w), sum, w) >> BigInt(extra);
}

// Correctly rounded value of a function given as fixed-point evaluator f(W) -> N ~ v * 2^W.
export function ziv(f, t) {
  for (let W = 320; W <= 5120; W *= 2) {
    const N = f(W);
    const E = 1n << 32n;
    const lo = roundSigned(N - E, W, t);
    const hi = roundSigned(N + E, W, t);
    if (lo === hi) return roundSigned(N, W, t); // equal (+0 and -0 compare equal; N's sign decides)
  }
  throw new Error('ziv: rounding not decided (exact midpoint?)');
}
