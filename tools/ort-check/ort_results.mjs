// ONNX Runtime's results for nnref cases, as a results file for `nnref check` (tools/ort-check.sh,
// docs/ort-check.md). Each single-operator float32 case whose operator has an ONNX counterpart
// below runs as a one-node ONNX model (opset 17) on ONNX Runtime's CPU provider, one thread; its
// outputs go to {"cases": [{"name", "outputs": {NAME: [values]}}]}. The cases must have explicit
// input arrays (`nnref generate --inline-data`). Cases that are not mapped are left out (check
// reports them as skipped, no-result), and so are those ONNX Runtime rejects (listed on stderr).
//
// node tools/ort-check/ort_results.mjs --ort-dir DIR --out RESULTS.json CASES.json...
import fs from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const {encodeModel, ONNX_INT64} = await import(path.join(here, '../bench/ort/onnx.mjs'));

const ints = (name, values) => ({name, type: 'INTS', ints: values});
const float = (name, value) => ({name, type: 'FLOAT', f: value});
const int = (name, value) => ({name, type: 'INT', i: value});
const int64s = (name, values) =>
  ({name, dims: [values.length], data: BigInt64Array.from(values.map(BigInt)), dataType: ONNX_INT64});

const UNARY = {abs: 'Abs', ceil: 'Ceil', floor: 'Floor', exp: 'Exp', log: 'Log', neg: 'Neg',
               sqrt: 'Sqrt', tanh: 'Tanh', sigmoid: 'Sigmoid', relu: 'Relu', erf: 'Erf',
               sin: 'Sin', cos: 'Cos', tan: 'Tan', reciprocal: 'Reciprocal', sign: 'Sign',
               identity: 'Identity', softplus: 'Softplus', softsign: 'Softsign',
               hardSwish: 'HardSwish', roundEven: 'Round'};
// Reductions whose axes are an attribute in opset 17 (ReduceSum takes them as an input).
const REDUCE = {reduceMean: 'ReduceMean', reduceMax: 'ReduceMax', reduceMin: 'ReduceMin',
                reduceProduct: 'ReduceProd', reduceL1: 'ReduceL1', reduceL2: 'ReduceL2',
                reduceLogSum: 'ReduceLogSum', reduceLogSumExp: 'ReduceLogSumExp',
                reduceSumSquare: 'ReduceSumSquare'};
// WebIDL `unsigned long` (an axis): ToUint32, so 2^32 is 0.
const uint32 = (v) => Number(v) >>> 0;
const scalar = (name, value) => ({name, dims: [], data: Float32Array.from([value])});
const filled = (name, n, value) => ({name, dims: [n], data: new Float32Array(n).fill(value)});
const BINARY = {add: 'Add', sub: 'Sub', mul: 'Mul', div: 'Div', max: 'Max', min: 'Min',
                pow: 'Pow'};

