// Running timeline scripts (runner/timeline.h): the step loop, contexts, tensors, reads and
// awaits. Builders, build and dispatch are in timeline_graph.cc, buffers in timeline_buffers.cc
// (runner/timeline_runner.h).
#include "runner/timeline.h"

#include <algorithm>
#include <cstring>

#include "runner/data.h"
#include "runner/derived.h"
#include "runner/timeline_runner.h"

namespace nnref {
namespace timeline_internal {

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
  if (const Value* g = d.Find("importableToWebGPU")) desc.importableToWebGPU = g->boolean();
  return desc;
}

namespace {

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

}  // namespace

TimelineResult Runner::Run() {
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
        Fail(s, "expected " + expected + ", but the " + got + " was " + how + ": " + error->what());
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

void Runner::Fail(const TimelineStep& s, const std::string& message) {
  r_.verdict = Verdict::kFail;
  r_.message = s.where + ": " + message;
  r_.log.push_back(Prefix(s) + "FAILED: " + message);
}

webnn::Context& Runner::Ctx(const TimelineStep& s) {
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

webnn::Tensor& Runner::TensorNamed(const TimelineStep& s, const std::string& name,
                                   const std::string& member) {
  const auto it = tensors_.find(name);
  if (it == tensors_.end()) {
    Bad(s.field + "." + member, "no tensor named '" + name +
                                    "' (no createTensor or "
                                    "createConstantTensor step created it)");
  }
  return it->second;
}

webnn::Graph& Runner::GraphNamed(const TimelineStep& s, const std::string& name) {
  const auto it = graphs_.find(name);
  if (it == graphs_.end()) {
    Bad(s.field + ".graph", "no graph named '" + name + "' (no build step created it)");
  }
  return it->second.graph;
}

void Runner::Keep(const TimelineStep& s, Promise p) {
  p.step = &s;
  promises_[s.promise] = std::move(p);
  log_ = "promise kept as '" + s.promise + "'";
}

void Runner::Execute(const TimelineStep& s) {
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
      if (s.promise.empty()) CheckNotWaiting(s, TensorNamed(s, s.tensor, "tensor"), s.tensor);
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
    case StepKind::kDestroyTensor: {
      webnn::Tensor& t = TensorNamed(s, s.tensor, "tensor");
      t.Destroy();
      std::erase(waiting_, t);  // its pending reads are rejected now: nothing waits
      return;
    }
    case StepKind::kDestroyGraph:
      GraphNamed(s, s.graph).Destroy();
      return;
    case StepKind::kDestroyContext:
      Ctx(s).Destroy();
      waiting_.clear();  // a lost context's waiting work is aborted
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
    case StepKind::kInput:
      Input(s);
      return;
    case StepKind::kConstant:
      Constant(s);
      return;
    case StepKind::kOperator:
      Operator(s);
      return;
    case StepKind::kCreateBuffer:
      CreateBuffer(s);
      return;
    case StepKind::kSetBuffer:
      SetBuffer(s);
      return;
    case StepKind::kDetachBuffer:
      DetachBuffer(s);
      return;
    case StepKind::kCheckBuffer:
      CheckBuffer(s);
      return;
    case StepKind::kImportExternalBuffer:
      ImportExternalBuffer(s);
      return;
    case StepKind::kGpuWrite:
      GpuWrite(s);
      return;
    case StepKind::kGpuRead:
      GpuRead(s);
      return;
    case StepKind::kReturnBuffer:
      ReturnBuffer(s);
      return;
  }
}

void Runner::Settle(std::future<void>& f) {
  try {
    f.get();
  } catch (const WebnnError&) {
    rejected_ = true;
    throw;
  }
}

void Runner::CreateContext(const TimelineStep& s) {
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
  if (const Value* g = s.options ? s.options->Find("gpuDevice") : nullptr) {
    // createContext(gpuDevice): the named script GPU device (made on first use).
    if (!g->is_string() || g->str().empty()) Bad(s.field + ".options.gpuDevice", "must be a name");
    const std::shared_ptr<GpuApplication> gpu =
        GpuDeviceNamed(g->str(), s.field + ".options.gpuDevice");
    std::future<webnn::Context> created = webnn::Context::Create(gpu->device(), limits_);
    contexts_.emplace(s.context, Settle(created));
    log_ = "from GPU device '" + g->str() + "' (" + gpu->device()->Describe() + ")";
    return;
  }
  contexts_.emplace(s.context, webnn::Context::Create(o).get());
}

void Runner::BindTensor(const TimelineStep& s, webnn::Tensor t) {
  log_ = "'" + s.tensor + "' " + std::string(DataTypeName(t.dataType())) +
         ShapeToString(t.shape()) + (t.readable() ? " readable" : "") +
         (t.writable() ? " writable" : "") + (t.constant() ? " constant" : "");
  tensors_[s.tensor] = std::move(t);
  provenance_.erase(s.tensor);
}

Runner::Promise Runner::StartRead(const TimelineStep& s) {
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

OperandValue Runner::SettleRead(Promise& p) {
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

void Runner::CheckRead(const TimelineStep& s, const Promise& p, const OperandValue& got) {
  log_ = "'" + p.step->tensor + "' = " + Values(got.data);
  if (s.expected) Compare(s, p, got);
}

// The readTensor expectation, judged by runner/judge.h: the step's tolerance, else the case's,
// else the default of the operator whose output the tensor holds (written data: exact).
void Runner::Compare(const TimelineStep& s, const Promise& p, const OperandValue& got) {
  const webnn::Tensor& t = p.read_of;
  const std::string field = s.field + ".expected";
  const std::string name =
      "timeline[" + std::to_string(s.index) + "] " + s.method + " " + p.step->tensor;
  const Value* data = s.expected;
  const OperandDescriptor desc{t.dataType(), t.shape()};
  std::optional<std::string> mismatch;
  if (s.expected->is_object() && s.expected->Find("data")) {
    data = s.expected->Find("data");
    if (s.expected->Find("descriptor")) {
      const OperandDescriptor d = DecodeDescriptor(*s.expected, field);
      if (d != desc) {
        mismatch = "the step expects " + d.ToString() + " but the tensor is " + desc.ToString();
      }
    }
  }
  Judgement judged;
  judged.tolerance = Tolerance::Ulp(0, "written data: exact");
  if (s.tolerance) {
    judged.tolerance = *s.tolerance;
  } else if (c_.tolerance) {
    judged.tolerance = *c_.tolerance;
  } else if (p.provenance) {
    judged.tolerance = DefaultToleranceFor(*p.provenance->graph, p.provenance->id);
  }
  OutputResult out;
  if (mismatch) {
    // --exact names its own tolerance here too, as JudgeOutput does.
    if (judge_.exact) judged.tolerance = ExactTolerance();
    out = ShapeMismatch(name, judged, *mismatch);
  } else {
    const Tensor expected = DecodeTensorData(*data, desc.dataType, desc.shape, field, c_.base_dir);
    out = JudgeOutput(judge_, name, judged, expected, got.data, got, ReferenceSide::kActual);
  }
  if (!out.cmp.passed()) {
    r_.verdict = Verdict::kFail;
    if (r_.message.empty()) r_.message = s.where + ": the data read differs from 'expected'";
    log_ += " (MISMATCH)";
  }
  r_.outputs.push_back(std::move(out));
}

void Runner::Await(const TimelineStep& s) {
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
  if (!p.settled && origin.kind == StepKind::kReadTensor) {
    CheckNotWaiting(s, p.read_of, origin.tensor);
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

void Runner::CheckTensor(const TimelineStep& s) {
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
  const std::pair<const char*, bool> flags[] = {{"readable", t.readable()},
                                                {"writable", t.writable()},
                                                {"constant", t.constant()},
                                                {"importableToWebGPU", t.importableToWebGPU()}};
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

}  // namespace timeline_internal

TimelineResult RunTimeline(const Case& c, const BuilderLimits& limits, const JudgeOptions& judge,
                           std::shared_ptr<const Backend> backend) {
  TimelineResult r;
  try {
    return timeline_internal::Runner(c, limits, judge, std::move(backend)).Run();
  } catch (const InputError& e) {
    r.verdict = Verdict::kError;
    r.message = e.what();
  }
  return r;
}

}  // namespace nnref
