// Backends: kernel sets other than the reference for graphs the builder already validated.
//
// A backend reads each operator node of a built Graph (its method name, operand descriptors and
// the validated attributes of OperatorNode::attributes) and makes its own Kernel for it, or says
// why it cannot ("lstm not implemented", "float16 not supported"), before any work is done (the
// VK-GL-CTS "not supported" verdict). The reference kernels are the nodes' own `kernel`s; they
// know nothing of backends, and backends (ops/simd/, ...) depend on ops/, never the reverse. The
// reference is registered as a backend too ("reference", ops/reference_backend.h) whose kernels are
// those node kernels, so that every kernel set goes through one list (BackendRegistration).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "numerics/dtype.h"
#include "ref/graph/graph.h"

namespace nnref {

class GpuApplication;  // ops/gpu_interop.h

// How a backend that offers the choice computes (the vulkan backend, `--vulkan-arithmetic`;
// docs/vulkan.md#arithmetic-modes). kExact: near correct rounding (compensated sums, precise
// transcendentals); kNative: as a production GPU backend does (float32 accumulation with fma(),
// tiled kernels), judged by the tolerances like any implementation. Backends without the choice
// ignore it.
enum class Arithmetic : uint8_t { kExact, kNative };

struct BackendOptions {
  unsigned threads = 0;  // worker threads for one kernel; 0 = every core of the machine
  int device = -1;       // device index for backends with devices (vulkan); -1 = the first
  Arithmetic arithmetic = Arithmetic::kExact;
};

// The reason a backend gives for an operator none of its parts claims: a gap, which the coverage
// test (runner/backend_coverage_test.cc) reports. An operator a backend leaves out on purpose
// gets a reason of its own ("lstm: not implemented; the reference computes it").
inline constexpr std::string_view kNoKernelForOperator = "not implemented";
// The reason a backend may give for the operators of the NNEF group (ops/nnef_op_list.inc) it has
// no kernel for: only `nnref nnef` builds them, and `nnref nnef --backend` lists a model or case
// that needs one as a backend-unsupported skip (never computed on the reference instead).
inline constexpr std::string_view kNnefOnlyOperator =
    "an NNEF-only operator this backend does not implement";

// A whole graph computed at once by a backend (the vulkan backend records it into one command
// buffer with the intermediates kept on the device; docs/vulkan.md#graph-execution), instead of
// one kernel call per operator. Made by Backend::MakeGraphRunner for one graph and its kernels;
// the check mode never uses it (it runs each kernel alone on the reference's inputs).
class GraphRunner {
 public:
  virtual ~GraphRunner() = default;
  // The outputs of `graph` (the graph the runner was made for) on `inputs` by name: the same
  // values Graph::Compute(inputs, {}, kernels) gives with the backend's kernels. Throws as the
  // kernels do (std::runtime_error on a device failure).
  virtual std::map<std::string, OperandValue> Compute(
      const Graph& graph, const std::map<std::string, Tensor>& inputs) const = 0;
  // One line per operator, in graph order: how it runs ("3 matmul: recorded", "5 concat: per
  // operator: <reason>").
  virtual std::vector<std::string> Schedule() const = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // The name used on the command line and in reports ("simd").
  virtual std::string_view name() const = 0;
  // A one-line description: what it computes with, which SIMD target it picked, ...
  virtual std::string Describe() const = 0;
  // Why the backend has no kernel for `op` with inputs of `type` (nullopt: it has one). Used for
  // `nnref ops --backend`; MakeKernel may still refuse a particular node (e.g. a layout).
  virtual std::optional<std::string> Unsupported(OpId op, DataType type) const = 0;
  // The kernel for operator `index` of `graph`, or null with `why` set when there is none.
  virtual std::shared_ptr<const Kernel> MakeKernel(const Graph& graph, size_t index,
                                                   std::string& why) const = 0;
  // Why the backend cannot compute anything at all (no loader, no device, a device index that
  // does not exist, a validation layer asked for but missing), in words that say what to do;
  // nullopt when it can run. `nnref run --backend NAME` refuses an unavailable backend (exit 2)
  // unless --allow-unavailable-backend is given, so that a lost device cannot pass as skips.
  virtual std::optional<std::string> Unavailable() const { return std::nullopt; }
  // GPU interop (the MLTensor explainer; docs/interop.md): which contexts computing with this
  // backend can rent importableToWebGPU tensors to a GPU device, in words for `nnref ops`; empty
  // when none can (contexts created from options refuse importableToWebGPU with
  // NotSupportedError).
  virtual std::string GpuInterop() const { return ""; }
  // An application of its own on this backend's kind of device, for timeline scripts' GPU
  // interop steps (ops/gpu_interop.h), or null with `why` empty when the backend runs on no
  // device (scripts then use a host-memory GPU device) and with `why` set when it cannot make one.
  virtual std::shared_ptr<GpuApplication> MakeGpuApplication(std::string& why) const {
    why.clear();
    return nullptr;
  }
  // A runner computing `graph` as a whole with `kernels` (this backend's, one per operator), or
  // null: the graph is then computed one kernel at a time (Graph::Compute).
  virtual std::shared_ptr<const GraphRunner> MakeGraphRunner(
      const Graph& graph, std::span<const std::shared_ptr<const Kernel>> kernels) const {
    (void)graph;
    (void)kernels;
    return nullptr;
  }
};

// One line of a device in `nnref devices`: the JSON member, the text label and the value (a bool
// prints as yes/no).
struct DeviceField {
  std::string key;    // "apiVersion"
  std::string label;  // "API version"
  std::variant<std::string, bool, uint64_t> value;
};
struct DeviceReport {
  std::string name;
  std::vector<DeviceField> fields;
};

// What a backend folder registers: the runner's list of kernel sets (runner/backends.h) is
// generated from the folders named in NNREF_BACKEND_DIRS of the top CMakeLists.txt, each of which
// declares its registration function with nnref_backend() in its CMakeLists.txt
// (docs/adding-an-operator.md#adding-a-backend). The reference kernel set is one of them.
struct BackendRegistration {
  std::string_view name;  // --backend NAME
  std::shared_ptr<const Backend> (*make)(const BackendOptions& options) = nullptr;
  // Backends that run on devices (--device N): what they are ("Vulkan") and their list for
  // `nnref devices`, or nullopt with `why` (no loader, no device). Null for the others.
  std::string_view device_kind;
  std::optional<std::vector<DeviceReport>> (*list_devices)(std::string& why) = nullptr;
};

// The coverage of `backend` over the operator list: for every WebNN operator (ops/op_list.inc)
// and each data type its first operand may have, and for every NNEF-only operator
// (ops/nnef_op_list.inc) with float32, the backend must have a kernel or state why not. Returns
// one line per gap, "<op> <type>: <what is wrong>" (no reason, an empty reason, or the
// unclaimed kNoKernelForOperator); empty when the backend is covered.
std::vector<std::string> CoverageGaps(const Backend& backend);

// A graph compiled for a backend: one kernel per operator of the graph, in order.
struct BackendGraph {
  std::shared_ptr<const Backend> backend;
  std::vector<std::shared_ptr<const Kernel>> kernels;
  // The whole-graph runner (Backend::MakeGraphRunner), or null.
  std::shared_ptr<const GraphRunner> runner;
};

// The outputs of `graph` computed with `compiled`: through its runner when it has one, else one
// kernel at a time (Graph::Compute).
std::map<std::string, OperandValue> ComputeOnBackend(const Graph& graph,
                                                     const BackendGraph& compiled,
                                                     const std::map<std::string, Tensor>& inputs);

// The backend's kernels for every operator of `graph`. When one is missing the result has no
// kernels and `why` names the backend, the operator and the reason ("simd: lstm: not
// implemented"); every missing operator is named once.
std::optional<BackendGraph> CompileForBackend(const Graph& graph,
                                              std::shared_ptr<const Backend> backend,
                                              std::string& why);

}  // namespace nnref
