// MLContextOptions::backend: graphs built on such a context compute with the backend's kernels,
// and build() rejects a graph the backend cannot convert (§api-mlgraphbuilder-build step 19:
// "if that fails, reject with an OperationError") naming the operator.
#include "ops/backend.h"

#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ops/simd/simd_backend.h"
#include "runner/api/webnn.h"

namespace nnref::webnn {
namespace {

const MLOperandDescriptor kF32x4 = {DataType::kFloat32, {2, 2}};

MLTensorDescriptor TensorDesc(const Operand& o, bool readable, bool writable) {
  MLTensorDescriptor d;
  d.dataType = o.dataType();
  d.shape = o.shape();
  d.readable = readable;
  d.writable = writable;
  return d;
}

TEST_CASE("a context with the simd backend computes the spec's dispatch example") {
  MLContextOptions options;
  options.backend = MakeSimdBackend(BackendOptions{2});
  Context context = Context::Create(options).get();
  GraphBuilder builder(context);
  const Operand constant = builder.Constant(kF32x4, std::vector<float>(4, 0.2f));
  const Operand A = builder.Input("A", kF32x4);
  const Operand B = builder.Input("B", kF32x4);
  const Operand C = builder.Add(builder.Mul(A, constant), B);
  const Graph graph = builder.Build({{"C", C}}).get();
  Tensor a = context.CreateTensor(TensorDesc(A, false, true)).get();
  Tensor b = context.CreateTensor(TensorDesc(B, false, true)).get();
  Tensor c = context.CreateTensor(TensorDesc(C, true, false)).get();
  context.WriteTensor(a, std::vector<float>(4, 1.0f));
  context.WriteTensor(b, std::vector<float>(4, 0.8f));
  context.Dispatch(graph, {{"A", a}, {"B", b}}, {{"C", c}});
  // float32: 0.2f * 1 = 0.2f; 0.2f + 0.8f = 1.0000000149 rounds to 1 (half an ulp is 5.96e-8).
  const std::vector<std::byte> bytes = context.ReadTensor(c).get();
  std::vector<float> got(4);
  std::memcpy(got.data(), bytes.data(), 16);
  CHECK(got == std::vector<float>{1, 1, 1, 1});
}

// The simd backend without gru (the simd backend covers every operator, so the test makes one
// that lacks an operator).
class SimdWithoutGru final : public Backend {
 public:
  std::string_view name() const override { return "partial"; }
  std::string Describe() const override { return "simd without gru"; }
  std::optional<std::string> Unsupported(OpId op, DataType type) const override {
    if (op == OpId::gru) return std::string("not implemented");
    return simd_->Unsupported(op, type);
  }
  std::shared_ptr<const Kernel> MakeKernel(const nnref::Graph& graph, size_t index,
                                           std::string& why) const override {
    if (graph.operators()[index].op == OpId::gru) {
      why = "not implemented";
      return nullptr;
    }
    return simd_->MakeKernel(graph, index, why);
  }

 private:
  std::shared_ptr<const Backend> simd_ = MakeSimdBackend(BackendOptions{1});
};

TEST_CASE("build() on a backend context rejects an operator the backend lacks") {
  MLContextOptions options;
  options.backend = std::make_shared<SimdWithoutGru>();
  Context context = Context::Create(options).get();
  GraphBuilder builder(context);
  // gru: steps 1, batch 1, input size 2, hidden size 1.
  const Operand input = builder.Input("x", {DataType::kFloat32, {1, 1, 2}});
  const Operand weight = builder.Input("w", {DataType::kFloat32, {1, 3, 2}});
  const Operand recurrent = builder.Input("r", {DataType::kFloat32, {1, 3, 1}});
  const std::vector<Operand> out = builder.Gru(input, weight, recurrent, 1, 1);
  std::future<Graph> f = builder.Build({{"out", out[0]}});
  try {
    f.get();
    FAIL("build resolved");
  } catch (const WebnnError& e) {
    CHECK(e.type() == ErrorType::kOperationError);
    CHECK(std::string(e.what()).find("partial: gru: not implemented") != std::string::npos);
  }
}

}  // namespace
}  // namespace nnref::webnn
