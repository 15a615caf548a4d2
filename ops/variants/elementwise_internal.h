// Shared machinery of the element-wise alternatives (elementwise.cc, activations_variants.cc):
// rounding a double to an output format under a rounding policy, arithmetic in a working format
// (every step rounded; primitives from a float32 libm or at a stated GPU accuracy), and one
// "evaluate a scalar function per element with broadcasting" builder.
//
// Accuracy sources of the "gpu" primitives (the bound is measured from the exact value; the
// alternative returns the representable value farthest from it in the stated direction within
// the bound):
//   - WGSL §"Floating Point Accuracy" (the Vulkan SPIR-V precision table gives the same f32
//   values):
//     exp: 3 + 2|x| ULP (f32), 1 + 2|x| ULP (f16); log: 3 ULP outside [0.5, 2], absolute 2^-21
//     (f32) / 2^-7 (f16) inside; sin, cos: absolute 2^-11 (f32) / 2^-7 (f16) on [-pi, pi], no bound
//     outside (the exact value is kept there); tan: inherited from sin(x) / cos(x); division:
//     2.5 ULP for |y| in [2^-126, 2^126] (f32) / [2^-14, 2^14] (f16), used as 2 ULP; sqrt:
//     inherited from 1 / inverseSqrt(x), inverseSqrt 2 ULP, used as 2 ULP.
//   - OpenCL C single precision table (WGSL has neither): erf 16 ULP, tanh 5 ULP; for float16
//     outputs the float32 bound is applied and the result rounded to float16 (a float32 kernel).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "ops/variants/variants.h"

namespace nnref::elementwise_variants {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

// A floating-point format values are rounded to.
enum class Format : uint8_t { kFloat16, kFloat32, kFloat64 };
Format FormatOf(DataType t);  // float16 -> kFloat16, anything else -> kFloat32

// Round to nearest even, or truncation toward zero (a mutant).
enum class Rounding : uint8_t { kNearest, kTowardZero };

// `v` rounded to `f` per `r` (overflow: nearest gives +-Infinity, toward zero the largest finite).
double RoundToFormat(double v, Format f, Rounding r = Rounding::kNearest);
// WGSL's ULP(v) in `f`: the spacing of `f`'s values at |v|, the smaller one (below) at a power of
// two, the subnormal spacing below the normal range.
double UlpOf(double v, Format f);
// The neighbour of the representable `v` in `f`, upwards (direction > 0) or downwards.
double StepOnce(double v, Format f, int direction);
// The representable value of `f` farthest from `exact` in `direction` (+1 / -1) whose distance to
// `exact` is at most `bound`; the correctly rounded value when none is, or `exact` is not finite.
double AtBound(double exact, double bound, int direction, Format f);

enum class Primitive : uint8_t { kExp, kLog, kSin, kCos, kTan, kErf, kSqrt, kTanh };

// Arithmetic in a working format: + - * / max min correctly rounded to it (division at the stated
// GPU accuracy when `gpu` is not 0), primitives
//   gpu == 0: float32: the float overloads of <cmath> (glibc's expf, logf, ..., about 1 ULP);
//             float16: the double function rounded once to float16; float64: the double function;
//   gpu == +1 / -1: at the stated accuracy (header comment), in that direction.
struct Arith {
  Format format = Format::kFloat64;
  int gpu = 0;

  double R(double v) const { return RoundToFormat(v, format); }
  double Add(double a, double b) const { return R(a + b); }
  double Sub(double a, double b) const { return R(a - b); }
  double Mul(double a, double b) const { return R(a * b); }
  double Div(double a, double b) const;
  double Fn(Primitive p, double x) const;
  double Exp(double x) const { return Fn(Primitive::kExp, x); }
  double Log(double x) const { return Fn(Primitive::kLog, x); }
  double Erf(double x) const { return Fn(Primitive::kErf, x); }
  double Sqrt(double x) const { return Fn(Primitive::kSqrt, x); }
};

// What an element function sees of its node.
struct NodeInfo {
  DataType out_type = DataType::kFloat32;
  Format out_format = Format::kFloat32;
  std::vector<DataType> in_types;
  double alpha = 0, beta = 0;               // activation / linear attributes (cast to the type)
  double lo = -kInf, hi = kInf;             // clamp's bounds (cast to the type)
  std::vector<std::vector<double>> values;  // every input, expanded to one value per output element
};

// The value of one output element (before the final rounding) from the element's input values.
using ElementFn = std::function<double(const double* x, const NodeInfo& n)>;
// Whether an alternative applies to a node (false: nullopt).
using NodeTest = std::function<bool(const NodeInfo& n)>;

// Every input's values as doubles, one per element of `out` in row-major order. An input of lower
// rank is right-aligned (numpy broadcasting); along each axis its size is the output's (same
// index), 1 (index 0) or a divisor of it (blockwise: index / (out / size), as quantizeLinear's and
// dequantizeLinear's scale and zeroPoint).
std::vector<std::vector<double>> ExpandInputs(std::span<const OperandValue* const> inputs,
                                              const Shape& out);

// Reads the node's single float32/float16 output descriptor and attributes; false when the node
// has several outputs or a non-float one.
bool ReadNode(const Graph& graph, size_t index, NodeInfo& n, Shape& shape);

// An alternative whose output element i is RoundToFormat(f(inputs at i), output format, rounding)
// on float32/float16 outputs; nullopt on other outputs and where `applies` says no.
Alternative ElementAlternative(std::string op, std::string name, bool legitimate, std::string what,
                               ElementFn f, NodeTest applies = {},
                               Rounding rounding = Rounding::kNearest);

// How a decomposition is evaluated (see AddArithAlternative).
enum class ArithPlan : uint8_t {
  kOperandType,   // each step rounded to the output type (float32: float32 libm primitives)
  kFloat32,       // each step rounded to float32, then once to the output type
  kFloat32For16,  // kFloat32, on float16 outputs only
  kGpuPlus,       // operand type, primitives and division at their stated accuracy, upwards
  kGpuMinus,      // same, downwards
};
// A decomposition: the element's value computed with the arithmetic `a`.
using Decomposition = std::function<double(const Arith& a, const double* x, const NodeInfo& n)>;
Alternative ArithAlternative(std::string op, std::string name, std::string what, Decomposition d,
                             ArithPlan plan, NodeTest applies = {});

// Output-level mutant of a float16 output: the reference's subnormal results flushed to zero
// (nullopt on float32 outputs and where no result is subnormal).
Alternative FlushF16Subnormals(std::string op);

// Activations (activations_variants.cc).
void AddActivationAlternatives(std::vector<Alternative>& out);

}  // namespace nnref::elementwise_variants
