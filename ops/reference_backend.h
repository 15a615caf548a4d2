// The "reference" backend: the kernel set of ops/ itself, registered through the backend list
// (ops/backend.h, BackendRegistration) beside simd and vulkan, as an optimized library's
// reference kernels sit beside its fast ones. Its kernels are the nodes' own: the kernel the
// builder attached to each OperatorNode (ref/graph/graph.h), so computing a graph on this backend
// is computing it with no backend at all.
#pragma once

#include <memory>

#include "ops/backend.h"

namespace nnref {

std::shared_ptr<const Backend> MakeReferenceBackend(const BackendOptions& options = {});

// The registration the runner's backend list holds (NNREF_BACKEND_DIRS: "ops").
const BackendRegistration& ReferenceBackendRegistration();

}  // namespace nnref
