// Cases for resample2d (WebNN §api-mlgraphbuilder-resample2d-method).
//
// Output size per axis: sizes[i], or floor(inputSize * scales[i]) with scales[i] the IDL float (float32) value
// and the product taken exactly (spec-notes #9). Coordinates follow the mode description with
// scale = outputSize / inputSize, i.e. inputCoordinate = clamp(((2o + 1) * inputSize - outputSize) /
// (2 * outputSize), 0, inputSize - 1), held as an exact rational. nearest-neighbor: index
// ceil(inputCoordinate - 0.5). linear: the bilinear formula evaluated exactly (rational weights, BigInt) and
// rounded once; for uint8/int8 a non-integer exact result is implementation-defined (the spec gives no
// rounding for integer outputs; written rounded half to even) and appears only in cases so labelled.

import { roundHalfEvenDouble, isFloat } from './numerics.mjs';
import { T } from './casebuild.mjs';
import { uniform } from './common.mjs';
import { scaled, roundRational, SCALE } from './winexact.mjs';
import { materialize, elementCount, strides, seedOf, winCase, winError } from './winutil.mjs';
import { implDefined } from './ops.mjs';

const F32 = 'float32';
const F16 = 'float16';
const RESAMPLE_TYPES = [F32, F16, 'uint8', 'int8'];

// Output shape per the method steps (null when a step throws).
export function resampleShape(shape, o) {
  const scales = o.scales === undefined ? [1, 1] : o.scales.map(Math.fround);
  if (o.scales !== undefined && (o.scales.length !== 2 || scales.some((v) => v <= 0))) return null;
  if (o.sizes !== undefined && (o.sizes.length !== 2 || o.sizes.includes(0))) return null;
  const axes = o.axes ?? [2, 3];
  // The steps check duplicates and range only; a list whose length is not 2 is read as an error too.
  if (axes.length !== 2 || axes[0] === axes[1] || axes.some((a) => a < 0 || a >= shape.length)) return null;
  const out = [...shape];
  for (let i = 0; i < 2; i++) {
    const size = o.sizes !== undefined ? o.sizes[i] : Math.floor(shape[axes[i]] * scales[i]); // exact product
    if (!(size > 0)) return null;
    out[axes[i]] = size;
  }
  return { shape: out, axes };
}

// Source taps of one output coordinate: [[inputIndex, weightNumerator], ...] over a common denominator den.
function taps(mode, o, inSize, outSize) {
  // c = cn / cd = ((2o + 1) * in - out) / (2 * out), clamped to [0, in - 1].
  let cn = (2 * o + 1) * inSize - outSize;
  let cd = 2 * outSize;
  if (cn < 0) cn = 0;
  if (cn > (inSize - 1) * cd) cn = (inSize - 1) * cd;
  if (mode === 'nearest-neighbor') {
    // ceil(c - 0.5) = ceil((2 cn - cd) / (2 cd))
    const x = -Math.floor(-(2 * cn - cd) / (2 * cd));
    return { den: 1, list: [[x, 1]] };
  }
  const x0 = Math.floor(cn / cd);
  const x1 = -Math.floor(-cn / cd);
  const tn = cn - x0 * cd; // tx = tn / cd
  return { den: cd, list: [[x0, cd - tn], [x1, tn]] };
}

export function resampleRef(t, x, o) {
  const mode = o.mode ?? 'nearest-neighbor';
  const sh = resampleShape(x.shape, o);
  if (!sh) throw new Error('resampleRef: invalid options');
  const { shape: outShape, axes } = sh;
  const inSt = strides(x.shape);
  const n = elementCount(outShape);
  const values = [];
  let impl = 0;
  const idx = new Array(4).fill(0);
  for (let f = 0; f < n; f++) {
    let rem = f;
    for (let d = 3; d >= 0; d--) {
      idx[d] = rem % outShape[d];
      rem = (rem - idx[d]) / outShape[d];
    }
    let base = 0;
    for (let d = 0; d < 4; d++) if (d !== axes[0] && d !== axes[1]) base += idx[d] * inSt[d];
    const ta = taps(mode, idx[axes[0]], x.shape[axes[0]], outShape[axes[0]]);
    const tb = taps(mode, idx[axes[1]], x.shape[axes[1]], outShape[axes[1]]);
    if (mode === 'nearest-neighbor') {
      values.push(x.values[base + ta.list[0][0] * inSt[axes[0]] + tb.list[0][0] * inSt[axes[1]]]);
      continue;
    }
    let num = 0n;
    for (const [ia, wa] of ta.list) {
      for (const [ib, wb] of tb.list) {
        const v = x.values[base + ia * inSt[axes[0]] + ib * inSt[axes[1]]];
        if (isFloat(t) && !Number.isFinite(v)) throw new Error('resampleRef: linear mode with non-finite inputs');
        const w = BigInt(wa * wb);
        if (w !== 0n) num += (isFloat(t) ? scaled(v) : v) * w;
      }
    }
    const den = BigInt(ta.den * tb.den);
    if (isFloat(t)) {
      values.push(roundRational(num, den << SCALE, t));
    } else if (num % den === 0n) {
      values.push(num / den);
    } else {
      // Not an integer: round half to even (implementation-defined element).
      const q = num / den; // truncated toward zero
      const r = Number(num - q * den) / Number(den); // exact enough: |r| < 1 with small den
      const v = BigInt(roundHalfEvenDouble(Number(q) + r));
      values.push(implDefined(v));
    }
  }
  return {
    shape: outShape,
    values: values.map((v) => {
      if (v !== null && typeof v === 'object' && v.implDefined) {
        impl++;
        return v.v;
      }
      return v;
    }),
    implDefined: impl,
  };
}

