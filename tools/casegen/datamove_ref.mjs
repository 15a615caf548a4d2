// Reference semantics of the WebNN shape and data-movement operators (reshape, transpose, expand, slice,
// reverse, concat, split, pad, tile, triangular), written from webnn-index.bs: the WebIDL argument
// conversions, each method's validation steps (a failing step throws SpecError('TypeError')), and the
// element mapping each operator defines. Plus a small interpreter that evaluates a case's operator list
// (these operators and a few consumers: add, sub, mul, reduceSum, matmul, conv2d, identity) so that chains
// of views can be authored and checked.
//
// Values are never computed: every output element is a copy of an input element (or the pad value cast
// with the spec's "cast", or a zero for triangular), so outputs are exact in every data type. Float elements
// are doubles holding the type's values, integer elements BigInts (64-bit extremes stay exact).
//
// Nothing here reads or mirrors the C++ code.

import { isFloat, convertNumber, DTYPES } from './numerics.mjs';
import { materialize, broadcastShapes, mapElements } from './casebuild.mjs';
import { elementCount } from './values.mjs';
import { BINARY } from './ops.mjs';
import { REDUCE } from './reduce.mjs';
import { matmulValues } from './matrix.mjs';
import { conv2dRef } from './conv.mjs';

export class SpecError extends Error {
  constructor(type, message) {
    super(message);
    this.type = type;
  }
}
const typeError = (msg) => {
  throw new SpecError('TypeError', msg);
};
// An authoring mistake (not a spec error): the case itself is malformed.
const authoring = (msg) => {
  throw new Error(`authoring: ${msg}`);
};

// ---------------------------------------------------------------------------------------------------------
// Spec definitions: "valid dimension" (an integer greater than zero and in the range of long) and "valid
// tensor count" (an integer greater than zero and at most 8192).

export const LONG_MAX = 2 ** 31 - 1;
export const MAX_TENSOR_COUNT = 8192;
export const validDimension = (d) => Number.isInteger(d) && d > 0 && d <= LONG_MAX;
export const validTensorCount = (n) => Number.isInteger(n) && n > 0 && n <= MAX_TENSOR_COUNT;

// ---------------------------------------------------------------------------------------------------------
// WebIDL conversions (ECMAScript binding). [EnforceRange] integer types: NaN and +-Infinity throw
// TypeError; the value is truncated to its integer part; outside the type's range throws TypeError.
// A plain `unsigned long` (tile's repetitions) is ToUint32: NaN/Infinity -> 0, integer part modulo 2^32.

function jsNumber(v, what) {
  if (typeof v === 'number') return v;
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  return authoring(`${what} must be a number, got ${JSON.stringify(v)}`);
}

function enforceRange(v, lo, hi, what) {
  const d = jsNumber(v, what);
  if (!Number.isFinite(d)) typeError(`${what} = ${d} is not finite ([EnforceRange])`);
  const x = Math.trunc(d);
  if (x < lo || x > hi) typeError(`${what} = ${d} is outside [${lo}, ${hi}] ([EnforceRange])`);
  return x === 0 ? 0 : x;
}
export const ulongER = (v, what) => enforceRange(v, 0, 2 ** 32 - 1, what);
export const longER = (v, what) => enforceRange(v, -(2 ** 31), 2 ** 31 - 1, what);
export function ulongPlain(v, what) {
  const d = jsNumber(v, what);
  if (!Number.isFinite(d)) return 0;
  const x = Math.trunc(d);
  const m = x % 2 ** 32; // exact for doubles
  return m < 0 ? m + 2 ** 32 : m === 0 ? 0 : m;
}
function seq(v, conv, what) {
  if (!Array.isArray(v)) authoring(`${what} must be an array`);
  return v.map((x, i) => conv(x, `${what}[${i}]`));
}
function bool(v, what) {
  if (typeof v !== 'boolean') authoring(`${what} must be a boolean`);
  return v;
}
function enumValue(v, allowed, what) {
  if (typeof v !== 'string') authoring(`${what} must be a string`);
  if (!allowed.includes(v)) typeError(`${what} '${v}' is not a valid enum value`);
  return v;
}
// MLNumber = (bigint or unrestricted double). JSON: a number, "NaN"/"Infinity"/"-Infinity"/"-0", or a
// decimal integer string for a bigint.
export function mlNumber(v, what) {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return v;
  const special = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity, '-0': -0 };
  if (typeof v === 'string' && v in special) return special[v];
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
  return authoring(`${what} is not an MLNumber: ${JSON.stringify(v)}`);
}

