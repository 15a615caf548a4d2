// The "simd" backend: Highway kernels with run-time dispatch to the best SIMD target of the CPU,
// computing as a fast production backend does (float32 arithmetic, float16 stored as float16 and
// computed in float32, FMA, reassociated sums, blocked GEMM). It is not correctly rounded; its
// results are judged by the tolerances (docs/architecture.md#backends).
#pragma once

#include <memory>

#include "ops/backend.h"

namespace nnref {

// A simd backend with its own thread pool of `options.threads` threads (0: every core).
std::shared_ptr<const Backend> MakeSimdBackend(const BackendOptions& options = {});

// The registration the runner's backend list holds (NNREF_BACKEND_DIRS: "ops/simd").
const BackendRegistration& SimdBackendRegistration();

namespace simd {
// The name of the Highway target the dispatcher picks on this CPU ("AVX3", "AVX2", ...).
const char* ChosenTargetName();
}  // namespace simd

}  // namespace nnref
