// Self-test of ratexact.mjs and of the exact evaluation used by the matrix / linear / normalization /
// quantization modules. Called from selftest.mjs with its check(cond, msg) function.

import { roundTo, roundF16, f16FromBits, maxFinite, pow2, nextUp } from './numerics.mjs';
import { splitmix64 } from './values.mjs';
import {
  ratFromDouble as R, ratInt, roundRat, ratRoundHalfEven, roundSqrtExpr, rat, ratDiv, scaled, SCALE,
} from './ratexact.mjs';
import { sumOfProducts } from './familyutil.mjs';
import { normalizeGroup } from './normalization.mjs';
import { quantizeElement } from './quantization.mjs';

const same = (a, b) => Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b));

export function ratexactChecks(check) {
  const next = splitmix64(2024);
  const rnd = () => Number(next() >> 11n) * 2 ** -53;

  // roundRat of small-integer quotients against double division + Math.fround / roundF16 (correct: the
  // quotient of 20-bit integers is never within a double rounding error of a float32/float16 midpoint).
  for (let i = 0; i < 20000; i++) {
    const n = Math.floor(rnd() * 2 ** 20) - 2 ** 19;
    const d = Math.floor(rnd() * 2 ** 20) + 1;
    const q = rat(BigInt(n), BigInt(d));
    check(same(roundRat(q, 'float32'), Math.fround(n / d)), `roundRat ${n}/${d} float32`);
    check(same(roundRat(q, 'float16'), roundF16(n / d)), `roundRat ${n}/${d} float16`);
  }
  // Exact dyadic values round-trip, midpoints tie to even, overflow at max + ulp/2.
  check(roundRat(R(1 + 2 ** -24), 'float32') === 1 && roundRat(R(1 + 3 * 2 ** -24), 'float32') === 1 + 2 ** -22,
    'roundRat float32 ties');
  check(roundRat(R(65520), 'float16') === Infinity && roundRat(R(65519.99), 'float16') === 65504, 'roundRat f16 overflow');
  check(roundRat(R(2 ** -25), 'float16') === 0 && roundRat(R(3 * 2 ** -26), 'float16') === 2 ** -24,
    'roundRat f16 subnormal ties');
  check(Object.is(roundRat(R(-(2 ** -160)), 'float32'), -0), 'roundRat underflow keeps the sign');
  check(scaled(2 ** -149) === 1n << BigInt(SCALE - 149), 'scaled smallest float32 subnormal');

  // Round half to even of rationals.
  const rhe = [[-2.5, -2n], [-3.5, -4n], [-2.4, -2n], [-2.6, -3n], [0.5, 0n], [1.5, 2n], [-0.5, 0n], [7, 7n]];
  for (const [x, want] of rhe) check(ratRoundHalfEven(R(x)) === want, `ratRoundHalfEven(${x})`);
  check(ratRoundHalfEven(ratDiv(R(1.75), R(Math.fround(0.1)))) === 17n, 'exact 1.75 / fround(0.1) rounds to 17');

  // b + A sqrt(R): sqrt of float values against Math.sqrt (correctly rounded in double, then to the type).
  for (let i = 0; i < 3000; i++) {
    for (const t of ['float32', 'float16']) {
      const x = roundTo(t, rnd() * 2 ** Math.floor(rnd() * 40 - 20));
      if (x === 0 || !Number.isFinite(x)) continue;
      const { value } = roundSqrtExpr(t, ratInt(0), ratInt(1), R(x));
      check(value === roundTo(t, Math.sqrt(x)), `sqrt(${x}) ${t}: ${value}`);
    }
  }
  // Exact midpoints through the sqrt path: b + A * sqrt(4) = b + 2A.
  const m1 = roundSqrtExpr('float32', R(1), R(2 ** -25), ratInt(4));
  check(m1.value === 1 && !m1.zero, 'sqrt path: midpoint 1 + 2^-24 ties to 1');
  const m2 = roundSqrtExpr('float32', R(1 + 2 ** -23), R(2 ** -25), ratInt(4));
  check(m2.value === 1 + 2 ** -22, 'sqrt path: midpoint 1 + 3 * 2^-24 ties to 1 + 2^-22');
  const m3 = roundSqrtExpr('float16', R(65504), R(8), ratInt(4)); // 65520 = max + ulp/2 -> Infinity
  check(m3.value === Infinity, 'sqrt path: max + ulp/2 overflows');
  const m4 = roundSqrtExpr('float16', R(65504), R(7.5), ratInt(4));
  check(m4.value === 65504, 'sqrt path: below max + ulp/2 stays finite');
  const m5 = roundSqrtExpr('float32', R(-3), R(1.5), ratInt(4));
  check(m5.zero && Object.is(m5.value, 0), 'sqrt path: exact zero');
  const m6 = roundSqrtExpr('float32', R(0), R(-(2 ** -100)), R(2 ** -200));
  check(Object.is(m6.value, -0) && !m6.zero, 'sqrt path: negative underflow gives -0');
  const m7 = roundSqrtExpr('float16', ratInt(0), ratInt(1), ratInt(2)); // sqrt(2) = 1.41421356...
  check(m7.value === roundF16(Math.SQRT2), 'sqrt path: sqrt(2) float16');

  // Sums of products: exact, rounded once; IEEE special values and zero signs.
  check(sumOfProducts('float32', [[1e8], [1], [-1e8]]) === 1, 'sumOfProducts cancellation');
  check(sumOfProducts('float16', [[2048, 1], [1, 1], [-2048, 1]]) === 1, 'sumOfProducts float16 cancellation');
  check(Number.isNaN(sumOfProducts('float32', [[Infinity, 0], [1, 1]])), 'inf * 0 is NaN');
  check(Number.isNaN(sumOfProducts('float32', [[Infinity, 1], [-Infinity, 1]])), 'inf - inf is NaN');
  check(sumOfProducts('float32', [[Infinity, 2], [3e38, 3e38]]) === Infinity, 'inf plus finite');
  check(Object.is(sumOfProducts('float32', [[-0, 1], [0, -1]]), -0), 'all -0 terms give -0');
  check(Object.is(sumOfProducts('float32', [[-0, 1], [0, 1]]), 0), '-0 + +0 is +0');
  check(Object.is(sumOfProducts('float32', [[1, 1], [-1, 1]]), 0), 'x - x is +0');
  check(sumOfProducts('float32', [[3e38, 2], [-3e38, 1]]) === Math.fround(3e38), 'no intermediate overflow');
  check(sumOfProducts('float16', [[3, 1.0009765625], [-3]]) === 0.0029296875, 'alpha * x + beta rounded once');
  const maxF = maxFinite('float32');
  check(sumOfProducts('float32', [[maxF], [pow2(103)]]) === Infinity, 'max + ulp/2 overflows');
  check(sumOfProducts('float32', [[maxF], [pow2(102)]]) === maxF, 'max + ulp/4 stays at max');

  // Group normalization: a two-element group normalizes to -+1/sqrt(1 + eps/var); constant group with eps 0 is
  // NaN; a non-finite element makes the whole group NaN.
  const g = normalizeGroup('float32', [1, 3], 0, [{}, {}]);
  check(g[0] === -1 && g[1] === 1, 'normalizeGroup [1, 3] eps 0');
  check(normalizeGroup('float32', [2, 2], 0, [{}, {}]).every(Number.isNaN), 'constant group, eps 0: NaN');
  check(normalizeGroup('float32', [1, Infinity, 2], 1e-5, [{}, {}, {}]).every(Number.isNaN), 'inf in group: NaN');
  const e1 = normalizeGroup('float16', [5], roundF16(1e-5), [{ s: 2, b: -0.75 }]);
  check(e1[0] === -0.75, 'single-element group gives the bias');
  const h = normalizeGroup('float32', [0, 1], Math.fround(1e-5), [{}, {}]);
  check(h[1] === Math.fround(0.5 / Math.sqrt(0.25 + Math.fround(1e-5))) && h[0] === -h[1], 'normalizeGroup eps');

  // quantizeElement: exact quotient, ties to even, saturation.
  check(quantizeElement('int8', 1.75, Math.fround(0.1), 0n) === 17n, 'quantize: exact quotient below the tie');
  check(quantizeElement('uint8', -0.5, 1, 0n) === 0n && quantizeElement('int8', 2.5, 1, 0n) === 2n, 'quantize ties');
  check(quantizeElement('int8', 1e9, 1, 0n) === 127n && quantizeElement('uint32', -5, 1, 3n) === 0n,
    'quantize saturates');
  check(quantizeElement('int32', -Infinity, 1, 0n) === -2147483648n, 'quantize -Infinity saturates');
  check(nextUp('float16', 1) === 1 + 2 ** -10 && f16FromBits(0x3c00) === 1, 'numerics helpers in scope');
}
