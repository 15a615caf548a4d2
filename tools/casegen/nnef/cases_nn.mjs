// 4.6 RoI, 4.7 matmul, 4.8 update, 4.1 variables, 4.9 compounds (activations, linear, normalization,
// quantization, add_n, moments).

import { T, dyadic, distinct, ints, iota, volume } from './tensor.mjs';
import { single, doc, S } from './casekit.mjs';
import { A } from './cases_window.mjs';

const call = (op, args, a) => `${op}(${args.join(', ')}${a && Object.keys(a).length ? `, ${A(a)}` : ''})`;

// Refuse data whose quantization rounding step lands near a .5 boundary (the result would depend on the last bits).
function checkMargin(values, what, margin = 0.01) {
  for (const v of values) {
    if (!Number.isFinite(v)) continue;
    const f = v - Math.floor(v);
    if (f === 0.5) continue; // an exact tie (exact arithmetic in float32 too: the float32-mode check confirms it)
    if (Math.abs(f - 0.5) < margin) throw new Error(`${what}: pre-rounding value ${v} is within ${margin} of a .5 boundary`);
  }
}
export function linearQuantizeMargin(x, min, max, bits, what) {
  const r = 2 ** bits - 1;
  checkMargin(x.map((v, i) => {
    const lo = Array.isArray(min) ? min[i] : min, hi = Array.isArray(max) ? max[i] : max;
    const z = Math.min(Math.max(v, lo), hi);
    return ((z - lo) / (hi - lo)) * r;
  }), what);
}

