// The side-by-side benchmark of tools/bench/run.sh: for each benchmark, nnref_bench times the
// reference and the simd backend (1 thread, all threads), then ONNX Runtime (onnxruntime-node)
// times the same operator as a single-operator ONNX model (1 thread, all threads) in this
// process. Prints one table with the ratios and the targets of docs/performance.md, and writes
// results.md and results.json to --out.
//
// The model blocks (gpt2_block, sd_resblock: cases of cases/models run as one graph) are exported
// whole to ONNX from the case file and the data nnref_bench --export writes (lower.mjs); before
// ONNX Runtime is timed on one, its output is judged by `nnref check` against the reference under
// the case's tolerance, and a failure stops the run.
//
// node tools/bench/ort/compare.mjs --bench build/bin/nnref_bench --ort-dir build/bench-ort
//     [--nnref build/bin/nnref] [--out DIR] [--repeat N] [--reference-repeat N] [--warmup N]
//     [--min-sample-ms X] [--rounds N] [--threads N] [--only ID,ID] [--small] [--no-reference]
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import {createRequire} from 'node:module';
import os from 'node:os';
import path from 'node:path';

import {lowerGraph} from './lower.mjs';
import {buildModel, encodeModel, knownIds, parseShapes} from './onnx.mjs';

// The model blocks: nnref_bench loads their case files (cases/models) itself.
const MODELS = ['gpt2_block', 'sd_resblock'];
const ORDER = ['conv2d', 'matmul', 'add', 'softmax', 'layerNormalization', 'relu_matmul',
               'overhead', ...MODELS];
// docs/performance.md "Targets" (issue 25's Done-when): simd 1 thread / ONNX Runtime 1 thread at
// most 1.0 on the six operator benchmarks and both model blocks; the all-threads speed-up at least
// 1.8x on the products and the model blocks (the row-wise operators are too short to split).
const RATIO_TARGETS = {conv2d: 1.0, matmul: 1.0, relu_matmul: 1.0, softmax: 1.0,
                       layerNormalization: 1.0, add: 1.0, gpt2_block: 1.0, sd_resblock: 1.0};
const SPEEDUP_TARGET = 1.8;  // all threads / 1 thread, on 2 cores
const SPEEDUP_IDS = ['conv2d', 'matmul', 'relu_matmul', 'gpt2_block', 'sd_resblock'];
const MISMATCH = 1e-3;       // nnref_bench's bound on |simd - reference| / max |reference|

function parseArgs(argv) {
  const o = {bench: null, nnref: null, ortDir: null, out: null, repeat: 21, referenceRepeat: 3, warmup: 2,
             minSampleMs: 0, rounds: 3, threads: 0, only: null, small: false, reference: true,
             vulkan: []};
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--bench') o.bench = value();
    else if (a === '--nnref') o.nnref = value();
    else if (a === '--ort-dir') o.ortDir = value();
    else if (a === '--out') o.out = value();
    else if (a === '--repeat') o.repeat = Number(value());
    else if (a === '--reference-repeat') o.referenceRepeat = Number(value());
    else if (a === '--rounds') o.rounds = Math.max(1, Number(value()));
    else if (a === '--warmup') o.warmup = Number(value());
    else if (a === '--min-sample-ms') o.minSampleMs = Number(value());
    else if (a === '--threads') o.threads = Number(value());
    else if (a === '--only') o.only = value().split(',');
    else if (a === '--small') o.small = true;
    else if (a === '--no-reference') o.reference = false;
    else if (a === '--vulkan') o.vulkan = ['vulkan_native', 'vulkan_exact'];
    else if (a === '--vulkan-native') o.vulkan = ['vulkan_native'];
    else throw new Error(`unknown argument ${a}`);
  }
  if (!o.bench || !o.ortDir) throw new Error('--bench and --ort-dir are required');
  o.nnref ??= path.join(path.dirname(o.bench), 'nnref');
  for (const id of o.only ?? []) {
    if (!ORDER.includes(id)) throw new Error(`no benchmark '${id}' (known: ${ORDER.join(', ')})`);
  }
  return o;
}

