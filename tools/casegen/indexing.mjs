// Cases for the indexing operators gather, gatherElements, gatherND, scatterElements, scatterND, argMin,
// argMax and cumulativeSum, computed from the spec text (webnn-index.bs sections api-mlgraphbuilder-gather,
// -gatherelements, -gathernd, -scatterelements, -scatternd, -argminmax, -cumulativesum). Nothing here reads
// the C++ code.
//
// Readings (see /work/notes/h2-h4.md and the README section "Indexing operators"):
// - Indices are int32, uint32 or int64 (each method's indices row); a negative index counts from the end of
//   its dimension. An index outside [-N, N) breaks the argument text's "must be in the range"; the result is
//   implementation-defined. The written value is the clamped one (the spec's note: "the specified clamping
//   behavior"): i < -N reads/writes element 0, i >= N element N - 1. Such elements are counted as
//   implementation-defined (gathers: the elements read through the index; scatters: the elements written
//   through it), so the cases carry the label `implementation_defined`.
// - Scatter with two updates for one output element (also -1 and N - 1, or two indices clamped to one place):
//   the spec gives no order. The written value is the last update in row-major order of the indices, and the
//   element is implementation-defined.
// - gatherElements' output shape is the indices' shape (spec-notes #5); scatterND's is the input's (#6).
// - argMin/argMax: the first index of the extreme (spec-notes #15); +0 and -0 are equal (a tie). A reduced row
//   with a NaN is implementation-defined (the spec says nothing); the index of the first NaN is written.
// - cumulativeSum: each output is the exact sum of its terms rounded once (float) or the exact integer,
//   wrapped and implementation-defined when out of range. A sum of only -0 terms is -0, the empty sum (the
//   first exclusive element) +0, every other exact zero +0. `axis` is a plain unsigned long (no
//   [EnforceRange]): 4294967296 converts to 0.

import { DTYPES, isFloat, isSigned, intRange, inIntRange, wrapInt } from './numerics.mjs';
import { T, C, materialize } from './casebuild.mjs';
import { opCase, opError, unravel, ravel } from './familyutil.mjs';
import { SPECIAL, intSpecial, randRange, uniform, range, fill } from './common.mjs';
import { splitmix64, elementCount } from './values.mjs';
import { dyadic, dAdd, roundDyadic } from './hiprec.mjs';

export const INDEXING_OPS = ['gather', 'gatherElements', 'gatherND', 'scatterElements', 'scatterND', 'argMin',
  'argMax', 'cumulativeSum'];
const INDEX_TYPES = ['int32', 'uint32', 'int64'];
const CUMSUM_TYPES = ['float32', 'float16', 'int32', 'uint32', 'int64', 'uint64'];
const F32 = 'float32';

// ---------------------------------------------------------------------------------------------------------
// Reference semantics (element values: doubles for float types, BigInt for integer types).

// An index value (BigInt) into a dimension of size n: {k, ok}. Out of range: clamped, ok = false.
export function resolveIndex(v, n) {
  const N = BigInt(n);
  if (v >= -N && v < N) return { k: Number(v < 0n ? v + N : v), ok: true };
  return { k: v < 0n ? 0 : n - 1, ok: false };
}

// gather: output shape input[0:axis] + indices + input[axis+1:] (the method steps' outputShape loops).
export function gatherRef(x, idx, axis) {
  const ir = idx.shape.length;
  const shape = [...x.shape.slice(0, axis), ...idx.shape, ...x.shape.slice(axis + 1)];
  const values = [];
  const marks = [];
  for (let f = 0; f < elementCount(shape); f++) {
    const c = unravel(f, shape);
    const { k, ok } = resolveIndex(idx.values[ravel(c.slice(axis, axis + ir), idx.shape)], x.shape[axis]);
    values.push(x.values[ravel([...c.slice(0, axis), k, ...c.slice(axis + ir)], x.shape)]);
    marks.push(!ok);
  }
  return { shape, values, marks };
}

// gatherElements: output[c] = input[c with c[axis] = indices[c]]; output shape = indices' shape.
export function gatherElementsRef(x, idx, axis) {
  const shape = [...idx.shape];
  const values = [];
  const marks = [];
  for (let f = 0; f < elementCount(shape); f++) {
    const c = unravel(f, shape);
    const { k, ok } = resolveIndex(idx.values[f], x.shape[axis]);
    c[axis] = k;
    values.push(x.values[ravel(c, x.shape)]);
    marks.push(!ok);
  }
  return { shape, values, marks };
}

// gatherND: indices[..., 0:q] is a coordinate into input[0:q]; the slice input[coord, ...] is copied.
export function gatherNDRef(x, idx) {
  const q = idx.shape[idx.shape.length - 1];
  const batch = idx.shape.slice(0, -1);
  const shape = [...batch, ...x.shape.slice(q)];
  const values = [];
  const marks = [];
  for (let f = 0; f < elementCount(shape); f++) {
    const c = unravel(f, shape);
    const base = ravel(c.slice(0, batch.length), batch) * q;
    const coord = [];
    let ok = true;
    for (let k = 0; k < q; k++) {
      const r = resolveIndex(idx.values[base + k], x.shape[k]);
      coord.push(r.k);
      ok = ok && r.ok;
    }
    values.push(x.values[ravel([...coord, ...c.slice(batch.length)], x.shape)]);
    marks.push(!ok);
  }
  return { shape, values, marks };
}

// Writes of the scatters: a copy of the input, then each update in row-major order of the indices. An
// element is implementation-defined when an out-of-range index writes it, or when updates that differ
// (NaN equals NaN, -0 differs from +0) compete for it; equal competing updates give a determined result.
function scatterWriter(x) {
  const values = [...x.values];
  const written = values.map(() => []);
  const bad = new Array(values.length).fill(false);
  const same = (a, b) => (typeof a === 'bigint' ? a === b : Object.is(a, b)); // NaN is NaN; +0 is not -0
  return {
    write(target, v, ok) {
      values[target] = v;
      written[target].push(v);
      if (!ok) bad[target] = true;
    },
    result() {
      const marks = written.map((w, i) => bad[i] || w.some((e) => !same(e, w[0])));
      return { shape: [...x.shape], values, marks };
    },
  };
}

export function scatterElementsRef(x, idx, upd, axis) {
  const w = scatterWriter(x);
  for (let p = 0; p < elementCount(idx.shape); p++) {
    const c = unravel(p, idx.shape);
    const { k, ok } = resolveIndex(idx.values[p], x.shape[axis]);
    c[axis] = k;
    w.write(ravel(c, x.shape), upd.values[p], ok);
  }
  return w.result();
}

export function scatterNDRef(x, idx, upd) {
  const q = idx.shape[idx.shape.length - 1];
  const batch = idx.shape.slice(0, -1);
  const slice = x.shape.slice(q);
  const sliceSize = elementCount(slice);
  const w = scatterWriter(x);
  for (let b = 0; b < elementCount(batch); b++) {
    const coord = [];
    let ok = true;
    for (let k = 0; k < q; k++) {
      const r = resolveIndex(idx.values[b * q + k], x.shape[k]);
      coord.push(r.k);
      ok = ok && r.ok;
    }
    for (let s = 0; s < sliceSize; s++) {
      w.write(ravel([...coord, ...unravel(s, slice)], x.shape), upd.values[b * sliceSize + s], ok);
    }
  }
  return w.result();
}

// The reduced shape of argMin/argMax ("calculating reduction output sizes" with axes = [axis]).
function reducedShape(shape, axis, keep) {
  return keep ? shape.map((d, i) => (i === axis ? 1 : d)) : shape.filter((d, i) => i !== axis);
}

// Lines along an axis: calls fn(positions) with the flat positions of each line, in output order.
function forEachLine(shape, axis, fn) {
  const n = shape[axis];
  const outer = elementCount(shape.slice(0, axis));
  const inner = elementCount(shape.slice(axis + 1));
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) fn(Array.from({ length: n }, (_, j) => (o * n + j) * inner + i));
  }
}

// argMin/argMax. tie: 'first' (the reference's choice) or 'last' (another tied index, for the tie case).
export function argRef(op, x, axis, keep, tie = 'first') {
  const values = [];
  const marks = [];
  let ties = 0; // lines where the chosen index differs from the first tied one
  forEachLine(x.shape, axis, (pos) => {
    const v = pos.map((p) => x.values[p]);
    const nan = v.findIndex((e) => typeof e === 'number' && Number.isNaN(e));
    if (nan >= 0) {
      values.push(BigInt(nan));
      marks.push(true);
      return;
    }
    let best = 0;
    for (let j = 1; j < v.length; j++) {
      if (op === 'argMin' ? v[j] < v[best] : v[j] > v[best]) best = j;
    }
    let chosen = best;
    if (tie === 'last') {
      for (let j = v.length - 1; j > best; j--) {
        if (v[j] == v[best]) { // eslint-disable-line eqeqeq -- numbers or BigInts; +0 == -0
          chosen = j;
          break;
        }
      }
    }
    if (chosen !== best) ties++;
    values.push(BigInt(chosen));
    marks.push(false);
  });
  return { shape: reducedShape(x.shape, axis, keep), values, marks, ties };
}

