// Cases for conv2d and convTranspose2d (WebNN §api-mlgraphbuilder-conv2d, §api-mlgraphbuilder-convtranspose2d).
//
// Values: every output element is bias + sum of input * filter over its window, accumulated exactly (BigInt,
// winexact.mjs) from the inputs as rounded to their type and rounded once to the output type. Padding
// contributes nothing (no padded element is multiplied). Layouts are handled as transposes of the canonical
// nchw input / oihw (conv2d) or iohw (convTranspose2d) filter. Nothing here reads the C++ code.

import { FLOAT_TYPES } from './numerics.mjs';
import { T, C, materialize } from './casebuild.mjs';
import { uniform } from './common.mjs';
import { ExactSum } from './winexact.mjs';
import {
  permute, layoutTensor, INPUT_LAYOUT, CONV_FILTER_LAYOUT, CONVT_FILTER_LAYOUT, seedOf, winCase, winError,
} from './winutil.mjs';

const F32 = 'float32';
const F16 = 'float16';

// The spec's "calculate conv output size" followed by floor; 0 when not a valid dimension.
export function convOutputSize(inSize, k, pb, pe, s, d) {
  const eff = (k - 1) * d + 1;
  const num = inSize - eff + pb + pe;
  return num < 0 ? 0 : Math.floor(num / s) + 1;
}

// conv2d on canonical tensors: x {shape [N, Cin, H, W], values}, w {shape [Cout, Cin/g, kH, kW]}, bias values
// or null. Returns {shape [N, Cout, OH, OW], values}.
export function conv2dRef(t, x, w, bias, o) {
  const [N, Cin, H, W] = x.shape;
  const [Cout, Cg, kH, kW] = w.shape;
  const g = o.groups;
  if (Cin % g !== 0 || Cin / g !== Cg || Cout % g !== 0) throw new Error('conv2dRef: bad groups');
  const CoutG = Cout / g;
  const [pt, pb, pl, pr] = o.padding;
  const [sh, sw] = o.strides;
  const [dh, dw] = o.dilations;
  const OH = convOutputSize(H, kH, pt, pb, sh, dh);
  const OW = convOutputSize(W, kW, pl, pr, sw, dw);
  if (OH <= 0 || OW <= 0) throw new Error('conv2dRef: empty output');
  const X = (n, c, h, ww) => x.values[((n * Cin + c) * H + h) * W + ww];
  const Wt = (oc, ic, h, ww) => w.values[((oc * Cg + ic) * kH + h) * kW + ww];
  const values = [];
  for (let n = 0; n < N; n++) {
    for (let oc = 0; oc < Cout; oc++) {
      const grp = Math.floor(oc / CoutG);
      for (let oh = 0; oh < OH; oh++) {
        for (let ow = 0; ow < OW; ow++) {
          const acc = new ExactSum();
          if (bias) acc.add(bias[oc]);
          for (let ic = 0; ic < Cg; ic++) {
            for (let kh = 0; kh < kH; kh++) {
              const ih = oh * sh - pt + kh * dh;
              if (ih < 0 || ih >= H) continue;
              for (let kw = 0; kw < kW; kw++) {
                const iw = ow * sw - pl + kw * dw;
                if (iw < 0 || iw >= W) continue;
                acc.addProduct(X(n, grp * Cg + ic, ih, iw), Wt(oc, ic, kh, kw));
              }
            }
          }
          values.push(acc.round(t));
        }
      }
    }
  }
  return { shape: [N, Cout, OH, OW], values };
}

// The spec's "calculate convtranspose output size".
export function convTransposeOutputSize(inSize, k, pb, pe, s, d) {
  return (inSize - 1) * s + (k - 1) * d + 1 - pb - pe;
}