// Uniform floats in [-1, 1) (xorshift32; ONNX Runtime only needs ordinary numbers).
function random(n, seed) {
  const a = new Float32Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; ++i) {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    a[i] = s / 2 ** 31 - 1;
  }
  return a;
}

const now = () => Number(process.hrtime.bigint()) / 1e6;

// As nnref_bench's Measure: warm-up calls, then `repeat` samples of k back-to-back calls.
async function measure(fn, o) {
  let last = 0;
  for (let i = 0; i < Math.max(1, o.warmup); ++i) {
    const t0 = now();
    await fn();
    last = now() - t0;
  }
  const k = Math.min(10000, Math.max(1, Math.ceil(o.minSampleMs / Math.max(last, 1e-6))));
  const perCall = [];
  for (let r = 0; r < Math.max(1, o.repeat); ++r) {
    const t0 = now();
    for (let i = 0; i < k; ++i) await fn();
    perCall.push((now() - t0) / k);
  }
  perCall.sort((x, y) => x - y);
  const n = perCall.length;
  const median = n % 2 ? perCall[(n - 1) / 2] : (perCall[n / 2 - 1] + perCall[n / 2]) / 2;
  return {median_ms: median, min_ms: perCall[0], calls: k};
}

// --- independent check of ONNX Runtime's output on sampled elements ---------------------------
// Each function gives the output dims and, for output element i, the value computed here in
// double from the operand data and the scale its float32 rounding error is relative to.
const dot = (n, term) => {
  let s = 0, abs = 0;
  for (let k = 0; k < n; ++k) {
    const t = term(k);
    s += t;
    abs += Math.abs(t);
  }
  return {value: s, scale: abs};
};
const EXPECTED = {
  conv2d: ({x, w}) => {
    const [, C, H, W] = x.dims, [O, , KH, KW] = w.dims;
    const OH = H + 2 - KH + 1, OW = W + 2 - KW + 1;
    return {dims: [1, O, OH, OW], at: (i) => {
      const o = Math.floor(i / (OH * OW)), oh = Math.floor(i / OW) % OH, ow = i % OW;
      return dot(C * KH * KW, (k) => {
        const c = Math.floor(k / (KH * KW)), kh = Math.floor(k / KW) % KH, kw = k % KW;
        const h = oh + kh - 1, v = ow + kw - 1;
        if (h < 0 || h >= H || v < 0 || v >= W) return 0;
        return x.data[(c * H + h) * W + v] * w.data[((o * C + c) * KH + kh) * KW + kw];
      });
    }};
  },
  matmul: ({a, b}) => {
    const [M, K] = a.dims, N = b.dims[1];
    return {dims: [M, N], at: (i) => {
      const m = Math.floor(i / N), n = i % N;
      return dot(K, (k) => a.data[m * K + k] * b.data[k * N + n]);
    }};
  },
  add: ({a, b}) => ({dims: a.dims, at: (i) => ({value: a.data[i] + b.data[i], scale: 1})}),
  softmax: ({x}) => {
    const [, N] = x.dims;
    return {dims: x.dims, at: (i) => {
      const row = x.data.subarray(i - (i % N), i - (i % N) + N);
      const max = row.reduce((m, v) => Math.max(m, v), -Infinity);
      const sum = row.reduce((s, v) => s + Math.exp(v - max), 0);
      return {value: Math.exp(x.data[i] - max) / sum, scale: 1};
    }};
  },
  layerNormalization: ({x}) => {
    const [, N] = x.dims;
    return {dims: x.dims, at: (i) => {
      const row = x.data.subarray(i - (i % N), i - (i % N) + N);
      const mean = row.reduce((s, v) => s + v, 0) / N;
      const variance = row.reduce((s, v) => s + (v - mean) ** 2, 0) / N;
      return {value: (x.data[i] - mean) / Math.sqrt(variance + 1e-5), scale: 1};
    }};
  },
  relu_matmul: ({x, w}) => {
    const [M, K] = x.dims, N = w.dims[1];
    return {dims: [M, N], at: (i) => {
      const m = Math.floor(i / N), n = i % N;
      const d = dot(K, (k) => x.data[m * K + k] * w.data[k * N + n]);
      return {value: Math.max(0, d.value), scale: d.scale};
    }};
  },
};
EXPECTED.overhead = EXPECTED.add;

