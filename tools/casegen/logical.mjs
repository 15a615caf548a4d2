// Cases for the element-wise logical operations: comparisons, logicalNot/And/Or/Xor, isNaN, isInfinite.

import { DTYPES, FLOAT_TYPES, isFloat, isSigned, intRange } from './numerics.mjs';
import { T, C, elementwiseCase, errorCase } from './casebuild.mjs';
import { COMPARE, LOGICAL } from './ops.mjs';
import { SPECIAL, intSpecial, uniform, range, fill, unzip } from './common.mjs';

export const COMPARE_OPS = ['equal', 'notEqual', 'greater', 'greaterOrEqual', 'lesser', 'lesserOrEqual'];
export const LOGICAL_BINARY_OPS = ['logicalAnd', 'logicalOr', 'logicalXor'];

function bin(op, t, tag, a, b, extra, fn) {
  return elementwiseCase({
    name: `webnn.${op}.${t}.${tag}`, labels: [op, t, ...extra], opName: op,
    args: [{ a: 'a' }, { b: 'b' }], inputs: { a, b }, operandNames: ['a', 'b'], outDtype: 'uint8',
    fn: (x, y) => fn(t, x, y),
  });
}
function un(op, t, tag, a, extra, fn) {
  return elementwiseCase({
    name: `webnn.${op}.${t}.${tag}`, labels: [op, t, ...extra], opName: op,
    args: [{ a: 'a' }], inputs: { a }, operandNames: ['a'], outDtype: 'uint8',
    fn: (x) => fn(t, x),
  });
}

const ROUND_EQUAL = {
  float32: unzip([[16777217, 16777216], [0.1, 0.10000000149011612], [1e-46, 0], [3.5e38, Infinity],
    [1.00000001, 1], [-1e-46, 0], [1.1754942e-38, 1.1754942106924411e-38], [7e-46, 1e-45]]),
  float16: unzip([[2049, 2048], [0.1, 0.0999755859375], [65520, Infinity], [1.0001, 1], [6e-8, 5.96e-8],
    [2.98e-8, -0], [65519, 65504], [1.00048828125, 1]]),
};

