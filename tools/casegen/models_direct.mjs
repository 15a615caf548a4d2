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

const silu = (v) => v / (1 + Math.exp(-v));
export const geluErf = (erf) => (v) => 0.5 * v * (1 + erf(v / Math.SQRT2));

// 1-D convolution over time (whisper's nn.Conv1d): x [Cin][T] flat, w [Cout][Cin][K], zero padding `pad`.
export function conv1d(x, Cin, T, w, b, Cout, K, stride, pad) {
  const To = Math.floor((T + 2 * pad - K) / stride) + 1;
  const y = new Float64Array(Cout * To);
  for (let o = 0; o < Cout; o++) {
    for (let t = 0; t < To; t++) {
      let s = b[o];
      for (let c = 0; c < Cin; c++) {
        for (let k = 0; k < K; k++) {
          const ti = t * stride - pad + k;
          if (ti >= 0 && ti < T) s += x[c * T + ti] * w[(o * Cin + c) * K + k];
        }
      }
      y[o * To + t] = s;
    }
  }
  return { y, To };
}

// 3x3 convolution, stride 1, padding 1 (the UNet's nn.Conv2d): x [C][H][W] flat, w [O][C][3][3].
export function conv3x3(x, C, H, W, w, b, O) {
  const y = new Float64Array(O * H * W);
  for (let o = 0; o < O; o++) {
    for (let i = 0; i < H; i++) {
      for (let j = 0; j < W; j++) {
        let s = b[o];
        for (let c = 0; c < C; c++) {
          for (let di = -1; di <= 1; di++) {
            for (let dj = -1; dj <= 1; dj++) {
              const ii = i + di;
              const jj = j + dj;
              if (ii < 0 || ii >= H || jj < 0 || jj >= W) continue;
              s += x[(c * H + ii) * W + jj] * w[((o * C + c) * 3 + di + 1) * 3 + dj + 1];
            }
          }
        }
        y[(o * H + i) * W + j] = s;
      }
    }
  }
  return y;
}

// torch.nn.GroupNorm: G groups of C/G consecutive channels, statistics over the group's channels and pixels.
export function groupNorm(x, C, HW, G, gamma, beta, eps) {
  const y = new Float64Array(x.length);
  const cg = C / G;
  for (let g = 0; g < G; g++) {
    const part = x.subarray(g * cg * HW, (g + 1) * cg * HW);
    let mean = 0;
    for (const v of part) mean += v;
    mean /= part.length;
    let variance = 0;
    for (const v of part) variance += (v - mean) ** 2;
    variance /= part.length;
    const inv = 1 / Math.sqrt(variance + eps);
    for (let k = 0; k < part.length; k++) {
      const c = g * cg + Math.floor(k / HW);
      y[g * cg * HW + k] = (part[k] - mean) * inv * gamma[c] + beta[c];
    }
  }
  return y;
}

// diffusers ResnetBlock2D (in == out channels, no shortcut conv): GroupNorm, SiLU, conv, + time embedding
// projection of SiLU(temb), GroupNorm, SiLU, conv, + input.
export function sdResBlock(I, { C, H, W, G, eps }) {
  const HW = H * W;
  const x = I.x.data;
  let h = groupNorm(x, C, HW, G, I.norm1_g.data, I.norm1_b.data, eps).map(silu);
  h = conv3x3(h, C, H, W, I.conv1_w.data, I.conv1_b.data, C);
  const t = linear(I.temb.data.map(silu), I.time_w.data, I.time_b.data, C);
  h = h.map((v, i) => v + t[Math.floor(i / HW)]);
  h = groupNorm(h, C, HW, G, I.norm2_g.data, I.norm2_b.data, eps).map(silu);
  h = conv3x3(h, C, H, W, I.conv2_w.data, I.conv2_b.data, C);
  return { y: h.map((v, i) => v + x[i]) };
}

// diffusers cross-attention (BasicTransformerBlock attn2) on the pixels of a feature map as tokens: LayerNorm,
// q from the pixels, k/v from the text context, no q/k/v biases, output projection with bias, + residual.
export function sdCrossAttention(I, { C, HW, H, Sc, Dc, eps, scale }) {
  const dh = C / H;
  const x = I.x.data;
  const ctx = I.context.data;
  const keys = [];
  const vals = [];
  for (let j = 0; j < Sc; j++) {
    const c = row(ctx, j, Dc);
    keys.push(linear(c, I.wk.data, null, C));
    vals.push(linear(c, I.wv.data, null, C));
  }
  const y = new Float64Array(C * HW);
  for (let p = 0; p < HW; p++) {
    const tok = Float64Array.from({ length: C }, (_, c) => x[c * HW + p]);
    const q = linear(layerNorm(tok, I.ln_g.data, I.ln_b.data, eps), I.wq.data, null, C);
    const o = new Float64Array(C);
    for (let h = 0; h < H; h++) {
      const sl = (v) => v.subarray(h * dh, (h + 1) * dh);
      o.set(attend(sl(q), keys.map(sl), vals.map(sl), scale), h * dh);
    }
    const r = linear(o, I.wo.data, I.bo.data, C);
    for (let c = 0; c < C; c++) y[c * HW + p] = tok[c] + r[c];
  }
  return { y };
}