// Throws unless `y` (an ort.Tensor) has the expected dims and matches on sampled elements.
function checkOutput(id, operands, y) {
  const e = EXPECTED[id](operands);
  if (JSON.stringify(Array.from(y.dims)) !== JSON.stringify(e.dims)) {
    throw new Error(`${id}: ONNX Runtime output dims ${y.dims}, expected ${e.dims}`);
  }
  const n = y.data.length;
  const samples = [0, n - 1, ...Array.from(random(62, 7), (r) => Math.floor((r + 1) / 2 * n))];
  for (const i of samples) {
    const {value, scale} = e.at(i);
    if (!(Math.abs(y.data[i] - value) <= 1e-4 * Math.max(scale, 1e-2))) {
      throw new Error(`${id}: ONNX Runtime output element ${i} is ${y.data[i]}, expected ${value}`);
    }
  }
}

// --- nnref_bench ------------------------------------------------------------------------------
function runNnref(o, id) {
  const args = ['--tsv', '--only', id, '--repeat', String(o.repeat), '--reference-repeat',
                String(o.referenceRepeat), '--warmup', String(o.warmup), '--min-sample-ms',
                String(o.minSampleMs)];
  if (o.threads) args.push('--threads', String(o.threads));
  if (o.small) args.push('--small');
  if (!o.reference) args.push('--no-reference');
  if (o.vulkan.length) args.push(o.vulkan.length === 2 ? '--vulkan' : '--vulkan-native');
  if (o.exportDir) args.push('--export', o.exportDir);
  const r = spawnSync(o.bench, args, {encoding: 'utf8', maxBuffer: 1 << 20});
  if (r.error) throw r.error;
  const rows = {};
  for (const line of r.stdout.split('\n')) {
    const [kind, ...fields] = line.split('\t');
    if (kind === 'info' || kind === 'bench') {
      rows[kind] = Object.fromEntries(fields.map((f) => [f.slice(0, f.indexOf('=')),
                                                         f.slice(f.indexOf('=') + 1)]));
    }
  }
  // Exit status 1 with a row: a simd result differs from the reference (reported as MISMATCH).
  if (!rows.info || !rows.bench || (r.status !== 0 && r.status !== 1)) {
    throw new Error(`${o.bench} ${args.join(' ')} failed (status ${r.status}):\n${r.stderr}`);
  }
  return rows;
}

function variant(row, name) {
  if (row[`${name}_skip`] !== undefined) return {skip: row[`${name}_skip`]};
  const v = {median_ms: Number(row[`${name}_ms`]), min_ms: Number(row[`${name}_min_ms`]),
             calls: Number(row[`${name}_calls`])};
  if (row[`${name}_difference`] !== undefined) v.difference = Number(row[`${name}_difference`]);
  return v;
}

// --- ONNX Runtime -----------------------------------------------------------------------------
// The median over samples of k calls of ONNX Runtime's own time per run: the durations (us) of
// the profiler's "model_run" events (InferenceSession::Run inside the native library), the
// last `repeat * k` of them being the timed calls.
function profiledTime(file, o, k) {
  const runs = JSON.parse(fs.readFileSync(file, 'utf8'))
      .filter((e) => e.name === 'model_run').map((e) => e.dur / 1000);
  const timed = runs.slice(-Math.max(1, o.repeat) * k);
  const perCall = [];
  for (let i = 0; i + k <= timed.length; i += k) {
    perCall.push(timed.slice(i, i + k).reduce((a, b) => a + b, 0) / k);
  }
  perCall.sort((a, b) => a - b);
  const n = perCall.length;
  if (!n) throw new Error(`no model_run events in ${file}`);
  return {median_ms: n % 2 ? perCall[(n - 1) / 2] : (perCall[n / 2 - 1] + perCall[n / 2]) / 2,
          min_ms: perCall[0], calls: k};
}

