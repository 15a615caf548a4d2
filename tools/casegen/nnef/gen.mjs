#!/usr/bin/env node
// Independent expected-value generator for nnref's NNEF cases.
// Usage: node tools/casegen/nnef/gen.mjs [--check] [--verbose]
// Writes cases/nnef/<case>/ (graph.nnef, variable .dat files, optional graph.quant, case.json, inputs/*.dat,
// expected/*.dat); --check only verifies that the files on disk are exactly what would be written.
// See tools/casegen/nnef/README.md. Nothing here runs or reads nnref's C++ code.

import { readFileSync, writeFileSync, mkdirSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { makeOps } from './ops.mjs';
import { Tensor } from './tensor.mjs';
import { encodeTensor, decodeTensor } from './tensorfile.mjs';
import { f32Bits } from '../numerics.mjs';

import { elementwiseCases } from './cases_elementwise.mjs';
import { windowCases } from './cases_window.mjs';
import { reduceShapeCases } from './cases_shape.mjs';
import { nnCases } from './cases_nn.mjs';
import { modelCases } from './cases_models.mjs';
import { interopCases } from './cases_interop.mjs';
import { errorCases } from './cases_errors.mjs';

// The operations of NNEF 1.0.2 chapter 4 (4.1 - 4.9).
export const CHAPTER4_OPS = `external constant variable
  copy neg rcp exp log sin cos abs sign not floor ceil round add sub mul div pow lt gt le ge eq ne and or select
  sqr sqrt rsqr rsqrt log2 min max clamp
  conv deconv box debox argmax_pool sample desample nearest_downsample area_downsample nearest_upsample multilinear_upsample
  sum_reduce max_reduce min_reduce argmax_reduce argmin_reduce all_reduce any_reduce mean_reduce
  reshape squeeze unsqueeze transpose split concat stack unstack slice pad tile
  avg_roi_pool max_roi_pool roi_resample avg_roi_align max_roi_align matmul update
  sigmoid relu prelu leaky_relu elu tanh softmax softplus linear separable_conv separable_deconv
  max_pool_with_index max_pool avg_pool rms_pool
  local_response_normalization local_mean_normalization local_variance_normalization local_contrast_normalization
  l1_normalization l2_normalization batch_normalization linear_quantize logarithmic_quantize copy_n add_n moments`.split(/\s+/);

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..', '..');
const outDir = join(repo, 'cases', 'nnef');

// ------------------------------------------------------------------------------------------------------------
// ULP distance between two float32 values (NaN only equals NaN; +0 and -0 are 0 apart).
function ordered(v) {
  const b = f32Bits(v);
  return b & 0x80000000 ? -(b & 0x7fffffff) : b;
}
export function ulpDiff(a, b) {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b) ? 0 : Infinity;
  if (a === b) return 0;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return Infinity;
  return Math.abs(ordered(a) - ordered(b));
}

const DEFAULT_ENC = { scalar: { kind: 'float', bits: 32 }, integer: { kind: 'integer', bits: 32, signed: true }, logical: { kind: 'bool', bits: 8 } };

const asEntry = (v) => (v instanceof Tensor ? { tensor: v } : v);

function tensorBytes(entry) {
  const t = entry.tensor;
  const enc = entry.enc || DEFAULT_ENC[t.type];
  const items = entry.codes ? entry.codes : t.data;
  const buf = encodeTensor(t.shape, items, enc);
  // Read it back with our reader: the decoded values must be the tensor's values.
  const d = decodeTensor(buf);
  if (enc.kind === 'quint') {
    if (d.items.join() !== entry.codes.join()) throw new Error('quint round trip');
    return buf;
  }
  const vals = d.values || d.items;
  vals.forEach((v, i) => {
    const want = t.type === 'logical' ? (t.data[i] ? 1 : 0) : t.data[i];
    const got = enc.kind === 'float' && enc.bits === 32 ? v : v;
    if (!(got === want || (Number.isNaN(got) && Number.isNaN(want)))) {
      throw new Error(`tensor file round trip: item ${i} ${got} != ${want}`);
    }
  });
  return buf;
}

function sortKeys(obj) {
  return Object.fromEntries(Object.keys(obj).sort().map((k) => [k, obj[k]]));
}

