// The simd backend's data movement, indexing, scatter, quantization and arg_cumulative files
// (ops/simd/data_movement.cc, data_movement_copy.cc, indexing.cc, scatter.cc, quantization.cc,
// arg_cumulative.cc) against values computed independently in
// the test: index formulas written out per operator, strided inputs (a transpose or reverse in
// front of the operator hands it a strided view), ragged sizes that leave partial rows and
// chunks, every data type the copies serve (one code path by element size), quantization near
// rounding ties, and bit-identical results with 1 and 2 threads.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "ops/arg_cumulative.h"
#include "ops/data_movement.h"
#include "ops/indexing.h"
#include "ops/quantization.h"
#include "ops/simd/simd_backend.h"
#include "ref/graph/graph.h"

namespace nnref {

namespace {

constexpr DataType kF32 = DataType::kFloat32;
constexpr DataType kF16 = DataType::kFloat16;
constexpr DataType kI32 = DataType::kInt32;
constexpr DataType kI64 = DataType::kInt64;

// A tensor of any data type from doubles (each cast to the storage type).
Tensor Of(DataType t, const Shape& s, const std::vector<double>& v) {
  Tensor x = Tensor::Allocate(t, s);
  REQUIRE(x.element_count() == v.size());
  DispatchDataType(t, [&]<typename T>() {
    for (size_t i = 0; i < v.size(); ++i) {
      if constexpr (std::is_same_v<T, Float16>) {
        x.base<T>()[i] = Float16::FromDouble(v[i]);
      } else {
        x.base<T>()[i] = static_cast<T>(v[i]);
      }
    }
    return 0;
  });
  return x;
}

// A view's elements in row-major order, widened to double.
std::vector<double> Values(const Tensor& t) {
  std::vector<double> out;
  DispatchDataType(t.dtype(), [&]<typename T>() {
    for (uint64_t i = 0; i < t.element_count(); ++i) {
      if constexpr (std::is_same_v<T, Float16>) {
        out.push_back(t.At<T>(i).ToDouble());
      } else {
        out.push_back(static_cast<double>(t.At<T>(i)));
      }
    }
    return 0;
  });
  return out;
}

std::vector<double> Iota(size_t n, double start = 0) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + static_cast<double>(i);
  return v;
}

// Runs output "out" of `graph` with the simd backend on `threads` threads.
Tensor RunSimd(const Graph& graph, const std::map<std::string, Tensor>& inputs,
               unsigned threads = 2) {
  std::string why;
  const auto compiled = CompileForBackend(graph, MakeSimdBackend({threads}), why);
  REQUIRE_MESSAGE(compiled.has_value(), why);
  std::map<std::string, Tensor> used;  // the graph keeps only the inputs its output needs
  for (const auto& [name, desc] : graph.input_descriptors()) used[name] = inputs.at(name);
  return graph.Compute(used, {}, compiled->kernels).at("out").data;
}

// A graph over input "x" (and more inputs made by `make`), run on the simd backend.
template <typename MakeFn>
Tensor Simd(const std::map<std::string, Tensor>& inputs, const MakeFn& make, unsigned threads = 2) {
  GraphBuilder b;
  std::map<std::string, Operand> ops;
  for (const auto& [name, t] : inputs) ops[name] = b.Input(name, {t.dtype(), t.shape()});
  const Operand out = make(b, ops);
  return RunSimd(*b.Build({{"out", out}}), inputs, threads);
}

using Ops = std::map<std::string, Operand>;

// Row-major multi-index of `linear` in `shape`.
std::vector<uint64_t> Unravel(uint64_t linear, const Shape& shape) {
  std::vector<uint64_t> idx(shape.size());
  for (size_t a = shape.size(); a-- > 0;) {
    idx[a] = linear % shape[a];
    linear /= shape[a];
  }
  return idx;
}

uint64_t Ravel(const std::vector<uint64_t>& idx, const Shape& shape) {
  uint64_t r = 0;
  for (size_t a = 0; a < shape.size(); ++a) r = r * shape[a] + idx[a];
  return r;
}

}  // namespace