// ONNX Runtime with 1 thread (ort1) and `threads` threads (ort_all): the time of one run inside
// ONNX Runtime (profiler), and as Node.js sees it (ort1_node, ort_all_node: await session.run,
// which adds the binding's copies and promise round trip). `check(outputs)` runs on each
// session's first outputs and throws when they are wrong.
async function timeOrt(ort, o, model, feeds, check, threads) {
  const result = {};
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nnref-bench-ort-'));
  try {
    for (const [key, n] of [['ort1', 1], ['ort_all', threads]]) {
      const prefix = path.join(dir, key);
      const session = await ort.InferenceSession.create(model, {
        intraOpNumThreads: n, interOpNumThreads: 1, executionMode: 'sequential',
        graphOptimizationLevel: 'all', enableProfiling: true, profileFilePrefix: prefix});
      try {
        check(await session.run(feeds), n);
        result[`${key}_node`] = await measure(() => session.run(feeds), o);
      } finally {
        await session.release();  // writes the profile
      }
      const file = fs.readdirSync(dir).find((f) => f.startsWith(`${key}_`));
      if (!file) throw new Error(`ONNX Runtime wrote no profile under ${prefix}`);
      result[key] = profiledTime(path.join(dir, file), o, result[`${key}_node`].calls);
    }
  } finally {
    fs.rmSync(dir, {recursive: true, force: true});
  }
  return result;
}

// An operator benchmark: the single-operator model of onnx.mjs on random inputs of the same
// shapes, its output checked against values computed here in double.
async function runOrt(ort, protobuf, o, id, shapes, threads) {
  const operands = parseShapes(shapes);
  const data = {};
  operands.forEach((op, k) => {
    data[op.name] = {dims: op.dims, data: random(op.dims.reduce((p, d) => p * d, 1), 101 + k)};
  });
  const model = buildModel(protobuf, id, operands, (op) => data[op.name].data);
  const feeds = {};
  for (const op of operands) {
    if (!op.constant) feeds[op.name] = new ort.Tensor('float32', data[op.name].data, op.dims);
  }
  return timeOrt(ort, o, model, feeds, (outputs) => checkOutput(id, data, outputs.y), threads);
}

// A NumPy .npy file (version 1.0) of a float32 array.
function npyBytes(data, dims) {
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': ${shape}, }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const out = Buffer.alloc(10 + header.length + data.byteLength);
  out.write('\x93NUMPY', 0, 'latin1');
  out[6] = 1;
  out[7] = 0;
  out.writeUInt16LE(header.length, 8);
  out.write(header, 10, 'latin1');
  Buffer.from(data.buffer, data.byteOffset, data.byteLength).copy(out, 10 + header.length);
  return out;
}

// Judges ONNX Runtime's output of a model block with `nnref check` (the reference, the case's
// tolerance); throws with check's report unless the case passes.
function judgeModel(o, b, y, threads) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nnref-bench-check-'));
  try {
    fs.writeFileSync(path.join(dir, 'y.npy'), npyBytes(y.data, Array.from(y.dims)));
    fs.writeFileSync(path.join(dir, 'results.json'), JSON.stringify(
        {cases: [{name: b.case_name, outputs: {[b.output]: {npy: 'y.npy'}}}]}));
    const r = spawnSync(o.nnref, ['check', b.case, '--actual', path.join(dir, 'results.json')],
                        {encoding: 'utf8', maxBuffer: 16 << 20});
    if (r.error) throw r.error;
    if (r.status !== 0 || !/\b1 passed\b/.test(r.stdout)) {
      throw new Error(`${b.id}: ONNX Runtime's output (${threads} thread(s)) fails ` +
                      `\`nnref check ${b.case}\` (status ${r.status}):\n${r.stdout}${r.stderr}`);
    }
  } finally {
    fs.rmSync(dir, {recursive: true, force: true});
  }
}

