#!/usr/bin/env node
// Self-test of the generator's numerics: node tools/casegen/selftest.mjs (exits 1 on any failure).

import {
  roundF16, roundToFormat, f16FromBits, f16Bits, pow2, bigintToFloat, erf, erfDouble, erfTo,
  convertNumber, maxFinite, isMidpoint, decimalEqualsDouble, roundHalfEvenDouble,
} from './numerics.mjs';
import { splitmix64, expandData, shortestFloat } from './values.mjs';
import { hiprecChecks } from './hiprec_check.mjs';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ratexactChecks } from './ratexact_selftest.mjs';
import { windowChecks } from './winselftest.mjs';
import { datamoveChecks } from './datamove_selftest.mjs';
import { indexingChecks } from './indexing.mjs';

let failures = 0;
let checks = 0;
function check(cond, msg) {
  checks++;
  if (!cond) {
    failures++;
    if (failures <= 30) console.log(`FAIL: ${msg}`);
  }
}
const same = (a, b) => Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b));

// 1. pow2 and Math.pow(2, k) agree (f16FromBits uses Math.pow).
for (let k = -1074; k <= 1023; k++) check(pow2(k) === Math.pow(2, k), `pow2(${k})`);

// 2. Every binary16 bit pattern: decode -> encode -> same bits; decode -> round -> same value.
for (let b = 0; b < 0x10000; b++) {
  const v = f16FromBits(b);
  if (Number.isNaN(v)) {
    check((b & 0x7c00) === 0x7c00 && (b & 0x3ff) !== 0, `NaN pattern ${b.toString(16)}`);
    check(Number.isNaN(roundF16(v)), 'roundF16(NaN)');
    continue;
  }
  check(f16Bits(v) === b, `f16Bits(f16FromBits(0x${b.toString(16)})) = 0x${f16Bits(v).toString(16)}`);
  check(Object.is(roundF16(v), v), `roundF16 not identity on 0x${b.toString(16)}`);
}

// 3. Midpoints between neighbouring float16 values round to the even neighbour; points just inside the
//    midpoint round to the nearer neighbour. Includes the midpoint between 65504 and the 2^16 bound.
for (let b = 0; b <= 0x7bff; b++) {
  for (const s of [1, -1]) {
    const lo = s * f16FromBits(b);
    const hiBits = b + 1; // 0x7c00 = Infinity stands for the 2^16 bound
    const hi = hiBits === 0x7c00 ? s * 65536 : s * f16FromBits(hiBits);
    const mid = (lo + hi) / 2; // exact in double
    const even = (b & 1) === 0 ? lo : s * f16FromBits(hiBits);
    const evenV = hiBits === 0x7c00 && (b & 1) === 1 ? s * Infinity : even;
    const r = roundF16(mid);
    check(same(r, evenV === 0 && s < 0 ? -0 : evenV), `midpoint of 0x${b.toString(16)} (${s}): ${mid} -> ${r}`);
    check(isMidpoint('float16', mid), `isMidpoint(${mid})`);
    // just below/above the midpoint (in magnitude) in double
    const eps = Math.abs(mid) * 2 ** -40 || 2 ** -60;
    const inner = mid - s * eps;
    const outer = mid + s * eps;
    const rlo = roundF16(inner);
    const rhi = roundF16(outer);
    check(same(rlo, lo === 0 && s < 0 ? -0 : lo), `below midpoint of 0x${b.toString(16)}: ${inner} -> ${rlo}`);
    const hiV = hiBits === 0x7c00 ? s * Infinity : hi;
    check(same(rhi, hiV), `above midpoint of 0x${b.toString(16)}: ${outer} -> ${rhi}`);
  }
}

// 4. Named float16 values.
const F16 = [
  [65504, 65504], [65519, 65504], [65519.99, 65504], [65520, Infinity], [-65520, -Infinity], [1e5, Infinity],
  [2 ** -24, 2 ** -24], [6e-8, 2 ** -24], [5.96e-8, 2 ** -24], [2 ** -25, 0], [-(2 ** -25), -0],
  [2 ** -25 + 2 ** -60, 2 ** -24], [3 * 2 ** -26, 2 ** -24], [0.1, 0.0999755859375], [2049, 2048], [2051, 2052],
  [1 + 2 ** -11, 1], [1 + 3 * 2 ** -11, 1 + 2 ** -9], [-0, -0], [NaN, NaN], [Infinity, Infinity], [1e-300, 0],
  [6.1e-5, 1023 * 2 ** -24], [2 ** -14, 2 ** -14],
];
for (const [x, want] of F16) check(same(roundF16(x), want), `roundF16(${x}) = ${roundF16(x)}, want ${want}`);

