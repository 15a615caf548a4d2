#!/usr/bin/env node
// Semantic mutants of cases/models must fail their case (issue 15): each mutant changes one operator of a
// block the way a wrong lowering would (a wrong mask, a swapped transpose, a missing scale, a wrong rotary sign,
// a transposed relative bias, a wrong group count), keeps the graph valid, and `nnref run` must report FAIL
// (not an error) under the case's own tolerance. The unmutated case must pass.
// Usage: node tests/models_mutants/check.mjs path/to/nnref [nnref run options...]
//   the options (e.g. --backend vulkan --vulkan-arithmetic native) pick the implementation that runs the mutants.
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const nnref = process.argv[2];
const runArgs = process.argv.slice(3);
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'nnref-models-mutants-'));

function load(file, name) {
  const doc = JSON.parse(readFileSync(join(repo, 'cases', 'models', `${file}.json`), 'utf8'));
  const c = doc.cases.find((x) => x.name === name);
  if (!c) throw new Error(`no case ${name}`);
  return c;
}
const opByOutput = (c, out) => {
  const op = c.graph.operators.find((o) => o.outputs === out);
  if (!op) throw new Error(`no operator writes ${out}`);
  return op;
};
// The operator `opName` that takes `name` as one of its arguments.
const consumer = (c, name, opName) => {
  const op = c.graph.operators.find((o) => o.name === opName && o.arguments.some((a) => Object.values(a)[0] === name));
  if (!op) throw new Error(`no ${opName} consumes ${name}`);
  return op;
};

const MUTANTS = [
  ['gpt2', 'models.gpt2.block.float32', 'causal mask upper instead of lower (attends to the future)', (c) => {
    opByOutput(c, 'causal').arguments[1].options.upper = true;
  }],
  ['gpt2', 'models.gpt2.block.float32', 'head merge without its transpose (swapped axes)', (c) => {
    // attn_weights -> matmul -> transpose [0,2,1,3] -> reshape: make the transpose the identity
    const mm = consumer(c, 'attn_weights', 'matmul');
    consumer(c, mm.outputs, 'transpose').arguments[1].options.permutation = [0, 1, 2, 3];
  }],
  ['gpt2', 'models.gpt2.block.float32', 'missing 1/sqrt(head_dim) scale', (c) => {
    consumer(c, 'scale', 'mul').arguments[1].b = 'one';
  }],
  ['gpt2', 'models.gpt2.decode_step.float16', 'new key appended before the cache', (c) => {
    const op = opByOutput(c, 'present_key');
    op.arguments[0].inputs.reverse();
  }],
  ['llama', 'models.llama.block.float32', 'rotary rotate_half with the wrong sign', (c) => {
    const op = c.graph.operators.find((o) => o.name === 'concat');
    op.arguments[0].inputs.reverse(); // concat(x1, -x2) instead of concat(-x2, x1)
  }],
  ['llama', 'models.llama.block.float16', 'causal mask dropped', (c) => {
    consumer(c, 'causal_mask', 'add'); // the mask is added to the scores ...
    c.graph.inputs.causal_mask.data = 0; // ... and is now all zeros
  }],
  ['t5', 'models.t5.encoder_block.float32', 'relative bias transposed (query and key positions swapped)', (c) => {
    opByOutput(c, 'position_bias').arguments[1].options.permutation = [2, 1, 0];
  }],
  ['stable_diffusion', 'models.stable_diffusion.resblock.float32', 'GroupNorm over 320 groups (per channel)', (c) => {
    const op = c.graph.operators.find((o) => o.name === 'reshape');
    op.arguments[1].newShape = [1, 320, 1, op.arguments[1].newShape[3]];
  }],
  // float16: the ATOLs admit float16 accumulators (docs/models.md#tolerances), 10x those measured with float32
  // accumulators; this one is the mutant closest to its case's ATOL (0.29 against 0.24).
  ['stable_diffusion', 'models.stable_diffusion.resblock.float16', 'GroupNorm over 320 groups (per channel)', (c) => {
    const op = c.graph.operators.find((o) => o.name === 'reshape');
    op.arguments[1].newShape = [1, 320, 1, op.arguments[1].newShape[3]];
  }],
  ['t5', 'models.t5.encoder_block.float16', 'relative bias transposed (query and key positions swapped)', (c) => {
    opByOutput(c, 'position_bias').arguments[1].options.permutation = [2, 1, 0];
  }],
  ['m2m100', 'models.m2m100.decoder_layer.float32', 'self-attention without its causal mask', (c) => {
    consumer(c, 'causal_mask', 'add');
    c.graph.inputs.causal_mask.data = 0;
  }],
  ['segment_anything', 'models.segment_anything.vit_window_block.float32',
    'width relative-position term laid out with the window rows and columns swapped', (c) => {
      opByOutput(c, 'rel_w').arguments[1].options.permutation = [1, 0, 2, 3];
    }],
];

function run(c, tag) {
  const path = join(dir, `${tag}.json`);
  writeFileSync(path, JSON.stringify({ cases: [c] }));
  return spawnSync(nnref, ['run', ...runArgs, path], { encoding: 'utf8' });
}

let bad = 0;
const seen = new Set();
MUTANTS.forEach(([file, name, what, mutate], i) => {
  if (!seen.has(name)) {
    seen.add(name);
    const r = run(load(file, name), `original${i}`);
    if (r.status !== 0) {
      console.log(`FAIL: the unmutated ${name} does not pass:\n${r.stdout}${r.stderr}`);
      bad++;
    }
  }
  const c = load(file, name);
  mutate(c);
  const r = run(c, `mutant${i}`);
  // a FAIL verdict (exit 1), not an ERROR (exit 2: the mutant would not be a valid graph)
  const verdict = r.status === 1 && /^0 passed, 1 failed$/m.test(r.stdout) ? 'caught' : 'MISSED';
  if (verdict !== 'caught') bad++;
  console.log(`${verdict}: ${name}: ${what}`);
  if (verdict !== 'caught') console.log(r.stdout + r.stderr);
});
process.exit(bad ? 1 : 0);
