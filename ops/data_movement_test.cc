// Shape and data-movement operators: views proven to share the input's buffer (expected strides
// and offsets derived by hand), strided/reversed/broadcast views fed to other operators and
// checked against hand-computed values, every method step's error, all eight data types, ranks
// beyond 8, and latitude following the moved elements.
#include "ops/data_movement.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "ops/cast_clamp_where.h"
#include "ops/conv2d.h"
#include "ops/elementwise_binary.h"
#include "ops/matmul_gemm.h"
#include "ops/normalization.h"
#include "ops/reduction.h"
#include "ops/rnn.h"
#include "ops/softmax.h"
#include "ref/testing.h"

namespace nnref {

namespace {

constexpr DataType kF32 = DataType::kFloat32;

// A tensor of any data type from small integral doubles (exact in every type).
Tensor Of(DataType t, const Shape& s, const std::vector<double>& v) {
  Tensor x = Tensor::Allocate(t, s);
  DispatchDataType(t, [&]<typename T>() {
    for (size_t i = 0; i < v.size(); ++i)
      x.base<T>()[i] = CastNumber<T>(MLNumber::FromDouble(v[i]));
    return 0;
  });
  return x;
}

// A view's elements in row-major order, widened to double (walks the strides).
std::vector<double> Values(const Tensor& t) {
  std::vector<double> out;
  DispatchDataType(t.dtype(), [&]<typename T>() {
    for (uint64_t i = 0; i < t.element_count(); ++i) out.push_back(ToDouble(t.At<T>(i)));
    return 0;
  });
  return out;
}

std::vector<double> Iota(size_t n, double start = 0) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + static_cast<double>(i);
  return v;
}

std::vector<uint8_t> Marks(const OperandValue& v) {
  std::vector<uint8_t> out;
  for (uint64_t i = 0; i < v.data.element_count(); ++i) {
    out.push_back(v.latitude.valid() ? v.latitude.At<uint8_t>(i) : 0);
  }
  return out;
}

// One-operator graph on an input "x" holding `data`.
template <typename Make>
OperandValue RunOne(const Tensor& data, const Make& make) {
  GraphBuilder b;
  const Operand x = b.Input("x", {data.dtype(), data.shape()});
  return Run(b, make(b, x), {{"x", data}});
}

constexpr uint8_t kAnyMark = static_cast<uint8_t>(Latitude::kAny);

}  // namespace

// ---------------------------------------------------------------------------------------------
// Views: no copy.

TEST_CASE("Tensor::Reshape is a view whenever strides exist, a copy otherwise") {
  const Tensor x = Of(kF32, {4, 6}, Iota(24));
  SUBCASE("transposed [6, 4] (strides [1, 6]) split into [2, 3, 4]: a view") {
    const Tensor t = x.Permute({1, 0});
    const Tensor r = t.Reshape({2, 3, 4});
    CHECK(r.buffer() == x.buffer());
    CHECK(r.strides() == Strides{3, 1, 6});  // 6 -> 2 x 3 over stride 1; 4 keeps stride 6
    CHECK(r.offset() == 0);
    // r[a][b][c] = t[3a + b][c] = x[c][3a + b] = 6c + 3a + b.
    CHECK(r.At<float>(1 * 12 + 2 * 4 + 3) == 6 * 3 + 3 * 1 + 2);
  }
  SUBCASE("merging the two transposed axes has no strides: a dense copy") {
    const Tensor r = x.Permute({1, 0}).Reshape({24});
    CHECK(r.buffer() != x.buffer());
    CHECK(r.IsContiguous());
    CHECK(Values(r)[1] == 6);  // t[0][1] = x[1][0]
  }
  SUBCASE("a reversed axis merged with an inner contiguous axis: a view with stride -1 runs") {
    // Reverse both axes: element (i, j) is x[3-i][5-j] at offset 23 - 6i - j; the view is one
    // run of stride -1, so any reshape of it is a view.
    const Tensor rev = x.Reverse({0, 1});
    const Tensor r = rev.Reshape({3, 8});
    CHECK(r.buffer() == x.buffer());
    CHECK(r.strides() == Strides{-8, -1});
    CHECK(r.offset() == 23);
    CHECK(Values(r)[0] == 23);
    CHECK(Values(r)[9] == 14);
  }
  SUBCASE("reversing only the outer axis breaks the run: a copy") {
    const Tensor r = x.Reverse({0}).Reshape({24});
    CHECK(r.buffer() != x.buffer());
    CHECK(Values(r)[0] == 18);
    CHECK(Values(r)[6] == 12);
  }
  SUBCASE("broadcast and size-1 axes") {
    const Tensor b = Of(kF32, {3, 1}, {7, 8, 9}).BroadcastTo({2, 3, 4});  // strides [0, 1, 0]
    const Tensor split = b.Reshape({2, 1, 3, 2, 2});
    CHECK(split.buffer() == b.buffer());
    CHECK(split.strides()[3] == 0);
    CHECK(split.strides()[4] == 0);
    CHECK(Values(split) == Values(b));
    const Tensor merged = b.Reshape({6, 4});  // merges the stride-0 and stride-1 axes: a copy
    CHECK(merged.buffer() != b.buffer());
    CHECK(Values(merged) == Values(b));
    // A whole-stride-0 tensor reshapes as a view.
    const Tensor z = Of(kF32, {}, {5}).BroadcastTo({4, 6});
    CHECK(z.Reshape({2, 12}).buffer() == z.buffer());
    CHECK(z.Reshape({2, 12}).strides() == Strides{0, 0});
  }
}

