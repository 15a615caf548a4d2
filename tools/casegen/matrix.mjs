// Cases for matmul and gemm (WebNN §api-mlgraphbuilder-matmul, §api-mlgraphbuilder-gemm).
//
// Every output element is sum_k a*b (gemm: alpha*a*b summed, plus beta*c) computed exactly with BigInt
// (ratexact.mjs) from the inputs as rounded to their type, and rounded once to the output type. alpha and beta
// are first cast to a's type (the spec's gemm steps 5-6). See README.md.

import { FLOAT_TYPES, convertNumber } from './numerics.mjs';
import { broadcastShapes } from './casebuild.mjs';
import {
  T, C, opCase, opError, materialize, elementCount, unravel, strides, sumOfProducts, assertDiffers,
} from './familyutil.mjs';
import { uniform } from './common.mjs';

// Flat index into a (left-padded) broadcast input for an output multi-index.
function bcastFlat(idx, inShape) {
  const off = idx.length - inShape.length;
  const st = strides(inShape);
  let f = 0;
  for (let i = 0; i < inShape.length; i++) f += (inShape[i] === 1 ? 0 : idx[off + i]) * st[i];
  return f;
}

const tv = (t) => ({ shape: t.shape, values: materialize(t) });

// ---------------------------------------------------------------------------------------------------------
// matmul

export function matmulValues(dt, a, b) {
  const ra = a.shape.length, rb = b.shape.length;
  const M = a.shape[ra - 2], K = a.shape[ra - 1], N = b.shape[rb - 1];
  if (b.shape[rb - 2] !== K) throw new Error('matmul: inner dimensions differ');
  const batchA = a.shape.slice(0, -2), batchB = b.shape.slice(0, -2);
  const outBatch = broadcastShapes(batchA, batchB);
  if (!outBatch) throw new Error('matmul: batch not broadcastable');
  const values = [];
  for (let bi = 0; bi < elementCount(outBatch); bi++) {
    const idx = unravel(bi, outBatch);
    const ao = bcastFlat(idx, batchA) * M * K;
    const bo = bcastFlat(idx, batchB) * K * N;
    for (let m = 0; m < M; m++) {
      for (let n = 0; n < N; n++) {
        const terms = [];
        for (let k = 0; k < K; k++) terms.push([a.values[ao + m * K + k], b.values[bo + k * N + n]]);
        values.push(sumOfProducts(dt, terms));
      }
    }
  }
  return { dtype: dt, shape: [...outBatch, M, N], values };
}

function mm(dt, tag, a, b, extra = []) {
  return opCase({
    op: 'matmul', name: `webnn.matmul.${dt}.${tag}`, labels: ['matmul', dt, ...extra],
    inputs: { a, b }, args: [{ a: 'a' }, { b: 'b' }], out: matmulValues(dt, tv(a), tv(b)),
  });
}

const SPECIAL_A = {
  float32: ['Infinity', 1, 'NaN', 2, '-Infinity', 0, 3e38, 3e38, 1, -0, 1e-45, 0.5],
  float16: ['Infinity', 1, 'NaN', 2, '-Infinity', 0, 65504, 65504, 1, -0, 6e-8, 0.5],
};

