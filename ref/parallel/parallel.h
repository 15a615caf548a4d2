// Worker threads for kernels: the reference's process-wide threads (`nnref run --threads N`) and
// the pools a backend owns (the simd backend's `--threads`) are the same class. Kernels split their
// work over independent OUTPUT blocks only (never over the terms of one sum), and each output
// element is computed by the same code in the same order whichever block it falls in, so results
// are bit-identical for every thread count.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace nnref {

class ThreadPool {
 public:
  // `threads` = 0: one per core (std::thread::hardware_concurrency()).
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned threads() const { return threads_; }

  // Calls fn(begin, end) on disjoint ranges that cover [0, n), each a multiple of `grain` long
  // (except the last), on up to threads() threads, and returns when all are done. The caller
  // takes a share, and every share no worker has started by then (a worker that is not yet
  // running does not hold the caller up). A range of a single grain, a call from inside a task (of
  // any pool), or a call while another caller holds this pool runs entirely on the caller. The
  // first exception a task throws is rethrown here after all tasks finished.
  //
  // Waiting: a worker that finished its share spins for a while (kWorkerSpin in parallel.cc)
  // before it sleeps, so the next call (the next operator of a graph, the next pass of a kernel)
  // finds it awake; the caller spins for a while for the shares still running before it sleeps.
  // A sleeping thread's wake-up costs 5-25 us on a virtual machine, as much as a small kernel.
  void ParallelFor(size_t n, size_t grain, const std::function<void(size_t, size_t)>& fn);

 private:
  void Work(unsigned index);

  unsigned threads_;
  std::vector<std::thread> workers_;
  std::mutex busy_;  // held by the caller of a parallel run for its whole duration
  std::mutex mu_;
  std::condition_variable start_, done_;
  const std::function<void(size_t, size_t)>* job_ = nullptr;  // mu_
  size_t n_ = 0, chunk_ = 0;                                  // mu_
  size_t parts_ = 0, next_part_ = 0;  // mu_: parts of the run, the next one to claim
  // Written under mu_; read without it by the spinning threads.
  std::atomic<unsigned> active_{0};      // parts a worker claimed and has not finished
  std::atomic<unsigned> generation_{0};  // one more for each run
  std::atomic<bool> stop_{false};
  // The core the caller of the latest run was on (-1: unknown), so that a worker that finds itself
  // on it moves to another (MoveOffCore in parallel.cc).
  std::atomic<int> caller_core_{-1};
  unsigned sleeping_ = 0;     // mu_: workers waiting on start_
  std::exception_ptr error_;  // mu_
};

// How many threads the reference kernels use: 0 = one per core (the default), 1 = none besides
// the caller. Call between computations, not during one.
void SetReferenceThreads(unsigned threads);
// The effective count (at least 1).
unsigned ReferenceThreads();

// ThreadPool::ParallelFor on the reference's process-wide pool of ReferenceThreads() threads.
void ParallelFor(size_t n, size_t grain, const std::function<void(size_t, size_t)>& fn);

}  // namespace nnref
