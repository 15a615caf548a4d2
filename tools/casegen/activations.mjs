// Cases for the element-wise activations: elu, gelu, hardSigmoid, hardSwish, leakyRelu, prelu, relu,
// sigmoid, softplus, softsign, tanh. Element semantics are written from the spec text (expression and
// emulation of each section) and computed exactly (dyadic/rational, hiprec.mjs) or correctly rounded
// (fixed point with a rounding test, hiprec.mjs): one rounding from the exact value to the output type.
//
// Zeros: a nonzero exact value that rounds to zero keeps its sign; an exactly zero value takes the sign the
// spec's expression gives in IEEE arithmetic (e.g. leakyRelu(-0) = max(0, -0) + alpha * min(0, -0) = +0).
// NaN inputs of operators whose expression is built from max/min (relu, leakyRelu, prelu, elu,
// hardSigmoid, hardSwish) are implementation-defined (max/min leave NaN open: docs/deviations.md), written
// NaN, in cases of their own labelled implementation_defined.

import { FLOAT_TYPES, isFloat, intRange, convertNumber, roundTo, isMidpoint, inIntRange, wrapInt } from './numerics.mjs';
import { T, C, elementwiseCase, errorCase } from './casebuild.mjs';
import { implDefined } from './ops.mjs';
import { uniform, range } from './common.mjs';
import {
  ziv, fixed, expNonPos, logDyadic, erfFix, fdiv, fmul, SQRT2, dyadic, dAdd, dMul, dInt, dSign, dCmp,
  roundDyadic, roundRatio,
} from './hiprec.mjs';

const ONE = (W) => 1n << BigInt(W);

// ---------------------------------------------------------------------------------------------------------
// Element functions. x is a double holding a value of type t; option values are already cast to t.

export function sigmoidEl(t, x) {
  if (Number.isNaN(x)) return NaN;
  if (x === Infinity) return 1;
  if (x === -Infinity) return 0;
  if (x === 0) return 0.5;
  return ziv((W) => {
    const one = ONE(W);
    const e = expNonPos(fixed(-Math.abs(x), W), W); // exp(-|x|)
    return x > 0 ? fdiv(one, one + e, W) : fdiv(e, one + e, W);
  }, t);
}

export function tanhEl(t, x) {
  if (Number.isNaN(x)) return NaN;
  if (x === Infinity) return 1;
  if (x === -Infinity) return -1;
  if (x === 0) return x;
  return ziv((W) => {
    const one = ONE(W);
    const e = expNonPos(fixed(-2 * Math.abs(x), W), W); // exp(-2|x|); 2|x| is exact in double
    const r = fdiv(one - e, one + e, W);
    return x < 0 ? -r : r;
  }, t);
}

// softplus(x) = log(1 + exp(x)) = max(x, 0) + log(1 + exp(-|x|))
export function softplusEl(t, x) {
  if (Number.isNaN(x)) return NaN;
  if (x === Infinity) return Infinity;
  if (x === -Infinity) return 0;
  return ziv((W) => {
    const one = ONE(W);
    const e = expNonPos(fixed(-Math.abs(x), W), W);
    const l = logDyadic({ m: one + e, e: -W }, W);
    return (x > 0 ? fixed(x, W) : 0n) + l;
  }, t);
}

// softsign(x) = x / (1 + |x|), exact rational. softsign(+-Infinity) = +-1 (the limit; spec-notes #10).
export function softsignEl(t, x) {
  if (Number.isNaN(x)) return NaN;
  if (x === Infinity) return 1;
  if (x === -Infinity) return -1;
  if (x === 0) return x;
  const d = dyadic(x);
  const a = d.m < 0n ? -d.m : d.m;
  if (d.e >= 0) {
    const n = d.m << BigInt(d.e);
    return roundRatio(n, 1n + (a << BigInt(d.e)), t);
  }
  return roundRatio(d.m, (1n << BigInt(-d.e)) + a, t);
}

// gelu(x) = x/2 * (1 + erf(x / sqrt 2)), the exact erf form. gelu(-Infinity) = -0 (the limit, approached
// from below; spec-notes #10).
export function geluEl(t, x) {
  if (Number.isNaN(x)) return NaN;
  if (x === Infinity) return Infinity;
  if (x === -Infinity) return -0;
  if (x === 0) return x;
  // |x| >= 15: x/2 * erfc(|x|/sqrt2) < exp(-112.5) / sqrt(2 pi) < 2^-162, far below half an ulp of x and
  // below half the smallest float32 subnormal (2^-150).
  if (x >= 15) return x;
  if (x <= -15) return -0;
  return ziv((W) => {
    const one = ONE(W);
    const X = fixed(x, W);
    const Z = fdiv(X < 0n ? -X : X, SQRT2(W), W); // |x| / sqrt 2
    const erf = erfFix(Z, W);
    return fmul(X, x > 0 ? one + erf : one - erf, W) >> 1n;
  }, t);
}

