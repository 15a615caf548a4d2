// tools/bench: times the reference's float unary operators (tools/certify/unary_ops.h, default
// options and the option sets) on one thread, float32 and float16, 2^22 elements each, inputs
// uniform in [-8, 8] ([2^-8, 8] for log, sqrt and reciprocal). Prints the minimum of --repeat
// runs in ns per element, by the wall clock and by the thread's CPU time (steadier on a shared
// machine: preemption does not count). A benchmark, never a timed test (docs/performance.md).
// Usage: build/bin/nnref_unarybench [--repeat N] [--filter TEXT] [--count N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "numerics/float16.h"
#include "ref/parallel/parallel.h"
#include "runner/data.h"
#include "tools/certify/unary_ops.h"

int main(int argc, char** argv) {
  using namespace nnref;
  using namespace nnref::certify;
  int repeat = 7;
  uint64_t count = uint64_t{1} << 22;
  std::string filter;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--count") && i + 1 < argc)
      count = std::strtoull(argv[++i], nullptr, 0);
    if (!std::strcmp(argv[i], "--filter") && i + 1 < argc) filter = argv[++i];
  }
  SetReferenceThreads(1);
  std::printf("%-44s %10s %10s %10s %10s\n", "operator (ns/element, min, 1 thread)", "f32 wall",
              "f32 cpu", "f16 wall", "f16 cpu");
  for (const UnaryCase& c : UnaryCases()) {
    if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
    const bool positive = c.fn == Fn::kLog || c.fn == Fn::kSqrt || c.fn == Fn::kReciprocal;
    SplitMix64 rng(42);
    std::vector<float> in32(count), out32(count);
    std::vector<uint16_t> in16(count), out16(count);
    for (uint64_t i = 0; i < count; ++i) {
      const double u = rng.NextUnit();
      const double v = positive ? 0x1p-8 + u * (8 - 0x1p-8) : u * 16 - 8;
      in32[i] = static_cast<float>(v);
      in16[i] = Float16::FromDouble(v).bits;
    }
    double wall[2], cpu[2];
    for (int k = 0; k < 2; ++k) {
      const DataType type = k == 0 ? DataType::kFloat32 : DataType::kFloat16;
      const UnaryRunner runner(c, type, count);
      const void* in = k == 0 ? static_cast<const void*>(in32.data()) : in16.data();
      void* out = k == 0 ? static_cast<void*>(out32.data()) : out16.data();
      runner.Run(in, out);  // warm-up
      double best = 1e300, best_cpu = 1e300;
      for (int r = 0; r < repeat; ++r) {
        timespec c0{}, c1{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
        const auto t0 = std::chrono::steady_clock::now();
        runner.Run(in, out);
        const auto t1 = std::chrono::steady_clock::now();
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
        best = std::min(best, std::chrono::duration<double, std::nano>(t1 - t0).count());
        best_cpu = std::min(best_cpu, static_cast<double>(c1.tv_sec - c0.tv_sec) * 1e9 +
                                          static_cast<double>(c1.tv_nsec - c0.tv_nsec));
      }
      wall[k] = best / static_cast<double>(count);
      cpu[k] = best_cpu / static_cast<double>(count);
    }
    std::printf("%-44s %10.2f %10.2f %10.2f %10.2f\n", c.name.c_str(), wall[0], cpu[0], wall[1],
                cpu[1]);
    std::fflush(stdout);
  }
  return 0;
}
