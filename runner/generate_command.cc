// nnref generate: fills a case file's expectedOutputs with the reference's results, or writes its
// graph cases as a WPT conformance test file (--format wpt).
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ref/error.h"
#include "ref/value.h"
#include "runner/api_case.h"
#include "runner/case.h"
#include "runner/commands.h"
#include "runner/data.h"
#include "runner/execute.h"
#include "runner/json.h"
#include "runner/report.h"
#include "runner/results.h"

namespace nnref {

namespace {

Value DescriptorJson(const OperandDescriptor& d) {
  std::vector<Value> shape;
  for (uint64_t x : d.shape) shape.push_back(Num(static_cast<double>(x)));
  return Value::Object({{"shape", Value::Array(std::move(shape))},
                        {"dataType", Value::Str(std::string(DataTypeName(d.dataType)))}});
}

Value TensorJson(const OperandValue& v) {
  std::vector<Value> data;
  const uint64_t n = v.data.element_count();
  std::vector<Value> open, or_nan;
  std::vector<std::pair<std::string, Value>> one_of;  // element index -> its acceptable values
  for (uint64_t i = 0; i < n; ++i) {
    data.push_back(CanonicalElement(v.data, i));
    if (v.latitude.valid()) {
      const auto l = static_cast<Latitude>(v.latitude.At<uint8_t>(i));
      if (l == Latitude::kAny) open.push_back(Num(static_cast<double>(i)));
      if (l == Latitude::kValueOrNaN) or_nan.push_back(Num(static_cast<double>(i)));
      if (l == Latitude::kOneOf && v.one_of) {
        const Tensor set = v.one_of->Values(i);
        std::vector<Value> values;
        for (uint64_t j = 0; j < set.element_count(); ++j)
          values.push_back(CanonicalElement(set, j));
        one_of.emplace_back(std::to_string(i), Value::Array(std::move(values)));
      }
    }
  }
  std::vector<std::pair<std::string, Value>> m;
  m.emplace_back("data", Value::Array(std::move(data)));
  m.emplace_back("descriptor", DescriptorJson({v.data.dtype(), v.data.shape()}));
  if (!open.empty()) m.emplace_back("implementationDefined", Value::Array(std::move(open)));
  if (!or_nan.empty()) m.emplace_back("valueOrNaN", Value::Array(std::move(or_nan)));
  if (!one_of.empty()) m.emplace_back("oneOf", Value::Object(std::move(one_of)));
  return Value::Object(std::move(m));
}

void SetMember(Value& obj, const std::string& key, Value v) {
  for (auto& [k, existing] : obj.members()) {
    if (k == key) {
      existing = std::move(v);
      return;
    }
  }
  obj.members().emplace_back(key, std::move(v));
}

}  // namespace

namespace {

// In WPT's JavaScript the special values are literals: "NaN", "Infinity", "-Infinity" and "-0"
// strings of data arrays become NaN, Infinity, -Infinity and -0.
void SpecialValuesAsLiterals(Value& v, bool in_data) {
  if (in_data && v.is_string() &&
      (v.str() == "NaN" || v.str() == "Infinity" || v.str() == "-Infinity" || v.str() == "-0")) {
    v = NumberValue(v.str());
    return;
  }
  if (v.is_array()) {
    for (Value& x : v.items()) SpecialValuesAsLiterals(x, in_data);
  } else if (v.is_object()) {
    for (auto& [k, x] : v.members()) SpecialValuesAsLiterals(x, in_data || k == "data");
  }
}

// `generate --format wpt`: the graph cases as a WPT WebNN conformance test file
// (webnn/conformance_tests/*.https.any.js): META lines, the tests array, the harness call.
// Error, timeline and reference-only cases have no form there and are left out.
std::string WptFile(const CaseFile& f, const std::string& in, const std::set<std::string>& failed,
                    size_t& written) {
  std::string stem = std::filesystem::path(in).stem().string();
  std::string ident;
  bool upper = false;
  for (const char ch : stem) {
    if (std::isalnum(static_cast<unsigned char>(ch))) {
      ident += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(ch))) : ch;
      upper = false;
    } else {
      upper = !ident.empty();
    }
  }
  if (ident.empty() || std::isdigit(static_cast<unsigned char>(ident[0]))) ident = "nnref" + ident;
  ident += "Tests";
  std::vector<Value> tests;
  std::vector<std::string> ops;
  for (const Case& c : f.cases) {
    if (c.timeline || c.expected_error || c.reference_only || !c.node) continue;
    if (failed.count(c.name)) continue;  // its problem was reported; no half-written test
    const Value* graph = c.node->Find("graph");
    if (!graph || !graph->Find("expectedOutputs")) continue;
    Value g = *graph;
    for (auto& [k, outs] : g.members()) {
      if (k != "expectedOutputs") continue;
      for (auto& [name, t] : outs.members()) {  // the data and descriptor only
        std::vector<std::pair<std::string, Value>> keep;
        for (auto& [field, x] : t.members()) {
          if (field == "data" || field == "descriptor") keep.emplace_back(field, x);
        }
        t = Value::Object(std::move(keep));
      }
    }
    SpecialValuesAsLiterals(g, false);
    std::vector<std::pair<std::string, Value>> test = {{"name", Value::Str(c.name)},
                                                       {"graph", std::move(g)}};
    if (const Value* tol = c.node->Find("tolerance")) test.emplace_back("tolerance", *tol);
    tests.push_back(Value::Object(std::move(test)));
    for (const OperatorSpec& op : c.operators) {
      if (std::find(ops.begin(), ops.end(), op.name) == ops.end()) ops.push_back(op.name);
    }
  }
  written = tests.size();
  std::string names;
  for (const std::string& op : ops) names += (names.empty() ? "" : ", ") + op;
  std::ostringstream js;
  js << "// META: title=test WebNN API operations: " << names
     << "\n// META: global=window\n// META: variant=?cpu\n// META: variant=?gpu\n"
        "// META: variant=?npu\n// META: script=../resources/utils.js\n// META: timeout=long\n\n"
        "'use strict';\n\n"
        "// Generated by `nnref generate --format wpt` from "
     << std::filesystem::path(in).filename().string()
     << "; the expected outputs are the nnref reference's.\n\nconst " << ident << " = "
     << WriteJson(Value::Array(std::move(tests))) << ";\n\nwebnn_conformance_test(" << ident
     << ", buildAndExecuteGraph, getPrecisionTolerance);\n";
  return js.str();
}

}  // namespace

