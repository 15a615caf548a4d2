// The shared machinery of the element-wise alternatives (elementwise_internal.h).
#include <cmath>
#include <numbers>

#include "numerics/cast.h"
#include "numerics/float16.h"
#include "ops/activations.h"
#include "ops/cast_clamp_where.h"
#include "ops/matmul_gemm.h"
#include "ops/variants/elementwise_internal.h"

namespace nnref::elementwise_variants {

Format FormatOf(DataType t) {
  return t == DataType::kFloat16 ? Format::kFloat16 : Format::kFloat32;
}

namespace {

double RoundNearest(double v, Format f) {
  switch (f) {
    case Format::kFloat16:
      return Float16::FromDouble(v).ToDouble();
    case Format::kFloat32:
      return static_cast<double>(static_cast<float>(v));
    case Format::kFloat64:
      return v;
  }
  return v;
}

// Significand bits and smallest normal exponent of each format.
int Precision(Format f) { return f == Format::kFloat16 ? 11 : (f == Format::kFloat32 ? 24 : 53); }
int MinExponent(Format f) {
  return f == Format::kFloat16 ? -14 : (f == Format::kFloat32 ? -126 : -1022);
}

}  // namespace

double UlpOf(double v, Format f) {
  const double a = std::fabs(v);
  const int p = Precision(f);
  if (a < std::ldexp(1.0, MinExponent(f))) return std::ldexp(1.0, MinExponent(f) - p + 1);
  int e = 0;
  const double m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1): the leading bit is 2^(e-1)
  // WGSL's ULP(x): the smallest b - a over representable a <= x <= b, so at a power of two the
  // spacing below it (half the one above), except at the smallest normal.
  const int below = m == 0.5 && e - 1 > MinExponent(f) ? 1 : 0;
  return std::ldexp(1.0, e - 1 - (p - 1) - below);
}

double StepOnce(double v, Format f, int direction) {
  if (std::isnan(v)) return v;
  switch (f) {
    case Format::kFloat32:
      return static_cast<double>(std::nextafter(
          static_cast<float>(v), direction > 0 ? std::numeric_limits<float>::infinity()
                                               : -std::numeric_limits<float>::infinity()));
    case Format::kFloat64:
      return std::nextafter(v, direction > 0 ? kInf : -kInf);
    case Format::kFloat16: {
      const uint16_t bits = Float16::FromDouble(v).bits;
      const bool negative = (bits & 0x8000u) != 0;
      uint16_t magnitude = static_cast<uint16_t>(bits & 0x7fffu);
      if (magnitude == 0) return direction > 0 ? 0x1p-24 : -0x1p-24;
      if ((direction > 0) != negative) {  // away from zero
        if (magnitude == 0x7c00u) return v;
        ++magnitude;
      } else {
        --magnitude;
      }
      return Float16::FromBits(static_cast<uint16_t>(magnitude | (bits & 0x8000u))).ToDouble();
    }
  }
  return v;
}

double RoundToFormat(double v, Format f, Rounding r) {
  double n = RoundNearest(v, f);
  if (r == Rounding::kTowardZero && !std::isnan(v) && std::fabs(n) > std::fabs(v)) {
    n = StepOnce(n, f, n > 0 ? -1 : 1);  // also brings an overflow back to the largest finite
  }
  return n;
}

double AtBound(double exact, double bound, int direction, Format f) {
  const double nearest = RoundNearest(exact, f);
  if (!std::isfinite(exact) || !(bound > 0) || !std::isfinite(bound)) return nearest;
  double r = RoundNearest(exact + direction * bound, f);
  if (std::fabs(r - exact) > bound) r = StepOnce(r, f, -direction);
  if (std::fabs(r - exact) > bound) return nearest;
  return r;
}

