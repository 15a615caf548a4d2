// Single-operator ONNX models for the benchmarks of tools/bench (docs/performance.md), written
// with protobufjs from the subset of the ONNX protobuf schema below (field numbers of onnx.proto,
// IR version 8 / opset 17: the first opset with LayerNormalization).

const SCHEMA = `
syntax = "proto2";
package onnx;
message AttributeProto {
  enum AttributeType { UNDEFINED = 0; FLOAT = 1; INT = 2; INTS = 7; }
  optional string name = 1;
  optional float f = 2;
  optional int64 i = 3;
  repeated int64 ints = 8;
  optional AttributeType type = 20;
}
message NodeProto {
  repeated string input = 1;
  repeated string output = 2;
  optional string name = 3;
  optional string op_type = 4;
  repeated AttributeProto attribute = 5;
}
message TensorProto {
  repeated int64 dims = 1;
  optional int32 data_type = 2;
  optional string name = 8;
  optional bytes raw_data = 9;
}
message TensorShapeProto {
  message Dimension { optional int64 dim_value = 1; }
  repeated Dimension dim = 1;
}
message TypeProto {
  message Tensor {
    optional int32 elem_type = 1;
    optional TensorShapeProto shape = 2;
  }
  optional Tensor tensor_type = 1;
}
message ValueInfoProto {
  optional string name = 1;
  optional TypeProto type = 2;
}
message GraphProto {
  repeated NodeProto node = 1;
  optional string name = 2;
  repeated TensorProto initializer = 5;
  repeated ValueInfoProto input = 11;
  repeated ValueInfoProto output = 12;
}
message OperatorSetIdProto {
  optional string domain = 1;
  optional int64 version = 2;
}
message ModelProto {
  optional int64 ir_version = 1;
  optional string producer_name = 2;
  optional GraphProto graph = 7;
  repeated OperatorSetIdProto opset_import = 8;
}
`;

const FLOAT = 1;  // TensorProto.DataType.FLOAT

const ints = (name, values) => ({name, type: 'INTS', ints: values});
const float = (name, value) => ({name, type: 'FLOAT', f: value});
const int = (name, value) => ({name, type: 'INT', i: value});

// The graph of each benchmark id of tools/bench/bench.cc: its nodes, given the operand names in
// the order nnref_bench lists them, the output name 'y' and extra initializers.
const GRAPHS = {
  // WebNN conv2d, nchw/oihw, padding [1, 1, 1, 1] (= ONNX pads [top, left, bottom, right]).
  conv2d: ([x, w]) => ({
    nodes: [{op_type: 'Conv', input: [x.name, w.name], output: ['y'],
             attribute: [ints('pads', [1, 1, 1, 1]), ints('strides', [1, 1]),
                         ints('dilations', [1, 1]), int('group', 1),
                         ints('kernel_shape', w.dims.slice(2))]}],
  }),
  matmul: ([a, b]) => ({nodes: [{op_type: 'MatMul', input: [a.name, b.name], output: ['y']}]}),
  add: ([a, b]) => ({nodes: [{op_type: 'Add', input: [a.name, b.name], output: ['y']}]}),
  overhead: ([a, b]) => ({nodes: [{op_type: 'Add', input: [a.name, b.name], output: ['y']}]}),
  // Opset 13+ Softmax normalises along `axis` alone, as WebNN softmax(input, axis).
  softmax: ([x]) => ({
    nodes: [{op_type: 'Softmax', input: [x.name], output: ['y'], attribute: [int('axis', 1)]}],
  }),
  // WebNN's default axes [1, ..., rank-1] = ONNX axis 1; no WebNN scale means a scale of ones
  // (ONNX requires the input), no bias means B absent.
  layerNormalization: ([x]) => {
    const n = x.dims.slice(1).reduce((p, d) => p * d, 1);
    return {
      nodes: [{op_type: 'LayerNormalization', input: [x.name, 'scale'], output: ['y'],
               attribute: [int('axis', 1), float('epsilon', 1e-5)]}],
      initializers: [{name: 'scale', dims: x.dims.slice(1), data: new Float32Array(n).fill(1)}],
    };
  },
  relu_matmul: ([x, w]) => ({
    nodes: [{op_type: 'MatMul', input: [x.name, w.name], output: ['t']},
            {op_type: 'Relu', input: ['t'], output: ['y']}],
  }),
};

export const knownIds = Object.keys(GRAPHS);

// Parses nnref_bench's "shapes" field: "x:1x64x56x56,w:64x64x3x3:const".
export function parseShapes(text) {
  return text.split(',').map((item) => {
    const [name, dims, kind] = item.split(':');
    return {name, dims: dims.split('x').map(Number), constant: kind === 'const'};
  });
}

// ONNX TensorProto data types used here.
export const ONNX_FLOAT = FLOAT;
export const ONNX_UINT8 = 2;
export const ONNX_INT8 = 3;
export const ONNX_INT64 = 7;
export const ONNX_BOOL = 9;

function tensorProto(name, dims, data, dataType = FLOAT) {
  return {name, dims, data_type: dataType,
          raw_data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength)};
}

function valueInfo(name, dims, elemType = FLOAT) {
  const tensor_type = {elem_type: elemType};
  if (dims) tensor_type.shape = {dim: dims.map((d) => ({dim_value: d}))};
  return {name, type: {tensor_type}};
}

// The bytes of a one-graph ONNX model (opset 17): `nodes` ({op_type, input, output, attribute}),
// `initializers` ({name, dims, data: a typed array, dataType (default FLOAT)}), `inputs`
// ({name, dims}, float32) and `outputs` (names, float32, shapes left to ONNX Runtime).
export function encodeModel(protobuf, {name, nodes, initializers = [], inputs, outputs}) {
  const root = protobuf.parse(SCHEMA, {keepCase: true}).root;
  const Model = root.lookupType('onnx.ModelProto');
  const graph = {
    name,
    node: nodes.map((n, i) => ({name: `${n.op_type}_${i}`, ...n})),
    initializer: initializers.map((t) => tensorProto(t.name, t.dims, t.data, t.dataType)),
    input: inputs.map((o) => valueInfo(o.name, o.dims)),
    output: outputs.map((o) => valueInfo(o, null)),
  };
  const model = {ir_version: 8, producer_name: 'nnref tools', opset_import: [{domain: '', version: 17}],
                 graph};
  const message = Model.fromObject(model);
  const err = Model.verify(message);
  if (err) throw new Error(`ONNX model of ${name}: ${err}`);
  return Model.encode(message).finish();
}

// The ONNX model (bytes) of benchmark `id` for `operands` (parseShapes); `constantData(operand)`
// gives the Float32Array of each constant operand (an initializer).
export function buildModel(protobuf, id, operands, constantData) {
  const make = GRAPHS[id];
  if (!make) throw new Error(`no ONNX model for benchmark '${id}'`);
  const {nodes, initializers = []} = make(operands);
  return encodeModel(protobuf, {
    name: id,
    nodes,
    initializers: [
      ...operands.filter((o) => o.constant)
          .map((o) => ({name: o.name, dims: o.dims, data: constantData(o)})),
      ...initializers,
    ],
    inputs: operands.filter((o) => !o.constant),
    outputs: ['y'],
  });
}
