// opSupportLimits() (§api-mlcontext-opsupportlimits) against the registry and against the spec's
// MLOpSupportLimits dictionary (ops/spec_limits.txt, generated from the spec's IDL by
// tools/spec-limits.py): one member per registered operator, named as in the spec, holding
// exactly the members of that operator's *SupportLimits dictionary.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "ops/registry.h"
#include "runner/api/webnn.h"

namespace nnref::webnn {

namespace {

struct SpecMember {
  std::string type;                  // "MLBinarySupportLimits", "MLTensorLimits", ...
  std::vector<std::string> members;  // the dictionary's members, in IDL order
};

std::map<std::string, SpecMember> SpecLimits() {
  std::ifstream in(NNREF_SOURCE_DIR "/ops/spec_limits.txt");
  std::map<std::string, SpecMember> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string name;
    SpecMember m;
    words >> name >> m.type;
    for (std::string w; words >> w;) m.members.push_back(w);
    out[name] = m;
  }
  return out;
}

std::set<std::string> SpecMethods() {
  std::ifstream in(NNREF_SOURCE_DIR "/ops/spec_methods.txt");
  std::set<std::string> names;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#') names.insert(line);
  }
  return names;
}

const std::vector<DataType> kAll = {DataType::kFloat32, DataType::kFloat16, DataType::kInt32,
                                    DataType::kUint32,  DataType::kInt64,   DataType::kUint64,
                                    DataType::kInt8,    DataType::kUint8};
const std::vector<DataType> kFloats = {DataType::kFloat32, DataType::kFloat16};

}  // namespace

TEST_CASE("opSupportLimits lists every registered operator with the spec's members") {
  const std::map<std::string, SpecMember> spec = SpecLimits();
  REQUIRE(spec.size() > 90);
  const MLOpSupportLimits limits = Context::Create().get().OpSupportLimits();
  // The top-level members of §api-mlcontext-opsupportlimits-dictionary.
  for (const char* top :
       {"preferredInputLayout", "maxTensorByteLength", "input", "constant", "output"}) {
    CHECK_MESSAGE(spec.count(top), top);
  }
  CHECK(spec.at("input").type == "MLTensorLimits");
  REQUIRE(limits.operators.size() == Registry().size());
  for (size_t i = 0; i < Registry().size(); ++i) {
    const MLOperatorSupportLimits& op = limits.operators[i];
    CHECK(op.name == Registry()[i].name);
    const auto it = spec.find(std::string(op.name));
    REQUIRE_MESSAGE(it != spec.end(), "MLOpSupportLimits has no member " << op.name);
    std::vector<std::string> members;
    for (const auto& [member, l] : op.members) {
      members.emplace_back(member);
      CHECK_MESSAGE(!l.dataTypes.empty(), op.name << "." << member);
      CHECK_MESSAGE(l.rankRange.min <= l.rankRange.max, op.name << "." << member);
    }
    CHECK_MESSAGE(members == it->second.members,
                  op.name << ": members differ from " << it->second.type);
  }
  // Every operator member of the spec's dictionary is a builder method.
  const std::set<std::string> methods = SpecMethods();
  for (const auto& [name, member] : spec) {
    if (member.type == "MLTensorLimits" || name == "preferredInputLayout" ||
        name == "maxTensorByteLength") {
      continue;
    }
    CHECK_MESSAGE(methods.count(name), name << " is not an MLGraphBuilder method");
  }
}

TEST_CASE("opSupportLimits values, read off the spec's limits tables") {
  const MLOpSupportLimits l = Context::Create().get().OpSupportLimits();
  CHECK(l.preferredInputLayout == MLInputOperandLayout::kNchw);
  CHECK(l.maxTensorByteLength == BuilderLimits{}.max_tensor_byte_length);
  CHECK(l.input.dataTypes == kAll);
  CHECK(l.input.rankRange == MLRankRange{0, 16});
  // §tensor-limits-binary: a and b any type, any rank; output same as a.
  const MLOperatorSupportLimits* add = l.Find("add");
  REQUIRE(add);
  CHECK(add->Find("a")->dataTypes == kAll);
  CHECK(add->Find("b")->rankRange == MLRankRange{0, 16});
  CHECK(add->Find("output")->dataTypes == kAll);
  // §tensor-limits-conv2d: input and filter float32/float16 of rank 4, bias rank 1.
  const MLOperatorSupportLimits* conv = l.Find("conv2d");
  REQUIRE(conv);
  CHECK(conv->Find("input")->dataTypes == kFloats);
  CHECK(conv->Find("input")->rankRange == MLRankRange{4, 4});
  CHECK(conv->Find("filter")->rankRange == MLRankRange{4, 4});
  CHECK(conv->Find("bias")->rankRange == MLRankRange{1, 1});
  // §tensor-limits-where: condition uint8.
  CHECK(l.Find("where")->Find("condition")->dataTypes == std::vector<DataType>{DataType::kUint8});
  CHECK(l.Find("softmax")->Find("input")->dataTypes == kFloats);
  CHECK(l.Find("gru")->Find("output1") != nullptr);
  CHECK(l.Find("nonexistent") == nullptr);
  // A smaller rank limit caps every "N" range.
  BuilderLimits small;
  small.max_rank = 5;
  const MLOpSupportLimits capped = OpSupportLimitsFor(small);
  CHECK(capped.Find("add")->Find("a")->rankRange == MLRankRange{0, 5});
  CHECK(capped.Find("conv2d")->Find("input")->rankRange == MLRankRange{4, 4});
}

}  // namespace nnref::webnn