TEST_CASE("simd views: reshape, transpose, expand, slice, reverse, split") {
  const Tensor x = Of(kI32, {3, 4}, Iota(12));
  // transpose then slice with strides: t[i][j] = x[j][i]; s[i][j] = t[1 + 2i][j * 2].
  const Tensor s = Simd({{"x", x}}, [](GraphBuilder& b, Ops& o) {
    const Operand t = Transpose(b, o["x"]);
    MLSliceOptions so;
    so.strides = std::vector<uint32_t>{2, 2};
    return Slice(b, t, {1, 0}, {3, 3}, so);
  });
  CHECK(s.shape() == Shape{2, 2});
  CHECK(Values(s) == std::vector<double>{1, 9, 3, 11});  // x[0][1], x[2][1], x[0][3], x[2][3]
  // reverse axis 1, reshape to [2, 6], expand to [2, 2, 6].
  const Tensor e = Simd({{"x", x}}, [](GraphBuilder& b, Ops& o) {
    MLReverseOptions ro;
    ro.axes = std::vector<uint32_t>{1};
    return Expand(b, Reshape(b, Reverse(b, o["x"], ro), {2, 6}), {2, 2, 6});
  });
  std::vector<double> expected;
  for (int rep = 0; rep < 2; ++rep) {
    for (int i = 0; i < 3; ++i) {
      for (int j = 3; j >= 0; --j) expected.push_back(4 * i + j);
    }
  }
  // [2, 2, 6]: out[a][b][c] = reshaped[b][c] for every a.
  std::vector<double> e2;
  for (int a = 0; a < 2; ++a) e2.insert(e2.end(), expected.begin(), expected.begin() + 12);
  CHECK(Values(e) == e2);
  // split [3, 4] along axis 1 into 1 and 3 columns.
  GraphBuilder b;
  const Operand in = b.Input("x", {kI32, {3, 4}});
  MLSplitOptions so;
  so.axis = 1;
  const std::vector<Operand> parts = Split(b, in, std::vector<uint32_t>{1, 3}, so);
  const auto g = b.Build({{"out", parts[1]}});
  CHECK(Values(RunSimd(*g, {{"x", x}})) == std::vector<double>{1, 2, 3, 5, 6, 7, 9, 10, 11});
}

TEST_CASE("simd concat: strided and dense inputs of ragged sizes, every element size") {
  for (DataType type : {kF32, kF16, kI64, DataType::kInt8}) {
    CAPTURE(DataTypeName(type));
    // a: [5, 3] transposed to [3, 5] (strided); c: [3, 2] dense. Concatenate on axis 1.
    const Tensor a = Of(type, {5, 3}, Iota(15));
    const Tensor c = Of(type, {3, 2}, Iota(6, 50));
    const Tensor out = Simd({{"a", a}, {"c", c}}, [](GraphBuilder& b, Ops& o) {
      return Concat(b, {Transpose(b, o["a"]), o["c"]}, 1);
    });
    std::vector<double> expected;
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 5; ++j) expected.push_back(3 * j + i);  // a transposed
      for (int j = 0; j < 2; ++j) expected.push_back(50 + 2 * i + j);
    }
    CHECK(out.shape() == Shape{3, 7});
    CHECK(Values(out) == expected);
  }
}

TEST_CASE("simd transposing copies in tiles: ragged tile edges, batches, element sizes") {
  for (DataType type : {kF32, kF16, DataType::kUint8, kI64}) {
    CAPTURE(DataTypeName(type));
    // x: [3, 37, 45]; t = transpose (0, 2, 1): [3, 45, 37], t[b][i][j] = x[b][j][i]; then pad
    // one constant row on axis 1 and one column at the end of axis 2 (values mod 251 fit uint8).
    std::vector<double> v(3 * 37 * 45);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i % 251);
    const Tensor x = Of(type, {3, 37, 45}, v);
    const Tensor out = Simd({{"x", x}}, [](GraphBuilder& b, Ops& o) {
      MLTransposeOptions to;
      to.permutation = std::vector<uint32_t>{0, 2, 1};
      MLPadOptions po;
      po.value = MLNumber::FromDouble(3);
      return Pad(b, Transpose(b, o["x"], to), {0, 1, 0}, {0, 0, 1}, po);
    });
    std::vector<double> e;
    for (int bt = 0; bt < 3; ++bt) {
      for (int i = -1; i < 45; ++i) {
        for (int j = 0; j < 38; ++j) {
          e.push_back(i < 0 || j == 37 ? 3.0 : v[static_cast<size_t>(bt * 37 * 45 + j * 45 + i)]);
        }
      }
    }
    CHECK(out.shape() == Shape{3, 46, 38});
    CHECK(Values(out) == e);
    // concat of the transposed view and a dense part along axis 2.
    const Tensor c = Of(type, {3, 45, 2}, std::vector<double>(270, 9));
    const Tensor cat = Simd({{"x", x}, {"c", c}}, [](GraphBuilder& b, Ops& o) {
      MLTransposeOptions to;
      to.permutation = std::vector<uint32_t>{0, 2, 1};
      return Concat(b, {Transpose(b, o["x"], to), o["c"]}, 2);
    });
    std::vector<double> ec;
    for (int bt = 0; bt < 3; ++bt) {
      for (int i = 0; i < 45; ++i) {
        for (int j = 0; j < 39; ++j) {
          ec.push_back(j >= 37 ? 9.0 : v[static_cast<size_t>(bt * 37 * 45 + j * 45 + i)]);
        }
      }
    }
    CHECK(Values(cat) == ec);
  }
}

