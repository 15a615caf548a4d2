// The simd backend's recurrent networks, as in the reference's ops/rnn.cc: gru
// (§api-mlgraphbuilder-gru), gruCell (§api-mlgraphbuilder-grucell), lstm (§api-mlgraphbuilder-lstm)
// and lstmCell (§api-mlgraphbuilder-lstmcell), built from the validated RecurrentAttributes
// (ops/rnn.h).
//
// One kernel runs all four (a cell is one forward step). Per direction:
//  - the input projections of every step at once: one GEMM of all steps * batch input rows by
//    weightᵀ (the simd GEMM core, gemm.h: float32 operands, float64 sums);
//  - per step, the recurrent projection hiddenState x recurrentWeightᵀ, one GEMM of batch rows;
//    gru without resetAfter takes the z and r rows first, then (r * h) x Rnᵀ for the new gate;
//  - each gate's pre-activation is added in double in the emulation's grouping
//      peephole + ((bias + recurrentBias) + (input part + recurrent part))
//    (the GEMM's double sums, the biases and the exact float32 peephole products), rounded once
//    to float32, and the activations run as float32 rows (rows.h: relu keeps NaN, as the
//    reference's does);
//  - the state update is float32 arithmetic: gru h' = z*h + n*(1 - z), lstm c' = f*c + i*g and
//    h' = o * f2(c').
// The hidden (and cell) state is kept in float32 between steps, as a production backend does
// (float16 operands are widened exactly and computed in float32; the outputs are rounded from the
// float32 state). The reference keeps its state in double; the per-step tolerance rows
// (ops/tolerance_table.cc) cover the difference.
// Threads: the GEMMs split output tiles over the pool; the gate and state work splits batch rows.
// Every element is computed by the same operations whatever the split, so results are
// bit-identical for any thread count.
#include "ops/rnn.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "numerics/float16.h"
#include "ops/simd/family.h"
#include "ops/simd/gemm.h"
#include "ops/simd/rows.h"

namespace nnref::simd {

namespace {

using Act = MLRecurrentNetworkActivation;

// A contiguous float32 copy of `t` (float16 widened exactly).
std::vector<float> Float32Values(const Tensor& t) {
  const Tensor c = t.Contiguous();
  std::vector<float> v(static_cast<size_t>(c.element_count()));
  if (c.dtype() == DataType::kFloat16) {
    HalfToFloatRow(reinterpret_cast<const uint16_t*>(c.base<Float16>()), v.data(), v.size());
  } else {
    std::copy(c.base<float>(), c.base<float>() + v.size(), v.begin());
  }
  return v;
}

// out[0..n) = act(x[0..n)) (x and out distinct).
void ActivateRow(Act act, const float* x, float* out, size_t n) {
  switch (act) {
    case Act::kRelu:
      UnaryRow(RowUnary::kRelu, x, out, n, 0.0f, 0.0f);
      // max(x, 0) with NaN propagated (the reference's relu).
      for (size_t i = 0; i < n; ++i) {
        if (std::isnan(x[i])) out[i] = x[i];
      }
      return;
    case Act::kSigmoid:
      return UnaryRow(RowUnary::kSigmoid, x, out, n, 0.0f, 0.0f);
    case Act::kTanh:
      return UnaryRow(RowUnary::kTanh, x, out, n, 0.0f, 0.0f);
  }
}

// Writes `n` float32 values to element `offset` of a float32 or float16 tensor.
void StoreRow(Tensor& t, size_t offset, const float* v, size_t n) {
  if (t.dtype() == DataType::kFloat16) {
    FloatToHalfRow(v, reinterpret_cast<uint16_t*>(t.base<Float16>()) + offset, n);
  } else {
    std::copy(v, v + n, t.base<float>() + offset);
  }
}

class RecurrentKernel final : public Kernel {
 public:
  RecurrentKernel(const RecurrentAttributes& a, Config config)
      : a_(a), config_(std::move(config)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const size_t dirs = !a_.cell && a_.direction == MLRecurrentNetworkDirection::kBoth ? 2 : 1;
    const size_t gates = a_.lstm ? 4 : 3;
    const auto steps = static_cast<size_t>(a_.steps), batch = static_cast<size_t>(a_.batch);
    const auto isz = static_cast<size_t>(a_.input_size), hs = static_cast<size_t>(a_.hidden_size);
    const size_t gh = gates * hs, state = batch * hs;
    auto slot = [&](int s) {
      return s < 0 ? std::vector<float>() : Float32Values(in[static_cast<size_t>(s)]->data);
    };
    const std::vector<float> x = Float32Values(in[0]->data), w = Float32Values(in[1]->data),
                             rw = Float32Values(in[2]->data);
    const std::vector<float> b = slot(a_.bias), rb = slot(a_.recurrent_bias),
                             peep = slot(a_.peephole_weight);
    const std::vector<float> h0 =
        a_.cell ? Float32Values(in[3]->data) : slot(a_.initial_hidden_state);
    const std::vector<float> c0 = !a_.lstm  ? std::vector<float>()
                                  : a_.cell ? Float32Values(in[4]->data)
                                            : slot(a_.initial_cell_state);

    // The input projections of every step and direction: xw[dir][(t * batch + n) * gh + row].
    std::vector<std::vector<float>> xw(dirs, std::vector<float>(steps * batch * gh));
    std::vector<GemmOperands> problems;
    for (size_t dir = 0; dir < dirs; ++dir) {
      problems.push_back({{x.data(), static_cast<int64_t>(isz), 1},
                          {w.data() + dir * gh * isz, 1, static_cast<int64_t>(isz)},
                          xw[dir].data(),
                          static_cast<int64_t>(gh)});
    }
    Gemm(steps * batch, gh, isz, problems, 1.0, *config_.pool);

    std::vector<Tensor> outputs;
    for (const OperandDescriptor& d : out) outputs.push_back(Tensor::Allocate(d.dataType, d.shape));
    const bool sequence = a_.return_sequence;
    Tensor* seq = sequence ? &outputs.back() : nullptr;

    std::vector<float> h(state), c(a_.lstm ? state : 0);
    std::vector<float> hr(batch * gh);
    std::vector<float> rh(a_.lstm ? 0 : state);
    for (size_t dir = 0; dir < dirs; ++dir) {
      const bool reverse = dir == 1 || a_.direction == MLRecurrentNetworkDirection::kBackward;
      // The initial states of this direction (zeros when absent).
      auto init = [&](const std::vector<float>& from, std::vector<float>& to) {
        if (from.empty()) {
          std::fill(to.begin(), to.end(), 0.0f);
        } else {
          std::copy_n(from.data() + dir * state, state, to.data());
        }
      };
      init(h0, h);
      if (a_.lstm) init(c0, c);
      const Weights wt{rw.data() + dir * gh * hs, b.empty() ? nullptr : b.data() + dir * gh,
                       rb.empty() ? nullptr : rb.data() + dir * gh,
                       peep.empty() ? nullptr : peep.data() + dir * 3 * hs};
      for (size_t step = 0; step < steps; ++step) {
        const size_t t = reverse ? steps - step - 1 : step;
        const float* xwt = xw[dir].data() + t * batch * gh;
        if (a_.lstm) {
          LstmStep(wt, xwt, hr.data(), h.data(), c.data());
        } else {
          GruStep(wt, xwt, hr.data(), rh.data(), h.data());
        }
        if (sequence) StoreRow(*seq, (t * dirs + dir) * state, h.data(), state);
      }
      StoreRow(outputs[0], dir * state, h.data(), state);
      if (a_.lstm) StoreRow(outputs[1], dir * state, c.data(), state);
    }
    std::vector<OperandValue> result;
    for (Tensor& t : outputs) result.push_back(OperandValue{std::move(t), {}});
    return result;
  }

