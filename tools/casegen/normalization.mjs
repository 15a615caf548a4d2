// Cases for batchNormalization, instanceNormalization and layerNormalization (WebNN
// §api-mlgraphbuilder-batchnorm, -instancenorm, -layernorm).
//
// Each output element is  bias + scale * (x - mean) / sqrt(variance + epsilon)  evaluated exactly and rounded
// once to the type: epsilon is first cast to the input type (method steps), the mean and (biased, two-pass)
// variance of instance/layer normalization are exact rationals, and the square root is handled by exact
// comparison with the type's rounding midpoints (ratexact.mjs roundSqrtExpr). See README.md for the treatment of
// special values and of zero signs.

import { FLOAT_TYPES, convertNumber, roundTo } from './numerics.mjs';
import {
  ratFromDouble as R, ratInt, ratAdd, ratSub, ratMul, ratSign, roundRat, roundSqrtExpr, scaled, SCALE,
} from './ratexact.mjs';
import {
  T, C, opCase, opError, materialize, unravel, ravel, sumOfProducts, assertDiffers,
} from './familyutil.mjs';
import { uniform } from './common.mjs';

const isNeg = (v) => v < 0 || Object.is(v, -0);
const finite = (...vs) => vs.every((v) => v === undefined || Number.isFinite(v));

// t + bias (bias may be undefined: absent, i.e. the spec's "assumed to be 0") for a special-path t (double).
const addBias = (t, b) => (b === undefined ? t + 0 : t + b);

// Round once: b + s * d * sqrt(R) where d is the exact rational x - mean (dNegZero: the IEEE sign of d when it
// is zero), R > 0 rational, s/b finite doubles (s undefined = 1, b undefined = absent).
//
// Zero signs, from the spec's formula evaluated in IEEE arithmetic: an exact zero result is -0 only when the
// bias is present and is -0 and t = s * d / sqrt(V) is -0 (sign of s xor sign of d); an absent bias is the
// spec's "assumed to be 0" (+0), so the result is then +0.
function roundNormalized(dt, d, dNegZero, R_, s, b) {
  const sv = s === undefined ? 1 : s;
  const A = ratMul(R(sv), d);
  const bias = b === undefined ? ratInt(0) : R(b);
  const { value, zero } = roundSqrtExpr(dt, bias, A, R_);
  if (!zero) return value;
  if (b === undefined || b !== 0 || ratSign(A) !== 0) return 0;
  const dNeg = ratSign(d) !== 0 ? ratSign(d) < 0 : dNegZero;
  return isNeg(sv) !== dNeg && isNeg(b) ? -0 : 0;
}

// ---------------------------------------------------------------------------------------------------------
// Group normalization (instance/layer): xs the group's values, eps the cast epsilon; params[i] = {s, b}.

export function normalizeGroup(dt, xs, eps, params) {
  if (!finite(...xs)) return xs.map(() => NaN); // mean or variance NaN/inf -> x - mean or 0 * inf is NaN
  const n = BigInt(xs.length);
  const X = xs.map(scaled);
  const S = X.reduce((a, v) => a + v, 0n);
  const N = X.map((v) => n * v - S); // x - mean = N / (n 2^SCALE)
  const sumSq = N.reduce((a, v) => a + v * v, 0n);
  if (!Number.isFinite(eps)) { // variance + Infinity: (x - mean) / Infinity is a signed zero
    return params.map(({ s, b }, i) => roundTo(dt, addBias((s ?? 1) * (N[i] < 0n ? -0 : 0), b)));
  }
  // variance + eps = Q / (n^3 2^(2 SCALE)), Q = sum N^2 + n^3 eps 2^(2 SCALE) (eps = E / 2^SCALE)
  const Q = sumSq + n * n * n * scaled(eps) * (1n << BigInt(SCALE));
  return params.map(({ s, b }, i) => {
    if (Q <= 0n || !finite(s, b)) {
      const q = Q > 0n ? Number(N[i]) / Math.sqrt(Number(Q)) : Q === 0n ? N[i] === 0n ? NaN : Number(N[i]) / 0 : NaN;
      return roundTo(dt, addBias((s ?? 1) * q, b));
    }
    // (x - mean) / sqrt(var + eps) = N sqrt(n / Q)
    return roundNormalized(dt, ratInt(N[i]), false, { n, d: Q }, s, b);
  });
}

// The spec's emulation with every builder op rounded to the type (reductions rounded once), for checking
// that a "rounds_once" case really differs from step-by-step evaluation.
function normalizeGroupStepwise(dt, xs, eps, params) {
  const n = BigInt(xs.length);
  const rnd = (q) => roundRat(q, dt);
  const mean = rnd({ n: xs.map(scaled).reduce((a, v) => a + v, 0n), d: n << BigInt(SCALE) });
  const d = xs.map((x) => sumOfProducts(dt, [[x], [-mean]]));
  const sq = d.map((v) => sumOfProducts(dt, [[v, v]]));
  const variance = sq.some(Number.isNaN) ? NaN : sq.includes(Infinity) ? Infinity
    : rnd({ n: sq.map(scaled).reduce((a, v) => a + v, 0n), d: n << BigInt(SCALE) });
  const den = roundTo(dt, Math.sqrt(roundTo(dt, variance + eps)));
  return params.map(({ s, b }, i) => {
    let t = roundTo(dt, d[i] / den);
    if (s !== undefined) t = roundTo(dt, s * t);
    return b === undefined ? t : roundTo(dt, t + b);
  });
}

