// Cases for quantizeLinear and dequantizeLinear (WebNN §api-mlgraphbuilder-quantizelinear,
// §api-mlgraphbuilder-dequantizelinear).
//
// quantizeLinear: saturate(roundHalfEven(x / scale) + zeroPoint) to the zero point's type (spec-notes #14),
//   with x / scale the exact rational quotient (no rounding to the float type first) and integer addition.
// dequantizeLinear: (x - zeroPoint) * scale, the exact integer difference times the scale rounded once to the
//   scale's type.
// scale and zeroPoint are blockwise broadcast: each scale element covers a block of input.shape[i] /
// scale.shape[i] elements along every axis i. See README.md.

import { FLOAT_TYPES, intRange, bigintToFloat, roundTo, roundHalfEvenDouble } from './numerics.mjs';
import { implDefined } from './ops.mjs';
import { ratFromDouble as R, ratDiv, ratInt, ratMul, ratRoundHalfEven, roundRat } from './ratexact.mjs';
import { T, C, opCase, opError, materialize, unravel, ravel, assertDiffers } from './familyutil.mjs';
import { uniform } from './common.mjs';

const Q_OUT = ['uint8', 'int8', 'uint32', 'int32'];

// Flat index of the scale/zero point element that covers input element f.
function blockIndex(f, inShape, pShape) {
  const idx = unravel(f, inShape);
  return ravel(idx.map((v, i) => Math.floor(v / (inShape[i] / pShape[i]))), pShape);
}

function checkBlockwise(inShape, pShape) {
  if (inShape.length !== pShape.length || inShape.some((d, i) => d % pShape[i] !== 0)) {
    throw new Error(`not blockwise broadcastable: [${pShape}] to [${inShape}]`);
  }
}

function clampInt(t, v) {
  const [lo, hi] = intRange(t);
  return v < lo ? lo : v > hi ? hi : v;
}

// ---------------------------------------------------------------------------------------------------------
// quantizeLinear

export function quantizeElement(zt, x, s, zp) {
  if (!(s > 0) || !Number.isFinite(s)) throw new Error(`quantize: scale ${s} must be positive and finite`);
  const [lo, hi] = intRange(zt);
  if (Number.isNaN(x)) return implDefined(clampInt(zt, 0n)); // roundEven(NaN) + zp: the spec gives no integer
  if (x === Infinity) return hi;
  if (x === -Infinity) return lo;
  return clampInt(zt, ratRoundHalfEven(ratDiv(R(x), R(s))) + zp);
}

// The emulation in the spec's note, each builder op rounded to the float type (clamp to the zero point
// type's range, spec-notes #14).
function quantizeStepwise(dt, zt, x, s, zp) {
  const [lo, hi] = intRange(zt);
  const q = roundHalfEvenDouble(roundTo(dt, x / s));
  const a = roundTo(dt, q + bigintToFloat(zp, dt));
  if (Number.isNaN(a)) return 0n;
  if (a <= Number(lo)) return lo;
  if (a >= Number(hi)) return hi;
  return BigInt(a);
}

function quantizeValues(dt, zt, x, scale, zp, stepwise = false) {
  checkBlockwise(x.shape, scale.shape);
  const xs = materialize(x), ss = materialize(scale), zs = materialize(zp);
  const values = [];
  let impl = 0;
  xs.forEach((v, f) => {
    const p = blockIndex(f, x.shape, scale.shape);
    let r = stepwise ? quantizeStepwise(dt, zt, v, ss[p], zs[p]) : quantizeElement(zt, v, ss[p], zs[p]);
    if (typeof r === 'object') {
      impl++;
      r = r.v;
    }
    values.push(r);
  });
  return { out: { dtype: zt, shape: x.shape, values }, impl };
}

