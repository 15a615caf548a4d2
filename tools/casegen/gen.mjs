#!/usr/bin/env node
// Independent expected-value generator for nnref's WebNN element-wise cases.
// Usage: node tools/casegen/gen.mjs [--check]   (writes cases/webnn/<op>.json; --check only verifies that
// the files on disk equal what would be written). See tools/casegen/README.md.

import { writeFileSync, readFileSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { binaryFiles } from './binary.mjs';
import { logicalFiles } from './logical.mjs';
import { unaryFiles } from './unary.mjs';
import { castFiles } from './cast.mjs';
import { clampWhereFiles } from './clampwhere.mjs';
import { graphFiles } from './graph.mjs';
import { activationFiles } from './activations.mjs';
import { softmaxFiles } from './softmax.mjs';
import { reduceFiles } from './reduce.mjs';
import { matrixFiles } from './matrix.mjs';
import { linearFiles } from './linear.mjs';
import { normalizationFiles } from './normalization.mjs';
import { quantizationFiles } from './quantization.mjs';
import { convFiles } from './conv.mjs';
import { poolFiles } from './pool.mjs';
import { resampleFiles } from './resample.mjs';
import { rnnFiles } from './rnn.mjs';
import { datamoveFiles } from './datamove.mjs';
import { indexingFiles } from './indexing.mjs';
import { elementCount } from './values.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');
const outDir = join(repo, 'cases', 'webnn');

const SOURCE = 'tools/casegen/gen.mjs (independent Node.js generator; see tools/casegen/README.md)';

// JSON with objects indented and arrays of scalars on one line.
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

function validateFile(op, cases) {
  const names = new Set();
  for (const c of cases) {
    if (names.has(c.name)) throw new Error(`${op}: duplicate case name ${c.name}`);
    names.add(c.name);
    const tensors = [...Object.values(c.graph.inputs), ...Object.values(c.graph.expectedOutputs || {})];
    for (const t of tensors) {
      if (Array.isArray(t.data) && t.data.length !== elementCount(t.descriptor.shape)) {
        throw new Error(`${c.name}: data length ${t.data.length} != element count of [${t.descriptor.shape}]`);
      }
    }
    if (!c.expectedError && !c.graph.expectedOutputs) throw new Error(`${c.name}: no expected outputs`);
  }
}

function main() {
  const check = process.argv.includes('--check');
  const files = {
    ...binaryFiles(), ...logicalFiles(), ...unaryFiles(), ...castFiles(), ...clampWhereFiles(), ...graphFiles(),
    ...activationFiles(), ...softmaxFiles(), ...reduceFiles(),
    ...matrixFiles(), ...linearFiles(), ...normalizationFiles(), ...quantizationFiles(),
    ...convFiles(), ...poolFiles(), ...resampleFiles(),
    ...rnnFiles(),
    ...datamoveFiles(),
    ...indexingFiles(),
  };
  if (!existsSync(outDir)) mkdirSync(outDir, { recursive: true });
  let total = 0;
  let stale = 0;
  const allNames = new Set();
  for (const op of Object.keys(files).sort()) {
    const cases = files[op];
    validateFile(op, cases);
    for (const c of cases) {
      if (allNames.has(c.name)) throw new Error(`duplicate case name across files: ${c.name}`);
      allNames.add(c.name);
    }
    const doc = { format: 'nnref-case/1', source: SOURCE, cases };
    const text = format(doc) + '\n';
    JSON.parse(text); // must be valid JSON
    const path = join(outDir, `${op}.json`);
    if (check) {
      const old = existsSync(path) ? readFileSync(path, 'utf8') : '';
      if (old !== text) {
        stale++;
        console.log(`stale: ${path}`);
      }
    } else {
      writeFileSync(path, text);
    }
    total += cases.length;
    console.log(`${op}.json: ${cases.length} cases`);
  }
  console.log(`${Object.keys(files).length} files, ${total} cases`);
  if (check && stale) process.exit(1);
}

main();