// Groups: for each output element, a group key over the kept axes; the reduced axes index the scale/bias.
function groupedNormalize(dt, shape, values, reduceAxes, paramIndex, scale, bias, eps, stepwise) {
  const groups = new Map();
  for (let f = 0; f < values.length; f++) {
    const idx = unravel(f, shape);
    const key = idx.filter((_, a) => !reduceAxes.includes(a)).join(',');
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(f);
  }
  const out = new Array(values.length);
  for (const members of groups.values()) {
    const xs = members.map((f) => values[f]);
    const params = members.map((f) => {
      const pi = paramIndex(unravel(f, shape));
      return { s: scale ? scale[pi] : undefined, b: bias ? bias[pi] : undefined };
    });
    const r = (stepwise ? normalizeGroupStepwise : normalizeGroup)(dt, xs, eps, params);
    members.forEach((f, i) => { out[f] = r[i]; });
  }
  return out;
}

const EPS_DEFAULT = 1e-5;

// ---------------------------------------------------------------------------------------------------------
// layerNormalization

function defaultAxes(rank) {
  return rank > 1 ? Array.from({ length: rank - 1 }, (_, i) => i + 1) : [];
}

export function layerNormValues(dt, x, opts, tensors, { stepwise = false } = {}) {
  const axes = opts.axes ?? defaultAxes(x.shape.length);
  const eps = convertNumber(opts.epsilon ?? EPS_DEFAULT, dt);
  const pshape = axes.map((a) => x.shape[a]);
  const scale = opts.scale && materialize(tensors[opts.scale]);
  const bias = opts.bias && materialize(tensors[opts.bias]);
  const values = groupedNormalize(dt, x.shape, materialize(x), axes, (idx) => ravel(axes.map((a) => idx[a]), pshape),
    scale, bias, eps, stepwise);
  return { dtype: dt, shape: x.shape, values };
}

function normCase(op, valuesFn, dt, tag, x, opts, extraInputs, extra, roundsOnce) {
  const name = `webnn.${op}.${dt}.${tag}`;
  const inputs = { x, ...extraInputs };
  const labels = [op, dt, ...extra];
  const out = valuesFn(dt, x, opts ?? {}, inputs);
  if (roundsOnce) {
    assertDiffers(name, out.values, valuesFn(dt, x, opts ?? {}, inputs, { stepwise: true }).values);
    labels.push('rounds_once');
  }
  return { name, inputs, labels, out };
}

function ln(dt, tag, x, opts, params = {}, extra = [], { roundsOnce = false } = {}) {
  const c = normCase('layerNormalization', layerNormValues, dt, tag, x, opts, params, extra, roundsOnce);
  const args = [{ input: 'x' }];
  if (opts !== undefined) args.push({ options: opts });
  return opCase({ op: 'layerNormalization', name: c.name, labels: c.labels, inputs: c.inputs, args, out: c.out });
}

const SP = { float32: ['NaN', 'Infinity'], float16: ['NaN', 'Infinity'] };

