// NNEF round, elu and the arg/logical reductions; see nnef_elementwise.h.
#include "ops/nnef_elementwise.h"

#include <algorithm>
#include <cmath>

#include "ops/elementwise.h"
#include "ops/nnef_common.h"

namespace nnref::nnef {

namespace {

template <typename Fn>
class MapKernel final : public Kernel {
 public:
  explicit MapKernel(Fn f) : f_(std::move(f)) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    return {MapElements<float, float>(out[0], {in[0]}, [&](float x, Latitude&) { return f_(x); })};
  }

 private:
  Fn f_;
};

template <typename Fn>
Operand Map(GraphBuilder& builder, OpId op, const char* name, const Operand& input, Fn f) {
  const OperandDescriptor& d = builder.Desc(input);
  if (d.dataType != DataType::kFloat32) {
    ThrowTypeError(std::string(name) + ": the input must be float32");
  }
  return AddNnefNode(builder, op, {input}, std::make_shared<MapKernel<Fn>>(std::move(f)), nullptr,
                     {d})[0];
}

// Calls fn(output linear index, input offsets of the reduced sub-volume in row-major order).
template <typename Fn>
void ForEachReduction(const Index& xs, const std::vector<uint32_t>& axes, Fn&& fn) {
  const Index xst = DenseStrides(xs);
  Index outer = xs, inner(axes.size());
  for (size_t k = 0; k < axes.size(); ++k) {
    inner[k] = xs[axes[k]];
    outer[axes[k]] = 1;
  }
  std::vector<int64_t> offsets;
  int64_t yo = 0;
  Index o(outer.size(), 0);
  do {
    int64_t base = 0;
    for (size_t k = 0; k < o.size(); ++k) base += o[k] * xst[k];
    offsets.clear();
    Index r(axes.size(), 0);
    do {
      int64_t off = base;
      for (size_t k = 0; k < axes.size(); ++k) off += r[k] * xst[axes[k]];
      offsets.push_back(off);
    } while (!axes.empty() && Next(r, inner));
    fn(yo++, offsets);
  } while (!o.empty() && Next(o, outer));
}

class ReduceKernel final : public Kernel {
 public:
  explicit ReduceKernel(std::shared_ptr<const NnefReduceAttributes> a) : a_(std::move(a)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const NnefReduceOp op = a_->op;
    OperandValue result = NewOutput(out[0]);
    const Index xs = ToIndex(in[0]->data.shape());
    if (op == NnefReduceOp::kAll || op == NnefReduceOp::kAny) {
      const Tensor x = in[0]->data.Contiguous();
      const uint8_t* p = x.base<uint8_t>();
      uint8_t* y = result.data.base<uint8_t>();
      ForEachReduction(xs, a_->axes, [&](int64_t yo, const std::vector<int64_t>& offs) {
        bool v = op == NnefReduceOp::kAll;
        for (int64_t off : offs) v = op == NnefReduceOp::kAll ? v && p[off] != 0 : v || p[off] != 0;
        y[yo] = v ? 1 : 0;
      });
      return {std::move(result)};
    }
    const Floats x(in[0]->data);
    int64_t* y = result.data.base<int64_t>();
    Tensor lat;
    ForEachReduction(xs, a_->axes, [&](int64_t yo, const std::vector<int64_t>& offs) {
      int64_t best = 0;
      bool nan = false;
      for (size_t k = 0; k < offs.size(); ++k) {
        const double v = x[offs[k]];
        const double b = x[offs[static_cast<size_t>(best)]];
        nan = nan || std::isnan(v);
        if (op == NnefReduceOp::kArgmax ? v > b : v < b) best = static_cast<int64_t>(k);
      }
      y[yo] = best;
      if (nan) MarkOpen(lat, out[0].shape, yo);
    });
    if (lat.valid()) result.latitude = lat;
    return {std::move(result)};
  }

 private:
  std::shared_ptr<const NnefReduceAttributes> a_;
};

}  // namespace

Operand NnefRound(GraphBuilder& builder, const Operand& input) {
  return Map(builder, OpId::nnef_round, "round", input,
             [](float x) { return static_cast<float>(RoundHalfUp(static_cast<double>(x))); });
}

Operand NnefElu(GraphBuilder& builder, const Operand& input) {
  return Map(builder, OpId::nnef_elu, "elu", input, [](float x) {
    // expm1 in double (relative accuracy near 0, where exp(x) - 1 cancels), rounded once.
    return x < 0 ? static_cast<float>(std::expm1(static_cast<double>(x))) : x;
  });
}

Operand NnefReduce(GraphBuilder& builder, const Operand& input,
                   const NnefReduceAttributes& attributes) {
  const OperandDescriptor& d = builder.Desc(input);
  const bool logical = attributes.op == NnefReduceOp::kAll || attributes.op == NnefReduceOp::kAny;
  static constexpr OpId kIds[] = {OpId::nnef_argmax_reduce, OpId::nnef_argmin_reduce,
                                  OpId::nnef_all_reduce, OpId::nnef_any_reduce};
  const OpId id = kIds[static_cast<size_t>(attributes.op)];
  const std::string name(OpName(id));
  if (d.dataType != (logical ? DataType::kUint8 : DataType::kFloat32)) {
    ThrowTypeError(name + ": the input must be " + (logical ? "uint8" : "float32"));
  }
  Shape out = d.shape;
  for (size_t k = 0; k < attributes.axes.size(); ++k) {
    const uint32_t a = attributes.axes[k];
    if (a >= out.size() || (k > 0 && a <= attributes.axes[k - 1])) {
      ThrowTypeError(name + ": axes must be ascending, unique and below the rank");
    }
    out[a] = 1;
  }
  auto a = std::make_shared<const NnefReduceAttributes>(attributes);
  return AddNnefNode(builder, id, {input}, std::make_shared<ReduceKernel>(a), a,
                     {{logical ? DataType::kUint8 : DataType::kInt64, out}})[0];
}

}  // namespace nnref::nnef