const checkFinite = (v, what) => {
  if (!Number.isFinite(v)) throw new Error(`${what} is not finite (the case would be ambiguous)`);
};

// elu(x) = max(0, x) + alpha * (exp(min(0, x)) - 1)
export function eluEl(t, x, alpha) {
  if (Number.isNaN(x)) return implDefined(NaN);
  if (!Number.isFinite(alpha)) {
    if (!(x < 0)) throw new Error('elu: infinite alpha with x >= 0 gives Inf * 0');
    return alpha > 0 ? -Infinity : Infinity;
  }
  if (x === Infinity) return Infinity;
  if (x === -Infinity) return alpha === 0 ? 0 : -alpha;
  if (x > 0) return x;
  if (x === 0 || alpha === 0) return 0; // +0 + alpha * (+-0)  = +0
  return ziv((W) => {
    const e = expNonPos(fixed(x, W), W);
    return fmul(fixed(alpha, W), e - ONE(W), W);
  }, t);
}

// leakyRelu(x) = max(0, x) + alpha * min(0, x); prelu the same with slope as an operand.
function leaky(t, x, a, what) {
  if (Number.isNaN(x)) return implDefined(NaN);
  if (Number.isNaN(a) || !Number.isFinite(a)) {
    if (!(x < 0)) throw new Error(`${what}: NaN/infinite slope with x >= 0 gives NaN * 0`);
    return roundTo(t, a * x);
  }
  if (x === Infinity) return Infinity;
  if (x > 0) return x;
  if (x === 0 || a === 0) {
    if (x === -Infinity) return NaN; // 0 * -Infinity
    return 0;
  }
  return roundTo(t, a * x); // a * x is exact in double (24-bit significands); one rounding
}
export const leakyReluEl = (t, x, alpha) => leaky(t, x, alpha, 'leakyRelu');

export function preluEl(t, x, s) {
  if (isFloat(t)) return leaky(t, x, s, 'prelu');
  if (x > 0n) return x;
  const exact = s * x;
  return inIntRange(t, exact) ? exact : implDefined(wrapInt(t, exact));
}

export function reluEl(t, x) {
  if (!isFloat(t)) return x > 0n ? x : 0n;
  if (Number.isNaN(x)) return implDefined(NaN);
  return x > 0 ? x : 0;
}

// hardSigmoid(x) = max(min(alpha * x + beta, 1), 0), alpha * x + beta exact.
export function hardSigmoidEl(t, x, alpha, beta) {
  if (Number.isNaN(x)) return implDefined(NaN);
  checkFinite(alpha, 'hardSigmoid alpha');
  checkFinite(beta, 'hardSigmoid beta');
  if (!Number.isFinite(x)) {
    if (alpha === 0) throw new Error('hardSigmoid: alpha 0 with an infinite x');
    return alpha * x > 0 ? 1 : 0;
  }
  const v = dAdd(dMul(dyadic(alpha), dyadic(x)), dyadic(beta));
  if (dSign(v) <= 0) return 0;
  if (dCmp(v, dInt(1)) >= 0) return 1;
  return roundDyadic(v, t);
}

// hardSwish(x) = x * max(0, min(6, x + 3)) / 6, exact rational. hardSwish(-Infinity) = -Infinity * 0 in
// the expression (NaN); written as the limit -0 and labelled value_or_nan (as spec-notes #10).
export function hardSwishEl(t, x) {
  if (Number.isNaN(x)) return implDefined(NaN);
  if (x === Infinity) return Infinity;
  if (x === -Infinity) return -0;
  if (x >= 3) return x;
  if (x <= -3) return -0; // x * 0 with x < 0
  if (x === 0) return x;
  const d = dyadic(x);
  const n = dMul(d, dAdd(d, dInt(3)));
  return roundRatio(n.m, 6n, t, n.e);
}

// ---------------------------------------------------------------------------------------------------------
// Case helpers.

const F32 = 'float32';
const F16 = 'float16';

// Option value (a double literal in the case) cast to the type by the spec's ConvertToFloat.
function castOption(v, t) {
  if (typeof v !== 'number') throw new Error('options here are numbers');
  if (isMidpoint(t, v)) throw new Error(`option ${v} is an exact ${t} midpoint; write it differently`);
  const r = convertNumber(v, t);
  return Object.is(r, -0) ? 0 : r; // ConvertToFloat never yields -0
}

function act(op, t, tag, x, { options, labels = [], fn }) {
  const args = [{ input: 'x' }];
  if (options !== undefined) args.push({ options });
  return elementwiseCase({
    name: `webnn.${op}.${t}.${tag}`, labels: [op, t, ...labels], opName: op, args,
    inputs: { x }, operandNames: ['x'], outDtype: t, fn,
  });
}

