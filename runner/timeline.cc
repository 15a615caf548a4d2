#include "runner/timeline.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <future>
#include <map>
#include <set>
#include <span>

#include "runner/api/webnn.h"
#include "runner/api_case.h"
#include "runner/data.h"
#include "runner/execute.h"

namespace nnref {

namespace {

[[noreturn]] void Bad(const std::string& where, const std::string& what) {
  throw InputError(where + ": " + what);
}

// ---------------------------------------------------------------------------------------------
// Decoding (structure only; WebIDL conversions such as an unknown data type happen when the step
// runs, where they are TypeErrors like in a browser).

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
  for (const char* flag : {"readable", "writable"}) {
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
        "detachBuffer, checkBuffer)");
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
            "must be an object with dataType, shape, readable, writable and/or constant");
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

namespace {

// ---------------------------------------------------------------------------------------------
// Running.

// A check of the step failed (not a spec error): the case fails here.
struct StepFailure {
  std::string message;
};

// The element type the values of a buffer are written in.
enum class Elements : uint8_t { kDataType, kInt16, kUint16, kFloat64 };

struct BufferElements {
  Elements kind = Elements::kDataType;
  DataType type = DataType::kUint8;  // for kDataType
  size_t size = 1;
};

BufferElements ElementsOf(webnn::BufferType t, DataType tensor_type) {
  using B = webnn::BufferType;
  switch (t) {
    case B::kArrayBuffer:
    case B::kSharedArrayBuffer:
    case B::kDataView:
      // Plain buffers hold the bytes of values of the tensor's own type.
      return {Elements::kDataType, tensor_type, ElementSize(tensor_type)};
    case B::kInt8Array:
      return {Elements::kDataType, DataType::kInt8, 1};
    case B::kUint8Array:
    case B::kUint8ClampedArray:
      return {Elements::kDataType, DataType::kUint8, 1};
    case B::kInt16Array:
      return {Elements::kInt16, DataType::kInt32, 2};
    case B::kUint16Array:
      return {Elements::kUint16, DataType::kUint32, 2};
    case B::kInt32Array:
      return {Elements::kDataType, DataType::kInt32, 4};
    case B::kUint32Array:
      return {Elements::kDataType, DataType::kUint32, 4};
    case B::kFloat16Array:
      return {Elements::kDataType, DataType::kFloat16, 2};
    case B::kFloat32Array:
      return {Elements::kDataType, DataType::kFloat32, 4};
    case B::kFloat64Array:
      return {Elements::kFloat64, DataType::kFloat32, 8};
    case B::kBigInt64Array:
      return {Elements::kDataType, DataType::kInt64, 8};
    case B::kBigUint64Array:
      return {Elements::kDataType, DataType::kUint64, 8};
  }
  return {};
}

double Float64Of(const Value& v, const std::string& where) {
  if (v.is_number()) return v.number().d;
  if (v.is_string()) {
    if (v.str() == "NaN") return std::nan("");
    if (v.str() == "Infinity") return INFINITY;
    if (v.str() == "-Infinity") return -INFINITY;
    if (v.str() == "-0") return -0.0;
  }
  Bad(where,
      "a Float64Array value must be a number, \"NaN\", \"Infinity\", \"-Infinity\" or \"-0\"");
}

// The byte length of a descriptor, UINT64_MAX when it does not fit.
uint64_t ByteLengthOf(DataType type, const Shape& shape) {
  const std::optional<uint64_t> count = CheckedElementCount(shape);
  const uint64_t size = ElementSize(type);
  return count && *count <= UINT64_MAX / size ? *count * size : UINT64_MAX;
}

// The bytes of the buffer a step describes, for a tensor of `tensor_type` and `tensor_bytes`.
// Buffers beyond `max_bytes` (a little more than any tensor the context accepts) are refused,
// except that a buffer sized by a descriptor the context cannot hold is left empty: the call then
// fails on the descriptor, before it looks at the buffer.
std::vector<std::byte> MakeBuffer(const BufferSpec& spec, webnn::BufferType type,
                                  DataType tensor_type, uint64_t tensor_bytes, uint64_t max_bytes,
                                  const std::string& field, const std::string& base_dir) {
  if (spec.byte_length && *spec.byte_length > max_bytes) {
    Bad(field + ".byteLength", std::to_string(*spec.byte_length) + " bytes is too large a buffer");
  }
  if (!spec.byte_length && tensor_bytes > max_bytes && (!spec.data || !spec.data->is_array())) {
    return {};
  }
  if (!spec.data) return std::vector<std::byte>(spec.byte_length.value_or(tensor_bytes));
  const BufferElements e = ElementsOf(type, tensor_type);
  uint64_t count = 0;
  if (spec.data->is_array()) {
    count = spec.data->items().size();
  } else {
    const uint64_t bytes = spec.byte_length.value_or(tensor_bytes);
    if (bytes % e.size) {
      Bad(field + ".data",
          "the buffer's " + std::to_string(bytes) + " bytes are not a whole number of elements");
    }
    count = bytes / e.size;
  }
  if (count > max_bytes / e.size) Bad(field + ".data", "the buffer is too large");
  std::vector<std::byte> out(count * e.size);
  const std::string where = field + ".data";
  if (e.kind == Elements::kFloat64) {
    std::vector<double> v;
    if (spec.data->is_array()) {
      for (const Value& x : spec.data->items()) v.push_back(Float64Of(x, where));
    } else {
      v.assign(count, Float64Of(*spec.data, where));
    }
    std::memcpy(out.data(), v.data(), out.size());
  } else {
    const Tensor t = DecodeTensorData(*spec.data, e.type, {count}, where, base_dir);
    if (e.kind == Elements::kDataType) {
      const std::vector<std::byte> b = t.Bytes();
      std::memcpy(out.data(), b.data(), out.size());
    } else {
      for (uint64_t i = 0; i < count; ++i) {
        const int64_t x =
            e.kind == Elements::kInt16 ? int64_t{t.At<int32_t>(i)} : int64_t{t.At<uint32_t>(i)};
        const bool ok =
            e.kind == Elements::kInt16 ? (x >= -32768 && x <= 32767) : (x >= 0 && x <= 65535);
        if (!ok) Bad(where, "value " + std::to_string(x) + " is out of range for the array type");
        const auto bits = static_cast<uint16_t>(x);
        std::memcpy(out.data() + i * 2, &bits, 2);
      }
    }
  }
  if (spec.byte_length && *spec.byte_length != out.size()) {
    Bad(field + ".byteLength", "the data holds " + std::to_string(out.size()) + " bytes, not " +
                                   std::to_string(*spec.byte_length));
  }
  return out;
}

// [EnforceRange] unsigned long and the MLOperandDataType enum, as WebIDL converts them.
webnn::MLTensorDescriptor ConvertDescriptor(const Value& d, const std::string& what) {
  webnn::MLTensorDescriptor desc;
  const std::string& type = d.Find("dataType")->str();
  const auto parsed = ParseDataType(type);
  if (!parsed) {
    throw WebnnError(ErrorType::kTypeError,
                     what + ": '" + type + "' is not a valid MLOperandDataType value");
  }
  desc.dataType = *parsed;
  const Value* shape = d.Find("shape");
  if (!shape) shape = d.Find("dimensions");
  for (const Value& e : shape->items()) {
    const Number& n = e.number();
    if (!n.u || *n.u > 4294967295u) {
      throw WebnnError(ErrorType::kTypeError, what + ": shape value " +
                                                  (n.text.empty() ? std::to_string(n.d) : n.text) +
                                                  " is not an unsigned long ([EnforceRange])");
    }
    desc.shape.push_back(*n.u);
  }
  if (const Value* r = d.Find("readable")) desc.readable = r->boolean();
  if (const Value* w = d.Find("writable")) desc.writable = w->boolean();
  return desc;
}

std::string Values(const Tensor& t, size_t max = 8) {
  std::string s = "[";
  const uint64_t n = t.element_count();
  for (uint64_t i = 0; i < n && i < max; ++i) s += (i ? ", " : "") + ElementText(t, i);
  if (n > max) s += ", ... (" + std::to_string(n) + " elements)";
  return s + "]";
}

// Whether `actual` holds everything `expected` does (objects: members, recursively; arrays:
// element by element; numbers by value). Returns the first difference, or "".
std::string Subset(const Value& expected, const Value& actual, const std::string& path) {
  if (expected.is_object()) {
    if (!actual.is_object()) return path + ": expected an object";
    for (const auto& [k, v] : expected.members()) {
      const Value* a = actual.Find(k);
      if (!a) return path + "." + k + ": missing";
      std::string d = Subset(v, *a, path + "." + k);
      if (!d.empty()) return d;
    }
    return "";
  }
  if (expected.is_array()) {
    if (!actual.is_array() || actual.items().size() != expected.items().size()) {
      return path + ": expected " + std::to_string(expected.items().size()) + " items";
    }
    for (size_t i = 0; i < expected.items().size(); ++i) {
      std::string d =
          Subset(expected.items()[i], actual.items()[i], path + "[" + std::to_string(i) + "]");
      if (!d.empty()) return d;
    }
    return "";
  }
  if (expected.is_number()) {
    return actual.is_number() && actual.number().d == expected.number().d
               ? ""
               : path + ": expected " + expected.number().text;
  }
  if (expected.is_string()) {
    return actual.is_string() && actual.str() == expected.str()
               ? ""
               : path + ": expected '" + expected.str() + "'";
  }
  if (expected.is_bool()) {
    return actual.is_bool() && actual.boolean() == expected.boolean()
               ? ""
               : path + ": expected " + (expected.boolean() ? "true" : "false");
  }
  return actual.is_null() ? "" : path + ": expected null";
}

class Runner {
 public:
  Runner(const Case& c, const BuilderLimits& limits, bool exact,
         std::shared_ptr<const Backend> backend)
      : c_(c), limits_(limits), exact_(exact), backend_(std::move(backend)) {}

