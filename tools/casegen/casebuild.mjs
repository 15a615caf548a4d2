// Case assembly: tensors, broadcasting, element-wise evaluation and the JSON case objects.

import { checkType } from './numerics.mjs';
import { toJsonData, expandData, encodeValue, elementCount } from './values.mjs';

// An authoring tensor: data is an array, a single value, or a generator object ({fill}, {range}, {random}).
export function T(dtype, shape, data, constant = false) {
  checkType(dtype);
  return { dtype, shape, data, constant };
}
export const C = (dtype, shape, data) => T(dtype, shape, data, true);

export function tensorJson(t) {
  const j = { data: toJsonData(t.data), descriptor: { shape: t.shape, dataType: t.dtype } };
  if (t.constant) j.constant = true;
  return j;
}

// Values of a tensor exactly as a reader of the JSON form gets them.
export function materialize(t) {
  return expandData(toJsonData(t.data), t.dtype, t.shape);
}

// The spec's bidirectional broadcasting (null on failure).
export function broadcastShapes(a, b) {
  const n = Math.max(a.length, b.length);
  const pa = [...new Array(n - a.length).fill(1), ...a];
  const pb = [...new Array(n - b.length).fill(1), ...b];
  const out = [];
  for (let i = 0; i < n; i++) {
    if (pa[i] !== pb[i] && pa[i] !== 1 && pb[i] !== 1) return null;
    out.push(Math.max(pa[i], pb[i]));
  }
  return out;
}

// Row-major flat index in an input of shape inShape for each flat index of outShape (numpy broadcasting).
function broadcastIndexer(outShape, inShape) {
  const r = outShape.length;
  const padded = [...new Array(r - inShape.length).fill(1), ...inShape];
  const strides = new Array(r);
  let s = 1;
  for (let i = r - 1; i >= 0; i--) {
    strides[i] = padded[i] === 1 ? 0 : s;
    s *= padded[i];
  }
  return (flat) => {
    let idx = 0;
    for (let i = r - 1; i >= 0; i--) {
      const d = outShape[i];
      const c = flat % d;
      flat = (flat - c) / d;
      idx += c * strides[i];
    }
    return idx;
  };
}

// Evaluate fn element-wise over broadcast operands. Returns {values, implDefined: count}.
export function mapElements(outShape, operands, fn) {
  const n = elementCount(outShape);
  const idx = operands.map((o) => broadcastIndexer(outShape, o.shape));
  const values = [];
  let impl = 0;
  for (let i = 0; i < n; i++) {
    let r = fn(...operands.map((o, k) => o.values[idx[k](i)]));
    if (r !== null && typeof r === 'object' && r.implDefined) {
      impl++;
      r = r.v;
    }
    values.push(r);
  }
  return { values, implDefined: impl };
}

// ---------------------------------------------------------------------------------------------------------

export function makeCase({ name, labels, inputs, operators, outputs, expectedError, implDefined = 0 }) {
  const graph = { inputs: {}, operators };
  for (const [k, t] of Object.entries(inputs)) graph.inputs[k] = tensorJson(t);
  const c = { name, labels: [...labels] };
  if (expectedError) {
    if (outputs) {
      graph.expectedOutputs = {};
      for (const [k, o] of Object.entries(outputs)) graph.expectedOutputs[k] = tensorJson(o);
    }
    c.graph = graph;
    c.expectedError = expectedError;
    if (!c.labels.includes('error')) c.labels.push('error');
    return c;
  }
  graph.expectedOutputs = {};
  for (const [k, o] of Object.entries(outputs)) {
    if (o.values.length !== elementCount(o.shape)) throw new Error(`${name}: output length mismatch`);
    graph.expectedOutputs[k] = {
      data: o.values.map((v) => encodeValue(v, o.dtype)),
      descriptor: { shape: o.shape, dataType: o.dtype },
    };
  }
  c.graph = graph;
  const labelled = c.labels.includes('implementation_defined');
  if (implDefined > 0 && !labelled) {
    throw new Error(`${name}: ${implDefined} implementation-defined element(s) in a case not labelled so`);
  }
  if (implDefined === 0 && labelled) throw new Error(`${name}: labelled implementation_defined but none`);
  return c;
}

// A one-operator case whose output is element-wise over its operand inputs.
//   opName: builder method; args: the "arguments" list; inputs: {name: T} in argument order of operands;
//   operandNames: which inputs are the element-wise operands, in fn order; outDtype: output type.
export function elementwiseCase({ name, labels, opName, args, inputs, operandNames, outDtype, fn }) {
  const ops = operandNames.map((k) => ({ shape: inputs[k].shape, values: materialize(inputs[k]) }));
  let shape = [];
  for (const o of ops) {
    shape = broadcastShapes(shape, o.shape);
    if (!shape) throw new Error(`${name}: operands not broadcastable`);
  }
  const { values, implDefined } = mapElements(shape, ops, fn);
  return makeCase({
    name, labels, inputs,
    operators: [{ name: opName, arguments: args, outputs: 'output' }],
    outputs: { output: { dtype: outDtype, shape, values } },
    implDefined,
  });
}

export function errorCase({ name, labels, opName, args, inputs, error = 'TypeError', operators }) {
  return makeCase({
    name, labels, inputs,
    operators: operators || [{ name: opName, arguments: args, outputs: 'output' }],
    expectedError: error,
  });
}
