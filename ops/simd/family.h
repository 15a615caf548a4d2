// The simd backend's operator families. Each family file (elementwise.cc, matmul_gemm.cc, ...)
// answers for the operators it knows and makes their kernels; simd_backend.cc asks each in turn.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ops/backend.h"
#include "ref/parallel/parallel.h"

namespace nnref::simd {

struct Config {
  std::shared_ptr<ThreadPool> pool;
};

// The grain for ThreadPool::ParallelFor over `units` units of `unit_elements` elements each: as
// many tasks as there are `task_elements` elements (at least one, at most one per thread), the
// units shared evenly between them. The pool cuts a run into at most threads() parts of a whole
// number of grains, so a grain of task_elements / unit_elements split 320 rows of 64 into 256 and
// 64 on two threads; this one gives 160 and 160 (docs/performance.md, "Issue 25: the ResBlock on
// two threads"). Which thread computes a unit never changes its bits.
inline size_t TaskGrain(uint64_t units, uint64_t unit_elements, uint64_t task_elements,
                        unsigned threads) {
  if (units == 0) return 1;
  const uint64_t elements = units * std::max<uint64_t>(1, unit_elements);
  const uint64_t tasks = std::clamp<uint64_t>(elements / std::max<uint64_t>(1, task_elements), 1,
                                              std::min<uint64_t>(threads, units));
  return static_cast<size_t>((units + tasks - 1) / tasks);
}

struct Family {
  // nullopt: not an operator of this family; "" : covered for `type` (the data type of the first
  // input); otherwise why not ("float16 not supported").
  std::optional<std::string> (*unsupported)(OpId op, DataType type);
  // The kernel for operator `index` of `graph` (an operator of this family), or null with `why`.
  std::shared_ptr<const Kernel> (*make)(const Graph& graph, size_t index, const Config& config,
                                        std::string& why);
};

// One family per file, named as the reference's file of the same operators (an operator is found
// by the same file name in ops/, ops/simd/ and ops/vulkan/; docs/adding-an-operator.md).
extern const Family kElementwiseFamily;      // elementwise.cc: binary, unary, logical, cast, clamp,
                                             // where and the element-wise activations (the
                                             // reference's elementwise_*.cc, cast_clamp_where.cc,
                                             // activations.cc: one table-driven kernel here)
extern const Family kMatmulGemmFamily;       // matmul_gemm.cc: matmul, gemm, linear
extern const Family kConv2dFamily;           // conv2d.cc
extern const Family kConvTranspose2dFamily;  // conv_transpose2d.cc
extern const Family kPool2dFamily;           // pool2d.cc: averagePool2d, l2Pool2d, maxPool2d
extern const Family kResample2dFamily;       // resample2d.cc
extern const Family kReductionFamily;        // reduction.cc: the reduce* operators
extern const Family kSoftmaxFamily;          // softmax.cc
extern const Family kNormalizationFamily;    // normalization.cc: batch, instance, layer
extern const Family kQuantizationFamily;     // quantization.cc: quantizeLinear, dequantizeLinear
extern const Family kDataMovementFamily;     // data_movement.cc: the views (reshape, transpose,
                                             // expand, slice, reverse, split)
extern const Family kDataMovementCopyFamily;  // data_movement_copy.cc: concat, pad, tile,
                                              // triangular
extern const Family kIndexingFamily;          // indexing.cc: gather, gatherElements, gatherND
extern const Family kScatterFamily;           // scatter.cc: scatterElements, scatterND
extern const Family kArgCumulativeFamily;     // arg_cumulative.cc: argMin, argMax, cumulativeSum
extern const Family kRnnFamily;               // rnn.cc: gru, gruCell, lstm, lstmCell
extern const Family kNnefWindowFamily;        // nnef_window.cc: the NNEF group's box
                                              // (normalized), argmax_pool, sample
extern const Family kNnefResampleFamily;      // nnef_resample.cc: multilinear_upsample
extern const Family kNnefElementwiseFamily;   // nnef_elementwise.cc: round, elu, the arg and
                                              // logical reductions
extern const Family kNnefQuantizeFamily;      // nnef_quantize.cc: graph.quant quantization

// The result of a single-output operator (defined in copy.cc).
std::vector<OperandValue> One(Tensor t);

// A single-output kernel that computes into a fresh tensor or into a buffer of the whole-graph
// plan (graph_plan.h) by one function, Run(in, out, into): `into` null for a fresh tensor. Never
// in place: the row-wise operators read a row (group) again after writing starts.
class IntoKernel : public Kernel {
 public:
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const final {
    return One(Run(in, out, nullptr));
  }
  IntoSupport Into() const final { return {true, false}; }
  void ComputeInto(std::span<const OperandValue* const> in, std::span<const OperandDescriptor> out,
                   const Tensor& into) const final {
    (void)Run(in, out, &into);
  }

 protected:
  virtual Tensor Run(std::span<const OperandValue* const> in,
                     std::span<const OperandDescriptor> out, const Tensor* into) const = 0;
};

// The data type of the first input of operator `index` (the one `unsupported` is asked about).
DataType FirstInputType(const Graph& graph, size_t index);

}  // namespace nnref::simd
