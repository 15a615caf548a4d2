// Cases for the ten reductions (reduceL1, reduceL2, reduceLogSum, reduceLogSumExp, reduceMax, reduceMean,
// reduceMin, reduceProduct, reduceSum, reduceSumSquare), from the "Reduction operations" section: output
// shapes from "calculate reduction output sizes", data types from each method's allowed list (reduceMax and
// reduceMin pass none: every type).
//
// Float values: sums, sums of squares, sums of absolute values and products are exact dyadic numbers
// (BigInt), the mean is an exact rational, L2 an exact square root, each rounded once to the type; logSum
// and logSumExp (max + log(sum exp(x - max))) are evaluated in fixed point and rounded once with a rounding
// test (hiprec.mjs). So intermediate overflow or underflow never shows: reduceSum([max, max, -max]) is max,
// reduceLogSumExp([89, 90]) is finite in float32, reduceL2 of values whose squares overflow is finite.
// Integer values are exact BigInt; a result outside the type is wrapped (modulo 2^N, which is also what
// wrapping accumulation gives in any order) and implementation-defined.
// Special values: NaN propagates (sum/mean/L1/L2/sumSquare/product/logSum/logSumExp); +Inf + -Inf is NaN;
// 0 * Inf is NaN; log of a negative sum is NaN and of a zero sum -Inf. reduceMax/reduceMin with a NaN are
// implementation-defined (the spec's max/min leave NaN open: docs/deviations.md), written NaN, and only
// in cases labelled so. Zeros: a sum of only -0 is -0 (IEEE), the sign of a zero product is the product
// of the signs, max(-0, +0) = +0, min(-0, +0) = -0.

import { FLOAT_TYPES, isFloat, isSigned, intRange, inIntRange, wrapInt, roundTo } from './numerics.mjs';
import { T, C, makeCase, materialize, errorCase } from './casebuild.mjs';
import { implDefined } from './ops.mjs';
import { uniform, range, randRange } from './common.mjs';
import { splitmix64 } from './values.mjs';
import {
  ziv, expNonPos, logDyadic, dyadic, dAdd, dSub, dMul, dAbs, dSign, roundDyadic, roundRatio, sqrtDyadic,
  dyadicToFixed,
} from './hiprec.mjs';

export const REDUCE_OPS = ['reduceL1', 'reduceL2', 'reduceLogSum', 'reduceLogSumExp', 'reduceMax', 'reduceMean',
  'reduceMin', 'reduceProduct', 'reduceSum', 'reduceSumSquare'];

const INT6 = ['int32', 'uint32', 'int64', 'uint64'];
const TYPES = {
  reduceL1: [...FLOAT_TYPES, ...INT6],
  reduceSum: [...FLOAT_TYPES, ...INT6],
  reduceSumSquare: [...FLOAT_TYPES, ...INT6],
  reduceProduct: [...FLOAT_TYPES, ...INT6],
  reduceL2: FLOAT_TYPES,
  reduceLogSum: FLOAT_TYPES,
  reduceLogSumExp: FLOAT_TYPES,
  reduceMean: FLOAT_TYPES,
  reduceMax: [...FLOAT_TYPES, ...INT6, 'int8', 'uint8'],
  reduceMin: [...FLOAT_TYPES, ...INT6, 'int8', 'uint8'],
};
export const reduceTypes = (op) => TYPES[op];

// ---------------------------------------------------------------------------------------------------------
// Reduction functions of a list of element values.

const ZERO = { m: 0n, e: 0 };
const hasNaN = (v) => v.some(Number.isNaN);
const hasPosInf = (v) => v.some((x) => x === Infinity);
const hasNegInf = (v) => v.some((x) => x === -Infinity);
const allNegZero = (v) => v.every((x) => Object.is(x, -0));
const exactSum = (v) => v.reduce((s, x) => dAdd(s, dyadic(x)), ZERO);

function intResult(t, exact) {
  return inIntRange(t, exact) ? exact : implDefined(wrapInt(t, exact));
}