function errCase(op, tag, dt, x, args, labels = []) {
  return errorCase({
    name: `webnn.${op}.error.${tag}`, labels: [op, dt, ...labels], opName: op,
    args: args || [{ input: 'x' }], inputs: x,
  });
}

const MIN_SUB = { float32: 1e-45, float16: 6e-8 };
const MIN_NORMAL = { float32: 1.1754944e-38, float16: 6.103515625e-5 };
const MAX = { float32: 3.4028235e38, float16: 65504 };

// Special values without NaN (NaN goes to a case of its own where it is implementation-defined).
function specials(t, { nan = false, negInf = true, posInf = true } = {}) {
  const v = [];
  if (nan) v.push(NaN);
  if (posInf) v.push(Infinity);
  if (negInf) v.push(-Infinity);
  v.push(-0, 0, 1, -1, 0.5, -2.5, MIN_SUB[t], -MIN_SUB[t], MIN_NORMAL[t], -MIN_NORMAL[t], MAX[t], -MAX[t]);
  return v;
}

// Inputs changed by rounding to the type on the way in.
const INPUT_ROUNDING = {
  float32: [0.1, -0.3333333333, 16777217, -2.7182818284590452, 1e-46, -7e-46, 1.00000005, -3.5e38],
  float16: [0.1, -0.3333333333, 2049, -2.7182818284590452, 2.98e-8, -4e-8, 1.00048828125, -65519],
};

// The cases every unary float activation gets (per type).
function commonUnary(op, t, fn, { rnd = [-8, 8], nan = false, negInf = true, posInf = true, options } = {}) {
  const o = options === undefined ? {} : { options };
  return [
    act(op, t, 'basic', T(t, [2, 3], [1, -2.5, 0.25, -100, 7.75, -0.125]), { ...o, fn }),
    act(op, t, 'rank0', C(t, [], -0.75), { ...o, fn, labels: ['rank0', 'constant'] }),
    act(op, t, 'size1_dims', T(t, [1, 1, 3, 1], [-1.5, 0.5, 2.25]), { ...o, fn }),
    act(op, t, 'range_grid', T(t, [7, 7], range(-6, 0.25)), { ...o, fn, labels: ['generator'] }),
    act(op, t, 'rank5_random', T(t, [2, 3, 4, 5, 1], uniform(71, rnd[0], rnd[1])), { ...o, fn, labels: ['generator'] }),
    act(op, t, 'special_values', T(t, [specials(t, { nan, negInf, posInf }).length], specials(t, { nan, negInf, posInf })),
      { ...o, fn, labels: ['special_values'] }),
    act(op, t, 'input_rounding', T(t, [8], INPUT_ROUNDING[t]), { ...o, fn, labels: ['rounding'] }),
  ];
}

function nanCase(op, t, fn, options) {
  return act(op, t, 'nan_input', T(t, [2, 3], [NaN, 1, -1, NaN, -0, 2.5]),
    { options, fn, labels: ['special_values', 'implementation_defined'] });
}

// ---------------------------------------------------------------------------------------------------------
// Per operator.

function sigmoidCases() {
  const op = 'sigmoid';
  const out = [];
  const tails = {
    float32: [-20, -50, -87, -88, -100, -103, -103.5, -104, -110, 16, 16.5, 17, 20, 88, 89],
    float16: [-10, -15, -16, -16.5, -17, -17.5, -18, 7, 7.5, 8, 9, 10, 11, 12, 100],
  };
  const tiny = {
    float32: [1e-8, -1e-8, 1e-45, -1e-30, 1e-3, -1e-3, 5.9604645e-8, -5.9604645e-8],
    float16: [1e-3, -1e-3, 6e-8, -6e-8, 2e-3, -2e-3, 4.8828125e-4, -4.8828125e-4],
  };
  for (const t of FLOAT_TYPES) {
    const fn = (v) => sigmoidEl(t, v);
    out.push(...commonUnary(op, t, fn, { nan: true }));
    out.push(act(op, t, 'tails', T(t, [tails[t].length], tails[t]), { fn, labels: ['tails'] }));
    out.push(act(op, t, 'near_zero', T(t, [tiny[t].length], tiny[t]), { fn }));
    out.push(act(op, t, 'empty_options', T(t, [3], [-1, 0, 1]), { fn, options: {} }));
  }
  out.push(errCase(op, 'int32_input', 'int32', { x: T('int32', [2], [1, 2]) }));
  out.push(errCase(op, 'uint8_input', 'uint8', { x: T('uint8', [2], [1, 2]) }));
  return out;
}

