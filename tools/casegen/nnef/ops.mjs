// The operations of NNEF 1.0.2 chapter 4, written from the spec text.
//
// makeOps(R) returns every operation. R is applied to each scalar result of a PRIMITIVE (and to each partial
// sum inside one): with R = identity the whole graph is evaluated in double ("exact" mode, the caller rounds the
// outputs once to float32); with R = Math.fround every primitive rounds to float32 as a plain float32
// implementation would ("float32 mode", used only to choose tolerances). Compound operations are written as the
// spec's fragment bodies, so in float32 mode they round after each primitive of the body.

import { Tensor, volume, forEachIndex, fromFn, unflatIndex, flatIndex } from './tensor.mjs';

const id = (x) => x;

// ------------------------------------------------------------------------------------------------------------
// Broadcasting (4.2.2): shapes are aligned at dimension 0 and padded with trailing singleton dimensions.

export function broadcastShape(...shapes) {
  const rank = Math.max(...shapes.map((s) => s.length));
  const out = [];
  for (let k = 0; k < rank; k++) {
    let e = 1;
    for (const s of shapes) {
      const v = k < s.length ? s[k] : 1;
      if (v !== 1) {
        if (e !== 1 && e !== v) throw new Error(`shapes [${shapes.join('] [')}] do not broadcast`);
        e = v;
      }
    }
    out.push(e);
  }
  return out;
}

function bget(t, idx) {
  const sub = t.shape.map((e, k) => (e === 1 ? 0 : idx[k]));
  return t.data[flatIndex(t.shape, sub)];
}

// ------------------------------------------------------------------------------------------------------------
// Sliding-window geometry (4.3 "Output Shape Calculation", "Automatic Padding Calculation").

function fill(arr, n, v) {
  return arr.length === 0 ? new Array(n).fill(v) : arr.slice();
}

export function basicGeometry(inShape, size, padding, stride, dilation) {
  const n = inShape.length;
  if (size.length !== n) throw new Error('size rank');
  const s = fill(stride, n, 1);
  const d = fill(dilation, n, 1);
  const p = [], q = [], out = [];
  for (let k = 0; k < n; k++) {
    const X = inShape[k];
    const fd = (size[k] - 1) * d[k] + 1;
    if (padding.length === 0) {
      const x = Math.ceil(X / s[k]);
      const t = Math.max((x - 1) * s[k] + fd - X, 0);
      p.push(Math.floor(t / 2));
      q.push(Math.ceil(t / 2));
    } else {
      p.push(padding[k][0]);
      q.push(padding[k][1]);
    }
    const num = p[k] + X + q[k] - fd;
    if (num < 0) throw new Error('window larger than padded input');
    out.push(Math.floor(num / s[k]) + 1);
  }
  return { out, p, q, s, d };
}

// Reverse operations: inShape is the down-scaled shape, the result is the up-scaled shape.
export function reverseGeometry(inShape, size, padding, stride, dilation, outputShape) {
  const n = inShape.length;
  const s = fill(stride, n, 1);
  const d = fill(dilation, n, 1);
  const p = [], q = [], out = [];
  for (let k = 0; k < n; k++) {
    const x = inShape[k];
    const fd = (size[k] - 1) * d[k] + 1;
    let X;
    if (padding.length === 0) {
      X = outputShape.length ? outputShape[k] : x * s[k];
      if (!outputShape.length && fd < s[k]) throw new Error('automatic padding with fd < s is avoided');
      // automatic padding is defined by x = ceil(X / s)
      if (Math.ceil(X / s[k]) !== x) throw new Error(`automatic padding: ceil(${X}/${s[k]}) != ${x}`);
      const t = Math.max((x - 1) * s[k] + fd - X, 0);
      p.push(Math.floor(t / 2));
      q.push(Math.ceil(t / 2));
    } else {
      p.push(padding[k][0]);
      q.push(padding[k][1]);
      X = outputShape.length ? outputShape[k] : (x - 1) * s[k] + fd - (p[k] + q[k]);
    }
    // The down-scaled calculation applied to the up-scaled shape must give the input shape.
    if (Math.floor((p[k] + X + q[k] - fd) / s[k]) + 1 !== x) throw new Error(`output_shape ${X} inconsistent in dim ${k}`);
    out.push(X);
  }
  return { out, p, q, s, d };
}

// ------------------------------------------------------------------------------------------------------------
// Border modes (4.3 "Border Modes"), applied per dimension. Returns { v, inside }; for 'ignore' an outside
// position has v = undefined.

