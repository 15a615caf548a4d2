// Timeline scripts: the GPU interop steps (docs/case-format.md "GPU interop steps";
// docs/interop.md). The script's GPU device is the backend's GpuApplication (vulkan: a device of
// its own, gpuWrite and gpuRead copies on its queue) or host memory; gpuWrite and gpuRead are the
// application's shaders writing and reading the rented buffer.
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "runner/timeline_runner.h"

namespace nnref::timeline_internal {

GpuBufferHandle ScriptGpuDevice::CreateImportBuffer(std::span<const std::byte> bytes) {
  std::lock_guard lock(mu_);
  const uint64_t id = next_++;
  const uint64_t size = std::max<uint64_t>(4, (bytes.size() + 3) / 4 * 4);
  std::vector<std::byte>& b = buffers_[id];
  b.assign(size, std::byte{0});
  std::copy(bytes.begin(), bytes.end(), b.begin());
  return GpuBufferHandle{id, id, bytes.size(), size};
}

void ScriptGpuDevice::ReleaseImportBuffer(const GpuBufferHandle& buffer, uint64_t,
                                          std::span<std::byte> out) {
  std::lock_guard lock(mu_);
  const auto it = buffers_.find(buffer.buffer);
  if (it == buffers_.end()) throw std::runtime_error("script GPU device: unknown buffer");
  std::copy_n(it->second.begin(), std::min(out.size(), it->second.size()), out.begin());
  buffers_.erase(it);
}

std::vector<std::byte> ScriptGpuDevice::Read(const GpuBufferHandle& buffer) {
  std::lock_guard lock(mu_);
  const std::vector<std::byte>& b = buffers_.at(buffer.buffer);
  return std::vector<std::byte>(b.begin(),
                                b.begin() + static_cast<std::ptrdiff_t>(buffer.byte_length));
}

void ScriptGpuDevice::Write(const GpuBufferHandle& buffer, std::span<const std::byte> bytes) {
  std::lock_guard lock(mu_);
  std::vector<std::byte>& b = buffers_.at(buffer.buffer);
  std::copy_n(bytes.begin(), std::min(bytes.size(), b.size()), b.begin());
}

std::shared_ptr<GpuApplication> Runner::GpuDeviceNamed(const std::string& name,
                                                       const std::string& field) {
  std::shared_ptr<GpuApplication>& d = gpu_devices_[name];
  if (d) return d;
  std::string why;
  if (backend_) d = backend_->MakeGpuApplication(why);
  if (!d && !why.empty()) {
    gpu_devices_.erase(name);
    Bad(field, "the " + std::string(backend_->name()) + " backend cannot make the GPU device '" +
                   name + "': " + why);
  }
  if (!d) d = std::make_shared<ScriptGpuApplication>(gpu_devices_.size());
  return d;
}

void Runner::ImportExternalBuffer(const TimelineStep& s) {
  const webnn::Tensor& t = TensorNamed(s, s.tensor, "tensor");
  if (rentals_.count(s.gpu_buffer) && rentals_.at(s.gpu_buffer).buffer.valid()) {
    Bad(s.field + ".gpuBuffer", "the GPU buffer '" + s.gpu_buffer + "' is still rented");
  }
  // An import of a tensor that waits, but is not itself rented (which the API refuses at once),
  // would never resolve in a one-thread script.
  const bool rented = std::any_of(rentals_.begin(), rentals_.end(), [&](const auto& r) {
    return r.second.buffer.valid() && r.second.tensor == t;
  });
  if (!rented && std::find(waiting_.begin(), waiting_.end(), t) != waiting_.end()) {
    Bad(s.field, "importing '" + s.tensor +
                     "' waits for work that waits for a GPU buffer the script has not returned "
                     "(it would never end)");
  }
  const std::shared_ptr<GpuApplication> device =
      GpuDeviceNamed(s.gpu_device, s.field + ".gpuDevice");
  // Awaited at once: the import resolves once the work queued before it on the tensor has run.
  std::future<webnn::ImportedBuffer> f = webnn::ImportExternalBuffer(device->device(), t);
  webnn::ImportedBuffer b = Settle(f);
  log_ = "'" + s.gpu_buffer + "': " + std::to_string(b.handle().byte_length) + " bytes in " +
         std::to_string(b.handle().size);
  rentals_[s.gpu_buffer] = Rental{std::move(b), device, t};
  waiting_.push_back(t);
}

void Runner::CheckNotWaiting(const TimelineStep& s, const webnn::Tensor& t,
                             const std::string& name) {
  if (std::find(waiting_.begin(), waiting_.end(), t) == waiting_.end()) return;
  Bad(s.field, "the read of '" + name +
                   "' waits for a GPU buffer the script has not returned, so awaiting it here "
                   "would never end: keep its promise (\"promise\") and await it after "
                   "returnBuffer");
}

void Runner::NoteDispatch(const std::vector<webnn::Tensor>& tensors) {
  const bool waits = std::any_of(tensors.begin(), tensors.end(), [&](const webnn::Tensor& t) {
    return std::find(waiting_.begin(), waiting_.end(), t) != waiting_.end();
  });
  if (!waits) return;
  for (const webnn::Tensor& t : tensors) {
    if (std::find(waiting_.begin(), waiting_.end(), t) == waiting_.end()) waiting_.push_back(t);
  }
}

namespace {

// The first bytes, in hex, for messages.
std::string Hex(std::span<const std::byte> bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < bytes.size() && i < 32; ++i) {
    const auto v = std::to_integer<unsigned>(bytes[i]);
    out += (i ? " " : "");
    out += kDigits[v >> 4];
    out += kDigits[v & 15];
  }
  return out + (bytes.size() > 32 ? " ..." : "");
}

const char* kRentedOnly = "must name a GPU buffer rented by importExternalBuffer and not returned";

}  // namespace