function tanhCases() {
  const op = 'tanh';
  const out = [];
  const tails = {
    float32: [8, 9, 9.01, 10, -10, 20, 44, 45, 89, -89, 1e30],
    float16: [3, 4, 4.5, 5, -5, 6, -6, 10, 12, 44, 65504],
  };
  const tiny = {
    float32: [1e-4, -1e-4, 1e-10, 1e-45, -1e-40, 1e-3, 4.2e-4, -2.44e-4],
    float16: [1e-3, -1e-3, 6e-8, -6.1e-5, 0.03, -0.02, 0.0625, 4.8828125e-4],
  };
  for (const t of FLOAT_TYPES) {
    const fn = (v) => tanhEl(t, v);
    out.push(...commonUnary(op, t, fn, { nan: true }));
    out.push(act(op, t, 'tails', T(t, [tails[t].length], tails[t]), { fn, labels: ['tails'] }));
    out.push(act(op, t, 'near_zero', T(t, [tiny[t].length], tiny[t]), { fn }));
  }
  out.push(errCase(op, 'int64_input', 'int64', { x: T('int64', [2], [1, 2]) }));
  out.push(errCase(op, 'int8_input', 'int8', { x: T('int8', [2], [1, 2]) }));
  return out;
}

function softplusCases() {
  const op = 'softplus';
  const out = [];
  const tails = {
    float32: [-100, -104, -20, -87.5, 15, 16, 17, 20, 88, 89, 100, 1e10, 3e38],
    float16: [-17, -18, -10, 8, 10, 11, 12, 100, 11.5, 65504, -65504, 1000, -20],
  };
  const tiny = {
    float32: [1e-8, -1e-8, 1e-45, -1e-45, 1e-3, -1e-3, 1e-20, -0.5],
    float16: [1e-3, -1e-3, 6e-8, -6e-8, 2e-3, -2e-3, 6.1e-5, -0.5],
  };
  for (const t of FLOAT_TYPES) {
    const fn = (v) => softplusEl(t, v);
    out.push(...commonUnary(op, t, fn, { nan: true }));
    out.push(act(op, t, 'tails', T(t, [tails[t].length], tails[t]), { fn, labels: ['tails', 'large'] }));
    out.push(act(op, t, 'near_zero', T(t, [tiny[t].length], tiny[t]), { fn }));
  }
  out.push(errCase(op, 'int32_input', 'int32', { x: T('int32', [2], [1, 2]) }));
  out.push(errCase(op, 'uint32_input', 'uint32', { x: T('uint32', [2], [1, 2]) }));
  return out;
}

function softsignCases() {
  const op = 'softsign';
  const out = [];
  const vals = {
    float32: [1, 2, 3, 0.5, 1e7, 16777215, -16777215, 3.4e38, 1e-45, 1e-38, 8388607.5, -0.1],
    float16: [1, 2, 3, 0.5, 1000, 2047, 65504, 6e-8, 6.1e-5, 2049, -0.1, 1023.5],
  };
  for (const t of FLOAT_TYPES) {
    const fn = (v) => softsignEl(t, v);
    out.push(...commonUnary(op, t, fn, { nan: true, negInf: false, posInf: false }));
    out.push(act(op, t, 'values', T(t, [vals[t].length], vals[t]), { fn }));
    out.push(act(op, t, 'infinity_limits', T(t, [5], [Infinity, -Infinity, 3, -Infinity, -0.5]),
      { fn, labels: ['special_values', 'value_or_nan'] }));
  }
  out.push(errCase(op, 'int8_input', 'int8', { x: T('int8', [2], [1, 2]) }));
  out.push(errCase(op, 'uint64_input', 'uint64', { x: T('uint64', [2], [1, 2]) }));
  return out;
}

function geluCases() {
  const op = 'gelu';
  const out = [];
  const tails = {
    float32: [-1, -3, -5, -5.5, -8, -10, -12, -13, -13.5, -14, -14.5, -15, -20, 3, 5, 8, 10, 16],
    float16: [-1, -2, -3, -4, -4.5, -5, -5.25, -5.5, -5.75, -6, -8, 3, 4, 5, 6, 8],
  };
  // x = the smallest subnormal: x/2 * (1 + erf(tiny)) lies just above half of it, so it rounds up.
  const tiny = {
    float32: [1e-45, -1e-45, 3e-45, -3e-45, 1e-30, -1e-20, 1e-8, -1e-8],
    float16: [6e-8, -6e-8, 1.8e-7, -1.8e-7, 6.1e-5, -6.1e-5, 1e-3, -1e-3],
  };
  for (const t of FLOAT_TYPES) {
    const fn = (v) => geluEl(t, v);
    out.push(...commonUnary(op, t, fn, { nan: true, negInf: false }));
    out.push(act(op, t, 'tails', T(t, [tails[t].length], tails[t]), { fn, labels: ['tails'] }));
    out.push(act(op, t, 'near_zero', T(t, [tiny[t].length], tiny[t]), { fn, labels: ['subnormal'] }));
    out.push(act(op, t, 'infinity_limits', T(t, [4], [-Infinity, Infinity, -1, -Infinity]),
      { fn, labels: ['special_values', 'value_or_nan'] }));
  }
  out.push(errCase(op, 'int32_input', 'int32', { x: T('int32', [2], [1, 2]) }));
  out.push(errCase(op, 'uint8_input', 'uint8', { x: T('uint8', [2], [1, 2]) }));
  return out;
}

