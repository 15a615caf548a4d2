// Self-test for the windowed operators (called from selftest.mjs):
//  1. winexact.mjs: roundRational and roundSqrtRational against exact BigInt bracketing by the neighbouring
//     midpoints, on random operands;
//  2. every generated case of conv2d, convTranspose2d, averagePool2d, l2Pool2d, maxPool2d and resample2d is
//     recomputed by a second, deliberately different implementation: plain double arithmetic that indexes the
//     tensors directly in their layouts (no transposes), convTranspose2d as a gather instead of a scatter,
//     resample2d from the spec's formulas in double. Floats must agree within a small relative bound (the
//     generator's values are exact; double has its own small error), integers and special values exactly.

import { readFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expandData, splitmix64 } from './values.mjs';
import { roundTo, nextUp, nextDown, maxFinite, isFloat } from './numerics.mjs';
import { roundRational, roundSqrtRational, decompose } from './winexact.mjs';

// Exact rational of a finite double: [n, d] BigInts.
function rat(x) {
  const [M, e] = decompose(x);
  return e >= 0 ? [M << BigInt(e), 1n] : [M, 1n << BigInt(-e)];
}
const cmpRat = ([a, b], [c, d]) => {
  const l = a * d, r = c * b;
  return l < r ? -1 : l > r ? 1 : 0;
};

function exactChecks(check) {
  const next = splitmix64(2024);
  for (const t of ['float32', 'float16']) {
    for (let i = 0; i < 3000; i++) {
      const num = BigInt.asIntN(40, next()) * (i % 3 === 0 ? 1n : 1n << BigInt(Number(next() % 20n)));
      const den = BigInt.asUintN(30, next()) + 1n;
      const r = roundRational(num, den, t);
      const x = [num, den];
      if (!Number.isFinite(r)) {
        check(cmpRat(x.map((v, k) => (k === 0 && v < 0n ? -v : v)), rat(maxFinite(t))) > 0, `roundRational overflow ${num}/${den}`);
        continue;
      }
      check(Object.is(roundTo(t, r), r) || r === 0, `roundRational ${num}/${den} not a ${t}`);
      const a = Math.abs(r);
      const up = nextUp(t, a);
      const down = a === 0 ? 0 : nextDown(t, a);
      const ax = [num < 0n ? -num : num, den];
      if (Number.isFinite(up)) {
        const midUp = rat((a + up) / 2);
        const c = cmpRat(ax, midUp);
        check(c < 0 || (c === 0 && isEvenF(t, a)), `roundRational ${num}/${den} -> ${r}: above upper midpoint`);
      }
      if (a > 0) {
        const midDown = rat((a + down) / 2);
        const c = cmpRat(ax, midDown);
        check(c > 0 || (c === 0 && isEvenF(t, a)), `roundRational ${num}/${den} -> ${r}: below lower midpoint`);
      }
    }
    for (let i = 0; i < 2000; i++) {
      const num = BigInt.asUintN(50, next()) >> BigInt(Number(next() % 40n));
      const den = BigInt.asUintN(24, next()) + 1n;
      const r = roundSqrtRational(num, den, t);
      if (!Number.isFinite(r)) continue;
      const up = nextUp(t, r);
      const sq = ([a, b]) => [a * a, b * b];
      if (Number.isFinite(up)) {
        const c = cmpRat([num, den], sq(rat((r + up) / 2)));
        check(c < 0 || (c === 0 && isEvenF(t, r)), `sqrt ${num}/${den} -> ${r}: above upper midpoint`);
      }
      if (r > 0) {
        const c = cmpRat([num, den], sq(rat((r + nextDown(t, r)) / 2)));
        check(c > 0 || (c === 0 && isEvenF(t, r)), `sqrt ${num}/${den} -> ${r}: below lower midpoint`);
      }
    }
  }
  check(roundSqrtRational(25n, 4n, 'float32') === 2.5 && roundSqrtRational(2n, 1n, 'float32') === Math.fround(Math.SQRT2),
    'sqrt exact and sqrt(2)');
}

function isEvenF(t, v) {
  // the last significand bit of v in format t is 0
  const u = nextUp(t, v) - v;
  return (v / u) % 2 === 0;
}

// ---------------------------------------------------------------------------------------------------------
// Direct-indexing double implementations.

