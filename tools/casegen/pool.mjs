// Cases for averagePool2d, l2Pool2d and maxPool2d (WebNN §api-mlgraphbuilder-pool2d).
//
// Output shape: the spec's "create a pooling operation" steps as written (spec-notes #4: outputSizes resets
// padding to zero, must be smaller than the strides, and must equal the floor or the ceiling of both
// calculated sizes). Padded positions and positions past the end of the input (ceil rounding) are not
// elements (spec-notes #3): average divides the exact sum by the number of real elements in the window, l2
// is the square root of the exact sum of squares of the real elements, max takes the largest real element.
// Every case is built so that each window holds at least one real element. Sums are exact (BigInt,
// winexact.mjs) and rounded once; l2 is a correctly rounded square root of the exact sum. maxPool2d on
// integers is exact BigInt comparison.

import { DTYPES, FLOAT_TYPES, isFloat, intRange } from './numerics.mjs';
import { T } from './casebuild.mjs';
import { uniform, randRange } from './common.mjs';
import { ExactSum, roundSqrtRational, scaled, SCALE } from './winexact.mjs';
import { permute, layoutTensor, INPUT_LAYOUT, seedOf, winCase, winError } from './winutil.mjs';

const F32 = 'float32';
const F16 = 'float16';
export const POOL_OPS = ['averagePool2d', 'l2Pool2d', 'maxPool2d'];

// The calculated output size as an exact rational num/den (the spec's "calculate conv output size").
function calcSize(inSize, k, pb, pe, s, d) {
  const eff = (k - 1) * d + 1;
  return { num: inSize - eff + pb + pe + s, den: s }; // (in - eff + pb + pe) / s + 1
}
const floorR = (r) => Math.floor(r.num / r.den);
const ceilR = (r) => -Math.floor(-r.num / r.den);

// Output spatial sizes and effective padding per the steps; returns {error} when a step throws.
export function poolShape(H, W, o) {
  const win = o.windowDimensions ?? [H, W];
  if (win.length !== 2 || win.includes(0)) return { error: 'windowDimensions' };
  let padding = o.padding ?? [0, 0, 0, 0];
  if (o.outputSizes !== undefined) padding = [0, 0, 0, 0];
  if (padding.length !== 4) return { error: 'padding' };
  const strides = o.strides ?? [1, 1];
  if (strides.length !== 2 || strides.includes(0)) return { error: 'strides' };
  if (o.outputSizes !== undefined) {
    if (o.outputSizes.length !== 2) return { error: 'outputSizes size' };
    if (!(o.outputSizes[0] < strides[0] && o.outputSizes[1] < strides[1])) return { error: 'outputSizes >= strides' };
  }
  const dilations = o.dilations ?? [1, 1];
  if (dilations.length !== 2 || dilations.includes(0)) return { error: 'dilations' };
  const ch = calcSize(H, win[0], padding[0], padding[1], strides[0], dilations[0]);
  const cw = calcSize(W, win[1], padding[2], padding[3], strides[1], dilations[1]);
  let OH, OW;
  if (o.outputSizes !== undefined) {
    [OH, OW] = o.outputSizes;
    const fl = OH === floorR(ch) && OW === floorR(cw);
    const ce = OH === ceilR(ch) && OW === ceilR(cw);
    if (!fl && !ce) return { error: 'outputSizes mismatch' };
  } else {
    const rounding = o.outputShapeRounding ?? o.roundingType ?? 'floor';
    OH = rounding === 'ceil' ? ceilR(ch) : floorR(ch);
    OW = rounding === 'ceil' ? ceilR(cw) : floorR(cw);
  }
  if (OH <= 0 || OW <= 0) return { error: 'output size' };
  return { OH, OW, win, padding, strides, dilations };
}