namespace {

double Exact(Primitive p, double x) {
  switch (p) {
    case Primitive::kExp:
      return std::exp(x);
    case Primitive::kLog:
      return std::log(x);
    case Primitive::kSin:
      return std::sin(x);
    case Primitive::kCos:
      return std::cos(x);
    case Primitive::kTan:
      return std::tan(x);
    case Primitive::kErf:
      return std::erf(x);
    case Primitive::kSqrt:
      return std::sqrt(x);
    case Primitive::kTanh:
      return std::tanh(x);
  }
  return x;
}

double LibmFloat32(Primitive p, double x) {
  const auto f = static_cast<float>(x);
  switch (p) {
    case Primitive::kExp:
      return static_cast<double>(std::exp(f));
    case Primitive::kLog:
      return static_cast<double>(std::log(f));
    case Primitive::kSin:
      return static_cast<double>(std::sin(f));
    case Primitive::kCos:
      return static_cast<double>(std::cos(f));
    case Primitive::kTan:
      return static_cast<double>(std::tan(f));
    case Primitive::kErf:
      return static_cast<double>(std::erf(f));
    case Primitive::kSqrt:
      return static_cast<double>(std::sqrt(f));
    case Primitive::kTanh:
      return static_cast<double>(std::tanh(f));
  }
  return x;
}

// Results of sin, cos, erf and tanh kept in [-1, 1], exp and sqrt in [0, Infinity]:
// implementations saturate there (erf(-70) is -1, never -1 - 16 ULP, which would turn gelu's 1 +
// erf into a wrong-signed value).
double InRange(double v) { return v > 1 ? 1.0 : (v < -1 ? -1.0 : v); }
double NonNegative(double v) { return v < 0 ? 0.0 : v; }

// `exact` moved by `ulps` WGSL ULPs in `direction`. Results below the normal range (zero
// included: 0 / 6, erf(0)) are kept correctly rounded: a bound in ULPs of the subnormal spacing
// is hundreds of subnormal steps (exp(-100) at 203 ULP), which no implementation produces; it
// computes them correctly or flushes them (a mutant).
double AtUlps(double exact, double ulps, int direction, Format f) {
  if (std::fabs(exact) < std::ldexp(1.0, MinExponent(f))) return RoundNearest(exact, f);
  return AtBound(exact, ulps * UlpOf(exact, f), direction, f);
}

}  // namespace

double Arith::Div(double a, double b) const {
  const double q = a / b;
  if (gpu == 0 || format == Format::kFloat64) return R(q);
  // Stated for |b| in [2^-126, 2^126] (f32) / [2^-14, 2^14] (f16); correctly rounded outside.
  const double range = format == Format::kFloat16 ? 0x1p14 : 0x1p126;
  const double m = std::fabs(b);
  if (!(m >= 1 / range && m <= range)) return R(q);
  return AtUlps(q, 2, gpu, format);
}

double Arith::Fn(Primitive p, double x) const {
  if (format == Format::kFloat64) return Exact(p, x);
  if (gpu == 0) return format == Format::kFloat32 ? LibmFloat32(p, x) : R(Exact(p, x));
  const bool half = format == Format::kFloat16;
  const double exact = Exact(p, x);
  switch (p) {
    case Primitive::kExp:
      return NonNegative(AtUlps(exact, (half ? 1 : 3) + 2 * std::fabs(x), gpu, format));
    case Primitive::kLog:
      if (x >= 0.5 && x <= 2) return AtBound(exact, half ? 0x1p-7 : 0x1p-21, gpu, format);
      return AtUlps(exact, 3, gpu, format);
    case Primitive::kSin:
    case Primitive::kCos:
      if (std::fabs(x) > std::numbers::pi) return R(exact);  // no stated bound outside
      return InRange(AtBound(exact, half ? 0x1p-7 : 0x1p-11, gpu, format));
    case Primitive::kTan:
      return Div(Fn(Primitive::kSin, x), Fn(Primitive::kCos, x));  // inherited
    case Primitive::kSqrt:
      return NonNegative(AtUlps(exact, 2, gpu, format));
    case Primitive::kErf:
    case Primitive::kTanh: {
      // OpenCL's float32 bounds; a float16 output rounds the float32 result. Saturated results
      // stay saturated: implementations return +-1 exactly where the rounded value is +-1.
      if (std::fabs(RoundNearest(exact, Format::kFloat32)) == 1) return R(exact);
      const double ulps = p == Primitive::kErf ? 16 : 5;
      return R(InRange(AtUlps(exact, ulps, gpu, Format::kFloat32)));
    }
  }
  return R(exact);
}

