#include "ops/simd/thread_pool.h"

#include <algorithm>

namespace nnref::simd {

namespace {
thread_local bool in_pool_task = false;
}

ThreadPool::ThreadPool(unsigned threads)
    : threads_(threads ? threads : std::max(1u, std::thread::hardware_concurrency())) {
  for (unsigned i = 1; i < threads_; ++i) workers_.emplace_back([this, i] { Worker(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  start_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::Worker(unsigned index) {
  unsigned seen = 0;
  for (;;) {
    const std::function<void(size_t, size_t)>* job;
    size_t begin, end;
    {
      std::unique_lock lock(mu_);
      start_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      job = job_;
      begin = std::min(job_n_, index * job_chunk_);
      end = std::min(job_n_, begin + job_chunk_);
    }
    if (begin < end) {
      in_pool_task = true;
      (*job)(begin, end);
      in_pool_task = false;
    }
    {
      std::lock_guard lock(mu_);
      if (--pending_ == 0) done_cv_.notify_all();
    }
  }
}

void ThreadPool::ParallelFor(size_t n, size_t grain,
                             const std::function<void(size_t, size_t)>& fn) {
  if (n == 0) return;
  grain = std::max<size_t>(grain, 1);
  const size_t blocks = (n + grain - 1) / grain;
  std::unique_lock busy(busy_, std::try_to_lock);
  if (threads_ == 1 || blocks == 1 || in_pool_task || !busy.owns_lock()) {
    fn(0, n);
    return;
  }
  const size_t parts = std::min<size_t>(threads_, blocks);
  const size_t chunk = ((blocks + parts - 1) / parts) * grain;
  {
    std::lock_guard lock(mu_);
    job_ = &fn;
    job_n_ = n;
    job_chunk_ = chunk;
    pending_ = threads_ - 1;
    ++generation_;
  }
  start_cv_.notify_all();
  in_pool_task = true;
  fn(0, std::min(n, chunk));
  in_pool_task = false;
  std::unique_lock lock(mu_);
  done_cv_.wait(lock, [&] { return pending_ == 0; });
  job_ = nullptr;
}

}  // namespace nnref::simd
