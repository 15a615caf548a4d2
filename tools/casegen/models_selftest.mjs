#!/usr/bin/env node
// Self-test of the cases/models generator: (1) the float64 interpreter on small operator lists with values
// worked out by hand, (2) the second check (model definition vs operator list) rejects a wrongly lowered block,
// (3) the float32 evaluation orders really differ from the exact one (so the measured tolerance is not 0).
import { evaluate, readInputs } from './models_eval.mjs';
import { buildCase } from './models.mjs';
import { BLOCKS } from './models_blocks.mjs';

let failures = 0;
function expect(what, got, want, tol = 0) {
  const ok = got.length === want.length && got.every((v, i) => Math.abs(v - want[i]) <= tol);
  if (!ok) {
    failures++;
    console.log(`FAIL ${what}: got [${Array.from(got)}], want [${want}]`);
  }
}
const t = (shape, data, dataType = 'float32') => ({ data, descriptor: { shape, dataType } });
const op = (name, args, outputs) => ({ name, arguments: args.map(([k, v]) => ({ [k]: v })), outputs });
function run(inputs, operators, out, mode = 'exact') {
  const graph = { inputs, operators };
  return evaluate(graph, mode, readInputs(graph))[out].data;
}

// (1) hand-computed values
expect('matmul broadcast batch', run({ a: t([2, 1, 2], [1, 2, 3, 4]), b: t([2, 2], [5, 6, 7, 8]) },
  [op('matmul', [['a', 'a'], ['b', 'b']], 'y')], 'y'), [19, 22, 43, 50]);
expect('transpose', run({ x: t([2, 3], [1, 2, 3, 4, 5, 6]) },
  [op('transpose', [['input', 'x'], ['options', { permutation: [1, 0] }]], 'y')], 'y'), [1, 4, 2, 5, 3, 6]);
expect('slice', run({ x: t([2, 3], [1, 2, 3, 4, 5, 6]) },
  [op('slice', [['input', 'x'], ['starts', [1, 1]], ['sizes', [1, 2]]], 'y')], 'y'), [5, 6]);
expect('concat axis 1', run({ a: t([2, 1], [1, 2]), b: t([2, 2], [3, 4, 5, 6]) },
  [op('concat', [['inputs', ['a', 'b']], ['axis', 1]], 'y')], 'y'), [1, 3, 4, 2, 5, 6]);
expect('triangular lower', run({ x: t([3, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9]) },
  [op('triangular', [['input', 'x'], ['options', { upper: false }]], 'y')], 'y'), [1, 0, 0, 4, 5, 0, 7, 8, 9]);
expect('where broadcast', run({ c: t([2], [1, 0], 'uint8'), a: t([2, 2], [1, 2, 3, 4]), b: t([], -1) },
  [op('where', [['condition', 'c'], ['trueValue', 'a'], ['falseValue', 'b']], 'y')], 'y'), [1, -1, 3, -1]);
expect('gather axis 0, negative index', run({ x: t([3, 2], [1, 2, 3, 4, 5, 6]), i: t([2], [2, -3], 'int32') },
  [op('gather', [['input', 'x'], ['indices', 'i'], ['options', { axis: 0 }]], 'y')], 'y'), [5, 6, 1, 2]);
expect('reverse axis 1', run({ x: t([2, 3], [1, 2, 3, 4, 5, 6]) },
  [op('reverse', [['input', 'x'], ['options', { axes: [1] }]], 'y')], 'y'), [3, 2, 1, 6, 5, 4]);
expect('expand', run({ x: t([2, 1], [1, 2]) }, [op('expand', [['input', 'x'], ['newShape', [2, 3]]], 'y')], 'y'),
  [1, 1, 1, 2, 2, 2]);
// softmax of [0, ln 3] = [1/4, 3/4]
expect('softmax', run({ x: t([2], [0, Math.log(3)], 'float32') }, [op('softmax', [['input', 'x'], ['axis', 0]], 'y')],
  'y'), [0.25, 0.75], 1e-7);
