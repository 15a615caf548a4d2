// GPU interop on the API's timeline (the MLTensor explainer, "Interop with the GPU"): renting an
// importableToWebGPU tensor, the waits while it is rented, the return, and the readings of
// docs/spec-notes.md "GPU interop", on a host-memory GpuDevice (so that the timeline's part runs
// under ThreadSanitizer in build-tsan, where lavapipe is not instrumented). The same on a Vulkan
// device: ops/vulkan/interop_test.cc.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "ref/testing.h"
#include "runner/api/webnn.h"

namespace nnref::webnn {
namespace {

using namespace std::chrono_literals;

// A GPU device whose buffers are host memory; Write/Read stand for the application's shaders.
class HostGpuDevice final : public GpuDevice {
 public:
  explicit HostGpuDevice(uint64_t identity) : identity_(identity) {}
  std::string_view api() const override { return "host"; }
  uint64_t identity() const override { return identity_; }
  std::string Describe() const override { return "host-memory test device"; }
  std::shared_ptr<const Backend> backend() const override { return nullptr; }

  GpuBufferHandle CreateImportBuffer(std::span<const std::byte> bytes) override {
    std::lock_guard lock(mu_);
    if (fail_create_) throw std::runtime_error("out of device memory (test)");
    const uint64_t id = next_++;
    const uint64_t size = std::max<uint64_t>(4, (bytes.size() + 3) / 4 * 4);
    std::vector<std::byte>& b = buffers_[id];
    b.assign(size, std::byte{0});
    std::copy(bytes.begin(), bytes.end(), b.begin());
    return GpuBufferHandle{id, id, bytes.size(), size};
  }
  void ReleaseImportBuffer(const GpuBufferHandle& handle, uint64_t fence,
                           std::span<std::byte> out) override {
    std::shared_future<void> f;
    {
      std::lock_guard lock(mu_);
      if (fence != 0) f = fences_.at(fence);
    }
    if (f.valid()) f.wait();  // the application's GPU work on the buffer completes
    std::lock_guard lock(mu_);
    fences_.erase(fence);  // handed over: destroyed
    const auto it = buffers_.find(handle.buffer);
    if (it == buffers_.end()) throw std::runtime_error("released twice (test)");
    std::copy_n(it->second.begin(), out.size(), out.begin());
    buffers_.erase(it);
    ++released_;
  }

  void Write(const GpuBufferHandle& h, const std::vector<float>& v) {
    std::lock_guard lock(mu_);
    std::memcpy(buffers_.at(h.buffer).data(), v.data(), v.size() * 4);
  }
  std::vector<float> Read(const GpuBufferHandle& h) {
    std::lock_guard lock(mu_);
    const std::vector<std::byte>& b = buffers_.at(h.buffer);
    std::vector<float> v(h.byte_length / 4);
    std::memcpy(v.data(), b.data(), v.size() * 4);
    return v;
  }
  uint64_t AddFence(std::shared_future<void> f) {
    std::lock_guard lock(mu_);
    fences_[next_fence_] = std::move(f);
    return next_fence_++;
  }
  size_t live() {
    std::lock_guard lock(mu_);
    return buffers_.size();
  }
  int released() {
    std::lock_guard lock(mu_);
    return released_;
  }
  void FailCreate(bool fail) {
    std::lock_guard lock(mu_);
    fail_create_ = fail;
  }

 private:
  const uint64_t identity_;
  std::mutex mu_;
  std::map<uint64_t, std::vector<std::byte>> buffers_;
  std::map<uint64_t, std::shared_future<void>> fences_;
  uint64_t next_ = 1, next_fence_ = 1;
  int released_ = 0;
  bool fail_create_ = false;
};

const Shape kShape = {2, 2};

MLTensorDescriptor Desc(bool readable, bool writable, bool importable) {
  MLTensorDescriptor d;
  d.dataType = DataType::kFloat32;
  d.shape = kShape;
  d.readable = readable;
  d.writable = writable;
  d.importableToWebGPU = importable;
  return d;
}

std::vector<float> Floats(const std::vector<std::byte>& bytes) {
  std::vector<float> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), v.size() * 4);
  return v;
}