  TimelineResult Run() {
    r_.warnings = c_.timeline->warnings;
    for (const TimelineStep& s : c_.timeline->steps) {
      log_.clear();
      rejected_ = false;
      std::optional<WebnnError> error;
      try {
        Execute(s);
      } catch (const WebnnError& e) {
        error = e;
      } catch (const StepFailure& f) {
        Fail(s, f.message);
        return r_;
      }
      for (const std::string& w : operands_.warnings) r_.warnings.push_back(w);
      operands_.warnings.clear();
      // How the error arrived: as the rejection of a promise the step awaited, or thrown.
      const char* how = rejected_ ? "rejected" : "thrown";
      if (s.expected_error) {
        std::string expected = *s.expected_error;
        if (s.expected_how == ErrorHow::kThrown) expected += " (thrown)";
        if (s.expected_how == ErrorHow::kRejected) expected += " (rejected)";
        if (!error) {
          Fail(s, "expected " + expected + ", but the step succeeded");
          return r_;
        }
        const std::string got(ErrorTypeName(error->type()));
        if (got != *s.expected_error) {
          Fail(s, "expected " + expected + ", got " + got + " (" + how + "): " + error->what());
          return r_;
        }
        if ((s.expected_how == ErrorHow::kThrown && rejected_) ||
            (s.expected_how == ErrorHow::kRejected && !rejected_)) {
          Fail(s,
               "expected " + expected + ", but the " + got + " was " + how + ": " + error->what());
          return r_;
        }
        r_.log.push_back(Prefix(s) + got + " " + how + " as expected (" + error->what() + ")");
      } else if (error) {
        Fail(s, "unexpected " + std::string(ErrorTypeName(error->type())) + " (" + how +
                    "): " + error->what());
        return r_;
      } else {
        r_.log.push_back(Prefix(s) + (log_.empty() ? "ok" : log_));
      }
    }
    return r_;
  }