TEST_CASE("reshape, transpose, expand, slice, reverse and split copy nothing in the executor") {
  GraphBuilder b;
  const Operand x = b.Input("x", {kF32, {3, 4}});
  // x[i][j] = 4i + j, strides [4, 1].
  MLTransposeOptions perm;                  // default: [1, 0]
  const Operand t = Transpose(b, x, perm);  // [4, 3], strides [1, 4]
  MLSliceOptions step;
  step.strides = std::vector<uint32_t>{1, 2};
  const Operand s = Slice(b, t, {1, 0}, {3, 3}, step);  // [3, 2], strides [1, 8], offset 1
  MLReverseOptions axis0;
  axis0.axes = std::vector<uint32_t>{0};
  const Operand r = Reverse(b, s, axis0);  // strides [-1, 8], offset 3
  const Operand reshaped = Reshape(b, x, {2, 6});
  const Operand expanded = Expand(b, Slice(b, x, {0, 1}, {3, 1}), {2, 3, 5});
  MLSplitOptions on1;
  on1.axis = 1;
  const std::vector<Operand> parts = Split(b, x, {1, 3}, on1);
  const Operand reversed_all = Reverse(b, x);
  const auto graph = b.Build({{"chain", r},
                              {"reshaped", reshaped},
                              {"expanded", expanded},
                              {"part0", parts[0]},
                              {"part1", parts[1]},
                              {"reversed_all", reversed_all}});
  const Tensor input = Of(kF32, {3, 4}, Iota(12));
  std::map<uint32_t, OperandValue> seen;
  const auto out = graph->Compute({{"x", input}},
                                  [&](OperandId id, const OperandValue& v) { seen[id.value] = v; });
  const auto same_buffer = [&](const OperandValue& v) {
    return v.data.buffer().get() == input.buffer().get();
  };
  // Every intermediate and every output is a view of the caller's input buffer.
  for (const auto& [id, v] : seen) CHECK_MESSAGE(same_buffer(v), "operand " << id);
  for (const auto& [name, v] : out) CHECK_MESSAGE(same_buffer(v), name);

  const OperandValue& tv = seen.at(t.id.value);
  CHECK(tv.data.shape() == Shape{4, 3});
  CHECK(tv.data.strides() == Strides{1, 4});
  CHECK(tv.data.offset() == 0);
  const OperandValue& sv = seen.at(s.id.value);
  CHECK(sv.data.shape() == Shape{3, 2});
  CHECK(sv.data.strides() == Strides{1, 8});
  CHECK(sv.data.offset() == 1);
  const Tensor& chain = out.at("chain").data;
  CHECK(chain.strides() == Strides{-1, 8});
  CHECK(chain.offset() == 3);
  // t[a][b] = 4b + a; s[p][q] = t[1 + p][2q] = 8q + 1 + p; r[p][q] = s[2 - p][q] = 8q + 3 - p.
  CHECK(Values(chain) == std::vector<double>{3, 11, 2, 10, 1, 9});

  const Tensor& rs = out.at("reshaped").data;
  CHECK(rs.strides() == Strides{6, 1});
  CHECK(rs.offset() == 0);

  const Tensor& ex = out.at("expanded").data;  // x[:, 1] = [1, 5, 9] as [3, 1] -> [2, 3, 5]
  CHECK(ex.shape() == Shape{2, 3, 5});
  CHECK(ex.strides() == Strides{0, 4, 0});
  CHECK(ex.offset() == 1);
  CHECK(ex.At<float>(1 * 15 + 2 * 5 + 4) == 9);

  const Tensor& p0 = out.at("part0").data;
  const Tensor& p1 = out.at("part1").data;
  CHECK(p0.shape() == Shape{3, 1});
  CHECK(p0.offset() == 0);
  CHECK(p1.shape() == Shape{3, 3});
  CHECK(p1.strides() == Strides{4, 1});
  CHECK(p1.offset() == 1);
  CHECK(Values(p1) == std::vector<double>{1, 2, 3, 5, 6, 7, 9, 10, 11});

  const Tensor& ra = out.at("reversed_all").data;
  CHECK(ra.strides() == Strides{-4, -1});
  CHECK(ra.offset() == 11);
  CHECK(Values(ra)[0] == 11);
  CHECK(Values(ra)[11] == 0);
  CHECK(!out.at("chain").latitude.valid());
}

TEST_CASE("view operators view the latitude tensor the same way") {
  // int32 division by zero marks elements (kAny); the transposed and reversed views carry the
  // marks with their elements, over the same latitude buffer.
  GraphBuilder b;
  const Operand num = b.Input("num", {DataType::kInt32, {2, 3}});
  const Operand den = b.Input("den", {DataType::kInt32, {2, 3}});
  const Operand q = ElementwiseBinary(b, BinaryOp::kDiv, num, den);
  const Operand t = Transpose(b, q);
  const Operand r = Reverse(b, t);
  const auto graph = b.Build({{"t", t}, {"r", r}});
  std::map<uint32_t, OperandValue> seen;
  const auto out = graph->Compute(
      {{"num", Of(DataType::kInt32, {2, 3}, {6, 6, 6, 6, 6, 6})},
       {"den", Of(DataType::kInt32, {2, 3}, {1, 0, 2, 3, 6, 0})}},  // zeros at (0,1) and (1,2)
      [&](OperandId id, const OperandValue& v) { seen[id.value] = v; });
  const OperandValue& qv = seen.at(q.id.value);
  REQUIRE(qv.latitude.valid());
  const OperandValue& tv = out.at("t");
  REQUIRE(tv.latitude.valid());
  CHECK(tv.latitude.buffer() == qv.latitude.buffer());
  CHECK(tv.data.buffer() == qv.data.buffer());
  // t = q^T: t[j][i] = q[i][j]; marks at t (1,0) and (2,1), i.e. linear 2 and 5.
  CHECK(Marks(tv) == std::vector<uint8_t>{0, 0, kAnyMark, 0, 0, kAnyMark});
  CHECK(Values(tv.data) == std::vector<double>{6, 2, 0, 1, 3, 0});
  const OperandValue& rv = out.at("r");
  CHECK(rv.latitude.buffer() == qv.latitude.buffer());
  CHECK(Marks(rv) == std::vector<uint8_t>{kAnyMark, 0, 0, kAnyMark, 0, 0});
}

// ---------------------------------------------------------------------------------------------
// Other operators reading strided, reversed and broadcast views.

