// Cases for the element-wise unary operations.

import { DTYPES, FLOAT_TYPES, isFloat, isSigned, intRange } from './numerics.mjs';
import { T, C, elementwiseCase, errorCase } from './casebuild.mjs';
import { UNARY } from './ops.mjs';
import { SPECIAL, randRange, uniform, range, fill } from './common.mjs';

export const SIGNED_UNARY_OPS = ['abs', 'neg', 'sign'];
export const FLOAT_UNARY_OPS = ['ceil', 'cos', 'erf', 'exp', 'floor', 'log', 'reciprocal', 'roundEven', 'sin',
  'sqrt', 'tan'];
const SIGNED_TYPES = ['float32', 'float16', 'int64', 'int32', 'int8'];

function un(op, t, tag, x, extra = []) {
  return elementwiseCase({
    name: `webnn.${op}.${t}.${tag}`, labels: [op, t, ...extra], opName: op,
    args: [{ input: 'x' }], inputs: { x }, operandNames: ['x'], outDtype: t,
    fn: (v) => UNARY[op](t, v),
  });
}

function unError(op, dt) {
  return errorCase({
    name: `webnn.${op}.error.${dt}_input`, labels: [op, dt], opName: op, args: [{ input: 'x' }],
    inputs: { x: T(dt, [2], [1, 2]) },
  });
}

// Inputs that are changed by rounding to the type on the way in.
const INPUT_ROUNDING = {
  float32: [0.1, -16777217, 3.5e38, -1e-46, 1e-45, 1.1754942e-38, -3.4028235e38, 0.3333333333],
  float16: [0.1, -65519, 65520, -1e5, 2049, -6e-8, 2.98e-8, 0.3333333333],
};

function floatBasicCases(op, t) {
  const s = SPECIAL[t];
  return [
    un(op, t, 'basic', T(t, [2, 3], [1, -2.5, 0.25, -100, 7.75, -0.125])),
    un(op, t, 'special_values', T(t, [s.length], s), ['special_values']),
    un(op, t, 'rank0', C(t, [], [-3.5]), ['rank0']),
    un(op, t, 'rank5_random', T(t, [2, 3, 4, 5, 1], uniform(43, -10, 10)), ['generator']),
    un(op, t, 'input_rounding', T(t, [INPUT_ROUNDING[t].length], INPUT_ROUNDING[t]), ['rounding']),
  ];
}

function intExtremes(t) {
  const [lo, hi] = intRange(t);
  const v = [lo + 1n, hi, -1n, 0n, 1n, hi - 1n];
  if (t === 'int64') v.push(2n ** 53n + 1n, -(2n ** 53n) - 1n, 2n ** 62n + 3n);
  return v;
}

function signedUnaryCases(op) {
  const out = [];
  for (const t of SIGNED_TYPES) {
    if (isFloat(t)) {
      out.push(...floatBasicCases(op, t));
    } else {
      const [lo] = intRange(t);
      out.push(un(op, t, 'basic', T(t, [2, 3], [1, -2, 3, -4, 0, 100])));
      const ex = intExtremes(t);
      if (op === 'sign') ex.push(lo);
      out.push(un(op, t, 'extremes', T(t, [ex.length], ex), ['extremes']));
      if ((op === 'abs' && t === 'int8') || (op === 'neg' && t === 'int64')) { // one labelled case per op
        out.push(un(op, t, 'overflow', C(t, [2], [lo, 5n]), ['overflow', 'implementation_defined']));
      }
      out.push(un(op, t, 'rank0', T(t, [], [-7]), ['rank0']));
      const [rl, rh] = randRange(t, intRange(t)[0] + 1n);
      out.push(un(op, t, 'rank5_random', C(t, [2, 3, 4, 5, 1], uniform(47, rl, rh)), ['generator']));
    }
  }
  const bad = { abs: ['uint32', 'uint8'], neg: ['uint8', 'uint64'], sign: ['uint64', 'uint32'] }[op];
  for (const dt of bad) out.push(unError(op, dt));
  return out;
}

function identityCases() {
  const op = 'identity';
  const out = [];
  for (const t of DTYPES) {
    if (isFloat(t)) {
      const s = SPECIAL[t];
      out.push(un(op, t, 'basic', T(t, [2, 3], [1, -2.5, 0.25, -100, 7.75, -0.125])));
      out.push(un(op, t, 'special_values', T(t, [s.length], s), ['special_values']));
      out.push(un(op, t, 'input_rounding', T(t, [INPUT_ROUNDING[t].length], INPUT_ROUNDING[t]), ['rounding']));
      out.push(un(op, t, 'rank5_random', T(t, [2, 3, 4, 5, 1], uniform(53, -100, 100)), ['generator']));
    } else {
      const [lo, hi] = intRange(t);
      out.push(un(op, t, 'basic', T(t, [2, 3], isSigned(t) ? [1, -2, 3, -4, 0, 100] : [1, 2, 3, 4, 0, 100])));
      const ex = isSigned(t) ? [lo, lo + 1n, -1n, 0n, 1n, hi - 1n, hi] : [0n, 1n, 127n, 128n, 255n, hi - 1n, hi];
      out.push(un(op, t, 'extremes', T(t, [ex.length], ex), ['extremes']));
      const [rl, rh] = randRange(t);
      out.push(un(op, t, 'rank5_random', T(t, [2, 3, 4, 5, 1], uniform(59, rl, rh)), ['generator']));
    }
    out.push(un(op, t, 'rank0', T(t, [], [isSigned(t) ? -3 : 3]), ['rank0']));
    out.push(un(op, t, 'constant_input', C(t, [3, 1], [1, 0, 2]), ['constant']));
    out.push(un(op, t, 'fill_rank4', T(t, [2, 1, 3, 2], fill(isFloat(t) ? 0.1 : 9)), ['generator']));
  }
  return out;
}

