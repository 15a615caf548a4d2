// Execution of a flattened NNEF graph (runner/nnef/ir.h) on the reference kernels.
//
// The FlatGraph's primitive invocations become one ref::Graph (ref/graph/graph.h) of registered
// operators (runner/nnef/lower.h): the WebNN operators of ops/ where NNEF and WebNN agree
// (element-wise arithmetic, comparisons and logic, select, the sum/mean/min/max reductions,
// matmul, the shape operations, pad where WebNN's modes read the same, 2-D convolutions with a
// zero border and non-negative padding, 2-D symmetric linear up-sampling with a replicate border),
// and the NNEF operator group of ops/ (ops/nnef_op_list.inc) for the rest. NNEF's own rules are
// applied before a WebNN operator is called: shapes are aligned by appending singleton dimensions
// (NNEF broadcasting extends shapes to the right, chapter 2.2, where WebNN's aligns them to the
// right), padding and stride/dilation defaults follow chapter 4.3, and groups = 0 means
// depth-wise.
//
// Types: scalar tensors are float32, integer tensors int64, logical tensors uint8 (0/1).
// Variables are loaded from `<model dir>/<label>.dat` and persist between Run calls; `update`
// replaces a variable's value after the cycle (chapter 4.8). A graph.quant entry applies its
// quantization to the tensor right after it is computed (chapter 7.1).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "numerics/tolerance.h"
#include "ref/graph/graph.h"
#include "runner/nnef/ir.h"
#include "runner/nnef/quant_file.h"

namespace nnref::nnef {

struct ExecutorOptions {
  uint64_t max_tensor_bytes = uint64_t{1} << 31;  // per tensor (inputs, files, results)
  // Largest number of window terms one sliding-window operation may add (output elements x
  // window volume): a bound against hostile windows that would run for days.
  uint64_t max_window_terms = uint64_t{1} << 34;
};

// Called for every tensor of the graph as it is computed: its identifier, the invocation that
// produced it (nullptr for graph inputs and variables), the kernel that computed it (the
// ref::Graph operator: a WebNN method name such as "conv2d", or an NNEF-group operator such as
// "conv"; empty for inputs and constants) and the value.
using TraceSink = std::function<void(const std::string& id, const Invocation* producer,
                                     std::string_view kernel, const OperandValue&)>;

class Executor {
 public:
  // Builds the executable graph. `model_dir` holds the variables' tensor files; `quant` may be
  // null. Throws NnefError: tensor-file (missing/invalid variable data, shape conflicts),
  // quant-file (unknown identifiers or algorithms), validate (arguments the kernels cannot take)
  // or execute (custom operations without semantics).
  Executor(const FlatGraph& graph, const std::string& model_dir, const QuantFile* quant,
           ExecutorOptions options = {});
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  const FlatGraph& graph() const { return graph_; }
  // Type and shape each graph input expects.
  TensorType InputType(const std::string& name) const;
  Shape InputShape(const std::string& name) const;
  // The output tensors' NNEF types, by output name.
  TensorType OutputType(const std::string& name) const;

  // One execution cycle. `inputs` holds every graph input (storage type and shape as above;
  // NnefError stage execute otherwise). Returns the graph outputs by name, then applies the
  // variable updates.
  // `kernels`, when not empty, holds one kernel per operator of Lowered() (a backend's,
  // ops/backend.h: CompileForBackend) used instead of the reference kernels.
  std::map<std::string, OperandValue> Run(
      const std::map<std::string, Tensor>& inputs, const TraceSink& trace = {},
      std::span<const std::shared_ptr<const Kernel>> kernels = {});

  // The lowered graph Run computes (a backend compiles it; the check mode judges its operators).
  const Graph& Lowered() const;
  // The inputs of Lowered() for one cycle: the graph inputs of `inputs` (checked as Run checks
  // them) and every variable's current value.
  std::map<std::string, Tensor> Feed(const std::map<std::string, Tensor>& inputs) const;
  // Where operator `index` of Lowered() comes from: the NNEF invocation it lowers (nullptr for the
  // identity copies of graph outputs) and the tensor identifier it computes (for operators
  // inside a lowering, the identifier of the invocation's result, with `intermediate` set).
  struct Origin {
    const Invocation* invocation = nullptr;
    std::string tensor;
    bool intermediate = false;
  };
  Origin OperatorOrigin(size_t index) const;

  // The default tolerance of an output: exact for integer and logical outputs; for scalar ones
  // the sum of the default-table rows (ops/tolerance_table.cc) of the operations feeding it, each
  // NNEF-group operator judged by the row of the WebNN operator with the same numerics.
  Tolerance DefaultToleranceFor(const std::string& output) const;

  // The current value of a variable, by label (as written in the graph).
  const Tensor& Variable(const std::string& label) const;

 private:
  struct Impl;
  FlatGraph graph_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nnref::nnef