TEST_CASE("simd pad: constant, edge and reflection over a reversed input") {
  const Shape shape{3, 5};
  const std::vector<uint32_t> begin{2, 1}, end{1, 4};
  for (DataType type : {kF32, kF16, DataType::kUint8, kI64}) {
    for (MLPaddingMode mode :
         {MLPaddingMode::kConstant, MLPaddingMode::kEdge, MLPaddingMode::kReflection}) {
      CAPTURE(DataTypeName(type));
      CAPTURE(static_cast<int>(mode));
      const Tensor x = Of(type, shape, Iota(15, 1));
      const Tensor out = Simd({{"x", x}}, [&](GraphBuilder& b, Ops& o) {
        MLPadOptions po;
        po.mode = mode;
        po.value = MLNumber::FromDouble(7);
        return Pad(b, Reverse(b, o["x"]), begin, end, po);
      });
      // r[i][j] = x[2 - i][4 - j] = 1 + 5 (2 - i) + (4 - j).
      const auto source = [&](int64_t j, int64_t n) -> int64_t {
        if (j >= 0 && j < n) return j;
        if (mode == MLPaddingMode::kConstant) return -1;
        if (mode == MLPaddingMode::kEdge) return j < 0 ? 0 : n - 1;
        return j < 0 ? -j : 2 * (n - 1) - j;  // mirror, edge not repeated
      };
      std::vector<double> expected;
      for (int64_t i = 0; i < 3 + 2 + 1; ++i) {
        for (int64_t j = 0; j < 5 + 1 + 4; ++j) {
          const int64_t si = source(i - 2, 3), sj = source(j - 1, 5);
          expected.push_back(si < 0 || sj < 0 ? 7.0
                                              : static_cast<double>(1 + 5 * (2 - si) + (4 - sj)));
        }
      }
      CHECK(out.shape() == Shape{6, 10});
      CHECK(Values(out) == expected);
    }
  }
}

TEST_CASE("simd tile and triangular") {
  const Tensor x = Of(DataType::kUint32, {2, 3}, Iota(6));
  const Tensor t = Simd({{"x", x}}, [](GraphBuilder& b, Ops& o) {
    return Tile(b, Transpose(b, o["x"]), {2, 3});  // [3, 2] tiled to [6, 6]
  });
  std::vector<double> expected;
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 6; ++j) expected.push_back(3 * (j % 2) + (i % 3));
  }
  CHECK(Values(t) == expected);

  for (const bool upper : {true, false}) {
    for (const int32_t diagonal : {-1, 0, 2, 9, -9}) {
      CAPTURE(upper);
      CAPTURE(diagonal);
      const Tensor m = Of(kI64, {2, 4, 3}, Iota(24, 1));
      const Tensor r = Simd({{"x", m}}, [&](GraphBuilder& b, Ops& o) {
        MLTriangularOptions to;
        to.upper = upper;
        to.diagonal = diagonal;
        MLTransposeOptions perm;
        perm.permutation = std::vector<uint32_t>{0, 2, 1};
        return Triangular(b, Transpose(b, o["x"], perm), to);  // [2, 3, 4], strided
      });
      std::vector<double> e;
      for (int n = 0; n < 2; ++n) {
        for (int i = 0; i < 3; ++i) {
          for (int j = 0; j < 4; ++j) {
            const bool keep = upper ? j - i >= diagonal : j - i <= diagonal;
            e.push_back(keep ? 1 + 12 * n + 3 * j + i : 0);
          }
        }
      }
      CHECK(Values(r) == e);
    }
  }
}

