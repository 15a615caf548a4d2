// Rejection cases (case.json "expectedError"): chapter 6 steps 1 (parse), 2-3 (validate), 4 and chapter 5
// (tensor-file), chapter 5.3/7 (quant-file).

import { T, volume } from './tensor.mjs';
import { doc, EXT_BOTH } from './casekit.mjs';
import { encodeTensor } from './tensorfile.mjs';

const zeros = (shape, type = 'scalar') => T(shape, new Array(volume(shape)).fill(type === 'logical' ? false : 0), type);
const filled = (shape) => T(shape, Array.from({ length: volume(shape) }, (_, i) => (i % 7) * 0.25 - 0.5));

export function errorCases() {
  const cases = [];
  const err = (kind, name, description, graph, inputs, extra = {}) =>
    cases.push({ name: `error.${kind.replace('-', '_')}.${name}`, description, graph, inputs, expectedError: kind, ...extra });
  const x23 = { x: filled([2, 3]) };
  // Flat document with input x [2,3].
  const flat = (body, opts = {}) => doc({ inputs: [['x', zeros([2, 3])], ...(opts.inputs || [])], outputs: opts.outputs || ['y'], body, extensions: opts.ext || [], fragments: opts.fragments });
  const comp = (fragments, body, opts = {}) => flat(body, { ...opts, ext: [EXT_BOTH], fragments });

  // ------------------------------------------------------------------------------------ 1. syntax errors
  const P = (name, desc, graph) => err('parse', name, desc, graph, x23);
  P('missing_semicolon', 'an assignment without its semicolon', flat(['y = neg(x)']));
  P('missing_version', 'the version declaration is required', flat(['y = neg(x);']).replace('version 1.0;\n', ''));
  P('missing_closing_brace', 'graph body without closing brace', flat(['y = neg(x);']).replace(/}\n$/, ''));
  P('invalid_character', "a character that is no lexical element ('$')", flat(['y = neg($x);']));
  P('keyword_as_identifier', "a keyword ('yield') used as identifier", flat(['yield = neg(x);', 'y = neg(x);']));
  P('identifier_starting_with_digit', 'identifiers must not start with a digit', flat(['1y = neg(x);', 'y = neg(x);']));
  P('unterminated_string', 'a string literal without its closing quote', flat(["y = pad(x, padding = [(1,1), (1,1)], border = 'constant);"]));
  P('missing_graph', 'a document must contain a graph definition', 'version 1.0;\n');
  P('flat_assignment_not_invocation', 'in flat syntax the right-hand side must be an invocation', flat(['y = x;']));
  P('operator_expression_without_extension', 'operator expressions need extension KHR_enable_operator_expressions',
    flat(['y = x + x;']));
  P('fragment_without_extension', 'fragment definitions need extension KHR_enable_fragment_definitions',
    flat(['y = f(x);'], { fragments: 'fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n{\n    y = neg(x);\n}' }));
  P('graph_declaration_without_arrow', "graph declaration without '->'", flat(['y = neg(x);']).replace(' -> ', ' '));
  P('unbalanced_parenthesis', 'an invocation with a missing closing parenthesis', flat(['y = neg(x;']));
  P('bad_numeric_literal', "a numeric literal with an exponent but no digits ('1.5e')", flat(['y = mul(x, 1.5e);']));

  // --------------------------------------------------------------------------------- 2. semantic errors
  const V = (name, desc, graph, inputs = x23, extra) => err('validate', name, desc, graph, inputs, extra);
  V('undefined_identifier', 'an identifier that is never defined', flat(['y = add(x, z);']));
  V('undefined_operation', 'an invocation of an undeclared operation', flat(['y = frobnicate(x);']));
  V('identifier_used_before_definition', 'identifiers must appear on a left-hand side before use',
    flat(['y = add(x, z);', 'z = neg(x);']));
  V('duplicate_assignment', 'the same identifier assigned twice', flat(['y = neg(x);', 'y = abs(x);']));
  V('graph_parameter_not_external', 'graph parameters must be defined by external',
    doc({ inputs: [], outputs: ['y'], body: ['x = constant(shape = [2, 3], value = [1.0]);', 'y = neg(x);'] }).replace('G(  )', 'G( x )'));
  V('external_not_parameter', 'every external must be a graph parameter',
    flat(['z = external(shape = [2, 3]);', 'y = add(x, z);']));
  V('output_not_defined', 'a graph result that is never assigned', flat(['y = neg(x);'], { outputs: ['y', 'w'] }));
  V('integer_for_scalar_attribute', 'an integer literal does not cast to scalar (alpha = 1)', flat(['y = leaky_relu(x, alpha = 1);']));
  V('string_for_scalar_attribute', 'a string for a scalar attribute', flat(["y = leaky_relu(x, alpha = 'a');"]));
  V('integer_literal_for_scalar_tensor', 'an integer literal does not cast to tensor<scalar> (add(x, 1))', flat(['y = add(x, 1);']));
  V('logical_tensor_to_arithmetic', 'a tensor<logical> argument of add',
    flat(['y = add(c, c);'], { inputs: [['c', zeros([2, 3], 'logical')]] }), { ...x23, c: zeros([2, 3], 'logical') });
  V('scalar_tensor_to_logical', 'a tensor<scalar> argument of not', flat(['y = not(x);']));
  V('integer_array_for_tuple_array', 'padding expects (integer,integer)[]', flat(['y = pad(x, padding = [1, 1, 1, 1]);']));
  V('unknown_named_argument', 'a named argument that is not a parameter', flat(['y = relu(x, alpha = 0.5);']));
  V('missing_required_argument', 'reshape without its shape attribute', flat(['y = reshape(x);']));
  V('duplicate_named_argument', 'the same named argument twice', flat(['y = reshape(x, shape = [6], shape = [6]);']));
  V('too_many_arguments', 'more arguments than parameters', flat(['y = neg(x, x);']));
  V('attribute_as_positional_argument', 'attributes must be named arguments', flat(['y = leaky_relu(x, 0.5);']));
  V('positional_after_named', 'positional arguments must precede named ones', flat(['y = add(x = x, x);']));
  V('named_and_positional_same_parameter', 'a named argument for a parameter already given positionally', flat(['y = add(x, x, x = x);']));
  V('result_structure_mismatch', 'split returns an array: the left-hand side must be an array', flat(['y = split(x, axis = 1, ratios = [1, 2]);']));
  V('tuple_count_mismatch', 'three identifiers for a two-result operation',
    flat(['y, i, k = max_pool_with_index(x, size = [1, 2]);'], { outputs: ['y'] }));
  V('update_twice', 'a variable may only be updated once per cycle',
    flat(["v = variable(shape = [2, 3], label = 'v');", 'a = update(v, x);', 'n = neg(x);', 'y = update(v, n);'], { outputs: ['y'] }), x23,
    { variables: { v: filled([2, 3]) } });
  V('update_of_non_variable', 'update needs a variable (its result is not a variable either)',
    flat(['n = neg(x);', 'y = update(x, n);']));
  V('label_invalid_character', "variable labels may only contain [a-zA-Z0-9_-./\\] (':' is not allowed)",
    flat(["w = variable(shape = [2, 3], label = 'w:1');", 'y = add(x, w);']));
  V('label_empty', 'variable labels must not be empty', flat(["w = variable(shape = [2, 3], label = '');", 'y = add(x, w);']));
  V('shared_label_shape_mismatch', 'variables sharing a label (case-insensitively) must have the same shape',
    flat(["a = variable(shape = [2, 3], label = 'w');", "b = variable(shape = [3, 2], label = 'W');", 'y = add(x, a);'], { outputs: ['y'] }),
    x23, { variables: { w: filled([2, 3]) } });
  V('non_tensor_identifier_in_graph', 'identifiers in the graph body must be tensors (an array of tensors is not allowed)',
    comp('', ['a = [x, x];', 'y = concat(a, axis = 0);']));

  // fragment definitions
  const F = (name, desc, fragments, body = ['y = f(x);']) => V(name, desc, comp(fragments, body));
  F('fragment_infinite_recursion', 'a fragment that invokes itself unconditionally',
    'fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n{\n    y = f(x);\n}');
  F('fragment_mutual_recursion', 'two fragments invoking each other without end',
    'fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n{\n    y = g(neg(x));\n}\n\nfragment g( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n{\n    y = f(neg(x));\n}');
  F('fragment_recursion_without_end', 'a recursive fragment whose end condition is never met (n grows)',
    'fragment f( x: tensor<scalar>, n: integer = 1 ) -> ( y: tensor<scalar> )\n{\n    y = f(x, n = n + 1) if n > 0 else x;\n}');
  F('fragment_result_not_assigned', 'a fragment result that is never assigned',
    'fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar>, z: tensor<scalar> )\n{\n    y = neg(x);\n}', ['y, z = f(x);']);
  F('fragment_result_assigned_twice', 'a fragment result assigned twice',
    'fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n{\n    y = neg(x);\n    y = abs(x);\n}');
  F('fragment_parameter_assigned', 'fragment parameters must not be assigned in the body',
    'fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n{\n    x = neg(x);\n    y = abs(x);\n}');
  F('fragment_attribute_before_tensor', 'tensor parameters must precede attributes',
    'fragment f( a: scalar, x: tensor<scalar> ) -> ( y: tensor<scalar> )\n{\n    y = mul(x, a);\n}', ['y = f(x, a = 2.0);']);
  F('fragment_non_tensor_result', 'fragment results must be tensors',
    'fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar>, n: integer )\n{\n    y = neg(x);\n    n = 1;\n}', ['y, n = f(x);']);
  F('fragment_duplicate_parameter', 'parameter names must be unique',
    'fragment f( x: tensor<scalar>, a: scalar, a: scalar ) -> ( y: tensor<scalar> )\n{\n    y = mul(x, a);\n}', ['y = f(x, a = 1.0);']);
  F('fragment_default_type_mismatch', 'a default value must match the parameter type (integer = 1.5)',
    'fragment f( x: tensor<scalar>, n: integer = 1.5 ) -> ( y: tensor<scalar> )\n{\n    y = neg(x);\n}');
  F('fragment_duplicate_name', 'two fragments with the same name',
    'fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n{\n    y = neg(x);\n}\n\nfragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n{\n    y = abs(x);\n}');
  F('fragment_generic_without_generic_type', 'a fragment declared generic must use ? in a parameter or result',
    'fragment f<?>( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n{\n    y = neg(x);\n}');
  F('fragment_generic_type_not_declared', 'a fragment using ? must be declared generic',
    'fragment f( x: tensor<?> ) -> ( y: tensor<?> )\n{\n    y = copy(x);\n}');
  V('generic_deduction_conflict', 'the generic type deduced from two arguments differs (scalar vs integer)',
    comp('fragment f<?>( a: tensor<?>, b: tensor<?> ) -> ( y: tensor<?> )\n{\n    y = select(true, a, b);\n}',
      ['y = f(x, i);'], { inputs: [['i', zeros([2, 3], 'integer')]] }), { ...x23, i: zeros([2, 3], 'integer') });
  F('variable_in_fragment', 'variable must not be used inside a fragment',
    "fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n{\n    w = variable(shape = [2, 3], label = 'w');\n    y = add(x, w);\n}");
  F('external_in_fragment', 'external must not be used inside a fragment',
    'fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n{\n    z = external(shape = [2, 3]);\n    y = add(x, z);\n}');
  F('wrong_argument_type_in_fragment_call', 'a string for an integer parameter of a custom fragment',
    'fragment f( x: tensor<scalar>, n: integer ) -> ( y: tensor<scalar> )\n{\n    y = neg(x);\n}', ["y = f(x, n = 'two');"]);
  F('if_condition_not_logical', 'the if-else condition must be logical',
    'fragment f( x: tensor<scalar>, n: integer = 1 ) -> ( y: tensor<scalar> )\n{\n    y = neg(x) if n else x;\n}');
  F('mixed_integer_scalar_arithmetic', 'arithmetic operators do not mix integer and scalar (1 + 0.5)',
    'fragment f( x: tensor<scalar> ) -> ( y: tensor<scalar> )\n{\n    y = x * (1 + 0.5);\n}');

  // ------------------------------------------------------------------------------ 3. argument validity
  V('broadcast_mismatch', 'add of [2,3] and [3,2]', flat(['y = add(x, z);'], { inputs: [['z', zeros([3, 2])]] }), { ...x23, z: filled([3, 2]) });
  V('reshape_volume', 'reshape to a different volume', flat(['y = reshape(x, shape = [4, 2]);']));
  V('reshape_two_minus_one', 'reshape with two -1 items', flat(['y = reshape(x, shape = [-1, -1]);']));
  V('external_zero_extent', 'external shape items must be positive', flat(['y = neg(x);']).replace('shape = [2, 3]', 'shape = [2, 0]'));
  V('constant_value_count', 'constant value count must be the volume or 1', flat(['c = constant(shape = [2, 3], value = [1.0, 2.0]);', 'y = add(x, c);']));
  V('transpose_not_permutation', 'transpose axes must be a permutation', flat(['y = transpose(x, axes = [1, 1]);']));
  V('split_ratios_not_dividing', 'sum of ratios must divide the extent', flat(['[a, b] = split(x, axis = 1, ratios = [1, 1]);', 'y = add(a, b);']));
  V('slice_empty_range', 'slice end must be greater than begin', flat(['y = slice(x, axes = [1], begin = [2], end = [1]);']));
  V('slice_axis_out_of_range', 'slice axes must be less than the rank', flat(['y = slice(x, axes = [2], begin = [0], end = [1]);']));
  V('squeeze_non_singleton', 'squeeze of a non-singleton dimension', flat(['y = squeeze(x, axes = [1]);']));
  V('reduce_axis_out_of_range', 'reduction axes must be less than the rank', flat(['y = sum_reduce(x, axes = [2]);']));
  V('reduce_duplicate_axes', 'reduction axes must be unique', flat(['y = sum_reduce(x, axes = [1, 1]);']));
  V('concat_shape_mismatch', 'concat of [2,3] and [3,3] along axis 1', flat(['y = concat([x, z], axis = 1);'], { inputs: [['z', zeros([3, 3])]] }), { ...x23, z: filled([3, 3]) });
  V('stack_shape_mismatch', 'stack of [2,3] and [3,2]', flat(['y = stack([x, z], axis = 0);'], { inputs: [['z', zeros([3, 2])]] }), { ...x23, z: filled([3, 2]) });
  V('tile_repeats_length', 'tile repeats must have one entry per dimension', flat(['y = tile(x, repeats = [2]);']));
  V('matmul_inner_mismatch', 'matmul [2,3] x [2,3]', flat(['y = matmul(x, x);']));
  V('matmul_rank_mismatch', 'matmul operands of different rank', flat(['y = matmul(x, z);'], { inputs: [['z', zeros([1, 3, 2])]] }), { ...x23, z: filled([1, 3, 2]) });
  const img = { inputs: [['x', zeros([1, 2, 4, 4])]] };
  const imgIn = { x: filled([1, 2, 4, 4]) };
  const fimg = (body, opts = {}) => doc({ inputs: img.inputs.concat(opts.inputs || []), outputs: ['y'], body });
  V('conv_channel_mismatch', 'filter channels times groups must equal the input channels',
    fimg(["w = constant(shape = [3, 3, 3, 3], value = [0.5]);", 'y = conv(x, w);']), imgIn);
  V('conv_groups_not_divisor', 'groups must divide the filter batch dimension',
    fimg(["w = constant(shape = [3, 1, 3, 3], value = [0.5]);", 'y = conv(x, w, groups = 2);']), imgIn);
  V('conv_border_ignore', "conv does not allow border 'ignore'",
    fimg(["w = constant(shape = [2, 2, 3, 3], value = [0.5]);", "y = conv(x, w, border = 'ignore');"]), imgIn);
  V('conv_padding_length', 'padding needs one entry per spatial dimension (or none)',
    fimg(["w = constant(shape = [2, 2, 3, 3], value = [0.5]);", 'y = conv(x, w, padding = [(1,1), (1,1), (1,1)]);']), imgIn);
  V('conv_bias_shape', 'bias channels must equal the filter batch dimension',
    fimg(["w = constant(shape = [2, 2, 3, 3], value = [0.5]);", 'b = constant(shape = [1, 3], value = [0.5]);', 'y = conv(x, w, b);']), imgIn);
  V('stride_zero', 'stride items must be positive', fimg(['y = box(x, size = [1, 1, 2, 2], stride = [1, 1, 0, 1]);']), imgIn);
  V('size_zero', 'size items must be positive', fimg(['y = box(x, size = [1, 1, 0, 2]);']), imgIn);
  V('window_larger_than_input', 'p + X + q must be at least the dilated filter size',
    fimg(['y = max_pool(x, size = [1, 1, 6, 1], padding = [(0,0), (0,0), (0,0), (0,0)]);']), imgIn);
  V('box_unknown_border', "an unknown border mode ('wrap')", fimg(["y = box(x, size = [1, 1, 3, 3], border = 'wrap');"]), imgIn);
  V('box_size_length', 'box size has more entries than the input has dimensions', fimg(['y = box(x, size = [1, 1, 1, 3, 3]);']), imgIn);
  V('box_stride_length', 'box stride must have one entry per window dimension (or none)', fimg(['y = box(x, size = [1, 1, 3, 3], stride = [2, 2]);']), imgIn);
  V('deconv_output_shape_inconsistent', 'output_shape must down-scale to the input shape',
    fimg(["w = constant(shape = [2, 1, 3, 3], value = [0.5]);", 'y = deconv(x, w, stride = [2, 2], padding = [(1,1), (1,1)], output_shape = [1, 1, 12, 12]);']), imgIn);
  V('desample_border_not_constant', "desample only allows border 'constant'",
    fimg(['p = max_pool(x, size = [1, 1, 2, 2], stride = [1, 1, 2, 2]);', 'i = argmax_pool(x, size = [1, 1, 2, 2], stride = [1, 1, 2, 2]);',
      "y = desample(p, i, size = [1, 1, 2, 2], stride = [1, 1, 2, 2], border = 'replicate');"]), imgIn);
  V('sample_index_shape', 'the index shape must equal the output shape of sample',
    fimg(['y = sample(x, i, size = [1, 1, 2, 2], stride = [1, 1, 2, 2]);'], { inputs: [['i', zeros([1, 2, 3, 3], 'integer')]] }),
    { ...imgIn, i: zeros([1, 2, 3, 3], 'integer') });
  V('multilinear_unknown_method', "multilinear_upsample method 'cubic'", fimg(["y = multilinear_upsample(x, factor = [2, 2], method = 'cubic');"]), imgIn);
  V('roi_rois_shape', 'rois must have 2*M columns (4 for two spatial dimensions)',
    fimg(['y = avg_roi_pool(x, r, b, output_size = [2, 2]);'], { inputs: [['r', zeros([1, 3])], ['b', zeros([1, 1], 'integer')]] }),
    { ...imgIn, r: filled([1, 3]), b: zeros([1, 1], 'integer') });
  V('softmax_axis_out_of_range', 'softmax axes must be less than the rank', flat(['y = softmax(x, axes = [3]);']));
  V('hostile_extents', 'a constant of 10^15 items: valid by the spec, but beyond any implementation limit; it must be '
    + 'rejected with an error, not allocated (issue: hostile extents)',
    flat(['c = constant(shape = [100000, 100000, 100000], value = [1.0]);', 'y = sum_reduce(c, axes = [0, 1, 2]);']));
  V('update_shape_mismatch', 'update value must have the shape of the variable',
    flat(["v = variable(shape = [3, 2], label = 'v');", 'y = update(v, x);']), x23, { variables: { v: filled([3, 2]) } });

  // ------------------------------------------------------------------ 4. tensor files (variables, inputs)
  const wGraph = flat(["w = variable(shape = [2, 3], label = 'w');", 'y = add(x, w);']);
  const good = encodeTensor([2, 3], [1, 2, 3, 4, 5, 6], { kind: 'float', bits: 32 });
  const patched = (fn) => { const b = Buffer.from(good); fn(b); return b; };
  const TF = (name, desc, buf, extra = {}) => err('tensor-file', name, desc, wGraph, x23, { files: { 'w.dat': buf }, ...extra });
  TF('bad_magic', "wrong magic number (second byte 0xEE instead of 0xEF)", patched((b) => { b[1] = 0xee; }));
  TF('truncated_header', 'the file ends inside the 128-byte header', good.subarray(0, 60));
  TF('truncated_data', 'the file ends before data_length bytes of data', good.subarray(0, good.length - 3));
  TF('trailing_bytes', 'the file is longer than header + data_length (oversized)', Buffer.concat([good, Buffer.alloc(8)]));
  TF('data_length_mismatch', 'data_length (and the data) are 5 items while the shape has 6 (item count does not match the shape)',
    encodeTensor([2, 3], [1, 2, 3, 4, 5], { kind: 'float', bits: 32 }, { allowCountMismatch: true }));
  TF('shape_mismatch', 'the stored shape [3,2] conflicts with the variable shape [2,3]',
    encodeTensor([3, 2], [1, 2, 3, 4, 5, 6], { kind: 'float', bits: 32 }));
  TF('rank_mismatch', 'the stored shape [6] conflicts with the variable shape [2,3]',
    encodeTensor([6], [1, 2, 3, 4, 5, 6], { kind: 'float', bits: 32 }));
  TF('rank_too_large', 'rank 9 (the maximum is 8)', patched((b) => { b.writeUInt32LE(9, 8); }));
  TF('hostile_extents', 'rank 8 with every extent 0xFFFFFFFF and 4 bytes of data (no allocation by unchecked sizes)',
    (() => { const b = Buffer.alloc(132); b[0] = 0x4e; b[1] = 0xef; b[2] = 1; b.writeUInt32LE(4, 4); b.writeUInt32LE(8, 8);
      for (let i = 0; i < 8; i++) b.writeUInt32LE(0xffffffff, 12 + 4 * i); b.writeUInt32LE(32, 44); return b; })());
  TF('huge_data_length', 'data_length 0xFFFFFFFF with a 6-item shape', patched((b) => { b.writeUInt32LE(0xffffffff, 4); }));
  TF('float_bits_24', 'float items must be 16, 32 or 64 bits', (() => {
    const b = Buffer.alloc(128 + 18); b.set(good.subarray(0, 128)); b.writeUInt32LE(18, 4); b.writeUInt32LE(24, 44); return b; })());
  TF('bits_zero', 'zero bits per item', (() => { const b = Buffer.from(good.subarray(0, 128)); b.writeUInt32LE(0, 4); b.writeUInt32LE(0, 44); return b; })());
  TF('bits_above_64', 'more than 64 bits per item', (() => {
    const b = Buffer.alloc(128 + 49); b.set(good.subarray(0, 128)); b.writeUInt32LE(49, 4); b.writeUInt32LE(65, 44); b.writeUInt32LE(1, 48); return b; })());
  TF('unknown_code', 'an unknown quantization code (0x20)', patched((b) => { b.writeUInt32LE(0x20, 48); }));
  TF('unknown_vendor', 'an unknown vendor (0x1234) in the quantization code', patched((b) => { b.writeUInt32LE(0x12340000, 48); }));
  TF('extent_past_rank', 'extents past the rank must be zero', patched((b) => { b.writeUInt32LE(5, 12 + 4 * 2); }));
  TF('logarithmic_min_not_zero', 'logarithmic quantization requires min = 0 (unsigned) or -max', (() => {
    const b = encodeTensor([2, 3], [0, 1, 2, 3, 4, 5], { kind: 'logarithmic', bits: 8, max: 8 }); b.writeFloatLE(1, 52); return b; })());
  TF('linear_quantized_bits_above_64', 'quantized codes wider than 64 bits', (() => {
    const b = Buffer.alloc(128 + 54); b.set(encodeTensor([2, 3], [0, 0, 0, 0, 0, 0], { kind: 'linear', bits: 8, min: 0, max: 1 }).subarray(0, 128));
    b.writeUInt32LE(54, 4); b.writeUInt32LE(72, 44); return b; })());
  err('tensor-file', 'missing_variable_file', 'the .dat file of a variable does not exist', wGraph, x23);
  err('tensor-file', 'input_bad_magic', 'an input file with a wrong magic number', flat(['y = neg(x);']), {
    x: { tensor: filled([2, 3]), raw: patched((b) => { b[0] = 0x4f; }) } });
  err('tensor-file', 'input_truncated', 'an input file cut inside the data', flat(['y = neg(x);']), {
    x: { tensor: filled([2, 3]), raw: good.subarray(0, 140) } });
  err('tensor-file', 'input_item_count', 'an input file whose data_length does not match its shape (5 items for [2,3])',
    flat(['y = neg(x);']), { x: { tensor: filled([2, 3]), raw: patched((b) => { b.writeUInt32LE(20, 4); }) } });

  // ------------------------------------------------------------------------------- quantization file
  const QF = (name, desc, quant) => err('quant-file', name, desc, flat(['h = neg(x);', 'y = abs(h);']), x23, { quant });
  QF('syntax', 'a line without its terminating semicolon', '"h": linear_quantize(min = 0.0, max = 1.0, bits = 8)\n');
  QF('unknown_tensor', 'an identifier that is not a tensor of the graph', '"nothere": linear_quantize(min = 0.0, max = 1.0, bits = 8);\n');
  QF('unknown_algorithm', 'an undeclared quantization operation', '"h": frobnicate_quantize(min = 0.0, max = 1.0, bits = 8);\n');
  QF('missing_argument', 'linear_quantize without bits', '"h": linear_quantize(min = 0.0, max = 1.0);\n');
  QF('tensor_argument', 'the quantized tensor itself must not be an argument', '"h": linear_quantize(h, min = 0.0, max = 1.0, bits = 8);\n');
  return cases;
}
