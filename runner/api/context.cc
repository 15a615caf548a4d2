// MLContext and MLTensor (WebNN §api-mlcontext, §api-mltensor): the method steps on the calling
// side and the work they queue on the context's timeline (one worker thread per context). Step
// numbers in comments are those of the cited section. See internal.h for the locking scheme.
#include <algorithm>
#include <cstring>
#include <set>

#include "runner/api/internal.h"

namespace nnref::webnn {

using internal::Access;
using internal::ContextImpl;
using internal::GraphImpl;
using internal::MakeError;
using internal::Pending;
using internal::Rejected;
using internal::SettleFromTimeline;
using internal::TensorImpl;

// ---------------------------------------------------------------------------------------------
// Buffers (§api-mlcontext "validate buffer with descriptor", and the appendix table).

namespace {

struct BufferTypeInfo {
  BufferType type;
  std::string_view name;
  size_t element_size;
};

constexpr BufferTypeInfo kBufferTypes[] = {
    {BufferType::kArrayBuffer, "ArrayBuffer", 1},
    {BufferType::kSharedArrayBuffer, "SharedArrayBuffer", 1},
    {BufferType::kDataView, "DataView", 1},
    {BufferType::kInt8Array, "Int8Array", 1},
    {BufferType::kUint8Array, "Uint8Array", 1},
    {BufferType::kUint8ClampedArray, "Uint8ClampedArray", 1},
    {BufferType::kInt16Array, "Int16Array", 2},
    {BufferType::kUint16Array, "Uint16Array", 2},
    {BufferType::kInt32Array, "Int32Array", 4},
    {BufferType::kUint32Array, "Uint32Array", 4},
    {BufferType::kFloat16Array, "Float16Array", 2},
    {BufferType::kFloat32Array, "Float32Array", 4},
    {BufferType::kFloat64Array, "Float64Array", 8},
    {BufferType::kBigInt64Array, "BigInt64Array", 8},
    {BufferType::kBigUint64Array, "BigUint64Array", 8},
};

const BufferTypeInfo& InfoOf(BufferType t) {
  for (const BufferTypeInfo& i : kBufferTypes) {
    if (i.type == t) return i;
  }
  return kBufferTypes[0];
}

std::string Describe(const MLOperandDescriptor& d) { return d.ToString(); }

std::atomic<uint64_t> g_next_context_id{1};

}  // namespace

std::string_view BufferTypeName(BufferType t) { return InfoOf(t).name; }

std::optional<BufferType> ParseBufferType(std::string_view name) {
  for (const BufferTypeInfo& i : kBufferTypes) {
    if (i.name == name) return i.type;
  }
  return std::nullopt;
}

size_t BufferElementSize(BufferType t) { return InfoOf(t).element_size; }

BufferType MatchingBufferType(DataType t) {
  switch (t) {
    case DataType::kFloat32:
      return BufferType::kFloat32Array;
    case DataType::kFloat16:
      return BufferType::kFloat16Array;
    case DataType::kInt32:
      return BufferType::kInt32Array;
    case DataType::kUint32:
      return BufferType::kUint32Array;
    case DataType::kInt64:
      return BufferType::kBigInt64Array;
    case DataType::kUint64:
      return BufferType::kBigUint64Array;
    case DataType::kInt8:
      return BufferType::kInt8Array;
    case DataType::kUint8:
      return BufferType::kUint8Array;
  }
  return BufferType::kArrayBuffer;
}

bool ValidateBufferWithDescriptor(BufferType type, size_t byte_length,
                                  const MLOperandDescriptor& descriptor) {
  // Step 1: the byte length must equal the descriptor's.
  if (byte_length != descriptor.ByteLength()) return false;
  switch (type) {
    case BufferType::kArrayBuffer:
    case BufferType::kSharedArrayBuffer:
      return true;
    default:
      break;
  }
  // An ArrayBufferView: a Uint8Array always, else the view type matching the data type. Reading
  // (docs/deviations.md): a Uint16Array also matches float16, as the note under the appendix
  // table allows for implementations without Float16Array.
  if (type == BufferType::kUint8Array) return true;
  if (type == MatchingBufferType(descriptor.dataType)) return true;
  return type == BufferType::kUint16Array && descriptor.dataType == DataType::kFloat16;
}

// ---------------------------------------------------------------------------------------------
// The context and its timeline.

namespace internal {

ContextImpl::ContextImpl(const MLContextOptions& o, std::shared_ptr<GpuDevice> gpu)
    : id(g_next_context_id.fetch_add(1)), options(o), gpu_device(std::move(gpu)) {
  lost_future = lost_promise.get_future().share();
  worker = std::thread([this] { Run(); });
}

ContextImpl::~ContextImpl() {
  {
    std::lock_guard lock(*content_mu);
    if (!lost) Lose("the context was released (its last handle went away)");
  }
  {
    std::lock_guard lock(queue_mu);
    stopping = true;
  }
  queue_cv.notify_all();
  worker.join();  // the queued work runs its "aborted" branch
}

void ContextImpl::Enqueue(std::function<void()> task, std::vector<const TensorImpl*> touches) {
  {
    std::lock_guard lock(queue_mu);
    queue.push_back(Task{std::move(task), std::move(touches), false});
  }
  queue_cv.notify_one();
}

void ContextImpl::EnqueueReturn(std::function<void()> task) {
  {
    std::lock_guard lock(queue_mu);
    queue.push_front(Task{std::move(task), {}, true});
  }
  queue_cv.notify_one();
}

bool ContextImpl::MustWait(const Task& task, const std::deque<Task>& parked) const {
  if (AbortWhenLost()) return false;
  for (const TensorImpl* t : task.touches) {
    if (t->rented_on_timeline) return true;
    for (const Task& p : parked) {
      if (std::find(p.touches.begin(), p.touches.end(), t) != p.touches.end()) return true;
    }
  }
  return false;
}

void ContextImpl::RunParked(std::deque<Task>& parked) {
  std::deque<Task> still;
  while (!parked.empty()) {
    Task task = std::move(parked.front());
    parked.pop_front();
    if (MustWait(task, still)) {
      still.push_back(std::move(task));
    } else {
      task.run();
    }
  }
  parked = std::move(still);
}

// The timeline. Tasks run in the order they were queued, except that a task touching a rented
// tensor, or a tensor an earlier waiting task touches, is parked until the rental ends (the
// explainer: "All WebNN work depending - directly or indirectly - on the imported MLTensor is
// blocked until the GPUDevice returns the tensor"); work on other tensors goes on meanwhile, and
// the order of the tasks on any one tensor is kept.
void ContextImpl::Run() {
  std::deque<Task> parked;
  for (;;) {
    Task task;
    {
      std::unique_lock lock(queue_mu);
      queue_cv.wait(lock, [&] { return stopping || !queue.empty(); });
      if (queue.empty()) {  // stopping (the context is lost), and everything queued has run
        lock.unlock();
        RunParked(parked);  // nothing waits once lost: the parked tasks take their aborted branch
        return;
      }
      task = std::move(queue.front());
      queue.pop_front();
    }
    if (task.is_return) {
      task.run();
      RunParked(parked);
      continue;
    }
    if (!parked.empty() && AbortWhenLost()) RunParked(parked);  // in order, before this task
    if (MustWait(task, parked)) {
      parked.push_back(std::move(task));
    } else {
      task.run();
    }
  }
}

void ContextImpl::Lose(const std::string& message) {
  lost = true;
  lost_flag.store(true, std::memory_order_release);
  lost_promise.set_value(MLContextLostInfo{message});  // step 3: resolve [[lost]]
  for (const std::weak_ptr<GraphImpl>& w : graphs) {   // step 4
    if (const auto g = w.lock()) DestroyGraph(g);
  }
  for (const std::weak_ptr<TensorImpl>& w : tensors) {  // step 5
    if (const auto t = w.lock()) DestroyTensor(t);
  }
}

// §api-mltensor-destroy
void ContextImpl::DestroyTensor(const std::shared_ptr<TensorImpl>& tensor) {
  TensorImpl& t = *tensor;
  t.is_destroyed = true;             // step 1
  for (const auto& p : t.pending) {  // step 2
    p->rejection = MakeError(ErrorType::kInvalidStateError,
                             "readTensor: the tensor was destroyed before the read completed");
    p->cv.notify_all();
  }
  t.pending.clear();
  // Step 3: release [[data]] on the timeline, after the work already queued that uses it (and,
  // for a rented tensor, after its return).
  Enqueue(
      [tensor] {
        std::lock_guard lock(tensor->data_mu);
        tensor->data = OperandValue{};
      },
      {tensor.get()});
}

// §api-mlgraph-destroy
void ContextImpl::DestroyGraph(const std::shared_ptr<GraphImpl>& graph) {
  if (graph->is_destroyed) return;  // step 1
  graph->is_destroyed = true;       // step 2
  // Step 3: mark the resources freeable; dispatches already queued hold their own reference.
  Enqueue([graph] { graph->timeline_resources.reset(); });
}

}  // namespace internal

namespace {

// Prunes expired weak references once the list has doubled since the last pruning.
template <typename T>
void Register(std::vector<std::weak_ptr<T>>& list, const std::shared_ptr<T>& item) {
  if (list.size() >= 64 && (list.size() & (list.size() - 1)) == 0) {
    std::erase_if(list, [](const std::weak_ptr<T>& w) { return w.expired(); });
  }
  list.push_back(item);
}

ContextImpl& Checked(const std::shared_ptr<ContextImpl>& impl) {
  if (!impl) throw WebnnError(ErrorType::kTypeError, "the Context handle is empty");
  return *impl;
}

// Whether `t` is a dense tensor that spans its whole buffer (not a view into a larger one).
bool OwnsDenseBuffer(const nnref::Tensor& t) {
  return !t.valid() || (t.offset() == 0 && t.IsContiguous() &&
                        t.buffer()->size() == t.element_count() * ElementSize(t.dtype()));
}

// A dense copy of a tensor's data and latitude (what the timeline hands to a reader). A value
// that already owns a dense buffer is shared instead: buffers stored in [[data]] are never
// modified in place (a write or dispatch replaces them), so sharing is as good as a copy.
OperandValue CopyValue(const OperandValue& v) {
  if (OwnsDenseBuffer(v.data) && OwnsDenseBuffer(v.latitude)) return v;
  OperandValue out;
  out.data = nnref::Tensor::Allocate(v.data.dtype(), v.data.shape());
  const std::vector<std::byte> bytes = v.data.Bytes();
  if (!bytes.empty()) std::memcpy(out.data.buffer()->data(), bytes.data(), bytes.size());
  if (v.latitude.valid()) {
    out.latitude = NewLatitude(v.latitude.shape());
    const std::vector<std::byte> lat = v.latitude.Bytes();
    if (!lat.empty()) std::memcpy(out.latitude.buffer()->data(), lat.data(), lat.size());
    out.one_of = v.one_of;
  }
  return out;
}

// The timeline's "create [[data]] given descriptor": fails (UnknownError) when the data cannot be
// allocated. createTensor/createConstantTensor have already rejected descriptors failing "check
// dimensions" with TypeError (docs/deviations.md, "createTensor with an invalid descriptor"); the
// check is repeated here as a guard against allocations sized by an unchecked descriptor.
std::optional<internal::Error> CreateData(TensorImpl& t, const BuilderLimits& limits,
                                          const std::vector<std::byte>* initial) {
  try {
    CheckDimensions(t.descriptor, limits, "tensor");
  } catch (const WebnnError& e) {
    return MakeError(ErrorType::kUnknownError,
                     std::string("creating the tensor's data failed: ") + e.what());
  }
  try {
    nnref::Tensor data = nnref::Tensor::Allocate(t.descriptor.dataType, t.descriptor.shape);
    if (initial && !initial->empty()) {
      std::memcpy(data.buffer()->data(), initial->data(), initial->size());
    }
    std::lock_guard lock(t.data_mu);
    t.data = OperandValue{std::move(data), {}};
  } catch (const std::bad_alloc&) {
    return MakeError(ErrorType::kUnknownError, "creating the tensor's data failed: out of memory");
  }
  return std::nullopt;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Context

std::future<Context> Context::Create(const MLContextOptions& options) {
  // §api-ml-createcontext: "create a context" never fails for the default context type.
  std::promise<Context> p;
  p.set_value(Access::MakeContext(std::make_shared<ContextImpl>(options)));
  return p.get_future();
}

// §api-ml-createcontext, createContext(gpuDevice): "create a context" with a GPUDevice.
std::future<Context> Context::Create(std::shared_ptr<GpuDevice> gpuDevice,
                                     const BuilderLimits& limits) {
  if (!gpuDevice) {  // WebIDL: a GPUDevice is required
    return Rejected<Context>(ErrorType::kTypeError, "createContext: the GPU device is null");
  }
  MLContextOptions options;  // steps 2.1-2.3: "webgpu", powerPreference "default", accelerated
  options.powerPreference = MLPowerPreference::kDefault;
  options.accelerated = true;
  options.limits = limits;
  options.backend = gpuDevice->backend();
  // Step 4: "If the user agent cannot support [[contextType]], then return failure", which
  // createContext(gpuDevice) turns into a NotSupportedError.
  if (options.backend) {
    if (const std::optional<std::string> why = options.backend->Unavailable()) {
      return Rejected<Context>(ErrorType::kNotSupportedError,
                               "createContext: the GPU device cannot run WebNN: " + *why);
    }
  }
  std::promise<Context> p;
  p.set_value(
      Access::MakeContext(std::make_shared<ContextImpl>(options, std::move(gpuDevice))));
  return p.get_future();
}

// §api-mlcontext-dispatch
void Context::Dispatch(const Graph& graph, const MLNamedTensors& inputs,
                       const MLNamedTensors& outputs) {
  DispatchObserved(graph, inputs, outputs, {});
}

void Context::DispatchObserved(const Graph& graph, const MLNamedTensors& inputs,
                               const MLNamedTensors& outputs, nnref::ExecutionObserver observer) {
  ContextImpl& c = Checked(impl_);
  const std::shared_ptr<GraphImpl>& g = Access::Of(graph);
  if (!g) throw WebnnError(ErrorType::kTypeError, "dispatch: the graph handle is empty");
  std::lock_guard lock(*c.content_mu);
  if (g->context_id != c.id) {  // step 1
    throw WebnnError(ErrorType::kTypeError, "dispatch: the graph belongs to another context");
  }
  if (g->is_destroyed) {  // step 2
    throw WebnnError(ErrorType::kInvalidStateError, "dispatch: the graph is destroyed");
  }
  // Step 3: allTensors, inputs' values then outputs' values.
  std::vector<std::pair<std::string, const std::shared_ptr<TensorImpl>*>> all;
  for (const auto& [name, t] : inputs) all.emplace_back("input '" + name + "'", &Access::Of(t));
  for (const auto& [name, t] : outputs) all.emplace_back("output '" + name + "'", &Access::Of(t));
  for (const auto& [what, t] : all) {
    if (!*t) throw WebnnError(ErrorType::kTypeError, "dispatch: " + what + ": empty tensor handle");
  }
  for (size_t i = 0; i < all.size(); ++i) {  // step 4
    for (size_t j = 0; j < i; ++j) {
      if (*all[i].second == *all[j].second) {
        throw WebnnError(ErrorType::kTypeError, "dispatch: " + all[j].first + " and " +
                                                    all[i].first + " are the same tensor");
      }
    }
  }
  for (const auto& [what, t] : all) {  // step 5
    if ((*t)->context_id != c.id) {
      throw WebnnError(ErrorType::kTypeError,
                       "dispatch: " + what + ": the tensor belongs to another context");
    }
    if ((*t)->is_destroyed) {
      throw WebnnError(ErrorType::kTypeError, "dispatch: " + what + ": the tensor is destroyed");
    }
  }
  // Steps 6-7: "validate tensors with descriptors" for the inputs, then the outputs.
  const auto validate = [](const MLNamedTensors& named,
                           const std::map<std::string, MLOperandDescriptor>& descriptors,
                           const char* kind) {
    if (named.size() != descriptors.size()) {
      throw WebnnError(ErrorType::kTypeError,
                       std::string("dispatch: ") + std::to_string(named.size()) + " " + kind +
                           " tensors given, the graph has " + std::to_string(descriptors.size()));
    }
    for (const auto& [name, t] : named) {
      const TensorImpl& ti = *Access::Of(t);
      const std::string what = std::string("dispatch: ") + kind + " '" + name + "'";
      if (ti.is_constant) throw WebnnError(ErrorType::kTypeError, what + ": a constant tensor");
      const auto it = descriptors.find(name);
      if (it == descriptors.end()) {
        throw WebnnError(ErrorType::kTypeError,
                         what + ": the graph has no " + kind + " of this name");
      }
      if (!(static_cast<const MLOperandDescriptor&>(ti.descriptor) == it->second)) {
        throw WebnnError(ErrorType::kTypeError,
                         what + ": the tensor is " + Describe(ti.descriptor) +
                             " but the graph's descriptor is " + Describe(it->second));
      }
    }
  };
  validate(inputs, g->input_descriptors, "input");
  validate(outputs, g->output_descriptors, "output");
  // Step 8: issue the compute request on the timeline.
  std::vector<std::pair<std::string, std::shared_ptr<TensorImpl>>> in, out;
  for (const auto& [name, t] : inputs) in.emplace_back(name, Access::Of(t));
  for (const auto& [name, t] : outputs) out.emplace_back(name, Access::Of(t));
  std::vector<const TensorImpl*> touches;
  for (const auto& [name, t] : in) touches.push_back(t.get());
  for (const auto& [name, t] : out) touches.push_back(t.get());
  c.Enqueue([&c, impl = g->implementation, backend = g->backend, in = std::move(in),
             out = std::move(out), observer = std::move(observer)] {
    if (c.AbortWhenLost()) return;
    std::map<std::string, nnref::Tensor> values;
    for (const auto& [name, t] : in) {
      std::lock_guard data_lock(t->data_mu);
      values[name] = t->data.data;
    }
    std::map<std::string, OperandValue> results;
    try {
      // A backend's whole-graph runner (ops/backend.h GraphRunner) when nothing observes the
      // operands; else one kernel at a time.
      results = !backend   ? impl->Compute(values, observer)
                : observer ? impl->Compute(values, observer, backend->kernels)
                           : nnref::ComputeOnBackend(*impl, *backend, values);
    } catch (const std::exception& e) {
      // Kernels never raise spec errors; anything here is an internal failure. The spec has no
      // way to report it yet (issue 778), so the context is lost with the message.
      std::lock_guard content_lock(*c.content_mu);
      if (!c.lost) c.Lose(std::string("dispatch failed: ") + e.what());
      return;
    } catch (...) {
      std::lock_guard content_lock(*c.content_mu);
      if (!c.lost) c.Lose("dispatch failed");
      return;
    }
    for (const auto& [name, t] : out) {
      OperandValue v = CopyValue(results.at(name));
      std::lock_guard data_lock(t->data_mu);
      t->data = std::move(v);
    }
  }, std::move(touches));
}

// §api-mlcontext-createtensor
std::future<Tensor> Context::CreateTensor(const MLTensorDescriptor& descriptor) {
  ContextImpl& c = Checked(impl_);
  std::lock_guard lock(*c.content_mu);
  if (c.lost) {  // step 3
    return Rejected<Tensor>(ErrorType::kInvalidStateError, "createTensor: the context is lost");
  }
  // Not a numbered step: createTensor's steps never check the descriptor, while
  // createConstantTensor's step 4 rejects a descriptor failing "check dimensions" with a
  // TypeError. nnref applies the same check here, as implementations do (docs/deviations.md,
  // "createTensor with an invalid descriptor").
  try {
    CheckDimensions(descriptor, c.options.limits, "createTensor: descriptor");
  } catch (const WebnnError& e) {
    return Rejected<Tensor>(ErrorType::kTypeError, e.what());
  }
  // The explainer ties importableToWebGPU to "an MLContext ... created with a GPUDevice": a
  // context of type "default" cannot honour it (docs/spec-notes.md, "GPU interop").
  if (descriptor.importableToWebGPU && !c.gpu_device) {
    return Rejected<Tensor>(ErrorType::kNotSupportedError,
                            "createTensor: importableToWebGPU needs a context created from a GPU "
                            "device (createContext(gpuDevice)); this context has none");
  }
  // Step 4: "create an MLTensor".
  auto t = std::make_shared<TensorImpl>();
  t->context_id = c.id;
  t->context = impl_;
  t->content_mu = c.content_mu;
  t->descriptor = descriptor;
  Register(c.tensors, t);
  auto pending = std::make_shared<Pending<Tensor>>();  // step 5
  // Step 6: create [[data]] on the timeline, all bytes zero.
  c.Enqueue([&c, t, pending] {
    if (c.AbortWhenLost()) {
      SettleFromTimeline<Tensor>(
          *c.content_mu, *pending, std::nullopt,
          MakeError(ErrorType::kInvalidStateError, "createTensor: the context was lost"));
      return;
    }
    std::optional<internal::Error> error = CreateData(*t, c.options.limits, nullptr);
    SettleFromTimeline<Tensor>(*c.content_mu, *pending,
                               error ? std::nullopt : std::optional(Access::MakeTensor(t)), error);
  });
  return internal::DeferredFuture<Tensor>(c.content_mu, pending, {},
                                          [](Tensor v) { return v; });  // step 7
}

// §api-mlcontext-createconstanttensor
std::future<Tensor> Context::CreateConstantTensor(const MLOperandDescriptor& descriptor,
                                                  const AllowSharedBufferSource& inputData) {
  ContextImpl& c = Checked(impl_);
  std::lock_guard lock(*c.content_mu);
  if (c.lost) {  // step 3
    return Rejected<Tensor>(ErrorType::kInvalidStateError,
                            "createConstantTensor: the context is lost");
  }
  try {  // step 4
    CheckDimensions(descriptor, c.options.limits, "createConstantTensor: descriptor");
  } catch (const WebnnError& e) {
    return Rejected<Tensor>(ErrorType::kTypeError, e.what());
  }
  if (!ValidateBufferWithDescriptor(inputData.type, inputData.bytes.size(), descriptor)) {  // 5
    return Rejected<Tensor>(ErrorType::kTypeError,
                            "createConstantTensor: a " +
                                std::string(BufferTypeName(inputData.type)) + " of " +
                                std::to_string(inputData.bytes.size()) +
                                " bytes does not match the descriptor " + Describe(descriptor));
  }
  // Step 6: a copy of the bytes.
  auto bytes =
      std::make_shared<std::vector<std::byte>>(inputData.bytes.begin(), inputData.bytes.end());
  // Step 8: "create a constant MLTensor" (not readable, not writable, constant).
  auto t = std::make_shared<TensorImpl>();
  t->context_id = c.id;
  t->context = impl_;
  t->content_mu = c.content_mu;
  t->descriptor = MLTensorDescriptor{descriptor, false, false, false};
  t->is_constant = true;
  Register(c.tensors, t);
  auto pending = std::make_shared<Pending<Tensor>>();
  // Step 10: create [[data]] and copy the bytes on the timeline.
  c.Enqueue([&c, t, pending, bytes] {
    if (c.AbortWhenLost()) {
      SettleFromTimeline<Tensor>(
          *c.content_mu, *pending, std::nullopt,
          MakeError(ErrorType::kInvalidStateError, "createConstantTensor: the context was lost"));
      return;
    }
    std::optional<internal::Error> error = CreateData(*t, c.options.limits, bytes.get());
    SettleFromTimeline<Tensor>(*c.content_mu, *pending,
                               error ? std::nullopt : std::optional(Access::MakeTensor(t)), error);
  });
  return internal::DeferredFuture<Tensor>(c.content_mu, pending, {}, [](Tensor v) { return v; });
}

namespace {

// The common steps of both readTensor forms: checks (steps 3-5), [[pendingPromises]], the
// timeline's copy of [[data]]. Returns the pending promise, or a rejection.
std::shared_ptr<Pending<OperandValue>> StartRead(ContextImpl& c, const Tensor& tensor,
                                                 const AllowSharedBufferTarget* output,
                                                 std::optional<internal::Error>& rejection) {
  const std::shared_ptr<TensorImpl>& t = Access::Of(tensor);
  if (!t) {
    rejection = MakeError(ErrorType::kTypeError, "readTensor: the tensor handle is empty");
    return nullptr;
  }
  if (t->context_id != c.id) {  // step 3
    rejection =
        MakeError(ErrorType::kTypeError, "readTensor: the tensor belongs to another context");
    return nullptr;
  }
  if (t->is_destroyed) {  // step 4
    rejection = MakeError(ErrorType::kTypeError, "readTensor: the tensor is destroyed");
    return nullptr;
  }
  if (!t->descriptor.readable) {  // step 5
    rejection = MakeError(ErrorType::kTypeError, "readTensor: the tensor is not readable");
    return nullptr;
  }
  if (output) {  // BYOB step 6; a detached buffer's byte length is 0
    const bool detached = output->detached && output->detached();
    const size_t length = detached ? 0 : output->bytes.size();
    if (!ValidateBufferWithDescriptor(output->type, length, t->descriptor)) {
      rejection = MakeError(ErrorType::kTypeError,
                            "readTensor: a " + std::string(detached ? "detached " : "") +
                                std::string(BufferTypeName(output->type)) + " of " +
                                std::to_string(length) + " bytes does not match the tensor " +
                                Describe(t->descriptor));
      return nullptr;
    }
  }
  auto pending = std::make_shared<Pending<OperandValue>>();
  t->pending.push_back(pending);  // append to [[pendingPromises]]
  // Enqueue: copy [[data]], unless the context is lost by then.
  c.Enqueue([&c, t, pending] {
    if (c.AbortWhenLost()) {
      SettleFromTimeline<OperandValue>(
          *c.content_mu, *pending, std::nullopt,
          MakeError(ErrorType::kInvalidStateError, "readTensor: the context was lost"));
      return;
    }
    std::optional<OperandValue> copy;
    std::optional<internal::Error> error;
    {
      std::lock_guard data_lock(t->data_mu);
      if (t->data.data.valid()) {
        copy = CopyValue(t->data);
      } else {
        error = MakeError(ErrorType::kUnknownError, "readTensor: the tensor has no data");
      }
    }
    SettleFromTimeline(*c.content_mu, *pending, std::move(copy), error);
  }, {t.get()});
  return pending;
}

// The ML task's "remove promise from tensor.[[pendingPromises]]".
std::function<void()> RemovePending(const std::shared_ptr<TensorImpl>& t,
                                    const std::shared_ptr<Pending<OperandValue>>& p) {
  return [t, raw = p.get()] {
    std::erase_if(t->pending, [raw](const auto& q) { return q.get() == raw; });
  };
}

}  // namespace

// §api-mlcontext-readtensor
std::future<std::vector<std::byte>> Context::ReadTensor(const Tensor& tensor) {
  ContextImpl& c = Checked(impl_);
  std::lock_guard lock(*c.content_mu);
  std::optional<internal::Error> rejection;
  const auto pending = StartRead(c, tensor, nullptr, rejection);
  if (!pending) {
    std::promise<std::vector<std::byte>> p;
    p.set_exception(std::make_exception_ptr(WebnnError(rejection->type, rejection->message)));
    return p.get_future();
  }
  return internal::DeferredFuture<std::vector<std::byte>>(
      c.content_mu, pending, RemovePending(Access::Of(tensor), pending),
      [](OperandValue v) { return v.data.Bytes(); });
}

// §api-mlcontext-readtensor-byob
std::future<void> Context::ReadTensor(const Tensor& tensor,
                                      const AllowSharedBufferTarget& outputData) {
  ContextImpl& c = Checked(impl_);
  std::lock_guard lock(*c.content_mu);
  std::optional<internal::Error> rejection;
  const auto pending = StartRead(c, tensor, &outputData, rejection);
  if (!pending) {
    std::promise<void> p;
    p.set_exception(std::make_exception_ptr(WebnnError(rejection->type, rejection->message)));
    return p.get_future();
  }
  // The ML task (step 9.1.3): remove the promise from [[pendingPromises]] (RemovePending), reject
  // with TypeError if outputData has been detached since the call, else write the bytes.
  return internal::DeferredFuture<void>(
      c.content_mu, pending, RemovePending(Access::Of(tensor), pending),
      [target = outputData.bytes, detached = outputData.detached](OperandValue v) {
        if (detached && detached()) {
          throw WebnnError(ErrorType::kTypeError,
                           "readTensor: outputData was detached before the read completed");
        }
        const std::vector<std::byte> bytes = v.data.Bytes();
        std::copy(bytes.begin(), bytes.end(), target.begin());
      });
}

std::future<OperandValue> Context::ReadTensorValue(const Tensor& tensor) {
  ContextImpl& c = Checked(impl_);
  std::lock_guard lock(*c.content_mu);
  std::optional<internal::Error> rejection;
  const auto pending = StartRead(c, tensor, nullptr, rejection);
  if (!pending) {
    std::promise<OperandValue> p;
    p.set_exception(std::make_exception_ptr(WebnnError(rejection->type, rejection->message)));
    return p.get_future();
  }
  return internal::DeferredFuture<OperandValue>(c.content_mu, pending,
                                                RemovePending(Access::Of(tensor), pending),
                                                [](OperandValue v) { return v; });
}

// §api-mlcontext-writetensor
template <typename MakeData>
void Context::WriteTensorSteps(const Tensor& tensor, BufferType type, size_t byte_length,
                               MakeData&& make_data) {
  ContextImpl& c = Checked(impl_);
  const std::shared_ptr<TensorImpl>& t = Access::Of(tensor);
  if (!t) throw WebnnError(ErrorType::kTypeError, "writeTensor: the tensor handle is empty");
  std::lock_guard lock(*c.content_mu);
  if (t->context_id != c.id) {  // step 1
    throw WebnnError(ErrorType::kTypeError, "writeTensor: the tensor belongs to another context");
  }
  if (t->is_destroyed) {  // step 2
    throw WebnnError(ErrorType::kTypeError, "writeTensor: the tensor is destroyed");
  }
  if (!t->descriptor.writable) {  // step 3
    throw WebnnError(ErrorType::kTypeError, "writeTensor: the tensor is not writable");
  }
  if (!ValidateBufferWithDescriptor(type, byte_length, t->descriptor)) {
    throw WebnnError(ErrorType::kTypeError,  // step 4
                     "writeTensor: a " + std::string(BufferTypeName(type)) + " of " +
                         std::to_string(byte_length) + " bytes does not match the tensor " +
                         Describe(t->descriptor));
  }
  nnref::Tensor data = make_data(*t);  // step 5 (and 6)
  // Step 7: copy to [[data]] on the timeline unless the context is lost by then.
  c.Enqueue(
      [&c, t, data = std::move(data)] {
        if (c.AbortWhenLost()) return;
        std::lock_guard data_lock(t->data_mu);
        t->data = OperandValue{data, {}};
      },
      {t.get()});
}

void Context::WriteTensor(const Tensor& tensor, const AllowSharedBufferSource& inputData) {
  const std::span<const std::byte> bytes = inputData.bytes;
  WriteTensorSteps(tensor, inputData.type, bytes.size(), [&](const TensorImpl& t) {
    // Step 5: a copy of the bytes (step 6 asserts the length, checked above).
    nnref::Tensor data = nnref::Tensor::Allocate(t.descriptor.dataType, t.descriptor.shape);
    if (!bytes.empty()) std::memcpy(data.buffer()->data(), bytes.data(), bytes.size());
    return data;
  });
}

void Context::WriteTensorValue(const Tensor& tensor, nnref::Tensor data) {
  const size_t bytes = static_cast<size_t>(data.element_count()) * ElementSize(data.dtype());
  WriteTensorSteps(tensor, MatchingBufferType(data.dtype()), bytes, [&](const TensorImpl& t) {
    if (data.dtype() != t.descriptor.dataType || data.shape() != t.descriptor.shape) {
      throw WebnnError(ErrorType::kTypeError,
                       "writeTensor: the data does not match the tensor " + Describe(t.descriptor));
    }
    return data.IsContiguous() ? std::move(data) : data.Contiguous();
  });
}

MLOpSupportLimits Context::OpSupportLimits() const {
  return OpSupportLimitsFor(Checked(impl_).options.limits);
}

// §api-mlcontext-destroy
void Context::Destroy() {
  ContextImpl& c = Checked(impl_);
  std::lock_guard lock(*c.content_mu);
  if (c.lost) return;              // step 1
  c.Lose("destroy() was called");  // step 2
}

bool Context::accelerated() const { return Checked(impl_).options.accelerated; }

std::shared_future<MLContextLostInfo> Context::lost() const { return Checked(impl_).lost_future; }

bool Context::IsLost() const {
  ContextImpl& c = Checked(impl_);
  std::lock_guard lock(*c.content_mu);
  return c.lost;
}

const BuilderLimits& Context::limits() const { return Checked(impl_).options.limits; }

std::shared_ptr<GpuDevice> Context::gpuDevice() const { return Checked(impl_).gpu_device; }

// ---------------------------------------------------------------------------------------------
// Tensor and Graph

namespace {
const TensorImpl& CheckedTensor(const std::shared_ptr<TensorImpl>& t) {
  if (!t) throw WebnnError(ErrorType::kTypeError, "the Tensor handle is empty");
  return *t;
}
}  // namespace

DataType Tensor::dataType() const { return CheckedTensor(impl_).descriptor.dataType; }
const Shape& Tensor::shape() const { return CheckedTensor(impl_).descriptor.shape; }
bool Tensor::readable() const { return CheckedTensor(impl_).descriptor.readable; }
bool Tensor::writable() const { return CheckedTensor(impl_).descriptor.writable; }
bool Tensor::constant() const { return CheckedTensor(impl_).is_constant; }
bool Tensor::importableToWebGPU() const {
  return CheckedTensor(impl_).descriptor.importableToWebGPU;
}

void Tensor::Destroy() {
  CheckedTensor(impl_);
  const std::shared_ptr<ContextImpl> context = impl_->context.lock();  // released after the lock
  std::lock_guard lock(*impl_->content_mu);
  if (context) {
    context->DestroyTensor(impl_);
    return;
  }
  // The context is gone (its last handle was dropped): it already destroyed this tensor.
  impl_->is_destroyed = true;
}

void Graph::Destroy() {
  if (!impl_) throw WebnnError(ErrorType::kTypeError, "the Graph handle is empty");
  const std::shared_ptr<ContextImpl> context = impl_->context.lock();
  std::lock_guard lock(*impl_->content_mu);
  if (context) {
    context->DestroyGraph(impl_);
    return;
  }
  impl_->is_destroyed = true;
}

const std::map<std::string, MLOperandDescriptor>& Graph::inputDescriptors() const {
  if (!impl_) throw WebnnError(ErrorType::kTypeError, "the Graph handle is empty");
  return impl_->input_descriptors;
}

const std::map<std::string, MLOperandDescriptor>& Graph::outputDescriptors() const {
  if (!impl_) throw WebnnError(ErrorType::kTypeError, "the Graph handle is empty");
  return impl_->output_descriptors;
}

std::shared_ptr<const nnref::Graph> Graph::implementation() const {
  if (!impl_) throw WebnnError(ErrorType::kTypeError, "the Graph handle is empty");
  return impl_->implementation;
}

std::shared_ptr<const nnref::BackendGraph> Graph::backend_kernels() const {
  if (!impl_) throw WebnnError(ErrorType::kTypeError, "the Graph handle is empty");
  return impl_->backend;
}

}  // namespace nnref::webnn
