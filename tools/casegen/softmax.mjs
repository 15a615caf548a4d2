// Cases for softmax(input, axis). Each output element is exp(x_i - m) / sum_j exp(x_j - m) (m the maximum
// of the row, mathematically the same as exp(x_i) / sum exp(x_j)), evaluated in fixed point and rounded once
// to the type with a rounding test (hiprec.mjs ziv), so the values are correctly rounded.
// A NaN anywhere in a row makes the whole row NaN (every path of the spec's emulation gives NaN); a row that
// is entirely -Infinity is NaN too (0/0; the emulation's x - max is -Inf - -Inf = NaN); -Infinity elements of
// other rows give exactly 0. +Infinity is not used: the emulation gives NaN while the limit would be 1/0.

import { FLOAT_TYPES, roundTo } from './numerics.mjs';
import { T, C, makeCase, materialize, errorCase } from './casebuild.mjs';
import { elementCount } from './values.mjs';
import { uniform, range } from './common.mjs';
import { ziv, expNonPos, fdiv, dyadic, dSub, dyadicToFixed } from './hiprec.mjs';

export function softmaxRow(t, xs) {
  if (xs.some(Number.isNaN)) return xs.map(() => NaN);
  if (xs.some((v) => v === Infinity)) throw new Error('softmax: +Infinity inputs are not authored');
  const finite = xs.filter(Number.isFinite);
  if (finite.length === 0) return xs.map(() => NaN);
  const m = finite.reduce((a, b) => (b > a ? b : a));
  const dm = dyadic(m);
  const cache = new Map();
  const at = (W) => { // exp(x_j - m) at scale W and their sum, once per W
    if (!cache.has(W)) {
      const e = xs.map((v) => (v === -Infinity ? 0n : expNonPos(dyadicToFixed(dSub(dyadic(v), dm), W, true), W)));
      cache.set(W, { e, sum: e.reduce((a, b) => a + b, 0n) });
    }
    return cache.get(W);
  };
  return xs.map((v, i) => {
    if (v === -Infinity) return 0;
    return ziv((W) => {
      const { e, sum } = at(W);
      return fdiv(e[i], sum, W);
    }, t);
  });
}

function softmaxValues(t, shape, values, axis) {
  const n = shape[axis];
  const inner = shape.slice(axis + 1).reduce((a, d) => a * d, 1);
  const outer = shape.slice(0, axis).reduce((a, d) => a * d, 1);
  const out = new Array(values.length);
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      const idx = [];
      for (let k = 0; k < n; k++) idx.push((o * n + k) * inner + i);
      const r = softmaxRow(t, idx.map((j) => values[j]));
      idx.forEach((j, k) => { out[j] = r[k]; });
    }
  }
  return out;
}

function smCase(t, tag, x, axis, labels = []) {
  const values = softmaxValues(t, x.shape, materialize(x), axis);
  if (values.length !== elementCount(x.shape)) throw new Error('softmax: size');
  for (const v of values) if (!Number.isNaN(v) && !Object.is(roundTo(t, v), v)) throw new Error('softmax: not typed');
  return makeCase({
    name: `webnn.softmax.${t}.${tag}`, labels: ['softmax', t, ...labels], inputs: { x },
    operators: [{ name: 'softmax', arguments: [{ input: 'x' }, { axis }], outputs: 'output' }],
    outputs: { output: { dtype: t, shape: x.shape, values } },
  });
}

function smError(tag, dt, x, axis, labels = []) {
  return errorCase({
    name: `webnn.softmax.error.${tag}`, labels: ['softmax', dt, ...labels], opName: 'softmax',
    args: [{ input: 'x' }, { axis }], inputs: { x },
  });
}

export function softmaxFiles() {
  const out = [];
  for (const t of FLOAT_TYPES) {
    const F32 = t === 'float32';
    const x3 = T(t, [2, 3, 4], uniform(103, -4, 4));
    out.push(smCase(t, 'axis0', x3, 0, ['generator']));
    out.push(smCase(t, 'axis1', x3, 1, ['generator']));
    out.push(smCase(t, 'axis2', x3, 2, ['generator']));
    out.push(smCase(t, 'rank1', T(t, [5], [1, 2, 3, 4, 5]), 0, ['rank1']));
    out.push(smCase(t, 'rank2_last_axis', C(t, [2, 3], [-1, 0, 1, 0.5, 0.25, -2]), 1, ['constant']));
    out.push(smCase(t, 'rank5', T(t, [2, 2, 3, 2, 2], uniform(107, -6, 6)), 2, ['generator']));
    out.push(smCase(t, 'rank5_axis4', T(t, [1, 2, 1, 3, 6], range(-4, 0.125)), 4, ['generator']));
    out.push(smCase(t, 'size1_axis', T(t, [3, 1], [-5, 0, 1e4]), 1));
    out.push(smCase(t, 'size1_dims', T(t, [1, 4, 1], [0.1, 0.2, 0.3, 0.4]), 1));
    out.push(smCase(t, 'equal_values', T(t, [2, 4], [0.5, 0.5, 0.5, 0.5, 7, 7, 7, -1e4]), 1));
    out.push(smCase(t, 'wide_row', T(t, [1, 64], uniform(109, -10, 10)), 1, ['generator']));
    out.push(smCase(t, 'large_values', T(t, [2, 4], F32
      ? [1000, 1001, 1002, 1003, -1000, -1001, -1002, -1003]
      : [65504, 65472, 65440, 60000, -65504, -65472, -65440, -60000]), 1, ['large']));
    out.push(smCase(t, 'extreme_spread', T(t, [2, 3], F32
      ? [3.4028235e38, -3.4028235e38, 0, 88, 89, -1e-45]
      : [65504, -65504, 0, 11, 12, -6e-8]), 1, ['large']));
    out.push(smCase(t, 'tiny_outputs', T(t, [4], F32 ? [0, -100, -103, -110] : [0, -10, -15, -17.5]), 0, ['subnormal']));
    out.push(smCase(t, 'neg_infinity', T(t, [3, 4], [-Infinity, 0, 1, -Infinity, -Infinity, -Infinity, 2, -Infinity,
      -Infinity, -Infinity, -Infinity, -Infinity]), 1, ['special_values']));
    out.push(smCase(t, 'nan_row', T(t, [2, 3], [NaN, 1, 2, 0, 1, 2]), 1, ['special_values']));
    out.push(smCase(t, 'signed_zeros', T(t, [4], [-0, 0, -0, 0]), 0, ['special_values']));
    out.push(smCase(t, 'input_rounding', T(t, [5], F32 ? [0.1, 0.2, 0.3, 16777217, 16777216] : [0.1, 0.2, 0.3, 2049, 2048]), 0, ['rounding']));
  }
  out.push(smError('int32_input', 'int32', T('int32', [2, 2], [1, 2, 3, 4]), 1));
  out.push(smError('uint8_input', 'uint8', T('uint8', [2], [1, 2]), 0));
  out.push(smError('axis_equal_rank', 'float32', T('float32', [2, 3], [1, 2, 3, 4, 5, 6]), 2));
  out.push(smError('axis_above_rank', 'float16', T('float16', [2, 3], [1, 2, 3, 4, 5, 6]), 7));
  out.push(smError('rank0_input', 'float32', T('float32', [], 1), 0, ['rank0']));
  out.push(smError('negative_axis', 'float32', T('float32', [2, 3], [1, 2, 3, 4, 5, 6]), -1, ['webidl']));
  return { softmax: out };
}
