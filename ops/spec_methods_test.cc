// Every MLGraphBuilder method of the spec is either registered or explicitly listed as pending
// here, so nothing goes missing silently. ops/spec_methods.txt is generated from the spec's IDL by
// tools/spec-methods.py.
#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <string>

#include "ops/registry.h"

namespace nnref {

namespace {

// Builder-core methods (ref/graph): not operators.
const std::set<std::string> kCore = {"input", "constant", "build"};

// Methods not implemented yet. Shrinks to empty as the remaining issues land.
const std::set<std::string> kPending = {};

std::set<std::string> SpecMethods() {
  std::ifstream in(NNREF_SOURCE_DIR "/ops/spec_methods.txt");
  std::set<std::string> names;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#') names.insert(line);
  }
  return names;
}

}  // namespace

TEST_CASE("registry + pending + core equals the spec's MLGraphBuilder methods") {
  const std::set<std::string> spec = SpecMethods();
  REQUIRE(spec.size() > 90);
  std::set<std::string> registered;
  for (const OpInfo& op : Registry()) registered.insert(std::string(op.name));
  for (const std::string& name : spec) {
    const bool known = registered.count(name) || kPending.count(name) || kCore.count(name);
    CHECK_MESSAGE(known, "spec method not registered and not listed as pending: " << name);
  }
  for (const std::string& name : registered) {
    CHECK_MESSAGE(spec.count(name), "registered operator is not a spec method: " << name);
    CHECK_MESSAGE(!kPending.count(name), "implemented but still listed as pending: " << name);
  }
  for (const std::string& name : kPending) CHECK_MESSAGE(spec.count(name), "pending: " << name);
}

}  // namespace nnref