// roundsOnce: the exact values differ from the stepwise emulation's (asserted). emulation: write the
// emulation's values instead; the reference accepts either where the two differ only through the rounding
// of the quotient (one-of latitude, docs/deviations.md "quantizeLinear rounding").
function qCase(dt, zt, tag, x, scale, zp, extra = [], { roundsOnce = false, emulation = false } = {}) {
  const name = `webnn.quantizeLinear.${dt}_to_${zt}.${tag}`;
  const exact = quantizeValues(dt, zt, x, scale, zp);
  const stepwise = quantizeValues(dt, zt, x, scale, zp, true);
  const { out, impl } = emulation ? stepwise : exact;
  const labels = ['quantizeLinear', dt, zt, ...extra];
  if (roundsOnce || emulation) {
    assertDiffers(name, exact.out.values, stepwise.out.values);
    labels.push(emulation ? 'emulation_accepted' : 'rounds_once');
  }
  if (impl) labels.push('implementation_defined');
  return opCase({
    op: 'quantizeLinear', name, labels, inputs: { x, scale, zeroPoint: zp }, implDefined: impl,
    args: [{ input: 'x' }, { scale: 'scale' }, { zeroPoint: 'zeroPoint' }], out,
  });
}

// Zero points per output type: [typical, second, edge].
const ZP = {
  uint8: [128n, 3n, 250n],
  int8: [0n, -3n, -120n],
  uint32: [1000n, 7n, 4294967290n],
  int32: [-1000n, 5n, -2147483640n],
};

function quantizeCases(dt, zt) {
  const f16 = dt === 'float16';
  const [lo, hi] = intRange(zt);
  const [z0, z1, zEdge] = ZP[zt];
  const out = [];
  const q = (...a) => out.push(qCase(dt, zt, ...a));
  q('per_tensor', T(dt, [2, 3], [-10, -1.5, 0, 0.4, 2.6, 100]), C(dt, [1, 1], [0.5]), C(zt, [1, 1], [z0]),
    ['per_tensor']);
  q('per_axis', T(dt, [2, 3, 2], [1, -1, 2.5, 3, -4, 7.75, 0.3, -0.3, 10, 20, -60, 61]), C(dt, [1, 3, 1], [0.25, 1, 4]),
    C(zt, [1, 3, 1], [z0, z1, z0]), ['per_axis']);
  q('per_axis_last', T(dt, [3, 4], uniform(801, -30, 30)), C(dt, [1, 4], [0.5, 1, 2, 0.125]),
    C(zt, [1, 4], [z1, z0, z1, z0]), ['per_axis', 'generator']);
  q('blockwise', T(dt, [4, 6], uniform(802, -40, 40)), C(dt, [2, 2], [0.5, 1, 2, 0.25]), C(zt, [2, 2], [z0, z1, z1, z0]),
    ['blockwise', 'generator']);
  q('blockwise_elementwise', T(dt, [2, 3], [1, 2, 3, 4, 5, 6]), C(dt, [2, 3], [0.5, 1, 2, 4, 0.25, 3]),
    C(zt, [2, 3], [z0, z1, z0, z1, z0, z1]), ['blockwise']);
  q('blockwise_rank5', T(dt, [2, 2, 2, 2, 4], uniform(803, -50, 50)), C(dt, [1, 2, 1, 1, 2], [0.5, 1.5, 2, 0.75]),
    C(zt, [1, 2, 1, 1, 2], [z0, z1, z1, z0]), ['blockwise', 'rank5', 'generator']);
  q('rank0', T(dt, [], [7.3]), C(dt, [], [2]), C(zt, [], [z1]), ['rank0']);
  q('rank1_per_tensor', T(dt, [5], [-2, -1, 0, 1, 2]), C(dt, [1], [0.3]), C(zt, [1], [z1]), ['per_tensor']);
  // Exact ties x / scale = k + 0.5 round to even; -0.5 rounds to (-)0.
  q('ties_to_even', T(dt, [10], [-3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 4.5, -0]), C(dt, [1], [1]),
    C(zt, [1], [z0]), ['ties']);
  q('ties_to_even_scaled', T(dt, [6], [0.75, 1.25, 1.75, -0.75, -1.25, -1.75]), C(dt, [1], [0.5]), C(zt, [1], [z1]),
    ['ties']);
  // Saturation at both ends of the zero point's type, and +-Infinity.
  const big = f16 ? 65504 : 3e38;
  q('saturation', T(dt, [8], [big, -big, 'Infinity', '-Infinity', 300, -300, 1000, -1000]), C(dt, [1], [1]),
    C(zt, [1], [z0]), ['saturation', 'special_values']);
  q('saturation_edge_zero_point', T(dt, [6], [10, -10, 1, -1, 0, 20]), C(dt, [1], [1]), C(zt, [1], [zEdge]),
    ['saturation']);
  q('zero_point_extremes', T(dt, [2, 3], [0, 1, -1, 0, 1, -1]), C(dt, [2, 1], [1, 1]), C(zt, [2, 1], [lo, hi]),
    ['saturation']);
  // A tiny scale: x / scale far beyond every integer type (and beyond the float type's range).
  q('tiny_scale', T(dt, [4], [1, -1, 0.5, 0]), C(dt, [1], [f16 ? 6e-8 : 1e-45]), C(zt, [1], [z1]),
    ['saturation', 'subnormal']);
  q('subnormal_input', T(dt, [4], f16 ? [6e-8, -6e-8, 6.1e-5, -3e-5] : [1e-45, -1e-45, 1.1754942e-38, -1e-40]),
    C(dt, [1], [f16 ? 6e-5 : 1e-38]), C(zt, [1], [z1]), ['subnormal']);
  return out;
}