// 5. The generic rounding for float32 agrees with Math.fround (random doubles, float32 midpoints, edges).
{
  const next = splitmix64(12345);
  const f64 = new Float64Array(1);
  const u64 = new BigUint64Array(f64.buffer);
  for (let i = 0; i < 200000; i++) {
    const r = next();
    // Random bit patterns restricted to exponents around the float32 range.
    const e = 1023 - 160 + Number(r % 300n);
    u64[0] = (r & 0x800fffffffffffffn) | (BigInt(e) << 52n);
    const x = f64[0];
    check(same(roundToFormat(x, 'float32'), Math.fround(x)), `float32 rounding of ${x}`);
    // the float32 midpoint above f (exact in double) must round like Math.fround does
    const f = Math.fround(x);
    if (Number.isFinite(f) && Math.abs(f) < 3e38) {
      const ulp = Math.abs(f) < 2 ** -125 ? 2 ** -149 : 2 ** (Math.floor(Math.log2(Math.abs(f))) - 23);
      const mid = f + ulp / 2;
      check(same(roundToFormat(mid, 'float32'), Math.fround(mid)), `float32 midpoint ${mid}`);
    }
  }
  const edges = [3.4028235677973366e38, 3.4028235677973362e38, 3.4028236e38, 1e-45, 7e-46, 7.006492321624085e-46,
    7.006492321624087e-46, 1.1754942e-38, 1.401298464324817e-45 * 1.5, 16777217, 16777219, -0, 2 ** -150];
  for (const x of edges) check(same(roundToFormat(x, 'float32'), Math.fround(x)), `float32 edge ${x}`);
}

// 6. BigInt -> float rounding.
{
  const next = splitmix64(777);
  for (let i = 0; i < 50000; i++) {
    const n = Number(next() >> 11n) - 2 ** 52; // exact integer in (-2^52, 2^52)
    check(same(bigintToFloat(BigInt(n), 'float32'), Math.fround(n)), `bigint->f32 ${n}`);
    const m = n % 200000;
    check(same(bigintToFloat(BigInt(m), 'float16'), roundF16(m)), `bigint->f16 ${m}`);
  }
  const P = (k) => 2n ** BigInt(k);
  const cases = [
    [P(60) + P(36) + 1n, 'float32', 2 ** 60 + 2 ** 37], // Number() then fround would give 2^60
    [P(60) + P(36), 'float32', 2 ** 60], [P(60) + 3n * P(36), 'float32', 2 ** 60 + 2 ** 38],
    [P(64) - 1n, 'float32', 2 ** 64], [-(P(63)), 'float32', -(2 ** 63)], [P(53) + 1n, 'float32', 2 ** 53],
    [32785n, 'float16', 32800], [32784n, 'float16', 32768], [65519n, 'float16', 65504], [65520n, 'float16', Infinity],
    [-65520n, 'float16', -Infinity], [P(64) - 1n, 'float16', Infinity],
  ];
  for (const [v, t, want] of cases) check(same(bigintToFloat(v, t), want), `bigintToFloat(${v}, ${t})`);
  check(maxFinite('float16') === 65504 && maxFinite('float32') === 3.4028234663852886e38, 'maxFinite');
}

// 7. The spec's cast of numbers (clamp options).
{
  const cases = [
    [2.5, 'int8', 2n], [3.5, 'int8', 4n], [-2.5, 'int8', -2n], [-300, 'int8', -128n], [300, 'int8', 127n],
    [NaN, 'int32', 0n], [-0, 'uint8', 0n], [4000000000, 'uint32', 4000000000n], [-1, 'uint64', 0n],
    [1e30, 'uint64', 2n ** 64n - 1n], [-1e30, 'int64', -(2n ** 63n)], [2n ** 70n, 'int64', 2n ** 63n - 1n],
    [0.1, 'float16', 0.0999755859375], [70000, 'float16', Infinity], [-1e39, 'float32', -Infinity],
    [2n ** 60n + 2n ** 36n + 1n, 'float32', 2 ** 60 + 2 ** 37],
  ];
  for (const [x, t, want] of cases) check(same(convertNumber(x, t), want), `convertNumber(${x}, ${t})`);
  check(roundHalfEvenDouble(-0.4) === 0 && Object.is(roundHalfEvenDouble(-0.4), -0), 'roundHalfEven(-0.4) = -0');
  check(roundHalfEvenDouble(2.5) === 2 && roundHalfEvenDouble(-3.5) === -4 && roundHalfEvenDouble(0.5) === 0,
    'roundHalfEven ties');
}