// ---------------------------------------------------------------------------------------------------------
// Index arithmetic (row-major).

export function unravel(flat, shape) {
  const idx = new Array(shape.length);
  for (let i = shape.length - 1; i >= 0; i--) {
    idx[i] = flat % shape[i];
    flat = (flat - idx[i]) / shape[i];
  }
  return idx;
}
export function ravel(idx, shape) {
  let f = 0;
  for (let i = 0; i < shape.length; i++) f = f * shape[i] + idx[i];
  return f;
}
// A tensor of the given shape whose element at multi-index idx is fn(idx).
function generate(dtype, shape, fn) {
  const n = elementCount(shape);
  // Shapes only (validation of a later operator) for outputs too large to hold: values null.
  if (n > 5e6) return { dtype, shape, values: null };
  const values = new Array(n);
  for (let f = 0; f < n; f++) values[f] = fn(unravel(f, shape));
  return { dtype, shape, values };
}
const bigProduct = (shape) => shape.reduce((p, d) => p * BigInt(d), 1n);
const zeroOf = (t) => (isFloat(t) ? 0 : 0n);

// ---------------------------------------------------------------------------------------------------------
// The operators. Each takes resolved positional arguments (tensors {dtype, shape, values} for operands,
// JSON values otherwise) and returns a tensor (split: a list). Comments cite the method steps.

// reshape(input, newShape, options)
function reshape(input, newShapeJ) {
  const newShape = seq(newShapeJ, ulongER, 'newShape');
  // 3: newShape's size must be an allowed output rank: "N" (any), nothing to check.
  // 6: every item must be a valid dimension.
  if (newShape.some((d) => !validDimension(d))) typeError(`reshape: newShape [${newShape}] has an invalid dimension`);
  // 7-8: the products must be equal (an empty shape has an element count of 1).
  if (bigProduct(newShape) !== bigProduct(input.shape)) {
    typeError(`reshape: newShape [${newShape}] does not hold ${elementCount(input.shape)} elements`);
  }
  return { dtype: input.dtype, shape: newShape, values: input.values.slice() };
}

// transpose(input, options): output dimension i is input dimension permutation[i]; output element at idx
// is the input element whose index has idx[i] at position permutation[i].
function transpose(input, options = {}) {
  const r = input.shape.length;
  let perm;
  if (options.permutation === undefined) {
    perm = [...Array(r).keys()].reverse(); // 3: the reversed sequence of all indices
  } else {
    perm = seq(options.permutation, ulongER, 'options.permutation');
    if (perm.length !== r) typeError(`transpose: permutation size ${perm.length} != rank ${r}`); // 4.1
    if (perm.some((p) => p >= r)) typeError(`transpose: permutation [${perm}] out of range`); // 4.2
    if (new Set(perm).size !== r) typeError(`transpose: permutation [${perm}] has duplicates`); // 4.3
  }
  const shape = perm.map((p) => input.shape[p]);
  return generate(input.dtype, shape, (idx) => {
    const src = new Array(r);
    for (let i = 0; i < r; i++) src[perm[i]] = idx[i];
    return input.values[ravel(src, input.shape)];
  });
}

// The spec's "unidirectionally broadcast the shapes" (null for failure).
export function unidirectionalBroadcast(from, to) {
  if (from.length > to.length) return null;
  const padded = [...new Array(to.length - from.length).fill(1), ...from];
  const out = [];
  for (let i = 0; i < to.length; i++) {
    if (to[i] !== padded[i] && padded[i] !== 1) return null;
    out.push(to[i]);
  }
  return out;
}

// expand(input, newShape, options)
function expand(input, newShapeJ) {
  const newShape = seq(newShapeJ, ulongER, 'newShape');
  // Reading (see /work/notes/h1-h3.md): unidirectional broadcasting is defined on lists of positive
  // integers, and 0-size dimensions are not valid dimensions, so a newShape item of 0 is a TypeError.
  if (newShape.some((d) => d === 0)) typeError(`expand: newShape [${newShape}] has a 0 dimension`);
  const outShape = unidirectionalBroadcast(input.shape, newShape); // 3
  if (!outShape) typeError(`expand: [${input.shape}] is not unidirectionally broadcastable to [${newShape}]`);
  // 4: output rank must be an allowed rank: "N" (any).
  const r = outShape.length;
  const off = r - input.shape.length;
  return generate(input.dtype, outShape, (idx) => {
    const src = input.shape.map((d, i) => (d === 1 ? 0 : idx[off + i]));
    return input.values[ravel(src, input.shape)];
  });
}

