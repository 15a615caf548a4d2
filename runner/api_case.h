// Graph cases through the library API (runner/api/webnn.h): build on an MLContext with
// MLGraphBuilder, then createTensor, writeTensor, dispatch and readTensor on the context's
// timeline. `nnref run`, `generate` and `check` compute every graph case this way; timeline
// cases (runner/timeline.h) share AddCaseToBuilder.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ops/support_limits.h"
#include "ref/value.h"
#include "runner/api/webnn.h"
#include "runner/case.h"
#include "runner/execute.h"

namespace nnref {

// A graph case built on a context.
struct ApiCase {
  webnn::Context context;
  std::unique_ptr<webnn::GraphBuilder> builder;  // owns the operands named in `built`
  webnn::Graph graph;
  // Names, builder warnings, decoded input data; built.graph is graph.implementation() (for
  // tolerances). built.owner stays empty: the ApiCase owns the context and builder.
  BuiltCase built;
};

// The MLTensor a build step's constant(tensor) input names (timeline cases).
using ConstantTensorLookup = std::function<webnn::Tensor(const TensorSpec& input)>;

// Adds the inputs of `c` to `builder` (input(); constant(descriptor, buffer) with the decoded
// data in the view type matching its data type; constant(tensor) through `tensors`), then its
// operators through the registry. Input data, when given, is decoded into b.input_values. `gpath`
// names the graph in messages ("FILE: case 'X': graph").
void AddCaseToBuilder(const Case& c, webnn::GraphBuilder& builder, BuiltCase& b,
                      const std::string& gpath, const ConstantTensorLookup& tensors = {});

// Builds a graph case on a new context with `limits` (and `backend`: MLContextOptions::backend)
// and awaits build(outputs). Spec errors propagate as WebnnError (thrown by a method or the
// rejection of build, which on a backend's context includes the OperationError of an operator
// the backend lacks), malformed cases as InputError naming file, case and field.
ApiCase BuildCaseOnContext(const Case& c, const std::vector<std::string>& outputs,
                           const BuilderLimits& limits,
                           std::shared_ptr<const Backend> backend = nullptr);

// Computes the outputs: a writable tensor per graph input (createTensor, writeTensor), a readable
// one per output, dispatch(), then readTensor of each output (with the reference's latitude).
// `observer` sees every operand as the dispatch computes it (Context::DispatchObserved).
std::map<std::string, OperandValue> DispatchCase(ApiCase& a,
                                                 const ExecutionObserver& observer = {});

// The MLOpSupportLimits dictionary as JSON, members in the spec's order, data types and ranks as
// MLTensorLimits {dataTypes, rankRange {min, max}} (`nnref ops --json`, timeline steps).
Value OpSupportLimitsValue(const MLOpSupportLimits& limits);

}  // namespace nnref
