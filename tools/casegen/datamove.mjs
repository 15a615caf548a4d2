// Cases for the shape and data-movement operators (issue 3): reshape, transpose, expand, slice and reverse
// here (the operators nnref runs as views), concat, split, pad, tile and triangular in datamove2.mjs.
// Semantics and validation: datamove_ref.mjs (from the spec text); every case is evaluated by its
// interpreter, and every error case must make it throw the expected error.
//
// Per operator and each of the eight data types (every method allows any data type): a basic case, rank 0
// where the method allows it, special values (NaN, +-Infinity, -0, subnormals, values that round on input)
// or integer extremes (64-bit ones as decimal strings, 2^53 + 1 included), generator inputs (range, random),
// ranks up to 8 (10 for float32 slice/expand/tile), option combinations, and chains in which a view feeds
// another view or a consumer (add, reduceSum, matmul, conv2d). Error cases: one per method step that throws,
// plus WebIDL conversions ([EnforceRange] negative values and 2^32).

import { DTYPES, isFloat } from './numerics.mjs';
import { T, C } from './casebuild.mjs';
import {
  graphCase, errorGraph, opArgs, seqData, specialData, genData, randData,
} from './datamove_ref.mjs';
import { datamove2Files } from './datamove2.mjs';

const f32 = 'float32';

// A one-operator case named webnn.<op>.<t>.<tag>. rest: the arguments after the input.
function one(op, t, tag, x, rest, options, labels = []) {
  return graphCase(`webnn.${op}.${t}.${tag}`, [op, t, ...labels], { x },
    [{ name: op, arguments: opArgs({ input: 'x' }, rest, options), outputs: 'output' }], ['output']);
}
function oneError(op, tag, x, rest, options, labels = []) {
  return errorGraph(`webnn.${op}.error.${tag}`, [op, x.dtype, ...labels], { x },
    [{ name: op, arguments: opArgs({ input: 'x' }, rest, options), outputs: 'output' }]);
}
const specialTag = (t) => (isFloat(t) ? 'special_values' : 'extremes');
const specialLabel = specialTag;
const seedOf = (op, t, k) => 5000 + 97 * ['reshape', 'transpose', 'expand', 'slice', 'reverse'].indexOf(op) + 11 * DTYPES.indexOf(t) + k;

// ---------------------------------------------------------------------------------------------------------
// reshape

