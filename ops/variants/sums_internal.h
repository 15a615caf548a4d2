// Shared machinery of the sum-family alternatives (sums.cc, normalization_variants.cc; defined in
// sum_engine.cc): operand-type arithmetic emulated in double, one summation routine over a chosen
// order and accumulator, and the wrapper that turns a computation over doubles into an
// Alternative.
//
// Emulation. Every value is held as a double that is representable in the working precision;
// each operation is computed in double and rounded once to that precision. For +, -, *, / and
// sqrt this is exactly the operation of the narrower format (double has 53 >= 2p + 2 bits, so
// the double rounding is innocuous: Figueroa, "When is double rounding innocuous?", 1995), and a
// product of two float32 or float16 values is exact in double anyway. A float32 fma is the
// correctly rounded std::fma on floats; a float16 fma rounds the double fma to binary16, whose
// exact value a*b + c (a 22-bit product) never lands a double rounding on a binary16 midpoint.
// Transcendental functions (exp, log) are the double function rounded to the precision: an
// implementation at the spec's accuracy, not an exact model of any library.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ops/variants/variants.h"

namespace nnref::sums {

// The working precision of an alternative's arithmetic. kExact: double with compensated sums,
// rounded once to the output type at the end (the mutants: only the modelled bug differs from
// the reference).
enum class Prec : uint8_t { kF16, kF32, kExact };

double Round(Prec p, double x);
inline double Add(Prec p, double a, double b) { return Round(p, a + b); }
inline double Sub(Prec p, double a, double b) { return Round(p, a - b); }
inline double Mul(Prec p, double a, double b) { return Round(p, a * b); }
inline double Div(Prec p, double a, double b) { return Round(p, a / b); }
double Sqrt(Prec p, double a);
double Exp(Prec p, double a);
double Log(Prec p, double a);
double Fma(Prec p, double a, double b, double c);  // a * b + c rounded once

// Summation orders (of the terms k = 0 .. n-1).
enum class Order : uint8_t {
  kSequential,  // acc += t[0], t[1], ...
  kReverse,     // acc += t[n-1], t[n-2], ...
  kPairwise,    // binary tree: sum(left half) + sum(right half), down to single terms
  kBlocked,     // `lanes` interleaved partial sums (term k to lane k % lanes, as SIMD lanes),
                // combined at the end by halving (lane j += lane j + width: a horizontal add)
  kSplitK,      // two halves summed sequentially apart, then added
};

struct SumSpec {
  Prec p = Prec::kExact;
  Order order = Order::kSequential;
  bool fma = false;  // products fused into the adds (sequential, reverse, blocked, split-K)
  int lanes = 8;     // kBlocked
};

// The sum of a[k] * b[k] (of a[k] when b is empty) over k, starting from `init` (the
// accumulator's initial value; -0, the identity of addition, by default), in s's precision and
// order. Without fma every product is rounded to the precision before it is added.
double Dot(std::span<const double> a, std::span<const double> b, const SumSpec& s,
           double init = -0.0);
inline double Sum(std::span<const double> a, const SumSpec& s) { return Dot(a, {}, s); }

// Which accumulator an alternative uses, and so which output types it applies to.
enum class Acc : uint8_t {
  kF32,      // float32 outputs, float32 arithmetic
  kF16,      // float16 outputs, float16 arithmetic
  kF16F32,   // float16 outputs, float32 arithmetic, rounded to float16 at the end
  kOperand,  // both: the operand type's arithmetic (float32 or float16)
  kExact,    // both: kExact
};
std::optional<Prec> PrecFor(Acc acc, DataType type);
const char* AccPrefix(Acc acc);  // "f32", "f16-acc-f16", "f16-acc-f32"; "" for kOperand/kExact
const char* OrderName(Order o, int lanes);  // "sequential", "pairwise", "blocked8", ...
std::string AccText(Acc acc);               // "float32 arithmetic", ...
std::string OrderText(const SumSpec& s);    // "pairwise (tree) sum", ...

// The specs of the variants (the precision is set from the accumulator when they run).
inline SumSpec With(SumSpec s, Prec p) {
  s.p = p;
  return s;
}
inline constexpr SumSpec kSeq{Prec::kExact, Order::kSequential, false, 8};
inline constexpr SumSpec kFmaSeq{Prec::kExact, Order::kSequential, true, 8};
inline constexpr SumSpec kRev{Prec::kExact, Order::kReverse, false, 8};
inline constexpr SumSpec kPair{Prec::kExact, Order::kPairwise, false, 8};
inline constexpr SumSpec kBlk8{Prec::kExact, Order::kBlocked, false, 8};
inline constexpr SumSpec kFmaBlk8{Prec::kExact, Order::kBlocked, true, 8};
inline constexpr SumSpec kBlk16{Prec::kExact, Order::kBlocked, false, 16};
inline constexpr SumSpec kFmaSplit{Prec::kExact, Order::kSplitK, true, 8};
inline constexpr SumSpec kExactSum{Prec::kExact, Order::kSequential, false, 8};  // mutants

// One legitimate summation: an accumulator and an order.
struct SumVariant {
  Acc acc;
  SumSpec spec;
  std::string Suffix() const {  // "fma-blocked8"
    return std::string(spec.fma ? "fma-" : "") + OrderName(spec.order, spec.lanes);
  }
  std::string Text() const { return AccText(acc) + "; " + OrderText(spec); }
};

// An input's values as doubles, in row-major order of its (view's) shape.
std::vector<double> Values(const Tensor& t);
// `t` (a 1-D tensor along `axes` of `shape`, or of rank axes.size()) viewed over `shape`: its
// axis k runs along axes[k] of `shape`, every other axis repeats it. Values in row-major order.
std::vector<double> ValuesAlong(const Tensor& t, const Shape& shape,
                                const std::vector<size_t>& axes);

// The row-major linear indices (into a dense tensor of `shape`) of each group of elements that
// share their coordinates on the axes not in `inner`: fn(group) per group, in row-major order of
// the outer axes, each group's indices in row-major order of the inner axes.
void ForEachGroup(const Shape& shape, const std::vector<bool>& inner,
                  const std::function<void(std::span<const int64_t>)>& fn);

// What an alternative's body sees.
struct Context {
  const Graph& graph;
  const OperatorNode& node;
  std::span<const OperandValue* const> inputs;
  DataType type;     // output 0's data type
  const Shape& out;  // output 0's shape
  template <typename A>
  const A* Attributes() const {
    return node.Attributes<A>();
  }
  const Tensor& In(size_t i) const { return inputs[i]->data; }
};

// The op's only output as row-major doubles (rounded to the output type by the caller), or
// nullopt when the alternative does not apply.
using Values1 = std::optional<std::vector<double>>;
using Body = std::function<Values1(const Context&, Prec)>;

// An alternative of `op` that applies to the output types `acc` allows. A mutant (legitimate =
// false) also returns nullopt when its output equals the reference's on these inputs (value
// comparison, NaN equal to NaN): it would then measure nothing.
Alternative Make(std::string op, std::string name, bool legitimate, std::string what, Acc acc,
                 Body body);

// The name "<prefix>-<rest>" (or rest alone when the prefix is empty).
std::string Name(Acc acc, const std::string& rest);

// Registration of the normalization and softmax alternatives (normalization_variants.cc).
void AddNormalizationAlternatives(std::vector<Alternative>& out);

}  // namespace nnref::sums
