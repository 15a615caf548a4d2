// Cases for the recurrent operators gru, gruCell, lstm, lstmCell (WebNN §api-mlgraphbuilder-gru, -grucell,
// -lstm, -lstmcell). See README.md ("Recurrent networks").
//
// Numerics: inputs are rounded to their type when read (materialize); every cell is evaluated as the spec's
// emulation code in double (gate pre-activations as sums of products, Math.exp / Math.tanh, relu as max(0, x)),
// the recurrent hidden and cell states are kept UNROUNDED (double) between time steps, and each output tensor
// is rounded once to the operand type. A result whose double lies within a relative 2^-44 of a rounding
// boundary of the output type is refused (the generator throws), so the values do not depend on the double
// evaluation's last bits.
//
// Readings: gate layouts zrn / rzn (gru) and iofg / ifgo (lstm) order the rows of weight, recurrentWeight,
// bias and recurrentBias; peepholeWeight is always packed i, o, f (its option text); the output gate's peephole
// multiplies the incoming cell state, as the spec's emulation does (spec-notes #12); activations[0] is the
// gate activation (gru: z and r; lstm: i, f, o), activations[1] the candidate (gru n; lstm g), lstm's
// activations[2] filters the new cell state; backward direction processes slices steps-1 .. 0 and writes each
// step's hidden state at the sequence index of the slice it consumed (the emulation's prepending concat).

import { T, C, makeCase, materialize } from './casebuild.mjs';
import { FLOAT_TYPES, roundTo } from './numerics.mjs';
import { seedOf } from './winutil.mjs';

// ---------------------------------------------------------------------------------------------------------
// Activations and cells in double.

const ACT = {
  sigmoid: (x) => 1 / (1 + Math.exp(-x)),
  tanh: (x) => Math.tanh(x),
  relu: (x) => Math.max(0, x),
};

const GRU_GATES = { zrn: { z: 0, r: 1, n: 2 }, rzn: { r: 0, z: 1, n: 2 } };
const LSTM_GATES = { iofg: { i: 0, o: 1, f: 2, g: 3 }, ifgo: { i: 0, f: 1, g: 2, o: 3 } };
const PEEP = { i: 0, o: 1, f: 2 };

const dot = (w, row, v) => v.reduce((s, x, k) => s + x * w[row][k], 0);

// x: [B][I], W: [3h][I], R: [3h][h], hs: [B][h], b/rb: [3h] or null. Returns [B][h] (doubles).
export function gruCellD(x, W, R, hs, h, { b = null, rb = null, resetAfter = true, layout = 'zrn', acts }) {
  const L = GRU_GATES[layout];
  const [f, g] = (acts || ['sigmoid', 'tanh']).map((a) => ACT[a]);
  const bias = (v, gate, j) => (v ? v[L[gate] * h + j] : 0);
  return x.map((xb, bi) => {
    const hb = hs[bi];
    const pre = (gate, j) => bias(b, gate, j) + bias(rb, gate, j) + dot(W, L[gate] * h + j, xb) + dot(R, L[gate] * h + j, hb);
    const z = [], r = [];
    for (let j = 0; j < h; j++) {
      z.push(f(pre('z', j)));
      r.push(f(pre('r', j)));
    }
    const out = [];
    for (let j = 0; j < h; j++) {
      const row = L.n * h + j;
      let n;
      if (resetAfter) {
        n = g(bias(b, 'n', j) + dot(W, row, xb) + r[j] * (bias(rb, 'n', j) + dot(R, row, hb)));
      } else {
        n = g(bias(b, 'n', j) + bias(rb, 'n', j) + dot(W, row, xb) + dot(R, row, hb.map((v, k) => r[k] * v)));
      }
      out.push(z[j] * hb[j] + (1 - z[j]) * n);
    }
    return out;
  });
}

// Returns {h: [B][h], c: [B][h]}. onnxPeephole: the output gate peeps at the NEW cell state (only used to
// show that a case distinguishes the readings).
export function lstmCellD(x, W, R, hs, cs, h, { b = null, rb = null, p = null, layout = 'iofg', acts, onnxPeephole = false }) {
  const L = LSTM_GATES[layout];
  const [f1, f2, f3] = (acts || ['sigmoid', 'tanh', 'tanh']).map((a) => ACT[a]);
  const bias = (v, gate, j) => (v ? v[L[gate] * h + j] : 0);
  const H = [], Cc = [];
  x.forEach((xb, bi) => {
    const hb = hs[bi], cb = cs[bi];
    const pre = (gate, j) => bias(b, gate, j) + bias(rb, gate, j) + dot(W, L[gate] * h + j, xb) + dot(R, L[gate] * h + j, hb);
    const peep = (gate, j, c) => (p ? c * p[PEEP[gate] * h + j] : 0);
    const hr = [], cr = [];
    for (let j = 0; j < h; j++) {
      const i = f1(peep('i', j, cb[j]) + pre('i', j));
      const fg = f1(peep('f', j, cb[j]) + pre('f', j));
      const g = f2(pre('g', j));
      const ct = fg * cb[j] + i * g;
      const o = f1(peep('o', j, onnxPeephole ? ct : cb[j]) + pre('o', j));
      hr.push(o * f3(ct));
      cr.push(ct);
    }
    H.push(hr);
    Cc.push(cr);
  });
  return { h: H, c: Cc };
}

