// The second check of cases/models: each block computed straight from its model definition, token by token and
// head by head (attention written as attention: scores, causal loop bounds, softmax, weighted sum), in float64,
// with no operator list, no reshape/transpose bookkeeping and no mask tensors. models.mjs requires these to agree
// with the float64 evaluation of the operator list (models_eval.mjs) within float32 noise.
//
// Weights come from the case's inputs (`I[name].data`, row-major), so both sides see the same numbers.

// Row `r` of a row-major matrix with `cols` columns.
const row = (a, r, cols) => a.subarray(r * cols, (r + 1) * cols);

// y = x W (+ b), W stored [in, out] (a framework's MatMul weight layout).
export function linear(x, W, b, nOut) {
  const nIn = x.length;
  const y = new Float64Array(nOut);
  for (let o = 0; o < nOut; o++) {
    let s = b ? b[o] : 0;
    for (let i = 0; i < nIn; i++) s += x[i] * W[i * nOut + o];
    y[o] = s;
  }
  return y;
}

export function layerNorm(x, g, b, eps) {
  const n = x.length;
  let mean = 0;
  for (const v of x) mean += v;
  mean /= n;
  let variance = 0;
  for (const v of x) variance += (v - mean) * (v - mean);
  variance /= n;
  const inv = 1 / Math.sqrt(variance + eps);
  return x.map((v, i) => (v - mean) * inv * g[i] + b[i]);
}

// LLaMA / T5 RMSNorm: x / sqrt(mean(x^2) + eps) * w.
export function rmsNorm(x, w, eps) {
  let ms = 0;
  for (const v of x) ms += v * v;
  ms /= x.length;
  const r = Math.sqrt(ms + eps);
  return x.map((v, i) => (v / r) * w[i]);
}

// Scaled dot-product attention for one head: q (one query), keys/values lists; bias(j) added to the score.
export function attend(q, keys, values, scale, bias = () => 0) {
  const scores = keys.map((k, j) => {
    let s = 0;
    for (let d = 0; d < q.length; d++) s += q[d] * k[d];
    return s * scale + bias(j);
  });
  const m = Math.max(...scores);
  const e = scores.map((s) => Math.exp(s - m));
  const z = e.reduce((p, v) => p + v, 0);
  const out = new Float64Array(values[0].length);
  values.forEach((v, j) => {
    for (let d = 0; d < v.length; d++) out[d] += (e[j] / z) * v[d];
  });
  return out;
}

const addv = (a, b) => a.map((v, i) => v + b[i]);

// GPT-2 (openai-community/gpt2 modeling): pre-LN block, fused c_attn, causal attention, gelu_new MLP.
// past: optional {k: [H][P][dh], v: ...} for one KV-cache decode step (the new tokens attend to past + self).
export function gpt2(I, { S, D, H, eps, c1, c2, past }) {
  const dh = D / H;
  const x = I.x.data;
  const toks = Array.from({ length: S }, (_, t) => row(x, t, D));
  const qkv = toks.map((t) => linear(layerNorm(t, I.ln1_g.data, I.ln1_b.data, eps), I.w_attn.data, I.b_attn.data, 3 * D));
  const head = (vec, off, h) => vec.subarray(off + h * dh, off + (h + 1) * dh);
  const P = past ? past.P : 0;
  const pk = (h, j) => row(I.past_key.data, h * P + j, dh);
  const pv = (h, j) => row(I.past_value.data, h * P + j, dh);
  const out = {};
  const attn = toks.map((_, t) => {
    const o = new Float64Array(D);
    for (let h = 0; h < H; h++) {
      const keys = [];
      const vals = [];
      for (let j = 0; j < P; j++) {
        keys.push(pk(h, j));
        vals.push(pv(h, j));
      }
      for (let j = 0; j <= t; j++) { // causal: token t sees tokens 0..t
        keys.push(head(qkv[j], D, h));
        vals.push(head(qkv[j], 2 * D, h));
      }
      o.set(attend(head(qkv[t], 0, h), keys, vals, 1 / Math.sqrt(dh)), h * dh);
    }
    return o;
  });
  if (past) {
    const pres = (which, src) => {
      const r = new Float64Array(H * (P + S) * dh);
      for (let h = 0; h < H; h++) {
        for (let j = 0; j < P + S; j++) {
          const v = j < P ? src(h, j) : head(qkv[j - P], which, h);
          r.set(v, (h * (P + S) + j) * dh);
        }
      }
      return r;
    };
    out.present_key = pres(D, pk);
    out.present_value = pres(2 * D, pv);
  }
  const y = new Float64Array(S * D);
  toks.forEach((t, i) => {
    const x1 = addv(t, linear(attn[i], I.w_proj.data, I.b_proj.data, D));
    const f = linear(layerNorm(x1, I.ln2_g.data, I.ln2_b.data, eps), I.w_fc.data, I.b_fc.data, 4 * D);
    // gelu_new: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), with the constants as the graph stores them
    const g = f.map((v) => 0.5 * v * (1 + Math.tanh(c2 * (v + c1 * v * v * v))));
    y.set(addv(x1, linear(g, I.w_mlp.data, I.b_mlp.data, D)), i * D);
  });
  out.y = y;
  return out;
}

