// The vulkan backend's recurrent family: gru (§api-mlgraphbuilder-gru), gruCell
// (§api-mlgraphbuilder-grucell), lstm (§api-mlgraphbuilder-lstm) and lstmCell
// (§api-mlgraphbuilder-lstmcell), float32 and float16, built from the validated
// RecurrentAttributes (ops/rnn.h) on shaders/rnn.comp.
//
// One kernel runs all four (a cell is one forward step). Per direction and step, one dispatch
// with one invocation per (batch row, hidden unit) computes every gate of that unit and the new
// state (gru without resetAfter: first a dispatch computing r * h for every unit, which the new
// gate's (r * h) · Rn needs whole). The host uploads the step's input rows (in0), the
// direction's weight | recurrentWeight | bias | recurrentBias | peepholeWeight concatenated in
// the operands' type (in1, element offsets in the params) and the float32 state (in2). The hidden
// (and cell) state is kept in float32 on the host between steps, as a production backend does;
// the outputs are rounded once from it to the output type (float16: numerics/float16.h). The
// reference keeps its state in double; the per-step tolerance rows (ops/tolerance_table.cc) cover
// the difference.
#include "ops/rnn.h"

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "numerics/float16.h"
#include "ops/vulkan/family.h"
#include "ops/vulkan/shaders/codes.h"
#include "ops/vulkan/shaders/params.h"

namespace nnref::vk {

namespace {

using Act = MLRecurrentNetworkActivation;

uint32_t ActCode(Act a) {
  switch (a) {
    case Act::kRelu:
      return NNVK_RELU;
    case Act::kSigmoid:
      return NNVK_SIGMOID;
    case Act::kTanh:
      return NNVK_TANH;
  }
  return NNVK_TANH;
}

// The elements of `t` (float32 or float16) widened exactly to float32, row-major.
std::vector<float> Float32Values(const Tensor& t) {
  const std::vector<std::byte> bytes = t.Bytes();
  std::vector<float> v(static_cast<size_t>(t.element_count()));
  if (t.dtype() == DataType::kFloat16) {
    for (size_t i = 0; i < v.size(); ++i) {
      uint16_t bits;
      std::memcpy(&bits, bytes.data() + 2 * i, 2);
      v[i] = Float16::FromBits(bits).ToFloat();
    }
  } else {
    std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
  }
  return v;
}

// Writes `n` float32 values at element `offset` of a contiguous float32 or float16 tensor
// (float16: rounded to nearest even).
void Store(Tensor& t, size_t offset, const float* v, size_t n) {
  if (t.dtype() == DataType::kFloat16) {
    uint16_t* out = reinterpret_cast<uint16_t*>(t.buffer()->data()) + offset;
    for (size_t i = 0; i < n; ++i) out[i] = Float16::FromFloat(v[i]).bits;
  } else {
    std::memcpy(reinterpret_cast<float*>(t.buffer()->data()) + offset, v, n * sizeof(float));
  }
}

class RecurrentKernel final : public Kernel {
 public:
  RecurrentKernel(std::shared_ptr<Device> device, const RecurrentAttributes& a)
      : device_(std::move(device)), a_(a) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const size_t dirs = !a_.cell && a_.direction == MLRecurrentNetworkDirection::kBoth ? 2 : 1;
    const size_t gates = a_.lstm ? 4 : 3;
    const auto steps = static_cast<size_t>(a_.steps), batch = static_cast<size_t>(a_.batch);
    const auto isz = static_cast<size_t>(a_.input_size), hs = static_cast<size_t>(a_.hidden_size);
    const size_t gh = gates * hs, state = batch * hs;
    const DataType type = in[0]->data.dtype();
    const size_t es = type == DataType::kFloat16 ? 2 : 4;

