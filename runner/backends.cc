#include "runner/backends.h"

#include "ops/simd/simd_backend.h"
#include "ops/vulkan/vulkan_backend.h"
#include "ref/error.h"

namespace nnref {

std::vector<std::string> BackendNames() { return {"reference", "simd", "vulkan"}; }

std::shared_ptr<const Backend> MakeBackend(const std::string& name, const BackendOptions& options) {
  if (name == "simd") return MakeSimdBackend(options);
  if (name == "vulkan") return MakeVulkanBackend(options);
  std::string names;
  for (const std::string& n : BackendNames()) names += (names.empty() ? "" : ", ") + n;
  throw InputError("--backend " + name + ": no such backend (choose one of: " + names + ")");
}

}  // namespace nnref
