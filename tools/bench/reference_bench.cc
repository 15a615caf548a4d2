// tools/bench: times the reference kernels on the shapes of docs/performance.md, each with 1
// thread and with `--threads N` (default 2), next to the "loop floor": a plain double loop nest
// of the same computation (no error bound, no compensation, one thread), timed in the same run.
// Usage: build/bin/nnref_refbench [--repeat N] [--threads N] [--filter NAME]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "ops/conv2d.h"
#include "ops/elementwise_binary.h"
#include "ops/matmul_gemm.h"
#include "ops/normalization.h"
#include "ops/softmax.h"
#include "ref/parallel/parallel.h"
#include "runner/data.h"

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

using Inputs = std::map<std::string, Tensor>;

struct Bench {
  const char* name;
  double flops;  // floating-point operations of one run (multiply-add = 2)
  std::function<std::shared_ptr<const Graph>(GraphBuilder&)> build;
  std::vector<std::pair<std::string, Shape>> inputs;
  // The loop floor: the same computation as a plain double loop nest (null: none).
  std::function<void(const Inputs&, const Tensor& constant, float* out)> floor;
};

// conv2d float32 1x64x56x56 * 64x64x3x3, padding 1, stride 1 (nchw, oihw): each output element
// is its 576 products summed in plain double in (input channel, y, x) order and rounded once. The
// loop nest runs along output rows innermost (the order of each element's sum unchanged).
void ConvFloor(const Inputs& in, const Tensor& filter, float* out) {
  constexpr int C = 64, H = 56, W = 56, K = 3;
  const float* x = in.at("x").base<float>();
  const float* w = filter.base<float>();
  std::vector<double> acc(H * W);
  for (int oc = 0; oc < C; ++oc) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (int ic = 0; ic < C; ++ic) {
      for (int ky = 0; ky < K; ++ky) {
        for (int kx = 0; kx < K; ++kx) {
          const double wv = w[((oc * C + ic) * K + ky) * K + kx];
          const int y0 = std::max(0, 1 - ky), y1 = std::min(H, H + 1 - ky);
          const int x0 = std::max(0, 1 - kx), x1 = std::min(W, W + 1 - kx);
          for (int y = y0; y < y1; ++y) {
            const float* row = x + (ic * H + y + ky - 1) * W + kx - 1;
            double* a = acc.data() + y * W;
            for (int i = x0; i < x1; ++i) a[i] += static_cast<double>(row[i]) * wv;
          }
        }
      }
    }
    for (int i = 0; i < H * W; ++i) out[oc * H * W + i] = static_cast<float>(acc[i]);
  }
}

// matmul 512^3: a blocked plain double loop (k outside n), each dot in ascending k.
void MatmulFloor(const Inputs& in, const Tensor&, float* out) {
  constexpr int N = 512;
  const float* a = in.at("a").base<float>();
  const float* b = in.at("b").base<float>();
  std::vector<double> dot(N);
  for (int m = 0; m < N; ++m) {
    std::fill(dot.begin(), dot.end(), -0.0);
    for (int k = 0; k < N; ++k) {
      const double av = a[m * N + k];
      const float* b_row = b + k * N;
      for (int n = 0; n < N; ++n) dot[n] += av * static_cast<double>(b_row[n]);
    }
    for (int n = 0; n < N; ++n) out[m * N + n] = static_cast<float>(dot[n]);
  }
}

// add 6000x6000: one pass, widened to double and rounded once.
void AddFloor(const Inputs& in, const Tensor&, float* out) {
  const float* a = in.at("a").base<float>();
  const float* b = in.at("b").base<float>();
  const size_t n = 6000 * 6000;
  for (size_t i = 0; i < n; ++i) {
    out[i] = static_cast<float>(static_cast<double>(a[i]) + static_cast<double>(b[i]));
  }
}

double MinMs(int repeat, const std::function<void()>& fn) {
  double best = 1e300;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return best;
}

}  // namespace
}  // namespace nnref