// ---------------------------------------------------------------------------------------------------------
// Tensor helpers.

function rows(values, shape) { // flat -> nested arrays over the leading dims, innermost a row
  if (shape.length === 1) return values.slice();
  const n = values.length / shape[0];
  const out = [];
  for (let i = 0; i < shape[0]; i++) out.push(rows(values.slice(i * n, (i + 1) * n), shape.slice(1)));
  return out;
}
const flat = (a) => (Array.isArray(a) ? a.flatMap(flat) : [a]);
const zeros = (B, h) => Array.from({ length: B }, () => new Array(h).fill(0));

// Deterministic data: multiples of 1/8 in [-lim, lim] (exact in float16 and float32).
function data(name, k, count, lim = 1) {
  let s = seedOf(name, k);
  const out = [];
  const span = Math.round(16 * lim) + 1;
  for (let i = 0; i < count; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out.push(((s >>> 8) % span) / 8 - lim);
  }
  return out;
}

function rounded(dt, name, values) { // round once, refusing values too close to a rounding boundary
  return values.map((v) => {
    const r = roundTo(dt, v);
    const eps = Math.abs(v) * 2 ** -44;
    if (roundTo(dt, v + eps) !== r || roundTo(dt, v - eps) !== r) {
      throw new Error(`${name}: ${v} is too close to a ${dt} rounding boundary; change the data`);
    }
    return r;
  });
}

const cnt = (shape) => shape.reduce((a, d) => a * d, 1);

// ---------------------------------------------------------------------------------------------------------
// Case builders. spec: {B, I, h, steps?, opts: {bias, recurrentBias, peepholeWeight, initialHiddenState,
// initialCellState: true/false, plus literal options}, constant, dataOverride}.

const OPERAND_OPTS = ['bias', 'recurrentBias', 'peepholeWeight', 'initialHiddenState', 'initialCellState'];

function buildInputs(dt, name, shapes, { constant = false, lim = 1, given = {} }) {
  const inputs = {};
  let k = 0;
  for (const [key, shape] of Object.entries(shapes)) {
    const d = given[key] ?? data(name, k++, cnt(shape), lim);
    inputs[key] = (constant && key !== 'input') ? C(dt, shape, d) : T(dt, shape, d);
  }
  return inputs;
}

function splitOpts(opts) {
  const literal = {}, operands = {};
  for (const [k, v] of Object.entries(opts || {})) {
    if (OPERAND_OPTS.includes(k)) { if (v) operands[k] = true; } else literal[k] = v;
  }
  return { literal, operands };
}

function optionsArg(literal, operands) {
  const o = { ...literal };
  for (const k of OPERAND_OPTS) if (operands[k]) o[k] = k;
  return o;
}

function gruCellCase(dt, tag, { B = 1, I = 2, h = 2, opts, labels = [], constant, lim, given, noOptions = false }) {
  const name = `webnn.gruCell.${dt}.${tag}`;
  const { literal, operands } = splitOpts(opts);
  const shapes = { input: [B, I], weight: [3 * h, I], recurrentWeight: [3 * h, h], hiddenState: [B, h] };
  if (operands.bias) shapes.bias = [3 * h];
  if (operands.recurrentBias) shapes.recurrentBias = [3 * h];
  const inputs = buildInputs(dt, name, shapes, { constant, lim, given });
  const v = (k) => materialize(inputs[k]);
  const out = gruCellD(rows(v('input'), [B, I]), rows(v('weight'), [3 * h, I]), rows(v('recurrentWeight'), [3 * h, h]),
    rows(v('hiddenState'), [B, h]), h, {
      b: operands.bias ? v('bias') : null, rb: operands.recurrentBias ? v('recurrentBias') : null,
      resetAfter: literal.resetAfter ?? true, layout: literal.layout ?? 'zrn', acts: literal.activations,
    });
  const args = [{ input: 'input' }, { weight: 'weight' }, { recurrentWeight: 'recurrentWeight' },
    { hiddenState: 'hiddenState' }, { hiddenSize: h }];
  if (!noOptions) args.push({ options: optionsArg(literal, operands) });
  return makeCase({
    name, labels: ['gruCell', dt, ...labels], inputs,
    operators: [{ name: 'gruCell', arguments: args, outputs: 'output' }],
    outputs: { output: { dtype: dt, shape: [B, h], values: rounded(dt, name, flat(out)) } },
  });
}

