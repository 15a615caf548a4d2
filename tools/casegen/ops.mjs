// Element semantics of each operator, written from the WebNN spec text and the numerics policy in
// tools/casegen/README.md. Float elements are doubles holding float32/float16 values; integer elements are
// BigInts. A function returns the element value, or implDefined(v) where the spec leaves the element
// implementation-defined (the value written is then the reference's convention; comparison skips it).

import {
  isFloat, roundTo, intRange, inIntRange, wrapInt, bigintToFloat, erfTo, powC, roundHalfEvenDouble,
} from './numerics.mjs';

export const implDefined = (v) => ({ implDefined: true, v });

// Exact integer result -> the type, wrapped (and implementation-defined) if it overflows.
function intResult(t, exact) {
  return inIntRange(t, exact) ? exact : implDefined(wrapInt(t, exact));
}

// ---------------------------------------------------------------------------------------------------------
// Binary arithmetic: compute exactly (double for float types: add/sub/mul/div of float32/float16 values in
// double followed by one rounding is correctly rounded), round once to the type.

function fmax(a, b) {
  if (Number.isNaN(a) || Number.isNaN(b)) return NaN;
  if (a === 0 && b === 0) return Object.is(a, -0) && Object.is(b, -0) ? -0 : 0;
  return a > b ? a : b;
}
function fmin(a, b) {
  if (Number.isNaN(a) || Number.isNaN(b)) return NaN;
  if (a === 0 && b === 0) return Object.is(a, 0) && Object.is(b, 0) ? 0 : -0;
  return a < b ? a : b;
}

export const BINARY = {
  add: (t, a, b) => (isFloat(t) ? roundTo(t, a + b) : intResult(t, a + b)),
  sub: (t, a, b) => (isFloat(t) ? roundTo(t, a - b) : intResult(t, a - b)),
  mul: (t, a, b) => (isFloat(t) ? roundTo(t, a * b) : intResult(t, a * b)),
  div: (t, a, b) => {
    if (isFloat(t)) return roundTo(t, a / b);
    if (b === 0n) return implDefined(0n); // integer division by zero
    return intResult(t, a / b); // BigInt division truncates toward zero; INT_MIN / -1 overflows
  },
  max: (t, a, b) => (isFloat(t) ? fmax(a, b) : a > b ? a : b),
  min: (t, a, b) => (isFloat(t) ? fmin(a, b) : a < b ? a : b),
  pow: (t, a, b) => {
    if (isFloat(t)) return roundTo(t, powC(a, b));
    if (b < 0n) {
      // The exact result 1/a^|b| is an integer only for a = 1 (1) and a = -1 (+-1 by the parity of b).
      // Otherwise the spec is silent (docs/deviations.md); written as 0, the truncated exact value (and 0
      // for a = 0, whose result is infinite), and implementation-defined.
      if (a === 1n) return 1n;
      if (a === -1n) return b % 2n === 0n ? 1n : -1n;
      return implDefined(0n);
    }
    return intResult(t, a ** b);
  },
};

// Comparisons: IEEE (NaN compares false, notEqual true; -0 == +0). Output uint8 0/1.
const u8 = (c) => (c ? 1n : 0n);
export const COMPARE = {
  equal: (t, a, b) => u8(a === b),
  notEqual: (t, a, b) => u8(!(a === b)),
  greater: (t, a, b) => u8(a > b),
  greaterOrEqual: (t, a, b) => u8(a >= b),
  lesser: (t, a, b) => u8(a < b),
  lesserOrEqual: (t, a, b) => u8(a <= b),
};

export const LOGICAL = {
  logicalNot: (t, a) => u8(a === 0n),
  logicalAnd: (t, a, b) => u8(a !== 0n && b !== 0n),
  logicalOr: (t, a, b) => u8(a !== 0n || b !== 0n),
  logicalXor: (t, a, b) => u8((a !== 0n) !== (b !== 0n)),
  isNaN: (t, a) => u8(Number.isNaN(a)),
  isInfinite: (t, a) => u8(a === Infinity || a === -Infinity),
};

// ---------------------------------------------------------------------------------------------------------
// Unary.

const f = (fn) => (t, x) => roundTo(t, fn(x));

export const UNARY = {
  abs: (t, x) => (isFloat(t) ? Math.abs(x) : intResult(t, x < 0n ? -x : x)),
  neg: (t, x) => (isFloat(t) ? -x : intResult(t, -x)),
  // 1 if > 0, -1 if < 0, otherwise 0 (sign(NaN) = 0, sign(-0) = 0 as the spec's prose states).
  sign: (t, x) => (isFloat(t) ? (x > 0 ? 1 : x < 0 ? -1 : 0) : x > 0n ? 1n : x < 0n ? -1n : 0n),
  identity: (t, x) => x,
  ceil: (t, x) => Math.ceil(x),
  floor: (t, x) => Math.floor(x),
  roundEven: (t, x) => roundHalfEvenDouble(x),
  cos: f(Math.cos),
  sin: f(Math.sin),
  tan: f(Math.tan),
  exp: f(Math.exp),
  log: f(Math.log),
  erf: (t, x) => erfTo(t, x), // correctly rounded, directly to the type
  sqrt: f(Math.sqrt),
  reciprocal: f((x) => 1 / x),
};

// ---------------------------------------------------------------------------------------------------------
// cast (the spec's table).

export function castElement(from, to, v) {
  if (isFloat(from)) {
    if (isFloat(to)) return roundTo(to, v); // float32 -> float16 directly from the float32 value
    const [lo, hi] = intRange(to);
    if (Number.isNaN(v)) return implDefined(0n);
    if (v === Infinity) return implDefined(hi);
    if (v === -Infinity) return implDefined(lo);
    const tr = BigInt(Math.trunc(v)); // exact: v is a finite double
    if (tr < lo) return implDefined(lo);
    if (tr > hi) return implDefined(hi);
    return tr;
  }
  if (isFloat(to)) return bigintToFloat(v, to);
  return wrapInt(to, v); // in range: same value; out of range: lowest N bits (fully specified)
}

// ---------------------------------------------------------------------------------------------------------
// clamp: min(max(x, lo), hi) with lo/hi already cast to the input type (undefined = no bound).

// A float NaN input is implementation-defined (written NaN): the spec's emulation builds clamp from max/min,
// which have no NaN rule, and implementations return NaN or a bound. Between equal zeros fmax prefers +0, so
// clamp(-0, minValue 0) is +0.
export function clampElement(t, x, lo, hi) {
  let r = x;
  if (isFloat(t)) {
    if (Number.isNaN(x)) return implDefined(NaN);
    if (lo !== undefined) r = fmax(r, lo);
    if (hi !== undefined) r = fmin(r, hi);
    return r;
  }
  if (lo !== undefined && r < lo) r = lo;
  if (hi !== undefined && r > hi) r = hi;
  return r;
}

export const whereElement = (c, a, b) => (c !== 0n ? a : b);
