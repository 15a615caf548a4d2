// Variants and mutants of the element-wise operators with float outputs (variants.h): the unary
// functions, the binary operators, clamp, cast, linear, dequantizeLinear, quantizeLinear (integer
// outputs) and linear resample2d. The activations are in activations_variants.cc; the shared
// machinery and the accuracy sources of the "gpu" variants in elementwise_internal.h.
//
// Judgement calls:
//  - add/sub/mul (and max/min/abs/neg/relu, exact) have no variants: IEEE 754 requires them
//    correctly rounded, and float16 computed in float32 rounds the same (float32 holds 2p+2 bits of
//    a float16 result). The same holds for sqrt and reciprocal computed in float32 for float16.
//  - the 12-bit hardware estimates (rcpps/rsqrtps without a Newton step) are mutants for float32
//    and not applied to float16, where their error (1.5 * 2^-12) is within one float16 ULP.
//  - pow as exp(b * log(a)) in float32 is a variant: WGSL's pow inherits exactly that bound; the
//    sign of a negative base with an integral exponent is restored, as implementations do.
#include <cmath>

#include "numerics/cast.h"
#include "ops/exact_round.h"
#include "ops/resample2d.h"
#include "ops/variants/elementwise_internal.h"

namespace nnref {

namespace {

using namespace elementwise_variants;

// 1.5 * 2^-12: the relative error bound of the x86 rcpps/rsqrtps estimates.
constexpr double kEstimateError = 0x1.8p-12;

bool AnyNonZero(const std::vector<double>& v) {
  for (double e : v) {
    if (e != 0) return true;
  }
  return false;
}

bool OnlyFloat32(const NodeInfo& n) { return n.out_type == DataType::kFloat32; }

// a / b rounded to double to odd: the quotient's truncation to a narrower format is then exact.
double QuotientToOdd(double a, double b) {
  const double q = a / b;
  const double r = std::fma(-q, b, a);  // exact remainder (no underflow for float operands)
  if (r == 0 || !std::isfinite(q)) return q;
  return RoundToOdd(q, (std::signbit(r) == std::signbit(b)) ? 1.0 : -1.0);
}

void AddTruncate(std::vector<Alternative>& out, const std::string& op, ElementFn exact,
                 NodeTest applies = {}) {
  out.push_back(ElementAlternative(
      op, "truncate", false,
      "the exact result truncated toward zero instead of rounded to nearest in the output type",
      std::move(exact), std::move(applies), Rounding::kTowardZero));
}

void AddGpuPair(std::vector<Alternative>& out, const std::string& op, const std::string& what,
                const Decomposition& d) {
  out.push_back(ArithAlternative(op, "gpu-" + op + "-plus", what + ", error at +bound", d,
                                 ArithPlan::kGpuPlus));
  out.push_back(ArithAlternative(op, "gpu-" + op + "-minus", what + ", error at -bound", d,
                                 ArithPlan::kGpuMinus));
}

// exp, log, sin, cos, tan, erf, sqrt, tanh.
void AddPrimitive(std::vector<Alternative>& out, const std::string& op, Primitive p,
                  const std::string& bound) {
  const Decomposition d = [p](const Arith& a, const double* x, const NodeInfo&) {
    return a.Fn(p, x[0]);
  };
  if (p != Primitive::kSqrt) {  // sqrtf is correctly rounded: equal to the reference
    out.push_back(ArithAlternative(
        op, "libm-f32",
        "glibc's float32 " + op + "f (about 1 ULP); float16: that result rounded to float16", d,
        ArithPlan::kFloat32));
  }
  AddGpuPair(out, op, op + " at its stated accuracy (" + bound + ")", d);
  AddTruncate(out, op, [p](const double* x, const NodeInfo&) { return Arith{}.Fn(p, x[0]); });
  out.push_back(FlushF16Subnormals(op));
}

void AddUnary(std::vector<Alternative>& out) {
  AddPrimitive(out, "exp", Primitive::kExp, "WGSL: 3 + 2|x| ULP, float16 1 + 2|x| ULP");
  out.push_back(
      ElementAlternative("exp", "exp2", false, "2^x: exp2 called for exp",
                         [](const double* x, const NodeInfo&) { return std::exp2(x[0]); }));

  AddPrimitive(out, "log", Primitive::kLog,
               "WGSL: 3 ULP outside [0.5, 2], absolute 2^-21 (float16 2^-7) inside");
  out.push_back(
      ElementAlternative("log", "log2", false, "log2(x): log2 called for the natural logarithm",
                         [](const double* x, const NodeInfo&) { return std::log2(x[0]); }));

  AddPrimitive(out, "sin", Primitive::kSin,
               "WGSL: absolute 2^-11 (float16 2^-7) on [-pi, pi], exact outside");
  AddPrimitive(out, "cos", Primitive::kCos,
               "WGSL: absolute 2^-11 (float16 2^-7) on [-pi, pi], exact outside");
  AddPrimitive(out, "tan", Primitive::kTan,
               "WGSL: inherited from sin(x) / cos(x), each and the division at their bounds");
  out.push_back(ArithAlternative(
      "tan", "sin-over-cos", "sin(x) / cos(x), each step in the operand type (float32 libm)",
      [](const Arith& a, const double* x, const NodeInfo&) {
        return a.Div(a.Fn(Primitive::kSin, x[0]), a.Fn(Primitive::kCos, x[0]));
      },
      ArithPlan::kOperandType));
  AddPrimitive(out, "erf", Primitive::kErf, "OpenCL float32: 16 ULP");
  AddPrimitive(out, "tanh", Primitive::kTanh, "OpenCL float32: 5 ULP");
  out.push_back(ElementAlternative(
      "tanh", "pade-approx", false,
      "the fast rational approximation x (27 + x^2) / (27 + 9 x^2), clamped to [-1, 1]",
      [](const double* x, const NodeInfo&) {
        const double v = x[0];
        if (std::fabs(v) >= 3) return std::copysign(1.0, v);
        return v * (27 + v * v) / (27 + 9 * v * v);
      }));

  AddPrimitive(out, "sqrt", Primitive::kSqrt, "WGSL: 1 / inverseSqrt(x), taken as 2 ULP");
  out.push_back(ElementAlternative(
      "sqrt", "rsqrt-estimate", false,
      "x times the 12-bit reciprocal square root estimate, no Newton step (float32 only)",
      [](const double* x, const NodeInfo&) {
        return x[0] * (1 / std::sqrt(x[0])) * (1 - kEstimateError);
      },
      OnlyFloat32));

  const Decomposition reciprocal = [](const Arith& a, const double* x, const NodeInfo&) {
    return a.Div(1, x[0]);
  };
  AddGpuPair(out, "reciprocal", "1 / x at the division's stated accuracy (WGSL 2.5 ULP, as 2)",
             reciprocal);
  AddTruncate(out, "reciprocal",
              [](const double* x, const NodeInfo&) { return QuotientToOdd(1, x[0]); });
  out.push_back(ElementAlternative(
      "reciprocal", "rcp-estimate", false,
      "the 12-bit reciprocal estimate (rcpps) without a Newton step (float32 only)",
      [](const double* x, const NodeInfo&) { return (1 / x[0]) * (1 - kEstimateError); },
      OnlyFloat32));
  out.push_back(FlushF16Subnormals("reciprocal"));

  out.push_back(
      ElementAlternative("roundEven", "round-half-away", false,
                         "halves rounded away from zero (C round) instead of to even",
                         [](const double* x, const NodeInfo&) { return std::round(x[0]); }));
  for (const char* op : {"abs", "neg", "identity"}) out.push_back(FlushF16Subnormals(op));
}

// a op b on the exact values, rounded to double to odd (so that truncation is exact).
ElementFn ExactBinary(char op) {
  return [op](const double* x, const NodeInfo&) {
    switch (op) {
      case '+':
        return SumToOdd(x[0], x[1]);
      case '-':
        return SumToOdd(x[0], -x[1]);
      case '*':
        return ProductToOdd(x[0], x[1]);
      case '/':
        return QuotientToOdd(x[0], x[1]);
      default:
        return std::pow(x[0], x[1]);
    }
  };
}

// pow as exp(b * log|a|) in `a`'s arithmetic, the sign of a negative base with an integral
// exponent restored and pow(x, 0) = 1.
double PowExpLog(const Arith& a, double base, double e) {
  if (e == 0) return 1;
  const double r = a.Exp(a.Mul(e, a.Log(std::fabs(base))));
  if (base < 0) {
    if (e != std::trunc(e)) return std::nan("");
    return std::fmod(e, 2) != 0 ? -r : r;
  }
  return r;
}

void AddBinary(std::vector<Alternative>& out) {
  const std::pair<const char*, char> ops[] = {
      {"add", '+'}, {"sub", '-'}, {"mul", '*'}, {"div", '/'}, {"pow", '^'}};
  for (const auto& [op, symbol] : ops) {
    AddTruncate(out, op, ExactBinary(symbol));
    out.push_back(FlushF16Subnormals(op));
    if (symbol == '-' || symbol == '/' || symbol == '^') {
      const ElementFn exact = ExactBinary(symbol);
      out.push_back(ElementAlternative(op, "operands-swapped", false,
                                       "b op a: the operands passed in the wrong order",
                                       [exact](const double* x, const NodeInfo& n) {
                                         const double swapped[2] = {x[1], x[0]};
                                         return exact(swapped, n);
                                       }));
    }
  }
  for (const char* op : {"max", "min"}) out.push_back(FlushF16Subnormals(op));

  out.push_back(ArithAlternative(
      "div", "reciprocal-then-multiply", "a * (1 / b), each step rounded to the operand type",
      [](const Arith& a, const double* x, const NodeInfo&) { return a.Mul(x[0], a.Div(1, x[1])); },
      ArithPlan::kOperandType));
  AddGpuPair(out, "div", "a / b at the stated accuracy (WGSL 2.5 ULP, as 2)",
             [](const Arith& a, const double* x, const NodeInfo&) { return a.Div(x[0], x[1]); });
  out.push_back(ElementAlternative(
      "div", "rcp-estimate", false,
      "a times the 12-bit reciprocal estimate of b, no Newton step (float32 only)",
      [](const double* x, const NodeInfo&) { return x[0] * (1 / x[1]) * (1 - kEstimateError); },
      OnlyFloat32));

  out.push_back(ArithAlternative(
      "pow", "exp-log-f32",
      "exp(b * log(|a|)) in float32 libm (WGSL's pow), sign restored for integral b",
      [](const Arith& a, const double* x, const NodeInfo&) { return PowExpLog(a, x[0], x[1]); },
      ArithPlan::kFloat32));
  out.push_back(ElementAlternative(
      "pow", "abs-base", false, "|a|^b: the sign of a negative base lost (pow(abs(a), b))",
      [](const double* x, const NodeInfo&) { return std::pow(std::fabs(x[0]), x[1]); }));
}

void AddClampCastLinear(std::vector<Alternative>& out) {
  out.push_back(ElementAlternative("clamp", "bounds-swapped", false,
                                   "min(max(x, maxValue), minValue): the bounds swapped",
                                   [](const double* x, const NodeInfo& n) {
                                     const double t = x[0] < n.hi ? n.hi : x[0];
                                     return t > n.lo ? n.lo : t;
                                   }));
  out.push_back(ElementAlternative(
      "clamp", "min-only", false, "max(x, minValue): maxValue ignored (relu6 run as relu)",
      [](const double* x, const NodeInfo& n) { return x[0] < n.lo ? n.lo : x[0]; },
      [](const NodeInfo& n) { return n.hi != kInf; }));
  out.push_back(FlushF16Subnormals("clamp"));

  // cast: float32 -> float16, and integers too wide for the output, round; the rest is exact.
  AddTruncate(
      out, "cast", [](const double* x, const NodeInfo&) { return x[0]; },
      [](const NodeInfo& n) {
        const DataType in = n.in_types[0];
        if (in == DataType::kFloat16 || in == DataType::kInt8 || in == DataType::kUint8) {
          return false;
        }
        return !(in == DataType::kFloat32 && n.out_type == DataType::kFloat32);
      });
  out.push_back(FlushF16Subnormals("cast"));

  out.push_back(ArithAlternative(
      "linear", "mul-then-add", "the spec's emulation: alpha * x rounded, then + beta rounded",
      [](const Arith& a, const double* x, const NodeInfo& n) {
        return a.Add(a.Mul(x[0], n.alpha), n.beta);
      },
      ArithPlan::kOperandType));
  AddTruncate(out, "linear", [](const double* x, const NodeInfo& n) {
    return SumToOdd(n.alpha * x[0], n.beta);  // alpha * x is exact in double
  });
  out.push_back(ElementAlternative(
      "linear", "ignores-beta", false, "alpha * x: beta dropped",
      [](const double* x, const NodeInfo& n) { return n.alpha * x[0]; },
      [](const NodeInfo& n) { return n.beta != 0; }));
  out.push_back(FlushF16Subnormals("linear"));
}

void AddDequantize(std::vector<Alternative>& out) {
  const std::string op = "dequantizeLinear";  // inputs: input, scale, zeroPoint
  out.push_back(ArithAlternative(
      op, "decomposition",
      "the spec's emulation: cast(input) - cast(zeroPoint), times scale, each step rounded",
      [](const Arith& a, const double* x, const NodeInfo&) {
        return a.Mul(a.Sub(a.R(x[0]), a.R(x[2])), x[1]);
      },
      ArithPlan::kOperandType));
  AddTruncate(out, op,
              [](const double* x, const NodeInfo&) { return ProductToOdd(x[0] - x[2], x[1]); });
  out.push_back(ElementAlternative(
      op, "ignores-zero-point", false, "input * scale: the zero point not subtracted",
      [](const double* x, const NodeInfo&) { return x[0] * x[1]; },
      [](const NodeInfo& n) { return AnyNonZero(n.values[2]); }));
  out.push_back(ElementAlternative(
      op, "ignores-scale", false, "input - zeroPoint: the scale not applied",
      [](const double* x, const NodeInfo&) { return x[0] - x[2]; },
      [](const NodeInfo& n) {
        for (double s : n.values[1]) {
          if (s != 1) return true;
        }
        return false;
      }));
  out.push_back(FlushF16Subnormals(op));
}

// --- quantizeLinear: integer outputs ---

// The unsaturated integer result from input x, scale s, zero point z and the input's format.
using QuantizeFn = std::function<double(double x, double s, double z, Format f)>;

Alternative QuantizeAlternative(std::string name, bool legitimate, std::string what, QuantizeFn q,
                                bool wrap = false, NodeTest applies = {}) {
  Alternative a;
  a.op = OpId::quantizeLinear;
  a.name = std::move(name);
  a.legitimate = legitimate;
  a.what = std::move(what);
  a.compute =
      [q = std::move(q), wrap, applies = std::move(applies)](
          const Graph& graph, size_t index,
          std::span<const OperandValue* const> inputs) -> std::optional<std::vector<Tensor>> {
    const OperatorNode& node = graph.operators()[index];
    if (node.op != OpId::quantizeLinear || inputs.size() != 3) return std::nullopt;
    const OperandDescriptor& desc = graph.operand(node.outputs[0]).desc;
    NodeInfo n;
    n.values = ExpandInputs(inputs, desc.shape);
    if (applies && !applies(n)) return std::nullopt;
    const Format f = FormatOf(graph.operand(node.inputs[0]).desc.dataType);
    Tensor t = Tensor::Allocate(desc.dataType, desc.shape);
    const auto fill = [&]<typename Z>() {
      constexpr double kLo = static_cast<double>(std::numeric_limits<Z>::min());
      constexpr double kHi = static_cast<double>(std::numeric_limits<Z>::max());
      for (size_t i = 0; i < n.values[0].size(); ++i) {
        double v = q(n.values[0][i], n.values[1][i], n.values[2][i], f);
        if (std::isnan(v)) v = 0;
        Z z{};
        if (wrap && std::fabs(v) < 0x1p62) {
          z = static_cast<Z>(static_cast<int64_t>(v));  // modulo 2^N
        } else {
          z = static_cast<Z>(v < kLo ? kLo : (v > kHi ? kHi : v));
        }
        t.base<Z>()[i] = z;
      }
    };
    switch (desc.dataType) {
      case DataType::kInt8:
        fill.operator()<int8_t>();
        break;
      case DataType::kUint8:
        fill.operator()<uint8_t>();
        break;
      case DataType::kInt32:
        fill.operator()<int32_t>();
        break;
      case DataType::kUint32:
        fill.operator()<uint32_t>();
        break;
      default:
        return std::nullopt;
    }
    return std::vector<Tensor>{std::move(t)};
  };
  return a;
}

void AddQuantize(std::vector<Alternative>& out) {
  out.push_back(QuantizeAlternative(
      "quotient-in-operand-type", true,
      "the spec's emulation: input / scale rounded to the operand type, then roundEven",
      [](double x, double s, double z, Format f) {
        return std::nearbyint(RoundToFormat(x / s, f)) + z;
      }));
  out.push_back(QuantizeAlternative(
      "round-half-away", false, "the quotient rounded half away from zero instead of to even",
      [](double x, double s, double z, Format) { return std::round(x / s) + z; }));
  out.push_back(QuantizeAlternative(
      "truncate", false, "the quotient truncated toward zero (a plain cast) instead of roundEven",
      [](double x, double s, double z, Format) { return std::trunc(x / s) + z; }));
  out.push_back(QuantizeAlternative(
      "wrap", false, "the result wraps modulo 2^N instead of saturating",
      [](double x, double s, double z, Format) { return std::nearbyint(x / s) + z; }, true));
  out.push_back(QuantizeAlternative(
      "ignores-zero-point", false, "roundEven(input / scale): the zero point not added",
      [](double x, double s, double, Format) { return std::nearbyint(x / s); }, false,
      [](const NodeInfo& n) { return AnyNonZero(n.values[2]); }));
}

// --- resample2d, linear mode ---

enum class Coordinates : uint8_t {
  kExact,         // the spec's (x + 0.5) / scale - 0.5, clamped, exactly
  kFloat32,       // the same computed in float32 (scale = out / in in float32)
  kAlignCorners,  // x * (in - 1) / (out - 1)
  kAsymmetric,    // x / scale, clamped to in - 1
};
enum class Interpolation : uint8_t { kFormula, kLerp };
enum class Work : uint8_t { kExact, kOperandType, kFloat32For16 };

struct AxisSample {
  int64_t i0, i1;
  double t;
};

std::vector<AxisSample> SampleAxis(int64_t in, int64_t out, Coordinates c) {
  std::vector<AxisSample> samples;
  if (c == Coordinates::kExact) {
    for (const Resample2dAxisSample& s :
         SampleResampleAxis(in, out, MLInterpolationMode::kLinear)) {
      samples.push_back(
          {s.index0, s.index1, static_cast<double>(s.frac_num) / static_cast<double>(s.frac_den)});
    }
    return samples;
  }
  const auto last = static_cast<double>(in - 1);
  for (int64_t o = 0; o < out; ++o) {
    double coordinate = 0;
    if (c == Coordinates::kFloat32) {
      const float scale = static_cast<float>(out) / static_cast<float>(in);
      float f = (static_cast<float>(o) + 0.5f) / scale - 0.5f;
      f = std::fmin(std::fmax(f, 0.0f), static_cast<float>(in - 1));
      coordinate = static_cast<double>(f);
    } else if (c == Coordinates::kAlignCorners) {
      coordinate = out == 1 ? 0 : static_cast<double>(o) * last / static_cast<double>(out - 1);
    } else {
      coordinate = std::fmin(
          static_cast<double>(o) * static_cast<double>(in) / static_cast<double>(out), last);
    }
    const double lo = std::floor(coordinate);
    samples.push_back(
        {static_cast<int64_t>(lo), static_cast<int64_t>(std::ceil(coordinate)), coordinate - lo});
  }
  return samples;
}

double Interpolate(const Arith& a, Interpolation m, const double (&v)[4], double tx, double ty) {
  tx = a.R(tx);
  ty = a.R(ty);
  if (m == Interpolation::kLerp) {
    const double y0 = a.Add(v[0], a.Mul(tx, a.Sub(v[1], v[0])));
    const double y1 = a.Add(v[2], a.Mul(tx, a.Sub(v[3], v[2])));
    return a.Add(y0, a.Mul(ty, a.Sub(y1, y0)));
  }
  const double y0 = a.Add(a.Mul(v[0], a.Sub(1, tx)), a.Mul(v[1], tx));
  const double y1 = a.Add(a.Mul(v[2], a.Sub(1, tx)), a.Mul(v[3], tx));
  return a.Add(a.Mul(y0, a.Sub(1, ty)), a.Mul(y1, ty));
}

Alternative ResampleAlternative(std::string name, bool legitimate, std::string what, Coordinates c,
                                Interpolation m, Work w, Rounding rounding = Rounding::kNearest) {
  Alternative a;
  a.op = OpId::resample2d;
  a.name = std::move(name);
  a.legitimate = legitimate;
  a.what = std::move(what);
  a.compute =
      [c, m, w, rounding](
          const Graph& graph, size_t index,
          std::span<const OperandValue* const> inputs) -> std::optional<std::vector<Tensor>> {
    const OperatorNode& node = graph.operators()[index];
    const auto* attributes = node.Attributes<Resample2dAttributes>();
    if (node.op != OpId::resample2d || attributes == nullptr ||
        attributes->mode != MLInterpolationMode::kLinear) {
      return std::nullopt;
    }
    NodeInfo n;
    Shape shape;
    if (!ReadNode(graph, index, n, shape)) return std::nullopt;
    if (w == Work::kFloat32For16 && n.out_type != DataType::kFloat16) return std::nullopt;
    Arith arith;
    arith.format = w == Work::kExact         ? Format::kFloat64
                   : w == Work::kOperandType ? n.out_format
                                             : Format::kFloat32;
    const Shape& in_shape = inputs[0]->data.shape();
    const std::vector<double> x = ExpandInputs(inputs.first(1), in_shape)[0];
    const size_t ay = attributes->axis_y, ax = attributes->axis_x;
    const auto dim = [](const Shape& s, size_t k) { return static_cast<int64_t>(s[k]); };
    const std::vector<AxisSample> ys = SampleAxis(dim(in_shape, ay), dim(shape, ay), c);
    const std::vector<AxisSample> xs = SampleAxis(dim(in_shape, ax), dim(shape, ax), c);
    const Strides in_strides = ContiguousStrides(in_shape);
    std::vector<double> result(ElementCount(shape));
    std::array<int64_t, 4> idx{};
    size_t o = 0;
    for (idx[0] = 0; idx[0] < dim(shape, 0); ++idx[0]) {
      for (idx[1] = 0; idx[1] < dim(shape, 1); ++idx[1]) {
        for (idx[2] = 0; idx[2] < dim(shape, 2); ++idx[2]) {
          for (idx[3] = 0; idx[3] < dim(shape, 3); ++idx[3], ++o) {
            int64_t base = 0;
            for (size_t k = 0; k < 4; ++k) {
              if (k != ay && k != ax) base += idx[k] * in_strides[k];
            }
            const AxisSample& sy = ys[static_cast<size_t>(idx[ay])];
            const AxisSample& sx = xs[static_cast<size_t>(idx[ax])];
            const auto at = [&](int64_t y, int64_t xx) {
              return x[static_cast<size_t>(base + y * in_strides[ay] + xx * in_strides[ax])];
            };
            const double v[4] = {at(sy.i0, sx.i0), at(sy.i0, sx.i1), at(sy.i1, sx.i0),
                                 at(sy.i1, sx.i1)};
            result[o] = RoundToFormat(Interpolate(arith, m, v, sx.t, sy.t), n.out_format, rounding);
          }
        }
      }
    }
    Tensor t = Tensor::Allocate(n.out_type, shape);
    for (size_t i = 0; i < result.size(); ++i) {
      if (n.out_type == DataType::kFloat16) {
        t.base<Float16>()[i] = Float16::FromDouble(result[i]);
      } else {
        t.base<float>()[i] = static_cast<float>(result[i]);
      }
    }
    return std::vector<Tensor>{std::move(t)};
  };
  return a;
}

void AddResample(std::vector<Alternative>& out) {
  out.push_back(ResampleAlternative(
      "decomposition", true,
      "the spec's formula, coordinates in float32, each value step in the operand type",
      Coordinates::kFloat32, Interpolation::kFormula, Work::kOperandType));
  out.push_back(ResampleAlternative(
      "decomposition-f32", true, "float16: the spec's formula in float32, rounded once",
      Coordinates::kFloat32, Interpolation::kFormula, Work::kFloat32For16));
  out.push_back(ResampleAlternative(
      "lerp", true, "v0 + t (v1 - v0) per axis in the operand type, coordinates in float32",
      Coordinates::kFloat32, Interpolation::kLerp, Work::kOperandType));
  out.push_back(ResampleAlternative(
      "align-corners", false, "align-corners coordinates x (in - 1) / (out - 1)",
      Coordinates::kAlignCorners, Interpolation::kFormula, Work::kExact));
  out.push_back(ResampleAlternative(
      "asymmetric", false, "asymmetric coordinates x / scale (no half-pixel offset)",
      Coordinates::kAsymmetric, Interpolation::kFormula, Work::kExact));
  out.push_back(ResampleAlternative(
      "truncate", false,
      "the exact result truncated toward zero instead of rounded to nearest in the output type",
      Coordinates::kExact, Interpolation::kFormula, Work::kExact, Rounding::kTowardZero));
  out.push_back(FlushF16Subnormals("resample2d"));
}

}  // namespace

void AddElementwiseAlternatives(std::vector<Alternative>& out) {
  AddUnary(out);
  AddBinary(out);
  AddClampCastLinear(out);
  AddDequantize(out);
  AddQuantize(out);
  AddResample(out);
  AddActivationAlternatives(out);
}

}  // namespace nnref
