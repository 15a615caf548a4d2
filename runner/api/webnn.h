// nnref's C++ library API: the WebNN interfaces (MLContext, MLTensor, MLGraphBuilder, MLOperand,
// MLGraph) for embedding the reference in another C++ implementation or test harness.
//
// Names: interfaces and dictionaries keep their spec names (Context = MLContext, Tensor =
// MLTensor, MLTensorDescriptor, MLConv2dOptions, ...). Methods are the spec's in UpperCamel
// (createTensor -> CreateTensor, conv2d -> Conv2d); attributes are lowerCamel getters
// (tensor.dataType(), context.lost()).
//
// Errors: a step that says "throw a TypeError" throws nnref::WebnnError of that ErrorType; a step
// that says "return a promise rejected with" returns a std::future whose get() throws it.
//
// Timeline (§api-mlcontext, [[timeline]]; docs/architecture.md "The API and its timeline"): each
// Context runs one worker thread that executes the work its methods enqueue, strictly in the order
// the methods were called (from any number of threads; each call is atomic). Tensor state
// (destroyed, readable, writable, constant) is checked on the calling side, as the steps do on the
// content timeline, and tensor data is touched only by the worker.
//
// Promises: a promise the spec resolves by "queue an ML task" is returned as a deferred
// std::future. The timeline does its part (copy the tensor, create the data) in order; the ML task
// (removing the promise from [[pendingPromises]], resolving it, writing a readTensor BYOB buffer)
// runs in the thread that waits on the future, exactly as a script observes it when it awaits. So
// `auto r = context.ReadTensor(t); t.Destroy(); r.get();` throws InvalidStateError every time, as
// in the spec, and a buffer passed to ReadTensor(tensor, outputData) is written when the future is
// waited on (it must stay alive until then). wait_for() on such a future reports
// std::future_status::deferred; use get() or wait().
//
// nnref extensions (not in the spec) are marked "nnref:".
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "numerics/cast.h"
#include "numerics/dtype.h"
#include "numerics/float16.h"
#include "ops/backend.h"
#include "ops/activations.h"
#include "ops/arg_cumulative.h"
#include "ops/cast_clamp_where.h"
#include "ops/conv2d.h"
#include "ops/conv_transpose2d.h"
#include "ops/data_movement.h"
#include "ops/elementwise_binary.h"
#include "ops/elementwise_logical.h"
#include "ops/elementwise_unary.h"
#include "ops/gpu_interop.h"
#include "ops/indexing.h"
#include "ops/matmul_gemm.h"
#include "ops/normalization.h"
#include "ops/op_call.h"
#include "ops/pool2d.h"
#include "ops/quantization.h"
#include "ops/reduction.h"
#include "ops/resample2d.h"
#include "ops/rnn.h"
#include "ops/softmax.h"
#include "ops/support_limits.h"
#include "ref/error.h"
#include "ref/graph/graph.h"

