#include "ref/parallel/parallel.h"

#include <algorithm>
#include <chrono>
#include <memory>

#if defined(__linux__)
#include <sched.h>
#endif

namespace nnref {

namespace {

// Set while the thread runs a task of any pool: nested calls run on the caller.
thread_local bool in_task = false;

// How long a worker that finished its share spins for the next run before it sleeps, and how long
// the caller spins for the shares still running. A futex wake-up of a sleeping thread took 15-25
// us on the 2-core virtual machine of docs/performance.md ("Two threads": the second thread's
// share of a 1 ms conv2d started that late, and the caller woke that late after it), and a
// kernel runs several short parallel passes (pad, product, copy) and a graph many operators
// back to back. The spin bounds the CPU time a pool takes from other processes when idle.
constexpr std::chrono::microseconds kWorkerSpin{300};
constexpr std::chrono::microseconds kCallerSpin{200};

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Spins until done() or `budget` passed; returns done(). After the first few microseconds it
// yields the core between checks, so that on a loaded machine a thread that shares the core (the
// pool's other thread, or another process) is not held up by the spinning one.
template <class Done>
bool SpinUntil(const Done& done, std::chrono::microseconds budget) {
  const auto start = std::chrono::steady_clock::now();
  const auto yield_from = start + std::chrono::microseconds(20), deadline = start + budget;
  bool yielding = false;
  for (unsigned i = 1;; ++i) {
    if (done()) return true;
    if (yielding) {
      std::this_thread::yield();
    } else {
      CpuRelax();
    }
    if (i % 32 == 0) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline) return done();
      yielding = now >= yield_from;
    }
  }
}

// The core the calling thread runs on, or -1 where that is unknown.
int CurrentCore() {
#if defined(__linux__)
  return sched_getcpu();
#else
  return -1;
#endif
}

// Moves the calling thread off `core` when it is on it and its affinity allows another core:
// the core is taken out of the affinity mask (the kernel migrates the thread at once) and the
// mask is restored. A worker queued on the caller's core waits for the caller's time slice to
// end (3-4 ms) while the other core idles: on the 2-vCPU virtual machine of docs/performance.md a
// new worker was placed there on 1 process start in 3, and the scheduler took up to 25 ms to move
// it, so that the first benchmark of a process ran on one core ("Issue 25: the worker on the
// caller's core"). Once on another core, the worker's wake-ups keep it there.
void MoveOffCore(int core) {
#if defined(__linux__)
  if (core < 0 || CurrentCore() != core) return;
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof mask, &mask) != 0 || CPU_COUNT(&mask) < 2 ||
      !CPU_ISSET(core, &mask)) {
    return;
  }
  cpu_set_t others = mask;
  CPU_CLR(core, &others);
  if (sched_setaffinity(0, sizeof others, &others) == 0) sched_setaffinity(0, sizeof mask, &mask);
#else
  (void)core;
#endif
}

unsigned Resolve(unsigned threads) {
  return threads ? threads : std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace

ThreadPool::ThreadPool(unsigned threads) : threads_(Resolve(threads)) {
  caller_core_ = CurrentCore();
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

// The parts of a run are claimed one at a time, under mu_, by the caller and by the workers
// alike, and the caller waits only for the parts a worker has claimed and not finished. A worker
// that wakes late (on a loaded machine, one whose core is busy with another process) finds every
// part taken and goes back to sleep: the caller never waits for a thread to be scheduled, only
// for work in progress. Which thread computes a part never changes its bits.
void ThreadPool::Work(unsigned) {
  unsigned seen = 0;
  MoveOffCore(caller_core_);  // the creating thread's core
  std::unique_lock lock(mu_);
  for (;;) {
    if (!stop_ && generation_ == seen) {
      lock.unlock();
      SpinUntil([&] { return stop_ || generation_ != seen; }, kWorkerSpin);
      lock.lock();
    }
    ++sleeping_;
    start_.wait(lock, [&] { return stop_ || generation_ != seen; });
    --sleeping_;
    if (stop_) return;
    seen = generation_;
    if (CurrentCore() == caller_core_) {
      lock.unlock();
      MoveOffCore(caller_core_);
      lock.lock();
    }
    while (job_ != nullptr && generation_ == seen && next_part_ < parts_) {
      const std::function<void(size_t, size_t)>* job = job_;
      const size_t begin = std::min(n_, next_part_ * chunk_);
      const size_t end = std::min(n_, begin + chunk_);
      ++next_part_;
      ++active_;
      lock.unlock();
      std::exception_ptr error;
      in_task = true;
      try {
        if (begin < end) (*job)(begin, end);
      } catch (...) {
        error = std::current_exception();
      }
      in_task = false;
      lock.lock();
      if (error && !error_) error_ = error;
      if (--active_ == 0) done_.notify_all();
    }
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
  // Part p covers [p * chunk, (p + 1) * chunk) clipped to n; the caller and the workers claim
  // them in order.
  const size_t parts = std::min<size_t>(threads_, blocks);
  const size_t chunk = ((blocks + parts - 1) / parts) * grain;
  std::unique_lock lock(mu_);
  job_ = &fn;
  n_ = n;
  chunk_ = chunk;
  parts_ = parts;
  next_part_ = 0;
  error_ = nullptr;
  caller_core_ = CurrentCore();
  ++generation_;
  if (sleeping_ > 0) {
    start_.notify_all();
    // A woken worker may have been queued on this core (MoveOffCore): give it the core for a
    // moment, so that it moves to another now rather than after this thread's time slice.
    lock.unlock();
    std::this_thread::yield();
    lock.lock();
  }
  std::exception_ptr mine;
  while (next_part_ < parts_) {
    const size_t begin = std::min(n, next_part_ * chunk);
    const size_t end = std::min(n, begin + chunk);
    ++next_part_;
    lock.unlock();
    in_task = true;
    try {
      if (begin < end) fn(begin, end);
    } catch (...) {
      if (!mine) mine = std::current_exception();
    }
    in_task = false;
    lock.lock();
  }
  if (active_ != 0) {
    lock.unlock();
    SpinUntil([&] { return active_ == 0; }, kCallerSpin);
    lock.lock();
    done_.wait(lock, [&] { return active_ == 0; });
  }
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
  std::shared_ptr<ThreadPool> p =
      n > std::max<size_t>(grain, 1) && !in_task ? CurrentPool() : nullptr;
  if (!p) {
    fn(0, n);
    return;
  }
  p->ParallelFor(n, grain, fn);
}

}  // namespace nnref