// WebNN operator (name, its arguments by name, input operand ranks) -> ONNX nodes and extra
// initializers, or a string saying why the case is left out.
function lower(op, args, rank, out) {
  const o = args.options ?? {};
  if (UNARY[op]) return {nodes: [{op_type: UNARY[op], input: [args.input ?? args.x], output: [out]}]};
  const unaryWith = (op_type, attribute) =>
    ({nodes: [{op_type, input: [args.input], output: [out], attribute}]});
  if (BINARY[op]) return {nodes: [{op_type: BINARY[op], input: [args.a, args.b], output: [out]}]};
  switch (op) {
    case 'matmul':
      return {nodes: [{op_type: 'MatMul', input: [args.a, args.b], output: [out]}]};
    case 'gemm': {
      const attribute = [float('alpha', o.alpha ?? 1), float('beta', o.beta ?? 1),
                         int('transA', o.aTranspose ? 1 : 0), int('transB', o.bTranspose ? 1 : 0)];
      const input = [args.a, args.b];
      if (o.c !== undefined) input.push(o.c);
      return {nodes: [{op_type: 'Gemm', input, output: [out], attribute}]};
    }
    case 'conv2d': {
      if ((o.inputLayout ?? 'nchw') !== 'nchw' || (o.filterLayout ?? 'oihw') !== 'oihw') {
        return 'a layout other than nchw / oihw';
      }
      const [t, b, l, r] = o.padding ?? [0, 0, 0, 0];
      const attribute = [ints('pads', [t, l, b, r]), ints('strides', o.strides ?? [1, 1]),
                         ints('dilations', o.dilations ?? [1, 1]), int('group', o.groups ?? 1)];
      const input = [args.input, args.filter];
      if (o.bias !== undefined) input.push(o.bias);
      return {nodes: [{op_type: 'Conv', input, output: [out], attribute}]};
    }
    case 'reduceSum':
    case 'reduceMean':
    case 'reduceMax':
    case 'reduceMin':
    case 'reduceProduct':
    case 'reduceL1':
    case 'reduceL2':
    case 'reduceLogSum':
    case 'reduceLogSumExp':
    case 'reduceSumSquare': {
      const axes = (o.axes ?? [...Array(rank[0]).keys()]).map(uint32);
      if (axes.length === 0) return 'empty axes (no ONNX reduction reduces nothing in opset 17)';
      if (rank[0] === 0) return 'a scalar input';
      const keepdims = int('keepdims', o.keepDimensions ? 1 : 0);
      if (op === 'reduceSum') {
        return {nodes: [{op_type: 'ReduceSum', input: [args.input, 'axes'], output: [out],
                         attribute: [keepdims]}],
                initializers: [int64s('axes', axes)]};
      }
      return unaryWith(REDUCE[op], [ints('axes', axes), keepdims]);
    }
    case 'softmax':
      return unaryWith('Softmax', [int('axis', uint32(args.axis))]);
    case 'clamp':
      return {nodes: [{op_type: 'Clip', input: [args.input, 'min', 'max'], output: [out]}],
              initializers: [scalar('min', o.minValue ?? -Infinity),
                             scalar('max', o.maxValue ?? Infinity)]};
    case 'leakyRelu':
      return unaryWith('LeakyRelu', [float('alpha', o.alpha ?? 0.01)]);
    case 'elu':
      return unaryWith('Elu', [float('alpha', o.alpha ?? 1)]);
    case 'hardSigmoid':
      return unaryWith('HardSigmoid', [float('alpha', o.alpha ?? 0.2), float('beta', o.beta ?? 0.5)]);
    case 'transpose':
      return unaryWith('Transpose', [ints('perm', o.permutation ?? [...Array(rank[0]).keys()].reverse())]);
    case 'averagePool2d':
    case 'maxPool2d':
    case 'l2Pool2d': {
      if ((o.layout ?? 'nchw') !== 'nchw') return 'a layout other than nchw';
      if (o.outputSizes !== undefined) return 'outputSizes (no ONNX attribute)';
      const rounding = o.outputShapeRounding ?? o.roundingType ?? 'floor';
      const dilations = o.dilations ?? [1, 1];
      const dilated = dilations.some((d) => d !== 1);
      if (op !== 'maxPool2d' && dilated) return `${op} with dilations (not in opset 17)`;
      if (op === 'l2Pool2d' && rounding === 'ceil') return 'l2Pool2d with ceil rounding (not in opset 17)';
      const [t, b, l, r] = o.padding ?? [0, 0, 0, 0];
      const shape = rank.shapes[0];
      if (rounding === 'ceil') {
        // ONNX (opset 19's note) and ONNX Runtime drop a ceil-rounded last window that starts at
        // or past the end of the input and its leading padding; WebNN's output-size formula keeps
        // it (a window of no element: docs/deviations.md, "Pooling: a last window past the end").
        const window = o.windowDimensions ?? shape.slice(2);
        const strides = o.strides ?? [1, 1];
        for (const [axis, head, tail] of [[0, t, b], [1, l, r]]) {
          const extent = dilations[axis] * (window[axis] - 1) + 1;
          const size = Math.ceil((shape[2 + axis] + head + tail - extent) / strides[axis]) + 1;
          if ((size - 1) * strides[axis] >= shape[2 + axis] + head) {
            return `${op} with a ceil-rounded last window past the input (ONNX drops it)`;
          }
        }
      }
      const attribute = [ints('kernel_shape', o.windowDimensions ?? shape.slice(2)),
                         ints('pads', [t, l, b, r]), ints('strides', o.strides ?? [1, 1])];
      if (op === 'maxPool2d') {
        attribute.push(ints('dilations', dilations), int('ceil_mode', rounding === 'ceil' ? 1 : 0));
        return unaryWith('MaxPool', attribute);
      }
      if (op === 'averagePool2d') {
        // WebNN divides by the real (non-padding) elements: count_include_pad = 0.
        attribute.push(int('count_include_pad', 0), int('ceil_mode', rounding === 'ceil' ? 1 : 0));
        return unaryWith('AveragePool', attribute);
      }
      attribute.push(int('p', 2));
      return unaryWith('LpPool', attribute);
    }
    case 'convTranspose2d': {
      if ((o.inputLayout ?? 'nchw') !== 'nchw' || (o.filterLayout ?? 'iohw') !== 'iohw') {
        return 'a layout other than nchw / iohw';
      }
      if (o.outputSizes !== undefined) return 'outputSizes';
      const [t, b, l, r] = o.padding ?? [0, 0, 0, 0];
      const attribute = [ints('pads', [t, l, b, r]), ints('strides', o.strides ?? [1, 1]),
                         ints('dilations', o.dilations ?? [1, 1]), int('group', o.groups ?? 1),
                         ints('output_padding', o.outputPadding ?? [0, 0])];
      const input = [args.input, args.filter];
      if (o.bias !== undefined) input.push(o.bias);
      return {nodes: [{op_type: 'ConvTranspose', input, output: [out], attribute}]};
    }
    case 'batchNormalization': {
      const axis = o.axis ?? 1;
      if (uint32(axis) !== 1) return 'a channel axis other than 1';
      const channels = rank.shapes[0][1];
      const initializers = [];
      const scale = o.scale ?? (initializers.push(filled('ones', channels, 1)), 'ones');
      const bias = o.bias ?? (initializers.push(filled('zeros', channels, 0)), 'zeros');
      return {nodes: [{op_type: 'BatchNormalization',
                       input: [args.input, scale, bias, args.mean, args.variance], output: [out],
                       attribute: [float('epsilon', o.epsilon ?? 1e-5)]}],
              initializers};
    }
    case 'instanceNormalization': {
      if ((o.layout ?? 'nchw') !== 'nchw') return 'a layout other than nchw';
      const channels = rank.shapes[0][1];
      const initializers = [];
      const scale = o.scale ?? (initializers.push(filled('ones', channels, 1)), 'ones');
      const bias = o.bias ?? (initializers.push(filled('zeros', channels, 0)), 'zeros');
      return {nodes: [{op_type: 'InstanceNormalization', input: [args.input, scale, bias],
                       output: [out], attribute: [float('epsilon', o.epsilon ?? 1e-5)]}],
              initializers};
    }
    case 'layerNormalization': {
      const n = rank[0];
      const axes = (o.axes ?? [...Array(n).keys()].slice(1)).map(uint32);
      if (axes.length === 0) return 'layerNormalization over no axes';
      const first = axes[0];
      if (!axes.every((a, i) => a === first + i) || axes[axes.length - 1] !== n - 1) {
        return 'layerNormalization axes other than the trailing ones in order';
      }
      const dims = rank.shapes[0].slice(first);
      const count = dims.reduce((p, d) => p * d, 1);
      const initializers = [];
      const scale = o.scale ?? (initializers.push({...filled('ones', count, 1), dims}), 'ones');
      const input = [args.input, scale];
      if (o.bias !== undefined) input.push(o.bias);
      return {nodes: [{op_type: 'LayerNormalization', input, output: [out],
                       attribute: [int('axis', first), float('epsilon', o.epsilon ?? 1e-5)]}],
              initializers};
    }
    case 'cumulativeSum': {
      const axis = {name: 'axis', dims: [], data: BigInt64Array.from([BigInt(uint32(args.axis))]),
                    dataType: ONNX_INT64};
      return {nodes: [{op_type: 'CumSum', input: [args.input, 'axis'], output: [out],
                       attribute: [int('exclusive', o.exclusive ? 1 : 0),
                                   int('reverse', o.reversed ? 1 : 0)]}],
              initializers: [axis]};
    }
    default:
      return `no ONNX mapping for ${op}`;
  }
}

