// NNEF as the NNEF-Tools parser and converters write it (issue 14). Surveyed from their public sources:
//  - the C++/Python parser reads an extension statement as names separated by commas
//    (`extension KHR_enable_fragment_definitions, KHR_enable_operator_expressions;`, as in its parser tests), where
//    the 1.0.2 grammar (3.2.4) has `"extension" <identifier>+ ";"` with white space; nnref accepts both (a warning
//    names the comma form) and `--strict` (case.json "strict": true) rejects the commas;
//  - the Python writer prints `version 1.0;`, then one `extension NAME;` statement per extension (none when the list
//    is empty: an empty `extension;` is an error for both parsers), invocations with an explicit generic type
//    (`external<scalar>(shape = [...])`), floats as Python prints them (`1e-05`, `2.5e-08`, `1e+16`), optional
//    `# scalar[2, 3]` shape annotations after each statement, tabs in the graph printer, and graph.quant lines
//    `"name": algorithm(key = value, ...);`.
// Not accepted, as by NNEF-Tools' own parser: `fragment f<scalar>(...)` (the writer emits it for custom
// operations with a dtype; 3.2.2 and that parser require `<?>` or `<? = type>`). Not supported: per-channel
// (array) zero_point/scale in graph.quant (an error naming the argument).

import { T, dyadic } from './tensor.mjs';
import { EXT_FRAG, EXT_EXPR } from './casekit.mjs';

const d4 = (seed, shape, lo = -2, hi = 2) => dyadic(`interop.${seed}`, shape, lo, hi, 4);

export function interopCases() {
  const cases = [];
  const add = (c) => cases.push(c);
  const x = d4('x', [2, 3]);
  const commaDoc = `version 1.0;
extension ${EXT_FRAG}, ${EXT_EXPR};

fragment op( input: tensor<scalar> ) -> ( output: tensor<scalar> )
{
    output = 2.0 * input - 1.0;
}

graph G( input ) -> ( output )
{
    input = external(shape = [2, 3]);
    output = op(input);
}
`;
  add({
    name: 'interop.extension_list_commas',
    description: 'a compositional model whose extension list is comma-separated, as NNEF-Tools writes and reads it; '
      + 'accepted with a warning (the 1.0.2 grammar separates the names by white space)',
    graph: commaDoc,
    inputs: { input: x },
    compute: (o, I) => ({ output: o.sub(o.mul(2.0, I.input), 1.0) }),
    expectedWarning: 'comma-separated extension list',
  });
  add({
    name: 'interop.extension_list_commas_and_spaces',
    description: 'commas and white space mixed in one extension list, and a second extension statement',
    graph: commaDoc.replace(`extension ${EXT_FRAG}, ${EXT_EXPR};`,
      `extension ${EXT_FRAG}, VENDOR_unused_extension ${EXT_EXPR};\nextension EXT_another_unused;`),
    inputs: { input: x },
    compute: (o, I) => ({ output: o.sub(o.mul(2.0, I.input), 1.0) }),
    expectedWarning: 'comma-separated extension list',
  });
  add({
    name: 'error.parse.strict_extension_list_commas',
    description: 'with --strict (case.json "strict": true) the comma-separated extension list is a parse error',
    graph: commaDoc,
    inputs: { input: x },
    expectedError: 'parse',
    strict: true,
    message: 'not commas',
  });
  add({
    name: 'error.parse.extension_list_trailing_comma',
    description: 'a comma must be followed by an extension name',
    graph: commaDoc.replace(`${EXT_EXPR};`, `${EXT_EXPR},;`),
    inputs: { input: x },
    expectedError: 'parse',
    message: "after ','",
  });
  add({
    name: 'error.parse.empty_extension_list',
    description: 'an extension statement without names (the writer omits the statement for an empty list; both '
      + 'grammars need at least one name)',
    graph: 'version 1.0;\nextension;\n\ngraph G( input ) -> ( output )\n{\n    input = external(shape = [2, 3]);\n'
      + '    output = copy(input);\n}\n',
    inputs: { input: x },
    expectedError: 'parse',
    message: 'expected an extension name',
  });
  // Two graph definitions: an early NNEF-Tools parser accepted them for its compositional examples; 3.2.4 has one.
  const one = 'graph G( input ) -> ( output )\n{\n    input = external(shape = [2, 3]);\n    output = copy(input);\n}\n';
  add({
    name: 'error.parse.two_graph_definitions',
    description: 'a document with two graph definitions (3.2.4 allows exactly one)',
    graph: `version 1.0;\n\n${one}${one.replace('graph G', 'graph H')}`,
    inputs: { input: x },
    expectedError: 'parse',
    message: 'expected end of file after the graph definition',
  });
  // Per-channel parameters as the NNEF-Tools writer prints them for per-channel converted models (a Python list):
  // the file does not say which axis the list runs along (the tools infer it from the consuming operation), so
  // nnref rejects the entry with an error naming the argument.
  add({
    name: 'error.quant_file.per_channel_array',
    description: 'zero_point_linear_quantize with per-channel lists (the NNEF-Tools writer form for per-channel '
      + 'quantization) is not supported: the channel axis is not in the file',
    graph: 'version 1.0;\n\ngraph G( input ) -> ( output )\n{\n    input = external(shape = [2, 3]);\n'
      + '    output = copy(input);\n}\n',
    quant: '"input": zero_point_linear_quantize(zero_point = [0, 1], scale = [0.5, 0.25], bits = 8, signed = false, '
      + 'symmetric = false);\n',
    inputs: { input: x },
    expectedError: 'quant-file',
    message: "'zero_point' must be an integer",
  });
  // The Python writer's layout: one extension statement per line, explicit generic types on invocations, Python
  // float text, shape annotations; the parser's printer indents with tabs.
  const w = d4('w', [1, 3], -1, 1);
  add({
    name: 'interop.nnef_tools_writer_layout',
    description: 'the layout of the NNEF-Tools writer: one extension statement per extension, external<scalar>, '
      + "floats as Python prints them (1e-05, 2.5e-08, 1e+16), '# scalar[2, 3]' annotations, tab indentation, and a "
      + 'graph.quant line in its form',
    graph: `version 1.0;

extension ${EXT_FRAG};
extension ${EXT_EXPR};

fragment scale_shift( input: tensor<scalar>, factor: scalar ) -> ( output: tensor<scalar> )
{
\toutput = add(mul(input, factor), 2.5e-08);
}

graph G( input ) -> ( output, big )
{
\tinput = external<scalar>(shape = [2, 3]);\t# scalar[2, 3]
\tw = variable<scalar>(shape = [1, 3], label = 'w');\t# scalar[1, 3]
\tt = add(input, w);\t# scalar[2, 3]
\toutput = scale_shift(t, factor = 1e-05);\t# scalar[2, 3]
\tbig = mul(t, 1e+16);\t# scalar[2, 3]
}
`,
    quant: '"w": linear_quantize(min = -1.0, max = 1.0, bits = 8);\n',
    inputs: { input: x },
    variables: { w: { tensor: w } },
    compute: (o, I, V) => {
      // linear_quantize of w: the quarter-steps of d4 in [-1, 1] are not all on the 8-bit grid.
      const wq = o.linear_quantize(V.w, -1.0, 1.0, { bits: 8 });
      const t = o.add(I.input, wq);
      return { output: o.add(o.mul(t, 1e-05), 2.5e-08), big: o.mul(t, 1e+16) };
    },
  });
  return cases;
}