function reluCases() {
  const op = 'relu';
  const out = [];
  for (const t of FLOAT_TYPES) {
    const fn = (v) => reluEl(t, v);
    out.push(...commonUnary(op, t, fn));
    out.push(nanCase(op, t, fn));
  }
  for (const t of ['int64', 'int32', 'int8']) {
    const fn = (v) => reluEl(t, v);
    const [lo, hi] = intRange(t);
    const ex = [lo, lo + 1n, -1n, 0n, 1n, hi - 1n, hi];
    if (t === 'int64') ex.push(2n ** 53n + 1n, -(2n ** 53n) - 1n);
    out.push(act(op, t, 'basic', T(t, [2, 3], [1, -2, 3, -4, 0, 100]), { fn }));
    out.push(act(op, t, 'extremes', T(t, [ex.length], ex), { fn, labels: ['extremes'] }));
    out.push(act(op, t, 'rank0', C(t, [], -7), { fn, labels: ['rank0', 'constant'] }));
    out.push(act(op, t, 'rank5_random', T(t, [2, 3, 4, 5, 1], uniform(73, -100, 100)), { fn, labels: ['generator'] }));
  }
  out.push(errCase(op, 'uint8_input', 'uint8', { x: T('uint8', [2], [1, 2]) }));
  out.push(errCase(op, 'uint32_input', 'uint32', { x: T('uint32', [2], [1, 2]) }));
  out.push(errCase(op, 'uint64_input', 'uint64', { x: T('uint64', [2], [1, 2]) }));
  return out;
}

function eluCases() {
  const op = 'elu';
  const out = [];
  const tails = [-1e-45, -1e-8, -1e-3, -0.5, -20, -88, -104, -200, -1e30, -3e38];
  const tails16 = [-6e-8, -1e-3, -0.5, -5, -10, -11, -17, -18, -100, -65504];
  for (const t of FLOAT_TYPES) {
    const mk = (alpha) => (v) => eluEl(t, v, alpha);
    const def = mk(castOption(1, t));
    out.push(...commonUnary(op, t, def));
    out.push(nanCase(op, t, def));
    out.push(act(op, t, 'tails', T(t, [10], t === F32 ? tails : tails16), { fn: def, labels: ['tails'] }));
    const x = T(t, [2, 4], [-3, -1, -0.25, -0, 0, 0.5, 2, 10]);
    out.push(act(op, t, 'empty_options', x, { options: {}, fn: def }));
    for (const [tag, a] of [['alpha_0_5', 0.5], ['alpha_2', 2], ['alpha_negative', -1.5], ['alpha_0', 0],
      ['alpha_0_1', 0.1], ['alpha_large', 1000]]) {
      out.push(act(op, t, tag, x, { options: { alpha: a }, fn: mk(castOption(a, t)), labels: ['options'] }));
    }
    out.push(act(op, t, 'alpha_random_input', T(t, [3, 4, 5], uniform(79, -6, 2)),
      { options: { alpha: 0.3 }, fn: mk(castOption(0.3, t)), labels: ['options', 'generator'] }));
    if (t === F16) {
      // alpha is cast to float16 first: 1e5 overflows to Infinity, 1e-8 underflows to 0 (negative x only
      // for the infinite alpha: Infinity * 0 at x >= 0 would be NaN in the expression).
      out.push(act(op, t, 'alpha_cast_overflow', T(t, [4], [-1, -0.5, -10, -65504]),
        { options: { alpha: 1e5 }, fn: mk(castOption(1e5, t)), labels: ['options', 'options_cast'] }));
      out.push(act(op, t, 'alpha_cast_underflow', T(t, [4], [-1, -0.5, 1, 0]),
        { options: { alpha: 1e-8 }, fn: mk(castOption(1e-8, t)), labels: ['options', 'options_cast'] }));
    }
  }
  out.push(errCase(op, 'int32_input', 'int32', { x: T('int32', [2], [1, 2]) }));
  out.push(errCase(op, 'int8_input', 'int8', { x: T('int8', [2], [1, 2]) }));
  out.push(errCase(op, 'alpha_nan', F32, { x: T(F32, [2], [1, 2]) }, [{ input: 'x' }, { options: { alpha: 'NaN' } }], ['webidl']));
  out.push(errCase(op, 'alpha_infinity', F32, { x: T(F32, [2], [1, 2]) },
    [{ input: 'x' }, { options: { alpha: 'Infinity' } }], ['webidl']));
  return out;
}

