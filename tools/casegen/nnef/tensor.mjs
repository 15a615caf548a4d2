// Small n-dimensional tensors for the NNEF case generator: row-major data in a plain JS array.
// type: 'scalar' (doubles), 'integer' (JS integers), 'logical' (booleans).

export class Tensor {
  constructor(shape, data, type = 'scalar') {
    const n = volume(shape);
    if (data.length !== n) throw new Error(`data length ${data.length} != volume ${n} of [${shape}]`);
    this.shape = shape.slice();
    this.data = data.slice();
    this.type = type;
  }
  get rank() { return this.shape.length; }
  at(idx) { return this.data[flatIndex(this.shape, idx)]; }
  map(fn, type = this.type) { return new Tensor(this.shape, this.data.map(fn), type); }
}

export const volume = (shape) => shape.reduce((a, b) => a * b, 1);

export function strides(shape) {
  const s = new Array(shape.length).fill(1);
  for (let i = shape.length - 2; i >= 0; i--) s[i] = s[i + 1] * shape[i + 1];
  return s;
}

export function flatIndex(shape, idx) {
  let f = 0;
  for (let i = 0; i < shape.length; i++) {
    const v = i < idx.length ? idx[i] : 0;
    if (v < 0 || v >= shape[i]) throw new Error(`index [${idx}] out of range for [${shape}]`);
    f = f * shape[i] + v;
  }
  return f;
}

export function unflatIndex(shape, f) {
  const idx = new Array(shape.length);
  for (let i = shape.length - 1; i >= 0; i--) {
    idx[i] = f % shape[i];
    f = Math.floor(f / shape[i]);
  }
  return idx;
}

// Calls fn(index array, flat) for every index of shape in row-major order.
export function forEachIndex(shape, fn) {
  const n = volume(shape);
  for (let f = 0; f < n; f++) fn(unflatIndex(shape, f), f);
}

export function fromFn(shape, fn, type = 'scalar') {
  const data = [];
  forEachIndex(shape, (idx) => data.push(fn(idx)));
  return new Tensor(shape, data, type);
}

// Literal tensors: scalar data are rounded to float32 (the element type of every scalar tensor file we write).
export const T = (shape, data, type = 'scalar') => new Tensor(shape, type === 'scalar' ? data.map(Math.fround) : data, type);

// Deterministic data: mulberry32 seeded from a string.
export function rng(seedText) {
  let h = 2166136261;
  for (const ch of seedText) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  let a = h;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Dyadic values k/den with k uniform in [lo*den, hi*den] (exact in float32 for small ranges).
export function dyadic(seed, shape, lo = -2, hi = 2, den = 8, opts = {}) {
  const r = rng(seed);
  const n = volume(shape);
  const data = [];
  while (data.length < n) {
    const k = Math.floor(r() * ((hi - lo) * den + 1)) + lo * den;
    const v = k / den;
    if (opts.nonzero && v === 0) continue;
    if (opts.exclude && opts.exclude(v)) continue;
    data.push(v === 0 ? 0 : v);
  }
  return new Tensor(shape, data, 'scalar');
}

// Distinct dyadic values (no ties), shuffled deterministically.
export function distinct(seed, shape, lo = -4, den = 8) {
  const r = rng(seed);
  const n = volume(shape);
  const vals = [];
  for (let i = 0; i < n; i++) vals.push(lo + i / den);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [vals[i], vals[j]] = [vals[j], vals[i]];
  }
  return new Tensor(shape, vals.map((v) => (v === 0 ? 0 : v)), 'scalar');
}

export function ints(seed, shape, lo, hi) {
  const r = rng(seed);
  const data = [];
  for (let i = 0; i < volume(shape); i++) data.push(lo + Math.floor(r() * (hi - lo + 1)));
  return new Tensor(shape, data, 'integer');
}

export function bools(seed, shape) {
  const r = rng(seed);
  const data = [];
  for (let i = 0; i < volume(shape); i++) data.push(r() < 0.5);
  return new Tensor(shape, data, 'logical');
}

export const iota = (shape, start = 0, step = 1) =>
  new Tensor(shape, Array.from({ length: volume(shape) }, (_, i) => start + i * step), 'scalar');