TEST_CASE("simd gather, gatherElements, gatherND with negative and clamped indices") {
  const Tensor x = Of(kF32, {3, 4, 2}, Iota(24));
  SUBCASE("gather axis 1") {
    const Tensor idx = Of(kI64, {2, 2}, {3, -1, 0, 9});  // 9 is out of range: clamped to 3
    const Tensor out = Simd({{"x", x}, {"i", idx}}, [](GraphBuilder& b, Ops& o) {
      MLGatherOptions go;
      go.axis = 1;
      return Gather(b, o["x"], o["i"], go);
    });
    const int pos[4] = {3, 3, 0, 3};
    std::vector<double> e;
    for (int a = 0; a < 3; ++a) {
      for (int k = 0; k < 4; ++k) {
        for (int c = 0; c < 2; ++c) e.push_back(8 * a + 2 * pos[k] + c);
      }
    }
    CHECK(out.shape() == Shape{3, 2, 2, 2});
    CHECK(Values(out) == e);
  }
  SUBCASE("gatherElements axis 0 on a reversed input") {
    const Tensor idx = Of(DataType::kUint32, {2, 4, 2},
                          {0, 1, 2, 0, 1, 1, 2, 2,  //
                           2, 2, 0, 0, 1, 0, 5, 1});
    const Tensor out = Simd({{"x", x}, {"i", idx}}, [](GraphBuilder& b, Ops& o) {
      MLReverseOptions ro;
      ro.axes = std::vector<uint32_t>{0};
      return GatherElements(b, Reverse(b, o["x"], ro), o["i"]);
    });
    const std::vector<double> iv = Values(idx);
    std::vector<double> e;
    for (uint64_t k = 0; k < 16; ++k) {
      const std::vector<uint64_t> c = Unravel(k, {2, 4, 2});
      const uint64_t p = std::min<uint64_t>(static_cast<uint64_t>(iv[k]), 2);
      e.push_back(static_cast<double>(8 * (2 - p) + 2 * c[1] + c[2]));  // reversed axis 0
    }
    CHECK(Values(out) == e);
  }
  SUBCASE("gatherND with c = 2") {
    const Tensor idx = Of(kI32, {3, 2}, {0, 1, -1, -4, 2, 7});
    const Tensor out = Simd({{"x", x}, {"i", idx}},
                            [](GraphBuilder& b, Ops& o) { return GatherND(b, o["x"], o["i"]); });
    const int rows[3][2] = {{0, 1}, {2, 0}, {2, 3}};
    std::vector<double> e;
    for (const auto& r : rows) {
      for (int c = 0; c < 2; ++c) e.push_back(8 * r[0] + 2 * r[1] + c);
    }
    CHECK(Values(out) == e);
  }
}

TEST_CASE("simd scatterElements and scatterND: last duplicate wins") {
  const Tensor x = Of(kI32, {2, 5}, Iota(10));
  SUBCASE("scatterElements axis 1") {
    const Tensor idx = Of(kI64, {2, 3}, {4, 0, 4, -1, 1, 2});
    const Tensor upd = Of(kI32, {2, 3}, {100, 101, 102, 103, 104, 105});
    const Tensor out = Simd({{"x", x}, {"i", idx}, {"u", upd}}, [](GraphBuilder& b, Ops& o) {
      MLScatterOptions so;
      so.axis = 1;
      return ScatterElements(b, o["x"], o["i"], o["u"], so);
    });
    CHECK(Values(out) == std::vector<double>{101, 1, 2, 3, 102, 5, 104, 105, 8, 103});
  }
  SUBCASE("scatterND rows of a transposed input") {
    // t = x transposed: [5, 2], t[i][j] = 5j + i.
    const Tensor idx = Of(kI32, {3, 1}, {4, -5, 4});
    const Tensor upd = Of(kI32, {3, 2}, {-1, -2, -3, -4, -5, -6});
    const Tensor out = Simd({{"x", x}, {"i", idx}, {"u", upd}}, [](GraphBuilder& b, Ops& o) {
      return ScatterND(b, Transpose(b, o["x"]), o["i"], o["u"]);
    });
    CHECK(Values(out) == std::vector<double>{-3, -4, 1, 6, 2, 7, 3, 8, -5, -6});
  }
}