function leakyReluCases() {
  const op = 'leakyRelu';
  const out = [];
  for (const t of FLOAT_TYPES) {
    const mk = (alpha) => (v) => leakyReluEl(t, v, alpha);
    const def = mk(castOption(0.01, t));
    out.push(...commonUnary(op, t, def));
    out.push(nanCase(op, t, def));
    const x = T(t, [2, 4], [-3, -1, -0.25, -0, 0, 0.5, 2, 10]);
    out.push(act(op, t, 'empty_options', x, { options: {}, fn: def }));
    for (const [tag, a] of [['alpha_0_2', 0.2], ['alpha_negative', -0.5], ['alpha_0', 0], ['alpha_1_5', 1.5],
      ['alpha_0_1', 0.1], ['alpha_1', 1]]) {
      out.push(act(op, t, tag, x, { options: { alpha: a }, fn: mk(castOption(a, t)), labels: ['options'] }));
    }
    out.push(act(op, t, 'alpha_special_inputs', T(t, [6], [-Infinity, Infinity, -MAX[t], -MIN_SUB[t], -MIN_NORMAL[t], -0]),
      { options: { alpha: 0.5 }, fn: mk(castOption(0.5, t)), labels: ['options', 'special_values'] }));
    if (t === F16) {
      out.push(act(op, t, 'alpha_cast_overflow', T(t, [4], [-1, -0.5, -6e-8, -65504]),
        { options: { alpha: 70000 }, fn: mk(castOption(70000, t)), labels: ['options', 'options_cast'] }));
    } else {
      out.push(act(op, t, 'alpha_cast_overflow', T(t, [4], [-1, -0.5, -1e-45, -3e38]),
        { options: { alpha: 1e39 }, fn: mk(castOption(1e39, t)), labels: ['options', 'options_cast'] }));
    }
  }
  out.push(errCase(op, 'int32_input', 'int32', { x: T('int32', [2], [1, 2]) }));
  out.push(errCase(op, 'int64_input', 'int64', { x: T('int64', [2], [1, 2]) }));
  out.push(errCase(op, 'alpha_nan', F16, { x: T(F16, [2], [1, 2]) }, [{ input: 'x' }, { options: { alpha: 'NaN' } }], ['webidl']));
  return out;
}

function hardSigmoidCases() {
  const op = 'hardSigmoid';
  const out = [];
  for (const t of FLOAT_TYPES) {
    const mk = (alpha, beta) => {
      const a = castOption(alpha, t);
      const b = castOption(beta, t);
      return (v) => hardSigmoidEl(t, v, a, b);
    };
    const def = mk(0.2, 0.5);
    out.push(...commonUnary(op, t, def));
    out.push(nanCase(op, t, def));
    const x = T(t, [3, 4], [-4, -2.5, -2, -1, -0.5, -0, 0, 0.3, 1, 2, 2.5, 4]);
    out.push(act(op, t, 'empty_options', x, { options: {}, fn: def }));
    const combos = [
      ['alpha_only', { alpha: 0.25 }], ['beta_only', { beta: 0.25 }], ['alpha_beta', { alpha: 0.5, beta: 0.1 }],
      ['alpha_negative', { alpha: -0.3, beta: 0.6 }], ['alpha_0', { alpha: 0, beta: 0.7 }],
      ['beta_above_1', { alpha: 0.1, beta: 1.5 }], ['beta_negative', { alpha: 0.4, beta: -0.2 }],
      ['alpha_large', { alpha: 100, beta: 0.5 }],
    ];
    for (const [tag, o] of combos) {
      out.push(act(op, t, tag, x, { options: o, fn: mk(o.alpha ?? 0.2, o.beta ?? 0.5), labels: ['options'] }));
    }
    // alpha * x is exactly the midpoint just above 0.5, beta a tiny positive value: the exact sum is above
    // the midpoint and rounds up; rounding alpha * x (or the sum in double) first would give 0.5.
    const dr = t === F32
      ? { alpha: 24929, beta: 8.673617379884035e-19, x: 2.0056962966918945e-5 } // 673 * 2^-25, beta 2^-60
      : { alpha: 683, beta: 5.960464477539063e-8, x: 0.000732421875 }; // 3 * 2^-12, beta 2^-24
    out.push(act(op, t, 'single_rounding', T(t, [3], [dr.x, -dr.x, 0]),
      { options: { alpha: dr.alpha, beta: dr.beta }, fn: mk(dr.alpha, dr.beta), labels: ['options', 'rounding'] }));
  }
  out.push(errCase(op, 'int32_input', 'int32', { x: T('int32', [2], [1, 2]) }));
  out.push(errCase(op, 'uint8_input', 'uint8', { x: T('uint8', [2], [1, 2]) }));
  out.push(errCase(op, 'beta_nan', F32, { x: T(F32, [2], [1, 2]) }, [{ input: 'x' }, { options: { beta: 'NaN' } }], ['webidl']));
  return out;
}