function matmulCases(dt) {
  const f16 = dt === 'float16';
  const out = [];
  out.push(mm(dt, 'basic_2x3_by_3x4', T(dt, [2, 3], [1, 2, -3, 0.5, -1.5, 4]),
    C(dt, [3, 4], [1, -1, 2, 0.25, 3, 0.5, -2, 1, -1, 4, 0, 2])));
  out.push(mm(dt, 'rank3_same_batch', T(dt, [2, 2, 3], uniform(101, -4, 4)), T(dt, [2, 3, 2], uniform(102, -4, 4)),
    ['batch', 'generator']));
  out.push(mm(dt, 'rank2_by_rank3_broadcast_a', T(dt, [2, 3], [1, -2, 0.5, 3, 0.25, -1]),
    C(dt, [3, 3, 2], uniform(103, -3, 3)), ['batch', 'broadcast', 'generator']));
  out.push(mm(dt, 'rank3_by_rank2_broadcast_b', T(dt, [3, 2, 3], uniform(104, -3, 3)),
    C(dt, [3, 4], [2, -1, 0.5, 1, 0, 3, -2, 0.75, 1.5, -0.5, 1, -3]), ['batch', 'broadcast', 'generator']));
  out.push(mm(dt, 'rank4_batch_ones_broadcast', T(dt, [2, 1, 2, 3], uniform(105, -2, 2)),
    T(dt, [1, 3, 3, 2], uniform(106, -2, 2)), ['batch', 'broadcast', 'generator']));
  out.push(mm(dt, 'rank4_by_rank3_broadcast', T(dt, [2, 1, 2, 3], uniform(107, -2, 2)),
    T(dt, [3, 3, 4], uniform(108, -2, 2)), ['batch', 'broadcast', 'generator']));
  out.push(mm(dt, 'rank5_by_rank4_broadcast', T(dt, [2, 1, 2, 2, 3], uniform(109, -2, 2)),
    C(dt, [3, 1, 3, 2], uniform(110, -2, 2)), ['batch', 'broadcast', 'rank5', 'generator']));
  out.push(mm(dt, 'rank6_batch', T(dt, [2, 1, 2, 1, 2, 2], uniform(111, -2, 2)),
    T(dt, [1, 2, 1, 2, 2, 3], uniform(112, -2, 2)), ['batch', 'broadcast', 'rank6', 'generator']));
  out.push(mm(dt, 'rank3_batch1_by_rank2', T(dt, [1, 2, 2], [1, 2, 3, 4]), T(dt, [2, 2], [0.5, -1, 2, 0.25]),
    ['batch']));
  out.push(mm(dt, 'edge_1x1_by_1x1', T(dt, [1, 1], [-2.5]), C(dt, [1, 1], [3]), ['edge_size']));
  out.push(mm(dt, 'edge_k1_outer_product', T(dt, [3, 1], [1, -2, 0.5]), T(dt, [1, 4], [2, 3, -1, 0.25]),
    ['edge_size']));
  out.push(mm(dt, 'edge_m1', T(dt, [1, 5], [1, 2, 3, 4, 5]), C(dt, [5, 3], uniform(113, -1, 1)),
    ['edge_size', 'generator']));
  out.push(mm(dt, 'edge_n1', T(dt, [4, 5], uniform(114, -1, 1)), C(dt, [5, 1], [1, -1, 2, -2, 0.5]),
    ['edge_size', 'generator']));
  out.push(mm(dt, 'edge_batch_with_m1_n1', T(dt, [3, 1, 4], uniform(115, -2, 2)), T(dt, [3, 4, 1], uniform(116, -2, 2)),
    ['edge_size', 'batch', 'generator']));
  out.push(mm(dt, 'long_k_100', T(dt, [3, 100], uniform(117, -1, 1)), C(dt, [100, 2], uniform(118, -1, 1)),
    ['long_sum', 'generator']));
  out.push(mm(dt, 'long_k_300_wide_range', T(dt, [2, 300], uniform(119, -100, 100)),
    C(dt, [300, 3], uniform(120, -0.01, 0.01)), ['long_sum', 'generator']));
  out.push(mm(dt, 'rank4_random_16', T(dt, [2, 3, 4, 16], uniform(121, -3, 3)), C(dt, [16, 5], uniform(122, -3, 3)),
    ['batch', 'broadcast', 'generator']));
  // Exact cancellation: a naive accumulation in the type loses the small term.
  const big = f16 ? 2048 : 1e8;
  out.push(mm(dt, 'cancellation', T(dt, [2, 3], [big, 1, -big, 1, big, -big]), T(dt, [3, 2], [1, 1, 1, 1, 1, 1]),
    ['cancellation']));
  // Values whose products and sums need rounding.
  out.push(mm(dt, 'rounding', T(dt, [2, 3], f16 ? [0.1, 0.2, 0.3, 1.001, -0.7, 3.3] : [0.1, 0.2, 0.3, 1.0000001, -0.7, 3.3]),
    T(dt, [3, 2], f16 ? [0.3, 0.1, 0.7, -0.9, 1.1, 0.333] : [0.3, 0.1, 0.7, -0.9, 1.1, 0.33333334]), ['rounding']));
  // Special values: inf * finite, inf * 0 = NaN, NaN, inf - inf = NaN, finite overflow of the sum.
  out.push(mm(dt, 'special_values', T(dt, [6, 2], SPECIAL_A[dt]),
    C(dt, [2, 3], [1, 0, -1, 1, 1, 1]), ['special_values']));
  out.push(mm(dt, 'overflow_to_infinity', T(dt, [1, 2], f16 ? [300, 300] : [2e19, 2e19]),
    T(dt, [2, 2], f16 ? [300, -300, 300, -300] : [2e19, -2e19, 2e19, -2e19]), ['overflow']));
  out.push(mm(dt, 'subnormal_results', T(dt, [1, 2], f16 ? [0.001, 0.002] : [1e-20, 2e-20]),
    T(dt, [2, 2], f16 ? [0.001, -0.0005, 0.003, 0.0001] : [1e-20, -5e-21, 3e-20, 1e-21]), ['subnormal']));
  if (!f16) {
    // Zero signs from IEEE addition of the products: -0 only when every product is -0.
    out.push(mm(dt, 'zero_signs', T(dt, [1, 2], [-0, 1]), C(dt, [2, 2], [1, 1, -0, 0]), ['zero_sign']));
  }
  return out;
}