// 8. erf (fixed-point, correctly rounded) against known values, symmetry, limits, the independent double
//    implementation, and direct rounding to float32/float16.
{
  const known = [
    [0.5, 0.5204998778130465], [1, 0.8427007929497149], [2, 0.9953222650189527], [-3, -0.9999779095030014],
    [0.1, 0.1124629160182849], [1.5, 0.9661051464753108], [2.5, 0.999593047982555], [3.5, 0.9999992569016276],
    [1e-10, 1.1283791670955126e-10],
  ];
  for (const [x, want] of known) check(erf(x) === want, `erf(${x}) = ${erf(x)}, want ${want}`);
  check(erf(Infinity) === 1 && erf(-Infinity) === -1 && Number.isNaN(erf(NaN)), 'erf limits');
  check(Object.is(erf(-0), -0) && erf(6) === 1 && erf(-7) === -1 && erf(5.9) === 0.9999999999999999, 'erf(-0), erf(6)');
  check(erf(1e-300) === 1.1283791670955126e-300, 'erf tiny');
  for (let x = -5.9; x <= 5.9; x += 0.0731) {
    const a = erf(x);
    const b = erfDouble(x);
    check(Math.abs(a - b) <= 2e-15 * Math.abs(a), `erf vs erfDouble at ${x}: ${a} vs ${b}`);
    check(erf(-x) === -a, `erf odd at ${x}`);
    check(erfTo('float32', x) === Math.fround(a) || Math.abs(erfTo('float32', x) - Math.fround(a)) <= 2 ** -23,
      `erfTo float32 at ${x}`);
  }
  for (const x of [1e-45, 6e-8, 0.25, 0.001]) check(erfTo('float16', x) === roundF16(erf(x)), `erfTo f16 ${x}`);
}

// 9. splitmix64 reference outputs (seed 0 -> 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f).
{
  const next = splitmix64(0);
  check(next() === 0xe220a8397b1dcdafn, 'splitmix64(0) #1');
  check(next() === 0x6e789e6aa1b965f4n, 'splitmix64(0) #2');
  check(next() === 0x06c45d188009454fn, 'splitmix64(0) #3');
  const r = expandData({ random: { seed: 0, distribution: 'uniform', min: 0, max: 1 } }, 'float32', [1]);
  check(r[0] === Math.fround(Number(0xe220a8397b1dcdafn >> 11n) * 2 ** -53), 'uniform from splitmix');
  const ints = expandData({ random: { seed: 3, distribution: 'uniform', min: -5, max: 5 } }, 'int32', [1000]);
  check(ints.every((v) => v >= -5n && v <= 5n), 'integer uniform in range');
  check(new Set(ints.map(String)).size === 11, 'integer uniform hits every value');
  const rg = expandData({ range: { start: 0.1, step: 0.1 } }, 'float32', [4]);
  check(rg[2] === Math.fround(0.1 + 2 * 0.1), 'range: start + i*step in double');
}

// 10. Decimal / midpoint helpers and output encoding.
{
  check(decimalEqualsDouble('2049', 2049) && decimalEqualsDouble('1.00048828125', 1.00048828125), 'exact decimals');
  check(!decimalEqualsDouble('0.1', 0.1) && decimalEqualsDouble('-0.5', -0.5), 'inexact decimal');
  check(isMidpoint('float16', 2049) && !isMidpoint('float16', 2048) && isMidpoint('float16', 65520), 'midpoints');
  check(isMidpoint('float32', 16777217) && !isMidpoint('float32', 0.1), 'float32 midpoints');
  for (let b = 1; b < 0x7c00; b += 7) {
    const v = f16FromBits(b);
    const s = shortestFloat(v, 'float16');
    check(roundF16(Number(String(s))) === v, `shortest float16 for 0x${b.toString(16)}`);
  }
}

// 10b. Exact / fixed-point numerics of the activation, softmax and reduction cases (hiprec_check.mjs).
hiprecChecks(check);

// 11. The generated files (if present): valid JSON, unique names, data lengths equal element counts,
//     every valid case has expected outputs.
{
  const dir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'cases', 'webnn');
  const mine = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
  const names = new Set();
  let n = 0;
  for (const f of mine) {
    const doc = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    if (!String(doc.source || '').startsWith('tools/casegen/gen.mjs')) continue;
    for (const c of doc.cases) {
      n++;
      check(!names.has(c.name), `duplicate case name ${c.name}`);
      names.add(c.name);
      check(c.expectedError || (c.graph.expectedOutputs && Object.keys(c.graph.expectedOutputs).length > 0),
        `${c.name}: no expected outputs`);
      for (const t of [...Object.values(c.graph.inputs), ...Object.values(c.graph.expectedOutputs || {})]) {
        if (Array.isArray(t.data)) {
          const count = t.descriptor.shape.reduce((a, d) => a * d, 1);
          check(t.data.length === count, `${c.name}: data length ${t.data.length} != ${count}`);
        }
      }
    }
  }
  console.log(`checked ${n} generated cases in ${mine.length} files`);
}

// 12. Exact rationals, sqrt-expression rounding and the matrix/normalization/quantization evaluators.
ratexactChecks(check);

// 13. conv2d / convTranspose2d / pooling / resample2d: exact rounding helpers and an independent re-evaluation.
windowChecks(check);

// 14. gather/scatter/argMin/argMax/cumulativeSum: the spec's worked examples and cross-checks (indexing.mjs).
indexingChecks(check);

// 15. Data movement (reshape ... triangular): a second implementation and the spec's examples.
datamoveChecks(check);

console.log(`${checks} checks, ${failures} failures`);
process.exit(failures ? 1 : 0);
