// A small float64 interpreter for the operator lists of cases/models (tools/casegen/models.mjs).
//
// It evaluates a case's `graph.operators` from the JSON, written from the WebNN method texts (spec sections
// named per operator), never from the C++ kernels. Four evaluation orders are offered (`MODES`), six for float16
// graphs (`MODES16`):
//
// - `exact`: every value and sum in double, nothing rounded between operators. Its outputs, rounded once to
//   the output type, are the cases' expected values.
// - `typed`: each operator's output rounded to the operand type (float32 or float16), sums in double: what a
//   correctly rounded implementation (the reference) computes.
// - `forward` / `backward`: outputs rounded to the type, and every sum (matmul, conv2d, reductions, softmax,
//   normalization moments) accumulated in float32 one term at a time, first-to-last or last-to-first, each
//   product and partial sum rounded: the plain orders a float32 backend may use (and a float16 backend that
//   accumulates in float32).
// - `forward16` / `backward16` (float16 graphs only, `MODES16`): as forward / backward, but with float16
//   accumulators: each product and partial sum rounded to float16 (roundF16Fast, round half to even). issue 21's
//   error model admits operand-type accumulators, and a GPU backend's float16 matmul and conv2d use them (the
//   vulkan backend's native mode on a device with shaderFloat16, docs/vulkan.md). Which sums are float16 is
//   SUMS16 below: matmul and conv2d, and also softmax's sum, reduceMean and the normalization moments, since a
//   backend computing float16 throughout (TFLite's GPU delegate at F16 precision) keeps those in float16 too.
//
// The spread of the typed orders around `exact` is the measured part of each case's tolerance.

import { roundTo, roundF16Fast, erfDouble } from './numerics.mjs';
import { expandData } from './values.mjs';

export const MODES = ['exact', 'typed', 'forward', 'backward'];
export const MODES16 = [...MODES, 'forward16', 'backward16'];
// The sums the float16-accumulator orders keep in float16; the others accumulate in float32 as in forward /
// backward. 'matmul' covers conv2d too.
export const SUMS16 = new Set(['matmul', 'softmax', 'reduceMean', 'normalization']);

const count = (shape) => shape.reduce((n, d) => n * d, 1);
const strides = (shape) => {
  const s = new Array(shape.length).fill(1);
  for (let i = shape.length - 2; i >= 0; i--) s[i] = s[i + 1] * shape[i + 1];
  return s;
};

function tensor(shape, type, data) {
  return { shape: [...shape], type, data: data ?? new Float64Array(count(shape)) };
}

function makeMode(name) {
  const id = (x) => x;
  const wide = name === 'exact' || name === 'typed';
  const half = name === 'forward16' || name === 'backward16';
  const first = name === 'forward' || name === 'forward16';
  return {
    name,
    wide,
    first,
    round: name === 'exact' ? () => id : (t) => (t === 'float32' || t === 'float16' ? (x) => roundTo(t, x) : id),
    // The accumulator's rounding for a sum of the given kind (null: double).
    acc(kind) {
      if (wide) return null;
      return half && SUMS16.has(kind) ? roundF16Fast : Math.fround;
    },
    // Sum of n terms term(i), of the given kind.
    sum(n, term, kind) {
      let s = 0;
      const r = this.acc(kind);
      if (!r) {
        for (let i = 0; i < n; i++) s += term(i);
      } else if (first) {
        for (let i = 0; i < n; i++) s = r(s + r(term(i)));
      } else {
        for (let i = n - 1; i >= 0; i--) s = r(s + r(term(i)));
      }
      return s;
    },
  };
}

// Numpy-style broadcast of several shapes (§biblio-numpy-broadcasting-rule, "bidirectionally broadcast").
function broadcastShapes(shapes) {
  const rank = Math.max(...shapes.map((s) => s.length));
  const out = [];
  for (let i = 0; i < rank; i++) {
    let d = 1;
    for (const s of shapes) {
      const v = s[s.length - rank + i] ?? 1;
      if (v !== 1) {
        if (d !== 1 && d !== v) throw new Error(`cannot broadcast ${JSON.stringify(shapes)}`);
        d = v;
      }
    }
    out.push(d);
  }
  return out;
}