// LLaMA (meta-llama/Llama-2 modeling): RMSNorm, rotary embedding (rotate_half convention, base 10000), grouped-
// query attention (query head h uses key/value head floor(h / (Hq / Hkv))), causal, SwiGLU MLP, no biases.
// cos/sin: the rotary tables as the graph stores them (rounded to its type), [S][dh].
export function llama(I, { S, D, Hq, Hkv, F, eps, scale }) {
  const dh = D / Hq;
  const half = dh / 2;
  const x = I.x.data;
  const cos = I.rope_cos.data;
  const sin = I.rope_sin.data;
  const rope = (v, t) => {
    const r = new Float64Array(dh);
    for (let i = 0; i < half; i++) {
      // rotate the pair (v[i], v[i + half]) by the angle of position t, frequency i
      r[i] = v[i] * cos[t * dh + i] - v[i + half] * sin[t * dh + i];
      r[i + half] = v[i + half] * cos[t * dh + i + half] + v[i] * sin[t * dh + i + half];
    }
    return r;
  };
  const toks = Array.from({ length: S }, (_, t) => row(x, t, D));
  const hs = toks.map((t) => rmsNorm(t, I.norm1_w.data, eps));
  const Q = hs.map((h, t) => Array.from({ length: Hq }, (_, k) => rope(linear(h, I.wq.data, null, D).subarray(k * dh, (k + 1) * dh), t)));
  const Kx = hs.map((h, t) => Array.from({ length: Hkv }, (_, k) => rope(linear(h, I.wk.data, null, Hkv * dh).subarray(k * dh, (k + 1) * dh), t)));
  const Vx = hs.map((h) => Array.from({ length: Hkv }, (_, k) => linear(h, I.wv.data, null, Hkv * dh).subarray(k * dh, (k + 1) * dh)));
  const group = Hq / Hkv;
  const y = new Float64Array(S * D);
  toks.forEach((t, i) => {
    const o = new Float64Array(D);
    for (let h = 0; h < Hq; h++) {
      const kv = Math.floor(h / group);
      const keys = Kx.slice(0, i + 1).map((k) => k[kv]);
      const vals = Vx.slice(0, i + 1).map((v) => v[kv]);
      o.set(attend(Q[i][h], keys, vals, scale), h * dh);
    }
    const x1 = addv(t, linear(o, I.wo.data, null, D));
    const h2 = rmsNorm(x1, I.norm2_w.data, eps);
    const gate = linear(h2, I.w_gate.data, null, F);
    const up = linear(h2, I.w_up.data, null, F);
    const act = gate.map((g, k) => (g / (1 + Math.exp(-g))) * up[k]); // SiLU(gate) * up
    y.set(addv(x1, linear(act, I.w_down.data, null, D)), i * D);
  });
  return { y };
}