 private:
  // One direction's recurrent weight [gates * H, H], biases [gates * H] and peepholes [3H] (null
  // when absent).
  struct Weights {
    const float* rw;
    const float* b;
    const float* rb;
    const float* peep;
  };

  // Batch rows per thread-pool task: about 4096 gate elements.
  static size_t Grain(size_t per_row) {
    return std::max<size_t>(1, size_t{4096} / std::max<size_t>(1, per_row));
  }

  // hr[n * ld + j] = sum over k of a[n * H + k] * rw[(row0 + j) * H + k] for j < cols.
  void Recurrent(const float* a, const float* rw, size_t row0, size_t cols, float* hr,
                 size_t ld) const {
    const auto hs = static_cast<int64_t>(a_.hidden_size);
    const GemmOperands p{
        {a, hs, 1}, {rw + row0 * a_.hidden_size, 1, hs}, hr, static_cast<int64_t>(ld)};
    Gemm(static_cast<size_t>(a_.batch), cols, a_.hidden_size, std::span(&p, 1), 1.0, *config_.pool);
  }

  // One gruCell step: h (float32, [batch, H]) is replaced by the new hidden state.
  void GruStep(const Weights& wt, const float* xw, float* hr, float* rh, float* h) const {
    const size_t hs = a_.hidden_size, batch = a_.batch, gh = 3 * hs;
    const bool zrn = a_.gru_layout == MLGruWeightLayout::kZrn;
    const size_t z_row = zrn ? 0 : hs, r_row = zrn ? hs : 0, n_row = 2 * hs;
    const Act gate = a_.activations[0], cell = a_.activations[1];
    auto bias = [&](const float* v, size_t row) { return v ? double{v[row]} : 0.0; };
    // The z and r rows (the first 2H in both layouts), and the n rows when resetAfter.
    Recurrent(h, wt.rw, 0, a_.reset_after ? gh : 2 * hs, hr, gh);
    // z and r per batch row: pre-activations rounded to float32, then the gate activation.
    std::vector<float> zr(batch * 2 * hs);
    config_.pool->ParallelFor(batch, Grain(gh), [&](size_t begin, size_t end) {
      std::vector<float> pre(2 * hs);
      for (size_t n = begin; n < end; ++n) {
        const float* xn = xw + n * gh;
        const float* hn = hr + n * gh;
        for (size_t j = 0; j < 2 * hs; ++j) {
          const size_t row = j < hs ? z_row + j : r_row + (j - hs);
          pre[j] = static_cast<float>((bias(wt.b, row) + bias(wt.rb, row)) +
                                      (double{xn[row]} + double{hn[row]}));
        }
        float* zrn_out = zr.data() + n * 2 * hs;  // z in [0, H), r in [H, 2H)
        ActivateRow(gate, pre.data(), zrn_out, 2 * hs);
        for (size_t j = 0; j < hs; ++j) rh[n * hs + j] = zrn_out[hs + j] * h[n * hs + j];
      }
    });
    if (!a_.reset_after) Recurrent(rh, wt.rw, n_row, hs, hr + n_row, gh);  // (r * h) x Rnᵀ
    config_.pool->ParallelFor(batch, Grain(gh), [&](size_t begin, size_t end) {
      std::vector<float> pre(hs), nv(hs);
      for (size_t n = begin; n < end; ++n) {
        const float* xn = xw + n * gh;
        const float* hn = hr + n * gh;
        const float* z = zr.data() + n * 2 * hs;
        const float* r = z + hs;
        for (size_t j = 0; j < hs; ++j) {
          const size_t row = n_row + j;
          const double v =
              a_.reset_after
                  ? bias(wt.b, row) +
                        (double{xn[row]} + double{r[j]} * (bias(wt.rb, row) + double{hn[row]}))
                  : (bias(wt.b, row) + bias(wt.rb, row)) + (double{xn[row]} + double{hn[row]});
          pre[j] = static_cast<float>(v);
        }
        ActivateRow(cell, pre.data(), nv.data(), hs);
        float* hrow = h + n * hs;
        for (size_t j = 0; j < hs; ++j) hrow[j] = z[j] * hrow[j] + nv[j] * (1.0f - z[j]);
      }
    });
  }

