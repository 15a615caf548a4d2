// The blocks of cases/models: each one an operator list as a browser framework lowers the model's PyTorch module
// to WebNN builder calls, plus its model definition (models_direct.mjs) for the second check. docs/models.md
// lists sizes, operator counts and the tolerance derivation.

import { roundTo } from './numerics.mjs';
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

  layerNorm(x, g, b, eps, out) {
    return this.op('layerNormalization', [['input', x], ['options', { scale: g, bias: b, axes: [2], epsilon: eps }]],
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

const block = (file, id, b) => ({ file, id, ...b, build: b.build });

export const BLOCKS = [
  block('gpt2', 'gpt2.block.float32', gpt2Block('float32')),
  block('gpt2', 'gpt2.block.float16', gpt2Block('float16')),
  block('gpt2', 'gpt2.decode_step.float32', gpt2Decode('float32')),
  block('gpt2', 'gpt2.decode_step.float16', gpt2Decode('float16')),
  block('llama', 'llama.block.float32', llamaBlock('float32')),
  block('llama', 'llama.block.float16', llamaBlock('float16')),
];