// Pooling on a canonical nchw tensor.
export function poolRef(op, t, x, o) {
  const [N, C, H, W] = x.shape;
  const sh = poolShape(H, W, o);
  if (sh.error) throw new Error(`poolRef: ${sh.error}`);
  const { OH, OW, win, padding, strides, dilations } = sh;
  const values = [];
  let implDefined = 0;
  for (let n = 0; n < N; n++) {
    for (let c = 0; c < C; c++) {
      for (let oh = 0; oh < OH; oh++) {
        for (let ow = 0; ow < OW; ow++) {
          const real = [];
          for (let kh = 0; kh < win[0]; kh++) {
            const ih = oh * strides[0] - padding[0] + kh * dilations[0];
            if (ih < 0 || ih >= H) continue;
            for (let kw = 0; kw < win[1]; kw++) {
              const iw = ow * strides[1] - padding[2] + kw * dilations[1];
              if (iw < 0 || iw >= W) continue;
              real.push(x.values[((n * C + c) * H + ih) * W + iw]);
            }
          }
          if (real.length === 0) {
            // A window of no element (a ceil-rounded last window past the input, padding only):
            // the spec gives it no value (docs/deviations.md, "Pooling: what padding
            // contributes"); l2Pool2d's empty sum of squares is 0.
            if (op === 'l2Pool2d') {
              values.push(0);
            } else {
              values.push(NaN);
              implDefined++;
            }
            continue;
          }
          values.push(reduceWindow(op, t, real));
        }
      }
    }
  }
  return { shape: [N, C, OH, OW], values, implDefined };
}

function reduceWindow(op, t, vals) {
  if (op === 'maxPool2d') {
    if (!isFloat(t)) return vals.reduce((a, b) => (b > a ? b : a));
    if (vals.some(Number.isNaN)) throw new Error('maxPool2d: NaN inputs are not used');
    return vals.reduce((a, b) => (b > a ? b : a));
  }
  if (op === 'averagePool2d') {
    const acc = new ExactSum();
    for (const v of vals) acc.add(v);
    return acc.round(t, BigInt(vals.length));
  }
  // l2Pool2d
  if (vals.some(Number.isNaN)) return NaN;
  if (vals.some((v) => !Number.isFinite(v))) return Infinity;
  let s = 0n;
  for (const v of vals) {
    const q = scaled(v);
    s += q * q; // v^2 * 2^(2 SCALE)
  }
  return roundSqrtRational(s, 1n << (2n * SCALE), t);
}

// ---------------------------------------------------------------------------------------------------------
// Case assembly. spec: {N, C, H, W, layout, options (object | 'omit'), x (canonical array or generator)}.

function poolCase(op, t, tag, s, extraLabels = []) {
  const name = `webnn.${op}.${t}.${tag}`;
  const layout = s.layout ?? 'nchw';
  const xShape = [s.N ?? 1, s.C ?? 2, s.H, s.W];
  let data = s.x;
  if (data === undefined) {
    if (isFloat(t)) data = uniform(seedOf(name), s.range?.[0] ?? -4, s.range?.[1] ?? 4);
    else {
      const [lo, hi] = randRange(t);
      data = uniform(seedOf(name), lo, hi);
    }
  }
  const x = layoutTensor(t, xShape, data, INPUT_LAYOUT[layout]);
  if (s.options === 'omit' && layout !== 'nchw') throw new Error(`${name}: no options but layout ${layout}`);
  const o = s.options === 'omit' ? {} : { ...s.options };
  if (s.layout !== undefined && s.options !== 'omit') o.layout = layout;
  const args = [{ input: 'input' }];
  if (s.options !== 'omit') args.push({ options: o });
  const out = poolRef(op, t, x.canon, o);
  const o2 = permute(out.values, out.shape, INPUT_LAYOUT[layout]);
  const labels = [op, t, layout, ...extraLabels];
  if (out.implDefined > 0) labels.push('implementation_defined');
  return winCase({
    op, name, labels, inputs: { input: x.tensor }, args,
    out: { dtype: t, shape: o2.shape, values: o2.values }, implDefined: out.implDefined,
  });
}

