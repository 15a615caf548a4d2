// Decoding a timeline script (runner/timeline_script.h): structure only.
#include "runner/timeline_script.h"

#include <algorithm>
#include <set>

#include "ref/error.h"
#include "runner/api/webnn.h"
#include "runner/execute.h"

namespace nnref {

namespace {

[[noreturn]] void Bad(const std::string& where, const std::string& what) {
  throw InputError(where + ": " + what);
}

struct KindInfo {
  const char* name;
  StepKind kind;
  std::vector<std::string> members;  // allowed besides the common ones
};

const std::vector<KindInfo>& Kinds() {
  static const std::vector<KindInfo> kinds = {
      {"createContext", StepKind::kCreateContext, {"options"}},
      {"createTensor", StepKind::kCreateTensor, {"tensor", "descriptor", "promise"}},
      {"createConstantTensor",
       StepKind::kCreateConstantTensor,
       {"tensor", "descriptor", "data", "bufferType", "byteLength", "buffer", "byteOffset",
        "length", "promise"}},
      {"writeTensor",
       StepKind::kWriteTensor,
       {"tensor", "data", "bufferType", "byteLength", "buffer", "byteOffset", "length"}},
      {"readTensor",
       StepKind::kReadTensor,
       {"tensor", "expected", "outputData", "tolerance", "promise"}},
      {"build",
       StepKind::kBuild,
       {"graph", "name", "inputs", "operators", "outputs", "expectedOutputs", "promise",
        "builder"}},
      {"dispatch", StepKind::kDispatch, {"graph", "inputs", "outputs"}},
      {"destroy", StepKind::kDestroyTensor, {"tensor", "graph"}},
      {"destroyTensor", StepKind::kDestroyTensor, {"tensor"}},
      {"destroyGraph", StepKind::kDestroyGraph, {"graph"}},
      {"destroyContext", StepKind::kDestroyContext, {}},
      {"await", StepKind::kAwait, {"promise", "expected", "tolerance"}},
      {"lost", StepKind::kLost, {"expected"}},
      {"checkTensor", StepKind::kCheckTensor, {"tensor", "expected"}},
      {"checkContext", StepKind::kCheckContext, {"expected"}},
      {"opSupportLimits", StepKind::kOpSupportLimits, {"expected"}},
      {"createBuilder", StepKind::kCreateBuilder, {"builder"}},
      {"input", StepKind::kInput, {"builder", "name", "operand", "descriptor"}},
      {"constant",
       StepKind::kConstant,
       {"builder", "operand", "descriptor", "data", "bufferType", "byteLength", "buffer",
        "byteOffset", "length", "tensor", "dataType", "value"}},
      {"operator", StepKind::kOperator, {"builder", "name", "arguments", "outputs"}},
      {"createBuffer",
       StepKind::kCreateBuffer,
       {"buffer", "byteLength", "shared", "data", "bufferType"}},
      {"setBuffer", StepKind::kSetBuffer, {"buffer", "bufferType", "byteOffset", "length", "data"}},
      {"detachBuffer", StepKind::kDetachBuffer, {"buffer"}},
      {"importExternalBuffer",
       StepKind::kImportExternalBuffer,
       {"tensor", "gpuDevice", "gpuBuffer"}},
      {"gpuWrite", StepKind::kGpuWrite, {"gpuBuffer", "data"}},
      {"gpuRead", StepKind::kGpuRead, {"gpuBuffer", "expected"}},
      {"returnBuffer", StepKind::kReturnBuffer, {"gpuBuffer"}},
      {"checkBuffer",
       StepKind::kCheckBuffer,
       {"buffer", "bufferType", "byteOffset", "length", "expected", "detached"}},
  };
  return kinds;
}

const std::set<std::string> kCommonMembers = {"step",    "context",     "expectedError",
                                              "comment", "description", "note"};

std::string OptionalName(const Value& step, const char* key, const std::string& field) {
  const Value* v = step.Find(key);
  if (!v) return "";
  if (!v->is_string() || v->str().empty()) Bad(field + "." + key, "must be a non-empty name");
  return v->str();
}

std::string RequiredName(const Value& step, const char* key, const std::string& field) {
  if (!step.Find(key)) Bad(field, std::string("missing '") + key + "'");
  return OptionalName(step, key, field);
}

BufferSpec DecodeBuffer(const Value& obj, const std::string& field) {
  BufferSpec b;
  if (const Value* t = obj.Find("bufferType")) {
    if (!t->is_string() || !webnn::ParseBufferType(t->str())) {
      Bad(field + ".bufferType",
          "must be ArrayBuffer, SharedArrayBuffer, DataView or a typed array name "
          "(Float32Array, Uint8Array, ...)");
    }
    b.type = t->str();
  }
  b.data = obj.Find("data");
  const auto count = [&](const char* key) -> std::optional<uint64_t> {
    const Value* n = obj.Find(key);
    if (!n) return std::nullopt;
    if (!n->is_number() || !n->number().u) Bad(field + "." + key, "must be an integer >= 0");
    return *n->number().u;
  };
  b.byte_length = count("byteLength");
  b.buffer = OptionalName(obj, "buffer", field);
  b.byte_offset = count("byteOffset");
  b.length = count("length");
  if (b.buffer.empty()) {
    for (const char* key : {"byteOffset", "length"}) {
      if (obj.Find(key)) Bad(field + "." + key, "places a view of a named buffer: give 'buffer'");
    }
  } else {
    if (b.data) Bad(field, "give either 'data' or 'buffer' (a named buffer), not both");
    if (b.byte_length) {
      Bad(field + ".byteLength",
          "a view of a named buffer is placed by 'byteOffset' and 'length' (in elements)");
    }
  }
  return b;
}

// Whether the buffer spec describes any buffer at all.
bool HasBuffer(const BufferSpec& b) { return b.data || b.byte_length || !b.buffer.empty(); }

// An MLTensorDescriptor / MLOperandDescriptor object: its members' kinds are checked here, their
// values when the step runs.
void CheckDescriptorShape(const Value& d, const std::string& field, bool tensor) {
  if (!d.is_object()) Bad(field, "must be an object {dataType, shape}");
  const Value* dt = d.Find("dataType");
  if (!dt || !dt->is_string()) Bad(field + ".dataType", "must be a string");
  const Value* shape = d.Find("shape");
  if (!shape) shape = d.Find("dimensions");
  if (!shape || !shape->is_array()) Bad(field + ".shape", "must be an array of integers");
  for (const Value& e : shape->items()) {
    if (!e.is_number()) Bad(field + ".shape", "must be an array of integers");
  }
  for (const char* flag : {"readable", "writable", "importableToWebGPU"}) {
    if (const Value* f = d.Find(flag)) {
      if (!tensor) Bad(field + "." + flag, "an MLOperandDescriptor has no such member");
      if (!f->is_bool()) Bad(field + "." + flag, "must be true or false");
    }
  }
}

std::vector<std::pair<std::string, std::string>> NameMap(const Value& v, const std::string& field);

// A build step's outputs: a name, an array of names, or {graph output name: operand name}.
std::vector<std::pair<std::string, std::string>> OutputNames(const Value& outs,
                                                             const std::string& field) {
  std::vector<std::pair<std::string, std::string>> out;
  if (outs.is_string()) {
    out.emplace_back(outs.str(), outs.str());
  } else if (outs.is_array()) {
    for (const Value& e : outs.items()) {
      if (!e.is_string()) Bad(field, "must be names");
      out.emplace_back(e.str(), e.str());
    }
  } else {
    out = NameMap(outs, field);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> NameMap(const Value& v, const std::string& field) {
  if (!v.is_object()) Bad(field, "must be an object mapping names to names");
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [k, e] : v.members()) {
    if (!e.is_string() || e.str().empty()) Bad(field + "." + k, "must be a name");
    out.emplace_back(k, e.str());
  }
  return out;
}

TimelineStep DecodeStep(const Value& v, size_t index, const Case& c,
                        std::vector<std::string>& warnings) {
  TimelineStep s;
  s.index = index;
  s.field = c.Where() + ": timeline[" + std::to_string(index) + "]";
  if (!v.is_object()) Bad(s.field, "a step must be an object with a 'step' member");
  const Value* name = v.Find("step");
  if (!name || !name->is_string()) {
    Bad(s.field,
        "missing 'step' (createContext, createTensor, createConstantTensor, writeTensor, "
        "readTensor, build, dispatch, destroy, await, lost, checkTensor, checkContext, "
        "opSupportLimits, createBuilder, input, constant, operator, createBuffer, setBuffer, "
        "detachBuffer, checkBuffer, importExternalBuffer, gpuWrite, gpuRead, returnBuffer)");
  }
  const KindInfo* info = nullptr;
  for (const KindInfo& k : Kinds()) {
    if (name->str() == k.name) info = &k;
  }
  if (!info) Bad(s.field + ".step", "unknown step '" + name->str() + "'");
  s.kind = info->kind;
  s.method = info->name;
  s.where = s.field + " (" + s.method + ")";
  s.field = s.where;  // member paths read "timeline[3] (writeTensor).tensor"
  for (const auto& [k, unused] : v.members()) {
    if (!kCommonMembers.count(k) &&
        std::find(info->members.begin(), info->members.end(), k) == info->members.end()) {
      warnings.push_back(s.where + ": member '" + k + "' is not used by this step");
    }
  }
  if (const Value* ctx = v.Find("context")) {
    if (!ctx->is_string() || ctx->str().empty()) Bad(s.field + ".context", "must be a name");
    s.context = ctx->str();
  }
  if (const Value* e = v.Find("expectedError")) {
    const Value* error_name = e;
    if (e->is_object()) {
      for (const auto& [k, unused] : e->members()) {
        if (k != "name" && k != "how") {
          Bad(s.field + ".expectedError." + k, "unknown member (an expectedError has name, how)");
        }
      }
      error_name = e->Find("name");
      if (!error_name) Bad(s.field + ".expectedError", "missing 'name'");
      if (const Value* how = e->Find("how")) {
        if (how->is_string() && how->str() == "thrown") {
          s.expected_how = ErrorHow::kThrown;
        } else if (how->is_string() && how->str() == "rejected") {
          s.expected_how = ErrorHow::kRejected;
        } else {
          Bad(s.field + ".expectedError.how",
              "must be \"thrown\" (the call throws) or \"rejected\" (its promise rejects)");
        }
      }
    }
    if (!error_name->is_string() || error_name->str().empty()) {
      Bad(s.field + ".expectedError",
          "must be an error name (TypeError, InvalidStateError, ...) or {\"name\", \"how\"}");
    }
    s.expected_error = error_name->str();
  }
  s.expected = v.Find("expected");
  if (const Value* t = v.Find("tolerance")) {
    s.tolerance = DecodeCaseTolerance(*t, s.field + ".tolerance");
  }
  switch (s.kind) {
    case StepKind::kCreateContext:
      if (const Value* o = v.Find("options")) {
        if (!o->is_object()) Bad(s.field + ".options", "must be an MLContextOptions object");
        s.options = o;
      }
      break;
    case StepKind::kCreateTensor:
    case StepKind::kCreateConstantTensor: {
      s.tensor = RequiredName(v, "tensor", s.field);
      s.descriptor = v.Find("descriptor");
      if (!s.descriptor) Bad(s.field, "missing 'descriptor'");
      CheckDescriptorShape(*s.descriptor, s.field + ".descriptor",
                           s.kind == StepKind::kCreateTensor);
      if (s.kind == StepKind::kCreateConstantTensor) {
        s.buffer = DecodeBuffer(v, s.field);
        if (!HasBuffer(s.buffer)) Bad(s.field, "missing 'data' (or 'buffer')");
      }
      break;
    }
    case StepKind::kWriteTensor:
      s.tensor = RequiredName(v, "tensor", s.field);
      s.buffer = DecodeBuffer(v, s.field);
      if (!HasBuffer(s.buffer)) Bad(s.field, "missing 'data' (or 'buffer')");
      break;
    case StepKind::kReadTensor:
      s.tensor = RequiredName(v, "tensor", s.field);
      if (const Value* o = v.Find("outputData")) {
        s.byob = true;
        if (o->is_object()) {
          s.output_data = DecodeBuffer(*o, s.field + ".outputData");
        } else if (!o->is_bool() || !o->boolean()) {
          Bad(s.field + ".outputData",
              "must be true, {\"bufferType\", \"byteLength\"} or a view of a named buffer "
              "{\"buffer\", \"bufferType\", \"byteOffset\", \"length\"}");
        }
      }
      break;
    case StepKind::kBuild: {
      if (v.Find("builder")) {  // builder.build(outputs) on a named builder
        s.builder = RequiredName(v, "builder", s.field);
        for (const char* key : {"inputs", "operators", "expectedOutputs", "name"}) {
          if (v.Find(key)) {
            Bad(s.field + "." + key,
                "a build step on a named builder takes only 'graph', 'outputs' and 'promise' "
                "(add operands with input, constant and operator steps)");
          }
        }
        s.graph = OptionalName(v, "graph", s.field);
        if (s.graph.empty()) s.graph = "graph";
        const Value* outs = v.Find("outputs");
        if (!outs) Bad(s.field, "missing 'outputs' (graph output names and their operands)");
        s.graph_path = s.field;
        s.outputs = OutputNames(*outs, s.field + ".outputs");
        break;
      }
      // The graph inline ({"graph": NAME, "inputs", "operators", "outputs"}) or in the usual
      // form ({"graph": {"inputs", "operators", ...}, "name": NAME}).
      const Value* g = v.Find("graph");
      const Value* def = &v;
      s.graph_path = s.field;
      if (g && g->is_object()) {
        def = g;
        s.graph_path = s.field + ".graph";
        s.graph = OptionalName(v, "name", s.field);
      } else {
        s.graph = OptionalName(v, "graph", s.field);
      }
      if (s.graph.empty()) s.graph = "graph";
      s.graph_def.file = c.file;
      s.graph_def.name = c.name;
      DecodeGraph(*def, s.graph_path, s.graph_def, true);
      if (const Value* outs = def->Find("outputs")) {
        s.outputs = OutputNames(*outs, s.graph_path + ".outputs");
      } else {
        for (const std::string& n : RequestedOutputs(s.graph_def)) s.outputs.emplace_back(n, n);
      }
      break;
    }
    case StepKind::kDispatch: {
      s.graph = RequiredName(v, "graph", s.field);
      const Value* in = v.Find("inputs");
      const Value* out = v.Find("outputs");
      if (!in) Bad(s.field, "missing 'inputs'");
      if (!out) Bad(s.field, "missing 'outputs'");
      s.inputs = NameMap(*in, s.field + ".inputs");
      s.outputs = NameMap(*out, s.field + ".outputs");
      break;
    }
    case StepKind::kDestroyTensor:
    case StepKind::kDestroyGraph:
    case StepKind::kDestroyContext: {
      if (s.method == "destroy") {
        // MLTensor.destroy(), MLGraph.destroy(), or MLContext.destroy() when only the context
        // is named.
        const bool t = v.Find("tensor"), gr = v.Find("graph"), cx = v.Find("context");
        if (t && gr) Bad(s.field, "destroy takes one of 'tensor', 'graph' or 'context'");
        if (!t && !gr && !cx) Bad(s.field, "destroy needs 'tensor', 'graph' or 'context'");
        s.kind = t    ? StepKind::kDestroyTensor
                 : gr ? StepKind::kDestroyGraph
                      : StepKind::kDestroyContext;
      }
      if (s.kind == StepKind::kDestroyTensor) s.tensor = RequiredName(v, "tensor", s.field);
      if (s.kind == StepKind::kDestroyGraph) s.graph = RequiredName(v, "graph", s.field);
      break;
    }
    case StepKind::kAwait:
      s.promise = RequiredName(v, "promise", s.field);
      break;
    case StepKind::kImportExternalBuffer:
      s.tensor = RequiredName(v, "tensor", s.field);
      s.gpu_device = RequiredName(v, "gpuDevice", s.field);
      s.gpu_buffer = RequiredName(v, "gpuBuffer", s.field);
      break;
    case StepKind::kGpuWrite:
      s.gpu_buffer = RequiredName(v, "gpuBuffer", s.field);
      s.buffer.data = v.Find("data");
      if (!s.buffer.data) Bad(s.field, "missing 'data'");
      break;
    case StepKind::kGpuRead:
      s.gpu_buffer = RequiredName(v, "gpuBuffer", s.field);
      if (!s.expected) Bad(s.field, "missing 'expected'");
      break;
    case StepKind::kReturnBuffer:
      s.gpu_buffer = RequiredName(v, "gpuBuffer", s.field);
      break;
    case StepKind::kLost:
      if (s.expected && !s.expected->is_bool()) Bad(s.field + ".expected", "must be true or false");
      break;
    case StepKind::kCheckContext:
      if (!s.expected || !s.expected->is_object()) {
        Bad(s.field + ".expected", "must be an object with accelerated and/or lost");
      }
      for (const char* key : {"accelerated", "lost"}) {
        const Value* f = s.expected->Find(key);
        if (f && !f->is_bool()) Bad(s.field + ".expected." + key, "must be true or false");
      }
      break;
    case StepKind::kCheckTensor:
      s.tensor = RequiredName(v, "tensor", s.field);
      if (!s.expected || !s.expected->is_object()) {
        Bad(s.field + ".expected",
            "must be an object with dataType, shape, readable, writable, constant and/or "
            "importableToWebGPU");
      }
      break;
    case StepKind::kOpSupportLimits:
      if (!s.expected || !s.expected->is_object()) {
        Bad(s.field + ".expected", "must be an object (a subset of MLOpSupportLimits)");
      }
      break;
    case StepKind::kCreateBuilder:
      s.builder = RequiredName(v, "builder", s.field);
      break;
    case StepKind::kInput:
      s.builder = RequiredName(v, "builder", s.field);
      if (const Value* n = v.Find("name"); !n || !n->is_string()) {
        Bad(s.field + ".name", "must be a string (the input's name; \"\" tests input step 2)");
      }
      s.input_name = v.Find("name")->str();
      s.operand = OptionalName(v, "operand", s.field);
      if (s.operand.empty()) s.operand = s.input_name;
      if (s.operand.empty())
        Bad(s.field + ".operand", "an input named \"\" needs an 'operand' name");
      s.descriptor = v.Find("descriptor");
      if (!s.descriptor) Bad(s.field, "missing 'descriptor'");
      CheckDescriptorShape(*s.descriptor, s.field + ".descriptor", false);
      break;
    case StepKind::kConstant: {
      s.builder = RequiredName(v, "builder", s.field);
      s.operand = RequiredName(v, "operand", s.field);
      s.tensor = OptionalName(v, "tensor", s.field);
      s.scalar_type = v.Find("dataType");
      s.value = v.Find("value");
      s.descriptor = v.Find("descriptor");
      s.buffer = DecodeBuffer(v, s.field);
      const int forms = (s.tensor.empty() ? 0 : 1) + (s.scalar_type || s.value ? 1 : 0) +
                        (s.descriptor || HasBuffer(s.buffer) ? 1 : 0);
      if (forms != 1) {
        Bad(s.field,
            "give one form: 'tensor' (constant(tensor)), 'dataType' and 'value' "
            "(constant(dataType, value)), or 'descriptor' with 'data' or 'buffer' "
            "(constant(descriptor, buffer))");
      }
      if (s.scalar_type || s.value) {
        if (!s.scalar_type || !s.scalar_type->is_string())
          Bad(s.field + ".dataType", "must be a string");
        if (!s.value) Bad(s.field, "missing 'value'");
      }
      if (s.descriptor || HasBuffer(s.buffer)) {
        if (!s.descriptor) Bad(s.field, "missing 'descriptor'");
        CheckDescriptorShape(*s.descriptor, s.field + ".descriptor", false);
        if (!HasBuffer(s.buffer)) Bad(s.field, "missing 'data' (or 'buffer')");
      }
      break;
    }
    case StepKind::kOperator:
      s.builder = RequiredName(v, "builder", s.field);
      s.op = DecodeOperator(v, s.field);
      break;
    case StepKind::kCreateBuffer: {
      s.buffer.buffer = RequiredName(v, "buffer", s.field);
      if (const Value* sh = v.Find("shared")) {
        if (!sh->is_bool()) Bad(s.field + ".shared", "must be true or false");
        s.shared = sh->boolean();
      }
      s.buffer.data = v.Find("data");
      if (const Value* n = v.Find("byteLength")) {
        if (!n->is_number() || !n->number().u)
          Bad(s.field + ".byteLength", "must be an integer >= 0");
        s.buffer.byte_length = *n->number().u;
      }
      if (const Value* t = v.Find("bufferType")) {
        if (!t->is_string()) Bad(s.field + ".bufferType", "must be a typed array name");
        s.buffer.type = t->str();
      }
      if (!s.buffer.data && !s.buffer.byte_length) Bad(s.field, "missing 'byteLength' (or 'data')");
      break;
    }
    case StepKind::kSetBuffer:
    case StepKind::kCheckBuffer:
    case StepKind::kDetachBuffer: {
      s.buffer.buffer = RequiredName(v, "buffer", s.field);
      if (s.kind == StepKind::kDetachBuffer) break;
      if (const Value* t = v.Find("bufferType")) {
        if (!t->is_string()) Bad(s.field + ".bufferType", "must be a typed array name");
        s.buffer.type = t->str();
      }
      const auto count = [&](const char* key) -> std::optional<uint64_t> {
        const Value* n = v.Find(key);
        if (!n) return std::nullopt;
        if (!n->is_number() || !n->number().u) Bad(s.field + "." + key, "must be an integer >= 0");
        return *n->number().u;
      };
      s.buffer.byte_offset = count("byteOffset");
      s.buffer.length = count("length");
      if (s.kind == StepKind::kSetBuffer) {
        s.buffer.data = v.Find("data");
        if (!s.buffer.data) Bad(s.field, "missing 'data'");
      } else {
        if (const Value* d = v.Find("detached")) {
          if (!d->is_bool()) Bad(s.field + ".detached", "must be true or false");
          s.expect_detached = d->boolean();
        }
        if (!s.expected && !s.expect_detached) Bad(s.field, "missing 'expected' (or 'detached')");
      }
      break;
    }
  }
  if (s.kind == StepKind::kCreateTensor || s.kind == StepKind::kCreateConstantTensor ||
      s.kind == StepKind::kReadTensor || s.kind == StepKind::kBuild) {
    s.promise = OptionalName(v, "promise", s.field);
    if (!s.promise.empty() && (s.expected_error || s.expected)) {
      Bad(s.field,
          "a step that keeps its promise ('promise') is checked by its await step: put "
          "'expected' and 'expectedError' there");
    }
  }
  return s;
}

}  // namespace

std::shared_ptr<const TimelineScript> DecodeTimeline(const Value& timeline, const Case& c) {
  if (!timeline.is_array()) Bad(c.Where() + ": timeline", "must be an array of steps");
  auto script = std::make_shared<TimelineScript>();
  for (size_t i = 0; i < timeline.items().size(); ++i) {
    script->steps.push_back(DecodeStep(timeline.items()[i], i, c, script->warnings));
  }
  return script;
}

}  // namespace nnref
