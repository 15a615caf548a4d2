// The runner of timeline scripts (runner/timeline.h), internal to it. One Runner runs one script;
// its methods are grouped by concern:
//   timeline.cc          the step loop, contexts, tensors, reads and awaits (judged by
//                        runner/judge.h), checks of tensors and contexts
//   timeline_graph.cc    named builders and their steps, build and dispatch
//   timeline_buffers.cc  the buffers a step passes: inline data, named script buffers and views
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ops/backend.h"
#include "ref/error.h"
#include "ref/graph/graph.h"
#include "ref/value.h"
#include "runner/api/webnn.h"
#include "runner/api_case.h"
#include "runner/case.h"
#include "runner/judge.h"
#include "runner/timeline.h"
#include "runner/timeline_script.h"

namespace nnref::timeline_internal {

[[noreturn]] inline void Bad(const std::string& where, const std::string& what) {
  throw InputError(where + ": " + what);
}

// A check of the step failed (not a spec error): the case fails here.
struct StepFailure {
  std::string message;
};

// The byte length of a descriptor, UINT64_MAX when it does not fit.
uint64_t ByteLengthOf(DataType type, const Shape& shape);

// The bytes of the buffer a step describes, for a tensor of `tensor_type` and `tensor_bytes`.
// Buffers beyond `max_bytes` (a little more than any tensor the context accepts) are refused,
// except that a buffer sized by a descriptor the context cannot hold is left empty: the call then
// fails on the descriptor, before it looks at the buffer.
std::vector<std::byte> MakeBuffer(const BufferSpec& spec, webnn::BufferType type,
                                  DataType tensor_type, uint64_t tensor_bytes, uint64_t max_bytes,
                                  const std::string& field, const std::string& base_dir);

// [EnforceRange] unsigned long and the MLOperandDataType enum, as WebIDL converts them.
webnn::MLTensorDescriptor ConvertDescriptor(const Value& d, const std::string& what);

// The GPU device of a timeline script (createContext's "gpuDevice" option) when the backend runs
// on no device: buffers in host memory, written and read by the script's gpuWrite / gpuRead steps
// as the application's shaders would (docs/interop.md). Contexts created from it compute with the
// reference kernels. On a backend with devices (vulkan) the script's GPU device is the backend's
// GpuApplication instead (Backend::MakeGpuApplication): a device of its own, copies on its queue.
class ScriptGpuDevice final : public GpuDevice {
 public:
  explicit ScriptGpuDevice(uint64_t identity) : identity_(identity) {}
  std::string_view api() const override { return "script"; }
  uint64_t identity() const override { return identity_; }
  std::string Describe() const override { return "a timeline script's GPU device (host memory)"; }
  std::shared_ptr<const Backend> backend() const override { return nullptr; }
  GpuBufferHandle CreateImportBuffer(std::span<const std::byte> bytes) override;
  void ReleaseImportBuffer(const GpuBufferHandle& buffer, uint64_t fence,
                           std::span<std::byte> out) override;
  // The application's side: the rented buffer's bytes.
  std::vector<std::byte> Read(const GpuBufferHandle& buffer);
  void Write(const GpuBufferHandle& buffer, std::span<const std::byte> bytes);

 private:
  const uint64_t identity_;
  std::mutex mu_;
  std::map<uint64_t, std::vector<std::byte>> buffers_;
  uint64_t next_ = 1;
};

// The application of a ScriptGpuDevice.
class ScriptGpuApplication final : public GpuApplication {
 public:
  explicit ScriptGpuApplication(uint64_t identity)
      : device_(std::make_shared<ScriptGpuDevice>(identity)) {}
  std::shared_ptr<GpuDevice> device() const override { return device_; }
  void Write(const GpuBufferHandle& buffer, std::span<const std::byte> bytes) override {
    device_->Write(buffer, bytes);
  }
  std::vector<std::byte> Read(const GpuBufferHandle& buffer) override {
    return device_->Read(buffer);
  }

 private:
  std::shared_ptr<ScriptGpuDevice> device_;
};

class Runner {
 public:
  Runner(const Case& c, const BuilderLimits& limits, const JudgeOptions& judge,
         std::shared_ptr<const Backend> backend)
      : c_(c), limits_(limits), judge_(judge), backend_(std::move(backend)) {}