// Option sets shared by every op and type: [tag, {H, W, options, ...}, labels]. Default input 1x2x5x6.
const CONFIGS = [
  ['global_no_options', { options: 'omit' }, ['global', 'defaults']],
  ['global_empty_options', { options: {} }, ['global', 'defaults']],
  ['window_2x2', { options: { windowDimensions: [2, 2] } }, []],
  ['window_3x2_strides_2x1', { options: { windowDimensions: [3, 2], strides: [2, 1] } }, ['strides']],
  ['padding_symmetric', { options: { windowDimensions: [3, 3], padding: [1, 1, 1, 1] } }, ['padding']],
  ['padding_asymmetric_strides', { options: { windowDimensions: [2, 3], padding: [1, 0, 0, 2], strides: [2, 2] } },
    ['padding', 'strides']],
  ['dilations_2x3', { options: { windowDimensions: [2, 2], dilations: [2, 3] } }, ['dilations']],
  ['dilations_padding_strides', {
    options: { windowDimensions: [2, 2], dilations: [2, 2], padding: [1, 2, 2, 1], strides: [2, 1] },
  }, ['dilations', 'padding', 'strides']],
  ['rounding_floor', { options: { windowDimensions: [2, 2], strides: [2, 2], outputShapeRounding: 'floor' } },
    ['rounding']],
  ['rounding_ceil', { options: { windowDimensions: [2, 2], strides: [2, 2], outputShapeRounding: 'ceil' } },
    ['rounding', 'partial_window']],
  ['rounding_ceil_padding', {
    options: { windowDimensions: [3, 3], strides: [2, 2], padding: [1, 1, 1, 1], outputShapeRounding: 'ceil' },
  }, ['rounding', 'padding', 'partial_window']],
  ['rounding_ceil_dilations', {
    H: 7, W: 8, options: { windowDimensions: [2, 3], strides: [3, 2], dilations: [2, 2], outputShapeRounding: 'ceil' },
  }, ['rounding', 'dilations', 'partial_window']],
  // outputSizes (spec-notes #4): sizes must be below the strides; padding is reset to 0.
  ['output_sizes_floor', { options: { windowDimensions: [2, 2], strides: [3, 3], outputSizes: [2, 2] } },
    ['output_sizes']],
  ['output_sizes_ceil', { H: 6, W: 6, options: { windowDimensions: [3, 3], strides: [4, 4], outputSizes: [2, 2] } },
    ['output_sizes', 'partial_window']],
  ['output_sizes_ignore_padding_and_rounding', {
    options: {
      windowDimensions: [2, 2], strides: [3, 3], padding: [1, 1, 1, 1], outputShapeRounding: 'ceil', outputSizes: [2, 2],
    },
  }, ['output_sizes', 'padding', 'rounding']],
  ['window_1x1_strides_2', { options: { windowDimensions: [1, 1], strides: [2, 2] } }, ['window_1x1', 'strides']],
  ['window_equals_input', { options: { windowDimensions: [5, 6] } }, ['window_equals_input']],
  ['padding_larger_than_window_dilated', {
    options: { windowDimensions: [2, 2], dilations: [3, 3], padding: [3, 3, 3, 3] },
  }, ['padding', 'padding_larger_than_window', 'dilations']],
  // (in - window) / stride + 1 = (3 - 4) / 2 + 1 = 0.5: floor gives 0 (an error case), ceil gives 1.
  ['window_larger_than_input_ceil', {
    H: 3, W: 3, options: { windowDimensions: [4, 4], strides: [2, 2], outputShapeRounding: 'ceil' },
  }, ['rounding', 'partial_window']],
  // Width: ceil((3 - 2) / 3) + 1 = 2 windows; the second starts at 3, past the input: no element
  // (ONNX and ONNX Runtime drop such a window; WebNN's formula keeps it: docs/deviations.md).
  ['rounding_ceil_window_past_input', {
    H: 4, W: 3, options: { windowDimensions: [1, 2], strides: [1, 3], outputShapeRounding: 'ceil' },
  }, ['rounding', 'empty_window']],
  ['batch_2_channels_3', {
    N: 2, C: 3, H: 4, W: 4, options: { windowDimensions: [3, 3], padding: [1, 1, 1, 1] },
  }, ['batch', 'padding']],
  ['explicit_defaults', {
    options: {
      windowDimensions: [2, 2], padding: [0, 0, 0, 0], strides: [1, 1], dilations: [1, 1], layout: 'nchw',
      outputShapeRounding: 'floor',
    },
  }, ['defaults']],
];