 private:
  struct GraphEntry {
    webnn::Graph graph;
  };
  // Where a tensor's current data came from: the default tolerance of its reads.
  struct Provenance {
    std::shared_ptr<const nnref::Graph> graph;
    OperandId id;
  };
  struct Promise {
    const TimelineStep* step = nullptr;
    // After the first await: the outcome, replayed by later awaits of the same promise.
    bool settled = false;
    std::optional<WebnnError> error;
    webnn::Tensor settled_tensor;
    webnn::Graph settled_graph;
    OperandValue settled_value;
    std::future<webnn::Tensor> tensor;
    std::future<webnn::Graph> graph;
    // readTensor: the read, and for the BYOB form the buffer and a read of the latitude.
    std::future<OperandValue> value;
    std::future<void> byob;
    // The BYOB target: its bytes, and the storage they live in (kept alive while the promise is).
    std::span<std::byte> byob_target;
    std::shared_ptr<std::vector<std::byte>> byob_buffer;
    webnn::Tensor read_of;
    std::optional<Provenance> provenance;
  };

  static std::string Prefix(const TimelineStep& s) {
    return "[" + std::to_string(s.index) + "] " + s.method + ": ";
  }

  void Fail(const TimelineStep& s, const std::string& message) {
    r_.verdict = TimelineResult::Verdict::kFail;
    r_.message = s.where + ": " + message;
    r_.log.push_back(Prefix(s) + "FAILED: " + message);
  }

  webnn::Context& Ctx(const TimelineStep& s) {
    auto it = contexts_.find(s.context);
    if (it == contexts_.end()) {
      if (s.context != "context") {
        Bad(s.field + ".context", "no context named '" + s.context + "' (createContext first)");
      }
      webnn::MLContextOptions o;
      o.limits = limits_;
      o.backend = backend_;
      it = contexts_.emplace(s.context, webnn::Context::Create(o).get()).first;
    }
    return it->second;
  }

  webnn::Tensor& TensorNamed(const TimelineStep& s, const std::string& name,
                             const std::string& member) {
    const auto it = tensors_.find(name);
    if (it == tensors_.end()) {
      Bad(s.field + "." + member, "no tensor named '" + name +
                                      "' (no createTensor or "
                                      "createConstantTensor step created it)");
    }
    return it->second;
  }

  webnn::Graph& GraphNamed(const TimelineStep& s, const std::string& name) {
    const auto it = graphs_.find(name);
    if (it == graphs_.end()) {
      Bad(s.field + ".graph", "no graph named '" + name + "' (no build step created it)");
    }
    return it->second.graph;
  }

  void Keep(const TimelineStep& s, Promise p) {
    p.step = &s;
    promises_[s.promise] = std::move(p);
    log_ = "promise kept as '" + s.promise + "'";
  }