// y = 2 * x + 1 (float32; exact for the small integers used here).
Graph AffineGraph(Context& c) {
  GraphBuilder b(c);
  const Operand x = b.Input("x", {DataType::kFloat32, kShape});
  const Operand y = b.Add(b.Mul(x, b.Constant(DataType::kFloat32, MLNumber::FromDouble(2.0))),
                          b.Constant(DataType::kFloat32, MLNumber::FromDouble(1.0)));
  return b.Build({{"y", y}}).get();
}

std::vector<float> Affine(const std::vector<float>& x) {
  std::vector<float> y;
  for (float v : x) y.push_back(2 * v + 1);
  return y;
}

struct Fixture {
  std::shared_ptr<HostGpuDevice> device = std::make_shared<HostGpuDevice>(7);
  Context context = Context::Create(device).get();
};

TEST_CASE("interop: createContext(gpuDevice) makes a webgpu context") {
  Fixture f;
  CHECK(f.context.accelerated());
  CHECK(f.context.gpuDevice() == f.device);
  CHECK(Context::Create().get().gpuDevice() == nullptr);
  CHECK(ErrorOf([] { Context::Create(std::shared_ptr<GpuDevice>()).get(); }) ==
        ErrorType::kTypeError);
  const Tensor t = f.context.CreateTensor(Desc(true, true, true)).get();
  CHECK(t.importableToWebGPU());
  CHECK_FALSE(f.context.CreateTensor(Desc(true, true, false)).get().importableToWebGPU());
}

TEST_CASE("interop: rent, GPU write, return, dispatch") {
  Fixture f;
  Graph graph = AffineGraph(f.context);
  Tensor x = f.context.CreateTensor(Desc(false, true, true)).get();
  Tensor y = f.context.CreateTensor(Desc(true, false, false)).get();
  f.context.WriteTensor(x, std::vector<float>{1, 2, 3, 4});
  // The import waits for the write queued before it: the buffer holds the written values, packed.
  ImportedBuffer buffer = ImportExternalBuffer(f.device, x).get();
  CHECK(buffer.handle().byte_length == 16);
  CHECK(buffer.handle().size == 16);
  CHECK(f.device->Read(buffer.handle()) == std::vector<float>{1, 2, 3, 4});
  CHECK(buffer.source() == x);
  f.device->Write(buffer.handle(), {10, 20, 30, 40});  // the application's shader
  buffer.Destroy();
  CHECK_FALSE(buffer.valid());
  f.context.Dispatch(graph, {{"x", x}}, {{"y", y}});
  CHECK(Floats(f.context.ReadTensor(y).get()) == Affine({10, 20, 30, 40}));
  CHECK(f.device->live() == 0);  // the return ran before the read
  // The output rented back: the buffer holds the dispatch's result.
  Tensor z = f.context.CreateTensor(Desc(true, false, true)).get();
  Graph graph2 = AffineGraph(f.context);
  f.context.Dispatch(graph2, {{"x", x}}, {{"y", z}});
  ImportedBuffer out = ImportExternalBuffer(f.device, z).get();
  CHECK(f.device->Read(out.handle()) == Affine({10, 20, 30, 40}));
}

TEST_CASE("interop: a non-multiple-of-4 tensor is packed and padded to whole words") {
  Fixture f;
  MLTensorDescriptor d;
  d.dataType = DataType::kInt8;
  d.shape = {2, 3, 4};  // the explainer's example: int8 [2, 3, 4] is an array<u32> of length 6
  d.importableToWebGPU = true;
  ImportedBuffer b = ImportExternalBuffer(f.device, f.context.CreateTensor(d).get()).get();
  CHECK(b.handle().byte_length == 24);
  CHECK(b.handle().size == 24);
  d.shape = {5};
  ImportedBuffer c = ImportExternalBuffer(f.device, f.context.CreateTensor(d).get()).get();
  CHECK(c.handle().byte_length == 5);
  CHECK(c.handle().size == 8);
}