// ---------------------------------------------------------------------------------------------------------

function rcase(t, tag, s, extraLabels = []) {
  const name = `webnn.resample2d.${t}.${tag}`;
  let data = s.x;
  if (data === undefined) {
    if (isFloat(t)) data = uniform(seedOf(name), -10, 10);
    else data = t === 'uint8' ? uniform(seedOf(name), 0, 255) : uniform(seedOf(name), -128, 127);
  }
  const x = T(t, s.shape, data);
  const o = s.options === 'omit' ? {} : { ...s.options };
  const args = [{ input: 'input' }];
  if (s.options !== 'omit') args.push({ options: o });
  const out = resampleRef(t, { shape: s.shape, values: materialize(x) }, o);
  const mode = o.mode ?? 'nearest-neighbor';
  const labels = ['resample2d', t, mode === 'linear' ? 'linear' : 'nearest', ...extraLabels];
  if (out.implDefined && !labels.includes('implementation_defined')) {
    throw new Error(`${name}: non-integer linear results in an integer case`);
  }
  return winCase({
    op: 'resample2d', name, labels, inputs: { input: x }, args,
    out: { dtype: t, shape: out.shape, values: out.values }, implDefined: out.implDefined,
  });
}

// Integer data for linear cases whose results are exact integers (multiples of the weights' denominator).
function multiples(t, count, step, seed) {
  const lo = t === 'uint8' ? 0 : -128;
  const hi = t === 'uint8' ? 255 : 127;
  const k0 = Math.ceil(lo / step);
  const k1 = Math.floor(hi / step);
  const out = [];
  let s = seed >>> 0;
  for (let i = 0; i < count; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out.push(BigInt((k0 + (s >>> 8) % (k1 - k0 + 1)) * step));
  }
  return out;
}

