// Recurrent networks: gru (§api-mlgraphbuilder-gru), gruCell (§api-mlgraphbuilder-grucell),
// lstm (§api-mlgraphbuilder-lstm) and lstmCell (§api-mlgraphbuilder-lstmcell).
//
// Numerics. Float types only (every limits table allows float32 and float16). The operators are
// defined by their emulations: gruCell/lstmCell as a composition of matmul, add, mul, sub and the
// activations; gru/lstm as gruCell/lstmCell applied over the time steps, per direction. nnref
// evaluates each cell in double from the (exactly widened) input elements:
//  - every gate's pre-activation follows the emulation's grouping,
//      (bias + recurrentBias) + (input x weightᵀ + hiddenState x recurrentWeightᵀ)
//    (lstm's input/forget/output gates add cellState * peepholeWeight in front), with each dot
//    product summed in ascending order in a double accumulator that starts at -0 (as matmul);
//    a missing bias, recurrentBias or peepholeWeight is the emulation's zero constant (so a
//    missing peephole still multiplies: an infinite cell state gives NaN, as the emulation does);
//  - gru: z = f(...), r = f(...), n = g(...) with resetAfter deciding where r applies
//    (n = g(bn + (x·Wn + r * (rbn + h·Rn))) when true, g((bn + rbn) + (x·Wn + (r*h)·Rn)) when
//    false), and h' = z*h + n*(1 - z);
//  - lstm: i, f, o = f0(c*p + ...), g = f1(...), c' = f*c + i*g, h' = o * f2(c'). The peepholes
//    for the input, output and forget gates use the *incoming* cell state, as the spec's
//    emulation does (spec-notes #12; ONNX uses the new cell state for the output gate).
//  - activations: sigmoid as 1/(1 + e^-x) on the side where exp cannot overflow, tanh via
//    std::tanh, relu as max(0, x) with NaN propagated.
// Recurrent state. gru/lstm carry the hidden (and cell) state between steps in double: the exact
// composition of the emulation's cells, with no rounding until an operator output. Only the
// tensors the operator returns are rounded, once each, to the output type (the last step's states
// and, with returnSequence, every step's hidden state). An implementation (or the emulation run in
// the operand type) that rounds the state to float32/float16 after every step differs slightly;
// the tolerance rows cover that. NaN and infinities follow IEEE arithmetic in double. Kernels
// never throw: every shape they rely on was checked by the method steps.
#include "ops/rnn.h"

#include <cmath>
#include <initializer_list>
#include <limits>

#include "ops/elementwise.h"
#include "ops/float_dispatch.h"

