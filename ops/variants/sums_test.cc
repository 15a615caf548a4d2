// The sum-family alternatives (sums.cc, normalization_variants.cc) on tiny graphs: expected values
// derived by hand or by float arithmetic written out in the test, never by the code under test.
#include <doctest/doctest.h>

#include <cmath>
#include <set>

#include "ops/arg_cumulative.h"
#include "ops/conv2d.h"
#include "ops/conv_transpose2d.h"
#include "ops/matmul_gemm.h"
#include "ops/normalization.h"
#include "ops/pool2d.h"
#include "ops/reduction.h"
#include "ops/softmax.h"
#include "ops/variants/variants.h"
#include "ops/variants/variants_testing.h"
#include "ref/testing.h"

namespace nnref {
namespace {


const Alternative* Find(const std::string& op, const std::string& name) {
  for (const Alternative* a : AlternativesFor(OpNamed(op))) {
    if (a->op == OpNamed(op) && a->name == name) return a;
  }
  return nullptr;
}

std::vector<double> Doubles(const Tensor& t) {
  std::vector<double> v(t.element_count());
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = t.dtype() == DataType::kFloat16 ? t.At<Float16>(i).ToDouble()
                                           : static_cast<double>(t.At<float>(i));
  }
  return v;
}

// Alternative `name` of the built operator: its output values, or nullopt when it does not apply.
std::optional<std::vector<double>> Alt(const Built& c, const std::string& name) {
  const Alternative* a = Find(c.op, name);
  REQUIRE_MESSAGE(a != nullptr, c.op << " has no alternative " << name);
  const auto r = a->compute(*c.graph, 0, c.ptrs);
  if (!r) return std::nullopt;
  REQUIRE(r->size() == 1);
  return Doubles((*r)[0]);
}

std::vector<double> Reference(const Built& c) {
  return Doubles(c.graph->RunOperator(0, c.ptrs)[0].data);
}

// The op's own (not generic "*") alternatives of one kind.
std::vector<const Alternative*> Own(const std::string& op, bool legitimate) {
  std::vector<const Alternative*> r;
  for (const Alternative* a : AlternativesFor(OpNamed(op))) {
    if (a->op == OpNamed(op) && a->legitimate == legitimate) r.push_back(a);
  }
  return r;
}

void CheckValues(const std::optional<std::vector<double>>& v, const std::vector<double>& want,
                 const std::string& what) {
  REQUIRE_MESSAGE(v.has_value(), what << " did not apply");
  REQUIRE(v->size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    CHECK_MESSAGE((*v)[i] == want[i],
                  what << " element " << i << ": " << (*v)[i] << " != " << want[i]);
  }
}

// Every legitimate alternative of the op that applies to its data type gives exactly `want`
// (inputs chosen so that every order and accumulator is exact); returns how many applied. The
// adverse stated-accuracy variants (adverse.cc), whose sqrt, division and log err by design,
// are left out (adverse_test.cc).
int CheckAllVariantsExact(const Built& c, const std::vector<double>& want) {
  int applied = 0;
  for (const Alternative* a : Own(c.op, true)) {
    if (a->name.find("adverse") != std::string::npos) continue;
    const auto r = a->compute(*c.graph, 0, c.ptrs);
    if (!r) continue;
    ++applied;
    CheckValues(Doubles((*r)[0]), want, c.op + " " + a->name);
  }
  return applied;
}

// Every legitimate alternative that applies is within `ulps` float32 ulps of the reference.
int CheckAllVariantsNear(const Built& c, double ulps) {
  const std::vector<double> ref = Reference(c);
  int applied = 0;
  for (const Alternative* a : Own(c.op, true)) {
    const auto r = a->compute(*c.graph, 0, c.ptrs);
    if (!r) continue;
    ++applied;
    const std::vector<double> v = Doubles((*r)[0]);
    for (size_t i = 0; i < v.size(); ++i) {
      const double ulp = std::ldexp(1.0, std::ilogb(std::max(std::fabs(ref[i]), 0x1p-126)) - 23);
      CHECK_MESSAGE(std::fabs(v[i] - ref[i]) <= ulps * ulp,
                    c.op << " " << a->name << " element " << i << ": " << v[i] << " vs " << ref[i]);
    }
  }
  return applied;
}

Built MatmulCase(const Shape& sa, const Shape& sb, const Tensor& a, const Tensor& bv) {
  GraphBuilder b;
  const DataType t = a.dtype();
  const Operand x = b.Input("a", {t, sa});
  const Operand y = b.Input("b", {t, sb});
  return BuildOne(b, Matmul(b, x, y), {{"a", a}, {"b", bv}});
}

}  // namespace

