// The simd backend's element-wise operators and reductions of the NNEF group
// (ops/nnef_elementwise.h): round (NNEF 1.0.2 4.2.1, floor(x + 0.5)), the atomic elu (4.9.1,
// select(x < 0, exp(x) - 1, x)) and argmax_reduce, argmin_reduce, all_reduce, any_reduce (4.4).
//
// round and elu are per-element maps over the backend's strided row driver (map.h, TypedMap):
// round adds 0.5 in double, where x + 0.5 is exact for every float32 x (a float32 sum in its
// place would round 0.49999997 + 0.5 up to 1), then floors; elu is expm1 in double for x < 0,
// rounded once; every other x (-0 and NaN included) passes through, as the compound's select
// does. The reductions walk each output's reduced sub-volume in row-major order of the reduced
// axes (plain loops, outputs split over the thread pool): the arg reductions keep the first
// strict maximum (minimum) — a NaN never wins, ties give the first index — and the logical ones
// stop at the first deciding item. All exact.
#include "ops/nnef_elementwise.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/simd/family.h"
#include "ops/simd/map.h"

namespace nnref::simd {

namespace {

using nnef::NnefReduceAttributes;
using nnef::NnefReduceOp;

class MapKernel final : public Kernel {
 public:
  MapKernel(OpId op, Config config) : op_(op), config_(std::move(config)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Tensor& x = in[0]->data;
    if (op_ == OpId::nnef_round) {
      return One(TypedMap<float, float>({&x}, out[0], config_, [](float v) {
        return static_cast<float>(std::floor(static_cast<double>(v) + 0.5));
      }));
    }
    return One(TypedMap<float, float>({&x}, out[0], config_, [](float v) {
      return v < 0 ? static_cast<float>(std::expm1(static_cast<double>(v))) : v;
    }));
  }

 private:
  OpId op_;
  Config config_;
};

class ReduceKernel final : public Kernel {
 public:
  ReduceKernel(const NnefReduceAttributes& a, Config config) : a_(a), config_(std::move(config)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Tensor x = in[0]->data.Contiguous();
    const Shape& xs = x.shape();
    const size_t rank = xs.size();
    // Dense strides of x; the kept axes (extent 1 in the output for the reduced ones) walk the
    // outputs, the reduced axes the sub-volume.
    std::vector<int64_t> st(rank, 1);
    for (size_t k = rank; k-- > 1;) st[k - 1] = st[k] * static_cast<int64_t>(xs[k]);
    std::vector<bool> reduced(rank, false);
    for (uint32_t a : a_.axes) reduced[a] = true;
    std::vector<int64_t> inner_ext, inner_st, outer_ext, outer_st;
    for (size_t k = 0; k < rank; ++k) {
      (reduced[k] ? inner_ext : outer_ext).push_back(static_cast<int64_t>(xs[k]));
      (reduced[k] ? inner_st : outer_st).push_back(st[k]);
    }
    int64_t inner = 1, outer = 1;
    for (int64_t e : inner_ext) inner *= e;
    for (int64_t e : outer_ext) outer *= e;
    // The offset of every item of a sub-volume relative to its first, in row-major order.
    std::vector<int64_t> offsets(static_cast<size_t>(inner));
    for (int64_t i = 0; i < inner; ++i) {
      int64_t rest = i, off = 0;
      for (size_t k = inner_ext.size(); k-- > 0;) {
        off += (rest % inner_ext[k]) * inner_st[k];
        rest /= inner_ext[k];
      }
      offsets[static_cast<size_t>(i)] = off;
    }
    std::vector<OperandValue> result(1);
    result[0].data = Tensor::Allocate(out[0].dataType, out[0].shape);
    if (outer == 0 || inner == 0) return result;
    const NnefReduceOp op = a_.op;
    const size_t grain = static_cast<size_t>(std::max<int64_t>(1, 4096 / inner));
    config_.pool->ParallelFor(static_cast<size_t>(outer), grain, [&](size_t begin, size_t end) {
      for (size_t o = begin; o < end; ++o) {
        int64_t rest = static_cast<int64_t>(o), base = 0;
        for (size_t k = outer_ext.size(); k-- > 0;) {
          base += (rest % outer_ext[k]) * outer_st[k];
          rest /= outer_ext[k];
        }
        if (op == NnefReduceOp::kAll || op == NnefReduceOp::kAny) {
          const uint8_t* p = x.base<uint8_t>() + base;
          const bool all = op == NnefReduceOp::kAll;
          bool v = all;
          for (int64_t off : offsets) {
            if ((p[off] != 0) != all) {
              v = !all;
              break;
            }
          }
          result[0].data.base<uint8_t>()[o] = v ? 1 : 0;
        } else {
          const float* p = x.base<float>() + base;
          const bool max = op == NnefReduceOp::kArgmax;
          float best = p[0];
          int64_t at = 0;
          for (int64_t i = 1; i < inner; ++i) {
            const float v = p[offsets[static_cast<size_t>(i)]];
            if (max ? v > best : v < best) {
              best = v;
              at = i;
            }
          }
          result[0].data.base<int64_t>()[o] = at;
        }
      }
    });
    return result;
  }

 private:
  NnefReduceAttributes a_;
  Config config_;
};

std::optional<std::string> Unsupported(OpId op, DataType type) {
  switch (op) {
    case OpId::nnef_round:
    case OpId::nnef_elu:
    case OpId::nnef_argmax_reduce:
    case OpId::nnef_argmin_reduce:
      if (type != DataType::kFloat32) return std::string(DataTypeName(type)) + " not supported";
      return std::string();
    case OpId::nnef_all_reduce:
    case OpId::nnef_any_reduce:
      if (type != DataType::kUint8) return std::string(DataTypeName(type)) + " not supported";
      return std::string();
    default:
      return std::nullopt;
  }
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index, const Config& config,
                                   std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  if (node.op == OpId::nnef_round || node.op == OpId::nnef_elu) {
    return std::make_shared<MapKernel>(node.op, config);
  }
  const auto* a = node.Attributes<NnefReduceAttributes>();
  if (a == nullptr) {
    why = "the node carries no attributes";
    return nullptr;
  }
  return std::make_shared<ReduceKernel>(*a, config);
}

}  // namespace

const Family kNnefElementwiseFamily = {Unsupported, Make};

}  // namespace nnref::simd
