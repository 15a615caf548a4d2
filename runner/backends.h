// The backends the runner can select by name (`--backend NAME`, `nnref ops --backend NAME`).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ops/backend.h"

namespace nnref {

// "reference" is the node kernels themselves and has no Backend object.
std::vector<std::string> BackendNames();
// The backend called `name`, or an InputError listing the names.
std::shared_ptr<const Backend> MakeBackend(const std::string& name, const BackendOptions& options);

}  // namespace nnref