namespace nnref {

// §tensor-limits-gru
const OpLimits kGruLimits = {{{"input", kFloatTypes, "", 3, 3},
                              {"weight", {}, "input", 3, 3},
                              {"recurrentWeight", {}, "input", 3, 3},
                              {"bias", {}, "input", 2, 2},
                              {"recurrentBias", {}, "input", 2, 2},
                              {"initialHiddenState", {}, "input", 3, 3},
                              {"output0", {}, "input", 3, 3},
                              {"output1", {}, "input", 4, 4}}};
// §tensor-limits-gruCell
const OpLimits kGruCellLimits = {{{"input", kFloatTypes, "", 2, 2},
                                  {"weight", {}, "input", 2, 2},
                                  {"recurrentWeight", {}, "input", 2, 2},
                                  {"hiddenState", {}, "input", 2, 2},
                                  {"bias", {}, "input", 1, 1},
                                  {"recurrentBias", {}, "input", 1, 1},
                                  {"output", {}, "input", 2, 2}}};
// §tensor-limits-lstm
const OpLimits kLstmLimits = {{{"input", kFloatTypes, "", 3, 3},
                               {"weight", {}, "input", 3, 3},
                               {"recurrentWeight", {}, "input", 3, 3},
                               {"bias", {}, "input", 2, 2},
                               {"recurrentBias", {}, "input", 2, 2},
                               {"peepholeWeight", {}, "input", 2, 2},
                               {"initialHiddenState", {}, "input", 3, 3},
                               {"initialCellState", {}, "input", 3, 3},
                               {"output0", {}, "input", 3, 3},
                               {"output1", {}, "input", 3, 3},
                               {"output2", {}, "input", 4, 4}}};
// §tensor-limits-lstmCell
const OpLimits kLstmCellLimits = {{{"input", kFloatTypes, "", 2, 2},
                                   {"weight", {}, "input", 2, 2},
                                   {"recurrentWeight", {}, "input", 2, 2},
                                   {"hiddenState", {}, "input", 2, 2},
                                   {"cellState", {}, "input", 2, 2},
                                   {"bias", {}, "input", 1, 1},
                                   {"recurrentBias", {}, "input", 1, 1},
                                   {"peepholeWeight", {}, "input", 1, 1},
                                   {"output0", {}, "input", 2, 2},
                                   {"output1", {}, "input", 2, 2}}};

namespace {

using Act = MLRecurrentNetworkActivation;

// The tolerance query's size per time step beyond inputSize + hiddenSize (the rows have
// per_size 2, so these are half the per-step ULP budget of the non-dot-product work; see
// ops/tolerance_table.cc).
constexpr uint64_t kGruStepExtra = 46;
constexpr uint64_t kLstmStepExtra = 55;

std::string TypeName(DataType t) { return std::string(DataTypeName(t)); }

// ---------------------------------------------------------------------------------------------
// Validation helpers (descriptors only).

// A "same as input" row of a limits table.
void CheckSameAsInput(const std::string& name, const char* operand, DataType type,
                      DataType input_type) {
  if (type != input_type) {
    ThrowTypeError(name + ": " + operand + " is " + TypeName(type) +
                   " but must have the input's data type (" + TypeName(input_type) + ")");
  }
}

void CheckRank(const std::string& name, const char* operand, const Shape& shape, size_t rank) {
  if (shape.size() != rank) {
    ThrowTypeError(name + ": " + operand + " has rank " + std::to_string(shape.size()) +
                   " but its allowed rank is " + std::to_string(rank));
  }
}

// "If its shape is not equal to « expected »".
void CheckShape(const std::string& name, const char* operand, const Shape& shape,
                const Shape& expected) {
  if (shape != expected) {
    ThrowTypeError(name + ": " + operand + " has shape " + ShapeToString(shape) + " but must be " +
                   ShapeToString(expected));
  }
}

// "If hiddenSize * factor is not a valid dimension": an integer > 0 in the range of long.
void CheckHiddenSizeProduct(const std::string& name, uint32_t hidden_size, uint64_t factor) {
  const uint64_t product = uint64_t{hidden_size} * factor;
  if (product == 0 || product > uint64_t{std::numeric_limits<int32_t>::max()}) {
    ThrowTypeError(name + ": hiddenSize * " + std::to_string(factor) + " = " +
                   std::to_string(product) + " is not a valid dimension (1 to 2147483647)");
  }
}

// The activations step: the list must have `count` entries, else the defaults.
std::vector<Act> ResolveActivations(const std::string& name,
                                    const std::optional<std::vector<Act>>& given,
                                    std::vector<Act> defaults) {
  if (!given) return defaults;
  if (given->size() != defaults.size()) {
    ThrowTypeError(name + ": options.activations has " + std::to_string(given->size()) +
                   " entries but must have " + std::to_string(defaults.size()));
  }
  return *given;
}

// An operand argument of the method steps, by its name in the messages.
struct Named {
  const char* operand;
  const Operand& value;
};
struct NamedOptional {
  const char* operand;
  const std::optional<Operand>& value;
};

// Step 2 of every method: the required operands, then the given optional ones, in order.
void ValidateOperands(const GraphBuilder& builder, const std::string& name,
                      std::initializer_list<Named> required,
                      std::initializer_list<NamedOptional> optional) {
  for (const Named& o : required) builder.ValidateOperand(name, o.operand, o.value);
  for (const NamedOptional& o : optional) {
    if (o.value) builder.ValidateOperand(name, o.operand, *o.value);
  }
}

// The data type and rank steps of the required operands (the first is input): input's type is
// one of the limits table's, the others have the input's type, then every one has `rank`.
// Returns the input's data type.
DataType CheckRequiredOperands(const GraphBuilder& builder, const std::string& name,
                               const OpLimits& limits, std::initializer_list<Named> required,
                               size_t rank) {
  const DataType type = builder.Desc(required.begin()->value).dataType;
  CheckDataType(name, "input", type, limits.Find("input")->types);
  for (auto it = required.begin() + 1; it != required.end(); ++it) {
    CheckSameAsInput(name, it->operand, builder.Desc(it->value).dataType, type);
  }
  for (const Named& o : required) CheckRank(name, o.operand, builder.Desc(o.value).shape, rank);
  return type;
}

// gru and lstm: "If input's shape[0] is not equal to steps".
void CheckSteps(const std::string& name, const Shape& input_shape, uint32_t steps) {
  if (input_shape[0] != steps) {
    ThrowTypeError(name + ": input.shape[0] = " + std::to_string(input_shape[0]) +
                   " is not equal to steps = " + std::to_string(steps));
  }
}

// The optional operand's descriptor is checked against "same as input" and the expected shape.
void CheckOptionalOperand(const GraphBuilder& builder, const std::string& name, const char* operand,
                          const std::optional<Operand>& o, DataType input_type,
                          const Shape& expected) {
  if (!o) return;
  const OperandDescriptor& d = builder.Desc(*o);
  CheckSameAsInput(name, operand, d.dataType, input_type);
  CheckShape(name, operand, d.shape, expected);
}

// Index of each optional input in the operator's input list, or -1 when absent.
struct Slots {
  int bias = -1;
  int recurrentBias = -1;
  int peepholeWeight = -1;
  int initialHiddenState = -1;
  int initialCellState = -1;
};

int Append(std::vector<OperandId>& inputs, const std::optional<Operand>& o) {
  if (!o) return -1;
  inputs.push_back(o->id);
  return static_cast<int>(inputs.size() - 1);
}

// The node's attributes (RecurrentAttributes in ops/rnn.h) from the validated values.
std::shared_ptr<RecurrentAttributes> MakeAttributes(bool lstm, bool cell, uint64_t steps,
                                                    uint64_t batch, uint64_t input_size,
                                                    uint64_t hidden, std::vector<Act> acts,
                                                    const Slots& slots) {
  auto a = std::make_shared<RecurrentAttributes>();
  a->lstm = lstm;
  a->cell = cell;
  a->steps = steps;
  a->batch = batch;
  a->input_size = input_size;
  a->hidden_size = hidden;
  a->activations = std::move(acts);
  a->bias = slots.bias;
  a->recurrent_bias = slots.recurrentBias;
  a->peephole_weight = slots.peepholeWeight;
  a->initial_hidden_state = slots.initialHiddenState;
  a->initial_cell_state = slots.initialCellState;
  return a;
}

// ---------------------------------------------------------------------------------------------
// The double-precision cell engine.

double Activate(Act a, double x) {
  switch (a) {
    case Act::kRelu:
      if (std::isnan(x)) return x;
      return x > 0 ? x : 0.0;
    case Act::kSigmoid:
      if (x >= 0) return 1 / (1 + std::exp(-x));
      {
        const double e = std::exp(x);  // NaN falls through here and stays NaN
        return e / (1 + e);
      }
    case Act::kTanh:
      return std::tanh(x);
  }
  return x;
}

// Dot product of two length-n rows, summed in ascending order from -0 (as matmul).
double Dot(const double* a, const double* b, size_t n) {
  double s = -0.0;
  for (size_t k = 0; k < n; ++k) s += a[k] * b[k];
  return s;
}

double At(const double* v, size_t i) { return v ? v[i] : 0.0; }

// The input elements of an operand, widened exactly to double in row-major order.
template <typename T>
std::vector<double> Load(const Tensor& t) {
  const Tensor c = t.Contiguous();
  const T* p = c.base<T>();
  std::vector<double> v(c.element_count());
  for (size_t i = 0; i < v.size(); ++i) v[i] = ToDouble(p[i]);
  return v;
}

const double* Ptr(const std::vector<double>& v, size_t offset) {
  return v.empty() ? nullptr : v.data() + offset;
}

template <typename T>
void Store(Tensor& t, size_t offset, const std::vector<double>& v) {
  T* p = t.base<T>() + offset;
  for (size_t i = 0; i < v.size(); ++i) p[i] = RoundTo<T>(v[i]);
}

struct GruCellGeometry {
  size_t batch = 0;
  size_t input_size = 0;
  size_t hidden = 0;
  bool reset_after = true;
  MLGruWeightLayout layout = MLGruWeightLayout::kZrn;
  Act gate = Act::kSigmoid;  // update and reset gates
  Act cell = Act::kTanh;     // new gate
};

// One gruCell in double. x: [batch, inputSize]; w: [3H, inputSize]; rw: [3H, H]; b, rb: [3H] or
// null; h: [batch, H]. Returns the new hidden state [batch, H].
std::vector<double> GruStep(const GruCellGeometry& g, const double* x, const double* w,
                            const double* rw, const double* b, const double* rb, const double* h) {
  const size_t in = g.input_size, hs = g.hidden;
  // Gate row offsets in the weights and biases (the layout's ordering; n is last in both).
  const size_t z_row = g.layout == MLGruWeightLayout::kZrn ? 0 : hs;
  const size_t r_row = g.layout == MLGruWeightLayout::kZrn ? hs : 0;
  const size_t n_row = 2 * hs;
  std::vector<double> out(g.batch * hs);
  std::vector<double> r(hs), rh(hs);
  for (size_t n = 0; n < g.batch; ++n) {
    const double* xn = x + n * in;
    const double* hn = h + n * hs;
    auto pre = [&](size_t row) {
      return (At(b, row) + At(rb, row)) + (Dot(xn, w + row * in, in) + Dot(hn, rw + row * hs, hs));
    };
    // The reset gate for the whole row first: without resetAfter, (r * h) x Rnᵀ needs all of it.
    for (size_t j = 0; j < hs; ++j) {
      r[j] = Activate(g.gate, pre(r_row + j));
      rh[j] = r[j] * hn[j];
    }
    for (size_t j = 0; j < hs; ++j) {
      const double z = Activate(g.gate, pre(z_row + j));
      const size_t row = n_row + j;
      const double x_part = Dot(xn, w + row * in, in);
      double new_gate;
      if (g.reset_after) {
        new_gate = At(b, row) + (x_part + r[j] * (At(rb, row) + Dot(hn, rw + row * hs, hs)));
      } else {
        new_gate = (At(b, row) + At(rb, row)) + (x_part + Dot(rh.data(), rw + row * hs, hs));
      }
      const double nv = Activate(g.cell, new_gate);
      out[n * hs + j] = z * hn[j] + nv * (1 - z);
    }
  }
  return out;
}

struct LstmCellGeometry {
  size_t batch = 0;
  size_t input_size = 0;
  size_t hidden = 0;
  MLLstmWeightLayout layout = MLLstmWeightLayout::kIofg;
  Act gate = Act::kSigmoid;  // input, forget and output gates
  Act cell = Act::kTanh;     // cell gate
  Act out = Act::kTanh;      // filter of the new cell state
};

// One lstmCell in double. x: [batch, inputSize]; w: [4H, inputSize]; rw: [4H, H]; b, rb: [4H] or
// null; p: [3H] (i, o, f, whatever the layout) or null; h, c: [batch, H]. Writes the new hidden
// and cell states.
void LstmStep(const LstmCellGeometry& g, const double* x, const double* w, const double* rw,
              const double* b, const double* rb, const double* p, const double* h, const double* c,
              std::vector<double>& h_out, std::vector<double>& c_out) {
  const size_t in = g.input_size, hs = g.hidden;
  const bool iofg = g.layout == MLLstmWeightLayout::kIofg;
  const size_t i_row = 0;
  const size_t o_row = iofg ? hs : 3 * hs;
  const size_t f_row = iofg ? 2 * hs : hs;
  const size_t g_row = iofg ? 3 * hs : 2 * hs;
  h_out.assign(g.batch * hs, 0.0);
  c_out.assign(g.batch * hs, 0.0);
  for (size_t n = 0; n < g.batch; ++n) {
    const double* xn = x + n * in;
    const double* hn = h + n * hs;
    for (size_t j = 0; j < hs; ++j) {
      auto pre = [&](size_t row) {
        return (At(b, row) + At(rb, row)) +
               (Dot(xn, w + row * in, in) + Dot(hn, rw + row * hs, hs));
      };
      const double cj = c[n * hs + j];
      // Peephole terms with the incoming cell state; packing i, o, f (spec-notes #12).
      auto peep = [&](size_t k) { return cj * At(p, k * hs + j); };
      const double ig = Activate(g.gate, peep(0) + pre(i_row + j));
      const double fg = Activate(g.gate, peep(2) + pre(f_row + j));
      const double gg = Activate(g.cell, pre(g_row + j));
      const double og = Activate(g.gate, peep(1) + pre(o_row + j));
      const double ct = fg * cj + ig * gg;
      c_out[n * hs + j] = ct;
      h_out[n * hs + j] = og * Activate(g.out, ct);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Kernels: one templated body each, dispatching on the output's float type.

template <typename T>
std::vector<double> LoadSlot(std::span<const OperandValue* const> in, int slot) {
  return slot < 0 ? std::vector<double>() : Load<T>(in[static_cast<size_t>(slot)]->data);
}

// Direction dir's initial state (hidden or cell) of gru/lstm: its `state` elements of the given
// [numDirections, batch, hiddenSize] operand, or zeros when the option is absent (v empty).
std::vector<double> InitialState(const std::vector<double>& v, size_t dir, size_t state) {
  return v.empty()
             ? std::vector<double>(state, 0.0)
             : std::vector<double>(v.begin() + static_cast<std::ptrdiff_t>(dir * state),
                                   v.begin() + static_cast<std::ptrdiff_t>((dir + 1) * state));
}

class GruCellKernel final : public Kernel {
 public:
  GruCellKernel(GruCellGeometry g, Slots s) : g_(g), s_(s) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    return {DispatchFloatType(out[0].dataType, [&]<typename T>() {
      const std::vector<double> x = Load<T>(in[0]->data), w = Load<T>(in[1]->data),
                                rw = Load<T>(in[2]->data), h = Load<T>(in[3]->data);
      const std::vector<double> b = LoadSlot<T>(in, s_.bias),
                                rb = LoadSlot<T>(in, s_.recurrentBias);
      const std::vector<double> next =
          GruStep(g_, x.data(), w.data(), rw.data(), Ptr(b, 0), Ptr(rb, 0), h.data());
      Tensor result = Tensor::Allocate(DataTypeOf<T>(), out[0].shape);
      Store<T>(result, 0, next);
      return OperandValue{std::move(result), {}};
    })};
  }

 private:
  GruCellGeometry g_;
  Slots s_;
};

class GruKernel final : public Kernel {
 public:
  GruKernel(GruCellGeometry g, Slots s, size_t steps, MLRecurrentNetworkDirection direction,
            bool return_sequence)
      : g_(g), s_(s), steps_(steps), direction_(direction), return_sequence_(return_sequence) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    return DispatchFloatType(out[0].dataType, [&]<typename T>() {
      const size_t dirs = direction_ == MLRecurrentNetworkDirection::kBoth ? 2 : 1;
      const size_t in_sz = g_.input_size, hs = g_.hidden, batch = g_.batch;
      const size_t state = batch * hs;
      const std::vector<double> x = Load<T>(in[0]->data), w = Load<T>(in[1]->data),
                                rw = Load<T>(in[2]->data);
      const std::vector<double> b = LoadSlot<T>(in, s_.bias),
                                rb = LoadSlot<T>(in, s_.recurrentBias),
                                h0 = LoadSlot<T>(in, s_.initialHiddenState);
      Tensor output = Tensor::Allocate(DataTypeOf<T>(), out[0].shape);
      Tensor sequence;
      if (return_sequence_) sequence = Tensor::Allocate(DataTypeOf<T>(), out[1].shape);
      for (size_t dir = 0; dir < dirs; ++dir) {
        const bool reverse = dir == 1 || direction_ == MLRecurrentNetworkDirection::kBackward;
        std::vector<double> h = InitialState(h0, dir, state);
        for (size_t step = 0; step < steps_; ++step) {
          const size_t t = reverse ? steps_ - step - 1 : step;
          // The state stays in double between steps (see the header).
          h = GruStep(g_, x.data() + t * batch * in_sz, w.data() + dir * 3 * hs * in_sz,
                      rw.data() + dir * 3 * hs * hs, Ptr(b, dir * 3 * hs), Ptr(rb, dir * 3 * hs),
                      h.data());
          if (return_sequence_) Store<T>(sequence, (t * dirs + dir) * state, h);
        }
        Store<T>(output, dir * state, h);
      }
      std::vector<OperandValue> result;
      result.push_back(OperandValue{std::move(output), {}});
      if (return_sequence_) result.push_back(OperandValue{std::move(sequence), {}});
      return result;
    });
  }

 private:
  GruCellGeometry g_;
  Slots s_;
  size_t steps_;
  MLRecurrentNetworkDirection direction_;
  bool return_sequence_;
};

class LstmCellKernel final : public Kernel {
 public:
  LstmCellKernel(LstmCellGeometry g, Slots s) : g_(g), s_(s) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    return DispatchFloatType(out[0].dataType, [&]<typename T>() {
      const std::vector<double> x = Load<T>(in[0]->data), w = Load<T>(in[1]->data),
                                rw = Load<T>(in[2]->data), h = Load<T>(in[3]->data),
                                c = Load<T>(in[4]->data);
      const std::vector<double> b = LoadSlot<T>(in, s_.bias),
                                rb = LoadSlot<T>(in, s_.recurrentBias),
                                p = LoadSlot<T>(in, s_.peepholeWeight);
      std::vector<double> h_next, c_next;
      LstmStep(g_, x.data(), w.data(), rw.data(), Ptr(b, 0), Ptr(rb, 0), Ptr(p, 0), h.data(),
               c.data(), h_next, c_next);
      Tensor hidden = Tensor::Allocate(DataTypeOf<T>(), out[0].shape);
      Tensor cell = Tensor::Allocate(DataTypeOf<T>(), out[1].shape);
      Store<T>(hidden, 0, h_next);
      Store<T>(cell, 0, c_next);
      std::vector<OperandValue> result;
      result.push_back(OperandValue{std::move(hidden), {}});
      result.push_back(OperandValue{std::move(cell), {}});
      return result;
    });
  }

 private:
  LstmCellGeometry g_;
  Slots s_;
};

class LstmKernel final : public Kernel {
 public:
  LstmKernel(LstmCellGeometry g, Slots s, size_t steps, MLRecurrentNetworkDirection direction,
             bool return_sequence)
      : g_(g), s_(s), steps_(steps), direction_(direction), return_sequence_(return_sequence) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    return DispatchFloatType(out[0].dataType, [&]<typename T>() {
      const size_t dirs = direction_ == MLRecurrentNetworkDirection::kBoth ? 2 : 1;
      const size_t in_sz = g_.input_size, hs = g_.hidden, batch = g_.batch;
      const size_t state = batch * hs;
      const std::vector<double> x = Load<T>(in[0]->data), w = Load<T>(in[1]->data),
                                rw = Load<T>(in[2]->data);
      const std::vector<double> b = LoadSlot<T>(in, s_.bias),
                                rb = LoadSlot<T>(in, s_.recurrentBias),
                                p = LoadSlot<T>(in, s_.peepholeWeight),
                                h0 = LoadSlot<T>(in, s_.initialHiddenState),
                                c0 = LoadSlot<T>(in, s_.initialCellState);
      Tensor hidden = Tensor::Allocate(DataTypeOf<T>(), out[0].shape);
      Tensor cell = Tensor::Allocate(DataTypeOf<T>(), out[1].shape);
      Tensor sequence;
      if (return_sequence_) sequence = Tensor::Allocate(DataTypeOf<T>(), out[2].shape);
      for (size_t dir = 0; dir < dirs; ++dir) {
        const bool reverse = dir == 1 || direction_ == MLRecurrentNetworkDirection::kBackward;
        std::vector<double> h = InitialState(h0, dir, state), c = InitialState(c0, dir, state),
                            h_next, c_next;
        for (size_t step = 0; step < steps_; ++step) {
          const size_t t = reverse ? steps_ - step - 1 : step;
          // The states stay in double between steps (see the header).
          LstmStep(g_, x.data() + t * batch * in_sz, w.data() + dir * 4 * hs * in_sz,
                   rw.data() + dir * 4 * hs * hs, Ptr(b, dir * 4 * hs), Ptr(rb, dir * 4 * hs),
                   Ptr(p, dir * 3 * hs), h.data(), c.data(), h_next, c_next);
          h.swap(h_next);
          c.swap(c_next);
          if (return_sequence_) Store<T>(sequence, (t * dirs + dir) * state, h);
        }
        Store<T>(hidden, dir * state, h);
        Store<T>(cell, dir * state, c);
      }
      std::vector<OperandValue> result;
      result.push_back(OperandValue{std::move(hidden), {}});
      result.push_back(OperandValue{std::move(cell), {}});
      if (return_sequence_) result.push_back(OperandValue{std::move(sequence), {}});
      return result;
    });
  }