TEST_CASE("transposed and reversed views feed conv2d, matmul, reductions, softmax and more") {
  SUBCASE("conv2d over a reversed and over a transposed input") {
    // x = 1..9 as [1, 1, 3, 3]; reversed on both spatial axes: [[9,8,7],[6,5,4],[3,2,1]];
    // transposed spatially: [[1,4,7],[2,5,8],[3,6,9]]. A 2x2 filter of ones sums each window.
    for (const bool reverse : {true, false}) {
      GraphBuilder b;
      const Operand x = b.Input("x", {kF32, {1, 1, 3, 3}});
      const Operand w = b.Constant({kF32, {1, 1, 2, 2}}, F32({1, 1, 2, 2}, {1, 1, 1, 1}));
      MLReverseOptions spatial;
      spatial.axes = std::vector<uint32_t>{2, 3};
      MLTransposeOptions swap;
      swap.permutation = std::vector<uint32_t>{0, 1, 3, 2};
      const Operand v = reverse ? Reverse(b, x, spatial) : Transpose(b, x, swap);
      const OperandValue y = Run(b, Conv2d(b, v, w), {{"x", Of(kF32, {1, 1, 3, 3}, Iota(9, 1))}});
      CheckFloats(y.data, reverse ? std::initializer_list<double>{28, 24, 16, 12}
                                  : std::initializer_list<double>{12, 24, 16, 28});
    }
  }
  SUBCASE("matmul of a transposed a and a reversed b") {
    GraphBuilder b;
    const Operand a = b.Input("a", {kF32, {3, 2}});
    const Operand c = b.Input("c", {kF32, {3, 1}});
    MLReverseOptions rows;
    rows.axes = std::vector<uint32_t>{0};
    // [[1,3,5],[2,4,6]] x [[3],[2],[1]] = [[1*3 + 3*2 + 5*1], [2*3 + 4*2 + 6*1]] = [[14], [20]]
    const OperandValue y =
        Run(b, Matmul(b, Transpose(b, a), Reverse(b, c, rows)),
            {{"a", F32({3, 2}, {1, 2, 3, 4, 5, 6})}, {"c", F32({3, 1}, {1, 2, 3})}});
    CheckFloats(y.data, {14, 20});
  }
  SUBCASE("reduceSum over a reversed and a transposed view") {
    MLReduceOptions axis1;
    axis1.axes = std::vector<uint32_t>{1};
    const Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
    // reversed: [[6,5,4],[3,2,1]] -> [15, 6]; transposed: [[1,4],[2,5],[3,6]] -> [5, 7, 9]
    CheckFloats(RunOne(x, [&](GraphBuilder& b,
                              const Operand& in) { return ReduceSum(b, Reverse(b, in), axis1); })
                    .data,
                {15, 6});
    CheckFloats(RunOne(x, [&](GraphBuilder& b,
                              const Operand& in) { return ReduceSum(b, Transpose(b, in), axis1); })
                    .data,
                {5, 7, 9});
  }
  SUBCASE("softmax along the rows of a transposed view") {
    // x [4, 2] = [[0, 5]] * 4; transposed rows are [0,0,0,0] and [5,5,5,5]: 1/4 everywhere. A
    // kernel reading the buffer as contiguous [2, 4] would see rows [0, 5, 0, 5].
    const Tensor x = F32({4, 2}, {0, 5, 0, 5, 0, 5, 0, 5});
    CheckFloats(RunOne(x, [](GraphBuilder& b,
                             const Operand& in) { return Softmax(b, Transpose(b, in), 1); })
                    .data,
                {0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25});
  }
  SUBCASE("layerNormalization over a transposed and a reversed view") {
    // Rows [1,2,3,4] and (reversed) [4,3,2,1]: mean 2.5, variance 1.25, epsilon 0.
    MLLayerNormalizationOptions o;
    o.epsilon = 0;
    const double k = 1.0 / std::sqrt(1.25);
    const auto f = [](double v) { return static_cast<double>(static_cast<float>(v)); };
    const Tensor x = F32({4, 2}, {1, 4, 2, 3, 3, 2, 4, 1});  // columns [1,2,3,4] and [4,3,2,1]
    const OperandValue y = RunOne(x, [&](GraphBuilder& b, const Operand& in) {
      return LayerNormalization(b, Transpose(b, in), o);
    });
    CheckFloats(y.data, {f(-1.5 * k), f(-0.5 * k), f(0.5 * k), f(1.5 * k), f(1.5 * k), f(0.5 * k),
                         f(-0.5 * k), f(-1.5 * k)});
    MLReverseOptions cols;
    cols.axes = std::vector<uint32_t>{1};
    const OperandValue z =
        RunOne(F32({1, 4}, {1, 2, 3, 4}), [&](GraphBuilder& b, const Operand& in) {
          return LayerNormalization(b, Reverse(b, in, cols), o);
        });
    CheckFloats(z.data, {f(1.5 * k), f(0.5 * k), f(-0.5 * k), f(-1.5 * k)});
  }
  SUBCASE("gru with a transposed input and a reversed weight equals gru on dense copies") {
    // steps 2, batch 1, inputSize 2, hiddenSize 1. The dense copies are written out by hand.
    const std::vector<double> xs = {0.5, -1, 0.25, 2};              // base [2, 1, 2]
    const std::vector<double> x_swapped = {0.5, 0.25, -1, 2};       // transposed axes 0 and 2
    const std::vector<double> ws = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6};  // [1, 3, 2]
    const std::vector<double> w_reversed = {0.6, 0.5, 0.4, 0.3, 0.2, 0.1};  // axes 1 and 2
    const std::vector<double> rs = {0.7, -0.8, 0.9};                        // [1, 3, 1]
    const auto gru = [&](bool views) {
      GraphBuilder b;
      const Operand x = b.Input("x", {kF32, {2, 1, 2}});
      const Operand w = b.Input("w", {kF32, {1, 3, 2}});
      const Operand r = b.Constant({kF32, {1, 3, 1}}, Of(kF32, {1, 3, 1}, rs));
      MLTransposeOptions p;
      p.permutation = std::vector<uint32_t>{2, 1, 0};
      MLReverseOptions axes;
      axes.axes = std::vector<uint32_t>{1, 2};
      const Operand xi = views ? Transpose(b, x, p) : x;
      const Operand wi = views ? Reverse(b, w, axes) : w;
      const std::vector<Operand> h = Gru(b, xi, wi, r, 2, 1);
      return Run(b, h[0],
                 {{"x", Of(kF32, {2, 1, 2}, views ? xs : x_swapped)},
                  {"w", Of(kF32, {1, 3, 2}, views ? ws : w_reversed)}});
    };
    const OperandValue a = gru(true), d = gru(false);
    REQUIRE(a.data.element_count() == 1);
    CHECK(a.data.At<float>(0) == d.data.At<float>(0));
    CHECK(a.data.At<float>(0) != 0);
  }
  SUBCASE("cast and where over reversed and transposed views") {
    MLReverseOptions all;
    const OperandValue c = RunOne(
        Of(DataType::kInt32, {3}, {1, 2, 3}),
        [&](GraphBuilder& b, const Operand& in) { return Cast(b, Reverse(b, in, all), kF32); });
    CheckFloats(c.data, {3, 2, 1});
    GraphBuilder b;
    const Operand cond = b.Input("cond", {DataType::kUint8, {2, 2}});
    const Operand t = b.Input("t", {kF32, {2, 2}});
    const Operand f = b.Input("f", {kF32, {2, 2}});
    // cond^T = [[1, 0], [1, 0]] (cond = [[1, 1], [0, 0]]); reversed t = [[4, 3], [2, 1]].
    const OperandValue w = Run(b, Where(b, Transpose(b, cond), Reverse(b, t, all), f),
                               {{"cond", Of(DataType::kUint8, {2, 2}, {1, 1, 0, 0})},
                                {"t", F32({2, 2}, {1, 2, 3, 4})},
                                {"f", F32({2, 2}, {-1, -2, -3, -4})}});
    CheckFloats(w.data, {4, -2, 2, -4});
  }
  SUBCASE("a reversed view as the graph output reads in logical order") {
    const OperandValue y =
        RunOne(F32({2, 2}, {1, 2, 3, 4}),
               [](GraphBuilder& b, const Operand& in) { return Reverse(b, in); });
    CHECK(y.data.strides() == Strides{-2, -1});
    CheckFloats(y.data, {4, 3, 2, 1});
    const std::vector<std::byte> bytes = y.data.Bytes();  // dense copy in logical order
    REQUIRE(bytes.size() == 16);
    float first = 0;
    std::memcpy(&first, bytes.data(), sizeof first);
    CHECK(first == 4);
  }
}

// ---------------------------------------------------------------------------------------------
// Values, every data type.

TEST_CASE("reshape, transpose, expand, slice, reverse: values in every data type") {
  for (DataType type : kAllDataTypes) {
    const std::string type_name(DataTypeName(type));
    CAPTURE(type_name);
    const Tensor x = Of(type, {2, 3}, Iota(6, 1));  // [[1,2,3],[4,5,6]]
    const auto run = [&](auto make) { return Values(RunOne(x, make).data); };
    CHECK(run([](GraphBuilder& b, const Operand& in) {
            return Reshape(b, in, {3, 1, 2});
          }) == std::vector<double>{1, 2, 3, 4, 5, 6});
    CHECK(run([](GraphBuilder& b, const Operand& in) { return Reshape(b, in, {6}); }) ==
          std::vector<double>{1, 2, 3, 4, 5, 6});
    CHECK(run([](GraphBuilder& b, const Operand& in) { return Transpose(b, in); }) ==
          std::vector<double>{1, 4, 2, 5, 3, 6});
    CHECK(run([](GraphBuilder& b, const Operand& in) {
            return Expand(b, in, {2, 2, 3});
          }) == std::vector<double>{1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6});
    CHECK(run([](GraphBuilder& b, const Operand& in) {
            return Slice(b, in, {1, 1}, {1, 2});
          }) == std::vector<double>{5, 6});
    CHECK(run([](GraphBuilder& b, const Operand& in) { return Reverse(b, in); }) ==
          std::vector<double>{6, 5, 4, 3, 2, 1});
    MLReverseOptions none;
    none.axes = std::vector<uint32_t>{};
    CHECK(run([&](GraphBuilder& b, const Operand& in) { return Reverse(b, in, none); }) ==
          std::vector<double>{1, 2, 3, 4, 5, 6});
  }
}