namespace nnref::webnn {

namespace internal {
struct ContextImpl;
struct TensorImpl;
struct GraphImpl;
struct BuilderImpl;
struct RentalImpl;
struct Access;
}  // namespace internal

using nnref::DataType;
using nnref::ErrorType;
using nnref::GpuBufferHandle;
using nnref::GpuDevice;
using nnref::MLNumber;
using nnref::MLOpSupportLimits;
using nnref::MLTensorLimits;
using nnref::WebnnError;

// §api-ml: MLPowerPreference and MLContextOptions.
enum class MLPowerPreference : uint8_t { kDefault, kHighPerformance, kLowPower };

struct MLContextOptions {
  MLPowerPreference powerPreference = MLPowerPreference::kDefault;
  bool accelerated = true;
  // nnref: the implementation limits of "check dimensions" (largest rank and tensor byte length),
  // also reported by opSupportLimits().
  BuilderLimits limits;
  // nnref: the kernel set graphs of this context compute with (ops/backend.h); null: the
  // reference kernels. build() converts the graph for it (§api-mlgraphbuilder-build step 19) and
  // rejects with OperationError naming each operator it lacks ("simd: lstm: not implemented").
  std::shared_ptr<const nnref::Backend> backend;
};

// §api-mlcontext: MLContextLostInfo.
struct MLContextLostInfo {
  std::string message;
};

// §api-mloperanddescriptor and §api-mltensordescriptor.
using MLOperandDescriptor = OperandDescriptor;
struct MLTensorDescriptor : MLOperandDescriptor {
  bool readable = false;
  bool writable = false;
  // The MLTensor explainer's MLTensorDescriptor.importableToWebGPU ("Interop with the GPU"): the
  // tensor may be rented to the GPU device its context was created from (ImportExternalBuffer
  // below; in C++ the device is the application's Vulkan device, ops/vulkan/interop.h). Only a
  // context created from a GPU device accepts it: elsewhere createTensor rejects with
  // NotSupportedError (docs/spec-notes.md, "GPU interop").
  bool importableToWebGPU = false;
};

// The kinds of AllowSharedBufferSource a script can pass: ArrayBuffer, SharedArrayBuffer and the
// ArrayBufferView types. "validate buffer with descriptor" depends on the kind.
enum class BufferType : uint8_t {
  kArrayBuffer,
  kSharedArrayBuffer,
  kDataView,
  kInt8Array,
  kUint8Array,
  kUint8ClampedArray,
  kInt16Array,
  kUint16Array,
  kInt32Array,
  kUint32Array,
  kFloat16Array,
  kFloat32Array,
  kFloat64Array,
  kBigInt64Array,
  kBigUint64Array,
};
std::string_view BufferTypeName(BufferType t);  // "Float32Array", "ArrayBuffer", ...
std::optional<BufferType> ParseBufferType(std::string_view name);
size_t BufferElementSize(BufferType t);  // 1 for ArrayBuffer, SharedArrayBuffer and DataView
// The view type that matches a data type in the appendix table
// (§appendices-mloperanddatatype-arraybufferview-compatibility).
BufferType MatchingBufferType(DataType t);

// The BufferType of a C++ element type, for the typed constructors below.
template <typename T>
struct BufferTypeOf;
template <>
struct BufferTypeOf<std::byte> {
  static constexpr BufferType value = BufferType::kArrayBuffer;
};
template <>
struct BufferTypeOf<int8_t> {
  static constexpr BufferType value = BufferType::kInt8Array;
};
template <>
struct BufferTypeOf<uint8_t> {
  static constexpr BufferType value = BufferType::kUint8Array;
};
template <>
struct BufferTypeOf<int16_t> {
  static constexpr BufferType value = BufferType::kInt16Array;
};
template <>
struct BufferTypeOf<uint16_t> {
  static constexpr BufferType value = BufferType::kUint16Array;
};
template <>
struct BufferTypeOf<int32_t> {
  static constexpr BufferType value = BufferType::kInt32Array;
};
template <>
struct BufferTypeOf<uint32_t> {
  static constexpr BufferType value = BufferType::kUint32Array;
};
template <>
struct BufferTypeOf<Float16> {
  static constexpr BufferType value = BufferType::kFloat16Array;
};
template <>
struct BufferTypeOf<float> {
  static constexpr BufferType value = BufferType::kFloat32Array;
};
template <>
struct BufferTypeOf<double> {
  static constexpr BufferType value = BufferType::kFloat64Array;
};
template <>
struct BufferTypeOf<int64_t> {
  static constexpr BufferType value = BufferType::kBigInt64Array;
};
template <>
struct BufferTypeOf<uint64_t> {
  static constexpr BufferType value = BufferType::kBigUint64Array;
};

// An AllowSharedBufferSource to read from (writeTensor, createConstantTensor, constant): a byte
// range and the kind of object it stands for. Typed spans and vectors pick their view type:
// std::vector<float> is a Float32Array, std::vector<std::byte> an ArrayBuffer.
struct AllowSharedBufferSource {
  BufferType type = BufferType::kArrayBuffer;
  std::span<const std::byte> bytes;