function poolFloatCases(op, t) {
  const out = [];
  for (const layout of ['nchw', 'nhwc']) {
    for (const [tag, cfg, labels] of CONFIGS) {
      const s = { H: 5, W: 6, ...cfg, layout };
      if (tag === 'explicit_defaults' && layout === 'nhwc') continue; // its layout is spelled out
      if (cfg.options === 'omit' && layout === 'nhwc') continue; // no options argument means nchw
      out.push(poolCase(op, t, `${layout}_${tag}`, s, labels));
    }
  }
  // A grid over padding x strides x dilations x rounding (float32, both layouts).
  if (t === F32) {
    for (const layout of ['nchw', 'nhwc']) {
      for (const pad of [null, [0, 1, 1, 0]]) {
        for (const st of [null, [2, 2]]) {
          for (const dil of [null, [2, 1]]) {
            for (const rounding of ['floor', 'ceil']) {
              const options = { windowDimensions: [2, 2], outputShapeRounding: rounding };
              if (pad) options.padding = pad;
              if (st) options.strides = st;
              if (dil) options.dilations = dil;
              const tag = `grid_${layout}_${pad ? 'pad' : 'nopad'}_${st ? 'stride2' : 'stride1'}_${dil ? 'dil2x1' : 'dil1'}_${rounding}`;
              out.push(poolCase(op, t, tag, { C: 1, H: 5, W: 6, layout, options }, ['grid', 'rounding',
                ...(pad ? ['padding'] : []), ...(st ? ['strides'] : []), ...(dil ? ['dilations'] : [])]));
            }
          }
        }
      }
    }
    // As written (spec-notes #4): with outputSizes the padding is replaced by zeros before its size is checked,
    // so a padding list of the wrong size is not an error.
    out.push(poolCase(op, t, 'output_sizes_reset_padding_of_wrong_size', {
      H: 5, W: 6, options: { windowDimensions: [2, 2], strides: [3, 3], padding: [1, 1], outputSizes: [2, 2] },
    }, ['output_sizes', 'padding', 'spec_notes_4']));
  }
  // The old option name (spec-notes #2).
  out.push(poolCase(op, t, 'rounding_type_alias_ceil', {
    H: 5, W: 6, options: { windowDimensions: [2, 2], strides: [2, 2], roundingType: 'ceil' },
  }, ['rounding', 'rounding_type_alias', 'spec_notes_2']));
  out.push(poolCase(op, t, 'larger_random', {
    N: 2, C: 3, H: 9, W: 8, layout: 'nhwc', range: [-100, 100],
    options: { windowDimensions: [3, 3], strides: [2, 2], padding: [1, 1, 1, 1], outputShapeRounding: 'ceil' },
  }, ['generator', 'padding', 'strides', 'rounding']));
  const big = t === F16 ? 65504 : 3.4028234663852886e38;
  if (op === 'averagePool2d') {
    // The exact sum exceeds the type's range, the mean does not.
    out.push(poolCase(op, t, 'large_values_mean_in_range', {
      N: 1, C: 1, H: 2, W: 2, x: [big, big, big, t === F16 ? 65472 : 3.4028232635611926e38],
      options: { windowDimensions: [2, 2] },
    }, ['accumulation']));
    out.push(poolCase(op, t, 'special_values', {
      N: 1, C: 1, H: 2, W: 4, x: [1, Infinity, Infinity, NaN, 2, -Infinity, 3, 4],
      options: { windowDimensions: [2, 1] },
    }, ['special_values']));
    out.push(poolCase(op, t, 'rounding', {
      N: 1, C: 1, H: 1, W: 4, x: t === F16 ? [1, 1 + 2 ** -10, 1 + 2 ** -9, 0.1] : [1, 1 + 2 ** -23, 1 + 2 ** -22, 0.1],
      options: { windowDimensions: [1, 2] },
    }, ['rounding']));
  } else if (op === 'l2Pool2d') {
    // Squares that overflow (or underflow) the type although the norm does not.
    out.push(poolCase(op, t, 'large_and_small_values', {
      N: 1, C: 1, H: 2, W: 2,
      x: t === F16 ? [300, 400, 2 ** -20, 3 * 2 ** -22] : [3e30, 4e30, 3e-30, 4e-30],
      options: { windowDimensions: [1, 2] },
    }, ['accumulation']));
    out.push(poolCase(op, t, 'special_values', {
      N: 1, C: 1, H: 2, W: 4, x: [1, Infinity, -Infinity, NaN, 2, -3, 3, 4],
      options: { windowDimensions: [2, 1] },
    }, ['special_values']));
    out.push(poolCase(op, t, 'exact_results', {
      N: 1, C: 1, H: 2, W: 3, x: [3, -5, 8, 4, 12, -15], options: { windowDimensions: [2, 1] },
    }, []));
  } else {
    out.push(poolCase(op, t, 'special_values', {
      N: 1, C: 1, H: 2, W: 4, x: [1, Infinity, -Infinity, -Infinity, -2, 5, -big, big],
      options: { windowDimensions: [2, 1] },
    }, ['special_values']));
    // Padding never wins: every real element is negative.
    out.push(poolCase(op, t, 'negative_values_padding', {
      N: 1, C: 1, H: 3, W: 3, x: [-5, -4, -3, -6, -7, -8, -1, -9, -2],
      options: { windowDimensions: [2, 2], padding: [1, 1, 1, 1] },
    }, ['padding', 'padding_never_wins']));
  }
  return out;
}

