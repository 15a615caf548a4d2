// Cases for linear (WebNN §api-mlgraphbuilder-linear): y = alpha * x + beta, alpha and beta cast to the input
// type (method steps 4-5), the exact alpha * x + beta rounded once to the type (not the emulation's mul then
// add, each rounded). See README.md.

import { FLOAT_TYPES, convertNumber } from './numerics.mjs';
import { T, C, opCase, opError, materialize, sumOfProducts, assertDiffers } from './familyutil.mjs';
import { uniform } from './common.mjs';

export function linearValues(dt, x, opts = {}, { stepwise = false } = {}) {
  const alpha = convertNumber(opts.alpha ?? 1, dt);
  const beta = convertNumber(opts.beta ?? 0, dt);
  const values = materialize(x).map((v) => (stepwise
    ? sumOfProducts(dt, [[sumOfProducts(dt, [[v, alpha]])], [beta]])
    : sumOfProducts(dt, [[alpha, v], [beta]])));
  return { dtype: dt, shape: x.shape, values };
}

function lin(dt, tag, x, opts, extra = [], { roundsOnce = false } = {}) {
  const name = `webnn.linear.${dt}.${tag}`;
  const args = [{ input: 'x' }];
  if (opts !== undefined) args.push({ options: opts });
  const out = linearValues(dt, x, opts);
  const labels = ['linear', dt, ...extra];
  if (roundsOnce) {
    assertDiffers(name, out.values, linearValues(dt, x, opts, { stepwise: true }).values);
    labels.push('rounds_once');
  }
  return opCase({ op: 'linear', name, labels, inputs: { x }, args, out });
}

const BASIC = [1, -2.5, 0.25, 100, -7, 3.75];

function linearCases(dt) {
  const f16 = dt === 'float16';
  const out = [];
  out.push(lin(dt, 'default_options', T(dt, [2, 3], BASIC), undefined));
  out.push(lin(dt, 'empty_options', T(dt, [2, 3], BASIC), {}));
  out.push(lin(dt, 'alpha_only', T(dt, [2, 3], BASIC), { alpha: 2.5 }));
  out.push(lin(dt, 'beta_only', T(dt, [2, 3], BASIC), { beta: -1.25 }));
  out.push(lin(dt, 'alpha_beta', T(dt, [2, 3], BASIC), { alpha: 0.5, beta: 3 }));
  out.push(lin(dt, 'alpha_negative', T(dt, [2, 3], BASIC), { alpha: -3, beta: 0.5 }));
  out.push(lin(dt, 'alpha_zero', T(dt, [2, 3], BASIC), { alpha: 0, beta: 7 }));
  out.push(lin(dt, 'rank0', C(dt, [], [-1.5]), { alpha: 4, beta: 1 }, ['rank0']));
  out.push(lin(dt, 'rank1', T(dt, [5], [1, 2, 3, 4, 5]), { alpha: -1, beta: 10 }));
  out.push(lin(dt, 'rank4_random', T(dt, [2, 3, 4, 5], uniform(401, -10, 10)), { alpha: 1.5, beta: -2 }, ['generator']));
  out.push(lin(dt, 'rank6_random', T(dt, [2, 1, 2, 3, 1, 2], uniform(402, -5, 5)), { alpha: -0.75, beta: 0.125 },
    ['rank6', 'generator']));
  // 0.1 and 0.2 are not representable: the options are cast to the type before use.
  out.push(lin(dt, 'alpha_beta_cast_to_type', T(dt, [4], [1, 3, 10, 1000]), { alpha: 0.1, beta: 0.2 },
    ['option_cast']));
  out.push(lin(dt, 'alpha_cast_overflow', T(dt, [3], [1, -1, 0]), { alpha: f16 ? 70000 : 1e39 },
    ['option_cast', 'special_values']));
  out.push(lin(dt, 'rounds_once', T(dt, [3], f16 ? [1.0009765625, 1.0029296875, 7.00390625] : [1.00000011920928955078125, 1.00000035762786865234375, 7.0000004768371582]),
    { alpha: 3, beta: -3 }, [], { roundsOnce: true }));
  out.push(lin(dt, 'rounds_once_random', T(dt, [16], uniform(403, -4, 4)), { alpha: 0.3, beta: 0.7 }, ['generator'],
    { roundsOnce: true }));
  // alpha * x overflows the type, alpha * x + beta does not: one rounding of the exact value is finite.
  out.push(lin(dt, 'intermediate_overflow', T(dt, [2], f16 ? [60000, 40000] : [3e38, 2e38]),
    { alpha: 2, beta: f16 ? -65000 : -3e38 }, ['overflow'], { roundsOnce: true }));
  out.push(lin(dt, 'overflow_to_infinity', T(dt, [2], f16 ? [60000, -60000] : [3e38, -3e38]), { alpha: 2, beta: 0 },
    ['overflow']));
  const sp = f16 ? ['NaN', 'Infinity', '-Infinity', -0, 0, 6e-8, 6.1e-5, 65504]
    : ['NaN', 'Infinity', '-Infinity', -0, 0, 1e-45, 1.1754942e-38, 3.4028235e38];
  out.push(lin(dt, 'special_values', T(dt, [sp.length], sp), { alpha: 0.5, beta: 0 }, ['special_values']));
  out.push(lin(dt, 'special_values_alpha_zero', T(dt, [3], ['NaN', 'Infinity', 1]), { alpha: 0, beta: 1 },
    ['special_values']));
  out.push(lin(dt, 'subnormal_results', T(dt, [3], f16 ? [6e-8, 1e-6, 3e-5] : [1e-45, 1e-40, 1e-38]),
    { alpha: 0.75, beta: 0 }, ['subnormal']));
  // alpha * x + beta with the default beta = +0: -0 * 1 + 0 is +0 (linear is not the identity on -0).
  out.push(lin(dt, 'zero_signs_default_options', T(dt, [2], [-0, 0]), undefined, ['zero_sign']));
  return out;
}

function linearErrors() {
  const e = (dt) => opError({
    op: 'linear', name: `webnn.linear.${dt}.error.${dt}_input`, labels: ['linear', dt], inputs: { x: T(dt, [2], [1, 2]) },
    args: [{ input: 'x' }, { options: { alpha: 2 } }],
  });
  return ['int32', 'int8', 'uint32', 'int64'].map(e);
}

export function linearFiles() {
  const cases = [];
  for (const dt of FLOAT_TYPES) cases.push(...linearCases(dt));
  cases.push(...linearErrors());
  return { linear: cases };
}
