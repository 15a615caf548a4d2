// The machinery of the sum-family alternatives (sums_internal.h): operand-type arithmetic
// emulated in double, the summation orders, and the wrapper that turns a computation over
// doubles into an Alternative.
#include <algorithm>
#include <cmath>

#include "numerics/cast.h"
#include "numerics/float16.h"
#include "ops/conv_common.h"
#include "ops/variants/sums_internal.h"

namespace nnref::sums {

// ---------------------------------------------------------------------------------------------
// Arithmetic and summation.

double Round(Prec p, double x) {
  switch (p) {
    case Prec::kF16:
      return Float16::FromDouble(x).ToDouble();
    case Prec::kF32:
      return static_cast<double>(static_cast<float>(x));
    case Prec::kExact:
      return x;
  }
  return x;
}

double Sqrt(Prec p, double a) { return Round(p, std::sqrt(a)); }
double Exp(Prec p, double a) { return Round(p, std::exp(a)); }
double Log(Prec p, double a) { return Round(p, std::log(a)); }

double Fma(Prec p, double a, double b, double c) {
  if (p == Prec::kF32) {
    return static_cast<double>(
        std::fma(static_cast<float>(a), static_cast<float>(b), static_cast<float>(c)));
  }
  return Round(p, std::fma(a, b, c));
}

namespace {

template <typename Term>
double Pairwise(Prec p, const Term& term, size_t lo, size_t hi) {
  if (hi - lo == 1) return term(lo);
  if (hi == lo) return -0.0;
  const size_t mid = lo + (hi - lo) / 2;
  return Add(p, Pairwise(p, term, lo, mid), Pairwise(p, term, mid, hi));
}

}  // namespace

double Dot(std::span<const double> a, std::span<const double> b, const SumSpec& s, double init) {
  const size_t n = a.size();
  const bool products = !b.empty();
  const Prec p = s.p;
  if (p == Prec::kExact) {
    WindowSum acc;  // compensated: the exact sum in all but contrived cases
    acc.Add(init);
    for (size_t k = 0; k < n; ++k) acc.Add(products ? a[k] * b[k] : a[k]);
    return acc.QuotientToOdd();
  }
  const auto term = [&](size_t k) { return products ? Mul(p, a[k], b[k]) : a[k]; };
  const auto step = [&](double acc, size_t k) {
    return products && s.fma ? Fma(p, a[k], b[k], acc) : Add(p, acc, term(k));
  };
  const auto sequential = [&](size_t lo, size_t hi, double acc) {
    for (size_t k = lo; k < hi; ++k) acc = step(acc, k);
    return acc;
  };
  switch (s.order) {
    case Order::kSequential:
      return sequential(0, n, init);
    case Order::kReverse: {
      double acc = init;
      for (size_t k = n; k-- > 0;) acc = step(acc, k);
      return acc;
    }
    case Order::kPairwise:
      return Add(p, init, Pairwise(p, term, 0, n));
    case Order::kBlocked: {
      const auto lanes = static_cast<size_t>(std::max(1, s.lanes));
      std::vector<double> lane(lanes, -0.0);
      lane[0] = init;
      for (size_t k = 0; k < n; ++k) lane[k % lanes] = step(lane[k % lanes], k);
      for (size_t width = lanes / 2; width >= 1; width /= 2) {
        for (size_t j = 0; j < width; ++j) lane[j] = Add(p, lane[j], lane[j + width]);
      }
      return lane[0];
    }
    case Order::kSplitK: {
      const double first = sequential(0, n / 2, init);
      return Add(p, first, sequential(n / 2, n, -0.0));
    }
  }
  return 0;
}

std::optional<Prec> PrecFor(Acc acc, DataType type) {
  const bool f32 = type == DataType::kFloat32, f16 = type == DataType::kFloat16;
  switch (acc) {
    case Acc::kF32:
      if (f32) return Prec::kF32;
      break;
    case Acc::kF16:
      if (f16) return Prec::kF16;
      break;
    case Acc::kF16F32:
      if (f16) return Prec::kF32;
      break;
    case Acc::kOperand:
      if (f32) return Prec::kF32;
      if (f16) return Prec::kF16;
      break;
    case Acc::kExact:
      if (f32 || f16) return Prec::kExact;
      break;
  }
  return std::nullopt;
}

const char* AccPrefix(Acc acc) {
  switch (acc) {
    case Acc::kF32:
      return "f32";
    case Acc::kF16:
      return "f16-acc-f16";
    case Acc::kF16F32:
      return "f16-acc-f32";
    default:
      return "";
  }
}

const char* OrderName(Order o, int lanes) {
  switch (o) {
    case Order::kSequential:
      return "sequential";
    case Order::kReverse:
      return "reverse";
    case Order::kPairwise:
      return "pairwise";
    case Order::kBlocked:
      return lanes == 16 ? "blocked16" : lanes == 4 ? "blocked4" : "blocked8";
    case Order::kSplitK:
      return "splitk";
  }
  return "?";
}

std::string Name(Acc acc, const std::string& rest) {
  const std::string prefix = AccPrefix(acc);
  return prefix.empty() ? rest : prefix + "-" + rest;
}

std::vector<double> Values(const Tensor& t) {
  std::vector<double> v(t.element_count());
  for (uint64_t i = 0; i < v.size(); ++i) {
    v[i] = t.dtype() == DataType::kFloat16 ? t.At<Float16>(i).ToDouble()
                                           : static_cast<double>(t.At<float>(i));
  }
  return v;
}

std::vector<double> ValuesAlong(const Tensor& t, const Shape& shape,
                                const std::vector<size_t>& axes) {
  Strides strides(shape.size(), 0);
  for (size_t k = 0; k < axes.size(); ++k) strides[axes[k]] = t.strides()[k];
  return Values(Tensor(t.dtype(), shape, std::move(strides), t.offset(), t.buffer()));
}

void ForEachGroup(const Shape& shape, const std::vector<bool>& inner,
                  const std::function<void(std::span<const int64_t>)>& fn) {
  const Strides dense = ContiguousStrides(shape);
  Shape outer_shape, inner_shape;
  Strides outer_strides, inner_strides;
  for (size_t a = 0; a < shape.size(); ++a) {
    (inner[a] ? inner_shape : outer_shape).push_back(shape[a]);
    (inner[a] ? inner_strides : outer_strides).push_back(dense[a]);
  }
  std::vector<int64_t> offsets;
  ForEachOffsets<1>(inner_shape, {&inner_strides},
                    [&](const std::array<int64_t, 1>& o) { offsets.push_back(o[0]); });
  std::vector<int64_t> group(offsets.size());
  ForEachOffsets<1>(outer_shape, {&outer_strides}, [&](const std::array<int64_t, 1>& o) {
    for (size_t i = 0; i < offsets.size(); ++i) group[i] = o[0] + offsets[i];
    fn(group);
  });
}

namespace {

bool SameValues(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
  }
  return true;
}

}  // namespace