// maxPool2d on integer types: exact.
function maxPoolIntCases(t) {
  const out = [];
  const c = (tag, s, labels = []) => out.push(poolCase('maxPool2d', t, tag, s, labels));
  const [lo, hi] = intRange(t);
  const signed = lo < 0n;
  c('window_2x2', { H: 4, W: 5, options: { windowDimensions: [2, 2] } }, []);
  c('nhwc_padding_strides', {
    H: 5, W: 5, layout: 'nhwc', options: { windowDimensions: [3, 2], padding: [1, 1, 0, 1], strides: [2, 2] },
  }, ['padding', 'strides']);
  c('rounding_ceil_dilations', {
    H: 5, W: 6, options: { windowDimensions: [2, 2], strides: [2, 2], dilations: [1, 2], outputShapeRounding: 'ceil' },
  }, ['rounding', 'dilations', 'partial_window']);
  c('output_sizes', { H: 5, W: 6, layout: 'nhwc', options: { windowDimensions: [2, 2], strides: [3, 3], outputSizes: [2, 2] } },
    ['output_sizes']);
  c('global_no_options', { H: 3, W: 4, options: 'omit' }, ['global', 'defaults']);
  // Extremes: the type's limits and, for 64-bit types, neighbours above 2^53 (not distinguishable in double).
  const P53 = 2n ** 53n;
  const ext = signed
    ? [lo, lo + 1n, -1n, 0n, hi - 1n, hi, -5n, 7n, ...(t === 'int64' ? [P53, P53 + 1n, -P53 - 1n, -P53] : [1n, 2n, -2n, 3n])]
    : [0n, 1n, hi, hi - 1n, 2n, 3n, 9n, 8n, ...(t === 'uint64' ? [P53 + 1n, P53, hi - 2n, 2n ** 63n] : [4n, 5n, 6n, 7n])];
  c('extremes', { N: 1, C: 2, H: 2, W: 3, x: ext, options: { windowDimensions: [1, 2] } }, ['extremes']);
  if (signed) {
    c('negative_values_padding', {
      N: 1, C: 1, H: 3, W: 3, x: [-5n, -4n, -3n, -6n, -7n, -8n, -1n, -9n, lo],
      options: { windowDimensions: [2, 2], padding: [1, 1, 1, 1] },
    }, ['padding', 'padding_never_wins']);
  }
  return out;
}

