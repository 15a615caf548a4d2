// tools/bench: times whole case files (cases/models) on the reference kernels and on the simd
// backend's kernels (ops/backend.h), with the inputs and weights the cases give; graph building
// and data generation are not timed. Benchmarks are never timed tests.
// Usage: build/bin/nnref_casebench --case FILE [--case FILE ...] [--threads N] [--repeat N]
//        [--filter NAME]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ops/backend.h"
#include "runner/backends.h"
#include "runner/case.h"
#include "runner/execute.h"

namespace nnref {
namespace {

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
  if (case_files.empty()) {
    std::fprintf(stderr, "usage: nnref_casebench --case FILE [--case FILE ...] [--threads N] "
                         "[--repeat N] [--filter NAME]\n");
    return 2;
  }
  try {
    return nnref::BenchCases(case_files, filter, std::max(repeat, 1), threads);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nnref_casebench: %s\n", e.what());
    return 2;
  }
}