function fmaxAll(v) {
  return v.reduce((a, b) => (b > a || (b === 0 && a === 0 && Object.is(a, -0)) ? b : a));
}
function fminAll(v) {
  return v.reduce((a, b) => (b < a || (b === 0 && a === 0 && Object.is(b, -0)) ? b : a));
}

function sumLike(t, v, finish) { // reduceSum / reduceMean
  if (hasNaN(v) || (hasPosInf(v) && hasNegInf(v))) return NaN;
  if (hasPosInf(v)) return Infinity;
  if (hasNegInf(v)) return -Infinity;
  const d = exactSum(v);
  if (d.m === 0n) return allNegZero(v) ? -0 : 0;
  return finish(d);
}

export const REDUCE = {
  reduceSum: (t, v) => (isFloat(t) ? sumLike(t, v, (d) => roundDyadic(d, t)) : intResult(t, v.reduce((a, b) => a + b, 0n))),
  reduceMean: (t, v) => sumLike(t, v, (d) => roundRatio(d.m, BigInt(v.length), t, d.e)),
  reduceL1: (t, v) => {
    if (!isFloat(t)) return intResult(t, v.reduce((a, b) => a + (b < 0n ? -b : b), 0n));
    if (hasNaN(v)) return NaN;
    if (hasPosInf(v) || hasNegInf(v)) return Infinity;
    return roundDyadic(v.reduce((s, x) => dAdd(s, dAbs(dyadic(x))), ZERO), t);
  },
  reduceSumSquare: (t, v) => {
    if (!isFloat(t)) return intResult(t, v.reduce((a, b) => a + b * b, 0n));
    if (hasNaN(v)) return NaN;
    if (hasPosInf(v) || hasNegInf(v)) return Infinity;
    return roundDyadic(v.reduce((s, x) => dAdd(s, dMul(dyadic(x), dyadic(x))), ZERO), t);
  },
  reduceL2: (t, v) => {
    if (hasNaN(v)) return NaN;
    if (hasPosInf(v) || hasNegInf(v)) return Infinity;
    return sqrtDyadic(v.reduce((s, x) => dAdd(s, dMul(dyadic(x), dyadic(x))), ZERO), t);
  },
  reduceLogSum: (t, v) => {
    if (hasNaN(v) || (hasPosInf(v) && hasNegInf(v))) return NaN;
    if (hasPosInf(v)) return Infinity;
    if (hasNegInf(v)) return NaN; // log(-Infinity)
    const d = exactSum(v);
    if (d.m === 0n) return -Infinity;
    if (d.m < 0n) return NaN;
    return ziv((W) => logDyadic(d, W), t);
  },
  reduceLogSumExp: (t, v) => {
    if (hasNaN(v)) return NaN;
    if (hasPosInf(v)) return Infinity;
    const finite = v.filter(Number.isFinite);
    if (finite.length === 0) return -Infinity; // log(0)
    const m = finite.reduce((a, b) => (b > a ? b : a));
    const dm = dyadic(m);
    return ziv((W) => {
      let s = 0n;
      for (const x of finite) s += expNonPos(dyadicToFixed(dSub(dyadic(x), dm), W, true), W);
      return dyadicToFixed(dm, W, true) + logDyadic({ m: s, e: -W }, W);
    }, t);
  },
  reduceMax: (t, v) => {
    if (!isFloat(t)) return v.reduce((a, b) => (b > a ? b : a));
    if (hasNaN(v)) return implDefined(NaN);
    return fmaxAll(v);
  },
  reduceMin: (t, v) => {
    if (!isFloat(t)) return v.reduce((a, b) => (b < a ? b : a));
    if (hasNaN(v)) return implDefined(NaN);
    return fminAll(v);
  },
  reduceProduct: (t, v) => {
    if (!isFloat(t)) return intResult(t, v.reduce((a, b) => a * b, 1n));
    if (hasNaN(v)) return NaN;
    const neg = v.filter((x) => x < 0 || Object.is(x, -0)).length % 2 === 1;
    if (hasPosInf(v) || hasNegInf(v)) {
      if (v.some((x) => x === 0)) return NaN;
      return neg ? -Infinity : Infinity;
    }
    if (v.some((x) => x === 0)) return neg ? -0 : 0;
    const r = roundDyadic(v.reduce((p, x) => dMul(p, dyadic(x)), { m: 1n, e: 0 }), t);
    return r === 0 && neg ? -0 : r;
  },
};

