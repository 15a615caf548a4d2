// Cases for concat, split, pad, tile and triangular (the second half of datamove.mjs; same conventions).

import { DTYPES, isFloat, isSigned, intRange } from './numerics.mjs';
import { T, C } from './casebuild.mjs';
import {
  graphCase, errorGraph, opArgs, seqData, specialData, genData, randData, MAX_TENSOR_COUNT,
} from './datamove_ref.mjs';

const f32 = 'float32';
const f16 = 'float16';
const specialTag = (t) => (isFloat(t) ? 'special_values' : 'extremes');
const seedOf = (op, t, k) => 7000 + 97 * ['concat', 'split', 'pad', 'tile', 'triangular'].indexOf(op) + 11 * DTYPES.indexOf(t) + k;
const op = (name, args, outputs) => ({ name, arguments: args, outputs });

function one(opName, t, tag, x, rest, options, labels = []) {
  return graphCase(`webnn.${opName}.${t}.${tag}`, [opName, t, ...labels], { x },
    [op(opName, opArgs({ input: 'x' }, rest, options), 'output')], ['output']);
}
function oneError(opName, tag, x, rest, options, labels = []) {
  return errorGraph(`webnn.${opName}.error.${tag}`, [opName, x.dtype, ...labels], { x },
    [op(opName, opArgs({ input: 'x' }, rest, options), 'output')]);
}
function chain(file, t, tag, inputs, operators, outputs, labels = []) {
  return graphCase(`webnn.${file}.${t}.${tag}`, [file, t, 'chain', ...labels], inputs, operators, outputs);
}

// ---------------------------------------------------------------------------------------------------------
// concat

function concatCase(t, tag, inputs, names, axis, options, labels = []) {
  const args = [{ inputs: names }, { axis }];
  if (options !== undefined) args.push({ options });
  return graphCase(`webnn.concat.${t}.${tag}`, ['concat', t, ...labels], inputs, [op('concat', args, 'output')], ['output']);
}
function concatError(tag, inputs, names, axis, labels = []) {
  const t = Object.values(inputs)[0]?.dtype ?? f32;
  return errorGraph(`webnn.concat.error.${tag}`, ['concat', t, ...labels], inputs,
    [op('concat', [{ inputs: names }, { axis }], 'output')]);
}

