#include "runner/timeline.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <future>
#include <map>
#include <set>

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
       {"tensor", "descriptor", "data", "bufferType", "byteLength", "promise"}},
      {"writeTensor", StepKind::kWriteTensor, {"tensor", "data", "bufferType", "byteLength"}},
      {"readTensor",
       StepKind::kReadTensor,
       {"tensor", "expected", "outputData", "tolerance", "promise"}},
      {"build",
       StepKind::kBuild,
       {"graph", "name", "inputs", "operators", "outputs", "expectedOutputs", "promise"}},
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
  if (const Value* n = obj.Find("byteLength")) {
    if (!n->is_number() || !n->number().u) Bad(field + ".byteLength", "must be an integer >= 0");
    b.byte_length = *n->number().u;
  }
  return b;
}

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
        "opSupportLimits)");
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
    if (!e->is_string() || e->str().empty()) {
      Bad(s.field + ".expectedError", "must be an error name (TypeError, InvalidStateError, ...)");
    }
    s.expected_error = e->str();
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
        if (!s.buffer.data && !s.buffer.byte_length) Bad(s.field, "missing 'data'");
      }
      break;
    }
    case StepKind::kWriteTensor:
      s.tensor = RequiredName(v, "tensor", s.field);
      s.buffer = DecodeBuffer(v, s.field);
      if (!s.buffer.data && !s.buffer.byte_length) Bad(s.field, "missing 'data'");
      break;
    case StepKind::kReadTensor:
      s.tensor = RequiredName(v, "tensor", s.field);
      if (const Value* o = v.Find("outputData")) {
        s.byob = true;
        if (o->is_object()) {
          s.output_data = DecodeBuffer(*o, s.field + ".outputData");
        } else if (!o->is_bool() || !o->boolean()) {
          Bad(s.field + ".outputData", "must be true or {\"bufferType\", \"byteLength\"}");
        }
      }
      break;
    case StepKind::kBuild: {
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
        if (outs->is_string()) {
          s.outputs.emplace_back(outs->str(), outs->str());
        } else if (outs->is_array()) {
          for (const Value& e : outs->items()) {
            if (!e.is_string()) Bad(s.graph_path + ".outputs", "must be names");
            s.outputs.emplace_back(e.str(), e.str());
          }
        } else {
          s.outputs = NameMap(*outs, s.graph_path + ".outputs");
        }
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
  Runner(const Case& c, const BuilderLimits& limits, bool exact)
      : c_(c), limits_(limits), exact_(exact) {}

  TimelineResult Run() {
    r_.warnings = c_.timeline->warnings;
    for (const TimelineStep& s : c_.timeline->steps) {
      log_.clear();
      std::optional<WebnnError> error;
      try {
        Execute(s);
      } catch (const WebnnError& e) {
        error = e;
      } catch (const StepFailure& f) {
        Fail(s, f.message);
        return r_;
      }
      if (s.expected_error) {
        if (!error) {
          Fail(s, "expected " + *s.expected_error + ", but the step succeeded");
          return r_;
        }
        const std::string got(ErrorTypeName(error->type()));
        if (got != *s.expected_error) {
          Fail(s, "expected " + *s.expected_error + ", got " + got + ": " + error->what());
          return r_;
        }
        r_.log.push_back(Prefix(s) + got + " as expected (" + error->what() + ")");
      } else if (error) {
        Fail(s, "unexpected " + std::string(ErrorTypeName(error->type())) + ": " + error->what());
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
        const webnn::MLTensorDescriptor d = ConvertDescriptor(*s.descriptor, "createTensor");
        Promise p;
        p.tensor = ctx.CreateTensor(d);
        if (!s.promise.empty()) return Keep(s, std::move(p));
        BindTensor(s, p.tensor.get());
        return;
      }
      case StepKind::kCreateConstantTensor: {
        webnn::Context& ctx = Ctx(s);
        const webnn::MLTensorDescriptor d =
            ConvertDescriptor(*s.descriptor, "createConstantTensor");
        const webnn::BufferType type = BufferTypeFor(s.buffer, d.dataType);
        const std::vector<std::byte> bytes =
            MakeBuffer(s.buffer, type, d.dataType, ByteLengthOf(d.dataType, d.shape), MaxBuffer(),
                       s.field, c_.base_dir);
        Promise p;
        p.tensor = ctx.CreateConstantTensor(d, webnn::AllowSharedBufferSource(type, bytes));
        if (!s.promise.empty()) return Keep(s, std::move(p));
        BindTensor(s, p.tensor.get());
        return;
      }
      case StepKind::kWriteTensor: {
        webnn::Context& ctx = Ctx(s);
        const webnn::Tensor& t = TensorNamed(s, s.tensor, "tensor");
        const webnn::BufferType type = BufferTypeFor(s.buffer, t.dataType());
        const std::vector<std::byte> bytes = MakeBuffer(s.buffer, type, t.dataType(), ByteLength(t),
                                                        MaxBuffer(), s.field, c_.base_dir);
        ctx.WriteTensor(t, webnn::AllowSharedBufferSource(type, bytes));
        provenance_.erase(s.tensor);
        log_ = std::to_string(bytes.size()) + " bytes (" +
               std::string(webnn::BufferTypeName(type)) + ")";
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
    }
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
    const webnn::BufferType type = BufferTypeFor(s.output_data, t.dataType());
    p.byob_buffer = std::make_shared<std::vector<std::byte>>(
        MakeBuffer(s.output_data, type, t.dataType(), ByteLength(t), MaxBuffer(),
                   s.field + ".outputData", c_.base_dir));
    p.byob = ctx.ReadTensor(t, webnn::AllowSharedBufferTarget(type, *p.byob_buffer));
    // A second read queued right behind it sees the same data and carries the latitude. It is
    // only used when the first one delivers.
    p.value = ctx.ReadTensorValue(t);
    return p;
  }

  // Awaits a read (throws its rejection).
  static OperandValue SettleRead(Promise& p) {
    OperandValue got;
    if (p.byob_buffer) {
      p.byob.get();  // throws the rejection
      got = p.value.get();
      // The bytes that landed in the buffer are what the comparison sees.
      const std::vector<std::byte>& bytes = *p.byob_buffer;
      std::memcpy(got.data.buffer()->data(), bytes.data(),
                  std::min<size_t>(bytes.size(), got.data.buffer()->size()));
    } else {
      got = p.value.get();
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
    BindGraph(s, p.graph.get());
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
    if (p.error) throw *p.error;
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
  TimelineResult r_;
  std::string log_;  // the current step's log detail
  std::map<std::string, webnn::Context> contexts_;
  std::map<std::string, webnn::Tensor> tensors_;
  std::map<std::string, GraphEntry> graphs_;
  std::map<std::string, Promise> promises_;
  std::map<std::string, Provenance> provenance_;  // by tensor name
};

}  // namespace

TimelineResult RunTimeline(const Case& c, const BuilderLimits& limits, bool exact) {
  TimelineResult r;
  try {
    return Runner(c, limits, exact).Run();
  } catch (const InputError& e) {
    r.verdict = TimelineResult::Verdict::kError;
    r.message = e.what();
  }
  return r;
}

}  // namespace nnref
