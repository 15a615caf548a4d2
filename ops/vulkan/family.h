// The vulkan backend's operator families (elementwise.cc, matmul_gemm.cc, ...);
// vulkan_backend.cc asks each in turn, as the simd backend does.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ops/backend.h"
#include "ops/gpu_interop.h"
#include "ops/vulkan/device.h"

namespace nnref::vk {

struct Family {
  // nullopt: not an operator of this family; "": covered for `type` (the data type of the first
  // input) on `device`; otherwise why not ("int64 needs shaderInt64").
  std::optional<std::string> (*unsupported)(OpId op, DataType type, const DeviceInfo& device);
  // The kernel for operator `index` of `graph`, or null with `why`.
  std::shared_ptr<const Kernel> (*make)(const Graph& graph, size_t index,
                                        const std::shared_ptr<Device>& device, std::string& why);
  // Whether `op` is element-wise: its kernel may run over boxes of any shape of its output
  // (SplitRows) when a tensor is larger than one binding; null: none is. split.cc knows the
  // other operators that can be split (SplitGeometryOf).
  bool (*splittable)(OpId op);
};

// One family per file, named as the reference's file of the same operators (an operator is found
// by the same file name in ops/, ops/simd/ and ops/vulkan/; docs/adding-an-operator.md).
extern const Family kElementwiseFamily;      // elementwise.cc: binary, unary, logical, cast, clamp,
                                             // where, the element-wise activations, linear,
                                             // quantizeLinear, dequantizeLinear (one table-driven
                                             // kernel on shaders/elementwise.comp)
extern const Family kMatmulGemmFamily;       // matmul_gemm.cc: matmul, gemm
extern const Family kConv2dFamily;           // conv2d.cc
extern const Family kConvTranspose2dFamily;  // conv_transpose2d.cc
extern const Family kPool2dFamily;           // pool2d.cc: averagePool2d, l2Pool2d, maxPool2d
extern const Family kResample2dFamily;       // resample2d.cc
extern const Family kReductionFamily;        // reduction.cc: the reduce* operators
extern const Family kSoftmaxFamily;          // softmax.cc
extern const Family kNormalizationFamily;    // normalization.cc: batch, instance, layer
extern const Family kDataMovementFamily;     // data_movement.cc: reshape, transpose, expand,
                                             // slice, reverse, split
extern const Family kDataMovementCopyFamily;  // data_movement_copy.cc: concat, pad, tile,
                                              // triangular
extern const Family kIndexingFamily;          // indexing.cc: gather, gatherElements, gatherND
extern const Family kScatterFamily;           // scatter.cc: scatterElements, scatterND
extern const Family kArgCumulativeFamily;     // arg_cumulative.cc: argMin, argMax, cumulativeSum
extern const Family kRnnFamily;               // rnn.cc: gru, gruCell, lstm, lstmCell
extern const Family kNnefFamily;  // nnef.cc: the NNEF operator group (one shader, nnef.comp)

// Byte size of a tensor of `desc`.
uint64_t ByteSize(const OperandDescriptor& desc);
// Why an operand of operator `index` cannot be bound (larger than maxStorageBufferRange), or "".
std::string CheckBindable(const Graph& graph, size_t index, const DeviceInfo& device);
bool Is64Bit(DataType t);

// How an operator's output may be cut into boxes by rows (split.cc): the boxes cut the first
// `axes` axes of the output; `inputs[k][j]` is the axis of input k cut with output axis j (j <
// axes), or -1 where input k is read whole (an input broadcast along an axis, of size 1 there, is
// read whole too).
struct SplitGeometry {
  size_t axes = 0;
  std::vector<std::vector<int>> inputs;
};
// The geometry of operator `index` (of `family`), or nullopt with why it cannot be split:
// element-wise operators (family.splittable), matmul and gemm (rows of the output), softmax,
// the reductions and the normalizations (the axes before the first reduced, normalized or
// channel axis).
std::optional<SplitGeometry> SplitGeometryOf(const Graph& graph, size_t index, const Family& family,
                                             std::string& why);
// A kernel that runs `inner` (operator `index`'s kernel) once per box of the output whose
// tensors fit `max_bytes`, the inputs sliced to each box, or null with why (not even one row of
// a box fits).
std::shared_ptr<const Kernel> SplitRows(std::shared_ptr<const Kernel> inner, const Graph& graph,
                                        size_t index, SplitGeometry geometry, uint64_t max_bytes,
                                        std::string& why);

// Fills `result` (dense, freshly allocated) with one run of `shader`: binding 0 = `params`,
// bindings 1.. = `inputs`, one invocation per 32-bit word of the result (an element of 32 or 64
// bits, two of 16, four of 8), with the specialization constants `spec`. Nothing runs for an
// empty result.
void Dispatch(Device& device, Shader shader, std::span<const uint32_t> params,
              std::span<const Bytes> inputs, Tensor& result, std::span<const uint32_t> spec = {});

// The whole-graph runner of `graph` with the backend's `kernels` on `device` (graph.cc).
std::shared_ptr<const GraphRunner> MakeGraphRunner(
    std::shared_ptr<Device> device, const Graph& graph,
    std::span<const std::shared_ptr<const Kernel>> kernels);

// The vulkan backend on `device` (an application's device adopted by ops/vulkan/interop.cc).
std::shared_ptr<const Backend> MakeBackendOnDevice(std::shared_ptr<Device> device);
// An application of its own on the device `options` choose (ops/gpu_interop.h, timeline scripts):
// a device created as an application would, the backend adopted onto it (interop.cc). Null with
// `why`.
std::shared_ptr<GpuApplication> MakeGpuApplication(const DeviceOptions& options, std::string& why);

// Why `device` cannot run the native arithmetic mode's tiled GEMM shaders (no subgroup ballot
// operations in compute shaders), or "".
std::string NativeGemmUnsupported(const Device& device);

// Fills `result` with one run of a native-mode tiled GEMM shader (gemm_tile.glsl: kMatmulNative,
// kConv2dNative), one workgroup per output tile of each of `batches` M x N products (the tile
// depends on the subgroup size). Nothing runs for an empty result.
void DispatchGemmTiles(Device& device, Shader shader, std::span<const uint32_t> params,
                       std::span<const Bytes> inputs, Tensor& result, uint64_t batches, uint64_t m,
                       uint64_t n);

// The workgroups of the direct variant over `batches` products of `rows` x 4 `vec4_columns`
// (DispatchGemmDirect's dispatch, and a graph's recorded one).
uint64_t GemmDirectGroups(const DeviceInfo& info, uint64_t batches, uint64_t rows,
                          uint64_t vec4_columns);

// Whether the native mode's GEMM shaders run their direct variant (NNVK_GEMM_DIRECT,
// gemm_variant.cc) on `device` for the shapes it handles: on a CPU device (lavapipe) unless
// NNREF_VULKAN_GEMM=tiled, on any device with NNREF_VULKAN_GEMM=direct; never with a subgroup
// size below 8.
bool PreferDirectGemm(const Device& device);

// Fills `result` with one run of the direct variant of a native-mode GEMM shader (kMatmulNative,
// kConv2dNative): `batches` products of `rows` x 4 `vec4_columns` outputs in register blocks;
// `option` is its specialization constant 1 (gemm_tile.glsl: gemm's epilogue for matmul_native,
// the channels-last input for conv2d_native).
void DispatchGemmDirect(Device& device, Shader shader, std::span<const uint32_t> params,
                        std::span<const Bytes> inputs, Tensor& result, uint64_t batches,
                        uint64_t rows, uint64_t vec4_columns, bool option);

// The kernel result of a single-output operator.
std::vector<OperandValue> OneOutput(Tensor result);

// The node's validated attributes of type A, or null with `why` (a node built without them).
template <typename A>
const A* AttributesOf(const OperatorNode& node, std::string& why) {
  const A* a = node.Attributes<A>();
  if (a == nullptr) why = std::string(OpName(node.op)) + " node without attributes";
  return a;
}

}  // namespace nnref::vk