// A model block: the case's graph exported whole to ONNX (lower.mjs) with the data nnref_bench
// exported (the case's decoded inputs and constants), its output judged by `nnref check`.
async function runOrtModel(ort, protobuf, o, b, threads) {
  const doc = JSON.parse(fs.readFileSync(b.case, 'utf8'));
  const c = (Array.isArray(doc) ? doc : doc.cases ?? [doc]).find((k) => k.name === b.case_name);
  if (!c) throw new Error(`${b.case}: no case '${b.case_name}'`);
  const operands = JSON.parse(fs.readFileSync(path.join(b.export, 'operands.json'), 'utf8'));
  const bytes = (name) => new Uint8Array(fs.readFileSync(path.join(b.export, `${name}.bin`)));
  const {nodes, initializers} = lowerGraph(c.graph.operators, operands, bytes);
  const inputs = Object.entries(operands).filter(([, t]) => t.kind === 'input');
  const feeds = {};
  for (const [name, t] of inputs) {
    if (t.dataType !== 'float32') throw new Error(`${b.id}: input ${name} is ${t.dataType}`);
    const raw = bytes(name);
    feeds[name] = new ort.Tensor('float32', new Float32Array(raw.buffer, raw.byteOffset,
                                                             raw.byteLength / 4), t.shape);
  }
  const model = encodeModel(protobuf, {
    name: b.case_name, nodes, initializers,
    inputs: inputs.map(([name, t]) => ({name, dims: t.shape})), outputs: [b.output]});
  return timeOrt(ort, o, model, feeds,
                 (outputs, n) => judgeModel(o, b, outputs[b.output], n), threads);
}

// --- report -----------------------------------------------------------------------------------
const ms = (v) => (v.skip !== undefined ? '-'
                   : v.median_ms.toFixed(v.median_ms < 1 ? 4 : v.median_ms < 100 ? 3 : 1));
const x = (r) => `${r.toFixed(2)}x`;

function cells(row, T, vulkan) {
  const {reference, simd1, simd_all, ort1, ort_all} = row;
  const simd = simd1.skip !== undefined || simd_all.skip !== undefined
      ? [`skip (${simd1.skip ?? simd_all.skip})`]
      : [ms(simd1), ms(simd_all), (simd1.median_ms / ort1.median_ms).toFixed(2),
         x(simd1.median_ms / simd_all.median_ms) +
             (Math.max(simd1.difference, simd_all.difference) > MISMATCH ? ' MISMATCH' : '')];
  const vk = vulkan.flatMap((k) => {
    const v = row[k];
    if (v.skip !== undefined) return [`skip (${v.skip})`, '-'];
    return [ms(v) + (v.difference > MISMATCH ? ' MISMATCH' : ''),
            simd1.skip !== undefined ? '-' : x(v.median_ms / simd1.median_ms)];
  });
  if (vk.length && simd.length === 1) simd.push('', '', '');
  return [row.label, ms(reference), ms(ort1), ms(ort_all), x(ort1.median_ms / ort_all.median_ms),
          ms(row.ort1_node), ...simd, ...vk];
}

// The vulkan modes' columns (--vulkan, --vulkan-native): the time and its ratio to simd 1T.
const VULKAN_LABELS = {vulkan_native: 'vulkan native', vulkan_exact: 'vulkan exact'};

function header(T, vulkan) {
  return ['benchmark', 'reference', 'ORT 1T', `ORT ${T}T`, 'ORT speed-up', 'ORT 1T via Node',
          'simd 1T', `simd ${T}T`, 'simd/ORT 1T', 'simd speed-up',
          ...vulkan.flatMap((k) => [VULKAN_LABELS[k], `${VULKAN_LABELS[k]} / simd 1T`])];
}

