#include "runner/backends.h"

#include "ref/error.h"

namespace nnref {

std::vector<std::string> BackendNames() {
  std::vector<std::string> names;
  for (const BackendRegistration* b : RegisteredBackends()) names.emplace_back(b->name);
  return names;
}

std::string BackendChoices(std::string_view default_name) {
  const std::vector<std::string> names = BackendNames();
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
    text += names[i];
    if (names[i] == default_name) text += " (default)";
  }
  return text;
}

std::shared_ptr<const Backend> MakeBackend(const std::string& name, const BackendOptions& options) {
  for (const BackendRegistration* b : RegisteredBackends()) {
    if (b->name == name) return b->make(options);
  }
  std::string names;
  for (const std::string& n : BackendNames()) names += (names.empty() ? "" : ", ") + n;
  throw InputError("--backend " + name + ": no such backend (choose one of: " + names + ")");
}

}  // namespace nnref
