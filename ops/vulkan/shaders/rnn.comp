// One step of one direction of gru (§api-mlgraphbuilder-gru), gruCell
// (§api-mlgraphbuilder-grucell), lstm (§api-mlgraphbuilder-lstm) and lstmCell
// (§api-mlgraphbuilder-lstmcell) for the vulkan backend (ops/vulkan/rnn.cc runs it once per
// step and direction). One invocation per (batch row n, hidden unit j). Bindings:
//   in0 = the input x [steps, batch, inputSize] in the operands' type (float32 or float16, packed
//         two to a word), the step's rows x_t at element offset NNVK_RNN_P_X;
//   in1 = the direction's weight [G H, inputSize], recurrentWeight [G H, H], bias [G H],
//         recurrentBias [G H] and peepholeWeight [3 H] concatenated in the operands' type, at the
//         element offsets of the params (an absent optional operand: offset NNVK_RNN_ABSENT, the
//         emulation's zero constant);
//   in2 = the float32 state: hidden h [batch, H], then (lstm) cell c [batch, H], then (gru without
//         resetAfter, cell pass) r * h [batch, H] from the reset pass;
//   out = float32: the new hidden state [batch, H], then (lstm) the new cell state [batch, H]; the
//         reset pass writes h (copied) then r * h [batch, H], the cell pass's in2.
// Every gate's pre-activation (bias + recurrentBias + x·W + h·R, + c * peephole for lstm's i, o, f
// gates) is one compensated sum (AddProduct/Finish of common.glsl: every product's and sum's
// rounding error kept) rounded once to float32; the activations use common.glsl's precise Exp and
// Tanh; relu keeps NaN, as the reference's does.
#version 450
#extension GL_GOOGLE_include_directive : require

#include "codes.h"
#include "params.h"
#include "common.glsl"

#include "float_io.glsl"

float Activate(uint act, float x) {
  if (act == NNVK_RELU) return x > 0.0 ? x : (isnan(x) ? x : 0.0);
  if (act == NNVK_SIGMOID) {
    if (x >= 0.0) return 1.0 / (1.0 + Exp(-x));
    const float e = Exp(x);  // NaN stays NaN
    return e / (1.0 + e);
  }
  return Tanh(x);
}

uint Type() { return p[NNVK_RNN_P_TYPE]; }
uint Row(uint gate) { return p[NNVK_RNN_P_ROWS + gate]; }

// Element e of the operand at element offset `offset` of in1 (0 for an absent operand).
float Weight(uint offset, uint e) {
  if (offset == NNVK_RNN_ABSENT) return 0.0;
  return Load(1u, Type(), offset + e);
}

// Adds h_n · R[row] (h at element offset h0 of in2) to s + comp.
void AddRecurrentDot(uint h0, uint n, uint row, inout float s, inout float comp) {
  const uint H = p[NNVK_RNN_P_HIDDEN], r0 = p[NNVK_RNN_P_R] + row * H;
  for (uint k = 0u; k < H; ++k) {
    AddProduct(Load(2u, NNVK_F32, h0 + n * H + k), Load(1u, Type(), r0 + k), s, comp);
  }
}

// Adds x_n · W[row] to s + comp.
void AddInputDot(uint n, uint row, inout float s, inout float comp) {
  const uint I = p[NNVK_RNN_P_INPUT], w0 = p[NNVK_RNN_P_W] + row * I;
  for (uint k = 0u; k < I; ++k) {
    AddProduct(Load(0u, Type(), p[NNVK_RNN_P_X] + n * I + k), Load(1u, Type(), w0 + k), s, comp);
  }
}

// Adds bias[row] + recurrentBias[row] to s + comp.
void AddBiases(uint row, inout float s, inout float comp) {
  AddProduct(Weight(p[NNVK_RNN_P_B], row), 1.0, s, comp);
  AddProduct(Weight(p[NNVK_RNN_P_RB], row), 1.0, s, comp);
}

// act(bias + recurrentBias + x_n · W[row] + h_n · R[row]), the sum rounded once.
float Gate(uint act, uint n, uint row) {
  float s = -0.0, comp = 0.0;
  AddInputDot(n, row, s, comp);
  AddRecurrentDot(0u, n, row, s, comp);
  AddBiases(row, s, comp);
  return Activate(act, Finish(s, comp));
}

