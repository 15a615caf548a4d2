// The reference's worker threads (`nnref run --threads N`). Kernels split their work over
// independent OUTPUT blocks only (never over the terms of one sum), and each output element is
// computed by the same code in the same order whichever block it falls in, so results are
// bit-identical for every thread count.
#pragma once

#include <cstddef>
#include <functional>

namespace nnref {

// How many threads the reference kernels use: 0 = one per core (the default), 1 = none besides
// the caller. Call between computations, not during one.
void SetReferenceThreads(unsigned threads);
// The effective count (at least 1).
unsigned ReferenceThreads();

// Calls fn(begin, end) on disjoint ranges that cover [0, n), each a multiple of `grain` long
// (except the last), on up to ReferenceThreads() threads, and returns when all are done. The
// caller takes a share. A range of a single grain, a nested call from inside a task, or a call
// while another computation holds the threads runs entirely on the caller. The first exception a
// task throws is rethrown here after all tasks finished.
void ParallelFor(size_t n, size_t grain, const std::function<void(size_t, size_t)>& fn);

}  // namespace nnref