function matmulErrors() {
  const e = (tag, dt, a, b) => opError({
    op: 'matmul', name: `webnn.matmul.${dt}.error.${tag}`, labels: ['matmul', dt], inputs: { a, b },
    args: [{ a: 'a' }, { b: 'b' }],
  });
  const f = 'float32';
  return [
    e('rank1_a', f, T(f, [3], [1, 2, 3]), T(f, [3, 2], [1, 2, 3, 4, 5, 6])),
    e('rank1_b', f, T(f, [2, 3], [1, 2, 3, 4, 5, 6]), T(f, [3], [1, 2, 3])),
    e('rank1_both', 'float16', T('float16', [3], [1, 2, 3]), T('float16', [3], [1, 2, 3])),
    e('rank0_a', f, T(f, [], [2]), T(f, [1, 2], [1, 2])),
    e('inner_dimension_mismatch', f, T(f, [2, 3], [1, 2, 3, 4, 5, 6]), T(f, [2, 3], [1, 2, 3, 4, 5, 6])),
    e('inner_dimension_mismatch_batched', 'float16', T('float16', [2, 2, 3], uniform(1, -1, 1)),
      T('float16', [2, 4, 2], uniform(2, -1, 1))),
    e('batch_not_broadcastable', f, T(f, [2, 2, 3], uniform(3, -1, 1)), T(f, [3, 3, 2], uniform(4, -1, 1))),
    e('batch_not_broadcastable_rank4', f, T(f, [2, 3, 1, 2], uniform(5, -1, 1)), T(f, [3, 2, 2, 1], uniform(6, -1, 1))),
    e('data_type_mismatch', f, T(f, [2, 2], [1, 2, 3, 4]), T('float16', [2, 2], [1, 2, 3, 4])),
    e('int32_operands', 'int32', T('int32', [2, 2], [1, 2, 3, 4]), T('int32', [2, 2], [1, 2, 3, 4])),
    e('int8_operands', 'int8', T('int8', [2, 2], [1, 2, 3, 4]), T('int8', [2, 2], [1, 2, 3, 4])),
    e('uint32_operands', 'uint32', T('uint32', [2, 2], [1, 2, 3, 4]), T('uint32', [2, 2], [1, 2, 3, 4])),
  ];
}

// ---------------------------------------------------------------------------------------------------------
// gemm

// Computes gemm from tensors; opts as written in JSON (alpha/beta doubles, cast here to a's type).
export function gemmValues(dt, a, b, c, opts = {}, { stepwise = false } = {}) {
  const alpha = convertNumber(opts.alpha ?? 1, dt);
  const beta = convertNumber(opts.beta ?? 1, dt);
  const aT = !!opts.aTranspose, bT = !!opts.bTranspose;
  const [M, K] = aT ? [a.shape[1], a.shape[0]] : a.shape;
  const [K2, N] = bT ? [b.shape[1], b.shape[0]] : b.shape;
  if (K !== K2) throw new Error('gemm: inner dimensions differ');
  const A = (m, k) => (aT ? a.values[k * M + m] : a.values[m * K + k]);
  const B = (k, n) => (bT ? b.values[n * K + k] : b.values[k * N + n]);
  const values = [];
  for (let m = 0; m < M; m++) {
    for (let n = 0; n < N; n++) {
      const cv = c ? c.values[bcastFlat([m, n], c.shape)] : undefined;
      if (!stepwise) {
        const terms = [];
        for (let k = 0; k < K; k++) terms.push([alpha, A(m, k), B(k, n)]);
        if (c) terms.push([beta, cv]);
        values.push(sumOfProducts(dt, terms));
      } else {
        // The spec's emulation, every builder op rounded to the type (matmul itself rounded once).
        const terms = [];
        for (let k = 0; k < K; k++) terms.push([sumOfProducts(dt, [[alpha, A(m, k)]]), B(k, n)]);
        const ab = sumOfProducts(dt, terms);
        values.push(c ? sumOfProducts(dt, [[ab], [sumOfProducts(dt, [[beta, cv]])]]) : ab);
      }
    }
  }
  return { dtype: dt, shape: [M, N], values };
}