TEST_CASE("sums: registered alternatives: unique names, variants and mutants for every op") {
  for (const char* op :
       {"matmul", "gemm", "linear", "conv2d", "convTranspose2d", "averagePool2d", "l2Pool2d",
        "reduceSum", "reduceMean", "reduceL1", "reduceL2", "reduceSumSquare", "reduceLogSum",
        "reduceLogSumExp", "cumulativeSum", "batchNormalization", "instanceNormalization",
        "layerNormalization", "softmax"}) {
    std::set<std::string> names;
    for (const Alternative* a : AlternativesFor(OpNamed(op))) {
      CHECK_MESSAGE(names.insert(a->name).second, op << " " << a->name << " twice");
      CHECK(!a->what.empty());
    }
    // linear: fma only here; its emulation is the element-wise family's.
    CHECK_MESSAGE(Own(op, true).size() >= (std::string(op) == "linear" ? 2u : 4u), op);
    CHECK_MESSAGE(Own(op, false).size() >= 1, op);
  }
}

TEST_CASE("sums: matmul 2x2 by hand: variants exact, mutants as modelled") {
  Built c = MatmulCase({2, 2}, {2, 2}, F32({2, 2}, {1, 2, 3, 4}), F32({2, 2}, {5, 6, 7, 8}));
  // [1*5+2*7, 1*6+2*8; 3*5+4*7, 3*6+4*8]
  CHECK(CheckAllVariantsExact(c, {19, 22, 43, 50}) == 5);               // the float32 ones
  CheckValues(Alt(c, "dropped-last-term"), {5, 6, 15, 18}, "dropped");  // minus a*7.., a*8..
  CheckValues(Alt(c, "transposed-b"), {17, 23, 39, 53}, "transposed");  // B^T = [5 7; 6 8]
  CHECK(!Alt(c, "f16-acc-f16-sequential"));                             // float16 only
}

TEST_CASE("sums: matmul transposed-b needs a square B, dropped term needs K > 1") {
  Built c = MatmulCase({1, 3}, {3, 1}, F32({1, 3}, {1, 2, 3}), F32({3, 1}, {4, 5, 6}));
  CHECK(!Alt(c, "transposed-b"));
  CheckValues(Alt(c, "dropped-last-term"), {14}, "dropped");  // 32 - 3*6
  Built k1 = MatmulCase({1, 1}, {1, 2}, F32({1, 1}, {2}), F32({1, 2}, {3, 4}));
  CHECK(!Alt(k1, "dropped-last-term"));
}

TEST_CASE("sums: float16 dot product [2048, 1, 1]: f16 accumulation loses both ones") {
  Built c = MatmulCase({1, 3}, {3, 1}, F16({1, 3}, {2048, 1, 1}), F16({3, 1}, {1, 1, 1}));
  // float16 spacing at 2048 is 2: 2048 + 1 is a tie that goes to the even 2048, twice.
  CheckValues(Alt(c, "f16-acc-f16-sequential"), {2048}, "f16 sequential");
  CheckValues(Alt(c, "f16-acc-f16-fma-sequential"), {2048}, "f16 fma sequential");
  CheckValues(Alt(c, "f16-acc-f16-pairwise"), {2050}, "f16 pairwise");  // 2048 + (1 + 1)
  CheckValues(Alt(c, "f16-acc-f32-fma-sequential"), {2050}, "f16 in f32");
  CHECK(Reference(c) == std::vector<double>{2050});
  CHECK(!Alt(c, "f32-sequential"));  // float32 only
}

