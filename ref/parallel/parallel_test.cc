// ThreadPool and the reference's ParallelFor: coverage of [0, n) by disjoint grain-aligned
// ranges, single-grain and nested calls on the caller, and exceptions carried to the caller.
#include "ref/parallel/parallel.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

namespace nnref {
namespace {

// The ranges of one ParallelFor, in the order they were recorded (under a mutex).
std::vector<std::pair<size_t, size_t>> Ranges(ThreadPool& pool, size_t n, size_t grain) {
  std::mutex mu;
  std::vector<std::pair<size_t, size_t>> ranges;
  pool.ParallelFor(n, grain, [&](size_t begin, size_t end) {
    std::lock_guard lock(mu);
    ranges.emplace_back(begin, end);
  });
  std::sort(ranges.begin(), ranges.end());
  return ranges;
}

TEST_CASE("ThreadPool: disjoint grain-aligned ranges cover [0, n)") {
  ThreadPool pool(3);
  CHECK(pool.threads() == 3);
  for (size_t n : {1u, 2u, 7u, 64u, 1000u, 1001u}) {
    for (size_t grain : {1u, 4u, 16u}) {
      const auto ranges = Ranges(pool, n, grain);
      REQUIRE(!ranges.empty());
      CHECK(ranges.size() <= 3);
      size_t next = 0;
      for (const auto& [begin, end] : ranges) {
        CHECK(begin == next);
        CHECK(begin < end);
        CHECK(begin % grain == 0);
        if (end != n) CHECK(end % grain == 0);
        next = end;
      }
      CHECK(next == n);
      // More than one grain on three threads: split (at most three parts).
      if ((n + grain - 1) / grain > 1) CHECK(ranges.size() > 1);
    }
  }
  CHECK(Ranges(pool, 0, 4).empty());
}

TEST_CASE("ThreadPool: one thread, one grain and nested calls run on the caller") {
  ThreadPool one(1);
  CHECK(Ranges(one, 100, 1) == std::vector<std::pair<size_t, size_t>>{{0, 100}});
  ThreadPool pool(2);
  CHECK(Ranges(pool, 5, 8) == std::vector<std::pair<size_t, size_t>>{{0, 5}});
  std::atomic<int> inner_calls{0};
  const std::thread::id outer = std::this_thread::get_id();
  pool.ParallelFor(2, 1, [&](size_t, size_t) {
    const std::thread::id self = std::this_thread::get_id();
    // From inside a task, of this pool or another, the whole range runs on the task's thread.
    ThreadPool other(2);
    for (ThreadPool* p : {&pool, &other}) {
      p->ParallelFor(10, 1, [&](size_t begin, size_t end) {
        CHECK(std::this_thread::get_id() == self);
        CHECK(begin == 0);
        CHECK(end == 10);
        ++inner_calls;
      });
    }
    ParallelFor(10, 1, [&](size_t begin, size_t end) {
      CHECK(std::this_thread::get_id() == self);
      CHECK(end - begin == 10);
      ++inner_calls;
    });
  });
  CHECK(inner_calls == 6);
  (void)outer;
}

TEST_CASE("ThreadPool: the first exception of a task reaches the caller after all finished") {
  ThreadPool pool(2);
  std::atomic<int> finished{0};
  auto run = [&] {
    pool.ParallelFor(2, 1, [&](size_t begin, size_t) {
      if (begin == 1) throw std::runtime_error("worker task failed");
      ++finished;
    });
  };
  CHECK_THROWS_WITH_AS(run(), "worker task failed", std::runtime_error);
  CHECK(finished == 1);
  // The pool still works afterwards.
  CHECK(Ranges(pool, 4, 1).size() == 2);
}

TEST_CASE("reference threads: SetReferenceThreads sets the process-wide count") {
  SetReferenceThreads(2);
  CHECK(ReferenceThreads() == 2);
  std::set<std::thread::id> ids;
  std::mutex mu;
  std::atomic<size_t> covered{0};
  ParallelFor(1000, 10, [&](size_t begin, size_t end) {
    covered += end - begin;
    std::lock_guard lock(mu);
    ids.insert(std::this_thread::get_id());
  });
  CHECK(covered == 1000);
  CHECK(ids.size() <= 2);
  SetReferenceThreads(1);
  CHECK(ReferenceThreads() == 1);
  ids.clear();
  ParallelFor(1000, 10, [&](size_t, size_t) { ids.insert(std::this_thread::get_id()); });
  CHECK(ids == std::set<std::thread::id>{std::this_thread::get_id()});
  SetReferenceThreads(0);
  CHECK(ReferenceThreads() >= 1);
}

}  // namespace
}  // namespace nnref