function layerNormCases(dt) {
  const f16 = dt === 'float16';
  const out = [];
  const x4 = () => T(dt, [2, 2, 2, 3], uniform(501, -3, 3));
  out.push(ln(dt, 'rank4_default_axes', x4(), undefined, {}, ['default_axes', 'generator']));
  out.push(ln(dt, 'rank4_default_axes_scale_bias', x4(), { scale: 's', bias: 'b' },
    { s: C(dt, [2, 2, 3], uniform(502, 0.5, 2)), b: C(dt, [2, 2, 3], uniform(503, -1, 1)) },
    ['default_axes', 'scale', 'bias', 'generator']));
  const x3 = () => T(dt, [2, 3, 4], [1, 2, 3, 4, -1, 0.5, 2, 8, 0, 0, 1, -1,
    3, 3, 3, 3, 10, -10, 5, -5, 0.25, 0.5, 0.75, 1]);
  for (const [sb, opts, params] of [
    ['no_scale_bias', {}, {}],
    ['scale', { scale: 's' }, { s: C(dt, [3, 4], [1, 2, -1, 0.5, 1.5, -2, 1, 1, 0.25, 3, -0.5, 2]) }],
    ['bias', { bias: 'b' }, { b: C(dt, [3, 4], [0.5, -1, 0, 2, 1, 1, -3, 0.25, 0, 0, 1, -1]) }],
    ['scale_bias', { scale: 's', bias: 'b' }, {
      s: C(dt, [3, 4], [1, 2, -1, 0.5, 1.5, -2, 1, 1, 0.25, 3, -0.5, 2]),
      b: C(dt, [3, 4], [0.5, -1, 0, 2, 1, 1, -3, 0.25, 0, 0, 1, -1]),
    }],
  ]) {
    out.push(ln(dt, `rank3_default_axes.${sb}`, x3(), opts, params, ['default_axes', ...Object.keys(opts)]));
  }
  out.push(ln(dt, 'rank2_default_axes', T(dt, [3, 4], [1, 2, 3, 4, -2, 0, 2, 4, 0.5, 0.5, 0.5, 1.5]), undefined, {},
    ['default_axes']));
  // spec-notes #13: rank 1 (and rank 0) with default axes: the axes list is empty, nothing is reduced, so every
  // element is its own group: (x - x) / sqrt(0 + epsilon) = 0, scaled, plus the bias.
  out.push(ln(dt, 'rank1_default_axes_empty', T(dt, [5], [1, -2, 3.5, 100, 0]), undefined, {},
    ['default_axes', 'empty_axes']));
  out.push(ln(dt, 'rank1_default_axes_empty_scale_bias', T(dt, [4], [1, -2, 3.5, 100]), { scale: 's', bias: 'b' },
    { s: C(dt, [], [2]), b: C(dt, [], [-0.75]) }, ['default_axes', 'empty_axes', 'scale', 'bias']));
  out.push(ln(dt, 'rank0_default_axes_empty', T(dt, [], [3]), { bias: 'b' }, { b: C(dt, [], [1.5]) },
    ['default_axes', 'empty_axes', 'rank0', 'bias']));
  out.push(ln(dt, 'explicit_empty_axes_rank3', T(dt, [2, 1, 3], [1, 2, 3, 4, 5, 6]), { axes: [], scale: 's', bias: 'b' },
    { s: C(dt, [], [3]), b: C(dt, [], [0.5]) }, ['empty_axes', 'scale', 'bias']));
  out.push(ln(dt, 'explicit_empty_axes_no_bias', T(dt, [3], [1, -5, 7]), { axes: [] }, {}, ['empty_axes']));
  out.push(ln(dt, 'axes_0_rank2', T(dt, [3, 2], [1, 2, 3, 4, 5, 7]), { axes: [0], scale: 's' },
    { s: C(dt, [3], [1, -1, 2]) }, ['axes', 'scale']));
  out.push(ln(dt, 'axes_last_rank3', T(dt, [2, 2, 3], uniform(504, -2, 2)), { axes: [2], bias: 'b' },
    { b: C(dt, [3], [1, 2, 3]) }, ['axes', 'bias', 'generator']));
  // Unsorted axes: the scale's shape follows the order of axes ([shape[2], shape[1]] = [4, 3]).
  out.push(ln(dt, 'axes_unsorted_2_1', T(dt, [2, 3, 4], uniform(505, -2, 2)), { axes: [2, 1], scale: 's', bias: 'b' },
    { s: C(dt, [4, 3], uniform(506, -2, 2)), b: C(dt, [4, 3], uniform(507, -1, 1)) },
    ['axes', 'scale', 'bias', 'generator']));
  out.push(ln(dt, 'axes_non_contiguous_0_2', T(dt, [2, 3, 2], uniform(508, -2, 2)), { axes: [0, 2], scale: 's' },
    { s: C(dt, [2, 2], [1, 2, -1, 0.5]) }, ['axes', 'scale', 'generator']));
  out.push(ln(dt, 'axes_all_rank3', T(dt, [2, 2, 3], uniform(509, -2, 2)), { axes: [0, 1, 2] }, {},
    ['axes', 'generator']));
  out.push(ln(dt, 'axes_all_unsorted_rank3', T(dt, [2, 2, 3], uniform(510, -2, 2)), { axes: [2, 0, 1], bias: 'b' },
    { b: C(dt, [3, 2, 2], uniform(511, -1, 1)) }, ['axes', 'bias', 'generator']));
  out.push(ln(dt, 'axes_size1_dimension', T(dt, [2, 1, 3], [1, 2, 3, 4, 5, 6]), { axes: [1], bias: 'b' },
    { b: C(dt, [1], [0.5]) }, ['axes', 'bias']));
  out.push(ln(dt, 'rank5_axes_1_3', T(dt, [2, 2, 2, 2, 2], uniform(512, -4, 4)), { axes: [1, 3] }, {},
    ['axes', 'rank5', 'generator']));
  out.push(ln(dt, 'rank6_default_axes', T(dt, [2, 1, 2, 1, 2, 3], uniform(513, -4, 4)), undefined, {},
    ['default_axes', 'rank6', 'generator']));
  out.push(ln(dt, 'epsilon_custom', T(dt, [2, 4], [1, 2, 3, 4, 0, 0.5, 0, 0.5]), { epsilon: 0.1 }, {}, ['epsilon']));
  // The epsilon is cast to the input type first (float16: 1e-5 becomes 1.0013580322265625e-5).
  out.push(ln(dt, 'epsilon_dominates_small_variance', T(dt, [2, 2], f16 ? [1, 1.0009765625, 1, 1.001953125]
    : [1, 1.00000011920928955078125, 1, 1.000244140625]), undefined, {}, ['epsilon', 'option_cast']));
  out.push(ln(dt, 'epsilon_zero_constant_group_nan', T(dt, [2, 3], [2, 2, 2, 1, 2, 3]), { epsilon: 0 }, {},
    ['epsilon', 'special_values']));
  out.push(ln(dt, 'rounds_once', T(dt, [3, 5], uniform(514, -2, 2)), { scale: 's', bias: 'b' },
    { s: C(dt, [5], uniform(515, -2, 2)), b: C(dt, [5], uniform(516, -2, 2)) }, ['scale', 'bias', 'generator'],
    { roundsOnce: true }));
  // The variance exceeds the type's range; the exact result is about +-1.
  out.push(ln(dt, 'wide_intermediate', T(dt, [2, 2], f16 ? [-60000, 60000, 30000, -1000] : [-3e38, 3e38, 2e20, -1e20]),
    undefined, {}, ['wide_intermediate'], { roundsOnce: true }));
  out.push(ln(dt, 'special_values_per_group', T(dt, [3, 3], [1, SP[dt][0], 2, SP[dt][1], 0, 1, 1, 2, 4]), undefined, {},
    ['special_values']));
  out.push(ln(dt, 'special_scale_bias', T(dt, [2, 3], [1, 2, 3, 2, 2, 2]), { scale: 's', bias: 'b' },
    { s: C(dt, [3], ['Infinity', 'Infinity', 1]), b: C(dt, [3], [0, 0, '-Infinity']) },
    ['special_values', 'scale', 'bias']));
  out.push(ln(dt, 'random_large', T(dt, [2, 4, 4, 4], uniform(517, -10, 10)), { scale: 's', bias: 'b', epsilon: 1e-3 },
    { s: C(dt, [4, 4, 4], uniform(518, -2, 2)), b: C(dt, [4, 4, 4], uniform(519, -2, 2)) },
    ['default_axes', 'scale', 'bias', 'epsilon', 'generator']));
  if (!f16) {
    // Zero signs (README): x - mean = +0; t = scale * +0 is -0 for a negative scale; -0 + -0 = -0, and an absent
    // bias (assumed 0) gives +0.
    out.push(ln(dt, 'zero_signs', T(dt, [2, 2], [3, 3, 1, 1]), { scale: 's', bias: 'b' },
      { s: C(dt, [2], [-1, 1]), b: C(dt, [2], [-0, -0]) }, ['zero_sign', 'scale', 'bias']));
    out.push(ln(dt, 'zero_signs_no_bias', T(dt, [2, 2], [3, 3, 1, 1]), { scale: 's' },
      { s: C(dt, [2], [-1, 1]) }, ['zero_sign', 'scale']));
  }
  if (f16) {
    out.push(ln(dt, 'epsilon_cast_overflow', T(dt, [2, 2], [1, 3, -2, 2]), { epsilon: 1e6, bias: 'b' },
      { b: C(dt, [2], [0.5, -0.5]) }, ['epsilon', 'option_cast', 'bias']));
  }
  return out;
}

