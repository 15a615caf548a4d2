// Internal state behind the handles of runner/api/webnn.h (shared by context.cc and
// graph_builder.cc; not part of the public API).
//
// Locking. Every object made from one context shares that context's content mutex
// (`content_mu`): it guards what the spec keeps on the content timeline (lost, [[isDestroyed]],
// [[pendingPromises]], the promises' outcomes) and the order in which work is queued, so each API
// call is atomic and the timeline sees calls in the order they took the mutex. A tensor's data
// ([[data]]) has its own `data_mu` and is touched only by the timeline worker (and, for constant
// tensors, which never change after creation, by MLGraphBuilder.constant(tensor)). Lock order:
// content_mu, then queue_mu or data_mu; the worker runs tasks holding neither of its own locks.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "runner/api/webnn.h"

namespace nnref::webnn::internal {

// A spec error kept as data until the thread that waits throws it. (Not an exception_ptr: its
// reference count lives in the uninstrumented C++ runtime, so ThreadSanitizer would flag every
// exception handed from the worker to a waiter.)
struct Error {
  ErrorType type;
  std::string message;
};

inline Error MakeError(ErrorType type, const std::string& message) { return {type, message}; }

// A promise returned by a method whose steps end with "queue an ML task to resolve/reject". The
// timeline sets the outcome (timeline_done); the ML task, run by whoever waits on the future,
// delivers it. A readTensor promise can be rejected before that by MLTensor.destroy() (rejection).
// Guarded by the content mutex; `cv` is waited on with it.
template <typename T>
struct Pending {
  std::condition_variable cv;
  bool timeline_done = false;
  std::optional<T> value;          // the timeline's outcome: a value ...
  std::optional<Error> error;      // ... or an error
  std::optional<Error> rejection;  // set when rejected before delivery
};

struct ContextImpl;

struct TensorImpl {
  uint64_t context_id = 0;             // [[context]] (identity)
  std::weak_ptr<ContextImpl> context;  // to queue work; the tensor does not keep it alive
  std::shared_ptr<std::mutex> content_mu;
  MLTensorDescriptor descriptor;  // [[descriptor]]
  bool is_constant = false;       // [[isConstant]]
  // Content timeline (content_mu).
  bool is_destroyed = false;                                    // [[isDestroyed]]
  std::vector<std::shared_ptr<Pending<OperandValue>>> pending;  // [[pendingPromises]]
  // Content timeline (content_mu): rented to a GPU device, from importExternalBuffer() to the
  // return (ImportedBuffer::Destroy).
  bool rented = false;
  // Timeline (data_mu): [[data]] and the reference's latitude for it. Writes replace the buffer,
  // never modify it in place, so a Tensor view taken under the lock stays valid after it.
  std::mutex data_mu;
  OperandValue data;
  // Timeline (the worker alone): the rental is in force, from the import task to the return
  // task. Tasks touching the tensor meanwhile wait (ContextImpl::Run).
  bool rented_on_timeline = false;
};

// The state behind an ImportedBuffer (a GPUBuffer renting `tensor` to `device`).
struct RentalImpl {
  std::shared_ptr<TensorImpl> tensor;
  std::weak_ptr<ContextImpl> context;
  std::shared_ptr<GpuDevice> device;
  GpuBufferHandle handle;
  bool returned = false;  // content_mu of the tensor
};

struct GraphImpl {
  uint64_t context_id = 0;  // [[context]]
  std::weak_ptr<ContextImpl> context;
  std::shared_ptr<std::mutex> content_mu;
  std::map<std::string, MLOperandDescriptor> input_descriptors;   // [[inputDescriptors]]
  std::map<std::string, MLOperandDescriptor> output_descriptors;  // [[outputDescriptors]]
  std::shared_ptr<const nnref::Graph> implementation;             // [[implementation]]
  std::shared_ptr<const nnref::BackendGraph> backend;  // the context backend's kernels, or null
  bool is_destroyed = false;                                      // [[isDestroyed]] (content_mu)
  // The timeline's own reference, dropped when destroy() marks the resources freeable.
  std::shared_ptr<const nnref::Graph> timeline_resources;
};

// A unit of work on the timeline: what it does and the tensors whose [[data]] it reads or writes
// (the tensors it depends on). A task whose tensors are rented, or touched by an earlier task that
// waits, waits itself (is parked) and runs, in order, once they are returned.
struct Task {
  std::function<void()> run;
  std::vector<const TensorImpl*> touches;
  // A return (ImportedBuffer::Destroy): runs before the queued work, never waits, and wakes the
  // parked tasks.
  bool is_return = false;
};

struct ContextImpl {
  explicit ContextImpl(const MLContextOptions& o, std::shared_ptr<GpuDevice> gpu = nullptr);
  ~ContextImpl();
  ContextImpl(const ContextImpl&) = delete;
  ContextImpl& operator=(const ContextImpl&) = delete;