function lstmCellCase(dt, tag, { B = 1, I = 2, h = 2, opts, labels = [], constant, lim, given, noOptions = false, distinguishPeephole = false }) {
  const name = `webnn.lstmCell.${dt}.${tag}`;
  const { literal, operands } = splitOpts(opts);
  const shapes = { input: [B, I], weight: [4 * h, I], recurrentWeight: [4 * h, h], hiddenState: [B, h], cellState: [B, h] };
  if (operands.bias) shapes.bias = [4 * h];
  if (operands.recurrentBias) shapes.recurrentBias = [4 * h];
  if (operands.peepholeWeight) shapes.peepholeWeight = [3 * h];
  const inputs = buildInputs(dt, name, shapes, { constant, lim, given });
  const v = (k) => materialize(inputs[k]);
  const run = (onnxPeephole) => lstmCellD(rows(v('input'), [B, I]), rows(v('weight'), [4 * h, I]),
    rows(v('recurrentWeight'), [4 * h, h]), rows(v('hiddenState'), [B, h]), rows(v('cellState'), [B, h]), h, {
      b: operands.bias ? v('bias') : null, rb: operands.recurrentBias ? v('recurrentBias') : null,
      p: operands.peepholeWeight ? v('peepholeWeight') : null,
      layout: literal.layout ?? 'iofg', acts: literal.activations, onnxPeephole,
    });
  const out = run(false);
  const H = rounded(dt, name, flat(out.h));
  if (distinguishPeephole) {
    const alt = rounded(dt, name, flat(run(true).h));
    if (alt.every((x, i) => Math.abs(x - H[i]) < 1e-2 * Math.max(1e-3, Math.abs(H[i])))) {
      throw new Error(`${name}: the two peephole readings do not differ clearly`);
    }
  }
  const args = [{ input: 'input' }, { weight: 'weight' }, { recurrentWeight: 'recurrentWeight' },
    { hiddenState: 'hiddenState' }, { cellState: 'cellState' }, { hiddenSize: h }];
  if (!noOptions) args.push({ options: optionsArg(literal, operands) });
  return makeCase({
    name, labels: ['lstmCell', dt, ...labels], inputs,
    operators: [{ name: 'lstmCell', arguments: args, outputs: ['hidden', 'cell'] }],
    outputs: {
      hidden: { dtype: dt, shape: [B, h], values: H },
      cell: { dtype: dt, shape: [B, h], values: rounded(dt, name, flat(out.c)) },
    },
  });
}

// The sequence operators: slice per direction, run the cell over the steps with unrounded state.
function runSequence(kind, { steps, B, I, h, D, direction, v, operands, literal }) {
  const G = kind === 'gru' ? 3 : 4;
  const X = rows(v('input'), [steps, B, I]);
  const W = rows(v('weight'), [D, G * h, I]);
  const R = rows(v('recurrentWeight'), [D, G * h, h]);
  const per = (k, len) => (operands[k] ? rows(v(k), [D, len]) : null);
  const bias = per('bias', G * h), rbias = per('recurrentBias', G * h), peep = per('peepholeWeight', 3 * h);
  const H0 = operands.initialHiddenState ? rows(v('initialHiddenState'), [D, B, h]) : null;
  const C0 = operands.initialCellState ? rows(v('initialCellState'), [D, B, h]) : null;
  const outH = [], outC = [];
  const seq = Array.from({ length: steps }, () => new Array(D));
  for (let d = 0; d < D; d++) {
    let hs = H0 ? H0[d] : zeros(B, h);
    let cs = C0 ? C0[d] : zeros(B, h);
    for (let step = 0; step < steps; step++) {
      const t = (d === 1 || direction === 'backward') ? steps - step - 1 : step;
      if (kind === 'gru') {
        hs = gruCellD(X[t], W[d], R[d], hs, h, {
          b: bias && bias[d], rb: rbias && rbias[d], resetAfter: literal.resetAfter ?? true,
          layout: literal.layout ?? 'zrn', acts: literal.activations,
        });
      } else {
        ({ h: hs, c: cs } = lstmCellD(X[t], W[d], R[d], hs, cs, h, {
          b: bias && bias[d], rb: rbias && rbias[d], p: peep && peep[d],
          layout: literal.layout ?? 'iofg', acts: literal.activations,
        }));
      }
      seq[t][d] = hs;
    }
    outH.push(hs);
    outC.push(cs);
  }
  return { outH, outC, seq };
}

