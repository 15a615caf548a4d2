#include "ref/parallel/parallel.h"

#include <algorithm>
#include <memory>

namespace nnref {

namespace {

// Set while the thread runs a task of any pool: nested calls run on the caller.
thread_local bool in_task = false;

unsigned Resolve(unsigned threads) {
  return threads ? threads : std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace

ThreadPool::ThreadPool(unsigned threads) : threads_(Resolve(threads)) {
  for (unsigned i = 1; i < threads_; ++i) workers_.emplace_back([this, i] { Work(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  start_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::Work(unsigned index) {
  unsigned seen = 0;
  for (;;) {
    const std::function<void(size_t, size_t)>* job;
    size_t begin, end;
    {
      std::unique_lock lock(mu_);
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      job = job_;
      begin = std::min(n_, index * chunk_);
      end = std::min(n_, begin + chunk_);
    }
    std::exception_ptr error;
    if (begin < end) {
      in_task = true;
      try {
        (*job)(begin, end);
      } catch (...) {
        error = std::current_exception();
      }
      in_task = false;
    }
    std::lock_guard lock(mu_);
    if (error && !error_) error_ = error;
    if (--pending_ == 0) done_.notify_all();
  }
}

void ThreadPool::ParallelFor(size_t n, size_t grain,
                             const std::function<void(size_t, size_t)>& fn) {
  if (n == 0) return;
  grain = std::max<size_t>(grain, 1);
  const size_t blocks = (n + grain - 1) / grain;
  if (threads_ == 1 || blocks == 1 || in_task) {
    fn(0, n);
    return;
  }
  std::unique_lock busy(busy_, std::try_to_lock);
  if (!busy.owns_lock()) {
    fn(0, n);
    return;
  }
  // Part 0 on the caller, parts 1.. on the workers; part p covers [p * chunk, (p + 1) * chunk)
  // clipped to n.
  const size_t parts = std::min<size_t>(threads_, blocks);
  const size_t chunk = ((blocks + parts - 1) / parts) * grain;
  {
    std::lock_guard lock(mu_);
    job_ = &fn;
    n_ = n;
    chunk_ = chunk;
    pending_ = threads_ - 1;
    error_ = nullptr;
    ++generation_;
  }
  start_.notify_all();
  std::exception_ptr mine;
  in_task = true;
  try {
    fn(0, std::min(n, chunk));
  } catch (...) {
    mine = std::current_exception();
  }
  in_task = false;
  std::unique_lock lock(mu_);
  done_.wait(lock, [&] { return pending_ == 0; });
  job_ = nullptr;
  if (!mine) mine = error_;
  if (mine) std::rethrow_exception(mine);
}

namespace {

std::mutex config_mu;
unsigned requested = 0;            // config_mu
std::shared_ptr<ThreadPool> pool;  // config_mu; created on first use

std::shared_ptr<ThreadPool> CurrentPool() {
  std::lock_guard lock(config_mu);
  const unsigned want = Resolve(requested);
  if (want <= 1) return nullptr;
  if (!pool || pool->threads() != want) pool = std::make_shared<ThreadPool>(want);
  return pool;
}

}  // namespace

void SetReferenceThreads(unsigned threads) {
  std::lock_guard lock(config_mu);
  requested = threads;
}

unsigned ReferenceThreads() {
  std::lock_guard lock(config_mu);
  return Resolve(requested);
}

void ParallelFor(size_t n, size_t grain, const std::function<void(size_t, size_t)>& fn) {
  if (n == 0) return;
  std::shared_ptr<ThreadPool> p = n > std::max<size_t>(grain, 1) && !in_task ? CurrentPool()
                                                                             : nullptr;
  if (!p) {
    fn(0, n);
    return;
  }
  p->ParallelFor(n, grain, fn);
}

}  // namespace nnref
