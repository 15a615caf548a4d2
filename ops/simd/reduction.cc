// The simd backend's reductions (§api-mlgraphbuilder-reduce), as in the reference's
// ops/reduction.cc.
//
// Each output group (the reduced elements of one output element) is read into a float32 row
// (float16 widened; a pointer into the input when it is already a contiguous float32 run; blocks
// of neighbouring groups transposed at once when the groups run across memory, groups.h) and
// handed to the Highway row functions (reduction_rows.h); softmax.cc and normalization.cc read
// their lines and groups the same way. Groups are split over the thread pool; a group is always
// computed whole by one call, so results do not depend on the thread count.
//
// Numerics, float types (float32 arithmetic in reassociated vector partial sums):
//  - sum, mean, logSum: compensated vector sums (each lane carries the rounding errors of its
//    additions), so cancellation does not lose the small terms; mean divides in double.
//  - L1, sumSquare, L2: plain vector partial sums (no cancellation). Where float32 loses the
//    result (a sum that overflows although the inputs are finite, or a sum of squares that
//    overflows or underflows, as for L2 of values beyond 2^64 or below 2^-50), the group is
//    summed again in double, as careful libraries do (a scaled-norm fallback).
//  - product: vector partial products; when the float32 product overflows, underflows to 0 or
//    into the subnormals, the group is multiplied again in double with renormalization (frexp).
//  - logSumExp subtracts the maximum first (no overflow) and corrects the rounding of x - max,
//    then takes m + log1p(rest) so that tiny other terms keep their accuracy.
// Integer types (reductions that allow them): plain loops with two's-complement wrapping, as the
// reference's wrapped value (it marks the overflowing elements implementation-defined).
#include "ops/reduction.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ops/simd/family.h"
#include "ops/simd/groups.h"
#include "ops/simd/reduction_rows.h"