function seqCase(kind, dt, tag, { steps = 2, B = 1, I = 2, h = 2, opts, labels = [], constant, lim, given, noOptions = false }) {
  const name = `webnn.${kind}.${dt}.${tag}`;
  const { literal, operands } = splitOpts(opts);
  const direction = literal.direction ?? 'forward';
  const D = direction === 'both' ? 2 : 1;
  const G = kind === 'gru' ? 3 : 4;
  const shapes = { input: [steps, B, I], weight: [D, G * h, I], recurrentWeight: [D, G * h, h] };
  if (operands.bias) shapes.bias = [D, G * h];
  if (operands.recurrentBias) shapes.recurrentBias = [D, G * h];
  if (operands.peepholeWeight) shapes.peepholeWeight = [D, 3 * h];
  if (operands.initialHiddenState) shapes.initialHiddenState = [D, B, h];
  if (operands.initialCellState) shapes.initialCellState = [D, B, h];
  const inputs = buildInputs(dt, name, shapes, { constant, lim, given });
  const v = (k) => materialize(inputs[k]);
  const r = runSequence(kind, { steps, B, I, h, D, direction, v, operands, literal });
  const args = [{ input: 'input' }, { weight: 'weight' }, { recurrentWeight: 'recurrentWeight' },
    { steps }, { hiddenSize: h }];
  if (!noOptions) args.push({ options: optionsArg(literal, operands) });
  const outputs = {};
  const names = [];
  const add = (k, shape, vals) => {
    names.push(k);
    outputs[k] = { dtype: dt, shape, values: rounded(dt, name, flat(vals)) };
  };
  add(kind === 'gru' ? 'output' : 'hidden', [D, B, h], r.outH);
  if (kind === 'lstm') add('cell', [D, B, h], r.outC);
  if (literal.returnSequence) add('sequence', [steps, D, B, h], r.seq);
  return makeCase({
    name, labels: [kind, dt, ...labels], inputs,
    operators: [{ name: kind, arguments: args, outputs: names }], outputs,
  });
}

// ---------------------------------------------------------------------------------------------------------
// Valid cases.

const NON_EXACT = (n) => Array.from({ length: n }, (_, i) => [0.1, -0.3, 0.7, -0.9, 0.2, 0.6][i % 6] * (1 + i / 7));

function gruCellCases(dt) {
  const c = (tag, o) => gruCellCase(dt, tag, o);
  const all = { bias: true, recurrentBias: true };
  return [
    c('no_options', { noOptions: true }),
    c('empty_options', { opts: {} }),
    c('bias', { opts: { bias: true } }),
    c('recurrent_bias', { opts: { recurrentBias: true } }),
    c('bias_and_recurrent_bias', { opts: all }),
    c('defaults_spelled_out', { opts: { ...all, resetAfter: true, layout: 'zrn', activations: ['sigmoid', 'tanh'] } }),
    c('reset_after_false', { opts: { ...all, resetAfter: false }, labels: ['reset_after'] }),
    c('reset_after_false_no_bias', { opts: { resetAfter: false }, h: 3, I: 1, labels: ['reset_after'] }),
    c('layout_rzn', { opts: { ...all, layout: 'rzn' }, labels: ['layout'] }),
    c('layout_rzn_reset_after_false', { opts: { ...all, layout: 'rzn', resetAfter: false }, labels: ['layout', 'reset_after'] }),
    c('activations_relu_relu', { opts: { ...all, activations: ['relu', 'relu'] }, labels: ['activations'] }),
    c('activations_tanh_sigmoid', { opts: { ...all, activations: ['tanh', 'sigmoid'] }, labels: ['activations'] }),
    c('activations_sigmoid_relu_reset_after_false', { opts: { ...all, activations: ['sigmoid', 'relu'], resetAfter: false }, labels: ['activations'] }),
    c('batch3_hidden1_input1', { B: 3, I: 1, h: 1, opts: all, labels: ['batch'] }),
    c('batch2_hidden3_input3', { B: 2, I: 3, h: 3, opts: { ...all, layout: 'rzn' }, labels: ['batch'] }),
    c('constant_weights', { B: 2, opts: all, constant: true, labels: ['constant'] }),
    c('large_values_saturate', { B: 2, opts: all, lim: 8, labels: ['saturation'] }),
    c('inputs_round_to_type', { B: 2, I: 2, h: 1, opts: all, given: { input: NON_EXACT(4), weight: NON_EXACT(6), hiddenState: NON_EXACT(2).reverse() }, labels: ['input_rounding'] }),
  ];
}