TEST_CASE("interop: while rented, dependent work waits and other work goes on") {
  Fixture f;
  Graph graph = AffineGraph(f.context);
  Tensor x = f.context.CreateTensor(Desc(true, true, true)).get();
  Tensor y = f.context.CreateTensor(Desc(true, false, false)).get();
  Tensor other = f.context.CreateTensor(Desc(true, true, false)).get();
  f.context.WriteTensor(x, std::vector<float>{1, 1, 1, 1});
  ImportedBuffer buffer = ImportExternalBuffer(f.device, x).get();
  // Queued while rented: a dispatch reading x and a read of its output (indirect dependency), a
  // read of x, then a write of x (applied after the return, so it wins over the GPU's values).
  f.context.Dispatch(graph, {{"x", x}}, {{"y", y}});
  std::future<std::vector<std::byte>> read_y = f.context.ReadTensor(y);
  std::future<std::vector<std::byte>> read_x = f.context.ReadTensor(x);
  f.context.WriteTensor(x, std::vector<float>{7, 7, 7, 7});
  std::future<std::vector<std::byte>> read_x2 = f.context.ReadTensor(x);
  std::atomic<bool> y_done{false};
  std::vector<float> y_values, x_values;
  std::thread waiter([&] {
    y_values = Floats(read_y.get());
    x_values = Floats(read_x.get());
    y_done = true;
  });
  // Work on another tensor is not blocked by the rental.
  f.context.WriteTensor(other, std::vector<float>{5, 6, 7, 8});
  CHECK(Floats(f.context.ReadTensor(other).get()) == std::vector<float>{5, 6, 7, 8});
  std::this_thread::sleep_for(100ms);
  CHECK_FALSE(y_done.load());  // the dispatch waits for the return: no error, no result yet
  // The application's GPU writes under a fence its queue signals later; the return waits for it.
  std::promise<void> gpu_done;
  const uint64_t fence = f.device->AddFence(gpu_done.get_future().share());
  f.device->Write(buffer.handle(), {3, 4, 5, 6});
  buffer.Destroy(fence);
  std::this_thread::sleep_for(50ms);
  CHECK_FALSE(y_done.load());
  gpu_done.set_value();
  waiter.join();
  CHECK(y_values == Affine({3, 4, 5, 6}));  // the dispatch read what the GPU wrote
  CHECK(x_values == std::vector<float>{3, 4, 5, 6});
  CHECK(Floats(read_x2.get()) == std::vector<float>{7, 7, 7, 7});
}

TEST_CASE("interop: an import waits behind a dispatch that waits for another rental") {
  Fixture f;
  Graph graph = AffineGraph(f.context);
  Tensor a = f.context.CreateTensor(Desc(false, true, true)).get();
  Tensor b = f.context.CreateTensor(Desc(true, false, true)).get();
  f.context.WriteTensor(a, std::vector<float>{0, 1, 2, 3});
  ImportedBuffer rented_a = ImportExternalBuffer(f.device, a).get();
  f.context.Dispatch(graph, {{"x", a}}, {{"y", b}});                         // waits for a
  std::future<ImportedBuffer> import_b = ImportExternalBuffer(f.device, b);  // waits behind it
  std::atomic<bool> imported{false};
  ImportedBuffer rented_b;
  std::thread waiter([&] {
    rented_b = import_b.get();
    imported = true;
  });
  std::this_thread::sleep_for(100ms);
  CHECK_FALSE(imported.load());
  f.device->Write(rented_a.handle(), {4, 5, 6, 7});
  rented_a.Destroy();
  waiter.join();
  CHECK(f.device->Read(rented_b.handle()) == Affine({4, 5, 6, 7}));
}

