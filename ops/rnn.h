// Recurrent networks: gru (§api-mlgraphbuilder-gru), gruCell (§api-mlgraphbuilder-grucell),
// lstm (§api-mlgraphbuilder-lstm) and lstmCell (§api-mlgraphbuilder-lstmcell).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ops/limits.h"
#include "ops/op_call.h"

namespace nnref {

extern const OpLimits kGruLimits;
extern const OpLimits kGruCellLimits;
extern const OpLimits kLstmLimits;
extern const OpLimits kLstmCellLimits;

enum class MLGruWeightLayout : uint8_t { kZrn, kRzn };
enum class MLLstmWeightLayout : uint8_t { kIofg, kIfgo };
enum class MLRecurrentNetworkActivation : uint8_t { kRelu, kSigmoid, kTanh };
enum class MLRecurrentNetworkDirection : uint8_t { kForward, kBackward, kBoth };

struct MLGruOptions : MLOperatorOptions {
  std::optional<Operand> bias;
  std::optional<Operand> recurrentBias;
  std::optional<Operand> initialHiddenState;
  bool resetAfter = true;
  bool returnSequence = false;
  MLRecurrentNetworkDirection direction = MLRecurrentNetworkDirection::kForward;
  MLGruWeightLayout layout = MLGruWeightLayout::kZrn;
  std::optional<std::vector<MLRecurrentNetworkActivation>> activations;  // absent: sigmoid, tanh
};

struct MLGruCellOptions : MLOperatorOptions {
  std::optional<Operand> bias;
  std::optional<Operand> recurrentBias;
  bool resetAfter = true;
  MLGruWeightLayout layout = MLGruWeightLayout::kZrn;
  std::optional<std::vector<MLRecurrentNetworkActivation>> activations;  // absent: sigmoid, tanh
};

struct MLLstmOptions : MLOperatorOptions {
  std::optional<Operand> bias;
  std::optional<Operand> recurrentBias;
  std::optional<Operand> peepholeWeight;
  std::optional<Operand> initialHiddenState;
  std::optional<Operand> initialCellState;
  bool returnSequence = false;
  MLRecurrentNetworkDirection direction = MLRecurrentNetworkDirection::kForward;
  MLLstmWeightLayout layout = MLLstmWeightLayout::kIofg;
  // absent: sigmoid, tanh, tanh
  std::optional<std::vector<MLRecurrentNetworkActivation>> activations;
};

struct MLLstmCellOptions : MLOperatorOptions {
  std::optional<Operand> bias;
  std::optional<Operand> recurrentBias;
  std::optional<Operand> peepholeWeight;
  MLLstmWeightLayout layout = MLLstmWeightLayout::kIofg;
  // absent: sigmoid, tanh, tanh
  std::optional<std::vector<MLRecurrentNetworkActivation>> activations;
};

// The validated attributes of a gru, gruCell, lstm or lstmCell node (node.attributes), from which
// backends build their kernels. Operand inputs: input, weight, recurrentWeight, then (cells)
// hiddenState and (lstmCell) cellState, then the present options in the order of the slots below
// (each slot is that option's index in the node's input list, -1 when absent).
struct RecurrentAttributes : OpAttributes {
  bool lstm = false;  // lstm / lstmCell (else gru / gruCell)
  bool cell = false;  // gruCell / lstmCell: one step, hiddenState (and cellState) inputs 3 (and 4)
  uint64_t steps = 1, batch = 0, input_size = 0, hidden_size = 0;
  MLRecurrentNetworkDirection direction = MLRecurrentNetworkDirection::kForward;
  bool return_sequence = false;
  bool reset_after = true;                                     // gru, gruCell
  MLGruWeightLayout gru_layout = MLGruWeightLayout::kZrn;      // gru, gruCell
  MLLstmWeightLayout lstm_layout = MLLstmWeightLayout::kIofg;  // lstm, lstmCell
  // Resolved (defaults filled in): gru: gate (z, r), new gate; lstm: gate (i, f, o), cell gate,
  // cell state filter.
  std::vector<MLRecurrentNetworkActivation> activations;
  int bias = -1, recurrent_bias = -1, peephole_weight = -1;
  int initial_hidden_state = -1, initial_cell_state = -1;
};

// Returns « output » or « output, sequence » (returnSequence).
std::vector<Operand> Gru(GraphBuilder& builder, const Operand& input, const Operand& weight,
                         const Operand& recurrentWeight, uint32_t steps, uint32_t hiddenSize,
                         const MLGruOptions& options = {});
Operand GruCell(GraphBuilder& builder, const Operand& input, const Operand& weight,
                const Operand& recurrentWeight, const Operand& hiddenState, uint32_t hiddenSize,
                const MLGruCellOptions& options = {});
// Returns « hidden, cell » or « hidden, cell, sequence » (returnSequence).
std::vector<Operand> Lstm(GraphBuilder& builder, const Operand& input, const Operand& weight,
                          const Operand& recurrentWeight, uint32_t steps, uint32_t hiddenSize,
                          const MLLstmOptions& options = {});
// Returns « hidden, cell ».
std::vector<Operand> LstmCell(GraphBuilder& builder, const Operand& input, const Operand& weight,
                              const Operand& recurrentWeight, const Operand& hiddenState,
                              const Operand& cellState, uint32_t hiddenSize,
                              const MLLstmCellOptions& options = {});

std::vector<Operand> CallGru(OpCall& call);
std::vector<Operand> CallGruCell(OpCall& call);
std::vector<Operand> CallLstm(OpCall& call);
std::vector<Operand> CallLstmCell(OpCall& call);

}  // namespace nnref