// convTranspose2d on canonical tensors: x [N, Cin, H, W], w [Cin, Cout/g, kH, kW] (iohw). outSizes [OH, OW].
export function convTranspose2dRef(t, x, w, bias, o, outSizes) {
  const [N, Cin, H, W] = x.shape;
  const [Ci, CoutG, kH, kW] = w.shape;
  const g = o.groups;
  if (Ci !== Cin || Cin % g !== 0) throw new Error('convTranspose2dRef: bad channels');
  const CinG = Cin / g;
  const Cout = CoutG * g;
  const [pt, , pl] = o.padding;
  const [sh, sw] = o.strides;
  const [dh, dw] = o.dilations;
  const [OH, OW] = outSizes;
  const acc = [];
  for (let i = 0; i < N * Cout * OH * OW; i++) {
    const a = new ExactSum();
    if (bias) a.add(bias[Math.floor(i / (OH * OW)) % Cout]);
    acc.push(a);
  }
  for (let n = 0; n < N; n++) {
    for (let ic = 0; ic < Cin; ic++) {
      const grp = Math.floor(ic / CinG);
      for (let ih = 0; ih < H; ih++) {
        for (let iw = 0; iw < W; iw++) {
          const xv = x.values[((n * Cin + ic) * H + ih) * W + iw];
          for (let oc = 0; oc < CoutG; oc++) {
            for (let kh = 0; kh < kH; kh++) {
              const oh = ih * sh - pt + kh * dh;
              if (oh < 0 || oh >= OH) continue;
              for (let kw = 0; kw < kW; kw++) {
                const ow = iw * sw - pl + kw * dw;
                if (ow < 0 || ow >= OW) continue;
                const wv = w.values[((ic * CoutG + oc) * kH + kh) * kW + kw];
                acc[((n * Cout + grp * CoutG + oc) * OH + oh) * OW + ow].addProduct(xv, wv);
              }
            }
          }
        }
      }
    }
  }
  return { shape: [N, Cout, OH, OW], values: acc.map((a) => a.round(t)) };
}

// ---------------------------------------------------------------------------------------------------------
// Case assembly shared by both operators.
//
// spec: {N, Cin, H, W, Cout, kH, kW, groups, padding, strides, dilations, inputLayout, filterLayout, bias,
//        x, w, b (canonical-order arrays or generators; default: uniform random in [-1, 1]),
//        options: 'omit' (no options argument) | 'explicit' (every option spelled out),
//        outputPadding, outputSizes (convTranspose2d), filterInput (filter as input() instead of constant)}
// Option keys appear in the JSON only when the spec gives them.

function buildConv(op, t, tag, s, extraLabels) {
  const name = `webnn.${op}.${t}.${tag}`;
  const isT = op === 'convTranspose2d';
  const groups = s.groups ?? 1;
  const il = s.inputLayout ?? 'nchw';
  const fl = s.filterLayout ?? (isT ? 'iohw' : 'oihw');
  const N = s.N ?? 1;
  const xShape = [N, s.Cin, s.H, s.W];
  const wShape = isT ? [s.Cin, s.Cout / groups, s.kH, s.kW] : [s.Cout, s.Cin / groups, s.kH, s.kW];
  const range = s.range ?? [-1, 1];
  const x = layoutTensor(t, xShape, s.x ?? uniform(seedOf(name, 0), range[0], range[1]), INPUT_LAYOUT[il]);
  const w = layoutTensor(t, wShape, s.w ?? uniform(seedOf(name, 1), range[0], range[1]),
    (isT ? CONVT_FILTER_LAYOUT : CONV_FILTER_LAYOUT)[fl], !s.filterInput);
  const inputs = { input: x.tensor, filter: w.tensor };
  let biasValues = null;
  if (s.bias) {
    const bt = C(t, [s.Cout], s.b ?? uniform(seedOf(name, 2), range[0], range[1]));
    inputs.bias = bt;
    biasValues = materialize(bt);
  }
  const o = {
    padding: s.padding ?? [0, 0, 0, 0], strides: s.strides ?? [1, 1], dilations: s.dilations ?? [1, 1], groups,
  };
  const opts = {};
  if (s.options === 'explicit') {
    Object.assign(opts, { padding: o.padding, strides: o.strides, dilations: o.dilations });
    if (isT) Object.assign(opts, { outputPadding: s.outputPadding ?? [0, 0] });
    Object.assign(opts, { groups, inputLayout: il, filterLayout: fl });
  } else {
    for (const k of ['padding', 'strides', 'dilations', 'outputPadding', 'outputSizes', 'groups']) {
      if (s[k] !== undefined) opts[k] = s[k];
    }
    if (s.inputLayout !== undefined) opts.inputLayout = il;
    if (s.filterLayout !== undefined) opts.filterLayout = fl;
  }
  if (s.bias) opts.bias = 'bias';
  const args = [{ input: 'input' }, { filter: 'filter' }];
  if (s.options !== 'omit') args.push({ options: opts });
  else if (Object.keys(opts).length) throw new Error(`${name}: options omitted but given`);

  let out;
  if (isT) {
    const calc = [
      convTransposeOutputSize(s.H, s.kH, o.padding[0], o.padding[1], o.strides[0], o.dilations[0]),
      convTransposeOutputSize(s.W, s.kW, o.padding[2], o.padding[3], o.strides[1], o.dilations[1]),
    ];
    let sizes = s.outputSizes;
    if (sizes) {
      // The steps: outputSizes must lie in [calculated, calculated + stride).
      for (const i of [0, 1]) {
        if (sizes[i] < calc[i] || sizes[i] >= calc[i] + o.strides[i]) throw new Error(`${name}: outputSizes invalid`);
      }
    } else {
      const op2 = s.outputPadding ?? [0, 0];
      if (op2[0] >= o.strides[0] || op2[1] >= o.strides[1]) throw new Error(`${name}: outputPadding invalid`);
      sizes = [calc[0] + op2[0], calc[1] + op2[1]];
    }
    if (sizes[0] <= 0 || sizes[1] <= 0) throw new Error(`${name}: empty output`);
    out = convTranspose2dRef(t, x.canon, w.canon, biasValues, o, sizes);
  } else {
    out = conv2dRef(t, x.canon, w.canon, biasValues, o);
  }
  const o2 = permute(out.values, out.shape, INPUT_LAYOUT[il]);
  const labels = [op, t, il, fl, ...extraLabels];
  return winCase({ op, name, labels, inputs, args, out: { dtype: t, shape: o2.shape, values: o2.values } });
}

