// Exact arithmetic (winexact.mjs) for the windowed operators (conv2d, convTranspose2d, pooling, resample2d): sums of
// products held exactly as BigInt numerators over a power of two, rational values rounded once (to nearest,
// ties to even) to float32/float16, and a correctly rounded square root of a rational.
//
// Every float32/float16 element is a dyadic rational M * 2^e with e >= -149; a product of two has
// e >= -298. Scaling by 2^SCALE (SCALE = 320) turns every such value and product into an integer, so a sum
// of any number of them is exact.

import { FORMATS, doubleBits, pow2, maxFinite } from './numerics.mjs';

export const SCALE = 320n;

// A finite double as [M, e] (BigInt M odd, integer e) with x = M * 2^e exactly.
export function decompose(x) {
  if (!Number.isFinite(x)) throw new Error(`decompose: ${x}`);
  if (x === 0) return [0n, 0];
  const b = doubleBits(Math.abs(x));
  const E = Number((b >> 52n) & 0x7ffn);
  let M = b & ((1n << 52n) - 1n);
  let e;
  if (E === 0) e = -1074;
  else {
    M |= 1n << 52n;
    e = E - 1075;
  }
  while ((M & 0xffffn) === 0n) {
    M >>= 16n;
    e += 16;
  }
  while ((M & 1n) === 0n) {
    M >>= 1n;
    e += 1;
  }
  return [x < 0 ? -M : M, e];
}

// x * 2^SCALE as a BigInt (exact; throws if x is not a multiple of 2^-SCALE).
export function scaled(x, extra = 0n) {
  const [M, e] = decompose(x);
  const sh = BigInt(e) + SCALE + extra;
  if (sh >= 0n) return M << sh;
  const r = M >> -sh;
  if (r << -sh !== M) throw new Error(`scaled: ${x} not representable at scale`);
  return r;
}

const bitLength = (n) => (n === 0n ? 0 : n.toString(2).length);

// Round num/den (BigInts, den > 0) to the float type, to nearest with ties to even, overflowing to
// +-Infinity. An exact zero gives +0.
export function roundRational(num, den, t) {
  if (den <= 0n) throw new Error('roundRational: den <= 0');
  if (num === 0n) return 0;
  const fmt = FORMATS[t];
  const neg = num < 0n;
  const a = neg ? -num : num;
  // e = floor(log2(a / den))
  let e = bitLength(a) - bitLength(den);
  const ge = (k) => (k >= 0 ? a >= den << BigInt(k) : a << BigInt(-k) >= den); // a/den >= 2^k ?
  if (!ge(e)) e -= 1;
  const qe = Math.max(e, fmt.emin) - (fmt.p - 1); // exponent of one unit in the last place
  let A = a, D = den;
  if (qe >= 0) D = den << BigInt(qe);
  else A = a << BigInt(-qe);
  let q = A / D;
  const rem2 = 2n * (A - q * D);
  if (rem2 > D || (rem2 === D && (q & 1n) === 1n)) q += 1n;
  if (qe > 400) return neg ? -Infinity : Infinity;
  let y = Number(q) * pow2(qe);
  if (y > maxFinite(t)) y = Infinity;
  return neg ? -y : y;
}

function isqrt(n) { // floor(sqrt(n)) for BigInt n >= 0
  if (n < 2n) return n;
  let x = 1n << (BigInt(bitLength(n)) / 2n + 1n);
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}
export { isqrt };

// sqrt(num/den) for num >= 0, den > 0, correctly rounded to the float type.
export function roundSqrtRational(num, den, t) {
  if (num < 0n || den <= 0n) throw new Error('roundSqrtRational: bad operands');
  if (num === 0n) return 0;
  const p = FORMATS[t].p;
  // R = floor(sqrt(num * 4^k / den)) with at least p + 4 bits.
  const mag = bitLength(num) - bitLength(den); // log2(num/den) within 1
  let k = Math.ceil((2 * (p + 6) - mag) / 2);
  if (k < 0) k = 0;
  const K = BigInt(k);
  const X = (num << (2n * K)) / den;
  const R = isqrt(X);
  const exact = R * R * den === num << (2n * K);
  if (exact) return roundRational(R, 1n << K, t);
  // Strictly between R and R + 1 (in units of 2^-k): 2R + 1 at one more bit carries the sticky bit. A
  // rounding boundary of the format is a multiple of 2^-k here, so it never lies strictly inside.
  return roundRational(2n * R + 1n, 1n << (K + 1n), t);
}

// An exact sum of float values and products, with IEEE special-value rules (NaN operand, Inf * 0, and
// +Inf + -Inf give NaN; otherwise an infinity dominates). The finite part is sum * 2^-SCALE exactly.
export class ExactSum {
  constructor() {
    this.sum = 0n;
    this.nan = false;
    this.posInf = false;
    this.negInf = false;
  }
  addSpecial(v) {
    if (Number.isNaN(v)) this.nan = true;
    else if (v === Infinity) this.posInf = true;
    else if (v === -Infinity) this.negInf = true;
  }
  add(x) {
    if (!Number.isFinite(x)) this.addSpecial(x);
    else this.sum += scaled(x);
    return this;
  }
  addProduct(a, b) {
    if (Number.isNaN(a) || Number.isNaN(b)) this.nan = true;
    else if (!Number.isFinite(a) || !Number.isFinite(b)) {
      if (a === 0 || b === 0) this.nan = true;
      else this.addSpecial((a < 0) !== (b < 0) ? -Infinity : Infinity);
    } else {
      const [ma, ea] = decompose(a);
      const [mb, eb] = decompose(b);
      const sh = BigInt(ea + eb) + SCALE;
      if (sh < 0n) throw new Error('addProduct: product below scale');
      this.sum += (ma * mb) << sh;
    }
    return this;
  }
  special() {
    if (this.nan || (this.posInf && this.negInf)) return NaN;
    if (this.posInf) return Infinity;
    if (this.negInf) return -Infinity;
    return null;
  }
  // The sum divided by the positive integer divisor, rounded once to t.
  round(t, divisor = 1n) {
    const s = this.special();
    if (s !== null) return s;
    return roundRational(this.sum, BigInt(divisor) << SCALE, t);
  }
}