int main(int argc, char** argv) {
  using namespace nnref;
  int repeat = 3;
  unsigned threads = 2;
  std::string filter;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
      threads = static_cast<unsigned>(std::atoi(argv[++i]));
    }
    if (!std::strcmp(argv[i], "--filter") && i + 1 < argc) filter = argv[++i];
  }
  const OperandDescriptor conv_in{DataType::kFloat32, {1, 64, 56, 56}};
  const Tensor conv_filter = Random({64, 64, 3, 3}, 2);
  const std::vector<Bench> benches = {
      {"conv2d float32 1x64x56x56 * 64x64x3x3 pad 1",
       2.0 * 64 * 56 * 56 * 64 * 9,
       [&](GraphBuilder& b) {
         const Operand x = b.Input("x", conv_in);
         const Operand w = b.Constant({DataType::kFloat32, {64, 64, 3, 3}}, conv_filter);
         MLConv2dOptions o;
         o.padding = std::vector<uint32_t>{1, 1, 1, 1};
         return b.Build({{"y", Conv2d(b, x, w, o)}});
       },
       {{"x", {1, 64, 56, 56}}},
       ConvFloor},
      {"matmul float32 512x512 * 512x512",
       2.0 * 512 * 512 * 512,
       [](GraphBuilder& b) {
         const Operand a = b.Input("a", {DataType::kFloat32, {512, 512}});
         const Operand c = b.Input("b", {DataType::kFloat32, {512, 512}});
         return b.Build({{"y", Matmul(b, a, c)}});
       },
       {{"a", {512, 512}}, {"b", {512, 512}}},
       MatmulFloor},
      {"add float32 6000x6000 + 6000x6000",
       6000.0 * 6000,
       [](GraphBuilder& b) {
         const Operand a = b.Input("a", {DataType::kFloat32, {6000, 6000}});
         const Operand c = b.Input("b", {DataType::kFloat32, {6000, 6000}});
         return b.Build({{"y", ElementwiseBinary(b, BinaryOp::kAdd, a, c)}});
       },
       {{"a", {6000, 6000}}, {"b", {6000, 6000}}},
       AddFloor},
      {"softmax float32 64x1000 axis 1",
       3.0 * 64 * 1000,
       [](GraphBuilder& b) {
         const Operand x = b.Input("x", {DataType::kFloat32, {64, 1000}});
         return b.Build({{"y", Softmax(b, x, 1)}});
       },
       {{"x", {64, 1000}}},
       nullptr},
      {"layerNormalization float32 128x768",
       5.0 * 128 * 768,
       [](GraphBuilder& b) {
         const Operand x = b.Input("x", {DataType::kFloat32, {128, 768}});
         return b.Build({{"y", LayerNormalization(b, x)}});
       },
       {{"x", {128, 768}}},
       nullptr},
  };
  std::printf("%-44s %10s %10s %10s %9s %9s %9s\n", "benchmark (min ms)", "1 thread",
              (std::to_string(threads) + " threads").c_str(), "floor", "1t/floor",
              (std::to_string(threads) + "t/floor").c_str(), "GFLOP/s1");
  for (const Bench& bench : benches) {
    if (!filter.empty() && std::string(bench.name).find(filter) == std::string::npos) continue;
    GraphBuilder builder;
    const auto graph = bench.build(builder);
    Inputs inputs;
    uint64_t seed = 10;
    for (const auto& [name, shape] : bench.inputs) inputs[name] = Random(shape, seed++);
    SetReferenceThreads(1);
    const double one = MinMs(repeat, [&] { (void)graph->Compute(inputs); });
    SetReferenceThreads(threads);
    const double many = MinMs(repeat, [&] { (void)graph->Compute(inputs); });
    double floor_ms = 0;
    if (bench.floor) {
      const Tensor out = Tensor::Allocate(DataType::kFloat32, graph->output_descriptor("y").shape);
      float* o = out.base<float>();
      floor_ms = MinMs(repeat, [&] { bench.floor(inputs, conv_filter, o); });
      // The floor's result is the reference's except where the plain sum rounds differently.
      const Tensor ref = graph->Compute(inputs).at("y").data;
      uint64_t differ = 0;
      for (uint64_t i = 0; i < out.element_count(); ++i) {
        differ += std::memcmp(&o[i], ref.base<float>() + i, sizeof(float)) != 0;
      }
      if (differ)
        std::printf("  (the loop floor differs from the reference in %llu elements)\n",
                    static_cast<unsigned long long>(differ));
    }
    if (floor_ms > 0) {
      std::printf("%-44s %10.2f %10.2f %10.2f %9.2f %9.2f %9.3f\n", bench.name, one, many, floor_ms,
                  one / floor_ms, many / floor_ms, bench.flops / (one * 1e6));
    } else {
      std::printf("%-44s %10.2f %10.2f %10s %9s %9s %9.3f\n", bench.name, one, many, "-", "-", "-",
                  bench.flops / (one * 1e6));
    }
  }
  return 0;
}
