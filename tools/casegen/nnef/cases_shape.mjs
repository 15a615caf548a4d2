// 4.4 reductions and 4.5 tensor shape operations (plus copy_n of 4.9.6).

import { T, dyadic, distinct, ints, bools, iota } from './tensor.mjs';
import { single, doc } from './casekit.mjs';
import { A } from './cases_window.mjs';

const call = (op, args, a) => `${op}(${args.join(', ')}${a && Object.keys(a).length ? `, ${A(a)}` : ''})`;

export function reduceShapeCases() {
  const cases = [];
  const add = (c) => cases.push(c);
  const op1 = (name, desc, x, op, a, extra) =>
    add(single(name, desc, { x }, call(op, ['x'], a), (o, I) => o[op](I.x, a), extra));

  // -------------------------------------------------------------------------------------------- reductions
  const x = dyadic('red.x', [2, 3, 4], -4, 4, 8);
  const xd = distinct('red.d', [2, 3, 4], -3, 8);
  op1('sum_reduce.axis1', 'sum_reduce over axis 1 (output keeps a singleton dimension)', x, 'sum_reduce', { axes: [1] });
  op1('sum_reduce.axes02', 'sum_reduce over axes [0,2]', x, 'sum_reduce', { axes: [0, 2] });
  op1('sum_reduce.normalize', 'sum_reduce normalize = true over [1,2] (mean of 12 values)', x, 'sum_reduce', { axes: [1, 2], normalize: true });
  op1('sum_reduce.all_axes', 'sum_reduce over every axis', x, 'sum_reduce', { axes: [0, 1, 2] });
  op1('mean_reduce.basic', 'mean_reduce over axis 2', x, 'mean_reduce', { axes: [2] });
  op1('mean_reduce.axis1', 'mean_reduce over axis 1 (division by 3)', x, 'mean_reduce', { axes: [1] });
  op1('max_reduce.basic', 'max_reduce over axes [1,2]', x, 'max_reduce', { axes: [1, 2] });
  op1('max_reduce.axis0', 'max_reduce over axis 0', x, 'max_reduce', { axes: [0] });
  op1('min_reduce.basic', 'min_reduce over axis 1', x, 'min_reduce', { axes: [1] });
  op1('min_reduce.axes12', 'min_reduce over axes [1,2]', x, 'min_reduce', { axes: [1, 2] });
  op1('argmax_reduce.axis1', 'argmax_reduce over axis 1 (integer result)', xd, 'argmax_reduce', { axes: [1] });
  op1('argmax_reduce.axis2', 'argmax_reduce over axis 2', xd, 'argmax_reduce', { axes: [2] });
  op1('argmin_reduce.axis1', 'argmin_reduce over axis 1', xd, 'argmin_reduce', { axes: [1] });
  op1('argmin_reduce.axis0', 'argmin_reduce over axis 0', xd, 'argmin_reduce', { axes: [0] });
  const lb = T([2, 3], [true, true, true, false, true, false], 'logical');
  op1('all_reduce.basic', 'all_reduce over axis 1', lb, 'all_reduce', { axes: [1] });
  op1('all_reduce.axis0', 'all_reduce over axis 0', lb, 'all_reduce', { axes: [0] });
  op1('any_reduce.basic', 'any_reduce over axis 1', T([3, 2], [false, false, true, false, true, true], 'logical'), 'any_reduce', { axes: [1] });
  op1('any_reduce.all_axes', 'any_reduce over both axes', T([2, 2], [false, false, false, true], 'logical'), 'any_reduce', { axes: [0, 1] });

  // ----------------------------------------------------------------------------------------------- shape
  const s = iota([2, 3, 4], -6, 0.5);
  op1('reshape.basic', 'reshape [2,3,4] -> [4,6] (row-major order kept)', s, 'reshape', { shape: [4, 6] });
  op1('reshape.zero_and_minus_one', 'reshape with 0 (inherit the extent) and -1 (the quotient)', s, 'reshape', { shape: [0, -1] });
  op1('reshape.axis_range', 'reshape only axes [1,3): axis_start 1, axis_count 2', s, 'reshape', { shape: [12], axis_start: 1, axis_count: 2 });
  op1('reshape.axis_start_insert', 'reshape with axis_start 1 and a -1 over the trailing axes', s, 'reshape', { shape: [2, -1, 3], axis_start: 1 });
  op1('reshape.integer', 'reshape<?> of an integer tensor', ints('rs.int', [2, 3], -50, 50), 'reshape', { shape: [3, 2] });
  op1('squeeze.basic', 'squeeze axes [0,2]', iota([1, 3, 1, 2], 1, 1), 'squeeze', { axes: [0, 2] });
  op1('unsqueeze.basic', 'unsqueeze axes [0,3]: positions in the output', iota([2, 3], 1, 0.25), 'unsqueeze', { axes: [0, 3] });
  op1('unsqueeze.logical', 'unsqueeze<?> of a logical tensor', bools('unsq.l', [2, 2]), 'unsqueeze', { axes: [1] });
  op1('transpose.basic', 'transpose [2,3,4] with axes [2,0,1]', s, 'transpose', { axes: [2, 0, 1] });
  op1('transpose.partial_axes', 'transpose with fewer axes than the rank: [1,0] keeps the trailing axis', s, 'transpose', { axes: [1, 0] });
  op1('transpose.nchw_to_nhwc', 'transpose [0,2,3,1]', iota([1, 2, 2, 3], 0, 1), 'transpose', { axes: [0, 2, 3, 1] });
  op1('transpose.integer', 'transpose<?> of an integer tensor', ints('tr.int', [2, 3], 0, 99), 'transpose', { axes: [1, 0] });
  op1('tile.basic', 'tile repeats [2,1,3]', iota([1, 2, 2], 1, 1), 'tile', { repeats: [2, 1, 3] });
  op1('tile.logical', 'tile<?> of a logical tensor', bools('tile.l', [2, 1]), 'tile', { repeats: [1, 3] });
  const pp = iota([1, 1, 3, 4], 1, 1);
  op1('pad.constant_default', "pad with border 'constant' and the default value 0.0", pp, 'pad', { padding: [[0, 0], [0, 0], [1, 2], [2, 1]] });
  add(single('pad.constant_value', 'pad with value = -1.5', { x: pp }, 'pad(x, padding = [(0,0), (0,0), (1,1), (1,0)], value = -1.5)',
    (o, I) => o.pad(I.x, { padding: [[0, 0], [0, 0], [1, 1], [1, 0]], value: -1.5 })));
  for (const border of ['replicate', 'reflect', 'reflect-even']) {
    op1(`pad.${border.replace('-', '_')}`, `pad with border '${border}'`, pp, 'pad', { padding: [[0, 0], [0, 0], [2, 1], [1, 3]], border });
  }
  op1('pad.negative', 'negative padding removes elements', iota([2, 5], 1, 1), 'pad', { padding: [[0, -1], [-2, 1]] });
  op1('pad.all_dims', 'padding in batch and channel dimensions too', iota([1, 2, 2], 1, 1), 'pad', { padding: [[1, 0], [0, 1], [1, 1]] });
  op1('slice.basic', 'slice axis 1 [1,3)', s, 'slice', { axes: [1], begin: [1], end: [3] });
  op1('slice.multi_axis', 'slice axes [0,2]', s, 'slice', { axes: [0, 2], begin: [1, 1], end: [2, 3] });
  op1('slice.negative', 'negative begin/end count from the end; end 0 means the extent', s, 'slice',
    { axes: [1, 2], begin: [-2, -3], end: [0, -1] });
  op1('slice.integer', 'slice<?> of an integer tensor', ints('sl.int', [3, 4], 0, 9), 'slice', { axes: [1], begin: [1], end: [4] });

  // split/concat/stack/unstack: tensor arrays on the left-hand side
  add({
    name: 'split.ratios',
    description: 'split axis 1 with ratios [1,2,1] (extent 8: chunks 2,4,2) into an array of identifiers',
    graph: doc({ inputs: [['x', T([2, 8], new Array(16).fill(0))]], outputs: ['a', 'b', 'c'], body: [
      '[a, b, c] = split(x, axis = 1, ratios = [1, 2, 1]);',
    ] }),
    inputs: { x: iota([2, 8], 0, 0.5) },
    compute: (o, I) => { const [a, b, c] = o.split(I.x, { axis: 1, ratios: [1, 2, 1] }); return { a, b, c }; },
  });
  add({
    name: 'split.axis0',
    description: 'split axis 0 into equal parts',
    graph: doc({ inputs: [['x', T([4, 3], new Array(12).fill(0))]], outputs: ['a', 'b'], body: [
      '[a, b] = split(x, axis = 0, ratios = [1, 1]);',
    ] }),
    inputs: { x: iota([4, 3], 1, 1) },
    compute: (o, I) => { const [a, b] = o.split(I.x, { axis: 0, ratios: [1, 1] }); return { a, b }; },
  });
  const c1 = dyadic('cc.a', [2, 1, 3], -2, 2, 4), c2 = dyadic('cc.b', [2, 2, 3], -2, 2, 4), c3 = dyadic('cc.c', [2, 3, 3], -2, 2, 4);
  add(single('concat.axis1', 'concat of three tensors along axis 1', { a: c1, b: c2, c: c3 }, 'concat([a, b, c], axis = 1)',
    (o, I) => o.concat([I.a, I.b, I.c], { axis: 1 })));
  add(single('concat.axis0_integer', 'concat<?> of integer tensors along axis 0',
    { a: ints('cci.a', [1, 3], 0, 9), b: ints('cci.b', [2, 3], 10, 19) }, 'concat([a, b], axis = 0)',
    (o, I) => o.concat([I.a, I.b], { axis: 0 })));
  add(single('stack.axis0', 'stack two [2,3] tensors on a new axis 0', { a: iota([2, 3], 1, 1), b: iota([2, 3], -1, -1) },
    'stack([a, b], axis = 0)', (o, I) => o.stack([I.a, I.b], { axis: 0 })));
  add(single('stack.axis2', 'stack three tensors on a new last axis', { a: iota([2, 2], 1, 1), b: iota([2, 2], 10, 1), c: iota([2, 2], 20, 1) },
    'stack([a, b, c], axis = 2)', (o, I) => o.stack([I.a, I.b, I.c], { axis: 2 })));
  add({
    name: 'unstack.axis1',
    description: 'unstack [2,3,2] along axis 1 into three [2,2] tensors',
    graph: doc({ inputs: [['x', T([2, 3, 2], new Array(12).fill(0))]], outputs: ['a', 'b', 'c'], body: [
      '[a, b, c] = unstack(x, axis = 1);',
    ] }),
    inputs: { x: iota([2, 3, 2], 1, 1) },
    compute: (o, I) => { const [a, b, c] = o.unstack(I.x, { axis: 1 }); return { a, b, c }; },
  });
  add({
    name: 'copy_n.basic',
    description: 'copy_n(x, times = 3) into an array of three identifiers',
    graph: doc({ inputs: [['x', T([2, 2], [0, 0, 0, 0])]], outputs: ['a', 'b', 'c'], body: [
      '[a, b, c] = copy_n(x, times = 3);',
    ] }),
    inputs: { x: dyadic('copyn', [2, 2], -2, 2, 4) },
    compute: (o, I) => { const [a, b, c] = o.copy_n(I.x, { times: 3 }); return { a, b, c }; },
  });
  return cases;
}