function targets(rows, T) {
  const lines = [];
  for (const [id, max] of Object.entries(RATIO_TARGETS)) {
    const row = rows.find((r) => r.id === id);
    if (!row) continue;
    const what = `${id}: simd 1T / ORT 1T <= ${max.toFixed(1)}`;
    if (row.simd1.skip !== undefined) {
      lines.push(`${what}: not measured, skip (${row.simd1.skip})`);
    } else {
      const r = row.simd1.median_ms / row.ort1.median_ms;
      lines.push(`${what}: ${r <= max ? 'met' : 'NOT MET'} (${r.toFixed(2)})`);
    }
  }
  const speedups = rows.filter((r) => SPEEDUP_IDS.includes(r.id)).map((row) => {
    if (row.simd1.skip !== undefined || row.simd_all.skip !== undefined) return `${row.id} skip`;
    const s = row.simd1.median_ms / row.simd_all.median_ms;
    return `${row.id} ${s >= SPEEDUP_TARGET ? 'met' : 'NOT MET'} (${x(s)})`;
  });
  if (speedups.length) {
    lines.push(`simd all-threads speed-up (1T time / ${T}T time) >= ${SPEEDUP_TARGET}x on 2 cores` +
               (T === 2 ? '' : ` (this run: ${T} threads)`) + `: ${speedups.join(', ')}`);
  }
  return lines;
}

function textTable(head, body) {
  // A skip cell spans the simd columns: it is the row's last cell, unpadded and not measured.
  const spans = (r, c) => r.length < head.length && c === r.length - 1;
  const width = head.map((h, c) => Math.max(
      h.length, ...body.map((r) => (c < r.length && !spans(r, c) ? r[c].length : 0))));
  const line = (r) => r.map((v, c) => (c === 0 ? v.padEnd(width[c])
                                       : spans(r, c) ? v : v.padStart(width[c]))).join('  ');
  return [line(head), ...body.map(line)].join('\n');
}

function markdownTable(head, body) {
  const pad = (r) => [...r, ...Array(head.length - r.length).fill('')];
  return [`| ${head.join(' | ')} |`, `|${head.map((_, c) => (c ? '---:' : '---')).join('|')}|`,
          ...body.map((r) => `| ${pad(r).join(' | ')} |`)].join('\n');
}

// One row from the rows of every round: per variant, the median of the rounds' medians (a skip
// stays a skip; the reference comes from the first round).
function combineRounds(perRound) {
  const row = {...perRound[0]};
  for (const key of ['simd1', 'simd_all', 'ort1', 'ort_all', 'ort1_node', 'ort_all_node',
                     'vulkan_native', 'vulkan_exact']) {
    const timed = perRound.map((r) => r[key]).filter((v) => v && v.skip === undefined);
    if (timed.length !== perRound.length) continue;
    const medians = timed.map((v) => v.median_ms).sort((a, b) => a - b);
    const n = medians.length;
    row[key] = {...timed[0],
                median_ms: n % 2 ? medians[(n - 1) / 2] : (medians[n / 2 - 1] + medians[n / 2]) / 2,
                min_ms: Math.min(...timed.map((v) => v.min_ms)),
                difference: Math.max(...timed.map((v) => v.difference ?? 0)),
                rounds: timed.map((v) => v.median_ms)};
  }
  return row;
}