// cumulativeSum of each line along axis.
export function cumulativeSumRef(t, x, axis, exclusive, reversed) {
  const values = new Array(x.values.length);
  const marks = new Array(x.values.length).fill(false);
  forEachLine(x.shape, axis, (pos) => {
    const order = reversed ? [...pos].reverse() : pos;
    const s = { count: 0, sum: { m: 0n, e: 0 }, int: 0n, nan: false, pinf: false, ninf: false, allNegZero: true };
    const add = (v) => {
      s.count++;
      if (!isFloat(t)) s.int += v;
      else if (Number.isNaN(v)) s.nan = true;
      else if (v === Infinity) s.pinf = true;
      else if (v === -Infinity) s.ninf = true;
      else s.sum = dAdd(s.sum, dyadic(v));
      if (!Object.is(v, -0)) s.allNegZero = false;
    };
    const value = (p) => {
      if (!isFloat(t)) {
        if (inIntRange(t, s.int)) return s.int;
        marks[p] = true;
        return wrapInt(t, s.int);
      }
      if (s.count === 0) return 0; // the empty sum
      if (s.nan || (s.pinf && s.ninf)) return NaN;
      if (s.pinf) return Infinity;
      if (s.ninf) return -Infinity;
      if (s.sum.m === 0n) return s.allNegZero ? -0 : 0;
      return roundDyadic(s.sum, t);
    };
    for (const p of order) {
      if (exclusive) {
        values[p] = value(p);
        add(x.values[p]);
      } else {
        add(x.values[p]);
        values[p] = value(p);
      }
    }
  });
  return { shape: [...x.shape], values, marks };
}

// ---------------------------------------------------------------------------------------------------------
// Case helpers.

const view = (t) => ({ shape: t.shape, values: materialize(t) });
const count = (marks) => marks.filter(Boolean).length;

function outCase(op, name, labels, inputs, args, dtype, r) {
  return opCase({
    op, name, labels, inputs, args, implDefined: count(r.marks),
    out: { dtype, shape: r.shape, values: r.values },
  });
}

function errCase(op, tag, labels, inputs, args) {
  return opError({ op, name: `webnn.${op}.error.${tag}`, labels: [op, ...labels], inputs, args });
}

// Deterministic integer data in [lo, hi] (written in full), from splitmix64.
function intData(seed, n, lo, hi) {
  const next = splitmix64(seed);
  const span = BigInt(hi) - BigInt(lo) + 1n;
  return Array.from({ length: n }, () => BigInt(lo) + (next() % span));
}

// A permutation of 0..n-1 (Fisher-Yates over splitmix64).
function permutation(seed, n) {
  const next = splitmix64(seed);
  const p = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Number(next() % BigInt(i + 1));
    [p[i], p[j]] = [p[j], p[i]];
  }
  return p;
}

// The [4, 3] input of the spec's gather examples, adapted per type (distinct values; signs where allowed).
function base43(t) {
  if (isFloat(t)) return [0, 1.5, -2, 10, 11.25, -12, 20, 21, 22.5, -30, 31, 32];
  return isSigned(t) ? [0, 1, -2, 10, 11, -12, 20, 21, 22, -30, 31, 32] : [0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32];
}
// A [4, 2, 2] input as in the spec's gatherElements/scatterElements example 3.
function base422(t) {
  return [0, 1, 10, 11, 100, 101, 110, 111, 200, 201, 210, 211, 300, 301, 310, 311].map((v, i) =>
    (isSigned(t) && i % 3 === 1 ? -v : v) % (t.endsWith('int8') ? 128 : 1000));
}
// Values of a type's special/extreme set.
const specials = (t) => (isFloat(t) ? SPECIAL[t] : intSpecial(t));
// Random data of type t for generator inputs.
function randomData(t, seed) {
  if (isFloat(t)) return uniform(seed, -100, 100);
  const [lo, hi] = randRange(t);
  return uniform(seed, lo, hi);
}
// Updates of type t (distinct from the base data: negative where possible).
function updatesOf(t, n, start = 1) {
  return Array.from({ length: n }, (_, i) => {
    const v = start + i;
    if (isFloat(t)) return -v - 0.5;
    return isSigned(t) ? -v : 200 + v; // callers keep n small (<= 55)
  });
}

// Out-of-range index values of an index type for a dimension of size n (each outside [-n, n)).
function outOfRange(it, n) {
  if (it === 'uint32') return [BigInt(n), BigInt(n + 1), 2147483648n, 4294967294n, 4294967295n];
  if (it === 'int32') return [BigInt(n), BigInt(-n - 1), 2147483647n, -2147483648n, 100n];
  return [BigInt(n), BigInt(-n - 1), 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n), 4294967296n];
}
// A few in-range index values (negative ones where the type allows).
function inRange(it, n, k) {
  return Array.from({ length: k }, (_, i) => {
    const v = (i * 7 + 3) % n;
    return it !== 'uint32' && i % 2 === 1 ? BigInt(v - n) : BigInt(v);
  });
}

// ---------------------------------------------------------------------------------------------------------
// gather

function gatherCase(t, tag, x, idx, axis, labels = [], noOptions = false) {
  const args = [{ input: 'x' }, { indices: 'i' }];
  if (!noOptions) args.push({ options: axis === undefined ? {} : { axis } });
  const r = gatherRef(view(x), view(idx), axis ?? 0);
  return outCase('gather', `webnn.gather.${t}.${tag}`, ['gather', t, idx.dtype, ...labels], { x, i: idx }, args, t, r);
}

function gatherCases() {
  const out = [];
  const op = 'gather';
  for (const t of DTYPES) {
    const x43 = () => C(t, [4, 3], base43(t));
    // The spec's three examples (uint32 indices), then the same with int32 and int64.
    out.push(gatherCase(t, 'spec_example_axis0', x43(), C('uint32', [2], [3, 1]), undefined, ['spec_example'], true));
    out.push(gatherCase(t, 'spec_example_axis1', x43(), C('uint32', [3], [2, 1, 1]), 1, ['spec_example']));
    out.push(gatherCase(t, 'spec_example_axis1_indices_2d', x43(), C('uint32', [2, 2], [0, 1, 1, 2]), 1, ['spec_example']));
    for (const it of ['int32', 'int64']) {
      out.push(gatherCase(t, `indices_${it}`, T(t, [4, 3], base43(t)), T(it, [2, 2], [3, 0, 1, 3]), 0));
      out.push(gatherCase(t, `indices_${it}_negative`, T(t, [4, 3], base43(t)), C(it, [5], [-1, -4, 2, -2, 0]), 0,
        ['negative_indices']));
    }
    out.push(gatherCase(t, 'negative_indices_axis1', x43(), T('int32', [2, 2], [-1, -3, 2, -2]), 1, ['negative_indices']));
    out.push(gatherCase(t, 'rank0_indices', T(t, [4, 3], base43(t)), T('int32', [], 2), 0, ['rank0']));
    out.push(gatherCase(t, 'rank0_indices_axis1', x43(), C('int64', [], -1), 1, ['rank0', 'negative_indices']));
    out.push(gatherCase(t, 'rank1_input_rank0_indices', T(t, [5], base43(t).slice(0, 5)), C('uint32', [], 3), 0,
      ['rank0']));
    out.push(gatherCase(t, 'repeated_indices', x43(), T('int32', [6], [1, 1, 1, 3, -3, 1]), 0, []));
    const s = specials(t);
    out.push(gatherCase(t, isFloat(t) ? 'special_values' : 'extremes', T(t, [s.length], s),
      T('int32', [2, s.length], [...Array(s.length).keys(), ...Array(s.length).keys()].map((v, i) => (i < s.length ? s.length - 1 - v : v - s.length))),
      0, [isFloat(t) ? 'special_values' : 'extremes', 'negative_indices']));
    out.push(gatherCase(t, 'rank5_random_axis2', T(t, [2, 3, 4, 3, 2], randomData(t, 501)),
      T('int32', [3, 2], uniform(502, -4, 3)), 2, ['generator', 'negative_indices']));
    out.push(gatherCase(t, 'rank4_indices_rank3_input_axis2', T(t, [2, 3, 5], range(isSigned(t) ? -10 : 0, 1)),
      C('int64', [2, 1, 2, 2], [0, 4, -1, -5, 2, 3, 1, 1]), 2, ['generator', 'negative_indices']));
    out.push(gatherCase(t, 'fill_input', T(t, [3, 4], fill(isFloat(t) ? -0.5 : 7)), T('uint32', [2], [2, 0]), 0,
      ['generator']));
    out.push(gatherCase(t, 'out_of_range_indices', x43(), T('int32', [6], [4, -5, 2147483647, -2147483648, 1, -1]), 0,
      ['out_of_range', 'implementation_defined']));
  }
  // Each index type with float32 input: random in-range indices on a larger input, and out-of-range values.
  for (const it of INDEX_TYPES) {
    const lo = it === 'uint32' ? 0 : -7;
    out.push(gatherCase(F32, `large_random_indices_${it}`, T(F32, [7, 40], uniform(511, -1000, 1000)),
      T(it, [3, 10], uniform(512, lo, 6)), 0, ['generator', 'large']));
    out.push(gatherCase(F32, `large_random_indices_${it}_axis1`, T(F32, [7, 40], range(-100, 0.25)),
      T(it, [50], uniform(513, it === 'uint32' ? 0 : -40, 39)), 1, ['generator', 'large']));
    const oor = outOfRange(it, 4);
    out.push(gatherCase(F32, `out_of_range_indices_${it}`, C(F32, [3, 4], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]),
      T(it, [oor.length + 2], [...oor, 0n, 3n]), 1, ['out_of_range', 'implementation_defined']));
  }
  // Errors, in the order of the method steps.
  for (const bad of ['float32', 'int8', 'uint8', 'uint64', 'float16']) {
    out.push(errCase(op, `indices_${bad}`, [F32], { x: T(F32, [3], [1, 2, 3]), i: T(bad, [1], [0]) },
      [{ input: 'x' }, { indices: 'i' }]));
  }
  out.push(errCase(op, 'axis_equal_to_rank', [F32], { x: T(F32, [2, 3], 1), i: T('int32', [1], [0]) },
    [{ input: 'x' }, { indices: 'i' }, { options: { axis: 2 } }]));
  out.push(errCase(op, 'axis_greater_than_rank', ['int8'], { x: T('int8', [2, 3], 1), i: T('int64', [1], [0]) },
    [{ input: 'x' }, { indices: 'i' }, { options: { axis: 7 } }]));
  out.push(errCase(op, 'rank0_input', [F32, 'rank0'], { x: T(F32, [], 1), i: T('int32', [], 0) },
    [{ input: 'x' }, { indices: 'i' }]));
  out.push(errCase(op, 'negative_axis', [F32, 'webidl'], { x: T(F32, [2, 3], 1), i: T('int32', [1], [0]) },
    [{ input: 'x' }, { indices: 'i' }, { options: { axis: -1 } }]));
  out.push(errCase(op, 'axis_enforce_range_2_32', [F32, 'webidl'], { x: T(F32, [2, 3], 1), i: T('int32', [1], [0]) },
    [{ input: 'x' }, { indices: 'i' }, { options: { axis: 4294967296 } }]));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// gatherElements

