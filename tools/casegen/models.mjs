#!/usr/bin/env node
// Model-scale cases (issue 15): one block of each model the WebNN working group targets, written as the operator
// list a browser framework lowers it to, at the model's real hidden sizes where CI can afford them (sequence
// length, batch and layer count reduced; the operator pattern never). See docs/models.md.
//
// Usage: node tools/casegen/models.mjs [--check] [--only NAME]
//   writes cases/models/<model>.json; --check verifies the files on disk are current; --only limits both to the
//   files holding a block whose file or id contains NAME.
//
// For every case:
// 1. Weights and inputs are `random` uniform data (splitmix64, the case format's generator), so the files
//    stay small; models_eval.mjs expands them exactly as a reader does.
// 2. Expected outputs: the operator list evaluated by models_eval.mjs in float64 (`exact`), rounded once.
// 3. Second check: the block computed directly from its model definition (models_direct.mjs: attention written as
//    attention, loops over tokens and heads, no operator list) must agree with (2) within float32 noise.
// 4. Tolerance (ATOL): FACTOR x the largest deviation from (2) of three typed evaluation orders (outputs of
//    every operator rounded to the type; sums in double, float32 first-to-last, float32 last-to-first), and for
//    float16 graphs two more: float16 accumulators first-to-last and last-to-first (models_eval.mjs).

import { writeFileSync, readFileSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { roundTo } from './numerics.mjs';
import { encodeValue } from './values.mjs';
import { evaluate, readInputs, MODES, MODES16, SUMS16 } from './models_eval.mjs';
import { BLOCKS } from './models_blocks.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');
const outDir = join(repo, 'cases', 'models');
const SOURCE = 'tools/casegen/models.mjs (independent Node.js generator; see docs/models.md)';

// The unmeasured orders of a backend (blocked and pairwise sums, FMA, its own exp/erf/tanh approximations) are
// not among the three measured ones; a factor of 4 over the largest measured deviation leaves room for an order
// that lands as far again beyond it, twice over.
export const FACTOR = 4;