// ---------------------------------------------------------------------------------------------------------
// Shapes ("calculate reduction output sizes") and grouping.

export function reduceShape(shape, axes, keep) {
  const r = shape.length;
  const ax = axes === undefined ? [...Array(r).keys()] : axes;
  if (new Set(ax).size !== ax.length || ax.some((a) => !(Number.isInteger(a) && a >= 0 && a < r))) return null;
  if (keep) return shape.map((d, i) => (ax.includes(i) ? 1 : d));
  return shape.filter((d, i) => !ax.includes(i));
}

function reduceValues(op, t, shape, values, axes, keep) {
  const r = shape.length;
  const ax = axes === undefined ? [...Array(r).keys()] : axes;
  const outShape = reduceShape(shape, axes, keep);
  const keptDims = shape.map((d, i) => (ax.includes(i) ? 1 : d));
  const nOut = keptDims.reduce((a, d) => a * d, 1);
  const groups = Array.from({ length: nOut }, () => []);
  const n = values.length;
  for (let flat = 0; flat < n; flat++) {
    let rem = flat;
    let o = 0;
    let stride = 1;
    for (let i = r - 1; i >= 0; i--) {
      const c = rem % shape[i];
      rem = (rem - c) / shape[i];
      if (!ax.includes(i)) o += c * stride;
      stride *= keptDims[i];
    }
    groups[o].push(values[flat]);
  }
  let impl = 0;
  const out = groups.map((g) => {
    let v = REDUCE[op](t, g);
    if (v !== null && typeof v === 'object' && v.implDefined) {
      impl++;
      v = v.v;
    }
    if (isFloat(t) && !Number.isNaN(v) && !Object.is(roundTo(t, v), v)) throw new Error(`${op}: not a ${t} value`);
    return v;
  });
  return { outShape, values: out, implDefined: impl };
}

function options(axes, keep) {
  const o = {};
  if (axes !== undefined) o.axes = axes;
  if (keep !== undefined) o.keepDimensions = keep;
  return o;
}

function redCase(op, t, tag, x, { axes, keep, noOptions = false, labels = [] } = {}) {
  const { outShape, values, implDefined: impl } = reduceValues(op, t, x.shape, materialize(x), axes, keep);
  const args = [{ input: 'x' }];
  if (!noOptions) args.push({ options: options(axes, keep) });
  return makeCase({
    name: `webnn.${op}.${t}.${tag}`, labels: [op, t, ...labels], inputs: { x },
    operators: [{ name: op, arguments: args, outputs: 'output' }],
    outputs: { output: { dtype: t, shape: outShape, values } }, implDefined: impl,
  });
}

function redError(op, tag, t, x, opts, labels = []) {
  return errorCase({
    name: `webnn.${op}.error.${tag}`, labels: [op, t, ...labels], opName: op,
    args: [{ input: 'x' }, { options: opts }], inputs: { x },
  });
}

// ---------------------------------------------------------------------------------------------------------
// Data.

const MAX = { float32: 3.4028235e38, float16: 65504 };
const MIN_SUB = { float32: 1e-45, float16: 6e-8 };

function floatRange(op) {
  if (op === 'reduceLogSum') return [0.05, 4];
  if (op === 'reduceProduct') return [0.6, 1.6];
  return [-4, 4];
}