TEST_CASE("simd quantizeLinear: roundEven of the exact quotient, blockwise parameters") {
  // Pairs (x, s) whose float32 quotient lands exactly on k + 0.5 while the exact quotient does
  // not: a plain float32 roundEven(x / s) gets them wrong.
  std::vector<double> xs, ss;
  for (int k = 1; k < 4000 && xs.size() < 8; ++k) {
    const float s = 0.1f * static_cast<float>(k % 7 + 1);
    const float x =
        static_cast<float>((static_cast<double>(k % 50) + 0.5) * static_cast<double>(s));
    const float q = x / s;
    const double exact = static_cast<double>(x) / static_cast<double>(s);
    if (std::fabs(q - std::trunc(q)) == 0.5f && exact != static_cast<double>(q) &&
        std::nearbyint(exact) != std::nearbyint(static_cast<double>(q))) {
      xs.push_back(x);
      ss.push_back(s);
    }
  }
  REQUIRE(xs.size() == 8);
  const Tensor x = Of(kF32, {8}, xs), s = Of(kF32, {8}, ss);
  const Tensor z = Of(DataType::kInt32, {8}, std::vector<double>(8, 3));
  const Tensor out = Simd({{"x", x}, {"s", s}, {"z", z}}, [](GraphBuilder& b, Ops& o) {
    return QuantizeLinear(b, o["x"], o["s"], o["z"]);
  });
  for (size_t i = 0; i < 8; ++i) {
    CHECK(Values(out)[i] == std::nearbyint(xs[i] / ss[i]) + 3);
  }

  // Blockwise: scale [2, 1] over [4, 3] (rows 0-1 one scale, rows 2-3 the other), true ties to
  // even, and saturation to int8.
  const Tensor x2 = Of(kF16, {4, 3}, {0.5, 1.5, 2.5, -0.5, -1.5, 1000, 1, 3, 5, 7, -9, -1000});
  const Tensor s2 = Of(kF16, {2, 1}, {1, 2});
  const Tensor z2 = Of(DataType::kInt8, {2, 1}, {0, -1});
  const Tensor q2 = Simd({{"x", x2}, {"s", s2}, {"z", z2}}, [](GraphBuilder& b, Ops& o) {
    return QuantizeLinear(b, o["x"], o["s"], o["z"]);
  });
  // Row 0-1 / 1: 0.5->0, 1.5->2, 2.5->2, -0.5->-0, -1.5->-2, 1000->127.
  // Row 2-3 / 2 - 1: 0.5->0-1, 1.5->2-1, 2.5->2-1, 3.5->4-1, -4.5->-4-1, -500->-128.
  CHECK(Values(q2) == std::vector<double>{0, 2, 2, 0, -2, 127, -1, 1, 1, 3, -5, -128});
}

TEST_CASE("simd dequantizeLinear: per-axis and wide int32 differences") {
  const Tensor x = Of(DataType::kUint8, {2, 3}, {0, 128, 255, 7, 8, 9});
  const Tensor s = Of(kF32, {1, 3}, {0.5, 0.25, 3});
  const Tensor z = Of(DataType::kUint8, {1, 3}, {128, 0, 255});
  const Tensor out = Simd({{"x", x}, {"s", s}, {"z", z}}, [](GraphBuilder& b, Ops& o) {
    return DequantizeLinear(b, o["x"], o["s"], o["z"]);
  });
  CHECK(Values(out) == std::vector<double>{-64, 32, 0, -60.5, 2, -738});

  // int32: (2^31 - 1) - (-2^31) = 2^32 - 1, not exact in float32: rounded once from the exact
  // product.
  const Tensor xi = Of(kI32, {2}, {2147483647, 16777217});
  const Tensor si = Of(kF32, {1}, {0.1});
  const Tensor zi = Of(kI32, {1}, {-2147483648.0});
  const Tensor oi = Simd({{"x", xi}, {"s", si}, {"z", zi}}, [](GraphBuilder& b, Ops& o) {
    return DequantizeLinear(b, o["x"], o["s"], o["z"]);
  });
  const double s01 = static_cast<double>(0.1f);
  CHECK(Values(oi)[0] == static_cast<double>(static_cast<float>(4294967295.0 * s01)));
  CHECK(Values(oi)[1] == static_cast<double>(static_cast<float>(2164260865.0 * s01)));
}

