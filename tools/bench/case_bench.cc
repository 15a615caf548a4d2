// tools/bench: times whole case files (cases/models) on the reference kernels and on the simd
// backend's kernels (ops/backend.h), with the inputs and weights the cases give; graph building
// and data generation are not timed. Benchmarks are never timed tests.
// Usage: build/bin/nnref_casebench --case FILE [--case FILE ...] [--threads N] [--repeat N]
//        [--filter NAME] [--no-reference] [--backend NAME]... [--device N] [--schedule]
// --backend (repeatable; default simd) names the backends timed beside the reference, each in a
// column pair of its own (runner/backends.h names: simd, vulkan; vulkan:native and vulkan:exact
// choose the arithmetic mode). A backend that computes whole graphs at once (ops/backend.h
// GraphRunner: the vulkan backend's one command buffer, the simd backend's plan of buffers) is
// timed that way, and also one kernel at a time (the per-operator path, "per-op" columns) in the
// same run, alternately, with the ratio of the medians per-op / graph.
// --schedule prints, after each case, how the graph runner runs each operator (vulkan: recorded,
// or alone and why; simd: into which plan buffer, in place, or alone).
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
               unsigned threads, bool reference, std::vector<std::string> backend_names, int device,
               bool schedule) {
  if (backend_names.empty()) backend_names = {"simd"};
  std::vector<std::shared_ptr<const Backend>> backends;
  for (const std::string& name : backend_names) {
    BackendOptions options{threads};
    options.device = device;
    // NAME:native / NAME:exact: the arithmetic mode (the vulkan backend's).
    std::string base = name;
    if (const size_t colon = name.find(':'); colon != std::string::npos) {
      base = name.substr(0, colon);
      const std::string mode = name.substr(colon + 1);
      if (mode != "native" && mode != "exact") {
        std::fprintf(stderr, "nnref_casebench: --backend %s: the mode is native or exact\n",
                     name.c_str());
        return 2;
      }
      options.arithmetic = mode == "native" ? Arithmetic::kNative : Arithmetic::kExact;
    }
    backends.push_back(MakeBackend(base, options));
    if (const auto why = backends.back()->Unavailable()) {
      std::fprintf(stderr, "nnref_casebench: %s cannot run: %s\n", name.c_str(), why->c_str());
      return 2;
    }
    std::printf("%s: %s\n", name.c_str(), backends.back()->Describe().c_str());
  }
  std::printf("%-48s %5s %12s %12s", "case", "ops", "ref min ms", "ref median");
  for (const std::string& name : backend_names) {
    std::printf(" %14s %14s", (name + " min").c_str(), (name + " median").c_str());
    std::printf(" %18s %18s %8s", (name + " per-op min").c_str(), (name + " per-op med").c_str(),
                "speedup");
  }
  std::printf("\n");
  for (const std::string& file : files) {
    const CaseFile cf = LoadCaseFile(file);
    for (const Case& c : cf.cases) {
      if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
      const BuiltCase b = BuildCase(c, RequestedOutputs(c));
      std::printf("%-48s %5zu", c.name.c_str(), b.graph->operators().size());
      if (reference) {
        const auto ref = Time(repeat, [&] { (void)b.graph->Compute(b.input_values); });
        std::printf(" %12.2f %12.2f", ref.first, ref.second);
      } else {
        std::printf(" %12s %12s", "-", "-");
      }
      for (size_t k = 0; k < backends.size(); ++k) {
        std::string why;
        const std::optional<BackendGraph> compiled = CompileForBackend(*b.graph, backends[k], why);
        if (!compiled) {
          std::printf("  (%s: %s)", backend_names[k].c_str(), why.c_str());
          continue;
        }
        if (!compiled->runner) {
          const auto t =
              Time(repeat, [&] { (void)b.graph->Compute(b.input_values, {}, compiled->kernels); });
          std::printf(" %14.2f %14.2f %18s %18s %8s", t.first, t.second, "-", "-", "-");
          continue;
        }
        // The graph path and the per-operator path alternately, so that a change of the machine's
        // load affects both alike, after one untimed run of each (pipelines compiled, buffers
        // made, the graph's constants uploaded).
        (void)ComputeOnBackend(*b.graph, *compiled, b.input_values);
        (void)b.graph->Compute(b.input_values, {}, compiled->kernels);
        std::vector<double> graph_ms, per_op_ms;
        for (int r = 0; r < repeat; ++r) {
          graph_ms.push_back(
              Time(1, [&] { (void)ComputeOnBackend(*b.graph, *compiled, b.input_values); }).first);
          per_op_ms.push_back(Time(1, [&] {
                                (void)b.graph->Compute(b.input_values, {}, compiled->kernels);
                              }).first);
        }
        std::sort(graph_ms.begin(), graph_ms.end());
        std::sort(per_op_ms.begin(), per_op_ms.end());
        const double graph_median = graph_ms[graph_ms.size() / 2];
        const double per_op_median = per_op_ms[per_op_ms.size() / 2];
        std::printf(" %14.2f %14.2f %18.2f %18.2f %7.2fx", graph_ms.front(), graph_median,
                    per_op_ms.front(), per_op_median, per_op_median / graph_median);
      }
      std::printf("\n");
      if (schedule) {
        for (size_t k = 0; k < backends.size(); ++k) {
          std::string why;
          const std::optional<BackendGraph> compiled =
              CompileForBackend(*b.graph, backends[k], why);
          if (!compiled || !compiled->runner) continue;
          for (const std::string& line : compiled->runner->Schedule()) {
            std::printf("  %s: %s\n", backend_names[k].c_str(), line.c_str());
          }
        }
      }
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace
}  // namespace nnref

int main(int argc, char** argv) {
  int repeat = 3;
  unsigned threads = 0;
  int device = -1;
  bool reference = true, schedule = false;
  std::string filter;
  std::vector<std::string> case_files, backends;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--repeat") && has_value) {
      repeat = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--filter") && has_value) {
      filter = argv[++i];
    } else if (!std::strcmp(argv[i], "--case") && has_value) {
      case_files.push_back(argv[++i]);
    } else if (!std::strcmp(argv[i], "--backend") && has_value) {
      backends.push_back(argv[++i]);
    } else if (!std::strcmp(argv[i], "--device") && has_value) {
      device = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--threads") && has_value) {
      threads = static_cast<unsigned>(std::atoi(argv[++i]));
    } else if (!std::strcmp(argv[i], "--no-reference")) {
      reference = false;
    } else if (!std::strcmp(argv[i], "--schedule")) {
      schedule = true;
    } else {
      case_files.clear();
      break;
    }
  }
  if (case_files.empty()) {
    std::fprintf(
        stderr,
        "usage: nnref_casebench --case FILE [--case FILE ...] [--threads N] [--repeat N] "
        "[--filter NAME] [--no-reference] [--backend NAME]... [--device N] [--schedule]\n");
    return 2;
  }
  try {
    return nnref::BenchCases(case_files, filter, std::max(repeat, 1), threads, reference, backends,
                             device, schedule);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nnref_casebench: %s\n", e.what());
    return 2;
  }
}
