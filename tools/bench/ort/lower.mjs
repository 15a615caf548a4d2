// WebNN operators as ONNX nodes (opset 17), shared by tools/ort-check/ort_results.mjs (one
// operator per model) and tools/bench/ort/compare.mjs (the model blocks of cases/models as whole
// graphs, lowerGraph below).
import {ONNX_BOOL, ONNX_FLOAT, ONNX_INT64, ONNX_INT8, ONNX_UINT8} from './onnx.mjs';

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

// WebNN operator (name, its arguments by name, input operand ranks with .shapes and, when known,
// .types: those of the first operand argument) -> ONNX nodes and extra initializers, or a string
// saying why the case is left out. Inner outputs other than `out` are named after `out`, or are
// renamed by lowerGraph.
export function lower(op, args, rank, out) {
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
    case 'reshape':
      // allowzero = 1: a 0 in newShape is an empty dimension, as in WebNN, not "copy the input's".
      return {nodes: [{op_type: 'Reshape', input: [args.input, 'shape'], output: [out],
                       attribute: [int('allowzero', 1)]}],
              initializers: [int64s('shape', args.newShape.map(Number))]};
    case 'slice': {
      const starts = args.starts.map(Number);
      const steps = (o.strides ?? starts.map(() => 1)).map(Number);
      // WebNN `sizes` counts the input elements spanned (the output has ceil(size / stride)).
      const ends = starts.map((s, i) => s + Number(args.sizes[i]));
      const axes = starts.map((_, i) => i);
      return {nodes: [{op_type: 'Slice', input: [args.input, 'starts', 'ends', 'axes', 'steps'],
                       output: [out]}],
              initializers: [int64s('starts', starts), int64s('ends', ends), int64s('axes', axes),
                             int64s('steps', steps)]};
    }
    case 'triangular': {
      // WebNN: upper defaults to true, diagonal to 0; ONNX Trilu's k is the same diagonal offset.
      const k = {name: 'k', dims: [], data: BigInt64Array.from([BigInt(o.diagonal ?? 0)]),
                 dataType: ONNX_INT64};
      const upper = int('upper', (o.upper ?? true) ? 1 : 0);
      if (rank.types?.[0] === 'uint8' || rank.types?.[0] === 'int8') {
        // ONNX Runtime's CPU Trilu has no 8-bit kernel: through float32, exact for 8-bit values.
        const to = rank.types[0] === 'uint8' ? ONNX_UINT8 : ONNX_INT8;
        return {nodes: [{op_type: 'Cast', input: [args.input], output: ['wide'],
                         attribute: [int('to', ONNX_FLOAT)]},
                        {op_type: 'Trilu', input: ['wide', 'k'], output: ['wide_tri'],
                         attribute: [upper]},
                        {op_type: 'Cast', input: ['wide_tri'], output: [out],
                         attribute: [int('to', to)]}],
                initializers: [k]};
      }
      return {nodes: [{op_type: 'Trilu', input: [args.input, 'k'], output: [out],
                       attribute: [upper]}],
              initializers: [k]};
    }
    case 'where': {
      // WebNN's condition is uint8 (non-zero selects trueValue); ONNX's is bool.
      const condition = `${out}.condition`;
      return {nodes: [{op_type: 'Cast', input: [args.condition], output: [condition],
                       attribute: [int('to', ONNX_BOOL)]},
                      {op_type: 'Where', input: [condition, args.trueValue, args.falseValue],
                       output: [out]}]};
    }
    default:
      return `no ONNX mapping for ${op}`;
  }
}


// The ONNX nodes and initializers of a whole case graph: `operators` as in the case file
// ({name, arguments, outputs}), `operands` the data type and shape of every named operand
// (nnref_bench --export writes them to operands.json), `constantData(name)` the bytes of a
// constant (a Uint8Array). Each operator's made-up names (its attribute tensors, its inner
// outputs) are prefixed with its output's name, so that two operators' never collide. Throws,
// naming the operator, when one has no mapping: a model block is exported whole or not at all.
export function lowerGraph(operators, operands, constantData) {
  const TYPES = {float32: [ONNX_FLOAT, Float32Array], uint8: [ONNX_UINT8, Uint8Array]};
  const nodes = [], initializers = [];
  for (const [name, t] of Object.entries(operands)) {
    if (t.kind !== 'constant') continue;
    const type = TYPES[t.dataType];
    if (!type) throw new Error(`constant ${name}: no ONNX export for ${t.dataType}`);
    const bytes = constantData(name);
    initializers.push({name, dims: t.shape, dataType: type[0],
                       data: new type[1](bytes.buffer, bytes.byteOffset,
                                         bytes.byteLength / type[1].BYTES_PER_ELEMENT)});
  }
  operators.forEach((spec, k) => {
    const where = `operator ${k} (${spec.name})`;
    if (typeof spec.outputs !== 'string') throw new Error(`${where}: not one output`);
    const args = Object.assign({}, ...spec.arguments);
    const first = spec.arguments.map((a) => Object.values(a)[0])
        .find((v) => typeof v === 'string' && operands[v]);
    const shape = first ? operands[first].shape : [];
    const rank = [shape.length];
    rank.shapes = [shape];
    rank.types = [first ? operands[first].dataType : undefined];
    const lowered = lower(spec.name, args, rank, spec.outputs);
    if (typeof lowered === 'string') throw new Error(`${where}: ${lowered}`);
    const local = new Map();
    for (const t of lowered.initializers ?? []) local.set(t.name, `${spec.outputs}.${t.name}`);
    for (const n of lowered.nodes) {
      for (const o of n.output) if (o !== spec.outputs) local.set(o, `${spec.outputs}.${o}`);
    }
    const rename = (x) => local.get(x) ?? x;
    for (const t of lowered.initializers ?? []) initializers.push({...t, name: rename(t.name)});
    for (const n of lowered.nodes) {
      nodes.push({...n, input: n.input.map(rename), output: n.output.map(rename)});
    }
  });
  return {nodes, initializers};
}