std::vector<std::vector<double>> ExpandInputs(std::span<const OperandValue* const> inputs,
                                              const Shape& out) {
  const uint64_t count = ElementCount(out);
  const size_t rank = out.size();
  std::vector<std::vector<double>> values;
  for (const OperandValue* in : inputs) {
    const Tensor& t = in->data;
    const Shape& s = t.shape();
    // Per output axis: the input's size (1 for missing leading axes) and row-major stride.
    std::vector<uint64_t> size(rank, 1), stride(rank, 0);
    uint64_t step = 1;
    for (size_t k = s.size(); k-- > 0;) {
      const size_t axis = rank - s.size() + k;
      size[axis] = s[k];
      stride[axis] = step;
      step *= s[k];
    }
    std::vector<double> v(count);
    std::vector<uint64_t> idx(rank, 0);
    DispatchDataType(t.dtype(), [&]<typename T>() {
      for (uint64_t i = 0; i < count; ++i) {
        uint64_t lin = 0;
        for (size_t a = 0; a < rank; ++a) {
          const uint64_t block = size[a] == 0 ? 1 : out[a] / size[a];
          lin += (size[a] == out[a] ? idx[a] : (size[a] == 1 ? 0 : idx[a] / block)) * stride[a];
        }
        v[i] = ToDouble(t.At<T>(lin));
        for (size_t a = rank; a-- > 0;) {  // odometer
          if (++idx[a] < out[a]) break;
          idx[a] = 0;
        }
      }
    });
    values.push_back(std::move(v));
  }
  return values;
}

bool ReadNode(const Graph& graph, size_t index, NodeInfo& n, Shape& shape) {
  const OperatorNode& node = graph.operators()[index];
  if (node.outputs.size() != 1) return false;
  const OperandDescriptor& desc = graph.operand(node.outputs[0]).desc;
  if (desc.dataType != DataType::kFloat32 && desc.dataType != DataType::kFloat16) return false;
  n.out_type = desc.dataType;
  n.out_format = FormatOf(desc.dataType);
  shape = desc.shape;
  for (OperandId id : node.inputs) n.in_types.push_back(graph.operand(id).desc.dataType);
  if (const auto* a = node.Attributes<ActivationAttributes>()) {
    n.alpha = a->alpha;
    n.beta = a->beta;
  } else if (const auto* l = node.Attributes<LinearAttributes>()) {
    n.alpha = l->alpha;
    n.beta = l->beta;
  } else if (const auto* c = node.Attributes<ClampAttributes>()) {
    DispatchDataType(c->min.dtype(), [&]<typename T>() {
      n.lo = ToDouble(*c->min.base<T>());
      n.hi = ToDouble(*c->max.base<T>());
    });
  }
  return true;
}

namespace {

Tensor ToTensor(DataType type, const Shape& shape, const std::vector<double>& v) {
  Tensor t = Tensor::Allocate(type, shape);
  for (size_t i = 0; i < v.size(); ++i) {
    if (type == DataType::kFloat16) {
      t.base<Float16>()[i] = Float16::FromDouble(v[i]);
    } else {
      t.base<float>()[i] = static_cast<float>(v[i]);
    }
  }
  return t;
}

}  // namespace