function gruCases(dt) {
  const c = (tag, o) => seqCase('gru', dt, tag, o);
  const all = { bias: true, recurrentBias: true, initialHiddenState: true };
  return [
    c('no_options_steps1', { steps: 1, noOptions: true }),
    c('empty_options_steps3', { steps: 3, opts: {} }),
    c('forward_steps3_bias', { steps: 3, opts: { bias: true } }),
    c('forward_steps3_recurrent_bias', { steps: 3, opts: { recurrentBias: true } }),
    c('forward_initial_hidden_state', { steps: 2, opts: { initialHiddenState: true } }),
    c('forward_all_operands_return_sequence', { steps: 3, B: 2, opts: { ...all, returnSequence: true }, labels: ['return_sequence'] }),
    c('forward_return_sequence_false', { steps: 2, opts: { ...all, returnSequence: false } }),
    c('defaults_spelled_out', { steps: 2, opts: { ...all, resetAfter: true, returnSequence: false, direction: 'forward', layout: 'zrn', activations: ['sigmoid', 'tanh'] } }),
    c('backward_steps3', { steps: 3, opts: { ...all, direction: 'backward' }, labels: ['direction'] }),
    c('backward_return_sequence', { steps: 3, B: 2, opts: { ...all, direction: 'backward', returnSequence: true }, labels: ['direction', 'return_sequence'] }),
    c('backward_no_initial_state_return_sequence', { steps: 3, opts: { bias: true, direction: 'backward', returnSequence: true }, labels: ['direction', 'return_sequence'] }),
    c('both_steps1', { steps: 1, opts: { ...all, direction: 'both' }, labels: ['direction'] }),
    c('both_return_sequence', { steps: 3, B: 2, opts: { ...all, direction: 'both', returnSequence: true }, labels: ['direction', 'return_sequence'] }),
    c('both_no_options_operands', { steps: 2, opts: { direction: 'both', returnSequence: true }, labels: ['direction', 'return_sequence'] }),
    c('reset_after_false', { steps: 3, opts: { ...all, resetAfter: false, returnSequence: true }, labels: ['reset_after', 'return_sequence'] }),
    c('reset_after_false_both', { steps: 2, B: 2, opts: { ...all, resetAfter: false, direction: 'both', returnSequence: true }, labels: ['reset_after', 'direction'] }),
    c('layout_rzn', { steps: 2, opts: { ...all, layout: 'rzn', returnSequence: true }, labels: ['layout'] }),
    c('layout_rzn_both_reset_after_false', { steps: 2, opts: { ...all, layout: 'rzn', direction: 'both', resetAfter: false }, labels: ['layout', 'direction', 'reset_after'] }),
    c('activations_relu_tanh', { steps: 3, opts: { ...all, activations: ['relu', 'tanh'], returnSequence: true }, labels: ['activations'] }),
    c('activations_sigmoid_relu_backward', { steps: 3, opts: { ...all, activations: ['sigmoid', 'relu'], direction: 'backward' }, labels: ['activations', 'direction'] }),
    c('activations_tanh_sigmoid_both', { steps: 2, opts: { ...all, activations: ['tanh', 'sigmoid'], direction: 'both', returnSequence: true }, labels: ['activations', 'direction'] }),
    c('hidden1_input1_batch3', { steps: 4, B: 3, I: 1, h: 1, opts: { ...all, returnSequence: true }, labels: ['batch'] }),
    c('hidden3_input3_batch2', { steps: 2, B: 2, I: 3, h: 3, opts: { ...all, direction: 'both', returnSequence: true }, labels: ['batch'] }),
    c('constant_weights', { steps: 2, B: 2, opts: { ...all, returnSequence: true }, constant: true, labels: ['constant'] }),
    c('large_values_saturate', { steps: 3, opts: { ...all, direction: 'both' }, lim: 8, labels: ['saturation'] }),
    c('steps5_state_carried_unrounded', { steps: 5, opts: { ...all, returnSequence: true }, labels: ['unrounded_state'] }),
  ];
}

function lstmCellCases(dt) {
  const c = (tag, o) => lstmCellCase(dt, tag, o);
  const all = { bias: true, recurrentBias: true, peepholeWeight: true };
  return [
    c('no_options', { noOptions: true }),
    c('empty_options', { opts: {} }),
    c('bias', { opts: { bias: true } }),
    c('recurrent_bias', { opts: { recurrentBias: true } }),
    c('peephole_weight', { opts: { peepholeWeight: true }, labels: ['peephole'] }),
    c('all_operands', { opts: all }),
    c('defaults_spelled_out', { opts: { ...all, layout: 'iofg', activations: ['sigmoid', 'tanh', 'tanh'] } }),
    c('layout_ifgo', { opts: { ...all, layout: 'ifgo' }, labels: ['layout', 'peephole'] }),
    c('layout_ifgo_no_peephole', { opts: { bias: true, recurrentBias: true, layout: 'ifgo' }, labels: ['layout'] }),
    c('activations_relu_relu_relu', { opts: { ...all, activations: ['relu', 'relu', 'relu'] }, labels: ['activations'] }),
    c('activations_tanh_sigmoid_relu', { opts: { ...all, activations: ['tanh', 'sigmoid', 'relu'] }, labels: ['activations'] }),
    c('activations_sigmoid_relu_sigmoid', { opts: { ...all, activations: ['sigmoid', 'relu', 'sigmoid'] }, labels: ['activations'] }),
    c('batch3_hidden1_input1', { B: 3, I: 1, h: 1, opts: all, labels: ['batch'] }),
    c('batch2_hidden3_input3', { B: 2, I: 3, h: 3, opts: { ...all, layout: 'ifgo' }, labels: ['batch'] }),
    c('constant_weights', { B: 2, opts: all, constant: true, labels: ['constant'] }),
    c('large_values_saturate', { B: 2, opts: all, lim: 8, labels: ['saturation'] }),
    c('inputs_round_to_type', { B: 2, I: 2, h: 1, opts: all, given: { input: NON_EXACT(4), weight: NON_EXACT(8), cellState: NON_EXACT(2).reverse() }, labels: ['input_rounding'] }),
    // spec-notes #12: the output gate's peephole multiplies the incoming cell state (the spec's emulation).
    c('peephole_output_gate_uses_incoming_cell_state', {
      B: 1, I: 1, h: 1, opts: { peepholeWeight: true }, distinguishPeephole: true, labels: ['peephole', 'spec_notes_12'],
      given: { input: [1], weight: [0.5, 0, 0, 1], recurrentWeight: [0, 0, 0, 0], hiddenState: [0], cellState: [-2], peepholeWeight: [0, 3, 0] },
    }),
  ];
}