  // Queues `task` on the timeline; it touches `touches` (see Task). The caller holds content_mu.
  void Enqueue(std::function<void()> task, std::vector<const TensorImpl*> touches = {});
  // Queues a return ahead of the queued work (Task::is_return).
  void EnqueueReturn(std::function<void()> task);
  // §api-mlcontext-errors "lose": resolves lost, destroys every graph and tensor of the context.
  // The caller holds content_mu.
  void Lose(const std::string& message);
  // MLTensor.destroy() / MLGraph.destroy() steps. The caller holds content_mu.
  void DestroyTensor(const std::shared_ptr<TensorImpl>& tensor);
  void DestroyGraph(const std::shared_ptr<GraphImpl>& graph);
  // "Run these steps, but abort when this is lost": the timeline's view of [[lost]].
  bool AbortWhenLost() const { return lost_flag.load(std::memory_order_acquire); }

  const uint64_t id;
  const MLContextOptions options;
  // The GPU device the context was created from (context type "webgpu"), or null ("default").
  const std::shared_ptr<GpuDevice> gpu_device;
  const std::shared_ptr<std::mutex> content_mu = std::make_shared<std::mutex>();

  // Content timeline (content_mu).
  bool lost = false;
  std::promise<MLContextLostInfo> lost_promise;
  std::shared_future<MLContextLostInfo> lost_future;
  std::vector<std::weak_ptr<TensorImpl>> tensors;
  std::vector<std::weak_ptr<GraphImpl>> graphs;

 private:
  void Run();
  // Whether `task` must wait: a tensor it touches is rented, or touched by a task in `parked`
  // (an earlier task that waits). Never once the context is lost (the tasks then abort).
  bool MustWait(const Task& task, const std::deque<Task>& parked) const;
  // Runs the parked tasks that no longer wait, in order; keeps the others.
  void RunParked(std::deque<Task>& parked);

  std::atomic<bool> lost_flag{false};
  std::mutex queue_mu;
  std::condition_variable queue_cv;
  std::deque<Task> queue;  // queue_mu
  bool stopping = false;                    // queue_mu
  std::thread worker;
};

struct BuilderImpl {
  std::shared_ptr<ContextImpl> context;  // [[context]]
  std::unique_ptr<nnref::GraphBuilder> core;
  // [[constantTensor]] of the operands made by constant(tensor), by operand id.
  std::map<uint32_t, std::shared_ptr<TensorImpl>> constant_tensors;
};

// Builds handles from state and reaches the state behind handles.
struct Access {
  static Tensor MakeTensor(std::shared_ptr<TensorImpl> impl) {
    Tensor t;
    t.impl_ = std::move(impl);
    return t;
  }
  static Graph MakeGraph(std::shared_ptr<GraphImpl> impl) {
    Graph g;
    g.impl_ = std::move(impl);
    return g;
  }
  static Context MakeContext(std::shared_ptr<ContextImpl> impl) {
    Context c;
    c.impl_ = std::move(impl);
    return c;
  }
  static const std::shared_ptr<TensorImpl>& Of(const Tensor& t) { return t.impl_; }
  static const std::shared_ptr<GraphImpl>& Of(const Graph& g) { return g.impl_; }
  static const std::shared_ptr<ContextImpl>& Of(const Context& c) { return c.impl_; }
  static ImportedBuffer MakeImportedBuffer(std::shared_ptr<RentalImpl> impl) {
    ImportedBuffer b;
    b.impl_ = std::move(impl);
    return b;
  }
};

// Sets the timeline's outcome of `p` (under the content mutex) and wakes its waiter.
template <typename T>
void SettleFromTimeline(std::mutex& content_mu, Pending<T>& p, std::optional<T> value,
                        std::optional<Error> error) {
  std::lock_guard lock(content_mu);
  p.value = std::move(value);
  p.error = std::move(error);
  p.timeline_done = true;
  p.cv.notify_all();
}

// A future already rejected with `type` (a method that "returns a new promise rejected with").
template <typename R>
std::future<R> Rejected(ErrorType type, const std::string& message) {
  std::promise<R> p;
  p.set_exception(std::make_exception_ptr(WebnnError(type, message)));
  return p.get_future();
}

// The deferred future of a pending promise: waiting on it runs the ML task. It waits for the
// timeline's outcome (or an earlier rejection), runs `on_deliver` (removing the promise from
// [[pendingPromises]]) under the content mutex, then returns deliver(value) or throws the error.
template <typename R, typename T, typename Deliver>
std::future<R> DeferredFuture(std::shared_ptr<std::mutex> content_mu,
                              std::shared_ptr<Pending<T>> pending, std::function<void()> on_deliver,
                              Deliver deliver) {
  return std::async(
      std::launch::deferred,
      [content_mu = std::move(content_mu), pending = std::move(pending),
       on_deliver = std::move(on_deliver), deliver = std::move(deliver)]() mutable -> R {
        std::optional<T> value;
        {
          std::unique_lock lock(*content_mu);
          pending->cv.wait(
              lock, [&] { return pending->timeline_done || pending->rejection.has_value(); });
          if (pending->rejection) {
            throw WebnnError(pending->rejection->type, pending->rejection->message);
          }
          if (on_deliver) on_deliver();
          if (pending->error) throw WebnnError(pending->error->type, pending->error->message);
          value = std::move(pending->value);
        }
        return deliver(std::move(*value));
      });
}

}  // namespace nnref::webnn::internal