TEST_CASE("sums: reduceSum float16 [2048, 1, 1] and float32 [1e8, 1, -1e8] by order") {
  {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat16, {3}});
    Built c = BuildOne(b, ReduceSum(b, x), {{"x", F16({3}, {2048, 1, 1})}});
    CheckValues(Alt(c, "f16-acc-f16-sequential"), {2048}, "f16");
    CheckValues(Alt(c, "f16-acc-f32-sequential"), {2050}, "f16 in f32");
    CheckValues(Alt(c, "dropped-last-term"), {2048}, "dropped");  // 2049 rounded once: a tie
  }
  {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat32, {3}});
    Built c = BuildOne(b, ReduceSum(b, x), {{"x", F32({3}, {1e8f, 1, -1e8f})}});
    // float32 spacing at 1e8 is 8: 1e8 + 1 = 1e8 and -1e8 + 1 = -1e8.
    CheckValues(Alt(c, "f32-sequential"), {0}, "sequential");
    CheckValues(Alt(c, "f32-reverse"), {0}, "reverse");
    CheckValues(Alt(c, "f32-pairwise"), {0}, "pairwise");  // 1e8 + (1 - 1e8)
    // Lanes 0, 1, 2 hold 1e8, 1, -1e8; halving adds lane 2 to lane 0 first: (1e8 - 1e8) + 1.
    CheckValues(Alt(c, "f32-blocked8"), {1}, "blocked8");
    CHECK(Reference(c) == std::vector<double>{1});
    CheckValues(Alt(c, "dropped-last-term"), {1e8}, "dropped");  // 1e8 + 1 rounded to float32
  }
}

TEST_CASE("sums: reduceMean divide vs reciprocal, n - 1, over axes with keepDimensions") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 3}});
  MLReduceOptions o;
  o.axes = std::vector<uint32_t>{1};
  o.keepDimensions = true;
  Built c = BuildOne(b, ReduceMean(b, x, o), {{"x", F32({2, 3}, {1, 2, 4, 3, 3, 3})}});
  const float third = 1.0f / 3.0f;
  CheckValues(Alt(c, "f32-sequential"), {static_cast<double>(7.0f / 3.0f), 3}, "divide");
  CheckValues(Alt(c, "f32-blocked8-reciprocal"),
              {static_cast<double>(7.0f * third), static_cast<double>(9.0f * third)}, "recip");
  CheckValues(Alt(c, "divides-by-n-minus-1"), {3.5, 4.5}, "n-1");
  CheckValues(Alt(c, "dropped-last-term"), {1, 2}, "dropped");  // (1+2)/3, (3+3)/3
}

TEST_CASE("sums: reduceL2, reduceL1, reduceSumSquare and reduceLogSumExp mutants") {
  {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat32, {2}});
    Built c = BuildOne(b, ReduceL2(b, x), {{"x", F32({2}, {3, -4})}});
    CHECK(CheckAllVariantsExact(c, {5}) >= 4);
    CheckValues(Alt(c, "ignored-sqrt"), {25}, "no sqrt");
    CheckValues(Alt(c, "dropped-last-term"), {3}, "dropped");
  }
  {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat32, {2}});
    Built c = BuildOne(b, ReduceL1(b, x), {{"x", F32({2}, {3, -4})}});
    CHECK(CheckAllVariantsExact(c, {7}) >= 4);
    CheckValues(Alt(c, "ignored-abs"), {-1}, "no abs");
  }
  {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat32, {2}});
    Built c = BuildOne(b, ReduceL1(b, x), {{"x", F32({2}, {3, 4})}});
    CHECK(!Alt(c, "ignored-abs"));  // equals the reference on non-negative data
  }
  {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat32, {2}});
    Built c = BuildOne(b, ReduceLogSumExp(b, x), {{"x", F32({2}, {1000, 1000})}});
    // exp(1000) overflows float32: log(Inf) = Inf.
    CheckValues(Alt(c, "no-max-subtraction"), {kInfinity}, "no max");
    CheckValues(Alt(c, "f32-sequential"),
                {static_cast<double>(1000.0f + static_cast<float>(std::log(2.0)))}, "max");
  }
  {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat32, {2}});
    Built c = BuildOne(b, ReduceLogSumExp(b, x), {{"x", F32({2}, {0, 0})}});
    CHECK(!Alt(c, "no-max-subtraction"));  // no overflow: a legitimate evaluation
  }
}