function poolErrors(op) {
  const out = [];
  const e = (tag, input, opts, labels = [F32]) => {
    const args = [{ input: 'input' }];
    if (opts) args.push({ options: opts });
    out.push(winError({ op, name: `webnn.${op}.error.${tag}`, labels: [op, ...labels], inputs: { input }, args }));
  };
  const x = T(F32, [1, 2, 5, 6], 1);
  if (op !== 'maxPool2d') {
    e('input_int32', T('int32', [1, 2, 5, 6], 1), null, ['int32']);
    e('input_uint8', T('uint8', [1, 2, 5, 6], 1), { windowDimensions: [2, 2] }, ['uint8']);
    e('input_int64', T('int64', [1, 1, 2, 2], 1), null, ['int64']);
  }
  e('input_rank_3', T(F32, [2, 5, 6], 1), null);
  e('input_rank_5', T(F32, [1, 1, 2, 5, 6], 1), { windowDimensions: [2, 2] });
  e('window_dimensions_size_1', x, { windowDimensions: [2] });
  e('window_dimensions_size_3', x, { windowDimensions: [2, 2, 1] });
  e('window_dimensions_zero', x, { windowDimensions: [0, 2] });
  e('padding_size_3', x, { windowDimensions: [2, 2], padding: [1, 1, 1] });
  e('strides_size_1', x, { windowDimensions: [2, 2], strides: [2] });
  e('strides_zero', x, { windowDimensions: [2, 2], strides: [2, 0] });
  e('output_sizes_size_1', x, { windowDimensions: [2, 2], strides: [3, 3], outputSizes: [2] });
  e('output_sizes_not_smaller_than_strides', x, { windowDimensions: [2, 2], strides: [2, 2], outputSizes: [2, 3] });
  e('output_sizes_with_default_strides', x, { windowDimensions: [5, 6], outputSizes: [1, 1] });
  e('dilations_size_3', x, { windowDimensions: [2, 2], dilations: [1, 1, 1] });
  e('dilations_zero', x, { windowDimensions: [2, 2], dilations: [1, 0] });
  // calculated sizes for 5x6, window 2x2, strides 4x4: 1.75 x 2 -> floor [1, 2], ceil [2, 2].
  e('output_sizes_neither_floor_nor_ceil', x, { windowDimensions: [2, 2], strides: [4, 4], outputSizes: [3, 2] });
  e('output_sizes_floor_and_ceil_mixed', T(F32, [1, 2, 5, 5], 1),
    { windowDimensions: [2, 2], strides: [4, 4], outputSizes: [1, 2] });
  e('window_larger_than_input', x, { windowDimensions: [6, 2] });
  e('window_larger_than_input_floor', T(F32, [1, 1, 3, 3], 1), { windowDimensions: [4, 4], strides: [2, 2] });
  e('dilated_window_larger_than_padded_input_nhwc', T(F32, [1, 5, 6, 2], 1),
    { windowDimensions: [2, 2], dilations: [1, 8], padding: [0, 0, 1, 0], layout: 'nhwc' });
  e('window_larger_than_input_float16', T(F16, [1, 2, 3, 3], 1), { windowDimensions: [3, 4] }, [F16]);
  if (op === 'maxPool2d') e('window_dimensions_zero_int8', T('int8', [1, 1, 3, 3], 1), { windowDimensions: [2, 0] }, ['int8']);
  // Sanity: every error case must fail the shape steps (or the type/rank checks) as computed here.
  for (const c of out) {
    const inp = c.graph.inputs.input.descriptor;
    const o = c.graph.operators[0].arguments[1]?.options ?? {};
    const typeOk = op === 'maxPool2d' || FLOAT_TYPES.includes(inp.dataType);
    if (!typeOk || inp.shape.length !== 4) continue;
    const [, a, b, d] = inp.shape;
    const [H, W] = o.layout === 'nhwc' ? [a, b] : [b, d];
    if (!poolShape(H, W, o).error) throw new Error(`${c.name}: not an error`);
  }
  return out;
}

export function poolFiles() {
  const files = {};
  for (const op of POOL_OPS) {
    const cases = [];
    for (const t of DTYPES) {
      if (isFloat(t)) cases.push(...poolFloatCases(op, t));
      else if (op === 'maxPool2d') cases.push(...maxPoolIntCases(t));
    }
    cases.push(...poolErrors(op));
    files[op] = cases;
  }
  return files;
}