  // One lstmCell step: h and c (float32, [batch, H]) are replaced by the new states.
  void LstmStep(const Weights& wt, const float* xw, float* hr, float* h, float* c) const {
    const size_t hs = a_.hidden_size, batch = a_.batch, gh = 4 * hs;
    const bool iofg = a_.lstm_layout == MLLstmWeightLayout::kIofg;
    // Gate rows of the layout, in the order i, o, f, g (the peepholes' order for the first three).
    const size_t rows[4] = {0, iofg ? hs : 3 * hs, iofg ? 2 * hs : hs, iofg ? 3 * hs : 2 * hs};
    const Act gate = a_.activations[0], cell = a_.activations[1], filter = a_.activations[2];
    auto bias = [&](const float* v, size_t row) { return v ? double{v[row]} : 0.0; };
    Recurrent(h, wt.rw, 0, gh, hr, gh);
    config_.pool->ParallelFor(batch, Grain(gh), [&](size_t begin, size_t end) {
      std::vector<float> pre(gh), act(gh), ct(hs);
      for (size_t n = begin; n < end; ++n) {
        const float* xn = xw + n * gh;
        const float* hn = hr + n * gh;
        float* hrow = h + n * hs;
        float* crow = c + n * hs;
        for (size_t k = 0; k < 4; ++k) {
          for (size_t j = 0; j < hs; ++j) {
            const size_t row = rows[k] + j;
            double v = (bias(wt.b, row) + bias(wt.rb, row)) + (double{xn[row]} + double{hn[row]});
            // A missing peephole still multiplies (the emulation's zero constant).
            if (k < 3) v = double{crow[j]} * bias(wt.peep, k * hs + j) + v;
            pre[k * hs + j] = static_cast<float>(v);
          }
        }
        ActivateRow(gate, pre.data(), act.data(), 3 * hs);
        ActivateRow(cell, pre.data() + 3 * hs, act.data() + 3 * hs, hs);
        const float* ig = act.data();
        const float* og = ig + hs;
        const float* fg = og + hs;
        const float* gg = fg + hs;
        for (size_t j = 0; j < hs; ++j) crow[j] = fg[j] * crow[j] + ig[j] * gg[j];
        ActivateRow(filter, crow, ct.data(), hs);
        for (size_t j = 0; j < hs; ++j) hrow[j] = og[j] * ct[j];
      }
    });
  }

  RecurrentAttributes a_;
  Config config_;
};

// ---- the family ----------------------------------------------------------------------------

bool IsRecurrent(OpId op) {
  return op == OpId::gru || op == OpId::gruCell || op == OpId::lstm || op == OpId::lstmCell;
}

std::optional<std::string> Unsupported(OpId op, DataType type) {
  if (!IsRecurrent(op)) return std::nullopt;
  if (!IsFloat(type)) return std::string(DataTypeName(type)) + " not supported";
  return std::string();
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index, const Config& config,
                                   std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  if (const auto* a = node.Attributes<RecurrentAttributes>()) {
    return std::make_shared<RecurrentKernel>(*a, config);
  }
  why = "no attributes";
  return nullptr;
}

}  // namespace

const Family kRnnFamily = {Unsupported, Make};

}  // namespace nnref::simd