TEST_CASE("sums: gemm alpha, beta, C and transposes by hand") {
  GraphBuilder b;
  const Operand a = b.Input("a", {DataType::kFloat32, {2, 2}});
  const Operand bb = b.Input("b", {DataType::kFloat32, {2, 2}});
  const Operand cc = b.Input("c", {DataType::kFloat32, {2, 2}});
  MLGemmOptions o;
  o.c = cc;
  o.alpha = 2;
  o.beta = 3;
  Built c = BuildOne(b, Gemm(b, a, bb, o),
                     {{"a", F32({2, 2}, {1, 2, 3, 4})},
                      {"b", F32({2, 2}, {5, 6, 7, 8})},
                      {"c", F32({2, 2}, {1, 1, 1, 1})}});
  // 2 * [19 22; 43 50] + 3
  CHECK(CheckAllVariantsExact(c, {41, 47, 89, 103}) == 6);
  CheckValues(Alt(c, "ignored-alpha"), {22, 25, 46, 53}, "alpha");
  CheckValues(Alt(c, "ignored-beta"), {39, 45, 87, 101}, "beta");
  CheckValues(Alt(c, "ignored-c"), {38, 44, 86, 100}, "c");
  CheckValues(Alt(c, "inverted-b-transpose"), {37, 49, 81, 109}, "bT");  // 2 A B^T + 3
  CheckValues(Alt(c, "inverted-a-transpose"), {55, 63, 79, 91}, "aT");   // 2 A^T B + 3
  CheckValues(Alt(c, "dropped-last-term"), {13, 15, 33, 39}, "dropped");
}

TEST_CASE("sums: gemm without C or with alpha 1: those mutants do not apply") {
  GraphBuilder b;
  const Operand a = b.Input("a", {DataType::kFloat32, {1, 2}});
  const Operand bb = b.Input("b", {DataType::kFloat32, {2, 1}});
  Built c = BuildOne(b, Gemm(b, a, bb), {{"a", F32({1, 2}, {1, 2})}, {"b", F32({2, 1}, {3, 4})}});
  CHECK(CheckAllVariantsExact(c, {11}) == 6);
  for (const char* name : {"ignored-alpha", "ignored-beta", "ignored-c", "inverted-a-transpose",
                           "inverted-b-transpose"}) {
    CHECK_MESSAGE(!Alt(c, name), name);
  }
}

TEST_CASE("sums: linear fma, and alpha ignored") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {1}});
  MLLinearOptions o;
  const double u = std::ldexp(1.0, -23);
  o.alpha = 1 + u;
  o.beta = -(1 + 2 * u);
  Built c = BuildOne(b, Linear(b, x, o), {{"x", F32({1}, {static_cast<float>(1 + u)})}});
  // (1 + u)^2 = 1 + 2u + u^2: fused, - (1 + 2u) leaves u^2 = 2^-46 (rounded first: nothing).
  CheckValues(Alt(c, "f32-fma"), {std::ldexp(1.0, -46)}, "fma");
  CHECK(!Alt(c, "f16-acc-f16-fma"));
  CheckValues(Alt(c, "ignored-alpha"), {-u}, "alpha");  // (1 + u) - (1 + 2u)
}

TEST_CASE("sums: conv2d by hand: variants exact, dropped term, flipped filter, bias") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {1, 1, 3, 3}});
  const Operand w = b.Input("w", {DataType::kFloat32, {1, 1, 2, 2}});
  const Operand bias = b.Input("bias", {DataType::kFloat32, {1}});
  MLConv2dOptions o;
  o.bias = bias;
  Built c = BuildOne(b, Conv2d(b, x, w, o),
                     {{"x", F32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})},
                      {"w", F32({1, 1, 2, 2}, {1, 2, 3, 4})},
                      {"bias", F32({1}, {10})}});
  // Window (0,0): 1*1 + 2*2 + 4*3 + 5*4 = 37, and so on, plus 10.
  CHECK(CheckAllVariantsExact(c, {47, 57, 77, 87}) == 5);
  CheckValues(Alt(c, "dropped-last-term"), {27, 33, 45, 51}, "dropped");  // minus x * 4
  CheckValues(Alt(c, "flipped-filter"), {33, 43, 63, 73}, "flipped");     // filter [4 3; 2 1]
  CheckValues(Alt(c, "ignored-bias"), {37, 47, 67, 77}, "bias");
}