namespace {

// Replaces every graph input's data that is not an explicit array (the random, range and fill
// forms, npy files, a bare number) with the array of its values, as `run` decodes them: WPT's
// harness and other consumers know arrays only.
void InlineInputData(Case& c) {
  if (!c.node) return;
  Value* graph = nullptr;
  for (auto& [k, v] : c.node->members()) {
    if (k == "graph") graph = &v;
  }
  Value* inputs = nullptr;
  if (graph) {
    for (auto& [k, v] : graph->members()) {
      if (k == "inputs") inputs = &v;
    }
  }
  if (!inputs || !inputs->is_object()) return;
  for (auto& [name, input] : inputs->members()) {
    const std::string& input_name = name;  // (clang 15 cannot capture a structured binding)
    const auto spec = std::find_if(c.inputs.begin(), c.inputs.end(),
                                   [&](const TensorSpec& t) { return t.name == input_name; });
    if (spec == c.inputs.end() || !input.is_object()) continue;
    for (auto& [field, data] : input.members()) {
      if (field != "data" || data.is_array()) continue;
      const std::string where = c.Where() + ": graph.inputs." + name + ".data";
      // A JSON array of every value: bounded, so that a large generated input is refused with a
      // message instead of exhausting memory (a value costs tens of bytes in the tree).
      constexpr uint64_t kMaxInlined = uint64_t{1} << 22;
      if (ElementCount(spec->desc.shape) > kMaxInlined) {
        throw InputError(where + ": " + std::to_string(ElementCount(spec->desc.shape)) +
                         " values are too many to write as an array (at most " +
                         std::to_string(kMaxInlined) + ")");
      }
      const Tensor t =
          DecodeTensorData(data, spec->desc.dataType, spec->desc.shape, where, c.base_dir);
      std::vector<Value> values;
      values.reserve(static_cast<size_t>(t.element_count()));
      for (uint64_t i = 0; i < t.element_count(); ++i) values.push_back(CanonicalElement(t, i));
      data = Value::Array(std::move(values));
    }
  }
}

}  // namespace