function hardSwishCases() {
  const op = 'hardSwish';
  const out = [];
  const bounds = {
    float32: [-3, -2.9999998, -1.5, -0.5, 0.5, 1.5, 2.9999998, 3, 3.0000002, 6, -3.0000002, 1],
    float16: [-3, -2.998, -1.5, -0.5, 0.5, 1.5, 2.998, 3, 3.002, 6, -3.002, 1],
  };
  // x = +-k * smallest subnormal: x * (x + 3) / 6 = k/2 * min_sub * (1 + tiny): exact ties broken by the
  // tiny term (x = min_sub rounds up to min_sub; x = -min_sub rounds to -0).
  const sub = {
    float32: [1e-45, -1e-45, 3e-45, -3e-45, 4e-45, 1e-44, -1e-38, 1e-30],
    float16: [6e-8, -6e-8, 1.8e-7, -1.8e-7, 2.4e-7, 6e-7, -6.1e-5, 1e-3],
  };
  for (const t of FLOAT_TYPES) {
    const fn = (v) => hardSwishEl(t, v);
    out.push(...commonUnary(op, t, fn, { negInf: false }));
    out.push(nanCase(op, t, fn));
    out.push(act(op, t, 'boundaries', T(t, [12], bounds[t]), { fn }));
    out.push(act(op, t, 'subnormal', T(t, [8], sub[t]), { fn, labels: ['subnormal', 'rounding'] }));
    out.push(act(op, t, 'infinity_limits', T(t, [4], [-Infinity, Infinity, -4, -Infinity]),
      { fn, labels: ['special_values', 'value_or_nan'] }));
  }
  out.push(errCase(op, 'int32_input', 'int32', { x: T('int32', [2], [1, 2]) }));
  out.push(errCase(op, 'uint32_input', 'uint32', { x: T('uint32', [2], [1, 2]) }));
  return out;
}

// prelu: two operands, bidirectional broadcasting, float and signed integer types.
function preluCase(t, tag, x, slope, labels = []) {
  return elementwiseCase({
    name: `webnn.prelu.${t}.${tag}`, labels: ['prelu', t, ...labels], opName: 'prelu',
    args: [{ input: 'x' }, { slope: 'slope' }], inputs: { x, slope }, operandNames: ['x', 'slope'], outDtype: t,
    fn: (a, s) => preluEl(t, a, s),
  });
}