TEST_CASE("sums: conv2d NHWC/ohwi, groups, padding, strides, dilations: exact on integers") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {1, 4, 5, 2}});
  const Operand w = b.Input("w", {DataType::kFloat32, {4, 2, 2, 1}});
  MLConv2dOptions o;
  o.inputLayout = MLInputOperandLayout::kNhwc;
  o.filterLayout = MLConv2dFilterOperandLayout::kOhwi;
  o.groups = 2;
  o.padding = std::vector<uint32_t>{1, 0, 2, 1};
  o.strides = std::vector<uint32_t>{2, 1};
  o.dilations = std::vector<uint32_t>{1, 2};
  Tensor xv = Tensor::Allocate(DataType::kFloat32, {1, 4, 5, 2});
  for (int i = 0; i < 40; ++i) xv.base<float>()[i] = static_cast<float>((i * 7) % 11 - 5);
  Tensor wv = Tensor::Allocate(DataType::kFloat32, {4, 2, 2, 1});
  for (int i = 0; i < 16; ++i) wv.base<float>()[i] = static_cast<float>((i * 5) % 7 - 3);
  Built c = BuildOne(b, Conv2d(b, x, w, o), {{"x", xv}, {"w", wv}});
  CHECK(CheckAllVariantsExact(c, Reference(c)) == 5);
  CHECK(Alt(c, "flipped-filter").has_value());
  CHECK(!Alt(c, "ignored-bias"));
}

TEST_CASE("sums: convTranspose2d by hand, and with strides, padding and groups") {
  {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat32, {1, 1, 2, 2}});
    const Operand w = b.Input("w", {DataType::kFloat32, {1, 1, 2, 2}});
    Built c =
        BuildOne(b, ConvTranspose2d(b, x, w),
                 {{"x", F32({1, 1, 2, 2}, {1, 2, 3, 4})}, {"w", F32({1, 1, 2, 2}, {1, 2, 3, 4})}});
    // out(y, x) = sum of x[iy][ix] * w[y - iy][x - ix].
    CHECK(CheckAllVariantsExact(c, {1, 4, 4, 6, 20, 16, 9, 24, 16}) == 6);
    CheckValues(Alt(c, "flipped-filter"), {4, 11, 6, 14, 30, 14, 6, 11, 4}, "flipped");
    // The last term (channel 0, filter (1, 1)) where it lands: out(1..2, 1..2).
    CheckValues(Alt(c, "dropped-last-term"), {0, 2, 0, 3, 16, 8, 0, 12, 0}, "dropped");
  }
  {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat32, {1, 4, 3, 2}});
    const Operand w = b.Input("w", {DataType::kFloat32, {4, 3, 2, 2}});
    const Operand bias = b.Input("bias", {DataType::kFloat32, {6}});  // 3 per group
    MLConvTranspose2dOptions o;
    o.groups = 2;
    o.strides = std::vector<uint32_t>{2, 1};
    o.padding = std::vector<uint32_t>{1, 0, 0, 1};
    o.bias = bias;
    Tensor xv = Tensor::Allocate(DataType::kFloat32, {1, 4, 3, 2});
    for (int i = 0; i < 24; ++i) xv.base<float>()[i] = static_cast<float>((i * 7) % 9 - 4);
    Tensor wv = Tensor::Allocate(DataType::kFloat32, {4, 3, 2, 2});
    for (int i = 0; i < 48; ++i) wv.base<float>()[i] = static_cast<float>((i * 5) % 7 - 3);
    Built c = BuildOne(b, ConvTranspose2d(b, x, w, o),
                       {{"x", xv}, {"w", wv}, {"bias", F32({6}, {1, -2, 3, 0.5, 0, 2})}});
    CHECK(CheckAllVariantsExact(c, Reference(c)) == 6);
    CHECK(Alt(c, "ignored-bias").has_value());
  }
}