function modeCases(t, mode) {
  const out = [];
  const intT = !isFloat(t);
  const lin = mode === 'linear';
  const c = (tag, s, labels = []) => {
    const opts = s.options === 'omit' ? 'omit' : { mode, ...s.options };
    out.push(rcase(t, `${lin ? 'linear' : 'nearest'}_${tag}`, { ...s, options: opts }, labels));
  };
  // Integer linear data must give exact results: denominators (2 * outSize) per interpolated axis.
  const ix = (shape, step, seed) => (intT && lin ? multiples(t, elementCount(shape), step, seed) : undefined);
  c('upsample_scales_2', { shape: [1, 2, 3, 4], x: ix([1, 2, 3, 4], 16, 1), options: { scales: [2, 2] } }, ['scales']);
  c('downsample_scales_0_5', { shape: [1, 1, 4, 6], x: ix([1, 1, 4, 6], 4, 2), options: { scales: [0.5, 0.5] } },
    ['scales']);
  c('scales_1_5_and_0_5', { shape: [1, 2, 4, 6], x: ix([1, 2, 4, 6], 12, 3), options: { scales: [1.5, 0.5] } },
    ['scales']);
  c('scales_one_axis', { shape: [2, 1, 3, 2], x: ix([2, 1, 3, 2], 12, 4), options: { scales: [1, 3] } }, ['scales']);
  c('sizes_up_and_down', {
    shape: [1, 2, 3, 4], x: ix([1, 2, 3, 4], 30, 5), options: { sizes: [5, 3] },
  }, ['sizes']);
  c('sizes_one_axis_3_to_5', { shape: [1, 1, 2, 3], x: ix([1, 1, 2, 3], 10, 6), options: { sizes: [2, 5] } },
    ['sizes']);
  c('sizes_ignore_scales', {
    shape: [1, 1, 2, 3], x: ix([1, 1, 2, 3], 16, 7), options: { sizes: [4, 6], scales: [3, 0.5] },
  }, ['sizes', 'scales']);
  c('sizes_same_as_input', { shape: [1, 2, 2, 3], options: { sizes: [2, 3] } }, ['sizes', 'identity']);
  c('axes_1_2', { shape: [1, 3, 2, 2], x: ix([1, 3, 2, 2], 16, 8), options: { scales: [2, 2], axes: [1, 2] } },
    ['axes', 'scales']);
  c('axes_3_2_reversed', { shape: [1, 2, 3, 2], x: ix([1, 2, 3, 2], 40, 9), options: { sizes: [5, 2], axes: [3, 2] } },
    ['axes', 'sizes']);
  c('axes_0_1', { shape: [2, 3, 1, 2], x: ix([2, 3, 1, 2], 40, 10), options: { sizes: [4, 5], axes: [0, 1] } },
    ['axes', 'sizes']);
  c('axes_0_3', { shape: [2, 1, 2, 2], x: ix([2, 1, 2, 2], 24, 11), options: { scales: [2, 1.5], axes: [0, 3] } },
    ['axes', 'scales']);
  c('input_1x1_to_3x3', { shape: [1, 2, 1, 1], options: { sizes: [3, 3] } }, ['sizes']);
  c('to_1x1', { shape: [1, 1, 3, 5], x: ix([1, 1, 3, 5], 4, 12), options: { sizes: [1, 1] } }, ['sizes']);
  // spec-notes #9: output size floor(4 * 1.5) = 6 rows ... and floor(5 * 0.5) = 2 columns, whose coordinates
  // depend on the reading of "scale"; the data is constant along the width so that only the shape matters.
  const constW = intT && lin ? [18n, 18n, 18n, 18n, 18n, -48n, -48n, -48n, -48n, -48n, 36n, 36n, 36n, 36n, 36n, 0n, 0n,
    0n, 0n, 0n].map((v) => (t === 'uint8' ? (v < 0n ? 48n : v) : v))
    : [1, 1, 1, 1, 1, -3, -3, -3, -3, -3, 2, 2, 2, 2, 2, 0.5, 0.5, 0.5, 0.5, 0.5].map((v) => (intT ? BigInt(Math.round(v * 16 + 64)) : v));
  c('scales_output_size_floor', { shape: [1, 1, 4, 5], x: constW, options: { scales: [1.5, 0.5] } },
    ['scales', 'spec_notes_9']);
  if (lin && !intT) {
    c('larger_random', { shape: [1, 2, 8, 8], options: { sizes: [5, 11] } }, ['sizes', 'generator']);
    c('larger_random_upsample', { shape: [2, 1, 4, 8], options: { scales: [2.5, 1.75] } }, ['scales', 'generator']);
  } else if (!intT) {
    c('larger_random', { shape: [1, 2, 8, 8], options: { sizes: [5, 11] } }, ['sizes', 'generator']);
  }
  return out;
}

function floatExtras(t) {
  const out = [];
  const c = (tag, s, labels) => out.push(rcase(t, tag, s, labels));
  c('default_options', { shape: [1, 2, 2, 3], options: 'omit' }, ['nearest', 'defaults', 'identity']);
  c('empty_options', { shape: [1, 2, 2, 3], options: {} }, ['defaults', 'identity']);
  c('linear_scale_1', { shape: [1, 2, 2, 3], options: { mode: 'linear' } }, ['identity']);
  // Nearest copies elements exactly, special values included.
  c('nearest_special_values', {
    shape: [1, 1, 2, 3], x: [NaN, Infinity, -Infinity, -0, t === F16 ? 6e-8 : 1e-45, t === F16 ? 65504 : 3.4028235e38],
    options: { scales: [2, 2] },
  }, ['special_values']);
  // Ties: downsampling by 2 puts every coordinate at x.5 + 0.5 ... ceil(c - 0.5) picks the lower index.
  c('nearest_ties_pick_lower', { shape: [1, 1, 4, 4], x: [...Array(16).keys()], options: { scales: [0.5, 0.5] } },
    ['ties']);
  // scale = outputSize / inputSize: 3 -> 4 uses 4/3 (not a user scale); indices [0, 1, 1, 2].
  c('nearest_scale_from_output_size', { shape: [1, 1, 1, 3], x: [10, 20, 30], options: { sizes: [1, 4] } }, ['sizes']);
  c('linear_scale_from_output_size', { shape: [1, 1, 1, 3], x: [10, 20, 30], options: { mode: 'linear', sizes: [1, 4] } },
    ['sizes']);
  // scales are IDL floats: 0.7 is 0.699999988079071 and floor(10 * 0.699999988079071) = 6.
  c('scale_is_float32_floor_10x0_7', { shape: [1, 1, 10, 2], options: { scales: [0.7, 1] } },
    ['nearest', 'scales', 'spec_notes_9']);
  // Linear results that need rounding (and, for float16, values near the top of the range).
  c('linear_rounding', {
    shape: [1, 1, 2, 2], x: t === F16 ? [1, 1.0009765625, 65504, 65472] : [1, 1.0000001192092896, 3.4028234663852886e38, 3.4028232635611926e38],
    options: { mode: 'linear', sizes: [3, 5] },
  }, ['rounding']);
  return out;
}

