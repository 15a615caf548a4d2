#!/usr/bin/env node
// Self-test of the cases/models generator: (1) the float64 interpreter on small operator lists with values
// worked out by hand, (2) the second check (model definition vs operator list) rejects a wrongly lowered block,
// (3) the float32 evaluation orders really differ from the exact one (so the measured tolerance is not 0),
// (4) the float16 accumulator orders: the fast float16 rounding they use against numerics.mjs's roundF16, and
// sums worked out by hand.
import { evaluate, readInputs } from './models_eval.mjs';
import { roundF16, roundF16Fast } from './numerics.mjs';
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

// (4) float16 accumulators. roundF16Fast must be roundF16 on every double: zeros, ties to even at 2048 (2049 ->
// 2048, 2051 -> 2052), the subnormal range and its ties (2^-25 -> 0, 3 * 2^-25 -> 2^-23), the smallest normal,
// the overflow threshold 65520 (halfway between 65504 and 2^16: to even, Infinity), and random doubles of every
// magnitude, with and without a twelfth significant bit (ties).
{
  let bad = 0;
  const same = (x) => {
    for (const v of [x, -x]) {
      if (!Object.is(roundF16Fast(v), roundF16(v))) {
        if (bad++ < 5) console.log(`FAIL roundF16Fast(${v}) = ${roundF16Fast(v)}, roundF16 ${roundF16(v)}`);
      }
    }
  };
  [0, 1, 2049, 2051, 2 ** -25, 3 * 2 ** -25, 2 ** -24, 2 ** -14, 2 ** -14 - 2 ** -25, 2 ** -14 - 2 ** -26, 65504,
    65519.99, 65520, 65536, 1e300, Infinity, NaN, 1 + 2 ** -11, 1 + 3 * 2 ** -11].forEach(same);
  let seed = 12345;
  const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  for (let i = 0; i < 200000; i++) {
    same((rnd() - 0.5) * 2 ** (Math.floor(rnd() * 50) - 30));
    same((2049 + 2 * Math.floor(rnd() * 1023)) * 2 ** (Math.floor(rnd() * 44) - 38)); // 12 bits: a tie
  }
  if (bad) {
    failures++;
    console.log(`FAIL roundF16Fast differs from roundF16 on ${bad} values`);
  }
}
// 2048 + 1 + 1 in float16: forward 2048 (2049 is a tie, to the even 2048, twice), backward 1 + 1 + 2048 = 2050;
// float32 accumulators give 2050 both ways.
const h = { a: t([1, 3], [2048, 1, 1], 'float16'), b: t([3, 1], [1, 1, 1], 'float16') };
const mm = [op('matmul', [['a', 'a'], ['b', 'b']], 'y')];
expect('forward16 matmul', run(h, mm, 'y', 'forward16'), [2048]);
expect('backward16 matmul', run(h, mm, 'y', 'backward16'), [2050]);
expect('forward matmul of float16 (float32 accumulator)', run(h, mm, 'y', 'forward'), [2050]);
// reduceMean of [2048, 1, 1]: forward16 2048 / 3 = 682.67 -> 682.5 (float16 spacing 0.5 in [512, 1024)),
// backward16 2050 / 3 = 683.33 -> 683.5
const rm = [op('reduceMean', [['input', 'x'], ['options', { axes: [1] }]], 'y')];
expect('forward16 reduceMean', run({ x: t([1, 3], [2048, 1, 1], 'float16') }, rm, 'y', 'forward16'), [682.5]);
expect('backward16 reduceMean', run({ x: t([1, 3], [2048, 1, 1], 'float16') }, rm, 'y', 'backward16'), [683.5]);
// conv2d: a 1x1 filter of ones over [1, 3, 1, 1] = [2048, 1, 1] is the same sum, bias 0 last (forward) or first
const cv = [op('conv2d', [['input', 'x'], ['filter', 'w']], 'y')];
const cx = { x: t([1, 3, 1, 1], [2048, 1, 1], 'float16'), w: t([1, 3, 1, 1], [1, 1, 1], 'float16') };
expect('forward16 conv2d', run(cx, cv, 'y', 'forward16'), [2048]);
expect('backward16 conv2d', run(cx, cv, 'y', 'backward16'), [2050]);

console.log(failures ? `${failures} failures` : 'models self-test: all passed');
process.exit(failures ? 1 : 0);