Alternative Make(std::string op, std::string name, bool legitimate, std::string what, Acc acc,
                 Body body) {
  Alternative a;
  a.op = OpNamed(op);
  a.name = std::move(name);
  a.legitimate = legitimate;
  a.what = std::move(what);
  a.compute =
      [acc, legitimate, body = std::move(body)](
          const Graph& graph, size_t index,
          std::span<const OperandValue* const> inputs) -> std::optional<std::vector<Tensor>> {
    const OperatorNode& node = graph.operators()[index];
    if (node.outputs.size() != 1) return std::nullopt;
    const OperandDescriptor& desc = graph.operand(node.outputs[0]).desc;
    const std::optional<Prec> p = PrecFor(acc, desc.dataType);
    if (!p) return std::nullopt;
    const Context context{graph, node, inputs, desc.dataType, desc.shape};
    const std::optional<std::vector<double>> v = body(context, *p);
    if (!v || v->size() != desc.ElementCount()) return std::nullopt;
    Tensor t = Tensor::Allocate(desc.dataType, desc.shape);
    for (size_t i = 0; i < v->size(); ++i) {
      if (desc.dataType == DataType::kFloat16) {
        t.base<Float16>()[i] = RoundTo<Float16>((*v)[i]);
      } else {
        t.base<float>()[i] = RoundTo<float>((*v)[i]);
      }
    }
    if (!legitimate) {
      const std::vector<OperandValue> ref = graph.RunOperator(index, inputs);
      if (SameValues(Values(ref[0].data), Values(t))) return std::nullopt;
    }
    return std::vector<Tensor>{std::move(t)};
  };
  return a;
}

std::string AccText(Acc acc) {
  switch (acc) {
    case Acc::kF32:
      return "float32 arithmetic";
    case Acc::kF16:
      return "float16 arithmetic (every operation rounded to float16)";
    case Acc::kF16F32:
      return "float16 operands computed in float32, rounded to float16 once";
    default:
      return "";
  }
}

std::string OrderText(const SumSpec& s) {
  std::string t;
  switch (s.order) {
    case Order::kSequential:
      t = "sequential sum";
      break;
    case Order::kReverse:
      t = "sum in reverse order";
      break;
    case Order::kPairwise:
      t = "pairwise (tree) sum";
      break;
    case Order::kBlocked:
      t = std::to_string(s.lanes) + " interleaved partial sums (SIMD lanes) combined at the end";
      break;
    case Order::kSplitK:
      t = "split-K: the two halves summed apart, then added";
      break;
  }
  if (s.fma) t += ", products fused into the adds (fma)";
  return t;
}

}  // namespace nnref::sums