// slice(input, starts, sizes, options): output element idx is input element starts + idx * strides.
function slice(input, startsJ, sizesJ, options = {}) {
  const starts = seq(startsJ, ulongER, 'starts');
  const sizes = seq(sizesJ, ulongER, 'sizes');
  const stridesOpt = options.strides === undefined ? undefined : seq(options.strides, ulongER, 'options.strides');
  const r = input.shape.length;
  if (sizes.some((s) => s === 0)) typeError(`slice: sizes [${sizes}] has a 0`); // 3
  if (starts.length !== r || sizes.length !== r) typeError('slice: starts/sizes size != rank'); // 4
  let strides = [];
  if (stridesOpt !== undefined) { // 6
    strides = stridesOpt;
    if (strides.length !== r) typeError(`slice: strides size ${strides.length} != rank ${r}`);
  }
  const outShape = [];
  for (let i = 0; i < r; i++) { // 9
    const inputSize = input.shape[i];
    const size = sizes[i];
    const stride = strides.length ? strides[i] : 1;
    if (size === 0) typeError('slice: size 0');
    if (stride < 1) typeError(`slice: stride ${stride} < 1`);
    if (starts[i] > inputSize) typeError(`slice: start ${starts[i]} > input size ${inputSize}`);
    if (starts[i] + size > inputSize) typeError(`slice: start ${starts[i]} + size ${size} > input size ${inputSize}`);
    outShape.push(Math.floor(size / stride) + (size % stride !== 0 ? 1 : 0));
  }
  const st = strides.length ? strides : new Array(r).fill(1);
  return generate(input.dtype, outShape, (idx) => input.values[ravel(idx.map((k, i) => starts[i] + k * st[i]), input.shape)]);
}

// reverse(input, options)
function reverse(input, options = {}) {
  const r = input.shape.length;
  // 3: data type: any.
  let axes;
  if (options.axes === undefined) axes = [...Array(r).keys()]; // 5
  else {
    axes = seq(options.axes, ulongER, 'options.axes');
    // 6 says "return failure"; read as TypeError (spec-notes #7).
    if (new Set(axes).size !== axes.length || axes.some((a) => a >= r)) typeError(`reverse: invalid axes [${axes}]`);
  }
  const rev = new Array(r).fill(false);
  for (const a of axes) rev[a] = true;
  return generate(input.dtype, input.shape, (idx) => {
    const src = idx.map((k, i) => (rev[i] ? input.shape[i] - 1 - k : k));
    return input.values[ravel(src, input.shape)];
  });
}

// concat(inputs, axis, options)
function concat(inputs, axisJ) {
  const axis = ulongER(axisJ, 'axis');
  if (!validTensorCount(inputs.length)) typeError(`concat: ${inputs.length} inputs is not a valid tensor count`); // 3
  const first = inputs[0];
  const r = first.shape.length;
  if (axis >= r) typeError(`concat: axis ${axis} >= rank ${r}`); // 5
  const shape = first.shape.slice(); // 6-7
  for (let k = 1; k < inputs.length; k++) { // 8
    const x = inputs[k];
    if (x.dtype !== first.dtype) typeError(`concat: input ${k} data type ${x.dtype} != ${first.dtype}`);
    if (x.shape.length !== r) typeError(`concat: input ${k} rank ${x.shape.length} != ${r}`);
    for (let d = 0; d < r; d++) {
      if (d !== axis && x.shape[d] !== first.shape[d]) typeError(`concat: input ${k} dimension ${d} differs`);
      if (d === axis) {
        const size = shape[axis] + x.shape[d];
        if (!validDimension(size)) typeError(`concat: size ${size} along the axis is not a valid dimension`);
        shape[axis] = size;
      }
    }
  }
  // Output: the inputs one after the other along the axis.
  const offsets = [];
  let o = 0;
  for (const x of inputs) {
    offsets.push(o);
    o += x.shape[axis];
  }
  return generate(first.dtype, shape, (idx) => {
    let k = inputs.length - 1;
    while (offsets[k] > idx[axis]) k--;
    const src = idx.slice();
    src[axis] -= offsets[k];
    return inputs[k].values[ravel(src, inputs[k].shape)];
  });
}

