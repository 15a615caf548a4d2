// nnref ops: the operators and their data types (opSupportLimits), or what a backend covers.
#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ops/registry.h"
#include "ops/support_limits.h"
#include "ref/value.h"
#include "runner/api_case.h"
#include "runner/backends.h"
#include "runner/commands.h"
#include "runner/json.h"

namespace nnref {

namespace {

// `nnref ops --backend NAME`: per operator, the data types of its first operand the backend
// computes and, for the others, why not.
int BackendOps(bool json, const std::string& name) {
  const std::shared_ptr<const Backend> backend = MakeBackend(name, BackendOptions{1});
  std::vector<Value> rows;
  size_t covered_ops = 0;
  for (const OpInfo& op : Registry()) {
    const TensorLimits& first = op.limits->operands.at(0);
    const DataTypeSet types =
        first.same_as.empty() ? first.types : op.limits->Find(first.same_as)->types;
    std::vector<Value> yes;
    std::vector<std::pair<std::string, Value>> no;
    std::string yes_text;
    std::vector<std::pair<std::string, std::string>> reasons;  // reason -> its data types
    for (DataType t : types.List()) {
      const std::string type_name(DataTypeName(t));
      const std::optional<std::string> why = backend->Unsupported(op.id, t);
      if (!why) {
        yes.push_back(Value::Str(type_name));
        yes_text += (yes_text.empty() ? "" : ", ") + type_name;
        continue;
      }
      no.emplace_back(type_name, Value::Str(*why));
      auto it = std::find_if(reasons.begin(), reasons.end(),
                             [&](const auto& r) { return r.first == *why; });
      if (it == reasons.end()) {
        reasons.emplace_back(*why, type_name);
      } else {
        it->second += ", " + type_name;
      }
    }
    std::string no_text;
    for (const auto& [why, names] : reasons) {
      no_text += (no_text.empty() ? "" : "; ") + why + ": " + names;
    }
    if (!yes.empty()) ++covered_ops;
    if (json) {
      rows.push_back(Value::Object({{"op", Value::Str(std::string(op.name))},
                                    {"dataTypes", Value::Array(std::move(yes))},
                                    {"unsupported", Value::Object(std::move(no))}}));
    } else {
      std::cout << op.name << ": " << (yes_text.empty() ? "-" : yes_text);
      if (!no_text.empty()) std::cout << "  (" << no_text << ")";
      std::cout << "\n";
    }
  }
  if (json) {
    std::cout << WriteJson(Value::Object({{"backend", Value::Str(name)},
                                          {"describe", Value::Str(backend->Describe())},
                                          {"gpuInterop", Value::Str(backend->GpuInterop())},
                                          {"operators", Value::Array(std::move(rows))}}))
              << "\n";
  } else {
    const std::string interop = backend->GpuInterop();
    std::cout << "GPU interop (importableToWebGPU): "
              << (interop.empty() ? "none: contexts with this backend are created from options, "
                                    "which refuse importableToWebGPU (NotSupportedError)"
                                  : interop)
              << "\n";
    std::cout << backend->Describe() << ": " << covered_ops << " of " << Registry().size()
              << " operators\n";
  }
  return 0;
}

}  // namespace

int CommandOps(bool json, const std::string& backend) {
  if (backend != "reference") return BackendOps(json, backend);
  if (!json) {
    for (const OpInfo& op : Registry()) {
      std::cout << op.name << "  (" << op.section << ")\n";
      for (const TensorLimits& t : op.limits->operands) {
        const TensorLimits* src = &t;
        if (!t.same_as.empty()) src = op.limits->Find(t.same_as);
        std::cout << "    " << t.operand << ": "
                  << (t.same_as.empty() ? t.types.ToString()
                                        : "same as " + std::string(t.same_as) + " (" +
                                              src->types.ToString() + ")")
                  << "; rank " << t.min_rank << ".." << t.max_rank << "\n";
      }
    }
    std::cout << "GPU interop (importableToWebGPU): only contexts created from a GPU device "
                 "(createContext(gpuDevice); the vulkan backend on an application's Vulkan "
                 "device, `nnref ops --backend vulkan`); other contexts refuse it "
                 "(NotSupportedError). docs/interop.md\n";
    std::cout << Registry().size() << " operators\n";
    return 0;
  }
  // opSupportLimits() (§api-mlcontext-opsupportlimits), the same function the library API uses.
  std::cout << WriteJson(OpSupportLimitsValue(OpSupportLimitsFor(BuilderLimits{}))) << "\n";
  return 0;
}

}  // namespace nnref
