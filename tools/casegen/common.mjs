// Shared authoring data: special-value sets and integer helpers.

import { intRange, isSigned, intBits } from './numerics.mjs';

export const NaN_ = NaN;
export const INF = Infinity;

// Float special values (as JSON-able authoring values; inputs are rounded to the type when read).
export const SPECIAL = {
  float32: [NaN, Infinity, -Infinity, -0, 0, 1, -1, 0.5, -2.5, 1e-45, 1.1754942e-38, 3.4028235e38],
  float16: [NaN, Infinity, -Infinity, -0, 0, 1, -1, 0.5, -2.5, 6e-8, 6.1e-5, 65504],
};

// Integer "extremes" grid values for a type.
export function intSpecial(t) {
  const [lo, hi] = intRange(t);
  if (isSigned(t)) return [lo, lo + 1n, -1n, 0n, 1n, hi - 1n, hi];
  return [0n, 1n, 2n, 127n, 128n, hi - 1n, hi];
}

export const lim = intRange;
export const bits = intBits;

// A numeric [lo, hi] for random integer generators: the type range, capped so that hi - lo + 1 <= 2^53.
export function randRange(t, lo, hi) {
  const [tl, th] = intRange(t);
  const cap = 2n ** 51n;
  let l = lo === undefined ? tl : BigInt(lo);
  let h = hi === undefined ? th : BigInt(hi);
  if (l < tl) l = tl;
  if (h > th) h = th;
  if (l < -cap) l = -cap;
  if (h > cap) h = cap;
  if (l > cap) l = cap / 2n; // a range above the cap (e.g. [2^63, 2^64-1]): use [2^50, 2^51] instead
  return [Number(l), Number(h)];
}

export function uniform(seed, min, max) {
  return { random: { seed, distribution: 'uniform', min, max } };
}
export function range(start, step) {
  return { range: { start, step } };
}
export function fill(v) {
  return { fill: v };
}

// [[a, b], ...] -> {a: [...], b: [...]}
export function unzip(pairs) {
  return { a: pairs.map((p) => p[0]), b: pairs.map((p) => p[1]) };
}

export const div2 = (v) => v / 2n; // BigInt halving toward zero