// split(input, splits, options) -> list of tensors
function split(input, splitsJ, options = {}) {
  const axis = options.axis === undefined ? 0 : ulongER(options.axis, 'options.axis');
  const isCount = !Array.isArray(splitsJ);
  const splits = isCount ? ulongER(splitsJ, 'splits') : seq(splitsJ, ulongER, 'splits');
  const r = input.shape.length;
  if (axis >= r) typeError(`split: axis ${axis} >= rank ${r}`); // 4
  let sizes;
  if (isCount) { // 5
    if (!validTensorCount(splits)) typeError(`split: ${splits} is not a valid tensor count`);
    if (input.shape[axis] % splits !== 0) typeError(`split: ${input.shape[axis]} is not divisible by ${splits}`);
    sizes = new Array(splits).fill(input.shape[axis] / splits);
  } else { // 6
    if (!validTensorCount(splits.length)) typeError(`split: ${splits.length} sizes is not a valid tensor count`);
    if (splits.some((s) => s === 0)) typeError('split: a size is 0');
    if (splits.reduce((a, b) => a + b, 0) !== input.shape[axis]) typeError(`split: sizes [${splits}] do not sum to ${input.shape[axis]}`);
    sizes = splits;
  }
  const outs = [];
  let start = 0;
  for (const s of sizes) {
    const shape = input.shape.slice();
    shape[axis] = s;
    const st = start;
    outs.push(generate(input.dtype, shape, (idx) => {
      const src = idx.slice();
      src[axis] += st;
      return input.values[ravel(src, input.shape)];
    }));
    start += s;
  }
  return outs;
}

// pad(input, beginningPadding, endingPadding, options)
export const PAD_MODES = ['constant', 'edge', 'reflection'];
function pad(input, begJ, endJ, options = {}) {
  const beg = seq(begJ, ulongER, 'beginningPadding');
  const end = seq(endJ, ulongER, 'endingPadding');
  const mode = options.mode === undefined ? 'constant' : enumValue(options.mode, PAD_MODES, 'options.mode');
  const value = options.value === undefined ? 0 : mlNumber(options.value, 'options.value');
  const r = input.shape.length;
  if (beg.length !== r || end.length !== r) typeError('pad: padding sizes != rank'); // 3
  const outShape = input.shape.slice(); // 5
  for (let i = 0; i < r; i++) { // 6
    if (mode === 'reflection') {
      if (beg[i] >= outShape[i]) typeError(`pad: reflection beginning padding ${beg[i]} >= ${outShape[i]}`);
      if (end[i] >= outShape[i]) typeError(`pad: reflection ending padding ${end[i]} >= ${outShape[i]}`);
    }
    outShape[i] += beg[i] + end[i]; // exact: at most 3 * 2^32 in a double
  }
  if (outShape.some((d) => !validDimension(d))) typeError(`pad: output shape [${outShape}] has an invalid dimension`); // 7
  const v = convertNumber(value, input.dtype); // 8: cast the value to the input's data type
  const n = input.shape;
  return generate(input.dtype, outShape, (idx) => {
    const src = new Array(r);
    for (let i = 0; i < r; i++) {
      let k = idx[i] - beg[i];
      if (k < 0 || k >= n[i]) {
        if (mode === 'constant') return v;
        if (mode === 'edge') k = k < 0 ? 0 : n[i] - 1;
        else k = k < 0 ? -k : 2 * (n[i] - 1) - k; // reflection, the edge element not repeated
      }
      src[i] = k;
    }
    return input.values[ravel(src, n)];
  });
}

// tile(input, repetitions, options): repetitions is sequence<unsigned long> WITHOUT [EnforceRange].
function tile(input, repsJ) {
  const reps = seq(repsJ, ulongPlain, 'repetitions');
  const r = input.shape.length;
  if (reps.length !== r) typeError(`tile: repetitions size ${reps.length} != rank ${r}`); // 3
  if (reps.some((x) => x === 0)) typeError('tile: a repetition is 0'); // 4
  const outShape = input.shape.map((d, i) => d * reps[i]); // 5-6
  if (outShape.some((d) => !validDimension(d))) authoring('tile output dimension beyond long (the steps do not say)');
  return generate(input.dtype, outShape, (idx) => input.values[ravel(idx.map((k, i) => k % input.shape[i]), input.shape)]);
}