TEST_CASE("reshape of a transposed view copies only where the strides do not fit") {
  // [[1,2,3],[4,5,6]]^T = [[1,4],[2,5],[3,6]] flattened: 1 4 2 5 3 6.
  const OperandValue y =
      RunOne(Of(kF32, {2, 3}, Iota(6, 1)),
             [](GraphBuilder& b, const Operand& in) { return Reshape(b, Transpose(b, in), {6}); });
  CHECK(Values(y.data) == std::vector<double>{1, 4, 2, 5, 3, 6});
  // Rank 0 <-> rank 1 and size-1 axes.
  CHECK(Values(RunOne(Of(kF32, {}, {7}), [](GraphBuilder& b, const Operand& in) {
                 return Reshape(b, in, {1, 1, 1});
               }).data) == std::vector<double>{7});
  const OperandValue s = RunOne(
      Of(kF32, {1, 1}, {7}), [](GraphBuilder& b, const Operand& in) { return Reshape(b, in, {}); });
  CHECK(s.data.shape() == Shape{});
  CHECK(Values(s.data) == std::vector<double>{7});
}

TEST_CASE("slice with strides: ceil(size / stride) elements, rank 0") {
  // x = 0..9; starts 1, size 9, stride 4 -> elements 1, 5, 9 (ceil(9/4) = 3).
  MLSliceOptions o;
  o.strides = std::vector<uint32_t>{4};
  const OperandValue y = RunOne(Of(kF32, {10}, Iota(10)), [&](GraphBuilder& b, const Operand& in) {
    return Slice(b, in, {1}, {9}, o);
  });
  CHECK(y.data.shape() == Shape{3});
  CHECK(Values(y.data) == std::vector<double>{1, 5, 9});
  o.strides = std::vector<uint32_t>{3};  // size 9, stride 3 -> exactly 3
  CHECK(RunOne(Of(kF32, {10}, Iota(10)), [&](GraphBuilder& b, const Operand& in) {
          return Slice(b, in, {1}, {9}, o);
        }).data.shape() == Shape{3});
  o.strides = std::vector<uint32_t>{20};  // a stride beyond the size: one element
  CHECK(Values(RunOne(Of(kF32, {10}, Iota(10)), [&](GraphBuilder& b, const Operand& in) {
                 return Slice(b, in, {9}, {1}, o);
               }).data) == std::vector<double>{9});
  const OperandValue scalar = RunOne(
      Of(kF32, {}, {3}), [](GraphBuilder& b, const Operand& in) { return Slice(b, in, {}, {}); });
  CHECK(Values(scalar.data) == std::vector<double>{3});
}

TEST_CASE("split: equal parts and explicit sizes are slices along the axis") {
  for (DataType type : kAllDataTypes) {
    const std::string type_name(DataTypeName(type));
    CAPTURE(type_name);
    GraphBuilder b;
    const Operand x = b.Input("x", {type, {2, 6}});
    MLSplitOptions axis1;
    axis1.axis = 1;
    const std::vector<Operand> thirds = Split(b, x, 3, axis1);
    const std::vector<Operand> rows = Split(b, x, 2u);
    const std::vector<Operand> sized = Split(b, x, {1, 2, 3}, axis1);
    REQUIRE(thirds.size() == 3);
    REQUIRE(sized.size() == 3);
    CHECK(b.Desc(thirds[2]).shape == Shape{2, 2});
    CHECK(b.Desc(rows[1]).shape == Shape{1, 6});
    CHECK(b.Desc(sized[2]).shape == Shape{2, 3});
    const auto out =
        b.Build({{"t2", thirds[2]}, {"r1", rows[1]}, {"s0", sized[0]}, {"s2", sized[2]}})
            ->Compute({{"x", Of(type, {2, 6}, Iota(12))}});
    CHECK(Values(out.at("t2").data) == std::vector<double>{4, 5, 10, 11});
    CHECK(Values(out.at("r1").data) == std::vector<double>{6, 7, 8, 9, 10, 11});
    CHECK(Values(out.at("s0").data) == std::vector<double>{0, 6});
    CHECK(Values(out.at("s2").data) == std::vector<double>{3, 4, 5, 9, 10, 11});
  }
}

TEST_CASE("concat along each axis, every data type, strided inputs") {
  for (DataType type : kAllDataTypes) {
    const std::string type_name(DataTypeName(type));
    CAPTURE(type_name);
    GraphBuilder b;
    const Operand a = b.Input("a", {type, {2, 2}});
    const Operand c = b.Input("c", {type, {2, 1}});
    const Operand d = b.Input("d", {type, {3, 2}});
    // a^T = [[1,3],[2,4]]; with c = [[5],[6]] along axis 1: [[1,3,5],[2,4,6]].
    const Operand along1 = Concat(b, {Transpose(b, a), c}, 1);
    // reversed d = [[12,11],[10,9],[8,7]] under a along axis 0.
    const Operand along0 = Concat(b, {a, Reverse(b, d)}, 0);
    const Operand single = Concat(b, {c}, 0);
    const auto out = b.Build({{"along1", along1}, {"along0", along0}, {"single", single}})
                         ->Compute({{"a", Of(type, {2, 2}, {1, 2, 3, 4})},
                                    {"c", Of(type, {2, 1}, {5, 6})},
                                    {"d", Of(type, {3, 2}, {7, 8, 9, 10, 11, 12})}});
    CHECK(out.at("along1").data.shape() == Shape{2, 3});
    CHECK(Values(out.at("along1").data) == std::vector<double>{1, 3, 5, 2, 4, 6});
    CHECK(out.at("along0").data.shape() == Shape{5, 2});
    CHECK(Values(out.at("along0").data) == std::vector<double>{1, 2, 3, 4, 12, 11, 10, 9, 8, 7});
    CHECK(Values(out.at("single").data) == std::vector<double>{5, 6});
  }
}

TEST_CASE("pad: the spec's constant, edge and reflection examples in every data type") {
  const std::vector<double> input = {1, 2, 3, 4, 5, 6};
  const std::vector<double> constant = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 0, 0,
                                        0, 0, 4, 5, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  const std::vector<double> edge = {1, 1, 1, 2, 3, 3, 3, 1, 1, 1, 2, 3, 3, 3,
                                    4, 4, 4, 5, 6, 6, 6, 4, 4, 4, 5, 6, 6, 6};
  const std::vector<double> reflection = {6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1,
                                          6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1};
  for (DataType type : kAllDataTypes) {
    const std::string type_name(DataTypeName(type));
    CAPTURE(type_name);
    for (const auto& [mode, expected] :
         {std::pair{MLPaddingMode::kConstant, &constant}, std::pair{MLPaddingMode::kEdge, &edge},
          std::pair{MLPaddingMode::kReflection, &reflection}}) {
      MLPadOptions o;
      o.mode = mode;
      const OperandValue y =
          RunOne(Of(type, {2, 3}, input), [&](GraphBuilder& b, const Operand& x) {
            return Pad(b, x, {1, 2}, {1, 2}, o);
          });
      CHECK(y.data.shape() == Shape{4, 7});
      CHECK(Values(y.data) == *expected);
    }
  }
}