TEST_CASE("sums: averagePool2d with padding: padding counted divides by the full window") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {1, 1, 2, 2}});
  MLPool2dOptions o;
  o.windowDimensions = std::vector<uint32_t>{2, 2};
  o.padding = std::vector<uint32_t>{1, 1, 1, 1};
  Built c = BuildOne(b, AveragePool2d(b, x, o), {{"x", F32({1, 1, 2, 2}, {1, 2, 3, 4})}});
  // Window sums [1 3 2; 4 10 6; 3 7 4] over counts [1 2 1; 2 4 2; 1 2 1].
  CHECK(CheckAllVariantsExact(c, {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4}) >= 5);
  CheckValues(Alt(c, "padding-counted"), {0.25, 0.75, 0.5, 1, 2.5, 1.5, 0.75, 1.75, 1}, "padding");
  // The last element of each window left out, divided by the same counts.
  CheckValues(Alt(c, "dropped-last-term"), {0, 0.5, 0, 0.5, 1.5, 1, 0, 1.5, 0}, "dropped");
}

TEST_CASE("sums: averagePool2d without padding: padding-counted does not apply") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {1, 2, 2, 1}});
  MLPool2dOptions o;
  o.layout = MLInputOperandLayout::kNhwc;
  Built c = BuildOne(b, AveragePool2d(b, x, o), {{"x", F32({1, 2, 2, 1}, {1, 2, 3, 6})}});
  CHECK(CheckAllVariantsExact(c, {3}) >= 5);
  CHECK(!Alt(c, "padding-counted"));
}

TEST_CASE("sums: l2Pool2d: sqrt of the window's sum of squares") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {1, 1, 1, 2}});
  MLPool2dOptions o;
  o.windowDimensions = std::vector<uint32_t>{1, 2};
  Built c = BuildOne(b, L2Pool2d(b, x, o), {{"x", F32({1, 1, 1, 2}, {3, 4})}});
  CHECK(CheckAllVariantsExact(c, {5}) >= 4);
  CheckValues(Alt(c, "ignored-sqrt"), {25}, "no sqrt");
  CheckValues(Alt(c, "dropped-last-term"), {3}, "dropped");
}

TEST_CASE("sums: cumulativeSum: float16 orders, exclusive and reversed mutants") {
  {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat32, {2, 4}});
    Built c = BuildOne(b, CumulativeSum(b, x, 1), {{"x", F32({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})}});
    CHECK(CheckAllVariantsExact(c, {1, 3, 6, 10, 5, 11, 18, 26}) == 3);
    CheckValues(Alt(c, "inverted-exclusive"), {0, 1, 3, 6, 0, 5, 11, 18}, "exclusive");
    CheckValues(Alt(c, "inverted-reversed"), {10, 9, 7, 4, 26, 21, 15, 8}, "reversed");
  }
  {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat32, {3}});
    MLCumulativeSumOptions o;
    o.exclusive = true;
    o.reversed = true;
    Built c = BuildOne(b, CumulativeSum(b, x, 0, o), {{"x", F32({3}, {1, 2, 3})}});
    CHECK(CheckAllVariantsExact(c, {5, 3, 0}) == 3);
    CheckValues(Alt(c, "inverted-exclusive"), {6, 5, 3}, "inclusive");
    CheckValues(Alt(c, "inverted-reversed"), {0, 1, 3}, "forward");
  }
  {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat16, {4}});
    Built c = BuildOne(b, CumulativeSum(b, x, 0), {{"x", F16({4}, {2048, 1, 1, 1})}});
    // Exact prefixes 2048, 2049, 2050, 2051 rounded once: 2048, 2048 (tie to even), 2050, 2052.
    CHECK(Reference(c) == std::vector<double>{2048, 2048, 2050, 2052});
    CheckValues(Alt(c, "f16-acc-f16-sequential"), {2048, 2048, 2048, 2048}, "f16 running");
    // Pass d=1: [2048, 2048, 2, 2]; pass d=2: [2048, 2048, 2050, 2050].
    CheckValues(Alt(c, "f16-acc-f16-hillis-steele"), {2048, 2048, 2050, 2050}, "f16 scan");
    CheckValues(Alt(c, "f16-acc-f32-sequential"), {2048, 2048, 2050, 2052}, "f16 in f32");
  }
}