    auto operand = [&](int slot) -> const Tensor* {
      return slot < 0 ? nullptr : &in[static_cast<size_t>(slot)]->data;
    };
    const std::vector<std::byte> x = in[0]->data.Bytes(), w = in[1]->data.Bytes(),
                                 rw = in[2]->data.Bytes();
    const Tensor* b = operand(a_.bias);
    const Tensor* rb = operand(a_.recurrent_bias);
    const Tensor* peep = operand(a_.peephole_weight);
    const std::vector<std::byte> b_bytes = b ? b->Bytes() : std::vector<std::byte>(),
                                 rb_bytes = rb ? rb->Bytes() : std::vector<std::byte>(),
                                 p_bytes = peep ? peep->Bytes() : std::vector<std::byte>();
    const Tensor* h0 = a_.cell ? &in[3]->data : operand(a_.initial_hidden_state);
    const Tensor* c0 = !a_.lstm ? nullptr : a_.cell ? &in[4]->data : operand(a_.initial_cell_state);
    const std::vector<float> h_init = h0 ? Float32Values(*h0) : std::vector<float>(),
                             c_init = c0 ? Float32Values(*c0) : std::vector<float>();

    std::vector<Tensor> outputs;
    for (const OperandDescriptor& d : out) outputs.push_back(Tensor::Allocate(d.dataType, d.shape));
    Tensor* seq = a_.return_sequence ? &outputs.back() : nullptr;

    const bool zrn = a_.gru_layout == MLGruWeightLayout::kZrn;
    const bool iofg = a_.lstm_layout == MLLstmWeightLayout::kIofg;
    // Gate row offsets: gru z, r, n; lstm i, o, f, g.
    const std::array<size_t, 4> rows =
        a_.lstm ? std::array<size_t, 4>{0, iofg ? hs : 3 * hs, iofg ? 2 * hs : hs,
                                        iofg ? 3 * hs : 2 * hs}
                : std::array<size_t, 4>{zrn ? 0 : hs, zrn ? hs : 0, 2 * hs, 0};
    const auto u = [](size_t v) { return static_cast<uint32_t>(v); };
    std::vector<uint32_t> params(NNVK_RNN_P_COUNT, 0);
    params[NNVK_RNN_P_TYPE] = static_cast<uint32_t>(type);
    params[NNVK_RNN_P_BATCH] = u(batch);
    params[NNVK_RNN_P_INPUT] = u(isz);
    params[NNVK_RNN_P_HIDDEN] = u(hs);
    params[NNVK_RNN_P_RESET_AFTER] = a_.reset_after ? 1 : 0;
    params[NNVK_RNN_P_ACT0] = ActCode(a_.activations.at(0));
    params[NNVK_RNN_P_ACT1] = ActCode(a_.activations.at(1));
    params[NNVK_RNN_P_ACT2] = a_.lstm ? ActCode(a_.activations.at(2)) : 0;
    for (size_t k = 0; k < 4; ++k) params[NNVK_RNN_P_ROWS + k] = u(rows[k]);
    params[NNVK_RNN_P_C] = u(state);
    params[NNVK_RNN_P_RH] = u(state);