const IN_IDX = {
  nchw: (s) => ({ N: s[0], C: s[1], H: s[2], W: s[3], at: (n, c, h, w) => ((n * s[1] + c) * s[2] + h) * s[3] + w }),
  nhwc: (s) => ({ N: s[0], H: s[1], W: s[2], C: s[3], at: (n, c, h, w) => ((n * s[1] + h) * s[2] + w) * s[3] + c }),
};
const CONV_FILTER = {
  oihw: (s) => ({ O: s[0], I: s[1], KH: s[2], KW: s[3], at: (o, i, h, w) => ((o * s[1] + i) * s[2] + h) * s[3] + w }),
  hwio: (s) => ({ KH: s[0], KW: s[1], I: s[2], O: s[3], at: (o, i, h, w) => ((h * s[1] + w) * s[2] + i) * s[3] + o }),
  ohwi: (s) => ({ O: s[0], KH: s[1], KW: s[2], I: s[3], at: (o, i, h, w) => ((o * s[1] + h) * s[2] + w) * s[3] + i }),
  ihwo: (s) => ({ I: s[0], KH: s[1], KW: s[2], O: s[3], at: (o, i, h, w) => ((i * s[1] + h) * s[2] + w) * s[3] + o }),
};
const CONVT_FILTER = { // O here is outputChannels / groups, I the input channels
  iohw: (s) => ({ I: s[0], O: s[1], KH: s[2], KW: s[3], at: (i, o, h, w) => ((i * s[1] + o) * s[2] + h) * s[3] + w }),
  hwoi: (s) => ({ KH: s[0], KW: s[1], O: s[2], I: s[3], at: (i, o, h, w) => ((h * s[1] + w) * s[2] + o) * s[3] + i }),
  ohwi: (s) => ({ O: s[0], KH: s[1], KW: s[2], I: s[3], at: (i, o, h, w) => ((o * s[1] + h) * s[2] + w) * s[3] + i }),
};
const outShape = (layout, N, C, H, W) => (layout === 'nhwc' ? [N, H, W, C] : [N, C, H, W]);

// Sum of terms in double, with a magnitude bound for the comparison.
function dsum() {
  return { s: 0, m: 0, add(v) { this.s += v; this.m += Math.abs(v); } };
}

function conv2dNaive(inp, opts) {
  const il = opts.inputLayout ?? 'nchw';
  const X = IN_IDX[il](inp.input.shape);
  const F = CONV_FILTER[opts.filterLayout ?? 'oihw'](inp.filter.shape);
  const g = opts.groups ?? 1;
  const [pt, , pl] = opts.padding ?? [0, 0, 0, 0];
  const [pb, pr] = [(opts.padding ?? [0, 0, 0, 0])[1], (opts.padding ?? [0, 0, 0, 0])[3]];
  const [sh, sw] = opts.strides ?? [1, 1];
  const [dh, dw] = opts.dilations ?? [1, 1];
  const OH = Math.floor((X.H - ((F.KH - 1) * dh + 1) + pt + pb) / sh) + 1;
  const OW = Math.floor((X.W - ((F.KW - 1) * dw + 1) + pl + pr) / sw) + 1;
  const shape = outShape(il, X.N, F.O, OH, OW);
  const O = IN_IDX[il](shape);
  const vals = new Array(X.N * F.O * OH * OW);
  const bias = opts.bias ? inp[opts.bias].values : null;
  for (let n = 0; n < X.N; n++) for (let o = 0; o < F.O; o++) for (let y = 0; y < OH; y++) for (let x = 0; x < OW; x++) {
    const acc = dsum();
    if (bias) acc.add(bias[o]);
    const grp = Math.floor(o / (F.O / g));
    for (let i = 0; i < F.I; i++) for (let kh = 0; kh < F.KH; kh++) for (let kw = 0; kw < F.KW; kw++) {
      const ih = y * sh - pt + kh * dh, iw = x * sw - pl + kw * dw;
      if (ih < 0 || ih >= X.H || iw < 0 || iw >= X.W) continue;
      acc.add(inp.input.values[X.at(n, grp * F.I + i, ih, iw)] * inp.filter.values[F.at(o, i, kh, kw)]);
    }
    vals[O.at(n, o, y, x)] = acc;
  }
  return { shape, vals };
}

