// Self-checks for hiprec.mjs and the activation/softmax/reduction element functions, called from
// selftest.mjs. Each exact or fixed-point result is compared with an independent double-precision formula
// (Math.exp/log/tanh/expm1/log1p, numerics.erf): the correctly rounded value must equal the rounded double
// formula except where the double lies within 2^-40 (relative) of a midpoint of the type, and even there
// be its neighbour at most.

import {
  roundTo, roundF16, f16Bits, f16FromBits, f32Bits, f32FromBits, nextUp, nextDown, isMidpoint, erf, pow2,
} from './numerics.mjs';
import { splitmix64 } from './values.mjs';
import {
  dyadic, dAdd, dMul, dSub, dSign, dInt, roundDyadic, roundRatio, sqrtDyadic, expNonPos, logDyadic, erfFix, fixed,
  ziv,
} from './hiprec.mjs';
import {
  sigmoidEl, tanhEl, softplusEl, softsignEl, geluEl, eluEl, hardSwishEl, hardSigmoidEl, leakyReluEl,
} from './activations.mjs';
import { softmaxRow } from './softmax.mjs';
import { REDUCE } from './reduce.mjs';

// Signed position of a value in the ordered list of the type's values.
function ord(t, v) {
  const b = t === 'float16' ? f16Bits(v) : f32Bits(v);
  const sign = t === 'float16' ? 0x8000 : 0x80000000;
  return b >= sign ? -(b - sign) : b;
}
const ulpDist = (t, a, b) => Math.abs(ord(t, a) - ord(t, b));
const same = (a, b) => Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b)) || (a === 0 && b === 0);

// Is the double d (an approximation with relative error << 2^-40) near a midpoint of the type?
function nearMidpoint(t, d) {
  if (!Number.isFinite(d) || d === 0) return false;
  const r = roundTo(t, d);
  const up = r === Infinity || r === -Infinity ? r : (Math.abs(d) > Math.abs(r) ? (d > 0 ? nextUp(t, r) : nextDown(t, r)) : (d > 0 ? nextDown(t, r) : nextUp(t, r)));
  if (!Number.isFinite(up)) return false;
  const mid = (r + up) / 2;
  return Math.abs(d - mid) <= Math.abs(d) * 2 ** -40 + 2 ** -1000;
}

function compare(check, t, name, x, got, dbl) {
  const want = roundTo(t, dbl);
  if (same(got, want)) return;
  const ok = nearMidpoint(t, dbl) && Number.isFinite(got) && Number.isFinite(want) && ulpDist(t, got, want) <= 1;
  check(ok, `${name}(${x}) ${t}: got ${got}, double formula ${dbl} -> ${want}`);
}

const f32vals = [];
const f16vals = [];
{
  const next = splitmix64(2024);
  for (let i = 0; i < 1500; i++) {
    const r = next();
    const e = Number(r % 40n) - 20; // magnitudes 2^-20 .. 2^20
    const m = Number((r >> 8n) % 1000000n) / 1000000 + 1;
    const s = (r >> 40n) & 1n ? -1 : 1;
    f32vals.push(Math.fround(s * m * 2 ** e));
  }
  f32vals.push(...[1e-45, -1e-45, 3e-45, -1e-38, 1e-30, -88, -103.5, 88.7, 17, -17, 44, -15, 15, 14.9, -14.9].map(Math.fround));
  for (let b = 0; b < 0x7c00; b += 13) f16vals.push(f16FromBits(b), -f16FromBits(b));
}
const vals = (t) => (t === 'float16' ? f16vals : f32vals);

