// Cases for the element-wise binary operations add, sub, mul, div, max, min, pow.

import { DTYPES, isFloat, isSigned, roundTo } from './numerics.mjs';
import { T, C, elementwiseCase, errorCase } from './casebuild.mjs';
import { BINARY } from './ops.mjs';
import { SPECIAL, intSpecial, lim, bits, randRange, uniform, range, unzip } from './common.mjs';

export const BINARY_OPS = ['add', 'sub', 'mul', 'div', 'max', 'min', 'pow'];

function binCase(op, t, tag, a, b, extra = []) {
  return elementwiseCase({
    name: `webnn.${op}.${t}.${tag}`,
    labels: [op, t, ...extra],
    opName: op,
    args: [{ a: 'a' }, { b: 'b' }],
    inputs: { a, b },
    operandNames: ['a', 'b'],
    outDtype: t,
    fn: (x, y) => BINARY[op](t, x, y),
  });
}

// ---------------------------------------------------------------------------------------------------------
// Float data.

const FLOAT_BASIC = {
  default: { a: [1, -2.5, 0.25, 100, -7, 3.75], b: [2, 0.5, -0.125, 28, 7, -10] },
  pow: { a: [2, 3, 0.5, 4, 10, -2], b: [3, -1, 2, 0.5, -2, 3] },
};
const FLOAT_SCALAR = { add: 0.5, sub: 1.25, mul: -2, div: -0.75, max: 0, min: 0, pow: 2 };

// Pairs whose results need rounding, overflow, underflow, or sit next to rounding boundaries.
const ROUNDING = {
  float32: unzip([
    [16777216, 1], [16777216, 3], [1, 1e-8], [0.1, 0.2], [3e38, 3e38], [1e-45, 1e-45],
    [1.1754942e-38, 1e-45], [1.5, 3], [7, 3], [1e20, 1e20], [1e-20, 1e-20], [-123.456, 0.001],
    [2.5, -1e-30], [1e-30, 3e-20], [-0.3, 0.7], [65504, 65535.99],
  ]),
  float16: unzip([
    [2048, 1], [2048, 3], [1, 0.0004], [0.1, 0.2], [65504, 16], [6e-8, 6e-8], [6.1e-5, 6e-8],
    [1.5, 3], [7, 3], [300, 300], [0.001, 0.001], [-123.4, 0.01], [60000, 10000], [255.9, 256.1],
    [-0.3, 0.7], [0.33325, 3],
  ]),
};

function floatCases(op, t) {
  const out = [];
  const basic = FLOAT_BASIC[op] || FLOAT_BASIC.default;
  out.push(binCase(op, t, 'basic', T(t, [2, 3], basic.a), C(t, [2, 3], basic.b)));
  out.push(binCase(op, t, 'rank0', T(t, [], [1.5]), C(t, [], [-0.75]), ['rank0']));
  out.push(binCase(op, t, 'broadcast_scalar_by_rank4',
    T(t, [2, 2, 2, 3], range(-3, 0.25)), C(t, [], FLOAT_SCALAR[op]), ['broadcast', 'generator']));
  out.push(binCase(op, t, 'broadcast_2x1x3_by_4x1',
    T(t, [2, 1, 3], [1, -2, 3.5, 0.5, 8, -0.25]), T(t, [4, 1], [2, -1, 0.5, 4]), ['broadcast']));
  out.push(binCase(op, t, 'broadcast_1_by_2x3x4x5x1',
    C(t, [1], [1.5]), T(t, [2, 3, 4, 5, 1], uniform(7, -10, 10)), ['broadcast', 'generator']));
  out.push(binCase(op, t, 'broadcast_rank6',
    T(t, [2, 1, 2, 1, 1, 3], uniform(11, -4, 4)), C(t, [2, 1, 3, 1], range(-1.5, 0.5)),
    ['broadcast', 'generator', 'rank6']));
  const s = SPECIAL[t];
  out.push(binCase(op, t, 'special_values_grid',
    T(t, [s.length, 1], s), C(t, [1, s.length], s), ['special_values', 'broadcast']));
  out.push(binCase(op, t, 'rounding', T(t, [ROUNDING[t].a.length], ROUNDING[t].a),
    T(t, [ROUNDING[t].b.length], ROUNDING[t].b), ['rounding']));
  if (op === 'pow') out.push(...powOpenCases(t));
  return out;
}

