// Cases for cast: all 64 (input type, target type) pairs.

import {
  DTYPES, isFloat, isSigned, intRange, inIntRange, bigintToFloat, maxFinite, nextUp, nextDown,
} from './numerics.mjs';
import { T, C, elementwiseCase, errorCase } from './casebuild.mjs';
import { castElement } from './ops.mjs';
import { SPECIAL, randRange, uniform, range } from './common.mjs';

function castCase(from, to, tag, x, extra = []) {
  return elementwiseCase({
    name: `webnn.cast.${from}_to_${to}.${tag}`, labels: ['cast', from, `to_${to}`, ...extra], opName: 'cast',
    args: [{ input: 'x' }, { type: to }], inputs: { x }, operandNames: ['x'], outDtype: to,
    fn: (v) => castElement(from, to, v),
  });
}

// Largest value of float type t that is below the integer B (B >= 1).
function largestBelow(t, B) {
  const r = bigintToFloat(B, t);
  if (r === Infinity) return maxFinite(t);
  return BigInt(r) >= B ? nextDown(t, r) : r;
}

const dedupe = (vals) => {
  const seen = new Set();
  return vals.filter((v) => {
    const k = typeof v === 'bigint' ? `b${v}` : Object.is(v, -0) ? 'n-0' : `n${v}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
};

const P = (k) => 2n ** BigInt(k);

// int -> float values that need rounding (or overflow), filtered to the input type's range.
const INT_TO_FLOAT_CANDIDATES = {
  float32: [16777217n, 16777219n, -16777217n, 1073741889n, 2147483647n, -2147483648n, 4294967295n, 4294967168n,
    4294967040n, 33554435n, P(53) + 1n, P(60) + P(36) + 1n, -(P(60) + P(36) + 1n), P(63) + P(39) + 1n,
    P(64) - P(39), P(63) - 1n, -P(63), P(64) - 1n],
  float16: [2049n, 2051n, -2051n, 4001n, 4003n, 32785n, 65504n, 65519n, 65520n, -65520n, 100000n, -100000n,
    4294967295n, P(63) - 1n, -P(63), P(64) - 1n],
};

// Values for int -> int: type edges and values around the narrower types' edges.
const INT_TO_INT_CANDIDATES = [-1n, 0n, 1n, 127n, 128n, 255n, 256n, -128n, -129n, 300n, -300n, 65535n, 65541n,
  P(31), -P(31) - 1n, P(32) + 7n, -(P(32) + 7n), P(63), P(53) + 1n, -(P(53) + 1n)];

function pairCases(from, to) {
  const out = [];
  const fF = isFloat(from), tF = isFloat(to);
  const sF = isSigned(from);
  // basic
  let basic;
  if (fF && tF) basic = [1, -2.5, 0.25, -100, 7.75, 1000.5];
  else if (fF) basic = [0.4, 1.5, 2.9, 100.7, 127.9, 3];
  else if (tF) basic = sF ? [0, 1, -2, 100, 127, -128] : [0, 1, 2, 100, 127, 255];
  else basic = [0, 1, 2, 100, 127, 42];
  out.push(castCase(from, to, 'basic', T(from, [2, 3], basic)));
  out.push(castCase(from, to, 'rank0', C(from, [], [fF ? 7.9 : 7]), ['rank0']));
  // generator
  let gen;
  if (fF && tF) gen = uniform(101, -1000, 1000);
  else if (fF) gen = uniform(103, 0, 100);
  else {
    const [lo, hi] = randRange(from);
    gen = uniform(107, lo, hi);
  }
  out.push(castCase(from, to, 'rank4_random', T(from, [2, 3, 2, 2], gen), ['generator']));

  if (fF && tF) {
    const s = SPECIAL[from];
    out.push(castCase(from, to, 'special_values', T(from, [s.length], s), ['special_values']));
    if (from === 'float32' && to === 'float16') {
      // float32 values -> float16: rounding, ties to even, subnormals, overflow; the value just above a
      // float16 midpoint must round up (no double rounding).
      const v = [0.1, 65504, 65519, 65520, 65519.996, 1e5, -1e5, 6e-8, 2.9802322387695312e-8, 2.99e-8, 2.98e-8,
        1.00048828125, 1.0004884004592896, 1.0014648, 2049, 2051, 6.1e-5, 6.097555e-5, -0.33333334, 3.4028235e38,
        1e-45];
      out.push(castCase(from, to, 'rounding', T(from, [v.length], v), ['rounding']));
    } else if (from === 'float16' && to === 'float32') {
      const v = [0.1, 65504, -65504, 6e-8, 6.1e-5, 0.3333, 2049, 1.0009765625, -1e-7];
      out.push(castCase(from, to, 'exact', T(from, [v.length], v), ['rounding']));
    }
  } else if (fF) {
    const [lo, hi] = intRange(to);
    const vmax = largestBelow(from, hi + 1n);
    const edges = [vmax, 0, 1.5, -0];
    if (isSigned(to)) {
      edges.push(-largestBelow(from, -lo + 1n), -1.5, -0.9);
      out.push(castCase(from, to, 'negative', T(from, [2, 3], [-0.4, -1.5, -2.9, -100.7, -128.9, -0])));
    } else {
      // Truncated value 0 is in range: -0.9 -> 0 (only values whose truncation is out of range are
      // implementation-defined).
      out.push(castCase(from, to, 'truncates_to_zero', T(from, [4], [-0.4, -0.9, -0, 0.99]),
        ['truncation_toward_zero']));
    }
    out.push(castCase(from, to, 'range_edges', T(from, [edges.length], edges), ['extremes']));
    const bad = [NaN, Infinity, -Infinity];
    if (vmax < maxFinite(from)) bad.push(nextUp(from, vmax), maxFinite(from));
    if (isSigned(to)) {
      const vmin = -largestBelow(from, -lo + 1n);
      if (-vmin < maxFinite(from)) bad.push(nextDown(from, vmin), -maxFinite(from));
    } else bad.push(-1, -maxFinite(from));
    out.push(castCase(from, to, 'out_of_range', T(from, [bad.length], bad),
      ['out_of_range', 'implementation_defined']));
  } else if (tF) {
    const [lo, hi] = intRange(from);
    const v = dedupe([...INT_TO_FLOAT_CANDIDATES[to].filter((x) => inIntRange(from, x)), lo, hi, lo + 1n, hi - 1n]);
    out.push(castCase(from, to, 'rounding', T(from, [v.length], v), ['rounding', 'extremes']));
  } else {
    const [lo, hi] = intRange(from);
    const v = dedupe([lo, hi, lo + 1n, hi - 1n, ...INT_TO_INT_CANDIDATES.filter((x) => inIntRange(from, x))]);
    out.push(castCase(from, to, 'wrap', T(from, [v.length], v), ['extremes']));
  }
  return out;
}

export function castFiles() {
  const cases = [];
  for (const from of DTYPES) for (const to of DTYPES) cases.push(...pairCases(from, to));
  // A range() generator case and a rank-5 case.
  cases.push(castCase('float32', 'int32', 'range_rank5', T('float32', [2, 1, 3, 1, 4], range(-5.5, 0.5)),
    ['generator']));
  cases.push(castCase('int32', 'float16', 'range_rank2', T('int32', [4, 8], range(-16, 1)), ['generator']));
  cases.push(errorCase({
    name: 'webnn.cast.error.unknown_type_float64', labels: ['cast', 'float32'], opName: 'cast',
    args: [{ input: 'x' }, { type: 'float64' }], inputs: { x: T('float32', [2], [1, 2]) },
  }));
  cases.push(errorCase({
    name: 'webnn.cast.error.unknown_type_bool', labels: ['cast', 'uint8'], opName: 'cast',
    args: [{ input: 'x' }, { type: 'bool' }], inputs: { x: T('uint8', [2], [1, 0]) },
  }));
  return { cast: cases };
}
