// The vulkan backend's operator families (elementwise.cc, linear_algebra.cc, ...);
// vulkan_backend.cc asks each in turn, as the simd backend does.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ops/backend.h"
#include "ops/vulkan/device.h"

namespace nnref::vk {

struct Family {
  // nullopt: not an operator of this family; "": covered for `type` (the data type of the first
  // input) on `device`; otherwise why not ("int64 needs shaderInt64").
  std::optional<std::string> (*unsupported)(std::string_view op, DataType type,
                                            const DeviceInfo& device);
  // The kernel for operator `index` of `graph`, or null with `why`.
  std::shared_ptr<const Kernel> (*make)(const Graph& graph, size_t index,
                                        const std::shared_ptr<Device>& device, std::string& why);
};

extern const Family kElementwiseFamily;    // binary, unary, logical, cast, clamp, where,
                                           // element-wise activations
extern const Family kLinearAlgebraFamily;  // matmul, gemm, conv2d, convTranspose2d
extern const Family kWindowFamily;         // pools, resample2d
extern const Family kReductionFamily;      // reductions, softmax
extern const Family kLayoutFamily;         // data movement
extern const Family kIndexingFamily;       // gather*, scatter*
extern const Family kRecurrentFamily;      // gru, gruCell, lstm, lstmCell

// Byte size of a tensor of `desc`.
uint64_t ByteSize(const OperandDescriptor& desc);
// Why an operand of operator `index` cannot be bound (larger than maxStorageBufferRange), or "".
std::string CheckBindable(const Graph& graph, size_t index, const DeviceInfo& device);
bool Is64Bit(DataType t);

}  // namespace nnref::vk