function layerNormErrors() {
  const f = 'float32';
  const e = (tag, dt, x, opts, params = {}) => opError({
    op: 'layerNormalization', name: `webnn.layerNormalization.${dt}.error.${tag}`, labels: ['layerNormalization', dt],
    inputs: { x, ...params }, args: [{ input: 'x' }, { options: opts }],
  });
  const x = () => T(f, [2, 3, 4], uniform(7, -1, 1));
  return [
    e('int32_input', 'int32', T('int32', [2, 3], [1, 2, 3, 4, 5, 6]), {}),
    e('uint8_input', 'uint8', T('uint8', [2, 3], [1, 2, 3, 4, 5, 6]), {}),
    e('axes_duplicate', f, x(), { axes: [1, 1] }),
    e('axes_out_of_range', f, x(), { axes: [1, 3] }),
    e('axes_negative', f, x(), { axes: [-1] }),
    e('scale_data_type_mismatch', f, x(), { scale: 's' }, { s: C('float16', [3, 4], uniform(8, -1, 1)) }),
    e('scale_rank_not_axes_size', f, x(), { scale: 's' }, { s: C(f, [12], uniform(9, -1, 1)) }),
    e('scale_rank_with_explicit_axes', f, x(), { axes: [2], scale: 's' }, { s: C(f, [3, 4], uniform(10, -1, 1)) }),
    e('scale_shape_mismatch', f, x(), { scale: 's' }, { s: C(f, [4, 3], uniform(11, -1, 1)) }),
    e('scale_shape_mismatch_unsorted_axes', f, x(), { axes: [2, 1], scale: 's' }, { s: C(f, [3, 4], uniform(12, -1, 1)) }),
    e('bias_data_type_mismatch', f, x(), { bias: 'b' }, { b: C('int32', [3, 4], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]) }),
    e('bias_rank_not_axes_size', f, x(), { axes: [1], bias: 'b' }, { b: C(f, [], [1]) }),
    e('bias_shape_mismatch', f, x(), { axes: [0], bias: 'b' }, { b: C(f, [3], [1, 2, 3]) }),
    e('scale_rank_for_empty_axes', 'float16', T('float16', [4], [1, 2, 3, 4]), { scale: 's' },
      { s: C('float16', [4], [1, 2, 3, 4]) }),
  ];
}

// ---------------------------------------------------------------------------------------------------------
// instanceNormalization