function convTransposeNaive(inp, opts) {
  const il = opts.inputLayout ?? 'nchw';
  const X = IN_IDX[il](inp.input.shape);
  const F = CONVT_FILTER[opts.filterLayout ?? 'iohw'](inp.filter.shape);
  const g = opts.groups ?? 1;
  const pad = opts.padding ?? [0, 0, 0, 0];
  const [sh, sw] = opts.strides ?? [1, 1];
  const [dh, dw] = opts.dilations ?? [1, 1];
  const op = opts.outputPadding ?? [0, 0];
  let OH = (X.H - 1) * sh + (F.KH - 1) * dh + 1 - pad[0] - pad[1] + op[0];
  let OW = (X.W - 1) * sw + (F.KW - 1) * dw + 1 - pad[2] - pad[3] + op[1];
  if (opts.outputSizes) [OH, OW] = opts.outputSizes;
  const Cout = F.O * g;
  const Ig = X.C / g;
  const shape = outShape(il, X.N, Cout, OH, OW);
  const O = IN_IDX[il](shape);
  const bias = opts.bias ? inp[opts.bias].values : null;
  const vals = new Array(X.N * Cout * OH * OW);
  for (let n = 0; n < X.N; n++) for (let oc = 0; oc < Cout; oc++) for (let y = 0; y < OH; y++) for (let x = 0; x < OW; x++) {
    const acc = dsum();
    if (bias) acc.add(bias[oc]);
    const grp = Math.floor(oc / F.O), o = oc % F.O;
    for (let ic = grp * Ig; ic < (grp + 1) * Ig; ic++) for (let kh = 0; kh < F.KH; kh++) for (let kw = 0; kw < F.KW; kw++) {
      const ty = y + pad[0] - kh * dh, tx = x + pad[2] - kw * dw;
      if (ty < 0 || tx < 0 || ty % sh !== 0 || tx % sw !== 0) continue;
      const ih = ty / sh, iw = tx / sw;
      if (ih >= X.H || iw >= X.W) continue;
      acc.add(inp.input.values[X.at(n, ic, ih, iw)] * inp.filter.values[F.at(ic, o, kh, kw)]);
    }
    vals[O.at(n, oc, y, x)] = acc;
  }
  return { shape, vals };
}

function poolNaive(op, inp, opts) {
  const layout = opts.layout ?? 'nchw';
  const X = IN_IDX[layout](inp.input.shape);
  const win = opts.windowDimensions ?? [X.H, X.W];
  const pad = opts.outputSizes ? [0, 0, 0, 0] : opts.padding ?? [0, 0, 0, 0];
  const [sh, sw] = opts.strides ?? [1, 1];
  const [dh, dw] = opts.dilations ?? [1, 1];
  const ceil = (opts.outputShapeRounding ?? opts.roundingType) === 'ceil';
  const size = (i, k, a, b, s, d) => {
    const v = (i - ((k - 1) * d + 1) + a + b) / s + 1;
    return ceil ? Math.ceil(v) : Math.floor(v);
  };
  let OH = size(X.H, win[0], pad[0], pad[1], sh, dh), OW = size(X.W, win[1], pad[2], pad[3], sw, dw);
  if (opts.outputSizes) [OH, OW] = opts.outputSizes;
  const shape = outShape(layout, X.N, X.C, OH, OW);
  const O = IN_IDX[layout](shape);
  const vals = new Array(X.N * X.C * OH * OW);
  for (let n = 0; n < X.N; n++) for (let c = 0; c < X.C; c++) for (let y = 0; y < OH; y++) for (let x = 0; x < OW; x++) {
    const w = [];
    for (let kh = 0; kh < win[0]; kh++) for (let kw = 0; kw < win[1]; kw++) {
      const ih = y * sh - pad[0] + kh * dh, iw = x * sw - pad[2] + kw * dw;
      if (ih >= 0 && ih < X.H && iw >= 0 && iw < X.W) w.push(inp.input.values[X.at(n, c, ih, iw)]);
    }
    let r;
    // A window of no element: open for maxPool2d and averagePool2d (NaN in the case data,
    // marked implementation-defined), 0 for l2Pool2d.
    if (op === 'maxPool2d') r = { exact: w.length === 0 ? NaN : w.reduce((a, b) => (b > a ? b : a)) };
    else if (op === 'averagePool2d') {
      const acc = dsum();
      w.forEach((v) => acc.add(v));
      r = { s: acc.s / w.length, m: acc.m / w.length };
    } else {
      const acc = dsum();
      w.forEach((v) => acc.add(v * v));
      r = { s: Math.sqrt(acc.s), m: Math.sqrt(acc.m) };
    }
    vals[O.at(n, c, y, x)] = r;
  }
  return { shape, vals };
}