TEST_CASE("sums: batchNormalization by hand: variants exact, each ignored parameter") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 2}});
  const Operand mean = b.Input("mean", {DataType::kFloat32, {2}});
  const Operand var = b.Input("var", {DataType::kFloat32, {2}});
  const Operand scale = b.Input("scale", {DataType::kFloat32, {2}});
  const Operand bias = b.Input("bias", {DataType::kFloat32, {2}});
  MLBatchNormalizationOptions o;
  o.scale = scale;
  o.bias = bias;
  o.epsilon = 0;
  Built c = BuildOne(b, BatchNormalization(b, x, mean, var, o),
                     {{"x", F32({2, 2}, {1, 2, 3, 4})},
                      {"mean", F32({2}, {2, 3})},
                      {"var", F32({2}, {4, 16})},
                      {"scale", F32({2}, {2, 2})},
                      {"bias", F32({2}, {1, 1})}});
  // Column 0: (x - 2) / 2 * 2 + 1; column 1: (x - 3) / 4 * 2 + 1.
  CHECK(CheckAllVariantsExact(c, {0, 0.5, 2, 1.5}) == 4);
  CHECK(!Alt(c, "ignored-epsilon"));                                      // epsilon is 0
  CheckValues(Alt(c, "ignored-sqrt"), {0.5, 0.875, 1.5, 1.125}, "sqrt");  // / 4, / 16
  CheckValues(Alt(c, "ignored-scale"), {0.5, 0.75, 1.5, 1.25}, "scale");
  CheckValues(Alt(c, "ignored-bias"), {-1, -0.5, 1, 0.5}, "bias");
}

TEST_CASE("sums: layerNormalization: statistics variants, unbiased and naive variance") {
  {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat32, {2, 4}});
    MLLayerNormalizationOptions o;
    o.epsilon = 0;
    Built c =
        BuildOne(b, LayerNormalization(b, x, o), {{"x", F32({2, 4}, {0, 0, 2, 2, 1, 3, 1, 3})}});
    // Mean 1 (2), variance 1 in both rows: (x - mean) / 1.
    CHECK(CheckAllVariantsNear(c, 4) == 5);
    CHECK(Reference(c) == std::vector<double>{-1, -1, 1, 1, -1, 1, -1, 1});
    // Variance 4/3: (x - mean) * sqrt(3/4).
    const double r = static_cast<double>(static_cast<float>(std::sqrt(0.75)));
    CheckValues(Alt(c, "unbiased-variance"), {-r, -r, r, r, -r, r, -r, r}, "n-1");
    CHECK(!Alt(c, "ignored-scale"));
    CHECK(!Alt(c, "ignored-epsilon"));
  }
  {
    // Mean 10001.5, variance 1.25: the float32 sum of squares (about 4e8, spacing 32) cancels.
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat32, {1, 4}});
    Built c =
        BuildOne(b, LayerNormalization(b, x), {{"x", F32({1, 4}, {10000, 10001, 10002, 10003})}});
    CHECK(CheckAllVariantsNear(c, 64) == 5);
    const std::vector<double> ref = Reference(c);
    const auto naive = Alt(c, "naive-variance");
    REQUIRE(naive.has_value());
    bool far = false;
    for (size_t i = 0; i < ref.size(); ++i) {
      far = far || std::isnan((*naive)[i]) || std::fabs((*naive)[i] - ref[i]) > 0.01;
    }
    CHECK(far);
  }
}

TEST_CASE("sums: normalization statistics that overflow float32 give NaN; folding needs v+e>0") {
  {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat32, {1, 2}});
    Built c = BuildOne(b, LayerNormalization(b, x), {{"x", F32({1, 2}, {-3e38f, 3e38f})}});
    CHECK(Reference(c) == std::vector<double>{-1, 1});  // computed in double
    // (3e38)^2 overflows float32: the variance is Inf, and x / Inf would silently give 0.
    const auto v = Alt(c, "f32-two-pass");
    REQUIRE(v.has_value());
    CHECK(std::isnan((*v)[0]));
    CHECK(std::isnan((*v)[1]));
  }
  {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat32, {1, 2}});
    const Operand mean = b.Input("mean", {DataType::kFloat32, {1}});
    const Operand var = b.Input("var", {DataType::kFloat32, {1}});
    MLBatchNormalizationOptions o;
    o.axis = 0;
    o.epsilon = 0;
    Built c =
        BuildOne(b, BatchNormalization(b, x, mean, var, o),
                 {{"x", F32({1, 2}, {1, 2})}, {"mean", F32({1}, {1})}, {"var", F32({1}, {0})}});
    CHECK(!Alt(c, "f32-folded"));            // 1 / sqrt(0) = Inf: folding is undefined
    const auto v = Alt(c, "f32-emulation");  // 0 / 0 = NaN, 1 / 0 = Inf, as the reference
    REQUIRE(v.has_value());
    CHECK(std::isnan((*v)[0]));
    CHECK((*v)[1] == kInfinity);
  }
}