export function fetch(t, idx, border, c = 0) {
  const m = new Array(idx.length);
  let inside = true;
  for (let k = 0; k < idx.length; k++) {
    const z = t.shape[k];
    let i = idx[k];
    if (i >= 0 && i < z) { m[k] = i; continue; }
    inside = false;
    switch (border) {
      case 'constant': return { v: c, inside: false };
      case 'ignore': return { v: undefined, inside: false };
      case 'replicate': i = i < 0 ? 0 : z - 1; break;
      case 'reflect': i = i < 0 ? -i : z - 1 - (i - z + 1); break;
      case 'reflect-even': i = i < 0 ? -i - 1 : z - 1 - (i - z); break;
      default: throw new Error(`border ${border}`);
    }
    if (i < 0 || i >= z) throw new Error(`border ${border}: index ${idx[k]} reflects outside extent ${z}`);
    m[k] = i;
  }
  return { v: t.data[flatIndex(t.shape, m)], inside };
}

const mod = (a, b) => ((a % b) + b) % b;

// ------------------------------------------------------------------------------------------------------------

export function makeOps(R = id) {
  const exact = R === id;
  const S = (shape, data) => new Tensor(shape, data.map(R), 'scalar');
  const lit = (v) => (v instanceof Tensor ? v : new Tensor([], [R(v)], 'scalar'));

  const unary = (fn) => (x) => { x = lit(x); return S(x.shape, x.data.map(fn)); };
  function binary(fn, type = 'scalar') {
    return (x, y) => {
      x = lit(x); y = lit(y);
      const shape = broadcastShape(x.shape, y.shape);
      const data = [];
      forEachIndex(shape, (idx) => data.push(fn(bget(x, idx), bget(y, idx))));
      return type === 'scalar' ? S(shape, data) : new Tensor(shape, data, type);
    };
  }
  const logicalT = (v) => (v instanceof Tensor ? v : new Tensor([], [v], 'logical'));

  const o = {};
  // 4.2.1 unary
  o.copy = (x) => new Tensor(x.shape, x.data, x.type);
  o.neg = unary((v) => -v);
  o.rcp = unary((v) => 1 / v);
  o.exp = unary(Math.exp);
  o.log = unary(Math.log);
  o.sin = unary(Math.sin);
  o.cos = unary(Math.cos);
  o.abs = unary((v) => (v >= 0 ? v : -v));
  o.sign = unary((v) => (v > 0 ? 1 : v < 0 ? -1 : 0));
  o.not = (x) => x.map((v) => !v, 'logical');
  o.floor = unary(Math.floor);
  o.ceil = unary(Math.ceil);
  o.round = unary((v) => Math.floor(v + 0.5)); // v + 0.5 is exact in double for float32 v
  // 4.2.2 binary
  o.add = binary((a, b) => a + b);
  o.sub = binary((a, b) => a - b);
  o.mul = binary((a, b) => a * b);
  o.div = binary((a, b) => a / b);
  o.pow = binary((a, b) => Math.pow(a, b));
  o.lt = binary((a, b) => a < b, 'logical');
  o.gt = binary((a, b) => a > b, 'logical');
  o.le = binary((a, b) => a <= b, 'logical');
  o.ge = binary((a, b) => a >= b, 'logical');
  o.eq = binary((a, b) => a === b, 'logical');
  o.ne = binary((a, b) => a !== b, 'logical');
  o.and = (x, y) => binary((a, b) => a && b, 'logical')(logicalT(x), logicalT(y));
  o.or = (x, y) => binary((a, b) => a || b, 'logical')(logicalT(x), logicalT(y));
  // 4.2.3 select (generic: keeps the value type)
  o.select = (c, t, f) => {
    c = logicalT(c);
    t = lit(t); f = lit(f);
    const shape = broadcastShape(c.shape, t.shape, f.shape);
    const data = [];
    forEachIndex(shape, (idx) => data.push(bget(c, idx) ? bget(t, idx) : bget(f, idx)));
    return new Tensor(shape, data, t.type);
  };
  // 4.2.4 simplifiers (compound)
  o.sqr = (x) => o.pow(x, 2.0);
  o.sqrt = (x) => (exact ? unary(Math.sqrt)(x) : o.pow(x, 0.5));
  o.rsqr = (x) => o.pow(x, -2.0);
  o.rsqrt = (x) => (exact ? unary((v) => 1 / Math.sqrt(v))(x) : o.pow(x, -0.5));
  o.log2 = (x) => (exact ? unary(Math.log2)(x) : o.div(o.log(x), o.log(lit(2.0))));
  o.min = (x, y) => o.select(o.lt(x, y), x, y);
  o.max = (x, y) => o.select(o.gt(x, y), x, y);
  o.clamp = (x, a, b) => o.max(o.min(x, b), a);

  // --------------------------------------------------------------------------------------------------------
  // 4.3 sliding-window operations. Sums accumulate in window order with R after every step.

  const sumR = (terms) => terms.reduce((acc, t) => R(acc + t), 0);

  function spatialFull(rank, arr, v) { // spatial-only parameter arrays -> all dims (batch, channel first)
    return arr.length === 0 ? [] : [v, v, ...arr];
  }

  o.conv = (x, w, bias = null, a = {}) => {
    const { border = 'constant', padding = [], stride = [], dilation = [], groups = 1 } = a;
    if (border === 'ignore') throw new Error('conv: ignore border');
    const [B, C] = x.shape;
    const c = w.shape[0];
    const G = groups === 0 ? C : groups;
    const Cg = C / G, cg = c / G;
    if (w.shape[1] !== Cg || !Number.isInteger(cg)) throw new Error('conv: channel mismatch');
    const size = [1, 1, ...w.shape.slice(2)];
    const g = basicGeometry(x.shape, size, spatialFull(x.rank, padding, [0, 0]), spatialFull(x.rank, stride, 1),
      spatialFull(x.rank, dilation, 1));
    const outShape = [B, c, ...g.out.slice(2)];
    const fshape = w.shape.slice(2);
    const data = [];
    forEachIndex(outShape, (oi) => {
      const [b, oc] = oi;
      const grp = Math.floor(oc / cg);
      const terms = [];
      for (let icg = 0; icg < Cg; icg++) {
        forEachIndex(fshape, (j) => {
          const idx = [b, grp * Cg + icg];
          for (let k = 0; k < j.length; k++) idx.push(oi[k + 2] * g.s[k + 2] + j[k] * g.d[k + 2] - g.p[k + 2]);
          terms.push(R(fetch(x, idx, border).v * w.at([oc, icg, ...j])));
        });
      }
      data.push(sumR(terms));
    });
    const y = new Tensor(outShape, data);
    return bias === null ? y : o.add(y, bias);
  };

  o.deconv = (x, w, bias = null, a = {}) => {
    const { border = 'constant', padding = [], stride = [], dilation = [], output_shape = [], groups = 1 } = a;
    const [B, c] = x.shape;
    const G = groups === 0 ? c : groups;
    const cg = c / G;
    const Cg = w.shape[1];
    const C = Cg * G;
    if (w.shape[0] !== c || !Number.isInteger(cg)) throw new Error('deconv: channel mismatch');
    const size = [1, 1, ...w.shape.slice(2)];
    if (output_shape.length && (output_shape[0] !== B || output_shape[1] !== C)) throw new Error('deconv output_shape');
    const g = reverseGeometry(x.shape, size, spatialFull(x.rank, padding, [0, 0]), spatialFull(x.rank, stride, 1),
      spatialFull(x.rank, dilation, 1), output_shape.length ? [x.shape[0], x.shape[1], ...output_shape.slice(2)] : []);
    const outShape = [B, C, ...g.out.slice(2)];
    const fshape = w.shape.slice(2);
    const data = [];
    forEachIndex(outShape, (oi) => {
      const [b, oc] = oi;
      const grp = Math.floor(oc / Cg);
      const terms = [];
      for (let icg = 0; icg < cg; icg++) {
        const ic = grp * cg + icg;
        forEachIndex(fshape, (j) => {
          const idx = [b, ic];
          for (let k = 0; k < j.length; k++) {
            const t = oi[k + 2] + g.p[k + 2] - j[k] * g.d[k + 2];
            if (mod(t, g.s[k + 2]) !== 0) return;
            idx.push(t / g.s[k + 2]);
          }
          terms.push(R(fetch(x, idx, border).v * w.at([ic, oc - grp * Cg, ...j])));
        });
      }
      data.push(sumR(terms));
    });
    const y = new Tensor(outShape, data);
    return bias === null ? y : o.add(y, bias);
  };

  o.box = (x, a) => {
    const { size, border = 'constant', padding = [], stride = [], dilation = [], normalize = false } = a;
    const g = basicGeometry(x.shape, size, padding, stride, dilation);
    const data = [];
    forEachIndex(g.out, (oi) => {
      const terms = [];
      forEachIndex(size, (j) => {
        const f = fetch(x, oi.map((v, k) => v * g.s[k] + j[k] * g.d[k] - g.p[k]), border);
        if (f.v !== undefined) terms.push(f.v);
      });
      if (terms.length === 0) throw new Error('box: empty window');
      const sum = sumR(terms);
      data.push(normalize ? R(sum / (border === 'ignore' ? terms.length : volume(size))) : sum);
    });
    return new Tensor(g.out, data);
  };

  o.debox = (x, a) => {
    const { size, border = 'constant', padding = [], stride = [], dilation = [], output_shape = [], normalize = false } = a;
    if (border === 'ignore' && normalize) throw new Error('debox ignore+normalize avoided');
    const g = reverseGeometry(x.shape, size, padding, stride, dilation, output_shape);
    const data = [];
    forEachIndex(g.out, (oi) => {
      const terms = [];
      forEachIndex(size, (j) => {
        const idx = [];
        for (let k = 0; k < j.length; k++) {
          const t = oi[k] + g.p[k] - j[k] * g.d[k];
          if (mod(t, g.s[k]) !== 0) return;
          idx.push(t / g.s[k]);
        }
        const f = fetch(x, idx, border);
        if (f.v !== undefined) terms.push(f.v);
      });
      const sum = sumR(terms);
      data.push(normalize ? R(sum / volume(size)) : sum);
    });
    return new Tensor(g.out, data);
  };

  // 4.3.3 index based sampling
  o.argmax_pool = (x, a) => {
    const { size, border = 'constant', padding = [], stride = [], dilation = [] } = a;
    const g = basicGeometry(x.shape, size, padding, stride, dilation);
    const data = [];
    forEachIndex(g.out, (oi) => {
      let best = -Infinity, bestJ = -1;
      forEachIndex(size, (j, jf) => {
        const f = fetch(x, oi.map((v, k) => v * g.s[k] + j[k] * g.d[k] - g.p[k]), border);
        if (f.v === undefined) return;
        if (bestJ < 0 || f.v > best) { best = f.v; bestJ = jf; }
      });
      if (bestJ < 0) throw new Error('argmax_pool: empty window');
      data.push(bestJ);
    });
    return new Tensor(g.out, data, 'integer');
  };

  o.sample = (x, index, a) => {
    const { size, border = 'constant', padding = [], stride = [], dilation = [] } = a;
    const g = basicGeometry(x.shape, size, padding, stride, dilation);
    if (g.out.join() !== index.shape.join()) throw new Error('sample: index shape');
    const data = [];
    forEachIndex(g.out, (oi, f) => {
      const j = unflatIndex(size, index.data[f]);
      const v = fetch(x, oi.map((v, k) => v * g.s[k] + j[k] * g.d[k] - g.p[k]), border === 'ignore' ? 'constant' : border).v;
      data.push(v);
    });
    return new Tensor(g.out, data);
  };

  o.desample = (x, index, a) => {
    const { size, border = 'constant', padding = [], stride = [], dilation = [], output_shape = [] } = a;
    if (border !== 'constant') throw new Error('desample border');
    if (x.shape.join() !== index.shape.join()) throw new Error('desample: index shape');
    const g = reverseGeometry(x.shape, size, padding, stride, dilation, output_shape);
    const data = [];
    forEachIndex(g.out, (oi) => {
      const terms = [];
      forEachIndex(size, (j, jf) => {
        const idx = [];
        for (let k = 0; k < j.length; k++) {
          const t = oi[k] + g.p[k] - j[k] * g.d[k];
          if (mod(t, g.s[k]) !== 0) return;
          const u = t / g.s[k];
          if (u < 0 || u >= x.shape[k]) return;
          idx.push(u);
        }
        if (index.at(idx) === jf) terms.push(x.at(idx));
      });
      data.push(sumR(terms));
    });
    return new Tensor(g.out, data);
  };

  // 4.3.4 up and down-sampling
  o.nearest_downsample = (x, { factor }) => {
    const dims = 2 + factor.length;
    return o.box(x, { size: new Array(dims).fill(1), stride: [1, 1, ...factor], padding: new Array(dims).fill([0, 0]) });
  };
  o.area_downsample = (x, { factor }) => {
    const dims = 2 + factor.length;
    return o.box(x, { size: [1, 1, ...factor], stride: [1, 1, ...factor], padding: new Array(dims).fill([0, 0]), normalize: true });
  };
  o.nearest_upsample = (x, { factor }) => {
    const dims = 2 + factor.length;
    return o.debox(x, { size: [1, 1, ...factor], stride: [1, 1, ...factor], padding: new Array(dims).fill([0, 0]) });
  };
  // Multi-linear weights for one dimension: output index i -> [j, u] (u as an exact rational evaluated in double).
  function linearWeights(i, x, f, method) {
    let num, den;
    if (method === 'asymmetric') { num = i; den = f; }
    else if (method === 'symmetric') { num = 2 * i - f + 1; den = 2 * f; }
    else if (method === 'aligned') {
      if (x < 2) throw new Error('aligned with extent 1 avoided');
      num = i * (x - 1); den = x * f - 1;
    } else throw new Error(`method ${method}`);
    const j = Math.floor(num / den);
    return [j, (num - j * den) / den];
  }
  o.multilinear_upsample = (x, { factor, method = 'symmetric', border = 'replicate' }) => {
    let cur = x;
    for (let k = 0; k < factor.length; k++) {
      const ax = k + 2, f = factor[k], xe = cur.shape[ax];
      const outShape = cur.shape.slice();
      outShape[ax] = xe * f;
      const src = cur;
      cur = fromFn(outShape, (oi) => {
        const [j, u] = linearWeights(oi[ax], xe, f, method);
        const at = (jj) => { const idx = oi.slice(); idx[ax] = jj; return fetch(src, idx, border).v; };
        const a = at(j), b = at(j + 1);
        return R(R(R(1 - u) * a) + R(R(u) * b));
      });
    }
    return cur;
  };

  // --------------------------------------------------------------------------------------------------------
  // 4.4 reductions. Multi-axis argmax/argmin give the row-major index within the reduced block.
  function reduce(x, axes, fn, type) {
    const outShape = x.shape.map((e, k) => (axes.includes(k) ? 1 : e));
    const blk = x.shape.map((e, k) => (axes.includes(k) ? e : 1));
    const data = [];
    forEachIndex(outShape, (oi) => {
      const vals = [];
      forEachIndex(blk, (bi) => vals.push(x.at(oi.map((v, k) => v + bi[k]))));
      data.push(fn(vals));
    });
    return new Tensor(outShape, data, type);
  }
  o.sum_reduce = (x, { axes, normalize = false }) =>
    reduce(x, axes, (v) => (normalize ? R(sumR(v) / v.length) : sumR(v)), 'scalar');
  o.max_reduce = (x, { axes }) => reduce(x, axes, (v) => Math.max(...v), 'scalar');
  o.min_reduce = (x, { axes }) => reduce(x, axes, (v) => Math.min(...v), 'scalar');
  o.argmax_reduce = (x, { axes }) => reduce(x, axes, (v) => v.indexOf(Math.max(...v)), 'integer');
  o.argmin_reduce = (x, { axes }) => reduce(x, axes, (v) => v.indexOf(Math.min(...v)), 'integer');
  o.all_reduce = (x, { axes }) => reduce(x, axes, (v) => v.every(Boolean), 'logical');
  o.any_reduce = (x, { axes }) => reduce(x, axes, (v) => v.some(Boolean), 'logical');
  o.mean_reduce = (x, { axes }) => o.sum_reduce(x, { axes, normalize: true });

  // --------------------------------------------------------------------------------------------------------
  // 4.5 shape operations
  o.reshape = (x, { shape, axis_start = 0, axis_count = -1 }) => {
    const cnt = axis_count === -1 ? x.rank - axis_start : axis_count;
    const part = x.shape.slice(axis_start, axis_start + cnt);
    const vol = volume(part);
    let s = shape.map((v, k) => (v === 0 ? part[k] : v));
    const known = s.filter((v) => v !== -1).reduce((a, b) => a * b, 1);
    s = s.map((v) => (v === -1 ? vol / known : v));
    if (volume(s) !== vol || !s.every(Number.isInteger)) throw new Error('reshape volume');
    const ns = [...x.shape.slice(0, axis_start), ...s, ...x.shape.slice(axis_start + cnt)];
    return new Tensor(ns, x.data, x.type);
  };
  o.squeeze = (x, { axes }) => {
    for (const a of axes) if (x.shape[a] !== 1) throw new Error('squeeze non-singleton');
    return new Tensor(x.shape.filter((_, k) => !axes.includes(k)), x.data, x.type);
  };
  o.unsqueeze = (x, { axes }) => {
    const n = x.rank + axes.length;
    const s = [];
    let src = 0;
    for (let k = 0; k < n; k++) s.push(axes.includes(k) ? 1 : x.shape[src++]);
    return new Tensor(s, x.data, x.type);
  };
  o.transpose = (x, { axes }) => {
    const n = axes.length;
    const perm = [...axes, ...x.shape.slice(n).map((_, k) => n + k)];
    const outShape = perm.map((a) => x.shape[a]);
    return fromFn(outShape, (oi) => {
      const ii = new Array(x.rank);
      perm.forEach((a, k) => { ii[a] = oi[k]; });
      return x.at(ii);
    }, x.type);
  };
  const sliceAxis = (x, axis, b, e) => {
    const s = x.shape.slice();
    s[axis] = e - b;
    return fromFn(s, (oi) => { const ii = oi.slice(); ii[axis] += b; return x.at(ii); }, x.type);
  };
  o.split = (x, { axis, ratios }) => {
    const R0 = ratios.reduce((a, b) => a + b, 0);
    const mu = x.shape[axis] / R0;
    if (!Number.isInteger(mu)) throw new Error('split ratios');
    const res = [];
    let start = 0;
    for (const r of ratios) { res.push(sliceAxis(x, axis, start, start + r * mu)); start += r * mu; }
    return res;
  };
  o.concat = (xs, { axis }) => {
    const s = xs[0].shape.slice();
    s[axis] = xs.reduce((a, t) => a + t.shape[axis], 0);
    return fromFn(s, (oi) => {
      let i = oi[axis];
      for (const t of xs) {
        if (i < t.shape[axis]) { const ii = oi.slice(); ii[axis] = i; return t.at(ii); }
        i -= t.shape[axis];
      }
      throw new Error('concat');
    }, xs[0].type);
  };
  o.stack = (xs, { axis }) => o.concat(xs.map((t) => o.unsqueeze(t, { axes: [axis] })), { axis });
  o.unstack = (x, { axis }) => o.split(x, { axis, ratios: new Array(x.shape[axis]).fill(1) }).map((t) => o.squeeze(t, { axes: [axis] }));
  o.slice = (x, { axes, begin, end }) => {
    let cur = x;
    axes.forEach((ax, i) => {
      const n = x.shape[ax];
      let b = begin[i], e = end[i];
      if (b < 0) b += n;
      if (e <= 0) e += n;
      if (!(b >= 0 && e <= n && e > b)) throw new Error('slice range');
      cur = sliceAxis(cur, ax, b, e);
    });
    return cur;
  };
  o.pad = (x, { padding, border = 'constant', value = 0.0 }) => {
    const s = x.shape.map((e, k) => e + padding[k][0] + padding[k][1]);
    return fromFn(s, (oi) => R(fetch(x, oi.map((v, k) => v - padding[k][0]), border, value).v));
  };
  o.tile = (x, { repeats }) => fromFn(x.shape.map((e, k) => e * repeats[k]), (oi) => x.at(oi.map((v, k) => v % x.shape[k])), x.type);

  // --------------------------------------------------------------------------------------------------------
  // 4.6 RoI operations (two spatial dimensions). rois rows are (y0, x0, y1, x1).
  const roundHalfAway = (v) => Math.sign(v) * Math.floor(Math.abs(v) + 0.5);
  function roiPool(x, rois, bidx, outSize, kind) {
    const [, C, H, W] = x.shape;
    const N = rois.shape[0];
    const [pH, pW] = outSize;
    return fromFn([N, C, pH, pW], ([n, ch, i, j]) => {
      const [y0, x0, y1, x1] = [0, 1, 2, 3].map((k) => roundHalfAway(rois.at([n, k])));
      const rH = y1 - y0, rW = x1 - x0;
      const cH = Math.ceil(rH / pH), cW = Math.ceil(rW / pW);
      const sH = Math.floor(rH / pH), sW = Math.floor(rW / pW);
      const b = bidx.at([n, 0]);
      const vals = [];
      for (let yy = y0 + i * sH; yy < y0 + i * sH + cH; yy++)
        for (let xx = x0 + j * sW; xx < x0 + j * sW + cW; xx++) {
          if (yy < 0 || yy >= H || xx < 0 || xx >= W) throw new Error('roi cell outside the map');
          vals.push(x.at([b, ch, yy, xx]));
        }
      if (kind === 'max') return Math.max(...vals);
      return R(sumR(vals) / vals.length);
    });
  }
  o.avg_roi_pool = (x, rois, bidx, { output_size }) => roiPool(x, rois, bidx, output_size, 'avg');
  o.max_roi_pool = (x, rois, bidx, { output_size }) => roiPool(x, rois, bidx, output_size, 'max');
  // roi_resample: the RoI [y0, y1) x [x0, x1) (edge coordinates) is resampled like multilinear upsampling with
  // the non-integer factor f = output / RoI extent: symmetric samples at y0 + (i + 0.5) / f - 0.5, asymmetric
  // at y0 + i / f (input pixel centres at integer coordinates). Sample points stay inside the map.
  o.roi_resample = (x, rois, bidx, { output_size, method = 'symmetric' }) => {
    const [, C, H, W] = x.shape;
    const N = rois.shape[0];
    const [h, w] = output_size;
    return fromFn([N, C, h, w], ([n, ch, i, j]) => {
      const [y0, x0, y1, x1] = [0, 1, 2, 3].map((k) => rois.at([n, k]));
      const pos = (start, extent, count, idx) => {
        const step = extent / count;
        if (method === 'symmetric') return start + (idx + 0.5) * step - 0.5;
        if (method === 'asymmetric') return start + idx * step;
        throw new Error('roi_resample method');
      };
      const py = pos(y0, y1 - y0, h, i), px = pos(x0, x1 - x0, w, j);
      const b = bidx.at([n, 0]);
      const jy = Math.floor(py), uy = py - jy, jx = Math.floor(px), ux = px - jx;
      const g = (yy, xx) => {
        if (yy < 0 || yy >= H || xx < 0 || xx >= W) {
          throw new Error(`roi_resample sample outside the map: ${yy},${xx}`);
        }
        return x.at([b, ch, yy, xx]);
      };
      const gy = (yy) => (ux === 0 ? g(yy, jx) : R(R((1 - ux) * g(yy, jx)) + R(ux * g(yy, jx + 1))));
      return uy === 0 ? gy(jy) : R(R((1 - uy) * gy(jy)) + R(uy * gy(jy + 1)));
    });
  };
  o.avg_roi_align = (x, rois, bidx, { output_size, sampling_rate, resize_method = 'symmetric' }) => {
    const size = output_size.map((v, i) => v * sampling_rate[i]);
    const r = o.roi_resample(x, rois, bidx, { output_size: size, method: resize_method });
    return o.avg_pool(r, { size: [1, 1, ...sampling_rate], stride: [1, 1, ...sampling_rate] });
  };
  o.max_roi_align = (x, rois, bidx, { output_size, sampling_rate, resize_method = 'symmetric' }) => {
    const size = output_size.map((v, i) => v * sampling_rate[i]);
    const r = o.roi_resample(x, rois, bidx, { output_size: size, method: resize_method });
    return o.max_pool(r, { size: [1, 1, ...sampling_rate], stride: [1, 1, ...sampling_rate] });
  };

  // 4.7 matmul (ranks equal, batch dimensions broadcast)
  o.matmul = (A, B, { transposeA = false, transposeB = false } = {}) => {
    const r = A.rank;
    if (B.rank !== r || r < 2) throw new Error('matmul rank');
    const [mA, nA] = A.shape.slice(r - 2), [mB, nB] = B.shape.slice(r - 2);
    const M = transposeA ? nA : mA, K = transposeA ? mA : nA;
    const K2 = transposeB ? nB : mB, N = transposeB ? mB : nB;
    if (K !== K2) throw new Error('matmul inner');
    const batch = broadcastShape(A.shape.slice(0, r - 2), B.shape.slice(0, r - 2));
    const geta = (bi, i, k) => bget(A, [...bi, ...(transposeA ? [k, i] : [i, k])].map((v, d) => (A.shape[d] === 1 ? 0 : v)));
    const getb = (bi, k, j) => bget(B, [...bi, ...(transposeB ? [j, k] : [k, j])].map((v, d) => (B.shape[d] === 1 ? 0 : v)));
    return fromFn([...batch, M, N], (oi) => {
      const bi = oi.slice(0, r - 2), i = oi[r - 2], j = oi[r - 1];
      const terms = [];
      for (let k = 0; k < K; k++) terms.push(R(geta(bi, i, k) * getb(bi, k, j)));
      return sumR(terms);
    });
  };

  // 4.8 update: the result is the new value
  o.update = (v, value) => new Tensor(value.shape, value.data, value.type);

  // --------------------------------------------------------------------------------------------------------
  // 4.9 compound operations, as the spec's fragment bodies.
  o.sigmoid = (x) => o.div(1.0, o.add(1.0, o.exp(o.neg(x))));
  o.relu = (x) => o.max(x, 0.0);
  o.prelu = (x, alpha) => o.select(o.lt(x, 0.0), o.mul(alpha, x), x);
  o.leaky_relu = (x, { alpha }) => o.prelu(x, alpha);
  o.elu = (x) => o.select(o.lt(x, 0.0), o.sub(o.exp(x), 1.0), x);
  o.tanh = (x) => (exact ? unary(Math.tanh)(x)
    : o.div(o.sub(o.exp(x), o.exp(o.neg(x))), o.add(o.exp(x), o.exp(o.neg(x)))));
  o.softmax = (x, { axes = [1] } = {}) => {
    const m = o.max_reduce(x, { axes });
    const e = o.exp(o.sub(x, m));
    return o.div(e, o.sum_reduce(e, { axes }));
  };
  o.softplus = (x) => (exact ? unary((v) => Math.log1p(Math.exp(v)))(x) : o.log(o.add(o.exp(x), 1.0)));
  o.linear = (input, filter, bias = null) => {
    const y = o.matmul(input, filter, { transposeB: true });
    return bias === null ? y : o.add(y, bias);
  };
  o.separable_conv = (x, plane, point, bias = null, a = {}) => {
    const { border = 'constant', padding = [], stride = [], dilation = [], groups = 1 } = a;
    const filtered = o.conv(x, plane, null, { border, padding, stride, dilation, groups: 0 });
    return o.conv(filtered, point, bias, { groups });
  };
  o.separable_deconv = (x, plane, point, bias = null, a = {}) => {
    const { border = 'constant', padding = [], stride = [], dilation = [], output_shape = [], groups = 1 } = a;
    const filtered = o.deconv(x, point, null, { groups });
    return o.deconv(filtered, plane, bias, { border, padding, stride, dilation, output_shape, groups: 0 });
  };
  o.max_pool_with_index = (x, a) => {
    const index = o.argmax_pool(x, a);
    const output = o.sample(x, index, a);
    return [output, index];
  };
  o.max_pool = (x, a) => o.max_pool_with_index(x, a)[0];
  o.avg_pool = (x, a) => o.box(x, { ...a, normalize: true });
  o.rms_pool = (x, a) => o.sqrt(o.avg_pool(o.sqr(x), a));
  o.local_response_normalization = (x, { size, alpha = 1.0, beta = 0.5, bias = 1.0 }) => {
    const sigma = o.add(bias, o.mul(alpha, o.box(o.sqr(x), { size, normalize: true })));
    return o.div(x, o.pow(sigma, beta));
  };
  o.local_mean_normalization = (x, { size }) => o.sub(x, o.box(x, { size, normalize: true }));
  o.local_variance_normalization = (x, { size, bias = 0.0, epsilon = 0.0 }) => {
    const sigma = o.box(o.sqr(x), { size, normalize: true });
    return o.div(x, o.max(o.add(o.sqrt(sigma), bias), epsilon));
  };
  o.local_contrast_normalization = (x, { size, bias = 0.0, epsilon = 0.0 }) =>
    o.local_variance_normalization(o.local_mean_normalization(x, { size }), { size, bias, epsilon });
  o.l1_normalization = (x, { axes, bias = 0.0, epsilon = 0.0 }) => {
    const sigma = o.sum_reduce(o.abs(x), { axes });
    return o.div(x, o.max(o.add(sigma, bias), epsilon));
  };
  o.l2_normalization = (x, { axes, bias = 0.0, epsilon = 0.0 }) => {
    const sigma = o.sum_reduce(o.sqr(x), { axes });
    return o.div(x, o.max(o.add(o.sqrt(sigma), bias), epsilon));
  };
  o.batch_normalization = (x, mean, variance, offset, scale, { epsilon }) =>
    o.add(offset, o.div(o.mul(scale, o.sub(x, mean)), o.sqrt(o.add(variance, epsilon))));
  o.linear_quantize = (x, min, max, { bits }) => {
    const r = 2 ** bits - 1;
    const z = o.clamp(x, min, max);
    const q = o.round(o.mul(o.div(o.sub(z, min), o.sub(max, min)), r));
    return o.add(o.mul(o.div(q, r), o.sub(max, min)), min);
  };
  o.logarithmic_quantize = (x, max, { bits }) => {
    const m = o.ceil(o.log2(max));
    const r = 2 ** bits - 1;
    const q = o.round(o.clamp(o.log2(o.abs(x)), o.sub(m, r), m));
    return o.mul(o.sign(x), o.pow(2.0, q));
  };
  o.copy_n = (x, { times }) => new Array(times).fill(x);
  o.add_n = (xs) => (xs.length > 0 ? o.add(xs[0], o.add_n(xs.slice(1))) : lit(0.0));
  o.moments = (x, { axes }) => {
    const mean = o.mean_reduce(x, { axes });
    const variance = o.mean_reduce(o.sqr(o.sub(x, mean)), { axes });
    return [mean, variance];
  };
  o.lit = lit;
  return o;
}