function gemm(dt, tag, a, b, c, opts, extra = [], { roundsOnce = false } = {}) {
  const inputs = c ? { a, b, c } : { a, b };
  const o = { ...opts };
  if (c) o.c = 'c';
  const args = [{ a: 'a' }, { b: 'b' }];
  if (Object.keys(o).length) args.push({ options: o });
  const name = `webnn.gemm.${dt}.${tag}`;
  const out = gemmValues(dt, tv(a), tv(b), c && tv(c), opts);
  const labels = ['gemm', dt, ...extra];
  if (roundsOnce) {
    assertDiffers(name, out.values, gemmValues(dt, tv(a), tv(b), c && tv(c), opts, { stepwise: true }).values);
    labels.push('rounds_once');
  }
  return opCase({ op: 'gemm', name, labels, inputs, args, out });
}

const C_SHAPES = { none: null, scalar: [], '1': [1], N: ['N'], '1xN': [1, 'N'], Mx1: ['M', 1], MxN: ['M', 'N'], '1x1': [1, 1] };

function gemmCombinations(dt) {
  const out = [];
  const M = 2, K = 3, N = 4;
  let seed = 200;
  for (const aT of [false, true]) {
    for (const bT of [false, true]) {
      for (const ab of ['default_alpha_beta', 'alpha_beta']) {
        for (const [cname, cshape] of Object.entries(C_SHAPES)) {
          seed += 3;
          const a = T(dt, aT ? [K, M] : [M, K], uniform(seed, -2, 2));
          const b = C(dt, bT ? [N, K] : [K, N], uniform(seed + 1, -2, 2));
          const c = cshape && T(dt, cshape.map((d) => (d === 'M' ? M : d === 'N' ? N : d)), uniform(seed + 2, -2, 2));
          const opts = {};
          if (aT) opts.aTranspose = true;
          if (bT) opts.bTranspose = true;
          if (ab === 'alpha_beta') {
            opts.alpha = -1.3;
            opts.beta = 0.7;
          }
          const tag = `a${aT ? 'T' : 'N'}_b${bT ? 'T' : 'N'}.${ab}.c_${cname}`;
          const labels = ['generator'];
          if (aT) labels.push('aTranspose');
          if (bT) labels.push('bTranspose');
          if (ab === 'alpha_beta') labels.push('alpha_beta');
          if (cshape) labels.push(cshape.length === 2 && cname === 'MxN' ? 'c' : 'c_broadcast');
          out.push(gemm(dt, tag, a, b, c, opts, labels));
        }
      }
    }
  }
  return out;
}