  AllowSharedBufferSource() = default;
  AllowSharedBufferSource(BufferType t, std::span<const std::byte> b) : type(t), bytes(b) {}
  template <typename T>
  AllowSharedBufferSource(std::span<const T> v)  // NOLINT(google-explicit-constructor)
      : type(BufferTypeOf<T>::value), bytes(std::as_bytes(v)) {}
  template <typename T>
  AllowSharedBufferSource(const std::vector<T>& v)  // NOLINT(google-explicit-constructor)
      : AllowSharedBufferSource(std::span<const T>(v)) {}
};

// An AllowSharedBufferSource to write into (readTensor(tensor, outputData)).
struct AllowSharedBufferTarget {
  BufferType type = BufferType::kArrayBuffer;
  std::span<std::byte> bytes;
  // nnref: whether the buffer is [=BufferSource/detached=], for callers that model detaching (a
  // script's ArrayBuffer.prototype.transfer()). Empty: never detached. readTensor(tensor,
  // outputData) asks it twice: when called (a detached buffer's byte length is 0, so "validate
  // buffer with descriptor", step 6, fails) and in the ML task that would write the bytes (step
  // 9.1.3.2: reject with TypeError, write nothing). It is called in the thread that calls
  // ReadTensor and in the one that waits on the future.
  std::function<bool()> detached;

  AllowSharedBufferTarget() = default;
  AllowSharedBufferTarget(BufferType t, std::span<std::byte> b) : type(t), bytes(b) {}
  template <typename T>
  AllowSharedBufferTarget(std::span<T> v)  // NOLINT(google-explicit-constructor)
      : type(BufferTypeOf<T>::value), bytes(std::as_writable_bytes(v)) {}
  template <typename T>
  AllowSharedBufferTarget(std::vector<T>& v)  // NOLINT(google-explicit-constructor)
      : AllowSharedBufferTarget(std::span<T>(v)) {}
};

// §api-mlcontext "validate buffer with descriptor".
bool ValidateBufferWithDescriptor(BufferType type, size_t byte_length,
                                  const MLOperandDescriptor& descriptor);

// MLOperand (§api-mloperand): a handle to an operand of one GraphBuilder, valid while that builder
// lives. Converts to and from the core nnref::Operand, so the typed options structs (whose operand
// members are nnref::Operand) take it directly.
class Operand {
 public:
  Operand() = default;
  Operand(const nnref::Operand& core) : core_(core) {}      // NOLINT(google-explicit-constructor)
  operator const nnref::Operand&() const { return core_; }  // NOLINT(google-explicit-constructor)
  DataType dataType() const;
  const Shape& shape() const;
  const nnref::Operand& core() const { return core_; }

 private:
  nnref::Operand core_;
};

using MLNamedOperands = std::map<std::string, Operand>;

// MLTensor (§api-mltensor). A handle: copies refer to the same tensor, == compares identity.
class Tensor {
 public:
  Tensor() = default;
  DataType dataType() const;
  const Shape& shape() const;
  bool readable() const;
  bool writable() const;
  bool constant() const;
  // The explainer's MLTensor.importableToWebGPU attribute.
  bool importableToWebGPU() const;
  // §api-mltensor-destroy (idempotent). On a tensor rented to a GPU device the rental goes on until
  // the buffer is returned; its contents are then discarded (docs/spec-notes.md, "GPU interop").
  void Destroy();

  bool valid() const { return impl_ != nullptr; }  // nnref: not a default-constructed handle
  friend bool operator==(const Tensor&, const Tensor&) = default;

 private:
  friend struct internal::Access;
  std::shared_ptr<internal::TensorImpl> impl_;
};

using MLNamedTensors = std::map<std::string, Tensor>;

// The explainer's GPUBuffer returned by GPUDevice.importExternalBuffer(): an MLTensor rented to
// the application's GPU device. While rented the device has exclusive read/write access to the
// buffer, and every WebNN task that touches the tensor, directly or through a tensor written by
// such a task, waits on the context's timeline (it is not an error); other work goes on. Returning
// it (Destroy(), the explainer's GPUBuffer.destroy() or release()) copies the buffer back into
// the tensor and lets the waiting work run. Move-only; destroying the object returns the tensor,
// as a collected GPUBuffer would. docs/interop.md.
class ImportedBuffer {
 public:
  ImportedBuffer() = default;
  ~ImportedBuffer();
  ImportedBuffer(ImportedBuffer&&) noexcept;
  ImportedBuffer& operator=(ImportedBuffer&&) noexcept;
  ImportedBuffer(const ImportedBuffer&) = delete;
  ImportedBuffer& operator=(const ImportedBuffer&) = delete;