  void Execute(const TimelineStep& s) {
    switch (s.kind) {
      case StepKind::kCreateContext:
        CreateContext(s);
        return;
      case StepKind::kCreateTensor: {
        webnn::Context& ctx = Ctx(s);
        Promise p;
        // A promise-returning method: a WebIDL conversion error is a rejection.
        try {
          p.tensor = ctx.CreateTensor(ConvertDescriptor(*s.descriptor, "createTensor"));
        } catch (const WebnnError& e) {
          p.tensor = RejectedWith<webnn::Tensor>(e);
        }
        if (!s.promise.empty()) return Keep(s, std::move(p));
        BindTensor(s, Settle(p.tensor));
        return;
      }
      case StepKind::kCreateConstantTensor: {
        webnn::Context& ctx = Ctx(s);
        Promise p;
        std::optional<webnn::MLTensorDescriptor> d;
        try {
          d = ConvertDescriptor(*s.descriptor, "createConstantTensor");
        } catch (const WebnnError& e) {
          p.tensor = RejectedWith<webnn::Tensor>(e);
        }
        if (d) {
          std::vector<std::byte> owned;
          const webnn::AllowSharedBufferSource source =
              Source(s, s.buffer, d->dataType, ByteLengthOf(d->dataType, d->shape), owned);
          p.tensor = ctx.CreateConstantTensor(*d, source);
        }
        if (!s.promise.empty()) return Keep(s, std::move(p));
        BindTensor(s, Settle(p.tensor));
        return;
      }
      case StepKind::kWriteTensor: {
        webnn::Context& ctx = Ctx(s);
        const webnn::Tensor& t = TensorNamed(s, s.tensor, "tensor");
        std::vector<std::byte> owned;
        const webnn::AllowSharedBufferSource source =
            Source(s, s.buffer, t.dataType(), ByteLength(t), owned);
        ctx.WriteTensor(t, source);
        provenance_.erase(s.tensor);
        log_ = std::to_string(source.bytes.size()) + " bytes (" +
               std::string(webnn::BufferTypeName(source.type)) + ")";
        return;
      }
      case StepKind::kReadTensor: {
        Promise p = StartRead(s);
        if (!s.promise.empty()) return Keep(s, std::move(p));
        CheckRead(s, p, SettleRead(p));
        return;
      }
      case StepKind::kBuild:
        Build(s);
        return;
      case StepKind::kDispatch:
        Dispatch(s);
        return;
      case StepKind::kDestroyTensor:
        TensorNamed(s, s.tensor, "tensor").Destroy();
        return;
      case StepKind::kDestroyGraph:
        GraphNamed(s, s.graph).Destroy();
        return;
      case StepKind::kDestroyContext:
        Ctx(s).Destroy();
        return;
      case StepKind::kAwait:
        Await(s);
        return;
      case StepKind::kLost: {
        const bool expected = s.expected ? s.expected->boolean() : true;
        webnn::Context& ctx = Ctx(s);
        if (ctx.IsLost() != expected) {
          throw StepFailure{std::string("the context is ") + (expected ? "not lost" : "lost")};
        }
        log_ = expected ? "lost: " + ctx.lost().get().message : "not lost";
        return;
      }
      case StepKind::kCheckTensor:
        CheckTensor(s);
        return;
      case StepKind::kCheckContext: {
        webnn::Context& ctx = Ctx(s);
        std::string diff;
        if (const Value* a = s.expected->Find("accelerated");
            a && a->boolean() != ctx.accelerated()) {
          diff += std::string(" accelerated is ") + (ctx.accelerated() ? "true" : "false") + ";";
        }
        if (const Value* l = s.expected->Find("lost"); l && l->boolean() != ctx.IsLost()) {
          diff += std::string(" lost is ") + (ctx.IsLost() ? "true" : "false") + ";";
        }
        if (!diff.empty()) throw StepFailure{"context '" + s.context + "':" + diff};
        return;
      }
      case StepKind::kOpSupportLimits: {
        const Value actual = OpSupportLimitsValue(Ctx(s).OpSupportLimits());
        const std::string diff = Subset(*s.expected, actual, "opSupportLimits()");
        if (!diff.empty()) throw StepFailure{diff};
        return;
      }
      case StepKind::kCreateBuilder: {
        webnn::Context& ctx = Ctx(s);
        builder_store_.push_back(std::make_unique<webnn::GraphBuilder>(ctx));
        builders_[s.builder] = builder_store_.back().get();
        log_ = "builder '" + s.builder + "' on context '" + s.context + "'";
        return;
      }
      case StepKind::kInput: {
        webnn::GraphBuilder& b = BuilderNamed(s);
        const webnn::MLOperandDescriptor d = ConvertDescriptor(*s.descriptor, "input");
        BindOperand(s, s.operand, b.Input(s.input_name, d));
        return;
      }
      case StepKind::kConstant:
        Constant(s);
        return;
      case StepKind::kOperator: {
        webnn::GraphBuilder& b = BuilderNamed(s);
        AddCaseOperator(s.op, b.core(), operands_, s.field);
        log_ = s.op.name + " ->";
        for (const std::string& out : s.op.outputs) {
          const webnn::Operand o(operands_.named.at(out));
          log_ += " '" + out + "' " + std::string(DataTypeName(o.dataType())) +
                  ShapeToString(o.shape());
        }
        return;
      }
      case StepKind::kCreateBuffer:
        CreateBuffer(s);
        return;
      case StepKind::kSetBuffer: {
        ScriptBuffer& buf = BufferNamed(s.buffer.buffer, s.field + ".buffer");
        if (*buf.detached) Bad(s.field + ".buffer", "buffer '" + s.buffer.buffer + "' is detached");
        const View v = ViewOf(s.buffer, std::nullopt, s.field, true);
        BufferSpec spec{s.buffer.type, s.buffer.data, std::nullopt, "", {}, {}};
        if (!s.buffer.data->is_array()) spec.byte_length = v.bytes.size();
        const std::vector<std::byte> bytes = MakeBuffer(
            spec, v.type, DataType::kUint8, v.bytes.size(), MaxBuffer(), s.field, c_.base_dir);
        if (bytes.size() > v.bytes.size()) {
          Bad(s.field + ".data", std::to_string(bytes.size()) + " bytes do not fit the view's " +
                                     std::to_string(v.bytes.size()));
        }
        if (!bytes.empty()) std::memcpy(v.bytes.data(), bytes.data(), bytes.size());
        log_ = std::to_string(bytes.size()) + " bytes at byte offset " + std::to_string(v.offset) +
               " of '" + s.buffer.buffer + "'";
        return;
      }
      case StepKind::kDetachBuffer: {
        ScriptBuffer& buf = BufferNamed(s.buffer.buffer, s.field + ".buffer");
        if (buf.shared) {
          Bad(s.field + ".buffer",
              "'" + s.buffer.buffer + "' is a SharedArrayBuffer, which cannot be detached");
        }
        if (*buf.detached)
          Bad(s.field + ".buffer", "'" + s.buffer.buffer + "' is already detached");
        // ArrayBuffer.prototype.transfer(): the buffer's byte length becomes 0 and every view of it
        // has length 0. (The bytes stay allocated here, so a pending read's target stays valid.)
        *buf.detached = true;
        return;
      }
      case StepKind::kCheckBuffer:
        CheckBuffer(s);
        return;
    }
  }

  // -------------------------------------------------------------------------------------------
  // Promises and errors.

  // Awaits a promise: an error it throws is a rejection.
  template <typename T>
  T Settle(std::future<T>& f) {
    try {
      return f.get();
    } catch (const WebnnError&) {
      rejected_ = true;
      throw;
    }
  }

  void Settle(std::future<void>& f) {
    try {
      f.get();
    } catch (const WebnnError&) {
      rejected_ = true;
      throw;
    }
  }

  template <typename T>
  static std::future<T> RejectedWith(const WebnnError& e) {
    std::promise<T> p;
    p.set_exception(std::make_exception_ptr(e));
    return p.get_future();
  }

  // -------------------------------------------------------------------------------------------
  // Named script buffers and their views.

  struct ScriptBuffer {
    std::shared_ptr<std::vector<std::byte>> bytes;
    std::shared_ptr<bool> detached = std::make_shared<bool>(false);
    bool shared = false;
  };

  // A view of a named buffer, as a script would make it (new Float32Array(buffer, byteOffset,
  // length), new DataView(...), or the buffer itself).
  struct View {
    webnn::BufferType type;
    std::span<std::byte> bytes;  // empty once the buffer is detached
    uint64_t offset = 0;
    ScriptBuffer buffer;
  };

  ScriptBuffer& BufferNamed(const std::string& name, const std::string& field) {
    const auto it = buffers_.find(name);
    if (it == buffers_.end()) {
      Bad(field, "no buffer named '" + name + "' (no createBuffer step created it)");
    }
    return it->second;
  }