// Op-specific inputs (authoring values; each list is used for both float types and rounded on the way in).
const FLOAT_EXTRA = {
  ceil: [['halves', [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, -0.4, 0.4, -0.99, 1.0000001]],
    ['large', { float32: [8388607.5, -8388607.5, 16777215, 1023.5, -1023.5, 2047, 65504, -65504, 1e30],
    float16: [1023.5, -1023.5, 511.25, -511.75, 1024, 2047, 65504, -65504, 0.99951171875] }]],
  floor: [['halves', [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, -0.4, 0.4, -0.99, 1.0000001]],
    ['large', { float32: [8388607.5, -8388607.5, 16777215, 1023.5, -1023.5, 2047, 65504, -65504, 1e30],
    float16: [1023.5, -1023.5, 511.25, -511.75, 1024, 2047, 65504, -65504, 0.99951171875] }]],
  roundEven: [['spec_example', [0.1, 0.9, 1.1, 1.9, -3.5, -2.5, -1.5, 1.5, 2.5, 3.5]],
    ['halves', [0.5, -0.5, 4.5, -4.5, 5.5, 0.49999997, -0.4, 0.50000006, 1023.5, -1022.5]],
    ['large', { float32: [8388607.5, -8388606.5, 8388609, 4194304.5, 65504, -65504, 1e30, 2097151.5],
    float16: [1023.5, -1022.5, 1021.5, 511.25, 511.75, 65504, -65504, 2047] }]],
  sqrt: [['perfect_squares', [0, 1, 4, 9, 16, 0.25, 1024, 65025, 1e-44, 6.25]],
    ['irrational', [2, 3, 0.1, 5, 1e-45, 6e-8, 1e30, 65504, 1e-40]]],
  reciprocal: [['values', [3, 7, 0.1, -0.3, 65504, -65504, 1e-45, 6e-8, 6.1e-5, 1e30, 1e-30, 2048]]],
  exp: [['overflow_underflow', [88, 88.8, 89, -103, -104, -87, 11, 11.1, -17, -18, 710, -745]],
    ['values', [0.5, -0.5, 1, 2, 3, 1e-8, -1e-8, 10]]],
  log: [['values', [1e-45, 0.5, 2.718281828459045, 10, 1e38, 6e-8, 65504, 1.0000001, 0.9999999, 2]]],
  sin: [['values', [3.141592653589793, 1.5707963267948966, 1e4, -1e4, 1e30, 0.5, -0.001, 100, 65504]]],
  cos: [['values', [3.141592653589793, 1.5707963267948966, 1e4, -1e4, 1e30, 0.5, -0.001, 100, 65504]]],
  tan: [['values', [0.7853981633974483, 1, -1, 0.5, 3, 1e4, -0.001, 100, 1e-7]]],
  erf: [['values', [0.1, 0.5, 1, 2, 3, -3, 4, 6, 1e-30, -1e-40, 0.9, -1.5, 2.6, 5.5]],
    ['values_small', [1e-45, 6e-8, 1e-3, -1e-5, 0.25, 0.75]]],
};

const FLOAT_RANGE = {
  log: range(0.25, 0.25), sqrt: range(0.25, 0.25), default: range(-3, 0.25),
};

function floatUnaryCases(op) {
  const out = [];
  for (const t of FLOAT_TYPES) {
    const s = SPECIAL[t];
    const basic = op === 'log' || op === 'sqrt' ? [1, 2.5, 0.25, 100, 7.75, 0.125] : [1, -2.5, 0.25, -100, 7.75, -0.125];
    out.push(un(op, t, 'basic', T(t, [2, 3], basic)));
    out.push(un(op, t, 'special_values', T(t, [s.length], s), ['special_values']));
    out.push(un(op, t, 'rank0', C(t, [], [0.75]), ['rank0']));
    out.push(un(op, t, 'range_5x5', T(t, [5, 5], FLOAT_RANGE[op] || FLOAT_RANGE.default), ['generator']));
    out.push(un(op, t, 'rank5_random', T(t, [2, 3, 4, 5, 1],
      op === 'log' || op === 'sqrt' ? uniform(61, 0, 100) : uniform(61, -4, 4)), ['generator']));
    for (const [tag, v] of FLOAT_EXTRA[op] || []) {
      const vals = Array.isArray(v) ? v : v[t];
      out.push(un(op, t, tag, T(t, [vals.length], vals)));
    }
  }
  const bad = {
    ceil: 'int8', cos: 'int32', erf: 'uint8', exp: 'int32', floor: 'int64', log: 'uint32', reciprocal: 'int32',
    roundEven: 'int8', sin: 'int64', sqrt: 'uint64', tan: 'int32',
  }[op];
  out.push(unError(op, bad));
  return out;
}

export function unaryFiles() {
  const files = {};
  for (const op of SIGNED_UNARY_OPS) files[op] = signedUnaryCases(op);
  files.identity = identityCases();
  for (const op of FLOAT_UNARY_OPS) files[op] = floatUnaryCases(op);
  return files;
}