  // The buffer on the application's device: usage storage | transfer source | transfer
  // destination ("STORAGE, COPY_SRC and COPY_DST"), the tensor's elements packed. Throws
  // InvalidStateError once returned.
  const GpuBufferHandle& handle() const;
  // The tensor it rents.
  Tensor source() const;
  // Returns the tensor to WebNN: the buffer's contents become the tensor's data (unless the tensor
  // was destroyed or its context lost meanwhile: then they are discarded) and the buffer is
  // destroyed. `fence`: a fence (Vulkan: a VkFence, as an integer) that the application's last
  // submission using the buffer signals, handed over: the return waits for it on the context's
  // timeline (so Destroy does not block), then destroys it. 0: the application has already waited
  // for its work on the buffer. Idempotent.
  void Destroy(uint64_t fence = 0);
  bool valid() const { return impl_ != nullptr; }  // not yet returned

 private:
  friend struct internal::Access;
  std::shared_ptr<internal::RentalImpl> impl_;
};

// The explainer's GPUDevice.importExternalBuffer({source}) for `device`: waits (on the context's
// timeline) for all WebNN work queued before it that touches `source`, then rents the tensor to
// the device. Rejects with TypeError when `source` is destroyed, was not created importableToWebGPU
// or its context was not created from `device` (a GpuDevice of the same identity()); with
// InvalidStateError when the tensor is already rented (or being rented) or its context is lost;
// with OperationError when the device cannot create the buffer (docs/spec-notes.md, "GPU interop").
std::future<ImportedBuffer> ImportExternalBuffer(const std::shared_ptr<GpuDevice>& device,
                                                 const Tensor& source);

// MLGraph (§api-mlgraph).
class Graph {
 public:
  Graph() = default;
  // §api-mlgraph-destroy
  void Destroy();

  bool valid() const { return impl_ != nullptr; }
  friend bool operator==(const Graph&, const Graph&) = default;
  // nnref: [[inputDescriptors]] and [[outputDescriptors]].
  const std::map<std::string, MLOperandDescriptor>& inputDescriptors() const;
  const std::map<std::string, MLOperandDescriptor>& outputDescriptors() const;
  // nnref: the executable graph ([[implementation]]), for tolerances and traces. Stays valid after
  // Destroy() for the caller that holds it.
  std::shared_ptr<const nnref::Graph> implementation() const;
  // nnref: the context backend's kernels for the graph (build()'s step 19 conversion), or null on
  // a context without a backend. The check mode runs them operator by operator.
  std::shared_ptr<const nnref::BackendGraph> backend_kernels() const;

 private:
  friend struct internal::Access;
  std::shared_ptr<internal::GraphImpl> impl_;
};

// MLContext (§api-mlcontext). A handle: copies refer to the same context. The context's worker
// thread ends when the last handle to it (Context, or a GraphBuilder built on it) is gone; work
// still queued then fails as after destroy().
class Context {
 public:
  Context() = default;

  // ML.createContext(options) (§api-ml-createcontext).
  static std::future<Context> Create(const MLContextOptions& options = {});
  // ML.createContext(gpuDevice) (§api-ml-createcontext): a context of type "webgpu" on an
  // application's GPU device (ops/gpu_interop.h; a Vulkan device: MakeVulkanGpuDevice of
  // ops/vulkan/interop.h). powerPreference "default", accelerated true; graphs compute with the
  // device's backend, which runs on the application's device without creating or destroying it.
  // Rejects with TypeError for a null device and NotSupportedError when the device's backend is
  // unavailable ("the user agent cannot support [[contextType]]"). nnref: `limits` as in
  // MLContextOptions.
  static std::future<Context> Create(std::shared_ptr<GpuDevice> gpuDevice,
                                     const BuilderLimits& limits = {});

