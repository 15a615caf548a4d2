// Helpers shared by the matrix, linear, normalization and quantization case modules.

import { T, C, makeCase, materialize } from './casebuild.mjs';
import { elementCount } from './values.mjs';
import { roundTo } from './numerics.mjs';
import { ratFromDouble, ratMul, ratAdd, ratSign, roundRat, SCALE, scaled } from './ratexact.mjs';

export { T, C, makeCase, materialize, elementCount };

export function strides(shape) {
  const s = new Array(shape.length);
  let k = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    s[i] = k;
    k *= shape[i];
  }
  return s;
}

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

// A one-operator case. inputs: {name: T}; args: the operator's argument list; out: {dtype, shape, values}.
export function opCase({ op, name, labels, inputs, args, out, implDefined = 0 }) {
  return makeCase({
    name, labels, inputs, implDefined,
    operators: [{ name: op, arguments: args, outputs: 'output' }],
    outputs: { output: out },
  });
}

export function opError({ op, name, labels, inputs, args, error = 'TypeError' }) {
  return makeCase({
    name, labels, inputs, expectedError: error,
    operators: [{ name: op, arguments: args, outputs: 'output' }],
  });
}

// The sign of a zero product of IEEE factors (true = negative).
const negZeroProduct = (factors) => factors.reduce((s, f) => s !== (f < 0 || Object.is(f, -0)), false);

// sum over terms of the product of each term's factors (doubles holding float values), computed exactly and
// rounded once to float type t. Non-finite factors follow IEEE (inf * 0 = NaN, inf - inf = NaN). An exact
// zero sum is -0 only if every term is -0 (the IEEE sum of signed zeros); otherwise +0.
export function sumOfProducts(t, terms) {
  if (terms.some((fs) => fs.some((f) => !Number.isFinite(f)))) {
    let pos = false, neg = false;
    for (const fs of terms) {
      const p = fs.reduce((a, f) => a * f, 1); // no finite overflow in double for float32 factors
      if (Number.isNaN(p)) return NaN;
      if (p === Infinity) pos = true;
      if (p === -Infinity) neg = true;
    }
    if (pos && neg) return NaN;
    if (pos) return Infinity;
    if (neg) return -Infinity;
    throw new Error('sumOfProducts: non-finite factor without a non-finite term');
  }
  const F = Math.max(...terms.map((fs) => fs.length));
  let n = 0n;
  let allNegZero = terms.length > 0;
  for (const fs of terms) {
    let p = 1n;
    for (const f of fs) p *= scaled(f);
    n += p << BigInt(SCALE * (F - fs.length));
    if (p !== 0n || !negZeroProduct(fs)) allNegZero = false;
  }
  const d = 1n << BigInt(SCALE * F);
  if (n === 0n) return allNegZero ? -0 : 0;
  return roundRat({ n, d }, t);
}

// Exact rational of a finite double (re-export for brevity).
export const R = ratFromDouble;
export { ratMul, ratAdd, ratSign, roundRat, roundTo };

// Assert that at least one element differs between the once-rounded values and a step-by-step emulation
// (used for cases labelled "rounds_once").
export function assertDiffers(name, exact, stepwise) {
  const same = (a, b) => Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b)) || (a === b);
  const differs = exact.some((v, i) => !same(v, stepwise[i]));
  if (!differs) throw new Error(`${name}: labelled rounds_once but the step-by-step emulation gives the same values`);
}

export const tensorValues = (t) => materialize(t);