    // in2: h | c (lstm) | r * h (gru without resetAfter).
    const bool reset_pass = !a_.lstm && !a_.reset_after;
    std::vector<float> st((a_.lstm || reset_pass ? 2 : 1) * state, 0.0f);
    std::vector<float> next((a_.lstm ? 2 : 1) * state);
    const uint64_t groups = (state + kLocalSize - 1) / kLocalSize;
    for (size_t dir = 0; dir < dirs && state > 0; ++dir) {
      const bool reverse = dir == 1 || a_.direction == MLRecurrentNetworkDirection::kBackward;
      // in1: this direction's operands, concatenated in the operands' type.
      std::vector<std::byte> weights;
      size_t offset = 0;  // in elements
      auto append = [&](const std::vector<std::byte>& bytes, size_t count, uint32_t slot) {
        if (bytes.empty()) {
          params[slot] = NNVK_RNN_ABSENT;
          return;
        }
        params[slot] = u(offset);
        const auto* begin = bytes.data() + dir * count * es;
        weights.insert(weights.end(), begin, begin + count * es);
        offset += count;
      };
      append(w, gh * isz, NNVK_RNN_P_W);
      append(rw, gh * hs, NNVK_RNN_P_R);
      append(b_bytes, gh, NNVK_RNN_P_B);
      append(rb_bytes, gh, NNVK_RNN_P_RB);
      append(p_bytes, 3 * hs, NNVK_RNN_P_PEEP);
      // The initial states of this direction (zeros when absent).
      auto init = [&](const std::vector<float>& from, size_t at) {
        if (from.empty()) {
          std::fill_n(st.begin() + static_cast<ptrdiff_t>(at), state, 0.0f);
        } else {
          std::copy_n(from.begin() + static_cast<ptrdiff_t>(dir * state), state,
                      st.begin() + static_cast<ptrdiff_t>(at));
        }
      };
      init(h_init, 0);
      if (a_.lstm) init(c_init, state);
      for (size_t step = 0; step < steps; ++step) {
        const size_t t = reverse ? steps - step - 1 : step;
        const std::span<const std::byte> xt(x.data() + t * batch * isz * es, batch * isz * es);
        const auto st_bytes = std::as_bytes(std::span<const float>(st));
        if (reset_pass) {
          params[NNVK_RNN_P_MODE] = NNVK_RNN_GRU_RESET;
          const std::array<Bytes, 3> views{xt, Bytes(weights), st_bytes.first(state * 4)};
          device_->Run(Shader::kRnn, params, views,
                       std::as_writable_bytes(std::span<float>(st)).subspan(state * 4), groups);
        }
        params[NNVK_RNN_P_MODE] = a_.lstm ? NNVK_RNN_LSTM : NNVK_RNN_GRU;
        const std::array<Bytes, 3> views{xt, Bytes(weights), st_bytes};
        device_->Run(Shader::kRnn, params, views, std::as_writable_bytes(std::span<float>(next)),
                     groups);
        std::copy(next.begin(), next.end(), st.begin());
        if (seq) Store(*seq, (t * dirs + dir) * state, st.data(), state);
      }
      Store(outputs[0], dir * state, st.data(), state);
      if (a_.lstm) Store(outputs[1], dir * state, st.data() + state, state);
    }
    std::vector<OperandValue> result;
    for (Tensor& t : outputs) result.push_back(OperandValue{std::move(t), {}});
    return result;
  }

 private:
  std::shared_ptr<Device> device_;
  RecurrentAttributes a_;
};

bool IsRecurrent(OpId op) {
  return op == OpId::gru || op == OpId::gruCell || op == OpId::lstm || op == OpId::lstmCell;
}

std::optional<std::string> Unsupported(OpId op, DataType type, const DeviceInfo&) {
  if (!IsRecurrent(op)) return std::nullopt;
  if (!IsFloat(type)) return std::string(DataTypeName(type)) + " not supported";
  return std::string();
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index,
                                   const std::shared_ptr<Device>& device, std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  const auto* a = AttributesOf<RecurrentAttributes>(node, why);
  if (a == nullptr) return nullptr;
  // The direction's operands are bound as one buffer (in1): it must fit one storage binding too
  // (each operand alone was checked by CheckBindable).
  const uint64_t gh = (a->lstm ? 4 : 3) * a->hidden_size;
  const uint64_t elements = gh * (a->input_size + a->hidden_size) + (a->bias >= 0 ? gh : 0) +
                            (a->recurrent_bias >= 0 ? gh : 0) +
                            (a->peephole_weight >= 0 ? 3 * a->hidden_size : 0);
  const uint64_t bytes =
      elements * (graph.operand(node.inputs.at(0)).desc.dataType == DataType::kFloat16 ? 2 : 4);
  if (bytes + 16 > device->info().max_storage_buffer_range) {
    why = "the packed weights of one direction (" + std::to_string(bytes) +
          " bytes) exceed the device's maxStorageBufferRange (" +
          std::to_string(device->info().max_storage_buffer_range) + ")";
    return nullptr;
  }
  return std::make_shared<RecurrentKernel>(device, *a);
}

}  // namespace

const Family kRnnFamily = {Unsupported, Make, nullptr};

}  // namespace nnref::vk