// A float32 array as JSON values: NaN and the infinities as the strings nnref reads.
const jsonValues = (a) => Array.from(a, (v) => (Number.isFinite(v) ? v : String(v)));

async function main() {
  const argv = process.argv.slice(2);
  let ortDir = null, out = null;
  const files = [];
  for (let i = 0; i < argv.length; ++i) {
    if (argv[i] === '--ort-dir') ortDir = argv[++i];
    else if (argv[i] === '--out') out = argv[++i];
    else files.push(argv[i]);
  }
  if (!ortDir || !out || files.length === 0) {
    throw new Error('usage: ort_results.mjs --ort-dir DIR --out RESULTS.json CASES.json...');
  }
  const require = createRequire(path.resolve(ortDir, 'package.json'));
  const ort = require('onnxruntime-node');
  const protobuf = require('protobufjs');
  const results = [];
  const left = {};
  for (const file of files) {
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    for (const c of Array.isArray(doc) ? doc : doc.cases ?? [doc]) {
      const g = c.graph;
      const skip = (why) => { left[why] = (left[why] ?? 0) + 1; };
      if (!g || c.expectedError || c.timeline || c.referenceOnly) continue;
      if (g.operators.length !== 1) { skip('more than one operator'); continue; }
      const spec = g.operators[0];
      const inputs = Object.entries(g.inputs ?? {});
      const outs = Object.entries(g.expectedOutputs ?? {});
      if ([...inputs, ...outs].some(([, t]) => t.descriptor.dataType !== 'float32')) {
        skip('not float32 throughout'); continue;
      }
      if (typeof spec.outputs !== 'string' || outs.length !== 1) { skip('not one output'); continue; }
      const args = Object.assign({}, ...spec.arguments);
      // The operand ranks in input order (and .shapes, keyed the same way, by the first argument).
      const shapeOf = (n) => (g.inputs[n].descriptor.shape ?? g.inputs[n].descriptor.dimensions);
      const first = spec.arguments.map((a) => Object.values(a)[0]).find((v) => typeof v === 'string' && g.inputs[v]);
      const rank = first ? [shapeOf(first).length] : [0];
      rank.shapes = first ? [shapeOf(first)] : [[]];
      const lowered = lower(spec.name, args, rank, spec.outputs);
      if (typeof lowered === 'string') { skip(lowered); continue; }
      const dims = (t) => t.descriptor.shape ?? t.descriptor.dimensions;
      const f32 = (t) => Float32Array.from(t.data, Number);
      try {
        const model = encodeModel(protobuf, {
          name: c.name,
          nodes: lowered.nodes,
          initializers: [
            ...inputs.filter(([, t]) => t.constant).map(([n, t]) => ({name: n, dims: dims(t), data: f32(t)})),
            ...(lowered.initializers ?? []),
          ],
          inputs: inputs.filter(([, t]) => !t.constant).map(([n, t]) => ({name: n, dims: dims(t)})),
          outputs: [spec.outputs],
        });
        const session = await ort.InferenceSession.create(model, {
          intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all'});
        const feeds = {};
        for (const [n, t] of inputs) {
          if (!t.constant) feeds[n] = new ort.Tensor('float32', f32(t), dims(t));
        }
        const got = (await session.run(feeds))[spec.outputs];
        await session.release();
        results.push({name: c.name, outputs: {[spec.outputs]: jsonValues(got.data)}});
      } catch (e) {
        skip('ONNX Runtime rejected the model');
        process.stderr.write(`ort-check: ${c.name}: ${String(e.message ?? e).split('\n')[0]}\n`);
      }
    }
  }
  fs.writeFileSync(out, JSON.stringify({cases: results}) + '\n');
  process.stdout.write(`ort-check: ${results.length} cases run on ONNX Runtime ${ort.env.versions?.node ?? ''}\n`);
  for (const [why, n] of Object.entries(left).sort((a, b) => b[1] - a[1])) {
    process.stdout.write(`  left out ${n}: ${why}\n`);
  }
}

main().catch((e) => { process.stderr.write(`ort-check: ${e.stack ?? e}\n`); process.exit(2); });