  // `tensor_type` gives the default view type (the one matching it); `typed_only` refuses
  // ArrayBuffer, SharedArrayBuffer and DataView (setBuffer, checkBuffer: values need an element
  // type).
  View ViewOf(const BufferSpec& spec, std::optional<DataType> tensor_type, const std::string& field,
              bool typed_only) {
    View v;
    v.buffer = BufferNamed(spec.buffer, field + ".buffer");
    if (!spec.type.empty()) {
      const auto t = webnn::ParseBufferType(spec.type);
      if (!t)
        Bad(field + ".bufferType",
            "must be ArrayBuffer, SharedArrayBuffer, DataView or a typed array name");
      v.type = *t;
    } else {
      v.type =
          tensor_type ? webnn::MatchingBufferType(*tensor_type) : webnn::BufferType::kUint8Array;
    }
    using B = webnn::BufferType;
    std::vector<std::byte>& all = *v.buffer.bytes;
    const uint64_t size = all.size();
    if (v.type == B::kArrayBuffer || v.type == B::kSharedArrayBuffer) {
      if (typed_only)
        Bad(field + ".bufferType", "must be a typed array name (Float32Array, Uint8Array, ...)");
      if (spec.byte_offset || spec.length) {
        Bad(field,
            "the buffer itself (" + spec.type + ") has no byteOffset or length; use a view type");
      }
      if ((v.type == B::kSharedArrayBuffer) != v.buffer.shared) {
        Bad(field + ".bufferType",
            "buffer '" + spec.buffer + "' is " +
                (v.buffer.shared ? "a SharedArrayBuffer" : "an ArrayBuffer"));
      }
      if (!*v.buffer.detached) v.bytes = std::span<std::byte>(all);
      return v;
    }
    if (typed_only && v.type == B::kDataView) {
      Bad(field + ".bufferType", "must be a typed array name (Float32Array, Uint8Array, ...)");
    }
    // The RangeErrors of the typed array and DataView constructors are script errors here.
    const uint64_t es = webnn::BufferElementSize(v.type);
    const uint64_t offset = spec.byte_offset.value_or(0);
    const std::string name(webnn::BufferTypeName(v.type));
    if (offset % es) {
      Bad(field + ".byteOffset",
          "the byte offset of a " + name + " must be a multiple of " + std::to_string(es));
    }
    if (offset > size) {
      Bad(field + ".byteOffset",
          std::to_string(offset) + " is beyond the buffer's " + std::to_string(size) + " bytes");
    }
    uint64_t length = 0;
    if (spec.length) {
      length = *spec.length;
      if (length > (size - offset) / es) {
        Bad(field + ".length", std::to_string(length) + " elements from byte " +
                                   std::to_string(offset) + " do not fit the buffer's " +
                                   std::to_string(size) + " bytes");
      }
    } else {
      if ((size - offset) % es) {
        Bad(field + ".length", "the " + std::to_string(size - offset) +
                                   " bytes after the offset are not a whole number of " + name +
                                   " elements; give 'length'");
      }
      length = (size - offset) / es;
    }
    v.offset = offset;
    if (!*v.buffer.detached) v.bytes = std::span<std::byte>(all).subspan(offset, length * es);
    return v;
  }

  // The AllowSharedBufferSource a step passes: inline bytes (kept in `owned`) or a view of a named
  // buffer.
  webnn::AllowSharedBufferSource Source(const TimelineStep& s, const BufferSpec& spec,
                                        DataType type, uint64_t tensor_bytes,
                                        std::vector<std::byte>& owned) {
    if (!spec.buffer.empty()) {
      const View v = ViewOf(spec, type, s.field, false);
      return webnn::AllowSharedBufferSource(v.type, v.bytes);
    }
    const webnn::BufferType t = BufferTypeFor(spec, type);
    owned = MakeBuffer(spec, t, type, tensor_bytes, MaxBuffer(), s.field, c_.base_dir);
    return webnn::AllowSharedBufferSource(t, owned);
  }

  void CreateBuffer(const TimelineStep& s) {
    ScriptBuffer buf;
    buf.shared = s.shared;
    const BufferSpec& spec = s.buffer;
    if (spec.byte_length && *spec.byte_length > MaxBuffer()) {
      Bad(s.field + ".byteLength",
          std::to_string(*spec.byte_length) + " bytes is too large a buffer");
    }
    std::vector<std::byte> bytes(spec.byte_length.value_or(0));
    if (spec.data) {
      webnn::BufferType type = webnn::BufferType::kUint8Array;
      if (!spec.type.empty()) {
        const auto t = webnn::ParseBufferType(spec.type);
        using B = webnn::BufferType;
        if (!t || *t == B::kArrayBuffer || *t == B::kSharedArrayBuffer || *t == B::kDataView) {
          Bad(s.field + ".bufferType",
              "must be a typed array name (the type 'data' is written in)");
        }
        type = *t;
      }
      BufferSpec init{spec.type, spec.data, std::nullopt, "", {}, {}};
      if (!spec.data->is_array()) init.byte_length = spec.byte_length;
      if (!spec.data->is_array() && !spec.byte_length) {
        Bad(s.field + ".byteLength", "a single value or generator needs the buffer's byteLength");
      }
      const std::vector<std::byte> data =
          MakeBuffer(init, type, DataType::kUint8, 0, MaxBuffer(), s.field, c_.base_dir);
      if (!spec.byte_length) bytes.resize(data.size());
      if (data.size() > bytes.size()) {
        Bad(s.field + ".data", std::to_string(data.size()) + " bytes do not fit byteLength " +
                                   std::to_string(bytes.size()));
      }
      if (!data.empty()) std::memcpy(bytes.data(), data.data(), data.size());
    }
    buf.bytes = std::make_shared<std::vector<std::byte>>(std::move(bytes));
    log_ = std::string(buf.shared ? "SharedArrayBuffer" : "ArrayBuffer") + " '" + spec.buffer +
           "' of " + std::to_string(buf.bytes->size()) + " bytes";
    buffers_[spec.buffer] = std::move(buf);
  }

  static std::string ElementString(webnn::BufferType type, const std::byte* p) {
    using B = webnn::BufferType;
    const auto text = [&](DataType t) {
      Tensor x = Tensor::Allocate(t, {1});
      std::memcpy(x.buffer()->data(), p, ElementSize(t));
      return ElementText(x, 0);
    };
    switch (type) {
      case B::kInt8Array:
        return text(DataType::kInt8);
      case B::kInt16Array: {
        int16_t v;
        std::memcpy(&v, p, 2);
        return std::to_string(v);
      }
      case B::kUint16Array: {
        uint16_t v;
        std::memcpy(&v, p, 2);
        return std::to_string(v);
      }
      case B::kInt32Array:
        return text(DataType::kInt32);
      case B::kUint32Array:
        return text(DataType::kUint32);
      case B::kFloat16Array:
        return text(DataType::kFloat16);
      case B::kFloat32Array:
        return text(DataType::kFloat32);
      case B::kFloat64Array: {
        double v;
        std::memcpy(&v, p, 8);
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.17g", v);
        return buf;
      }
      case B::kBigInt64Array:
        return text(DataType::kInt64);
      case B::kBigUint64Array:
        return text(DataType::kUint64);
      default:
        return text(DataType::kUint8);
    }
  }