TEST_CASE("pad: constant value cast to the input type, asymmetric padding, strided input") {
  MLPadOptions o;
  o.value = MLNumber::FromDouble(2.5);
  // int8: 2.5 casts to 2 (round half to even); uint8 with -1: 0 (clamped).
  CHECK(Values(RunOne(Of(DataType::kInt8, {1}, {7}), [&](GraphBuilder& b, const Operand& x) {
                 return Pad(b, x, {2}, {0}, o);
               }).data) == std::vector<double>{2, 2, 7});
  o.value = MLNumber::FromDouble(-1);
  CHECK(Values(RunOne(Of(DataType::kUint8, {1}, {7}), [&](GraphBuilder& b, const Operand& x) {
                 return Pad(b, x, {0}, {1}, o);
               }).data) == std::vector<double>{7, 0});
  // float16: 1e5 overflows to Infinity.
  o.value = MLNumber::FromDouble(1e5);
  const OperandValue h =
      RunOne(Of(DataType::kFloat16, {1}, {1}),
             [&](GraphBuilder& b, const Operand& x) { return Pad(b, x, {1}, {0}, o); });
  CHECK(std::isinf(Values(h.data)[0]));
  // int64 from an exact integer beyond 2^53.
  o.value = MLNumber::FromInt64(int64_t{9007199254740993});
  const OperandValue big =
      RunOne(Of(DataType::kInt64, {1}, {1}),
             [&](GraphBuilder& b, const Operand& x) { return Pad(b, x, {0}, {1}, o); });
  CHECK(big.data.At<int64_t>(1) == int64_t{9007199254740993});
  // Reflection of a transposed view: columns of [[1,2],[3,4]]^T = [[1,3],[2,4]], padded 1 left.
  MLPadOptions r;
  r.mode = MLPaddingMode::kReflection;
  CHECK(Values(RunOne(F32({2, 2}, {1, 2, 3, 4}), [&](GraphBuilder& b, const Operand& x) {
                 return Pad(b, Transpose(b, x), {0, 1}, {0, 0}, r);
               }).data) == std::vector<double>{3, 1, 3, 4, 2, 4});
  // Rank 0: nothing to pad.
  CHECK(Values(RunOne(F32({}, {5}), [&](GraphBuilder& b, const Operand& x) {
                 return Pad(b, x, {}, {}, r);
               }).data) == std::vector<double>{5});
  // Edge padding may exceed the input size.
  MLPadOptions e;
  e.mode = MLPaddingMode::kEdge;
  CHECK(Values(RunOne(F32({2}, {1, 2}), [&](GraphBuilder& b, const Operand& x) {
                 return Pad(b, x, {3}, {2}, e);
               }).data) == std::vector<double>{1, 1, 1, 1, 2, 2, 2});
  // Reflection with the largest allowed padding (size - 1 on both sides).
  CHECK(Values(RunOne(F32({3}, {1, 2, 3}), [&](GraphBuilder& b, const Operand& x) {
                 return Pad(b, x, {2}, {2}, r);
               }).data) == std::vector<double>{3, 2, 1, 2, 3, 2, 1});
}

TEST_CASE("tile: every data type, strided input, rank 0") {
  for (DataType type : kAllDataTypes) {
    const std::string type_name(DataTypeName(type));
    CAPTURE(type_name);
    // [[1,2],[3,4]] tiled [2, 3]: rows [1,2,1,2,1,2], [3,4,3,4,3,4], repeated twice.
    const OperandValue y =
        RunOne(Of(type, {2, 2}, {1, 2, 3, 4}), [](GraphBuilder& b, const Operand& x) {
          return Tile(b, x, {2, 3});
        });
    CHECK(y.data.shape() == Shape{4, 6});
    CHECK(Values(y.data) == std::vector<double>{1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4,
                                                1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4});
  }
  // A reversed view, tiled along axis 0 only: [3, 2, 1, 3, 2, 1] -> reps [2].
  CHECK(Values(RunOne(F32({3}, {1, 2, 3}), [](GraphBuilder& b, const Operand& x) {
                 return Tile(b, Reverse(b, x), {2});
               }).data) == std::vector<double>{3, 2, 1, 3, 2, 1});
  CHECK(Values(RunOne(F32({}, {9}), [](GraphBuilder& b, const Operand& x) {
                 return Tile(b, x, {});
               }).data) == std::vector<double>{9});
}

TEST_CASE("triangular: the spec's examples, batches, strided input") {
  const std::vector<double> m = {7, 1, 2, 9, 4, 8, 2, 6, 3};
  const auto tri = [&](bool upper, int32_t diagonal, DataType type = kF32) {
    MLTriangularOptions o;
    o.upper = upper;
    o.diagonal = diagonal;
    return Values(RunOne(Of(type, {3, 3}, m), [&](GraphBuilder& b, const Operand& x) {
                    return Triangular(b, x, o);
                  }).data);
  };
  for (DataType type : kAllDataTypes) {
    const std::string type_name(DataTypeName(type));
    CAPTURE(type_name);
    CHECK(tri(true, 0, type) == std::vector<double>{7, 1, 2, 0, 4, 8, 0, 0, 3});
    CHECK(tri(false, 0, type) == std::vector<double>{7, 0, 0, 9, 4, 0, 2, 6, 3});
  }
  CHECK(tri(true, 1) == std::vector<double>{0, 1, 2, 0, 0, 8, 0, 0, 0});
  CHECK(tri(true, -1) == std::vector<double>{7, 1, 2, 9, 4, 8, 0, 6, 3});
  CHECK(tri(false, 1) == std::vector<double>{7, 1, 0, 9, 4, 8, 2, 6, 3});
  CHECK(tri(false, -1) == std::vector<double>{0, 0, 0, 9, 0, 0, 2, 6, 0});
  CHECK(tri(true, 3) == std::vector<double>(9, 0));  // beyond the matrix: nothing kept
  CHECK(tri(true, -2147483647 - 1) == m);            // everything kept
  // Two batches of 2x3 (non-square), lower; the input is a transposed view of [3, 2, 2].
  // base[k][j][i]: x[i][j][k] = base[k][j][i] with base = 1..12 ([3, 2, 2] -> perm [2, 1, 0]).
  MLTriangularOptions lower;
  lower.upper = false;
  const OperandValue y = RunOne(
      Of(kF32, {3, 2, 2}, Iota(12, 1)),
      [&](GraphBuilder& b, const Operand& x) { return Triangular(b, Transpose(b, x), lower); });
  // x[i][j][k] = base[k][j][i] = 1 + 4k + 2j + i: batch 0 = [[1,5,9],[3,7,11]], batch 1 =
  // [[2,6,10],[4,8,12]].
  CHECK(y.data.shape() == Shape{2, 2, 3});
  CHECK(Values(y.data) == std::vector<double>{1, 0, 0, 3, 7, 0, 2, 0, 0, 4, 8, 0});
}