TEST_CASE("simd argMin/argMax: inner and outer axes, first of ties, strided input") {
  // v[a][b][c] over [3, 4, 5], with ties.
  std::vector<double> v(60);
  for (size_t i = 0; i < 60; ++i) v[i] = static_cast<double>((i * 37) % 11) - 5;
  for (DataType type : {kF32, kF16, kI32, DataType::kUint8}) {
    std::vector<double> w = v;
    if (type == DataType::kUint8) {
      for (double& e : w) e += 5;
    }
    const Tensor x = Of(type, {3, 4, 5}, w);
    for (const bool is_max : {false, true}) {
      for (uint32_t axis : {0u, 1u, 2u}) {
        CAPTURE(DataTypeName(type));
        CAPTURE(is_max);
        CAPTURE(axis);
        // Through a reverse of axis 2 (strided input): r[a][b][c] = w[a][b][4 - c].
        const Tensor out = Simd({{"x", x}}, [&](GraphBuilder& b, Ops& o) {
          MLReverseOptions ro;
          ro.axes = std::vector<uint32_t>{2};
          MLArgMinMaxOptions ao;
          ao.outputDataType = axis == 1 ? kI64 : kI32;
          ao.keepDimensions = axis == 0;
          return ArgMinMax(b, is_max, Reverse(b, o["x"], ro), axis, ao);
        });
        const Shape shape{3, 4, 5};
        std::vector<double> e;
        Shape kept = shape;
        kept[axis] = 1;
        for (uint64_t k = 0; k < ElementCount(kept); ++k) {
          std::vector<uint64_t> c = Unravel(k, kept);
          uint64_t best = 0;
          double best_value = 0;
          for (uint64_t p = 0; p < shape[axis]; ++p) {
            c[axis] = p;
            std::vector<uint64_t> src = c;
            src[2] = 4 - src[2];
            const double value = w[Ravel(src, shape)];
            if (p == 0 || (is_max ? value > best_value : value < best_value)) {
              best = p;
              best_value = value;
            }
          }
          e.push_back(static_cast<double>(best));
        }
        CHECK(Values(out) == e);
      }
    }
  }
}

TEST_CASE("simd cumulativeSum: exclusive, reversed, float64 accumulation, integer wrap") {
  // [2, 3, 4] along axis 1 (inner 4) and along axis 2 (inner 1).
  std::vector<double> v(24);
  for (size_t i = 0; i < 24; ++i) v[i] = static_cast<double>((i * 7) % 5) - 2;
  for (const bool exclusive : {false, true}) {
    for (const bool reversed : {false, true}) {
      for (uint32_t axis : {1u, 2u}) {
        CAPTURE(exclusive);
        CAPTURE(reversed);
        CAPTURE(axis);
        const Tensor x = Of(kF32, {2, 3, 4}, v);
        const Tensor out = Simd({{"x", x}}, [&](GraphBuilder& b, Ops& o) {
          MLCumulativeSumOptions co;
          co.exclusive = exclusive;
          co.reversed = reversed;
          return CumulativeSum(b, o["x"], axis, co);
        });
        const Shape shape{2, 3, 4};
        std::vector<double> e(24);
        for (uint64_t k = 0; k < 24; ++k) {
          std::vector<uint64_t> c = Unravel(k, shape);
          const uint64_t here = c[axis];
          double sum = 0;
          for (uint64_t p = 0; p < shape[axis]; ++p) {
            const bool before = reversed ? p > here : p < here;
            if (before || (!exclusive && p == here)) {
              c[axis] = p;
              sum += v[Ravel(c, shape)];
            }
          }
          e[k] = sum;
        }
        CHECK(Values(out) == e);
      }
    }
  }
  // Cancellation: 1e8 + 1 - 1e8 = 1 (a float32 running sum loses the 1).
  const Tensor c = Of(kF32, {4}, {1e8, 1, -1e8, 0.5});
  const Tensor co =
      Simd({{"x", c}}, [](GraphBuilder& b, Ops& o) { return CumulativeSum(b, o["x"], 0); });
  CHECK(Values(co) == std::vector<double>{1e8, 100000001.0f, 1, 1.5});
  // -0 terms sum to -0.
  const Tensor z = Of(kF32, {2}, {-0.0, -0.0});
  const Tensor zo =
      Simd({{"x", z}}, [](GraphBuilder& b, Ops& o) { return CumulativeSum(b, o["x"], 0); });
  CHECK(std::signbit(zo.At<float>(1)));
  // int32 wraps modulo 2^32.
  const Tensor i = Of(kI32, {3}, {2147483647, 1, 5});
  const Tensor io =
      Simd({{"x", i}}, [](GraphBuilder& b, Ops& o) { return CumulativeSum(b, o["x"], 0); });
  CHECK(Values(io) == std::vector<double>{2147483647, -2147483648.0, -2147483643.0});
}