void Runner::GpuWrite(const TimelineStep& s) {
  const auto it = rentals_.find(s.gpu_buffer);
  if (it == rentals_.end() || !it->second.buffer.valid()) Bad(s.field + ".gpuBuffer", kRentedOnly);
  Rental& r = it->second;
  std::vector<std::byte> owned;
  const webnn::AllowSharedBufferSource source =
      Source(s, s.buffer, r.tensor.dataType(), r.buffer.handle().byte_length, owned);
  if (source.bytes.size() != r.buffer.handle().byte_length) {
    Bad(s.field + ".data", std::to_string(source.bytes.size()) + " bytes for a buffer of " +
                               std::to_string(r.buffer.handle().byte_length));
  }
  r.device->Write(r.buffer.handle(), source.bytes);
  log_ = std::to_string(source.bytes.size()) + " bytes";
}

void Runner::GpuRead(const TimelineStep& s) {
  const auto it = rentals_.find(s.gpu_buffer);
  if (it == rentals_.end() || !it->second.buffer.valid()) Bad(s.field + ".gpuBuffer", kRentedOnly);
  Rental& r = it->second;
  BufferSpec spec;
  spec.data = s.expected;
  std::vector<std::byte> owned;
  const webnn::AllowSharedBufferSource expected =
      Source(s, spec, r.tensor.dataType(), r.buffer.handle().byte_length, owned);
  const std::vector<std::byte> got = r.device->Read(r.buffer.handle());
  if (got.size() != expected.bytes.size() ||
      !std::equal(got.begin(), got.end(), expected.bytes.begin())) {
    throw StepFailure{"GPU buffer '" + s.gpu_buffer + "' holds bytes " + Hex(got) + ", expected " +
                      Hex(expected.bytes)};
  }
  log_ = std::to_string(got.size()) + " bytes as expected";
}

void Runner::ReturnBuffer(const TimelineStep& s) {
  const auto it = rentals_.find(s.gpu_buffer);
  if (it == rentals_.end() || !it->second.buffer.valid()) Bad(s.field + ".gpuBuffer", kRentedOnly);
  it->second.buffer.Destroy();  // the return: queued ahead of the timeline's work
  log_ = "'" + s.gpu_buffer + "' returned";
  waiting_.clear();
  for (const auto& [name, r] : rentals_) {
    if (r.buffer.valid()) waiting_.push_back(r.tensor);
  }
}

}  // namespace nnref::timeline_internal