Alternative ElementAlternative(std::string op, std::string name, bool legitimate, std::string what,
                               ElementFn f, NodeTest applies, Rounding rounding) {
  Alternative a;
  const OpId id = OpNamed(op);
  a.op = id;
  a.name = std::move(name);
  a.legitimate = legitimate;
  a.what = std::move(what);
  a.compute =
      [id, f = std::move(f), applies = std::move(applies), rounding](
          const Graph& graph, size_t index,
          std::span<const OperandValue* const> inputs) -> std::optional<std::vector<Tensor>> {
    if (graph.operators()[index].op != id) return std::nullopt;
    NodeInfo n;
    Shape shape;
    if (!ReadNode(graph, index, n, shape)) return std::nullopt;
    n.values = ExpandInputs(inputs, shape);
    if (applies && !applies(n)) return std::nullopt;
    std::vector<double> out(ElementCount(shape));
    std::vector<double> x(inputs.size());
    for (size_t i = 0; i < out.size(); ++i) {
      for (size_t k = 0; k < x.size(); ++k) x[k] = n.values[k][i];
      out[i] = RoundToFormat(f(x.data(), n), n.out_format, rounding);
    }
    return std::vector<Tensor>{ToTensor(n.out_type, shape, out)};
  };
  return a;
}

Alternative ArithAlternative(std::string op, std::string name, std::string what, Decomposition d,
                             ArithPlan plan, NodeTest applies) {
  ElementFn f = [d = std::move(d), plan](const double* x, const NodeInfo& n) {
    Arith a;
    switch (plan) {
      case ArithPlan::kOperandType:
        a.format = n.out_format;
        break;
      case ArithPlan::kFloat32:
      case ArithPlan::kFloat32For16:
        a.format = Format::kFloat32;
        break;
      case ArithPlan::kGpuPlus:
        a.format = n.out_format;
        a.gpu = 1;
        break;
      case ArithPlan::kGpuMinus:
        a.format = n.out_format;
        a.gpu = -1;
        break;
    }
    return d(a, x, n);
  };
  NodeTest test = [plan, applies = std::move(applies)](const NodeInfo& n) {
    if (plan == ArithPlan::kFloat32For16 && n.out_type != DataType::kFloat16) return false;
    return !applies || applies(n);
  };
  return ElementAlternative(std::move(op), std::move(name), true, std::move(what), std::move(f),
                            std::move(test));
}

Alternative FlushF16Subnormals(std::string op) {
  Alternative a;
  const OpId id = OpNamed(op);
  a.op = id;
  a.name = "flush-subnormals-f16";
  a.legitimate = false;
  a.what = "float16 subnormal results flushed to zero (float16 denormals-are-zero hardware)";
  a.compute =
      [id](const Graph& graph, size_t index,
           std::span<const OperandValue* const> inputs) -> std::optional<std::vector<Tensor>> {
    const OperatorNode& node = graph.operators()[index];
    if (node.op != id || node.outputs.size() != 1) return std::nullopt;
    if (graph.operand(node.outputs[0]).desc.dataType != DataType::kFloat16) return std::nullopt;
    std::vector<OperandValue> ref = graph.RunOperator(index, inputs);
    const Tensor& r = ref[0].data;  // may be a view of an input: copied, never written
    Tensor t = Tensor::Allocate(r.dtype(), r.shape());
    for (uint64_t i = 0; i < r.element_count(); ++i) t.base<Float16>()[i] = r.At<Float16>(i);
    bool changed = false;
    for (uint64_t i = 0; i < t.element_count(); ++i) {
      Float16& h = t.base<Float16>()[i];
      if ((h.bits & 0x7c00u) == 0 && (h.bits & 0x3ffu) != 0) {  // subnormal
        h.bits = static_cast<uint16_t>(h.bits & 0x8000u);       // signed zero
        changed = true;
      }
    }
    if (!changed) return std::nullopt;
    return std::vector<Tensor>{std::move(t)};
  };
  return a;
}

}  // namespace nnref::elementwise_variants