function concatCases() {
  const out = [];
  for (const t of DTYPES) {
    const s = specialData(t);
    out.push(concatCase(t, 'basic_axis1', { a: T(t, [2, 2], seqData(t, 4)), b: T(t, [2, 3], seqData(t, 6, 10)) },
      ['a', 'b'], 1));
    out.push(concatCase(t, 'three_inputs_axis0',
      { a: T(t, [1, 3], seqData(t, 3)), b: C(t, [2, 3], seqData(t, 6, 5)), c: T(t, [3, 3], seqData(t, 9, 20)) },
      ['a', 'b', 'c'], 0, undefined, ['constant']));
    out.push(concatCase(t, 'single_input', { a: T(t, [2, 3], seqData(t, 6)) }, ['a'], 1));
    out.push(concatCase(t, 'same_operand_twice', { a: T(t, [2, 2], seqData(t, 4)) }, ['a', 'a'], 0));
    out.push(concatCase(t, 'rank1', { a: T(t, [3], seqData(t, 3)), b: T(t, [1], seqData(t, 1, 30)) }, ['a', 'b'], 0));
    const h = Math.floor(s.length / 2);
    out.push(concatCase(t, specialTag(t), { a: T(t, [1, h], s.slice(0, h)), b: T(t, [1, s.length - h], s.slice(h)) },
      ['a', 'b'], 1, undefined, [specialTag(t)]));
    out.push(concatCase(t, 'rank5_axis3_generator',
      { a: T(t, [2, 1, 3, 2, 2], genData(t, 24, seedOf('concat', t, 0))), b: T(t, [2, 1, 3, 3, 2], randData(t, seedOf('concat', t, 1))) },
      ['a', 'b'], 3, undefined, ['generator']));
    out.push(concatCase(t, 'rank8_last_axis',
      { a: T(t, [2, 1, 2, 1, 2, 1, 2, 1], genData(t, 16, seedOf('concat', t, 2))), b: C(t, [2, 1, 2, 1, 2, 1, 2, 2], randData(t, seedOf('concat', t, 3))) },
      ['a', 'b'], 7, undefined, ['generator', 'rank8']));
  }
  {
    const inputs = {};
    const names = [];
    for (let k = 0; k < 10; k++) {
      inputs[`x${k}`] = T(f32, [2, k % 3 + 1, 2], seqData(f32, 4 * (k % 3 + 1), 10 * k));
      names.push(`x${k}`);
    }
    out.push(concatCase(f32, 'ten_inputs_axis1', inputs, names, 1));
  }
  out.push(concatCase(f32, 'max_tensor_count', { a: C(f32, [1, 2], [1.5, -0.5]) }, new Array(MAX_TENSOR_COUNT).fill('a'), 0,
    undefined, ['constant', 'large']));
  out.push(concatCase(f32, 'label_option', { a: T(f32, [1], [1]), b: T(f32, [1], [2]) }, ['a', 'b'], 0, { label: 'concat_label' },
    ['label']));

  const a23 = () => T(f32, [2, 3], { fill: 1 });
  out.push(concatError('no_inputs', {}, [], 0));
  out.push(concatError('rank0_inputs', { a: T(f32, [], [1]), b: T(f32, [], [2]) }, ['a', 'b'], 0, ['rank0']));
  out.push(concatError('axis_equals_rank', { a: a23(), b: a23() }, ['a', 'b'], 2));
  out.push(concatError('axis_out_of_range_single_input', { a: a23() }, ['a'], 5));
  out.push(concatError('data_type_mismatch', { a: a23(), b: T(f16, [2, 3], { fill: 1 }) }, ['a', 'b'], 0));
  out.push(concatError('data_type_mismatch_int32_int64', { a: T('int32', [2], [1, 2]), b: T('int64', [2], [1, 2]) }, ['a', 'b'], 0));
  out.push(concatError('rank_mismatch', { a: a23(), b: T(f32, [2, 3, 1], { fill: 1 }) }, ['a', 'b'], 0));
  out.push(concatError('dimension_mismatch', { a: a23(), b: T(f32, [3, 2], { fill: 1 }) }, ['a', 'b'], 0));
  out.push(concatError('dimension_mismatch_third_input', { a: a23(), b: a23(), c: T(f32, [2, 4], { fill: 1 }) },
    ['a', 'b', 'c'], 0));
  out.push(concatError('too_many_inputs', { a: T(f32, [1], [1]) }, new Array(MAX_TENSOR_COUNT + 1).fill('a'), 0, ['large']));
  out.push(concatError('negative_axis', { a: a23(), b: a23() }, ['a', 'b'], -1, ['webidl']));
  // Sum along the axis beyond long: 1.5e9 + 1.5e9 (the operands are stride-0 expand views, no data).
  out.push(errorGraph('webnn.concat.error.axis_size_beyond_long', ['concat', 'uint8', 'overflow'], { x: T('uint8', [1], [1]) },
    [op('expand', [{ input: 'x' }, { newShape: [1500000000] }], 'big'),
      op('concat', [{ inputs: ['big', 'big'] }, { axis: 0 }], 'output')]));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// split

function splitCase(t, tag, x, splits, options, labels = []) {
  const n = Array.isArray(splits) ? splits.length : splits;
  const names = Array.from({ length: n }, (_, k) => `output${k}`);
  const args = [{ input: 'x' }, { splits }];
  if (options !== undefined) args.push({ options });
  return graphCase(`webnn.split.${t}.${tag}`, ['split', t, ...labels], { x }, [op('split', args, names)], names);
}
function splitError(tag, x, splits, options, labels = []) {
  const n = Array.isArray(splits) ? splits.length : splits;
  const names = n >= 1 && n <= 16 ? Array.from({ length: n }, (_, k) => `output${k}`) : ['output0'];
  const args = [{ input: 'x' }, { splits }];
  if (options !== undefined) args.push({ options });
  return errorGraph(`webnn.split.error.${tag}`, ['split', x.dtype, ...labels], { x }, [op('split', args, names)]);
}

function splitCases() {
  const out = [];
  for (const t of DTYPES) {
    const s = specialData(t);
    out.push(splitCase(t, 'count2_default_axis', T(t, [4, 3], seqData(t, 12)), 2));
    out.push(splitCase(t, 'count3_axis1', C(t, [2, 6], seqData(t, 12)), 3, { axis: 1 }, ['constant']));
    out.push(splitCase(t, 'sizes_axis1', T(t, [2, 6], seqData(t, 12)), [1, 2, 3], { axis: 1 }));
    out.push(splitCase(t, 'sizes_single', T(t, [4], seqData(t, 4)), [4]));
    out.push(splitCase(t, 'count1', T(t, [2, 3], seqData(t, 6)), 1, {}));
    out.push(splitCase(t, 'count_equals_dimension', T(t, [2, 3], seqData(t, 6)), 3, { axis: 1 }));
    out.push(splitCase(t, specialTag(t), T(t, [s.length], s), isFloat(t) ? [5, 7] : [3, 5], undefined, [specialTag(t)]));
    out.push(splitCase(t, 'rank5_last_axis_generator', T(t, [2, 1, 3, 2, 4], genData(t, 48, seedOf('split', t, 0))),
      [1, 3], { axis: 4 }, ['generator']));
    out.push(splitCase(t, 'rank8_count', T(t, [2, 1, 2, 1, 6, 1, 2, 1], randData(t, seedOf('split', t, 1))), 3, { axis: 4 },
      ['generator', 'rank8']));
  }
  out.push(splitCase(f32, 'rank1_count', T(f32, [6], seqData(f32, 6)), 3));
  out.push(splitCase(f32, 'sizes_unequal_middle_axis', T(f32, [2, 7, 2], genData(f32, 28)), [2, 4, 1], { axis: 1 }, ['generator']));
  out.push(splitCase(f32, 'many_outputs', T(f32, [16], seqData(f32, 16)), 16));
  out.push(splitCase(f32, 'label_option', T(f32, [2], [1, 2]), 2, { label: 'split_label' }, ['label']));

  const x = () => T(f32, [2, 6], { fill: 1 });
  out.push(splitError('axis_equals_rank', x(), 2, { axis: 2 }));
  out.push(splitError('rank0', T(f32, [], [1]), 1, undefined, ['rank0']));
  out.push(splitError('count_zero', x(), 0, undefined, ['zero_dimension']));
  out.push(splitError('count_not_dividing', x(), 4, { axis: 1 }));
  out.push(splitError('count_not_dividing_default_axis', x(), 3));
  out.push(splitError('count_beyond_max_tensor_count', T(f32, [MAX_TENSOR_COUNT + 1], { fill: 1 }), MAX_TENSOR_COUNT + 1, undefined, ['large']));
  out.push(splitError('sizes_empty', x(), []));
  out.push(splitError('sizes_zero_item', x(), [2, 0, 4], { axis: 1 }, ['zero_dimension']));
  out.push(splitError('sizes_sum_smaller', x(), [2, 3], { axis: 1 }));
  out.push(splitError('sizes_sum_larger', x(), [3, 4], { axis: 1 }));
  out.push(splitError('sizes_beyond_max_tensor_count', T(f32, [MAX_TENSOR_COUNT + 1], { fill: 1 }),
    new Array(MAX_TENSOR_COUNT + 1).fill(1), undefined, ['large']));
  out.push(splitError('negative_axis', x(), 2, { axis: -1 }, ['webidl']));
  out.push(splitError('negative_count', x(), -2, undefined, ['webidl']));
  out.push(splitError('negative_size', x(), [8, -2], { axis: 1 }, ['webidl']));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// pad

function padCase(t, tag, x, beg, end, options, labels = []) {
  return one('pad', t, tag, x, [{ beginningPadding: beg }, { endingPadding: end }], options, labels);
}
function padError(tag, x, beg, end, options, labels = []) {
  return oneError('pad', tag, x, [{ beginningPadding: beg }, { endingPadding: end }], options, labels);
}

function padCases() {
  const out = [];
  for (const t of DTYPES) {
    const s = specialData(t);
    const x23 = () => T(t, [2, 3], seqData(t, 6));
    // The spec's example: [[1,2,3],[4,5,6]], padding [1, 2] on both sides.
    const ex = () => T(t, [2, 3], [1, 2, 3, 4, 5, 6]);
    out.push(padCase(t, 'constant_default', ex(), [1, 2], [1, 2], undefined, ['spec_example']));
    out.push(padCase(t, 'edge', ex(), [1, 2], [1, 2], { mode: 'edge' }, ['spec_example']));
    out.push(padCase(t, 'reflection', ex(), [1, 2], [1, 2], { mode: 'reflection' }, ['spec_example']));
    out.push(padCase(t, 'constant_value', C(t, [2, 3], seqData(t, 6)), [0, 1], [2, 1],
      { mode: 'constant', value: isFloat(t) ? -2.5 : isSigned(t) ? -7 : 9 }, ['constant']));
    out.push(padCase(t, 'asymmetric', x23(), [0, 3], [2, 0], { value: isFloat(t) ? 0.5 : 3 }));
    out.push(padCase(t, 'rank0', T(t, [], seqData(t, 1)), [], [], { value: 1 }, ['rank0']));
    out.push(padCase(t, 'reflection_maximum', T(t, [4], seqData(t, 4)), [3], [3], { mode: 'reflection' }));
    out.push(padCase(t, 'edge_beyond_input', T(t, [2], seqData(t, 2)), [5], [3], { mode: 'edge' }));
    out.push(padCase(t, 'constant_beyond_input', T(t, [1, 2], seqData(t, 2)), [2, 4], [3, 5], {}));
    out.push(padCase(t, `${specialTag(t)}_edge`, T(t, [s.length], s), [2], [3], { mode: 'edge' }, [specialTag(t)]));
    out.push(padCase(t, `${specialTag(t)}_reflection`, T(t, [2, s.length / 2], s), [1, 2], [1, s.length / 2 - 1],
      { mode: 'reflection' }, [specialTag(t)]));
    out.push(padCase(t, 'rank4_reflection_generator', T(t, [2, 3, 4, 5], genData(t, 120, seedOf('pad', t, 0))),
      [1, 0, 3, 2], [0, 2, 1, 4], { mode: 'reflection' }, ['generator']));
    out.push(padCase(t, 'rank5_edge_generator', T(t, [2, 1, 3, 2, 2], randData(t, seedOf('pad', t, 1))),
      [1, 2, 0, 1, 3], [2, 1, 1, 0, 1], { mode: 'edge' }, ['generator']));
    out.push(padCase(t, 'edge_ignores_value', x23(), [1, 1], [1, 0], { mode: 'edge', value: 42 }));
    out.push(padCase(t, 'reflection_unit_dimension_no_padding', T(t, [1, 3], seqData(t, 3)), [0, 2], [0, 2],
      { mode: 'reflection' }));
  }
  // The value is cast to the input's data type with the spec's "cast" (ConvertToFloat / ConvertToInt).
  const v = (t, tag, value, labels = []) => padCase(t, `value_cast_${tag}`, T(t, [2], seqData(t, 2)), [1], [2], { value },
    ['value_cast', ...labels]);
  out.push(v(f32, 'nan', 'NaN', ['special_values']));
  out.push(v(f32, 'infinity', 'Infinity', ['special_values']));
  out.push(v(f32, 'negative_infinity', '-Infinity', ['special_values']));
  out.push(v(f32, 'rounds_0_1', 0.1));
  out.push(v(f32, 'overflow_1e39', 1e39));
  out.push(v(f32, 'subnormal', 1e-45));
  out.push(v(f32, 'bigint_2_60_plus_1', '1152921504606846977'));
  out.push(v(f16, 'nan', 'NaN', ['special_values']));
  out.push(v(f16, 'rounds_0_1', 0.1));
  out.push(v(f16, 'overflow_70000', 70000));
  out.push(v(f16, 'underflow_1e_8', 1e-8));
  out.push(v(f16, 'subnormal', 6e-8));
  for (const t of DTYPES.filter((d) => !isFloat(d))) {
    const [lo, hi] = intRange(t);
    out.push(v(t, 'saturate_high', 1e30));
    out.push(v(t, 'saturate_low', -1e30));
    out.push(v(t, 'round_half_even_2_5', 2.5));
    out.push(v(t, 'round_half_even_3_5', 3.5));
    out.push(v(t, 'nan_to_zero', 'NaN'));
    const j = (b) => (b > -(2n ** 53n) && b < 2n ** 53n ? Number(b) : b.toString()); // 64-bit extremes as strings
    out.push(v(t, 'max', j(hi), ['extremes']));
    out.push(v(t, 'min', j(lo), ['extremes']));
    if (isSigned(t)) out.push(v(t, 'negative', -3));
  }
  out.push(v('uint32', 'above_2_31', 3000000000, ['spec_note_1']));
  out.push(v('int64', 'beyond_2_53', '9007199254740993', ['extremes']));
  out.push(v('uint64', 'beyond_2_63', '18446744073709551614', ['extremes']));
  out.push(padCase(f32, 'rank8_constant', T(f32, [2, 1, 2, 1, 2, 1, 2, 1], genData(f32, 16)),
    [0, 1, 0, 0, 1, 0, 0, 1], [1, 0, 0, 1, 0, 0, 1, 0], { value: -1 }, ['generator', 'rank8']));
  out.push(padCase(f32, 'large_reflection', T(f32, [20, 30], randData(f32, 7300)), [19, 5], [10, 29], { mode: 'reflection' },
    ['generator']));
  out.push(padCase(f32, 'no_padding', T(f32, [2, 2], seqData(f32, 4)), [0, 0], [0, 0], { mode: 'reflection' }));
  out.push(padCase(f32, 'label_option', T(f32, [1], [1]), [1], [1], { label: 'pad_label' }, ['label']));

  const x = () => T(f32, [2, 3], { fill: 1 });
  out.push(padError('beginning_padding_too_short', x(), [1], [1, 1]));
  out.push(padError('ending_padding_too_long', x(), [1, 1], [1, 1, 1]));
  out.push(padError('rank0_nonempty_padding', T(f32, [], [1]), [1], [1], undefined, ['rank0']));
  out.push(padError('reflection_beginning_equals_size', x(), [2, 0], [0, 0], { mode: 'reflection' }));
  out.push(padError('reflection_ending_equals_size', x(), [0, 0], [0, 3], { mode: 'reflection' }));
  out.push(padError('reflection_beyond_size', x(), [0, 5], [0, 0], { mode: 'reflection' }));
  out.push(padError('reflection_unit_dimension', T('int32', [1, 3], [1, 2, 3]), [1, 0], [0, 0], { mode: 'reflection' }));
  out.push(padError('output_dimension_beyond_long', x(), [0, 2147483644], [0, 1]));
  // 2 + (2^32 - 1) = 2^32 + 1: taken modulo 2^32 this is 1.
  out.push(padError('output_dimension_wraps_2_32', T(f32, [2], [1, 2]), [4294967295], [0], undefined, ['overflow']));
  out.push(padError('mode_symmetric', x(), [1, 1], [1, 1], { mode: 'symmetric' }, ['webidl']));
  out.push(padError('negative_padding', x(), [-1, 0], [0, 0], undefined, ['webidl']));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// tile

function tileCases() {
  const out = [];
  const c = (t, tag, x, repetitions, options, labels) => one('tile', t, tag, x, [{ repetitions }], options, labels);
  for (const t of DTYPES) {
    const s = specialData(t);
    out.push(c(t, 'basic', T(t, [2, 3], seqData(t, 6)), [2, 2]));
    out.push(c(t, 'first_axis', C(t, [2, 3], seqData(t, 6)), [3, 1], undefined, ['constant']));
    out.push(c(t, 'last_axis', T(t, [2, 3], seqData(t, 6)), [1, 2]));
    out.push(c(t, 'all_ones', T(t, [2, 3], seqData(t, 6)), [1, 1]));
    out.push(c(t, 'rank0', T(t, [], seqData(t, 1)), [], undefined, ['rank0']));
    out.push(c(t, 'rank1', T(t, [3], seqData(t, 3)), [4]));
    out.push(c(t, specialTag(t), T(t, [s.length], s), [2], undefined, [specialTag(t)]));
    out.push(c(t, 'rank5_generator', T(t, [2, 1, 3, 1, 2], genData(t, 12, seedOf('tile', t, 0))), [1, 3, 2, 2, 1], undefined,
      ['generator']));
    out.push(c(t, 'rank8', T(t, [1, 2, 1, 2, 1, 2, 1, 2], randData(t, seedOf('tile', t, 1))), [2, 1, 3, 1, 2, 1, 2, 1],
      undefined, ['generator', 'rank8']));
  }
  out.push(c(f32, 'large', T(f32, [2, 3], seqData(f32, 6)), [30, 20], undefined, ['large']));
  out.push(c(f32, 'rank10', T(f32, [1, 2, 1, 2, 1, 1, 2, 1, 1, 2], genData(f32, 16)), [2, 1, 2, 1, 1, 2, 1, 1, 2, 1],
    undefined, ['generator', 'rank10']));
  out.push(c(f32, 'label_option', T(f32, [2], [1, 2]), [2], { label: 'tile_label' }, ['label']));
  // repetitions is sequence<unsigned long> without [EnforceRange]: WebIDL takes the value modulo 2^32.
  out.push(c(f32, 'webidl_repetitions_modulo_2_32', T(f32, [2], [1, 2]), [4294967298], undefined, ['webidl']));

  const e = (tag, x, repetitions, labels) => oneError('tile', tag, x, [{ repetitions }], undefined, labels);
  const x = () => T(f32, [2, 3], { fill: 1 });
  out.push(e('repetitions_too_short', x(), [2]));
  out.push(e('repetitions_too_long', x(), [1, 2, 1]));
  out.push(e('rank0_nonempty_repetitions', T(f32, [], [1]), [1], ['rank0']));
  out.push(e('repetition_zero', x(), [2, 0], ['zero_dimension']));
  out.push(e('repetition_2_32_is_zero', x(), [1, 4294967296], ['webidl']));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// triangular

function triangularCases() {
  const out = [];
  const c = (t, tag, x, options, labels) => one('triangular', t, tag, x, [], options, labels);
  const ex = (t) => T(t, [3, 3], [7, 1, 2, 9, 4, 8, 2, 6, 3]); // the spec's example
  for (const t of DTYPES) {
    const s = specialData(t);
    out.push(c(t, 'default', ex(t), undefined, ['spec_example']));
    out.push(c(t, 'upper_diagonal_1', ex(t), { diagonal: 1 }, ['spec_example']));
    out.push(c(t, 'upper_diagonal_minus_1', ex(t), { diagonal: -1 }, ['spec_example']));
    out.push(c(t, 'lower', C(t, [3, 3], [7, 1, 2, 9, 4, 8, 2, 6, 3]), { upper: false }, ['spec_example', 'constant']));
    out.push(c(t, 'lower_diagonal_1', ex(t), { upper: false, diagonal: 1 }, ['spec_example']));
    out.push(c(t, 'lower_diagonal_minus_1', ex(t), { upper: false, diagonal: -1 }, ['spec_example']));
    out.push(c(t, 'lower_batches', T(t, [2, 3, 3], [7, 1, 2, 9, 4, 8, 2, 6, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9]), { upper: false },
      ['spec_example']));
    out.push(c(t, 'wide_upper_diagonal_2', T(t, [2, 5], seqData(t, 10)), { upper: true, diagonal: 2 }));
    out.push(c(t, 'tall_lower_diagonal_minus_2', T(t, [5, 2], seqData(t, 10)), { upper: false, diagonal: -2 }));
    out.push(c(t, 'upper_large_diagonal', ex(t), { diagonal: 3 }));
    out.push(c(t, 'lower_large_negative_diagonal', ex(t), { upper: false, diagonal: -3 }));
    out.push(c(t, 'upper_large_negative_diagonal', ex(t), { diagonal: -2147483648 }));
    out.push(c(t, 'lower_large_diagonal', ex(t), { upper: false, diagonal: 2147483647 }));
    out.push(c(t, 'one_by_one', T(t, [1, 1], seqData(t, 1)), { diagonal: 1 }));
    // Special values in kept and in zeroed positions: zeroed elements are 0 whatever they held.
    out.push(c(t, `${specialTag(t)}_upper`, T(t, isFloat(t) ? [3, 4] : [2, 4], s), undefined, [specialTag(t)]));
    out.push(c(t, `${specialTag(t)}_lower`, T(t, isFloat(t) ? [4, 3] : [4, 2], s), { upper: false }, [specialTag(t)]));
    if (isFloat(t)) {
      out.push(c(t, 'nan_infinity_in_zeroed_part', T(t, [3, 3], ['-0', 'NaN', 2, 'NaN', 'Infinity', '-Infinity', '-Infinity', 'NaN', '-0']),
        undefined, ['special_values']));
      out.push(c(t, 'nan_infinity_in_zeroed_part_lower', T(t, [2, 3], ['NaN', 'Infinity', '-Infinity', '-0', 'NaN', 'NaN']),
        { upper: false, diagonal: -1 }, ['special_values']));
    }
    out.push(c(t, 'rank5_generator', T(t, [2, 1, 2, 4, 5], genData(t, 80, seedOf('triangular', t, 0))), { diagonal: -1 },
      ['generator']));
  }
  out.push(c(f32, 'rank8_lower', T(f32, [2, 1, 2, 1, 2, 1, 3, 4], randData(f32, 7400)), { upper: false, diagonal: 1 },
    ['generator', 'rank8']));
  out.push(c(f32, 'large_random', T(f32, [40, 30], randData(f32, 7401)), { diagonal: 5 }, ['generator']));
  out.push(c(f32, 'empty_options', ex(f32), {}));
  out.push(c(f32, 'label_option', ex(f32), { label: 'triangular_label' }, ['label']));

  const e = (tag, x, options, labels) => oneError('triangular', tag, x, [], options, labels);
  out.push(e('rank0', T(f32, [], [1]), undefined, ['rank0']));
  out.push(e('rank1', T(f32, [3], [1, 2, 3])));
  out.push(e('rank1_int32', T('int32', [1], [1]), { upper: false }));
  out.push(e('diagonal_beyond_long', ex(f32), { diagonal: 2147483648 }, ['webidl']));
  out.push(e('diagonal_below_long', ex(f32), { diagonal: -2147483649 }, ['webidl']));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Chains.

function chains2() {
  const out = { concat: [], split: [], pad: [], tile: [], triangular: [] };
  for (const t of [f32, f16, 'int32', 'uint64']) {
    out.concat.push(chain('concat', t, 'chain_concat_of_views',
      { a: T(t, [3, 2], seqData(t, 6)), b: T(t, [2, 4], seqData(t, 8, 10)), c: T(t, [4, 6], seqData(t, 24, 20)) },
      [op('transpose', [{ input: 'a' }], 'at'), op('reverse', [{ input: 'b' }, { options: { axes: [1] } }], 'br'),
        op('slice', [{ input: 'c' }, { starts: [1, 0] }, { sizes: [3, 6] }, { options: { strides: [2, 2] } }], 'cs'),
        op('concat', [{ inputs: ['at', 'br', 'cs', 'at'] }, { axis: 1 }], 'output')], ['output']));
  }
  out.concat.push(chain('concat', f32, 'chain_concat_expand_add', { a: T(f32, [1, 3], [1, 2, 3]), b: T(f32, [2, 1], [0.5, -0.5]) },
    [op('expand', [{ input: 'a' }, { newShape: [2, 3] }], 'ae'), op('expand', [{ input: 'b' }, { newShape: [2, 3] }], 'be'),
      op('concat', [{ inputs: ['ae', 'be'] }, { axis: 0 }], 'cat'), op('add', [{ a: 'cat' }, { b: 'cat' }], 'output')], ['output']));

  for (const t of [f32, 'int8']) {
    out.split.push(chain('split', t, 'chain_split_concat_swapped', { x: T(t, [2, 6], seqData(t, 12)) },
      [op('split', [{ input: 'x' }, { splits: [2, 4] }, { options: { axis: 1 } }], ['p', 'q']),
        op('concat', [{ inputs: ['q', 'p'] }, { axis: 1 }], 'output')], ['output']));
  }
  out.split.push(chain('split', f32, 'chain_split_add_halves', { x: T(f32, [4, 3], seqData(f32, 12)) },
    [op('split', [{ input: 'x' }, { splits: 2 }], ['top', 'bottom']), op('add', [{ a: 'top' }, { b: 'bottom' }], 'output')],
    ['output', 'bottom']));
  out.split.push(chain('split', f16, 'chain_transpose_split_reduce_sum', { x: T(f16, [3, 4], seqData(f16, 12)) },
    [op('transpose', [{ input: 'x' }], 'tr'), op('split', [{ input: 'tr' }, { splits: [1, 3] }], ['s0', 's1']),
      op('reduceSum', [{ input: 's1' }, { options: { axes: [0] } }], 'output')], ['output', 's0']));

  out.pad.push(chain('pad', f32, 'chain_reverse_pad_reflection', { x: T(f32, [3, 4], seqData(f32, 12)) },
    [op('reverse', [{ input: 'x' }, { options: { axes: [0] } }], 'rv'),
      op('pad', [{ input: 'rv' }, { beginningPadding: [2, 1] }, { endingPadding: [1, 3] }, { options: { mode: 'reflection' } }], 'output')],
    ['output']));
  out.pad.push(chain('pad', 'int32', 'chain_pad_slice_roundtrip', { x: T('int32', [3, 4], seqData('int32', 12)) },
    [op('pad', [{ input: 'x' }, { beginningPadding: [2, 1] }, { endingPadding: [1, 2] }, { options: { mode: 'edge' } }], 'p'),
      op('slice', [{ input: 'p' }, { starts: [2, 1] }, { sizes: [3, 4] }], 'output')], ['output', 'p']));
  out.pad.push(chain('pad', f32, 'chain_transpose_pad_conv2d',
    { x: T(f32, [1, 1, 3, 4], seqData(f32, 12)), w: C(f32, [1, 1, 3, 3], [0, 1, 0, 1, -4, 1, 0, 1, 0]) },
    [op('transpose', [{ input: 'x' }, { options: { permutation: [0, 1, 3, 2] } }], 'tr'),
      op('pad', [{ input: 'tr' }, { beginningPadding: [0, 0, 1, 1] }, { endingPadding: [0, 0, 1, 1] }, { options: { mode: 'edge' } }], 'p'),
      op('conv2d', [{ input: 'p' }, { filter: 'w' }], 'output')], ['output']));

  out.tile.push(chain('tile', f32, 'chain_reverse_tile', { x: T(f32, [2, 3], seqData(f32, 6)) },
    [op('reverse', [{ input: 'x' }, { options: { axes: [1] } }], 'rv'), op('tile', [{ input: 'rv' }, { repetitions: [2, 2] }], 'output')],
    ['output']));
  out.tile.push(chain('tile', 'uint32', 'chain_tile_strided_slice', { x: T('uint32', [2, 3], seqData('uint32', 6)) },
    [op('tile', [{ input: 'x' }, { repetitions: [3, 2] }], 'tl'),
      op('slice', [{ input: 'tl' }, { starts: [1, 1] }, { sizes: [5, 5] }, { options: { strides: [2, 3] } }], 'output')],
    ['output']));
  out.tile.push(chain('tile', f32, 'chain_transpose_tile_matmul', { a: T(f32, [2, 3], seqData(f32, 6)), b: C(f32, [2, 2], [1, -1, 0.5, 2]) },
    [op('transpose', [{ input: 'a' }], 'at'), op('tile', [{ input: 'at' }, { repetitions: [1, 1] }], 'tl'),
      op('matmul', [{ a: 'tl' }, { b: 'b' }], 'output')], ['output']));

  out.tile.push(chain('tile', 'int32', 'chain_expand_tile', { x: T('int32', [2, 1], [-7, 9]) },
    [op('expand', [{ input: 'x' }, { newShape: [2, 3] }], 'ex'), op('tile', [{ input: 'ex' }, { repetitions: [2, 2] }], 'output')],
    ['output']));
  out.pad.push(chain('pad', f16, 'chain_expand_pad_edge', { x: T(f16, [1, 3], [0.1, '-0', 'Infinity']) },
    [op('expand', [{ input: 'x' }, { newShape: [2, 3] }], 'ex'),
      op('pad', [{ input: 'ex' }, { beginningPadding: [1, 2] }, { endingPadding: [2, 1] }, { options: { mode: 'edge' } }], 'output')],
    ['output'], ['special_values']));
  out.pad.push(chain('pad', 'uint8', 'chain_slice_pad_reflection', { x: T('uint8', [5, 6], seqData('uint8', 30)) },
    [op('slice', [{ input: 'x' }, { starts: [0, 1] }, { sizes: [5, 5] }, { options: { strides: [2, 2] } }], 'sl'),
      op('pad', [{ input: 'sl' }, { beginningPadding: [2, 2] }, { endingPadding: [1, 2] }, { options: { mode: 'reflection' } }], 'output')],
    ['output']));
  out.triangular.push(chain('triangular', f32, 'chain_expand_triangular', { x: T(f32, [1, 3, 3], seqData(f32, 9)) },
    [op('expand', [{ input: 'x' }, { newShape: [2, 3, 3] }], 'ex'),
      op('triangular', [{ input: 'ex' }, { options: { upper: true, diagonal: 1 } }], 'output')], ['output']));
  out.concat.push(chain('concat', 'int64', 'chain_concat_same_view_twice', { x: T('int64', [2, 4], specialData('int64')) },
    [op('reverse', [{ input: 'x' }, { options: { axes: [1] } }], 'rv'),
      op('slice', [{ input: 'rv' }, { starts: [0, 0] }, { sizes: [2, 4] }, { options: { strides: [1, 3] } }], 'sl'),
      op('concat', [{ inputs: ['sl', 'rv', 'sl'] }, { axis: 1 }], 'output')], ['output'], ['extremes']));
  out.triangular.push(chain('triangular', f32, 'chain_transpose_triangular', { x: T(f32, [2, 3, 4], seqData(f32, 24)) },
    [op('transpose', [{ input: 'x' }, { options: { permutation: [0, 2, 1] } }], 'tr'),
      op('triangular', [{ input: 'tr' }, { options: { upper: false } }], 'output')], ['output']));
  out.triangular.push(chain('triangular', f32, 'chain_reverse_triangular_matmul', { x: T(f32, [3, 3], seqData(f32, 9)), y: C(f32, [3, 2], [1, 2, -1, 0.5, 0, 1]) },
    [op('reverse', [{ input: 'x' }], 'rv'), op('triangular', [{ input: 'rv' }, { options: { diagonal: 1 } }], 'tri'),
      op('matmul', [{ a: 'tri' }, { b: 'y' }], 'output')], ['output']));
  out.triangular.push(chain('triangular', 'int64', 'chain_slice_triangular', { x: T('int64', [4, 4], [...specialData('int64'), ...specialData('int64')]) },
    [op('slice', [{ input: 'x' }, { starts: [0, 1] }, { sizes: [4, 3] }, { options: { strides: [2, 1] } }], 'sl'),
      op('triangular', [{ input: 'sl' }, { options: { upper: false, diagonal: 1 } }], 'output')], ['output'], ['extremes']));
  return out;
}

export function datamove2Files() {
  const ch = chains2();
  return {
    concat: [...concatCases(), ...ch.concat],
    split: [...splitCases(), ...ch.split],
    pad: [...padCases(), ...ch.pad],
    tile: [...tileCases(), ...ch.tile],
    triangular: [...triangularCases(), ...ch.triangular],
  };
}
