// Self-test of the data-movement cases (section 15 of selftest.mjs): every valid case in cases/webnn/{reshape,
// transpose, expand, slice, reverse, concat, split, pad, tile, triangular}.json is evaluated again with a second,
// differently built implementation and must give the written outputs exactly (NaN = NaN, -0 != +0). The
// second implementation composes one "take along an axis" primitive (block decomposition outer x axis x inner)
// instead of mapping each output index: slice/reverse/tile/pad take index lists axis by axis, expand repeats
// axis by axis, concat copies blocks, split is the spec's emulation with slice, transpose scatters the input.
// The spec's worked examples (pad, triangular) are checked against their literal outputs.

import { readFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expandData, elementCount } from './values.mjs';
import { convertNumber, isFloat } from './numerics.mjs';
import { OPS, DATAMOVE_OPS, positional, mlNumber, ulongPlain } from './datamove_ref.mjs';

// outer x n x inner decomposition around an axis.
function blocks(shape, axis) {
  const outer = shape.slice(0, axis).reduce((a, d) => a * d, 1);
  const inner = shape.slice(axis + 1).reduce((a, d) => a * d, 1);
  return { outer, n: shape[axis], inner };
}

// Take index list idx (entries < 0 stand for `fill`) along axis.
function take(x, axis, idx, fill) {
  const { outer, n, inner } = blocks(x.shape, axis);
  const values = [];
  for (let o = 0; o < outer; o++) {
    for (const k of idx) {
      for (let i = 0; i < inner; i++) values.push(k < 0 ? fill : x.values[(o * n + k) * inner + i]);
    }
  }
  const shape = x.shape.slice();
  shape[axis] = idx.length;
  return { dtype: x.dtype, shape, values };
}
const iota = (n) => [...Array(n).keys()];
const num = (v) => (typeof v === 'number' ? v : Number(v)); // WebIDL values in these cases are plain integers

function altSlice(x, starts, sizes, options = {}) {
  let t = x;
  for (let a = 0; a < x.shape.length; a++) {
    const st = options.strides ? Math.trunc(num(options.strides[a])) : 1;
    const s0 = Math.trunc(num(starts[a]));
    const end = s0 + Math.trunc(num(sizes[a]));
    const idx = [];
    for (let k = s0; k < end; k += st) idx.push(k);
    t = take(t, a, idx);
  }
  return t;
}

function altReverse(x, options = {}) {
  const axes = options.axes ?? iota(x.shape.length);
  let t = x;
  for (const a of axes) t = take(t, a, iota(x.shape[a]).reverse());
  return t;
}

function altTile(x, reps) {
  let t = x;
  reps.forEach((r, a) => {
    const idx = [];
    for (let k = 0; k < ulongPlain(r, 'r'); k++) idx.push(...iota(x.shape[a]));
    t = take(t, a, idx);
  });
  return t;
}

function altExpand(x, newShape) {
  const r = newShape.length;
  let t = { dtype: x.dtype, shape: [...new Array(r - x.shape.length).fill(1), ...x.shape], values: x.values };
  for (let a = 0; a < r; a++) {
    if (t.shape[a] !== newShape[a]) t = take(t, a, new Array(newShape[a]).fill(0));
  }
  return t;
}

function altPad(x, beg, end, options = {}) {
  const mode = options.mode ?? 'constant';
  const value = convertNumber(mlNumber(options.value ?? 0, 'value'), x.dtype);
  let t = x;
  for (let a = 0; a < x.shape.length; a++) {
    const n = x.shape[a];
    const idx = [];
    for (let k = -beg[a]; k < n + end[a]; k++) {
      if (k >= 0 && k < n) idx.push(k);
      else if (mode === 'constant') idx.push(-1);
      else if (mode === 'edge') idx.push(Math.min(Math.max(k, 0), n - 1));
      else idx.push(k < 0 ? -k : 2 * n - 2 - k);
    }
    t = take(t, a, idx, value);
  }
  return t;
}

function altTranspose(x, options = {}) {
  const r = x.shape.length;
  const perm = options.permutation ?? iota(r).reverse();
  const shape = perm.map((p) => x.shape[p]);
  const values = new Array(x.values.length);
  const inIdx = new Array(r).fill(0);
  for (let f = 0; f < x.values.length; f++) {
    // odometer over the input index
    let o = 0;
    for (let i = 0; i < r; i++) o = o * shape[i] + inIdx[perm[i]];
    values[o] = x.values[f];
    for (let d = r - 1; d >= 0; d--) {
      if (++inIdx[d] < x.shape[d]) break;
      inIdx[d] = 0;
    }
  }
  return { dtype: x.dtype, shape, values };
}

function altConcat(inputs, axis) {
  const shape = inputs[0].shape.slice();
  shape[axis] = inputs.reduce((s, x) => s + x.shape[axis], 0);
  const { outer } = blocks(shape, axis);
  const values = [];
  for (let o = 0; o < outer; o++) {
    for (const x of inputs) {
      const chunk = x.shape[axis] * blocks(x.shape, axis).inner;
      for (let i = 0; i < chunk; i++) values.push(x.values[o * chunk + i]);
    }
  }
  return { dtype: inputs[0].dtype, shape, values };
}

function altSplit(x, splits, options = {}) { // the spec's emulation (with the count form expanded to sizes)
  const axis = options.axis ?? 0;
  const sizes = Array.isArray(splits) ? splits : new Array(splits).fill(x.shape[axis] / splits);
  const outs = [];
  let start = 0;
  for (const size of sizes) {
    const starts = new Array(x.shape.length).fill(0);
    const sz = x.shape.slice();
    starts[axis] = start;
    sz[axis] = size;
    outs.push(altSlice(x, starts, sz));
    start += size;
  }
  return outs;
}

