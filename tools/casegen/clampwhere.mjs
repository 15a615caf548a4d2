// Cases for clamp and where.

import { DTYPES, isFloat, isSigned, intRange, convertNumber } from './numerics.mjs';
import { T, C, elementwiseCase, errorCase } from './casebuild.mjs';
import { clampElement, whereElement } from './ops.mjs';
import { SPECIAL, randRange, uniform, range, fill } from './common.mjs';

// ---------------------------------------------------------------------------------------------------------
// clamp

// Option value as written in JSON -> MLNumber (double, or BigInt for decimal strings).
function optionNumber(v) {
  if (typeof v === 'string') return BigInt(v);
  if (typeof v === 'bigint') return v;
  return v;
}
// Authoring option value -> JSON (BigInts beyond 2^53 as decimal strings).
function optionJson(v) {
  if (typeof v === 'bigint') return v > -(2n ** 53n) && v < 2n ** 53n ? Number(v) : v.toString();
  return v;
}

function clampCase(t, tag, x, options, extra = []) {
  const args = [{ input: 'x' }];
  let lo, hi;
  if (options !== undefined) {
    const o = {};
    if ('minValue' in options) {
      o.minValue = optionJson(options.minValue);
      lo = convertNumber(optionNumber(o.minValue), t);
    }
    if ('maxValue' in options) {
      o.maxValue = optionJson(options.maxValue);
      hi = convertNumber(optionNumber(o.maxValue), t);
    }
    args.push({ options: o });
  }
  if (lo !== undefined && hi !== undefined && lo > hi) throw new Error(`clamp ${tag}: minValue > maxValue`);
  return elementwiseCase({
    name: `webnn.clamp.${t}.${tag}`, labels: ['clamp', t, ...extra], opName: 'clamp', args,
    inputs: { x }, operandNames: ['x'], outDtype: t, fn: (v) => clampElement(t, v, lo, hi),
  });
}

function clampError(t, tag, options) {
  const o = {};
  for (const k of Object.keys(options)) o[k] = optionJson(options[k]);
  // Sanity: the cast option values must really be in the wrong order.
  const lo = convertNumber(optionNumber(o.minValue), t);
  const hi = convertNumber(optionNumber(o.maxValue), t);
  if (!(lo > hi)) throw new Error(`clamp error case ${tag} is not an error`);
  return errorCase({
    name: `webnn.clamp.error.${tag}`, labels: ['clamp', t], opName: 'clamp',
    args: [{ input: 'x' }, { options: o }], inputs: { x: T(t, [3], [0, 1, 2]) },
  });
}