// ---------------------------------------------------------------------------------------------------------
// conv2d

const GROUP_KINDS = {
  single: { Cin: 2, Cout: 3, groups: 1 },
  grouped: { Cin: 4, Cout: 6, groups: 2 },
  depthwise: { Cin: 3, Cout: 3, groups: 3 },
};

function conv2dFloatCases(t) {
  const out = [];
  const c = (tag, s, labels = []) => out.push(buildConv('conv2d', t, tag, s, labels));
  // Layouts x groups x dilation, all combinations (kernel 2x3 and a non-square dilation catch h/w swaps).
  for (const il of ['nchw', 'nhwc']) {
    for (const fl of ['oihw', 'hwio', 'ohwi', 'ihwo']) {
      for (const [gk, g] of Object.entries(GROUP_KINDS)) {
        for (const dil of [false, true]) {
          const s = { ...g, H: 5, W: 8, kH: 2, kW: 3, inputLayout: il, filterLayout: fl };
          if (g.groups !== 1 || il === 'nhwc') s.groups = g.groups; // groups: 1 spelled out only sometimes
          if (dil) Object.assign(s, { dilations: [2, 3], bias: true });
          c(`${il}_${fl}_${gk}_${dil ? 'dilations_2x3_bias' : 'no_dilation'}`, s,
            ['layouts', gk, ...(dil ? ['dilations', 'bias'] : [])]);
        }
      }
    }
  }
  // Padding, strides, bias and their combinations.
  c('padding_asymmetric', { Cin: 2, Cout: 2, H: 4, W: 5, kH: 3, kW: 3, padding: [1, 2, 0, 1] }, ['padding']);
  c('padding_asymmetric_nhwc_ohwi', {
    Cin: 2, Cout: 2, H: 4, W: 5, kH: 3, kW: 3, padding: [2, 0, 1, 2], inputLayout: 'nhwc', filterLayout: 'ohwi',
  }, ['padding']);
  c('strides_2x1', { Cin: 2, Cout: 2, H: 5, W: 5, kH: 2, kW: 2, strides: [2, 1] }, ['strides']);
  c('strides_2x3_output_size_floor', {
    Cin: 1, Cout: 2, H: 6, W: 7, kH: 3, kW: 2, strides: [2, 3], padding: [0, 1, 1, 0],
  }, ['strides', 'padding']);
  c('strides_dilations_padding_nhwc_hwio', {
    Cin: 2, Cout: 3, H: 7, W: 6, kH: 2, kW: 2, strides: [2, 2], dilations: [3, 2], padding: [1, 1, 2, 0],
    inputLayout: 'nhwc', filterLayout: 'hwio',
  }, ['strides', 'dilations', 'padding']);
  c('all_options_grouped_nhwc_hwio', {
    Cin: 4, Cout: 4, groups: 2, H: 6, W: 6, kH: 3, kW: 2, padding: [1, 0, 2, 1], strides: [2, 2],
    dilations: [2, 1], bias: true, inputLayout: 'nhwc', filterLayout: 'hwio',
  }, ['grouped', 'padding', 'strides', 'dilations', 'bias']);
  c('all_options_depthwise_multiplier_nchw_ihwo', {
    Cin: 3, Cout: 6, groups: 3, H: 5, W: 6, kH: 2, kW: 3, padding: [2, 1, 1, 1], strides: [1, 2],
    dilations: [1, 2], bias: true, inputLayout: 'nchw', filterLayout: 'ihwo',
  }, ['depthwise', 'padding', 'strides', 'dilations', 'bias']);
  c('depthwise_multiplier_2_ohwi', {
    Cin: 2, Cout: 4, groups: 2, H: 4, W: 4, kH: 3, kW: 3, padding: [1, 1, 1, 1], filterLayout: 'ohwi',
  }, ['depthwise', 'padding']);
  c('bias', { Cin: 2, Cout: 4, H: 3, W: 3, kH: 2, kW: 2, bias: true }, ['bias']);
  c('pointwise_1x1_strides_2', { Cin: 3, Cout: 2, H: 5, W: 4, kH: 1, kW: 1, strides: [2, 2], bias: true },
    ['kernel_1x1', 'strides', 'bias']);
  c('kernel_equals_input', { Cin: 2, Cout: 3, H: 3, W: 4, kH: 3, kW: 4 }, ['kernel_equals_input']);
  c('kernel_equals_input_padded_nhwc', {
    Cin: 2, Cout: 2, H: 3, W: 3, kH: 3, kW: 3, padding: [1, 1, 1, 1], inputLayout: 'nhwc', filterLayout: 'ohwi',
  }, ['kernel_equals_input', 'padding']);
  c('padding_larger_than_kernel', {
    Cin: 1, Cout: 2, H: 2, W: 3, kH: 2, kW: 2, padding: [3, 2, 1, 3], bias: true,
  }, ['padding', 'padding_larger_than_kernel', 'bias']);
  c('padding_larger_than_kernel_strides_nhwc', {
    Cin: 2, Cout: 1, H: 3, W: 2, kH: 1, kW: 1, padding: [2, 2, 3, 1], strides: [2, 3], inputLayout: 'nhwc',
  }, ['padding', 'padding_larger_than_kernel', 'kernel_1x1', 'strides']);
  c('input_1x1_kernel_1x1', { Cin: 3, Cout: 2, H: 1, W: 1, kH: 1, kW: 1, bias: true }, ['kernel_1x1', 'bias']);
  c('batch_2_nhwc_ohwi', {
    N: 2, Cin: 2, Cout: 2, H: 3, W: 3, kH: 2, kW: 2, inputLayout: 'nhwc', filterLayout: 'ohwi', bias: true,
  }, ['batch', 'bias']);
  c('batch_3_grouped_oihw', { N: 3, Cin: 4, Cout: 2, groups: 2, H: 2, W: 3, kH: 1, kW: 2 }, ['batch', 'grouped']);
  c('no_options', { Cin: 2, Cout: 2, H: 3, W: 4, kH: 2, kW: 2, options: 'omit' }, ['defaults']);
  c('explicit_defaults', { Cin: 2, Cout: 2, H: 3, W: 4, kH: 2, kW: 2, options: 'explicit' }, ['defaults']);
  c('filter_not_constant', { Cin: 2, Cout: 2, H: 3, W: 3, kH: 2, kW: 2, filterInput: true, padding: [0, 1, 1, 0] },
    ['filter_input']);
  c('larger_random', {
    N: 2, Cin: 6, Cout: 4, groups: 2, H: 9, W: 10, kH: 3, kW: 3, padding: [1, 1, 1, 1], strides: [2, 2], bias: true,
    range: t === F16 ? [-2, 2] : [-10, 10],
  }, ['generator', 'grouped', 'padding', 'strides', 'bias']);
  // Special values (no padding, so no padded zero ever meets an infinity).
  c('special_values', {
    Cin: 1, Cout: 4, H: 1, W: 6, kH: 1, kW: 2,
    x: [1, Infinity, 2, NaN, -Infinity, 3],
    w: [1, 2, 0.5, -1, 0, 1, -1, -1],
  }, ['special_values']);
  // Exact accumulation: the true sum needs cancellation that a same-type accumulator loses.
  const big = t === F32 ? 2 ** 24 : 2048;
  c('exact_accumulation', {
    Cin: 1, Cout: 2, H: 1, W: 3, kH: 1, kW: 3, x: [big, 1, -big], w: [1, 1, 1, 1, -1, 1],
  }, ['accumulation']);
  // Round once: sums on, just above and just below a midpoint of the output type. An accumulator that rounds
  // to a wider type first (float32 for float16, double for float32) loses the tiny term and rounds the
  // midpoint to even instead.
  if (t === F16) {
    c('rounds_once_near_midpoint', {
      Cin: 1, Cout: 4, H: 1, W: 3, kH: 1, kW: 3, x: [1, 2 ** -11, 2 ** -24],
      w: [1, 1, 2 ** -14, 1, 1, 0, 1, 3, 0, 1, 1, -(2 ** -14)],
    }, ['rounding', 'double_rounding']);
    c('subnormal_results', {
      Cin: 2, Cout: 2, H: 2, W: 2, kH: 1, kW: 2,
      x: [3 * 2 ** -13, 5 * 2 ** -12, -7 * 2 ** -11, 2 ** -10, 3 * 2 ** -9, 2 ** -13, 5 * 2 ** -11, -(2 ** -12)],
      w: [5 * 2 ** -13, 3 * 2 ** -12, -(2 ** -11), 7 * 2 ** -13, 2 ** -12, 3 * 2 ** -13, 2 ** -11, 5 * 2 ** -12],
    }, ['subnormal']);
    c('overflow', {
      Cin: 1, Cout: 3, H: 1, W: 3, kH: 1, kW: 2, x: [60000, 60000, -30000],
      w: [1, 1, -1, -1, 1, 0.5],
    }, ['overflow']);
  } else {
    c('rounds_once_near_midpoint', {
      Cin: 1, Cout: 4, H: 1, W: 3, kH: 1, kW: 3, x: [1, 2 ** -24, 2 ** -149],
      w: [1, 1, 2 ** -126, 1, 1, 0, 1, 3, 0, 1, 1, -(2 ** -126)],
    }, ['rounding', 'double_rounding']);
    c('subnormal_results', {
      Cin: 1, Cout: 2, H: 2, W: 2, kH: 1, kW: 2, x: [2 ** -70, 3 * 2 ** -71, -(2 ** -65), 2 ** -80],
      w: [2 ** -60, 2 ** -61, -(2 ** -75), 2 ** -70],
    }, ['subnormal']);
    c('overflow', {
      Cin: 1, Cout: 3, H: 1, W: 3, kH: 1, kW: 2, x: [3e38, 3e38, -2e38],
      w: [1, 1, -1, -1, 1, 0.5],
    }, ['overflow']);
  }
  return out;
}

