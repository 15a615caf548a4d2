#!/usr/bin/env node
// Self-test of the NNEF case generator: tensor-file bytes against hand-written vectors, and cross-checks between
// operations that the spec relates (adjoint pairs, the informative deconv forms of multilinear_upsample, box as a
// depth-wise convolution, RoI pooling of the whole map, ...). Run: node tools/casegen/nnef/selftest.mjs

import { makeOps, basicGeometry, fetch } from './ops.mjs';
import { Tensor, T, dyadic, ints, volume, rng, fromFn } from './tensor.mjs';
import { encodeTensor, decodeTensor } from './tensorfile.mjs';

let failures = 0, checks = 0;
function check(cond, what) {
  checks++;
  if (!cond) { failures++; console.log(`FAIL: ${what}`); }
}
const hex = (b) => [...b].map((v) => v.toString(16).padStart(2, '0')).join(' ');
const o = makeOps();
const dot = (a, b) => a.data.reduce((s, v, i) => s + v * b.data[i], 0);
const same = (a, b) => a.shape.join() === b.shape.join() && a.data.every((v, i) => v === b.data[i]);

// ---------------------------------------------------------------------------------------- tensor files
{
  const b = encodeTensor([3], [1, 2, 15], { kind: 'integer', bits: 4, signed: false });
  check(hex(b.subarray(128)) === '12 f0', `4-bit [1,2,15] -> ${hex(b.subarray(128))}`);
  const c = encodeTensor([9], [1, 0, 1, 1, 0, 0, 0, 0, 1], { kind: 'bool', bits: 1 });
  check(hex(c.subarray(128)) === 'b0 80', `1-bit -> ${hex(c.subarray(128))}`);
  const f = encodeTensor([2, 1], [1, -2], { kind: 'float', bits: 32 });
  check(hex(f.subarray(0, 16)) === '4e ef 01 00 08 00 00 00 02 00 00 00 02 00 00 00', `header start ${hex(f.subarray(0, 16))}`);
  check(f.readUInt32LE(16) === 1 && f.readUInt32LE(20) === 0 && f.readUInt32LE(44) === 32 && f.readUInt32LE(48) === 0, 'header fields');
  check(hex(f.subarray(128)) === '00 00 80 3f 00 00 00 c0', `float32 data ${hex(f.subarray(128))}`);
  check(f.length === 136 && f.subarray(52, 128).every((v) => v === 0), 'header zeros');
  const i = encodeTensor([2], [-2, 3], { kind: 'integer', bits: 32, signed: true });
  check(hex(i.subarray(128)) === 'fe ff ff ff 03 00 00 00' && i.readUInt32LE(48) === 1 && i.readUInt32LE(52) === 1, 'int32');
  const h = encodeTensor([2], [1, -65504], { kind: 'float', bits: 16 });
  check(hex(h.subarray(128)) === '00 3c ff fb', `float16 ${hex(h.subarray(128))}`);
  const q = encodeTensor([2], [0, 255], { kind: 'linear', bits: 8, min: -1, max: 1 });
  check(q.readUInt32LE(48) === 0x10 && q.readFloatLE(52) === -1 && q.readFloatLE(56) === 1, 'linear params');
  const r = rng('selftest.bits');
  for (let bits = 1; bits <= 64; bits++) {
    for (const signed of [false, true]) {
      if (signed && bits < 2) continue;
      const lo = signed ? -(2 ** (Math.min(bits, 53) - 1)) : 0;
      const hi = signed ? 2 ** (Math.min(bits, 53) - 1) - 1 : 2 ** Math.min(bits, 53) - 1;
      const vals = Array.from({ length: 13 }, () => Math.floor(lo + r() * (hi - lo + 1)));
      vals[0] = lo; vals[1] = hi;
      const buf = encodeTensor([13], vals, { kind: 'integer', bits, signed });
      check(buf.length === 128 + Math.ceil((13 * bits) / 8), `size for ${bits} bits`);
      const d = decodeTensor(buf);
      check(d.items.every((v, k) => v === vals[k]), `round trip ${bits} bits ${signed ? 'signed' : 'unsigned'}`);
    }
  }
}

