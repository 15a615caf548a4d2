// tools/bench: times the reference kernels on the shapes of docs/performance.md. The reference is
// a plain loop nest by design; these figures are a baseline for the fast paths, not a target the
// reference is tuned for. Usage: build/bin/nnref_bench [--repeat N] [--filter NAME]
//
// Case mode: build/bin/nnref_bench --case FILE [--case FILE ...] [--threads N] [--repeat N]
// [--filter NAME] builds every case of the files (cases/models) and times Graph::Compute on the
// reference kernels and on the simd backend's kernels (ops/backend.h), the inputs and weights as
// the case gives them; graph building and data generation are not timed.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ops/backend.h"
#include "ops/conv2d.h"
#include "ops/matmul_gemm.h"
#include "ops/normalization.h"
#include "ops/softmax.h"
#include "runner/backends.h"
#include "runner/case.h"
#include "runner/data.h"
#include "runner/execute.h"

namespace nnref {
namespace {

Tensor Random(const Shape& shape, uint64_t seed) {
  Tensor t = Tensor::Allocate(DataType::kFloat32, shape);
  SplitMix64 rng(seed);
  float* p = t.base<float>();
  for (uint64_t i = 0; i < t.element_count(); ++i) {
    p[i] = static_cast<float>(rng.NextUnit() * 2.0 - 1.0);
  }
  return t;
}

struct Bench {
  const char* name;
  double flops;  // floating-point operations of one run (multiply-add = 2)
  std::function<std::shared_ptr<const Graph>(GraphBuilder&)> build;
  std::vector<std::pair<std::string, Shape>> inputs;
};

// Minimum and median of `repeat` timed calls of `fn`, in milliseconds.
std::pair<double, double> Time(int repeat, const std::function<void()>& fn) {
  std::vector<double> ms;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    const auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return {ms.front(), ms[ms.size() / 2]};
}

int BenchCases(const std::vector<std::string>& files, const std::string& filter, int repeat,
               unsigned threads) {
  const std::shared_ptr<const Backend> simd = MakeBackend("simd", BackendOptions{threads});
  std::printf("simd: %s\n", simd->Describe().c_str());
  std::printf("%-48s %5s %12s %12s %12s %12s\n", "case", "ops", "ref min ms", "ref median",
              "simd min ms", "simd median");
  for (const std::string& file : files) {
    const CaseFile cf = LoadCaseFile(file);
    for (const Case& c : cf.cases) {
      if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
      const BuiltCase b = BuildCase(c, RequestedOutputs(c));
      std::string why;
      const std::optional<BackendGraph> compiled = CompileForBackend(*b.graph, simd, why);
      const auto ref = Time(repeat, [&] { (void)b.graph->Compute(b.input_values); });
      std::printf("%-48s %5zu %12.2f %12.2f", c.name.c_str(), b.graph->operators().size(),
                  ref.first, ref.second);
      if (compiled) {
        const auto fast =
            Time(repeat, [&] { (void)b.graph->Compute(b.input_values, {}, compiled->kernels); });
        std::printf(" %12.2f %12.2f\n", fast.first, fast.second);
      } else {
        std::printf("  (simd: %s)\n", why.c_str());
      }
    }
  }
  return 0;
}

}  // namespace
}  // namespace nnref

int main(int argc, char** argv) {
  using namespace nnref;
  int repeat = 3;
  unsigned threads = 0;
  std::string filter;
  std::vector<std::string> case_files;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--filter") && i + 1 < argc) filter = argv[++i];
    if (!std::strcmp(argv[i], "--case") && i + 1 < argc) case_files.push_back(argv[++i]);
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
      threads = static_cast<unsigned>(std::atoi(argv[++i]));
    }
  }
  if (repeat < 1) repeat = 1;
  if (!case_files.empty()) return BenchCases(case_files, filter, repeat, threads);
  const OperandDescriptor conv_in{DataType::kFloat32, {1, 64, 56, 56}};
  const std::vector<Bench> benches = {
      {"conv2d float32 1x64x56x56 * 64x64x3x3 pad 1",
       2.0 * 64 * 56 * 56 * 64 * 9,
       [&](GraphBuilder& b) {
         const Operand x = b.Input("x", conv_in);
         const Operand w =
             b.Constant({DataType::kFloat32, {64, 64, 3, 3}}, Random({64, 64, 3, 3}, 2));
         MLConv2dOptions o;
         o.padding = std::vector<uint32_t>{1, 1, 1, 1};
         return b.Build({{"y", Conv2d(b, x, w, o)}});
       },
       {{"x", {1, 64, 56, 56}}}},
      {"matmul float32 512x512 * 512x512",
       2.0 * 512 * 512 * 512,
       [](GraphBuilder& b) {
         const Operand a = b.Input("a", {DataType::kFloat32, {512, 512}});
         const Operand c = b.Input("b", {DataType::kFloat32, {512, 512}});
         return b.Build({{"y", Matmul(b, a, c)}});
       },
       {{"a", {512, 512}}, {"b", {512, 512}}}},
      {"softmax float32 64x1000 axis 1",
       3.0 * 64 * 1000,
       [](GraphBuilder& b) {
         const Operand x = b.Input("x", {DataType::kFloat32, {64, 1000}});
         return b.Build({{"y", Softmax(b, x, 1)}});
       },
       {{"x", {64, 1000}}}},
      {"layerNormalization float32 128x768",
       5.0 * 128 * 768,
       [](GraphBuilder& b) {
         const Operand x = b.Input("x", {DataType::kFloat32, {128, 768}});
         return b.Build({{"y", LayerNormalization(b, x)}});
       },
       {{"x", {128, 768}}}},
  };
  std::printf("%-48s %12s %12s %10s\n", "benchmark", "min ms", "median ms", "GFLOP/s");
  for (const Bench& bench : benches) {
    if (!filter.empty() && std::string(bench.name).find(filter) == std::string::npos) continue;
    GraphBuilder builder;
    const auto graph = bench.build(builder);
    std::map<std::string, Tensor> inputs;
    uint64_t seed = 10;
    for (const auto& [name, shape] : bench.inputs) inputs[name] = Random(shape, seed++);
    std::vector<double> ms;
    for (int r = 0; r < repeat; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      const auto out = graph->Compute(inputs);
      const auto t1 = std::chrono::steady_clock::now();
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    const double median = ms[ms.size() / 2];
    std::printf("%-48s %12.2f %12.2f %10.3f\n", bench.name, ms.front(), median,
                bench.flops / (ms.front() * 1e6));
  }
  return 0;
}