  void CheckBuffer(const TimelineStep& s) {
    ScriptBuffer& buf = BufferNamed(s.buffer.buffer, s.field + ".buffer");
    if (s.expect_detached && *s.expect_detached != *buf.detached) {
      throw StepFailure{"buffer '" + s.buffer.buffer + "' is " +
                        (*buf.detached ? "detached" : "not detached")};
    }
    const View v = ViewOf(s.buffer, std::nullopt, s.field, true);
    if (!s.expected) {
      log_ = *buf.detached ? "detached" : "not detached";
      return;
    }
    if (*buf.detached) throw StepFailure{"buffer '" + s.buffer.buffer + "' is detached"};
    BufferSpec spec{s.buffer.type, s.expected, std::nullopt, "", {}, {}};
    if (!s.expected->is_array()) spec.byte_length = v.bytes.size();
    const std::vector<std::byte> want = MakeBuffer(spec, v.type, DataType::kUint8, v.bytes.size(),
                                                   MaxBuffer(), s.field + ".expected", c_.base_dir);
    const size_t es = webnn::BufferElementSize(v.type);
    if (want.size() != v.bytes.size()) {
      Bad(s.field + ".expected", "holds " + std::to_string(want.size() / es) +
                                     " elements but the view has " +
                                     std::to_string(v.bytes.size() / es));
    }
    std::string shown = "[";
    for (size_t i = 0; i < v.bytes.size() / es; ++i) {
      const std::string got = ElementString(v.type, v.bytes.data() + i * es);
      if (std::memcmp(want.data() + i * es, v.bytes.data() + i * es, es) != 0) {
        throw StepFailure{"buffer '" + s.buffer.buffer + "' element " + std::to_string(i) +
                          " (byte " + std::to_string(v.offset + i * es) + "): expected " +
                          ElementString(v.type, want.data() + i * es) + ", got " + got};
      }
      if (i < 8) shown += (i ? ", " : "") + got;
    }
    log_ = "'" + s.buffer.buffer + "' = " + shown + (v.bytes.size() / es > 8 ? ", ...]" : "]");
  }

  // -------------------------------------------------------------------------------------------
  // Named builders.

  webnn::GraphBuilder& BuilderNamed(const TimelineStep& s) {
    const auto it = builders_.find(s.builder);
    if (it == builders_.end()) {
      Bad(s.field + ".builder", "no builder named '" + s.builder + "' (createBuilder first)");
    }
    return *it->second;
  }

  void BindOperand(const TimelineStep& s, const std::string& name, const webnn::Operand& o) {
    (void)s;
    operands_.named[name] = o.core();
    log_ = "'" + name + "' " + std::string(DataTypeName(o.dataType())) + ShapeToString(o.shape());
  }

  void Constant(const TimelineStep& s) {
    webnn::GraphBuilder& b = BuilderNamed(s);
    if (!s.tensor.empty()) {  // constant(tensor)
      BindOperand(s, s.operand, b.Constant(TensorNamed(s, s.tensor, "tensor")));
      return;
    }
    if (s.scalar_type) {  // constant(dataType, value): WebIDL converts both first
      const auto type = ParseDataType(s.scalar_type->str());
      if (!type) {
        throw WebnnError(ErrorType::kTypeError, "constant: '" + s.scalar_type->str() +
                                                    "' is not a valid MLOperandDataType value");
      }
      const std::optional<MLNumber> value = NumberFromValue(*s.value);
      if (!value) {
        Bad(s.field + ".value",
            "must be a number, \"NaN\", \"Infinity\", \"-Infinity\", \"-0\" or a decimal integer "
            "string");
      }
      BindOperand(s, s.operand, b.Constant(*type, *value));
      return;
    }
    // constant(descriptor, buffer)
    const webnn::MLOperandDescriptor d = ConvertDescriptor(*s.descriptor, "constant");
    std::vector<std::byte> owned;
    const webnn::AllowSharedBufferSource source =
        Source(s, s.buffer, d.dataType, ByteLengthOf(d.dataType, d.shape), owned);
    BindOperand(s, s.operand, b.Constant(d, source));
  }

  static uint64_t ByteLength(const webnn::Tensor& t) {
    return ByteLengthOf(t.dataType(), t.shape());
  }

  // The largest buffer a step may describe: a little beyond any tensor the contexts accept, so
  // that "one element too many" can still be tested.
  uint64_t MaxBuffer() const { return limits_.max_tensor_byte_length + 4096; }

  static webnn::BufferType BufferTypeFor(const BufferSpec& b, DataType type) {
    return b.type.empty() ? webnn::MatchingBufferType(type) : *webnn::ParseBufferType(b.type);
  }

  void CreateContext(const TimelineStep& s) {
    if (contexts_.count(s.context)) {
      Bad(s.field + ".context", "a context named '" + s.context + "' already exists");
    }
    webnn::MLContextOptions o;
    o.limits = limits_;
    o.backend = backend_;
    if (s.options) {
      if (const Value* p = s.options->Find("powerPreference")) {
        const std::string v = p->is_string() ? p->str() : "";
        if (v == "default") {
          o.powerPreference = webnn::MLPowerPreference::kDefault;
        } else if (v == "high-performance") {
          o.powerPreference = webnn::MLPowerPreference::kHighPerformance;
        } else if (v == "low-power") {
          o.powerPreference = webnn::MLPowerPreference::kLowPower;
        } else {
          rejected_ = true;  // createContext returns a promise: conversion errors reject it
          throw WebnnError(ErrorType::kTypeError,
                           "createContext: powerPreference is not a valid MLPowerPreference");
        }
      }
      if (const Value* a = s.options->Find("accelerated")) {
        if (!a->is_bool()) Bad(s.field + ".options.accelerated", "must be true or false");
        o.accelerated = a->boolean();
      }
    }
    contexts_.emplace(s.context, webnn::Context::Create(o).get());
  }

