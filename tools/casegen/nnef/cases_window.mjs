// 4.3 sliding-window operations and the pooling compounds of 4.9.3 (plus separable_conv/deconv of 4.9.2).
// Data are multiples of 1/4 in [-2, 2] so every product and sum is exact in float32: exact tolerance.

import { T, dyadic, distinct, ints, iota } from './tensor.mjs';
import { single, doc, attrs, pads } from './casekit.mjs';

export function A(a) { // JS attributes -> NNEF text (padding as tuples)
  return attrs(Object.fromEntries(Object.entries(a).map(([k, v]) => [k, k === 'padding' ? pads(v) : v])));
}
const call = (op, args, a) => `${op}(${args.join(', ')}${a && Object.keys(a).length ? `, ${A(a)}` : ''})`;
const d4 = (seed, shape, lo = -2, hi = 2) => dyadic(`win.${seed}`, shape, lo, hi, 4);

export function windowCases() {
  const cases = [];
  const add = (c) => cases.push(c);
  const op1 = (name, desc, inputs, op, a, extra) =>
    add(single(name, desc, inputs, call(op, Object.keys(inputs), a), (o, I) => o[op](I[Object.keys(inputs)[0]], a), extra));

  // ----------------------------------------------------------------------------------------------- conv
  {
    const x = d4('conv.x', [1, 2, 5, 5]);
    const w = d4('conv.w', [3, 2, 3, 3]);
    const b = d4('conv.b', [1, 3]);
    add({
      name: 'conv.basic',
      description: 'conv with filter and bias from variables, automatic padding [] (stride 1: same size), border constant',
      graph: doc({ inputs: [['x', x]], outputs: ['y'], body: [
        "w = variable(shape = [3, 2, 3, 3], label = 'conv/filter');",
        "b = variable(shape = [1, 3], label = 'conv/bias');",
        'y = conv(x, w, b);',
      ] }),
      inputs: { x },
      variables: { 'conv/filter': w, 'conv/bias': b },
      compute: (o, I, V) => ({ y: o.conv(I.x, V['conv/filter'], V['conv/bias']) }),
    });
    const cv = (name, desc, xs, ws, a, opts = {}) => {
      const xi = d4(`${name}.x`, xs), wi = d4(`${name}.w`, ws);
      const inputs = { x: xi, w: wi };
      let bias = null, args = ['x', 'w'];
      if (opts.bias) { inputs.b = d4(`${name}.b`, opts.bias); args.push('b'); }
      if (opts.biasLiteral !== undefined) args.push(String(opts.biasLiteral));
      add(single(name, desc, inputs, call('conv', args, a), (o, I) => {
        bias = opts.bias ? I.b : opts.biasLiteral !== undefined ? opts.biasLiteral : null;
        return o.conv(I.x, I.w, bias, a);
      }));
    };
    cv('conv.valid_padding', 'explicit zero padding [(0,0),(0,0)] (valid), no bias', [1, 2, 5, 4], [2, 2, 3, 2],
      { padding: [[0, 0], [0, 0]] });
    cv('conv.stride2_auto_padding', 'stride 2 with automatic padding: x = ceil(X/s), total t = max((x-1)s + fd - X, 0) '
      + 'split p = floor(t/2), q = ceil(t/2) (6 -> t 1 -> (0,1); 7 -> t 2 -> (1,1))', [1, 1, 6, 7], [2, 1, 3, 3],
      { stride: [2, 2] }, { bias: [1, 2] });
    cv('conv.asymmetric_padding', 'explicit asymmetric padding [(1,0),(2,1)]', [1, 2, 4, 4], [2, 2, 3, 3],
      { padding: [[1, 0], [2, 1]] });
    cv('conv.negative_padding', 'negative padding crops the input: [(-1,0),(0,-1)]', [1, 1, 6, 6], [1, 1, 2, 2],
      { padding: [[-1, 0], [0, -1]] });
    cv('conv.dilation', 'dilation [2,2] (dilated filter size 5) with automatic padding', [1, 1, 7, 6], [2, 1, 3, 3],
      { dilation: [2, 2] });
    cv('conv.stride_dilation', 'stride [2,1] with dilation [1,2] and explicit padding', [1, 2, 7, 7], [2, 2, 3, 2],
      { padding: [[1, 1], [0, 2]], stride: [2, 1], dilation: [1, 2] });
    cv('conv.groups2', 'grouped convolution: 4 input channels, groups 2, filter [4,2,3,3]', [1, 4, 4, 4], [4, 2, 3, 3],
      { groups: 2, padding: [[1, 1], [1, 1]] }, { bias: [1, 4] });
    cv('conv.depthwise_groups0', 'groups = 0: depth-wise, 3 channels with multiplier 2 (filter [6,1,3,3])',
      [1, 3, 4, 5], [6, 1, 3, 3], { groups: 0 });
    for (const border of ['replicate', 'reflect', 'reflect-even']) {
      cv(`conv.border_${border.replace('-', '_')}`, `border '${border}' with padding [(1,1),(2,1)]`, [1, 1, 4, 5],
        [1, 1, 3, 3], { border, padding: [[1, 1], [2, 1]] });
    }
    cv('conv.1d_batch2', 'one spatial dimension, batch 2, stride 2, automatic padding', [2, 2, 8], [3, 2, 3],
      { stride: [2] }, { bias: [1, 3] });
    cv('conv.3d', 'three spatial dimensions', [1, 1, 3, 4, 4], [2, 1, 2, 2, 2], { padding: [[0, 0], [1, 0], [0, 1]] });
    cv('conv.bias_literal', 'bias given as a scalar literal', [1, 1, 3, 3], [1, 1, 2, 2], { padding: [[0, 0], [0, 0]] },
      { biasLiteral: 0.5 });
  }

  // --------------------------------------------------------------------------------------------- deconv
  {
    const dc = (name, desc, xs, ws, a, opts = {}) => {
      const inputs = { x: d4(`${name}.x`, xs), w: d4(`${name}.w`, ws) };
      const args = ['x', 'w'];
      if (opts.bias) { inputs.b = d4(`${name}.b`, opts.bias); args.push('b'); }
      add(single(name, desc, inputs, call('deconv', args, a), (o, I) => o.deconv(I.x, I.w, opts.bias ? I.b : null, a)));
    };
    dc('deconv.basic', 'deconv, automatic padding, stride 1: filter [2,3,3,3] maps 2 channels to 3', [1, 2, 3, 3], [2, 3, 3, 3], {});
    dc('deconv.stride2', 'stride 2, padding (1,1): X = (x-1)s + fd - (p+q)', [1, 2, 3, 3], [2, 1, 3, 3],
      { stride: [2, 2], padding: [[1, 1], [1, 1]] });
    dc('deconv.output_shape', 'output_shape [1,1,6,6] selects the larger of the two up-scaled extents', [1, 2, 3, 3],
      [2, 1, 3, 3], { stride: [2, 2], padding: [[1, 1], [1, 1]], output_shape: [1, 1, 6, 6] });
    dc('deconv.auto_padding_stride2', 'stride 2 with automatic padding (X = x*s, t = fd - s)', [1, 1, 3, 2], [1, 2, 4, 4],
      { stride: [2, 2] });
    dc('deconv.dilation', 'dilation [2,1]', [1, 1, 3, 3], [1, 1, 2, 3], { dilation: [2, 1], padding: [[0, 0], [1, 1]] });
    dc('deconv.groups2', 'groups 2: 4 input channels, filter [4,1,3,3] gives 2 output channels', [1, 4, 3, 3],
      [4, 1, 3, 3], { groups: 2, padding: [[1, 1], [1, 1]] });
    dc('deconv.depthwise_groups0', 'groups = 0: depth-wise (3 channels)', [1, 3, 3, 2], [3, 1, 2, 2],
      { groups: 0, stride: [2, 2], padding: [[0, 0], [0, 0]] });
    dc('deconv.bias', 'bias [1,2] added to every output position', [1, 2, 2, 3], [2, 2, 2, 2],
      { padding: [[0, 0], [0, 0]] }, { bias: [1, 2] });
    dc('deconv.border_replicate', "border 'replicate' applies to the (down-scaled) input values", [1, 1, 3, 4],
      [1, 1, 4, 4], { stride: [2, 2], padding: [[1, 1], [1, 1]], border: 'replicate' });
    dc('deconv.1d', 'one spatial dimension, stride 3', [1, 2, 4], [2, 2, 3], { stride: [3], padding: [[0, 0]] });
  }

  // ------------------------------------------------------------------------------------------ box/debox
  {
    const x = d4('box.x', [1, 1, 4, 5]);
    op1('box.basic', 'box sum 3x3, automatic padding, border constant', { x }, 'box', { size: [1, 1, 3, 3] });
    op1('box.normalize', 'box with normalize = true divides by the kernel volume (9), padded zeros included',
      { x }, 'box', { size: [1, 1, 3, 3], normalize: true });
    op1('box.ignore_normalize', "border 'ignore': border values are not considered, the average is over the values inside",
      { x }, 'box', { size: [1, 1, 3, 3], normalize: true, border: 'ignore' });
    for (const border of ['replicate', 'reflect', 'reflect-even']) {
      op1(`box.border_${border.replace('-', '_')}`, `box with border '${border}'`, { x }, 'box',
        { size: [1, 1, 3, 3], border, padding: [[0, 0], [0, 0], [1, 1], [2, 2]] });
    }
    op1('box.stride_dilation', 'box with stride and dilation', { x: d4('box.sd', [1, 1, 6, 7]) }, 'box',
      { size: [1, 1, 2, 3], stride: [1, 1, 2, 2], dilation: [1, 1, 2, 1], padding: [[0, 0], [0, 0], [0, 1], [1, 1]] });
    op1('box.channel_window', 'box over the channel dimension (box does not distinguish batch and channel)',
      { x: d4('box.ch', [1, 4, 2, 2]) }, 'box', { size: [1, 3, 1, 1], normalize: true });
    op1('box.batch_window', 'box over the batch dimension with explicit zero padding',
      { x: d4('box.b', [3, 1, 2, 2]) }, 'box', { size: [2, 1, 1, 1], padding: [[0, 0], [0, 0], [0, 0], [0, 0]] });
    op1('debox.basic', 'debox 2x2 stride 2 (each input spreads to a 2x2 block)', { x: d4('debox.x', [1, 1, 2, 3]) },
      'debox', { size: [1, 1, 2, 2], stride: [1, 1, 2, 2], padding: [[0, 0], [0, 0], [0, 0], [0, 0]] });
    op1('debox.overlap_normalize', 'debox 3x3 stride 2 padding 1, normalize (divide by 9)',
      { x: d4('debox.o', [1, 1, 3, 3]) }, 'debox',
      { size: [1, 1, 3, 3], stride: [1, 1, 2, 2], padding: [[0, 0], [0, 0], [1, 1], [1, 1]], normalize: true });
    op1('debox.output_shape', 'debox with output_shape', { x: d4('debox.os', [1, 1, 3, 3]) }, 'debox',
      { size: [1, 1, 3, 3], stride: [1, 1, 2, 2], padding: [[0, 0], [0, 0], [1, 1], [1, 1]], output_shape: [1, 1, 6, 6] });
    op1('debox.border_replicate', "debox border 'replicate': out-of-range input indices take the edge values",
      { x: d4('debox.r', [1, 1, 3, 3]) }, 'debox',
      { size: [1, 1, 3, 3], stride: [1, 1, 2, 2], padding: [[0, 0], [0, 0], [1, 1], [1, 1]], border: 'replicate' });
    op1('debox.auto_padding', 'debox with automatic padding', { x: d4('debox.a', [1, 2, 2, 2]) }, 'debox',
      { size: [1, 1, 3, 3], stride: [1, 1, 2, 2] });
  }

  // -------------------------------------------------------------------------- argmax_pool/sample/desample
  {
    const xd = distinct('am.x', [1, 2, 4, 4], -2, 8);
    const neg = distinct('am.neg', [1, 1, 4, 5], -4, 8); // values -4 .. -1.625
    const amp = (name, desc, x, a) => add(single(name, desc, { x }, call('argmax_pool', ['x'], a), (o, I) => o.argmax_pool(I.x, a)));
    amp('argmax_pool.basic', 'argmax_pool 2x2 stride 2: row-major position in the window', xd,
      { size: [1, 1, 2, 2], stride: [1, 1, 2, 2] });
    amp('argmax_pool.constant_border', "negative inputs with border 'constant': the zero padding wins at the edges", neg,
      { size: [1, 1, 3, 3], padding: [[0, 0], [0, 0], [1, 1], [1, 1]] });
    amp('argmax_pool.ignore_border', "border 'ignore': padding never wins", neg,
      { size: [1, 1, 3, 3], padding: [[0, 0], [0, 0], [1, 1], [1, 1]], border: 'ignore' });
    amp('argmax_pool.ties_first', 'equal maxima: the first index is stored', T([1, 1, 2, 4], [1, 1, 0, 2, 1, 1, 2, 2]),
      { size: [1, 1, 2, 2], stride: [1, 1, 2, 2] });
    amp('argmax_pool.replicate_dilation', "border 'replicate' with dilation 2 and stride 2", distinct('am.rd', [1, 1, 5, 5], -1, 8),
      { size: [1, 1, 2, 2], stride: [1, 1, 2, 2], dilation: [1, 1, 2, 2], border: 'replicate', padding: [[0, 0], [0, 0], [1, 0], [0, 1]] });
    amp('argmax_pool.channel_window', 'window across channels (index runs over the 2x1x2 window)', xd,
      { size: [1, 2, 1, 2], stride: [1, 2, 1, 2] });

    const sa = { size: [1, 1, 2, 2], stride: [1, 1, 2, 2] };
    add(single('sample.basic', 'sample with given indices (2x2 windows, stride 2)',
      { x: d4('smp.x', [1, 1, 4, 4]), index: ints('smp.i', [1, 1, 2, 2], 0, 3) }, call('sample', ['x', 'index'], sa),
      (o, I) => o.sample(I.x, I.index, sa)));
    const sp = { size: [1, 1, 3, 3], padding: [[0, 0], [0, 0], [1, 1], [1, 1]], stride: [1, 1, 2, 2] };
    for (const border of ['constant', 'replicate', 'reflect', 'reflect-even']) {
      const a = { ...sp, border };
      add(single(`sample.border_${border.replace('-', '_')}`, `sample indices pointing into the padding, border '${border}'`,
        { x: d4('smp.b', [1, 1, 4, 4]), index: T([1, 1, 2, 2], [0, 2, 6, 8], 'integer') }, call('sample', ['x', 'index'], a),
        (o, I) => o.sample(I.x, I.index, a)));
    }
    const da = { size: [1, 1, 2, 2], stride: [1, 1, 2, 2] };
    add(single('desample.basic', 'desample (max unpooling) with given indices',
      { x: d4('dsm.x', [1, 2, 2, 2]), index: ints('dsm.i', [1, 2, 2, 2], 0, 3) }, call('desample', ['x', 'index'], da),
      (o, I) => o.desample(I.x, I.index, da)));
    const dov = { size: [1, 1, 3, 3], stride: [1, 1, 2, 2], padding: [[0, 0], [0, 0], [1, 1], [1, 1]] };
    add(single('desample.overlap_sums', 'overlapping windows: values mapped to the same position are summed',
      { x: d4('dsm.o', [1, 1, 2, 2]), index: T([1, 1, 2, 2], [8, 6, 2, 0], 'integer') }, call('desample', ['x', 'index'], dov),
      (o, I) => o.desample(I.x, I.index, dov)));
    const dos = { ...da, padding: [[0, 0], [0, 0], [0, 0], [0, 0]], output_shape: [1, 1, 5, 5] };
    add(single('desample.output_shape', 'desample with explicit zero padding and output_shape [1,1,5,5] (the last row/column receives nothing)',
      { x: d4('dsm.s', [1, 1, 2, 2]), index: ints('dsm.si', [1, 1, 2, 2], 0, 3) }, call('desample', ['x', 'index'], dos),
      (o, I) => o.desample(I.x, I.index, dos)));
    const mp = { size: [1, 1, 3, 3], stride: [1, 1, 2, 2], padding: [[0, 0], [0, 0], [1, 1], [1, 1]] };
    add({
      name: 'desample.max_unpool_chain',
      description: 'argmax_pool -> sample -> desample round trip (overlapping 3x3 windows, stride 2)',
      graph: doc({ inputs: [['x', xd]], outputs: ['index', 'pooled', 'unpooled'], body: [
        `index = ${call('argmax_pool', ['x'], mp)};`,
        `pooled = ${call('sample', ['x', 'index'], mp)};`,
        `unpooled = ${call('desample', ['pooled', 'index'], mp)};`,
      ] }),
      inputs: { x: xd },
      compute: (o, I) => {
        const index = o.argmax_pool(I.x, mp);
        const pooled = o.sample(I.x, index, mp);
        return { index, pooled, unpooled: o.desample(pooled, index, mp) };
      },
    });
  }

  // -------------------------------------------------------------------------------- pooling compounds
  {
    const x = distinct('pool.x', [1, 2, 5, 5], -3, 8);
    add({
      name: 'max_pool_with_index.basic',
      description: 'max_pool_with_index returns the maxima and their window positions',
      graph: doc({ inputs: [['x', x]], outputs: ['y', 'i'], body: [
        `y, i = ${call('max_pool_with_index', ['x'], { size: [1, 1, 3, 3], stride: [1, 1, 2, 2] })};`,
      ] }),
      inputs: { x },
      compute: (o, I) => { const [y, i] = o.max_pool_with_index(I.x, { size: [1, 1, 3, 3], stride: [1, 1, 2, 2] }); return { y, i }; },
    });
    const pool = (name, desc, xi, a, extra) => { const op = name.split('.')[0]; add(single(name, desc, { x: xi }, call(op, ['x'], a), (o, I) => o[op](I.x, a), extra)); };
    pool('max_pool.basic', 'max_pool 2x2 stride 2, no padding needed', x, { size: [1, 1, 2, 2], stride: [1, 1, 2, 2], padding: [[0, 0], [0, 0], [0, 0], [0, 0]] });
    pool('max_pool.auto_padding', 'max_pool 3x3 stride 2 with automatic padding (border constant: padding is 0)', x,
      { size: [1, 1, 3, 3], stride: [1, 1, 2, 2] });
    pool('max_pool.ignore_border', "AlexNet-style max_pool with border 'ignore' and padding, all inputs negative",
      distinct('pool.neg', [1, 1, 5, 5], -4, 8), { size: [1, 1, 3, 3], stride: [1, 1, 2, 2], border: 'ignore', padding: [[0, 0], [0, 0], [1, 1], [1, 1]] });
    pool('max_pool.constant_border_negative', "border 'constant' with negative inputs: padded zeros are the maxima at the edges",
      distinct('pool.neg', [1, 1, 5, 5], -4, 8), { size: [1, 1, 3, 3], stride: [1, 1, 2, 2], padding: [[0, 0], [0, 0], [1, 1], [1, 1]] });
    pool('max_pool.reflect_dilation', "border 'reflect' with dilation", x,
      { size: [1, 1, 2, 2], dilation: [1, 1, 2, 2], border: 'reflect', padding: [[0, 0], [0, 0], [1, 1], [1, 1]] });
    pool('max_pool.1d', 'max_pool in one spatial dimension', distinct('pool.1d', [2, 2, 7], -2, 8),
      { size: [1, 1, 3], stride: [1, 1, 2] });
    pool('avg_pool.basic', 'avg_pool 2x2 stride 2', x, { size: [1, 1, 2, 2], stride: [1, 1, 2, 2], padding: [[0, 0], [0, 0], [0, 0], [0, 0]] });
    pool('avg_pool.constant_border', 'avg_pool 3x3 with padding 1, border constant: divides by 9 everywhere', x,
      { size: [1, 1, 3, 3], padding: [[0, 0], [0, 0], [1, 1], [1, 1]] });
    pool('avg_pool.ignore_border', "avg_pool with border 'ignore': divides by the number of values inside", x,
      { size: [1, 1, 3, 3], padding: [[0, 0], [0, 0], [1, 1], [1, 1]], border: 'ignore' });
    pool('avg_pool.reflect_even_stride', "avg_pool border 'reflect-even', stride 2, automatic padding", x,
      { size: [1, 1, 2, 3], stride: [1, 1, 2, 2], border: 'reflect-even' });
    pool('rms_pool.basic', 'rms_pool = sqrt(avg_pool(sqr(x)))', x, { size: [1, 1, 2, 2], stride: [1, 1, 1, 1], padding: [[0, 0], [0, 0], [0, 0], [0, 0]] },
      { transcendental: true });
    pool('rms_pool.padding', 'rms_pool 3x3 stride 2 with automatic padding', x, { size: [1, 1, 3, 3], stride: [1, 1, 2, 2] },
      { transcendental: true });
  }

  // ------------------------------------------------------------------------------------- up/down-sampling
  {
    const x = d4('rs.x', [1, 2, 4, 6]);
    const x3 = d4('rs.x3', [1, 1, 3, 4]);
    const r = (name, desc, op, xi, a, extra) => add(single(name, desc, { x: xi }, call(op, ['x'], a), (o, I) => o[op](I.x, a), extra));
    r('nearest_downsample.basic', 'nearest_downsample factor [2,3]', 'nearest_downsample', x, { factor: [2, 3] });
    r('area_downsample.basic', 'area_downsample factor [2,2] (average of each 2x2 block)', 'area_downsample', x, { factor: [2, 2] });
    r('area_downsample.factor3', 'area_downsample factor [1,3] (division by 3)', 'area_downsample', x, { factor: [1, 3] });
    r('nearest_upsample.basic', 'nearest_upsample factor [2,3]', 'nearest_upsample', x3, { factor: [2, 3] });
    const xp = dyadic('rs.xp', [1, 1, 3, 4], 0.25, 2, 4); // positive: the inexact 'aligned' weights cannot cancel
    for (const method of ['symmetric', 'asymmetric', 'aligned']) {
      for (const border of ['replicate', 'constant']) {
        r(`multilinear_upsample.${method}_${border}`, `multilinear_upsample factor 2, method '${method}', border '${border}'`,
          'multilinear_upsample', method === 'aligned' ? xp : x3, { factor: [2, 2], method, border });
      }
    }
    r('multilinear_upsample.default', "multilinear_upsample with the defaults (method 'symmetric', border 'replicate')",
      'multilinear_upsample', x3, { factor: [2, 2] });
    r('multilinear_upsample.symmetric_reflect', "method 'symmetric', border 'reflect' (index -1 reads index 1)",
      'multilinear_upsample', x3, { factor: [2, 2], border: 'reflect' });
    r('multilinear_upsample.symmetric_reflect_even', "method 'symmetric', border 'reflect-even'",
      'multilinear_upsample', x3, { factor: [2, 2], border: 'reflect-even' });
    r('multilinear_upsample.factor3', 'factor 3 (weights 1/3, 2/3: not exact in float32)', 'multilinear_upsample',
      dyadic('rs.f3', [1, 1, 3, 3], 1, 4, 4), { factor: [3, 3], method: 'symmetric', border: 'replicate' });
    r('multilinear_upsample.aligned_factor3', "method 'aligned', factor [3,2]", 'multilinear_upsample',
      dyadic('rs.al3', [1, 1, 3, 3], 1, 4, 4), { factor: [3, 2], method: 'aligned', border: 'replicate' });
    r('multilinear_upsample.1d', 'one spatial dimension, asymmetric', 'multilinear_upsample', d4('rs.1d', [2, 1, 5]),
      { factor: [4], method: 'asymmetric', border: 'replicate' });
  }

  // -------------------------------------------------------------------------------- separable conv/deconv
  {
    const x = d4('sep.x', [1, 2, 4, 4]);
    const plane = d4('sep.plane', [2, 1, 3, 3]);
    const point = d4('sep.point', [3, 2, 1, 1]);
    const bias = d4('sep.bias', [1, 3]);
    add(single('separable_conv.basic', 'separable_conv: depth-wise 3x3 (groups 0) then point-wise 1x1 with bias',
      { x, plane, point, bias }, 'separable_conv(x, plane, point, bias, padding = [(1,1), (1,1)])',
      (o, I) => o.separable_conv(I.x, I.plane, I.point, I.bias, { padding: [[1, 1], [1, 1]] })));
    add(single('separable_conv.stride', 'separable_conv with stride 2 and automatic padding, no bias',
      { x, plane, point }, 'separable_conv(x, plane, point, stride = [2, 2])',
      (o, I) => o.separable_conv(I.x, I.plane, I.point, null, { stride: [2, 2] })));
    const y = d4('sepd.x', [1, 3, 2, 2]);
    const dpoint = d4('sepd.point', [3, 2, 1, 1]);
    const dplane = d4('sepd.plane', [2, 1, 3, 3]);
    add(single('separable_deconv.basic', 'separable_deconv: point-wise deconv 3 -> 2 channels, then depth-wise 3x3 deconv stride 2',
      { x: y, plane: dplane, point: dpoint }, 'separable_deconv(x, plane, point, stride = [2, 2], padding = [(1,1), (1,1)])',
      (o, I) => o.separable_deconv(I.x, I.plane, I.point, null, { stride: [2, 2], padding: [[1, 1], [1, 1]] })));
  }
  return cases;
}

export { iota };
