// Whole models: compositional documents with custom fragments, a small CNN (flat and compositional), a quantized
// model with graph.quant and a quantized-code variable, and tensor-file reader cases (float16/float64, quantized
// codes at 4 and 8 bits, integer and bool items at several widths).

import { T, dyadic, ints, bools, rng, volume } from './tensor.mjs';
import { doc, EXT_BOTH, EXT_FRAG, EXT_EXPR } from './casekit.mjs';
import { makeOps } from './ops.mjs';

const d4 = (seed, shape, lo = -2, hi = 2) => dyadic(`model.${seed}`, shape, lo, hi, 4);

class MarginError extends Error {}
// linear_quantize that refuses values whose rounding step is within `margin` of a .5 boundary.
function lqChecked(o, x, min, max, bits, margin = 0.02) {
  const r = 2 ** bits - 1;
  for (const v of x.data) {
    const z = Math.min(Math.max(v, min), max);
    const u = ((z - min) / (max - min)) * r;
    if (Math.abs(u - Math.floor(u) - 0.5) < margin) throw new MarginError(`value ${v} near a rounding boundary`);
  }
  return o.linear_quantize(x, min, max, { bits });
}
function logqChecked(o, x, max, bits, margin = 0.02) {
  for (const v of x.data) {
    if (v === 0) continue;
    const u = Math.log2(Math.abs(v));
    if (Math.abs(u - Math.floor(u) - 0.5) < margin) throw new MarginError(`value ${v} near a log rounding boundary`);
  }
  return o.logarithmic_quantize(x, max, { bits });
}

// Build a case for seed 0, 1, ... until its computation (exact and float32 mode) passes the margin checks.
function withSeed(build) {
  for (let seed = 0; seed < 200; seed++) {
    const c = build(seed);
    try {
      c.compute(makeOps(), c.inputsT || {}, c.varsT || {});
      c.compute(makeOps(Math.fround), c.inputsT || {}, c.varsT || {});
      return c;
    } catch (e) {
      if (!(e instanceof MarginError)) throw e;
    }
  }
  throw new Error('no seed passes the margin checks');
}

const plain = (v) => (v && v.tensor ? v.tensor : v);
const tensorsOf = (obj) => Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, plain(v)]));