// pow(+-1, +-Infinity) and pow(1, NaN): the spec is silent; C99/IEEE 754 pow gives 1 and JavaScript's
// Math.pow gives NaN, and WebNN implementations use both. The reference marks these elements value-or-NaN
// (docs/deviations.md). The same inputs are written twice: once with the C values (powC) and once with the
// values of Math.pow itself, so that an implementation of either kind passes. The other elements (pow(-1, NaN),
// pow(NaN, +-0), pow(1, 2), pow(-1, 3)) agree in both and stay exact.
const POW_OPEN = unzip([
  [1, NaN], [1, Infinity], [1, -Infinity], [-1, Infinity], [-1, -Infinity],
  [-1, NaN], [NaN, 0], [NaN, -0], [1, 2], [-1, 3],
]);
function powOpenCases(t) {
  const a = T(t, [POW_OPEN.a.length], POW_OPEN.a), b = T(t, [POW_OPEN.b.length], POW_OPEN.b);
  const js = elementwiseCase({
    name: `webnn.pow.${t}.one_base_open_math_pow_nan`, labels: ['pow', t, 'special_values', 'value_or_nan'],
    opName: 'pow', args: [{ a: 'a' }, { b: 'b' }], inputs: { a, b }, operandNames: ['a', 'b'], outDtype: t,
    fn: (x, y) => roundTo(t, Math.pow(x, y)),
  });
  return [binCase('pow', t, 'one_base_open_c_pow_one', a, b, ['special_values', 'value_or_nan']), js];
}

// ---------------------------------------------------------------------------------------------------------
// Integer data (all values chosen so that no element overflows, except in the "overflow" cases).

const INT_BASIC = {
  add: { s: { a: [1, -2, 3, -4, 50, -60], b: [5, 6, -7, -8, 70, 60] },
    u: { a: [1, 2, 3, 4, 50, 100], b: [5, 6, 7, 8, 70, 155] } },
  sub: { s: { a: [1, -2, 3, -4, 50, -60], b: [5, 6, -7, -8, 70, 60] },
    u: { a: [5, 6, 7, 8, 70, 255], b: [1, 2, 3, 4, 50, 100] } },
  mul: { s: { a: [1, -2, 3, -4, 5, -11], b: [5, 6, -7, -8, 11, -11] },
    u: { a: [1, 2, 3, 4, 5, 15], b: [5, 6, 7, 8, 11, 17] } },
  div: { s: { a: [7, -7, 7, -7, 100, -128], b: [2, 2, -2, -2, 3, 3] },
    u: { a: [7, 8, 9, 200, 255, 0], b: [2, 3, 4, 7, 16, 5] } },
  max: { s: { a: [1, -2, 3, -4, 50, -60], b: [5, -6, -7, -4, 70, 60] },
    u: { a: [1, 20, 3, 4, 50, 200], b: [5, 6, 3, 8, 70, 155] } },
  pow: { s: { a: [2, -3, 0, 1, -1, 5], b: [3, 3, 0, 7, 4, 2] },
    u: { a: [2, 3, 0, 1, 5, 15], b: [7, 5, 0, 9, 3, 2] } },
};
INT_BASIC.min = INT_BASIC.max;

const INT_BCAST = {
  s: { a: [1, -2, 3, 4, -5, 6], b: [2, -1, 3, 1] },
  u: { a: [10, 20, 30, 40, 50, 60], b: [2, 1, 3, 1] },
  pow: { s: { a: [1, -2, 3, 4, -5, -3], b: [2, 0, 3, 1] }, u: { a: [1, 2, 3, 4, 5, 6], b: [2, 0, 3, 1] } },
};

// Per op: random range for the rank-4 operand and the scalar operand (scalar_by_rank4); the constant and
// random range of broadcast_1_by_rank5; random range and range() start of broadcast_rank6.
function intPlan(op, t) {
  const [lo, hi] = lim(t);
  const sg = isSigned(t);
  const h = hi / 2n, l = lo / 2n;
  const q = hi / 4n, lq = lo / 4n;
  switch (op) {
    case 'add': return { r4: randRange(t, l, h), s: 5, c5: 7, r5: randRange(t, l, h), r6: sg ? [-50, 50] : [0, 100], s6: sg ? -3 : 0 };
    case 'sub': return { r4: sg ? randRange(t, l, h) : randRange(t, h, hi), s: 3, c5: sg ? 7 : 200, r5: sg ? randRange(t, l, h) : [0, 200], r6: sg ? [-50, 50] : [10, 100], s6: sg ? -3 : 0 };
    case 'mul': return { r4: randRange(t, lq, q), s: 3, c5: sg ? -3 : 3, r5: randRange(t, lq, q), r6: sg ? [-20, 20] : [0, 40], s6: sg ? -3 : 0 };
    case 'div': return { r4: randRange(t, lo + 1n, hi), s: sg ? -3 : 3, c5: hi, r5: [1, 9], r6: randRange(t, lo + 1n, hi), s6: 1 };
    case 'max': case 'min': return { r4: randRange(t), s: sg ? 0 : 100, c5: sg ? 0 : 100, r5: randRange(t), r6: randRange(t), s6: sg ? -3 : 0 };
    case 'pow': return { r4: sg ? [-11, 11] : [0, 15], s: 2, c5: 2, r5: [0, bits(t) - (sg ? 2 : 1)], r6: sg ? [-2, 2] : [0, 3], s6: 0 };
    default: throw new Error(op);
  }
}