export function instanceNormValues(dt, x, opts, tensors, { stepwise = false } = {}) {
  const nhwc = opts.layout === 'nhwc';
  const eps = convertNumber(opts.epsilon ?? EPS_DEFAULT, dt);
  const scale = opts.scale && materialize(tensors[opts.scale]);
  const bias = opts.bias && materialize(tensors[opts.bias]);
  const axis = nhwc ? 3 : 1;
  const values = groupedNormalize(dt, x.shape, materialize(x), nhwc ? [1, 2] : [2, 3], (idx) => idx[axis],
    scale, bias, eps, stepwise);
  return { dtype: dt, shape: x.shape, values };
}

function inorm(dt, tag, x, opts, params = {}, extra = [], { roundsOnce = false } = {}) {
  const c = normCase('instanceNormalization', instanceNormValues, dt, tag, x, opts, params, extra, roundsOnce);
  const args = [{ input: 'x' }];
  if (opts !== undefined) args.push({ options: opts });
  return opCase({ op: 'instanceNormalization', name: c.name, labels: c.labels, inputs: c.inputs, args, out: c.out });
}

function instanceNormCases(dt) {
  const f16 = dt === 'float16';
  const out = [];
  out.push(inorm(dt, 'default_options', T(dt, [1, 2, 2, 2], [1, 2, 3, 4, -1, 0, 0.5, 4.5]), undefined, {},
    ['nchw']));
  let seed = 600;
  for (const layout of ['nchw', 'nhwc']) {
    const shape = layout === 'nchw' ? [2, 3, 2, 2] : [2, 2, 2, 3];
    for (const sb of ['no_scale_bias', 'scale', 'bias', 'scale_bias']) {
      seed += 4;
      const opts = { layout };
      const params = {};
      if (sb.includes('scale')) {
        opts.scale = 's';
        params.s = C(dt, [3], uniform(seed + 1, -2, 2));
      }
      if (sb.includes('bias')) {
        opts.bias = 'b';
        params.b = C(dt, [3], uniform(seed + 2, -2, 2));
      }
      out.push(inorm(dt, `${layout}.${sb}`, T(dt, shape, uniform(seed, -4, 4)), opts, params,
        [layout, ...(sb === 'no_scale_bias' ? [] : sb.split('_')), 'generator']));
    }
  }
  out.push(inorm(dt, 'nhwc_hand_values', T(dt, [1, 2, 2, 2], [1, 10, 2, 20, 3, 30, 4, 40]), { layout: 'nhwc' }, {},
    ['nhwc']));
  out.push(inorm(dt, 'epsilon_custom', T(dt, [1, 2, 1, 3], [1, 2, 3, 0, 0, 1]), { epsilon: 0.5 }, {}, ['epsilon', 'nchw']));
  out.push(inorm(dt, 'epsilon_cast_to_type', T(dt, [1, 1, 1, 2], f16 ? [1, 1.0009765625] : [1, 1.00000011920928955078125]),
    undefined, {}, ['epsilon', 'option_cast', 'nchw']));
  out.push(inorm(dt, 'epsilon_zero_constant_channel_nan', T(dt, [1, 2, 1, 2], [5, 5, 1, 3]), { epsilon: 0 }, {},
    ['epsilon', 'special_values', 'nchw']));
  out.push(inorm(dt, 'spatial_1x1', T(dt, [2, 3, 1, 1], [1, 2, 3, 4, 5, 6]), { scale: 's', bias: 'b' },
    { s: C(dt, [3], [2, 2, 2]), b: C(dt, [3], [1, -1, 0.5]) }, ['edge_size', 'scale', 'bias', 'nchw']));
  out.push(inorm(dt, 'rounds_once', T(dt, [1, 2, 2, 3], uniform(620, -3, 3)), { scale: 's', bias: 'b' },
    { s: C(dt, [2], [1.3, -0.7]), b: C(dt, [2], [0.1, 0.9]) }, ['scale', 'bias', 'nchw', 'generator'],
    { roundsOnce: true }));
  out.push(inorm(dt, 'wide_intermediate', T(dt, [1, 1, 2, 2], f16 ? [-60000, 60000, 30000, -1000]
    : [-3e38, 3e38, 2e20, -1e20]), undefined, {}, ['wide_intermediate', 'nchw'], { roundsOnce: true }));
  out.push(inorm(dt, 'special_values_per_channel', T(dt, [1, 3, 1, 2], [1, 'NaN', 'Infinity', 2, 3, 4]), undefined, {},
    ['special_values', 'nchw']));
  out.push(inorm(dt, 'random_large_nchw', T(dt, [2, 3, 5, 4], uniform(621, -10, 10)), { scale: 's', bias: 'b' },
    { s: C(dt, [3], [0.5, 1, 2]), b: C(dt, [3], [-1, 0, 1]) }, ['scale', 'bias', 'nchw', 'generator']));
  out.push(inorm(dt, 'random_large_nhwc', T(dt, [2, 4, 3, 5], uniform(622, -10, 10)),
    { layout: 'nhwc', epsilon: 1e-3, scale: 's' }, { s: C(dt, [5], uniform(623, -2, 2)) },
    ['scale', 'nhwc', 'epsilon', 'generator']));
  if (!f16) {
    out.push(inorm(dt, 'zero_signs', T(dt, [1, 2, 1, 2], [4, 4, 1, 1]), { scale: 's', bias: 'b' },
      { s: C(dt, [2], [-2, 2]), b: C(dt, [2], [-0, -0]) }, ['zero_sign', 'scale', 'bias', 'nchw']));
  }
  return out;
}