// Index maps: for each output flat index, the flat index into a tensor of `shape` broadcast to `outShape`.
function broadcastIndex(shape, outShape) {
  const n = count(outShape);
  const os = strides(outShape);
  const is = strides(shape);
  const off = outShape.length - shape.length;
  const map = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let r = i;
    let j = 0;
    for (let d = 0; d < outShape.length; d++) {
      const c = Math.floor(r / os[d]);
      r -= c * os[d];
      if (d >= off && shape[d - off] !== 1) j += c * is[d - off];
    }
    map[i] = j;
  }
  return map;
}

function elementwise(ts, type, fn, rnd) {
  const shape = broadcastShapes(ts.map((t) => t.shape));
  const maps = ts.map((t) => broadcastIndex(t.shape, shape));
  const out = tensor(shape, type);
  const args = new Array(ts.length);
  for (let i = 0; i < out.data.length; i++) {
    for (let k = 0; k < ts.length; k++) args[k] = ts[k].data[maps[k][i]];
    out.data[i] = rnd(fn(...args));
  }
  return out;
}

function unary(x, fn, rnd) {
  const out = tensor(x.shape, x.type);
  for (let i = 0; i < x.data.length; i++) out.data[i] = rnd(fn(x.data[i]));
  return out;
}

// §api-mlgraphbuilder-matmul: [..., M, K] x [..., K, N], batch dimensions broadcast.
function matmul(a, b, mode, rnd) {
  if (a.shape.length < 2 || b.shape.length < 2) throw new Error('matmul rank < 2');
  const [M, K] = a.shape.slice(-2);
  const [K2, N] = b.shape.slice(-2);
  if (K !== K2) throw new Error(`matmul K ${K} != ${K2}`);
  const batch = broadcastShapes([a.shape.slice(0, -2), b.shape.slice(0, -2)]);
  const am = broadcastIndex(a.shape.slice(0, -2), batch);
  const bm = broadcastIndex(b.shape.slice(0, -2), batch);
  const out = tensor([...batch, M, N], a.type);
  const nb = count(batch);
  const r = mode.acc('matmul');
  for (let p = 0; p < nb; p++) {
    const ao = am[p] * M * K;
    const bo = bm[p] * K * N;
    for (let m = 0; m < M; m++) {
      for (let n = 0; n < N; n++) {
        // mode.sum(K, k -> a[m][k] * b[k][n]), written out (this loop is most of the generator's time)
        const ar = ao + m * K;
        const bc = bo + n;
        let s = 0;
        if (!r) {
          for (let k = 0; k < K; k++) s += a.data[ar + k] * b.data[bc + k * N];
        } else if (r === Math.fround) {
          if (mode.first) {
            for (let k = 0; k < K; k++) s = Math.fround(s + Math.fround(a.data[ar + k] * b.data[bc + k * N]));
          } else {
            for (let k = K - 1; k >= 0; k--) s = Math.fround(s + Math.fround(a.data[ar + k] * b.data[bc + k * N]));
          }
        } else if (mode.first) {
          for (let k = 0; k < K; k++) s = r(s + r(a.data[ar + k] * b.data[bc + k * N]));
        } else {
          for (let k = K - 1; k >= 0; k--) s = r(s + r(a.data[ar + k] * b.data[bc + k * N]));
        }
        out.data[(p * M + m) * N + n] = rnd(s);
      }
    }
  }
  return out;
}

// §api-mlgraphbuilder-transpose
function transpose(x, perm) {
  const p = perm ?? x.shape.map((_, i) => x.shape.length - 1 - i);
  const shape = p.map((d) => x.shape[d]);
  const out = tensor(shape, x.type);
  const is = strides(x.shape);
  const os = strides(shape);
  for (let i = 0; i < out.data.length; i++) {
    let r = i;
    let j = 0;
    for (let d = 0; d < shape.length; d++) {
      const c = Math.floor(r / os[d]);
      r -= c * os[d];
      j += c * is[p[d]];
    }
    out.data[i] = x.data[j];
  }
  return out;
}

// §api-mlgraphbuilder-slice (unit strides)
function slice(x, starts, sizes) {
  const out = tensor(sizes, x.type);
  const is = strides(x.shape);
  const os = strides(sizes);
  for (let i = 0; i < out.data.length; i++) {
    let r = i;
    let j = 0;
    for (let d = 0; d < sizes.length; d++) {
      const c = Math.floor(r / os[d]);
      r -= c * os[d];
      j += (c + starts[d]) * is[d];
    }
    out.data[i] = x.data[j];
  }
  return out;
}