function clampCases() {
  const out = [];
  for (const t of DTYPES) {
    if (isFloat(t)) {
      out.push(clampCase(t, 'relu6', T(t, [2, 3], [-1, 0, 3.5, 6, 7.25, -0.125]), { minValue: 0, maxValue: 6 }));
      out.push(clampCase(t, 'min_only', C(t, [2, 3], [-3, -1, 0, 2.5, 100, -1.5]), { minValue: -1 }));
      out.push(clampCase(t, 'max_only', T(t, [2, 3], [-3, -1, 0, 2.5, 100, 2.625]), { maxValue: 2.5 }));
      out.push(clampCase(t, 'no_options', T(t, [4], [-65504, 0.1, 1e4, -2])));
      out.push(clampCase(t, 'empty_options', T(t, [4], [-65504, 0.1, 1e4, -2]), {}));
      // NaN inputs are implementation-defined (ops.mjs clampElement), so they get cases of their own.
      const s = SPECIAL[t].filter((v) => !Number.isNaN(v));
      out.push(clampCase(t, 'special_values', T(t, [s.length], s), { minValue: -1, maxValue: 1 }, ['special_values']));
      out.push(clampCase(t, 'special_values_min_only', T(t, [s.length], s), { minValue: 0 }, ['special_values']));
      const nanx = ['NaN', -2, 0.5, 'NaN', 3, '-0'];
      out.push(clampCase(t, 'nan_input', T(t, [2, 3], nanx), { minValue: -1, maxValue: 1 },
        ['special_values', 'implementation_defined']));
      out.push(clampCase(t, 'nan_input_min_only', T(t, [2, 3], nanx), { minValue: 0 },
        ['special_values', 'implementation_defined']));
      if (t === 'float32') {
        out.push(clampCase(t, 'options_rounding', T(t, [6], [0.1, 0.09999999, 0.3, 0.31, 0.2, 0.30000001]),
          { minValue: 0.1, maxValue: 0.3 }, ['options_cast']));
        out.push(clampCase(t, 'options_cast_equal', T(t, [4], [0, 1, 2, '-Infinity']),
          { minValue: 1.00000001, maxValue: 1 }, ['options_cast']));
        out.push(clampCase(t, 'options_overflow_to_infinity', T(t, [4], [-3.4028235e38, 0, 3.4028235e38, 'Infinity']),
          { minValue: -1e39, maxValue: 1e39 }, ['options_cast']));
      } else {
        out.push(clampCase(t, 'options_rounding', T(t, [6], [0.1, 0.0999, 0.3, 0.2999, 0.2, 0.29981]),
          { minValue: 0.1, maxValue: 0.3 }, ['options_cast']));
        out.push(clampCase(t, 'options_cast_equal', T(t, [4], [0, 1, 2, '-Infinity']),
          { minValue: 1.0001, maxValue: 1 }, ['options_cast']));
        out.push(clampCase(t, 'options_overflow_to_infinity', T(t, [4], [-65504, 0, 65504, 'Infinity']),
          { minValue: -1e6, maxValue: 70000 }, ['options_cast']));
      }
      out.push(clampCase(t, 'min_equals_max', T(t, [2, 2], [-5, 2, 7, '-0']), { minValue: 2, maxValue: 2 }));
      out.push(clampCase(t, 'rank0', T(t, [], [7.5]), { minValue: -1, maxValue: 6 }, ['rank0']));
      out.push(clampCase(t, 'rank5_random', T(t, [2, 3, 4, 5, 1], uniform(71, -3, 3)), { minValue: -1, maxValue: 1.5 },
        ['generator']));
    } else {
      const [lo, hi] = intRange(t);
      const sg = isSigned(t);
      out.push(clampCase(t, 'basic', T(t, [2, 3], sg ? [-1, 0, 3, 6, 7, -128] : [0, 1, 3, 6, 7, 255]),
        { minValue: 0, maxValue: 6 }));
      out.push(clampCase(t, 'min_only', C(t, [2, 3], sg ? [-3, -2, 0, 5, 127, -128] : [0, 4, 5, 6, 127, 255]),
        { minValue: sg ? -2 : 5 }));
      out.push(clampCase(t, 'max_only', T(t, [2, 3], sg ? [-3, -2, 0, 5, 127, -128] : [0, 4, 5, 6, 127, 255]),
        { maxValue: 3 }));
      out.push(clampCase(t, 'no_options', T(t, [3], [lo, 0, hi])));
      out.push(clampCase(t, 'empty_options', T(t, [3], [lo, 0, hi]), {}));
      out.push(clampCase(t, 'extremes', T(t, [5], [lo, hi, lo + 1n, hi - 1n, 0n]),
        { minValue: lo + 1n, maxValue: hi - 1n }, ['extremes']));
      out.push(clampCase(t, 'options_round_half_even', T(t, [9], [0, 1, 2, 3, 4, 5, 6, 7, 8]),
        { minValue: 2.5, maxValue: 5.5 }, ['options_cast']));
      out.push(clampCase(t, 'options_saturate', T(t, [5], [lo, lo + 1n, 0n, hi - 1n, hi]),
        { minValue: -1e20, maxValue: 1e20 }, ['options_cast']));
      out.push(clampCase(t, 'options_cast_equal', T(t, [3], [lo, 0n, hi]),
        { minValue: 1e30, maxValue: 1e25 }, ['options_cast']));
      out.push(clampCase(t, 'min_equals_max', T(t, [2, 2], [1, 2, 3, 4]), { minValue: 2, maxValue: 2 }));
      out.push(clampCase(t, 'rank0', T(t, [], [7]), { minValue: 1, maxValue: 6 }, ['rank0']));
      const [rl, rh] = randRange(t, sg ? -100n : 0n, 100n);
      out.push(clampCase(t, 'rank5_random', T(t, [2, 3, 4, 5, 1], uniform(73, rl, rh)),
        { minValue: sg ? -50 : 20, maxValue: 60 }, ['generator']));
      if (t === 'uint32') {
        out.push(clampCase(t, 'unsigned_option_above_2_31', T(t, [4], [0, 3000000000, 4000000000, 4294967295]),
          { minValue: 2147483648, maxValue: 4000000000 }, ['options_cast', 'spec_note_1']));
      }
      if (t === 'int64') {
        out.push(clampCase(t, 'options_beyond_2_53', T(t, [5], [2n ** 53n, 2n ** 53n + 1n, 2n ** 53n + 2n, 2n ** 53n + 3n, -(2n ** 60n)]),
          { minValue: 2n ** 53n + 1n, maxValue: 2n ** 53n + 2n }, ['options_cast', 'extremes']));
      }
      if (t === 'uint64') {
        out.push(clampCase(t, 'options_beyond_2_53', T(t, [4], [0n, 2n ** 63n, hi - 1n, hi]),
          { minValue: 2n ** 53n + 1n, maxValue: hi - 1n }, ['options_cast', 'extremes']));
      }
    }
  }
  out.push(clampError('float32', 'min_greater_than_max', { minValue: 2, maxValue: 1 }));
  out.push(clampError('int8', 'min_greater_than_max_after_rounding', { minValue: 3, maxValue: 2.4 }));
  out.push(clampError('float16', 'min_greater_than_max_after_float16_rounding', { minValue: 1.001, maxValue: 1 }));
  out.push(clampError('uint8', 'min_greater_than_negative_max', { minValue: 10, maxValue: -5 }));
  out.push(clampError('int64', 'min_greater_than_max_beyond_2_53', { minValue: 2n ** 53n + 2n, maxValue: 2n ** 53n + 1n }));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// where

function whereCase(t, tag, c, tv, fv, extra = []) {
  return elementwiseCase({
    name: `webnn.where.${t}.${tag}`, labels: ['where', t, ...extra], opName: 'where',
    args: [{ condition: 'c' }, { trueValue: 't' }, { falseValue: 'f' }],
    inputs: { c, t: tv, f: fv }, operandNames: ['c', 't', 'f'], outDtype: t,
    fn: (cv, a, b) => whereElement(cv, a, b),
  });
}

function whereError(tag, c, tv, fv) {
  return errorCase({
    name: `webnn.where.error.${tag}`, labels: ['where', tv.dtype], opName: 'where',
    args: [{ condition: 'c' }, { trueValue: 't' }, { falseValue: 'f' }], inputs: { c, t: tv, f: fv },
  });
}

function whereCases() {
  const out = [];
  const u8 = 'uint8';
  for (const t of DTYPES) {
    const fl = isFloat(t);
    const sg = isSigned(t);
    const tvals = fl ? [1.5, -2, 0.1, 100, -0, 7] : sg ? [1, -2, 3, 100, 0, 7] : [1, 2, 3, 100, 0, 7];
    const fvals = fl ? [-1, 2.25, 'NaN', -100, 0, 65504] : sg ? [-1, 2, -3, -100, 0, 127] : [9, 8, 7, 6, 5, 255];
    out.push(whereCase(t, 'basic', T(u8, [2, 3], [1, 0, 1, 0, 2, 255]), C(t, [2, 3], tvals), T(t, [2, 3], fvals)));
    out.push(whereCase(t, 'broadcast_2x1x3_4x1_scalar', T(u8, [2, 1, 3], [1, 0, 1, 0, 0, 3]),
      T(t, [4, 1], tvals.slice(0, 4)), C(t, [], fvals[1]), ['broadcast']));
    out.push(whereCase(t, 'broadcast_condition_rank4', T(u8, [2, 2, 2, 3], uniform(79, 0, 1)),
      C(t, [3], tvals.slice(0, 3)), T(t, [1], [fvals[0]]), ['broadcast', 'generator']));
    out.push(whereCase(t, 'broadcast_values_rank5', C(u8, [1], [0]),
      T(t, [2, 3, 4, 5, 1], fill(tvals[0])), T(t, [2, 3, 4, 5, 1], range(0, 1)), ['broadcast', 'generator']));
    out.push(whereCase(t, 'rank0', T(u8, [], [0]), T(t, [], [tvals[0]]), T(t, [], [fvals[0]]), ['rank0']));
    out.push(whereCase(t, 'rank0_condition_true', C(u8, [], 7), T(t, [2, 2], tvals.slice(0, 4)),
      T(t, [2, 2], fvals.slice(0, 4)), ['rank0', 'broadcast']));
    out.push(whereCase(t, 'broadcast_rank6', T(u8, [2, 1, 2, 1, 1, 3], uniform(83, 0, 2)),
      T(t, [2, 1, 3, 1], range(sg ? -3 : 0, 1)), C(t, [1, 1, 1, 1, 1, 1], fill(fvals[1])),
      ['broadcast', 'generator', 'rank6']));
    if (fl) {
      const s = SPECIAL[t];
      out.push(whereCase(t, 'special_values', T(u8, [2, 1], [1, 0]), T(t, [1, s.length], s),
        T(t, [1, s.length], [...s].reverse()), ['special_values', 'broadcast']));
    } else {
      const [lo, hi] = intRange(t);
      const e = [lo, hi, lo + 1n, hi - 1n, 0n];
      out.push(whereCase(t, 'extremes', T(u8, [2, 1], [255, 0]), T(t, [1, 5], e), C(t, [1, 5], [...e].reverse()),
        ['extremes', 'broadcast']));
    }
  }
  const f32 = 'float32';
  out.push(whereError('condition_float32', T(f32, [2], [1, 0]), T(f32, [2], [1, 2]), T(f32, [2], [3, 4])));
  out.push(whereError('condition_int8', T('int8', [2], [1, 0]), T(f32, [2], [1, 2]), T(f32, [2], [3, 4])));
  out.push(whereError('value_data_type_mismatch', T(u8, [2], [1, 0]), T(f32, [2], [1, 2]), T('float16', [2], [3, 4])));
  out.push(whereError('value_data_type_mismatch_int32_int64', T(u8, [2], [1, 0]), T('int32', [2], [1, 2]),
    C('int64', [2], [3, 4])));
  out.push(whereError('values_not_broadcastable', T(u8, [1], [1]), T(f32, [2, 3], [1, 2, 3, 4, 5, 6]),
    T(f32, [3, 2], [1, 2, 3, 4, 5, 6])));
  out.push(whereError('condition_not_broadcastable', T(u8, [4], [1, 0, 1, 0]), T(f32, [2, 3], [1, 2, 3, 4, 5, 6]),
    T(f32, [2, 3], [1, 2, 3, 4, 5, 6])));
  return out;
}

export function clampWhereFiles() {
  return { clamp: clampCases(), where: whereCases() };
}