  void BindTensor(const TimelineStep& s, webnn::Tensor t) {
    log_ = "'" + s.tensor + "' " + std::string(DataTypeName(t.dataType())) +
           ShapeToString(t.shape()) + (t.readable() ? " readable" : "") +
           (t.writable() ? " writable" : "") + (t.constant() ? " constant" : "");
    tensors_[s.tensor] = std::move(t);
    provenance_.erase(s.tensor);
  }

  Promise StartRead(const TimelineStep& s) {
    webnn::Context& ctx = Ctx(s);
    const webnn::Tensor& t = TensorNamed(s, s.tensor, "tensor");
    Promise p;
    p.step = &s;
    p.read_of = t;
    if (const auto it = provenance_.find(s.tensor); it != provenance_.end()) {
      p.provenance = it->second;
    }
    if (!s.byob) {
      p.value = ctx.ReadTensorValue(t);
      return p;
    }
    webnn::AllowSharedBufferTarget target;
    if (!s.output_data.buffer.empty()) {  // a view of a named buffer, which may be detached
      const View v = ViewOf(s.output_data, t.dataType(), s.field + ".outputData", false);
      p.byob_buffer = v.buffer.bytes;
      p.byob_target = v.bytes;
      target = webnn::AllowSharedBufferTarget(v.type, v.bytes);
      target.detached = [detached = v.buffer.detached] { return *detached; };
    } else {
      const webnn::BufferType type = BufferTypeFor(s.output_data, t.dataType());
      p.byob_buffer = std::make_shared<std::vector<std::byte>>(
          MakeBuffer(s.output_data, type, t.dataType(), ByteLength(t), MaxBuffer(),
                     s.field + ".outputData", c_.base_dir));
      p.byob_target = std::span<std::byte>(*p.byob_buffer);
      target = webnn::AllowSharedBufferTarget(type, p.byob_target);
    }
    p.byob = ctx.ReadTensor(t, target);
    // A second read queued right behind it sees the same data and carries the latitude. It is
    // only used when the first one delivers.
    p.value = ctx.ReadTensorValue(t);
    return p;
  }

  // Awaits a read (throws its rejection).
  OperandValue SettleRead(Promise& p) {
    OperandValue got;
    if (p.byob_buffer) {
      Settle(p.byob);  // throws the rejection
      got = Settle(p.value);
      // The bytes that landed in the buffer are what the comparison sees.
      const std::span<const std::byte> bytes = p.byob_target;
      std::memcpy(got.data.buffer()->data(), bytes.data(),
                  std::min<size_t>(bytes.size(), got.data.buffer()->size()));
    } else {
      got = Settle(p.value);
    }
    return got;
  }

  // Logs and checks the data read; `s` holds the expectation (the readTensor or await step).
  void CheckRead(const TimelineStep& s, const Promise& p, const OperandValue& got) {
    log_ = "'" + p.step->tensor + "' = " + Values(got.data);
    if (s.expected) Compare(s, p, got);
  }

  void Compare(const TimelineStep& s, const Promise& p, const OperandValue& got) {
    const webnn::Tensor& t = p.read_of;
    const std::string field = s.field + ".expected";
    const Value* data = s.expected;
    TimelineCheck check;
    check.name = "timeline[" + std::to_string(s.index) + "] " + s.method + " " + p.step->tensor;
    const OperandDescriptor desc{t.dataType(), t.shape()};
    if (s.expected->is_object() && s.expected->Find("data")) {
      data = s.expected->Find("data");
      if (s.expected->Find("descriptor")) {
        const OperandDescriptor d = DecodeDescriptor(*s.expected, field);
        if (d != desc) {
          check.cmp.shape_ok = false;
          check.cmp.shape_message =
              "the step expects " + d.ToString() + " but the tensor is " + desc.ToString();
        }
      }
    }
    Tolerance tol = Tolerance::Ulp(0, "written data: exact");
    if (s.tolerance) {
      tol = *s.tolerance;
    } else if (c_.tolerance) {
      tol = *c_.tolerance;
    } else if (p.provenance) {
      tol = DefaultToleranceFor(*p.provenance->graph, p.provenance->id);
    }
    if (exact_) {
      tol = Tolerance::Ulp(0, "--exact: bit-exact, signed zeros included");
      tol.sign_exact = true;
    }
    check.tolerance = tol.Describe();
    if (check.cmp.shape_ok) {
      const Tensor expected =
          DecodeTensorData(*data, desc.dataType, desc.shape, field, c_.base_dir);
      check.cmp = CompareTensors(expected, got.data, got.latitude, tol, 5, got.one_of.get(),
                                 ReferenceSide::kActual);
    }
    if (!check.cmp.passed()) {
      r_.verdict = TimelineResult::Verdict::kFail;
      if (r_.message.empty()) r_.message = s.where + ": the data read differs from 'expected'";
      log_ += " (MISMATCH)";
    }
    r_.checks.push_back(std::move(check));
  }

  void Build(const TimelineStep& s) {
    if (!s.builder.empty()) {  // builder.build(outputs) on a named builder
      webnn::GraphBuilder& builder = BuilderNamed(s);
      webnn::MLNamedOperands outputs;
      for (const auto& [name, operand] : s.outputs) {
        const auto it = operands_.named.find(operand);
        if (it == operands_.named.end()) {
          Bad(s.field + ".outputs." + name,
              "no operand named '" + operand + "' (input, constant and operator steps name them)");
        }
        outputs[name] = it->second;
      }
      Promise p;
      p.graph = builder.Build(outputs);
      if (!s.promise.empty()) return Keep(s, std::move(p));
      BindGraph(s, Settle(p.graph));
      return;
    }
    webnn::Context& ctx = Ctx(s);
    Case def = s.graph_def;
    def.base_dir = c_.base_dir;
    webnn::GraphBuilder builder(ctx);  // InvalidStateError when the context is lost
    BuiltCase b;
    AddCaseToBuilder(def, builder, b, s.graph_path, [&](const TensorSpec& in) {
      return TensorNamed(s, in.constant_tensor, "inputs." + in.name + ".tensor");
    });
    for (const std::string& w : b.warnings) r_.warnings.push_back(w);
    webnn::MLNamedOperands outputs;
    for (const auto& [name, operand] : s.outputs) {
      const auto it = b.named.find(operand);
      if (it == b.named.end()) {
        Bad(s.graph_path + ".outputs." + name,
            "no input or operator output named '" + operand + "'");
      }
      outputs[name] = it->second;
    }
    Promise p;
    p.graph = builder.Build(outputs);
    if (!s.promise.empty()) return Keep(s, std::move(p));
    BindGraph(s, Settle(p.graph));
  }