// §api-mlgraphbuilder-reverse
function reverse(x, axes) {
  const ax = new Set(axes ?? x.shape.map((_, i) => i));
  const out = tensor(x.shape, x.type);
  const is = strides(x.shape);
  for (let i = 0; i < out.data.length; i++) {
    let r = i;
    let j = 0;
    for (let d = 0; d < x.shape.length; d++) {
      const c = Math.floor(r / is[d]);
      r -= c * is[d];
      j += (ax.has(d) ? x.shape[d] - 1 - c : c) * is[d];
    }
    out.data[i] = x.data[j];
  }
  return out;
}

// §api-mlgraphbuilder-concat
function concat(ts, axis) {
  const shape = [...ts[0].shape];
  shape[axis] = ts.reduce((s, t) => s + t.shape[axis], 0);
  const out = tensor(shape, ts[0].type);
  const outer = count(shape.slice(0, axis));
  const inner = count(shape.slice(axis + 1));
  let o = 0;
  for (let p = 0; p < outer; p++) {
    for (const t of ts) {
      const len = t.shape[axis] * inner;
      for (let k = 0; k < len; k++) out.data[o++] = t.data[p * len + k];
    }
  }
  return out;
}

// §api-mlgraphbuilder-gather
function gather(x, idx, axis) {
  const shape = [...x.shape.slice(0, axis), ...idx.shape, ...x.shape.slice(axis + 1)];
  const out = tensor(shape, x.type);
  const outer = count(x.shape.slice(0, axis));
  const inner = count(x.shape.slice(axis + 1));
  const A = x.shape[axis];
  let o = 0;
  for (let p = 0; p < outer; p++) {
    for (let q = 0; q < idx.data.length; q++) {
      let i = idx.data[q];
      if (i < 0) i += A;
      for (let k = 0; k < inner; k++) out.data[o++] = x.data[(p * A + i) * inner + k];
    }
  }
  return out;
}

// §api-mlgraphbuilder-triangular: keep column - row >= diagonal (upper) or <= diagonal (lower).
function triangular(x, upper, diagonal) {
  const out = tensor(x.shape, x.type);
  const [R, C] = x.shape.slice(-2);
  for (let i = 0; i < x.data.length; i++) {
    const c = i % C;
    const r = Math.floor(i / C) % R;
    const keep = upper ? c - r >= diagonal : c - r <= diagonal;
    out.data[i] = keep ? x.data[i] : 0;
  }
  return out;
}

// Groups of a reduction over `axes`: returns [outShape (kept dims as 1), list of element index lists].
function groups(shape, axes) {
  const red = new Set(axes);
  const keptShape = shape.map((d, i) => (red.has(i) ? 1 : d));
  const n = count(keptShape);
  const list = Array.from({ length: n }, () => []);
  const is = strides(shape);
  const ks = strides(keptShape);
  for (let i = 0; i < count(shape); i++) {
    let r = i;
    let g = 0;
    for (let d = 0; d < shape.length; d++) {
      const c = Math.floor(r / is[d]);
      r -= c * is[d];
      if (!red.has(d)) g += c * ks[d];
    }
    list[g].push(i);
  }
  return [keptShape, list];
}

// §api-mlgraphbuilder-reduce (reduceMean)
function reduceMean(x, axes, keep, mode, rnd) {
  const [kept, list] = groups(x.shape, axes);
  const shape = keep ? kept : x.shape.filter((_, i) => !axes.includes(i));
  const out = tensor(shape, x.type);
  list.forEach((g, k) => {
    out.data[k] = rnd(mode.sum(g.length, (i) => x.data[g[i]], 'reduceMean') / g.length);
  });
  return out;
}

// §api-mlgraphbuilder-softmax-method: exp(x - max) / sum over `axis`.
function softmax(x, axis, mode, rnd) {
  const [, list] = groups(x.shape, [axis]);
  const out = tensor(x.shape, x.type);
  for (const g of list) {
    let m = -Infinity;
    for (const i of g) m = Math.max(m, x.data[i]);
    const e = g.map((i) => Math.exp(x.data[i] - m));
    const s = mode.sum(e.length, (i) => e[i], 'softmax');
    g.forEach((i, k) => {
      out.data[i] = rnd(e[k] / s);
    });
  }
  return out;
}