  // §api-mlcontext-dispatch
  void Dispatch(const Graph& graph, const MLNamedTensors& inputs, const MLNamedTensors& outputs);
  // nnref: dispatch() whose computation also shows every operand's value to `observer`, in graph
  // order, on the context's timeline (ref/graph/graph.h ExecutionObserver): the runner keeps what
  // the tolerance bounds read without computing the graph twice. What the observer stores is the
  // caller's to read once a later readTensor of the context has resolved. Same steps and errors.
  void DispatchObserved(const Graph& graph, const MLNamedTensors& inputs,
                        const MLNamedTensors& outputs, nnref::ExecutionObserver observer);
  // §api-mlcontext-createtensor
  std::future<Tensor> CreateTensor(const MLTensorDescriptor& descriptor);
  // §api-mlcontext-createconstanttensor
  std::future<Tensor> CreateConstantTensor(const MLOperandDescriptor& descriptor,
                                           const AllowSharedBufferSource& inputData);
  // §api-mlcontext-readtensor: the bytes (an ArrayBuffer).
  std::future<std::vector<std::byte>> ReadTensor(const Tensor& tensor);
  // §api-mlcontext-readtensor-byob: writes into outputData when the future is waited on.
  std::future<void> ReadTensor(const Tensor& tensor, const AllowSharedBufferTarget& outputData);
  // §api-mlcontext-writetensor
  void WriteTensor(const Tensor& tensor, const AllowSharedBufferSource& inputData);
  // §api-mlcontext-opsupportlimits
  MLOpSupportLimits OpSupportLimits() const;
  // §api-mlcontext-destroy
  void Destroy();
  // The accelerated and lost attributes.
  bool accelerated() const;
  std::shared_future<MLContextLostInfo> lost() const;

  bool valid() const { return impl_ != nullptr; }
  friend bool operator==(const Context&, const Context&) = default;
  // nnref: readTensor(tensor) with the reference's latitude: the data as a tensor of the tensor's
  // type and shape, and which elements the spec leaves open (OperandValue::latitude, one_of).
  // Same steps, checks and errors as ReadTensor(tensor).
  std::future<OperandValue> ReadTensorValue(const Tensor& tensor);
  // nnref: writeTensor(tensor, data) that adopts `data` (a tensor of the tensor's type and shape,
  // which the caller hands over and no longer changes) instead of copying its bytes. Same steps,
  // checks and errors as WriteTensor. The runner uses it to feed large inputs without a copy.
  void WriteTensorValue(const Tensor& tensor, nnref::Tensor data);
  // nnref: whether the context is lost (its lost promise is settled).
  bool IsLost() const;
  // nnref: the implementation limits given at creation.
  const BuilderLimits& limits() const;
  // nnref: the GPU device the context was created from (context type "webgpu"), or null (context
  // type "default").
  std::shared_ptr<GpuDevice> gpuDevice() const;

 private:
  friend struct internal::Access;
  // writeTensor's steps 1-7; make_data(tensor impl) gives the new [[data]] (step 5).
  template <typename MakeData>
  void WriteTensorSteps(const Tensor& tensor, BufferType type, size_t byte_length,
                        MakeData&& make_data);
  std::shared_ptr<internal::ContextImpl> impl_;
};

// MLGraphBuilder (§api-mlgraphbuilder). Owns the graph under construction; operands refer to it,
// so it must outlive their use. Movable, not copyable; use one builder from one thread at a time
// (Context, Tensor and Graph may be shared between threads).
class GraphBuilder {
 public:
  // §api-mlgraphbuilder-constructor: InvalidStateError when the context is lost.
  explicit GraphBuilder(const Context& context);
  ~GraphBuilder();
  GraphBuilder(GraphBuilder&&) noexcept;
  GraphBuilder& operator=(GraphBuilder&&) noexcept;