// Whisper encoder: conv1 (k 3, pad 1) + GELU, conv2 (k 3, stride 2, pad 1) + GELU, + positional embedding, then
// one pre-LN encoder layer (bidirectional self-attention, q scaled by head_dim^-0.5, k without bias; fc1, GELU,
// fc2).
export function whisper(I, { M, T, D, H, F, eps, erf, scale }) {
  const gelu = geluErf(erf);
  const c1 = conv1d(I.mel.data, M, T, I.conv1_w.data, I.conv1_b.data, D, 3, 1, 1);
  const c2 = conv1d(c1.y.map(gelu), D, c1.To, I.conv2_w.data, I.conv2_b.data, D, 3, 2, 1);
  const S = c2.To;
  const g2 = c2.y.map(gelu);
  const toks = Array.from({ length: S }, (_, t) => Float64Array.from({ length: D }, (_, c) => g2[c * S + t]
    + I.pos.data[t * D + c]));
  const stem = new Float64Array(S * D);
  toks.forEach((t, i) => stem.set(t, i * D));
  const dh = D / H;
  const hs = toks.map((t) => layerNorm(t, I.ln1_g.data, I.ln1_b.data, eps));
  const q = hs.map((h) => linear(h, I.wq.data, I.bq.data, D));
  const k = hs.map((h) => linear(h, I.wk.data, null, D));
  const v = hs.map((h) => linear(h, I.wv.data, I.bv.data, D));
  const y = new Float64Array(S * D);
  toks.forEach((t, i) => {
    const o = new Float64Array(D);
    for (let h = 0; h < H; h++) {
      const sl = (a) => a.subarray(h * dh, (h + 1) * dh);
      o.set(attend(sl(q[i]), k.map(sl), v.map(sl), scale), h * dh);
    }
    const x1 = addv(t, linear(o, I.wo.data, I.bo.data, D));
    const f = linear(layerNorm(x1, I.ln2_g.data, I.ln2_b.data, eps), I.fc1_w.data, I.fc1_b.data, F).map(gelu);
    y.set(addv(x1, linear(f, I.fc2_w.data, I.fc2_b.data, D)), i * D);
  });
  return { stem, y };
}

// T5 relative position bucket (bidirectional): half the buckets for each sign, exact below num_buckets/4,
// logarithmic up to max_distance.
export function t5Bucket(rel, numBuckets = 32, maxDistance = 128) {
  const nb = numBuckets / 2;
  let ret = rel > 0 ? nb : 0;
  const n = Math.abs(rel);
  const maxExact = nb / 2;
  if (n < maxExact) return ret + n;
  const large = maxExact + Math.trunc((Math.log(n / maxExact) / Math.log(maxDistance / maxExact)) * (nb - maxExact));
  ret += Math.min(large, nb - 1);
  return ret;
}

// T5 encoder block (t5-small): T5LayerNorm (RMS, no mean, no bias), self-attention without 1/sqrt(d) scaling with
// the relative attention bias table [buckets][heads], residual, T5LayerNorm, ReLU MLP, residual.
export function t5(I, { S, D, H, F, eps }) {
  const dh = D / H;
  const x = I.x.data;
  const toks = Array.from({ length: S }, (_, t) => row(x, t, D));
  const hs = toks.map((t) => rmsNorm(t, I.ln1_w.data, eps));
  const q = hs.map((h) => linear(h, I.wq.data, null, D));
  const k = hs.map((h) => linear(h, I.wk.data, null, D));
  const v = hs.map((h) => linear(h, I.wv.data, null, D));
  const y = new Float64Array(S * D);
  toks.forEach((t, i) => {
    const o = new Float64Array(D);
    for (let h = 0; h < H; h++) {
      const sl = (a) => a.subarray(h * dh, (h + 1) * dh);
      const bias = (j) => I.rel_bias.data[t5Bucket(j - i) * H + h];
      o.set(attend(sl(q[i]), k.map(sl), v.map(sl), 1, bias), h * dh);
    }
    const x1 = addv(t, linear(o, I.wo.data, null, D));
    const f = linear(rmsNorm(x1, I.ln2_w.data, eps), I.wi.data, null, F).map((z) => Math.max(z, 0));
    y.set(addv(x1, linear(f, I.wo_ff.data, null, D)), i * D);
  });
  return { y };
}

