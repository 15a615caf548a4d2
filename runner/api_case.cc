#include "runner/api_case.h"

#include "ops/conv_common.h"
#include "runner/data.h"
#include "runner/json.h"

namespace nnref {

void AddCaseToBuilder(const Case& c, webnn::GraphBuilder& builder, BuiltCase& b,
                      const std::string& gpath, const ConstantTensorLookup& tensors) {
  for (const TensorSpec& in : c.inputs) {
    const std::string field = gpath + ".inputs." + in.name;
    Operand o;
    if (!in.constant_tensor.empty()) {
      if (!tensors) throw InputError(field + ".tensor: constant tensors exist only in timelines");
      o = builder.Constant(tensors(in));  // constant(tensor)
    } else if (in.constant) {
      // Check the descriptor before decoding so that a hostile shape never allocates.
      CheckDimensions(in.desc, builder.context().limits(), "constant '" + in.name + "'");
      const Tensor data =
          DecodeTensorData(*in.data, in.desc.dataType, in.desc.shape, field + ".data", c.base_dir);
      // DecodeTensorData returns a dense tensor that owns its buffer: pass its bytes directly.
      const std::span<const std::byte> bytes(data.buffer()->data(), data.buffer()->size());
      o = builder.Constant(in.desc, webnn::AllowSharedBufferSource(
                                        webnn::MatchingBufferType(in.desc.dataType), bytes));
    } else {
      o = builder.Input(in.name, in.desc);  // checks dimensions before the data is decoded
      if (in.data) {
        b.input_values[in.name] = DecodeTensorData(*in.data, in.desc.dataType, in.desc.shape,
                                                   field + ".data", c.base_dir);
      }
    }
    b.named[in.name] = o;
    b.operand_names[o.id.value] = in.name;
  }
  AddCaseOperators(c, builder.core(), b, gpath);
}

ApiCase BuildCaseOnContext(const Case& c, const std::vector<std::string>& outputs,
                           const BuilderLimits& limits, std::shared_ptr<const Backend> backend) {
  ApiCase a;
  webnn::MLContextOptions options;
  options.limits = limits;
  options.backend = std::move(backend);
  a.context = webnn::Context::Create(options).get();
  a.builder = std::make_unique<webnn::GraphBuilder>(a.context);
  AddCaseToBuilder(c, *a.builder, a.built, c.Where() + ": graph");
  webnn::MLNamedOperands named;
  for (const std::string& name : outputs) {
    const auto it = a.built.named.find(name);
    if (it == a.built.named.end()) {
      throw InputError(c.Where() + ": graph.expectedOutputs." + name +
                       ": no input or operator output has this name");
    }
    named[name] = it->second;
  }
  a.graph = a.builder->Build(named).get();
  a.built.graph = a.graph.implementation();
  a.built.output_names = outputs;
  // Inputs the graph does not use were decoded (their data is validated) but are not fed.
  for (auto it = a.built.input_values.begin(); it != a.built.input_values.end();) {
    it = a.graph.inputDescriptors().count(it->first) ? std::next(it)
                                                     : a.built.input_values.erase(it);
  }
  return a;
}

std::map<std::string, OperandValue> DispatchCase(ApiCase& a, const ExecutionObserver& observer) {
  webnn::Context& context = a.context;
  // All tensors are requested before any is awaited (Promise.all), so the timeline creates them
  // in one go.
  std::map<std::string, std::future<webnn::Tensor>> pending_inputs, pending_outputs;
  for (const auto& [name, desc] : a.graph.inputDescriptors()) {
    webnn::MLTensorDescriptor d;
    static_cast<OperandDescriptor&>(d) = desc;
    d.writable = true;
    pending_inputs[name] = context.CreateTensor(d);
  }
  for (const auto& [name, desc] : a.graph.outputDescriptors()) {
    webnn::MLTensorDescriptor d;
    static_cast<OperandDescriptor&>(d) = desc;
    d.readable = true;
    pending_outputs[name] = context.CreateTensor(d);
  }
  webnn::MLNamedTensors inputs, outputs;
  // The decoded input data is handed over to the tensors (no copy) and not kept here, so a large
  // case holds each input once.
  for (auto& [name, f] : pending_inputs) {
    inputs[name] = f.get();
    const auto it = a.built.input_values.find(name);
    if (it == a.built.input_values.end()) throw InputError("input '" + name + "' has no data");
    context.WriteTensorValue(inputs[name], std::move(it->second));
    a.built.input_values.erase(it);
  }
  for (auto& [name, f] : pending_outputs) outputs[name] = f.get();
  context.DispatchObserved(a.graph, inputs, outputs, observer);
  std::map<std::string, std::future<OperandValue>> reads;
  for (const auto& [name, t] : outputs) reads[name] = context.ReadTensorValue(t);
  std::map<std::string, OperandValue> values;
  for (auto& [name, f] : reads) values[name] = f.get();
  return values;
}

Value OpSupportLimitsValue(const MLOpSupportLimits& limits) {
  const auto number = [](uint64_t v) { return NumberValue(std::to_string(v)); };
  const auto tensor_limits = [&](const MLTensorLimits& l) {
    std::vector<Value> types;
    for (DataType t : l.dataTypes) types.push_back(Value::Str(std::string(DataTypeName(t))));
    return Value::Object({{"dataTypes", Value::Array(std::move(types))},
                          {"rankRange", Value::Object({{"min", number(l.rankRange.min)},
                                                       {"max", number(l.rankRange.max)}})}});
  };
  std::vector<std::pair<std::string, Value>> root;
  root.reserve(limits.operators.size() +
               5);  // (also avoids a GCC 12 -Warray-bounds false positive)
  root.emplace_back(
      "preferredInputLayout",
      Value::Str(kInputLayoutNames[static_cast<size_t>(limits.preferredInputLayout)]));
  root.emplace_back("maxTensorByteLength", number(limits.maxTensorByteLength));
  root.emplace_back("input", tensor_limits(limits.input));
  root.emplace_back("constant", tensor_limits(limits.constant));
  root.emplace_back("output", tensor_limits(limits.output));
  for (const MLOperatorSupportLimits& op : limits.operators) {
    std::vector<std::pair<std::string, Value>> members;
    for (const auto& [member, l] : op.members) {
      members.emplace_back(std::string(member), tensor_limits(l));
    }
    root.emplace_back(std::string(op.name), Value::Object(std::move(members)));
  }
  return Value::Object(std::move(root));
}

}  // namespace nnref
