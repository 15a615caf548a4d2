// A small fixed thread pool for the simd backend. Work is split over independent output blocks
// only (never over the terms of one sum), so results are bit-identical for any thread count.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace nnref::simd {

class ThreadPool {
 public:
  // `threads` = 0: one per core (std::thread::hardware_concurrency()).
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned threads() const { return threads_; }

  // Calls fn(begin, end) on disjoint ranges covering [0, n), each at least `grain` long (the
  // last may be shorter), on up to threads() threads, and returns when all are done. The calling
  // thread takes a share. When another ParallelFor is already running (a second context on the
  // same backend), or from inside a task, the whole range runs on the caller.
  void ParallelFor(size_t n, size_t grain, const std::function<void(size_t, size_t)>& fn);

 private:
  void Worker(unsigned index);

  unsigned threads_;
  std::vector<std::thread> workers_;
  std::mutex busy_;  // held by the caller of a ParallelFor for its whole duration
  std::mutex mu_;
  std::condition_variable start_cv_, done_cv_;
  const std::function<void(size_t, size_t)>* job_ = nullptr;  // mu_
  size_t job_n_ = 0, job_chunk_ = 0;                          // mu_
  unsigned generation_ = 0, pending_ = 0;                     // mu_
  bool stop_ = false;                                         // mu_
};

}  // namespace nnref::simd