// M2M100 decoder layer (normalize_before): self-attention (causal, q scaled by head_dim^-0.5), residual;
// cross-attention over the encoder states, residual; fc1, ReLU, fc2, residual. Every projection has a bias.
export function m2m100(I, { S, Se, D, H, F, eps, scale }) {
  const dh = D / H;
  const x = I.x.data;
  const toks = Array.from({ length: S }, (_, t) => row(x, t, D));
  const enc = Array.from({ length: Se }, (_, t) => row(I.encoder_hidden_states.data, t, D));
  const mha = (queries, kvs, p, causal) => {
    const q = queries.map((h) => linear(h, I[`${p}_wq`].data, I[`${p}_bq`].data, D));
    const k = kvs.map((h) => linear(h, I[`${p}_wk`].data, I[`${p}_bk`].data, D));
    const v = kvs.map((h) => linear(h, I[`${p}_wv`].data, I[`${p}_bv`].data, D));
    return q.map((qi, i) => {
      const o = new Float64Array(D);
      const n = causal ? i + 1 : kvs.length;
      for (let h = 0; h < H; h++) {
        const sl = (a) => a.subarray(h * dh, (h + 1) * dh);
        o.set(attend(sl(qi), k.slice(0, n).map(sl), v.slice(0, n).map(sl), scale), h * dh);
      }
      return linear(o, I[`${p}_wo`].data, I[`${p}_bo`].data, D);
    });
  };
  const h1 = toks.map((t) => layerNorm(t, I.ln1_g.data, I.ln1_b.data, eps));
  const x1 = mha(h1, h1, 'self', true).map((a, i) => addv(toks[i], a));
  const h2 = x1.map((t) => layerNorm(t, I.ln2_g.data, I.ln2_b.data, eps));
  const x2 = mha(h2, enc, 'cross', false).map((a, i) => addv(x1[i], a));
  const y = new Float64Array(S * D);
  x2.forEach((t, i) => {
    const f = linear(layerNorm(t, I.ln3_g.data, I.ln3_b.data, eps), I.fc1_w.data, I.fc1_b.data, F)
      .map((z) => Math.max(z, 0));
    y.set(addv(t, linear(f, I.fc2_w.data, I.fc2_b.data, D)), i * D);
  });
  return { y };
}

// segment-anything ViT image-encoder block (windowed): LayerNorm, attention inside each ws x ws window of the
// token grid with the decomposed relative position terms q . rel_pos_h[i_q - i_k + ws - 1] and
// q . rel_pos_w[j_q - j_k + ws - 1] (unscaled q) added to the scaled scores, projection, residual; LayerNorm,
// MLP with GELU (erf), residual.
export function samBlock(I, { G, ws, D, H, F, eps, scale, erf }) {
  const dh = D / H;
  const gelu = geluErf(erf);
  const x = I.x.data;
  const tok = (i, j) => row(x, i * G + j, D);
  const y = new Float64Array(G * G * D);
  const hs = [];
  for (let i = 0; i < G; i++) for (let j = 0; j < G; j++) hs.push(layerNorm(tok(i, j), I.ln1_g.data, I.ln1_b.data, eps));
  const qkv = hs.map((h) => linear(h, I.w_qkv.data, I.b_qkv.data, 3 * D));
  for (let i = 0; i < G; i++) {
    for (let j = 0; j < G; j++) {
      const wi = Math.floor(i / ws) * ws;
      const wj = Math.floor(j / ws) * ws;
      const o = new Float64Array(D);
      for (let h = 0; h < H; h++) {
        const q = qkv[i * G + j].subarray(h * dh, (h + 1) * dh);
        const keys = [];
        const vals = [];
        const bias = [];
        for (let a = 0; a < ws; a++) {
          for (let b = 0; b < ws; b++) {
            const kv = qkv[(wi + a) * G + wj + b];
            keys.push(kv.subarray(D + h * dh, D + (h + 1) * dh));
            vals.push(kv.subarray(2 * D + h * dh, 2 * D + (h + 1) * dh));
            const rh = row(I.rel_pos_h.data, (i - wi) - a + ws - 1, dh);
            const rw = row(I.rel_pos_w.data, (j - wj) - b + ws - 1, dh);
            let s = 0;
            for (let c = 0; c < dh; c++) s += q[c] * rh[c] + q[c] * rw[c];
            bias.push(s);
          }
        }
        o.set(attend(q, keys, vals, scale, (n) => bias[n]), h * dh);
      }
      const x1 = addv(tok(i, j), linear(o, I.w_proj.data, I.b_proj.data, D));
      const f = linear(layerNorm(x1, I.ln2_g.data, I.ln2_b.data, eps), I.w_lin1.data, I.b_lin1.data, F).map(gelu);
      y.set(addv(x1, linear(f, I.w_lin2.data, I.b_lin2.data, D)), (i * G + j) * D);
    }
  }
  return { y };
}