// Special-value rows (reduced along axis 1), per operator, without NaN for max/min.
function specialRows(op, t) {
  const M = MAX[t];
  const S = MIN_SUB[t];
  const f32 = t === 'float32';
  const base = [[1, NaN, 2, 3], [Infinity, 1, 2, 3], [-Infinity, -1, 0, 2], [Infinity, -Infinity, 0, 1],
    [-0, -0, -0, -0], [-0, 0, -0, -0]];
  switch (op) {
    case 'reduceSum':
    case 'reduceMean':
      return [...base, [M, M, -M, 1], [M, M, 0, 0], [S, S, -S, 0], [-S, -S, -S, -S]];
    case 'reduceL1':
      return [...base, [M, -M, 0, 0], [S, -S, 0, -0], [-1, -2, -3, -4]];
    case 'reduceSumSquare':
    case 'reduceL2':
      return [...base, f32 ? [1e30, 1e30, -1e30, 1e30] : [300, 400, 0, 0], f32 ? [1e-30, -1e-30, 1e-30, 1e-30] : [1e-4, 1e-4, -1e-4, 1e-4],
        [3, 4, 0, 0], [M, 0, 0, 0], [S, 0, 0, -S]];
    case 'reduceLogSum':
      return [[1, NaN, 2, 3], [Infinity, 1, 2, 3], [-Infinity, 1, 2, 3], [Infinity, -Infinity, 1, 1],
        [-1, -2, 0.5, 0.25], [1, -1, 0, 0], [-0, -0, 0, 0], [0.25, 0.25, 0.25, 0.25], [M, M, 1, 1], [S, 0, 0, 0]];
    case 'reduceLogSumExp':
      return [[1, NaN, 2, 3], [Infinity, 1, 2, 3], [-Infinity, 0, 0, 0], [-Infinity, -Infinity, -Infinity, -Infinity],
        [Infinity, -Infinity, 0, 0], f32 ? [89, 90, 100, 88] : [12, 11, 11.5, 10],
        f32 ? [-200, -200, -200, -200] : [-20, -20, -20, -20], [M, M, M, M], [-M, -M, 0, -M], [-0, 0, -0, 0]];
    case 'reduceMax':
    case 'reduceMin':
      return [[Infinity, -Infinity, 0, 1], [-0, 0, -0, -0], [-0, -0, -0, -0], [-Infinity, -Infinity, -Infinity, -Infinity],
        [M, -M, S, -S], [-S, -M, -1, -0]];
    case 'reduceProduct':
      return [[NaN, 1, 2, 3], [Infinity, 0, 1, 2], [Infinity, -1, 2, 3], [-Infinity, -1, 2, -0.5], [-0, 1, -1, 2],
        [-0, 1, 2, 3], [M, 2, 0.5, 1], [S, 0.5, 2, 1], f32 ? [1e20, 1e20, 1e-20, 1e-20] : [300, 300, 1 / 300, 1 / 300],
        [M, M, 1, 1], [S, S, 1, 1], [S, -S, 1, 1]];
    default:
      throw new Error(op);
  }
}

// Deterministic integer data (authoring values, BigInt) in [lo, hi] from splitmix64 (written in full).
function intData(seed, n, lo, hi) {
  const next = splitmix64(seed);
  const span = BigInt(hi) - BigInt(lo) + 1n;
  return Array.from({ length: n }, () => BigInt(lo) + (next() % span));
}

// ---------------------------------------------------------------------------------------------------------