function gatherElementsCase(t, tag, x, idx, axis, labels = [], noOptions = false) {
  const args = [{ input: 'x' }, { indices: 'i' }];
  if (!noOptions) args.push({ options: axis === undefined ? {} : { axis } });
  const r = gatherElementsRef(view(x), view(idx), axis ?? 0);
  return outCase('gatherElements', `webnn.gatherElements.${t}.${tag}`, ['gatherElements', t, idx.dtype, ...labels],
    { x, i: idx }, args, t, r);
}

function gatherElementsCases() {
  const out = [];
  const op = 'gatherElements';
  for (const t of DTYPES) {
    const x43 = () => C(t, [4, 3], base43(t));
    out.push(gatherElementsCase(t, 'spec_example_axis0', x43(), C('uint32', [2, 3], [3, 1, 1, 2, 0, 3]), undefined,
      ['spec_example'], true));
    out.push(gatherElementsCase(t, 'spec_example_axis1', x43(), C('uint32', [4, 1], [2, 1, 0, 2]), 1, ['spec_example']));
    out.push(gatherElementsCase(t, 'spec_example_rank3', C(t, [4, 2, 2], base422(t)), C('uint32', [1, 2, 2], [0, 2, 1, 3]), 0,
      ['spec_example']));
    for (const it of ['int32', 'int64']) {
      out.push(gatherElementsCase(t, `indices_${it}`, T(t, [4, 3], base43(t)), T(it, [2, 3], [3, 1, 1, 2, 0, 3]), 0));
      out.push(gatherElementsCase(t, `indices_${it}_negative_axis1`, T(t, [4, 3], base43(t)),
        C(it, [4, 2], [-1, 0, -3, -2, 2, -1, 1, -3]), 1, ['negative_indices']));
    }
    out.push(gatherElementsCase(t, 'indices_longer_than_axis', x43(), T('int32', [6, 3],
      [3, 0, 1, 2, 2, 2, -1, -4, 0, 0, 3, 3, 1, 1, -2, -3, 2, 0]), 0, ['negative_indices']));
    out.push(gatherElementsCase(t, 'rank1', T(t, [5], base43(t).slice(0, 5)), C('int32', [7], [4, 0, -1, 2, 2, -5, 1]), 0,
      ['negative_indices']));
    const s = specials(t);
    out.push(gatherElementsCase(t, isFloat(t) ? 'special_values' : 'extremes', T(t, [2, s.length], [...s, ...s.slice().reverse()]),
      T('int32', [2, s.length], [...s.map((_, i) => i % 2), ...s.map((_, i) => -1 - (i % 2))]), 0,
      [isFloat(t) ? 'special_values' : 'extremes', 'negative_indices']));
    out.push(gatherElementsCase(t, 'rank5_random_axis3', T(t, [2, 3, 2, 4, 2], randomData(t, 521)),
      T('int64', [2, 3, 2, 5, 2], uniform(522, -4, 3)), 3, ['generator', 'negative_indices']));
    out.push(gatherElementsCase(t, 'out_of_range_indices', x43(), T('int32', [2, 3], [4, -5, 0, 2147483647, -2147483648, -1]), 0,
      ['out_of_range', 'implementation_defined']));
  }
  for (const it of INDEX_TYPES) {
    out.push(gatherElementsCase(F32, `large_random_indices_${it}`, T(F32, [9, 30], uniform(531, -1000, 1000)),
      T(it, [12, 30], uniform(532, it === 'uint32' ? 0 : -9, 8)), 0, ['generator', 'large']));
    const oor = outOfRange(it, 3);
    out.push(gatherElementsCase(F32, `out_of_range_indices_${it}`, C(F32, [2, 3], [1, 2, 3, 4, 5, 6]),
      T(it, [2, oor.length], [...oor, ...oor.slice().reverse()]), 1, ['out_of_range', 'implementation_defined']));
  }
  const args = (o) => [{ input: 'x' }, { indices: 'i' }, ...(o ? [{ options: o }] : [])];
  for (const bad of ['float32', 'int8', 'uint64']) {
    out.push(errCase(op, `indices_${bad}`, [F32], { x: T(F32, [2, 2], 1), i: T(bad, [2, 2], 0) }, args()));
  }
  out.push(errCase(op, 'rank0_input', [F32, 'rank0'], { x: T(F32, [], 1), i: T('int32', [], 0) }, args()));
  out.push(errCase(op, 'indices_rank_below_input_rank', [F32], { x: T(F32, [2, 3], 1), i: T('int32', [3], 0) }, args()));
  out.push(errCase(op, 'indices_rank_above_input_rank', [F32], { x: T(F32, [2, 3], 1), i: T('int32', [2, 3, 1], 0) }, args()));
  out.push(errCase(op, 'axis_equal_to_rank', [F32], { x: T(F32, [2, 3], 1), i: T('int32', [2, 3], 0) }, args({ axis: 2 })));
  out.push(errCase(op, 'indices_shape_differs_off_axis', [F32], { x: T(F32, [2, 3], 1), i: T('int32', [2, 2], 0) },
    args({ axis: 0 })));
  out.push(errCase(op, 'indices_shape_differs_off_axis_axis1', ['int32'], { x: T('int32', [4, 3, 2], 1), i: T('uint32', [4, 5, 1], 0) },
    args({ axis: 1 })));
  out.push(errCase(op, 'negative_axis', [F32, 'webidl'], { x: T(F32, [2, 3], 1), i: T('int32', [2, 3], 0) }, args({ axis: -1 })));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// gatherND

function gatherNDCase(t, tag, x, idx, labels = [], noOptions = true) {
  const args = [{ input: 'x' }, { indices: 'i' }];
  if (!noOptions) args.push({ options: {} });
  const r = gatherNDRef(view(x), view(idx));
  return outCase('gatherND', `webnn.gatherND.${t}.${tag}`, ['gatherND', t, idx.dtype, ...labels], { x, i: idx }, args, t, r);
}

function gatherNDCases() {
  const out = [];
  const op = 'gatherND';
  for (const t of DTYPES) {
    const x22 = () => C(t, [2, 2], isSigned(t) ? [0, -1, 2, 3] : [0, 1, 2, 3]);
    const x222 = () => C(t, [2, 2, 2], isSigned(t) ? [0, 1, -2, 3, 4, 5, -6, 7] : [0, 1, 2, 3, 4, 5, 6, 7]);
    out.push(gatherNDCase(t, 'spec_example_1', x22(), C('uint32', [3, 2], [0, 0, 1, 1, 1, 0]), ['spec_example']));
    out.push(gatherNDCase(t, 'spec_example_2', x22(), C('uint32', [2, 1], [1, 0]), ['spec_example'], false));
    out.push(gatherNDCase(t, 'spec_example_3', x222(), C('uint32', [2, 2], [0, 1, 1, 0]), ['spec_example']));
    out.push(gatherNDCase(t, 'spec_example_4', x222(), C('uint32', [3, 1], [1, 0, 1]), ['spec_example']));
    out.push(gatherNDCase(t, 'spec_example_5', x222(), C('uint32', [5, 3], [0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 0, 1, 1, 1]),
      ['spec_example']));
    for (const it of ['int32', 'int64']) {
      out.push(gatherNDCase(t, `indices_${it}`, T(t, [4, 3], base43(t)), T(it, [3, 2], [3, 2, 0, 1, 2, 0])));
      out.push(gatherNDCase(t, `indices_${it}_negative`, T(t, [4, 3], base43(t)), C(it, [4, 2], [-1, -1, -4, 0, 2, -3, -2, 1]),
        ['negative_indices']));
    }
    out.push(gatherNDCase(t, 'rank0_output', T(t, [4, 3], base43(t)), T('int32', [2], [2, -1]), ['rank0', 'negative_indices']));
    out.push(gatherNDCase(t, 'rank1_indices_slice', T(t, [4, 3], base43(t)), T('int64', [1], [-2]), ['negative_indices']));
    out.push(gatherNDCase(t, 'batch_rank3_indices', T(t, [4, 3], base43(t)), C('int32', [2, 2, 1], [3, 0, -1, 1]),
      ['negative_indices']));
    const s = specials(t);
    out.push(gatherNDCase(t, isFloat(t) ? 'special_values' : 'extremes', T(t, [2, s.length], [...s, ...s.slice().reverse()]),
      T('int32', [s.length, 2], s.flatMap((_, i) => [i % 2, -1 - i])), [isFloat(t) ? 'special_values' : 'extremes', 'negative_indices']));
    out.push(gatherNDCase(t, 'rank5_random', T(t, [2, 3, 2, 3, 2], randomData(t, 541)),
      T('int32', [2, 4, 3], intData(542, 24, -2, 1).map((v, i) => (i % 3 === 1 ? (v + 3n) % 3n - (i % 2 ? 3n : 0n) : v))),
      ['generator', 'negative_indices']));
    out.push(gatherNDCase(t, 'out_of_range_indices', T(t, [4, 3], base43(t)),
      T('int32', [4, 2], [4, 0, 0, 3, -5, -4, 2147483647, -2147483648]), ['out_of_range', 'implementation_defined']));
  }
  for (const it of INDEX_TYPES) {
    const neg = it === 'uint32' ? 0 : 1;
    const coords = intData(551, 60, 0, 5 * 6 - 1).flatMap((v) => {
      const a = Number(v) % 5, b = Math.floor(Number(v) / 5);
      return [BigInt(a - neg * (a % 2) * 5), BigInt(b - neg * (b % 2) * 6)];
    });
    out.push(gatherNDCase(F32, `large_random_indices_${it}`, T(F32, [5, 6, 7], uniform(552, -50, 50)),
      T(it, [6, 10, 2], coords), ['generator', 'large']));
    const oor = outOfRange(it, 2);
    out.push(gatherNDCase(F32, `out_of_range_indices_${it}`, C(F32, [2, 3], [1, 2, 3, 4, 5, 6]),
      T(it, [oor.length, 1], oor), ['out_of_range', 'implementation_defined']));
  }
  const args = [{ input: 'x' }, { indices: 'i' }];
  for (const bad of ['float32', 'uint8', 'uint64']) {
    out.push(errCase(op, `indices_${bad}`, [F32], { x: T(F32, [2, 2], 1), i: T(bad, [1, 2], 0) }, args));
  }
  out.push(errCase(op, 'rank0_input', [F32, 'rank0'], { x: T(F32, [], 1), i: T('int32', [1], 0) }, args));
  out.push(errCase(op, 'rank0_indices', [F32, 'rank0'], { x: T(F32, [2, 2], 1), i: T('int32', [], 0) }, args));
  out.push(errCase(op, 'coordinate_size_above_input_rank', [F32], { x: T(F32, [2, 2], 1), i: T('int32', [1, 3], 0) }, args));
  out.push(errCase(op, 'coordinate_size_above_input_rank_1d', ['int8'], { x: T('int8', [4], 1), i: T('int64', [2], 0) }, args));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// scatterElements

function scatterElementsCase(t, tag, x, idx, upd, axis, labels = [], noOptions = false) {
  const args = [{ input: 'x' }, { indices: 'i' }, { updates: 'u' }];
  if (!noOptions) args.push({ options: axis === undefined ? {} : { axis } });
  const r = scatterElementsRef(view(x), view(idx), view(upd), axis ?? 0);
  return outCase('scatterElements', `webnn.scatterElements.${t}.${tag}`, ['scatterElements', t, idx.dtype, ...labels],
    { x, i: idx, u: upd }, args, t, r);
}

// Indices of shape idxShape along axis of an input of shape inShape, with no two equal (after resolving
// negatives) in a line: a permutation per line, negative for odd positions when allowed.
function uniqueAlongAxis(seed, inShape, idxShape, axis, negatives) {
  const n = inShape[axis];
  const vals = new Array(elementCount(idxShape));
  let s = seed;
  forEachLine(idxShape, axis, (pos) => {
    const p = permutation(s++, n);
    pos.forEach((q, j) => {
      vals[q] = BigInt(negatives && j % 2 === 1 ? p[j] - n : p[j]);
    });
  });
  return vals;
}

function scatterElementsCases() {
  const out = [];
  const op = 'scatterElements';
  for (const t of DTYPES) {
    const x43 = () => C(t, [4, 3], base43(t));
    const u = (shape, start) => T(t, shape, updatesOf(t, elementCount(shape), start));
    out.push(scatterElementsCase(t, 'spec_example_axis0', x43(), C('uint32', [2, 3], [3, 1, 1, 2, 0, 3]), C(t, [2, 3], updatesOf(t, 6)),
      undefined, ['spec_example'], true));
    out.push(scatterElementsCase(t, 'spec_example_axis1', x43(), C('uint32', [4, 1], [2, 1, 0, 2]), C(t, [4, 1], updatesOf(t, 4)), 1,
      ['spec_example']));
    out.push(scatterElementsCase(t, 'spec_example_rank3', C(t, [4, 2, 2], base422(t)), C('uint32', [1, 2, 2], [0, 2, 1, 3]),
      C(t, [1, 2, 2], updatesOf(t, 4)), 0, ['spec_example']));
    for (const it of ['int32', 'int64']) {
      out.push(scatterElementsCase(t, `indices_${it}`, T(t, [4, 3], base43(t)), T(it, [2, 3], [3, 1, 1, 2, 0, 3]), u([2, 3], 3), 0));
      out.push(scatterElementsCase(t, `indices_${it}_negative_axis1`, T(t, [4, 3], base43(t)),
        C(it, [4, 2], [-1, 0, -3, -2, 2, 1, 1, -3]), u([4, 2], 1), 1, ['negative_indices']));
    }
    out.push(scatterElementsCase(t, 'rank1', T(t, [5], base43(t).slice(0, 5)), C('int32', [3], [4, 0, -3]), u([3], 2), 0,
      ['negative_indices']));
    out.push(scatterElementsCase(t, 'full_permutation_axis0', x43(), T('int32', [4, 3], [3, 0, 1, 0, 1, 2, 1, 2, 3, 2, 3, 0]),
      u([4, 3], 1), 0, []));
    const s = specials(t);
    out.push(scatterElementsCase(t, isFloat(t) ? 'special_values' : 'extremes', T(t, [s.length], s.slice().reverse()),
      T('int32', [s.length], s.map((_, i) => BigInt(i % 2 ? i - s.length : i))), T(t, [s.length], s), 0,
      [isFloat(t) ? 'special_values' : 'extremes', 'negative_indices']));
    out.push(scatterElementsCase(t, 'duplicate_indices', x43(), T('int32', [2, 3], [1, 0, 2, 1, -4, -2]), u([2, 3], 1), 0,
      ['duplicate_indices', 'implementation_defined']));
    out.push(scatterElementsCase(t, 'duplicate_indices_equal_updates', x43(), T('int32', [2, 3], [1, 0, 2, -3, 3, 2]),
      T(t, [2, 3], [0, 1, 2, 0, 5, 2].map((k) => updatesOf(t, 6)[k])), 0, ['duplicate_indices']));
    const sh = [2, 3, 4, 3, 2];
    const ish = [2, 3, 3, 3, 2];
    out.push(scatterElementsCase(t, 'rank5_random_axis2', T(t, sh, randomData(t, 561)),
      T('int32', ish, uniqueAlongAxis(562, sh, ish, 2, true)), T(t, ish, randomData(t, 563)), 2,
      ['generator', 'negative_indices']));
    out.push(scatterElementsCase(t, 'out_of_range_indices', x43(), T('int32', [1, 3], [4, -5, 2147483647]), u([1, 3], 1), 0,
      ['out_of_range', 'implementation_defined']));
  }
  for (const it of INDEX_TYPES) {
    const sh = [20, 16];
    const ish = [20, 9];
    out.push(scatterElementsCase(F32, `large_random_indices_${it}`, T(F32, sh, range(0, 0.5)),
      T(it, ish, uniqueAlongAxis(571, sh, ish, 1, it !== 'uint32')), T(F32, ish, uniform(572, -9, -1)), 1,
      ['generator', 'large']));
    const oor = outOfRange(it, 5);
    out.push(scatterElementsCase(F32, `out_of_range_indices_${it}`, C(F32, [oor.length, 5], range(1, 1)),
      T(it, [oor.length, 1], oor), T(F32, [oor.length, 1], range(-1, -1)), 1, ['out_of_range', 'implementation_defined']));
  }
  const args = (o) => [{ input: 'x' }, { indices: 'i' }, { updates: 'u' }, ...(o ? [{ options: o }] : [])];
  const X = () => T(F32, [3, 2], 1);
  for (const bad of ['float32', 'int8', 'uint64']) {
    out.push(errCase(op, `indices_${bad}`, [F32], { x: X(), i: T(bad, [1, 2], 0), u: T(F32, [1, 2], 0) }, args()));
  }
  out.push(errCase(op, 'updates_data_type_differs', [F32], { x: X(), i: T('int32', [1, 2], 0), u: T('float16', [1, 2], 0) }, args()));
  out.push(errCase(op, 'updates_data_type_differs_int', ['int32'], { x: T('int32', [3, 2], 1), i: T('int32', [1, 2], 0),
    u: T('int64', [1, 2], 0) }, args()));
  out.push(errCase(op, 'rank0_input', [F32, 'rank0'], { x: T(F32, [], 1), i: T('int32', [], 0), u: T(F32, [], 0) }, args()));
  out.push(errCase(op, 'indices_rank_differs', [F32], { x: X(), i: T('int32', [2], 0), u: T(F32, [2], 0) }, args()));
  out.push(errCase(op, 'updates_rank_differs', [F32], { x: X(), i: T('int32', [1, 2], 0), u: T(F32, [1, 2, 1], 0) }, args()));
  out.push(errCase(op, 'axis_equal_to_rank', [F32], { x: X(), i: T('int32', [3, 2], 0), u: T(F32, [3, 2], 0) }, args({ axis: 2 })));
  out.push(errCase(op, 'indices_shape_differs_off_axis', [F32], { x: X(), i: T('int32', [1, 1], 0), u: T(F32, [1, 1], 0) },
    args({ axis: 0 })));
  out.push(errCase(op, 'updates_shape_differs_from_indices', [F32], { x: X(), i: T('int32', [2, 2], 0), u: T(F32, [1, 2], 0) },
    args({ axis: 0 })));
  out.push(errCase(op, 'updates_shape_differs_from_indices_axis1', [F32], { x: X(), i: T('int32', [3, 1], 0), u: T(F32, [3, 2], 0) },
    args({ axis: 1 })));
  out.push(errCase(op, 'negative_axis', [F32, 'webidl'], { x: X(), i: T('int32', [3, 2], 0), u: T(F32, [3, 2], 0) },
    args({ axis: -1 })));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// scatterND

function scatterNDCase(t, tag, x, idx, upd, labels = [], noOptions = true) {
  const args = [{ input: 'x' }, { indices: 'i' }, { updates: 'u' }];
  if (!noOptions) args.push({ options: {} });
  const r = scatterNDRef(view(x), view(idx), view(upd));
  return outCase('scatterND', `webnn.scatterND.${t}.${tag}`, ['scatterND', t, idx.dtype, ...labels], { x, i: idx, u: upd },
    args, t, r);
}

function scatterNDCases() {
  const out = [];
  const op = 'scatterND';
  for (const t of DTYPES) {
    const u = (shape, start = 1) => C(t, shape, updatesOf(t, elementCount(shape), start));
    const seq = (n) => Array.from({ length: n }, (_, i) => i);
    // The spec's four examples, computed from the algorithm (spec-notes #6: some comments disagree).
    out.push(scatterNDCase(t, 'spec_example_1', C(t, [8], seq(8)), C('uint32', [4, 1], [4, 3, 1, 7]), u([4]), ['spec_example']));
    out.push(scatterNDCase(t, 'spec_example_2', C(t, [2, 2], seq(4)), C('uint32', [2, 2], [0, 0, 1, 1]), u([2]), ['spec_example'],
      false));
    out.push(scatterNDCase(t, 'spec_example_3', C(t, [3, 2], seq(6)), C('uint32', [2, 1], [1, 0]), u([2, 2]), ['spec_example']));
    out.push(scatterNDCase(t, 'spec_example_3_comment', C(t, [3, 2], seq(6)), C('uint32', [2, 1], [2, 0]), u([2, 2]),
      ['spec_example']));
    out.push(scatterNDCase(t, 'spec_example_4', C(t, [2, 2, 2], seq(8)), C('uint32', [2, 2], [0, 1, 1, 0]), u([2, 2]),
      ['spec_example']));
    for (const it of ['int32', 'int64']) {
      out.push(scatterNDCase(t, `indices_${it}`, T(t, [4, 3], base43(t)), T(it, [2, 2], [3, 2, 0, 1]), u([2], 5)));
      out.push(scatterNDCase(t, `indices_${it}_negative`, T(t, [4, 3], base43(t)), C(it, [3, 1], [-1, 1, -4]), u([3, 3]),
        ['negative_indices']));
    }
    out.push(scatterNDCase(t, 'rank0_updates', T(t, [4, 3], base43(t)), T('int32', [2], [2, -1]), T(t, [], updatesOf(t, 1)[0]),
      ['rank0', 'negative_indices']));
    out.push(scatterNDCase(t, 'rank1_indices_slice', T(t, [4, 3], base43(t)), T('int64', [1], [-2]), u([3]),
      ['negative_indices']));
    out.push(scatterNDCase(t, 'batch_rank3_indices', T(t, [4, 3], base43(t)), C('int32', [2, 2, 1], [3, 0, -3, 2]), u([2, 2, 3]),
      ['negative_indices']));
    const s = specials(t);
    out.push(scatterNDCase(t, isFloat(t) ? 'special_values' : 'extremes', T(t, [s.length], s.slice().reverse()),
      T('int32', [s.length, 1], s.map((_, i) => BigInt(i % 2 ? i - s.length : i))), T(t, [s.length], s),
      [isFloat(t) ? 'special_values' : 'extremes', 'negative_indices']));
    out.push(scatterNDCase(t, 'duplicate_indices', T(t, [4, 3], base43(t)), T('int32', [3, 2], [1, 1, 2, 0, -3, 1]), u([3]),
      ['duplicate_indices', 'implementation_defined']));
    out.push(scatterNDCase(t, 'duplicate_slices', T(t, [4, 3], base43(t)), T('int32', [3, 1], [0, 3, -4]), u([3, 3]),
      ['duplicate_indices', 'implementation_defined']));
    const du = updatesOf(t, 6);
    out.push(scatterNDCase(t, 'duplicate_slices_equal_updates', T(t, [4, 3], base43(t)), T('int32', [3, 1], [2, 0, -2]),
      C(t, [3, 3], [...du.slice(0, 3), ...du.slice(3, 6), ...du.slice(0, 3)]), ['duplicate_indices']));
    // Unique random coordinates into the first two dims of a rank-5 input.
    const perm = permutation(581, 12).slice(0, 7);
    out.push(scatterNDCase(t, 'rank5_random', T(t, [3, 4, 2, 3, 2], randomData(t, 582)),
      T('int32', [7, 2], perm.flatMap((v, k) => [BigInt(Math.floor(v / 4) - (k % 2) * 3), BigInt(v % 4)])),
      T(t, [7, 2, 3, 2], randomData(t, 583)), ['generator', 'negative_indices']));
    out.push(scatterNDCase(t, 'out_of_range_indices', T(t, [4, 3], base43(t)), T('int32', [2, 2], [4, 0, -1, -2147483648]), u([2]),
      ['out_of_range', 'implementation_defined']));
  }
  for (const it of INDEX_TYPES) {
    const perm = permutation(591, 30 * 8);
    const coords = perm.slice(0, 100).flatMap((v) => {
      const a = v % 30, b = Math.floor(v / 30);
      return it === 'uint32' ? [BigInt(a), BigInt(b)] : [BigInt(a % 3 === 0 ? a - 30 : a), BigInt(b % 2 ? b - 8 : b)];
    });
    out.push(scatterNDCase(F32, `large_random_indices_${it}`, T(F32, [30, 8, 3], fill(0.25)), T(it, [10, 10, 2], coords),
      T(F32, [10, 10, 3], uniform(592, -5, 5)), ['generator', 'large']));
    const oor = outOfRange(it, 4);
    out.push(scatterNDCase(F32, `out_of_range_indices_${it}`, C(F32, [4, 2], range(1, 1)),
      T(it, [1, 1], [oor[it === 'int32' ? 1 : 2]]), T(F32, [1, 2], [-1, -2]), ['out_of_range', 'implementation_defined']));
  }
  const args = [{ input: 'x' }, { indices: 'i' }, { updates: 'u' }];
  const X = () => T(F32, [3, 2], 1);
  for (const bad of ['float32', 'int8', 'uint64']) {
    out.push(errCase(op, `indices_${bad}`, [F32], { x: X(), i: T(bad, [1, 1], 0), u: T(F32, [1, 2], 0) }, args));
  }
  out.push(errCase(op, 'updates_data_type_differs', [F32], { x: X(), i: T('int32', [1, 1], 0), u: T('int32', [1, 2], 0) }, args));
  out.push(errCase(op, 'rank0_input', [F32, 'rank0'], { x: T(F32, [], 1), i: T('int32', [1], 0), u: T(F32, [], 0) }, args));
  out.push(errCase(op, 'rank0_indices', [F32, 'rank0'], { x: X(), i: T('int32', [], 0), u: T(F32, [3, 2], 0) }, args));
  out.push(errCase(op, 'coordinate_size_above_input_rank', [F32], { x: X(), i: T('int32', [1, 3], 0), u: T(F32, [1], 0) }, args));
  out.push(errCase(op, 'updates_shape_wrong_batch', [F32], { x: X(), i: T('int32', [2, 1], 0), u: T(F32, [3, 2], 0) }, args));
  out.push(errCase(op, 'updates_shape_wrong_slice', [F32], { x: X(), i: T('int32', [2, 1], 0), u: T(F32, [2, 3], 0) }, args));
  out.push(errCase(op, 'updates_rank_too_high', [F32], { x: X(), i: T('int32', [2, 2], 0), u: T(F32, [2, 1], 0) }, args));
  out.push(errCase(op, 'updates_full_input_shape', [F32], { x: X(), i: T('int32', [1, 1], 0), u: T(F32, [3, 2], 0) }, args));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// argMin / argMax

function argCase(op, t, tag, x, axis, opts, labels = [], tie = 'first') {
  const args = [{ input: 'x' }, { axis }];
  if (opts !== undefined) args.push({ options: opts });
  const odt = opts?.outputDataType ?? 'int32';
  const r = argRef(op, view(x), axis, opts?.keepDimensions ?? false, tie);
  if (tie === 'last' && r.ties === 0) throw new Error(`${op} ${tag}: no tie where the last index differs`);
  return outCase(op, `webnn.${op}.${t}.${tag}`, [op, t, odt, ...labels], { x }, args, odt, r);
}

function argData(t) { // [3, 4], distinct values
  if (isFloat(t)) return [1.5, -2, 7.25, 0.5, -8, 3, 3.5, 100, 42, -0.25, -9, 6];
  return isSigned(t) ? [1, -2, 7, 0, -8, 3, 4, 100, 42, -5, -9, 6] : [1, 2, 7, 0, 8, 3, 4, 100, 42, 5, 9, 6];
}

function argCases(op) {
  const out = [];
  for (const t of DTYPES) {
    const x = () => T(t, [3, 4], argData(t));
    out.push(argCase(op, t, 'axis0_no_options', x(), 0, undefined));
    out.push(argCase(op, t, 'axis1', C(t, [3, 4], argData(t)), 1, {}));
    out.push(argCase(op, t, 'axis1_keep_dimensions', x(), 1, { keepDimensions: true }, ['keep_dimensions']));
    out.push(argCase(op, t, 'axis0_int64', x(), 0, { outputDataType: 'int64' }));
    out.push(argCase(op, t, 'axis1_keep_dimensions_int64', x(), 1, { keepDimensions: true, outputDataType: 'int64' },
      ['keep_dimensions']));
    out.push(argCase(op, t, 'axis0_int32_explicit', x(), 0, { keepDimensions: false, outputDataType: 'int32' }));
    out.push(argCase(op, t, 'rank1_rank0_output', T(t, [6], argData(t).slice(2, 8)), 0, {}, ['rank0']));
    out.push(argCase(op, t, 'rank1_keep_dimensions', T(t, [6], argData(t).slice(4, 10)), 0, { keepDimensions: true },
      ['keep_dimensions']));
    out.push(argCase(op, t, 'size1_axis', T(t, [3, 1], argData(t).slice(0, 3)), 1, {}));
    // Ties: the first index is the reference's answer.
    const tieRows = isFloat(t) ? [3, 3, -1, 3, -1, 5, 5, -1, 0, -0, 2, -0, 1, 1, 1, 1]
      : isSigned(t) ? [3, 3, -1, 3, -1, 5, 5, -1, 0, 0, 2, 0, 1, 1, 1, 1] : [3, 3, 1, 3, 1, 5, 5, 1, 0, 0, 2, 0, 1, 1, 1, 1];
    out.push(argCase(op, t, 'ties_first_index', T(t, [4, 4], tieRows), 1, {}, ['ties']));
    out.push(argCase(op, t, 'ties_axis0', T(t, [4, 4], tieRows.map((_, k) => tieRows[(k % 4) * 4 + Math.floor(k / 4)])), 0,
      { outputDataType: 'int64' }, ['ties']));
    const s = specials(t).filter((v) => !(typeof v === 'number' && Number.isNaN(v)));
    const rows = [s, s.slice().reverse(), s.map((_, i) => s[(i * 5) % s.length])];
    out.push(argCase(op, t, isFloat(t) ? 'special_values' : 'extremes', T(t, [3, s.length], rows.flat()), 1, {},
      [isFloat(t) ? 'special_values' : 'extremes']));
    out.push(argCase(op, t, isFloat(t) ? 'special_values_axis0' : 'extremes_axis0', T(t, [3, s.length], rows.flat()), 0,
      { keepDimensions: true }, [isFloat(t) ? 'special_values' : 'extremes', 'keep_dimensions']));
    out.push(argCase(op, t, 'rank5_random_axis3', T(t, [2, 3, 2, 5, 2], randomData(t, op === 'argMin' ? 601 : 611)), 3,
      { outputDataType: 'int64' }, ['generator']));
    out.push(argCase(op, t, 'rank5_random_axis0_keep_dimensions', T(t, [4, 2, 3, 1, 2], randomData(t, op === 'argMin' ? 602 : 612)),
      0, { keepDimensions: true }, ['generator', 'keep_dimensions']));
    out.push(argCase(op, t, 'large_range_axis1', T(t, [3, 100], isFloat(t) || t.endsWith('64') || t.endsWith('32')
      ? range(op === 'argMin' ? 400 : (isSigned(t) ? -150 : 0), op === 'argMin' ? -1 : 1) : uniform(603, isSigned(t) ? -100 : 0, 100)), 1, {},
    ['generator', 'large']));
    out.push(argCase(op, t, 'fill_all_tied', T(t, [2, 5], fill(isFloat(t) ? -0.5 : 3)), 1, {}, ['generator', 'ties']));
    if (isFloat(t)) {
      out.push(argCase(op, t, 'nan_input', T(t, [3, 3], [NaN, 1, 2, 0, NaN, -1, 3, 4, NaN]), 1, {},
        ['special_values', 'implementation_defined']));
      out.push(argCase(op, t, 'nan_input_other_rows_defined', T(t, [3, 3], [1, 2, NaN, -Infinity, 0, -0, 0, 2, 2]), 1, {},
        ['special_values', 'implementation_defined']));
    }
  }
  // The tie cases: the expected data holds the LAST tied index, which comparison must accept (spec-notes #15).
  for (const t of ['float32', 'float16', 'int32', 'uint8', 'int64']) {
    const rows = isFloat(t) ? [3, 3, -1, 3, -1, 5, 5, -1, 0, -0, 2, -0, 1, 1, 1, 1]
      : [3, 3, 1, 3, 1, 5, 5, 1, 0, 0, 2, 0, 1, 1, 1, 1];
    out.push(argCase(op, t, 'tie_last_index_accepted', T(t, [4, 4], rows), 1, {}, ['ties', 'tie_other_index'], 'last'));
    const transposed = rows.map((_, k) => rows[(k % 4) * 4 + Math.floor(k / 4)]);
    out.push(argCase(op, t, 'tie_last_index_accepted_axis0_int64', T(t, [4, 4], transposed), 0,
      { keepDimensions: true, outputDataType: 'int64' }, ['ties', 'tie_other_index', 'keep_dimensions'], 'last'));
  }
  const X = () => T(F32, [2, 3], 1);
  const a = (axis, o) => [{ input: 'x' }, { axis }, ...(o ? [{ options: o }] : [])];
  out.push(errCase(op, 'axis_equal_to_rank', [F32], { x: X() }, a(2)));
  out.push(errCase(op, 'axis_greater_than_rank', ['int8'], { x: T('int8', [2, 3], 1) }, a(5)));
  out.push(errCase(op, 'rank0_input', [F32, 'rank0'], { x: T(F32, [], 1) }, a(0)));
  for (const bad of ['float32', 'uint32', 'int8', 'uint64', 'float16']) {
    out.push(errCase(op, `output_data_type_${bad}`, [F32], { x: X() }, a(1, { outputDataType: bad })));
  }
  out.push(errCase(op, 'output_data_type_invalid_enum', [F32, 'webidl'], { x: X() }, a(1, { outputDataType: 'int16' })));
  out.push(errCase(op, 'negative_axis', [F32, 'webidl'], { x: X() }, a(-1)));
  out.push(errCase(op, 'axis_enforce_range_2_32', [F32, 'webidl'], { x: X() }, a(4294967296)));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// cumulativeSum

function cumCase(t, tag, x, axis, opts, labels = []) {
  const args = [{ input: 'x' }, { axis }];
  if (opts !== undefined) args.push({ options: opts });
  const r = cumulativeSumRef(t, view(x), Number(BigInt.asUintN(32, BigInt(axis))), opts?.exclusive ?? false,
    opts?.reversed ?? false);
  return outCase('cumulativeSum', `webnn.cumulativeSum.${t}.${tag}`, ['cumulativeSum', t, ...labels], { x }, args, t, r);
}

const COMBOS = [
  ['inclusive', {}], ['exclusive', { exclusive: true }], ['reversed', { reversed: true }],
  ['exclusive_reversed', { exclusive: true, reversed: true }],
];
const MAXF = { float32: 3.4028235e38, float16: 65504 };
const MINS = { float32: 1e-45, float16: 6e-8 };

function cumulativeSumCases() {
  const out = [];
  const op = 'cumulativeSum';
  for (const t of CUMSUM_TYPES) {
    const fl = isFloat(t);
    const sg = isSigned(t);
    // The spec's example [1, 2, 3, 4] in all four option combinations.
    out.push(cumCase(t, 'spec_example_no_options', T(t, [4], [1, 2, 3, 4]), 0, undefined, ['spec_example']));
    for (const [tag, o] of COMBOS) out.push(cumCase(t, `spec_example_${tag}`, T(t, [4], [1, 2, 3, 4]), 0, o, ['spec_example']));
    out.push(cumCase(t, 'defaults_explicit', C(t, [4], [1, 2, 3, 4]), 0, { exclusive: false, reversed: false }));
    const d = fl ? [1.5, -2.25, 0.5, 8, -0.125, 3, 10, -7.5, 0.25, 2, 6, -1]
      : sg ? [1, -2, 5, 8, -11, 3, 10, -7, 0, 2, 6, -1] : [1, 2, 5, 8, 11, 3, 10, 7, 0, 2, 6, 1];
    for (const [tag, o] of COMBOS) {
      out.push(cumCase(t, `axis0_${tag}`, T(t, [3, 4], d), 0, o));
      out.push(cumCase(t, `axis1_${tag}`, C(t, [3, 4], d), 1, o));
    }
    for (const [tag, o] of COMBOS) {
      const [lo, hi] = fl ? [-10, 10] : sg ? [-1000, 1000] : [0, 2000];
      out.push(cumCase(t, `rank5_random_axis3_${tag}`, T(t, [2, 3, 2, 6, 2], uniform(621, lo, hi)), 3, o, ['generator']));
    }
    out.push(cumCase(t, 'rank3_axis2_range', T(t, [2, 3, 40], range(sg ? -30 : 0, fl ? 0.75 : 1)), 2, {}, ['generator', 'large']));
    out.push(cumCase(t, 'rank4_axis0_fill', T(t, [5, 2, 2, 3], fill(fl ? 0.1 : 3)), 0, { reversed: true }, ['generator']));
    out.push(cumCase(t, 'size1_axis', T(t, [3, 1], d.slice(0, 3)), 1, { exclusive: true }));
    out.push(cumCase(t, 'axis_webidl_modulo_2_32', T(t, [2, 3], d.slice(0, 6)), 4294967296, {}, ['webidl']));
    if (fl) {
      const M = MAXF[t], S = MINS[t];
      out.push(cumCase(t, 'special_values', T(t, [6, 4], [
        1, NaN, 2, 3, Infinity, 1, -Infinity, 2, -Infinity, -1, 5, 0, -0, -0, 0, -0, -0, 1, -1, -0, 3, Infinity, 2, -1,
      ]), 1, {}, ['special_values']));
      for (const [tag, o] of COMBOS.slice(1)) {
        out.push(cumCase(t, `special_values_${tag}`, T(t, [6, 4], [
          1, NaN, 2, 3, Infinity, 1, -Infinity, 2, -Infinity, -1, 5, 0, -0, -0, 0, -0, -0, 1, -1, -0, 3, Infinity, 2, -1,
        ]), 1, o, ['special_values']));
      }
      // Exact sums rounded once: no intermediate overflow, no lost small terms, no double rounding.
      out.push(cumCase(t, 'large_values', T(t, [2, 3], [M, M, -M, M, S, -M]), 1, {}, ['rounding', 'large']));
      out.push(cumCase(t, 'large_values_reversed', T(t, [2, 3], [-M, M, M, -M, S, M]), 1, { reversed: true },
        ['rounding', 'large']));
      out.push(cumCase(t, 'subnormals', T(t, [5], [S, S, -S, 3 * S, -4 * S]), 0, {}, ['rounding']));
      out.push(cumCase(t, 'single_rounding', T(t, [3], t === 'float32'
        ? [1, 5.960464477539063e-8, 8.673617379884035e-19] : [1, 0.00048828125, 5.960464477539063e-8]), 0, {}, ['rounding']));
      out.push(cumCase(t, 'single_rounding_exclusive_reversed', T(t, [4], t === 'float32'
        ? [0, 8.673617379884035e-19, 5.960464477539063e-8, 1] : [0, 5.960464477539063e-8, 0.00048828125, 1]), 0,
      { exclusive: true, reversed: true }, ['rounding']));
      out.push(cumCase(t, 'cancellation', T(t, [5], t === 'float32' ? [1e8, 1, -1e8, 1e-8, 0.5] : [2048, 1, -2048, 0.001, 0.5]),
        0, {}, ['rounding']));
      out.push(cumCase(t, 'input_rounding', T(t, [4], [0.1, 0.2, 0.3, 0.4]), 0, {}, ['rounding']));
      out.push(cumCase(t, 'random_long_axis', T(t, [2, 64], uniform(631, -1, 1)), 1, {}, ['generator', 'rounding']));
    } else {
      const [lo, hi] = intRange(t);
      const ex = sg ? [hi, lo, 1n, -1n, 0n, hi, -hi] : [hi, 0n, 0n, 0n, 0n, 0n, 0n];
      out.push(cumCase(t, 'extremes', T(t, [7], ex), 0, {}, ['extremes']));
      out.push(cumCase(t, 'extremes_reversed', T(t, [7], ex), 0, { reversed: true }, ['extremes']));
      if (sg) {
        // A prefix sum leaves the range and comes back: the later values are exact (wrapping gives them too).
        out.push(cumCase(t, 'overflow', T(t, [5], [hi, 1n, -2n, lo, -1n]), 0, {}, ['overflow', 'implementation_defined']));
        out.push(cumCase(t, 'overflow_exclusive_reversed', T(t, [4], [5n, -1n, lo, -1n]), 0, { exclusive: true, reversed: true },
          ['overflow', 'implementation_defined']));
      } else {
        out.push(cumCase(t, 'overflow', T(t, [4], [hi, 1n, hi, 2n]), 0, {}, ['overflow', 'implementation_defined']));
        out.push(cumCase(t, 'overflow_exclusive_reversed', T(t, [4], [1n, hi, 1n, 0n]), 0, { exclusive: true, reversed: true },
          ['overflow', 'implementation_defined']));
      }
      if (t.endsWith('64')) {
        const P = 2n ** 53n;
        out.push(cumCase(t, 'beyond_2_53', T(t, [4], [P, 1n, 1n, sg ? -P : P]), 0, {}, ['extremes']));
      }
    }
  }
  const a = (axis, o) => [{ input: 'x' }, { axis }, ...(o ? [{ options: o }] : [])];
  for (const bad of ['int8', 'uint8']) out.push(errCase(op, `${bad}_input`, [bad], { x: T(bad, [2, 3], 1) }, a(0)));
  out.push(errCase(op, 'axis_equal_to_rank', [F32], { x: T(F32, [2, 3], 1) }, a(2)));
  out.push(errCase(op, 'axis_greater_than_rank', ['int32'], { x: T('int32', [4], 1) }, a(3, { exclusive: true })));
  out.push(errCase(op, 'rank0_input', [F32, 'rank0'], { x: T(F32, [], 1) }, a(0)));
  out.push(errCase(op, 'negative_axis_converts_to_2_32_minus_1', [F32, 'webidl'], { x: T(F32, [2, 3], 1) }, a(-1)));
  return out;
}

// ---------------------------------------------------------------------------------------------------------

export function indexingFiles() {
  indexingChecks((cond, msg) => {
    if (!cond) throw new Error(`indexing self-check: ${msg}`);
  });
  return {
    gather: gatherCases(),
    gatherElements: gatherElementsCases(),
    gatherND: gatherNDCases(),
    scatterElements: scatterElementsCases(),
    scatterND: scatterNDCases(),
    argMin: argCases('argMin'),
    argMax: argCases('argMax'),
    cumulativeSum: cumulativeSumCases(),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Self-checks: the spec's worked examples, and cross-checks by a second formulation.

const v = (shape, values) => ({ shape, values });
const I = (shape, values) => ({ shape, values: values.map(BigInt) });
const eqList = (a, b) => a.length === b.length && a.every((e, i) => Object.is(e, b[i]) || e === b[i]);

export function indexingChecks(check) {
  const x43 = v([4, 3], [0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32]);
  const x422 = v([4, 2, 2], [0, 1, 10, 11, 100, 101, 110, 111, 200, 201, 210, 211, 300, 301, 310, 311]);
  const x222 = v([2, 2, 2], [0, 1, 2, 3, 4, 5, 6, 7]);
  const x22 = v([2, 2], [0, 1, 2, 3]);
  const ex = (name, r, shape, values) => {
    check(eqList(r.shape, shape), `${name}: shape [${r.shape}] != [${shape}]`);
    check(eqList(r.values, values), `${name}: values [${r.values}] != [${values}]`);
  };
  // gather examples.
  ex('gather 1', gatherRef(x43, I([2], [3, 1]), 0), [2, 3], [30, 31, 32, 10, 11, 12]);
  ex('gather 2', gatherRef(x43, I([3], [2, 1, 1]), 1), [4, 3], [2, 1, 1, 12, 11, 11, 22, 21, 21, 32, 31, 31]);
  ex('gather 3', gatherRef(x43, I([2, 2], [0, 1, 1, 2]), 1), [4, 2, 2], [0, 1, 1, 2, 10, 11, 11, 12, 20, 21, 21, 22, 30, 31, 31, 32]);
  // gatherElements examples (output shape = indices' shape, spec-notes #5).
  ex('gatherElements 1', gatherElementsRef(x43, I([2, 3], [3, 1, 1, 2, 0, 3]), 0), [2, 3], [30, 11, 12, 20, 1, 32]);
  ex('gatherElements 2', gatherElementsRef(x43, I([4, 1], [2, 1, 0, 2]), 1), [4, 1], [2, 11, 20, 32]);
  ex('gatherElements 3', gatherElementsRef(x422, I([1, 2, 2], [0, 2, 1, 3]), 0), [1, 2, 2], [0, 201, 110, 311]);
  // gatherND examples.
  ex('gatherND 1', gatherNDRef(x22, I([3, 2], [0, 0, 1, 1, 1, 0])), [3], [0, 3, 2]);
  ex('gatherND 2', gatherNDRef(x22, I([2, 1], [1, 0])), [2, 2], [2, 3, 0, 1]);
  ex('gatherND 3', gatherNDRef(x222, I([2, 2], [0, 1, 1, 0])), [2, 2], [2, 3, 4, 5]);
  ex('gatherND 4', gatherNDRef(x222, I([3, 1], [1, 0, 1])), [3, 2, 2], [4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7]);
  ex('gatherND 5', gatherNDRef(x222, I([5, 3], [0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 0, 1, 1, 1])), [5], [1, 2, 4, 6, 7]);
  // scatterElements examples.
  ex('scatterElements 1', scatterElementsRef(x43, I([2, 3], [3, 1, 1, 2, 0, 3]), v([2, 3], [-1, -2, -3, -4, -5, -6]), 0),
    [4, 3], [0, -5, 2, 10, -2, -3, -4, 21, 22, -1, 31, -6]);
  ex('scatterElements 2', scatterElementsRef(x43, I([4, 1], [2, 1, 0, 2]), v([4, 1], [-1, -2, -3, -4]), 1),
    [4, 3], [0, 1, -1, 10, -2, 12, -3, 21, 22, 30, 31, -4]);
  ex('scatterElements 3', scatterElementsRef(x422, I([1, 2, 2], [0, 2, 1, 3]), v([1, 2, 2], [-1, -2, -3, -4]), 0),
    [4, 2, 2], [-1, 1, 10, 11, 100, 101, -3, 111, 200, -2, 210, 211, 300, 301, 310, -4]);
  // scatterND examples (outputs as the comments state them, with the comments' indices/updates).
  ex('scatterND 1', scatterNDRef(v([8], [0, 1, 2, 3, 4, 5, 6, 7]), I([4, 1], [4, 3, 1, 7]), v([4], [-1, -2, -3, -4])),
    [8], [0, -3, 2, -2, -1, 5, 6, -4]);
  ex('scatterND 2', scatterNDRef(x22, I([2, 2], [0, 0, 1, 1]), v([2], [-1, -2])), [2, 2], [-1, 1, 2, -2]);
  ex('scatterND 3', scatterNDRef(v([3, 2], [0, 1, 2, 3, 4, 5]), I([2, 1], [2, 0]), v([2, 2], [-1, -2, -3, -4])),
    [3, 2], [-3, -4, 2, 3, -1, -2]);
  ex('scatterND 4', scatterNDRef(x222, I([2, 2], [0, 1, 1, 0]), v([2, 2], [-1, -2, -3, -4])), [2, 2, 2], [0, 1, -1, -2, -3, -4, 6, 7]);
  // cumulativeSum examples.
  const c4 = v([4], [1, 2, 3, 4]);
  ex('cumulativeSum inclusive', cumulativeSumRef(F32, c4, 0, false, false), [4], [1, 3, 6, 10]);
  ex('cumulativeSum exclusive', cumulativeSumRef(F32, c4, 0, true, false), [4], [0, 1, 3, 6]);
  ex('cumulativeSum reversed', cumulativeSumRef(F32, c4, 0, false, true), [4], [10, 9, 7, 4]);
  ex('cumulativeSum exclusive reversed', cumulativeSumRef(F32, c4, 0, true, true), [4], [9, 7, 4, 0]);
  // Exactness: one rounding of the exact sum (a double accumulator loses 1e-45 here).
  ex('cumulativeSum exact', cumulativeSumRef(F32, v([3], [3e38, 1e-45, -3e38].map(Math.fround)), 0, false, false), [3],
    [Math.fround(3e38), Math.fround(3e38), Math.fround(1e-45)]);

  // Cross-checks with a second formulation.
  // (a) gather along axis = gatherND with coordinates (moved axis) for rank-2 input and axis 0.
  const xr = v([5, 4], Array.from({ length: 20 }, (_, i) => i * 3 - 7));
  const ir = I([3, 2], [4, -1, 0, -5, 2, 3]);
  const g = gatherRef(xr, ir, 0);
  const gn = gatherNDRef(xr, I([3, 2, 1], [4, -1, 0, -5, 2, 3]));
  ex('gather = gatherND with 1-coordinates', g, gn.shape, gn.values);
  // (b) gatherElements with indices broadcast along the axis = gather per row (axis 1, one index per row).
  const ge = gatherElementsRef(xr, I([5, 1], [1, -1, 0, 2, -4]), 1);
  const want = [1, 3, 0, 2, 0].map((k, r) => xr.values[r * 4 + k]);
  ex('gatherElements row picks', ge, [5, 1], want);
  // (c) scatterElements then gatherElements with the same unique indices returns the updates.
  const ui = I([2, 4], [4, 0, 3, 1, 2, 4, 0, 3]);
  const uu = v([2, 4], [-1, -2, -3, -4, -5, -6, -7, -8]);
  const sc = scatterElementsRef(xr, ui, uu, 0);
  ex('gatherElements(scatterElements) = updates', gatherElementsRef(sc, ui, 0), [2, 4], uu.values);
  check(sc.marks.every((m) => !m), 'unique scatter has no marks');
  // (d) scatterND with one coordinate per row then gatherND returns the updates.
  const ni = I([3, 1], [3, -5, 2]);
  const nu = v([3, 4], Array.from({ length: 12 }, (_, i) => -100 - i));
  const sn = scatterNDRef(xr, ni, nu);
  ex('gatherND(scatterND) = updates', gatherNDRef(sn, ni), [3, 4], nu.values);
  // (e) duplicates and clamping are marked.
  const dup = scatterElementsRef(v([3], [0, 0, 0]), I([3], [1, -2, 7]), v([3], [5, 6, 7]), 0);
  check(eqList(dup.values, [0, 6, 7]) && eqList(dup.marks, [false, true, true]), 'scatter duplicate/clamp marks');
  const dupEq = scatterElementsRef(v([3], [0, 0, 0]), I([3], [1, -2, 0]), v([3], [5, 5, 7]), 0);
  check(eqList(dupEq.values, [7, 5, 0]) && dupEq.marks.every((m) => !m), 'scatter equal duplicates are determined');
  const dupZ = scatterElementsRef(v([2], [1, 1]), I([2], [0, 0]), v([2], [0, -0]), 0);
  check(Object.is(dupZ.values[0], -0) && dupZ.marks[0], 'scatter +0/-0 duplicates differ');
  // (f) argMax of v = argMin of -v (no ties), and cumulativeSum inclusive - exclusive = input (integers).
  const av = v([3, 4], [5, -1, 7, 2, 0, 9, -3, 4, 8, 8.5, -8, 1]);
  const neg = v([3, 4], av.values.map((e) => -e));
  ex('argMax = argMin of negation', argRef('argMax', av, 1, false), [3], argRef('argMin', neg, 1, false).values);
  ex('argMax axis0', argRef('argMax', av, 0, true), [1, 4], [2n, 1n, 0n, 1n]);
  const ci = I([2, 5], [3, -1, 4, 1, -5, 9, 2, -6, 5, 3]);
  for (const rev of [false, true]) {
    const inc = cumulativeSumRef('int32', ci, 1, false, rev).values;
    const exc = cumulativeSumRef('int32', ci, 1, true, rev).values;
    check(inc.every((e, i) => e - exc[i] === ci.values[i]), `cumulativeSum inclusive - exclusive (reversed ${rev})`);
    const total = cumulativeSumRef('int32', ci, 1, false, !rev).values;
    // inclusive forward[i] + inclusive reversed[i] - x[i] = row total
    check(inc.every((e, i) => e + total[i] - ci.values[i] === (i < 5 ? 2n : 13n)), `cumulativeSum both directions (${rev})`);
  }
  // (g) resolveIndex: negative and clamped values.
  check(resolveIndex(-1n, 4).k === 3 && resolveIndex(-4n, 4).k === 0 && resolveIndex(4n, 4).k === 3 && !resolveIndex(4n, 4).ok,
    'resolveIndex');
  check(resolveIndex(-5n, 4).k === 0 && !resolveIndex(-5n, 4).ok && resolveIndex(4294967295n, 4).k === 3, 'resolveIndex clamp');
}

