// MLContextOptions::backend with the vulkan backend: a context's graphs dispatch on the device
// (validation layer on), and build() rejects an operator the backend lacks with an
// OperationError naming it (§api-mlgraphbuilder-build step 19).
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "ops/vulkan/vulkan_backend.h"
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

std::shared_ptr<const Backend> VulkanWithValidation() {
  setenv("NNREF_VULKAN_VALIDATION", "1", 1);
  return MakeVulkanBackend();
}

TEST_CASE("a context with the vulkan backend computes the spec's dispatch example") {
  MLContextOptions options;
  options.backend = VulkanWithValidation();
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

// The native arithmetic mode through the C++ API: BackendOptions::arithmetic given to
// MakeVulkanBackend. A 2x3 . 3x2 matmul of small integers is exact in float32 whatever the order.
TEST_CASE("a context with the vulkan backend in native arithmetic computes a matmul") {
  setenv("NNREF_VULKAN_VALIDATION", "1", 1);
  BackendOptions backend_options;
  backend_options.arithmetic = Arithmetic::kNative;
  MLContextOptions options;
  options.backend = MakeVulkanBackend(backend_options);
  REQUIRE(options.backend->Describe().find("native arithmetic") != std::string::npos);
  Context context = Context::Create(options).get();
  GraphBuilder builder(context);
  const Operand A = builder.Input("A", {DataType::kFloat32, {2, 3}});
  const Operand B = builder.Input("B", {DataType::kFloat32, {3, 2}});
  const Operand C = builder.Matmul(A, B);
  const Graph graph = builder.Build({{"C", C}}).get();
  Tensor a = context.CreateTensor(TensorDesc(A, false, true)).get();
  Tensor b = context.CreateTensor(TensorDesc(B, false, true)).get();
  Tensor c = context.CreateTensor(TensorDesc(C, true, false)).get();
  context.WriteTensor(a, std::vector<float>{1, 2, 3, 4, 5, 6});
  context.WriteTensor(b, std::vector<float>{7, 8, 9, 10, 11, 12});
  context.Dispatch(graph, {{"A", a}, {"B", b}}, {{"C", c}});
  const std::vector<std::byte> bytes = context.ReadTensor(c).get();
  std::vector<float> got(4);
  std::memcpy(got.data(), bytes.data(), 16);
  // [1 2 3; 4 5 6] [7 8; 9 10; 11 12] = [58 64; 139 154]
  CHECK(got == std::vector<float>{58, 64, 139, 154});
}

}  // namespace
}  // namespace nnref::webnn