function intExtras(t) {
  const out = [];
  const c = (tag, s, labels) => out.push(rcase(t, tag, s, labels));
  const lo = t === 'uint8' ? 0n : -128n;
  const hi = t === 'uint8' ? 255n : 127n;
  c('default_options', { shape: [1, 2, 2, 2], options: 'omit' }, ['nearest', 'defaults', 'identity']);
  c('nearest_extremes', { shape: [1, 1, 2, 2], x: [lo, hi, lo + 1n, hi - 1n], options: { scales: [2, 1.5] } },
    ['extremes']);
  c('linear_extremes_exact', { shape: [1, 1, 2, 2], x: [lo, hi, hi, lo], options: { mode: 'linear', sizes: [2, 2] } },
    ['extremes', 'identity']);
  // Linear results that are not integers: the spec gives no rounding rule for integer outputs.
  c('linear_fractional_results', {
    shape: [1, 1, 2, 3], x: t === 'uint8' ? [0n, 1n, 255n, 2n, 7n, 100n] : [-128n, 1n, 127n, -3n, 8n, -100n],
    options: { mode: 'linear', scales: [2, 2] },
  }, ['rounding', 'implementation_defined']);
  return out;
}

function errors() {
  const out = [];
  const e = (tag, input, opts, labels = [F32]) => {
    const args = [{ input: 'input' }];
    if (opts) args.push({ options: opts });
    const c = winError({ op: 'resample2d', name: `webnn.resample2d.error.${tag}`, labels: ['resample2d', ...labels],
      inputs: { input }, args });
    const okType = RESAMPLE_TYPES.includes(input.dtype) && input.shape.length === 4;
    if (okType && resampleShape(input.shape, opts ?? {})) throw new Error(`${c.name}: not an error`);
    out.push(c);
  };
  const x = T(F32, [1, 1, 4, 4], 1);
  e('input_int32', T('int32', [1, 1, 2, 2], 1), null, ['int32']);
  e('input_uint32', T('uint32', [1, 1, 2, 2], 1), { scales: [2, 2] }, ['uint32']);
  e('input_int64', T('int64', [1, 1, 2, 2], 1), null, ['int64']);
  e('input_uint64', T('uint64', [1, 1, 2, 2], 1), null, ['uint64']);
  e('input_rank_3', T(F32, [1, 4, 4], 1), null);
  e('input_rank_5', T(F32, [1, 1, 1, 4, 4], 1), { axes: [3, 4] });
  e('scales_zero', x, { scales: [0, 2] });
  e('scales_negative', x, { scales: [2, -1] });
  e('scales_size_1', x, { scales: [2] });
  e('scales_size_3', x, { scales: [2, 2, 2] });
  e('scales_invalid_with_sizes', x, { sizes: [8, 8], scales: [0, 1] });
  e('sizes_size_1', x, { sizes: [8] });
  e('sizes_zero', x, { sizes: [8, 0] });
  e('axes_duplicate', x, { axes: [2, 2] });
  e('axes_out_of_range', x, { axes: [2, 4] });
  e('axes_size_1', x, { axes: [2] }, [F32, 'axes_size']);
  e('axes_size_3', x, { axes: [1, 2, 3] }, [F32, 'axes_size']);
  e('output_size_zero_from_scales', x, { scales: [0.2, 1] });
  e('output_size_zero_from_scales_uint8', T('uint8', [1, 1, 3, 2], 1), { scales: [1, 0.4], mode: 'linear' }, ['uint8']);
  e('scales_zero_float16', T(F16, [1, 1, 2, 2], 1), { scales: [0, 0] }, [F16]);
  return out;
}

export function resampleFiles() {
  const cases = [];
  for (const t of RESAMPLE_TYPES) {
    cases.push(...(isFloat(t) ? floatExtras(t) : intExtras(t)));
    for (const mode of ['nearest-neighbor', 'linear']) cases.push(...modeCases(t, mode));
  }
  cases.push(...errors());
  return { resample2d: cases };
}