export function hiprecChecks(check) {
  // 1. Dyadic rounding against Math.fround / roundF16 on doubles (every double is a dyadic).
  {
    const next = splitmix64(99);
    const f64 = new Float64Array(1);
    const u64 = new BigUint64Array(f64.buffer);
    for (let i = 0; i < 20000; i++) {
      const r = next();
      u64[0] = (r & 0x800fffffffffffffn) | (BigInt(1023 - 170 + Number(r % 320n)) << 52n);
      const x = f64[0];
      check(Object.is(roundDyadic(dyadic(x), 'float32'), Math.fround(x)), `roundDyadic f32 ${x}`);
      check(Object.is(roundDyadic(dyadic(x), 'float16'), roundF16(x)), `roundDyadic f16 ${x}`);
    }
  }
  // 2. roundRatio: exact against double division where it is exact; nearest-value property otherwise.
  {
    const next = splitmix64(7);
    for (let i = 0; i < 5000; i++) {
      const n = BigInt.asIntN(40, next());
      const k = Number(next() % 200n);
      for (const t of ['float32', 'float16']) {
        check(Object.is(roundRatio(n, 1n << BigInt(k), t), n === 0n ? 0 : roundTo(t, Number(n) * pow2(-k))),
          `roundRatio power of two ${n}/2^${k}`);
      }
      const d = (next() % 100000n) + 1n;
      const N = BigInt.asIntN(50, next());
      for (const t of ['float32', 'float16']) {
        const r = roundRatio(N, d, t);
        if (!Number.isFinite(r) || r === 0) continue;
        // |N/d - r| <= |N/d - neighbour| for both neighbours, exactly (scaled by d * 2^k).
        const dist = (v) => {
          const dv = dyadic(v);
          const diff = dSub({ m: N, e: 0 }, dMul(dv, { m: d, e: 0 }));
          return diff.m < 0n ? { m: -diff.m, e: diff.e } : diff;
        };
        const dr = dist(r);
        const u = nextUp(t, r);
        const dn = nextDown(t, r);
        check(dSign(dSub(dist(u), dr)) >= 0 && dSign(dSub(dist(dn), dr)) >= 0, `roundRatio nearest ${N}/${d} ${t}`);
      }
    }
    // ties to even
    check(roundRatio(3n, 2n, 'float16') === 1.5 && roundRatio(2049n, 1n, 'float16') === 2048 &&
      roundRatio(2051n, 1n, 'float16') === 2052 && roundRatio(-16777217n, 1n, 'float32') === -16777216, 'roundRatio ties');
    check(roundRatio(1n, 1n << 150n, 'float32') === 0 && roundRatio(3n, 1n << 151n, 'float32') === Math.fround(1e-45) &&
      Object.is(roundRatio(-1n, 1n << 150n, 'float32'), -0), 'roundRatio subnormal ties');
    check(roundRatio(1n, 3n, 'float32') === Math.fround(1 / 3) && roundRatio(10n ** 40n, 1n, 'float32') === Infinity, 'roundRatio misc');
  }
  // 3. sqrt: double sqrt rounded to float32/float16 is correctly rounded (53 >= 2p + 2).
  for (const t of ['float32', 'float16']) {
    for (const x of vals(t)) {
      const a = Math.abs(x);
      check(Object.is(sqrtDyadic(dyadic(a), t), roundTo(t, Math.sqrt(a))), `sqrtDyadic ${a} ${t}`);
      const s = dAdd(dMul(dyadic(a), dyadic(a)), dInt(3));
      const sq = sqrtDyadic(s, t);
      check(ulpDist(t, sq, roundTo(t, Math.sqrt(a * a + 3))) <= 1 || !Number.isFinite(sq), `sqrt of sum ${a}`);
    }
  }
  // 4. exp, log and erf in fixed point against the double library / numerics.erf.
  {
    const W = 320;
    for (let x = -700; x <= 0; x += 3.37) {
      const e = Number(expNonPos(fixed(x, W), W)) * 2 ** -320;
      const want = Math.exp(x);
      if (want > 2 ** -250) check(Math.abs(e - want) <= want * 4e-16, `expNonPos(${x}) = ${e}, Math.exp ${want}`);
    }
    check(expNonPos(0n, W) === 1n << 320n, 'exp(0) = 1 exactly');
    for (const x of [1e-300, 1e-10, 0.3, 1, 1.5, 2, 10, 1e10, 3.4e38, 1e300]) {
      const l = Number(logDyadic(dyadic(x), W) >> 200n) * 2 ** -120;
      check(Math.abs(l - Math.log(x)) <= Math.abs(Math.log(x)) * 4e-16 + 1e-300, `logDyadic(${x}) = ${l}`);
    }
    check(logDyadic(dyadic(1), W) === 0n, 'log(1) = 0 exactly');
    for (let z = 0.01; z < 5.9; z += 0.137) {
      const v = Number(erfFix(fixed(z, W), W) >> 200n) * 2 ** -120;
      check(Math.abs(v - erf(z)) <= 2e-16, `erfFix(${z}) = ${v}, erf ${erf(z)}`);
    }
  }
  // 5. Element functions against double formulas.
  const a32 = Math.fround(0.3);
  for (const t of ['float32', 'float16']) {
    const alpha = roundTo(t, 0.3);
    for (const x of vals(t)) {
      compare(check, t, 'sigmoid', x, sigmoidEl(t, x), x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x)));
      compare(check, t, 'tanh', x, tanhEl(t, x), Math.tanh(x));
      compare(check, t, 'softplus', x, softplusEl(t, x), Math.max(x, 0) + Math.log1p(Math.exp(-Math.abs(x))));
      compare(check, t, 'softsign', x, softsignEl(t, x), x / (1 + Math.abs(x)));
      if (x < 0) compare(check, t, 'elu', x, eluEl(t, x, alpha), alpha * Math.expm1(x));
      if (Math.abs(x) < 5) compare(check, t, 'gelu', x, geluEl(t, x), 0.5 * x * (1 + erf(x / Math.SQRT2)));
      if (x < -1) { // the negative tail through erfc: x/2 * erfc(|x|/sqrt2), erfc by a continued fraction
        const z = -x / Math.SQRT2;
        let f = z;
        for (let k = 300; k >= 1; k--) f = z + (k / 2) / f;
        const erfc = Math.exp(-z * z) / Math.sqrt(Math.PI) / f;
        compare(check, t, 'gelu tail', x, geluEl(t, x), 0.5 * x * erfc);
      }
      if (x > -3 && x < 3 && Math.abs(x) > 1e-30) compare(check, t, 'hardSwish', x, hardSwishEl(t, x), x * (x + 3) / 6);
      compare(check, t, 'hardSigmoid', x, hardSigmoidEl(t, x, alpha, roundTo(t, 0.5)), Math.min(Math.max(alpha * x + roundTo(t, 0.5), 0), 1));
      compare(check, t, 'leakyRelu', x, leakyReluEl(t, x, alpha), x < 0 ? alpha * x : x);
    }
  }
  check(a32 === Math.fround(0.3), 'a32');
  // Known values.
  const ms = Math.fround(1e-45);
  check(geluEl('float32', ms) === ms && Object.is(geluEl('float32', -ms), -0), 'gelu(min subnormal)');
  check(hardSwishEl('float32', Math.fround(1e-45)) === Math.fround(1e-45) && Object.is(hardSwishEl('float32', -Math.fround(1e-45)), -0),
    'hardSwish subnormal ties broken by the exact value');
  check(hardSigmoidEl('float32', 673 * 2 ** -25, 24929, 2 ** -60) === Math.fround(0.5 + 2 ** -24), 'hardSigmoid single rounding');
  check(softplusEl('float32', Math.fround(3e38)) === Math.fround(3e38) && sigmoidEl('float32', -1e4) === 0, 'softplus/sigmoid tails');
  check(ziv(() => 0n, 'float32') === 0, 'ziv zero');
  // 6. softmax rows against the double formula; reductions against double formulas.
  {
    const next = splitmix64(31);
    for (let i = 0; i < 300; i++) {
      const n = 1 + Number(next() % 9n);
      const xs = Array.from({ length: n }, () => Math.fround((Number(next() >> 11n) * 2 ** -53 - 0.5) * 40));
      const r = softmaxRow('float32', xs);
      const m = Math.max(...xs);
      const e = xs.map((v) => Math.exp(v - m));
      const s = e.reduce((a, b) => a + b, 0);
      xs.forEach((v, k) => compare(check, 'float32', 'softmax', v, r[k], e[k] / s));
      const lse = REDUCE.reduceLogSumExp('float32', xs);
      compare(check, 'float32', 'reduceLogSumExp', xs.join(), lse, m + Math.log(s));
      const ys = xs.map((v) => Math.abs(v) + 0.5);
      compare(check, 'float32', 'reduceLogSum', ys.join(), REDUCE.reduceLogSum('float32', ys), Math.log(ys.reduce((a, b) => a + b, 0)));
      compare(check, 'float32', 'reduceMean', xs.join(), REDUCE.reduceMean('float32', xs), xs.reduce((a, b) => a + b, 0) / n);
      compare(check, 'float32', 'reduceL2', xs.join(), REDUCE.reduceL2('float32', xs), Math.hypot(...xs));
      compare(check, 'float32', 'reduceProduct', xs.join(), REDUCE.reduceProduct('float32', xs), xs.reduce((a, b) => a * b, 1));
      compare(check, 'float16', 'reduceSum', xs.join(), REDUCE.reduceSum('float16', xs.map(roundF16)), xs.map(roundF16).reduce((a, b) => a + b, 0));
    }
    check(REDUCE.reduceSum('float32', [3.4028234663852886e38, 3.4028234663852886e38, -3.4028234663852886e38]) === 3.4028234663852886e38,
      'exact sum without intermediate overflow');
    check(REDUCE.reduceSum('float32', [1, 2 ** -24, 2 ** -60]) === 1 + 2 ** -23, 'sum rounded once');
    check(Object.is(REDUCE.reduceSum('float32', [-0, -0]), -0) && Object.is(REDUCE.reduceSum('float32', [-0, 0]), 0), 'sum zeros');
    check(REDUCE.reduceLogSumExp('float32', [89, 90]) === Math.fround(90 + Math.log1p(Math.exp(-1))), 'logSumExp without overflow');
  }
  check(f32FromBits(f32Bits(1.5)) === 1.5, 'bits');
}

export { isMidpoint };