// ------------------------------------------------------------------------------------ geometry, borders
{
  const r = rng('selftest.geom');
  for (let n = 0; n < 300; n++) {
    const X = 1 + Math.floor(r() * 12), f = 1 + Math.floor(r() * 4), s = 1 + Math.floor(r() * 3), d = 1 + Math.floor(r() * 2);
    const g = basicGeometry([X], [f], [], [s], [d]);
    check(g.out[0] === Math.ceil(X / s), `auto padding X=${X} f=${f} s=${s} d=${d}`);
  }
  // reflect / reflect-even against explicit mirrored sequences: a b c d -> reflect: ... c b | a b c d | c b ...
  const t = T([4], [10, 20, 30, 40]);
  const get = (i, b) => fetch(t, [i], b).v;
  check([-2, -1, 4, 5].map((i) => get(i, 'reflect')).join() === '30,20,30,20', 'reflect');
  check([-2, -1, 4, 5].map((i) => get(i, 'reflect-even')).join() === '20,10,40,30', 'reflect-even');
  check([-2, 4].map((i) => get(i, 'replicate')).join() === '10,40', 'replicate');
  check(get(-1, 'constant') === 0 && fetch(t, [-1], 'ignore').v === undefined, 'constant/ignore');
}

// --------------------------------------------------------------------------------------- adjoint pairs
{
  const r = rng('selftest.adjoint');
  for (let n = 0; n < 40; n++) {
    const C = 1 + Math.floor(r() * 3), G = [1, C][Math.floor(r() * 2)], c = G * (1 + Math.floor(r() * 2));
    const X = [3 + Math.floor(r() * 5), 3 + Math.floor(r() * 5)];
    const f = [1 + Math.floor(r() * 3), 1 + Math.floor(r() * 3)];
    const s = [1 + Math.floor(r() * 2), 1 + Math.floor(r() * 2)], d = [1 + Math.floor(r() * 2), 1 + Math.floor(r() * 2)];
    const p = [[Math.floor(r() * 2), Math.floor(r() * 2)], [Math.floor(r() * 2), Math.floor(r() * 2)]];
    const fd = f.map((v, k) => (v - 1) * d[k] + 1);
    if (fd.some((v, k) => p[k][0] + X[k] + p[k][1] < v)) continue;
    const x = dyadic(`adj.x${n}`, [1, C, ...X]);
    const w = dyadic(`adj.w${n}`, [c, C / G, ...f]);
    const a = { padding: p, stride: s, dilation: d, groups: G };
    const y = o.conv(x, w, null, a);
    const yy = dyadic(`adj.y${n}`, y.shape);
    const xt = o.deconv(yy, w, null, { ...a, output_shape: x.shape.map((v, k) => (k === 1 ? C : v)) });
    check(xt.shape.join() === x.shape.join() && dot(y, yy) === dot(x, xt), `conv/deconv adjoint #${n}`);
    const size = [1, 1, ...f], full = { padding: [[0, 0], [0, 0], ...p], stride: [1, 1, ...s], dilation: [1, 1, ...d] };
    const bx = o.box(x, { size, ...full });
    const by = dyadic(`adj.by${n}`, bx.shape);
    const bt = o.debox(by, { size, ...full, output_shape: x.shape });
    check(dot(bx, by) === dot(x, bt), `box/debox adjoint #${n}`);
    const idx = ints(`adj.i${n}`, bx.shape, 0, volume(size) - 1);
    const sx = o.sample(x, idx, { size, ...full });
    const sy = dyadic(`adj.sy${n}`, sx.shape);
    const st = o.desample(sy, idx, { size, ...full, output_shape: x.shape });
    check(dot(sx, sy) === dot(x, st), `sample/desample adjoint #${n}`);
    // box over spatial axes = depth-wise conv with an all-ones filter (C channels, groups 0)
    const ones = new Tensor([C, 1, ...f], new Array(C * volume(f)).fill(1));
    check(same(o.conv(x, ones, null, { ...a, groups: 0 }), bx), `box = depth-wise conv of ones #${n}`);
  }
}

