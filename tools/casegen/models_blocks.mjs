// The blocks of cases/models: each one an operator list as a browser framework lowers the model's PyTorch module
// to WebNN builder calls, plus its model definition (models_direct.mjs) for the second check. docs/models.md
// lists sizes, operator counts and the tolerance derivation.

import { roundTo, erfDouble } from './numerics.mjs';
import { encodeValue } from './values.mjs';
import * as direct from './models_direct.mjs';

const LOWEST = { float32: -3.4028234663852886e38, float16: -65504 }; // torch.finfo(dtype).min

// A graph under construction: random-uniform weights (the case format's `random` form), operator calls.
class Graph {
  constructor(type, seed) {
    this.type = type;
    this.seed = seed;
    this.inputs = {};
    this.operators = [];
    this.n = 0;
  }

  // A weight or input filled by the `random` generator with U(lo, hi).
  rand(name, shape, lo, hi, { input = false, type = this.type } = {}) {
    this.inputs[name] = {
      data: { random: { seed: this.seed++, distribution: 'uniform', min: lo, max: hi } },
      descriptor: { shape, dataType: type },
      ...(input ? {} : { constant: true }),
    };
    return name;
  }

  // Linear-layer weight with unit output variance for unit-variance input: U(-sqrt(3/fanIn), sqrt(3/fanIn)).
  weight(name, shape, fanIn = shape[0]) {
    const a = Math.sqrt(3 / fanIn);
    return this.rand(name, shape, -a, a);
  }

  // A constant with the given values (computed in double, rounded once to the type).
  values(name, shape, vals, type = this.type) {
    const data = Array.from(vals, (v) => encodeValue(type === 'uint8' || type === 'int32' ? BigInt(v)
      : roundTo(type, v), type));
    this.inputs[name] = { data: data.length === 1 && shape.length === 0 ? data[0] : data,
      descriptor: { shape, dataType: type }, constant: true };
    return name;
  }

  scalar(name, v) {
    return this.values(name, [], [v]);
  }

  op(name, args, out) {
    const o = out ?? `${name}_${this.n++}`;
    this.operators.push({ name, arguments: args.map(([k, v]) => ({ [k]: v })), outputs: o });
    return o;
  }

  add(a, b, out) { return this.op('add', [['a', a], ['b', b]], out); }
  mul(a, b, out) { return this.op('mul', [['a', a], ['b', b]], out); }
  div(a, b, out) { return this.op('div', [['a', a], ['b', b]], out); }
  matmul(a, b, out) { return this.op('matmul', [['a', a], ['b', b]], out); }
  reshape(x, shape, out) { return this.op('reshape', [['input', x], ['newShape', shape]], out); }
  transpose(x, permutation, out) { return this.op('transpose', [['input', x], ['options', { permutation }]], out); }
  slice(x, starts, sizes, out) { return this.op('slice', [['input', x], ['starts', starts], ['sizes', sizes]], out); }
  softmax(x, axis, out) { return this.op('softmax', [['input', x], ['axis', axis]], out); }

  // nn.Linear / Conv1D lowered to matmul (+ add).
  linear(x, w, b, out) {
    const m = this.matmul(x, w, b ? undefined : out);
    return b ? this.add(m, b, out) : m;
  }

  // [1, S, H*dh] -> [1, H, S, dh]
  heads(x, S, H, dh, perm = [0, 2, 1, 3]) {
    return this.transpose(this.reshape(x, [1, S, H, dh]), perm);
  }

  layerNorm(x, g, b, eps, out, axes = [2]) {
    return this.op('layerNormalization', [['input', x], ['options', { scale: g, bias: b, axes, epsilon: eps }]],
      out);
  }

  // RMSNorm lowered as frameworks emit it: x / sqrt(reduceMean(x^2) + eps) * w.
  rmsNorm(x, w, epsName, twoName) {
    const sq = this.op('pow', [['a', x], ['b', twoName]]);
    const ms = this.op('reduceMean', [['input', sq], ['options', { axes: [2], keepDimensions: true }]]);
    const r = this.op('sqrt', [['input', this.add(ms, epsName)]]);
    return this.mul(this.div(x, r), w);
  }

  graph() {
    return { inputs: this.inputs, operators: this.operators };
  }
}

// ---------------------------------------------------------------------------------------------------------
// gpt2 (124M: n_embd 768, n_head 12, n_inner 3072, layer_norm_epsilon 1e-5, gelu_new).

const GPT2 = { D: 768, H: 12, F: 3072, eps: 1e-5 };