function compareCases(op) {
  const fn = COMPARE[op];
  const out = [];
  for (const t of DTYPES) {
    const fl = isFloat(t);
    const sg = isSigned(t);
    const basic = fl ? { a: [1, -2.5, 3, 0.5, -0, 7], b: [1, 2.5, -3, 0.5, 0, 8] }
      : sg ? { a: [1, -2, 3, 5, 0, 7], b: [1, 2, -3, 5, 0, 8] } : { a: [1, 2, 3, 5, 0, 7], b: [1, 20, 3, 4, 0, 8] };
    out.push(bin(op, t, 'basic', T(t, [2, 3], basic.a), C(t, [2, 3], basic.b), [], fn));
    out.push(bin(op, t, 'rank0', T(t, [], [2]), C(t, [], 3), ['rank0'], fn));
    out.push(bin(op, t, 'rank0_equal', C(t, [], [3]), T(t, [], [3]), ['rank0'], fn));
    out.push(bin(op, t, 'broadcast_2x1x3_by_4x1', T(t, [2, 1, 3], [1, 2, 3, 4, 5, 6]),
      T(t, [4, 1], [2, 5, 0, 6]), ['broadcast'], fn));
    out.push(bin(op, t, 'broadcast_scalar_by_rank4', T(t, [2, 2, 2, 3], range(sg ? -12 : 0, 1)),
      C(t, [], sg ? 0 : 12), ['broadcast', 'generator'], fn));
    out.push(bin(op, t, 'broadcast_1_by_2x3x4x5x1', C(t, [1], [fl ? 0.5 : 3]),
      T(t, [2, 3, 4, 5, 1], uniform(17, sg ? -5 : 0, sg ? 5 : 10)), ['broadcast', 'generator'], fn));
    out.push(bin(op, t, 'broadcast_rank6', T(t, [2, 1, 2, 1, 1, 3], uniform(23, sg ? -3 : 0, sg ? 3 : 6)),
      C(t, [2, 1, 3, 1], range(sg ? -2 : 0, 1)), ['broadcast', 'generator', 'rank6'], fn));
    if (fl) {
      const s = SPECIAL[t];
      out.push(bin(op, t, 'special_values_grid', T(t, [s.length, 1], s), C(t, [1, s.length], s),
        ['special_values', 'broadcast'], fn));
      const r = ROUND_EQUAL[t];
      out.push(bin(op, t, 'inputs_round_to_type', T(t, [r.a.length], r.a), T(t, [r.b.length], r.b),
        ['rounding'], fn));
    } else {
      const s = intSpecial(t);
      out.push(bin(op, t, 'extremes_grid', T(t, [s.length, 1], s), C(t, [1, s.length], s),
        ['extremes', 'broadcast'], fn));
      if (t === 'int64' || t === 'uint64') {
        const [lo, hi] = intRange(t);
        const P = 2n ** 53n;
        const p = sg ? unzip([[P + 1n, P], [P, P + 1n], [hi, hi - 1n], [lo, lo + 1n], [hi - 1n, hi], [-P - 1n, -P], [P + 1n, P + 1n]])
          : unzip([[P + 1n, P], [P, P + 1n], [hi, hi - 1n], [hi - 1n, hi], [2n ** 63n, 2n ** 63n - 1n], [2n ** 63n, 2n ** 63n], [P + 1n, P + 1n]]);
        out.push(bin(op, t, 'beyond_2_53', T(t, [p.a.length], p.a), C(t, [p.b.length], p.b), ['extremes'], fn));
      }
    }
  }
  out.push(errorCase({
    name: `webnn.${op}.error.data_type_mismatch`, labels: [op, 'float32'], opName: op,
    args: [{ a: 'a' }, { b: 'b' }], inputs: { a: T('float32', [2], [1, 2]), b: T('float16', [2], [1, 2]) },
  }));
  out.push(errorCase({
    name: `webnn.${op}.error.data_type_mismatch_int32_uint32`, labels: [op, 'int32'], opName: op,
    args: [{ a: 'a' }, { b: 'b' }], inputs: { a: T('int32', [2], [1, 2]), b: C('uint32', [2], [1, 2]) },
  }));
  out.push(errorCase({
    name: `webnn.${op}.error.not_broadcastable_2x3_by_2`, labels: [op, 'float32'], opName: op,
    args: [{ a: 'a' }, { b: 'b' }],
    inputs: { a: T('float32', [2, 3], [1, 2, 3, 4, 5, 6]), b: T('float32', [2], [1, 2]) },
  }));
  return out;
}

function logicalBinaryCases(op) {
  const fn = LOGICAL[op];
  const t = 'uint8';
  const tv = [0, 1, 2, 255];
  const out = [
    bin(op, t, 'truth_table', T(t, [4, 1], tv), C(t, [1, 4], tv), ['broadcast'], fn),
    bin(op, t, 'basic', T(t, [2, 3], [0, 1, 0, 3, 200, 0]), C(t, [2, 3], [0, 0, 1, 7, 0, 255]), [], fn),
    bin(op, t, 'rank0', T(t, [], [5]), T(t, [], [0]), ['rank0'], fn),
    bin(op, t, 'broadcast_scalar_by_rank4', T(t, [2, 2, 2, 3], uniform(19, 0, 2)), C(t, [], 1),
      ['broadcast', 'generator'], fn),
    bin(op, t, 'broadcast_1_by_2x3x4x5x1', C(t, [1], [0]), T(t, [2, 3, 4, 5, 1], uniform(29, 0, 3)),
      ['broadcast', 'generator'], fn),
    bin(op, t, 'broadcast_rank6', T(t, [2, 1, 2, 1, 1, 3], uniform(31, 0, 1)), C(t, [2, 1, 3, 1], range(0, 1)),
      ['broadcast', 'generator', 'rank6'], fn),
    bin(op, t, 'broadcast_2x1x3_by_4x1', T(t, [2, 1, 3], [0, 9, 1, 0, 0, 4]), T(t, [4, 1], fill(1)),
      ['broadcast', 'generator'], fn),
  ];
  const e = (tag, a, b, dt = 'float32') => errorCase({
    name: `webnn.${op}.error.${tag}`, labels: [op, dt], opName: op,
    args: [{ a: 'a' }, { b: 'b' }], inputs: { a, b },
  });
  out.push(e('float32_inputs', T('float32', [2], [0, 1]), T('float32', [2], [1, 1])));
  out.push(e('int8_inputs', T('int8', [2], [0, 1]), C('int8', [2], [1, 1]), 'int8'));
  out.push(e('data_type_mismatch_uint8_int8', T('uint8', [2], [0, 1]), T('int8', [2], [1, 1]), 'uint8'));
  out.push(e('not_broadcastable_3_by_2', T('uint8', [3], [0, 1, 1]), T('uint8', [2], [1, 1]), 'uint8'));
  return out;
}