 private:
  LstmCellGeometry g_;
  Slots s_;
  size_t steps_;
  MLRecurrentNetworkDirection direction_;
  bool return_sequence_;
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Method steps.

std::vector<Operand> Gru(GraphBuilder& builder, const Operand& input, const Operand& weight,
                         const Operand& recurrentWeight, uint32_t steps, uint32_t hiddenSize,
                         const MLGruOptions& options) {
  const std::string name = OperatorDisplayName("gru", options);
  builder.CheckCanBuild(name);  // step 1
  const std::initializer_list<Named> required = {
      {"input", input}, {"weight", weight}, {"recurrentWeight", recurrentWeight}};
  // Step 2.
  // Step 2.
  ValidateOperands(builder, name, required,
                   {{"bias", options.bias},
                    {"recurrentBias", options.recurrentBias},
                    {"initialHiddenState", options.initialHiddenState}});
  // Steps 3-4.
  const DataType type = CheckRequiredOperands(builder, name, kGruLimits, required, 3);
  const OperandDescriptor& di = builder.Desc(input);
  const OperandDescriptor& dw = builder.Desc(weight);
  const OperandDescriptor& dr = builder.Desc(recurrentWeight);
  CheckSteps(name, di.shape, steps);                                                      // step 5
  const uint64_t batch = di.shape[1];                                                     // step 6
  const uint64_t input_size = di.shape[2];                                                // step 7
  const uint64_t dirs = options.direction == MLRecurrentNetworkDirection::kBoth ? 2 : 1;  // 8
  const uint64_t hs = hiddenSize;
  CheckShape(name, "weight", dw.shape, {dirs, 3 * hs, input_size});                 // step 9
  CheckShape(name, "recurrentWeight", dr.shape, {dirs, 3 * hs, hs});                // step 10
  CheckHiddenSizeProduct(name, hiddenSize, 6);                                      // step 11
  CheckOptionalOperand(builder, name, "bias", options.bias, type, {dirs, 3 * hs});  // step 12
  CheckOptionalOperand(builder, name, "recurrentBias", options.recurrentBias, type,
                       {dirs, 3 * hs});  // step 13
  CheckOptionalOperand(builder, name, "initialHiddenState", options.initialHiddenState, type,
                       {dirs, batch, hs});  // step 14
  // Steps 15-16.
  const std::vector<Act> acts =
      ResolveActivations(name, options.activations, {Act::kSigmoid, Act::kTanh});
  // Step 17: the output descriptors.
  std::vector<OperandDescriptor> outputs{{type, {dirs, batch, hs}}};
  if (options.returnSequence) outputs.push_back({type, {steps, dirs, batch, hs}});
  // Step 18: graph connections.
  std::vector<OperandId> inputs{input.id, weight.id, recurrentWeight.id};
  Slots slots;
  slots.bias = Append(inputs, options.bias);
  slots.recurrentBias = Append(inputs, options.recurrentBias);
  slots.initialHiddenState = Append(inputs, options.initialHiddenState);
  const GruCellGeometry g{batch,          input_size, hs,     options.resetAfter,
                          options.layout, acts[0],    acts[1]};
  OperatorNode node{
      OpId::gru,
      options.label,
      std::move(inputs),
      {},
      std::make_shared<GruKernel>(g, slots, steps, options.direction, options.returnSequence),
      {OpId::gru, type, uint64_t{steps} * (input_size + hs + kGruStepExtra)}};
  auto attributes = MakeAttributes(false, false, steps, batch, input_size, hs, acts, slots);
  attributes->direction = options.direction;
  attributes->return_sequence = options.returnSequence;
  attributes->reset_after = options.resetAfter;
  attributes->gru_layout = options.layout;
  node.attributes = std::move(attributes);
  return builder.AddOperator(std::move(node), std::move(outputs));  // step 19
}

Operand GruCell(GraphBuilder& builder, const Operand& input, const Operand& weight,
                const Operand& recurrentWeight, const Operand& hiddenState, uint32_t hiddenSize,
                const MLGruCellOptions& options) {
  const std::string name = OperatorDisplayName("gruCell", options);
  builder.CheckCanBuild(name);  // step 1
  const std::initializer_list<Named> required = {{"input", input},
                                                 {"weight", weight},
                                                 {"recurrentWeight", recurrentWeight},
                                                 {"hiddenState", hiddenState}};
  // Step 2.
  // Step 2.
  ValidateOperands(builder, name, required,
                   {{"bias", options.bias}, {"recurrentBias", options.recurrentBias}});
  // Steps 3-4.
  const DataType type = CheckRequiredOperands(builder, name, kGruCellLimits, required, 2);
  const OperandDescriptor& di = builder.Desc(input);
  const OperandDescriptor& dw = builder.Desc(weight);
  const OperandDescriptor& dr = builder.Desc(recurrentWeight);
  const OperandDescriptor& dh = builder.Desc(hiddenState);
  const uint64_t batch = di.shape[0];       // step 5
  const uint64_t input_size = di.shape[1];  // step 6
  const uint64_t hs = hiddenSize;
  CheckShape(name, "weight", dw.shape, {3 * hs, input_size});                        // step 7
  CheckShape(name, "recurrentWeight", dr.shape, {3 * hs, hs});                       // step 8
  CheckShape(name, "hiddenState", dh.shape, {batch, hs});                            // step 9
  CheckHiddenSizeProduct(name, hiddenSize, 6);                                       // step 10
  CheckOptionalOperand(builder, name, "bias", options.bias, type, {3 * hs});         // step 11
  CheckOptionalOperand(builder, name, "recurrentBias", options.recurrentBias, type,  // step 12
                       {3 * hs});
  // Steps 13-14.
  const std::vector<Act> acts =
      ResolveActivations(name, options.activations, {Act::kSigmoid, Act::kTanh});
  // Steps 15-16.
  std::vector<OperandId> inputs{input.id, weight.id, recurrentWeight.id, hiddenState.id};
  Slots slots;
  slots.bias = Append(inputs, options.bias);
  slots.recurrentBias = Append(inputs, options.recurrentBias);
  const GruCellGeometry g{batch,          input_size, hs,     options.resetAfter,
                          options.layout, acts[0],    acts[1]};
  OperatorNode node{OpId::gruCell,
                    options.label,
                    std::move(inputs),
                    {},
                    std::make_shared<GruCellKernel>(g, slots),
                    {OpId::gruCell, type, input_size + hs + kGruStepExtra}};
  auto attributes = MakeAttributes(false, true, 1, batch, input_size, hs, acts, slots);
  attributes->reset_after = options.resetAfter;
  attributes->gru_layout = options.layout;
  node.attributes = std::move(attributes);
  return builder.AddOperator(std::move(node), {{type, {batch, hs}}})[0];  // step 17
}

std::vector<Operand> Lstm(GraphBuilder& builder, const Operand& input, const Operand& weight,
                          const Operand& recurrentWeight, uint32_t steps, uint32_t hiddenSize,
                          const MLLstmOptions& options) {
  const std::string name = OperatorDisplayName("lstm", options);
  builder.CheckCanBuild(name);  // step 1
  const std::initializer_list<Named> required = {
      {"input", input}, {"weight", weight}, {"recurrentWeight", recurrentWeight}};
  // Step 2.
  // Step 2.
  ValidateOperands(builder, name, required,
                   {{"bias", options.bias},
                    {"recurrentBias", options.recurrentBias},
                    {"peepholeWeight", options.peepholeWeight},
                    {"initialHiddenState", options.initialHiddenState},
                    {"initialCellState", options.initialCellState}});
  const uint64_t dirs = options.direction == MLRecurrentNetworkDirection::kBoth ? 2 : 1;  // 3
  // Steps 4-5.
  const DataType type = CheckRequiredOperands(builder, name, kLstmLimits, required, 3);
  const OperandDescriptor& di = builder.Desc(input);
  const OperandDescriptor& dw = builder.Desc(weight);
  const OperandDescriptor& dr = builder.Desc(recurrentWeight);
  if (steps == 0) ThrowTypeError(name + ": steps is 0");  // step 6
  CheckSteps(name, di.shape, steps);                      // step 7
  const uint64_t batch = di.shape[1];                     // step 8
  const uint64_t input_size = di.shape[2];                // step 9
  const uint64_t hs = hiddenSize;
  CheckShape(name, "weight", dw.shape, {dirs, 4 * hs, input_size});                 // step 10
  CheckShape(name, "recurrentWeight", dr.shape, {dirs, 4 * hs, hs});                // step 11
  CheckHiddenSizeProduct(name, hiddenSize, 8);                                      // step 12
  CheckOptionalOperand(builder, name, "bias", options.bias, type, {dirs, 4 * hs});  // step 13
  CheckOptionalOperand(builder, name, "recurrentBias", options.recurrentBias, type,
                       {dirs, 4 * hs});  // step 14
  CheckOptionalOperand(builder, name, "peepholeWeight", options.peepholeWeight, type,
                       {dirs, 3 * hs});  // step 15
  CheckOptionalOperand(builder, name, "initialHiddenState", options.initialHiddenState, type,
                       {dirs, batch, hs});  // step 16
  CheckOptionalOperand(builder, name, "initialCellState", options.initialCellState, type,
                       {dirs, batch, hs});  // step 17
  // Steps 18-19.
  const std::vector<Act> acts =
      ResolveActivations(name, options.activations, {Act::kSigmoid, Act::kTanh, Act::kTanh});
  // Step 20: the output descriptors.
  std::vector<OperandDescriptor> outputs{{type, {dirs, batch, hs}}, {type, {dirs, batch, hs}}};
  if (options.returnSequence) outputs.push_back({type, {steps, dirs, batch, hs}});
  // Step 21: graph connections.
  std::vector<OperandId> inputs{input.id, weight.id, recurrentWeight.id};
  Slots slots;
  slots.bias = Append(inputs, options.bias);
  slots.recurrentBias = Append(inputs, options.recurrentBias);
  slots.peepholeWeight = Append(inputs, options.peepholeWeight);
  slots.initialHiddenState = Append(inputs, options.initialHiddenState);
  slots.initialCellState = Append(inputs, options.initialCellState);
  const LstmCellGeometry g{batch, input_size, hs, options.layout, acts[0], acts[1], acts[2]};
  OperatorNode node{
      OpId::lstm,
      options.label,
      std::move(inputs),
      {},
      std::make_shared<LstmKernel>(g, slots, steps, options.direction, options.returnSequence),
      {OpId::lstm, type, uint64_t{steps} * (input_size + hs + kLstmStepExtra)}};
  auto attributes = MakeAttributes(true, false, steps, batch, input_size, hs, acts, slots);
  attributes->direction = options.direction;
  attributes->return_sequence = options.returnSequence;
  attributes->lstm_layout = options.layout;
  node.attributes = std::move(attributes);
  return builder.AddOperator(std::move(node), std::move(outputs));  // step 22
}

std::vector<Operand> LstmCell(GraphBuilder& builder, const Operand& input, const Operand& weight,
                              const Operand& recurrentWeight, const Operand& hiddenState,
                              const Operand& cellState, uint32_t hiddenSize,
                              const MLLstmCellOptions& options) {
  const std::string name = OperatorDisplayName("lstmCell", options);
  builder.CheckCanBuild(name);  // step 1
  const std::initializer_list<Named> required = {{"input", input},
                                                 {"weight", weight},
                                                 {"recurrentWeight", recurrentWeight},
                                                 {"hiddenState", hiddenState},
                                                 {"cellState", cellState}};
  // Step 2.
  // Step 2.
  ValidateOperands(builder, name, required,
                   {{"bias", options.bias},
                    {"recurrentBias", options.recurrentBias},
                    {"peepholeWeight", options.peepholeWeight}});
  // Steps 3-4.
  const DataType type = CheckRequiredOperands(builder, name, kLstmCellLimits, required, 2);
  const OperandDescriptor& di = builder.Desc(input);
  const OperandDescriptor& dw = builder.Desc(weight);
  const OperandDescriptor& dr = builder.Desc(recurrentWeight);
  const OperandDescriptor& dh = builder.Desc(hiddenState);
  const OperandDescriptor& dc = builder.Desc(cellState);
  const uint64_t batch = di.shape[0];       // step 5
  const uint64_t input_size = di.shape[1];  // step 6
  const uint64_t hs = hiddenSize;
  CheckShape(name, "weight", dw.shape, {4 * hs, input_size});                        // step 7
  CheckShape(name, "recurrentWeight", dr.shape, {4 * hs, hs});                       // step 8
  CheckShape(name, "hiddenState", dh.shape, {batch, hs});                            // step 9
  CheckShape(name, "cellState", dc.shape, {batch, hs});                              // step 10
  CheckHiddenSizeProduct(name, hiddenSize, 8);                                       // step 11
  CheckOptionalOperand(builder, name, "bias", options.bias, type, {4 * hs});         // step 12
  CheckOptionalOperand(builder, name, "recurrentBias", options.recurrentBias, type,  // step 13
                       {4 * hs});
  CheckOptionalOperand(builder, name, "peepholeWeight", options.peepholeWeight, type,  // 14
                       {3 * hs});
  // Steps 15-16.
  const std::vector<Act> acts =
      ResolveActivations(name, options.activations, {Act::kSigmoid, Act::kTanh, Act::kTanh});
  // Steps 17-20.
  std::vector<OperandId> inputs{input.id, weight.id, recurrentWeight.id, hiddenState.id,
                                cellState.id};
  Slots slots;
  slots.bias = Append(inputs, options.bias);
  slots.recurrentBias = Append(inputs, options.recurrentBias);
  slots.peepholeWeight = Append(inputs, options.peepholeWeight);
  const LstmCellGeometry g{batch, input_size, hs, options.layout, acts[0], acts[1], acts[2]};
  OperatorNode node{OpId::lstmCell,
                    options.label,
                    std::move(inputs),
                    {},
                    std::make_shared<LstmCellKernel>(g, slots),
                    {OpId::lstmCell, type, input_size + hs + kLstmStepExtra}};
  auto attributes = MakeAttributes(true, true, 1, batch, input_size, hs, acts, slots);
  attributes->lstm_layout = options.layout;
  node.attributes = std::move(attributes);
  return builder.AddOperator(std::move(node),
                             {{type, {batch, hs}}, {type, {batch, hs}}});  // step 21
}

// ---------------------------------------------------------------------------------------------
// Call adapters.

namespace {

const std::vector<std::string> kActivationNames = {"relu", "sigmoid", "tanh"};
const std::vector<std::string> kDirectionNames = {"forward", "backward", "both"};

std::optional<std::vector<Act>> ActivationsOption(const OpCall& call, const Value& o) {
  const auto names = call.GetEnumListOption(o, "activations", kActivationNames);
  if (!names) return std::nullopt;
  std::vector<Act> acts;
  for (const std::string& s : *names) {
    acts.push_back(s == "relu" ? Act::kRelu : s == "sigmoid" ? Act::kSigmoid : Act::kTanh);
  }
  return acts;
}

MLRecurrentNetworkDirection DirectionOption(const OpCall& call, const Value& o) {
  const auto d = call.GetEnumOption(o, "direction", kDirectionNames);
  if (d == "backward") return MLRecurrentNetworkDirection::kBackward;
  if (d == "both") return MLRecurrentNetworkDirection::kBoth;
  return MLRecurrentNetworkDirection::kForward;
}

MLGruWeightLayout GruLayoutOption(const OpCall& call, const Value& o) {
  return call.GetEnumOption(o, "layout", {"zrn", "rzn"}) == "rzn" ? MLGruWeightLayout::kRzn
                                                                  : MLGruWeightLayout::kZrn;
}

MLLstmWeightLayout LstmLayoutOption(const OpCall& call, const Value& o) {
  return call.GetEnumOption(o, "layout", {"iofg", "ifgo"}) == "ifgo" ? MLLstmWeightLayout::kIfgo
                                                                     : MLLstmWeightLayout::kIofg;
}

}  // namespace

std::vector<Operand> CallGru(OpCall& call) {
  call.ExpectAtMost(6);
  const Operand input = call.GetOperand(0, "input");
  const Operand weight = call.GetOperand(1, "weight");
  const Operand recurrentWeight = call.GetOperand(2, "recurrentWeight");
  const uint32_t steps = call.GetUint32(3, "steps");
  const uint32_t hiddenSize = call.GetUint32(4, "hiddenSize");
  const Value& o = call.GetOptions(5);
  MLGruOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  options.bias = call.GetOperandOption(o, "bias");
  options.recurrentBias = call.GetOperandOption(o, "recurrentBias");
  options.initialHiddenState = call.GetOperandOption(o, "initialHiddenState");
  options.resetAfter = call.GetBoolOption(o, "resetAfter").value_or(true);
  options.returnSequence = call.GetBoolOption(o, "returnSequence").value_or(false);
  options.direction = DirectionOption(call, o);
  options.layout = GruLayoutOption(call, o);
  options.activations = ActivationsOption(call, o);
  return Gru(call.builder(), input, weight, recurrentWeight, steps, hiddenSize, options);
}

std::vector<Operand> CallGruCell(OpCall& call) {
  call.ExpectAtMost(6);
  const Operand input = call.GetOperand(0, "input");
  const Operand weight = call.GetOperand(1, "weight");
  const Operand recurrentWeight = call.GetOperand(2, "recurrentWeight");
  const Operand hiddenState = call.GetOperand(3, "hiddenState");
  const uint32_t hiddenSize = call.GetUint32(4, "hiddenSize");
  const Value& o = call.GetOptions(5);
  MLGruCellOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  options.bias = call.GetOperandOption(o, "bias");
  options.recurrentBias = call.GetOperandOption(o, "recurrentBias");
  options.resetAfter = call.GetBoolOption(o, "resetAfter").value_or(true);
  options.layout = GruLayoutOption(call, o);
  options.activations = ActivationsOption(call, o);
  return {
      GruCell(call.builder(), input, weight, recurrentWeight, hiddenState, hiddenSize, options)};
}

std::vector<Operand> CallLstm(OpCall& call) {
  call.ExpectAtMost(6);
  const Operand input = call.GetOperand(0, "input");
  const Operand weight = call.GetOperand(1, "weight");
  const Operand recurrentWeight = call.GetOperand(2, "recurrentWeight");
  const uint32_t steps = call.GetUint32(3, "steps");
  const uint32_t hiddenSize = call.GetUint32(4, "hiddenSize");
  const Value& o = call.GetOptions(5);
  MLLstmOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  options.bias = call.GetOperandOption(o, "bias");
  options.recurrentBias = call.GetOperandOption(o, "recurrentBias");
  options.peepholeWeight = call.GetOperandOption(o, "peepholeWeight");
  options.initialHiddenState = call.GetOperandOption(o, "initialHiddenState");
  options.initialCellState = call.GetOperandOption(o, "initialCellState");
  options.returnSequence = call.GetBoolOption(o, "returnSequence").value_or(false);
  options.direction = DirectionOption(call, o);
  options.layout = LstmLayoutOption(call, o);
  options.activations = ActivationsOption(call, o);
  return Lstm(call.builder(), input, weight, recurrentWeight, steps, hiddenSize, options);
}

std::vector<Operand> CallLstmCell(OpCall& call) {
  call.ExpectAtMost(7);
  const Operand input = call.GetOperand(0, "input");
  const Operand weight = call.GetOperand(1, "weight");
  const Operand recurrentWeight = call.GetOperand(2, "recurrentWeight");
  const Operand hiddenState = call.GetOperand(3, "hiddenState");
  const Operand cellState = call.GetOperand(4, "cellState");
  const uint32_t hiddenSize = call.GetUint32(5, "hiddenSize");
  const Value& o = call.GetOptions(6);
  MLLstmCellOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  options.bias = call.GetOperandOption(o, "bias");
  options.recurrentBias = call.GetOperandOption(o, "recurrentBias");
  options.peepholeWeight = call.GetOperandOption(o, "peepholeWeight");
  options.layout = LstmLayoutOption(call, o);
  options.activations = ActivationsOption(call, o);
  return LstmCell(call.builder(), input, weight, recurrentWeight, hiddenState, cellState,
                  hiddenSize, options);
}

}  // namespace nnref