function reshapeCases() {
  const out = [];
  const c = (t, tag, x, newShape, labels, options) => one('reshape', t, tag, x, [{ newShape }], options, labels);
  for (const t of DTYPES) {
    const s = specialData(t);
    out.push(c(t, 'basic', T(t, [2, 3], seqData(t, 6)), [3, 2]));
    out.push(c(t, 'to_rank1', C(t, [2, 3, 2], seqData(t, 12)), [12], ['constant']));
    out.push(c(t, 'insert_unit_dimensions', T(t, [6], seqData(t, 6)), [1, 2, 1, 3, 1]));
    out.push(c(t, 'remove_unit_dimensions', T(t, [1, 3, 1, 2], seqData(t, 6)), [3, 2]));
    out.push(c(t, 'rank0_to_rank2', T(t, [], seqData(t, 1)), [1, 1], ['rank0']));
    out.push(c(t, 'rank2_to_rank0', T(t, [1, 1], seqData(t, 1, 4)), [], ['rank0']));
    out.push(c(t, 'rank0_to_rank0', C(t, [], seqData(t, 1, 2)), [], ['rank0', 'constant']));
    out.push(c(t, specialTag(t), T(t, [s.length], s), isFloat(t) ? [3, 4] : [2, 4], [specialLabel(t)]));
    out.push(c(t, 'rank8', T(t, [2, 3, 4, 6], genData(t, 144, seedOf('reshape', t, 0))), [2, 1, 3, 2, 2, 1, 3, 2],
      ['generator', 'rank8']));
    out.push(c(t, 'large_random', T(t, [30, 40], randData(t, seedOf('reshape', t, 1))), [4, 300], ['generator']));
  }
  out.push(c(f32, 'same_shape', T(f32, [2, 3], seqData(f32, 6)), [2, 3]));
  out.push(c(f32, 'label_option', T(f32, [4], seqData(f32, 4)), [2, 2], ['label'], { label: 'reshape_label' }));
  out.push(c(f32, 'rank10', T(f32, [4, 6], genData(f32, 24)), [1, 2, 1, 2, 1, 3, 1, 2, 1, 1], ['generator', 'rank10']));

  const e = (tag, x, newShape, labels) => oneError('reshape', tag, x, [{ newShape }], undefined, labels);
  const x6 = () => T(f32, [2, 3], seqData(f32, 6));
  out.push(e('element_count_mismatch', x6(), [4, 2]));
  out.push(e('element_count_mismatch_rank0', T(f32, [], [1]), [2]));
  out.push(e('rank0_from_two_elements', T(f32, [2], [1, 2]), []));
  out.push(e('zero_dimension', x6(), [0, 6], ['zero_dimension']));
  out.push(e('zero_dimension_rank1', T(f32, [1], [1]), [1, 0]));
  out.push(e('dimension_beyond_long', T('uint8', [2], [1, 2]), [2147483648, 1]));
  // 65537^2 = 2^32 + 2^17 + 1: a product taken modulo 2^32 would equal the input's 131073 elements.
  out.push(e('element_count_wraps_2_32', T('uint8', [131073], { fill: 1 }), [65537, 65537], ['overflow']));
  out.push(e('negative_dimension', x6(), [-1, 6], ['webidl']));
  out.push(e('dimension_2_32', x6(), [4294967296, 6], ['webidl']));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// transpose

function transposeCases() {
  const out = [];
  const c = (t, tag, x, options, labels) => one('transpose', t, tag, x, [], options, labels);
  for (const t of DTYPES) {
    const s = specialData(t);
    out.push(c(t, 'basic', T(t, [2, 3], seqData(t, 6))));
    out.push(c(t, 'default_rank3_empty_options', T(t, [2, 3, 4], seqData(t, 24)), {}));
    out.push(c(t, 'permutation_rank3', C(t, [2, 3, 4], seqData(t, 24)), { permutation: [1, 2, 0] }, ['constant']));
    out.push(c(t, 'permutation_nchw_to_nhwc', T(t, [2, 3, 2, 2], seqData(t, 24)), { permutation: [0, 2, 3, 1] }));
    out.push(c(t, 'identity_permutation', T(t, [2, 3], seqData(t, 6)), { permutation: [0, 1] }));
    out.push(c(t, 'rank0', T(t, [], seqData(t, 1)), undefined, ['rank0']));
    out.push(c(t, 'rank0_empty_permutation', T(t, [], seqData(t, 1, 3)), { permutation: [] }, ['rank0']));
    out.push(c(t, 'rank1', T(t, [5], seqData(t, 5))));
    out.push(c(t, specialTag(t), T(t, isFloat(t) ? [3, 4] : [2, 4], s), { permutation: [1, 0] }, [specialLabel(t)]));
    out.push(c(t, 'rank5_generator', T(t, [2, 3, 1, 4, 2], genData(t, 48, seedOf('transpose', t, 0))),
      { permutation: [4, 2, 0, 3, 1] }, ['generator']));
    out.push(c(t, 'rank8', T(t, [2, 1, 2, 3, 1, 2, 2, 1], genData(t, 48, seedOf('transpose', t, 1))),
      { permutation: [7, 0, 6, 1, 5, 2, 4, 3] }, ['generator', 'rank8']));
  }
  out.push(c(f32, 'default_rank6', T(f32, [2, 1, 3, 2, 1, 2], genData(f32, 24)), undefined, ['generator']));
  out.push(c(f32, 'large_random', T(f32, [30, 40], randData(f32, 5100)), { permutation: [1, 0] }, ['generator']));
  out.push(c(f32, 'label_option', T(f32, [2, 2], seqData(f32, 4)), { label: 'transpose_label' }, ['label']));

  const e = (tag, x, permutation, labels) => oneError('transpose', tag, x, [], { permutation }, labels);
  const x = () => T(f32, [2, 3, 4], { fill: 1 });
  out.push(e('permutation_too_short', x(), [1, 0]));
  out.push(e('permutation_too_long', x(), [0, 1, 2, 3]));
  out.push(e('permutation_out_of_range', x(), [0, 3, 1]));
  out.push(e('permutation_duplicates', x(), [0, 1, 1]));
  out.push(e('rank0_permutation_0', T(f32, [], [1]), [0], ['rank0']));
  out.push(e('rank1_empty_permutation', T('int32', [3], [1, 2, 3]), []));
  out.push(e('negative_permutation', x(), [0, -1, 2], ['webidl']));
  out.push(e('permutation_2_32', x(), [4294967296, 1, 2], ['webidl']));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// expand

function expandCases() {
  const out = [];
  const c = (t, tag, x, newShape, labels, options) => one('expand', t, tag, x, [{ newShape }], options, labels);
  for (const t of DTYPES) {
    const s = specialData(t);
    out.push(c(t, 'basic', T(t, [3], seqData(t, 3)), [2, 3]));
    out.push(c(t, 'middle_dimension', C(t, [2, 1, 3], seqData(t, 6)), [2, 4, 3], ['constant']));
    out.push(c(t, 'new_and_expanded_dimensions', T(t, [3, 1], seqData(t, 3)), [2, 1, 3, 4]));
    out.push(c(t, 'same_shape', T(t, [2, 3], seqData(t, 6)), [2, 3]));
    out.push(c(t, 'rank0_to_rank2', T(t, [], seqData(t, 1)), [2, 3], ['rank0']));
    out.push(c(t, 'rank0_to_rank0', T(t, [], seqData(t, 1, 5)), [], ['rank0']));
    out.push(c(t, specialTag(t), T(t, [s.length], s), [2, s.length], [specialLabel(t)]));
    out.push(c(t, 'rank8', T(t, [2, 1, 2, 1, 2, 1, 2, 1], genData(t, 16, seedOf('expand', t, 0))),
      [2, 2, 2, 3, 2, 2, 2, 2], ['generator', 'rank8']));
    out.push(c(t, 'rank4_to_rank8', T(t, [3, 1, 2, 1], seqData(t, 6)), [2, 1, 2, 1, 3, 2, 2, 2], ['rank8']));
    out.push(c(t, 'large', T(t, [1, 1, 64], genData(t, 64, seedOf('expand', t, 1))), [4, 8, 64], ['generator']));
  }
  out.push(c(f32, 'rank10', T(f32, [1, 2], [1.5, -2.5]), [2, 1, 2, 1, 2, 1, 2, 1, 2, 2], ['rank10']));
  out.push(c(f32, 'unit_to_unit', T(f32, [1, 1], [3]), [1, 1, 1]));
  out.push(c(f32, 'label_option', T(f32, [1], [7]), [3], ['label'], { label: 'expand_label' }));

  const e = (tag, x, newShape, labels) => oneError('expand', tag, x, [{ newShape }], undefined, labels);
  out.push(e('incompatible_dimension', T(f32, [2], [1, 2]), [3]));
  out.push(e('shrink_dimension', T(f32, [2, 3], { fill: 1 }), [1, 3]));
  out.push(e('fewer_dimensions', T(f32, [2, 3], { fill: 1 }), [3]));
  out.push(e('rank1_to_rank0', T(f32, [1], [1]), []));
  out.push(e('incompatible_dimension_int32', T('int32', [2, 1], [1, 2]), [3, 4]));
  out.push(e('zero_dimension', T(f32, [1], [1]), [0], ['zero_dimension', 'reading']));
  out.push(e('negative_dimension', T(f32, [1], [1]), [-2], ['webidl']));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// slice

function sliceCases() {
  const out = [];
  const c = (t, tag, x, starts, sizes, options, labels) => one('slice', t, tag, x, [{ starts }, { sizes }], options, labels);
  for (const t of DTYPES) {
    const s = specialData(t);
    const x34 = () => T(t, [3, 4], seqData(t, 12));
    out.push(c(t, 'basic', x34(), [1, 1], [2, 2]));
    out.push(c(t, 'strides', C(t, [4, 6], seqData(t, 24)), [0, 1], [4, 5], { strides: [2, 2] }, ['strides', 'constant']));
    out.push(c(t, 'strides_not_dividing_size', T(t, [2, 7], seqData(t, 14)), [0, 1], [2, 5], { strides: [1, 3] }, ['strides']));
    out.push(c(t, 'stride_larger_than_size', T(t, [5, 5], seqData(t, 25)), [1, 2], [2, 3], { strides: [5, 7] }, ['strides']));
    out.push(c(t, 'whole_input', x34(), [0, 0], [3, 4]));
    out.push(c(t, 'unit_strides', x34(), [2, 0], [1, 3], { strides: [1, 1] }, ['strides']));
    out.push(c(t, 'last_element', T(t, [5], seqData(t, 5)), [4], [1]));
    out.push(c(t, 'rank0', T(t, [], seqData(t, 1)), [], [], undefined, ['rank0']));
    out.push(c(t, specialTag(t), T(t, [s.length], s), [0], [s.length], { strides: [1] }, [specialLabel(t)]));
    out.push(c(t, `${specialTag(t)}_strided`, T(t, [2, s.length / 2], s), [0, 1], [2, s.length / 2 - 1], { strides: [1, 2] },
      [specialLabel(t), 'strides']));
    out.push(c(t, 'rank8_strided', T(t, [3, 2, 3, 2, 3, 2, 3, 2], genData(t, 1296, seedOf('slice', t, 0))),
      [1, 0, 0, 1, 2, 0, 0, 0], [2, 2, 3, 1, 1, 2, 3, 2], { strides: [1, 2, 2, 1, 1, 1, 2, 1] },
      ['generator', 'rank8', 'strides']));
    out.push(c(t, 'large_random', T(t, [40, 50], randData(t, seedOf('slice', t, 1))), [3, 7], [30, 40],
      { strides: [3, 4] }, ['generator', 'strides']));
  }
  out.push(c(f32, 'rank0_empty_strides', T(f32, [], [2.5]), [], [], { strides: [] }, ['rank0']));
  out.push(c(f32, 'rank10_strided', T(f32, [2, 3, 2, 3, 2, 3, 2, 3, 2, 3], genData(f32, 7776)),
    [1, 0, 0, 1, 0, 2, 1, 0, 0, 0], [1, 3, 2, 2, 2, 1, 1, 3, 2, 3], { strides: [1, 2, 1, 1, 2, 1, 1, 3, 1, 2] },
    ['generator', 'rank10', 'strides']));
  out.push(c(f32, 'label_option', T(f32, [4], seqData(f32, 4)), [1], [2], { label: 'slice_label' }, ['label']));
  // [EnforceRange] takes the integer part of a fractional value (WebIDL ConvertToInt), it does not throw.
  out.push(c(f32, 'webidl_fraction_truncated', T(f32, [4], seqData(f32, 4)), [1.5], [2.75], { strides: [1.25] },
    ['webidl']));

  const e = (tag, x, starts, sizes, options, labels) => oneError('slice', tag, x, [{ starts }, { sizes }], options, labels);
  const x = () => T(f32, [3, 4], { fill: 1 });
  out.push(e('size_zero', x(), [0, 0], [0, 2], undefined, ['zero_dimension']));
  out.push(e('starts_too_short', x(), [0], [1, 1]));
  out.push(e('sizes_too_long', x(), [0, 0], [1, 1, 1]));
  out.push(e('rank0_nonempty', T(f32, [], [1]), [0], [1], undefined, ['rank0']));
  out.push(e('strides_too_short', x(), [0, 0], [1, 1], { strides: [1] }));
  out.push(e('strides_empty', x(), [0, 0], [1, 1], { strides: [] }));
  out.push(e('stride_zero', x(), [0, 0], [1, 2], { strides: [1, 0] }));
  out.push(e('start_beyond_input', x(), [4, 0], [1, 1]));
  out.push(e('start_equals_input_size', x(), [0, 4], [1, 1]));
  out.push(e('start_plus_size_beyond_input', x(), [1, 2], [2, 3]));
  out.push(e('size_beyond_input', T('int32', [3], [1, 2, 3]), [0], [4]));
  // 2 + (2^32 - 1) = 2^32 + 1: taken modulo 2^32 this is 1 <= 3.
  out.push(e('start_plus_size_wraps_2_32', T(f32, [3], [1, 2, 3]), [2], [4294967295], undefined, ['overflow']));
  out.push(e('negative_start', x(), [-1, 0], [1, 1], undefined, ['webidl']));
  out.push(e('negative_stride', x(), [0, 0], [1, 1], { strides: [1, -1] }, ['webidl']));
  out.push(e('size_2_32', x(), [0, 0], [1, 4294967296], undefined, ['webidl']));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// reverse

function reverseCases() {
  const out = [];
  const c = (t, tag, x, options, labels) => one('reverse', t, tag, x, [], options, labels);
  for (const t of DTYPES) {
    const s = specialData(t);
    const x23 = () => T(t, [2, 3], seqData(t, 6));
    out.push(c(t, 'basic', x23()));
    out.push(c(t, 'axis0', x23(), { axes: [0] }));
    out.push(c(t, 'axis1', C(t, [2, 3], seqData(t, 6)), { axes: [1] }, ['constant']));
    out.push(c(t, 'empty_axes', x23(), { axes: [] }));
    out.push(c(t, 'unsorted_axes', T(t, [2, 3, 4], seqData(t, 24)), { axes: [2, 0] }));
    out.push(c(t, 'all_axes_explicit', T(t, [2, 3, 4], seqData(t, 24)), { axes: [0, 1, 2] }));
    out.push(c(t, 'rank0', T(t, [], seqData(t, 1)), undefined, ['rank0']));
    out.push(c(t, 'rank0_empty_axes', T(t, [], seqData(t, 1, 1)), { axes: [] }, ['rank0']));
    out.push(c(t, 'rank1', T(t, [5], seqData(t, 5)), {}));
    out.push(c(t, specialTag(t), T(t, [s.length], s), undefined, [specialLabel(t)]));
    out.push(c(t, 'rank5_generator', T(t, [2, 3, 2, 2, 3], genData(t, 72, seedOf('reverse', t, 0))), { axes: [1, 3, 4] },
      ['generator']));
  }
  out.push(c(f32, 'rank8', T(f32, [2, 2, 1, 3, 2, 1, 2, 2], genData(f32, 96)), { axes: [7, 0, 3, 2] }, ['generator', 'rank8']));
  out.push(c(f32, 'large_random', T(f32, [30, 40], randData(f32, 5200)), undefined, ['generator']));
  out.push(c(f32, 'label_option', T(f32, [3], seqData(f32, 3)), { label: 'reverse_label' }, ['label']));

  const e = (tag, x, axes, labels) => oneError('reverse', tag, x, [], { axes }, [...labels, 'spec_note_7']);
  const x = () => T(f32, [2, 3, 4], { fill: 1 });
  out.push(e('duplicate_axes', x(), [1, 1], []));
  out.push(e('duplicate_axes_unsorted', x(), [2, 0, 2], []));
  out.push(e('axis_out_of_range', x(), [3], []));
  out.push(e('rank0_axis0', T(f32, [], [1]), [0], ['rank0']));
  out.push(errorGraph('webnn.reverse.error.negative_axis', ['reverse', f32, 'webidl'], { x: x() },
    [{ name: 'reverse', arguments: [{ input: 'x' }, { options: { axes: [-1] } }], outputs: 'output' }]));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Chains: views feeding views and consumers (strided, negative-stride and stride-0 inputs).

function chain(file, t, tag, inputs, operators, outputs, labels = []) {
  return graphCase(`webnn.${file}.${t}.${tag}`, [file, t, 'chain', ...labels], inputs, operators, outputs);
}
const op = (name, args, outputs) => ({ name, arguments: args, outputs });

function viewChains() {
  const out = { reshape: [], transpose: [], expand: [], slice: [], reverse: [] };
  for (const t of [f32, 'float16', 'int32', 'int64', 'uint8']) {
    const b = isFloat(t) ? seqData(t, 12, 40) : seqData(t, 12, 20);
    out.transpose.push(chain('transpose', t, 'chain_transpose_slice_reverse_add',
      { x: T(t, [3, 4, 5], seqData(t, 60)), b: C(t, [2, 2, 3], b) },
      [op('transpose', [{ input: 'x' }, { options: { permutation: [2, 0, 1] } }], 'tr'),
        op('slice', [{ input: 'tr' }, { starts: [1, 0, 1] }, { sizes: [4, 3, 3] }, { options: { strides: [2, 2, 1] } }], 'sl'),
        op('reverse', [{ input: 'sl' }, { options: { axes: [0, 2] } }], 'rv'),
        op('add', [{ a: 'rv' }, { b: 'b' }], 'output')], ['output']));
  }
  out.transpose.push(chain('transpose', f32, 'chain_transpose_reshape', { x: T(f32, [2, 3, 4], seqData(f32, 24)) },
    [op('transpose', [{ input: 'x' }], 'tr'), op('reshape', [{ input: 'tr' }, { newShape: [6, 4] }], 'output')], ['output']));
  out.transpose.push(chain('transpose', 'int8', 'chain_transpose_transpose', { x: T('int8', [2, 3, 4], seqData('int8', 24)) },
    [op('transpose', [{ input: 'x' }, { options: { permutation: [1, 2, 0] } }], 'a'),
      op('transpose', [{ input: 'a' }, { options: { permutation: [2, 0, 1] } }], 'output')], ['output']));
  out.transpose.push(chain('transpose', f32, 'chain_view_output_and_consumer', { x: T(f32, [2, 3], seqData(f32, 6)) },
    [op('transpose', [{ input: 'x' }], 'tr'), op('add', [{ a: 'tr' }, { b: 'tr' }], 'sum')], ['tr', 'sum']));
  out.transpose.push(chain('transpose', f32, 'chain_transpose_matmul',
    { a: T(f32, [4, 3], seqData(f32, 12)), b: C(f32, [2, 4], seqData(f32, 8, 3)) },
    [op('transpose', [{ input: 'a' }], 'at'), op('transpose', [{ input: 'b' }], 'bt'),
      op('matmul', [{ a: 'at' }, { b: 'bt' }], 'output')], ['output']));
  out.transpose.push(chain('transpose', 'float16', 'chain_transpose_reduce_sum',
    { x: T('float16', [3, 4, 2], seqData('float16', 24)) },
    [op('transpose', [{ input: 'x' }, { options: { permutation: [2, 0, 1] } }], 'tr'),
      op('reduceSum', [{ input: 'tr' }, { options: { axes: [2] } }], 'output')], ['output']));

  out.slice.push(chain('slice', f32, 'chain_strided_slice_reduce_sum', { x: T(f32, [6, 8], randData(f32, 5300)) },
    [op('slice', [{ input: 'x' }, { starts: [1, 0] }, { sizes: [5, 8] }, { options: { strides: [2, 3] } }], 'sl'),
      op('reduceSum', [{ input: 'sl' }, { options: { axes: [1] } }], 'output')], ['output'], ['generator']));
  out.slice.push(chain('slice', f32, 'chain_slice_slice', { x: T(f32, [7, 9], seqData(f32, 63)) },
    [op('slice', [{ input: 'x' }, { starts: [1, 2] }, { sizes: [6, 7] }, { options: { strides: [2, 2] } }], 'a'),
      op('slice', [{ input: 'a' }, { starts: [1, 1] }, { sizes: [2, 3] }, { options: { strides: [1, 2] } }], 'output')],
    ['output']));
  out.slice.push(chain('slice', 'int32', 'chain_slice_reshape', { x: T('int32', [4, 6], seqData('int32', 24)) },
    [op('slice', [{ input: 'x' }, { starts: [0, 1] }, { sizes: [4, 5] }, { options: { strides: [2, 2] } }], 'sl'),
      op('reshape', [{ input: 'sl' }, { newShape: [6] }], 'output')], ['output']));
  out.slice.push(chain('slice', f32, 'chain_slice_conv2d',
    { x: T(f32, [1, 1, 7, 7], seqData(f32, 49)), w: C(f32, [2, 1, 2, 2], [1, 0.5, -1, 2, 0.25, 1, 1, -0.5]) },
    [op('slice', [{ input: 'x' }, { starts: [0, 0, 1, 0] }, { sizes: [1, 1, 6, 7] }, { options: { strides: [1, 1, 2, 2] } }], 'sl'),
      op('conv2d', [{ input: 'sl' }, { filter: 'w' }], 'output')], ['output']));
  out.slice.push(chain('slice', 'int64', 'chain_extremes_through_views', { x: T('int64', [2, 4], specialData('int64')) },
    [op('reverse', [{ input: 'x' }], 'rv'),
      op('slice', [{ input: 'rv' }, { starts: [0, 1] }, { sizes: [2, 3] }, { options: { strides: [1, 2] } }], 'sl'),
      op('transpose', [{ input: 'sl' }], 'tr'), op('reshape', [{ input: 'tr' }, { newShape: [4] }], 'output')],
    ['output'], ['extremes']));
  out.slice.push(chain('slice', 'uint64', 'chain_extremes_through_views', { x: T('uint64', [2, 4], specialData('uint64')) },
    [op('transpose', [{ input: 'x' }], 'tr'),
      op('slice', [{ input: 'tr' }, { starts: [1, 0] }, { sizes: [3, 2] }, { options: { strides: [2, 1] } }], 'sl'),
      op('reverse', [{ input: 'sl' }, { options: { axes: [1] } }], 'output')], ['output'], ['extremes']));

  out.reverse.push(chain('reverse', f32, 'chain_reverse_conv2d',
    { x: T(f32, [1, 1, 4, 5], seqData(f32, 20)), w: C(f32, [2, 1, 2, 3], [1, 2, 0, -1, 0.5, 1, 0, 1, -2, 1, 1, 0.25]) },
    [op('reverse', [{ input: 'x' }, { options: { axes: [2, 3] } }], 'rv'),
      op('conv2d', [{ input: 'rv' }, { filter: 'w' }, { options: { padding: [1, 0, 0, 1] } }], 'output')], ['output']));
  out.reverse.push(chain('reverse', f32, 'chain_reverse_filter_conv2d',
    { x: T(f32, [1, 2, 3, 3], seqData(f32, 18)), w: T(f32, [1, 2, 2, 2], [1, -1, 2, 0.5, 0, 1, -2, 1]) },
    [op('reverse', [{ input: 'w' }, { options: { axes: [2, 3] } }], 'wr'),
      op('conv2d', [{ input: 'x' }, { filter: 'wr' }], 'output')], ['output']));
  out.reverse.push(chain('reverse', f32, 'chain_reverse_matmul',
    { a: T(f32, [3, 4], seqData(f32, 12)), b: T(f32, [2, 4], seqData(f32, 8, 5)) },
    [op('reverse', [{ input: 'a' }, { options: { axes: [1] } }], 'ar'), op('transpose', [{ input: 'b' }], 'bt'),
      op('matmul', [{ a: 'ar' }, { b: 'bt' }], 'output')], ['output']));
  out.reverse.push(chain('reverse', 'float16', 'chain_reverse_reverse', { x: T('float16', [12], specialData('float16')) },
    [op('reverse', [{ input: 'x' }], 'a'), op('reverse', [{ input: 'a' }, { options: { axes: [0] } }], 'output')],
    ['output'], ['special_values']));
  out.reverse.push(chain('reverse', 'int32', 'chain_reverse_reduce_sum_keep', { x: T('int32', [3, 4], seqData('int32', 12)) },
    [op('reverse', [{ input: 'x' }, { options: { axes: [0, 1] } }], 'rv'),
      op('reduceSum', [{ input: 'rv' }, { options: { axes: [0], keepDimensions: true } }], 'r'),
      op('mul', [{ a: 'r' }, { b: 'rv' }], 'output')], ['output', 'r']));

  out.expand.push(chain('expand', f32, 'chain_expand_add_reduce_sum',
    { x: T(f32, [1, 3], [0.5, -1.25, 2]), y: C(f32, [4, 3], seqData(f32, 12)) },
    [op('expand', [{ input: 'x' }, { newShape: [4, 3] }], 'ex'), op('add', [{ a: 'ex' }, { b: 'y' }], 's'),
      op('reduceSum', [{ input: 's' }, { options: { axes: [0] } }], 'output')], ['output']));
  out.expand.push(chain('expand', f32, 'chain_expand_reshape', { x: T(f32, [3, 1], [1, 2, 3]) },
    [op('expand', [{ input: 'x' }, { newShape: [3, 4] }], 'ex'), op('reshape', [{ input: 'ex' }, { newShape: [2, 6] }], 'output')],
    ['output']));
  out.expand.push(chain('expand', 'int32', 'chain_expand_slice_reverse', { x: T('int32', [1, 4], [1, -2, 3, -4]) },
    [op('expand', [{ input: 'x' }, { newShape: [3, 4] }], 'ex'),
      op('slice', [{ input: 'ex' }, { starts: [0, 1] }, { sizes: [3, 3] }, { options: { strides: [2, 2] } }], 'sl'),
      op('reverse', [{ input: 'sl' }], 'output')], ['output']));
  out.expand.push(chain('expand', f32, 'chain_expand_transpose_matmul',
    { a: T(f32, [1, 3], [1, 2, -1]), b: C(f32, [2, 2], [0.5, 1, -1, 2]) },
    [op('expand', [{ input: 'a' }, { newShape: [2, 3] }], 'ex'), op('transpose', [{ input: 'ex' }], 'tr'),
      op('matmul', [{ a: 'tr' }, { b: 'b' }], 'output')], ['output']));
  out.expand.push(chain('expand', 'uint8', 'chain_expand_output_and_consumer', { x: T('uint8', [2, 1], [7, 255]) },
    [op('expand', [{ input: 'x' }, { newShape: [2, 3] }], 'ex'), op('transpose', [{ input: 'ex' }], 'tr')], ['ex', 'tr']));

  out.expand.push(chain('expand', f32, 'chain_reverse_expand_slice_reverse', { x: T(f32, [1, 4, 1], [1, -2, 3.5, 'NaN']) },
    [op('reverse', [{ input: 'x' }, { options: { axes: [1] } }], 'rv'),
      op('expand', [{ input: 'rv' }, { newShape: [2, 3, 4, 3] }], 'ex'),
      op('slice', [{ input: 'ex' }, { starts: [1, 0, 1, 0] }, { sizes: [1, 3, 3, 3] }, { options: { strides: [1, 2, 2, 2] } }], 'sl'),
      op('reverse', [{ input: 'sl' }, { options: { axes: [2, 3] } }], 'output')], ['output'], ['special_values']));
  out.expand.push(chain('expand', 'int8', 'chain_expand_transpose_reshape', { x: T('int8', [3, 1], [-128, 0, 127]) },
    [op('expand', [{ input: 'x' }, { newShape: [2, 3, 2] }], 'ex'),
      op('transpose', [{ input: 'ex' }, { options: { permutation: [2, 0, 1] } }], 'tr'),
      op('reshape', [{ input: 'tr' }, { newShape: [3, 4] }], 'output')], ['output'], ['extremes']));
  out.transpose.push(chain('transpose', f32, 'chain_rank8_transpose_slice_reverse_reshape',
    { x: T(f32, [2, 3, 1, 2, 2, 1, 3, 2], genData(f32, 144)) },
    [op('transpose', [{ input: 'x' }, { options: { permutation: [6, 1, 7, 0, 3, 2, 5, 4] } }], 'tr'),
      op('slice', [{ input: 'tr' }, { starts: [0, 1, 0, 0, 1, 0, 0, 0] }, { sizes: [3, 2, 2, 2, 1, 1, 1, 2] },
        { options: { strides: [2, 1, 1, 1, 1, 1, 1, 2] } }], 'sl'),
      op('reverse', [{ input: 'sl' }, { options: { axes: [0, 3, 7] } }], 'rv'),
      op('reshape', [{ input: 'rv' }, { newShape: [4, 4] }], 'output')], ['output'], ['generator', 'rank8']));
  out.reshape.push(chain('reshape', f32, 'chain_reverse_reshape', { x: T(f32, [3, 4], seqData(f32, 12)) },
    [op('reverse', [{ input: 'x' }, { options: { axes: [1] } }], 'rv'), op('reshape', [{ input: 'rv' }, { newShape: [2, 6] }], 'output')],
    ['output']));
  out.reshape.push(chain('reshape', f32, 'chain_reshape_transpose_reshape', { x: T(f32, [24], seqData(f32, 24)) },
    [op('reshape', [{ input: 'x' }, { newShape: [2, 3, 4] }], 'a'),
      op('transpose', [{ input: 'a' }, { options: { permutation: [1, 0, 2] } }], 'b'),
      op('reshape', [{ input: 'b' }, { newShape: [4, 6] }], 'output')], ['output']));
  out.reshape.push(chain('reshape', 'float16', 'chain_reshape_add_broadcast',
    { x: T('float16', [6], seqData('float16', 6)), y: T('float16', [2, 1], [0.5, -1]) },
    [op('reshape', [{ input: 'x' }, { newShape: [1, 2, 3] }], 'a'), op('transpose', [{ input: 'a' }], 'b'),
      op('add', [{ a: 'b' }, { b: 'y' }], 'output')], ['output']));
  return out;
}

export function datamoveFiles() {
  const chains = viewChains();
  const files = {
    reshape: [...reshapeCases(), ...chains.reshape],
    transpose: [...transposeCases(), ...chains.transpose],
    expand: [...expandCases(), ...chains.expand],
    slice: [...sliceCases(), ...chains.slice],
    reverse: [...reverseCases(), ...chains.reverse],
  };
  return { ...files, ...datamove2Files() };
}