function instanceNormErrors() {
  const f = 'float32';
  const e = (tag, dt, x, opts, params = {}) => opError({
    op: 'instanceNormalization', name: `webnn.instanceNormalization.${dt}.error.${tag}`,
    labels: ['instanceNormalization', dt], inputs: { x, ...params },
    args: opts === undefined ? [{ input: 'x' }] : [{ input: 'x' }, { options: opts }],
  });
  const x = () => T(f, [1, 2, 3, 3], uniform(20, -1, 1)); // nchw C = 2, nhwc C = 3
  return [
    e('int32_input', 'int32', T('int32', [1, 2, 1, 1], [1, 2]), undefined),
    e('rank3_input', f, T(f, [2, 3, 3], uniform(21, -1, 1)), undefined),
    e('rank5_input', f, T(f, [1, 2, 1, 1, 2], [1, 2, 3, 4]), undefined),
    e('scale_data_type_mismatch', f, x(), { scale: 's' }, { s: C('float16', [2], [1, 2]) }),
    e('scale_shape_mismatch_nchw', f, x(), { scale: 's' }, { s: C(f, [3], [1, 2, 3]) }),
    e('scale_shape_mismatch_nhwc', f, x(), { layout: 'nhwc', scale: 's' }, { s: C(f, [2], [1, 2]) }),
    e('scale_rank2', f, x(), { scale: 's' }, { s: C(f, [1, 2], [1, 2]) }),
    e('bias_data_type_mismatch', 'float16', T('float16', [1, 2, 1, 2], [1, 2, 3, 4]), { bias: 'b' },
      { b: C('float32', [2], [1, 2]) }),
    e('bias_shape_mismatch', f, x(), { bias: 'b' }, { b: C(f, [1], [1]) }),
    e('invalid_layout', f, x(), { layout: 'nwhc' }),
  ];
}

// ---------------------------------------------------------------------------------------------------------
// batchNormalization

export function batchNormValues(dt, x, opts, tensors, { stepwise = false } = {}) {
  const axis = opts.axis ?? 1;
  const eps = convertNumber(opts.epsilon ?? EPS_DEFAULT, dt);
  const mean = materialize(tensors.mean);
  const variance = materialize(tensors.variance);
  const scale = opts.scale && materialize(tensors[opts.scale]);
  const bias = opts.bias && materialize(tensors[opts.bias]);
  const xs = materialize(x);
  const values = xs.map((v, f) => {
    const c = unravel(f, x.shape)[axis];
    const m = mean[c], va = variance[c];
    const s = scale ? scale[c] : undefined;
    const b = bias ? bias[c] : undefined;
    if (stepwise) {
      const d = sumOfProducts(dt, [[v], [-m]]);
      const den = roundTo(dt, Math.sqrt(roundTo(dt, va + eps)));
      let t = roundTo(dt, d / den);
      if (s !== undefined) t = roundTo(dt, s * t);
      return b === undefined ? t : roundTo(dt, t + b);
    }
    const V = finite(va, eps) ? ratAdd(R(va), R(eps)) : null;
    if (!finite(v, m, va, s, b, eps) || ratSign(V) <= 0) {
      // IEEE evaluation of the spec's formula; the result is NaN, an infinity, or the bias (or a zero).
      const t = (s ?? 1) * ((v - m) / Math.sqrt(va + eps));
      return roundTo(dt, addBias(t, b));
    }
    const d = ratSub(R(v), R(m));
    const dNeg = ratSign(d) < 0 || (ratSign(d) === 0 && Object.is(v, -0) && Object.is(m, 0));
    return roundNormalized(dt, d, dNeg, { n: V.d, d: V.n }, s, b); // R = 1 / V
  });
  return { dtype: dt, shape: x.shape, values };
}

function bn(dt, tag, x, mean, variance, opts, params = {}, extra = [], { roundsOnce = false } = {}) {
  const c = normCase('batchNormalization', batchNormValues, dt, tag, x, opts, { mean, variance, ...params }, extra,
    roundsOnce);
  const args = [{ input: 'x' }, { mean: 'mean' }, { variance: 'variance' }];
  if (opts !== undefined) args.push({ options: opts });
  return opCase({ op: 'batchNormalization', name: c.name, labels: c.labels, inputs: c.inputs, args, out: c.out });
}