namespace nnref::simd {

namespace {

constexpr uint64_t kTaskElements = 1 << 15;  // input elements per thread-pool task, at least

size_t GrainFor(uint64_t count) {
  return static_cast<size_t>(std::max<uint64_t>(1, kTaskElements / std::max<uint64_t>(1, count)));
}

void Store(const Tensor& out, uint64_t index, float v) {
  if (out.dtype() == DataType::kFloat16) {
    out.base<Float16>()[index] = Float16::FromFloat(v);
  } else {
    out.base<float>()[index] = v;
  }
}

// ---------------------------------------------------------------------------------------------
// Reductions

// Sum of f(x) over a row in double (the fallback for float32 overflow/underflow).
template <class F>
double DoubleSum(const float* x, uint64_t n, const F& f) {
  double s = 0;
  for (uint64_t i = 0; i < n; ++i) s += f(static_cast<double>(x[i]));
  return s;
}

// Product in double with renormalization: no intermediate overflow or underflow.
float DoubleProduct(const float* x, uint64_t n) {
  double m = 1;
  int64_t e = 0;
  for (uint64_t i = 0; i < n; ++i) {
    m *= static_cast<double>(x[i]);
    if (m != 0 && std::isfinite(m)) {
      int k = 0;
      m = std::frexp(m, &k);
      e += k;
    }
  }
  const int64_t clamped = std::clamp<int64_t>(e, -4000, 4000);
  return static_cast<float>(std::ldexp(m, static_cast<int>(clamped)));
}

bool Finite(float v) { return std::isfinite(v); }

float ReduceFloatRow(ReduceOp op, const float* x, uint64_t n) {
  const auto abs = [](double v) { return std::fabs(v); };
  const auto square = [](double v) { return v * v; };
  switch (op) {
    case ReduceOp::kSum:
      return static_cast<float>(SumRow(x, n));
    case ReduceOp::kL1: {
      const float s = ReduceRow(RowReduce::kSumAbs, x, n);
      return Finite(s) ? s : static_cast<float>(DoubleSum(x, n, abs));
    }
    case ReduceOp::kMean:
      return static_cast<float>(SumRow(x, n) / static_cast<double>(n));
    case ReduceOp::kLogSum:
      return static_cast<float>(std::log(SumRow(x, n)));
    case ReduceOp::kSumSquare:
    case ReduceOp::kL2: {
      const float s = ReduceRow(RowReduce::kSumSquare, x, n);
      const bool l2 = op == ReduceOp::kL2;
      if (Finite(s) && s >= 0x1p-100f) return l2 ? std::sqrt(s) : s;
      const double d = DoubleSum(x, n, square);  // exact squares; no float32 range limit
      return static_cast<float>(l2 ? std::sqrt(d) : d);
    }
    case ReduceOp::kProduct: {
      const float p = ReduceRow(RowReduce::kProduct, x, n);
      if (std::isnan(p) || (Finite(p) && std::fabs(p) >= std::numeric_limits<float>::min())) {
        return p;
      }
      return DoubleProduct(x, n);
    }
    case ReduceOp::kMax:
      return ReduceRow(RowReduce::kMax, x, n);
    case ReduceOp::kMin:
      return ReduceRow(RowReduce::kMin, x, n);
    case ReduceOp::kLogSumExp:
      return LogSumExpRow(x, n);
  }
  return 0;
}

// One integer reduction with two's-complement wrapping (computed in the unsigned type).
template <typename T>
T ReduceIntegerGroup(ReduceOp op, const GroupSplit<1>& split, const T* src, int64_t base) {
  using U = std::make_unsigned_t<T>;
  const bool extreme = op == ReduceOp::kMax || op == ReduceOp::kMin;
  U acc = op == ReduceOp::kProduct ? U{1} : U{0};
  T best = src[base];
  split.ForEachRun(0, base, [&](int64_t off, int64_t step, uint64_t n) {
    const T* p = src + off;
    for (uint64_t i = 0; i < n; ++i) {
      const T v = p[static_cast<int64_t>(i) * step];
      const U u = static_cast<U>(v);
      switch (op) {
        case ReduceOp::kMax:
          best = v > best ? v : best;
          break;
        case ReduceOp::kMin:
          best = v < best ? v : best;
          break;
        case ReduceOp::kProduct:
          acc = static_cast<U>(acc * u);
          break;
        case ReduceOp::kL1:
          acc = static_cast<U>(acc + (v < T{0} ? static_cast<U>(U{0} - u) : u));
          break;
        case ReduceOp::kSumSquare:
          acc = static_cast<U>(acc + static_cast<U>(u * u));
          break;
        default:
          acc = static_cast<U>(acc + u);
      }
    }
  });
  return extreme ? best : static_cast<T>(acc);
}

class ReduceKernel final : public Kernel {
 public:
  ReduceKernel(const ReduceAttributes& a, Config config)
      : op_(a.op), reduced_(a.reduced), config_(std::move(config)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Tensor& x = in[0]->data;
    Tensor result = Tensor::Allocate(out[0].dataType, out[0].shape);
    const GroupSplit<1> split(x.shape(), reduced_, {x.strides()});
    if (split.groups == 0 || split.count == 0) return One(std::move(result));
    const size_t grain = GrainFor(split.count);
    if (IsFloat(x.dtype())) {
      ForEachGroup(split, config_, x, nullptr,
                   [&](uint64_t g, const std::array<int64_t, 1>&, const float* row, float*) {
                     Store(result, g, ReduceFloatRow(op_, row, split.count));
                   });
    } else {
      DispatchDataType(x.dtype(), [&]<typename T>() {
        if constexpr (std::is_integral_v<T>) {
          const T* src = x.base<T>();
          T* dst = result.base<T>();
          config_.pool->ParallelFor(split.groups, grain, [&](size_t begin, size_t end) {
            for (size_t g = begin; g < end; ++g) {
              dst[g] = ReduceIntegerGroup<T>(op_, split, src, split.GroupOffsets(g)[0]);
            }
          });
        }
        return 0;
      });
    }
    return One(std::move(result));
  }

 private:
  ReduceOp op_;
  std::vector<bool> reduced_;
  Config config_;
};

// ---------------------------------------------------------------------------------------------

bool IsReduction(OpId op) {
  switch (op) {
    case OpId::reduceL1:
    case OpId::reduceL2:
    case OpId::reduceLogSum:
    case OpId::reduceLogSumExp:
    case OpId::reduceMax:
    case OpId::reduceMean:
    case OpId::reduceMin:
    case OpId::reduceProduct:
    case OpId::reduceSum:
    case OpId::reduceSumSquare:
      return true;
    default:
      return false;
  }
}

// Every data type the builder admits: floats for all; integers for the reductions that allow them
// (sum, L1, sumSquare, product, max, min; the builder rejects the others).
std::optional<std::string> Unsupported(OpId op, DataType) {
  if (!IsReduction(op)) return std::nullopt;
  return std::string();
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index, const Config& config,
                                   std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  if (const auto* a = node.Attributes<ReduceAttributes>()) {
    return std::make_shared<ReduceKernel>(*a, config);
  }
  why = "the node carries no attributes";
  return nullptr;
}

}  // namespace

const Family kReductionFamily = {Unsupported, Make};

}  // namespace nnref::simd
