// The library API against the WebNN method steps (§api-mlcontext, §api-mltensor, §api-mlgraph,
// §api-mlgraphbuilder-constant-tensor, -build): results of the spec's own examples (computed by
// hand in the comments), every error condition of createTensor, createConstantTensor, writeTensor,
// readTensor, dispatch and destroy, which of them throw and which reject, and timeline ordering.
#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <optional>

#include "runner/api/webnn.h"

namespace nnref::webnn {

namespace {

// The error type `f` throws synchronously, or nullopt.
template <typename F>
std::optional<ErrorType> Thrown(F&& f) {
  try {
    f();
  } catch (const WebnnError& e) {
    return e.type();
  }
  return std::nullopt;
}

// The error type the future is rejected with, or nullopt when it resolves.
template <typename T>
std::optional<ErrorType> Rejection(std::future<T> f) {
  try {
    f.get();
  } catch (const WebnnError& e) {
    return e.type();
  }
  return std::nullopt;
}

Context NewContext(const MLContextOptions& o = {}) { return Context::Create(o).get(); }

MLTensorDescriptor TensorDesc(DataType t, const Shape& shape, bool readable, bool writable) {
  MLTensorDescriptor d;
  d.dataType = t;
  d.shape = shape;
  d.readable = readable;
  d.writable = writable;
  return d;
}

template <typename T>
std::vector<T> As(const std::vector<std::byte>& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

template <typename T>
std::vector<T> Read(Context& c, const Tensor& t) {
  return As<T>(c.ReadTensor(t).get());
}

const MLOperandDescriptor kF32x4{DataType::kFloat32, {2, 2}};

// out = a + b over float32[2, 2].
Graph AddGraph(Context& c) {
  GraphBuilder b(c);
  const Operand a = b.Input("a", kF32x4);
  const Operand x = b.Input("b", kF32x4);
  return b.Build({{"out", b.Add(a, x)}}).get();
}

struct AddSetup {
  Context c = NewContext();
  Graph g = AddGraph(c);
  Tensor a = c.CreateTensor(TensorDesc(DataType::kFloat32, {2, 2}, false, true)).get();
  Tensor b = c.CreateTensor(TensorDesc(DataType::kFloat32, {2, 2}, false, true)).get();
  Tensor out = c.CreateTensor(TensorDesc(DataType::kFloat32, {2, 2}, true, false)).get();
};

}  // namespace

TEST_CASE("the spec's dispatch example: C = 0.2 * A + B gives [1, 1, 1, 1]") {
  // §api-mlcontext-dispatch-examples. float32(0.2) = 0.20000000298, float32(0.8) = 0.80000001192;
  // their sum 1.0000000149 is within half an ulp (5.96e-8) of 1, so every element is exactly 1.
  Context context = NewContext();
  GraphBuilder builder(context);
  const std::vector<float> point2(4, 0.2f);
  const Operand constant = builder.Constant(kF32x4, point2);
  const Operand A = builder.Input("A", kF32x4);
  const Operand B = builder.Input("B", kF32x4);
  const Operand C = builder.Add(builder.Mul(A, constant), B);
  const Graph graph = builder.Build({{"C", C}}).get();
  Tensor a = context.CreateTensor(TensorDesc(A.dataType(), A.shape(), false, true)).get();
  Tensor b = context.CreateTensor(TensorDesc(B.dataType(), B.shape(), false, true)).get();
  Tensor c = context.CreateTensor(TensorDesc(C.dataType(), C.shape(), true, false)).get();
  context.WriteTensor(a, std::vector<float>(4, 1.0f));
  context.WriteTensor(b, std::vector<float>(4, 0.8f));
  context.Dispatch(graph, {{"A", a}, {"B", b}}, {{"C", c}});
  CHECK(Read<float>(context, c) == std::vector<float>{1, 1, 1, 1});
  CHECK(graph.inputDescriptors().size() == 2);
  CHECK(graph.outputDescriptors().at("C") == kF32x4);
}

TEST_CASE("createTensor: attributes, zero-filled data, and its rejections") {
  Context c = NewContext();
  Tensor t = c.CreateTensor(TensorDesc(DataType::kInt32, {3}, true, true)).get();
  CHECK(t.dataType() == DataType::kInt32);
  CHECK(t.shape() == Shape{3});
  CHECK(t.readable());
  CHECK(t.writable());
  CHECK_FALSE(t.constant());
  CHECK(Read<int32_t>(c, t) == std::vector<int32_t>{0, 0, 0});  // step 6: all bytes zero
  // A descriptor failing "check dimensions": rejected with TypeError, as createConstantTensor
  // step 4 does (createTensor's own steps never check it; docs/deviations.md).
  CHECK(Rejection(c.CreateTensor(TensorDesc(DataType::kFloat32, {0}, false, false))) ==
        ErrorType::kTypeError);
  CHECK(Rejection(c.CreateTensor(TensorDesc(DataType::kFloat32, {65536, 65536}, false, false))) ==
        ErrorType::kTypeError);
  // Step 3: a lost context rejects (the call itself does not throw).
  c.Destroy();
  std::future<Tensor> f;
  CHECK_FALSE(Thrown([&] { f = c.CreateTensor(TensorDesc(DataType::kInt32, {3}, false, false)); }));
  CHECK(Rejection(std::move(f)) == ErrorType::kInvalidStateError);
}

TEST_CASE("createConstantTensor: attributes, data, and every rejection") {
  Context c = NewContext();
  const std::vector<float> data{1, 2, 3, 4};
  Tensor t = c.CreateConstantTensor(kF32x4, data).get();
  CHECK(t.constant());
  CHECK_FALSE(t.readable());
  CHECK_FALSE(t.writable());
  CHECK(t.shape() == Shape{2, 2});
  // A Uint8Array (and an ArrayBuffer) of the right length is accepted whatever the data type.
  const std::vector<uint8_t> bytes(16, 0);
  CHECK_FALSE(Rejection(c.CreateConstantTensor(kF32x4, bytes)));
  CHECK_FALSE(Rejection(c.CreateConstantTensor(
      kF32x4, AllowSharedBufferSource(BufferType::kArrayBuffer, std::as_bytes(std::span(bytes))))));
  // Step 4: check dimensions; step 5: validate buffer with descriptor (length, view type).
  CHECK(Rejection(c.CreateConstantTensor({DataType::kFloat32, {2, 0}}, std::vector<float>{})) ==
        ErrorType::kTypeError);
  CHECK(Rejection(c.CreateConstantTensor(kF32x4, std::vector<float>{1, 2, 3})) ==
        ErrorType::kTypeError);
  CHECK(Rejection(c.CreateConstantTensor(kF32x4, std::vector<int32_t>{1, 2, 3, 4})) ==
        ErrorType::kTypeError);
  CHECK(Rejection(c.CreateConstantTensor(kF32x4, std::vector<double>{1, 2})) ==
        ErrorType::kTypeError);
  CHECK(Rejection(c.CreateConstantTensor(
            kF32x4,
            AllowSharedBufferSource(BufferType::kDataView, std::as_bytes(std::span(bytes))))) ==
        ErrorType::kTypeError);
  c.Destroy();  // step 3
  CHECK(Rejection(c.CreateConstantTensor(kF32x4, data)) == ErrorType::kInvalidStateError);
}

TEST_CASE("validate buffer with descriptor follows the appendix table") {
  const MLOperandDescriptor f16{DataType::kFloat16, {2}};
  CHECK(ValidateBufferWithDescriptor(BufferType::kFloat16Array, 4, f16));
  CHECK(ValidateBufferWithDescriptor(BufferType::kUint16Array, 4, f16));  // the appendix note
  CHECK(ValidateBufferWithDescriptor(BufferType::kUint8Array, 4, f16));
  CHECK(ValidateBufferWithDescriptor(BufferType::kSharedArrayBuffer, 4, f16));
  CHECK_FALSE(ValidateBufferWithDescriptor(BufferType::kInt16Array, 4, f16));
  CHECK_FALSE(ValidateBufferWithDescriptor(BufferType::kFloat16Array, 2, f16));
  const MLOperandDescriptor i64{DataType::kInt64, {1}};
  CHECK(ValidateBufferWithDescriptor(BufferType::kBigInt64Array, 8, i64));
  CHECK_FALSE(ValidateBufferWithDescriptor(BufferType::kBigUint64Array, 8, i64));
  CHECK_FALSE(ValidateBufferWithDescriptor(BufferType::kFloat64Array, 8, i64));
  CHECK_FALSE(ValidateBufferWithDescriptor(BufferType::kUint8ClampedArray, 8, i64));
  const MLOperandDescriptor u8{DataType::kUint8, {3}};
  CHECK(ValidateBufferWithDescriptor(BufferType::kUint8Array, 3, u8));
  CHECK_FALSE(ValidateBufferWithDescriptor(BufferType::kInt8Array, 3, u8));
  CHECK(ParseBufferType("Float32Array") == BufferType::kFloat32Array);
  CHECK_FALSE(ParseBufferType("Float128Array"));
}

TEST_CASE("writeTensor throws TypeError for each failed check, and writes in order") {
  Context c = NewContext();
  Context other = NewContext();
  Tensor w = c.CreateTensor(TensorDesc(DataType::kInt32, {2}, true, true)).get();
  Tensor ro = c.CreateTensor(TensorDesc(DataType::kInt32, {2}, true, false)).get();
  Tensor foreign = other.CreateTensor(TensorDesc(DataType::kInt32, {2}, true, true)).get();
  Tensor gone = c.CreateTensor(TensorDesc(DataType::kInt32, {2}, true, true)).get();
  gone.Destroy();
  const std::vector<int32_t> two{7, 8};
  CHECK(Thrown([&] { c.WriteTensor(foreign, two); }) == ErrorType::kTypeError);  // step 1
  CHECK(Thrown([&] { c.WriteTensor(gone, two); }) == ErrorType::kTypeError);     // step 2
  CHECK(Thrown([&] { c.WriteTensor(ro, two); }) == ErrorType::kTypeError);       // step 3
  CHECK(Thrown([&] { c.WriteTensor(w, std::vector<int32_t>{1}); }) == ErrorType::kTypeError);
  CHECK(Thrown([&] { c.WriteTensor(w, std::vector<uint32_t>{1, 2}); }) == ErrorType::kTypeError);
  CHECK(Thrown([&] { c.WriteTensor(w, std::vector<float>{1, 2}); }) == ErrorType::kTypeError);
  // Writes and reads run in call order: each read sees the write queued before it.
  c.WriteTensor(w, two);
  std::future<std::vector<std::byte>> first = c.ReadTensor(w);
  c.WriteTensor(w, std::vector<int32_t>{9, 10});
  std::future<std::vector<std::byte>> second = c.ReadTensor(w);
  CHECK(As<int32_t>(second.get()) == std::vector<int32_t>{9, 10});
  CHECK(As<int32_t>(first.get()) == std::vector<int32_t>{7, 8});
  // A Uint8Array of the right length writes raw bytes.
  const int32_t v[2] = {-1, 65536};
  std::vector<uint8_t> raw(8);
  std::memcpy(raw.data(), v, 8);
  c.WriteTensor(w, raw);
  CHECK(Read<int32_t>(c, w) == std::vector<int32_t>{-1, 65536});
}

TEST_CASE("readTensor rejects with TypeError for each failed check, and never throws") {
  Context c = NewContext();
  Context other = NewContext();
  Tensor r = c.CreateTensor(TensorDesc(DataType::kFloat32, {2}, true, true)).get();
  Tensor wo = c.CreateTensor(TensorDesc(DataType::kFloat32, {2}, false, true)).get();
  Tensor foreign = other.CreateTensor(TensorDesc(DataType::kFloat32, {2}, true, true)).get();
  Tensor gone = c.CreateTensor(TensorDesc(DataType::kFloat32, {2}, true, true)).get();
  gone.Destroy();
  std::optional<std::future<std::vector<std::byte>>> f;
  CHECK_FALSE(Thrown([&] { f = c.ReadTensor(foreign); }));
  CHECK(Rejection(std::move(*f)) == ErrorType::kTypeError);       // step 3
  CHECK(Rejection(c.ReadTensor(gone)) == ErrorType::kTypeError);  // step 4
  CHECK(Rejection(c.ReadTensor(wo)) == ErrorType::kTypeError);    // step 5
  // The BYOB form: step 6 validates the buffer.
  std::vector<float> small(1), right(2);
  std::vector<int32_t> wrong_type(2);
  CHECK(Rejection(c.ReadTensor(r, small)) == ErrorType::kTypeError);
  CHECK(Rejection(c.ReadTensor(r, wrong_type)) == ErrorType::kTypeError);
  CHECK(Rejection(c.ReadTensor(wo, right)) == ErrorType::kTypeError);
  c.WriteTensor(r, std::vector<float>{1.5f, -2});
  CHECK_FALSE(Rejection(c.ReadTensor(r, right)));
  CHECK(right == std::vector<float>{1.5f, -2});
  std::vector<uint8_t> bytes(8);
  CHECK_FALSE(Rejection(c.ReadTensor(r, bytes)));
  float back[2];
  std::memcpy(back, bytes.data(), 8);
  CHECK(back[0] == 1.5f);
  CHECK(back[1] == -2.0f);
}

TEST_CASE("destroying a tensor rejects its pending reads with InvalidStateError") {
  Context c = NewContext();
  Tensor t = c.CreateTensor(TensorDesc(DataType::kUint8, {4}, true, true)).get();
  c.WriteTensor(t, std::vector<uint8_t>{1, 2, 3, 4});
  std::future<std::vector<std::byte>> pending = c.ReadTensor(t);
  std::vector<uint8_t> target(4, 0xEE);
  std::future<void> pending_byob = c.ReadTensor(t, target);
  std::future<std::vector<std::byte>> delivered = c.ReadTensor(t);
  CHECK(As<uint8_t>(delivered.get()) == std::vector<uint8_t>{1, 2, 3, 4});  // delivered first
  t.Destroy();
  CHECK(Rejection(std::move(pending)) == ErrorType::kInvalidStateError);
  CHECK(Rejection(std::move(pending_byob)) == ErrorType::kInvalidStateError);
  CHECK(target == std::vector<uint8_t>(4, 0xEE));  // the ML task never wrote the buffer
  t.Destroy();                                     // idempotent
  CHECK(Rejection(c.ReadTensor(t)) == ErrorType::kTypeError);
}

TEST_CASE("readTensor(tensor, outputData): a detached outputData, at the call or before delivery") {
  Context c = NewContext();
  Tensor t = c.CreateTensor(TensorDesc(DataType::kFloat32, {2}, true, true)).get();
  c.WriteTensor(t, std::vector<float>{1.5f, -2});
  // A view of the middle 8 bytes of a 16-byte buffer, filled with 0x77.
  std::vector<std::byte> storage(16, std::byte{0x77});
  auto detached = std::make_shared<bool>(false);
  const AllowSharedBufferTarget view(BufferType::kFloat32Array,
                                     std::span<std::byte>(storage).subspan(4, 8));
  AllowSharedBufferTarget tracked = view;
  tracked.detached = [detached] { return *detached; };
  // Detached before the call: its byte length is 0, so step 6 rejects with TypeError.
  *detached = true;
  CHECK(Rejection(c.ReadTensor(t, tracked)) == ErrorType::kTypeError);
  // Detached after the call, before the ML task: step 9.1.3.2 rejects with TypeError and writes
  // nothing; the promise has left [[pendingPromises]] (a later destroy does not touch it).
  *detached = false;
  std::future<void> pending = c.ReadTensor(t, tracked);
  *detached = true;
  CHECK(Rejection(std::move(pending)) == ErrorType::kTypeError);
  CHECK(storage == std::vector<std::byte>(16, std::byte{0x77}));
  // Not detached: the bytes land in the view and nowhere else.
  *detached = false;
  CHECK_FALSE(Rejection(c.ReadTensor(t, tracked)));
  float back[2];
  std::memcpy(back, storage.data() + 4, 8);
  CHECK(back[0] == 1.5f);
  CHECK(back[1] == -2.0f);
  CHECK(storage[3] == std::byte{0x77});
  CHECK(storage[12] == std::byte{0x77});
  // A target without the member is never detached.
  CHECK_FALSE(Rejection(c.ReadTensor(t, view)));
}

TEST_CASE("destroying the context: lost resolves, pending reads reject, later use fails") {
  Context c = NewContext();
  Graph g = AddGraph(c);
  Tensor t = c.CreateTensor(TensorDesc(DataType::kFloat32, {2, 2}, true, true)).get();
  c.WriteTensor(t, std::vector<float>{1, 2, 3, 4});
  std::future<std::vector<std::byte>> pending = c.ReadTensor(t);
  std::shared_future<MLContextLostInfo> lost = c.lost();
  CHECK(lost.wait_for(std::chrono::seconds(0)) == std::future_status::timeout);
  CHECK_FALSE(c.IsLost());
  c.Destroy();
  REQUIRE(lost.wait_for(std::chrono::seconds(0)) == std::future_status::ready);
  CHECK_FALSE(lost.get().message.empty());
  CHECK(c.IsLost());
  CHECK(Rejection(std::move(pending)) == ErrorType::kInvalidStateError);
  // Every tensor and graph of the context is destroyed (§api-mlcontext-errors "lose").
  CHECK(Thrown([&] { c.WriteTensor(t, std::vector<float>(4)); }) == ErrorType::kTypeError);
  CHECK(Rejection(c.ReadTensor(t)) == ErrorType::kTypeError);
  CHECK(Thrown([&] { c.Dispatch(g, {{"a", t}}, {}); }) == ErrorType::kInvalidStateError);
  CHECK(Rejection(c.CreateTensor(TensorDesc(DataType::kFloat32, {1}, false, false))) ==
        ErrorType::kInvalidStateError);
  CHECK(Thrown([&] { GraphBuilder b(c); }) == ErrorType::kInvalidStateError);
  c.Destroy();  // step 1: already lost, nothing happens
  CHECK(lost.get().message == c.lost().get().message);
}

TEST_CASE("dispatch: every failed check throws, in step order") {
  AddSetup s;
  Context other = NewContext();
  Graph foreign_graph = AddGraph(other);
  Tensor foreign = other.CreateTensor(TensorDesc(DataType::kFloat32, {2, 2}, false, true)).get();
  Tensor wrong_shape = s.c.CreateTensor(TensorDesc(DataType::kFloat32, {4}, false, true)).get();
  Tensor wrong_type = s.c.CreateTensor(TensorDesc(DataType::kInt32, {2, 2}, false, true)).get();
  Tensor konst = s.c.CreateConstantTensor(kF32x4, std::vector<float>(4)).get();
  Tensor gone = s.c.CreateTensor(TensorDesc(DataType::kFloat32, {2, 2}, true, true)).get();
  gone.Destroy();
  const auto dispatch = [&](const Graph& g, const MLNamedTensors& in, const MLNamedTensors& out) {
    return Thrown([&] { s.c.Dispatch(g, in, out); });
  };
  const MLNamedTensors in{{"a", s.a}, {"b", s.b}};
  const MLNamedTensors out{{"out", s.out}};
  CHECK_FALSE(dispatch(s.g, in, out));
  CHECK(dispatch(foreign_graph, in, out) == ErrorType::kTypeError);                  // step 1
  CHECK(dispatch(s.g, {{"a", s.a}, {"b", s.a}}, out) == ErrorType::kTypeError);      // step 4
  CHECK(dispatch(s.g, in, {{"out", s.a}}) == ErrorType::kTypeError);                 // step 4
  CHECK(dispatch(s.g, {{"a", foreign}, {"b", s.b}}, out) == ErrorType::kTypeError);  // step 5
  CHECK(dispatch(s.g, {{"a", gone}, {"b", s.b}}, out) == ErrorType::kTypeError);     // step 5
  CHECK(dispatch(s.g, {{"a", s.a}}, out) == ErrorType::kTypeError);                  // 6: size
  CHECK(dispatch(s.g, {{"a", s.a}, {"c", s.b}}, out) == ErrorType::kTypeError);      // 6: name
  CHECK(dispatch(s.g, {{"a", konst}, {"b", s.b}}, out) == ErrorType::kTypeError);    // 6: const
  CHECK(dispatch(s.g, {{"a", wrong_shape}, {"b", s.b}}, out) == ErrorType::kTypeError);
  CHECK(dispatch(s.g, {{"a", wrong_type}, {"b", s.b}}, out) == ErrorType::kTypeError);
  CHECK(dispatch(s.g, in, {}) == ErrorType::kTypeError);                      // step 7
  CHECK(dispatch(s.g, in, {{"out", wrong_shape}}) == ErrorType::kTypeError);  // step 7
  CHECK(dispatch(s.g, in, {{"result", s.out}}) == ErrorType::kTypeError);     // step 7
  // The graph check comes first: a destroyed graph is InvalidStateError even with bad tensors.
  s.g.Destroy();
  CHECK(dispatch(s.g, {{"a", foreign}}, {}) == ErrorType::kInvalidStateError);  // step 2
  s.g.Destroy();                                                                // idempotent
}

TEST_CASE("work queued before a destroy still runs; the read sees it") {
  AddSetup s;
  s.c.WriteTensor(s.a, std::vector<float>{1, 2, 3, 4});
  s.c.WriteTensor(s.b, std::vector<float>{10, 20, 30, 40});
  s.c.Dispatch(s.g, {{"a", s.a}, {"b", s.b}}, {{"out", s.out}});
  s.g.Destroy();  // after the dispatch was queued
  s.a.Destroy();  // released after the dispatch used it
  CHECK(Read<float>(s.c, s.out) == std::vector<float>{11, 22, 33, 44});
}

TEST_CASE("the explainer's Fibonacci chained inference: F(10) = 55 and F(30) = 832040") {
  for (const int n : {10, 30}) {
    Context c = NewContext();
    GraphBuilder b(c);
    const MLOperandDescriptor d{DataType::kInt32, {1}};
    const Operand fn1 = b.Input("F_n-1", d);
    const Operand fn2 = b.Input("F_n-2", d);
    const Graph graph = b.Build({{"F_n", b.Add(fn1, fn2)}}).get();
    std::vector<Tensor> tensors;
    for (int i = 0; i < 3; ++i) {
      tensors.push_back(c.CreateTensor(TensorDesc(DataType::kInt32, {1}, i == n % 3, i < 2)).get());
    }
    c.WriteTensor(tensors[0], std::vector<int32_t>{0});
    c.WriteTensor(tensors[1], std::vector<int32_t>{1});
    for (int i = 2; i <= n; ++i) {
      c.Dispatch(graph, {{"F_n-1", tensors[(i - 1) % 3]}, {"F_n-2", tensors[(i - 2) % 3]}},
                 {{"F_n", tensors[i % 3]}});
    }
    CHECK(Read<int32_t>(c, tensors[n % 3]) == std::vector<int32_t>{n == 10 ? 55 : 832040});
  }
}

TEST_CASE("the explainer's buffer reuse: one input tensor, three graphs") {
  Context c = NewContext();
  const MLOperandDescriptor d{DataType::kFloat32, {3}};
  std::vector<Graph> graphs;
  for (int k = 0; k < 3; ++k) {
    GraphBuilder b(c);
    const Operand x = b.Input("input", d);
    const Operand y = k == 0   ? b.Add(x, b.Constant(DataType::kFloat32, MLNumber::FromDouble(1)))
                      : k == 1 ? b.Mul(x, x)
                               : b.Neg(x);
    graphs.push_back(b.Build({{"output", y}}).get());
  }
  Tensor input = c.CreateTensor(TensorDesc(DataType::kFloat32, {3}, false, true)).get();
  std::vector<Tensor> outputs;
  for (int k = 0; k < 3; ++k) {
    outputs.push_back(c.CreateTensor(TensorDesc(DataType::kFloat32, {3}, true, false)).get());
  }
  c.WriteTensor(input, std::vector<float>{1, -2, 0.5f});
  for (int k = 0; k < 3; ++k) c.Dispatch(graphs[k], {{"input", input}}, {{"output", outputs[k]}});
  std::vector<std::future<std::vector<std::byte>>> reads;
  for (const Tensor& o : outputs) reads.push_back(c.ReadTensor(o));
  CHECK(As<float>(reads[0].get()) == std::vector<float>{2, -1, 1.5f});
  CHECK(As<float>(reads[1].get()) == std::vector<float>{1, 4, 0.25f});
  CHECK(As<float>(reads[2].get()) == std::vector<float>{-1, 2, -0.5f});
}

TEST_CASE("constant(tensor): checks, and the graph survives the tensor's destruction") {
  Context c = NewContext();
  Context other = NewContext();
  const MLOperandDescriptor d{DataType::kFloat32, {2}};
  Tensor weights = c.CreateConstantTensor(d, std::vector<float>{3, -4}).get();
  {
    GraphBuilder b(c);
    Tensor plain = c.CreateTensor(TensorDesc(DataType::kFloat32, {2}, true, true)).get();
    Tensor foreign = other.CreateConstantTensor(d, std::vector<float>{1, 1}).get();
    Tensor gone = c.CreateConstantTensor(d, std::vector<float>{1, 1}).get();
    gone.Destroy();
    CHECK(Thrown([&] { b.Constant(foreign); }) == ErrorType::kTypeError);  // step 1
    CHECK(Thrown([&] { b.Constant(gone); }) == ErrorType::kTypeError);     // step 2
    CHECK(Thrown([&] { b.Constant(plain); }) == ErrorType::kTypeError);    // step 3
  }
  GraphBuilder b(c);
  const Operand x = b.Input("x", d);
  const Operand w = b.Constant(weights);
  CHECK(w.shape() == Shape{2});
  const Graph g = b.Build({{"y", b.Mul(x, w)}}).get();
  weights.Destroy();  // legal after build; the graph is unaffected
  Tensor in = c.CreateTensor(TensorDesc(DataType::kFloat32, {2}, false, true)).get();
  Tensor out = c.CreateTensor(TensorDesc(DataType::kFloat32, {2}, true, false)).get();
  c.WriteTensor(in, std::vector<float>{2, 0.5f});
  c.Dispatch(g, {{"x", in}}, {{"y", out}});
  CHECK(Read<float>(c, out) == std::vector<float>{6, -2});
  CHECK(Thrown([&] { b.Constant(weights); }) == ErrorType::kTypeError);  // now destroyed
}

TEST_CASE("build: a constant tensor destroyed before build, lost context, built twice") {
  Context c = NewContext();
  const MLOperandDescriptor d{DataType::kFloat32, {2}};
  Tensor weights = c.CreateConstantTensor(d, std::vector<float>{3, -4}).get();
  {
    GraphBuilder b(c);
    const Operand y = b.Add(b.Input("x", d), b.Constant(weights));
    weights.Destroy();
    CHECK(Rejection(b.Build({{"y", y}})) == ErrorType::kTypeError);  // step 4.4 (as read)
    // The rejection leaves [[hasBuilt]] false: another graph can still be built.
    CHECK_FALSE(Rejection(b.Build({{"z", b.Neg(b.Input("v", d))}})));
    // Each builder builds once.
    CHECK(Rejection(b.Build({{"w", y}})) == ErrorType::kInvalidStateError);
  }
  {
    GraphBuilder b(c);
    const Operand x = b.Input("x", d);
    CHECK(Rejection(b.Build({})) == ErrorType::kTypeError);          // step 3
    CHECK(Rejection(b.Build({{"x", x}})) == ErrorType::kTypeError);  // step 4.3
    const Operand y = b.Neg(x);
    c.Destroy();
    CHECK(Rejection(b.Build({{"y", y}})) == ErrorType::kInvalidStateError);  // step 2
    CHECK(Thrown([&] { b.Neg(x); }) == ErrorType::kInvalidStateError);       // can not build
  }
}

TEST_CASE("a future outliving its context is rejected, not left hanging") {
  std::future<Tensor> f;
  {
    Context c = NewContext();
    f = c.CreateTensor(TensorDesc(DataType::kFloat32, {1}, false, false));
  }
  // Either the timeline created the tensor before the context went away, or the release made
  // the queued step abort; both settle the promise.
  const std::optional<ErrorType> e = Rejection(std::move(f));
  CHECK((!e || *e == ErrorType::kInvalidStateError));
}

TEST_CASE("accelerated, limits and opSupportLimits come from the options") {
  MLContextOptions o;
  o.accelerated = false;
  o.limits.max_tensor_byte_length = 4096;
  Context c = NewContext(o);
  CHECK_FALSE(c.accelerated());
  CHECK(NewContext().accelerated());
  CHECK(c.OpSupportLimits().maxTensorByteLength == 4096);
  // createTensor beyond the context's maxTensorByteLength fails "check dimensions": TypeError.
  CHECK(Rejection(c.CreateTensor(TensorDesc(DataType::kFloat32, {2048}, false, false))) ==
        ErrorType::kTypeError);
  CHECK_FALSE(Rejection(c.CreateTensor(TensorDesc(DataType::kFloat32, {1024}, false, false))));
}

TEST_CASE("ReadTensorValue carries the reference's latitude") {
  // int8 127 + 1 wraps and the element is marked implementation-defined (docs/deviations.md).
  Context c = NewContext();
  GraphBuilder b(c);
  const MLOperandDescriptor d{DataType::kInt8, {2}};
  const Graph g = b.Build({{"y", b.Add(b.Input("x", d), b.Input("z", d))}}).get();
  Tensor x = c.CreateTensor(TensorDesc(DataType::kInt8, {2}, false, true)).get();
  Tensor z = c.CreateTensor(TensorDesc(DataType::kInt8, {2}, false, true)).get();
  Tensor y = c.CreateTensor(TensorDesc(DataType::kInt8, {2}, true, false)).get();
  c.WriteTensor(x, std::vector<int8_t>{127, 1});
  c.WriteTensor(z, std::vector<int8_t>{1, 2});
  c.Dispatch(g, {{"x", x}, {"z", z}}, {{"y", y}});
  const OperandValue v = c.ReadTensorValue(y).get();
  CHECK(v.data.At<int8_t>(1) == 3);
  REQUIRE(v.latitude.valid());
  CHECK(v.latitude.At<uint8_t>(0) == static_cast<uint8_t>(Latitude::kAny));
  CHECK(v.latitude.At<uint8_t>(1) == static_cast<uint8_t>(Latitude::kExact));
  // A later write replaces data and latitude.
  Tensor xy = c.CreateTensor(TensorDesc(DataType::kInt8, {2}, true, true)).get();
  c.WriteTensor(xy, std::vector<int8_t>{5, 6});
  CHECK_FALSE(c.ReadTensorValue(xy).get().latitude.valid());
}

}  // namespace nnref::webnn
