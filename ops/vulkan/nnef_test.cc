// The vulkan backend's NNEF operator group (nnef.cc, shaders/nnef.comp) on the first Vulkan
// device with the validation layer on: the hand-derived cases of ops/nnef_backend_cases.h, and
// the reasons it gives.
#include <cstdlib>

#include "ops/nnef_backend_cases.h"
#include "ops/vulkan/vulkan_backend.h"

namespace nnref {

std::shared_ptr<const Backend> BackendUnderTest(unsigned) {
  static const std::shared_ptr<const Backend> backend = [] {
    setenv("NNREF_VULKAN_VALIDATION", "1", 1);
    return MakeVulkanBackend();
  }();
  return backend;
}

TEST_CASE("vulkan nnef: other data types are stated skips") {
  const auto backend = BackendUnderTest(1);
  CHECK(backend->Unsupported(OpId::nnef_argmax_pool, DataType::kInt64) ==
        std::string("int64 not supported"));
  CHECK_FALSE(backend->Unsupported(OpId::nnef_conv, DataType::kFloat32).has_value());
  CHECK_FALSE(backend->Unsupported(OpId::nnef_all_reduce, DataType::kUint8).has_value());
  // quantize runs in double arithmetic: a kernel, or the device's lack of shaderFloat64.
  const std::optional<std::string> q =
      backend->Unsupported(OpId::nnef_quantize, DataType::kFloat32);
  CHECK((!q.has_value() || q->find("shaderFloat64") != std::string::npos));
}

}  // namespace nnref