function batchNormCases(dt) {
  const f16 = dt === 'float16';
  const out = [];
  const m3 = () => C(dt, [3], [0.5, -1, 2]);
  const v3 = () => C(dt, [3], [1, 0.25, 4]);
  out.push(bn(dt, 'nchw_default_options', T(dt, [1, 3, 1, 2], [1, 2, 0, -1, 3, 6]), m3(), v3(), undefined, {},
    ['default_axis']));
  let seed = 700;
  for (const axis of [1, 3]) {
    const shape = axis === 1 ? [2, 3, 2, 2] : [2, 2, 2, 3];
    for (const sb of ['no_scale_bias', 'scale', 'bias', 'scale_bias']) {
      seed += 5;
      const opts = axis === 1 ? {} : { axis };
      const params = {};
      if (sb.includes('scale')) {
        opts.scale = 's';
        params.s = C(dt, [3], uniform(seed + 1, -2, 2));
      }
      if (sb.includes('bias')) {
        opts.bias = 'b';
        params.b = C(dt, [3], uniform(seed + 2, -2, 2));
      }
      out.push(bn(dt, `axis${axis}.${sb}`, T(dt, shape, uniform(seed, -4, 4)), C(dt, [3], uniform(seed + 3, -1, 1)),
        C(dt, [3], uniform(seed + 4, 0.1, 3)), opts, params,
        [axis === 1 ? 'default_axis' : 'axis', ...(sb === 'no_scale_bias' ? [] : sb.split('_')), 'generator']));
    }
  }
  out.push(bn(dt, 'rank1_axis0', T(dt, [4], [1, 2, 3, 4]), C(dt, [4], [0, 1, 2, 3]), C(dt, [4], [1, 4, 0.25, 9]),
    { axis: 0 }, {}, ['axis', 'rank1']));
  out.push(bn(dt, 'rank2_axis0', T(dt, [2, 3], [1, 2, 3, 4, 5, 6]), C(dt, [2], [2, 5]), C(dt, [2], [1, 2]),
    { axis: 0, scale: 's', bias: 'b' }, { s: C(dt, [2], [2, -1]), b: C(dt, [2], [0.5, 0.25]) },
    ['axis', 'scale', 'bias']));
  out.push(bn(dt, 'rank2_default_axis1', T(dt, [2, 3], [1, 2, 3, 4, 5, 6]), m3(), v3(), {}, {}, ['default_axis']));
  out.push(bn(dt, 'rank3_axis2', T(dt, [2, 2, 3], uniform(760, -3, 3)), m3(), v3(), { axis: 2, epsilon: 0.01 }, {},
    ['axis', 'epsilon', 'generator']));
  out.push(bn(dt, 'rank5_axis1', T(dt, [1, 3, 2, 2, 2], uniform(761, -3, 3)), m3(), v3(), { bias: 'b' },
    { b: C(dt, [3], [1, 2, 3]) }, ['default_axis', 'rank5', 'bias', 'generator']));
  out.push(bn(dt, 'rank6_axis4', T(dt, [2, 1, 1, 2, 3, 1], uniform(762, -3, 3)), m3(), v3(), { axis: 4, scale: 's' },
    { s: C(dt, [3], [0.5, 1.5, -1]) }, ['axis', 'rank6', 'scale', 'generator']));
  out.push(bn(dt, 'epsilon_custom', T(dt, [1, 2, 1, 2], [1, 2, 3, 4]), C(dt, [2], [1.5, 3.5]), C(dt, [2], [0.25, 0.25]),
    { epsilon: 0.75 }, {}, ['epsilon']));
  // variance 0: the (cast) epsilon alone sets the scale; float16 casts 1e-5 to 1.0013580322265625e-5.
  out.push(bn(dt, 'epsilon_cast_to_type', T(dt, [1, 2, 1, 1], [1, -2]), C(dt, [2], [0, 0]), C(dt, [2], [0, 0]),
    undefined, {}, ['epsilon', 'option_cast']));
  out.push(bn(dt, 'epsilon_zero_variance_zero', T(dt, [1, 2, 1, 3], [1, 2, 3, 4, 5, 6]), C(dt, [2], [2, 5]),
    C(dt, [2], [0, 0]), { epsilon: 0 }, {}, ['epsilon', 'special_values']));
  out.push(bn(dt, 'negative_variance_nan', T(dt, [1, 2, 1, 2], [1, 2, 3, 4]), C(dt, [2], [0, 0]), C(dt, [2], [-1, 1]),
    {}, {}, ['special_values']));
  out.push(bn(dt, 'special_values', T(dt, [1, 3, 1, 3], ['NaN', 1, 2, 'Infinity', '-Infinity', 1, 1, 2, 3]),
    C(dt, [3], [0, 0, 'Infinity']), C(dt, [3], [1, 1, 1]), {}, {}, ['special_values']));
  out.push(bn(dt, 'special_variance_infinity', T(dt, [1, 2, 1, 2], [1, 2, 3, 4]), C(dt, [2], [0, 0]),
    C(dt, [2], ['Infinity', 1]), { bias: 'b', scale: 's' }, { s: C(dt, [2], [2, 'Infinity']), b: C(dt, [2], [0.5, 1]) },
    ['special_values', 'scale', 'bias']));
  out.push(bn(dt, 'rounds_once', T(dt, [2, 3, 2, 1], uniform(763, -3, 3)), C(dt, [3], [0.1, -0.3, 0.7]),
    C(dt, [3], [0.3, 1.7, 2.9]), { scale: 's', bias: 'b' }, { s: C(dt, [3], [1.3, -0.9, 0.6]), b: C(dt, [3], [0.2, 0.4, -0.6]) },
    ['scale', 'bias', 'generator'], { roundsOnce: true }));
  out.push(bn(dt, 'wide_intermediate', T(dt, [1, 2, 2, 1], f16 ? [60000, -60000, 1, 2] : [3e38, -3e38, 1, 2]),
    C(dt, [2], f16 ? [-60000, 0] : [-3e38, 0]), C(dt, [2], [4, 4]), {}, {}, ['wide_intermediate'], { roundsOnce: true }));
  out.push(bn(dt, 'random_large', T(dt, [2, 4, 3, 5], uniform(764, -10, 10)), C(dt, [4], uniform(765, -2, 2)),
    C(dt, [4], uniform(766, 0, 5)), { scale: 's', bias: 'b', epsilon: 1e-3 },
    { s: C(dt, [4], uniform(767, -2, 2)), b: C(dt, [4], uniform(768, -2, 2)) },
    ['scale', 'bias', 'epsilon', 'generator']));
  if (!f16) {
    // x - mean is +0 except (-0) - (+0) = -0; t = scale * d / sqrt(V); t + bias with IEEE signed zeros; an absent
    // bias (assumed 0) gives +0.
    out.push(bn(dt, 'zero_signs', T(dt, [1, 4], [1, 2, -0, 0]), C(dt, [4], [1, 2, 0, -0]), C(dt, [4], [1, 1, 1, 1]),
      { scale: 's', bias: 'b' }, { s: C(dt, [4], [-1, 1, 1, 1]), b: C(dt, [4], [-0, -0, -0, -0]) },
      ['zero_sign', 'scale', 'bias']));
    out.push(bn(dt, 'zero_signs_no_bias', T(dt, [1, 4], [1, 2, -0, 0]), C(dt, [4], [1, 2, 0, -0]),
      C(dt, [4], [1, 1, 1, 1]), { scale: 's' }, { s: C(dt, [4], [-1, 1, 1, 1]) }, ['zero_sign', 'scale']));
  }
  return out;
}

