// The vulkan backend's recurrent family: gru (§api-mlgraphbuilder-gru), gruCell
// (§api-mlgraphbuilder-grucell), lstm (§api-mlgraphbuilder-lstm) and lstmCell
// (§api-mlgraphbuilder-lstmcell), float32 and float16, built from the validated
// RecurrentAttributes (ops/rnn.h) on shaders/rnn.comp.
//
// One kernel runs all four (a cell is one forward step), written once as dispatches and copies
// (record.h), so that a graph records it whole. Per direction and step, one dispatch with one
// invocation per (batch row, hidden unit) computes every gate of that unit and the new state (gru
// without resetAfter: first a dispatch computing r * h for every unit, which the new gate's
// (r * h) · Rn needs whole). in0 is the input x (the step's rows at an offset in the params), in1
// the direction's weight | recurrentWeight | bias | recurrentBias | peepholeWeight copied one
// after the other into a scratch tensor in the operands' type (element offsets in the params),
// in2 the float32 state, ping-ponged between two scratch tensors from step to step. The hidden
// (and cell) state stays in float32 between steps, as a production backend's does; each step's
// hidden state is copied into a float32 history (returnSequence), and the outputs are rounded
// once from the float32 states (float16: an elementwise.comp cast). The reference keeps its state
// in double; the per-step tolerance rows (ops/tolerance_table.cc) cover the difference.
#include "ops/rnn.h"

#include <array>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ops/vulkan/family.h"
#include "ops/vulkan/record.h"
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

class RecurrentKernel final : public RecordableKernel {
 public:
  RecurrentKernel(std::shared_ptr<Device> device, const RecurrentAttributes& a)
      : RecordableKernel(std::move(device)), a_(a) {}

  // Always recorded: the state stays on the device between steps.