function floatCases(op, t, seed) {
  const out = [];
  const [a, b] = floatRange(op);
  const x = T(t, [2, 3, 4], uniform(seed, a, b));
  const L = ['axes'];
  out.push(redCase(op, t, 'all_axes', x, { labels: ['generator'] }));
  out.push(redCase(op, t, 'all_axes_keep_dimensions', x, { keep: true, labels: ['generator', 'keep_dimensions'] }));
  out.push(redCase(op, t, 'all_axes_explicit', x, { axes: [0, 1, 2], labels: ['generator', ...L] }));
  out.push(redCase(op, t, 'axis1', x, { axes: [1], labels: ['generator', ...L] }));
  out.push(redCase(op, t, 'axis1_keep_dimensions', x, { axes: [1], keep: true, labels: ['generator', ...L, 'keep_dimensions'] }));
  out.push(redCase(op, t, 'axes_0_2_keep_dimensions', x, { axes: [0, 2], keep: true, labels: ['generator', ...L, 'keep_dimensions'] }));
  out.push(redCase(op, t, 'axes_2_0_unsorted', x, { axes: [2, 0], keep: false, labels: ['generator', ...L] }));
  out.push(redCase(op, t, 'empty_axes', x, { axes: [], labels: ['generator', 'empty_axes'] }));
  out.push(redCase(op, t, 'empty_axes_keep_dimensions', x, { axes: [], keep: true, labels: ['generator', 'empty_axes', 'keep_dimensions'] }));
  out.push(redCase(op, t, 'no_options', C(t, [3, 4], range(op === 'reduceLogSum' || op === 'reduceProduct' ? 0.25 : -1.5, 0.25)),
    { noOptions: true, labels: ['generator', 'constant'] }));
  out.push(redCase(op, t, 'rank0', T(t, [], op === 'reduceLogSum' ? 2.5 : -2.5), { labels: ['rank0'] }));
  out.push(redCase(op, t, 'rank0_empty_axes', T(t, [], 0.75), { axes: [], labels: ['rank0', 'empty_axes'] }));
  out.push(redCase(op, t, 'rank0_keep_dimensions', C(t, [], 1.5), { keep: true, labels: ['rank0', 'keep_dimensions', 'constant'] }));
  out.push(redCase(op, t, 'rank1', T(t, [5], op === 'reduceLogSum' ? [1, 2, 3, 4, 5] : [1, -2, 3, -4, 5]), { axes: [0], labels: ['rank1'] }));
  out.push(redCase(op, t, 'size1_dims', T(t, [1, 3, 1], [0.5, 1.5, 2.5]), { axes: [0, 2], labels: [...L] }));
  out.push(redCase(op, t, 'size1_reduced_only', T(t, [2, 1, 3], [0.5, 1.5, 2.5, 3, 0.25, 1]), { axes: [1], labels: [...L] }));
  out.push(redCase(op, t, 'rank5', T(t, [2, 3, 2, 2, 3], uniform(seed + 1, a, b)), { axes: [1, 3, 4], labels: ['generator', ...L] }));
  out.push(redCase(op, t, 'rank5_all', T(t, [2, 1, 3, 2, 2], uniform(seed + 2, a, b)), { labels: ['generator'] }));
  out.push(redCase(op, t, 'input_rounding', T(t, [2, 3], t === 'float32' ? [0.1, 0.2, 0.3, 16777217, 1.00000005, 3]
    : [0.1, 0.2, 0.3, 2049, 1.00048828125, 3]), { axes: [1], labels: ['rounding'] }));
  const rows = specialRows(op, t);
  out.push(redCase(op, t, 'special_values', T(t, [rows.length, 4], rows.flat()), { axes: [1], labels: ['special_values'] }));
  // Empty axes: the reduction of each single value (sum(-0) = -0, logSum(-1) = NaN, L2(-3) = 3, ...).
  const one = [Infinity, -Infinity, -0, 0, 1, -1, 0.5, -2.5, MIN_SUB[t], -MIN_SUB[t], MAX[t], -MAX[t]];
  if (op !== 'reduceMax' && op !== 'reduceMin') one.unshift(NaN);
  out.push(redCase(op, t, 'empty_axes_special_values', T(t, [one.length], one), { axes: [], labels: ['special_values', 'empty_axes'] }));
  if (op === 'reduceMax' || op === 'reduceMin') {
    out.push(redCase(op, t, 'nan_input', T(t, [3, 3], [NaN, 1, 2, 0, NaN, -1, 3, 4, 5]), { axes: [1],
      labels: ['special_values', 'implementation_defined'] }));
  }
  if (op === 'reduceSum') {
    // Exact sum above a midpoint by less than a double's resolution: one rounding gives the upper value;
    // a double (float32) or float32 (float16) accumulator followed by a second rounding gives the lower.
    out.push(redCase(op, t, 'single_rounding', T(t, [2, 3], t === 'float32'
      ? [1, 5.960464477539063e-8, 8.673617379884035e-19, 0.5, 2.9802322387695312e-8, 8.673617379884035e-19]
      : [1, 0.00048828125, 5.960464477539063e-8, 1024, 0.5, 6e-8]), { axes: [1], labels: ['rounding'] }));
    out.push(redCase(op, t, 'cancellation', T(t, [4], t === 'float32' ? [1e8, 1, -1e8, 1e-8] : [2048, 1, -2048, 0.001]),
      { labels: ['rounding'] }));
  }
  if (op === 'reduceMean') {
    out.push(redCase(op, t, 'large', T(t, [2, 3], t === 'float32' ? [3e38, 3e38, 3e38, 3.4028235e38, 3.4028235e38, -1e38]
      : [65504, 65504, 65504, 60000, 65504, -1000]), { axes: [1], labels: ['large'] }));
    out.push(redCase(op, t, 'thirds', T(t, [2, 3], [1, 0, 0, 1, 1, 0]), { axes: [1], labels: ['rounding'] }));
  }
  if (op === 'reduceLogSumExp') {
    out.push(redCase(op, t, 'large_random', T(t, [2, 8], t === 'float32' ? uniform(seed + 3, 80, 3e4) : uniform(seed + 3, 10, 60000)),
      { axes: [1], labels: ['large', 'generator'] }));
  }
  if (op === 'reduceL2' || op === 'reduceSumSquare') {
    out.push(redCase(op, t, 'large_random', T(t, [2, 8], t === 'float32' ? uniform(seed + 3, -1e20, 1e20) : uniform(seed + 3, -300, 300)),
      { axes: [1], labels: ['large', 'generator'] }));
  }
  return out;
}