function quantizeSpecial(dt) {
  const f16 = dt === 'float16';
  const out = [];
  out.push(qCase(dt, 'uint8', 'nan_input', T(dt, [3], ['NaN', 1, 2]), C(dt, [1], [1]), C('uint8', [1], [10n]),
    ['special_values']));
  // x / scale rounded to the float type lands on a tie (k + 0.5) that the exact quotient is not.
  out.push(qCase(dt, 'int8', 'rounds_once_division', T(dt, [4], f16 ? [1.25, -1.25, -2.25, 1.849609375]
    : [1.75, -1.75, -2.450000047683716, -0.8500000238418579]), C(dt, [1], [0.1]), C('int8', [1], [0n]), [],
  { roundsOnce: true }));
  // The same inputs with the emulation's results (its div rounds the quotient onto k + 0.5, then roundEven):
  // accepted as well.
  out.push(qCase(dt, 'int8', 'rounds_once_division_emulation', T(dt, [4], f16 ? [1.25, -1.25, -2.25, 1.849609375]
    : [1.75, -1.75, -2.450000047683716, -0.8500000238418579]), C(dt, [1], [0.1]), C('int8', [1], [0n]), [],
  { emulation: true }));
  // The zero point is not representable in the float type: the exact sum differs from the emulation's.
  out.push(qCase(dt, 'int32', 'rounds_once_zero_point', T(dt, [3], [0, 1, -1]), C(dt, [1], [1]),
    C('int32', [1], [f16 ? 3001n : 16777217n]), [], { roundsOnce: true }));
  out.push(qCase(dt, 'uint32', 'rounds_once_zero_point', T(dt, [3], [0, 3, 1000]), C(dt, [1], [1]),
    C('uint32', [1], [f16 ? 4097n : 4294967041n]), [], { roundsOnce: true }));
  return out;
}