TEST_CASE("rank 8 and beyond: expand, tile, slice, transpose, pad") {
  // Rank 10: expand [2] -> [1, 1, ..., 2] -> [2, 2, ..., 2] (1024 elements).
  Shape ones(10, 1);
  ones[9] = 2;
  const std::vector<uint32_t> twos(10, 2);
  const OperandValue e = RunOne(Of(kF32, ones, {3, 4}), [&](GraphBuilder& b, const Operand& x) {
    return Expand(b, x, twos);
  });
  CHECK(e.data.element_count() == 1024);
  CHECK(e.data.strides() == Strides{0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
  CHECK(e.data.At<float>(1023) == 4);
  CHECK(e.data.At<float>(1022) == 3);
  // Rank 9 tile of [1, ..., 1, 2] by 2 on every axis: element (a0..a8) = x[a8 % 2].
  Shape nine(9, 1);
  nine[8] = 2;
  const OperandValue t = RunOne(Of(kF32, nine, {5, 6}), [&](GraphBuilder& b, const Operand& x) {
    return Tile(b, x, std::vector<uint32_t>(9, 2));
  });
  CHECK(t.data.shape() == Shape{2, 2, 2, 2, 2, 2, 2, 2, 4});
  const std::vector<double> tv = Values(t.data);
  CHECK(tv.size() == 1024);
  for (size_t i = 0; i < tv.size(); ++i) CHECK(tv[i] == (i % 2 == 0 ? 5 : 6));
  // Rank 8 slice with strides: x = 0..255 as [2]^8; take index 1 on axes 0..7 -> 255.
  const Shape eight(8, 2);
  MLSliceOptions s;
  s.strides = std::vector<uint32_t>(8, 2);
  const OperandValue sl =
      RunOne(Of(kF32, eight, Iota(256)), [&](GraphBuilder& b, const Operand& x) {
        return Slice(b, x, std::vector<uint32_t>(8, 1), std::vector<uint32_t>(8, 1), s);
      });
  CHECK(Values(sl.data) == std::vector<double>{255});
  // Rank 8 default transpose: element at index (0,...,0,1) of the output is x at (1,0,...,0).
  const OperandValue tr = RunOne(Of(kF32, eight, Iota(256)),
                                 [](GraphBuilder& b, const Operand& x) { return Transpose(b, x); });
  CHECK(tr.data.At<float>(1) == 128);
  // Rank 8 constant pad on the last axis.
  std::vector<uint32_t> pad_end(8, 0);
  pad_end[7] = 1;
  const OperandValue p = RunOne(Of(kF32, eight, Iota(256)), [&](GraphBuilder& b, const Operand& x) {
    return Pad(b, x, std::vector<uint32_t>(8, 0), pad_end);
  });
  CHECK(p.data.element_count() == 384);
  CHECK(p.data.At<float>(2) == 0);
  CHECK(p.data.At<float>(383 - 1) == 255);
}

TEST_CASE("latitude follows the copied elements; padding and triangular zeros are exact") {
  // q = [6/1, 6/0] marks element 1.
  GraphBuilder b;
  const Operand num = b.Input("num", {DataType::kInt32, {1, 2}});
  const Operand den = b.Input("den", {DataType::kInt32, {1, 2}});
  const Operand q = ElementwiseBinary(b, BinaryOp::kDiv, num, den);
  const Operand other = b.Input("other", {DataType::kInt32, {1, 2}});
  MLPadOptions edge;
  edge.mode = MLPaddingMode::kEdge;
  MLTriangularOptions upper;
  const auto graph =
      b.Build({{"concat", Concat(b, {other, q}, 0)},
               {"pad", Pad(b, q, {0, 1}, {1, 1})},
               {"edge", Pad(b, q, {0, 0}, {0, 2}, edge)},
               {"tile", Tile(b, q, {1, 2})},
               {"tri", Triangular(b, Reshape(b, Concat(b, {q, q}, 0), {2, 2}), upper)}});
  const auto out = graph->Compute({{"num", Of(DataType::kInt32, {1, 2}, {6, 6})},
                                   {"den", Of(DataType::kInt32, {1, 2}, {1, 0})},
                                   {"other", Of(DataType::kInt32, {1, 2}, {1, 2})}});
  const uint8_t A = kAnyMark;
  CHECK(Marks(out.at("concat")) == std::vector<uint8_t>{0, 0, 0, A});
  CHECK(Marks(out.at("pad")) == std::vector<uint8_t>{0, 0, A, 0, 0, 0, 0, 0});
  CHECK(Marks(out.at("edge")) == std::vector<uint8_t>{0, A, A, A});
  CHECK(Marks(out.at("tile")) == std::vector<uint8_t>{0, A, 0, A});
  // [[6, x], [6, x]] upper: element (1, 0) becomes an exact 0; (1, 1) keeps its mark.
  CHECK(Marks(out.at("tri")) == std::vector<uint8_t>{0, A, 0, A});
  CHECK(Values(out.at("tri").data)[2] == 0);
}

// ---------------------------------------------------------------------------------------------
// Validation: each method step's error.

TEST_CASE("reshape validation") {
  GraphBuilder b;
  const Operand x = b.Input("x", {kF32, {2, 3}});
  CHECK(ErrorOf([&] { Reshape(b, x, std::vector<uint32_t>(17, 1)); }) == ErrorType::kTypeError);
  CHECK(ErrorOf([&] { Reshape(b, x, {6, 0}); }) == ErrorType::kTypeError);            // step 6
  CHECK(ErrorOf([&] { Reshape(b, x, {2147483648u, 1}); }) == ErrorType::kTypeError);  // step 6
  CHECK(ErrorOf([&] { Reshape(b, x, {4}); }) == ErrorType::kTypeError);               // step 8
  CHECK(ErrorOf([&] { Reshape(b, x, {}); }) == ErrorType::kTypeError);                // 1 != 6
  // A product that overflows uint64 is not the element count either.
  CHECK(ErrorOf([&] { Reshape(b, x, std::vector<uint32_t>(3, 2147483647u)); }) ==
        ErrorType::kTypeError);
  GraphBuilder other;
  const Operand foreign = other.Input("y", {kF32, {6}});
  CHECK(ErrorOf([&] { Reshape(b, foreign, {6}); }) == ErrorType::kTypeError);  // step 2
  CHECK(ErrorOf([&] { Reshape(b, x, {3, 2}); }) == ErrorType::kUnknownError);
  b.Build({{"o", Reshape(b, x, {6})}});
  CHECK(ErrorOf([&] { Reshape(b, x, {6}); }) == ErrorType::kInvalidStateError);  // step 1
}

TEST_CASE("steps 1-2 of every method: a built builder and a foreign operand") {
  using Method = std::function<void(GraphBuilder&, const Operand&)>;
  const std::vector<std::pair<const char*, Method>> methods = {
      {"reshape", [](GraphBuilder& b, const Operand& x) { Reshape(b, x, {4}); }},
      {"transpose", [](GraphBuilder& b, const Operand& x) { Transpose(b, x); }},
      {"expand",
       [](GraphBuilder& b, const Operand& x) {
         Expand(b, x, {2, 2});
       }},
      {"slice",
       [](GraphBuilder& b, const Operand& x) {
         Slice(b, x, {0, 0}, {1, 1});
       }},
      {"reverse", [](GraphBuilder& b, const Operand& x) { Reverse(b, x); }},
      {"split", [](GraphBuilder& b, const Operand& x) { Split(b, x, 2u); }},
      {"split sizes",
       [](GraphBuilder& b, const Operand& x) {
         Split(b, x, {1, 1});
       }},
      {"concat", [](GraphBuilder& b, const Operand& x) { Concat(b, {x}, 0); }},
      {"pad",
       [](GraphBuilder& b, const Operand& x) {
         Pad(b, x, {1, 1}, {1, 1});
       }},
      {"tile",
       [](GraphBuilder& b, const Operand& x) {
         Tile(b, x, {2, 2});
       }},
      {"triangular", [](GraphBuilder& b, const Operand& x) { Triangular(b, x); }}};
  for (const auto& [name, method] : methods) {
    CAPTURE(name);
    GraphBuilder b;
    const Operand x = b.Input("x", {kF32, {2, 2}});
    CHECK(ErrorOf([&] { method(b, x); }) == ErrorType::kUnknownError);  // valid: no error
    GraphBuilder other;
    const Operand foreign = other.Input("y", {kF32, {2, 2}});
    CHECK(ErrorOf([&] { method(b, foreign); }) == ErrorType::kTypeError);  // step 2
    b.Build({{"o", Reverse(b, x)}});
    CHECK(ErrorOf([&] { method(b, x); }) == ErrorType::kInvalidStateError);  // step 1
  }
}

TEST_CASE("transpose, expand, reverse and triangular validation") {
  GraphBuilder b;
  const Operand x = b.Input("x", {kF32, {2, 3}});
  const Operand v = b.Input("v", {kF32, {3}});
  MLTransposeOptions p;
  p.permutation = std::vector<uint32_t>{0};
  CHECK(ErrorOf([&] { Transpose(b, x, p); }) == ErrorType::kTypeError);  // step 4.1
  p.permutation = std::vector<uint32_t>{0, 2};
  CHECK(ErrorOf([&] { Transpose(b, x, p); }) == ErrorType::kTypeError);  // step 4.2
  p.permutation = std::vector<uint32_t>{1, 1};
  CHECK(ErrorOf([&] { Transpose(b, x, p); }) == ErrorType::kTypeError);  // step 4.3
  p.permutation = std::vector<uint32_t>{1, 0};
  CHECK(b.Desc(Transpose(b, x, p)).shape == Shape{3, 2});

  CHECK(ErrorOf([&] { Expand(b, x, {3, 3}); }) == ErrorType::kTypeError);  // step 3.1
  CHECK(ErrorOf([&] { Expand(b, x, {3}); }) == ErrorType::kTypeError);     // lower rank
  CHECK(ErrorOf([&] { Expand(b, v, {2, 1}); }) == ErrorType::kTypeError);  // 3 -> 1
  CHECK(ErrorOf([&] { Expand(b, v, {0, 3}); }) == ErrorType::kTypeError);  // invalid output dim
  CHECK(ErrorOf([&] { Expand(b, v, std::vector<uint32_t>(17, 3)); }) == ErrorType::kTypeError);
  CHECK(b.Desc(Expand(b, v, {4, 1, 3})).shape == Shape{4, 1, 3});
  // Hostile sizes: the element count is rejected before any allocation.
  CHECK(ErrorOf([&] { Expand(b, v, {2147483647u, 2147483647u, 3}); }) == ErrorType::kTypeError);

  MLReverseOptions r;
  r.axes = std::vector<uint32_t>{2};
  CHECK(ErrorOf([&] { Reverse(b, x, r); }) == ErrorType::kTypeError);  // step 6 (spec-notes #7)
  r.axes = std::vector<uint32_t>{1, 1};
  CHECK(ErrorOf([&] { Reverse(b, x, r); }) == ErrorType::kTypeError);  // step 6

  CHECK(ErrorOf([&] { Triangular(b, v); }) == ErrorType::kTypeError);  // step 3: rank 1
  const Operand s = b.Input("s", {kF32, {}});
  CHECK(ErrorOf([&] { Triangular(b, s); }) == ErrorType::kTypeError);  // rank 0
  MLOperatorOptions labelled;
  labelled.label = "tri#1";
  try {
    Concat(b, {}, 0, labelled);
    FAIL("no error");
  } catch (const WebnnError& e) {
    CHECK(std::string(e.what()).find("concat [label 'tri#1']") != std::string::npos);
  }
}

TEST_CASE("slice validation") {
  GraphBuilder b;
  const Operand x = b.Input("x", {kF32, {4, 5}});
  CHECK(ErrorOf([&] { Slice(b, x, {0, 0}, {0, 1}); }) == ErrorType::kTypeError);  // step 3
  CHECK(ErrorOf([&] { Slice(b, x, {0}, {1}); }) == ErrorType::kTypeError);        // step 4
  CHECK(ErrorOf([&] { Slice(b, x, {0, 0}, {1}); }) == ErrorType::kTypeError);     // step 4
  MLSliceOptions o;
  o.strides = std::vector<uint32_t>{1};
  CHECK(ErrorOf([&] { Slice(b, x, {0, 0}, {1, 1}, o); }) == ErrorType::kTypeError);  // step 6.2
  o.strides = std::vector<uint32_t>{1, 0};
  CHECK(ErrorOf([&] { Slice(b, x, {0, 0}, {1, 1}, o); }) == ErrorType::kTypeError);  // step 9.5
  CHECK(ErrorOf([&] { Slice(b, x, {5, 0}, {1, 1}); }) == ErrorType::kTypeError);     // step 9.6
  CHECK(ErrorOf([&] { Slice(b, x, {4, 0}, {1, 1}); }) == ErrorType::kTypeError);     // step 9.7
  CHECK(ErrorOf([&] { Slice(b, x, {2, 0}, {3, 1}); }) == ErrorType::kTypeError);     // step 9.7
  CHECK(ErrorOf([&] {
          Slice(b, x, {4294967295u, 0}, {4294967295u, 1});  // no wrap-around in the sum
        }) == ErrorType::kTypeError);
  CHECK(b.Desc(Slice(b, x, {3, 0}, {1, 5})).shape == Shape{1, 5});
}

TEST_CASE("split validation") {
  GraphBuilder b;
  const Operand x = b.Input("x", {kF32, {4, 6}});
  const Operand s = b.Input("s", {kF32, {}});
  MLSplitOptions a2;
  a2.axis = 2;
  CHECK(ErrorOf([&] { Split(b, x, 2u, a2); }) == ErrorType::kTypeError);  // step 4
  CHECK(ErrorOf([&] { Split(b, s, 1u); }) == ErrorType::kTypeError);      // rank 0: step 4
  CHECK(ErrorOf([&] { Split(b, x, 0u); }) == ErrorType::kTypeError);      // step 5.1
  CHECK(ErrorOf([&] { Split(b, x, 8193u); }) == ErrorType::kTypeError);   // step 5.1
  CHECK(ErrorOf([&] { Split(b, x, 3u); }) == ErrorType::kTypeError);      // step 5.2: 4 % 3
  CHECK(ErrorOf([&] { Split(b, x, std::vector<uint32_t>{}); }) == ErrorType::kTypeError);  // 6.1
  CHECK(ErrorOf([&] { Split(b, x, {4, 0}); }) == ErrorType::kTypeError);  // step 6.2
  CHECK(ErrorOf([&] { Split(b, x, {1, 2}); }) == ErrorType::kTypeError);  // step 6.3
  CHECK(ErrorOf([&] { Split(b, x, std::vector<uint32_t>(8193, 1)); }) ==
        ErrorType::kTypeError);  // step 6.1
  CHECK(Split(b, x, 4u).size() == 4);
}

TEST_CASE("concat validation") {
  GraphBuilder b;
  const Operand x = b.Input("x", {kF32, {2, 3}});
  const Operand y = b.Input("y", {kF32, {2, 4}});
  const Operand i = b.Input("i", {DataType::kInt32, {2, 3}});
  const Operand r3 = b.Input("r3", {kF32, {2, 3, 1}});
  const Operand s = b.Input("s", {kF32, {}});
  CHECK(ErrorOf([&] { Concat(b, {}, 0); }) == ErrorType::kTypeError);       // step 3
  CHECK(ErrorOf([&] { Concat(b, {x, x}, 2); }) == ErrorType::kTypeError);   // step 5
  CHECK(ErrorOf([&] { Concat(b, {s}, 0); }) == ErrorType::kTypeError);      // step 5: rank 0
  CHECK(ErrorOf([&] { Concat(b, {x, i}, 0); }) == ErrorType::kTypeError);   // step 8.2
  CHECK(ErrorOf([&] { Concat(b, {x, r3}, 0); }) == ErrorType::kTypeError);  // step 8.3
  CHECK(ErrorOf([&] { Concat(b, {x, y}, 0); }) == ErrorType::kTypeError);   // step 8.4.1
  CHECK(b.Desc(Concat(b, {x, y, x}, 1)).shape == Shape{2, 10});
  CHECK(ErrorOf([&] { Concat(b, std::vector<Operand>(8193, x), 0); }) ==
        ErrorType::kTypeError);  // step 3
  // Step 8.4.2: the running size must stay a valid dimension.
  const Operand big = b.Input("big", {DataType::kUint8, {1073741824, 1}});
  CHECK(ErrorOf([&] { Concat(b, {big, big}, 0); }) == ErrorType::kTypeError);
  GraphBuilder other;
  const Operand foreign = other.Input("f", {kF32, {2, 3}});
  CHECK(ErrorOf([&] { Concat(b, {x, foreign}, 0); }) == ErrorType::kTypeError);  // step 2
}

TEST_CASE("pad and tile validation") {
  GraphBuilder b;
  const Operand x = b.Input("x", {kF32, {2, 3}});
  CHECK(ErrorOf([&] { Pad(b, x, {1}, {1, 1}); }) == ErrorType::kTypeError);  // step 3
  CHECK(ErrorOf([&] { Pad(b, x, {1, 1}, {1}); }) == ErrorType::kTypeError);  // step 3
  MLPadOptions r;
  r.mode = MLPaddingMode::kReflection;
  CHECK(ErrorOf([&] { Pad(b, x, {2, 0}, {0, 0}, r); }) == ErrorType::kTypeError);  // step 6.1.1
  CHECK(ErrorOf([&] { Pad(b, x, {0, 0}, {0, 3}, r); }) == ErrorType::kTypeError);  // step 6.1.2
  CHECK(b.Desc(Pad(b, x, {1, 2}, {1, 2}, r)).shape == Shape{4, 7});
  MLPadOptions e;
  e.mode = MLPaddingMode::kEdge;
  CHECK(b.Desc(Pad(b, x, {5, 5}, {5, 5}, e)).shape == Shape{12, 13});
  CHECK(ErrorOf([&] {
          Pad(b, x, {4294967295u, 0}, {0, 0});  // step 7: not a valid dimension
        }) == ErrorType::kTypeError);
  const Operand one = b.Input("one", {kF32, {1}});
  CHECK(ErrorOf([&] { Pad(b, one, {1}, {0}, r); }) == ErrorType::kTypeError);  // size 1: none

  CHECK(ErrorOf([&] { Tile(b, x, {2}); }) == ErrorType::kTypeError);     // step 3
  CHECK(ErrorOf([&] { Tile(b, x, {2, 0}); }) == ErrorType::kTypeError);  // step 4
  CHECK(ErrorOf([&] {
          Tile(b, x, {4294967295u, 4294967295u});  // output dimensions not valid
        }) == ErrorType::kTypeError);
  CHECK(ErrorOf([&] {
          Tile(b, x, {65536, 65536});  // valid dimensions, element count too large
        }) == ErrorType::kTypeError);
  CHECK(b.Desc(Tile(b, x, {3, 1})).shape == Shape{6, 3});
}

// ---------------------------------------------------------------------------------------------
// Call adapters (case-file arguments).

namespace {

Value Int(double d) {
  Number n;
  n.d = d;
  n.text = std::to_string(static_cast<long long>(d));
  if (std::trunc(d) == d) {
    n.i = static_cast<int64_t>(d);
    if (d >= 0) n.u = static_cast<uint64_t>(d);
  }
  return Value::Num(n);
}

Value IntList(std::initializer_list<double> v) {
  std::vector<Value> items;
  for (double d : v) items.push_back(Int(d));
  return Value::Array(std::move(items));
}

// Runs `call` on an input "x" of `shape` with the given positional arguments after it.
std::vector<Operand> CallOn(std::vector<Operand> (*call)(OpCall&), GraphBuilder& b,
                            const Shape& shape, const std::vector<const Value*>& args) {
  std::string input_name = "x";  // appended: GCC 12's -Wrestrict misfires on "x" + to_string
  input_name += std::to_string(b.operand_count());
  const Operand x = b.Input(input_name, {kF32, shape});
  const Value name = Value::Str("x");
  std::vector<PositionalArg> positional{{"input", &name}};
  for (const Value* v : args) positional.push_back({"arg", v});
  OpCall c(b, "op", positional, [&](const std::string& n) -> std::optional<Operand> {
    if (n == "x") return x;
    return std::nullopt;
  });
  return call(c);
}

ErrorType CallError(const std::function<void()>& f) {
  try {
    f();
  } catch (const WebnnError& e) {
    return e.type();
  } catch (const InputError&) {
    return ErrorType::kAbortError;  // stands for "InputError" here
  }
  return ErrorType::kUnknownError;
}

}  // namespace

TEST_CASE(
    "call adapters: split's two forms, pad's mode, tile's repetitions, triangular's diagonal") {
  GraphBuilder b;
  const Value three = Int(3);
  const Value sizes = IntList({1, 2});
  const Value axis1 = Value::Object({{"axis", Int(1)}});
  CHECK(CallOn(CallSplit, b, {6, 3}, {&three}).size() == 3);
  const std::vector<Operand> parts = CallOn(CallSplit, b, {6, 3}, {&sizes, &axis1});
  REQUIRE(parts.size() == 2);
  CHECK(b.Desc(parts[1]).shape == Shape{6, 2});
  const Value text = Value::Str("two");
  const Value negative = IntList({-1, 7});
  CHECK(CallError([&] { CallOn(CallSplit, b, {6}, {&text}); }) == ErrorType::kAbortError);
  CHECK(CallError([&] { CallOn(CallSplit, b, {6}, {}); }) == ErrorType::kAbortError);
  CHECK(CallError([&] { CallOn(CallSplit, b, {6}, {&negative}); }) == ErrorType::kTypeError);

  const Value begin = IntList({1});
  const Value end = IntList({0});
  const Value reflect = Value::Object({{"mode", Value::Str("reflection")}});
  const Value symmetric = Value::Object({{"mode", Value::Str("symmetric")}});
  CHECK(b.Desc(CallOn(CallPad, b, {3}, {&begin, &end, &reflect})[0]).shape == Shape{4});
  CHECK(CallError([&] {
          CallOn(CallPad, b, {3}, {&begin, &end, &symmetric});
        }) == ErrorType::kTypeError);  // not an MLPaddingMode

  // tile's repetitions have no [EnforceRange]: modulo 2^32.
  const Value wraps = IntList({4294967298.0});
  const Value wraps_to_zero = IntList({4294967296.0});
  CHECK(b.Desc(CallOn(CallTile, b, {3}, {&wraps})[0]).shape == Shape{6});
  CHECK(CallError([&] { CallOn(CallTile, b, {3}, {&wraps_to_zero}); }) == ErrorType::kTypeError);

  const Value diag = Value::Object({{"diagonal", Int(-2)}, {"upper", Value::Bool(false)}});
  Number half;
  half.d = 0.5;
  half.text = "0.5";
  const Value frac = Value::Object({{"diagonal", Value::Num(half)}});
  const Value huge = Value::Object({{"diagonal", Int(2147483648.0)}});
  const Value nan = Value::Object({{"diagonal", Value::Str("NaN")}});
  CHECK(CallOn(CallTriangular, b, {2, 2}, {&diag}).size() == 1);
  CHECK(CallOn(CallTriangular, b, {2, 2}, {&frac}).size() == 1);  // WebIDL: integer part, 0
  CHECK(CallError([&] { CallOn(CallTriangular, b, {2, 2}, {&nan}); }) == ErrorType::kTypeError);
  CHECK(CallError([&] { CallOn(CallTriangular, b, {2, 2}, {&huge}); }) == ErrorType::kTypeError);
}

}  // namespace nnref
