// Named builders and their steps, build and dispatch (runner/timeline_runner.h).
#include "runner/timeline_runner.h"

namespace nnref::timeline_internal {

webnn::GraphBuilder& Runner::BuilderNamed(const TimelineStep& s) {
  const auto it = builders_.find(s.builder);
  if (it == builders_.end()) {
    Bad(s.field + ".builder", "no builder named '" + s.builder + "' (createBuilder first)");
  }
  return *it->second;
}

void Runner::BindOperand(const TimelineStep& s, const std::string& name, const webnn::Operand& o) {
  (void)s;
  operands_.named[name] = o.core();
  log_ = "'" + name + "' " + std::string(DataTypeName(o.dataType())) + ShapeToString(o.shape());
}

void Runner::Input(const TimelineStep& s) {
  webnn::GraphBuilder& b = BuilderNamed(s);
  const webnn::MLOperandDescriptor d = ConvertDescriptor(*s.descriptor, "input");
  BindOperand(s, s.operand, b.Input(s.input_name, d));
}

void Runner::Constant(const TimelineStep& s) {
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

void Runner::Operator(const TimelineStep& s) {
  webnn::GraphBuilder& b = BuilderNamed(s);
  AddCaseOperator(s.op, b.core(), operands_, s.field);
  log_ = s.op.name + " ->";
  for (const std::string& out : s.op.outputs) {
    const webnn::Operand o(operands_.named.at(out));
    log_ += " '" + out + "' " + std::string(DataTypeName(o.dataType())) + ShapeToString(o.shape());
  }
}

void Runner::Build(const TimelineStep& s) {
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
      Bad(s.graph_path + ".outputs." + name, "no input or operator output named '" + operand + "'");
    }
    outputs[name] = it->second;
  }
  Promise p;
  p.graph = builder.Build(outputs);
  if (!s.promise.empty()) return Keep(s, std::move(p));
  BindGraph(s, Settle(p.graph));
}

void Runner::BindGraph(const TimelineStep& s, webnn::Graph g) {
  log_ = "'" + s.graph + "' with " + std::to_string(g.inputDescriptors().size()) + " inputs, " +
         std::to_string(g.outputDescriptors().size()) + " outputs";
  graphs_[s.graph] = GraphEntry{std::move(g)};
}

void Runner::Dispatch(const TimelineStep& s) {
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
  std::vector<webnn::Tensor> touched;
  for (const auto& [name, t] : inputs) touched.push_back(t);
  for (const auto& [name, t] : outputs) touched.push_back(t);
  NoteDispatch(touched);
  const std::shared_ptr<const nnref::Graph> impl = g.implementation();
  for (const auto& [name, tensor] : s.outputs) {
    for (const auto& [out, id] : impl->outputs()) {
      if (out == name) provenance_[tensor] = Provenance{impl, id};
    }
  }
}

}  // namespace nnref::timeline_internal