  void BindGraph(const TimelineStep& s, webnn::Graph g) {
    log_ = "'" + s.graph + "' with " + std::to_string(g.inputDescriptors().size()) + " inputs, " +
           std::to_string(g.outputDescriptors().size()) + " outputs";
    graphs_[s.graph] = GraphEntry{std::move(g)};
  }

  void Dispatch(const TimelineStep& s) {
    webnn::Context& ctx = Ctx(s);
    const webnn::Graph& g = GraphNamed(s, s.graph);
    webnn::MLNamedTensors inputs, outputs;
    for (const auto& [name, tensor] : s.inputs) {
      inputs[name] = TensorNamed(s, tensor, "inputs." + name);
    }
    for (const auto& [name, tensor] : s.outputs) {
      outputs[name] = TensorNamed(s, tensor, "outputs." + name);
    }
    ctx.Dispatch(g, inputs, outputs);
    const std::shared_ptr<const nnref::Graph> impl = g.implementation();
    for (const auto& [name, tensor] : s.outputs) {
      for (const auto& [out, id] : impl->outputs()) {
        if (out == name) provenance_[tensor] = Provenance{impl, id};
      }
    }
  }

  void Await(const TimelineStep& s) {
    const auto it = promises_.find(s.promise);
    if (it == promises_.end()) {
      Bad(s.field + ".promise",
          "no promise named '" + s.promise + "' (a step with \"promise\" keeps one)");
    }
    Promise& p = it->second;
    const TimelineStep& origin = *p.step;
    if (s.expected && origin.kind != StepKind::kReadTensor) {
      Bad(s.field + ".expected", "only an awaited readTensor has expected data");
    }
    if (!p.settled) {  // the first await settles the promise; later ones see the same outcome
      p.settled = true;
      try {
        switch (origin.kind) {
          case StepKind::kCreateTensor:
          case StepKind::kCreateConstantTensor:
            p.settled_tensor = p.tensor.get();
            BindTensor(origin, p.settled_tensor);
            break;
          case StepKind::kBuild:
            p.settled_graph = p.graph.get();
            BindGraph(origin, p.settled_graph);
            break;
          case StepKind::kReadTensor:
            p.settled_value = SettleRead(p);
            break;
          default:
            break;
        }
      } catch (const WebnnError& e) {
        p.error = e;
      }
    } else if (origin.kind != StepKind::kReadTensor) {
      log_ = "settled before";
    }
    if (p.error) {
      rejected_ = true;  // an awaited promise can only reject
      throw *p.error;
    }
    if (origin.kind == StepKind::kReadTensor) CheckRead(s, p, p.settled_value);
  }

  void CheckTensor(const TimelineStep& s) {
    const webnn::Tensor& t = TensorNamed(s, s.tensor, "tensor");
    const Value& e = *s.expected;
    std::string diff;
    if (const Value* v = e.Find("dataType")) {
      if (!v->is_string() || v->str() != DataTypeName(t.dataType())) {
        diff += " dataType is " + std::string(DataTypeName(t.dataType())) + ";";
      }
    }
    if (const Value* v = e.Find("shape")) {
      Shape shape;
      bool ok = v->is_array();
      for (const Value& x : ok ? v->items() : std::vector<Value>{}) {
        if (!x.is_number() || !x.number().u) ok = false;
        if (ok) shape.push_back(*x.number().u);
      }
      if (!ok || shape != t.shape()) diff += " shape is " + ShapeToString(t.shape()) + ";";
    }
    const std::pair<const char*, bool> flags[] = {
        {"readable", t.readable()}, {"writable", t.writable()}, {"constant", t.constant()}};
    for (const auto& [name, actual] : flags) {
      if (const Value* v = e.Find(name)) {
        if (!v->is_bool()) Bad(s.field + ".expected." + name, "must be true or false");
        if (v->boolean() != actual) {
          diff += std::string(" ") + name + " is " + (actual ? "true" : "false") + ";";
        }
      }
    }
    if (!diff.empty()) throw StepFailure{"tensor '" + s.tensor + "':" + diff};
  }

  const Case& c_;
  BuilderLimits limits_;
  bool exact_;
  std::shared_ptr<const Backend> backend_;  // every context's kernels (null: the reference)
  TimelineResult r_;
  std::string log_;  // the current step's log detail
  std::map<std::string, webnn::Context> contexts_;
  std::map<std::string, webnn::Tensor> tensors_;
  std::map<std::string, GraphEntry> graphs_;
  std::map<std::string, Promise> promises_;
  std::map<std::string, Provenance> provenance_;  // by tensor name
  bool rejected_ = false;  // the current step's error came from a promise it awaited
  // Named builders, kept alive to the end (an operand of a builder must never outlive it), and
  // the operands of all of them in one namespace (with the builder warnings).
  std::vector<std::unique_ptr<webnn::GraphBuilder>> builder_store_;
  std::map<std::string, webnn::GraphBuilder*> builders_;
  BuiltCase operands_;
  std::map<std::string, ScriptBuffer> buffers_;
};

}  // namespace

TimelineResult RunTimeline(const Case& c, const BuilderLimits& limits, bool exact,
                           std::shared_ptr<const Backend> backend) {
  TimelineResult r;
  try {
    return Runner(c, limits, exact, std::move(backend)).Run();
  } catch (const InputError& e) {
    r.verdict = TimelineResult::Verdict::kError;
    r.message = e.what();
  }
  return r;
}

}  // namespace nnref
