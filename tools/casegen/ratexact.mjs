// Exact arithmetic for the matrix, linear, normalization and quantization case modules: rationals over
// BigInt, exact rounding of a rational to float16/float32 (ties to even, overflow to Infinity), and correct
// rounding of v = b + A * sqrt(R) (A, b, R rational, R > 0) by exact comparison with the midpoints of the target
// format. Nothing here reads the C++ code.

import { FORMATS, doubleBits, pow2, nextUp, nextDown, maxFinite, f16Bits, f32Bits } from './numerics.mjs';

// ---------------------------------------------------------------------------------------------------------
// Rationals {n, d}: BigInt numerator, positive BigInt denominator (not necessarily reduced).

const abs = (x) => (x < 0n ? -x : x);
const bitLength = (x) => (x === 0n ? 0 : abs(x).toString(2).length);

function gcd(a, b) {
  a = abs(a);
  b = abs(b);
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

export function rat(n, d = 1n) {
  if (typeof n !== 'bigint' || typeof d !== 'bigint') throw new Error('rat: BigInt expected');
  if (d === 0n) throw new Error('rat: zero denominator');
  return d < 0n ? { n: -n, d: -d } : { n, d };
}

export function reduce(q) {
  const g = gcd(q.n, q.d);
  return g > 1n ? { n: q.n / g, d: q.d / g } : q;
}

// The exact value of a finite double as a rational (denominator a power of two).
export function ratFromDouble(x) {
  if (!Number.isFinite(x)) throw new Error(`ratFromDouble: ${x} is not finite`);
  if (x === 0) return { n: 0n, d: 1n };
  const b = doubleBits(Math.abs(x));
  const E = Number((b >> 52n) & 0x7ffn);
  let M = b & ((1n << 52n) - 1n);
  let e2;
  if (E === 0) e2 = -1074;
  else {
    M |= 1n << 52n;
    e2 = E - 1075;
  }
  if (x < 0) M = -M;
  return e2 >= 0 ? { n: M << BigInt(e2), d: 1n } : reduce({ n: M, d: 1n << BigInt(-e2) });
}

export const ratInt = (v) => ({ n: BigInt(v), d: 1n });
export const ratNeg = (a) => ({ n: -a.n, d: a.d });
export const ratAdd = (a, b) => (a.d === b.d ? { n: a.n + b.n, d: a.d }
  : reduce({ n: a.n * b.d + b.n * a.d, d: a.d * b.d }));
export const ratSub = (a, b) => ratAdd(a, ratNeg(b));
export const ratMul = (a, b) => reduce({ n: a.n * b.n, d: a.d * b.d });
export function ratDiv(a, b) {
  if (b.n === 0n) throw new Error('ratDiv: division by zero');
  return reduce(rat(a.n * b.d, a.d * b.n));
}
export const ratSign = (a) => (a.n > 0n ? 1 : a.n < 0n ? -1 : 0);
export function ratCmp(a, b) {
  const l = a.n * b.d;
  const r = b.n * a.d;
  return l > r ? 1 : l < r ? -1 : 0;
}

// floor and round-half-to-even of a rational, as BigInt.
export function ratFloor(q) {
  let f = q.n / q.d; // truncates toward zero
  if (q.n % q.d !== 0n && q.n < 0n) f -= 1n;
  return f;
}
export function ratRoundHalfEven(q) {
  const f = ratFloor(q);
  const rem2 = 2n * (q.n - f * q.d); // twice the fractional part, times d: in [0, 2d)
  if (rem2 > q.d) return f + 1n;
  if (rem2 < q.d) return f;
  return f % 2n === 0n ? f : f + 1n;
}

// ---------------------------------------------------------------------------------------------------------
// Rounding a rational to a binary format (p, emin, emax) or a float type name: to nearest, ties to even, with
// overflow to +-Infinity (at or beyond max + ulp/2, as ConvertToFloat and IEEE RNE do). A zero result takes
// the sign of the exact value (underflow); an exact zero gives +0 (callers decide the sign of exact zeros).

export const FLOAT64 = { p: 53, emin: -1022, emax: 1023 };

export function roundRat(q, t) {
  const fmt = typeof t === 'string' ? FORMATS[t] : t;
  let { n, d } = q;
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  if (n === 0n) return 0;
  const neg = n < 0n;
  const a = abs(n);
  let e = bitLength(a) - bitLength(d); // floor(log2(a/d)) is e or e - 1
  const ge = e >= 0 ? a >= d << BigInt(e) : a << BigInt(-e) >= d;
  if (!ge) e -= 1;
  if (e > fmt.emax) return neg ? -Infinity : Infinity;
  const qe = Math.max(e, fmt.emin) - (fmt.p - 1); // exponent of the last place
  const num = qe >= 0 ? a : a << BigInt(-qe);
  const den = qe >= 0 ? d << BigInt(qe) : d;
  let m = num / den;
  const rem2 = 2n * (num - m * den);
  if (rem2 > den || (rem2 === den && (m & 1n) === 1n)) m += 1n;
  let y = 0;
  if (m !== 0n) {
    const lo = Math.max(qe, -1000); // split the scaling so that no intermediate underflows
    y = Number(m) * pow2(lo) * pow2(qe - lo);
  }
  const max = (2 - pow2(1 - fmt.p)) * pow2(fmt.emax);
  if (y > max) y = Infinity;
  return neg ? -y : y;
}

export const ratToDouble = (q) => roundRat(q, FLOAT64);

// ---------------------------------------------------------------------------------------------------------
// A float32/float16 value x as the exact integer x * 2^SCALE (the smallest float32 subnormal is 2^-149).

export const SCALE = 160;
export function scaled(x) {
  const q = ratFromDouble(x);
  const v = q.n << BigInt(SCALE);
  if (v % q.d !== 0n) throw new Error(`scaled: ${x} is not a multiple of 2^-${SCALE}`);
  return v / q.d;
}

// ---------------------------------------------------------------------------------------------------------
// v = b + A * sqrt(R), R > 0, correctly rounded to float type t.
//
// A high-precision rational approximation (about 2^-256 relative) gives a candidate; the candidate is then
// confirmed or moved by exact comparisons of v with the midpoints between neighbouring values of the format
// (sign(b + A sqrt(R) - c) decided with integers: compare A^2 R with (c - b)^2 when the signs agree), so the
// result is the correctly rounded value even when v is (or is extremely close to) a midpoint.

export function isqrt(n) {
  if (n < 0n) throw new Error('isqrt of a negative number');
  if (n < 2n) return n;
  let x = 1n << (BigInt(bitLength(n)) / 2n + 1n);
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

export function sqrtApprox(R, P = 256) {
  const Pn = BigInt(P); // sqrt(n/d) = sqrt(n d) / d
  return reduce({ n: isqrt((R.n * R.d) << (2n * Pn)), d: R.d << Pn });
}

// sign(b + A sqrt(R) - c) for a rational c.
export function cmpSqrtExpr(b, A, R, c) {
  const D = ratSub(c, b);
  const sA = ratSign(A);
  const sD = ratSign(D);
  if (sA !== sD) return sA > sD ? 1 : -1;
  if (sA === 0) return 0;
  const lhs = A.n * A.n * R.n * D.d * D.d; // A^2 R  vs  D^2, both positive denominators
  const rhs = D.n * D.n * A.d * A.d * R.d;
  return sA * (lhs > rhs ? 1 : lhs < rhs ? -1 : 0);
}

const isOdd = (t, v) => ((t === 'float16' ? f16Bits(v) : f32Bits(v)) & 1) === 1;

// Correct rounding of a value known through an exact comparator cmp(c) = sign(v - c) (c rational), starting
// from a candidate within a few units of the result. Zero results get the sign of v.
export function roundByComparator(t, cmp, candidate) {
  const max = maxFinite(t);
  const { p, emax } = FORMATS[t];
  const threshold = (2 - pow2(-p)) * pow2(emax); // max + ulp/2: from here on RNE gives Infinity
  const cmpD = (x) => cmp(ratFromDouble(x));
  let r = candidate;
  for (let guard = 0; guard < 64; guard++) {
    if (r === Infinity) {
      if (cmpD(threshold) < 0) { r = max; continue; }
      return r;
    }
    if (r === -Infinity) {
      if (cmpD(-threshold) > 0) { r = -max; continue; }
      return r;
    }
    const base = Object.is(r, -0) ? 0 : r;
    const up = base === max ? Infinity : nextUp(t, base);
    const midUp = base === max ? threshold : (base + up) / 2;
    const cu = cmpD(midUp);
    if (cu > 0 || (cu === 0 && (base === max || isOdd(t, base)))) { r = up; continue; }
    const down = base === -max ? -Infinity : nextDown(t, base);
    const midDown = base === -max ? -threshold : (base + down) / 2;
    const cd = cmpD(midDown);
    if (cd < 0 || (cd === 0 && (base === -max || isOdd(t, base)))) { r = down; continue; }
    if (base === 0) return cmpD(0) < 0 ? -0 : 0;
    return base;
  }
  throw new Error('roundByComparator did not converge');
}

// Round b + A sqrt(R) (R > 0) to t. Returns {value, zero: true when the exact value is 0}.
export function roundSqrtExpr(t, b, A, R) {
  if (ratSign(R) <= 0) throw new Error('roundSqrtExpr: R must be positive');
  const cmp = (c) => cmpSqrtExpr(b, A, R, c);
  const zero = cmp(ratInt(0)) === 0;
  const cand = roundRat(ratAdd(b, ratMul(A, sqrtApprox(R))), t);
  return { value: roundByComparator(t, cmp, cand), zero };
}
