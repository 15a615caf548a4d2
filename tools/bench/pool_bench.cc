// nnref_poolbench: where the thread pool's worker runs (ref/parallel/parallel.h). The process
// creates a 2-thread pool, keeps its thread busy for 20 ms (as a benchmark's 1-thread phase
// does), then makes 60 runs of two 450 us parts back to back and prints one character per run:
// `W` the worker computed a part on another core, `s` it computed one on the caller's core, `.`
// it computed none (the caller did both). On a 2-core machine with nothing else running a line
// of `W` is what a pool should give; docs/performance.md ("the worker on the caller's core")
// has the lines of before and after MoveOffCore.
//
// usage: for i in $(seq 10); do nnref_poolbench; done   (exit 1 when a run was not `W`)
#include <sched.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "ref/parallel/parallel.h"

namespace {

void Busy(std::chrono::microseconds d) {
  const auto end = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < end) {
  }
}

}  // namespace

int main(int argc, char**) {
  if (argc != 1) {
    std::fprintf(stderr, "usage: nnref_poolbench (one fresh pool per process: run it in a loop)\n");
    return 2;
  }
  nnref::ThreadPool pool(2);
  const std::thread::id caller = std::this_thread::get_id();
  Busy(std::chrono::milliseconds(20));
  std::string line;
  for (int run = 0; run < 60; ++run) {
    const int caller_core = sched_getcpu();
    int worker_core = -1;
    pool.ParallelFor(2, 1, [&](size_t, size_t) {
      if (std::this_thread::get_id() != caller) worker_core = sched_getcpu();
      Busy(std::chrono::microseconds(450));
    });
    line += worker_core < 0 ? '.' : worker_core == caller_core ? 's' : 'W';
  }
  std::printf("%s\n", line.c_str());
  return line.find_first_not_of('W') == std::string::npos ? 0 : 1;
}