  TimelineResult Run();

 private:
  struct GraphEntry {
    webnn::Graph graph;
  };
  // Where a tensor's current data came from: the default tolerance of its reads.
  struct Provenance {
    std::shared_ptr<const nnref::Graph> graph;
    OperandId id;
  };
  struct Promise {
    const TimelineStep* step = nullptr;
    // After the first await: the outcome, replayed by later awaits of the same promise.
    bool settled = false;
    std::optional<WebnnError> error;
    webnn::Tensor settled_tensor;
    webnn::Graph settled_graph;
    OperandValue settled_value;
    std::future<webnn::Tensor> tensor;
    std::future<webnn::Graph> graph;
    // readTensor: the read, and for the BYOB form the buffer and a read of the latitude.
    std::future<OperandValue> value;
    std::future<void> byob;
    // The BYOB target: its bytes, and the storage they live in (kept alive while the promise is).
    std::span<std::byte> byob_target;
    std::shared_ptr<std::vector<std::byte>> byob_buffer;
    webnn::Tensor read_of;
    std::optional<Provenance> provenance;
  };
  // A named script buffer (ArrayBuffer or SharedArrayBuffer).
  struct ScriptBuffer {
    std::shared_ptr<std::vector<std::byte>> bytes;
    std::shared_ptr<bool> detached = std::make_shared<bool>(false);
    bool shared = false;
  };
  // A view of a named buffer, as a script would make it (new Float32Array(buffer, byteOffset,
  // length), new DataView(...), or the buffer itself).
  struct View {
    webnn::BufferType type;
    std::span<std::byte> bytes;  // empty once the buffer is detached
    uint64_t offset = 0;
    ScriptBuffer buffer;
  };

  static std::string Prefix(const TimelineStep& s) {
    return "[" + std::to_string(s.index) + "] " + s.method + ": ";
  }

  // timeline.cc: the steps, contexts, tensors and reads.
  void Fail(const TimelineStep& s, const std::string& message);
  void Execute(const TimelineStep& s);
  webnn::Context& Ctx(const TimelineStep& s);
  webnn::Tensor& TensorNamed(const TimelineStep& s, const std::string& name,
                             const std::string& member);
  webnn::Graph& GraphNamed(const TimelineStep& s, const std::string& name);
  void Keep(const TimelineStep& s, Promise p);
  void CreateContext(const TimelineStep& s);
  void BindTensor(const TimelineStep& s, webnn::Tensor t);
  Promise StartRead(const TimelineStep& s);
  // Awaits a read (throws its rejection).
  OperandValue SettleRead(Promise& p);
  // Logs and checks the data read; `s` holds the expectation (the readTensor or await step).
  void CheckRead(const TimelineStep& s, const Promise& p, const OperandValue& got);
  void Compare(const TimelineStep& s, const Promise& p, const OperandValue& got);
  void Await(const TimelineStep& s);
  void CheckTensor(const TimelineStep& s);

  // timeline_gpu.cc: GPU interop steps.
  // The script's GPU device of that name (made on first use); `field` names the step's field
  // in errors.
  std::shared_ptr<GpuApplication> GpuDeviceNamed(const std::string& name, const std::string& field);
  void ImportExternalBuffer(const TimelineStep& s);
  void GpuWrite(const TimelineStep& s);
  void GpuRead(const TimelineStep& s);
  void ReturnBuffer(const TimelineStep& s);
  // A script runs in one thread: awaiting work that waits for a rental the script has not yet
  // returned would never end. Refuses (InputError) to await a read of a tensor in waiting_.
  void CheckNotWaiting(const TimelineStep& s, const webnn::Tensor& t, const std::string& name);
  // After a dispatch: its tensors wait too when one of them does (indirect dependency).
  void NoteDispatch(const std::vector<webnn::Tensor>& tensors);

  // Promises and errors. Awaits a promise: an error it throws is a rejection.
  template <typename T>
  T Settle(std::future<T>& f) {
    try {
      return f.get();
    } catch (const WebnnError&) {
      rejected_ = true;
      throw;
    }
  }
  void Settle(std::future<void>& f);
  template <typename T>
  static std::future<T> RejectedWith(const WebnnError& e) {
    std::promise<T> p;
    p.set_exception(std::make_exception_ptr(e));
    return p.get_future();
  }