  void Emit(Sink& sink, std::span<const OperandValue* const>, std::span<const OperandDescriptor> in,
            std::span<const OperandDescriptor> out) const override {
    const size_t dirs = !a_.cell && a_.direction == MLRecurrentNetworkDirection::kBoth ? 2 : 1;
    const size_t gates = a_.lstm ? 4 : 3;
    const auto steps = static_cast<size_t>(a_.steps), batch = static_cast<size_t>(a_.batch);
    const auto isz = static_cast<size_t>(a_.input_size), hs = static_cast<size_t>(a_.hidden_size);
    const size_t gh = gates * hs, state = batch * hs;
    if (state == 0) return;  // every output is empty
    const DataType type = in[0].dataType;
    const size_t es = ElementSize(type);
    const int h0 = a_.cell ? 3 : a_.initial_hidden_state;
    const int c0 = !a_.lstm ? -1 : a_.cell ? 4 : a_.initial_cell_state;

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

    // This direction's operands, concatenated in the operands' type (in1): (input, elements per
    // direction, offset slot).
    const std::array<std::tuple<int, size_t, uint32_t>, 5> parts = {
        std::tuple<int, size_t, uint32_t>{1, gh * isz, NNVK_RNN_P_W},
        {2, gh * hs, NNVK_RNN_P_R},
        {a_.bias, gh, NNVK_RNN_P_B},
        {a_.recurrent_bias, gh, NNVK_RNN_P_RB},
        {a_.peephole_weight, 3 * hs, NNVK_RNN_P_PEEP}};
    size_t packed = 0;  // elements
    for (const auto& [k, count, slot] : parts) {
      params[slot] = k < 0 ? NNVK_RNN_ABSENT : u(packed);
      if (k >= 0) packed += count;
    }
    const uint64_t f = sizeof(float);
    const bool reset_pass = !a_.lstm && !a_.reset_after;
    const size_t words = a_.lstm ? 2 : 1;  // h | c
    const size_t weights = sink.Scratch(packed * es);
    size_t st = sink.Scratch(words * state * f), next = sink.Scratch(words * state * f);
    const size_t rh = reset_pass ? sink.Scratch(2 * state * f) : 0;
    const size_t last = sink.Scratch(words * dirs * state * f);  // h (| c) of every direction
    const size_t history = a_.return_sequence ? sink.Scratch(steps * dirs * state * f) : 0;
    // The initial states of every direction in float32 (a float16 one widened by a cast).
    const auto initial = [&](int k) {
      if (k < 0 || type == DataType::kFloat32) return Source::Input(static_cast<size_t>(k));
      const size_t s = sink.Scratch(dirs * state * f);
      EmitCast(sink, Source::Input(static_cast<size_t>(k)), type, Target::Scratch(s),
               DataType::kFloat32, dirs * state);
      return Source::Scratch(s);
    };
    const Source h_init = h0 < 0 ? Source() : initial(h0);
    const Source c_init = c0 < 0 ? Source() : initial(c0);
    const uint64_t groups = (state + kLocalSize - 1) / kLocalSize;
    for (size_t dir = 0; dir < dirs; ++dir) {
      const bool reverse = dir == 1 || a_.direction == MLRecurrentNetworkDirection::kBackward;
      for (const auto& [k, count, slot] : parts) {
        if (k < 0) continue;
        sink.Copy(Source::Input(static_cast<size_t>(k)), dir * count * es, Target::Scratch(weights),
                  params[slot] * es, count * es);
      }
      // The state h (| c): the initial states of this direction, zeros when absent.
      const auto init = [&](int k, const Source& from, size_t at) {
        if (k < 0) {
          sink.Copy(Source::Host(std::vector<std::byte>(state * f)), 0, Target::Scratch(st), at * f,
                    state * f);
        } else {
          sink.Copy(from, dir * state * f, Target::Scratch(st), at * f, state * f);
        }
      };
      init(h0, h_init, 0);
      if (a_.lstm) init(c0, c_init, state);
      for (size_t step = 0; step < steps; ++step) {
        const size_t t = reverse ? steps - step - 1 : step;
        params[NNVK_RNN_P_X] = u(t * batch * isz);
        const auto run = [&](uint32_t mode, size_t from, size_t to) {
          params[NNVK_RNN_P_MODE] = mode;
          std::vector<Source> sources;
          sources.push_back(Source::Input(0));
          sources.push_back(Source::Scratch(weights));
          sources.push_back(Source::Scratch(from));
          sink.Run(Shader::kRnn, params, std::move(sources), Target::Scratch(to), groups);
        };
        if (reset_pass) {
          run(NNVK_RNN_GRU_RESET, st, rh);
          run(NNVK_RNN_GRU, rh, next);
        } else {
          run(a_.lstm ? NNVK_RNN_LSTM : NNVK_RNN_GRU, st, next);
        }
        std::swap(st, next);
        if (a_.return_sequence) {
          sink.Copy(Source::Scratch(st), 0, Target::Scratch(history), (t * dirs + dir) * state * f,
                    state * f);
        }
      }
      sink.Copy(Source::Scratch(st), 0, Target::Scratch(last), dir * state * f, state * f);
      if (a_.lstm) {
        sink.Copy(Source::Scratch(st), state * f, Target::Scratch(last), (dirs + dir) * state * f,
                  state * f);
      }
    }
    // The outputs rounded once from the float32 states (float16: a cast).
    const auto store = [&](size_t from, uint64_t offset, size_t output) {
      const uint64_t count = out[output].ElementCount();
      if (type == DataType::kFloat32) {
        sink.Copy(Source::Scratch(from), offset, output, 0, count * f);
      } else {
        if (offset != 0) {  // the cast reads from the start of its input
          const size_t s = sink.Scratch(count * f);
          sink.Copy(Source::Scratch(from), offset, Target::Scratch(s), 0, count * f);
          from = s;
        }
        EmitCast(sink, Source::Scratch(from), DataType::kFloat32, output, type, count);
      }
    };
    store(last, 0, 0);
    if (a_.lstm) store(last, dirs * state * f, 1);
    if (a_.return_sequence) store(history, 0, out.size() - 1);
  }

 private:
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
