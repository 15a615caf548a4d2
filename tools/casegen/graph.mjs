// Graph-level cases: build() validation and input()/constant() dimension checks, plus a few valid graphs
// with more than one operator or no graph inputs.

import { T, C, makeCase, materialize, broadcastShapes, mapElements } from './casebuild.mjs';
import { BINARY, UNARY, castElement } from './ops.mjs';

const f32 = 'float32';

function err(tag, inputs, operators, outputs, dtype = f32) {
  return makeCase({
    name: `webnn.graph.error.${tag}`, labels: ['graph', dtype], inputs, operators, outputs,
    expectedError: 'TypeError',
  });
}

// Evaluate a small graph of element-wise ops (for the valid graph cases).
function evalGraph(inputs, operators) {
  const env = {};
  for (const [k, t] of Object.entries(inputs)) env[k] = { dtype: t.dtype, shape: t.shape, values: materialize(t) };
  for (const op of operators) {
    const names = op.arguments.map((a) => Object.values(a)[0]);
    const x = env[names[0]];
    let r;
    if (op.name in BINARY) {
      const y = env[names[1]];
      const shape = broadcastShapes(x.shape, y.shape);
      r = { dtype: x.dtype, shape, ...mapElements(shape, [x, y], (a, b) => BINARY[op.name](x.dtype, a, b)) };
    } else if (op.name === 'cast') {
      const to = names[1];
      r = { dtype: to, shape: x.shape, ...mapElements(x.shape, [x], (v) => castElement(x.dtype, to, v)) };
    } else {
      r = { dtype: x.dtype, shape: x.shape, ...mapElements(x.shape, [x], (v) => UNARY[op.name](x.dtype, v)) };
    }
    if (r.implDefined) throw new Error('graph case with implementation-defined elements');
    env[op.outputs] = r;
  }
  return env;
}

function valid(tag, inputs, operators, outputNames, extra = []) {
  const env = evalGraph(inputs, operators);
  const outputs = {};
  for (const k of outputNames) outputs[k] = env[k];
  return makeCase({ name: `webnn.graph.${tag}`, labels: ['graph', f32, ...extra], inputs, operators, outputs });
}

export function graphFiles() {
  const a = () => T(f32, [2], [1, 2]);
  const cases = [
    err('output_is_input', { a: a() }, [], { a: a() }),
    err('output_is_input_besides_operator_output', { a: a(), b: C(f32, [2], [3, 4]) },
      [{ name: 'add', arguments: [{ a: 'a' }, { b: 'b' }], outputs: 'output' }],
      { output: T(f32, [2], [4, 6]), a: a() }),
    err('output_is_constant', { c: C(f32, [2], [1, 2]) }, [], { c: C(f32, [2], [1, 2]) }),
    err('output_is_constant_besides_operator_output', { a: a(), c: C(f32, [2], [3, 4]) },
      [{ name: 'mul', arguments: [{ a: 'a' }, { b: 'c' }], outputs: 'output' }],
      { output: T(f32, [2], [3, 8]), c: C(f32, [2], [3, 4]) }),
    err('input_zero_dimension', { a: T(f32, [2, 0], []) },
      [{ name: 'identity', arguments: [{ input: 'a' }], outputs: 'output' }]),
    err('input_zero_dimension_rank1', { a: T('int32', [0], []), b: T('int32', [1], [1]) },
      [{ name: 'add', arguments: [{ a: 'a' }, { b: 'b' }], outputs: 'output' }], undefined, 'int32'),
    err('constant_zero_dimension', { a: T(f32, [3], [1, 2, 3]), c: C(f32, [0, 3], []) },
      [{ name: 'add', arguments: [{ a: 'a' }, { b: 'c' }], outputs: 'output' }]),
  ];
  cases.push(valid('input_as_output_via_identity', { a: T(f32, [2, 2], [1, -0, 'NaN', 'Infinity']) },
    [{ name: 'identity', arguments: [{ input: 'a' }], outputs: 'output' }], ['output']));
  cases.push(valid('constant_only_graph', { c: C(f32, [3], [1, 2, 3]), d: C(f32, [], [0.5]) },
    [{ name: 'mul', arguments: [{ a: 'c' }, { b: 'd' }], outputs: 'output' }], ['output'], ['constant']));
  cases.push(valid('chain_two_outputs', { a: T(f32, [2, 3], [1, 2, 3, 4, 5, 6]), b: C(f32, [3], [0.5, -1, 2]) },
    [{ name: 'add', arguments: [{ a: 'a' }, { b: 'b' }], outputs: 'sum' },
      { name: 'mul', arguments: [{ a: 'sum' }, { b: 'sum' }], outputs: 'square' },
      { name: 'cast', arguments: [{ input: 'square' }, { type: 'int32' }], outputs: 'rounded' }],
    ['sum', 'rounded']));
  return { graph: cases };
}