export function nnCases() {
  const cases = [];
  const add = (c) => cases.push(c);
  const op1 = (name, desc, x, op, a, extra) =>
    add(single(name, desc, { x }, call(op, ['x'], a), (o, I) => o[op](I.x, a), extra));
  const d4 = (seed, shape, lo = -2, hi = 2) => dyadic(`nn.${seed}`, shape, lo, hi, 4);

  // ------------------------------------------------------------------------------------------------ matmul
  const mm = (name, desc, as, bs, a = {}) => add(single(name, desc, { a: d4(`${name}.a`, as), b: d4(`${name}.b`, bs) },
    call('matmul', ['a', 'b'], a), (o, I) => o.matmul(I.a, I.b, a)));
  mm('matmul.basic', 'matmul [3,4] x [4,2]', [3, 4], [4, 2]);
  mm('matmul.transpose_a', 'transposeA: [4,3]^T x [4,2]', [4, 3], [4, 2], { transposeA: true });
  mm('matmul.transpose_b', 'transposeB: [3,4] x [2,4]^T', [3, 4], [2, 4], { transposeB: true });
  mm('matmul.transpose_both', 'transposeA and transposeB', [4, 3], [2, 4], { transposeA: true, transposeB: true });
  mm('matmul.batch', 'batched matmul [2,3,4] x [2,4,2]', [2, 3, 4], [2, 4, 2]);
  mm('matmul.batch_broadcast', 'batch dimensions broadcast: [2,1,2,3] x [1,3,3,2] -> [2,3,2,2]', [2, 1, 2, 3], [1, 3, 3, 2]);
  mm('matmul.vector', 'row vector times matrix [1,5] x [5,3]', [1, 5], [5, 3]);

  add(single('linear.basic', 'linear = matmul(input, filter, transposeB = true) + bias',
    { x: d4('lin.x', [2, 4]), w: d4('lin.w', [3, 4]), b: d4('lin.b', [1, 3]) }, 'linear(x, w, b)',
    (o, I) => o.linear(I.x, I.w, I.b)));
  add(single('linear.no_bias', 'linear with the default bias 0.0', { x: d4('linnb.x', [3, 5]), w: d4('linnb.w', [2, 5]) },
    'linear(x, w)', (o, I) => o.linear(I.x, I.w)));

  // ------------------------------------------------------------------------------------------- activations
  const act = dyadic('act.x', [2, 6], -4, 4, 8);
  op1('sigmoid.basic', 'sigmoid = 1 / (1 + exp(-x))', act, 'sigmoid', undefined, { transcendental: true });
  op1('relu.basic', 'relu = max(x, 0.0)', act, 'relu');
  add(single('prelu.channel_alpha', 'prelu with a per-channel alpha [1,3] broadcast over [1,3,2,2]',
    { x: d4('prelu.x', [1, 3, 2, 2]), alpha: T([1, 3], [0.25, -0.5, 2]) }, 'prelu(x, alpha)', (o, I) => o.prelu(I.x, I.alpha)));
  add(single('leaky_relu.basic', 'leaky_relu(x, alpha = 0.125)', { x: act }, 'leaky_relu(x, alpha = 0.125)',
    (o, I) => o.leaky_relu(I.x, { alpha: 0.125 })));
  op1('elu.basic', 'elu = select(x < 0, exp(x) - 1, x)', act, 'elu', undefined, { transcendental: true });
  op1('tanh.basic', 'tanh = (exp(x) - exp(-x)) / (exp(x) + exp(-x))',
    dyadic('tanh.x', [2, 5], -3, 3, 4, { exclude: (v) => v !== 0 && Math.abs(v) < 0.5 }), 'tanh', undefined, { transcendental: true });
  op1('softplus.basic', 'softplus = log(exp(x) + 1)', act, 'softplus', undefined, { transcendental: true });
  op1('softmax.default_axes', 'softmax with the default axes [1]', dyadic('sm.x', [2, 4], -3, 3, 4), 'softmax', undefined, { transcendental: true });
  op1('softmax.axis2', 'softmax over axis 2 of [2,2,3]', dyadic('sm2.x', [2, 2, 3], -3, 3, 4), 'softmax', { axes: [2] }, { transcendental: true });
  op1('softmax.axes12', 'softmax over axes [1,2] together', dyadic('sm12.x', [2, 2, 3], -3, 3, 4), 'softmax', { axes: [1, 2] }, { transcendental: true });

  // ------------------------------------------------------------------------------------------ normalization
  const nx = d4('norm.x', [1, 4, 3, 3]);
  add(single('local_response_normalization.basic', 'LRN across 3 channels: input / (bias + alpha * avg(x^2))^beta',
    { x: nx }, 'local_response_normalization(x, size = [1, 3, 1, 1], alpha = 0.5, beta = 0.75, bias = 2.0)',
    (o, I) => o.local_response_normalization(I.x, { size: [1, 3, 1, 1], alpha: 0.5, beta: 0.75, bias: 2.0 }), { transcendental: true }));
  add(single('local_response_normalization.defaults', 'LRN with default alpha 1.0, beta 0.5, bias 1.0, spatial window',
    { x: nx }, 'local_response_normalization(x, size = [1, 1, 3, 3])',
    (o, I) => o.local_response_normalization(I.x, { size: [1, 1, 3, 3] }), { transcendental: true }));
  add(single('local_mean_normalization.basic', 'local_mean_normalization = x - box(x, normalize = true)',
    { x: nx }, 'local_mean_normalization(x, size = [1, 1, 3, 3])',
    (o, I) => o.local_mean_normalization(I.x, { size: [1, 1, 3, 3] }), { tolerance: { metricType: 'ATOL', value: 1e-6 } }));
  add(single('local_variance_normalization.basic', 'local_variance_normalization with bias 0.5 and epsilon 0.25',
    { x: nx }, 'local_variance_normalization(x, size = [1, 1, 3, 3], bias = 0.5, epsilon = 0.25)',
    (o, I) => o.local_variance_normalization(I.x, { size: [1, 1, 3, 3], bias: 0.5, epsilon: 0.25 }), { transcendental: true }));
  add(single('local_contrast_normalization.basic', 'local_contrast_normalization: mean then variance normalization',
    { x: nx }, 'local_contrast_normalization(x, size = [1, 2, 2, 2], epsilon = 0.5)',
    (o, I) => o.local_contrast_normalization(I.x, { size: [1, 2, 2, 2], epsilon: 0.5 }),
    { tolerance: { metricType: 'ATOL', value: 1e-5 } }));
  const lx = T([3, 4], [1, -2, 0.5, 0.5, 0, 0, 0, 0, 3, 4, 0, -1.5]);
  add(single('l1_normalization.basic', 'l1_normalization over axis 1 with epsilon 0.125 (the zero row divides by epsilon)',
    { x: lx }, 'l1_normalization(x, axes = [1], epsilon = 0.125)', (o, I) => o.l1_normalization(I.x, { axes: [1], epsilon: 0.125 })));
  add(single('l1_normalization.bias', 'l1_normalization over both axes with bias 1.0',
    { x: lx }, 'l1_normalization(x, axes = [0, 1], bias = 1.0)', (o, I) => o.l1_normalization(I.x, { axes: [0, 1], bias: 1.0 })));
  add(single('l2_normalization.basic', 'l2_normalization over axis 1 with epsilon 0.125',
    { x: lx }, 'l2_normalization(x, axes = [1], epsilon = 0.125)', (o, I) => o.l2_normalization(I.x, { axes: [1], epsilon: 0.125 }),
    { transcendental: true }));
  add(single('l2_normalization.channels', 'l2_normalization over the channel axis of [1,3,2,2] with bias 0.5',
    { x: d4('l2c', [1, 3, 2, 2]) }, 'l2_normalization(x, axes = [1], bias = 0.5)', (o, I) => o.l2_normalization(I.x, { axes: [1], bias: 0.5 }),
    { transcendental: true }));
  {
    const x = d4('bn.x', [2, 3, 2, 2]);
    const mean = T([1, 3], [0.5, -0.25, 0]);
    const variance = T([1, 3], [0.25, 1, 2.25]);
    const offset = T([1, 3], [0, 1, -0.5]);
    const scale = T([1, 3], [1, 0.5, 2]);
    add({
      name: 'batch_normalization.basic',
      description: 'batch_normalization with [1,C] statistics from variables; variance + epsilon not a perfect square',
      graph: doc({ inputs: [['x', x]], outputs: ['y'], body: [
        "mean = variable(shape = [1, 3], label = 'bn/mean');",
        "variance = variable(shape = [1, 3], label = 'bn/variance');",
        "offset = variable(shape = [1, 3], label = 'bn/offset');",
        "scale = variable(shape = [1, 3], label = 'bn/scale');",
        'y = batch_normalization(x, mean, variance, offset, scale, epsilon = 0.0009765625);',
      ] }),
      inputs: { x },
      variables: { 'bn/mean': mean, 'bn/variance': variance, 'bn/offset': offset, 'bn/scale': scale },
      compute: (o, I, V) => ({ y: o.batch_normalization(I.x, V['bn/mean'], V['bn/variance'], V['bn/offset'], V['bn/scale'], { epsilon: 0.0009765625 }) }),
      transcendental: true,
    });
    add(single('batch_normalization.exact', 'batch_normalization where variance + epsilon are perfect squares',
      { x, mean, variance: T([1, 3], [0.1875, 0.9375, 3.9375]), offset, scale },
      'batch_normalization(x, mean, variance, offset, scale, epsilon = 0.0625)',
      (o, I) => o.batch_normalization(I.x, I.mean, I.variance, I.offset, I.scale, { epsilon: 0.0625 }), { transcendental: true }));
  }

  // ------------------------------------------------------------------------------------------- quantization
  {
    const xq = T([2, 5], [-1.5, -1, -0.3, 0, 0.1, 0.37, 0.6, 0.99, 1, 2]);
    linearQuantizeMargin(xq.data, -1, 1, 8, 'linear_quantize.basic');
    add(single('linear_quantize.basic', 'linear_quantize(min -1, max 1, bits 8): clamp, round((z-min)/(max-min)*r) (0 gives 127.5, rounded up), dequantize',
      { x: xq }, 'linear_quantize(x, -1.0, 1.0, bits = 8)', (o, I) => o.linear_quantize(I.x, -1.0, 1.0, { bits: 8 }),
      { tolerance: { metricType: 'ATOL', value: 1e-6 } }));
    const xq2 = T([1, 2, 4], [0.12, 0.45, 0.8, 1.3, -3, -1.2, 0.7, 2.9]);
    const mins = [0, 0, 0, 0, -2, -2, -2, -2], maxs = [1, 1, 1, 1, 2, 2, 2, 2];
    linearQuantizeMargin(xq2.data, mins, maxs, 4, 'linear_quantize.tensor_range');
    add(single('linear_quantize.tensor_range', 'linear_quantize with per-channel min/max tensors [1,2] and 4 bits',
      { x: xq2, lo: T([1, 2], [0, -2]), hi: T([1, 2], [1, 2]) }, 'linear_quantize(x, lo, hi, bits = 4)',
      (o, I) => o.linear_quantize(I.x, I.lo, I.hi, { bits: 4 }), { tolerance: { metricType: 'ATOL', value: 1e-6 } }));
    const xl = T([2, 5], [0, 1, -1, 3, -5, 0.25, 0.01, 100, -0.0625, 6]);
    checkMargin(xl.data.map((v) => Math.log2(Math.abs(v))), 'logarithmic_quantize');
    add(single('logarithmic_quantize.basic', 'logarithmic_quantize(max 6.0, bits 3): m = ceil(log2 6) = 3, exponents clamped to [-4, 3]',
      { x: xl }, 'logarithmic_quantize(x, 6.0, bits = 3)', (o, I) => o.logarithmic_quantize(I.x, 6.0, { bits: 3 }),
      { transcendental: true }));
  }

  // ------------------------------------------------------------------------------------------------- RoI
  {
    const fm = iota([2, 2, 6, 6], -9, 0.25);
    const rois = T([3, 4], [0, 0, 4, 4, 1, 2, 5, 6, 2, 0, 6, 6]);
    const bi = T([3, 1], [0, 1, 0], 'integer');
    const roi = (name, desc, op, inputs, a, extra) =>
      add(single(name, desc, inputs, call(op, ['x', 'rois', 'index'], a), (o, I) => o[op](I.x, I.rois, I.index, a), extra));
    roi('avg_roi_pool.basic', 'avg_roi_pool: RoIs (y0,x0,y1,x1) divisible into 2x2 cells', 'avg_roi_pool',
      { x: fm, rois, index: bi }, { output_size: [2, 2] });
    roi('max_roi_pool.basic', 'max_roi_pool: RoIs divisible into 2x2 cells', 'max_roi_pool',
      { x: distinct('roi.d', [2, 2, 6, 6], -9, 4), rois, index: bi }, { output_size: [2, 2] });
    const fr = T([2, 4], [0.25, 0.75, 3.75, 4.25, 1.2, -0.3, 4.9, 2.6]);
    roi('avg_roi_pool.rounded_coordinates', 'RoI coordinates are first rounded to the nearest integers', 'avg_roi_pool',
      { x: fm, rois: fr, index: T([2, 1], [1, 0], 'integer') }, { output_size: [1, 2] });
    const ur = T([2, 4], [0, 0, 5, 5, 1, 1, 6, 4]);
    roi('avg_roi_pool.uneven_cells', 'RoI extent 5 in 2 cells: cell size ceil(5/2) = 3, cell stride floor(5/2) = 2 (cells overlap)',
      'avg_roi_pool', { x: fm, rois: ur, index: T([2, 1], [0, 1], 'integer') }, { output_size: [2, 2] });
    roi('max_roi_pool.uneven_cells', 'max_roi_pool with overlapping cells', 'max_roi_pool',
      { x: distinct('roi.u', [2, 2, 6, 6], -9, 4), rois: ur, index: T([2, 1], [1, 0], 'integer') }, { output_size: [2, 2] });
    const rx = d4('rr.x', [2, 1, 4, 5]);
    roi('roi_resample.symmetric', "roi_resample (method 'symmetric') of a 2x2 RoI to 4x4 and a 2x4 RoI to 4x4", 'roi_resample',
      { x: rx, rois: T([2, 4], [1, 1, 3, 3, 1, 0, 3, 4]), index: T([2, 1], [0, 1], 'integer') }, { output_size: [4, 4] });
    roi('roi_resample.asymmetric', "roi_resample method 'asymmetric'", 'roi_resample',
      { x: rx, rois: T([1, 4], [0, 1, 2, 4]), index: T([1, 1], [1], 'integer') }, { output_size: [4, 6], method: 'asymmetric' });
    roi('roi_resample.downscale', 'roi_resample of a 4x4 RoI to 2x2 (symmetric samples at pixel corners)', 'roi_resample',
      { x: rx, rois: T([1, 4], [0, 0, 4, 4]), index: T([1, 1], [0], 'integer') }, { output_size: [2, 2] });
    roi('avg_roi_align.basic', 'avg_roi_align: roi_resample to output*sampling_rate, then average sampling_rate blocks',
      'avg_roi_align', { x: rx, rois: T([2, 4], [0, 0, 4, 4, 1, 1, 3, 5]), index: T([2, 1], [1, 0], 'integer') },
      { output_size: [2, 2], sampling_rate: [2, 2] });
    roi('max_roi_align.basic', 'max_roi_align: roi_resample then max over sampling_rate blocks', 'max_roi_align',
      { x: rx, rois: T([2, 4], [0, 0, 4, 4, 1, 1, 3, 5]), index: T([2, 1], [1, 0], 'integer') },
      { output_size: [2, 2], sampling_rate: [2, 2] });
    roi('avg_roi_align.asymmetric', "avg_roi_align with resize_method 'asymmetric' and sampling_rate [1,2]", 'avg_roi_align',
      { x: rx, rois: T([1, 4], [0, 0, 2, 4]), index: T([1, 1], [0], 'integer') },
      { output_size: [2, 2], sampling_rate: [1, 2], resize_method: 'asymmetric' });
  }

  // ----------------------------------------------------------------------------------- variables, update
  {
    const v = d4('upd.v', [2, 3]);
    const x = d4('upd.x', [2, 3]);
    add({
      name: 'update.basic',
      description: 'update returns the new value; the variable itself still refers to the value at the start of the cycle',
      graph: doc({ inputs: [['x', x]], outputs: ['y', 'z'], body: [
        "v = variable(shape = [2, 3], label = 'state');",
        'y = update(v, x);',
        'z = add(v, x);',
      ] }),
      inputs: { x },
      variables: { state: v },
      compute: (o, I, V) => ({ y: o.update(V.state, I.x), z: o.add(V.state, I.x) }),
    });
    add({
      name: 'update.accumulator',
      description: 'a recurrent accumulator: the updated value is state + x',
      graph: doc({ inputs: [['x', x]], outputs: ['acc'], body: [
        "state = variable(shape = [2, 3], label = 'rnn/state');",
        'sum = add(state, x);',
        'acc = update(state, sum);',
      ] }),
      inputs: { x },
      variables: { 'rnn/state': v },
      compute: (o, I, V) => ({ acc: o.update(V['rnn/state'], o.add(V['rnn/state'], I.x)) }),
    });
    const w = d4('var.w', [2, 2]);
    add({
      name: 'variable.shared_label',
      description: 'two variable operations with the same label share the data',
      graph: doc({ inputs: [['x', T([2, 2], [0, 0, 0, 0])]], outputs: ['y'], body: [
        "a = variable(shape = [2, 2], label = 'shared/w');",
        "b = variable(shape = [2, 2], label = 'shared/w');",
        'p = mul(x, a);',
        'y = add(p, b);',
      ] }),
      inputs: { x: d4('var.x', [2, 2]) },
      variables: { 'shared/w': w },
      compute: (o, I, V) => ({ y: o.add(o.mul(I.x, V['shared/w']), V['shared/w']) }),
    });
    add({
      name: 'variable.deep_label',
      description: "label 'block1/conv1/weights' is stored as block1/conv1/weights.dat; labels may contain - . _",
      graph: doc({ inputs: [['x', T([2, 2], [0, 0, 0, 0])]], outputs: ['y'], body: [
        "w = variable(shape = [2, 2], label = 'block1/conv1/weights');",
        "b = variable(shape = [1, 2], label = 'block1/conv1/bias-v1.0_x');",
        'p = matmul(x, w);',
        'y = add(p, b);',
      ] }),
      inputs: { x: d4('vd.x', [2, 2]) },
      variables: { 'block1/conv1/weights': w, 'block1/conv1/bias-v1.0_x': d4('vd.b', [1, 2]) },
      compute: (o, I, V) => ({ y: o.add(o.matmul(I.x, V['block1/conv1/weights']), V['block1/conv1/bias-v1.0_x']) }),
    });
  }

  // ------------------------------------------------------------------------------------------- misc 4.9.6
  add(single('add_n.basic', 'add_n of three tensors (recursive standard fragment)',
    { a: d4('addn.a', [2, 3]), b: d4('addn.b', [2, 3]), c: d4('addn.c', [2, 3]) }, 'add_n([a, b, c])',
    (o, I) => o.add_n([I.a, I.b, I.c])));
  add(single('add_n.single', 'add_n of a one-item array', { a: d4('addn1.a', [3]) }, 'add_n([a])', (o, I) => o.add_n([I.a])));
  add({
    name: 'moments.basic',
    description: 'moments over the spatial axes: mean and variance (mean of squared deviations)',
    graph: doc({ inputs: [['x', T([1, 2, 2, 4], new Array(16).fill(0))]], outputs: ['mean', 'variance'], body: [
      'mean, variance = moments(x, axes = [2, 3]);',
    ] }),
    inputs: { x: d4('mom.x', [1, 2, 2, 4]) },
    compute: (o, I) => { const [mean, variance] = o.moments(I.x, { axes: [2, 3] }); return { mean, variance }; },
  });
  add({
    name: 'moments.axis1',
    description: 'moments over axis 1 (3 values: inexact mean)',
    graph: doc({ inputs: [['x', T([2, 3], new Array(6).fill(0))]], outputs: ['mean', 'variance'], body: [
      'mean, variance = moments(x, axes = [1]);',
    ] }),
    inputs: { x: d4('mom1.x', [2, 3]) },
    compute: (o, I) => { const [mean, variance] = o.moments(I.x, { axes: [1] }); return { mean, variance }; },
  });
  return cases;
}

export { S, volume, ints };