function quantizeErrors() {
  const f = 'float32';
  const e = (tag, inputs) => opError({
    op: 'quantizeLinear', name: `webnn.quantizeLinear.${inputs.x.dtype}.error.${tag}`,
    labels: ['quantizeLinear', inputs.x.dtype], inputs,
    args: [{ input: 'x' }, { scale: 'scale' }, { zeroPoint: 'zeroPoint' }],
  });
  const x = () => T(f, [2, 4], [1, 2, 3, 4, 5, 6, 7, 8]);
  return [
    e('int32_input', { x: T('int32', [2], [1, 2]), scale: C('int32', [1], [1]), zeroPoint: C('uint8', [1], [0]) }),
    e('int32_input_float_scale', { x: T('int32', [2], [1, 2]), scale: C(f, [1], [1]), zeroPoint: C('uint8', [1], [0]) }),
    e('scale_data_type_mismatch', { x: T('float16', [2], [1, 2]), scale: C(f, [1], [1]), zeroPoint: C('uint8', [1], [0]) }),
    e('scale_int8', { x: x(), scale: C('int8', [1, 1], [1]), zeroPoint: C('int8', [1, 1], [0]) }),
    e('zero_point_float32', { x: x(), scale: C(f, [1, 1], [1]), zeroPoint: C(f, [1, 1], [0]) }),
    e('zero_point_int64', { x: x(), scale: C(f, [1, 1], [1]), zeroPoint: C('int64', [1, 1], [0]) }),
    e('zero_point_uint64', { x: x(), scale: C(f, [1, 1], [1]), zeroPoint: C('uint64', [1, 1], [0]) }),
    e('scale_rank_mismatch', { x: x(), scale: C(f, [4], [1, 1, 1, 1]), zeroPoint: C('uint8', [1, 4], [0, 0, 0, 0]) }),
    e('scale_rank0_for_rank2_input', { x: x(), scale: C(f, [], [1]), zeroPoint: C('uint8', [], [0]) }),
    e('zero_point_rank_mismatch', { x: x(), scale: C(f, [1, 4], [1, 1, 1, 1]), zeroPoint: C('uint8', [4], [0, 0, 0, 0]) }),
    e('scale_zero_point_shape_mismatch', { x: x(), scale: C(f, [1, 4], [1, 1, 1, 1]),
      zeroPoint: C('uint8', [2, 1], [0, 0]) }),
    e('not_blockwise_broadcastable', { x: x(), scale: C(f, [1, 3], [1, 1, 1]), zeroPoint: C('uint8', [1, 3], [0, 0, 0]) }),
    e('scale_larger_than_input', { x: x(), scale: C(f, [2, 8], new Array(16).fill(1)),
      zeroPoint: C('uint8', [2, 8], new Array(16).fill(0)) }),
  ];
}

// ---------------------------------------------------------------------------------------------------------
// dequantizeLinear

function dequantizeValues(it, dt, x, scale, zp, stepwise = false) {
  checkBlockwise(x.shape, scale.shape);
  const xs = materialize(x), ss = materialize(scale), zs = materialize(zp);
  const values = xs.map((v, f) => {
    const p = blockIndex(f, x.shape, scale.shape);
    const s = ss[p];
    if (!(s > 0) || !Number.isFinite(s)) throw new Error(`dequantize: scale ${s} must be positive and finite`);
    if (stepwise) {
      const d = roundTo(dt, bigintToFloat(v, dt) - bigintToFloat(zs[p], dt));
      return roundTo(dt, d * s);
    }
    return roundRat(ratMul(ratInt(v - zs[p]), R(s)), dt); // exact zero: +0 * positive scale = +0
  });
  return { dtype: dt, shape: x.shape, values };
}

function dqCase(it, dt, tag, x, scale, zp, extra = [], { roundsOnce = false } = {}) {
  const name = `webnn.dequantizeLinear.${it}_to_${dt}.${tag}`;
  const out = dequantizeValues(it, dt, x, scale, zp);
  const labels = ['dequantizeLinear', it, dt, ...extra];
  if (roundsOnce) {
    assertDiffers(name, out.values, dequantizeValues(it, dt, x, scale, zp, true).values);
    labels.push('rounds_once');
  }
  return opCase({
    op: 'dequantizeLinear', name, labels, inputs: { x, scale, zeroPoint: zp },
    args: [{ input: 'x' }, { scale: 'scale' }, { zeroPoint: 'zeroPoint' }], out,
  });
}

