// The simd backend's softmax (§api-mlgraphbuilder-softmax-method), as in the reference's
// ops/softmax.cc: each line along the axis is read into a float32 row (float16 widened; groups.h,
// as the reductions of reduction.cc) and handed to the Highway row function (reduction_rows.h),
// which subtracts the maximum first (no overflow) and corrects the rounding of x - max. Lines are
// split over the thread pool from a size on (kTaskElements); a line is always computed whole by
// one call, so results do not depend on the thread count.
//
// Three passes over a line (the maximum; exp(x - max) stored and summed; the scaling), not the
// one-pass online max-and-sum: that form rescales its running sum by exp(old max - new max) and
// must compute exp(x - max) again for the output, two exponentials per element where this
// computes one, and a line of the lengths softmax sees (up to tens of thousands) stays in cache
// between the passes, so the extra passes cost far less than the exponentials.
#include "ops/softmax.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ops/simd/family.h"
#include "ops/simd/groups.h"
#include "ops/simd/reduction_rows.h"

namespace nnref::simd {

namespace {

// ---------------------------------------------------------------------------------------------
// softmax

class SoftmaxKernel final : public IntoKernel {
 public:
  // Elements per thread-pool task at least: a second thread costs a wake-up of the pool, and at
  // 64 x 1000 (64,000 elements, about 20 us on one thread) two threads were slower than one in
  // every run of docs/performance.md (0.80-0.97x), so work is split from 2 x 2^16 elements on.
  static constexpr uint64_t kTaskElements = uint64_t{1} << 16;

  SoftmaxKernel(uint32_t axis, Config config) : axis_(axis), config_(std::move(config)) {}

 private:
  // Into a plan buffer or a fresh tensor (IntoKernel); never in place (a row is read twice).
  Tensor Run(std::span<const OperandValue* const> in, std::span<const OperandDescriptor> out,
             const Tensor* into) const override {
    const Tensor& x = in[0]->data;
    // Every element is written (ForEachGroup writes each group whole): no zero fill.
    Tensor result =
        into != nullptr ? *into : Tensor::AllocateForOverwrite(out[0].dataType, out[0].shape);
    std::vector<bool> reduced(x.rank(), false);
    reduced[axis_] = true;
    const GroupSplit<2> split(x.shape(), reduced, {x.strides(), ContiguousStrides(x.shape())});
    ForEachGroup(
        split, config_, x, &result,
        [&](uint64_t, const std::array<int64_t, 2>&, const float* row, float* dst) {
          SoftmaxRow(row, dst, split.count);
        },
        kTaskElements);
    return result;
  }

  uint32_t axis_;
  Config config_;
};

// ---------------------------------------------------------------------------------------------

std::optional<std::string> Unsupported(OpId op, DataType type) {
  if (op != OpId::softmax) return std::nullopt;
  if (!IsFloat(type)) return std::string(DataTypeName(type)) + " not supported";
  return std::string();
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index, const Config& config,
                                   std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  if (const auto* a = node.Attributes<SoftmaxAttributes>()) {
    return std::make_shared<SoftmaxKernel>(a->axis, config);
  }
  why = "the node carries no attributes";
  return nullptr;
}

}  // namespace

const Family kSoftmaxFamily = {Unsupported, Make};

}  // namespace nnref::simd