TEST_CASE("sums: instanceNormalization NHWC with scale and bias: variants close, mutants") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {1, 2, 2, 2}});
  const Operand scale = b.Input("scale", {DataType::kFloat32, {2}});
  const Operand bias = b.Input("bias", {DataType::kFloat32, {2}});
  MLInstanceNormalizationOptions o;
  o.layout = MLInputOperandLayout::kNhwc;
  o.scale = scale;
  o.bias = bias;
  Built c = BuildOne(b, InstanceNormalization(b, x, o),
                     {{"x", F32({1, 2, 2, 2}, {1, 10, 2, 20, 3, 30, 4, 40})},
                      {"scale", F32({2}, {0.5, 2})},
                      {"bias", F32({2}, {1, -1})}});
  CHECK(CheckAllVariantsNear(c, 4) == 5);
  for (const char* name : {"ignored-epsilon", "ignored-sqrt", "ignored-scale", "ignored-bias",
                           "unbiased-variance", "dropped-last-term"}) {
    CHECK_MESSAGE(Alt(c, name).has_value(), name);
  }
  // Channel 0 is [1, 2, 3, 4]: mean 2.5, variance 1.25; element 0 without the bias:
  // 0.5 * (1 - 2.5) / sqrt(1.25 + 1e-5).
  const double eps = static_cast<double>(1e-5f);
  CHECK(std::fabs((*Alt(c, "ignored-bias"))[0] - 0.5 * -1.5 / std::sqrt(1.25 + eps)) < 1e-6);
}

TEST_CASE("sums: softmax: variants, no max subtraction overflows, dropped term") {
  {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat32, {2, 2}});
    Built c = BuildOne(b, Softmax(b, x, 0), {{"x", F32({2, 2}, {1000, 3, 1000, 3})}});
    CHECK(CheckAllVariantsExact(c, {0.5, 0.5, 0.5, 0.5}) == 4);
    const auto v = Alt(c, "no-max-subtraction");  // exp(1000) = Inf; Inf / Inf = NaN
    REQUIRE(v.has_value());
    CHECK(std::isnan((*v)[0]));
    CHECK((*v)[1] == 0.5);
    CheckValues(Alt(c, "dropped-last-term"), {1, 1, 1, 1}, "dropped");  // e / e
  }
  {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat32, {3}});
    Built c = BuildOne(b, Softmax(b, x, 0), {{"x", F32({3}, {1, 2, 3})}});
    CHECK(CheckAllVariantsNear(c, 4) == 4);
    CHECK(!Alt(c, "no-max-subtraction"));  // nothing overflows
  }
  {
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat16, {4}});
    Built c = BuildOne(b, Softmax(b, x, 0), {{"x", F16({4}, {0, 0, 0, 0})}});
    CHECK(CheckAllVariantsExact(c, {0.25, 0.25, 0.25, 0.25}) == 4);
    const auto v = Alt(c, "f16-acc-f16-sequential-divide");
    REQUIRE(v.has_value());
  }
}

TEST_CASE("sums: float16 variants apply to float16 only, float32 ones to float32 only") {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat16, {2, 3}});
  MLReduceOptions o;
  o.axes = std::vector<uint32_t>{1};
  Built c = BuildOne(b, ReduceSum(b, x, o), {{"x", F16({2, 3}, {1, 2, 3, 4, 5, 6})}});
  CHECK(CheckAllVariantsExact(c, {6, 15}) == 4);
  for (const Alternative* a : Own("reduceSum", true)) {
    const bool f16 = a->name.rfind("f16-", 0) == 0;
    CHECK_MESSAGE(a->compute(*c.graph, 0, c.ptrs).has_value() == f16, a->name);
  }
}

}  // namespace nnref