int CommandGenerate(const std::string& in, const std::string& out, uint64_t max_tensor_bytes,
                    const std::string& format, bool inline_data) {
  if (format != "nnref" && format != "wpt") {
    throw InputError("--format: '" + format + "' (choose one of: nnref, wpt)");
  }
  // WPT's harness reads explicit arrays only.
  inline_data = inline_data || format == "wpt";
  CaseFile f = LoadCaseFile(in);
  int problems = 0;
  std::set<std::string> failed;  // cases whose outputs (or inlined inputs) could not be written
  for (const auto& [index, name, message] : f.broken) {
    std::cerr << "error: " << message << "\n";
    ++problems;
  }
  for (Case& c : f.cases) {
    if (c.timeline) continue;  // a timeline case's expectations are its own steps
    try {
      const std::vector<std::string> outputs = RequestedOutputs(c);
      if (c.expected_error) {
        try {
          BuildCaseOnContext(c, outputs, Limits(max_tensor_bytes));
          std::cerr << "error: " << c.Where() << ": expected " << *c.expected_error
                    << " but the graph built\n";
          ++problems;
        } catch (const WebnnError& e) {
          if (ErrorTypeName(e.type()) != *c.expected_error) {
            std::cerr << "error: " << c.Where() << ": expected " << *c.expected_error << ", got "
                      << ErrorTypeName(e.type()) << ": " << e.what() << "\n";
            ++problems;
          }
        }
        continue;
      }
      ApiCase a = BuildCaseOnContext(c, outputs, Limits(max_tensor_bytes));
      const auto values = DispatchCase(a);
      if (inline_data) InlineInputData(c);
      std::vector<std::pair<std::string, Value>> expected;
      for (const std::string& name : outputs)
        expected.emplace_back(name, TensorJson(values.at(name)));
      Value* graph = nullptr;
      for (auto& [k, v] : c.node->members()) {
        if (k == "graph") graph = &v;
      }
      SetMember(*graph, "expectedOutputs", Value::Object(std::move(expected)));
    } catch (const InputError& e) {
      std::cerr << "error: " << e.what() << "\n";
      ++problems;
      failed.insert(c.name);
    } catch (const WebnnError& e) {
      std::cerr << "error: " << c.Where() << ": " << ErrorTypeName(e.type()) << ": " << e.what()
                << "\n";
      ++problems;
      failed.insert(c.name);
    }
  }
  std::ofstream o(out);
  if (!o) throw InputError(out + ": cannot write");
  if (format == "wpt") {
    size_t written = 0;
    o << WptFile(f, in, failed, written);
    std::cout << "wrote " << out << " (" << written << " of " << f.cases.size()
              << " cases; error, timeline and reference-only cases have no WPT conformance form";
  } else {
    o << WriteJson(f.single_case ? f.root->items().front() : *f.root) << "\n";
    std::cout << "wrote " << out << " (" << f.cases.size() << " cases";
  }
  if (problems) std::cout << ", " << problems << " with problems";
  std::cout << ")\n";
  return problems ? 2 : 0;
}

}  // namespace nnref