function gemmCases(dt) {
  const f16 = dt === 'float16';
  const out = gemmCombinations(dt);
  out.push(gemm(dt, 'basic_no_options', T(dt, [2, 3], [1, 2, 3, 4, 5, 6]), C(dt, [3, 2], [1, -1, 0.5, 2, -2, 0.25]),
    null, {}));
  out.push(gemm(dt, 'square_both_transposed', T(dt, [3, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9]),
    T(dt, [3, 3], [1, 0, -1, 2, 0.5, 0, -1, 1, 3]), T(dt, [3, 3], [0.5, 1, 2, -1, 0, 1, 2, 3, 4]),
    { aTranspose: true, bTranspose: true }, ['aTranspose', 'bTranspose', 'c']));
  // c of shape [N] with M = N broadcasts as a row ([1, N]), not as a column.
  out.push(gemm(dt, 'c_vector_square_broadcasts_as_row', T(dt, [3, 3], [1, 0, 0, 0, 1, 0, 0, 0, 1]),
    T(dt, [3, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9]), T(dt, [3], [10, 20, 30]), {}, ['c_broadcast']));
  out.push(gemm(dt, 'alpha_zero', T(dt, [2, 2], [1, 2, 3, 4]), T(dt, [2, 2], [5, 6, 7, 8]),
    T(dt, [2], [0.5, -1]), { alpha: 0 }, ['alpha_beta', 'c_broadcast']));
  out.push(gemm(dt, 'beta_zero', T(dt, [2, 2], [1, 2, 3, 4]), T(dt, [2, 2], [5, 6, 7, 8]),
    T(dt, [2, 2], [100, -100, 7, 9]), { beta: 0 }, ['alpha_beta', 'c']));
  out.push(gemm(dt, 'beta_without_c', T(dt, [2, 2], [1, 2, 3, 4]), T(dt, [2, 2], [5, 6, 7, 8]), null,
    { alpha: 2, beta: 5 }, ['alpha_beta']));
  out.push(gemm(dt, 'alpha_beta_cast_to_type', T(dt, [2, 2], [1, 3, -2, 5]), T(dt, [2, 2], [7, 1, 3, -1]),
    T(dt, [], [1000]), { alpha: 0.1, beta: 1 / 3 }, ['alpha_beta', 'option_cast', 'c_broadcast']));
  out.push(gemm(dt, 'alpha_beta_negative', T(dt, [3, 2], uniform(301, -4, 4)), T(dt, [2, 3], uniform(302, -4, 4)),
    T(dt, [3, 1], [1, 2, 3]), { alpha: -2, beta: -0.5 }, ['alpha_beta', 'c_broadcast', 'generator']));
  // alpha * a rounded before the product, or beta * c before the sum, changes the result; one rounding does not.
  out.push(gemm(dt, 'rounds_once', T(dt, [1, 1], [f16 ? 1.0009765625 : 1.00000011920928955078125]),
    T(dt, [1, 2], [1, 1]), T(dt, [1, 2], [-1, -1.5]), { alpha: 3, beta: 3 }, ['alpha_beta', 'c'],
  { roundsOnce: true }));
  out.push(gemm(dt, 'rounds_once_random', T(dt, [4, 8], uniform(303, -1, 1)), T(dt, [8, 3], uniform(304, -1, 1)),
    T(dt, [4, 3], uniform(305, -1, 1)), { alpha: 0.3, beta: 1.7 }, ['alpha_beta', 'c', 'generator'],
  { roundsOnce: true }));
  out.push(gemm(dt, 'long_k_64', T(dt, [3, 64], uniform(306, -1, 1)), C(dt, [64, 5], uniform(307, -1, 1)),
    T(dt, [5], uniform(308, -1, 1)), {}, ['long_sum', 'c_broadcast', 'generator']));
  out.push(gemm(dt, 'long_k_200_transposed', T(dt, [200, 2], uniform(309, -8, 8)), C(dt, [3, 200], uniform(310, -1, 1)),
    T(dt, [2, 1], [0.5, -0.5]), { aTranspose: true, bTranspose: true, alpha: 0.25, beta: 2 },
    ['long_sum', 'aTranspose', 'bTranspose', 'alpha_beta', 'c_broadcast', 'generator']));
  out.push(gemm(dt, 'edge_1x1x1', T(dt, [1, 1], [3]), T(dt, [1, 1], [-0.5]), T(dt, [1, 1], [2]),
    { alpha: 2, beta: 0.5 }, ['edge_size', 'alpha_beta', 'c']));
  out.push(gemm(dt, 'edge_k1', T(dt, [3, 1], [1, 2, 3]), T(dt, [1, 4], [1, -1, 0.5, 2]), T(dt, [1, 4], [1, 1, 1, 1]),
    {}, ['edge_size', 'c_broadcast']));
  out.push(gemm(dt, 'edge_k1_transposed', T(dt, [1, 3], [1, 2, 3]), T(dt, [4, 1], [1, -1, 0.5, 2]), null,
    { aTranspose: true, bTranspose: true }, ['edge_size', 'aTranspose', 'bTranspose']));
  out.push(gemm(dt, 'edge_m1_n1', T(dt, [1, 5], [1, 2, 3, 4, 5]), T(dt, [5, 1], [1, -1, 1, -1, 0.5]), T(dt, [], [10]),
    {}, ['edge_size', 'c_broadcast']));
  const big = f16 ? 2048 : 1e8;
  out.push(gemm(dt, 'cancellation_with_c', T(dt, [1, 2], [big, 1]), T(dt, [2, 1], [1, 1]), T(dt, [1, 1], [-big]),
    {}, ['cancellation', 'c']));
  const inf = 'Infinity', nan = 'NaN';
  out.push(gemm(dt, 'special_values', T(dt, [4, 2], [inf, 1, 1, nan, 0, 2, '-Infinity', 1]),
    T(dt, [2, 3], [1, 0, -1, 2, 2, 2]), T(dt, [4, 1], [1, 2, 3, inf]), {}, ['special_values', 'c_broadcast']));
  out.push(gemm(dt, 'special_values_beta_zero_c_infinity', T(dt, [2, 2], [1, 2, 3, 4]), T(dt, [2, 2], [1, 0, 0, 1]),
    T(dt, [2], [inf, 1]), { beta: 0 }, ['special_values', 'alpha_beta', 'c_broadcast']));
  out.push(gemm(dt, 'overflow_to_infinity', T(dt, [1, 2], f16 ? [300, 300] : [2e19, 2e19]),
    T(dt, [2, 2], f16 ? [300, -300, 300, -300] : [2e19, -2e19, 2e19, -2e19]), T(dt, [2], [1, -1]), {},
    ['overflow', 'c_broadcast']));
  if (!f16) {
    out.push(gemm(dt, 'zero_signs', T(dt, [1, 1], [-0]), T(dt, [1, 2], [1, 1]), T(dt, [1, 2], [-0, 0]), {},
      ['zero_sign', 'c']));
  }
  return out;
}