function intCases(op, t, seed) {
  const out = [];
  const [lo, hi] = intRange(t);
  const sgn = isSigned(t);
  const small = {
    reduceSum: sgn ? [-1000, 1000] : [0, 2000], reduceL1: sgn ? [-1000, 1000] : [0, 2000],
    reduceSumSquare: sgn ? [-100, 100] : [0, 100], reduceMax: null, reduceMin: null,
  }[op];
  let data;
  if (op === 'reduceProduct') {
    // Small nonzero factors, so that the all-axes product stays in range (|product| <= 2^24).
    const next = splitmix64(seed);
    const choices = sgn ? [1n, -1n, 2n, -2n, 1n, 1n] : [1n, 2n, 1n, 1n, 2n, 1n];
    data = Array.from({ length: 24 }, () => choices[Number(next() % 6n)]);
  } else if (small) data = intData(seed, 24, small[0], small[1]);
  else {
    const [rl, rh] = randRange(t);
    data = intData(seed, 24, rl, rh);
  }
  const x = T(t, [2, 3, 4], data);
  out.push(redCase(op, t, 'all_axes', x));
  out.push(redCase(op, t, 'axis1_keep_dimensions', x, { axes: [1], keep: true, labels: ['axes', 'keep_dimensions'] }));
  out.push(redCase(op, t, 'axes_2_0_unsorted', x, { axes: [2, 0], labels: ['axes'] }));
  out.push(redCase(op, t, 'empty_axes', x, { axes: [], labels: ['empty_axes'] }));
  out.push(redCase(op, t, 'rank0', C(t, [], sgn ? -3n : 3n), { labels: ['rank0', 'constant'] }));
  out.push(redCase(op, t, 'no_options', T(t, [2, 2], sgn ? [-3n, 4n, 5n, -1n] : [3n, 4n, 5n, 1n]), { noOptions: true }));
  out.push(redCase(op, t, 'size1_dims', T(t, [1, 3, 1], [2n, 1n, 3n]), { axes: [0, 2], labels: ['axes'] }));
  // Extremes without overflow of the exact result.
  let ex;
  switch (op) {
    case 'reduceSum': ex = sgn ? [hi, 1n, -2n, 0n, lo, -lo - 1n, 1n, 0n] : [hi - 5n, 5n, 0n, 0n, hi, 0n, 0n, 0n]; break;
    case 'reduceL1': ex = sgn ? [hi, 0n, 0n, 0n, lo + 1n, 0n, 0n, 0n] : [hi - 5n, 5n, 0n, 0n, hi, 0n, 0n, 0n]; break;
    case 'reduceSumSquare': {
      const r = sgn ? -46340n : 65535n; // r^2 in range for (u)int32
      ex = t.endsWith('64') ? [sgn ? -3037000499n : 4294967295n, 0n, 0n, 0n, 1n, 1n, 1n, 1n] : [r, 0n, 0n, 0n, 1n, 1n, 1n, 1n];
      break;
    }
    case 'reduceProduct': ex = sgn ? [hi, 1n, 1n, 1n, lo, 1n, 1n, 1n] : [hi, 1n, 1n, 1n, 2n, hi / 2n, 1n, 1n]; break;
    default: ex = sgn ? [lo, hi, 0n, -1n, lo + 1n, hi - 1n, lo, hi] : [0n, hi, 1n, hi - 1n, 0n, 0n, hi, 1n];
  }
  out.push(redCase(op, t, 'extremes', T(t, [2, 4], ex), { axes: [1], labels: ['extremes'] }));
  if (op === 'reduceMax' || op === 'reduceMin') {
    const [rl, rh] = randRange(t);
    out.push(redCase(op, t, 'rank5_random', T(t, [2, 3, 2, 2, 3], uniform(seed + 5, rl, rh)), { axes: [1, 3, 4], labels: ['generator', 'axes'] }));
  } else {
    const s = op === 'reduceProduct' ? (sgn ? [-2, 2] : [0, 3]) : small;
    out.push(redCase(op, t, 'rank5_random', T(t, [2, 3, 2, 2, 3], uniform(seed + 5, s[0], s[1])), { axes: [1, 4], labels: ['generator', 'axes'] }));
    // Exact result out of range: wrapped, implementation-defined.
    let ov;
    switch (op) {
      case 'reduceSum': ov = sgn ? [hi, 1n, lo, -1n] : [hi, 1n, hi, hi]; break;
      case 'reduceL1': ov = sgn ? [lo, 0n, hi, 1n] : [hi, 2n, hi, hi]; break;
      case 'reduceSumSquare': ov = sgn ? [lo, 0n, hi, 0n] : [hi, 0n, 2n ** (BigInt(t.endsWith('64') ? 32 : 16)), 0n]; break;
      default: ov = sgn ? [lo, -1n, hi, 2n] : [hi, 2n, 2n ** 33n < hi ? 2n ** 33n : 65536n, 2n ** 33n < hi ? 2n ** 33n : 65536n];
    }
    out.push(redCase(op, t, 'overflow', T(t, [2, 2], ov), { axes: [1], labels: ['overflow', 'implementation_defined'] }));
  }
  if (op === 'reduceSum' && sgn) {
    // Intermediate overflow in a left-to-right accumulation, exact result in range (wrapping gives it too).
    out.push(redCase(op, t, 'intermediate_overflow', T(t, [4], [hi, 1n, -2n, 0n]), { labels: ['overflow'] }));
  }
  return out;
}