function logicalNotCases() {
  const op = 'logicalNot';
  const fn = LOGICAL[op];
  const t = 'uint8';
  const out = [
    un(op, t, 'basic', T(t, [2, 3], [0, 1, 2, 255, 0, 128]), [], fn),
    un(op, t, 'rank0', T(t, [], [0]), ['rank0'], fn),
    un(op, t, 'rank0_nonzero', C(t, [], [7]), ['rank0'], fn),
    un(op, t, 'rank5_random', T(t, [2, 3, 4, 5, 1], uniform(37, 0, 2)), ['generator'], fn),
    un(op, t, 'fill_zero', T(t, [3, 4], fill(0)), ['generator'], fn),
  ];
  for (const dt of ['float32', 'int32']) {
    out.push(errorCase({
      name: `webnn.${op}.error.${dt}_input`, labels: [op, dt], opName: op, args: [{ a: 'a' }],
      inputs: { a: T(dt, [2], [0, 1]) },
    }));
  }
  return out;
}

const EXTRA_SPECIAL = {
  float32: [3.4028235e38, 3.5e38, -1e39, 1e-50, -3.4028235e38, 1e-45],
  float16: [65504, 65519, 65520, -65520, 1e5, 1e-8, -65504, 6e-8],
};

function nanInfCases(op) {
  const fn = LOGICAL[op];
  const out = [];
  for (const t of FLOAT_TYPES) {
    const s = SPECIAL[t];
    out.push(un(op, t, 'special_values', T(t, [s.length], s), ['special_values'], fn));
    out.push(un(op, t, 'basic', C(t, [2, 3], [1, NaN, -Infinity, 0, Infinity, -2.5]), [], fn));
    out.push(un(op, t, 'rank0_nan', T(t, [], ['NaN']), ['rank0'], fn));
    out.push(un(op, t, 'rank0_infinity', T(t, [], ['-Infinity']), ['rank0'], fn));
    out.push(un(op, t, 'overflow_on_input', T(t, [EXTRA_SPECIAL[t].length], EXTRA_SPECIAL[t]), ['rounding'], fn));
    out.push(un(op, t, 'rank4_random', T(t, [2, 3, 4, 5], uniform(41, -1000, 1000)), ['generator'], fn));
  }
  for (const dt of op === 'isNaN' ? ['int32', 'uint8'] : ['int8', 'int64']) {
    out.push(errorCase({
      name: `webnn.${op}.error.${dt}_input`, labels: [op, dt], opName: op, args: [{ a: 'a' }],
      inputs: { a: T(dt, [2], [0, 1]) },
    }));
  }
  return out;
}

export function logicalFiles() {
  const files = {};
  for (const op of COMPARE_OPS) files[op] = compareCases(op);
  files.logicalNot = logicalNotCases();
  for (const op of LOGICAL_BINARY_OPS) files[op] = logicalBinaryCases(op);
  files.isNaN = nanInfCases('isNaN');
  files.isInfinite = nanInfCases('isInfinite');
  return files;
}
