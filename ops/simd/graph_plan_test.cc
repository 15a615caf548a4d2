// Tests of the simd backend's whole-graph plan (graph_plan.h): its outputs are bit for bit those
// of the per-operator path (Graph::Compute with the same kernels) on every compiled Highway
// target and thread count, element-wise operators run in place where the plan says, buffers are
// reused, graph outputs never live in the plan's buffers, and two threads computing one compiled
// graph at once each get their own buffers.
#include "ops/simd/graph_plan.h"

#include <doctest/doctest.h>
#include <hwy/targets.h>

#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "ops/activations.h"
#include "ops/backend.h"
#include "ops/data_movement.h"
#include "ops/elementwise_binary.h"
#include "ops/elementwise_unary.h"
#include "ops/matmul_gemm.h"
#include "ops/simd/simd_backend.h"

namespace nnref {
namespace {

// Deterministic values in [-scale, scale) with a few beyond the vector range of exp and tanh
// (the rows' scalar fix-up, which rereads its input) and a few NaN and infinities.
Tensor Values(const Shape& shape, uint64_t seed, float scale) {
  Tensor t = Tensor::Allocate(DataType::kFloat32, shape);
  float* p = t.base<float>();
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (uint64_t i = 0; i < t.element_count(); ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const int64_t q = static_cast<int64_t>(s >> 40) % 2001 - 1000;
    p[i] = scale * static_cast<float>(q) / 1000.0f;
    if (i % 97 == 5) p[i] = 100.0f;
    if (i % 101 == 7) p[i] = -95.0f;
    if (i % 211 == 3) p[i] = NAN;
    if (i % 223 == 4) p[i] = -INFINITY;
  }
  return t;
}

// x [64, 96] -> mul x -> exp -> tanh (both in place of the previous intermediate) -> matmul w
// [96, 80] (its own output) -> add b (in place into the matmul's output at run time) -> gelu (in
// place) -> mul by itself (into the first mul's buffer again: free once the matmul's output, which
// might have been a view of tanh's, was read) -> reshape [80, 64] (a view that keeps that buffer
// busy)
// -> neg -> "y"; and sigmoid(gelu) -> "z".
struct TestGraph {
  std::shared_ptr<const Graph> graph;
  std::map<std::string, Tensor> Inputs(uint64_t seed) const {
    return {{"x", Values({64, 96}, seed, 2.0f)}, {"b", Values({80}, seed + 1, 1.0f)}};
  }
};

TestGraph MakeGraph() {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {64, 96}});
  const Operand bias = b.Input("b", {DataType::kFloat32, {80}});
  const Operand w = b.Constant({DataType::kFloat32, {96, 80}}, Values({96, 80}, 99, 0.1f));
  const Operand t0 = ElementwiseBinary(b, BinaryOp::kMul, x, x);
  const Operand t1 = ElementwiseUnary(b, UnaryOp::kExp, t0);
  const Operand t2 = Tanh(b, t1);
  const Operand m = Matmul(b, t2, w);
  const Operand a = ElementwiseBinary(b, BinaryOp::kAdd, m, bias);
  const Operand g = Gelu(b, a);
  const Operand h = ElementwiseBinary(b, BinaryOp::kMul, g, g);
  const Operand r = Reshape(b, h, {80, 64});
  const Operand y = ElementwiseUnary(b, UnaryOp::kNeg, r);
  const Operand z = Sigmoid(b, g);
  return {b.Build({{"y", y}, {"z", z}})};
}

BackendGraph Compile(const Graph& graph, unsigned threads) {
  std::string why;
  std::optional<BackendGraph> compiled = CompileForBackend(graph, MakeSimdBackend({threads}), why);
  REQUIRE_MESSAGE(compiled.has_value(), why);
  REQUIRE(compiled->runner != nullptr);
  return *compiled;
}

const simd::GraphPlan& PlanOf(const BackendGraph& compiled) {
  const auto* plan = dynamic_cast<const simd::GraphPlan*>(compiled.runner.get());
  REQUIRE(plan != nullptr);
  return *plan;
}

void CheckSame(const std::map<std::string, OperandValue>& a,
               const std::map<std::string, OperandValue>& b) {
  REQUIRE(a.size() == b.size());
  for (const auto& [name, v] : a) {
    INFO("output " << name);
    CHECK(v.data.shape() == b.at(name).data.shape());
    CHECK(v.data.Bytes() == b.at(name).data.Bytes());
    CHECK(!v.latitude.valid());
  }
}