TEST_CASE("interop: many threads rent, dispatch and read in turn") {
  Fixture f;
  Graph graph = AffineGraph(f.context);
  constexpr int kThreads = 4, kRounds = 25;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      Tensor x = f.context.CreateTensor(Desc(true, true, true)).get();
      Tensor y = f.context.CreateTensor(Desc(true, false, false)).get();
      for (int r = 0; r < kRounds; ++r) {
        const float v = static_cast<float>(i * 1000 + r);
        ImportedBuffer buffer = ImportExternalBuffer(f.device, x).get();
        f.context.Dispatch(graph, {{"x", x}}, {{"y", y}});  // queued while rented: waits
        std::future<std::vector<std::byte>> read = f.context.ReadTensor(y);
        f.device->Write(buffer.handle(), {v, v, v, v});
        buffer.Destroy();
        if (Floats(read.get()) != Affine({v, v, v, v})) ++failures;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(failures.load() == 0);
  CHECK(f.device->live() == 0);
}

// A backend that cannot run (no device), for createContext(gpuDevice)'s failure.
class UnavailableBackend final : public Backend {
 public:
  std::string_view name() const override { return "unavailable"; }
  std::string Describe() const override { return "unavailable (test)"; }
  std::optional<std::string> Unsupported(OpId, DataType) const override { return "no device"; }
  std::shared_ptr<const Kernel> MakeKernel(const nnref::Graph&, size_t,
                                           std::string& why) const override {
    why = "no device";
    return nullptr;
  }
  std::optional<std::string> Unavailable() const override { return "no device (test)"; }
};

class DeviceWithoutBackend final : public GpuDevice {
 public:
  std::string_view api() const override { return "none"; }
  uint64_t identity() const override { return 1; }
  std::string Describe() const override { return "a device the backend cannot run on"; }
  std::shared_ptr<const Backend> backend() const override {
    return std::make_shared<UnavailableBackend>();
  }
  GpuBufferHandle CreateImportBuffer(std::span<const std::byte>) override { return {}; }
  void ReleaseImportBuffer(const GpuBufferHandle&, uint64_t, std::span<std::byte>) override {}
};

// The readings (docs/spec-notes.md, "GPU interop").
TEST_CASE("interop reading: createContext(gpuDevice) on a device the backend cannot run on") {
  // "If the user agent cannot support [[contextType]], then return failure": NotSupportedError.
  CHECK(ErrorOf([] { Context::Create(std::make_shared<DeviceWithoutBackend>()).get(); }) ==
        ErrorType::kNotSupportedError);
}

TEST_CASE("interop reading: importable tensors need a context created from a GPU device") {
  Context context = Context::Create().get();
  CHECK(ErrorOf([&] { context.CreateTensor(Desc(true, true, true)).get(); }) ==
        ErrorType::kNotSupportedError);
}

TEST_CASE("interop reading: importing a tensor not created importable is a TypeError") {
  Fixture f;
  Tensor t = f.context.CreateTensor(Desc(true, true, false)).get();
  CHECK(ErrorOf([&] { ImportExternalBuffer(f.device, t).get(); }) == ErrorType::kTypeError);
  CHECK(f.device->live() == 0);
}

TEST_CASE("interop reading: importing twice is an InvalidStateError until the return") {
  Fixture f;
  Tensor t = f.context.CreateTensor(Desc(true, true, true)).get();
  std::future<ImportedBuffer> first = ImportExternalBuffer(f.device, t);
  // Rejected at once, even before the first import has resolved.
  CHECK(ErrorOf([&] { ImportExternalBuffer(f.device, t).get(); }) == ErrorType::kInvalidStateError);
  ImportedBuffer b = first.get();
  CHECK(ErrorOf([&] { ImportExternalBuffer(f.device, t).get(); }) == ErrorType::kInvalidStateError);
  b.Destroy();
  b.Destroy();  // idempotent
  ImportedBuffer again = ImportExternalBuffer(f.device, t).get();
  CHECK(again.valid());
}

TEST_CASE("interop reading: importing on a device the context was not created from") {
  Fixture f;
  auto other = std::make_shared<HostGpuDevice>(8);
  Tensor t = f.context.CreateTensor(Desc(true, true, true)).get();
  CHECK(ErrorOf([&] { ImportExternalBuffer(other, t).get(); }) == ErrorType::kTypeError);
  // Another GpuDevice object wrapping the same device (same identity) is the same GPUDevice.
  auto same = std::make_shared<HostGpuDevice>(7);
  CHECK(ImportExternalBuffer(same, t).get().valid());
  CHECK(ErrorOf([&] { ImportExternalBuffer(nullptr, t).get(); }) == ErrorType::kTypeError);
}

TEST_CASE("interop reading: destroying a rented tensor") {
  Fixture f;
  Tensor t = f.context.CreateTensor(Desc(true, true, true)).get();
  f.context.WriteTensor(t, std::vector<float>{1, 2, 3, 4});
  ImportedBuffer b = ImportExternalBuffer(f.device, t).get();
  std::future<std::vector<std::byte>> read = f.context.ReadTensor(t);  // waits for the return
  t.Destroy();  // not an error; the pending read is rejected as for any destroyed tensor
  CHECK(ErrorOf([&] { read.get(); }) == ErrorType::kInvalidStateError);
  // The buffer stays the application's until it returns it; the contents are then discarded.
  f.device->Write(b.handle(), {9, 9, 9, 9});
  CHECK(f.device->Read(b.handle()) == std::vector<float>{9, 9, 9, 9});
  b.Destroy();
  f.context.CreateTensor(Desc(true, true, false)).get();  // queued after the return
  CHECK(f.device->live() == 0);
  CHECK(ErrorOf([&] { ImportExternalBuffer(f.device, t).get(); }) == ErrorType::kTypeError);
}

TEST_CASE("interop reading: the context lost while a tensor is rented") {
  Fixture f;
  Tensor t = f.context.CreateTensor(Desc(true, true, true)).get();
  ImportedBuffer b = ImportExternalBuffer(f.device, t).get();
  std::future<std::vector<std::byte>> read = f.context.ReadTensor(t);
  f.context.Destroy();
  CHECK(f.context.IsLost());
  CHECK(ErrorOf([&] { read.get(); }) == ErrorType::kInvalidStateError);
  // The buffer is still valid on the device; the return releases it without error.
  f.device->Write(b.handle(), {1, 1, 1, 1});
  b.Destroy();
  CHECK(f.device->live() == 0);
  CHECK(ErrorOf([&] { ImportExternalBuffer(f.device, t).get(); }) == ErrorType::kInvalidStateError);
}

TEST_CASE("interop reading: an import pending when the context is lost rejects") {
  Fixture f;
  Tensor a = f.context.CreateTensor(Desc(true, true, true)).get();
  Tensor b = f.context.CreateTensor(Desc(true, true, true)).get();
  Graph graph = AffineGraph(f.context);
  ImportedBuffer rented = ImportExternalBuffer(f.device, a).get();
  f.context.Dispatch(graph, {{"x", a}}, {{"y", b}});
  std::future<ImportedBuffer> pending = ImportExternalBuffer(f.device, b);  // waits for a
  f.context.Destroy();
  CHECK(ErrorOf([&] { pending.get(); }) == ErrorType::kInvalidStateError);
  CHECK(f.device->live() == 1);
  rented.Destroy();
  CHECK(f.device->live() == 0);
}

TEST_CASE("interop reading: a buffer the device cannot create rejects with OperationError") {
  Fixture f;
  Tensor t = f.context.CreateTensor(Desc(true, true, true)).get();
  f.device->FailCreate(true);
  CHECK(ErrorOf([&] { ImportExternalBuffer(f.device, t).get(); }) == ErrorType::kOperationError);
  f.device->FailCreate(false);
  CHECK(ImportExternalBuffer(f.device, t).get().valid());  // not left rented
}

TEST_CASE("interop: dropping the buffer or the import's future returns the tensor") {
  Fixture f;
  Tensor t = f.context.CreateTensor(Desc(true, true, true)).get();
  f.context.WriteTensor(t, std::vector<float>{1, 2, 3, 4});
  {
    ImportedBuffer b = ImportExternalBuffer(f.device, t).get();
    f.device->Write(b.handle(), {4, 3, 2, 1});
  }  // returned here, contents kept
  CHECK(Floats(f.context.ReadTensor(t).get()) == std::vector<float>{4, 3, 2, 1});
  { std::future<ImportedBuffer> dropped = ImportExternalBuffer(f.device, t); }
  CHECK(Floats(f.context.ReadTensor(t).get()) == std::vector<float>{4, 3, 2, 1});
  CHECK(f.device->live() == 0);
  CHECK(f.device->released() == 2);
}

TEST_CASE("interop: the context's last handle dropped while rented") {
  auto device = std::make_shared<HostGpuDevice>(3);
  ImportedBuffer b;
  {
    Context context = Context::Create(device).get();
    Tensor t = context.CreateTensor(Desc(true, true, true)).get();
    b = ImportExternalBuffer(device, t).get();
    context.ReadTensor(t);  // queued, waits; the context's end aborts it
  }
  CHECK(device->live() == 1);
  b.Destroy();
  CHECK(device->live() == 0);
}

}  // namespace
}  // namespace nnref::webnn
