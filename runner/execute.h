// Building and running one case on the reference: the walk from a decoded case to output values.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "numerics/tolerance.h"
#include "ops/tolerance_table.h"
#include "ref/graph/graph.h"
#include "runner/case.h"

namespace nnref {

struct BuiltCase {
  // What the operands belong to: the context and builder of BuildCase (null in an ApiCase, which
  // holds them itself).
  std::shared_ptr<void> owner;
  std::shared_ptr<const Graph> graph;
  std::map<std::string, Operand> named;           // case names -> operands
  std::map<uint32_t, std::string> operand_names;  // operand id -> case name
  std::map<std::string, Tensor> input_values;     // data for graph inputs
  std::vector<std::string> output_names;          // in the order they were requested
  std::vector<std::string> warnings;              // non-fatal remarks from builder methods
};

// The outputs a case asks for: its expectedOutputs names, or else every operator output that no
// later operator consumes.
std::vector<std::string> RequestedOutputs(const Case& c);

// Runs the builder methods of the case (on a context: BuildCaseOnContext). Spec errors propagate
// as WebnnError; malformed cases as InputError (naming file, case and field).
BuiltCase BuildCase(const Case& c, const std::vector<std::string>& outputs,
                    const BuilderLimits& limits = {});

// Adds the operators of the case to `builder` through the registry (ops/op_call.h), resolving
// operand names through b.named and recording the outputs' names there. `at` prefixes messages
// (default "FILE: case 'NAME': graph").
void AddCaseOperators(const Case& c, GraphBuilder& builder, BuiltCase& b,
                      const std::string& at = "");

// Adds one operator the same way; `where` names it in messages.
void AddCaseOperator(const OperatorSpec& spec, GraphBuilder& builder, BuiltCase& b,
                     const std::string& where);

// Executes a built case; `observer` sees every operand as it is computed.
std::map<std::string, OperandValue> RunBuiltCase(const BuiltCase& b,
                                                 const ExecutionObserver& observer = {});

// The tolerance for one output: the case's own, else the sum of the default rows of the
// operators feeding it. Throws InputError when an operator has no row.
Tolerance ToleranceFor(const Case& c, const BuiltCase& b, const std::string& output);

}  // namespace nnref