const DQ_IN = ['uint8', 'int8', 'uint32', 'int32'];
const SAMPLE = {
  uint8: [0n, 1n, 127n, 128n, 200n, 255n],
  int8: [-128n, -1n, 0n, 1n, 64n, 127n],
  uint32: [0n, 1n, 1000n, 65536n, 3000000000n, 4294967295n],
  int32: [-2147483648n, -70000n, -1n, 0n, 123456n, 2147483647n],
};
const RAND = { uint8: [0, 255], int8: [-128, 127], uint32: [0, 100000], int32: [-100000, 100000] };

function dequantizeCases(it, dt) {
  const f16 = dt === 'float16';
  const [z0, z1] = ZP[it];
  const out = [];
  const d = (...a) => out.push(dqCase(it, dt, ...a));
  const [rl, rh] = RAND[it];
  d('per_tensor', T(it, [2, 3], SAMPLE[it]), C(dt, [1, 1], [0.5]), C(it, [1, 1], [z0]), ['per_tensor']);
  d('per_axis', T(it, [2, 3, 2], uniform(901, rl, rh)), C(dt, [1, 3, 1], [0.25, 1, 4]), C(it, [1, 3, 1], [z0, z1, z0]),
    ['per_axis', 'generator']);
  d('per_axis_rank4', T(it, [2, 3, 2, 2], uniform(902, rl, rh)), C(dt, [1, 3, 1, 1], [0.125, 0.5, 2]),
    C(it, [1, 3, 1, 1], [z1, z0, z1]), ['per_axis', 'generator']);
  d('blockwise', T(it, [4, 6], uniform(903, rl, rh)), C(dt, [2, 2], [0.5, 1, 2, 0.25]), C(it, [2, 2], [z0, z1, z1, z0]),
    ['blockwise', 'generator']);
  d('blockwise_elementwise', C(it, [2, 3], SAMPLE[it]), C(dt, [2, 3], [0.5, 1, 2, 4, 0.25, 3]),
    C(it, [2, 3], [z0, z1, z0, z1, z0, z1]), ['blockwise']);
  d('rank0', T(it, [], [SAMPLE[it][4]]), C(dt, [], [0.75]), C(it, [], [z1]), ['rank0']);
  // A scale that is not representable (cast when read) and products that need rounding.
  d('rounding', T(it, [6], SAMPLE[it]), C(dt, [1], [0.1]), C(it, [1], [z1]), ['rounding']);
  // Type extremes with scale 1 and extreme zero points: exact differences up to 2^32 - 1.
  const [lo, hi] = intRange(it);
  d('extremes', T(it, [2, 3], [lo, hi, lo, hi, 0n, 0n]), C(dt, [2, 1], [1, 1]),
    C(it, [2, 1], [lo, hi]), ['extremes']);
  d('large_scale_overflow', T(it, [3], [lo, hi, z1]), C(dt, [1], [f16 ? 60000 : 3e38]), C(it, [1], [z1]), ['overflow']);
  d('subnormal_scale', T(it, [3], [SAMPLE[it][1], SAMPLE[it][2], SAMPLE[it][5]]), C(dt, [1], [f16 ? 6e-8 : 1e-45]),
    C(it, [1], [0n]), ['subnormal']);
  return out;
}