function buildCase(c) {
  const files = new Map(); // relative path -> Buffer
  files.set('graph.nnef', Buffer.from(c.graph));
  if (c.quant) files.set('graph.quant', Buffer.from(c.quant));
  const json = { description: c.description };
  const I = {}, V = {};
  json.inputs = {};
  for (const [name, v] of Object.entries(c.inputs || {})) {
    const e = asEntry(v);
    I[name] = e.tensor;
    const path = `inputs/${name}.dat`;
    files.set(path, e.raw || tensorBytes(e));
    json.inputs[name] = path;
  }
  for (const [label, v] of Object.entries(c.variables || {})) {
    const e = asEntry(v);
    V[label] = e.tensor;
    files.set(`${label}.dat`, e.raw || tensorBytes(e));
  }
  for (const [path, buf] of Object.entries(c.files || {})) files.set(path, buf);
  let info = '';
  if (c.expectedError) {
    json.outputs = {};
    json.expectedError = c.expectedError;
  } else {
    const exact = c.compute(makeOps(), I, V);
    const f32 = c.compute(makeOps(Math.fround), I, V);
    json.outputs = {};
    let maxUlp = 0, maxAbs = 0, anyScalar = false;
    for (const name of Object.keys(exact).sort()) {
      const t = exact[name];
      const path = `expected/${name}.dat`;
      json.outputs[name] = path;
      const g = f32[name];
      if (g.shape.join() !== t.shape.join()) throw new Error(`${c.name}: float32 mode shape differs for ${name}`);
      if (t.type === 'scalar') {
        anyScalar = true;
        const rounded = new Tensor(t.shape, t.data.map(Math.fround));
        rounded.data.forEach((v, i) => {
          maxUlp = Math.max(maxUlp, ulpDiff(v, g.data[i]));
          if (Number.isFinite(v)) maxAbs = Math.max(maxAbs, Math.abs(v - g.data[i]));
        });
        files.set(path, tensorBytes({ tensor: rounded, enc: (c.outputEnc || {})[name] }));
      } else {
        t.data.forEach((v, i) => {
          if (v !== g.data[i]) throw new Error(`${c.name}: ${name}[${i}] depends on float32 rounding (${v} vs ${g.data[i]})`);
        });
        files.set(path, tensorBytes({ tensor: t, enc: (c.outputEnc || {})[name] }));
      }
    }
    if (anyScalar) {
      let tol = c.tolerance;
      if (!tol) {
        if (maxUlp === Infinity) throw new Error(`${c.name}: float32 mode gives a different special value`);
        const v = c.transcendental ? Math.max(2, 2 * maxUlp + 2) : maxUlp === 0 ? 0 : 2 * maxUlp + 1;
        tol = { metricType: 'ULP', value: v };
      } else if (tol.metricType === 'ULP' && maxUlp > tol.value) {
        throw new Error(`${c.name}: float32 mode is ${maxUlp} ULP away, tolerance ${tol.value}`);
      } else if (tol.metricType === 'ATOL' && maxAbs > tol.value) {
        throw new Error(`${c.name}: float32 mode is ${maxAbs} away, tolerance ${tol.value}`);
      }
      json.tolerance = tol;
      info = `${tol.metricType} ${tol.value} (float32 mode: ${maxUlp} ULP, ${maxAbs.toExponential(2)} abs)`;
    }
  }
  if (c.interpretation) json.interpretation = c.interpretation;
  // Interoperability members (cases_interop.mjs): parse strictly, a text the error or a warning must contain.
  if (c.strict) json.strict = true;
  if (c.message) json.message = c.message;
  if (c.expectedWarning) json.expectedWarning = c.expectedWarning;
  files.set('case.json', Buffer.from(JSON.stringify(json, null, 2) + '\n'));
  return { files, info };
}

function listFiles(dir, prefix = '') {
  const out = [];
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...listFiles(p, `${prefix}${e}/`));
    else out.push(`${prefix}${e}`);
  }
  return out;
}

function main() {
  const check = process.argv.includes('--check');
  const verbose = process.argv.includes('--verbose');
  const only = process.argv.find((a) => a.startsWith('--only='));
  const all = [...elementwiseCases(), ...windowCases(), ...reduceShapeCases(), ...nnCases(), ...modelCases(), ...errorCases(), ...interopCases()];
  const names = new Set();
  for (const c of all) {
    if (names.has(c.name)) throw new Error(`duplicate case ${c.name}`);
    if (!/^[a-z0-9_.-]+$/.test(c.name)) throw new Error(`bad case name ${c.name}`);
    names.add(c.name);
  }
  // Every operation of chapter 4 must be invoked by at least one case that is not a rejection case.
  const used = new Set();
  for (const c of all) if (!c.expectedError) for (const m of c.graph.matchAll(/([a-z_0-9]+)\s*(?:<[a-z?]+>)?\(/g)) used.add(m[1]);
  const missing = CHAPTER4_OPS.filter((op) => !used.has(op));
  if (missing.length) throw new Error(`operations without a case: ${missing.join(' ')}`);
  let stale = 0, total = 0, bytes = 0;
  for (const c of all) {
    if (only && !c.name.includes(only.slice(7))) continue;
    let built;
    try {
      built = buildCase(c);
    } catch (e) {
      e.message = `${c.name}: ${e.message}`;
      throw e;
    }
    total++;
    if (verbose && built.info) console.log(`${c.name}: ${built.info}`);
    const dir = join(outDir, c.name);
    const want = [...built.files.keys()].sort();
    for (const buf of built.files.values()) bytes += buf.length;
    const have = existsSync(dir) ? listFiles(dir) : [];
    let same = have.join('\n') === want.join('\n');
    if (same) for (const p of want) if (!readFileSync(join(dir, p)).equals(built.files.get(p))) same = false;
    if (same) continue;
    stale++;
    if (check) { console.log(`stale: cases/nnef/${c.name}`); continue; }
    if (existsSync(dir)) rmSync(dir, { recursive: true });
    for (const [p, buf] of built.files) {
      mkdirSync(dirname(join(dir, p)), { recursive: true });
      writeFileSync(join(dir, p), buf);
    }
  }
  if (!only && existsSync(outDir)) {
    for (const e of readdirSync(outDir)) {
      if (names.has(e)) continue;
      stale++;
      if (check) console.log(`not generated: cases/nnef/${e}`);
      else rmSync(join(outDir, e), { recursive: true });
    }
  }
  const what = check ? (stale ? `${stale} stale` : 'all current') : `${stale} written`;
  console.log(`${total} NNEF cases, ${(bytes / 1024).toFixed(0)} KiB; ${what}`);
  if (check && stale) process.exit(1);
}

main();