export function modelCases() {
  const cases = [];
  const add = (c) => cases.push(c);

  // ------------------------------------------------------------------------------------- compositional
  {
    const x = d4('comp.x', [2, 3]);
    const idx = ints('comp.idx', [2, 2], -5, 5);
    const w = [0.5, -1, 1.5, 0.25, -0.75, 2];
    add({
      name: 'compose.custom_fragments',
      description: 'custom fragments: nested invocation, a generic fragment (type deduced as integer and as scalar), '
        + 'default attribute values and overridden ones, a fragment with two results, compile-time if/else on a logical attribute',
      graph: doc({ extensions: [EXT_BOTH], inputs: [['x', x], ['idx', idx]], outputs: ['a', 'b', 'pre_b', 'c', 'd'], fragments: `
# generic: works for any tensor data-type
fragment passthrough<?>( x: tensor<?> ) -> ( y: tensor<?> )
{
    y = copy(x);
}

fragment affine( x: tensor<scalar>, scale: scalar = 2.0, shift: scalar = -0.5 ) -> ( y: tensor<scalar> )
{
    y = x * scale + shift;
}

fragment block( x: tensor<scalar>, w: tensor<scalar>, gains: scalar[] = [1.0, 0.5], use_relu: logical = true )
-> ( y: tensor<scalar>, pre: tensor<scalar> )
{
    pre = affine(matmul(x, w), scale = gains[0] * gains[1]);
    y = relu(pre) if use_relu else passthrough(pre);
}`, body: [
        `w = constant(shape = [3, 2], value = [${w.map((v) => (Number.isInteger(v) ? `${v}.0` : String(v))).join(', ')}]);`,
        'a, pre_a = block(x, w);',
        'b, pre_b = block(x, w, gains = [2.0, 1.5], use_relu = false);',
        'c = passthrough(idx);',
        'd = passthrough(affine(a, shift = 1.0));',
      ] }),
      inputs: { x, idx },
      compute: (o, I) => {
        const W = T([3, 2], w);
        const pa = o.add(o.mul(o.matmul(I.x, W), 0.5), -0.5);
        const a = o.relu(pa);
        const pb = o.add(o.mul(o.matmul(I.x, W), 3.0), -0.5);
        return { a, b: o.copy(pb), pre_b: pb, c: o.copy(I.idx), d: o.add(o.mul(a, 2.0), 1.0) };
      },
    });
  }
  {
    const x = d4('expr.x', [1, 2, 4, 4]);
    add({
      name: 'compose.operator_expressions',
      description: 'compile-time expressions: array concatenation and repetition, comprehensions with and without a '
        + 'filter, subscripts and ranges, length_of/range_of, in, string concatenation and comparison, integer/scalar/'
        + 'logical casts, operator precedence (^ over * over +; in lowest), unary minus, tuple construction',
      graph: doc({ extensions: [EXT_BOTH], inputs: [['x', x]], outputs: ['p', 'q', 'r', 's', 't'], fragments: `
fragment spatial_pool( x: tensor<scalar>, sizes: integer[], kind: string = 'max' ) -> ( y: tensor<scalar> )
{
    full = [1, 1] + sizes;
    pads = [(0, 0)] * 2 + [for s in sizes yield (s - 1, 0)];
    y = max_pool(x, size = full, padding = pads, border = 'ignore') if kind == 'max'
        else avg_pool(x, size = full, padding = pads, border = 'ignore');
}

fragment exprs( x: tensor<scalar>, v: integer[] = [3, 1, 4, 1, 5] ) -> ( y: tensor<scalar> )
{
    n = length_of(v);
    big = [for i in range_of(v) if v[i] > 2 yield v[i]];
    k = 1 + 2 * 3 ^ 2;
    c1 = scalar(k) / 4.0;
    c2 = scalar(integer(7.9)) if (4 in big) && !(2 in big) else -1.0;
    c3 = scalar(length_of('nn' + 'ef' + 'x'));
    c4 = scalar(length_of(big[1:]) + big[:1][0]);
    c5 = scalar(logical(n - 5) || true);
    y = x * c1 + c2 - c3 * c4 + c5;
}`, body: [
        'p = spatial_pool(x, sizes = [3, 2]);',
        "q = spatial_pool(x, sizes = [2, 2], kind = 'a' + 'vg');",
        'r = exprs(x);',
        '[s, t] = split(x, axis = 1, ratios = [1] * 2);',
      ] }),
      inputs: { x },
      compute: (o, I) => {
        const pads = (sizes) => [[0, 0], [0, 0], ...sizes.map((s) => [s - 1, 0])];
        const p = o.max_pool(I.x, { size: [1, 1, 3, 2], padding: pads([3, 2]), border: 'ignore' });
        const q = o.avg_pool(I.x, { size: [1, 1, 2, 2], padding: pads([2, 2]), border: 'ignore' });
        // k = 19, c1 = 4.75, c2 = 7.0, c3 = 5.0, c4 = 2 + 3 = 5.0, c5 = 1.0
        const r = o.add(o.sub(o.add(o.mul(I.x, 4.75), 7.0), 25.0), 1.0);
        const [s, t] = o.split(I.x, { axis: 1, ratios: [1, 1] });
        return { p, q, r, s, t };
      },
    });
  }
  {
    const x = d4('rec.x', [2, 3]);
    add({
      name: 'compose.recursion_and_generic_default',
      description: 'a bounded recursive fragment (lazy if/else ends the recursion, like add_n), a generic fragment with '
        + 'a default type <? = scalar> invoked without and with an explicit <integer>, a default tensor argument',
      graph: doc({ extensions: [EXT_BOTH], inputs: [['x', x]], outputs: ['r', 'f', 'g', 'h'], fragments: `
fragment repeat_affine( x: tensor<scalar>, n: integer, scale: scalar = 0.5 ) -> ( y: tensor<scalar> )
{
    y = repeat_affine(x * scale + 1.0, n = n - 1, scale = scale) if n > 0 else x;
}

fragment filled<? = scalar>( shape: integer[], value: ? ) -> ( y: tensor<?> )
{
    y = constant<?>(shape = shape, value = [value]);
}

fragment offset( x: tensor<scalar>, b: tensor<scalar> = 0.25 ) -> ( y: tensor<scalar> )
{
    y = x + b;
}`, body: [
        'r = repeat_affine(x, n = 3);',
        'f = offset(x, filled(shape = [2, 3], value = 1.5));',
        'g = filled<integer>(shape = [2, 2], value = 7);',
        'h = offset(x);',
      ] }),
      inputs: { x },
      compute: (o, I) => {
        let r = I.x;
        for (let i = 0; i < 3; i++) r = o.add(o.mul(r, 0.5), 1.0);
        return { r, f: o.add(I.x, T([2, 3], new Array(6).fill(1.5))), g: T([2, 2], [7, 7, 7, 7], 'integer'), h: o.add(I.x, 0.25) };
      },
    });
  }
  {
    const x = d4('shp.x', [1, 2, 3, 3]);
    add({
      name: 'compose.shape_of_bilinear_upsample',
      description: "the spec's informative _bilinear_upsample2x_symmetric fragment (deprecated shape_of, constant filter, "
        + "deconv with groups) must equal multilinear_upsample(method 'symmetric', border 'replicate')",
      graph: doc({ extensions: [EXT_BOTH], inputs: [['x', x]], outputs: ['y', 'z'], fragments: `
fragment _bilinear_upsample2x_symmetric( input: tensor<scalar>, border: string ) -> ( output: tensor<scalar> )
{
    channels = shape_of(input)[1];
    weights = [0.0625, 0.1875, 0.1875, 0.0625,
               0.1875, 0.5625, 0.5625, 0.1875,
               0.1875, 0.5625, 0.5625, 0.1875,
               0.0625, 0.1875, 0.1875, 0.0625];
    filter = constant(shape = [channels, 1, 4, 4], value = weights * channels);
    output = deconv(input, filter, stride = [2,2], padding = [(1,1), (1,1)],
                    border = border, groups = channels);
}`, body: [
        "y = _bilinear_upsample2x_symmetric(x, border = 'replicate');",
        'z = multilinear_upsample(x, factor = [2, 2]);',
      ] }),
      inputs: { x },
      compute: (o, I) => ({ y: o.multilinear_upsample(I.x, { factor: [2, 2] }), z: o.multilinear_upsample(I.x, { factor: [2, 2] }) }),
    });
  }
  add({
    name: 'compose.multiple_extension_statements',
    description: 'extensions declared by two separate extension statements; a fragment declared without body is a '
      + 'custom operation and may stay unused',
    graph: doc({ extensions: [EXT_FRAG, EXT_EXPR], inputs: [['x', T([3], [0, 0, 0])]], outputs: ['y'], fragments: `
fragment my_custom_op( x: tensor<scalar>, k: integer = 2 ) -> ( y: tensor<scalar> );

fragment twice( x: tensor<scalar> ) -> ( y: tensor<scalar> )
{
    y = 2.0 * x;
}`, body: ['y = twice(twice(x)) - x;'] }),
    inputs: { x: d4('ext.x', [3]) },
    compute: (o, I) => ({ y: o.sub(o.mul(2.0, o.mul(2.0, I.x)), I.x) }),
  });
  add({
    name: 'compose.comments_and_layout',
    description: 'comments (#) anywhere, free layout, tuple left-hand side with parentheses, named tensor argument (deprecated)',
    graph: `# leading comment
version 1.0;   # the version
extension KHR_enable_fragment_definitions KHR_enable_operator_expressions;
# fragments
fragment pair( a: tensor<scalar>, b: tensor<scalar> ) -> ( s: tensor<scalar>, d: tensor<scalar> )
{
    s = a + b;   # sum
    d = a - b;
}
graph G( a,b ) -> ( s,d,m )
{
    a = external( shape = [ 2 , 2 ] ) ;
    b = external(shape=[2,2]);
    ( s, d ) = pair( a , b );
    m = mul(x = s, y = d);
}
`,
    inputs: { a: d4('lay.a', [2, 2]), b: d4('lay.b', [2, 2]) },
    compute: (o, I) => { const s = o.add(I.a, I.b), d = o.sub(I.a, I.b); return { s, d, m: o.mul(s, d) }; },
  });

  add({
    name: 'compose.literal_forms',
    description: 'flat syntax literals: a double-quoted string, exponent forms 2.5E-1 and 0.5e1, a negative literal, '
      + 'a logical literal',
    graph: doc({ inputs: [['x', T([2, 3], new Array(6).fill(0))]], outputs: ['z', 'v'], body: [
      'y = pad(x, padding = [(1, 0), (0, 2)], border = "reflect", value = -0.0);',
      'z = mul(y, 2.5E-1);',
      'w = sum_reduce(z, axes = [1], normalize = false);',
      'v = add(w, 0.5e1);',
    ] }),
    inputs: { x: d4('lit.x', [2, 3]) },
    compute: (o, I) => {
      const z = o.mul(o.pad(I.x, { padding: [[1, 0], [0, 2]], border: 'reflect' }), 0.25);
      return { z, v: o.add(o.sum_reduce(z, { axes: [1] }), 5.0) };
    },
  });

  // ---------------------------------------------------------------------------------------------- CNN
  {
    const input = d4('cnn.input', [1, 1, 6, 6]);
    const filter = d4('cnn.filter', [4, 1, 3, 3], -1, 1);
    const bias = d4('cnn.bias', [1, 4], -1, 1);
    const fcw = dyadic('model.cnn.fcw', [3, 36], -1, 1, 8);
    const fcb = d4('cnn.fcb', [1, 3], -1, 1);
    const compute = (o, I, V) => {
      const conv1 = o.conv(I.input, V['conv1/filter'], null, { padding: [[1, 1], [1, 1]] });
      const biased = o.add(conv1, V['conv1/bias']);
      const relu1 = o.relu(biased);
      const pool1 = o.max_pool(relu1, { size: [1, 1, 2, 2], stride: [1, 1, 2, 2], border: 'ignore', padding: [[0, 0], [0, 0], [0, 0], [0, 0]] });
      const flat = o.reshape(pool1, { shape: [1, -1] });
      const logits = o.linear(flat, V['fc/weights'], V['fc/bias']);
      return { logits, output: o.softmax(logits) };
    };
    const variables = { 'conv1/filter': filter, 'conv1/bias': bias, 'fc/weights': fcw, 'fc/bias': fcb };
    add({
      name: 'model.cnn',
      description: 'flat CNN: conv -> bias -> relu -> max_pool -> reshape -> linear -> softmax, weights from .dat files',
      graph: doc({ name: 'SmallNet', inputs: [['input', input]], outputs: ['logits', 'output'], body: [
        "filter = variable(shape = [4, 1, 3, 3], label = 'conv1/filter');",
        "bias = variable(shape = [1, 4], label = 'conv1/bias');",
        "conv1 = conv(input, filter, padding = [(1,1), (1,1)], border = 'constant', stride = [1, 1], dilation = [1, 1]);",
        'biased = add(conv1, bias);',
        'relu1 = relu(biased);',
        "pool1 = max_pool(relu1, size = [1, 1, 2, 2], stride = [1, 1, 2, 2], border = 'ignore', padding = [(0,0), (0,0), (0,0), (0,0)]);",
        'flat = reshape(pool1, shape = [1, -1]);',
        "weights = variable(shape = [3, 36], label = 'fc/weights');",
        "fc_bias = variable(shape = [1, 3], label = 'fc/bias');",
        'logits = linear(flat, weights, fc_bias);',
        'output = softmax(logits);',
      ] }),
      inputs: { input },
      variables,
      compute,
      transcendental: true,
    });
    add({
      name: 'model.cnn_compositional',
      description: 'the same CNN written with custom layer fragments (conv_block, dense) and operator expressions',
      graph: doc({ name: 'SmallNet', extensions: [EXT_BOTH], inputs: [['input', input]], outputs: ['logits', 'output'], fragments: `
fragment conv_block( input: tensor<scalar>, filter: tensor<scalar>, bias: tensor<scalar>, pool: integer = 2 )
-> ( output: tensor<scalar> )
{
    output = max_pool(relu(conv(input, filter, padding = [(1,1), (1,1)]) + bias),
                      size = [1, 1, pool, pool], stride = [1, 1, pool, pool],
                      border = 'ignore', padding = [(0,0)] * 4);
}

fragment dense( input: tensor<scalar>, weights: tensor<scalar>, bias: tensor<scalar> ) -> ( output: tensor<scalar> )
{
    output = linear(reshape(input, shape = [1, -1]), weights, bias);
}`, body: [
        "filter = variable(shape = [4, 1, 3, 3], label = 'conv1/filter');",
        "bias = variable(shape = [1, 4], label = 'conv1/bias');",
        "weights = variable(shape = [3, 36], label = 'fc/weights');",
        "fc_bias = variable(shape = [1, 3], label = 'fc/bias');",
        'logits = dense(conv_block(input, filter, bias), weights, fc_bias);',
        'output = softmax(logits, axes = [1]);',
      ] }),
      inputs: { input },
      variables,
      compute,
      transcendental: true,
    });
    // Two conv layers, batch 2, stride-2 conv with automatic padding, avg_pool, sigmoid head.
    const in2 = d4('cnn2.input', [2, 2, 8, 8], -1, 1);
    const f1 = d4('cnn2.f1', [4, 2, 3, 3], -1, 1), b1 = d4('cnn2.b1', [1, 4], -1, 1);
    const f2 = d4('cnn2.f2', [4, 4, 3, 3], -1, 1), b2 = d4('cnn2.b2', [1, 4], -1, 1);
    const w3 = dyadic('model.cnn2.w3', [2, 16], -1, 1, 8);
    add({
      name: 'model.cnn_two_layers',
      description: 'two conv layers (second with stride 2 and automatic padding), batch 2, avg_pool, linear, sigmoid',
      graph: doc({ name: 'Net2', inputs: [['input', in2]], outputs: ['output'], body: [
        "f1 = variable(shape = [4, 2, 3, 3], label = 'l1/filter');",
        "b1 = variable(shape = [1, 4], label = 'l1/bias');",
        "f2 = variable(shape = [4, 4, 3, 3], label = 'l2/filter');",
        "b2 = variable(shape = [1, 4], label = 'l2/bias');",
        "w3 = variable(shape = [2, 16], label = 'head/weights');",
        'c1 = conv(input, f1, b1);',
        'r1 = relu(c1);',
        'c2 = conv(r1, f2, b2, stride = [2, 2]);',
        'r2 = relu(c2);',
        "p2 = avg_pool(r2, size = [1, 1, 2, 2], stride = [1, 1, 2, 2], border = 'ignore');",
        'flat = reshape(p2, shape = [2, 16]);',
        'h = linear(flat, w3);',
        'output = sigmoid(h);',
      ] }),
      inputs: { input: in2 },
      variables: { 'l1/filter': f1, 'l1/bias': b1, 'l2/filter': f2, 'l2/bias': b2, 'head/weights': w3 },
      compute: (o, I, V) => {
        const r1 = o.relu(o.conv(I.input, V['l1/filter'], V['l1/bias']));
        const r2 = o.relu(o.conv(r1, V['l2/filter'], V['l2/bias'], { stride: [2, 2] }));
        const p2 = o.avg_pool(r2, { size: [1, 1, 2, 2], stride: [1, 1, 2, 2], border: 'ignore' });
        return { output: o.sigmoid(o.linear(o.reshape(p2, { shape: [2, 16] }), V['head/weights'])) };
      },
      transcendental: true,
    });
  }

  // A scaled-down network written like appendix B (AlexNet as exported from TensorFlow: flat syntax, explicit
  // padding/border/stride/dilation, max_pool with border 'ignore', fully connected layers as 1x1 convs).
  {
    const input = d4('alex.input', [1, 3, 23, 23], -1, 1);
    const vars = {
      'alexnet_v2/conv1/kernel': dyadic('model.alex.k1', [4, 3, 3, 3], -0.5, 0.5, 8), 'alexnet_v2/conv1/bias': d4('alex.b1', [1, 4], -1, 1),
      'alexnet_v2/conv2/kernel': dyadic('model.alex.k2', [6, 4, 3, 3], -0.5, 0.5, 8), 'alexnet_v2/conv2/bias': d4('alex.b2', [1, 6], -1, 1),
      'alexnet_v2/fc3/kernel': dyadic('model.alex.k3', [8, 6, 2, 2], -0.5, 0.5, 8), 'alexnet_v2/fc3/bias': d4('alex.b3', [1, 8], -1, 1),
      'alexnet_v2/fc4/kernel': dyadic('model.alex.k4', [5, 8, 1, 1], -0.5, 0.5, 8), 'alexnet_v2/fc4/bias': d4('alex.b4', [1, 5], -1, 1),
    };
    const pool = { size: [1, 1, 3, 3], stride: [1, 1, 2, 2], border: 'ignore', padding: [[0, 0], [0, 0], [0, 0], [0, 0]] };
    add({
      name: 'model.alexnet_style',
      description: 'a small network in the style of appendix B: conv stride 2, max_pool 3x3/2 border ignore, conv '
        + 'padding 1, fully connected layers as convolutions, softmax over channels',
      graph: doc({ name: 'AlexNetLike', inputs: [['input', input]], outputs: ['output'], body: [
        "kernel1 = variable(shape = [4, 3, 3, 3], label = 'alexnet_v2/conv1/kernel');",
        "bias1 = variable(shape = [1, 4], label = 'alexnet_v2/conv1/bias');",
        "conv1 = conv(input, kernel1, bias1, padding = [(0,0), (0,0)], border = 'constant', stride = [2, 2], dilation = [1, 1]);",
        'relu1 = relu(conv1);',
        "pool1 = max_pool(relu1, size = [1, 1, 3, 3], stride = [1, 1, 2, 2], border = 'ignore', padding = [(0,0), (0,0), (0,0), (0,0)]);",
        "kernel2 = variable(shape = [6, 4, 3, 3], label = 'alexnet_v2/conv2/kernel');",
        "bias2 = variable(shape = [1, 6], label = 'alexnet_v2/conv2/bias');",
        "conv2 = conv(pool1, kernel2, bias2, padding = [(1,1), (1,1)], border = 'constant', stride = [1, 1], dilation = [1, 1]);",
        'relu2 = relu(conv2);',
        "pool2 = max_pool(relu2, size = [1, 1, 3, 3], stride = [1, 1, 2, 2], border = 'ignore', padding = [(0,0), (0,0), (0,0), (0,0)]);",
        "kernel3 = variable(shape = [8, 6, 2, 2], label = 'alexnet_v2/fc3/kernel');",
        "bias3 = variable(shape = [1, 8], label = 'alexnet_v2/fc3/bias');",
        "conv3 = conv(pool2, kernel3, bias3, padding = [(0,0), (0,0)], border = 'constant', stride = [1, 1], dilation = [1, 1]);",
        'relu3 = relu(conv3);',
        "kernel4 = variable(shape = [5, 8, 1, 1], label = 'alexnet_v2/fc4/kernel');",
        "bias4 = variable(shape = [1, 5], label = 'alexnet_v2/fc4/bias');",
        "conv4 = conv(relu3, kernel4, bias4, padding = [(0,0), (0,0)], border = 'constant', stride = [1, 1], dilation = [1, 1]);",
        'output = softmax(conv4);',
      ] }),
      inputs: { input },
      variables: vars,
      compute: (o, I, V) => {
        const z = [[0, 0], [0, 0]];
        const c1 = o.relu(o.conv(I.input, V['alexnet_v2/conv1/kernel'], V['alexnet_v2/conv1/bias'], { padding: z, stride: [2, 2], dilation: [1, 1] }));
        const p1 = o.max_pool(c1, pool);
        const c2 = o.relu(o.conv(p1, V['alexnet_v2/conv2/kernel'], V['alexnet_v2/conv2/bias'], { padding: [[1, 1], [1, 1]], stride: [1, 1], dilation: [1, 1] }));
        const p2 = o.max_pool(c2, pool);
        const c3 = o.relu(o.conv(p2, V['alexnet_v2/fc3/kernel'], V['alexnet_v2/fc3/bias'], { padding: z }));
        const c4 = o.conv(c3, V['alexnet_v2/fc4/kernel'], V['alexnet_v2/fc4/bias'], { padding: z });
        return { output: o.softmax(c4) };
      },
      transcendental: true,
    });
  }
  // A compositional residual network: nested custom fragments with defaults, batch normalization (exact square
  // roots), a skip connection, global average pooling with mean_reduce, linear head.
  {
    const input = d4('res.input', [2, 2, 4, 4], -1, 1);
    const C = 2;
    const bn = (k, i) => ({
      [`res/${k}/mean`]: T([1, C], [0.25 * i, -0.5]), [`res/${k}/variance`]: T([1, C], [0.1875, 0.9375]),
      [`res/${k}/offset`]: T([1, C], [0.5, -0.25 * i]), [`res/${k}/scale`]: T([1, C], [1, 0.5 + i]),
    });
    const vars = {
      'res/conv1/filter': dyadic('model.res.f1', [C, C, 3, 3], -0.5, 0.5, 8), ...bn('bn1', 1),
      'res/conv2/filter': dyadic('model.res.f2', [C, C, 3, 3], -0.5, 0.5, 8), ...bn('bn2', 2),
      'res/fc/weights': dyadic('model.res.fc', [3, C], -1, 1, 4), 'res/fc/bias': T([1, 3], [0.25, 0, -0.25]),
    };
    const bnArgs = (k) => `variable(shape = [1, ${C}], label = 'res/${k}/mean'), variable(shape = [1, ${C}], label = 'res/${k}/variance'), `
      + `variable(shape = [1, ${C}], label = 'res/${k}/offset'), variable(shape = [1, ${C}], label = 'res/${k}/scale')`;
    add({
      name: 'model.residual_compositional',
      description: 'residual block from nested custom fragments (conv_bn with a default epsilon, residual_block with a '
        + 'logical attribute), batch_normalization, skip connection, mean_reduce pooling, linear head, softmax',
      graph: doc({ name: 'ResNetLike', extensions: [EXT_BOTH], inputs: [['input', input]], outputs: ['features', 'output'], fragments: `
fragment conv_bn( input: tensor<scalar>, filter: tensor<scalar>, mean: tensor<scalar>, variance: tensor<scalar>,
                  offset: tensor<scalar>, scale: tensor<scalar>, epsilon: scalar = 0.0625, activate: logical = true )
-> ( output: tensor<scalar> )
{
    normed = batch_normalization(conv(input, filter, padding = [(1, 1), (1, 1)]), mean, variance, offset, scale,
                                 epsilon = epsilon);
    output = relu(normed) if activate else normed;
}

fragment residual_block( input: tensor<scalar>, f1: tensor<scalar>, m1: tensor<scalar>, v1: tensor<scalar>,
                         o1: tensor<scalar>, s1: tensor<scalar>, f2: tensor<scalar>, m2: tensor<scalar>,
                         v2: tensor<scalar>, o2: tensor<scalar>, s2: tensor<scalar> )
-> ( output: tensor<scalar> )
{
    hidden = conv_bn(input, f1, m1, v1, o1, s1);
    output = relu(input + conv_bn(hidden, f2, m2, v2, o2, s2, activate = false));
}`, body: [
        "f1 = variable(shape = [2, 2, 3, 3], label = 'res/conv1/filter');",
        "f2 = variable(shape = [2, 2, 3, 3], label = 'res/conv2/filter');",
        `block = residual_block(input, f1, ${bnArgs('bn1')}, f2, ${bnArgs('bn2')});`,
        'features = mean_reduce(block, axes = [2, 3]);',
        "fc_w = variable(shape = [3, 2], label = 'res/fc/weights');",
        "fc_b = variable(shape = [1, 3], label = 'res/fc/bias');",
        'output = softmax(linear(reshape(features, shape = [2, 2]), fc_w, fc_b));',
      ] }),
      inputs: { input },
      variables: vars,
      compute: (o, I, V) => {
        const cbn = (x, f, k, activate) => {
          const n = o.batch_normalization(o.conv(x, V[f], null, { padding: [[1, 1], [1, 1]] }), V[`res/${k}/mean`],
            V[`res/${k}/variance`], V[`res/${k}/offset`], V[`res/${k}/scale`], { epsilon: 0.0625 });
          return activate ? o.relu(n) : n;
        };
        const h = cbn(I.input, 'res/conv1/filter', 'bn1', true);
        const block = o.relu(o.add(I.input, cbn(h, 'res/conv2/filter', 'bn2', false)));
        const features = o.mean_reduce(block, { axes: [2, 3] });
        return { features, output: o.softmax(o.linear(o.reshape(features, { shape: [2, 2] }), V['res/fc/weights'], V['res/fc/bias'])) };
      },
      transcendental: true,
    });
  }

  // ------------------------------------------------------------------------------------ quantized model
  add(withSeed((seed) => {
    const r = rng(`quant.model.${seed}`);
    const input = T([1, 2, 4, 4], Array.from({ length: 32 }, () => Math.fround(Math.round(r() * 1000) / 1000)));
    // filter stored as 4-bit linear codes with min -1, max 0.875 (decoded values k/8 - 1); codes whose
    // requantization to 3 bits in [-1, 1] would sit on a .5 boundary (k = 8) are not used.
    const codes = Array.from({ length: 36 }, () => { let k; do k = Math.floor(r() * 16); while (k === 8); return k; });
    const filterDec = T([2, 2, 3, 3], codes.map((k) => k / 8 - 1));
    const bias = T([1, 2], [0.25, -0.5]);
    const c = {
      name: 'model.quantized',
      description: 'graph.quant applies linear_quantize to the input, to the filter variable (stored as 4-bit linear '
        + 'codes, requantized to 3 bits) and to an activation, and logarithmic_quantize to the output; the bias is a '
        + 'float16 tensor file',
      graph: doc({ name: 'QNet', inputs: [['input', input]], outputs: ['output'], body: [
        "filter = variable(shape = [2, 2, 3, 3], label = 'filter');",
        "bias = variable(shape = [1, 2], label = 'bias');",
        'conv1 = conv(input, filter, bias, padding = [(1,1), (1,1)]);',
        'act = relu(conv1);',
        'output = avg_pool(act, size = [1, 1, 2, 2], stride = [1, 1, 2, 2], padding = [(0,0), (0,0), (0,0), (0,0)]);',
      ] }),
      quant: [
        '"input": linear_quantize(min = 0.0, max = 1.0, bits = 8);',
        '"filter": linear_quantize(min = -1.0, max = 1.0, bits = 3);',
        "'conv1': linear_quantize(min = -4.0, max = 4.0, bits = 8);",
        '"output": logarithmic_quantize(max = 6.0, bits = 4);',
      ].join('\n') + '\n',
      inputs: { input },
      variables: {
        filter: { tensor: filterDec, codes, enc: { kind: 'linear', bits: 4, min: -1, max: 0.875 } },
        bias: { tensor: bias, enc: { kind: 'float', bits: 16 } },
      },
      compute: (o, I, V) => {
        const iq = lqChecked(o, I.input, 0, 1, 8);
        const fq = lqChecked(o, V.filter, -1, 1, 3);
        const conv1 = lqChecked(o, o.conv(iq, fq, V.bias, { padding: [[1, 1], [1, 1]] }), -4, 4, 8);
        const act = o.relu(conv1);
        const pooled = o.avg_pool(act, { size: [1, 1, 2, 2], stride: [1, 1, 2, 2], padding: [[0, 0], [0, 0], [0, 0], [0, 0]] });
        return { output: logqChecked(o, pooled, 6.0, 4) };
      },
      tolerance: { metricType: 'ATOL', value: 1e-6 },
      interpretation: 'graph.quant entries act as if the quantization were applied to the tensor right after it is '
        + 'computed (chapter 7), variables included (the tensor-file codes are decoded first)',
    };
    c.inputsT = tensorsOf(c.inputs);
    c.varsT = tensorsOf(c.variables);
    return c;
  }));
  add(withSeed((seed) => {
    const r = rng(`quant.act.${seed}`);
    const x = T([2, 4], Array.from({ length: 8 }, () => Math.fround(Math.round((r() * 4 - 2) * 1000) / 1000)));
    const w = d4('quant.act.w', [3, 4], -1, 1);
    const c = {
      name: 'model.quantized_activations',
      description: 'graph.quant entries for the input, a hidden activation, the output and a float-stored variable (used twice) on a linear -> relu -> matmul model',
      graph: doc({ inputs: [['x', x]], outputs: ['y'], body: [
        "w = variable(shape = [3, 4], label = 'w');",
        'h = linear(x, w);',
        'a = relu(h);',
        'y = matmul(a, w);',
      ] }),
      quant: '"x": linear_quantize(min = -2.0, max = 2.0, bits = 4);\n"h": linear_quantize(min = -2.0, max = 2.0, bits = 5);\n'
        + '"y": linear_quantize(min = -3.0, max = 3.0, bits = 6);\n"w": linear_quantize(min = -1.25, max = 1.0, bits = 4);\n',
      inputs: { x },
      variables: { w },
      compute: (o, I, V) => {
        const xq = lqChecked(o, I.x, -2, 2, 4);
        const wq = lqChecked(o, V.w, -1.25, 1, 4);
        const h = lqChecked(o, o.linear(xq, wq), -2, 2, 5);
        return { y: lqChecked(o, o.matmul(o.relu(h), wq), -3, 3, 6) };
      },
      tolerance: { metricType: 'ATOL', value: 1e-6 },
    };
    c.inputsT = tensorsOf(c.inputs);
    c.varsT = tensorsOf(c.variables);
    return c;
  }));

  // -------------------------------------------------------------------------------- tensor-file reader
  const varCase = (name, description, wTensor, entry, shapeText, extra = {}) => {
    const x = d4(`tf.${name}.x`, wTensor.shape);
    add({
      name,
      description,
      graph: doc({ inputs: [['x', x]], outputs: ['y'], body: [`w = variable(shape = [${shapeText}], label = 'w');`, 'y = add(x, w);'] }),
      inputs: { x },
      variables: { w: { tensor: wTensor, ...entry } },
      compute: (o, I, V) => ({ y: o.add(I.x, V.w) }),
      ...extra,
    });
  };
  {
    const w16 = T([2, 3], [0.5, -65504, 6.103515625e-5, 1.5, -0.0009765625, 2048]);
    varCase('tensorfile.float16_variable', 'variable stored as 16-bit IEEE floats (code 0, 16 bits)', w16, { enc: { kind: 'float', bits: 16 } }, '2, 3');
    const w64 = T([2, 3], [0.1, -1 / 3, 1e10, 2 ** -30, 3.25, -7]);
    const w64r = T([2, 3], w64.data);
    add({
      name: 'tensorfile.float64_variable',
      description: 'variable stored as 64-bit IEEE floats (code 0, 64 bits); values not representable in float32 round once',
      graph: doc({ inputs: [['x', T([2, 3], new Array(6).fill(0))]], outputs: ['y'], body: ["w = variable(shape = [2, 3], label = 'w');", 'y = copy(w);'] }),
      inputs: { x: d4('tf64.x', [2, 3]) },
      variables: { w: { tensor: w64r, enc: { kind: 'float', bits: 64 } } },
      compute: (o, I, V) => ({ y: o.copy(V.w) }),
    });
    const codes8 = Array.from({ length: 12 }, (_, i) => (i * 53 + 7) % 256);
    varCase('tensorfile.linear_quantized_8bit', 'variable stored as 8-bit linear quantization codes (code 0x10, min 1, max 1 + 255/64)',
      T([3, 4], codes8.map((q) => 1 + q / 64)), { codes: codes8, enc: { kind: 'linear', bits: 8, min: 1, max: 1 + 255 / 64 } }, '3, 4',
      { tolerance: { metricType: 'ULP', value: 1 } });
    const codes4 = [0, 15, 7, 8, 1, 14, 3, 12, 9];
    varCase('tensorfile.linear_quantized_4bit', 'variable stored as 4-bit linear codes (non-byte width, 9 items: last byte padded; min 0.5, max 2.375)',
      T([3, 3], codes4.map((q) => 0.5 + q / 8)), { codes: codes4, enc: { kind: 'linear', bits: 4, min: 0.5, max: 2.375 } }, '3, 3',
      { tolerance: { metricType: 'ULP', value: 1 } });
    const codesQ = Array.from({ length: 6 }, (_, i) => (i * 97 + 31) % 256);
    varCase('tensorfile.quint_with_graph_quant', 'variable with the newer item-type code 2 (quint, 8 bits) whose values '
      + 'come from its graph.quant entry linear_quantize(min 1, max 1 + 255/64): code q is 1 + q/64 (the entry, applied '
      + 'again as quantization, leaves these values unchanged)',
      T([2, 3], codesQ.map((q) => 1 + q / 64)), { codes: codesQ, enc: { kind: 'quint', bits: 8 } }, '2, 3',
      { tolerance: { metricType: 'ULP', value: 1 }, quant: '"w": linear_quantize(min = 1.0, max = 4.984375, bits = 8);\n' });
    const codesL = [0, 1, 5, 12, 15, 14, 3];
    varCase('tensorfile.logarithmic_quantized', 'variable stored as 4-bit logarithmic codes (code 0x11, min 0, max 8: value 2^(q + 3 - 15))',
      T([7], codesL.map((q) => 2 ** (q - 12))), { codes: codesL, enc: { kind: 'logarithmic', bits: 4, max: 8 } }, '7',
      { tolerance: { metricType: 'ULP', value: 1 } });
  }
  {
    const mk = (name, description, t, enc) => add({
      name, description, outputEnc: enc.bits === 64 ? { y: enc } : undefined,
      graph: doc({ inputs: [['i', t]], outputs: ['y'], body: ['y = copy(i);'] }),
      inputs: { i: { tensor: t, enc } },
      compute: (o, I) => ({ y: o.copy(I.i) }),
    });
    mk('tensorfile.int64_newer_code', 'integer input with the newer item-type code 4 (signed int), 64 bits',
      T([2, 3], [-3, 0, 2 ** 40, -(2 ** 31), 7, 1], 'integer'), { kind: 'int', bits: 64 });
    mk('tensorfile.integer_signed_4bit', 'integer input, Khronos code 1 signed, 4 bits per item (-8..7), 7 items',
      T([7], [-8, 7, -1, 0, 3, -5, 6], 'integer'), { kind: 'integer', bits: 4, signed: true });
    mk('tensorfile.integer_unsigned_8bit', 'integer input, Khronos code 1 unsigned, 8 bits',
      T([2, 2], [0, 255, 17, 128], 'integer'), { kind: 'integer', bits: 8, signed: false });
    mk('tensorfile.integer_signed_16bit', 'integer input, Khronos code 1 signed, 16 bits',
      T([3], [-32768, 32767, -2], 'integer'), { kind: 'integer', bits: 16, signed: true });
    const lb = bools('tf.bool1', [11]);
    add({
      name: 'tensorfile.bool_1bit',
      description: 'logical input with the newer item-type code 5 (bool), 1 bit per item (11 items: 2 bytes)',
      graph: doc({ inputs: [['b', lb]], outputs: ['y'], body: ['y = not(b);'] }),
      inputs: { b: { tensor: lb, enc: { kind: 'bool', bits: 1 } } },
      compute: (o, I) => ({ y: o.not(I.b) }),
    });
    const x16 = T([2, 2], [0.5, -1.25, 1024, 3]);
    add({
      name: 'tensorfile.float16_input',
      description: 'external input file with 16-bit floats',
      graph: doc({ inputs: [['x', x16]], outputs: ['y'], body: ['y = mul(x, 2.0);'] }),
      inputs: { x: { tensor: x16, enc: { kind: 'float', bits: 16 } } },
      compute: (o, I) => ({ y: o.mul(I.x, 2.0) }),
    });
  }
  return cases;
}

export { volume };