void main() {
  const uint H = p[NNVK_RNN_P_HIDDEN], count = p[NNVK_RNN_P_BATCH] * H;
  const uint mode = p[NNVK_RNN_P_MODE];
  const uint act0 = p[NNVK_RNN_P_ACT0], act1 = p[NNVK_RNN_P_ACT1], act2 = p[NNVK_RNN_P_ACT2];
  const uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint g = gl_GlobalInvocationID.x; g < count; g += step) {
    const uint n = g / H, j = g % H;
    const float h = Load(2u, NNVK_F32, g);
    if (mode == NNVK_RNN_GRU_RESET) {
      // h and r * h for the new gate's (r * h) · Rn (gru without resetAfter): the next
      // dispatch's in2.
      const float r = Gate(act0, n, Row(1u) + j);
      precise const float rh = r * h;
      o[g] = floatBitsToUint(h);
      o[count + g] = floatBitsToUint(rh);
    } else if (mode == NNVK_RNN_GRU) {
      const float z = Gate(act0, n, Row(0u) + j);
      const uint row = Row(2u) + j;
      float s = -0.0, comp = 0.0;
      if (p[NNVK_RNN_P_RESET_AFTER] != 0u) {
        // bn + (x·Wn + r * (rbn + h·Rn)): rbn + h·Rn kept as a double-float, times r.
        const float r = Gate(act0, n, Row(1u) + j);
        float rs = -0.0, rcomp = 0.0;
        AddRecurrentDot(0u, n, row, rs, rcomp);
        AddProduct(Weight(p[NNVK_RNN_P_RB], row), 1.0, rs, rcomp);
        AddInputDot(n, row, s, comp);
        AddProduct(r, rs, s, comp);
        if (rcomp != 0.0) AddProduct(r, rcomp, s, comp);
        AddProduct(Weight(p[NNVK_RNN_P_B], row), 1.0, s, comp);
      } else {
        // (bn + rbn) + (x·Wn + (r * h)·Rn), r * h from the reset pass.
        AddInputDot(n, row, s, comp);
        AddRecurrentDot(p[NNVK_RNN_P_RH], n, row, s, comp);
        AddBiases(row, s, comp);
      }
      const float nv = Activate(act1, Finish(s, comp));
      // h' = z * h + n * (1 - z): the two products and the sum rounded once.
      precise const float one_minus_z = 1.0 - z;
      float hs = -0.0, hcomp = 0.0;
      AddProduct(z, h, hs, hcomp);
      AddProduct(nv, one_minus_z, hs, hcomp);
      o[g] = floatBitsToUint(Finish(hs, hcomp));
    } else {  // NNVK_RNN_LSTM
      const float c = Load(2u, NNVK_F32, p[NNVK_RNN_P_C] + g);
      // i, o, f = act0(c * peephole + pre): the peepholes are packed i, o, f in both layouts and
      // use the incoming cell state (the spec's emulation); a missing one still multiplies (its
      // zero constant: an infinite c gives NaN).
      float gates[3];
      for (uint k = 0u; k < 3u; ++k) {
        const uint row = Row(k) + j;
        float s = -0.0, comp = 0.0;
        AddInputDot(n, row, s, comp);
        AddRecurrentDot(0u, n, row, s, comp);
        AddBiases(row, s, comp);
        AddProduct(c, Weight(p[NNVK_RNN_P_PEEP], k * H + j), s, comp);
        gates[k] = Activate(act0, Finish(s, comp));
      }
      const float cell_gate = Gate(act1, n, Row(3u) + j);
      // c' = f * c + i * g (rounded once), h' = o * act2(c').
      float cs = -0.0, ccomp = 0.0;
      AddProduct(gates[2], c, cs, ccomp);
      AddProduct(gates[0], cell_gate, cs, ccomp);
      const float c_new = Finish(cs, ccomp);
      precise const float h_new = gates[1] * Activate(act2, c_new);
      o[g] = floatBitsToUint(h_new);
      o[count + g] = floatBitsToUint(c_new);
    }
  }
}
