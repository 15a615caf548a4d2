// GPU interop (the MLTensor explainer, "Interop with the GPU"): ImportExternalBuffer, the
// explainer's GPUDevice.importExternalBuffer({source: mlTensor}), and ImportedBuffer, the
// GPUBuffer it resolves with, renting an importableToWebGPU tensor to the GPU device its context
// was created from until the buffer is returned. The model: docs/interop.md; the readings of what
// the explainer leaves open: docs/spec-notes.md, "GPU interop". The waiting itself is the
// timeline's (ContextImpl::Run, context.cc).
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "runner/api/internal.h"

namespace nnref::webnn {

using internal::Access;
using internal::ContextImpl;
using internal::MakeError;
using internal::RentalImpl;
using internal::TensorImpl;

namespace {

// What the import task hands to the waiter: the buffer, or the error (kept as data, internal.h).
struct ImportOutcome {
  std::optional<ImportedBuffer> buffer;
  std::optional<internal::Error> error;
};

std::future<ImportedBuffer> RejectedImport(ErrorType type, const std::string& message) {
  return internal::Rejected<ImportedBuffer>(type, "importExternalBuffer: " + message);
}

}  // namespace

std::future<ImportedBuffer> ImportExternalBuffer(const std::shared_ptr<GpuDevice>& device,
                                                 const Tensor& source) {
  if (!device) return RejectedImport(ErrorType::kTypeError, "the GPU device is null");
  const std::shared_ptr<TensorImpl>& t = Access::Of(source);
  if (!t) return RejectedImport(ErrorType::kTypeError, "the tensor handle is empty");
  const std::shared_ptr<ContextImpl> context = t->context.lock();  // released after the lock
  std::lock_guard lock(*t->content_mu);
  // The checks, in this order (readings: docs/spec-notes.md, "GPU interop").
  if (!context || context->lost) {
    return RejectedImport(ErrorType::kInvalidStateError, "the tensor's context is lost");
  }
  if (t->is_destroyed) return RejectedImport(ErrorType::kTypeError, "the tensor is destroyed");
  if (!t->descriptor.importableToWebGPU) {
    return RejectedImport(ErrorType::kTypeError,
                          "the tensor was not created with importableToWebGPU");
  }
  if (!context->gpu_device || context->gpu_device->identity() != device->identity()) {
    return RejectedImport(ErrorType::kTypeError,
                          "the tensor's context was not created from this GPU device");
  }
  if (t->rented) {
    return RejectedImport(ErrorType::kInvalidStateError,
                          "the tensor is already rented to the GPU device (return its buffer "
                          "first)");
  }
  t->rented = true;
  auto promise = std::make_shared<std::promise<ImportOutcome>>();
  std::future<ImportOutcome> outcome = promise->get_future();
  ContextImpl& c = *context;
  // On the timeline, after every task queued before that touches the tensor (the explainer:
  // "Wait for all ML work involving `mlTensor1` to complete, then rent it out"): copy [[data]]
  // into a buffer on the device and mark the rental in force.
  c.Enqueue(
      [&c, t, device, weak = std::weak_ptr<ContextImpl>(context), promise] {
        ImportOutcome out;
        if (c.AbortWhenLost()) {
          out.error = MakeError(ErrorType::kInvalidStateError,
                                "importExternalBuffer: the context was lost");
        } else {
          std::vector<std::byte> bytes;
          bool has_data = false;
          {
            std::lock_guard data_lock(t->data_mu);
            if (t->data.data.valid()) {
              bytes = t->data.data.Bytes();
              has_data = true;
            }
          }
          if (!has_data) {
            out.error =
                MakeError(ErrorType::kUnknownError, "importExternalBuffer: the tensor has no data");
          } else {
            try {
              auto rental = std::make_shared<RentalImpl>();
              rental->tensor = t;
              rental->context = weak;
              rental->device = device;
              rental->handle = device->CreateImportBuffer(bytes);
              t->rented_on_timeline = true;
              out.buffer = Access::MakeImportedBuffer(std::move(rental));
            } catch (const std::exception& e) {
              out.error = MakeError(ErrorType::kOperationError,
                                    std::string("importExternalBuffer: the GPU device could not "
                                                "create the buffer: ") +
                                        e.what());
            }
          }
        }
        if (out.error) {
          std::lock_guard content_lock(*c.content_mu);
          t->rented = false;
        }
        promise->set_value(std::move(out));
      },
      {t.get()});
  // A dropped future drops the buffer with it, which returns the tensor (~ImportedBuffer).
  return std::async(std::launch::deferred,
                    [outcome = std::move(outcome)]() mutable -> ImportedBuffer {
                      ImportOutcome o = outcome.get();
                      if (o.error) throw WebnnError(o.error->type, o.error->message);
                      return std::move(*o.buffer);
                    });
}

ImportedBuffer::~ImportedBuffer() {
  try {
    Destroy();
  } catch (...) {  // a destructor does not throw; Destroy() only throws on a broken device
  }
}

ImportedBuffer::ImportedBuffer(ImportedBuffer&& other) noexcept = default;

ImportedBuffer& ImportedBuffer::operator=(ImportedBuffer&& other) noexcept {
  if (this != &other) {
    try {
      Destroy();
    } catch (...) {
    }
    impl_ = std::move(other.impl_);
  }
  return *this;
}

const GpuBufferHandle& ImportedBuffer::handle() const {
  if (!impl_) throw WebnnError(ErrorType::kInvalidStateError, "the buffer was returned");
  return impl_->handle;
}

Tensor ImportedBuffer::source() const {
  if (!impl_) throw WebnnError(ErrorType::kInvalidStateError, "the buffer was returned");
  return Access::MakeTensor(impl_->tensor);
}

void ImportedBuffer::Destroy(uint64_t fence) {
  if (!impl_) return;
  const std::shared_ptr<RentalImpl> r = std::move(impl_);
  impl_ = nullptr;
  const std::shared_ptr<ContextImpl> context = r->context.lock();  // released after the lock
  std::unique_lock lock(*r->tensor->content_mu);
  if (r->returned) return;
  r->returned = true;
  r->tensor->rented = false;
  if (!context || context->lost) {
    // The context is lost (or gone): nothing waits for the tensor and nothing is copied back, so
    // the buffer is released here (docs/spec-notes.md, "GPU interop").
    lock.unlock();
    r->device->ReleaseImportBuffer(r->handle, fence, {});
    return;
  }
  // The contents go back into [[data]] unless the tensor was destroyed meanwhile (then they are
  // discarded: docs/spec-notes.md, "GPU interop").
  const bool keep = !r->tensor->is_destroyed;
  ContextImpl& c = *context;
  c.EnqueueReturn([&c, r, fence, keep] {
    TensorImpl& t = *r->tensor;
    std::vector<std::byte> bytes(keep ? r->handle.byte_length : 0);
    try {
      r->device->ReleaseImportBuffer(r->handle, fence, bytes);
    } catch (const std::exception& e) {
      // The device failed (a lost device): the tensor's contents are unknown, so the context is
      // lost with the reason, and nothing waits any more.
      std::lock_guard content_lock(*c.content_mu);
      if (!c.lost) c.Lose(std::string("returning a rented tensor failed: ") + e.what());
      t.rented_on_timeline = false;
      return;
    }
    if (keep && !c.AbortWhenLost()) {
      nnref::Tensor data = nnref::Tensor::Allocate(t.descriptor.dataType, t.descriptor.shape);
      if (!bytes.empty()) std::memcpy(data.buffer()->data(), bytes.data(), bytes.size());
      std::lock_guard data_lock(t.data_mu);
      t.data = OperandValue{std::move(data), {}};  // replaced, never changed in place
    }
    t.rented_on_timeline = false;
  });
}

}  // namespace nnref::webnn