function dequantizeSpecial() {
  const out = [];
  // Integer inputs not representable in the float type: the exact difference is representable, the emulation
  // (cast, then subtract) rounds first.
  out.push(dqCase('int32', 'float32', 'rounds_once_large_values', T('int32', [3], [16777217n, -16777219n, 2147483647n]),
    C('float32', [1], [1]), C('int32', [1], [2n]), [], { roundsOnce: true }));
  out.push(dqCase('uint32', 'float32', 'rounds_once_large_values', T('uint32', [3], [16777217n, 4294967295n, 3n]),
    C('float32', [1], [1]), C('uint32', [1], [3n]), [], { roundsOnce: true }));
  out.push(dqCase('int32', 'float16', 'rounds_once_large_values', T('int32', [3], [4097n, -2051n, 70000n]),
    C('float16', [1], [1]), C('int32', [1], [2n]), [], { roundsOnce: true }));
  out.push(dqCase('uint32', 'float16', 'rounds_once_large_values', T('uint32', [2], [65537n, 100001n]),
    C('float16', [1], [0.5]), C('uint32', [1], [70000n]), [], { roundsOnce: true }));
  return out;
}

function dequantizeErrors() {
  const e = (tag, inputs) => opError({
    op: 'dequantizeLinear', name: `webnn.dequantizeLinear.${inputs.x.dtype}.error.${tag}`,
    labels: ['dequantizeLinear', inputs.x.dtype], inputs,
    args: [{ input: 'x' }, { scale: 'scale' }, { zeroPoint: 'zeroPoint' }],
  });
  const f = 'float32', u = 'uint8';
  const x = () => T(u, [2, 4], [1, 2, 3, 4, 5, 6, 7, 8]);
  return [
    e('float32_input', { x: T(f, [2], [1, 2]), scale: C(f, [1], [1]), zeroPoint: C(f, [1], [0]) }),
    e('int64_input', { x: T('int64', [2], [1, 2]), scale: C(f, [1], [1]), zeroPoint: C('int64', [1], [0]) }),
    e('uint64_input', { x: T('uint64', [2], [1, 2]), scale: C(f, [1], [1]), zeroPoint: C('uint64', [1], [0]) }),
    e('scale_int32', { x: x(), scale: C('int32', [1, 1], [1]), zeroPoint: C(u, [1, 1], [0]) }),
    e('scale_uint8', { x: x(), scale: C(u, [1, 1], [1]), zeroPoint: C(u, [1, 1], [0]) }),
    e('zero_point_type_mismatch', { x: x(), scale: C(f, [1, 1], [1]), zeroPoint: C('int8', [1, 1], [0]) }),
    e('zero_point_float', { x: T('int8', [2], [1, 2]), scale: C(f, [1], [1]), zeroPoint: C(f, [1], [0]) }),
    e('scale_rank_mismatch', { x: x(), scale: C(f, [4], [1, 1, 1, 1]), zeroPoint: C(u, [1, 4], [0, 0, 0, 0]) }),
    e('zero_point_rank_mismatch', { x: x(), scale: C(f, [1, 4], [1, 1, 1, 1]), zeroPoint: C(u, [1, 1, 4], [0, 0, 0, 0]) }),
    e('scale_zero_point_shape_mismatch', { x: x(), scale: C(f, [2, 1], [1, 1]), zeroPoint: C(u, [1, 2], [0, 0]) }),
    e('not_blockwise_broadcastable', { x: x(), scale: C(f, [1, 3], [1, 1, 1]), zeroPoint: C(u, [1, 3], [0, 0, 0]) }),
    e('scale_larger_than_input', { x: x(), scale: C(f, [4, 4], new Array(16).fill(1)),
      zeroPoint: C(u, [4, 4], new Array(16).fill(0)) }),
  ];
}

export function quantizationFiles() {
  const quantizeLinear = [];
  const dequantizeLinear = [];
  for (const dt of FLOAT_TYPES) {
    for (const zt of Q_OUT) quantizeLinear.push(...quantizeCases(dt, zt));
    quantizeLinear.push(...quantizeSpecial(dt));
  }
  quantizeLinear.push(...quantizeErrors());
  for (const it of DQ_IN) for (const dt of FLOAT_TYPES) dequantizeLinear.push(...dequantizeCases(it, dt));
  dequantizeLinear.push(...dequantizeSpecial());
  dequantizeLinear.push(...dequantizeErrors());
  return { quantizeLinear, dequantizeLinear };
}