  // §api-mlgraphbuilder-input
  Operand Input(const std::string& name, const MLOperandDescriptor& descriptor);
  // §api-mlgraphbuilder-constant-buffer
  Operand Constant(const MLOperandDescriptor& descriptor, const AllowSharedBufferSource& buffer);
  // §api-mlgraphbuilder-constant-datatype-value
  Operand Constant(DataType dataType, const MLNumber& value);
  // §api-mlgraphbuilder-constant-tensor
  Operand Constant(const Tensor& tensor);
  // §api-mlgraphbuilder-build
  std::future<Graph> Build(const MLNamedOperands& outputs);

  // The operator methods, each forwarding to the typed builder function of ops/ (which runs the
  // method steps) after the "can build" check on the context.
  // §api-mlgraphbuilder-argminmax
  Operand ArgMin(const Operand& input, uint32_t axis, const MLArgMinMaxOptions& options = {});
  Operand ArgMax(const Operand& input, uint32_t axis, const MLArgMinMaxOptions& options = {});
  // §api-mlgraphbuilder-batchnorm
  Operand BatchNormalization(const Operand& input, const Operand& mean, const Operand& variance,
                             const MLBatchNormalizationOptions& options = {});
  // §api-mlgraphbuilder-cast, -clamp, -concat
  Operand Cast(const Operand& input, DataType type, const MLOperatorOptions& options = {});
  Operand Clamp(const Operand& input, const MLClampOptions& options = {});
  Operand Concat(const std::vector<Operand>& inputs, uint32_t axis,
                 const MLOperatorOptions& options = {});
  // §api-mlgraphbuilder-conv2d, -convtranspose2d, -cumulativesum
  Operand Conv2d(const Operand& input, const Operand& filter, const MLConv2dOptions& options = {});
  Operand ConvTranspose2d(const Operand& input, const Operand& filter,
                          const MLConvTranspose2dOptions& options = {});
  Operand CumulativeSum(const Operand& input, uint32_t axis,
                        const MLCumulativeSumOptions& options = {});
  // §api-mlgraphbuilder-binary
  Operand Add(const Operand& a, const Operand& b, const MLOperatorOptions& options = {});
  Operand Sub(const Operand& a, const Operand& b, const MLOperatorOptions& options = {});
  Operand Mul(const Operand& a, const Operand& b, const MLOperatorOptions& options = {});
  Operand Div(const Operand& a, const Operand& b, const MLOperatorOptions& options = {});
  Operand Max(const Operand& a, const Operand& b, const MLOperatorOptions& options = {});
  Operand Min(const Operand& a, const Operand& b, const MLOperatorOptions& options = {});
  Operand Pow(const Operand& a, const Operand& b, const MLOperatorOptions& options = {});
  // §api-mlgraphbuilder-logical
  Operand Equal(const Operand& a, const Operand& b, const MLOperatorOptions& options = {});
  Operand NotEqual(const Operand& a, const Operand& b, const MLOperatorOptions& options = {});
  Operand Greater(const Operand& a, const Operand& b, const MLOperatorOptions& options = {});
  Operand GreaterOrEqual(const Operand& a, const Operand& b, const MLOperatorOptions& options = {});
  Operand Lesser(const Operand& a, const Operand& b, const MLOperatorOptions& options = {});
  Operand LesserOrEqual(const Operand& a, const Operand& b, const MLOperatorOptions& options = {});
  Operand LogicalNot(const Operand& a, const MLOperatorOptions& options = {});
  Operand LogicalAnd(const Operand& a, const Operand& b, const MLOperatorOptions& options = {});
  Operand LogicalOr(const Operand& a, const Operand& b, const MLOperatorOptions& options = {});
  Operand LogicalXor(const Operand& a, const Operand& b, const MLOperatorOptions& options = {});
  Operand IsNaN(const Operand& a, const MLOperatorOptions& options = {});
  Operand IsInfinite(const Operand& a, const MLOperatorOptions& options = {});
  // §api-mlgraphbuilder-unary
  Operand Abs(const Operand& input, const MLOperatorOptions& options = {});
  Operand Ceil(const Operand& input, const MLOperatorOptions& options = {});
  Operand Cos(const Operand& input, const MLOperatorOptions& options = {});
  Operand Erf(const Operand& input, const MLOperatorOptions& options = {});
  Operand Exp(const Operand& input, const MLOperatorOptions& options = {});
  Operand Floor(const Operand& input, const MLOperatorOptions& options = {});
  Operand Identity(const Operand& input, const MLOperatorOptions& options = {});
  Operand Log(const Operand& input, const MLOperatorOptions& options = {});
  Operand Neg(const Operand& input, const MLOperatorOptions& options = {});
  Operand Reciprocal(const Operand& input, const MLOperatorOptions& options = {});
  Operand RoundEven(const Operand& input, const MLOperatorOptions& options = {});
  Operand Sin(const Operand& input, const MLOperatorOptions& options = {});
  Operand Sign(const Operand& input, const MLOperatorOptions& options = {});
  Operand Sqrt(const Operand& input, const MLOperatorOptions& options = {});
  Operand Tan(const Operand& input, const MLOperatorOptions& options = {});
  // §api-mlgraphbuilder-dequantizelinear, -quantizelinear
  Operand DequantizeLinear(const Operand& input, const Operand& scale, const Operand& zeroPoint,
                           const MLOperatorOptions& options = {});
  Operand QuantizeLinear(const Operand& input, const Operand& scale, const Operand& zeroPoint,
                         const MLOperatorOptions& options = {});
  // §api-mlgraphbuilder-elu, -expand, -gather*, -gelu-method, -gemm
  Operand Elu(const Operand& input, const MLEluOptions& options = {});
  Operand Expand(const Operand& input, const std::vector<uint32_t>& newShape,
                 const MLOperatorOptions& options = {});
  Operand Gather(const Operand& input, const Operand& indices, const MLGatherOptions& options = {});
  Operand GatherElements(const Operand& input, const Operand& indices,
                         const MLGatherOptions& options = {});
  Operand GatherND(const Operand& input, const Operand& indices,
                   const MLOperatorOptions& options = {});
  Operand Gelu(const Operand& input, const MLOperatorOptions& options = {});
  Operand Gemm(const Operand& a, const Operand& b, const MLGemmOptions& options = {});
  // §api-mlgraphbuilder-gru, -grucell (gru returns « output » or « output, sequence »)
  std::vector<Operand> Gru(const Operand& input, const Operand& weight,
                           const Operand& recurrentWeight, uint32_t steps, uint32_t hiddenSize,
                           const MLGruOptions& options = {});
  Operand GruCell(const Operand& input, const Operand& weight, const Operand& recurrentWeight,
                  const Operand& hiddenState, uint32_t hiddenSize,
                  const MLGruCellOptions& options = {});
  // §api-mlgraphbuilder-hard-sigmoid, -hard-swish, -instancenorm, -layernorm, -leakyrelu, -linear
  Operand HardSigmoid(const Operand& input, const MLHardSigmoidOptions& options = {});
  Operand HardSwish(const Operand& input, const MLOperatorOptions& options = {});
  Operand InstanceNormalization(const Operand& input,
                                const MLInstanceNormalizationOptions& options = {});
  Operand LayerNormalization(const Operand& input, const MLLayerNormalizationOptions& options = {});
  Operand LeakyRelu(const Operand& input, const MLLeakyReluOptions& options = {});
  Operand Linear(const Operand& input, const MLLinearOptions& options = {});
  // §api-mlgraphbuilder-lstm (« hidden, cell [, sequence] »), -lstmcell (« hidden, cell »)
  std::vector<Operand> Lstm(const Operand& input, const Operand& weight,
                            const Operand& recurrentWeight, uint32_t steps, uint32_t hiddenSize,
                            const MLLstmOptions& options = {});
  std::vector<Operand> LstmCell(const Operand& input, const Operand& weight,
                                const Operand& recurrentWeight, const Operand& hiddenState,
                                const Operand& cellState, uint32_t hiddenSize,
                                const MLLstmCellOptions& options = {});
  // §api-mlgraphbuilder-matmul, -pad
  Operand Matmul(const Operand& a, const Operand& b, const MLOperatorOptions& options = {});
  Operand Pad(const Operand& input, const std::vector<uint32_t>& beginningPadding,
              const std::vector<uint32_t>& endingPadding, const MLPadOptions& options = {});
  // §api-mlgraphbuilder-pool2d
  Operand AveragePool2d(const Operand& input, const MLPool2dOptions& options = {});
  Operand L2Pool2d(const Operand& input, const MLPool2dOptions& options = {});
  Operand MaxPool2d(const Operand& input, const MLPool2dOptions& options = {});
  // §api-mlgraphbuilder-prelu
  Operand Prelu(const Operand& input, const Operand& slope, const MLOperatorOptions& options = {});
  // §api-mlgraphbuilder-reduce
  Operand ReduceL1(const Operand& input, const MLReduceOptions& options = {});
  Operand ReduceL2(const Operand& input, const MLReduceOptions& options = {});
  Operand ReduceLogSum(const Operand& input, const MLReduceOptions& options = {});
  Operand ReduceLogSumExp(const Operand& input, const MLReduceOptions& options = {});
  Operand ReduceMax(const Operand& input, const MLReduceOptions& options = {});
  Operand ReduceMean(const Operand& input, const MLReduceOptions& options = {});
  Operand ReduceMin(const Operand& input, const MLReduceOptions& options = {});
  Operand ReduceProduct(const Operand& input, const MLReduceOptions& options = {});
  Operand ReduceSum(const Operand& input, const MLReduceOptions& options = {});
  Operand ReduceSumSquare(const Operand& input, const MLReduceOptions& options = {});
  // §api-mlgraphbuilder-relu-method, -resample2d-method, -reshape-method, -reverse-method
  Operand Relu(const Operand& input, const MLOperatorOptions& options = {});
  Operand Resample2d(const Operand& input, const MLResample2dOptions& options = {});
  Operand Reshape(const Operand& input, const std::vector<uint32_t>& newShape,
                  const MLOperatorOptions& options = {});
  Operand Reverse(const Operand& input, const MLReverseOptions& options = {});
  // §api-mlgraphbuilder-scatterelements, -scatternd
  Operand ScatterElements(const Operand& input, const Operand& indices, const Operand& updates,
                          const MLScatterOptions& options = {});
  Operand ScatterND(const Operand& input, const Operand& indices, const Operand& updates,
                    const MLOperatorOptions& options = {});
  // §api-mlgraphbuilder-sigmoid-method, -slice, -softmax-method, -softplus-method,
  // -softsign-method, -split, -tanh-method, -tile, -transpose, -triangular, -where
  Operand Sigmoid(const Operand& input, const MLOperatorOptions& options = {});
  Operand Slice(const Operand& input, const std::vector<uint32_t>& starts,
                const std::vector<uint32_t>& sizes, const MLSliceOptions& options = {});
  Operand Softmax(const Operand& input, uint32_t axis, const MLOperatorOptions& options = {});
  Operand Softplus(const Operand& input, const MLOperatorOptions& options = {});
  Operand Softsign(const Operand& input, const MLOperatorOptions& options = {});
  std::vector<Operand> Split(const Operand& input, uint32_t splits,
                             const MLSplitOptions& options = {});
  std::vector<Operand> Split(const Operand& input, const std::vector<uint32_t>& splits,
                             const MLSplitOptions& options = {});
  Operand Tanh(const Operand& input, const MLOperatorOptions& options = {});
  Operand Tile(const Operand& input, const std::vector<uint32_t>& repetitions,
               const MLOperatorOptions& options = {});
  Operand Transpose(const Operand& input, const MLTransposeOptions& options = {});
  Operand Triangular(const Operand& input, const MLTriangularOptions& options = {});
  Operand Where(const Operand& condition, const Operand& trueValue, const Operand& falseValue,
                const MLOperatorOptions& options = {});

  // nnref: the core builder the methods above forward to, for front ends that call the operator
  // registry (ops/registry.h) by name. Throws InvalidStateError when the context is lost.
  nnref::GraphBuilder& core();
  // nnref: the context this builder was created with.
  Context context() const;

 private:
  friend struct internal::Access;
  std::unique_ptr<internal::BuilderImpl> impl_;
};

}  // namespace nnref::webnn