// triangular(input, options): over the last two dimensions (row i, column j), upper keeps j - i >= diagonal,
// lower keeps j - i <= diagonal (the spec's examples); other elements are zero.
function triangular(input, options = {}) {
  const upper = options.upper === undefined ? true : bool(options.upper, 'options.upper');
  const diagonal = options.diagonal === undefined ? 0 : longER(options.diagonal, 'options.diagonal');
  const r = input.shape.length;
  if (r < 2) typeError(`triangular: rank ${r} < 2`); // 3
  const z = zeroOf(input.dtype);
  return generate(input.dtype, input.shape, (idx) => {
    const d = idx[r - 1] - idx[r - 2];
    const keep = upper ? d >= diagonal : d <= diagonal;
    return keep ? input.values[ravel(idx, input.shape)] : z;
  });
}

// ---------------------------------------------------------------------------------------------------------
// Consumers used in chains (not under test here; values from the other generator modules).

function binary(op) {
  return (a, b) => {
    if (a.dtype !== b.dtype) authoring(`${op}: data types differ`);
    const shape = broadcastShapes(a.shape, b.shape);
    if (!shape) authoring(`${op}: not broadcastable`);
    const { values, implDefined } = mapElements(shape, [a, b], (x, y) => BINARY[op](a.dtype, x, y));
    if (implDefined) authoring(`${op}: implementation-defined elements in a chain`);
    return { dtype: a.dtype, shape, values };
  };
}

function reduceSum(x, options = {}) {
  const r = x.shape.length;
  const axes = options.axes === undefined ? [...Array(r).keys()] : options.axes;
  const keep = options.keepDimensions === true;
  const kept = x.shape.map((d, i) => (axes.includes(i) ? 1 : d));
  const groups = Array.from({ length: elementCount(kept) }, () => []);
  for (let f = 0; f < x.values.length; f++) {
    const idx = unravel(f, x.shape);
    groups[ravel(idx.map((k, i) => (axes.includes(i) ? 0 : k)), kept)].push(x.values[f]);
  }
  const values = groups.map((g) => {
    const v = REDUCE.reduceSum(x.dtype, g);
    if (v !== null && typeof v === 'object') authoring('reduceSum: implementation-defined element in a chain');
    return v;
  });
  const shape = keep ? kept : x.shape.filter((d, i) => !axes.includes(i));
  return { dtype: x.dtype, shape, values };
}

function matmul(a, b) {
  if (!isFloat(a.dtype)) authoring('matmul chains use float types');
  return matmulValues(a.dtype, a, b);
}

// conv2d with nchw input and oihw filter only (the chains use no layouts).
function conv2d(input, filter, options = {}, resolveOption) {
  if (options.inputLayout || options.filterLayout) authoring('conv2d chains use the default layouts');
  const bias = options.bias === undefined ? null : resolveOption(options.bias).values;
  const o = {
    padding: options.padding ?? [0, 0, 0, 0], strides: options.strides ?? [1, 1],
    dilations: options.dilations ?? [1, 1], groups: options.groups ?? 1,
  };
  const out = conv2dRef(input.dtype, input, filter, bias, o);
  return { dtype: input.dtype, shape: out.shape, values: out.values };
}

const identity = (x) => ({ dtype: x.dtype, shape: x.shape.slice(), values: x.values.slice() });

// Operator table: fn and which positional arguments are operands ('list' for concat's sequence).
export const OPS = {
  reshape: { fn: reshape, operands: [0] },
  transpose: { fn: transpose, operands: [0] },
  expand: { fn: expand, operands: [0] },
  slice: { fn: slice, operands: [0] },
  reverse: { fn: reverse, operands: [0] },
  concat: { fn: concat, operands: ['list'] },
  split: { fn: split, operands: [0], multi: true },
  pad: { fn: pad, operands: [0] },
  tile: { fn: tile, operands: [0] },
  triangular: { fn: triangular, operands: [0] },
  add: { fn: binary('add'), operands: [0, 1] },
  sub: { fn: binary('sub'), operands: [0, 1] },
  mul: { fn: binary('mul'), operands: [0, 1] },
  reduceSum: { fn: reduceSum, operands: [0] },
  matmul: { fn: matmul, operands: [0, 1] },
  conv2d: { fn: conv2d, operands: [0, 1], optionOperands: 3 },
  identity: { fn: identity, operands: [0] },
};
export const DATAMOVE_OPS = ['reshape', 'transpose', 'expand', 'slice', 'reverse', 'concat', 'split', 'pad', 'tile',
  'triangular'];

// The positional arguments of a case operator: each argument object supplies its values in key order.
export const positional = (op) => op.arguments.flatMap((a) => Object.values(a));