function gpt2Common(g, x, S, P) {
  const { D, H, F, eps } = GPT2;
  const dh = D / H;
  const t = g.type;
  g.rand('ln1_g', [D], 0.8, 1.2);
  g.rand('ln1_b', [D], -0.1, 0.1);
  g.weight('w_attn', [D, 3 * D]);
  g.rand('b_attn', [3 * D], -0.1, 0.1);
  g.weight('w_proj', [D, D]);
  g.rand('b_proj', [D], -0.1, 0.1);
  g.rand('ln2_g', [D], 0.8, 1.2);
  g.rand('ln2_b', [D], -0.1, 0.1);
  g.weight('w_fc', [D, F]);
  g.rand('b_fc', [F], -0.1, 0.1);
  g.weight('w_mlp', [F, D]);
  g.rand('b_mlp', [D], -0.1, 0.1);
  const c1 = roundTo(t, 0.044715);
  const c2 = roundTo(t, Math.sqrt(2 / Math.PI));
  g.scalar('scale', 1 / Math.sqrt(dh));
  g.scalar('three', 3);
  g.scalar('c_0_044715', c1);
  g.scalar('c_sqrt_2_over_pi', c2);
  g.scalar('one', 1);
  g.scalar('half', 0.5);

  const h = g.layerNorm(x, 'ln1_g', 'ln1_b', eps, 'ln_1');
  const qkv = g.linear(h, 'w_attn', 'b_attn', 'c_attn');
  const q = g.heads(g.slice(qkv, [0, 0, 0], [1, S, D]), S, H, dh);
  const k = g.heads(g.slice(qkv, [0, 0, D], [1, S, D]), S, H, dh);
  const v = g.heads(g.slice(qkv, [0, 0, 2 * D], [1, S, D]), S, H, dh);
  let keys = k;
  let vals = v;
  if (P) {
    keys = g.op('concat', [['inputs', ['past_key', k]], ['axis', 2]], 'present_key');
    vals = g.op('concat', [['inputs', ['past_value', v]], ['axis', 2]], 'present_value');
  }
  let scores = g.mul(g.matmul(q, g.transpose(keys, [0, 1, 3, 2])), 'scale');
  if (!P) {
    // causal mask: where(lower-triangular ones, scores, finfo.min), as transformers' GPT2Attention does
    g.values('ones', [S, S], new Array(S * S).fill(1), 'uint8');
    g.scalar('mask_value', LOWEST[t]);
    const causal = g.op('triangular', [['input', 'ones'], ['options', { upper: false }]], 'causal');
    scores = g.op('where', [['condition', causal], ['trueValue', scores], ['falseValue', 'mask_value']]);
  }
  const p = g.softmax(scores, 3, 'attn_weights');
  const o = g.reshape(g.transpose(g.matmul(p, vals), [0, 2, 1, 3]), [1, S, D]);
  const x1 = g.add(x, g.linear(o, 'w_proj', 'b_proj'), 'residual_1');
  const f = g.linear(g.layerNorm(x1, 'ln2_g', 'ln2_b', eps, 'ln_2'), 'w_fc', 'b_fc', 'c_fc');
  // gelu_new(f) = 0.5 f (1 + tanh(sqrt(2/pi) (f + 0.044715 f^3)))
  const cube = g.op('pow', [['a', f], ['b', 'three']]);
  const inner = g.mul(g.add(f, g.mul(cube, 'c_0_044715')), 'c_sqrt_2_over_pi');
  const th = g.op('tanh', [['input', inner]]);
  const act = g.mul(g.mul(f, 'half'), g.add(th, 'one'), 'gelu_new');
  g.add(x1, g.linear(act, 'w_mlp', 'b_mlp'), 'y');
  return { eps: roundTo(t, eps), c1, c2 };
}

function gpt2Block(type) {
  const S = 8;
  return {
    name: `models.gpt2.block.${type}`,
    description: `gpt2 (124M) decoder block, hidden 768, 12 heads, MLP 3072, sequence ${S}, batch 1: `
      + 'layerNormalization, fused QKV matmul, causal mask by triangular + where, softmax attention, gelu_new MLP.',
    labels: ['models', 'gpt2', type],
    graph: null,
    build() {
      const g = new Graph(type, 100);
      g.rand('x', [1, S, GPT2.D], -1, 1, { input: true });
      const k = gpt2Common(g, 'x', S, 0);
      return {
        ...this,
        graph: g.graph(),
        outputs: ['y'],
        direct: (I) => direct.gpt2(I, { S, D: GPT2.D, H: GPT2.H, eps: k.eps, c1: k.c1, c2: k.c2 }),
      };
    },
  };
}