TEST_CASE("simd graph plan: bit-identical to the per-operator path on every target") {
  const TestGraph t = MakeGraph();
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    INFO("target " << hwy::TargetName(target));
    for (unsigned threads : {1u, 2u}) {
      INFO(threads << " threads");
      const BackendGraph compiled = Compile(*t.graph, threads);
      for (uint64_t seed : {1, 2}) {
        const auto inputs = t.Inputs(seed);
        const auto per_op = t.graph->Compute(inputs, {}, compiled.kernels);
        CheckSame(ComputeOnBackend(*t.graph, compiled, inputs), per_op);
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST_CASE("simd graph plan: in place, buffer reuse, outputs outside the plan's buffers") {
  const TestGraph t = MakeGraph();
  const BackendGraph compiled = Compile(*t.graph, 1);
  const simd::GraphPlan& plan = PlanOf(compiled);
  const std::vector<std::string> schedule = plan.Schedule();
  REQUIRE(schedule.size() == 10);
  // Operands: x 0, b 1, w 2, then one per operator from 3 on.
  CHECK(schedule[0] == "0 mul: into buffer 0");
  CHECK(schedule[1] == "1 exp: in place of operand 3 (buffer 0)");
  CHECK(schedule[2] == "2 tanh: in place of operand 4 (buffer 0)");
  CHECK(schedule[3] == "3 matmul: alone (its kernel allocates its output)");
  CHECK(schedule[4] == "4 add: into buffer 1, or in place into a free input");
  CHECK(schedule[5] == "5 gelu: in place of operand 7 (buffer 1)");
  CHECK(schedule[6] == "6 mul: into buffer 0");
  CHECK(schedule[7] == "7 reshape: alone (its kernel allocates its output)");
  CHECK(schedule[8] == "8 neg: in place into a free input, else alone");
  CHECK(schedule[9] == "9 sigmoid: alone (output kept)");
  CHECK(plan.buffer_count() == 2);
  CHECK(plan.in_place_planned() == 3);
  CHECK(plan.buffer_bytes() == 64 * 96 * 4 + 64 * 80 * 4);
  CHECK(plan.pooled_bytes() == 3 * 64 * 96 * 4 + 3 * 64 * 80 * 4);

  const auto first = ComputeOnBackend(*t.graph, compiled, t.Inputs(1));
  // exp, tanh (planned), add (into the matmul's fresh output) and gelu (planned, into that
  // same buffer); neg's input is a view of a plan buffer, so neg allocates its output.
  CHECK(plan.in_place_runs() == 4);
  CHECK(plan.arenas_made() == 1);
  const std::vector<std::byte> y1 = first.at("y").data.Bytes(), z1 = first.at("z").data.Bytes();
  // A second call reuses the buffers and leaves the first call's outputs alone.
  const auto second = ComputeOnBackend(*t.graph, compiled, t.Inputs(2));
  CHECK(plan.arenas_made() == 1);
  CHECK(plan.in_place_runs() == 8);
  CHECK(first.at("y").data.Bytes() == y1);
  CHECK(first.at("z").data.Bytes() == z1);
  CHECK(second.at("y").data.Bytes() != y1);
}

TEST_CASE("simd graph plan: an input also read later is not overwritten") {
  // relu(x0) where x0 = exp(x) is read again by the add after it: relu may not take x0's buffer.
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {33, 17}});
  const Operand x0 = ElementwiseUnary(b, UnaryOp::kExp, x);
  const Operand r = Relu(b, ElementwiseBinary(b, BinaryOp::kSub, x0, x));
  const Operand y = ElementwiseBinary(b, BinaryOp::kAdd, r, x0);
  const auto graph = b.Build({{"y", y}});
  const BackendGraph compiled = Compile(*graph, 2);
  const simd::GraphPlan& plan = PlanOf(compiled);
  CHECK(plan.buffer_count() == 2);      // x0 and sub's output live together
  CHECK(plan.in_place_planned() == 1);  // relu in place of sub's output
  const std::map<std::string, Tensor> inputs = {{"x", Values({33, 17}, 5, 3.0f)}};
  CheckSame(ComputeOnBackend(*graph, compiled, inputs),
            graph->Compute(inputs, {}, compiled.kernels));
}

TEST_CASE("Kernel::ComputeInto: the default computes and copies") {
  // The reference kernels keep the default: the same bits as Compute, into a given tensor.
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {5, 7}});
  const Operand y =
      ElementwiseBinary(b, BinaryOp::kDiv, x, b.Input("d", {DataType::kFloat32, {7}}));
  const auto graph = b.Build({{"y", y}});
  OperandValue xv, dv;
  xv.data = Values({5, 7}, 3, 4.0f);
  dv.data = Values({7}, 4, 1.0f);
  const std::vector<const OperandValue*> in = {&xv, &dv};
  const std::vector<OperandDescriptor> out = {graph->operand(graph->outputs()[0].second).desc};
  const Kernel& kernel = *graph->operators()[0].kernel;
  CHECK(!kernel.Into().direct);
  const Tensor into = Tensor::Allocate(DataType::kFloat32, {5, 7});
  kernel.ComputeInto(in, out, into);
  CHECK(into.Bytes() == kernel.Compute(in, out)[0].data.Bytes());
}

TEST_CASE("simd graph plan: two threads computing one compiled graph at once") {
  const TestGraph t = MakeGraph();
  const BackendGraph compiled = Compile(*t.graph, 1);
  std::vector<std::map<std::string, OperandValue>> expected;
  for (uint64_t seed : {11, 12})
    expected.push_back(t.graph->Compute(t.Inputs(seed), {}, compiled.kernels));
  std::vector<int> mismatches(2, 0);
  auto work = [&](size_t k) {
    const auto inputs = t.Inputs(11 + k);
    for (int round = 0; round < 40; ++round) {
      const auto got = ComputeOnBackend(*t.graph, compiled, inputs);
      for (const auto& [name, v] : got) {
        if (v.data.Bytes() != expected[k].at(name).data.Bytes()) ++mismatches[k];
      }
    }
  };
  std::thread a(work, 0), c(work, 1);
  a.join();
  c.join();
  CHECK(mismatches[0] == 0);
  CHECK(mismatches[1] == 0);
  CHECK(PlanOf(compiled).arenas_made() <= 2);
}

}  // namespace
}  // namespace nnref