function intExtremes(op, t) {
  const [lo, hi] = lim(t);
  const sg = isSigned(t);
  const n = BigInt(bits(t));
  const big = bits(t) === 64;
  const P53 = 2n ** 53n;
  let pairs;
  switch (op) {
    case 'add':
      pairs = sg ? [[hi, 0n], [lo, 0n], [hi, lo], [lo + 1n, -1n], [0n, hi], [hi - 1n, 1n]]
        : [[hi, 0n], [0n, hi], [hi - 1n, 1n], [1n, hi - 1n], [hi / 2n, hi / 2n + 1n]];
      if (big) pairs.push([P53 + 1n, 1n], [P53, P53 + 1n], [P53 + 1n, -(sg ? P53 : 0n)]);
      break;
    case 'sub':
      pairs = sg ? [[hi, hi], [lo, lo], [-1n, hi], [0n, hi], [hi, 0n], [lo, 0n], [lo + 1n, 1n]]
        : [[hi, hi], [hi, 0n], [1n, 1n], [0n, 0n], [hi, hi - 1n], [hi, 1n]];
      if (big) pairs.push([P53 + 1n, 1n], [P53 + 3n, P53], [hi, P53 + 1n]);
      break;
    case 'mul': {
      const k = n / 2n;
      pairs = sg ? [[hi, 1n], [lo, 1n], [hi, -1n], [lo + 1n, -1n], [0n, lo], [-1n, hi],
        [2n ** (k - 1n), 2n ** (n - 1n - k)], [-(2n ** k), 2n ** (n - 1n - k)]]
        : [[hi, 1n], [0n, hi], [1n, hi], [2n ** k, 2n ** (n - 1n - k)], [2n ** (k - 1n), 2n ** (n - k)]];
      if (big) pairs.push([P53 + 1n, 3n], [4294967297n, sg ? 2147483647n : 4294967295n]);
      break;
    }
    case 'div':
      pairs = sg ? [[hi, 1n], [lo, 1n], [hi, -1n], [lo, 2n], [hi, lo], [lo, hi], [-1n, lo], [7n, hi], [lo + 1n, -1n]]
        : [[hi, 1n], [hi, hi], [0n, hi], [1n, hi], [hi, 2n], [hi - 1n, hi]];
      if (big) pairs.push([P53 + 1n, 1n], [hi, P53 + 1n], [P53 * 3n, 3n]);
      break;
    case 'pow':
      pairs = sg ? [[lo, 1n], [hi, 1n], [2n, n - 2n], [-2n, n - 1n], [-1n, 101n], [-1n, 100n], [0n, 0n], [1n, 99n], [lo, 0n]]
        : [[hi, 1n], [2n, n - 1n], [0n, 5n], [1n, 199n], [3n, 2n], [hi, 0n]];
      if (big) pairs.push([3n, 33n], [P53 + 1n, 1n]);
      break;
    default: throw new Error(op);
  }
  return unzip(pairs);
}

const OVERFLOW_CASE_TYPE = { add: 'int8', sub: 'uint32', mul: 'int32', pow: 'int64' };
const NEGATIVE_EXPONENT_TYPES = ['int8', 'int32', 'int64'];

function intOverflow(op, t) {
  const [lo, hi] = lim(t);
  const sg = isSigned(t);
  const n = BigInt(bits(t));
  switch (op) {
    case 'add': return unzip(sg ? [[hi, 1n], [lo, -1n], [hi, hi], [1n, 2n]] : [[hi, 1n], [hi, hi], [1n, 2n]]);
    case 'sub': return unzip(sg ? [[lo, 1n], [hi, -1n], [0n, lo], [5n, 2n]] : [[0n, 1n], [0n, hi], [5n, 2n]]);
    case 'mul': return unzip(sg ? [[hi, 2n], [lo, -1n], [hi, hi], [3n, 2n]] : [[hi, 2n], [hi, hi], [3n, 2n]]);
    case 'pow': return unzip(sg ? [[2n, n], [3n, n], [-2n, n + 1n], [2n, 2n]] : [[2n, n], [3n, n], [2n, 2n]]);
    case 'div': return unzip(sg ? [[5n, 0n], [lo, -1n], [0n, 0n], [7n, 2n]] : [[5n, 0n], [0n, 0n], [7n, 2n]]);
    default: return null;
  }
}