function lstmCases(dt) {
  const c = (tag, o) => seqCase('lstm', dt, tag, o);
  const all = { bias: true, recurrentBias: true, peepholeWeight: true, initialHiddenState: true, initialCellState: true };
  return [
    c('no_options_steps1', { steps: 1, noOptions: true }),
    c('empty_options_steps3', { steps: 3, opts: {} }),
    c('forward_bias', { steps: 2, opts: { bias: true } }),
    c('forward_recurrent_bias', { steps: 2, opts: { recurrentBias: true } }),
    c('forward_peephole', { steps: 3, opts: { peepholeWeight: true, initialCellState: true }, labels: ['peephole'] }),
    c('forward_initial_hidden_state_only', { steps: 2, opts: { initialHiddenState: true } }),
    c('forward_initial_cell_state_only', { steps: 2, opts: { initialCellState: true } }),
    c('forward_all_operands_return_sequence', { steps: 3, B: 2, opts: { ...all, returnSequence: true }, labels: ['return_sequence'] }),
    c('forward_return_sequence_false', { steps: 2, opts: { ...all, returnSequence: false } }),
    c('defaults_spelled_out', { steps: 2, opts: { ...all, returnSequence: false, direction: 'forward', layout: 'iofg', activations: ['sigmoid', 'tanh', 'tanh'] } }),
    c('backward_steps3', { steps: 3, opts: { ...all, direction: 'backward' }, labels: ['direction'] }),
    c('backward_return_sequence', { steps: 3, B: 2, opts: { ...all, direction: 'backward', returnSequence: true }, labels: ['direction', 'return_sequence'] }),
    c('backward_no_initial_state_return_sequence', { steps: 3, opts: { bias: true, direction: 'backward', returnSequence: true }, labels: ['direction', 'return_sequence'] }),
    c('both_steps1', { steps: 1, opts: { ...all, direction: 'both' }, labels: ['direction'] }),
    c('both_return_sequence', { steps: 3, B: 2, opts: { ...all, direction: 'both', returnSequence: true }, labels: ['direction', 'return_sequence'] }),
    c('both_no_options_operands', { steps: 2, opts: { direction: 'both', returnSequence: true }, labels: ['direction', 'return_sequence'] }),
    c('layout_ifgo', { steps: 2, opts: { ...all, layout: 'ifgo', returnSequence: true }, labels: ['layout'] }),
    c('layout_ifgo_both', { steps: 2, B: 2, opts: { ...all, layout: 'ifgo', direction: 'both', returnSequence: true }, labels: ['layout', 'direction'] }),
    c('activations_relu_tanh_relu', { steps: 3, opts: { ...all, activations: ['relu', 'tanh', 'relu'], returnSequence: true }, labels: ['activations'] }),
    c('activations_sigmoid_relu_tanh_backward', { steps: 3, opts: { ...all, activations: ['sigmoid', 'relu', 'tanh'], direction: 'backward' }, labels: ['activations', 'direction'] }),
    c('activations_tanh_sigmoid_sigmoid_both', { steps: 2, opts: { ...all, activations: ['tanh', 'sigmoid', 'sigmoid'], direction: 'both', returnSequence: true }, labels: ['activations', 'direction'] }),
    c('hidden1_input1_batch3', { steps: 4, B: 3, I: 1, h: 1, opts: { ...all, returnSequence: true }, labels: ['batch'] }),
    c('hidden3_input3_batch2', { steps: 2, B: 2, I: 3, h: 3, opts: { ...all, direction: 'both', returnSequence: true }, labels: ['batch'] }),
    c('constant_weights', { steps: 2, B: 2, opts: { ...all, returnSequence: true }, constant: true, labels: ['constant'] }),
    c('large_values_saturate', { steps: 3, opts: { ...all, direction: 'both' }, lim: 8, labels: ['saturation'] }),
    c('steps5_state_carried_unrounded', { steps: 5, opts: { ...all, returnSequence: true }, labels: ['unrounded_state'] }),
  ];
}