// Evaluate a case graph: inputs {name: authoring tensor T}, operators as written in the case. Returns the
// environment {name: tensor}. Spec errors propagate as SpecError.
export function evalGraph(inputs, operators, table = OPS) {
  const env = {};
  for (const [k, t] of Object.entries(inputs)) {
    if (!DTYPES.includes(t.dtype)) authoring(`input ${k}: bad data type`);
    env[k] = { dtype: t.dtype, shape: t.shape.slice(), values: materialize(t) };
  }
  const resolve = (name) => {
    if (typeof name !== 'string' || !(name in env)) authoring(`unknown operand ${JSON.stringify(name)}`);
    return env[name];
  };
  for (const op of operators) {
    const spec = table[op.name];
    if (!spec) authoring(`no evaluator for ${op.name}`);
    const args = positional(op);
    spec.operands.forEach((p, k) => {
      if (p === 'list') args[k] = args[k].map(resolve);
      else args[p] = resolve(args[p]);
    });
    if (spec.optionOperands) {
      while (args.length < spec.optionOperands) args.push(undefined);
      args.push(resolve);
    }
    const result = spec.fn(...args);
    const names = Array.isArray(op.outputs) ? op.outputs : [op.outputs];
    const results = spec.multi ? result : [result];
    if (results.length !== names.length) authoring(`${op.name}: ${results.length} outputs, ${names.length} names`);
    names.forEach((n, k) => {
      env[n] = results[k];
    });
  }
  return env;
}

// ---------------------------------------------------------------------------------------------------------
// Case authoring on top of the interpreter (shared by datamove.mjs and datamove2.mjs).

import { makeCase } from './casebuild.mjs';
import { intRange, isSigned } from './numerics.mjs';
import { SPECIAL, intSpecial, randRange, uniform, range } from './common.mjs';

// A valid case: every name in outputNames is evaluated and written in full.
export function graphCase(name, labels, inputs, operators, outputNames) {
  const env = evalGraph(inputs, operators);
  const outputs = {};
  for (const k of outputNames) {
    if (!(k in env)) authoring(`${name}: no output ${k}`);
    outputs[k] = env[k];
  }
  return makeCase({ name, labels, inputs, operators, outputs });
}

// An error case: the interpreter must throw the spec error (else the case is wrong).
export function errorGraph(name, labels, inputs, operators, type = 'TypeError') {
  try {
    evalGraph(inputs, operators);
  } catch (e) {
    if (!(e instanceof SpecError)) throw e;
    if (e.type !== type) throw new Error(`${name}: evaluates to ${e.type}, not ${type}`);
    return makeCase({ name, labels, inputs, operators, expectedError: type });
  }
  throw new Error(`${name}: expected ${type}, but the graph evaluates`);
}

// One-operator helpers. args: the arguments list after the operand(s).
export function opArgs(first, rest, options) {
  const a = [first, ...rest];
  if (options !== undefined) a.push({ options });
  return a;
}

// Distinct, exactly representable authoring values for type t (n small).
export function seqData(t, n, k = 0) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const m = i + 1 + k;
    const neg = i % 3 === 2;
    if (isFloat(t)) out.push((neg ? -m : m) * 0.25);
    else if (isSigned(t)) out.push(neg ? -m : m);
    else out.push(m);
  }
  const [lo, hi] = isFloat(t) ? [-2048, 2048] : intRange(t);
  for (const v of out) if (BigInt(Math.trunc(v)) < lo || BigInt(Math.trunc(v)) > hi) authoring(`seqData ${t} ${n}`);
  return out;
}

// Special values (floats) or extremes (integers; 64-bit types include 2^53 + 1, which a double loses).
export function specialData(t) {
  if (isFloat(t)) return SPECIAL[t].slice();
  const e = intSpecial(t);
  const [, hi] = intRange(t);
  return [...e, hi >= 2n ** 60n ? 2n ** 53n + 1n : 100n];
}

// Generator data for n elements: a range when it stays in the type (distinct values), else uniform random.
export function genData(t, n, seed = 9000 + n) {
  if (isFloat(t)) return n <= 4000 ? range(-(Math.floor(n / 4)) - 0.5, 0.5) : uniform(seed, -1000, 1000);
  const [lo, hi] = intRange(t);
  if (BigInt(n) <= hi - lo) {
    const start = isSigned(t) ? -Math.min(Math.floor(n / 2), Number(-lo)) : 0;
    return range(start, 1);
  }
  const [a, b] = randRange(t);
  return uniform(seed, a, b);
}
export function randData(t, seed) {
  if (isFloat(t)) return uniform(seed, -100, 100);
  const [a, b] = randRange(t);
  return uniform(seed, a, b);
}