function intCases(op, t) {
  const out = [];
  const sg = isSigned(t);
  const bd = INT_BASIC[op][sg ? 's' : 'u'];
  out.push(binCase(op, t, 'basic', T(t, [2, 3], bd.a), C(t, [2, 3], bd.b)));
  out.push(binCase(op, t, 'rank0', C(t, [], [bd.a[1]]), T(t, [], [bd.b[1]]), ['rank0']));
  const p = intPlan(op, t);
  out.push(binCase(op, t, 'broadcast_scalar_by_rank4',
    T(t, [2, 2, 2, 3], uniform(3, p.r4[0], p.r4[1])), C(t, [], p.s), ['broadcast', 'generator']));
  const bc = op === 'pow' ? INT_BCAST.pow[sg ? 's' : 'u'] : INT_BCAST[sg ? 's' : 'u'];
  out.push(binCase(op, t, 'broadcast_2x1x3_by_4x1', T(t, [2, 1, 3], bc.a), T(t, [4, 1], bc.b), ['broadcast']));
  out.push(binCase(op, t, 'broadcast_1_by_2x3x4x5x1',
    C(t, [1], [p.c5]), T(t, [2, 3, 4, 5, 1], uniform(5, p.r5[0], p.r5[1])), ['broadcast', 'generator']));
  out.push(binCase(op, t, 'broadcast_rank6',
    T(t, [2, 1, 2, 1, 1, 3], uniform(13, p.r6[0], p.r6[1])), C(t, [2, 1, 3, 1], range(p.s6, 1)),
    ['broadcast', 'generator', 'rank6']));
  if (op === 'max' || op === 'min') {
    const s = intSpecial(t);
    out.push(binCase(op, t, 'extremes_grid', T(t, [s.length, 1], s), C(t, [1, s.length], s),
      ['extremes', 'broadcast']));
  } else {
    const e = intExtremes(op, t);
    out.push(binCase(op, t, 'extremes', T(t, [e.a.length], e.a), T(t, [e.b.length], e.b), ['extremes']));
    // Implementation-defined elements: one labelled case per op (wrapping overflow), or per type for div.
    if (op === 'div' || OVERFLOW_CASE_TYPE[op] === t) {
      const o = intOverflow(op, t);
      const tag = op === 'div' ? 'division_by_zero' : 'overflow';
      out.push(binCase(op, t, tag, T(t, [o.a.length], o.a), C(t, [o.b.length], o.b),
        [tag, 'implementation_defined']));
    }
    if (op === 'pow' && NEGATIVE_EXPONENT_TYPES.includes(t)) {
      // Negative exponents: exact only for bases 1 and -1 (ops.mjs BINARY.pow), including the most negative
      // exponent (even) and the one above it (odd); every other base gives a fraction (or, for 0, an infinity).
      const [lo] = lim(t);
      const exps = [-1n, -2n, -3n, lo, lo + 1n];
      out.push(binCase(op, t, 'negative_exponent', T(t, [2, 1], [1n, -1n]), C(t, [1, exps.length], exps),
        ['negative_exponent', 'broadcast']));
      out.push(binCase(op, t, 'negative_exponent_fraction', T(t, [3, 1], [0n, 2n, -3n]), C(t, [1, 3], [-1n, -2n, -3n]),
        ['negative_exponent', 'broadcast', 'implementation_defined']));
    }
  }
  return out;
}

function errorCases(op) {
  return [
    errorCase({
      name: `webnn.${op}.error.data_type_mismatch`, labels: [op, 'float32'], opName: op,
      args: [{ a: 'a' }, { b: 'b' }],
      inputs: { a: T('float32', [2], [1, 2]), b: T('int32', [2], [1, 2]) },
    }),
    errorCase({
      name: `webnn.${op}.error.data_type_mismatch_float16_float32`, labels: [op, 'float16'], opName: op,
      args: [{ a: 'a' }, { b: 'b' }],
      inputs: { a: T('float16', [2], [1, 2]), b: C('float32', [2], [1, 2]) },
    }),
    errorCase({
      name: `webnn.${op}.error.not_broadcastable_2x3_by_3x2`, labels: [op, 'float32'], opName: op,
      args: [{ a: 'a' }, { b: 'b' }],
      inputs: { a: T('float32', [2, 3], [1, 2, 3, 4, 5, 6]), b: T('float32', [3, 2], [1, 2, 3, 4, 5, 6]) },
    }),
    errorCase({
      name: `webnn.${op}.error.not_broadcastable_4_by_2x3`, labels: [op, 'int32'], opName: op,
      args: [{ a: 'a' }, { b: 'b' }],
      inputs: { a: T('int32', [4], [1, 2, 3, 4]), b: C('int32', [2, 3], [1, 2, 3, 4, 5, 6]) },
    }),
  ];
}

export function binaryFiles() {
  const files = {};
  for (const op of BINARY_OPS) {
    const cases = [];
    for (const t of DTYPES) cases.push(...(isFloat(t) ? floatCases(op, t) : intCases(op, t)));
    cases.push(...errorCases(op));
    files[op] = cases;
  }
  return files;
}
