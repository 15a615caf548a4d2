// Tensor helpers for the windowed operators (conv.mjs, pool.mjs, resample.mjs): layouts as transposes of a
// canonical (nchw / oihw / iohw) tensor, authoring tensors in any layout, deterministic seeds, case assembly.

import { T, makeCase, materialize } from './casebuild.mjs';
import { elementCount } from './values.mjs';

export { elementCount, materialize };

export function strides(shape) {
  const s = new Array(shape.length);
  let k = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    s[i] = k;
    k *= shape[i];
  }
  return s;
}

// Transpose: result shape[i] = shape[perm[i]].
export function permute(values, shape, perm) {
  const outShape = perm.map((p) => shape[p]);
  const inSt = strides(shape);
  const n = elementCount(shape);
  const out = new Array(n);
  const idx = new Array(shape.length).fill(0); // index into the output
  for (let f = 0; f < n; f++) {
    let src = 0;
    for (let i = 0; i < perm.length; i++) src += idx[i] * inSt[perm[i]];
    out[f] = values[src];
    for (let i = perm.length - 1; i >= 0; i--) {
      if (++idx[i] < outShape[i]) break;
      idx[i] = 0;
    }
  }
  return { shape: outShape, values: out };
}

export function inversePerm(perm) {
  const inv = new Array(perm.length);
  perm.forEach((p, i) => {
    inv[p] = i;
  });
  return inv;
}

// Layouts as the transpose that takes the canonical tensor to the layout.
export const INPUT_LAYOUT = { nchw: [0, 1, 2, 3], nhwc: [0, 2, 3, 1] };
export const CONV_FILTER_LAYOUT = { oihw: [0, 1, 2, 3], hwio: [2, 3, 1, 0], ohwi: [0, 2, 3, 1], ihwo: [1, 2, 3, 0] };
export const CONVT_FILTER_LAYOUT = { iohw: [0, 1, 2, 3], hwoi: [2, 3, 1, 0], ohwi: [1, 2, 3, 0] };

// An authoring tensor in a layout, from a canonical shape and data given either as an array in canonical
// order (transposed here into the layout) or as a generator (which then produces the data in layout order,
// as any reader of the file will). Returns {tensor: T for the JSON, canon: {shape, values} canonical}.
export function layoutTensor(dtype, canonShape, data, perm, constant = false) {
  const layoutShape = perm.map((p) => canonShape[p]);
  let tensor;
  if (Array.isArray(data)) {
    if (data.length !== elementCount(canonShape)) throw new Error('layoutTensor: data length');
    tensor = T(dtype, layoutShape, permute(data, canonShape, perm).values, constant);
  } else {
    tensor = T(dtype, layoutShape, data, constant);
  }
  const canon = permute(materialize(tensor), layoutShape, inversePerm(perm));
  return { tensor, canon };
}

// Deterministic seed from a case name (FNV-1a, 32 bits).
export function seedOf(name, k = 0) {
  let h = 0x811c9dc5;
  const s = `${name}#${k}`;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

// A one-operator case with output "output".
export function winCase({ op, name, labels, inputs, args, out, implDefined = 0 }) {
  return makeCase({
    name, labels, inputs, implDefined,
    operators: [{ name: op, arguments: args, outputs: 'output' }],
    outputs: { output: out },
  });
}

export function winError({ op, name, labels, inputs, args, error = 'TypeError' }) {
  return makeCase({
    name, labels, inputs, expectedError: error,
    operators: [{ name: op, arguments: args, outputs: 'output' }],
  });
}

export const floorDiv = (a, b) => Math.floor(a / b); // small exact integers only
export function ceilDiv(a, b) {
  return -Math.floor(-a / b);
}