function conv2dErrors() {
  const out = [];
  const f = (dt, shape) => T(dt, shape, 1);
  const e = (tag, inputs, opts, labels = [F32]) => {
    const args = [{ input: 'input' }, { filter: 'filter' }];
    if (opts) args.push({ options: opts });
    out.push(winError({ op: 'conv2d', name: `webnn.conv2d.error.${tag}`, labels: ['conv2d', ...labels], inputs, args }));
  };
  const x = f(F32, [1, 2, 4, 4]);
  const w = C(F32, [3, 2, 2, 2], 1);
  e('input_int32', { input: f('int32', [1, 2, 4, 4]), filter: C('int32', [3, 2, 2, 2], 1) }, null, ['int32']);
  e('input_uint8', { input: f('uint8', [1, 2, 4, 4]), filter: C(F32, [3, 2, 2, 2], 1) }, null, ['uint8']);
  e('input_rank_3', { input: f(F32, [2, 4, 4]), filter: w }, null);
  e('input_rank_5', { input: f(F32, [1, 1, 2, 4, 4]), filter: w }, null);
  e('filter_rank_3', { input: x, filter: C(F32, [3, 2, 2], 1) }, null);
  e('filter_float16_input_float32', { input: x, filter: C(F16, [3, 2, 2, 2], 1) }, null);
  e('filter_float32_input_float16', { input: f(F16, [1, 2, 4, 4]), filter: C(F32, [3, 2, 2, 2], 1) }, null, [F16]);
  e('filter_int8', { input: x, filter: C('int8', [3, 2, 2, 2], 1) }, null);
  e('padding_size_3', { input: x, filter: w }, { padding: [1, 1, 1] });
  e('padding_size_2', { input: x, filter: w }, { padding: [1, 1] });
  e('strides_size_1', { input: x, filter: w }, { strides: [1] });
  e('strides_zero', { input: x, filter: w }, { strides: [1, 0] });
  e('dilations_size_3', { input: x, filter: w }, { dilations: [1, 1, 1] });
  e('dilations_zero', { input: x, filter: w }, { dilations: [0, 1] });
  e('groups_zero', { input: x, filter: w }, { groups: 0 });
  e('input_channels_not_divisible_by_groups', { input: f(F32, [1, 3, 4, 4]), filter: C(F32, [4, 1, 2, 2], 1) },
    { groups: 2 });
  e('filter_input_channels_mismatch', { input: f(F32, [1, 4, 4, 4]), filter: C(F32, [2, 4, 2, 2], 1) },
    { groups: 2 });
  e('filter_input_channels_mismatch_nhwc_ohwi', { input: f(F32, [1, 4, 4, 3]), filter: C(F32, [2, 2, 2, 2], 1) },
    { inputLayout: 'nhwc', filterLayout: 'ohwi' });
  e('filter_input_channels_mismatch_hwio', { input: x, filter: C(F32, [2, 2, 3, 3], 1) }, { filterLayout: 'hwio' });
  e('output_channels_not_divisible_by_groups', { input: f(F32, [1, 4, 4, 4]), filter: C(F32, [3, 2, 2, 2], 1) },
    { groups: 2 });
  e('bias_shape_mismatch', { input: x, filter: w, bias: C(F32, [2], 1) }, { bias: 'bias' });
  e('bias_rank_2', { input: x, filter: w, bias: C(F32, [1, 3], 1) }, { bias: 'bias' });
  e('bias_float16', { input: x, filter: w, bias: C(F16, [3], 1) }, { bias: 'bias' });
  e('kernel_larger_than_input', { input: x, filter: C(F32, [3, 2, 5, 2], 1) }, null);
  e('dilated_kernel_larger_than_input', { input: x, filter: w }, { dilations: [1, 4] });
  e('dilated_kernel_larger_than_input_nhwc_ihwo',
    { input: f(F32, [1, 4, 4, 2]), filter: C(F32, [2, 2, 2, 3], 1) },
    { dilations: [4, 1], inputLayout: 'nhwc', filterLayout: 'ihwo' });
  e('kernel_larger_than_input_float16', { input: f(F16, [1, 2, 3, 3]), filter: C(F16, [1, 2, 4, 1], 1) }, null, [F16]);
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// convTranspose2d

const T_GROUP_KINDS = {
  single: { Cin: 2, Cout: 3, groups: 1 },
  grouped: { Cin: 4, Cout: 4, groups: 2 },
  depthwise: { Cin: 3, Cout: 3, groups: 3 },
};

function convT(t, tag, s, labels) {
  return buildConv('convTranspose2d', t, tag, s, labels);
}

function convTransposeFloatCases(t) {
  const out = [];
  const c = (tag, s, labels = []) => out.push(convT(t, tag, s, labels));
  for (const il of ['nchw', 'nhwc']) {
    for (const fl of ['iohw', 'hwoi', 'ohwi']) {
      for (const [gk, g] of Object.entries(T_GROUP_KINDS)) {
        for (const st of [false, true]) {
          const s = { ...g, H: 3, W: 2, kH: 2, kW: 3, inputLayout: il, filterLayout: fl };
          if (g.groups !== 1 || il === 'nhwc') s.groups = g.groups;
          if (st) Object.assign(s, { strides: [2, 3], bias: true });
          c(`${il}_${fl}_${gk}_${st ? 'strides_2x3_bias' : 'stride_1'}`, s,
            ['layouts', gk, ...(st ? ['strides', 'bias'] : [])]);
        }
      }
    }
  }
  c('output_padding', { Cin: 1, Cout: 2, H: 2, W: 3, kH: 3, kW: 3, strides: [2, 2], outputPadding: [1, 0] },
    ['output_padding', 'strides']);
  c('output_padding_with_padding_nhwc_hwoi', {
    Cin: 2, Cout: 2, H: 3, W: 2, kH: 3, kW: 2, strides: [2, 3], padding: [1, 1, 1, 1], outputPadding: [1, 2],
    inputLayout: 'nhwc', filterLayout: 'hwoi',
  }, ['output_padding', 'padding', 'strides']);
  c('output_sizes_calculated', { Cin: 2, Cout: 1, H: 2, W: 3, kH: 2, kW: 2, strides: [2, 3], outputSizes: [4, 8] },
    ['output_sizes', 'strides']);
  c('output_sizes_largest', { Cin: 2, Cout: 1, H: 2, W: 3, kH: 2, kW: 2, strides: [2, 3], outputSizes: [5, 10] },
    ['output_sizes', 'strides']);
  c('output_sizes_ignore_output_padding_ohwi', {
    Cin: 1, Cout: 2, H: 2, W: 2, kH: 2, kW: 3, strides: [3, 2], padding: [1, 0, 0, 1], outputSizes: [5, 5],
    outputPadding: [4, 4], filterLayout: 'ohwi',
  }, ['output_sizes', 'output_padding', 'padding', 'strides']);
  c('padding_asymmetric', { Cin: 2, Cout: 2, H: 3, W: 3, kH: 3, kW: 2, padding: [1, 0, 0, 2] }, ['padding']);
  c('dilations_2x1_strides_1x2', { Cin: 1, Cout: 2, H: 3, W: 3, kH: 2, kW: 2, dilations: [2, 1], strides: [1, 2] },
    ['dilations', 'strides']);
  c('all_options_grouped_nhwc_hwoi', {
    Cin: 4, Cout: 6, groups: 2, H: 3, W: 3, kH: 3, kW: 2, padding: [1, 2, 0, 1], strides: [2, 2], dilations: [1, 2],
    outputPadding: [1, 1], bias: true, inputLayout: 'nhwc', filterLayout: 'hwoi',
  }, ['grouped', 'padding', 'strides', 'dilations', 'output_padding', 'bias']);
  c('all_options_depthwise_nchw_ohwi', {
    Cin: 3, Cout: 3, groups: 3, H: 2, W: 3, kH: 2, kW: 2, padding: [0, 1, 1, 0], strides: [3, 2], dilations: [2, 2],
    outputSizes: [5, 6], bias: true, inputLayout: 'nchw', filterLayout: 'ohwi',
  }, ['depthwise', 'padding', 'strides', 'dilations', 'output_sizes', 'bias']);
  c('bias', { Cin: 2, Cout: 3, H: 2, W: 2, kH: 2, kW: 2, bias: true }, ['bias']);
  c('batch_2_nhwc', { N: 2, Cin: 2, Cout: 2, H: 2, W: 2, kH: 2, kW: 2, strides: [2, 1], inputLayout: 'nhwc' },
    ['batch', 'strides']);
  c('no_options', { Cin: 2, Cout: 2, H: 2, W: 3, kH: 2, kW: 2, options: 'omit' }, ['defaults']);
  c('explicit_defaults', { Cin: 2, Cout: 2, H: 2, W: 3, kH: 2, kW: 2, options: 'explicit' }, ['defaults']);
  c('kernel_1x1_strides_2_bias', { Cin: 2, Cout: 2, H: 2, W: 3, kH: 1, kW: 1, strides: [2, 2], bias: true },
    ['kernel_1x1', 'strides', 'bias']);
  c('input_1x1', { Cin: 2, Cout: 3, H: 1, W: 1, kH: 2, kW: 3 }, ['input_1x1']);
  c('padding_larger_than_kernel', { Cin: 1, Cout: 2, H: 4, W: 4, kH: 2, kW: 2, strides: [2, 2], padding: [3, 3, 3, 2] },
    ['padding', 'padding_larger_than_kernel', 'strides']);
  c('filter_not_constant', { Cin: 2, Cout: 2, H: 2, W: 2, kH: 2, kW: 2, filterInput: true }, ['filter_input']);
  c('larger_random', {
    N: 2, Cin: 4, Cout: 6, groups: 2, H: 5, W: 4, kH: 3, kW: 3, padding: [1, 1, 1, 1], strides: [2, 2],
    outputPadding: [1, 1], bias: true, range: t === F16 ? [-2, 2] : [-10, 10],
  }, ['generator', 'grouped', 'padding', 'strides', 'output_padding', 'bias']);
  c('special_values', {
    Cin: 1, Cout: 2, H: 1, W: 4, kH: 1, kW: 2, x: [1, Infinity, NaN, -Infinity], w: [1, 2, -1, 0.5],
  }, ['special_values']);
  const big = t === F32 ? 2 ** 24 : 2048;
  c('exact_accumulation', {
    Cin: 1, Cout: 1, H: 1, W: 3, kH: 1, kW: 3, x: [big, 1, -big], w: [1, 1, 1],
  }, ['accumulation']);
  if (t === F16) {
    c('overflow', { Cin: 2, Cout: 1, H: 1, W: 2, kH: 1, kW: 1, x: [60000, -40000, 30000, -40000], w: [1, 1] },
      ['overflow']);
  } else {
    c('overflow', { Cin: 2, Cout: 1, H: 1, W: 2, kH: 1, kW: 1, x: [3e38, -2e38, 1e38, -2e38], w: [1, 1] },
      ['overflow']);
  }
  return out;
}

function convTransposeErrors() {
  const out = [];
  const f = (dt, shape) => T(dt, shape, 1);
  const e = (tag, inputs, opts, labels = [F32]) => {
    const args = [{ input: 'input' }, { filter: 'filter' }];
    if (opts) args.push({ options: opts });
    out.push(winError({
      op: 'convTranspose2d', name: `webnn.convTranspose2d.error.${tag}`, labels: ['convTranspose2d', ...labels],
      inputs, args,
    }));
  };
  const x = f(F32, [1, 2, 3, 3]);
  const w = C(F32, [2, 3, 2, 2], 1);
  e('input_rank_3', { input: f(F32, [2, 3, 3]), filter: w }, null);
  e('input_int32', { input: f('int32', [1, 2, 3, 3]), filter: C('int32', [2, 3, 2, 2], 1) }, null, ['int32']);
  e('input_int8', { input: f('int8', [1, 2, 3, 3]), filter: w }, null, ['int8']);
  e('filter_rank_5', { input: x, filter: C(F32, [2, 3, 2, 2, 1], 1) }, null);
  e('filter_float16_input_float32', { input: x, filter: C(F16, [2, 3, 2, 2], 1) }, null);
  e('filter_float32_input_float16', { input: f(F16, [1, 2, 3, 3]), filter: w }, null, [F16]);
  e('padding_size_2', { input: x, filter: w }, { padding: [1, 1] });
  e('strides_size_3', { input: x, filter: w }, { strides: [1, 1, 1] });
  e('strides_zero', { input: x, filter: w }, { strides: [0, 1] });
  e('dilations_size_1', { input: x, filter: w }, { dilations: [2] });
  e('dilations_zero', { input: x, filter: w }, { dilations: [1, 0] });
  e('output_padding_size_1', { input: x, filter: w }, { outputPadding: [0] });
  e('output_sizes_size_3', { input: x, filter: w }, { outputSizes: [4, 4, 4] });
  e('output_padding_equal_to_strides', { input: x, filter: w }, { strides: [2, 2], outputPadding: [0, 2] });
  e('output_padding_with_default_strides', { input: x, filter: w }, { outputPadding: [1, 0] });
  e('groups_zero', { input: x, filter: w }, { groups: 0 });
  e('filter_input_channels_mismatch', { input: x, filter: C(F32, [3, 3, 2, 2], 1) }, null);
  e('filter_input_channels_mismatch_hwoi', { input: x, filter: C(F32, [2, 2, 3, 3], 1) }, { filterLayout: 'hwoi' });
  e('filter_input_channels_mismatch_nhwc_ohwi', { input: f(F32, [1, 3, 3, 2]), filter: C(F32, [3, 2, 2, 3], 1) },
    { inputLayout: 'nhwc', filterLayout: 'ohwi' });
  // spec-notes #11: the steps never check that the input channels divide by groups; rejected like conv2d.
  e('input_channels_not_divisible_by_groups', { input: f(F32, [1, 3, 3, 3]), filter: C(F32, [3, 1, 2, 2], 1) },
    { groups: 2 }, [F32, 'spec_notes_11']);
  e('bias_shape_mismatch', { input: x, filter: w, bias: C(F32, [2], 1) }, { bias: 'bias' });
  e('bias_shape_per_group', { input: f(F32, [1, 4, 3, 3]), filter: C(F32, [4, 3, 2, 2], 1), bias: C(F32, [3], 1) },
    { bias: 'bias', groups: 2 });
  e('bias_float16', { input: x, filter: w, bias: C(F16, [3], 1) }, { bias: 'bias' });
  // calculated output size for H=W=3, k=2, strides 2: 6; outputSizes must lie in [6, 8).
  e('output_sizes_below_calculated', { input: x, filter: w }, { strides: [2, 2], outputSizes: [5, 6] });
  e('output_sizes_at_calculated_plus_stride', { input: x, filter: w }, { strides: [2, 2], outputSizes: [6, 8] });
  e('output_sizes_with_default_strides', { input: x, filter: w }, { outputSizes: [4, 5] });
  e('output_size_not_positive', { input: x, filter: w }, { padding: [2, 2, 0, 0] });
  e('output_size_not_positive_float16', { input: f(F16, [1, 2, 3, 3]), filter: C(F16, [2, 3, 2, 2], 1) },
    { padding: [0, 0, 3, 1] }, [F16]);
  return out;
}

export function convFiles() {
  const c2 = [];
  const ct = [];
  for (const t of FLOAT_TYPES) {
    c2.push(...conv2dFloatCases(t));
    ct.push(...convTransposeFloatCases(t));
  }
  c2.push(...conv2dErrors());
  ct.push(...convTransposeErrors());
  return { conv2d: c2, convTranspose2d: ct };
}
