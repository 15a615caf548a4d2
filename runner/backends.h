// The backends the runner can select by name (`--backend NAME`, `nnref ops --backend NAME`,
// `nnref devices`): the registrations of the folders named in NNREF_BACKEND_DIRS of the top
// CMakeLists.txt, in its order ("reference", "simd", "vulkan"), collected at build time into
// backend_list.cc (generated from runner/backend_list.cc.in).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ops/backend.h"

namespace nnref {

// Every registered backend, the reference's first.
const std::vector<const BackendRegistration*>& RegisteredBackends();
std::vector<std::string> BackendNames();
// "reference (default), simd or vulkan": the names for a help text.
std::string BackendChoices(std::string_view default_name);
// The backend called `name`, or an InputError listing the names. The runner computes
// "reference" with the nodes' own kernels and asks for a Backend object only for the others.
std::shared_ptr<const Backend> MakeBackend(const std::string& name, const BackendOptions& options);

}  // namespace nnref