function batchNormErrors() {
  const f = 'float32';
  const e = (tag, dt, inputs, opts) => opError({
    op: 'batchNormalization', name: `webnn.batchNormalization.${dt}.error.${tag}`, labels: ['batchNormalization', dt],
    inputs, args: [{ input: 'x' }, { mean: 'mean' }, { variance: 'variance' },
      ...(opts === undefined ? [] : [{ options: opts }])],
  });
  const x = () => T(f, [1, 2, 2, 3], uniform(30, -1, 1)); // axis 1: 2 features, axis 3: 3
  const mv = (n = 2, dt = f) => ({ mean: C(dt, [n], new Array(n).fill(0)), variance: C(dt, [n], new Array(n).fill(1)) });
  return [
    e('int32_input', 'int32', { x: T('int32', [1, 2, 1, 1], [1, 2]), ...mv(2, 'int32') }, undefined),
    e('axis_out_of_range', f, { x: x(), ...mv(2) }, { axis: 4 }),
    e('axis_negative', f, { x: x(), ...mv(2) }, { axis: -1 }),
    e('rank1_default_axis', f, { x: T(f, [2], [1, 2]), ...mv(2) }, undefined),
    e('mean_data_type_mismatch', f, { x: x(), mean: C('float16', [2], [0, 0]), variance: C(f, [2], [1, 1]) }, undefined),
    e('mean_shape_mismatch', f, { x: x(), mean: C(f, [3], [0, 0, 0]), variance: C(f, [2], [1, 1]) }, undefined),
    e('mean_rank2', f, { x: x(), mean: C(f, [1, 2], [0, 0]), variance: C(f, [2], [1, 1]) }, undefined),
    e('variance_data_type_mismatch', f, { x: x(), mean: C(f, [2], [0, 0]), variance: C('int32', [2], [1, 1]) }, undefined),
    e('variance_shape_mismatch', f, { x: x(), ...mv(3) }, undefined),
    e('variance_shape_mismatch_axis3', f, { x: x(), mean: C(f, [3], [0, 0, 0]), variance: C(f, [2], [1, 1]) }, { axis: 3 }),
    e('scale_data_type_mismatch', f, { x: x(), ...mv(2), s: C('float16', [2], [1, 1]) }, { scale: 's' }),
    e('scale_shape_mismatch', f, { x: x(), ...mv(2), s: C(f, [3], [1, 1, 1]) }, { scale: 's' }),
    e('bias_data_type_mismatch', 'float16', { x: T('float16', [1, 2, 1, 1], [1, 2]), ...mv(2, 'float16'),
      b: C(f, [2], [1, 1]) }, { bias: 'b' }),
    e('bias_shape_mismatch', f, { x: x(), ...mv(2), b: C(f, [2, 1], [1, 1]) }, { bias: 'b' }),
  ];
}

export function normalizationFiles() {
  const layer = [], instance = [], batch = [];
  for (const dt of FLOAT_TYPES) {
    layer.push(...layerNormCases(dt));
    instance.push(...instanceNormCases(dt));
    batch.push(...batchNormCases(dt));
  }
  layer.push(...layerNormErrors());
  instance.push(...instanceNormErrors());
  batch.push(...batchNormErrors());
  return { layerNormalization: layer, instanceNormalization: instance, batchNormalization: batch };
}
