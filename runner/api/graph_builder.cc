// MLGraphBuilder (WebNN §api-mlgraphbuilder): the constructor, input/constant/build, and the
// operator methods, which forward to the typed builder functions of ops/ after the "can build"
// check on the context (the core builder checks [[hasBuilt]] itself).
#include <cstring>
#include <deque>
#include <set>

#include "runner/api/internal.h"

namespace nnref::webnn {

using internal::Access;
using internal::BuilderImpl;
using internal::ContextImpl;
using internal::GraphImpl;
using internal::MakeError;
using internal::Pending;
using internal::Rejected;
using internal::SettleFromTimeline;
using internal::TensorImpl;

DataType Operand::dataType() const {
  if (!core_.builder) throw WebnnError(ErrorType::kTypeError, "the Operand handle is empty");
  return core_.builder->Desc(core_).dataType;
}

const Shape& Operand::shape() const {
  if (!core_.builder) throw WebnnError(ErrorType::kTypeError, "the Operand handle is empty");
  return core_.builder->Desc(core_).shape;
}

namespace {

std::vector<Operand> Wrap(const std::vector<nnref::Operand>& v) { return {v.begin(), v.end()}; }

}  // namespace

// §api-mlgraphbuilder-constructor
GraphBuilder::GraphBuilder(const Context& context) {
  const std::shared_ptr<ContextImpl>& c = Access::Of(context);
  if (!c) throw WebnnError(ErrorType::kTypeError, "MLGraphBuilder: the Context handle is empty");
  {
    std::lock_guard lock(*c->content_mu);
    if (c->lost) {  // step 2
      throw WebnnError(ErrorType::kInvalidStateError, "MLGraphBuilder: the context is lost");
    }
  }
  impl_ = std::make_unique<BuilderImpl>();  // steps 3-4
  impl_->context = c;
  impl_->core = std::make_unique<nnref::GraphBuilder>(c->options.limits);
}

GraphBuilder::~GraphBuilder() = default;
GraphBuilder::GraphBuilder(GraphBuilder&&) noexcept = default;
GraphBuilder& GraphBuilder::operator=(GraphBuilder&&) noexcept = default;

nnref::GraphBuilder& GraphBuilder::core() {
  if (!impl_) throw WebnnError(ErrorType::kInvalidStateError, "MLGraphBuilder: moved from");
  // "can build" also requires the context not to be lost.
  if (impl_->context->AbortWhenLost()) {
    throw WebnnError(ErrorType::kInvalidStateError, "MLGraphBuilder: the context is lost");
  }
  return *impl_->core;
}

Context GraphBuilder::context() const {
  if (!impl_) throw WebnnError(ErrorType::kInvalidStateError, "MLGraphBuilder: moved from");
  return Access::MakeContext(impl_->context);
}

// §api-mlgraphbuilder-input
Operand GraphBuilder::Input(const std::string& name, const MLOperandDescriptor& descriptor) {
  return core().Input(name, descriptor);
}

// §api-mlgraphbuilder-constant-buffer
Operand GraphBuilder::Constant(const MLOperandDescriptor& descriptor,
                               const AllowSharedBufferSource& buffer) {
  nnref::GraphBuilder& b = core();
  b.CheckCanBuild("constant");                                                        // step 1
  CheckDimensions(descriptor, b.limits(), "constant");                                // step 2
  if (!ValidateBufferWithDescriptor(buffer.type, buffer.bytes.size(), descriptor)) {  // step 3
    throw WebnnError(ErrorType::kTypeError,
                     "constant: a " + std::string(BufferTypeName(buffer.type)) + " of " +
                         std::to_string(buffer.bytes.size()) +
                         " bytes does not match the descriptor " + descriptor.ToString());
  }
  // Step 4: "a copy of the bytes held by the buffer source".
  nnref::Tensor data = nnref::Tensor::Allocate(descriptor.dataType, descriptor.shape);
  if (!buffer.bytes.empty()) {
    std::memcpy(data.buffer()->data(), buffer.bytes.data(), buffer.bytes.size());
  }
  return b.Constant(descriptor, data);
}

// §api-mlgraphbuilder-constant-datatype-value
Operand GraphBuilder::Constant(DataType dataType, const MLNumber& value) {
  return core().Constant(dataType, value);
}

// §api-mlgraphbuilder-constant-tensor
Operand GraphBuilder::Constant(const webnn::Tensor& tensor) {
  if (!impl_) throw WebnnError(ErrorType::kInvalidStateError, "MLGraphBuilder: moved from");
  const std::shared_ptr<TensorImpl>& t = Access::Of(tensor);
  if (!t) throw WebnnError(ErrorType::kTypeError, "constant: the tensor handle is empty");
  ContextImpl& c = *impl_->context;
  nnref::Tensor data;
  {
    std::lock_guard lock(*c.content_mu);
    if (t->context_id != c.id) {  // step 1
      throw WebnnError(ErrorType::kTypeError, "constant: the tensor belongs to another context");
    }
    if (t->is_destroyed) {  // step 2
      throw WebnnError(ErrorType::kTypeError, "constant: the tensor is destroyed");
    }
    if (!t->is_constant) {  // step 3
      throw WebnnError(ErrorType::kTypeError,
                       "constant: the tensor was not created by createConstantTensor()");
    }
    if (c.lost) {  // step 4 (context lost)
      throw WebnnError(ErrorType::kInvalidStateError, "constant: the context is lost");
    }
    // A constant tensor's data never changes once created (it is not writable), and the future
    // that handed out the tensor completed after the timeline created it.
    std::lock_guard data_lock(t->data_mu);
    data = t->data.data;
  }
  nnref::GraphBuilder& b = *impl_->core;
  b.CheckCanBuild("constant");  // step 4 ([[hasBuilt]])
  if (!data.valid()) {
    throw WebnnError(ErrorType::kTypeError, "constant: the tensor has no data");
  }
  // Step 5: the operand's value is the tensor's data (copied into the graph, so the graph stays
  // valid when the tensor is destroyed after build, as the note under dispatch() requires).
  const nnref::Operand operand = b.Constant(t->descriptor, data);
  impl_->constant_tensors[operand.id.value] = t;  // [[constantTensor]]
  return operand;
}

// §api-mlgraphbuilder-build
std::future<Graph> GraphBuilder::Build(const MLNamedOperands& outputs) {
  if (!impl_) throw WebnnError(ErrorType::kInvalidStateError, "MLGraphBuilder: moved from");
  ContextImpl& c = *impl_->context;
  nnref::GraphBuilder& b = *impl_->core;
  std::lock_guard lock(*c.content_mu);
  if (c.lost) {  // step 2 (can not build: the context is lost)
    return Rejected<Graph>(ErrorType::kInvalidStateError, "build: the context is lost");
  }
  try {
    b.CheckCanBuild("build");  // step 2 ([[hasBuilt]])
  } catch (const WebnnError& e) {
    return Rejected<Graph>(e.type(), e.what());
  }
  std::vector<std::pair<std::string, nnref::Operand>> list;
  for (const auto& [name, operand] : outputs) list.emplace_back(name, operand.core());
  // Step 4.4, read as applying to every constant operand the outputs depend on (as written it
  // checks the output operands themselves, which step 4.3 has already rejected when they are
  // constants; docs/deviations.md "build with a destroyed constant tensor").
  {
    std::deque<OperandId> queue;
    for (const auto& [name, o] : list) {
      if (o.builder == &b && o.id.value < b.operand_count()) queue.push_back(o.id);
    }
    std::set<uint32_t> seen;
    while (!queue.empty()) {
      const OperandId id = queue.front();
      queue.pop_front();
      if (!seen.insert(id.value).second) continue;
      const auto it = impl_->constant_tensors.find(id.value);
      if (it != impl_->constant_tensors.end() && it->second->is_destroyed) {
        return Rejected<Graph>(ErrorType::kTypeError,
                               "build: the graph uses a constant made from a tensor that has "
                               "been destroyed");
      }
      const int32_t producer = b.Node(id).producer;
      if (producer < 0) continue;
      for (OperandId in : b.operators()[static_cast<size_t>(producer)].inputs) {
        queue.push_back(in);
      }
    }
  }
  // Steps 2-4 ([[hasBuilt]], outputs) and 5-16 (the operators and inputs the outputs need, the
  // descriptors, [[hasBuilt]] = true) run in the core builder.
  std::shared_ptr<const nnref::Graph> built;
  try {
    built = b.Build(list);
  } catch (const WebnnError& e) {
    return Rejected<Graph>(e.type(), e.what());
  }
  // Step 19's conversion into the implementation's format: a backend's kernels for every operator
  // ("if that fails, reject with an OperationError").
  std::shared_ptr<const nnref::BackendGraph> backend_graph;
  if (c.options.backend) {
    std::string why;
    std::optional<nnref::BackendGraph> compiled =
        nnref::CompileForBackend(*built, c.options.backend, why);
    if (!compiled) return Rejected<Graph>(ErrorType::kOperationError, "build: " + why);
    backend_graph = std::make_shared<const nnref::BackendGraph>(std::move(*compiled));
  }
  auto g = std::make_shared<GraphImpl>();
  g->backend = std::move(backend_graph);
  g->context_id = c.id;
  g->context = impl_->context;
  g->content_mu = c.content_mu;
  g->input_descriptors = built->input_descriptors();
  for (const auto& [name, operand] : outputs) {
    g->output_descriptors[name] = b.Desc(operand.core());
  }
  g->implementation = built;
  g->timeline_resources = built;
  {
    auto& graphs = c.graphs;
    std::erase_if(graphs, [](const std::weak_ptr<GraphImpl>& w) { return w.expired(); });
    graphs.push_back(g);
  }
  auto pending = std::make_shared<Pending<Graph>>();
  // Step 18: convert the graph on the timeline (the core graph is already executable), then
  // resolve, unless the context is lost by then.
  c.Enqueue([&c, g, pending] {
    if (c.AbortWhenLost()) {
      SettleFromTimeline<Graph>(
          *c.content_mu, *pending, std::nullopt,
          MakeError(ErrorType::kInvalidStateError, "build: the context was lost"));
      return;
    }
    SettleFromTimeline<Graph>(*c.content_mu, *pending, Access::MakeGraph(g), std::nullopt);
  });
  return internal::DeferredFuture<Graph>(c.content_mu, pending, {}, [](Graph v) { return v; });
}

// ---------------------------------------------------------------------------------------------
// Operator methods.

Operand GraphBuilder::ArgMin(const Operand& input, uint32_t axis,
                             const MLArgMinMaxOptions& options) {
  return nnref::ArgMin(core(), input, axis, options);
}
Operand GraphBuilder::ArgMax(const Operand& input, uint32_t axis,
                             const MLArgMinMaxOptions& options) {
  return nnref::ArgMax(core(), input, axis, options);
}
Operand GraphBuilder::BatchNormalization(const Operand& input, const Operand& mean,
                                         const Operand& variance,
                                         const MLBatchNormalizationOptions& options) {
  return nnref::BatchNormalization(core(), input, mean, variance, options);
}
Operand GraphBuilder::Cast(const Operand& input, DataType type, const MLOperatorOptions& options) {
  return nnref::Cast(core(), input, type, options);
}
Operand GraphBuilder::Clamp(const Operand& input, const MLClampOptions& options) {
  return nnref::Clamp(core(), input, options);
}
Operand GraphBuilder::Concat(const std::vector<Operand>& inputs, uint32_t axis,
                             const MLOperatorOptions& options) {
  nnref::GraphBuilder& b = core();
  const std::vector<nnref::Operand> list(inputs.begin(), inputs.end());
  return nnref::Concat(b, list, axis, options);
}
Operand GraphBuilder::Conv2d(const Operand& input, const Operand& filter,
                             const MLConv2dOptions& options) {
  return nnref::Conv2d(core(), input, filter, options);
}
Operand GraphBuilder::ConvTranspose2d(const Operand& input, const Operand& filter,
                                      const MLConvTranspose2dOptions& options) {
  return nnref::ConvTranspose2d(core(), input, filter, options);
}
Operand GraphBuilder::CumulativeSum(const Operand& input, uint32_t axis,
                                    const MLCumulativeSumOptions& options) {
  return nnref::CumulativeSum(core(), input, axis, options);
}

#define NNREF_BINARY(Method, Kind)                                   \
  Operand GraphBuilder::Method(const Operand& a, const Operand& b,   \
                               const MLOperatorOptions& options) {   \
    return ElementwiseBinary(core(), BinaryOp::Kind, a, b, options); \
  }
NNREF_BINARY(Add, kAdd)
NNREF_BINARY(Sub, kSub)
NNREF_BINARY(Mul, kMul)
NNREF_BINARY(Div, kDiv)
NNREF_BINARY(Max, kMax)
NNREF_BINARY(Min, kMin)
NNREF_BINARY(Pow, kPow)
#undef NNREF_BINARY

#define NNREF_LOGICAL2(Method, Kind)                                          \
  Operand GraphBuilder::Method(const Operand& a, const Operand& b,            \
                               const MLOperatorOptions& options) {            \
    return ElementwiseLogical(core(), LogicalOp::Kind, a, b.core(), options); \
  }
#define NNREF_LOGICAL1(Method, Kind)                                                 \
  Operand GraphBuilder::Method(const Operand& a, const MLOperatorOptions& options) { \
    return ElementwiseLogical(core(), LogicalOp::Kind, a, std::nullopt, options);    \
  }
NNREF_LOGICAL2(Equal, kEqual)
NNREF_LOGICAL2(NotEqual, kNotEqual)
NNREF_LOGICAL2(Greater, kGreater)
NNREF_LOGICAL2(GreaterOrEqual, kGreaterOrEqual)
NNREF_LOGICAL2(Lesser, kLesser)
NNREF_LOGICAL2(LesserOrEqual, kLesserOrEqual)
NNREF_LOGICAL1(LogicalNot, kLogicalNot)
NNREF_LOGICAL2(LogicalAnd, kLogicalAnd)
NNREF_LOGICAL2(LogicalOr, kLogicalOr)
NNREF_LOGICAL2(LogicalXor, kLogicalXor)
NNREF_LOGICAL1(IsNaN, kIsNaN)
NNREF_LOGICAL1(IsInfinite, kIsInfinite)
#undef NNREF_LOGICAL1
#undef NNREF_LOGICAL2

#define NNREF_UNARY(Method, Kind)                                                        \
  Operand GraphBuilder::Method(const Operand& input, const MLOperatorOptions& options) { \
    return ElementwiseUnary(core(), UnaryOp::Kind, input, options);                      \
  }
NNREF_UNARY(Abs, kAbs)
NNREF_UNARY(Ceil, kCeil)
NNREF_UNARY(Cos, kCos)
NNREF_UNARY(Erf, kErf)
NNREF_UNARY(Exp, kExp)
NNREF_UNARY(Floor, kFloor)
NNREF_UNARY(Identity, kIdentity)
NNREF_UNARY(Log, kLog)
NNREF_UNARY(Neg, kNeg)
NNREF_UNARY(Reciprocal, kReciprocal)
NNREF_UNARY(RoundEven, kRoundEven)
NNREF_UNARY(Sin, kSin)
NNREF_UNARY(Sign, kSign)
NNREF_UNARY(Sqrt, kSqrt)
NNREF_UNARY(Tan, kTan)
#undef NNREF_UNARY

Operand GraphBuilder::DequantizeLinear(const Operand& input, const Operand& scale,
                                       const Operand& zeroPoint, const MLOperatorOptions& options) {
  return nnref::DequantizeLinear(core(), input, scale, zeroPoint, options);
}
Operand GraphBuilder::QuantizeLinear(const Operand& input, const Operand& scale,
                                     const Operand& zeroPoint, const MLOperatorOptions& options) {
  return nnref::QuantizeLinear(core(), input, scale, zeroPoint, options);
}
Operand GraphBuilder::Elu(const Operand& input, const MLEluOptions& options) {
  return nnref::Elu(core(), input, options);
}
Operand GraphBuilder::Expand(const Operand& input, const std::vector<uint32_t>& newShape,
                             const MLOperatorOptions& options) {
  return nnref::Expand(core(), input, newShape, options);
}
Operand GraphBuilder::Gather(const Operand& input, const Operand& indices,
                             const MLGatherOptions& options) {
  return nnref::Gather(core(), input, indices, options);
}
Operand GraphBuilder::GatherElements(const Operand& input, const Operand& indices,
                                     const MLGatherOptions& options) {
  return nnref::GatherElements(core(), input, indices, options);
}
Operand GraphBuilder::GatherND(const Operand& input, const Operand& indices,
                               const MLOperatorOptions& options) {
  return nnref::GatherND(core(), input, indices, options);
}
Operand GraphBuilder::Gelu(const Operand& input, const MLOperatorOptions& options) {
  return nnref::Gelu(core(), input, options);
}
Operand GraphBuilder::Gemm(const Operand& a, const Operand& b, const MLGemmOptions& options) {
  return nnref::Gemm(core(), a, b, options);
}
std::vector<Operand> GraphBuilder::Gru(const Operand& input, const Operand& weight,
                                       const Operand& recurrentWeight, uint32_t steps,
                                       uint32_t hiddenSize, const MLGruOptions& options) {
  return Wrap(nnref::Gru(core(), input, weight, recurrentWeight, steps, hiddenSize, options));
}
Operand GraphBuilder::GruCell(const Operand& input, const Operand& weight,
                              const Operand& recurrentWeight, const Operand& hiddenState,
                              uint32_t hiddenSize, const MLGruCellOptions& options) {
  return nnref::GruCell(core(), input, weight, recurrentWeight, hiddenState, hiddenSize, options);
}
Operand GraphBuilder::HardSigmoid(const Operand& input, const MLHardSigmoidOptions& options) {
  return nnref::HardSigmoid(core(), input, options);
}
Operand GraphBuilder::HardSwish(const Operand& input, const MLOperatorOptions& options) {
  return nnref::HardSwish(core(), input, options);
}
Operand GraphBuilder::InstanceNormalization(const Operand& input,
                                            const MLInstanceNormalizationOptions& options) {
  return nnref::InstanceNormalization(core(), input, options);
}
Operand GraphBuilder::LayerNormalization(const Operand& input,
                                         const MLLayerNormalizationOptions& options) {
  return nnref::LayerNormalization(core(), input, options);
}
Operand GraphBuilder::LeakyRelu(const Operand& input, const MLLeakyReluOptions& options) {
  return nnref::LeakyRelu(core(), input, options);
}
Operand GraphBuilder::Linear(const Operand& input, const MLLinearOptions& options) {
  return nnref::Linear(core(), input, options);
}
std::vector<Operand> GraphBuilder::Lstm(const Operand& input, const Operand& weight,
                                        const Operand& recurrentWeight, uint32_t steps,
                                        uint32_t hiddenSize, const MLLstmOptions& options) {
  return Wrap(nnref::Lstm(core(), input, weight, recurrentWeight, steps, hiddenSize, options));
}
std::vector<Operand> GraphBuilder::LstmCell(const Operand& input, const Operand& weight,
                                            const Operand& recurrentWeight,
                                            const Operand& hiddenState, const Operand& cellState,
                                            uint32_t hiddenSize, const MLLstmCellOptions& options) {
  return Wrap(nnref::LstmCell(core(), input, weight, recurrentWeight, hiddenState, cellState,
                              hiddenSize, options));
}
Operand GraphBuilder::Matmul(const Operand& a, const Operand& b, const MLOperatorOptions& options) {
  return nnref::Matmul(core(), a, b, options);
}
Operand GraphBuilder::Pad(const Operand& input, const std::vector<uint32_t>& beginningPadding,
                          const std::vector<uint32_t>& endingPadding, const MLPadOptions& options) {
  return nnref::Pad(core(), input, beginningPadding, endingPadding, options);
}
Operand GraphBuilder::AveragePool2d(const Operand& input, const MLPool2dOptions& options) {
  return nnref::AveragePool2d(core(), input, options);
}
Operand GraphBuilder::L2Pool2d(const Operand& input, const MLPool2dOptions& options) {
  return nnref::L2Pool2d(core(), input, options);
}
Operand GraphBuilder::MaxPool2d(const Operand& input, const MLPool2dOptions& options) {
  return nnref::MaxPool2d(core(), input, options);
}
Operand GraphBuilder::Prelu(const Operand& input, const Operand& slope,
                            const MLOperatorOptions& options) {
  return nnref::Prelu(core(), input, slope, options);
}

#define NNREF_REDUCE(Method, Kind)                                                     \
  Operand GraphBuilder::Method(const Operand& input, const MLReduceOptions& options) { \
    return nnref::Reduce(core(), ReduceOp::Kind, input, options);                      \
  }
NNREF_REDUCE(ReduceL1, kL1)
NNREF_REDUCE(ReduceL2, kL2)
NNREF_REDUCE(ReduceLogSum, kLogSum)
NNREF_REDUCE(ReduceLogSumExp, kLogSumExp)
NNREF_REDUCE(ReduceMax, kMax)
NNREF_REDUCE(ReduceMean, kMean)
NNREF_REDUCE(ReduceMin, kMin)
NNREF_REDUCE(ReduceProduct, kProduct)
NNREF_REDUCE(ReduceSum, kSum)
NNREF_REDUCE(ReduceSumSquare, kSumSquare)
#undef NNREF_REDUCE

Operand GraphBuilder::Relu(const Operand& input, const MLOperatorOptions& options) {
  return nnref::Relu(core(), input, options);
}
Operand GraphBuilder::Resample2d(const Operand& input, const MLResample2dOptions& options) {
  return nnref::Resample2d(core(), input, options);
}
Operand GraphBuilder::Reshape(const Operand& input, const std::vector<uint32_t>& newShape,
                              const MLOperatorOptions& options) {
  return nnref::Reshape(core(), input, newShape, options);
}
Operand GraphBuilder::Reverse(const Operand& input, const MLReverseOptions& options) {
  return nnref::Reverse(core(), input, options);
}
Operand GraphBuilder::ScatterElements(const Operand& input, const Operand& indices,
                                      const Operand& updates, const MLScatterOptions& options) {
  return nnref::ScatterElements(core(), input, indices, updates, options);
}
Operand GraphBuilder::ScatterND(const Operand& input, const Operand& indices,
                                const Operand& updates, const MLOperatorOptions& options) {
  return nnref::ScatterND(core(), input, indices, updates, options);
}
Operand GraphBuilder::Sigmoid(const Operand& input, const MLOperatorOptions& options) {
  return nnref::Sigmoid(core(), input, options);
}
Operand GraphBuilder::Slice(const Operand& input, const std::vector<uint32_t>& starts,
                            const std::vector<uint32_t>& sizes, const MLSliceOptions& options) {
  return nnref::Slice(core(), input, starts, sizes, options);
}
Operand GraphBuilder::Softmax(const Operand& input, uint32_t axis,
                              const MLOperatorOptions& options) {
  return nnref::Softmax(core(), input, axis, options);
}
Operand GraphBuilder::Softplus(const Operand& input, const MLOperatorOptions& options) {
  return nnref::Softplus(core(), input, options);
}
Operand GraphBuilder::Softsign(const Operand& input, const MLOperatorOptions& options) {
  return nnref::Softsign(core(), input, options);
}
std::vector<Operand> GraphBuilder::Split(const Operand& input, uint32_t splits,
                                         const MLSplitOptions& options) {
  return Wrap(nnref::Split(core(), input, splits, options));
}
std::vector<Operand> GraphBuilder::Split(const Operand& input, const std::vector<uint32_t>& splits,
                                         const MLSplitOptions& options) {
  return Wrap(nnref::Split(core(), input, splits, options));
}
Operand GraphBuilder::Tanh(const Operand& input, const MLOperatorOptions& options) {
  return nnref::Tanh(core(), input, options);
}
Operand GraphBuilder::Tile(const Operand& input, const std::vector<uint32_t>& repetitions,
                           const MLOperatorOptions& options) {
  return nnref::Tile(core(), input, repetitions, options);
}
Operand GraphBuilder::Transpose(const Operand& input, const MLTransposeOptions& options) {
  return nnref::Transpose(core(), input, options);
}
Operand GraphBuilder::Triangular(const Operand& input, const MLTriangularOptions& options) {
  return nnref::Triangular(core(), input, options);
}
Operand GraphBuilder::Where(const Operand& condition, const Operand& trueValue,
                            const Operand& falseValue, const MLOperatorOptions& options) {
  return nnref::Where(core(), condition, trueValue, falseValue, options);
}

}  // namespace nnref::webnn
