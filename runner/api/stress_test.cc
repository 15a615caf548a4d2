// Concurrency: several threads interleave writes, dispatches, reads and destroys on shared
// contexts, and every result is checked against a value computed here. Run under ThreadSanitizer
// by tools/test-all.sh (build-tsan). Each thread queues many steps before it waits, so the checks
// also verify the timeline's per-call ordering: a read sees exactly the work queued before it.
#include <doctest/doctest.h>

#include <atomic>
#include <cstring>
#include <deque>
#include <thread>

#include "runner/api/webnn.h"

namespace nnref::webnn {

namespace {

MLTensorDescriptor TensorDesc(DataType t, const Shape& shape, bool readable, bool writable) {
  MLTensorDescriptor d;
  d.dataType = t;
  d.shape = shape;
  d.readable = readable;
  d.writable = writable;
  return d;
}

std::vector<int32_t> Ints(const std::vector<std::byte>& bytes) {
  std::vector<int32_t> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), v.size() * 4);
  return v;
}

constexpr int kLength = 8;
constexpr int kIterations = 150;
constexpr int kWindow = 6;  // steps queued before the oldest read is awaited
constexpr int kDestroyRounds = 200;

// y = 3 * x + 1 over int32[8] (exact: the inputs stay far from overflow).
Graph AffineGraph(Context& c) {
  GraphBuilder b(c);
  const MLOperandDescriptor d{DataType::kInt32, {kLength}};
  const Operand x = b.Input("x", d);
  const Operand three = b.Constant(DataType::kInt32, MLNumber::FromInt64(3));
  const Operand one = b.Constant(DataType::kInt32, MLNumber::FromInt64(1));
  return b.Build({{"y", b.Add(b.Mul(x, three), one)}}).get();
}

// Writes, dispatches and reads in a sliding window; every read must see its own iteration.
void AffineWorker(Context c, Graph g, int id, std::atomic<int>& checks, std::atomic<int>& bad) {
  Tensor x = c.CreateTensor(TensorDesc(DataType::kInt32, {kLength}, true, true)).get();
  Tensor y = c.CreateTensor(TensorDesc(DataType::kInt32, {kLength}, true, false)).get();
  struct Step {
    int iteration;
    std::future<std::vector<std::byte>> output;
    std::future<std::vector<std::byte>> input;
  };
  std::deque<Step> window;
  const auto value = [id](int iteration, int j) { return id * 100000 + iteration * 16 + j; };
  const auto verify = [&](Step& s) {
    const std::vector<int32_t> out = Ints(s.output.get());
    const std::vector<int32_t> in = Ints(s.input.get());
    for (int j = 0; j < kLength; ++j) {
      const int v = value(s.iteration, j);
      if (in[static_cast<size_t>(j)] != v) ++bad;
      if (out[static_cast<size_t>(j)] != 3 * v + 1) ++bad;
      checks += 2;
    }
  };
  for (int i = 0; i < kIterations; ++i) {
    std::vector<int32_t> data(kLength);
    for (int j = 0; j < kLength; ++j) data[static_cast<size_t>(j)] = value(i, j);
    c.WriteTensor(x, data);
    std::future<std::vector<std::byte>> input = c.ReadTensor(x);
    c.Dispatch(g, {{"x", x}}, {{"y", y}});
    window.push_back({i, c.ReadTensor(y), std::move(input)});
    if (window.size() > kWindow) {
      verify(window.front());
      window.pop_front();
    }
  }
  for (Step& s : window) verify(s);
}

// Fibonacci by chained dispatches (the explainer's example), F(40) = 102334155, repeatedly.
void FibonacciWorker(Context c, std::atomic<int>& checks, std::atomic<int>& bad) {
  GraphBuilder b(c);
  const MLOperandDescriptor d{DataType::kInt32, {1}};
  const Graph g = b.Build({{"F_n", b.Add(b.Input("F_n-1", d), b.Input("F_n-2", d))}}).get();
  constexpr int kN = 40;
  std::vector<Tensor> t;
  for (int i = 0; i < 3; ++i) {
    t.push_back(c.CreateTensor(TensorDesc(DataType::kInt32, {1}, true, true)).get());
  }
  for (int round = 0; round < 8; ++round) {
    c.WriteTensor(t[0], std::vector<int32_t>{0});
    c.WriteTensor(t[1], std::vector<int32_t>{1});
    for (int n = 2; n <= kN; ++n) {
      c.Dispatch(g, {{"F_n-1", t[(n - 1) % 3]}, {"F_n-2", t[(n - 2) % 3]}}, {{"F_n", t[n % 3]}});
    }
    if (Ints(c.ReadTensor(t[kN % 3]).get()) != std::vector<int32_t>{102334155}) ++bad;
    ++checks;
  }
}