// ----------------------------------------------------- multilinear_upsample vs its informative deconv forms
{
  const x = dyadic('ml.x', [1, 2, 3, 4]);
  const C = 2;
  const w1 = [0.25, 0.75, 0.75, 0.25];
  const bil = new Tensor([C, 1, 4, 4], Array.from({ length: C * 16 }, (_, k) => w1[Math.floor((k % 16) / 4)] * w1[k % 4]));
  for (const border of ['replicate', 'constant']) {
    const a = o.multilinear_upsample(x, { factor: [2, 2], method: 'symmetric', border });
    const b = o.deconv(x, bil, null, { stride: [2, 2], padding: [[1, 1], [1, 1]], border, groups: C });
    check(same(a, b), `symmetric multilinear = _bilinear_upsample2x_symmetric (${border})`);
  }
  // asymmetric: the formula output[2k] = in[k], output[2k+1] = (in[k] + in[k+1]) / 2 is the deconv with
  // [0.5, 1, 0.5] and padding (1, 0) (the spec's informative fragment writes (0, 1), which shifts by one).
  const w2 = [0.5, 1, 0.5];
  const lin = new Tensor([C, 1, 3, 3], Array.from({ length: C * 9 }, (_, k) => w2[Math.floor((k % 9) / 3)] * w2[k % 3]));
  for (const border of ['replicate', 'constant']) {
    const a = o.multilinear_upsample(x, { factor: [2, 2], method: 'asymmetric', border });
    const b = o.deconv(x, lin, null, { stride: [2, 2], padding: [[1, 0], [1, 0]], border, groups: C });
    check(same(a, b), `asymmetric multilinear = deconv [0.5,1,0.5] padding (1,0) (${border})`);
  }
  // aligned: the first and last outputs are the first and last inputs.
  const al = o.multilinear_upsample(x, { factor: [3, 3], method: 'aligned' });
  check(al.at([0, 1, 0, 0]) === x.at([0, 1, 0, 0]) && al.at([0, 1, 8, 11]) === x.at([0, 1, 2, 3]), 'aligned corners');
  // nearest up then area down is the identity; nearest down of nearest up too.
  const u = o.nearest_upsample(x, { factor: [2, 3] });
  check(same(o.area_downsample(u, { factor: [2, 3] }), x), 'area_downsample(nearest_upsample) = identity');
  check(same(o.nearest_downsample(u, { factor: [2, 3] }), x), 'nearest_downsample(nearest_upsample) = identity');
}

// ----------------------------------------------------------------------------------------- RoI, matmul
{
  const x = dyadic('roi.x', [2, 3, 4, 6]);
  const rois = T([2, 4], [0, 0, 4, 6, 0, 0, 4, 6]);
  const bi = T([2, 1], [1, 0], 'integer');
  const id = (n) => fromFn([1, 3, 4, 6], ([, c, i, j]) => x.at([n, c, i, j]));
  for (const op of ['avg_roi_pool', 'max_roi_pool']) {
    const y = o[op](x, rois, bi, { output_size: [4, 6] });
    check(same(o.slice(y, { axes: [0], begin: [0], end: [1] }), id(1)) && same(o.slice(y, { axes: [0], begin: [1], end: [2] }), id(0)),
      `${op} of the whole map at full size is the identity`);
  }
  // roi_resample of an integer-aligned RoI at its own size samples pixel centres exactly (symmetric).
  const rr = o.roi_resample(x, T([1, 4], [1, 2, 3, 5]), T([1, 1], [0], 'integer'), { output_size: [2, 3] });
  check(same(rr, fromFn([1, 3, 2, 3], ([, c, i, j]) => x.at([0, c, 1 + i, 2 + j]))), 'roi_resample at RoI size = crop');
  const A = dyadic('mm.a', [2, 3, 4]), B = dyadic('mm.b', [2, 4, 5]);
  const ref = o.matmul(A, B);
  const tA = o.transpose(A, { axes: [0, 2, 1] }), tB = o.transpose(B, { axes: [0, 2, 1] });
  check(same(o.matmul(tA, B, { transposeA: true }), ref) && same(o.matmul(A, tB, { transposeB: true }), ref)
    && same(o.matmul(tA, tB, { transposeA: true, transposeB: true }), ref), 'matmul transposes');
  const sm = o.softmax(dyadic('sm.x', [3, 5]));
  check(o.sum_reduce(sm, { axes: [1] }).data.every((v) => Math.abs(v - 1) < 1e-12), 'softmax rows sum to 1');
  const [m, v] = o.moments(T([1, 4], [1, 2, 3, 6]), { axes: [1] });
  check(m.data[0] === 3 && v.data[0] === 3.5, 'moments');
}

console.log(`${checks - failures} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