// mean/variance normalization over the index groups (§api-mlgraphbuilder-layernorm, -instancenorm):
// bias + scale * (x - mean) / sqrt(variance + epsilon), biased variance. scaleAt/biasAt map an element index to
// its scale/bias value.
function normalize(x, list, eps, scaleAt, biasAt, mode, rnd) {
  const out = tensor(x.shape, x.type);
  for (const g of list) {
    const n = g.length;
    const mean = mode.sum(n, (i) => x.data[g[i]], 'normalization') / n;
    const variance = mode.sum(n, (i) => (x.data[g[i]] - mean) ** 2, 'normalization') / n;
    const den = Math.sqrt(variance + eps);
    for (const i of g) out.data[i] = rnd(biasAt(i) + (scaleAt(i) * (x.data[i] - mean)) / den);
  }
  return out;
}

function layerNorm(x, opts, env, mode, rnd) {
  const axes = opts.axes ?? x.shape.map((_, i) => i).slice(1);
  const [, list] = groups(x.shape, axes);
  const eps = roundTo(x.type, opts.epsilon ?? 1e-5);
  const is = strides(x.shape);
  const pos = (i) => {
    // flat index of the element among the normalized axes (scale/bias are shaped like those axes)
    let k = 0;
    for (const a of axes) k = k * x.shape[a] + (Math.floor(i / is[a]) % x.shape[a]);
    return k;
  };
  const scale = opts.scale ? env[opts.scale] : null;
  const bias = opts.bias ? env[opts.bias] : null;
  return normalize(x, list, eps, (i) => (scale ? scale.data[pos(i)] : 1), (i) => (bias ? bias.data[pos(i)] : 0),
    mode, rnd);
}

function instanceNorm(x, opts, env, mode, rnd) {
  if ((opts.layout ?? 'nchw') !== 'nchw') throw new Error('instanceNormalization: nchw only');
  const [, list] = groups(x.shape, [2, 3]);
  const eps = roundTo(x.type, opts.epsilon ?? 1e-5);
  const C = x.shape[1];
  const HW = x.shape[2] * x.shape[3];
  const ch = (i) => Math.floor(i / HW) % C;
  const scale = opts.scale ? env[opts.scale] : null;
  const bias = opts.bias ? env[opts.bias] : null;
  return normalize(x, list, eps, (i) => (scale ? scale.data[ch(i)] : 1), (i) => (bias ? bias.data[ch(i)] : 0),
    mode, rnd);
}

// §api-mlgraphbuilder-conv2d: nchw input, oihw filter, groups, padding [top, bottom, left, right].
function conv2d(x, w, opts, env, mode, rnd) {
  if ((opts.inputLayout ?? 'nchw') !== 'nchw' || (opts.filterLayout ?? 'oihw') !== 'oihw') {
    throw new Error('conv2d: nchw/oihw only');
  }
  const [N, C, H, W] = x.shape;
  const [O, I, KH, KW] = w.shape;
  const [pt, pb, pl, pr] = opts.padding ?? [0, 0, 0, 0];
  const [sh, sw] = opts.strides ?? [1, 1];
  const [dh, dw] = opts.dilations ?? [1, 1];
  const g = opts.groups ?? 1;
  if (C !== I * g) throw new Error('conv2d channels');
  const OH = Math.floor((H + pt + pb - (dh * (KH - 1) + 1)) / sh) + 1;
  const OW = Math.floor((W + pl + pr - (dw * (KW - 1) + 1)) / sw) + 1;
  const bias = opts.bias ? env[opts.bias] : null;
  const out = tensor([N, O, OH, OW], x.type);
  const opg = O / g;
  for (let n = 0; n < N; n++) {
    for (let o = 0; o < O; o++) {
      const c0 = Math.floor(o / opg) * I;
      for (let oh = 0; oh < OH; oh++) {
        for (let ow = 0; ow < OW; ow++) {
          const terms = [];
          for (let c = 0; c < I; c++) {
            for (let kh = 0; kh < KH; kh++) {
              const ih = oh * sh - pt + kh * dh;
              if (ih < 0 || ih >= H) continue;
              for (let kw = 0; kw < KW; kw++) {
                const iw = ow * sw - pl + kw * dw;
                if (iw < 0 || iw >= W) continue;
                terms.push(x.data[((n * C + c0 + c) * H + ih) * W + iw] * w.data[((o * I + c) * KH + kh) * KW + kw]);
              }
            }
          }
          if (bias) terms.push(bias.data[o]);
          out.data[((n * O + o) * OH + oh) * OW + ow] = rnd(mode.sum(terms.length, (i) => terms[i], 'matmul'));
        }
      }
    }
  }
  return out;
}

