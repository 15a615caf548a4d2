#include "runner/case.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

#include "runner/json.h"
#include "runner/timeline_script.h"

namespace nnref {

std::string Case::Where() const { return file + ": case '" + name + "'"; }

namespace {

[[noreturn]] void Bad(const std::string& where, const std::string& what) {
  throw InputError(where + ": " + what);
}

const Value& Require(const Value& obj, const char* key, const std::string& where) {
  const Value* v = obj.Find(key);
  if (!v) Bad(where, std::string("missing '") + key + "'");
  return *v;
}

TensorSpec DecodeTensor(const std::string& name, const Value& t, const std::string& where,
                        bool allow_constant) {
  if (!t.is_object()) Bad(where, "must be an object with 'data' and 'descriptor'");
  TensorSpec s;
  s.name = name;
  s.desc = DecodeDescriptor(t, where);
  s.data = t.Find("data");
  // "constant" means something only for inputs; elsewhere it is an ignored member.
  if (const Value* c = t.Find("constant"); c && allow_constant) {
    if (!c->is_bool()) Bad(where + ".constant", "must be true or false");
    s.constant = c->boolean();
  }
  return s;
}

Tolerance DecodeTolerance(const Value& t, const std::string& where) {
  if (!t.is_object()) Bad(where, "must be an object {\"metric\", \"value\"}");
  // "metricType" is the conformance suite's spelling of "metric".
  const Value* mp = t.Find("metric");
  if (!mp) mp = t.Find("metricType");
  if (!mp) Bad(where, "missing 'metric'");
  const Value& m = *mp;
  const Value& v = Require(t, "value", where);
  if (!v.is_number() || !(v.number().d >= 0)) Bad(where + ".value", "must be a number >= 0");
  std::string reason = "from the case file";
  if (const Value* r = t.Find("reason"); r && r->is_string()) reason = r->str();
  Tolerance tol;
  if (m.is_string() && m.str() == "ULP") {
    tol = Tolerance::Ulp(v.number().d, reason);
  } else if (m.is_string() && m.str() == "ATOL") {
    tol = Tolerance::Atol(v.number().d, reason);
  } else {
    Bad(where + ".metric", "must be \"ULP\" or \"ATOL\"");
  }
  if (const Value* se = t.Find("signExact")) {  // nnref: +0 and -0 must match exactly
    if (!se->is_bool()) Bad(where + ".signExact", "must be true or false");
    tol.sign_exact = se->boolean();
  }
  return tol;
}

Case DecodeCase(Value& node, const std::string& file, size_t index) {
  Case c;
  c.file = file;
  c.index = index;
  c.node = &node;
  const std::string at = file + ": case #" + std::to_string(index);
  if (!node.is_object()) Bad(at, "a case must be an object");
  const Value& name = Require(node, "name", at);
  if (!name.is_string() || name.str().empty()) Bad(at + ".name", "must be a non-empty string");
  c.name = name.str();
  const std::string where = c.Where();
  if (const Value* l = node.Find("labels")) {
    if (!l->is_array()) Bad(where + ": labels", "must be an array of strings");
    for (const Value& e : l->items()) {
      if (!e.is_string()) Bad(where + ": labels", "must be an array of strings");
      c.labels.push_back(e.str());
    }
  }
  if (const Value* t = node.Find("tolerance"))
    c.tolerance = DecodeTolerance(*t, where + ": tolerance");
  if (const Value* r = node.Find("referenceOnly")) {
    if (!r->is_string() || r->str().empty()) {
      Bad(where + ": referenceOnly", "must be a non-empty string giving the reason");
    }
    c.reference_only = r->str();
  }
  if (const Value* e = node.Find("expectedError")) {
    if (!e->is_string()) Bad(where + ": expectedError", "must be an error name string");
    c.expected_error = e->str();
  }
  if (const Value* timeline = node.Find("timeline")) {
    if (node.Find("graph")) Bad(where, "a case has either 'graph' or 'timeline', not both");
    if (c.expected_error) {
      Bad(where + ": expectedError", "a timeline case expects errors on its steps");
    }
    c.timeline = DecodeTimeline(*timeline, c);
    return c;
  }
  const Value& graph = Require(node, "graph", where);
  if (!graph.is_object()) Bad(where + ": graph", "must be an object");
  DecodeGraph(graph, where + ": graph", c, false);
  return c;
}

}  // namespace

OperatorSpec DecodeOperator(const Value& o, const std::string& w) {
  if (!o.is_object()) Bad(w, "must be an object");
  OperatorSpec spec;
  const Value& n = Require(o, "name", w);
  if (!n.is_string()) Bad(w + ".name", "must be a string");
  spec.name = n.str();
  if (const Value* args = o.Find("arguments")) {
    if (!args->is_array()) Bad(w + ".arguments", "must be an array of objects");
    for (const Value& a : args->items()) {
      if (!a.is_object()) Bad(w + ".arguments", "each argument must be an object");
      for (const auto& [k, v] : a.members()) spec.args.emplace_back(k, &v);
    }
  }
  const Value& outs = Require(o, "outputs", w);
  if (outs.is_string()) {
    spec.outputs.push_back(outs.str());
  } else if (outs.is_array()) {
    for (const Value& e : outs.items()) {
      if (!e.is_string()) Bad(w + ".outputs", "must be a name or an array of names");
      spec.outputs.push_back(e.str());
    }
  } else {
    Bad(w + ".outputs", "must be a name or an array of names");
  }
  for (const std::string& out : spec.outputs) {
    if (out.empty()) Bad(w + ".outputs", "an output name is empty");
  }
  return spec;
}

void DecodeGraph(const Value& graph, const std::string& gpath, Case& c, bool build_step) {
  std::set<std::string> names;
  if (const Value* inputs = graph.Find("inputs")) {
    if (!inputs->is_object()) Bad(gpath + ".inputs", "must be an object");
    for (const auto& [k, v] : inputs->members()) {
      const std::string w = gpath + ".inputs." + k;
      if (!names.insert(k).second) Bad(w, "the name is used twice");
      if (const Value* t = build_step && v.is_object() ? v.Find("tensor") : nullptr) {
        if (!t->is_string() || t->str().empty()) Bad(w + ".tensor", "must be a tensor name");
        TensorSpec spec;
        spec.name = k;
        spec.constant = true;
        spec.constant_tensor = t->str();
        c.inputs.push_back(std::move(spec));
        continue;
      }
      c.inputs.push_back(DecodeTensor(k, v, w, true));
      if (!c.inputs.back().data && (!build_step || c.inputs.back().constant)) {
        Bad(w, "missing 'data'");
      }
    }
  }
  const Value& ops = Require(graph, "operators", gpath);
  if (!ops.is_array()) Bad(gpath + ".operators", "must be an array");
  for (size_t i = 0; i < ops.items().size(); ++i) {
    const std::string w = gpath + ".operators[" + std::to_string(i) + "]";
    OperatorSpec spec = DecodeOperator(ops.items()[i], w);
    for (const std::string& out : spec.outputs) {
      if (!names.insert(out).second) Bad(w + ".outputs", "the name '" + out + "' is used twice");
    }
    c.operators.push_back(std::move(spec));
  }
  if (const Value* exp = graph.Find("expectedOutputs")) {
    if (!exp->is_object()) Bad(gpath + ".expectedOutputs", "must be an object");
    c.has_expected_outputs = true;
    for (const auto& [k, v] : exp->members()) {
      c.expected_outputs.push_back(DecodeTensor(k, v, gpath + ".expectedOutputs." + k, false));
    }
  }
}

Tolerance DecodeCaseTolerance(const Value& tolerance, const std::string& where) {
  return DecodeTolerance(tolerance, where);
}

OperandDescriptor DecodeDescriptor(const Value& tensor, const std::string& where) {
  const Value& d = Require(tensor, "descriptor", where);
  if (!d.is_object()) Bad(where + ".descriptor", "must be an object");
  OperandDescriptor desc;
  const Value& dt = Require(d, "dataType", where + ".descriptor");
  if (!dt.is_string()) Bad(where + ".descriptor.dataType", "must be a string");
  const auto type = ParseDataType(dt.str());
  if (!type) {
    Bad(where + ".descriptor.dataType", "unknown data type '" + dt.str() +
                                            "' (float32, float16, int32, uint32, int64, uint64, "
                                            "int8, uint8)");
  }
  desc.dataType = *type;
  const Value* shape = d.Find("shape");
  if (!shape) shape = d.Find("dimensions");
  if (!shape) Bad(where + ".descriptor", "missing 'shape' (or 'dimensions')");
  if (!shape->is_array()) Bad(where + ".descriptor.shape", "must be an array of integers");
  for (const Value& e : shape->items()) {
    if (!e.is_number() || !e.number().u) {
      Bad(where + ".descriptor.shape", "must be an array of non-negative integers");
    }
    desc.shape.push_back(*e.number().u);
  }
  return desc;
}

namespace {
void DecodeCases(CaseFile& f);
}  // namespace

CaseFile LoadCaseFile(const std::string& path) {
  CaseFile f;
  f.path = path;
  f.root = std::make_unique<Value>(ReadJsonFile(path));
  DecodeCases(f);
  return f;
}

CaseFile LoadCaseText(const std::string& text, const std::string& path) {
  CaseFile f;
  f.path = path;
  f.root = std::make_unique<Value>(ParseJson(text, path));
  DecodeCases(f);
  return f;
}

namespace {

void DecodeCases(CaseFile& f) {
  const std::string& path = f.path;
  std::vector<Value>* list = nullptr;
  if (f.root->is_array()) {
    list = &f.root->items();
  } else if (f.root->is_object() && f.root->Find("cases")) {
    Value* cases = nullptr;
    for (auto& [k, v] : f.root->members()) {
      if (k == "cases") cases = &v;
    }
    if (!cases->is_array()) throw InputError(path + ": 'cases' must be an array");
    list = &cases->items();
  } else if (f.root->is_object() && (f.root->Find("graph") || f.root->Find("timeline"))) {
    // A single case object: wrap it so that every form is a list.
    Value single = std::move(*f.root);
    *f.root = Value::Array();
    f.root->items().push_back(std::move(single));
    f.single_case = true;
    list = &f.root->items();
  } else {
    throw InputError(path + ": expected {\"cases\": [...]}, an array of cases or one case object");
  }
  const std::string dir = std::filesystem::path(path).parent_path().string();
  std::set<std::string> seen;
  for (size_t i = 0; i < list->size(); ++i) {
    Value& node = (*list)[i];
    std::string name;
    if (const Value* n = node.Find("name"); n && n->is_string()) name = n->str();
    try {
      Case c = DecodeCase(node, path, i);
      c.base_dir = dir;
      if (!seen.insert(c.name).second) {
        // Names should be unique; imported data sometimes repeats one. Keep both, renamed.
        std::string renamed;
        for (int k = 2; renamed.empty() || !seen.insert(renamed).second; ++k) {
          renamed = c.name + " (#" + std::to_string(k) + ")";
        }
        std::fprintf(stderr, "warning: %s: case name '%s' repeats; the repeat is called '%s'\n",
                     path.c_str(), c.name.c_str(), renamed.c_str());
        c.name = renamed;
      }
      f.cases.push_back(std::move(c));
    } catch (const InputError& e) {
      f.broken.emplace_back(i, name, e.what());
    }
  }
}

}  // namespace

// Case files named on the command line: files as given, directories searched for *.json.
std::vector<std::string> CollectFiles(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      std::vector<std::string> found;
      for (const auto& e : std::filesystem::recursive_directory_iterator(p, ec)) {
        // A folder with a graph.nnef is an NNEF case (`nnref nnef --case`), not WebNN cases.
        if (e.is_regular_file() && e.path().extension() == ".json" &&
            !std::filesystem::exists(e.path().parent_path() / "graph.nnef", ec)) {
          found.push_back(e.path().string());
        }
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(p);
    }
  }
  return files;
}

}  // namespace nnref