TEST_CASE("simd layout kernels: 1 and 2 threads give identical bytes") {
  // Large enough that the pool splits the work (more than one task of 2^16 elements).
  const Shape shape{61, 97, 53};
  std::vector<double> v(61 * 97 * 53);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<double>((i * 2654435761u) % 1000) / 7 - 60;
  const Tensor x = Of(kF32, shape, v);
  std::vector<double> iv(500);
  for (size_t i = 0; i < iv.size(); ++i) iv[i] = static_cast<double>((i * 31) % 120) - 60;
  const Tensor idx = Of(kI32, {500}, iv);
  const Tensor s = Of(kF32, {61, 1, 1}, Iota(61, 1));
  const Tensor zp = Of(DataType::kInt8, {61, 1, 1}, std::vector<double>(61, 3));
  std::vector<std::pair<const char*, std::function<Operand(GraphBuilder&, Ops&)>>> graphs = {
      {"pad",
       [](GraphBuilder& b, Ops& o) {
         MLPadOptions po;
         po.mode = MLPaddingMode::kReflection;
         return Pad(b, Transpose(b, o["x"]), {3, 2, 1}, {4, 5, 6}, po);
       }},
      {"concat",
       [](GraphBuilder& b, Ops& o) {
         return Concat(b, {o["x"], Reverse(b, o["x"])}, 2);
       }},
      {"tile",
       [](GraphBuilder& b, Ops& o) {
         return Tile(b, o["x"], {2, 1, 2});
       }},
      {"triangular", [](GraphBuilder& b, Ops& o) { return Triangular(b, Transpose(b, o["x"])); }},
      {"gather",
       [](GraphBuilder& b, Ops& o) {
         MLGatherOptions go;
         go.axis = 1;
         return Gather(b, o["x"], o["i"], go);
       }},
      {"argMax", [](GraphBuilder& b, Ops& o) { return ArgMax(b, o["x"], 1); }},
      {"cumulativeSum", [](GraphBuilder& b, Ops& o) { return CumulativeSum(b, o["x"], 0); }},
      {"quantizeLinear",
       [](GraphBuilder& b, Ops& o) { return QuantizeLinear(b, o["x"], o["s"], o["z"]); }},
  };
  for (const auto& entry : graphs) {
    const char* name = entry.first;
    CAPTURE(name);
    GraphBuilder b;
    Ops o;
    o["x"] = b.Input("x", {kF32, shape});
    o["i"] = b.Input("i", {kI32, {500}});
    o["s"] = b.Input("s", {kF32, {61, 1, 1}});
    o["z"] = b.Input("z", {DataType::kInt8, {61, 1, 1}});
    const auto g = b.Build({{"out", entry.second(b, o)}});
    const std::map<std::string, Tensor> inputs = {{"x", x}, {"i", idx}, {"s", s}, {"z", zp}};
    const Tensor one = RunSimd(*g, inputs, 1), two = RunSimd(*g, inputs, 2);
    REQUIRE(one.shape() == two.shape());
    CHECK(one.Bytes() == two.Bytes());
  }
}

}  // namespace nnref