// Reads that the same thread destroys before awaiting are rejected; awaited ones deliver.
void DestroyWorker(Context c, std::atomic<int>& checks, std::atomic<int>& bad) {
  for (int i = 0; i < kDestroyRounds; ++i) {
    Tensor t = c.CreateTensor(TensorDesc(DataType::kInt32, {2}, true, true)).get();
    c.WriteTensor(t, std::vector<int32_t>{i, -i});
    std::future<std::vector<std::byte>> delivered = c.ReadTensor(t);
    if (Ints(delivered.get()) != std::vector<int32_t>{i, -i}) ++bad;
    std::future<std::vector<std::byte>> doomed = c.ReadTensor(t);
    t.Destroy();
    try {
      doomed.get();
      ++bad;
    } catch (const WebnnError& e) {
      if (e.type() != ErrorType::kInvalidStateError) ++bad;
    }
    try {
      c.WriteTensor(t, std::vector<int32_t>{1, 2});
      ++bad;
    } catch (const WebnnError& e) {
      if (e.type() != ErrorType::kTypeError) ++bad;
    }
    checks += 3;
  }
}

}  // namespace

TEST_CASE("stress: writes, dispatches, reads and destroys from several threads") {
  Context shared = Context::Create().get();
  Context second = Context::Create().get();
  const Graph g_shared = AffineGraph(shared);
  const Graph g_second = AffineGraph(second);
  std::atomic<int> checks{0}, bad{0};
  std::vector<std::thread> threads;
  for (int id = 0; id < 3; ++id) {
    threads.emplace_back(AffineWorker, shared, g_shared, id, std::ref(checks), std::ref(bad));
  }
  threads.emplace_back(AffineWorker, second, g_second, 7, std::ref(checks), std::ref(bad));
  threads.emplace_back(FibonacciWorker, shared, std::ref(checks), std::ref(bad));
  threads.emplace_back(DestroyWorker, shared, std::ref(checks), std::ref(bad));
  threads.emplace_back(DestroyWorker, second, std::ref(checks), std::ref(bad));
  for (std::thread& t : threads) t.join();
  CHECK(bad.load() == 0);
  CHECK(checks.load() == 4 * kIterations * kLength * 2 + 8 + 2 * kDestroyRounds * 3);
}

TEST_CASE("stress: a context destroyed while other threads are using it") {
  // Threads keep queueing work while another destroys the context. Every call must either
  // succeed or fail with the error its steps give for a lost context, destroyed tensor or
  // destroyed graph, and every future must settle.
  for (int round = 0; round < 8; ++round) {
    Context c = Context::Create().get();
    const Graph g = AffineGraph(c);
    std::atomic<int> unexpected{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int id = 0; id < 3; ++id) {
      threads.emplace_back([&, id] {
        while (!go) std::this_thread::yield();
        for (int i = 0; i < 40; ++i) {
          try {
            Tensor x = c.CreateTensor(TensorDesc(DataType::kInt32, {kLength}, true, true)).get();
            Tensor y = c.CreateTensor(TensorDesc(DataType::kInt32, {kLength}, true, false)).get();
            c.WriteTensor(x, std::vector<int32_t>(kLength, id + i));
            c.Dispatch(g, {{"x", x}}, {{"y", y}});
            const std::vector<int32_t> out = Ints(c.ReadTensor(y).get());
            // Delivered: then it is the dispatched value.
            if (out != std::vector<int32_t>(kLength, 3 * (id + i) + 1)) ++unexpected;
          } catch (const WebnnError& e) {
            // createTensor/readTensor after or during loss: InvalidStateError; use of a tensor
            // destroyed by the loss: TypeError; dispatch of the destroyed graph:
            // InvalidStateError.
            if (e.type() != ErrorType::kInvalidStateError && e.type() != ErrorType::kTypeError) {
              ++unexpected;
            }
          }
        }
      });
    }
    go = true;
    std::this_thread::sleep_for(std::chrono::microseconds(200 * round));
    c.Destroy();
    for (std::thread& t : threads) t.join();
    CHECK(unexpected.load() == 0);
    CHECK(c.IsLost());
  }
}

}  // namespace nnref::webnn