function cpuModel() {
  try {
    const m = fs.readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.*)$/m);
    return m ? m[1] : os.cpus()[0]?.model ?? 'unknown CPU';
  } catch {
    return os.cpus()[0]?.model ?? 'unknown CPU';
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const require = createRequire(path.resolve(o.ortDir, 'package.json'));
  const ort = require('onnxruntime-node');
  const protobuf = require('protobufjs');
  // The model blocks are left out of --small runs unless --only names them (full-size weights).
  const ids = ORDER.filter((id) => (knownIds.includes(id) || MODELS.includes(id)) &&
                                   (o.only ? o.only.includes(id) : !(o.small && MODELS.includes(id))));
  const exportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nnref-bench-export-'));
  const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');
  const start = {date: new Date().toISOString(), load: load()};
  // Each round times every benchmark (nnref, then ONNX Runtime); with several rounds each figure
  // is the median of the rounds' medians, so a burst of load on the machine hits all columns alike.
  // The reference runs in the first round only.
  const rounds = [];
  const exported = {};  // model id -> the folder nnref_bench --export wrote (first round)
  let info = null;
  try {
    for (let round = 0; round < o.rounds; ++round) {
      const results = {};
      for (const id of ids) {
        const model = MODELS.includes(id);
        // Let the ONNX Runtime work of the previous benchmark wind down first (Node's garbage
        // collector and ONNX Runtime's released threads run on the cores nnref_bench times on).
        if (globalThis.gc) globalThis.gc();
        await new Promise((resolve) => setTimeout(resolve, 500));
        const nnref = runNnref({...o, reference: o.reference && round === 0,
                                exportDir: model && round === 0 ? exportDir : null}, id);
        info = nnref.info;
        const b = nnref.bench;
        if (model && round === 0) exported[id] = b.export;
        const ortResult = model
            ? await runOrtModel(ort, protobuf, o, {...b, export: exported[id]}, Number(info.threads))
            : await runOrt(ort, protobuf, o, id, b.shapes, Number(info.threads));
        results[id] = {id, label: b.label, shapes: b.shapes, reference: variant(b, 'reference'),
                       simd1: variant(b, 'simd1'), simd_all: variant(b, 'simd_all'), ...ortResult};
        for (const k of o.vulkan) results[id][k] = variant(b, k);
        process.stderr.write(`  round ${round + 1}/${o.rounds}: ${id} done\n`);
      }
      rounds.push(results);
    }
  } finally {
    fs.rmSync(exportDir, {recursive: true, force: true});
  }
  const rows = ids.map((id) => combineRounds(rounds.map((r) => r[id])));
  const T = Number(info.threads);
  const end = {date: new Date().toISOString(), load: load()};
  const head = header(T, o.vulkan);
  const body = rows.map((r) => cells(r, T, o.vulkan));
  const ortVersion = ort.env.versions?.node ?? 'unknown';
  const about = [
    `machine: ${cpuModel()}, ${os.availableParallelism()} logical CPUs; ` +
        `load average ${start.load} at ${start.date}, ${end.load} at ${end.date}`,
    `simd: ${info.simd}`,
    ...o.vulkan.map((k) => `${VULKAN_LABELS[k]}: ${info[k] ?? 'see nnref_bench'}`),
    `ORT: onnxruntime-node ${ortVersion}, CPU execution provider, intraOpNumThreads 1 and ${T}, ` +
        'graphOptimizationLevel all; single-operator models (the model blocks: the whole case ' +
        'graph), weights as initializers',
    `times: ms per call, median of ${o.repeat} samples after ${Math.max(1, o.warmup)} warm-up ` +
        `call(s) (reference: ${info.reference_repeat} samples after 1); ` +
        (o.minSampleMs > 0 ? `a sample is at least ${o.minSampleMs} ms of back-to-back calls`
                           : 'a sample is one call') +
        (o.rounds > 1 ? `; median of ${o.rounds} rounds over all benchmarks` : '') +
        (o.small ? '; --small shapes' : ''),
    'nnref: Graph::Compute in nnref_bench; ORT: the session run inside ONNX Runtime (its ' +
        'profiler\'s model_run events); ORT 1T via Node: await session.run as Node.js sees it ' +
        '(binding copies and promise round trip added)',
  ];
  const goals = targets(rows, T);
  console.log(about.join('\n'));
  console.log();
  console.log(textTable(head, body));
  console.log();
  console.log('targets:');
  for (const g of goals) console.log(`  ${g}`);
  if (o.out) {
    fs.mkdirSync(o.out, {recursive: true});
    fs.writeFileSync(path.join(o.out, 'results.json'),
                     JSON.stringify({about, start, end, threads: T, rows, targets: goals, rounds},
                                    null, 1));
    const list = (lines) => lines.map((l) => `- ${l}`).join('\n');
    fs.writeFileSync(path.join(o.out, 'results.md'),
                     `${list(about)}\n\n${markdownTable(head, body)}\n\n${list(goals)}\n`);
    console.log(`\nwritten: ${path.join(o.out, 'results.md')}, results.json`);
  }
  const mismatch = rows.some((r) => [r.simd1, r.simd_all, ...o.vulkan.map((k) => r[k])]
                                       .some((v) => v && v.difference > MISMATCH));
  if (mismatch) {
    console.error('a simd result differs from the reference (MISMATCH above)');
    process.exitCode = 1;
  }
}

main().catch((e) => {
  console.error(e.stack ?? String(e));
  process.exitCode = 1;
});