function resampleNaive(inp, opts, dtype) {
  const x = inp.input;
  const axes = opts.axes ?? [2, 3];
  const shape = [...x.shape];
  for (let i = 0; i < 2; i++) {
    shape[axes[i]] = opts.sizes ? opts.sizes[i] : Math.floor(x.shape[axes[i]] * Math.fround((opts.scales ?? [1, 1])[i]));
  }
  const st = [1, 1, 1, 1];
  for (let d = 2; d >= 0; d--) st[d] = st[d + 1] * x.shape[d + 1];
  const linear = opts.mode === 'linear';
  const coord = (o, inS, outS) => {
    const c = ((o + 0.5) * inS) / outS - 0.5; // = (o + 0.5) / scale - 0.5 with scale = outS / inS
    return Math.min(Math.max(c, 0), inS - 1);
  };
  const vals = [];
  const n = shape.reduce((a, b) => a * b, 1);
  for (let f = 0; f < n; f++) {
    const idx = [0, 0, 0, 0];
    let rem = f;
    for (let d = 3; d >= 0; d--) {
      idx[d] = rem % shape[d];
      rem = (rem - idx[d]) / shape[d];
    }
    const ca = coord(idx[axes[0]], x.shape[axes[0]], shape[axes[0]]);
    const cb = coord(idx[axes[1]], x.shape[axes[1]], shape[axes[1]]);
    const at = (a, b) => {
      const j = [...idx];
      j[axes[0]] = a;
      j[axes[1]] = b;
      return x.values[j.reduce((s, v, d) => s + v * st[d], 0)];
    };
    if (!linear) {
      vals.push({ exact: at(Math.ceil(ca - 0.5), Math.ceil(cb - 0.5)) });
      continue;
    }
    const num = (v) => (typeof v === 'bigint' ? Number(v) : v);
    const a0 = Math.floor(ca), a1 = Math.ceil(ca), b0 = Math.floor(cb), b1 = Math.ceil(cb);
    const ta = ca - a0, tb = cb - b0;
    const v0 = num(at(a0, b0)) * (1 - ta) + num(at(a1, b0)) * ta;
    const v1 = num(at(a0, b1)) * (1 - ta) + num(at(a1, b1)) * ta;
    const r = v0 * (1 - tb) + v1 * tb;
    const m = Math.max(...[at(a0, b0), at(a1, b0), at(a0, b1), at(a1, b1)].map((v) => Math.abs(num(v))));
    vals.push(isFloat(dtype) ? { s: r, m } : { int: r });
  }
  return { shape, vals };
}

// Compare an expected element (generator value) with a naive one.
function agrees(e, a, dtype) {
  if (a.exact !== undefined) {
    if (typeof e === 'bigint') return e === a.exact;
    return Object.is(e, a.exact) || (Number.isNaN(e) && Number.isNaN(a.exact)) || (e === 0 && a.exact === 0);
  }
  if (a.int !== undefined) return Math.abs(Number(e) - a.int) <= 0.5 + 1e-9;
  if (Number.isNaN(a.s) || !Number.isFinite(a.s) || !Number.isFinite(e)) {
    const r = roundTo(dtype, a.s);
    return Object.is(e, r) || (Number.isNaN(e) && Number.isNaN(r));
  }
  const ulp = dtype === 'float16' ? 2 ** -10 : 2 ** -23;
  const tiny = dtype === 'float16' ? 2 ** -24 : 2 ** -149;
  return Math.abs(e - a.s) <= 2 * ulp * Math.max(Math.abs(a.s), 0) + 1e-12 * a.m + tiny;
}

const OPS = ['conv2d', 'convTranspose2d', 'averagePool2d', 'l2Pool2d', 'maxPool2d', 'resample2d'];

function caseChecks(check) {
  const dir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'cases', 'webnn');
  let n = 0;
  for (const op of OPS) {
    const path = join(dir, `${op}.json`);
    if (!existsSync(path)) continue;
    for (const c of JSON.parse(readFileSync(path, 'utf8')).cases) {
      if (c.expectedError) continue;
      n++;
      const inp = {};
      for (const [k, t] of Object.entries(c.graph.inputs)) {
        inp[k] = { shape: t.descriptor.shape, values: expandData(t.data, t.descriptor.dataType, t.descriptor.shape) };
      }
      const opr = c.graph.operators[0];
      const opts = opr.arguments.find((a) => 'options' in a)?.options ?? {};
      const exp = c.graph.expectedOutputs.output;
      const dtype = exp.descriptor.dataType;
      let r;
      if (op === 'conv2d') r = conv2dNaive(inp, opts);
      else if (op === 'convTranspose2d') r = convTransposeNaive(inp, opts);
      else if (op === 'resample2d') r = resampleNaive(inp, opts, dtype);
      else r = poolNaive(op, inp, opts);
      check(JSON.stringify(r.shape) === JSON.stringify(exp.descriptor.shape),
        `${c.name}: naive shape ${r.shape} vs ${exp.descriptor.shape}`);
      const e = expandData(exp.data, dtype, exp.descriptor.shape);
      let bad = 0;
      e.forEach((v, i) => {
        if (!agrees(v, r.vals[i], dtype)) bad++;
      });
      check(bad === 0, `${c.name}: ${bad} element(s) differ from the naive double evaluation`);
    }
  }
  return n;
}

export function windowChecks(check) {
  exactChecks(check);
  const n = caseChecks(check);
  console.log(`window ops: cross-checked ${n} cases against direct double evaluation`);
}
