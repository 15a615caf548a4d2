// META: title=test WebNN API relu and add operations (hand-written in the WPT style for tests/cli/wpt.sh)
// META: global=window
// META: script=../resources/utils.js

'use strict';

// By hand: relu([-1, 0, 2.5, -Infinity]) = [0, 0, 2.5, 0]; [1, -2] + [3, 4] in int64 = [4, 2];
// the third test states a wrong value (relu(-3) is 0, not 1), so it must fail.
const getReluPrecisionTolerance = () => ({metricType: 'ULP', value: 0});

const wptStyleTests = [
  {
    'name': 'relu float32 1D tensor',
    'graph': {
      'inputs': {
        'reluInput': {
          'data': [-1, 0, 2.5, -Infinity],
          'descriptor': {shape: [4], dataType: 'float32'}
        }
      },
      'operators': [{
        'name': 'relu',
        'arguments': [{'input': 'reluInput'}],
        'outputs': 'reluOutput'
      }],
      'expectedOutputs': {
        'reluOutput': {
          'data': [0, 0, 2.5, 0],
          'descriptor': {shape: [4], dataType: 'float32'}
        }
      }
    }
  },
  {
    'name': 'add int64 1D tensors',
    'graph': {
      'inputs': {
        'inputA': {'data': [1n, -2n], 'descriptor': {shape: [2], dataType: 'int64'}},
        'inputB': {'data': [3n, 4n], 'descriptor': {shape: [2], dataType: 'int64'}, 'constant': true}
      },
      'operators': [{
        'name': 'add',
        'arguments': [{'a': 'inputA'}, {'b': 'inputB'}],
        'outputs': 'output'
      }],
      'expectedOutputs': {
        'output': {'data': [4n, 2n], 'descriptor': {shape: [2], dataType: 'int64'}}
      }
    }
  },
  {
    'name': 'relu float32 wrong expectation',
    'graph': {
      'inputs': {'x': {'data': [-3], 'descriptor': {shape: [1], dataType: 'float32'}}},
      'operators': [{'name': 'relu', 'arguments': [{'input': 'x'}], 'outputs': 'y'}],
      'expectedOutputs': {'y': {'data': [1], 'descriptor': {shape: [1], dataType: 'float32'}}}
    }
  }
];

promise_setup(async () => {});
webnn_conformance_test(wptStyleTests, buildAndExecuteGraph, getPrecisionTolerance);