function gemmErrors() {
  const f = 'float32';
  const e = (tag, dt, inputs, opts) => {
    const args = [{ a: 'a' }, { b: 'b' }];
    const o = { ...opts };
    if (inputs.c) o.c = 'c';
    if (Object.keys(o).length) args.push({ options: o });
    return opError({ op: 'gemm', name: `webnn.gemm.${dt}.error.${tag}`, labels: ['gemm', dt], inputs, args });
  };
  const a23 = () => T(f, [2, 3], [1, 2, 3, 4, 5, 6]);
  const b34 = () => T(f, [3, 4], uniform(9, -1, 1));
  return [
    e('a_rank1', f, { a: T(f, [3], [1, 2, 3]), b: b34() }),
    e('a_rank3', f, { a: T(f, [1, 2, 3], [1, 2, 3, 4, 5, 6]), b: b34() }),
    e('b_rank1', f, { a: a23(), b: T(f, [3], [1, 2, 3]) }),
    e('b_rank0', f, { a: a23(), b: T(f, [], [1]) }),
    e('inner_dimension_mismatch', f, { a: a23(), b: T(f, [2, 4], uniform(10, -1, 1)) }),
    e('inner_dimension_mismatch_after_a_transpose', f, { a: a23(), b: b34() }, { aTranspose: true }),
    e('inner_dimension_mismatch_after_b_transpose', f, { a: a23(), b: b34() }, { bTranspose: true }),
    e('c_not_broadcastable_length', f, { a: a23(), b: b34(), c: T(f, [3], [1, 2, 3]) }),
    e('c_not_broadcastable_transposed_shape', f, { a: a23(), b: b34(), c: T(f, [4, 2], uniform(11, -1, 1)) }),
    e('c_not_broadcastable_rows', f, { a: a23(), b: b34(), c: T(f, [3, 1], [1, 2, 3]) }),
    e('c_rank3', f, { a: a23(), b: b34(), c: T(f, [1, 2, 4], uniform(12, -1, 1)) }),
    e('c_data_type_mismatch', f, { a: a23(), b: b34(), c: T('float16', [2, 4], uniform(13, -1, 1)) }),
    e('b_data_type_mismatch', f, { a: a23(), b: T('float16', [3, 4], uniform(14, -1, 1)) }),
    e('a_float16_b_float32', 'float16', { a: T('float16', [2, 3], [1, 2, 3, 4, 5, 6]), b: b34() }),
    e('int32_operands', 'int32', { a: T('int32', [2, 3], [1, 2, 3, 4, 5, 6]), b: T('int32', [3, 1], [1, 2, 3]) }),
    e('uint8_operands', 'uint8', { a: T('uint8', [2, 3], [1, 2, 3, 4, 5, 6]), b: T('uint8', [3, 1], [1, 2, 3]) }),
    e('int64_operands', 'int64', { a: T('int64', [1, 1], [1]), b: T('int64', [1, 1], [1]) }),
  ];
}

export function matrixFiles() {
  const matmul = [];
  const gemmC = [];
  for (const dt of FLOAT_TYPES) {
    matmul.push(...matmulCases(dt));
    gemmC.push(...gemmCases(dt));
  }
  matmul.push(...matmulErrors());
  gemmC.push(...gemmErrors());
  return { matmul, gemm: gemmC };
}