expect('reduceMean keepDimensions', run({ x: t([2, 2], [1, 2, 3, 5]) },
  [op('reduceMean', [['input', 'x'], ['options', { axes: [1], keepDimensions: true }]], 'y')], 'y'), [1.5, 4]);
// layerNormalization of [1, 3] with epsilon 0: mean 2, variance 1 -> [-1, 1]; scale 2, bias 1 -> [-1, 3]
expect('layerNormalization', run({ x: t([1, 2], [1, 3]), s: t([2], [2, 2]), b: t([2], [1, 1]) },
  [op('layerNormalization', [['input', 'x'], ['options', { scale: 's', bias: 'b', axes: [1], epsilon: 0 }]], 'y')],
  'y'), [-1, 3]);
// instanceNormalization per (n, c) over [2, 2]: [0, 0, 2, 2] -> mean 1, variance 1 -> [-1, -1, 1, 1]
expect('instanceNormalization', run({ x: t([1, 1, 2, 2], [0, 0, 2, 2]) },
  [op('instanceNormalization', [['input', 'x'], ['options', { epsilon: 0 }]], 'y')], 'y'), [-1, -1, 1, 1]);
// conv2d 1x1x3x3 ones-filter 2x2 with padding [0, 0, 1, 1], strides [1, 2], bias 10
expect('conv2d', run({ x: t([1, 1, 2, 3], [1, 2, 3, 4, 5, 6]), w: t([1, 1, 1, 2], [1, 10]), b: t([1], [100]) },
  [op('conv2d', [['input', 'x'], ['filter', 'w'], ['options', { padding: [0, 0, 1, 1], strides: [1, 2], bias: 'b' }]],
    'y')], 'y'), [110, 132, 140, 165]);
// gelu(1) = 0.5 (1 + erf(1/sqrt 2)) = 0.8413447460685429
expect('gelu', run({ x: t([1], [1]) }, [op('gelu', [['input', 'x']], 'y')], 'y'), [0.8413447460685429], 1e-15);
// float32 orders: 2^24 + 1 + 1 in float32 forward is 2^24 (each +1 rounds away), backward 2^24 + 2
const big = { a: t([1, 3], [16777216, 1, 1]), b: t([3, 1], [1, 1, 1]) };
expect('forward order rounds each partial sum', run(big, [op('matmul', [['a', 'a'], ['b', 'b']], 'y')], 'y', 'forward'),
  [16777216]);
expect('backward order', run(big, [op('matmul', [['a', 'a'], ['b', 'b']], 'y')], 'y', 'backward'), [16777218]);

// (2) a wrong lowering must be refused by the model-definition check.
const cross = BLOCKS.find((b) => b.id === 'stable_diffusion.cross_attention.float32');
const ok = buildCase(cross);
if (!(ok.tolerance > 0)) {
  failures++;
  console.log('FAIL the measured tolerance of a block is 0');
}
for (const [what, mutate] of [
  ['missing scale', (g) => { g.inputs.scale.data = 1; }],
  ['softmax over the query axis instead of the key axis', (g) => {
    g.operators.find((x) => x.name === 'softmax').arguments[1].axis = 2;
  }],
  ['context tokens fed in reverse order to the values', (g) => {
    const v = g.operators.find((x) => x.name === 'matmul' && x.arguments[1].b === 'wv');
    g.operators.splice(g.operators.indexOf(v), 0, op('reverse', [['input', 'context'], ['options', { axes: [1] }]],
      'context_reversed'));
    v.arguments[0].a = 'context_reversed';
  }],
]) {
  const block = { ...cross, build() { const r = cross.build.call(this); mutate(r.graph); return r; } };
  let refused = false;
  try {
    buildCase(block);
  } catch (e) {
    refused = /differ by/.test(e.message);
  }
  if (!refused) {
    failures++;
    console.log(`FAIL the model-definition check accepted a mutant: ${what}`);
  }
}

console.log(failures ? `${failures} failures` : 'models self-test: all passed');
process.exit(failures ? 1 : 0);