function reshape(x, shape) {
  if (count(shape) !== x.data.length) throw new Error(`reshape ${x.shape} -> ${shape}`);
  return tensor(shape, x.type, x.data);
}

// §api-mlgraphbuilder-expand (unidirectional broadcast)
function expand(x, shape) {
  const map = broadcastIndex(x.shape, shape);
  const out = tensor(shape, x.type);
  for (let i = 0; i < out.data.length; i++) out.data[i] = x.data[map[i]];
  return out;
}

// Reads a case's graph inputs into tensors (exact element values of their types).
export function readInputs(graph) {
  const env = {};
  for (const [name, t] of Object.entries(graph.inputs)) {
    const v = expandData(t.data, t.descriptor.dataType, t.descriptor.shape);
    env[name] = tensor(t.descriptor.shape, t.descriptor.dataType, Float64Array.from(v, Number));
  }
  return env;
}

// Evaluates the operator list in the given mode; returns the environment of every operand.
export function evaluate(graph, modeName, inputs = readInputs(graph)) {
  const mode = makeMode(modeName);
  const env = { ...inputs };
  for (const op of graph.operators) {
    const a = op.arguments.map((o) => Object.values(o)[0]);
    const get = (v) => {
      if (!(v in env)) throw new Error(`${op.name}: no operand ${v}`);
      return env[v];
    };
    const x = typeof a[0] === 'string' ? get(a[0]) : null;
    const rnd = mode.round(x ? x.type : 'float32');
    const bin = (fn) => elementwise([get(a[0]), get(a[1])], x.type, fn, rnd);
    let y;
    switch (op.name) {
      case 'add': y = bin((p, q) => p + q); break;
      case 'sub': y = bin((p, q) => p - q); break;
      case 'mul': y = bin((p, q) => p * q); break;
      case 'div': y = bin((p, q) => p / q); break;
      case 'pow': y = bin((p, q) => p ** q); break;
      case 'neg': y = unary(x, (v) => -v, rnd); break;
      case 'sqrt': y = unary(x, Math.sqrt, rnd); break;
      case 'tanh': y = unary(x, Math.tanh, rnd); break;
      case 'relu': y = unary(x, (v) => Math.max(v, 0), rnd); break;
      case 'sigmoid': y = unary(x, (v) => 1 / (1 + Math.exp(-v)), rnd); break;
      case 'gelu': y = unary(x, (v) => 0.5 * v * (1 + erfDouble(v / Math.SQRT2)), rnd); break;
      case 'where': {
        const [c, t, f] = [get(a[0]), get(a[1]), get(a[2])];
        y = elementwise([c, t, f], t.type, (cv, tv, fv) => (cv !== 0 ? tv : fv), mode.round(t.type));
        break;
      }
      case 'matmul': y = matmul(x, get(a[1]), mode, rnd); break;
      case 'transpose': y = transpose(x, a[1]?.permutation); break;
      case 'reshape': y = reshape(x, a[1]); break;
      case 'expand': y = expand(x, a[1]); break;
      case 'slice': y = slice(x, a[1], a[2]); break;
      case 'reverse': y = reverse(x, a[1]?.axes); break;
      case 'concat': {
        const ts = a[0].map(get);
        y = concat(ts, a[1]);
        break;
      }
      case 'gather': y = gather(x, get(a[1]), a[2]?.axis ?? 0); break;
      case 'triangular': y = triangular(x, a[1]?.upper ?? true, a[1]?.diagonal ?? 0); break;
      case 'softmax': y = softmax(x, a[1], mode, rnd); break;
      case 'reduceMean': y = reduceMean(x, a[1].axes, a[1].keepDimensions ?? false, mode, rnd); break;
      case 'layerNormalization': y = layerNorm(x, a[1] ?? {}, env, mode, rnd); break;
      case 'instanceNormalization': y = instanceNorm(x, a[1] ?? {}, env, mode, rnd); break;
      case 'conv2d': y = conv2d(x, get(a[1]), a[2] ?? {}, env, mode, rnd); break;
      default: throw new Error(`models_eval: no operator ${op.name}`);
    }
    if (env[op.outputs] !== undefined) throw new Error(`operand ${op.outputs} defined twice`);
    env[op.outputs] = y;
  }
  return env;
}
