// Placeholder: this family has no kernels yet; its operators are reported as skips
// ("simd: OP: not implemented"), never computed by the reference under the backend's name.
#include "ops/simd/family.h"

namespace nnref::simd {

namespace {
std::optional<std::string> Unsupported(std::string_view, DataType) { return std::nullopt; }
std::shared_ptr<const Kernel> Make(const Graph&, size_t, const Config&, std::string& why) {
  why = "not implemented";
  return nullptr;
}
}  // namespace

const Family kReductionFamily = {Unsupported, Make};

}  // namespace nnref::simd