  // timeline_graph.cc: named builders, build and dispatch.
  webnn::GraphBuilder& BuilderNamed(const TimelineStep& s);
  void BindOperand(const TimelineStep& s, const std::string& name, const webnn::Operand& o);
  void Input(const TimelineStep& s);
  void Constant(const TimelineStep& s);
  void Operator(const TimelineStep& s);
  void Build(const TimelineStep& s);
  void BindGraph(const TimelineStep& s, webnn::Graph g);
  void Dispatch(const TimelineStep& s);

  // timeline_buffers.cc: the buffers a step passes.
  ScriptBuffer& BufferNamed(const std::string& name, const std::string& field);
  // `tensor_type` gives the default view type (the one matching it); `typed_only` refuses
  // ArrayBuffer, SharedArrayBuffer and DataView (setBuffer, checkBuffer: values need an element
  // type).
  View ViewOf(const BufferSpec& spec, std::optional<DataType> tensor_type, const std::string& field,
              bool typed_only);
  // The AllowSharedBufferSource a step passes: inline bytes (kept in `owned`) or a view of a named
  // buffer.
  webnn::AllowSharedBufferSource Source(const TimelineStep& s, const BufferSpec& spec,
                                        DataType type, uint64_t tensor_bytes,
                                        std::vector<std::byte>& owned);
  void CreateBuffer(const TimelineStep& s);
  void SetBuffer(const TimelineStep& s);
  void DetachBuffer(const TimelineStep& s);
  void CheckBuffer(const TimelineStep& s);
  static uint64_t ByteLength(const webnn::Tensor& t) {
    return ByteLengthOf(t.dataType(), t.shape());
  }
  // The largest buffer a step may describe: a little beyond any tensor the contexts accept, so
  // that "one element too many" can still be tested.
  uint64_t MaxBuffer() const { return limits_.max_tensor_byte_length + 4096; }
  static webnn::BufferType BufferTypeFor(const BufferSpec& b, DataType type) {
    return b.type.empty() ? webnn::MatchingBufferType(type) : *webnn::ParseBufferType(b.type);
  }

  const Case& c_;
  BuilderLimits limits_;
  JudgeOptions judge_;                      // --exact and how reads are judged
  std::shared_ptr<const Backend> backend_;  // every context's kernels (null: the reference)
  TimelineResult r_;
  std::string log_;  // the current step's log detail
  // The script's GPU devices (GpuDeviceNamed), declared before the contexts created from them and
  // everything computed on them, so that those are gone before a device is destroyed.
  std::map<std::string, std::shared_ptr<GpuApplication>> gpu_devices_;
  std::map<std::string, webnn::Context> contexts_;
  std::map<std::string, webnn::Tensor> tensors_;
  std::map<std::string, GraphEntry> graphs_;
  std::map<std::string, Promise> promises_;
  std::map<std::string, Provenance> provenance_;  // by tensor name
  bool rejected_ = false;  // the current step's error came from a promise it awaited
  // Named builders, kept alive to the end (an operand of a builder must never outlive it), and
  // the operands of all of them in one namespace (with the builder warnings).
  std::vector<std::unique_ptr<webnn::GraphBuilder>> builder_store_;
  std::map<std::string, webnn::GraphBuilder*> builders_;
  BuiltCase operands_;
  std::map<std::string, ScriptBuffer> buffers_;
  // GPU interop: the buffers rented to the script's GPU devices (declared last, so that rentals
  // still held at the end are returned while their contexts live).
  struct Rental {
    webnn::ImportedBuffer buffer;
    std::shared_ptr<GpuApplication> device;
    webnn::Tensor tensor;
  };
  std::map<std::string, Rental> rentals_;
  // The tensors whose work waits for an outstanding rental: the rented ones and those a
  // dispatch queued during the rental shares with them (best effort: reset to the rented ones
  // at each return, cleared when a tensor is destroyed or the context destroyed).
  std::vector<webnn::Tensor> waiting_;
};

}  // namespace nnref::timeline_internal