function errorCases(op) {
  const out = [];
  const f = 'float32';
  out.push(redError(op, 'axis_out_of_range', f, T(f, [2, 3, 4], 1), { axes: [3] }, ['axes']));
  out.push(redError(op, 'axis_out_of_range_keep_dimensions', 'float16', T('float16', [2, 3], 1), { axes: [0, 2], keepDimensions: true }, ['axes']));
  out.push(redError(op, 'duplicate_axes', f, T(f, [2, 3, 4], 1), { axes: [1, 1] }, ['axes']));
  out.push(redError(op, 'duplicate_axes_unsorted', f, T(f, [2, 3, 4], 1), { axes: [2, 0, 2] }, ['axes']));
  out.push(redError(op, 'rank0_axis0', f, T(f, [], 1), { axes: [0] }, ['axes', 'rank0']));
  out.push(redError(op, 'negative_axis', f, T(f, [2, 3], 1), { axes: [-1] }, ['axes', 'webidl']));
  const allowed = TYPES[op];
  const bad = ['int8', 'uint8', 'int32', 'uint64'].filter((d) => !allowed.includes(d));
  for (const d of bad) out.push(redError(op, `${d}_input`, d, T(d, [2, 2], [1, 2, 3, 4]), {}));
  return out;
}

export function reduceFiles() {
  const files = {};
  REDUCE_OPS.forEach((op, k) => {
    const out = [];
    for (const t of TYPES[op]) {
      const seed = 200 + 10 * k;
      if (isFloat(t)) out.push(...floatCases(op, t, seed));
      else out.push(...intCases(op, t, seed));
    }
    out.push(...errorCases(op));
    files[op] = out;
  });
  return files;
}
