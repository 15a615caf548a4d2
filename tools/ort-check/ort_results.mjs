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
const {encodeModel} = await import(path.join(here, '../bench/ort/onnx.mjs'));
const {lower} = await import(path.join(here, '../bench/ort/lower.mjs'));

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
        // The reason in the tally too (a fuzz campaign reads only the tally): ONNX Runtime's
        // first line, without the model-specific node names and numbers.
        const first = String(e.message ?? e).split('\n')[0];
        const gist = first.replace(/\[[^\]]*\]/g, '').replace(/\d+/g, 'N').slice(0, 120);
        skip(`ONNX Runtime rejected the model: ${gist}`);
        process.stderr.write(`ort-check: ${c.name}: ${first}\n`);
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