function format(v, indent = '') {
  if (Array.isArray(v)) {
    if (v.every((x) => x === null || typeof x !== 'object')) return `[${v.map((x) => JSON.stringify(x)).join(', ')}]`;
    const inner = indent + '  ';
    return `[\n${v.map((x) => inner + format(x, inner)).join(',\n')}\n${indent}]`;
  }
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v);
    if (keys.length === 0) return '{}';
    const inner = indent + '  ';
    return `{\n${keys.map((k) => `${inner}${JSON.stringify(k)}: ${format(v[k], inner)}`).join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(v);
}

const maxAbs = (d) => d.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
function maxDiff(a, b) {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}
// Rounds a tolerance up to two significant digits, so the reason's text states it exactly.
const roundUp2 = (x) => {
  const e = 10 ** (Math.floor(Math.log10(x)) - 1);
  return Number((Math.ceil(x / e - 1e-9) * e).toPrecision(2));
};
const fmt = (x) => Number(x.toPrecision(3)).toExponential();

// The sums the float16-accumulator orders keep in float16, in words.
function sums16() {
  const words = { matmul: 'matmul and conv2d', softmax: 'softmax', reduceMean: 'reduceMean',
    normalization: 'the normalization moments' };
  const list = [...SUMS16].map((k) => words[k]);
  return list.length > 1 ? `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}` : list[0];
}

// Builds one case from a block description (models_blocks.mjs) and returns it with its measurements.
export function buildCase(block) {
  const { name, graph, outputs, direct, labels, description } = block.build();
  const inputs = readInputs(graph);
  const envs = { exact: evaluate(graph, 'exact', inputs) };
  const exact = envs.exact;
  const type = exact[outputs[0]].type;
  // float16 graphs: also the float16-accumulator orders (models_eval.mjs)
  const modes = type === 'float16' ? MODES16 : MODES;
  for (const m of modes.slice(1)) envs[m] = evaluate(graph, m, inputs);
  const expectedOutputs = {};
  const spread = {};
  const report = [];
  // Second check: the model definition, evaluated directly.
  const dir = direct(inputs);
  let worst = 0;
  for (const out of outputs) {
    const t = exact[out];
    const rounded = Array.from(t.data, (v) => roundTo(t.type, v));
    expectedOutputs[out] = {
      data: rounded.map((v) => encodeValue(v, t.type)),
      descriptor: { shape: t.shape, dataType: t.type },
    };
    spread[out] = {};
    for (const m of modes.slice(1)) spread[out][m] = maxDiff(envs[m][out].data, t.data);
    const s = Math.max(...Object.values(spread[out]));
    worst = Math.max(worst, s);
    const d = dir[out];
    if (!d || d.length !== t.data.length) throw new Error(`${name}: the direct model has no output ${out}`);
    const agree = maxDiff(d, t.data);
    // float32 noise: far below one float32 ulp of the output's magnitude (the two are both float64 evaluations).
    const noise = maxAbs(t.data) * 2 ** -30;
    if (!(agree <= noise)) {
      throw new Error(`${name}: ${out}: the operator list and the model definition differ by ${agree} (> ${noise})`);
    }
    report.push({ out, max: maxAbs(t.data), agree, spread: spread[out] });
  }
  const tolerance = roundUp2(FACTOR * worst);
  const half = type === 'float16';
  const parts = report.map((r) => `${r.out}: max |value| ${fmt(r.max)}, deviations typed ${fmt(r.spread.typed)}, `
    + `forward ${fmt(r.spread.forward)}, backward ${fmt(r.spread.backward)}`
    + (half ? `, forward16 ${fmt(r.spread.forward16)}, backward16 ${fmt(r.spread.backward16)}` : ''));
  const orders = half
    ? `among five ${type} evaluation orders of this operator list (every operator output rounded to ${type}; `
      + `sums in double, in float32 first-to-last, in float32 last-to-first, and with float16 accumulators `
      + `(the sums of ${sums16()}: each product and partial sum rounded to float16) first-to-last and `
      + `last-to-first)`
    : `among three ${type} evaluation orders of this operator list (every operator output rounded to ${type}; `
      + `sums in double, in float32 first-to-last, in float32 last-to-first)`;
  const reason = `Measured, not fitted to nnref: the largest deviation from the float64 evaluation (the expected `
    + `values) ${orders} is ${fmt(worst)} (${parts.join('; ')}). `
    + `ATOL = ${FACTOR} x that, rounded up to 2 digits. The model definition computed directly (attention as `
    + `attention, tools/casegen/models_direct.mjs) agrees with the expected values to within `
    + `${fmt(Math.max(...report.map((r) => r.agree)) || 0)}.`;
  const c = {
    name,
    description,
    labels,
    tolerance: { metric: 'ATOL', value: tolerance, reason },
    graph: { ...graph, expectedOutputs },
  };
  return { c, report, worst, tolerance, operators: graph.operators.length };
}

function main() {
  const check = process.argv.includes('--check');
  const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : null;
  if (!existsSync(outDir)) mkdirSync(outDir, { recursive: true });
  const files = {};
  // --only NAME: every block of the files that hold a block whose file or id contains NAME (whole files, so
  // that --check compares like with like).
  const chosen = new Set(BLOCKS.filter((b) => !only || b.file.includes(only) || b.id.includes(only)).map((b) => b.file));
  for (const b of BLOCKS) {
    if (!chosen.has(b.file)) continue;
    const t0 = Date.now();
    const r = buildCase(b);
    (files[b.file] ??= []).push(r.c);
    console.log(`${r.c.name}: ${r.operators} operators, ATOL ${r.tolerance} (worst order ${fmt(r.worst)}), `
      + `direct agrees to ${fmt(Math.max(...r.report.map((x) => x.agree)) || 0)}, ${(Date.now() - t0) / 1000} s`);
  }
  let stale = 0;
  for (const [file, cases] of Object.entries(files)) {
    const text = format({ format: 'nnref-case/1', source: SOURCE, cases }) + '\n';
    const path = join(outDir, `${file}.json`);
    if (check) {
      const old = existsSync(path) ? readFileSync(path, 'utf8') : '';
      if (old !== text) {
        stale++;
        console.log(`stale: ${path}`);
      }
    } else {
      writeFileSync(path, text);
    }
  }
  if (check && stale) process.exit(1);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