function preluCases() {
  const out = [];
  for (const t of FLOAT_TYPES) {
    out.push(preluCase(t, 'basic', T(t, [2, 3], [1, -2.5, 0.25, -100, 7.75, -0.125]),
      T(t, [2, 3], [0.1, 0.2, 0.3, -0.5, 2, 1])));
    out.push(preluCase(t, 'slope_rank0', T(t, [2, 2, 2], [-1, 2, -3, 4, -5, 6, -7, 8]), C(t, [], 0.25), ['broadcast', 'constant']));
    out.push(preluCase(t, 'slope_channels', T(t, [2, 3, 2, 2], range(-6, 0.5)), C(t, [3, 1, 1], [0.1, -0.2, 3]), ['broadcast', 'constant', 'generator']));
    out.push(preluCase(t, 'slope_higher_rank', T(t, [3], [-1, 2, -3]), T(t, [2, 3], [0.5, 0.5, 0.5, -1, 2, 0]), ['broadcast']));
    out.push(preluCase(t, 'bidirectional', T(t, [2, 1, 3], [-1, 2, -3, 4, -5, -6]), T(t, [4, 1], [0.25, 0.5, -1, 2]), ['broadcast']));
    out.push(preluCase(t, 'slope_size1', T(t, [2, 3], [-1, 2, -3, 4, -5, -6]), T(t, [1], [0.125]), ['broadcast']));
    out.push(preluCase(t, 'rank0', T(t, [], -2), C(t, [], 0.3), ['rank0', 'constant']));
    out.push(preluCase(t, 'rank5_random', T(t, [2, 3, 2, 2, 5], uniform(83, -8, 8)), T(t, [3, 1, 1, 5], uniform(89, -2, 2)), ['broadcast', 'generator']));
    const s = specials(t);
    out.push(preluCase(t, 'special_values', T(t, [s.length], s), C(t, [], 0.75), ['special_values']));
    out.push(preluCase(t, 'special_values_negative_slope', T(t, [s.length], s), C(t, [], -2), ['special_values']));
    out.push(preluCase(t, 'slope_special', T(t, [7], [-1, -2, -0.5, -1, -3, -MAX[t], -Infinity]),
      T(t, [7], [NaN, Infinity, -Infinity, 0, -0, MAX[t], 2]), ['special_values']));
    out.push(preluCase(t, 'nan_input', T(t, [2, 3], [NaN, 1, -1, NaN, -0, 2.5]), T(t, [3], [0.5, 0.5, 2]),
      ['special_values', 'implementation_defined']));
    out.push(preluCase(t, 'input_rounding', T(t, [8], INPUT_ROUNDING[t]), T(t, [8], [0.1, 0.3, 0.7, 1.1, 0.9, 0.2, 3, 0.01]), ['rounding']));
  }
  for (const t of ['int64', 'int32', 'int8']) {
    const [lo, hi] = intRange(t);
    out.push(preluCase(t, 'basic', T(t, [2, 3], [1, -2, 3, -4, 0, 100]), T(t, [2, 3], [2, 3, -1, 5, 7, 9])));
    out.push(preluCase(t, 'broadcast', T(t, [2, 3, 2], [-1, 2, -3, 4, -5, 6, -7, 8, -9, 10, -11, 0]), C(t, [3, 1], [1, -2, 3]), ['broadcast', 'constant']));
    out.push(preluCase(t, 'rank0', T(t, [], -5), T(t, [], 3), ['rank0']));
    out.push(preluCase(t, 'extremes', T(t, [6], [lo, lo, hi, -1n, 0n, lo + 1n]), T(t, [6], [1n, 0n, -100n, hi, lo, -1n]), ['extremes']));
    out.push(preluCase(t, 'rank5_random', T(t, [2, 3, 2, 2, 5], uniform(97, -50, 50)), T(t, [5], uniform(101, -2, 2)), ['broadcast', 'generator']));
    out.push(preluCase(t, 'overflow', T(t, [3], [lo, -2n, lo]), T(t, [3], [-1n, 3n, 2n]), ['overflow', 'implementation_defined']));
  }
  const f32 = F32;
  out.push(errorCase({ name: 'webnn.prelu.error.uint8_input', labels: ['prelu', 'uint8'], opName: 'prelu',
    args: [{ input: 'x' }, { slope: 'slope' }], inputs: { x: T('uint8', [2], [1, 2]), slope: T('uint8', [2], [1, 2]) } }));
  out.push(errorCase({ name: 'webnn.prelu.error.uint32_input', labels: ['prelu', 'uint32'], opName: 'prelu',
    args: [{ input: 'x' }, { slope: 'slope' }], inputs: { x: T('uint32', [2], [1, 2]), slope: T('uint32', [2], [1, 2]) } }));
  out.push(errorCase({ name: 'webnn.prelu.error.slope_type_mismatch', labels: ['prelu', f32], opName: 'prelu',
    args: [{ input: 'x' }, { slope: 'slope' }], inputs: { x: T(f32, [2], [1, 2]), slope: T(F16, [2], [1, 2]) } }));
  out.push(errorCase({ name: 'webnn.prelu.error.slope_int_mismatch', labels: ['prelu', 'int64'], opName: 'prelu',
    args: [{ input: 'x' }, { slope: 'slope' }], inputs: { x: T('int64', [2], [1, 2]), slope: T('int32', [2], [1, 2]) } }));
  out.push(errorCase({ name: 'webnn.prelu.error.not_broadcastable', labels: ['prelu', f32], opName: 'prelu',
    args: [{ input: 'x' }, { slope: 'slope' }], inputs: { x: T(f32, [2, 3], [1, 2, 3, 4, 5, 6]), slope: T(f32, [2], [1, 2]) } }));
  out.push(errorCase({ name: 'webnn.prelu.error.not_broadcastable_rank4', labels: ['prelu', F16], opName: 'prelu',
    args: [{ input: 'x' }, { slope: 'slope' }], inputs: { x: T(F16, [1, 3, 2, 2], 1), slope: T(F16, [1, 2, 1, 1], 1) } }));
  return out;
}

export function activationFiles() {
  return {
    elu: eluCases(),
    gelu: geluCases(),
    hardSigmoid: hardSigmoidCases(),
    hardSwish: hardSwishCases(),
    leakyRelu: leakyReluCases(),
    prelu: preluCases(),
    relu: reluCases(),
    sigmoid: sigmoidCases(),
    softplus: softplusCases(),
    softsign: softsignCases(),
    tanh: tanhCases(),
  };
}