// ---------------------------------------------------------------------------------------------------------
// Errors. Each case builds from a valid configuration with one thing changed.

function errCase(op, tag, { inputs, args, outputs, labels = [] }) {
  return makeCase({
    name: `webnn.${op}.float32.error.${tag}`, labels: [op, 'float32', ...labels], inputs, expectedError: 'TypeError',
    operators: [{ name: op, arguments: args, outputs }],
  });
}

// base: {shapes: {name: shape}, dtypes overrides, steps, hiddenSize, options literal, operand options}.
function rnnErrors(op) {
  const cell = op.endsWith('Cell');
  const G = op.startsWith('gru') ? 3 : 4;
  const h = 2, I = 2, B = 1, S = 2;
  const outputs = op === 'gru' ? ['output'] : op === 'gruCell' ? 'output' : op === 'lstm' ? ['hidden', 'cell'] : ['hidden', 'cell'];
  const base = () => {
    const shapes = cell
      ? { input: [B, I], weight: [G * h, I], recurrentWeight: [G * h, h], hiddenState: [B, h] }
      : { input: [S, B, I], weight: [1, G * h, I], recurrentWeight: [1, G * h, h] };
    if (op === 'lstmCell') shapes.cellState = [B, h];
    return { shapes, types: {}, steps: S, hiddenSize: h, opts: {} };
  };
  const build = (tag, mutate, labels = []) => {
    const b = base();
    mutate(b);
    const inputs = {};
    for (const [k, shape] of Object.entries(b.shapes)) inputs[k] = T(b.types[k] || 'float32', shape, 1); // 1 is valid data for every type
    const args = [{ input: 'input' }, { weight: 'weight' }, { recurrentWeight: 'recurrentWeight' }];
    if (cell) {
      args.push({ hiddenState: 'hiddenState' });
      if (op === 'lstmCell') args.push({ cellState: 'cellState' });
    } else args.push({ steps: b.steps });
    args.push({ hiddenSize: b.hiddenSize });
    const o = { ...b.opts };
    for (const k of Object.keys(b.shapes)) if (OPERAND_OPTS.includes(k)) o[k] = k;
    args.push({ options: o });
    return errCase(op, tag, { inputs, args, outputs, labels });
  };
  const D = (b) => (cell ? [] : [b.opts.direction === 'both' ? 2 : 1]);
  const state = cell ? [B, h] : [1, B, h];
  const cases = [];
  const add = (tag, m, l) => cases.push(build(tag, m, l));
  add('input_int32', (b) => { for (const k of Object.keys(b.shapes)) b.types[k] = 'int32'; });
  add('input_float16_weights_float32', (b) => { b.types.input = 'float16'; });
  add('weight_float16', (b) => { b.types.weight = 'float16'; });
  add('recurrent_weight_float16', (b) => { b.types.recurrentWeight = 'float16'; });
  add('input_rank_wrong', (b) => { b.shapes.input = cell ? [B, 1, I] : [S * B, I]; });
  add('weight_rank_wrong', (b) => { b.shapes.weight = cell ? [1, G * h, I] : [G * h, I]; });
  add('recurrent_weight_rank_wrong', (b) => { b.shapes.recurrentWeight = cell ? [G * h * h] : [1, 1, G * h, h]; });
  add('weight_gate_rows_wrong', (b) => { b.shapes.weight = [...D(b), (G - 1) * h, I]; });
  add('weight_input_size_wrong', (b) => { b.shapes.weight = [...D(b), G * h, I + 1]; });
  add('recurrent_weight_rows_wrong', (b) => { b.shapes.recurrentWeight = [...D(b), G * h + 1, h]; });
  add('recurrent_weight_columns_wrong', (b) => { b.shapes.recurrentWeight = [...D(b), G * h, h + 1]; });
  add('hidden_size_zero', (b) => { b.hiddenSize = 0; });
  add('hidden_size_mismatch', (b) => { b.hiddenSize = 3; });
  // G * hiddenSize wraps around 2^32 to G * h (a 32-bit product would accept the weight shapes).
  add('hidden_size_times_gates_wraps_2_32', (b) => {
    b.hiddenSize = G === 3 ? 1431655766 : 1073741825; // G * hiddenSize = 2^32 + 2 (gru) / 2^32 + 4 (lstm)
    b.shapes.weight = [...D(b), (G * b.hiddenSize) % 2 ** 32, I];
  }, ['overflow']);
  add('hidden_size_enforce_range_2_32', (b) => { b.hiddenSize = 4294967298; }, ['webidl']);
  add('hidden_size_negative', (b) => { b.hiddenSize = -2; }, ['webidl']);
  add('bias_float16', (b) => { b.shapes.bias = [...D(b), G * h]; b.types.bias = 'float16'; });
  add('bias_shape_wrong', (b) => { b.shapes.bias = [...D(b), G * h + 1]; });
  add('bias_rank_wrong', (b) => { b.shapes.bias = cell ? [1, G * h] : [G * h]; });
  add('recurrent_bias_int32', (b) => { b.shapes.recurrentBias = [...D(b), G * h]; b.types.recurrentBias = 'int32'; });
  add('recurrent_bias_shape_wrong', (b) => { b.shapes.recurrentBias = [...D(b), (G - 1) * h]; });
  add('activations_size_1', (b) => { b.opts.activations = ['sigmoid']; });
  add('activations_size_wrong', (b) => { b.opts.activations = G === 3 ? ['sigmoid', 'tanh', 'tanh'] : ['sigmoid', 'tanh']; });
  add('activations_empty', (b) => { b.opts.activations = []; });
  add('activations_invalid_enum', (b) => { b.opts.activations = G === 3 ? ['sigmoid', 'gelu'] : ['sigmoid', 'tanh', 'softmax']; }, ['webidl']);
  add('layout_invalid_enum', (b) => { b.opts.layout = G === 3 ? 'iofg' : 'zrn'; }, ['webidl']);
  if (cell) {
    add('hidden_state_float16', (b) => { b.types.hiddenState = 'float16'; });
    add('hidden_state_rank_wrong', (b) => { b.shapes.hiddenState = [1, B, h]; });
    add('hidden_state_batch_wrong', (b) => { b.shapes.hiddenState = [B + 1, h]; });
    add('hidden_state_size_wrong', (b) => { b.shapes.hiddenState = [B, h + 1]; });
    add('input_int64_all', (b) => { for (const k of Object.keys(b.shapes)) b.types[k] = 'int64'; });
  } else {
    add('steps_zero', (b) => { b.steps = 0; });
    add('steps_mismatch', (b) => { b.steps = S + 1; });
    add('steps_negative', (b) => { b.steps = -1; }, ['webidl']);
    add('direction_both_weights_one_direction', (b) => { b.opts.direction = 'both'; });
    add('direction_forward_weights_two_directions', (b) => {
      b.shapes.weight = [2, G * h, I];
      b.shapes.recurrentWeight = [2, G * h, h];
    });
    add('direction_invalid_enum', (b) => { b.opts.direction = 'bidirectional'; }, ['webidl']);
    add('bias_directions_wrong', (b) => { b.opts.direction = 'both'; b.shapes.weight = [2, G * h, I]; b.shapes.recurrentWeight = [2, G * h, h]; b.shapes.bias = [1, G * h]; });
    add('initial_hidden_state_float16', (b) => { b.shapes.initialHiddenState = state; b.types.initialHiddenState = 'float16'; });
    add('initial_hidden_state_batch_wrong', (b) => { b.shapes.initialHiddenState = [1, B + 1, h]; });
    add('initial_hidden_state_rank_wrong', (b) => { b.shapes.initialHiddenState = [B, h]; });
    add('initial_hidden_state_directions_wrong', (b) => { b.shapes.initialHiddenState = [2, B, h]; });
  }
  if (op.startsWith('lstm')) {
    add('peephole_weight_float16', (b) => { b.shapes.peepholeWeight = [...D(b), 3 * h]; b.types.peepholeWeight = 'float16'; });
    add('peephole_weight_four_gates', (b) => { b.shapes.peepholeWeight = [...D(b), 4 * h]; });
    add('peephole_weight_rank_wrong', (b) => { b.shapes.peepholeWeight = cell ? [1, 3 * h] : [3 * h]; });
  }
  if (op === 'lstmCell') {
    add('cell_state_float16', (b) => { b.types.cellState = 'float16'; });
    add('cell_state_rank_wrong', (b) => { b.shapes.cellState = [B * h]; });
    add('cell_state_shape_wrong', (b) => { b.shapes.cellState = [B, h + 1]; });
  }
  if (op === 'lstm') {
    add('initial_cell_state_int32', (b) => { b.shapes.initialCellState = state; b.types.initialCellState = 'int32'; });
    add('initial_cell_state_shape_wrong', (b) => { b.shapes.initialCellState = [1, B, h + 1]; });
  }
  return cases;
}

export function rnnFiles() {
  const files = { gru: [], gruCell: [], lstm: [], lstmCell: [] };
  for (const dt of FLOAT_TYPES) {
    files.gruCell.push(...gruCellCases(dt));
    files.gru.push(...gruCases(dt));
    files.lstmCell.push(...lstmCellCases(dt));
    files.lstm.push(...lstmCases(dt));
  }
  for (const op of Object.keys(files)) files[op].push(...rnnErrors(op));
  return files;
}