function altTriangular(x, options = {}) {
  const upper = options.upper ?? true;
  const diagonal = options.diagonal ?? 0;
  const r = x.shape.length;
  const rows = x.shape[r - 2], cols = x.shape[r - 1];
  const values = x.values.slice();
  const zero = isFloat(x.dtype) ? 0 : 0n;
  for (let b = 0; b < values.length / (rows * cols); b++) {
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        const inside = upper ? j >= i + diagonal : j <= i + diagonal;
        if (!inside) values[(b * rows + i) * cols + j] = zero;
      }
    }
  }
  return { dtype: x.dtype, shape: x.shape.slice(), values };
}

const ALT = {
  ...OPS, // consumers (add, reduceSum, matmul, conv2d, ...) are not under test here
  reshape: { fn: (x, s) => ({ dtype: x.dtype, shape: s.map(num), values: x.values.slice() }), operands: [0] },
  transpose: { fn: altTranspose, operands: [0] },
  expand: { fn: (x, s) => altExpand(x, s.map(num)), operands: [0] },
  slice: { fn: altSlice, operands: [0] },
  reverse: { fn: altReverse, operands: [0] },
  concat: { fn: (xs, axis) => altConcat(xs, num(axis)), operands: ['list'] },
  split: { fn: altSplit, operands: [0], multi: true },
  pad: { fn: (x, b, e, o) => altPad(x, b.map(num), e.map(num), o), operands: [0] },
  tile: { fn: altTile, operands: [0] },
  triangular: { fn: altTriangular, operands: [0] },
};

function altEval(graph) {
  const env = {};
  for (const [k, t] of Object.entries(graph.inputs)) {
    const shape = t.descriptor.shape;
    env[k] = { dtype: t.descriptor.dataType, shape, values: expandData(t.data, t.descriptor.dataType, shape) };
  }
  for (const o of graph.operators) {
    const spec = ALT[o.name];
    const args = positional(o);
    spec.operands.forEach((p, k) => {
      if (p === 'list') args[k] = args[k].map((n) => env[n]);
      else args[p] = env[args[p]];
    });
    if (spec.optionOperands) {
      while (args.length < spec.optionOperands) args.push(undefined);
      args.push((n) => env[n]);
    }
    const r = spec.fn(...args);
    const names = Array.isArray(o.outputs) ? o.outputs : [o.outputs];
    (spec.multi ? r : [r]).forEach((t, k) => {
      env[names[k]] = t;
    });
  }
  return env;
}

const same = (a, b) => (typeof a === 'number' && Number.isNaN(a) ? typeof b === 'number' && Number.isNaN(b) : Object.is(a, b));

// Literal outputs of the spec's examples (pad and triangular sections).
const SPEC_EXAMPLES = {
  'webnn.pad.float32.constant_default': [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 0, 0, 0, 0, 4, 5, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0],
  'webnn.pad.float32.edge': [1, 1, 1, 2, 3, 3, 3, 1, 1, 1, 2, 3, 3, 3, 4, 4, 4, 5, 6, 6, 6, 4, 4, 4, 5, 6, 6, 6],
  'webnn.pad.float32.reflection': [6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1, 6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1],
  'webnn.triangular.float32.default': [7, 1, 2, 0, 4, 8, 0, 0, 3],
  'webnn.triangular.float32.upper_diagonal_1': [0, 1, 2, 0, 0, 8, 0, 0, 0],
  'webnn.triangular.float32.upper_diagonal_minus_1': [7, 1, 2, 9, 4, 8, 0, 6, 3],
  'webnn.triangular.float32.lower': [7, 0, 0, 9, 4, 0, 2, 6, 3],
  'webnn.triangular.float32.lower_diagonal_1': [7, 1, 0, 9, 4, 8, 2, 6, 3],
  'webnn.triangular.float32.lower_diagonal_minus_1': [0, 0, 0, 9, 0, 0, 2, 6, 0],
  'webnn.triangular.float32.lower_batches': [7, 0, 0, 9, 4, 0, 2, 6, 3, 1, 0, 0, 4, 5, 0, 7, 8, 9],
};

export function datamoveChecks(check) {
  const dir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'cases', 'webnn');
  let n = 0;
  const seenExamples = new Set();
  for (const op of DATAMOVE_OPS) {
    const path = join(dir, `${op}.json`);
    if (!existsSync(path)) continue;
    for (const c of JSON.parse(readFileSync(path, 'utf8')).cases) {
      if (c.expectedError) continue;
      n++;
      let env;
      try {
        env = altEval(c.graph);
      } catch (e) {
        check(false, `${c.name}: second implementation failed: ${e.message}`);
        continue;
      }
      for (const [k, t] of Object.entries(c.graph.expectedOutputs)) {
        const got = env[k];
        const shape = t.descriptor.shape;
        const want = expandData(t.data, t.descriptor.dataType, shape);
        check(got && JSON.stringify(got.shape) === JSON.stringify(shape), `${c.name}.${k}: shape [${got?.shape}] vs [${shape}]`);
        check(got && got.values.length === elementCount(shape) && want.every((v, i) => same(v, got.values[i])),
          `${c.name}.${k}: values differ from the second implementation`);
      }
      if (c.name in SPEC_EXAMPLES) {
        seenExamples.add(c.name);
        const want = SPEC_EXAMPLES[c.name];
        const got = c.graph.expectedOutputs.output.data;
        check(want.length === got.length && want.every((v, i) => v === got[i]), `${c.name}: differs from the spec's example`);
      }
    }
  }
  if (n > 0) check(seenExamples.size === Object.keys(SPEC_EXAMPLES).length, 'datamove: a spec example case is missing');
  console.log(`data movement: ${n} cases re-evaluated`);
}