function gpt2Decode(type) {
  const P = 15;
  const dh = GPT2.D / GPT2.H;
  return {
    name: `models.gpt2.decode_step.${type}`,
    description: `gpt2 (124M) one KV-cache decode step: one new token, ${P} cached positions (past_key/past_value `
      + 'inputs [1, 12, 15, 64]); concat gives present_key/present_value, the token attends to all 16 positions.',
    labels: ['models', 'gpt2', 'kv_cache', type],
    build() {
      const g = new Graph(type, 200);
      g.rand('x', [1, 1, GPT2.D], -1, 1, { input: true });
      g.rand('past_key', [1, GPT2.H, P, dh], -1.5, 1.5, { input: true });
      g.rand('past_value', [1, GPT2.H, P, dh], -1.5, 1.5, { input: true });
      const k = gpt2Common(g, 'x', 1, P);
      return {
        ...this,
        graph: g.graph(),
        outputs: ['y', 'present_key', 'present_value'],
        direct: (I) => direct.gpt2(I, { S: 1, D: GPT2.D, H: GPT2.H, eps: k.eps, c1: k.c1, c2: k.c2, past: { P } }),
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// llama: Llama-2 block pattern (head_dim 128, rms_norm_eps 1e-5, rope_theta 10000, SwiGLU with intermediate
// 11008/4096 of hidden). Reduced: 4 query heads sharing 2 key/value heads (hidden 512), intermediate 1376.

const LLAMA = { Hq: 4, Hkv: 2, dh: 128, F: 1376, eps: 1e-5, theta: 10000 };

function llamaBlock(type) {
  const S = 8;
  const { Hq, Hkv, dh, F, eps, theta } = LLAMA;
  const D = Hq * dh;
  const half = dh / 2;
  return {
    name: `models.llama.block.${type}`,
    description: `llama-2 decoder block pattern, head_dim 128, ${Hq} query heads sharing ${Hkv} key/value heads `
      + `(grouped-query attention, hidden ${D}), SwiGLU intermediate ${F}, sequence ${S}: RMSNorm by pow/reduceMean/`
      + 'add/sqrt/div/mul, rotary embedding by slice/neg/concat/mul/add, repeat_kv by reshape/expand/reshape, '
      + 'additive causal mask, softmax, SiLU(gate) * up.',
    labels: ['models', 'llama', type],
    build() {
      const g = new Graph(type, 300);
      g.rand('x', [1, S, D], -1, 1, { input: true });
      g.rand('norm1_w', [D], 0.8, 1.2);
      g.weight('wq', [D, D]);
      g.weight('wk', [D, Hkv * dh]);
      g.weight('wv', [D, Hkv * dh]);
      g.weight('wo', [D, D]);
      g.rand('norm2_w', [D], 0.8, 1.2);
      g.weight('w_gate', [D, F]);
      g.weight('w_up', [D, F]);
      g.weight('w_down', [F, D]);
      g.scalar('two', 2);
      g.scalar('eps', eps);
      const sq = roundTo(type, Math.sqrt(dh));
      g.scalar('sqrt_head_dim', sq);
      // rotary tables: emb = concat(freqs, freqs), freqs[t][i] = t * theta^(-2i/dh)
      const cos = [];
      const sin = [];
      for (let t = 0; t < S; t++) {
        for (let i = 0; i < dh; i++) {
          const a = t * theta ** (-(2 * (i % half)) / dh);
          cos.push(Math.cos(a));
          sin.push(Math.sin(a));
        }
      }
      g.values('rope_cos', [S, dh], cos);
      g.values('rope_sin', [S, dh], sin);
      const mask = [];
      for (let r = 0; r < S; r++) for (let c = 0; c < S; c++) mask.push(c > r ? LOWEST[type] : 0);
      g.values('causal_mask', [S, S], mask);

      const h = g.rmsNorm('x', 'norm1_w', 'eps', 'two');
      const rope = (t, H) => {
        const x1 = g.slice(t, [0, 0, 0, 0], [1, H, S, half]);
        const x2 = g.slice(t, [0, 0, 0, half], [1, H, S, half]);
        const rot = g.op('concat', [['inputs', [g.op('neg', [['input', x2]]), x1]], ['axis', 3]]);
        return g.add(g.mul(t, 'rope_cos'), g.mul(rot, 'rope_sin'));
      };
      const q = rope(g.heads(g.matmul(h, 'wq'), S, Hq, dh), Hq);
      const k = rope(g.heads(g.matmul(h, 'wk'), S, Hkv, dh), Hkv);
      const v = g.heads(g.matmul(h, 'wv'), S, Hkv, dh);
      const repeat = (t) => g.reshape(g.op('expand', [['input', g.reshape(t, [1, Hkv, 1, S, dh])],
        ['newShape', [1, Hkv, Hq / Hkv, S, dh]]]), [1, Hq, S, dh]);
      const scores = g.add(g.div(g.matmul(q, g.transpose(repeat(k), [0, 1, 3, 2])), 'sqrt_head_dim'), 'causal_mask');
      const p = g.softmax(scores, 3, 'attn_weights');
      const o = g.reshape(g.transpose(g.matmul(p, repeat(v)), [0, 2, 1, 3]), [1, S, D]);
      const x1 = g.add('x', g.matmul(o, 'wo'), 'residual_1');
      const h2 = g.rmsNorm(x1, 'norm2_w', 'eps', 'two');
      const gate = g.matmul(h2, 'w_gate', 'gate_proj');
      const silu = g.mul(gate, g.op('sigmoid', [['input', gate]]));
      const act = g.mul(silu, g.matmul(h2, 'w_up', 'up_proj'));
      g.add(x1, g.matmul(act, 'w_down', 'down_proj'), 'y');
      return {
        ...this,
        graph: g.graph(),
        outputs: ['y'],
        direct: (I) => direct.llama(I, { S, D, Hq, Hkv, F, eps: roundTo(type, eps), scale: 1 / sq }),
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// stable-diffusion-v1-5 UNet: ResnetBlock2D at 320 channels (32 groups, eps 1e-5, time embedding 1280) and the
// cross-attention of a BasicTransformerBlock (8 heads of 40, text context 768). Latent reduced to 8x8 pixels,
// context to 8 tokens.

const SD = { C: 320, G: 32, Te: 1280, eps: 1e-5, H: 8, Dc: 768 };

// GroupNorm lowered as frameworks emit it for WebNN: reshape to [1, G, C/G, H*W], instanceNormalization (each
// (batch, group) normalized over its channels and pixels), reshape back, then the per-channel affine.
function groupNorm(g, x, gamma, beta, C, G, H, W, eps) {
  const r = g.reshape(x, [1, G, C / G, H * W]);
  const n = g.op('instanceNormalization', [['input', r], ['options', { epsilon: eps }]]);
  return g.add(g.mul(g.reshape(n, [1, C, H, W]), gamma), beta);
}
const silu = (g, x) => g.mul(x, g.op('sigmoid', [['input', x]]));

function sdResBlock(type) {
  const P = 8;
  const { C, G, Te, eps } = SD;
  return {
    name: `models.stable_diffusion.resblock.${type}`,
    description: `stable-diffusion-v1-5 UNet ResnetBlock2D, 320 channels, GroupNorm(32) lowered to reshape/`
      + `instanceNormalization/reshape/mul/add, SiLU as sigmoid*x, two 3x3 conv2d, time embedding 1280 -> 320; `
      + `latent ${P}x${P}, batch 1.`,
    labels: ['models', 'stable_diffusion', type],
    build() {
      const g = new Graph(type, 400);
      g.rand('x', [1, C, P, P], -1.5, 1.5, { input: true });
      g.rand('temb', [1, Te], -1.5, 1.5, { input: true });
      g.rand('norm1_g', [C, 1, 1], 0.8, 1.2);
      g.rand('norm1_b', [C, 1, 1], -0.1, 0.1);
      g.weight('conv1_w', [C, C, 3, 3], C * 9);
      g.rand('conv1_b', [C], -0.1, 0.1);
      g.weight('time_w', [Te, C]);
      g.rand('time_b', [C], -0.1, 0.1);
      g.rand('norm2_g', [C, 1, 1], 0.8, 1.2);
      g.rand('norm2_b', [C, 1, 1], -0.1, 0.1);
      g.weight('conv2_w', [C, C, 3, 3], C * 9);
      g.rand('conv2_b', [C], -0.1, 0.1);
      const conv = (x, w, b) => g.op('conv2d', [['input', x], ['filter', w],
        ['options', { padding: [1, 1, 1, 1], bias: b }]]);
      let h = silu(g, groupNorm(g, 'x', 'norm1_g', 'norm1_b', C, G, P, P, eps));
      h = conv(h, 'conv1_w', 'conv1_b');
      const t = g.reshape(g.linear(silu(g, 'temb'), 'time_w', 'time_b'), [1, C, 1, 1]);
      h = g.add(h, t);
      h = silu(g, groupNorm(g, h, 'norm2_g', 'norm2_b', C, G, P, P, eps));
      g.add('x', conv(h, 'conv2_w', 'conv2_b'), 'y');
      return {
        ...this,
        graph: g.graph(),
        outputs: ['y'],
        direct: (I) => direct.sdResBlock(I, { C, H: P, W: P, G, eps: roundTo(type, eps) }),
      };
    },
  };
}

function sdCrossAttention(type) {
  const P = 8;
  const Sc = 8;
  const { C, H, Dc } = SD;
  const dh = C / H;
  const HW = P * P;
  return {
    name: `models.stable_diffusion.cross_attention.${type}`,
    description: `stable-diffusion-v1-5 UNet cross-attention at 320 channels (8 heads of 40): the ${P}x${P} feature `
      + `map as ${HW} tokens (reshape/transpose), layerNormalization, q from the pixels, k/v from a text context of `
      + `${Sc} tokens x 768, softmax attention, output projection, residual, back to nchw.`,
    labels: ['models', 'stable_diffusion', type],
    build() {
      const g = new Graph(type, 500);
      g.rand('x', [1, C, P, P], -1.5, 1.5, { input: true });
      g.rand('context', [1, Sc, Dc], -1.5, 1.5, { input: true });
      g.rand('ln_g', [C], 0.8, 1.2);
      g.rand('ln_b', [C], -0.1, 0.1);
      g.weight('wq', [C, C]);
      g.weight('wk', [Dc, C]);
      g.weight('wv', [Dc, C]);
      g.weight('wo', [C, C]);
      g.rand('bo', [C], -0.1, 0.1);
      const scale = roundTo(type, 1 / Math.sqrt(dh));
      g.scalar('scale', scale);
      const tok = g.transpose(g.reshape('x', [1, C, HW]), [0, 2, 1], 'tokens');
      const q = g.heads(g.matmul(g.layerNorm(tok, 'ln_g', 'ln_b', SD.eps), 'wq'), HW, H, dh);
      const k = g.heads(g.matmul('context', 'wk'), Sc, H, dh, [0, 2, 3, 1]);
      const v = g.heads(g.matmul('context', 'wv'), Sc, H, dh);
      const p = g.softmax(g.mul(g.matmul(q, k), 'scale'), 3, 'attn_weights');
      const o = g.reshape(g.transpose(g.matmul(p, v), [0, 2, 1, 3]), [1, HW, C]);
      const r = g.add(tok, g.linear(o, 'wo', 'bo'));
      g.reshape(g.transpose(r, [0, 2, 1]), [1, C, P, P], 'y');
      return {
        ...this,
        graph: g.graph(),
        outputs: ['y'],
        direct: (I) => direct.sdCrossAttention(I, { C, HW, H, Sc, Dc, eps: roundTo(type, SD.eps), scale }),
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// whisper-tiny.en encoder: 80 mel bins, d_model 384, 6 heads, ffn 1536, GELU (erf). 64 mel frames (of 3000).

function whisperEncoder(type) {
  const M = 80;
  const T = 64;
  const D = 384;
  const H = 6;
  const F = 1536;
  const S = T / 2;
  const dh = D / H;
  const eps = 1e-5;
  return {
    name: `models.whisper.encoder_stem_layer.${type}`,
    description: `whisper-tiny.en encoder: conv1 (80 -> 384, kernel 3) and conv2 (kernel 3, stride 2) as conv2d on `
      + `[1, C, 1, T] + gelu, positional embedding, then encoder layer 1 (layerNormalization, bidirectional `
      + `self-attention with 6 heads of 64, gelu MLP 1536); ${T} mel frames -> ${S} tokens. Outputs: the stem and `
      + 'the layer.',
    labels: ['models', 'whisper', type],
    build() {
      const g = new Graph(type, 600);
      g.rand('mel', [1, M, 1, T], -1, 1, { input: true });
      g.weight('conv1_w', [D, M, 1, 3], M * 3);
      g.rand('conv1_b', [D], -0.1, 0.1);
      g.weight('conv2_w', [D, D, 1, 3], D * 3);
      g.rand('conv2_b', [D], -0.1, 0.1);
      g.rand('pos', [S, D], -1, 1);
      g.rand('ln1_g', [D], 0.8, 1.2);
      g.rand('ln1_b', [D], -0.1, 0.1);
      g.weight('wq', [D, D]);
      g.rand('bq', [D], -0.1, 0.1);
      g.weight('wk', [D, D]);
      g.weight('wv', [D, D]);
      g.rand('bv', [D], -0.1, 0.1);
      g.weight('wo', [D, D]);
      g.rand('bo', [D], -0.1, 0.1);
      g.rand('ln2_g', [D], 0.8, 1.2);
      g.rand('ln2_b', [D], -0.1, 0.1);
      g.weight('fc1_w', [D, F]);
      g.rand('fc1_b', [F], -0.1, 0.1);
      g.weight('fc2_w', [F, D]);
      g.rand('fc2_b', [D], -0.1, 0.1);
      g.scalar('scaling', 1 / Math.sqrt(dh));
      const gelu = (x) => g.op('gelu', [['input', x]]);
      const c1 = gelu(g.op('conv2d', [['input', 'mel'], ['filter', 'conv1_w'],
        ['options', { padding: [0, 0, 1, 1], bias: 'conv1_b' }]]));
      const c2 = gelu(g.op('conv2d', [['input', c1], ['filter', 'conv2_w'],
        ['options', { padding: [0, 0, 1, 1], strides: [1, 2], bias: 'conv2_b' }]]));
      const stem = g.add(g.transpose(g.reshape(c2, [1, D, S]), [0, 2, 1]), 'pos', 'stem');
      const h = g.layerNorm(stem, 'ln1_g', 'ln1_b', eps);
      const q = g.heads(g.mul(g.linear(h, 'wq', 'bq'), 'scaling'), S, H, dh);
      const k = g.heads(g.matmul(h, 'wk'), S, H, dh, [0, 2, 3, 1]);
      const v = g.heads(g.linear(h, 'wv', 'bv'), S, H, dh);
      const p = g.softmax(g.matmul(q, k), 3, 'attn_weights');
      const o = g.reshape(g.transpose(g.matmul(p, v), [0, 2, 1, 3]), [1, S, D]);
      const x1 = g.add(stem, g.linear(o, 'wo', 'bo'), 'residual_1');
      const f = gelu(g.linear(g.layerNorm(x1, 'ln2_g', 'ln2_b', eps), 'fc1_w', 'fc1_b'));
      g.add(x1, g.linear(f, 'fc2_w', 'fc2_b'), 'y');
      return {
        ...this,
        graph: g.graph(),
        outputs: ['stem', 'y'],
        direct: (I) => direct.whisper(I, { M, T, D, H, F, eps: roundTo(type, eps), erf: erfDouble,
          scale: roundTo(type, 1 / Math.sqrt(dh)) }),
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// t5-small encoder block: d_model 512, 8 heads of 64, d_ff 2048, ReLU, layer_norm_epsilon 1e-6, 32 relative
// attention buckets (max distance 128). Sequence 16 (so the logarithmic buckets are used too).

function t5Block(type) {
  const S = 16;
  const D = 512;
  const H = 8;
  const F = 2048;
  const dh = D / H;
  const eps = 1e-6;
  return {
    name: `models.t5.encoder_block.${type}`,
    description: `t5-small encoder block, d_model 512, 8 heads of 64, d_ff 2048, sequence ${S}: T5LayerNorm (RMS) by `
      + 'pow/reduceMean/add/sqrt/div/mul, relative attention bias by gather of the [32 buckets, 8 heads] table '
      + 'with constant bucket indices + transpose, unscaled attention, ReLU MLP.',
    labels: ['models', 't5', type],
    build() {
      const g = new Graph(type, 700);
      g.rand('x', [1, S, D], -1, 1, { input: true });
      g.rand('ln1_w', [D], 0.8, 1.2);
      g.weight('wq', [D, D], D * dh); // T5 initialises q with std (d_model * d_kv)^-0.5: unscaled scores
      g.weight('wk', [D, D]);
      g.weight('wv', [D, D]);
      g.weight('wo', [D, D]);
      g.rand('rel_bias', [32, H], -2, 2);
      g.rand('ln2_w', [D], 0.8, 1.2);
      g.weight('wi', [D, F]);
      g.weight('wo_ff', [F, D]);
      g.scalar('two', 2);
      g.scalar('eps', eps);
      const idx = [];
      for (let i = 0; i < S; i++) for (let j = 0; j < S; j++) idx.push(direct.t5Bucket(j - i));
      g.values('rel_buckets', [S, S], idx, 'int32');
      const h = g.rmsNorm('x', 'ln1_w', 'eps', 'two');
      const q = g.heads(g.matmul(h, 'wq'), S, H, dh);
      const k = g.heads(g.matmul(h, 'wk'), S, H, dh, [0, 2, 3, 1]);
      const v = g.heads(g.matmul(h, 'wv'), S, H, dh);
      const bias = g.transpose(g.op('gather', [['input', 'rel_bias'], ['indices', 'rel_buckets'],
        ['options', { axis: 0 }]]), [2, 0, 1], 'position_bias');
      const p = g.softmax(g.add(g.matmul(q, k), bias), 3, 'attn_weights');
      const o = g.reshape(g.transpose(g.matmul(p, v), [0, 2, 1, 3]), [1, S, D]);
      const x1 = g.add('x', g.matmul(o, 'wo'), 'residual_1');
      const f = g.op('relu', [['input', g.matmul(g.rmsNorm(x1, 'ln2_w', 'eps', 'two'), 'wi')]]);
      g.add(x1, g.matmul(f, 'wo_ff'), 'y');
      return {
        ...this,
        graph: g.graph(),
        outputs: ['y'],
        direct: (I) => direct.t5(I, { S, D, H, F, eps: roundTo(type, eps) }),
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// m2m100_418M decoder layer: d_model 1024, 16 heads of 64, ffn 4096, ReLU, pre-LN, biases on every projection.
// 4 decoder tokens attending to 8 encoder states.

function m2m100Decoder(type) {
  const S = 4;
  const Se = 8;
  const D = 1024;
  const H = 16;
  const F = 4096;
  const dh = D / H;
  const eps = 1e-5;
  return {
    name: `models.m2m100.decoder_layer.${type}`,
    description: `m2m100_418M decoder layer, d_model 1024, 16 heads of 64, ffn 4096: layerNormalization, causal `
      + `self-attention (additive mask, q scaled by 1/8), layerNormalization, cross-attention over ${Se} encoder `
      + `states, layerNormalization, ReLU MLP; ${S} decoder tokens.`,
    labels: ['models', 'm2m100', type],
    build() {
      const g = new Graph(type, 800);
      g.rand('x', [1, S, D], -1, 1, { input: true });
      g.rand('encoder_hidden_states', [1, Se, D], -1, 1, { input: true });
      for (const n of ['ln1', 'ln2', 'ln3']) {
        g.rand(`${n}_g`, [D], 0.8, 1.2);
        g.rand(`${n}_b`, [D], -0.1, 0.1);
      }
      for (const p of ['self', 'cross']) {
        for (const w of ['q', 'k', 'v', 'o']) {
          g.weight(`${p}_w${w}`, [D, D]);
          g.rand(`${p}_b${w}`, [D], -0.1, 0.1);
        }
      }
      g.weight('fc1_w', [D, F]);
      g.rand('fc1_b', [F], -0.1, 0.1);
      g.weight('fc2_w', [F, D]);
      g.rand('fc2_b', [D], -0.1, 0.1);
      g.scalar('scaling', 1 / Math.sqrt(dh));
      const mask = [];
      for (let r = 0; r < S; r++) for (let c = 0; c < S; c++) mask.push(c > r ? LOWEST[type] : 0);
      g.values('causal_mask', [S, S], mask);
      const mha = (hq, hkv, Skv, p, causal) => {
        const q = g.heads(g.mul(g.linear(hq, `${p}_wq`, `${p}_bq`), 'scaling'), S, H, dh);
        const k = g.heads(g.linear(hkv, `${p}_wk`, `${p}_bk`), Skv, H, dh, [0, 2, 3, 1]);
        const v = g.heads(g.linear(hkv, `${p}_wv`, `${p}_bv`), Skv, H, dh);
        let sc = g.matmul(q, k);
        if (causal) sc = g.add(sc, 'causal_mask');
        const pr = g.softmax(sc, 3, `${p}_attn_weights`);
        const o = g.reshape(g.transpose(g.matmul(pr, v), [0, 2, 1, 3]), [1, S, D]);
        return g.linear(o, `${p}_wo`, `${p}_bo`);
      };
      const h1 = g.layerNorm('x', 'ln1_g', 'ln1_b', eps);
      const x1 = g.add('x', mha(h1, h1, S, 'self', true), 'residual_1');
      const x2 = g.add(x1, mha(g.layerNorm(x1, 'ln2_g', 'ln2_b', eps), 'encoder_hidden_states', Se, 'cross', false),
        'residual_2');
      const f = g.op('relu', [['input', g.linear(g.layerNorm(x2, 'ln3_g', 'ln3_b', eps), 'fc1_w', 'fc1_b')]]);
      g.add(x2, g.linear(f, 'fc2_w', 'fc2_b'), 'y');
      return {
        ...this,
        graph: g.graph(),
        outputs: ['y'],
        direct: (I) => direct.m2m100(I, { S, Se, D, H, F, eps: roundTo(type, eps), scale: roundTo(type, 1 / Math.sqrt(dh)) }),
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// segment-anything (sam-vit-base) image-encoder block with windowed attention: embed 768, 12 heads of 64, MLP 3072,
// GELU, LayerNorm eps 1e-6, decomposed relative positions. Token grid 8x8 (of 64x64), window 4 (of 14), so the
// grid divides into windows without padding.

function samBlock(type) {
  const G = 8;
  const ws = 4;
  const nw = G / ws;
  const B = nw * nw;
  const D = 768;
  const H = 12;
  const F = 3072;
  const dh = D / H;
  const eps = 1e-6;
  const L = ws * ws;
  return {
    name: `models.segment_anything.vit_window_block.${type}`,
    description: `segment-anything ViT-B image-encoder block, embed 768, 12 heads of 64, MLP 3072: layerNormalization, `
      + `window partition (reshape/transpose) of an ${G}x${G} token grid into ${ws}x${ws} windows, fused qkv, `
      + 'decomposed relative position terms (gather of rel_pos_h/rel_pos_w by constant indices, matmul, broadcast add), '
      + 'softmax attention, projection, window unpartition, residual, gelu MLP.',
    labels: ['models', 'segment_anything', type],
    build() {
      const g = new Graph(type, 900);
      g.rand('x', [1, G, G, D], -1, 1, { input: true });
      g.rand('ln1_g', [D], 0.8, 1.2);
      g.rand('ln1_b', [D], -0.1, 0.1);
      g.weight('w_qkv', [D, 3 * D]);
      g.rand('b_qkv', [3 * D], -0.1, 0.1);
      g.rand('rel_pos_h', [2 * ws - 1, dh], -0.2, 0.2);
      g.rand('rel_pos_w', [2 * ws - 1, dh], -0.2, 0.2);
      g.weight('w_proj', [D, D]);
      g.rand('b_proj', [D], -0.1, 0.1);
      g.rand('ln2_g', [D], 0.8, 1.2);
      g.rand('ln2_b', [D], -0.1, 0.1);
      g.weight('w_lin1', [D, F]);
      g.rand('b_lin1', [F], -0.1, 0.1);
      g.weight('w_lin2', [F, D]);
      g.rand('b_lin2', [D], -0.1, 0.1);
      const scale = roundTo(type, 1 / Math.sqrt(dh));
      g.scalar('scale', scale);
      const idx = [];
      for (let a = 0; a < ws; a++) for (let b = 0; b < ws; b++) idx.push(a - b + ws - 1);
      g.values('rel_index', [ws, ws], idx, 'int32');

      const h = g.layerNorm('x', 'ln1_g', 'ln1_b', eps, 'norm1', [3]);
      const win = g.reshape(g.transpose(g.reshape(h, [1, nw, ws, nw, ws, D]), [0, 1, 3, 2, 4, 5]), [B, L, D]);
      const qkv = g.transpose(g.reshape(g.linear(win, 'w_qkv', 'b_qkv'), [B, L, 3, H, dh]), [2, 0, 3, 1, 4]);
      const part = (i) => g.reshape(g.slice(qkv, [i, 0, 0, 0, 0], [1, B, H, L, dh]), [B * H, L, dh]);
      const q = part(0);
      const k = part(1);
      const v = part(2);
      let attn = g.matmul(g.mul(q, 'scale'), g.transpose(k, [0, 2, 1]));
      // rel_h[b, y, x, k] = sum_c q[b, y, x, c] Rh[y, k, c];  rel_w[b, y, x, k] = sum_c q[b, y, x, c] Rw[x, k, c]
      const rq = g.reshape(q, [B * H, ws, ws, dh]);
      const table = (t) => g.transpose(g.op('gather', [['input', t], ['indices', 'rel_index'], ['options', { axis: 0 }]]),
        [0, 2, 1]); // [ws (query), dh, ws (key)]
      const relH = g.transpose(g.reshape(g.matmul(g.reshape(g.transpose(rq, [1, 0, 2, 3]), [ws, B * H * ws, dh]),
        table('rel_pos_h')), [ws, B * H, ws, ws]), [1, 0, 2, 3], 'rel_h');
      const relW = g.transpose(g.reshape(g.matmul(g.reshape(g.transpose(rq, [2, 0, 1, 3]), [ws, B * H * ws, dh]),
        table('rel_pos_w')), [ws, B * H, ws, ws]), [1, 2, 0, 3], 'rel_w');
      attn = g.add(g.add(g.reshape(attn, [B * H, ws, ws, ws, ws]), g.reshape(relH, [B * H, ws, ws, ws, 1])),
        g.reshape(relW, [B * H, ws, ws, 1, ws]));
      const p = g.softmax(g.reshape(attn, [B * H, L, L]), 2, 'attn_weights');
      const o = g.reshape(g.transpose(g.reshape(g.matmul(p, v), [B, H, L, dh]), [0, 2, 1, 3]), [B, L, D]);
      const pr = g.linear(o, 'w_proj', 'b_proj');
      const un = g.reshape(g.transpose(g.reshape(pr, [1, nw, nw, ws, ws, D]), [0, 1, 3, 2, 4, 5]), [1, G, G, D]);
      const x1 = g.add('x', un, 'residual_1');
      const f = g.op('gelu', [['input', g.linear(g.layerNorm(x1, 'ln2_g', 'ln2_b', eps, 'norm2', [3]), 'w_lin1',
        'b_lin1')]]);
      g.add(x1, g.linear(f, 'w_lin2', 'b_lin2'), 'y');
      return {
        ...this,
        graph: g.graph(),
        outputs: ['y'],
        direct: (I) => direct.samBlock(I, { G, ws, D, H, F, eps: roundTo(type, eps), scale, erf: erfDouble }),
      };
    },
  };
}

const block = (file, id, b) => ({ file, id, ...b, build: b.build });

export const BLOCKS = [
  block('gpt2', 'gpt2.block.float32', gpt2Block('float32')),
  block('gpt2', 'gpt2.block.float16', gpt2Block('float16')),
  block('gpt2', 'gpt2.decode_step.float32', gpt2Decode('float32')),
  block('gpt2', 'gpt2.decode_step.float16', gpt2Decode('float16')),
  block('llama', 'llama.block.float32', llamaBlock('float32')),
  block('llama', 'llama.block.float16', llamaBlock('float16')),
  block('stable_diffusion', 'stable_diffusion.resblock.float32', sdResBlock('float32')),
  block('stable_diffusion', 'stable_diffusion.resblock.float16', sdResBlock('float16')),
  block('stable_diffusion', 'stable_diffusion.cross_attention.float32', sdCrossAttention('float32')),
  block('stable_diffusion', 'stable_diffusion.cross_attention.float16', sdCrossAttention('float16')),
  block('whisper', 'whisper.encoder_stem_layer.float32', whisperEncoder('float32')),
  block('whisper', 'whisper.encoder_stem_layer.float16', whisperEncoder('float16')),
  block('t5', 't5.encoder_block.float32', t5Block('float32')),
  block('t5', 't5.encoder_block.float16', t5Block('float16')),
  block('m2m100', 'm2m100.decoder_layer.float32', m2m100Decoder('float32')),
  block('m2m100', 'm2m100.decoder_layer.float16', m2m100Decoder('float16')),
  block('segment_anything', 'segment_anything.vit_window_block.float32', samBlock('float32')),
  block('segment_anything', 'segment_anything.vit_window_block.float16', samBlock('float16')),
];
