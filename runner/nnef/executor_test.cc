// The NNEF executor on small graphs with hand-derived results: NNEF broadcasting (trailing
// singleton dimensions), every border mode, padding rules (automatic, negative), both routes of
// conv/deconv/avg_pool/upsample (WebNN kernel and NNEF kernel) against the same hand values,
// index-based sampling, the RoI operations, reductions, shape operations, variables and update,
// graph.quant application, and the execution errors.
#include "runner/nnef/executor.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ref/testing.h"
#include "runner/nnef/parser.h"
#include "runner/nnef/tensor_file.h"

namespace nnref::nnef {

namespace {

const char* kExt = "extension KHR_enable_fragment_definitions KHR_enable_operator_expressions;\n";

// "version 1.0; <extensions> graph G( inputs ) -> ( outputs ) { body }"
std::string Doc(const std::string& inputs, const std::string& outputs, const std::string& body) {
  return std::string("version 1.0;\n") + kExt + "graph G( " + inputs + " ) -> ( " + outputs +
         " )\n{\n" + body + "\n}\n";
}

std::map<std::string, OperandValue> Exec(const std::string& text,
                                         const std::map<std::string, Tensor>& inputs,
                                         const std::string& dir = ".",
                                         const QuantFile* quant = nullptr) {
  const FlatGraph g = ParseDocument(text, "t.nnef");
  Executor ex(g, dir, quant);
  return ex.Run(inputs);
}

std::vector<double> Vals(const OperandValue& v) {
  std::vector<double> out;
  const Tensor& t = v.data;
  for (uint64_t i = 0; i < t.element_count(); ++i) {
    switch (t.dtype()) {
      case DataType::kFloat32:
        out.push_back(static_cast<double>(t.At<float>(i)));
        break;
      case DataType::kInt64:
        out.push_back(static_cast<double>(t.At<int64_t>(i)));
        break;
      default:
        out.push_back(static_cast<double>(t.At<uint8_t>(i)));
        break;
    }
  }
  return out;
}

std::vector<double> Out(const std::string& text, const std::map<std::string, Tensor>& inputs,
                        const std::string& name = "y") {
  return Vals(Exec(text, inputs).at(name));
}

Shape ShapeOf(const std::string& text, const std::map<std::string, Tensor>& inputs,
              const std::string& name = "y") {
  return Exec(text, inputs).at(name).data.shape();
}

using V = std::vector<double>;

// x rounded once to float32, as a double.
double Rf(double x) { return static_cast<double>(static_cast<float>(x)); }

template <typename F>
NnefError ErrorFrom(F&& f) {
  try {
    f();
  } catch (const NnefError& e) {
    return e;
  }
  FAIL("no NnefError");
  return NnefError(Stage::kParse, {}, "none");
}

// A temporary model folder.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& name)
      : path(std::filesystem::temp_directory_path() / ("nnref_executor_test_" + name)) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  void Write(const std::string& label, const Tensor& t, TensorType type) {
    WriteTensorFile((path / (label + ".dat")).string(),
                    EncodeTensor(t, DefaultFormat(t, type), label));
  }
};

}  // namespace

TEST_CASE("nnef executor: broadcasting extends shapes with trailing singleton dimensions") {
  // y [2] broadcasts as [2, 1] against x [2, 3] (NNEF), not as a row (WebNN/numpy).
  const std::string t = Doc("x, b", "y",
                            "x = external(shape = [2, 3]);\n"
                            "b = external(shape = [2]);\n"
                            "y = add(x, b);");
  CHECK(Out(t, {{"x", F32({2, 3}, {1, 2, 3, 4, 5, 6})}, {"b", F32({2}, {10, 20})}}) ==
        V{11, 12, 13, 24, 25, 26});
  // A literal is a rank-0 constant; a scalar tensor of shape [1] broadcasts everywhere.
  CHECK(Out(Doc("x", "y", "x = external(shape = [2, 2]);\ny = mul(x, 2.0);"),
            {{"x", F32({2, 2}, {1, 2, 3, 4})}}) == V{2, 4, 6, 8});
  const std::string bad = Doc("x, b", "y",
                              "x = external(shape = [2, 3]);\n"
                              "b = external(shape = [3]);\n"
                              "y = add(x, b);");
  CHECK_THROWS_AS(Out(bad, {{"x", F32({2, 3}, {1, 2, 3, 4, 5, 6})}, {"b", F32({3}, {1, 2, 3})}}),
                  NnefError);
}

TEST_CASE("nnef executor: element-wise primitives and compounds") {
  const auto unary = [](const std::string& op, std::initializer_list<float> x) {
    return Out(Doc("x", "y",
                   "x = external(shape = [" + std::to_string(x.size()) + "]);\ny = " + op + "(x);"),
               {{"x", F32({x.size()}, x)}});
  };
  // round(x) = floor(x + 0.5): halves go up, unlike roundEven.
  CHECK(unary("round", {-2.5f, -0.5f, 0.5f, 1.5f, 2.4999998f}) == V{-2, 0, 1, 2, 2});
  CHECK(unary("floor", {-1.5f, 1.5f}) == V{-2, 1});
  CHECK(unary("ceil", {-1.5f, 1.5f}) == V{-1, 2});
  CHECK(unary("sign", {-3, 0, 2}) == V{-1, 0, 1});
  CHECK(unary("abs", {-3, 2}) == V{3, 2});
  CHECK(unary("neg", {-3, 2}) == V{3, -2});
  CHECK(unary("rcp", {4, -0.5f}) == V{0.25, -2});
  CHECK(unary("exp", {0}) == V{1});
  CHECK(unary("log", {1}) == V{0});
  CHECK(unary("sin", {0}) == V{0});
  CHECK(unary("cos", {0}) == V{1});
  CHECK(unary("relu", {-1, 2}) == V{0, 2});
  CHECK(unary("sqr", {-3}) == V{9});
  CHECK(unary("sqrt", {16}) == V{4});
  CHECK(unary("copy", {7}) == V{7});
  // Comparisons and logic give logical tensors (0/1).
  const std::string cmp = Doc("x", "y, z, w",
                              "x = external(shape = [3]);\n"
                              "y = lt(x, 2.0);\n"
                              "z = and(y, ge(x, 1.0));\n"
                              "w = select(not(z), x, -1.0);");
  const auto r = Exec(cmp, {{"x", F32({3}, {0, 1, 3})}});
  CHECK(r.at("y").data.dtype() == DataType::kUint8);
  CHECK(Vals(r.at("y")) == V{1, 1, 0});
  CHECK(Vals(r.at("z")) == V{0, 1, 0});
  CHECK(Vals(r.at("w")) == V{0, -1, 3});
  // select broadcasts its condition with trailing singletons: [2] -> [2, 1].
  const std::string sel = Doc("c, x", "y",
                              "c = external<logical>(shape = [2]);\n"
                              "x = external(shape = [2, 2]);\n"
                              "y = select(c, x, 0.0);");
  Tensor c = Tensor::Allocate(DataType::kUint8, {2});
  c.base<uint8_t>()[0] = 1;
  CHECK(Out(sel, {{"c", c}, {"x", F32({2, 2}, {1, 2, 3, 4})}}) == V{1, 2, 0, 0});
}

TEST_CASE("nnef executor: standard compounds run atomically on exact kernels (4.9)") {
  const auto run = [](const std::string& op, std::initializer_list<float> x) {
    return Out(
        Doc("x", "y", "x = external(shape = [" + std::to_string(x.size()) + "]);\ny = " + op + ";"),
        {{"x", F32({x.size()}, x)}});
  };
  // e^-100 = 3.7200759760208e-44 = 26.547 * 2^-149 (exp(149 ln 2 - 100) = exp(3.27892)): the
  // float32 subnormal 27 * 2^-149. Expanded into float32 primitives, exp(100) overflows:
  // tanh(100) = Inf / Inf = NaN, softplus(100) = log(Inf) = Inf, sigmoid(-100) = 1 / Inf = 0.
  const double e_m100 = std::ldexp(27.0, -149);
  // tanh(±100) = ±(1 - 2e^-200 ...): ±1.
  CHECK(run("tanh(x)", {100, -100, 0}) == V{1, -1, 0});
  // softplus(x) = log(1 + e^x): 100 + log1p(e^-100) -> 100; log1p(e^-100) = e^-100 - e^-200/2.
  CHECK(run("softplus(x)", {100, -100}) == V{100, e_m100});
  // sigmoid(-100) = 1 / (1 + e^100) = e^-100 (1 - e^-100 ...); sigmoid(100) -> 1.
  CHECK(run("sigmoid(x)", {-100, 100, 0}) == V{e_m100, 1, 0.5});
  // elu(x) = e^x - 1 for x < 0: float32(-1e-3) = -0.0010000000474974513, whose e^x - 1 is
  // -0.000999500214074985926 (decimal series, 80 digits), float32 -0x1.060352p-10. The primitives
  // would give float32(float32(e^x) - 1) = -0.0009995102882385254.
  const std::vector<double> elu = run("elu(x)", {-1e-3f, -0.0f, 3, -100});
  CHECK(elu == V{-0x1.060352p-10, 0, 3, -1});
  CHECK(std::signbit(elu[1]));  // select(x < 0.0, ..., x) passes -0 through
  // softmax along one axis: [-100, 0, 100] -> [e^-200 -> 0, e^-100, 1 / (1 + e^-100) -> 1];
  // [1, 2, 3] -> e^(k-3) / (1 + e^-1 + e^-2), rounded from 80-digit decimal arithmetic.
  CHECK(Out(Doc("x", "y", "x = external(shape = [2, 3]);\ny = softmax(x, axes = [1]);"),
            {{"x", F32({2, 3}, {-100, 0, 100, 1, 2, 3})}}) ==
        V{0, e_m100, 1, 0x1.70c3e6p-4, 0x1.f53434p-3, 0x1.549a76p-1});
  // Several axes: the primitives (exact here: four equal terms).
  CHECK(Out(Doc("x", "y", "x = external(shape = [2, 2]);\ny = softmax(x, axes = [0, 1]);"),
            {{"x", F32({2, 2}, {5, 5, 5, 5})}}) == V{0.25, 0.25, 0.25, 0.25});
  // A compound inside a user fragment is still recognized (the outermost standard compound).
  const std::string frag = std::string("version 1.0;\n") + kExt +
                           "fragment f( a: tensor<scalar> ) -> ( b: tensor<scalar> )\n"
                           "{\n  b = tanh(a) * 2.0;\n}\n"
                           "graph G( x ) -> ( y ) {\n  x = external(shape = [1]);\n"
                           "  y = f(x);\n}\n";
  CHECK(Out(frag, {{"x", F32({1}, {-100})}}) == V{-2});

  // --check still prints the expansion; the trace shows the compound's result, computed by the
  // compound's kernel, and none of the group's intermediate tensors.
  const std::string t = Doc("x", "y", "x = external(shape = [1]);\ny = tanh(x);");
  const FlatGraph g = ParseDocument(t, "t.nnef");
  CHECK(g.ToString().find("exp(") != std::string::npos);
  CHECK(g.ToString().find("tanh") == std::string::npos);
  REQUIRE(g.compounds.size() == 1);
  Executor ex(g, ".", nullptr);
  std::vector<std::string> seen, kernels, producers;
  ex.Run({{"x", F32({1}, {100})}}, [&](const std::string& id, const Invocation* producer,
                                       std::string_view kernel, const OperandValue&) {
    seen.push_back(id);
    kernels.emplace_back(kernel);
    producers.push_back(producer ? producer->op : "");
  });
  CHECK(seen == std::vector<std::string>{"x", "y"});
  CHECK(kernels == std::vector<std::string>{"", "tanh"});
  CHECK(producers == std::vector<std::string>{"external", "tanh"});
  // A graph.quant entry on an intermediate tensor of the group (y_1 = exp(x) of softplus) keeps
  // the primitives: exp(0) = 1 is quantized to 4/3 (2 bits over [0, 4]), y = log(1 + 4/3), not
  // log(2).
  const QuantFile q =
      ParseQuantFile("'y_1': linear_quantize(min = 0.0, max = 4.0, bits = 2);", "graph.quant");
  const FlatGraph sp =
      ParseDocument(Doc("x", "y", "x = external(shape = [1]);\ny = softplus(x);"), "t.nnef");
  Executor qex(sp, ".", &q);
  CHECK(Vals(qex.Run({{"x", F32({1}, {0})}}).at("y"))[0] ==
        doctest::Approx(std::log(7.0 / 3)).epsilon(1e-6));
  // relu, leaky_relu and prelu stay primitives (already exact); their values are the select's.
  CHECK(run("relu(x)", {-1, 2}) == V{0, 2});
  const std::vector<double> lr = run("leaky_relu(x, alpha = 0.5)", {-3, -0.0f, 2});
  CHECK(lr == V{-1.5, 0, 2});
  CHECK(std::signbit(lr[1]));
}

TEST_CASE("nnef executor: conv borders (1-D, NNEF kernel)") {
  const auto conv = [](const std::string& border, const std::string& pad) {
    return Out(Doc("x", "y",
                   "x = external(shape = [1, 1, 4]);\n"
                   "w = constant(shape = [1, 1, 3], value = [1.0]);\n"
                   "y = conv(x, w, border = '" +
                       border + "', padding = [" + pad + "]);"),
               {{"x", F32({1, 1, 4}, {1, 2, 3, 4})}});
  };
  // Extended inputs written out by hand from the border formulas of 4.3.
  CHECK(conv("constant", "(1, 1)") == V{3, 6, 9, 7});              // 0 1 2 3 4 0
  CHECK(conv("reflect", "(1, 1)") == V{5, 6, 9, 10});              // 2 1 2 3 4 3
  CHECK(conv("replicate", "(1, 1)") == V{4, 6, 9, 11});            // 1 1 2 3 4 4
  CHECK(conv("reflect-even", "(2, 2)") == V{4, 4, 6, 9, 11, 11});  // 2 1 1 2 3 4 4 3
  CHECK(conv("reflect", "(2, 2)") == V{6, 5, 6, 9, 10, 9});        // 3 2 1 2 3 4 3 2
  CHECK(conv("constant", "(-1, 0)") == V{9});                      // 2 3 4
  // Automatic padding, stride 1: t = 2, p = q = 1.
  CHECK(conv("constant", "") == V{3, 6, 9, 7});
}

TEST_CASE("nnef executor: 2-D conv, both routes, bias and groups") {
  // in = [[1,2,3],[4,5,6],[7,8,9]], filters: ones, and [[1,0],[0,-1]]; stride 2 with automatic
  // padding: x = ceil(3 / 2) = 2, t = (2 - 1) * 2 + 2 - 3 = 1 -> p = 0, q = 1.
  const auto conv = [](const std::string& border, const std::string& bias) {
    return Out(Doc("x", "y",
                   "x = external(shape = [1, 1, 3, 3]);\n"
                   "w = constant(shape = [2, 1, 2, 2], value = [1.0, 1.0, 1.0, 1.0, 1.0, 0.0, "
                   "0.0, -1.0]);\n"
                   "b = constant(shape = [1, 2], value = [0.5, -1.0]);\n"
                   "y = conv(x, w, " +
                       bias + ", border = '" + border + "', stride = [2, 2]);"),
               {{"x", F32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})}});
  };
  // WebNN conv2d route (constant border, per-channel bias).
  CHECK(conv("constant", "b") == V{12.5, 9.5, 15.5, 9.5, -5, 2, 6, 8});
  // NNEF kernel: a singular literal bias; and a replicate border.
  CHECK(conv("constant", "0.5") == V{12.5, 9.5, 15.5, 9.5, -3.5, 3.5, 7.5, 9.5});
  CHECK(conv("replicate", "b") == V{12.5, 18.5, 30.5, 36.5, -5, -4, -2, -1});
  // groups = 0: depth-wise; channel c is multiplied by filter c.
  CHECK(Out(Doc("x", "y",
                "x = external(shape = [1, 2, 1, 2]);\n"
                "w = constant(shape = [2, 1, 1, 1], value = [2.0, 3.0]);\n"
                "y = conv(x, w, groups = 0);"),
            {{"x", F32({1, 2, 1, 2}, {1, 2, 3, 4})}}) == V{2, 4, 9, 12});
  // 3-D convolution (rank 5) runs on the NNEF kernel: a 2x2x2 box of ones over 1..8.
  CHECK(Out(Doc("x", "y",
                "x = external(shape = [1, 1, 2, 2, 2]);\n"
                "w = constant(shape = [1, 1, 2, 2, 2], value = [1.0]);\n"
                "y = conv(x, w, padding = [(0, 0), (0, 0), (0, 0)]);"),
            {{"x", F32({1, 1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})}}) == V{36});
}

TEST_CASE("nnef executor: deconv") {
  // output[i] = sum_j input[(i + p - j d) / s] * filter[j] over divisible terms.
  CHECK(Out(Doc("x", "y",
                "x = external(shape = [1, 1, 2]);\n"
                "w = constant(shape = [1, 1, 3], value = [1.0, 10.0, 100.0]);\n"
                "y = deconv(x, w, stride = [2], padding = [(0, 0)]);"),
            {{"x", F32({1, 1, 2}, {1, 2})}}) == V{1, 10, 102, 20, 200});
  // output_shape [1, 1, 4] with automatic padding: t = (2-1)*2 + 3 - 4 = 1 -> p = 0, q = 1.
  CHECK(Out(Doc("x", "y",
                "x = external(shape = [1, 1, 2]);\n"
                "w = constant(shape = [1, 1, 3], value = [1.0]);\n"
                "y = deconv(x, w, stride = [2], output_shape = [1, 1, 4]);"),
            {{"x", F32({1, 1, 2}, {1, 2})}}) == V{1, 1, 3, 2});
  // 2-D (WebNN convTranspose2d route): each pixel becomes a 2x2 block.
  CHECK(Out(Doc("x", "y",
                "x = external(shape = [1, 1, 2, 2]);\n"
                "w = constant(shape = [1, 1, 2, 2], value = [1.0]);\n"
                "y = deconv(x, w, stride = [2, 2], padding = [(0, 0), (0, 0)]);"),
            {{"x", F32({1, 1, 2, 2}, {1, 2, 3, 4})}}) ==
        V{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
  // The same on the NNEF kernel (replicate border; no border position is read here).
  CHECK(Out(Doc("x", "y",
                "x = external(shape = [1, 1, 2, 2]);\n"
                "w = constant(shape = [1, 1, 2, 2], value = [1.0]);\n"
                "y = deconv(x, w, stride = [2, 2], padding = [(0, 0), (0, 0)], "
                "border = 'replicate');"),
            {{"x", F32({1, 1, 2, 2}, {1, 2, 3, 4})}}) ==
        V{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
}

TEST_CASE("nnef executor: WebNN routes and NNEF kernels agree bit for bit on random data") {
  // The same conv / deconv / avg_pool once as rank 4 (WebNN conv2d, convTranspose2d,
  // averagePool2d) and once with a trailing singleton spatial axis (rank 5: NNEF kernels). Both
  // round the exact sum once, so the results must be identical.
  uint64_t state = 12345;
  const auto fill = [&](const Shape& s) {
    Tensor t = Tensor::Allocate(DataType::kFloat32, s);
    for (uint64_t i = 0; i < t.element_count(); ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      t.base<float>()[i] = static_cast<float>(static_cast<int64_t>(state >> 40) - (1 << 23)) /
                           static_cast<float>(1 << 20);
    }
    return t;
  };
  const std::string body =
      "x = external(shape = [1, 4, 9, 8]);\n"
      "w = external(shape = [6, 2, 3, 2]);\n"
      "b = external(shape = [1, 6]);\n"
      "d = external(shape = [4, 3, 2, 3]);\n"
      "x5 = unsqueeze(x, axes = [4]);\n"
      "y4 = conv(x, w, b, stride = [2, 1], dilation = [1, 2], groups = 2);\n"
      "y5 = squeeze(conv(x5, unsqueeze(w, axes = [4]), b, stride = [2, 1, 1], "
      "dilation = [1, 2, 1], groups = 2), axes = [4]);\n"
      "t4 = deconv(x, d, stride = [2, 2], padding = [(1, 0), (0, 1)], groups = 2);\n"
      "t5 = squeeze(deconv(x5, unsqueeze(d, axes = [4]), stride = [2, 2, 1], "
      "padding = [(1, 0), (0, 1), (0, 0)], groups = 2), axes = [4]);\n"
      "a4 = avg_pool(x, size = [1, 1, 3, 2], stride = [1, 1, 2, 2], border = 'ignore', "
      "padding = [(0, 0), (0, 0), (1, 1), (0, 1)]);\n"
      "a5 = squeeze(avg_pool(x5, size = [1, 1, 3, 2, 1], stride = [1, 1, 2, 2, 1], "
      "border = 'ignore', padding = [(0, 0), (0, 0), (1, 1), (0, 1), (0, 0)]), axes = [4]);";
  const FlatGraph g = ParseDocument(Doc("x, w, b, d", "y4, y5, t4, t5, a4, a5", body), "t.nnef");
  Executor ex(g, ".", nullptr);
  std::map<std::string, std::string> kernel_of;
  const auto r = ex.Run({{"x", fill({1, 4, 9, 8})},
                         {"w", fill({6, 2, 3, 2})},
                         {"b", fill({1, 6})},
                         {"d", fill({4, 3, 2, 3})}},
                        [&](const std::string& id, const Invocation*, std::string_view kernel,
                            const OperandValue&) { kernel_of[id] = kernel; });
  // The routes taken: WebNN methods for rank 4, NNEF kernels for rank 5.
  CHECK(kernel_of.at("y4") == "conv2d");
  CHECK(kernel_of.at("t4") == "convTranspose2d");
  CHECK(kernel_of.at("a4") == "averagePool2d");
  const auto count = [&](const std::string& kernel) {
    return std::count_if(kernel_of.begin(), kernel_of.end(),
                         [&](const auto& e) { return e.second == kernel; });
  };
  CHECK(count("conv") == 1);
  CHECK(count("deconv") == 1);
  CHECK(count("box") == 1);
  for (const char* pair : {"y", "t", "a"}) {
    const OperandValue& v4 = r.at(std::string(pair) + "4");
    const OperandValue& v5 = r.at(std::string(pair) + "5");
    REQUIRE(v4.data.shape() == v5.data.shape());
    CHECK_MESSAGE(Vals(v4) == Vals(v5), pair);
    CHECK(v4.data.element_count() > 10);
  }
}

TEST_CASE("nnef executor: box, debox, avg_pool, rms_pool") {
  const auto box = [](const std::string& args) {
    return Out(Doc("x", "y", "x = external(shape = [1, 1, 5]);\ny = box(x, " + args + ");"),
               {{"x", F32({1, 1, 5}, {1, 2, 3, 4, 5})}});
  };
  // 'ignore' averages the valid positions only; 'constant' counts the zeros.
  CHECK(box("size = [1, 1, 3], border = 'ignore', normalize = true, padding = [(0,0), (0,0), "
            "(1,1)]") == V{1.5, 2, 3, 4, 4.5});
  CHECK(box("size = [1, 1, 3], border = 'constant', normalize = true, padding = [(0,0), (0,0), "
            "(1,1)]") == V{1, 2, 3, 4, 3});
  // Stride 2, dilation 2: f_d = 3, x = floor((5 - 3) / 2) + 1 = 2; in0 + in2, in2 + in4.
  CHECK(box("size = [1, 1, 2], stride = [1, 1, 2], dilation = [1, 1, 2], padding = [(0,0), "
            "(0,0), (0,0)]") == V{4, 8});
  // A size shorter than the rank applies to the trailing axes (the reading the spec's
  // avg_roi_align/max_roi_align compounds need).
  CHECK(box("size = [2], padding = [(0, 0)]") == V{3, 5, 7, 9});
  // avg_pool, rank 4: WebNN averagePool2d route ('ignore') and NNEF kernel ('constant').
  const auto pool = [](const std::string& border) {
    return Out(Doc("x", "y",
                   "x = external(shape = [1, 1, 2, 2]);\n"
                   "y = avg_pool(x, size = [1, 1, 2, 2], border = '" +
                       border + "', padding = [(0,0), (0,0), (0,1), (0,1)]);"),
               {{"x", F32({1, 1, 2, 2}, {1, 2, 3, 4})}});
  };
  CHECK(pool("ignore") == V{2.5, 3, 3.5, 4});
  CHECK(pool("constant") == V{2.5, 1.5, 1.75, 1});
  // rms_pool = sqrt(avg_pool(sqr(x))): sqrt((9 + 16) / 2) for the window [3, 4] with 'ignore'.
  CHECK(Out(Doc("x", "y",
                "x = external(shape = [1, 1, 2]);\n"
                "y = rms_pool(x, size = [1, 1, 2], border = 'ignore', padding = [(0,0), (0,0), "
                "(0,0)]);"),
            {{"x", F32({1, 1, 2}, {3, 4})}}) == V{Rf(std::sqrt(12.5))});
  // debox as nearest_upsample: each value repeated factor times.
  CHECK(
      Out(Doc("x", "y", "x = external(shape = [1, 1, 2]);\ny = nearest_upsample(x, factor = [2]);"),
          {{"x", F32({1, 1, 2}, {1, 2})}}) == V{1, 1, 2, 2});
  // area_downsample averages blocks.
  CHECK(
      Out(Doc("x", "y", "x = external(shape = [1, 1, 4]);\ny = area_downsample(x, factor = [2]);"),
          {{"x", F32({1, 1, 4}, {1, 2, 3, 5})}}) == V{1.5, 4});
}

TEST_CASE("nnef executor: argmax_pool, sample, desample, max_pool") {
  const auto pool = [](const std::string& border, const std::string& pad) {
    return Out(Doc("x", "y",
                   "x = external(shape = [1, 1, 3]);\n"
                   "y = max_pool(x, size = [1, 1, 2], stride = [1, 1, 2], border = '" +
                       border + "', padding = [(0,0), (0,0), " + pad + "]);"),
               {{"x", F32({1, 1, 3}, {-1, -2, -3})}});
  };
  // Windows {pad, -1} and {-2, -3}: 'constant' lets the 0 of the border win.
  CHECK(pool("constant", "(1, 0)") == V{0, -2});
  CHECK(pool("ignore", "(1, 0)") == V{-1, -2});
  // max_pool_with_index: value and the row-major index within the window.
  const auto r = Exec(Doc("x", "y, i",
                          "x = external(shape = [1, 1, 2, 2]);\n"
                          "y, i = max_pool_with_index(x, size = [1, 1, 2, 2], padding = [(0,0), "
                          "(0,0), (0,0), (0,0)]);"),
                      {{"x", F32({1, 1, 2, 2}, {1, 4, 3, 2})}});
  CHECK(Vals(r.at("y")) == V{4});
  CHECK(Vals(r.at("i")) == V{1});
  CHECK(r.at("i").data.dtype() == DataType::kInt64);
  // desample adds the values whose index points at the same position: k = 0 (j = 1) and k = 1
  // (j = 0) both land on i = 1.
  CHECK(Out(Doc("x, j", "y",
                "x = external(shape = [1, 1, 2]);\n"
                "j = external<integer>(shape = [1, 1, 2]);\n"
                "y = desample(x, j, size = [1, 1, 2], padding = [(0,0), (0,0), (0,0)]);"),
            {{"x", F32({1, 1, 2}, {1, 2})},
             {"j", Make<int64_t>(DataType::kInt64, {1, 1, 2}, {1, 0})}}) == V{0, 3, 0});
  // A sampling index outside the window is an execution error.
  const NnefError e = ErrorFrom([] {
    Out(Doc("x, j", "y",
            "x = external(shape = [1, 1, 2]);\n"
            "j = external<integer>(shape = [1, 1, 2]);\n"
            "y = sample(x, j, size = [1, 1, 1], padding = [(0,0), (0,0), (0,0)]);"),
        {{"x", F32({1, 1, 2}, {1, 2})}, {"j", Make<int64_t>(DataType::kInt64, {1, 1, 2}, {0, 3})}});
  });
  CHECK(e.stage() == Stage::kExecute);
  CHECK(std::string(e.what()).find("index 3 at element 1") != std::string::npos);
}

TEST_CASE("nnef executor: multilinear_upsample methods and borders") {
  const auto up = [](const std::string& method, const std::string& border) {
    return Out(Doc("x", "y",
                   "x = external(shape = [1, 1, 2]);\n"
                   "y = multilinear_upsample(x, factor = [2], method = '" +
                       method + "', border = '" + border + "');"),
               {{"x", F32({1, 1, 2}, {1, 3})}});
  };
  // symmetric: (i - 0.5) / 2 -> j = -1, 0, 0, 1 with u = 3/4, 1/4, 3/4, 1/4.
  CHECK(up("symmetric", "replicate") == V{1, 1.5, 2.5, 3});
  CHECK(up("symmetric", "constant") == V{0.75, 1.5, 2.5, 2.25});
  // asymmetric: i / 2.
  CHECK(up("asymmetric", "replicate") == V{1, 2, 3, 3});
  CHECK(up("asymmetric", "constant") == V{1, 2, 3, 1.5});
  // aligned: i / g with g = (2 * 2 - 1) / (2 - 1) = 3.
  CHECK(up("aligned", "replicate") == V{1, Rf(5.0 / 3), Rf(7.0 / 3), 3});
  // Rank 4, symmetric, replicate: the WebNN resample2d route gives the same values.
  CHECK(Out(Doc("x", "y",
                "x = external(shape = [1, 1, 1, 2]);\n"
                "y = multilinear_upsample(x, factor = [1, 2]);"),
            {{"x", F32({1, 1, 1, 2}, {1, 3})}}) == V{1, 1.5, 2.5, 3});
}

TEST_CASE("nnef executor: reductions") {
  const std::map<std::string, Tensor> in{{"x", F32({2, 3}, {1, 5, 3, 4, 2, 6})}};
  const auto red = [&](const std::string& expr) {
    return Out(Doc("x", "y", "x = external(shape = [2, 3]);\ny = " + expr + ";"), in);
  };
  CHECK(red("sum_reduce(x, axes = [1])") == V{9, 12});
  CHECK(red("mean_reduce(x, axes = [0, 1])") == V{3.5});
  CHECK(red("max_reduce(x, axes = [0])") == V{4, 5, 6});
  CHECK(red("min_reduce(x, axes = [1])") == V{1, 2});
  CHECK(red("sum_reduce(x, axes = [])") == V{1, 5, 3, 4, 2, 6});
  CHECK(red("argmax_reduce(x, axes = [1])") == V{1, 2});
  CHECK(red("argmin_reduce(x, axes = [0])") == V{0, 1, 0});
  // Several axes: the index within the reduced sub-volume in row-major order (6 is at 5).
  CHECK(red("argmax_reduce(x, axes = [0, 1])") == V{5});
  CHECK(ShapeOf(Doc("x", "y", "x = external(shape = [2, 3]);\ny = sum_reduce(x, axes = [1]);"),
                in) == Shape{2, 1});
  CHECK(red("any_reduce(gt(x, 4.5), axes = [1])") == V{1, 1});
  CHECK(red("all_reduce(gt(x, 1.5), axes = [1])") == V{0, 1});
  // softmax = exp(x - max) / sum: [0, ln 3] over axis 1 -> [1/4, 3/4].
  CHECK(Out(Doc("x", "y", "x = external(shape = [1, 2]);\ny = softmax(x);"),
            {{"x", F32({1, 2}, {0, static_cast<float>(std::log(3.0))})}})[0] ==
        doctest::Approx(0.25).epsilon(1e-6));
}

TEST_CASE("nnef executor: shape operations") {
  Tensor x = Tensor::Allocate(DataType::kFloat32, {2, 3, 4});
  for (int i = 0; i < 24; ++i) x.base<float>()[i] = static_cast<float>(i);
  const std::map<std::string, Tensor> in{{"x", x}};
  const auto shape_of = [&](const std::string& expr) {
    return ShapeOf(Doc("x", "y", "x = external(shape = [2, 3, 4]);\ny = " + expr + ";"), in);
  };
  const auto vals = [&](const std::string& expr) {
    return Out(Doc("x", "y", "x = external(shape = [2, 3, 4]);\ny = " + expr + ";"), in);
  };
  CHECK(shape_of("reshape(x, shape = [0, -1])") == Shape{2, 12});
  CHECK(shape_of("reshape(x, shape = [6], axis_start = 0, axis_count = 2)") == Shape{6, 4});
  CHECK(shape_of("reshape(x, shape = [2, 2], axis_start = 2)") == Shape{2, 3, 2, 2});
  CHECK(shape_of("unsqueeze(x, axes = [0, 4])") == Shape{1, 2, 3, 4, 1});
  CHECK(shape_of("squeeze(unsqueeze(x, axes = [1]), axes = [1])") == Shape{2, 3, 4});
  // transpose axes [1, 0]: output[j, i, k] = x[i, j, k]; element [2, 1, 3] = x[1, 2, 3] = 23.
  CHECK(shape_of("transpose(x, axes = [1, 0])") == Shape{3, 2, 4});
  CHECK(vals("transpose(x, axes = [1, 0])")[2 * 8 + 1 * 4 + 3] == 23);
  // slice: negative begin counts from the end, end 0 means the extent.
  CHECK(vals("slice(x, axes = [0, 1, 2], begin = [-1, 1, 1], end = [0, -1, 3])") == V{17, 18});
  // tile and pad.
  CHECK(Out(Doc("x", "y", "x = external(shape = [1, 2]);\ny = tile(x, repeats = [2, 2]);"),
            {{"x", F32({1, 2}, {1, 2})}}) == V{1, 2, 1, 2, 1, 2, 1, 2});
  const auto pad = [](const std::string& args) {
    return Out(Doc("x", "y", "x = external(shape = [1, 3]);\ny = pad(x, " + args + ");"),
               {{"x", F32({1, 3}, {1, 2, 3})}});
  };
  CHECK(pad("padding = [(0, 0), (2, 1)], border = 'reflect'") == V{3, 2, 1, 2, 3, 2});
  CHECK(pad("padding = [(0, 0), (2, 1)], border = 'reflect-even'") == V{2, 1, 1, 2, 3, 3});
  CHECK(pad("padding = [(0, 0), (2, 1)], border = 'replicate'") == V{1, 1, 1, 2, 3, 3});
  CHECK(pad("padding = [(0, 0), (2, 1)], value = 9.0") == V{9, 9, 1, 2, 3, 9});
  CHECK(pad("padding = [(0, 0), (-1, 0)]") == V{2, 3});
  // reflect further than one extent repeats the reflection: 1 2 3 -> period 4.
  CHECK(pad("padding = [(0, 0), (4, 0)], border = 'reflect'") == V{1, 2, 3, 2, 1, 2, 3});
  // split, concat, stack, unstack.
  const auto r = Exec(Doc("x", "a, b, c, s, u0",
                          "x = external(shape = [1, 6]);\n"
                          "[a, b] = split(x, axis = 1, ratios = [1, 2]);\n"
                          "c = concat([b, a], axis = 1);\n"
                          "s = stack([a, a], axis = 0);\n"
                          "[u0, u1] = unstack(s, axis = 0);"),
                      {{"x", F32({1, 6}, {0, 1, 2, 3, 4, 5})}});
  CHECK(Vals(r.at("a")) == V{0, 1});
  CHECK(Vals(r.at("b")) == V{2, 3, 4, 5});
  CHECK(Vals(r.at("c")) == V{2, 3, 4, 5, 0, 1});
  CHECK(r.at("s").data.shape() == Shape{2, 1, 2});
  CHECK(r.at("u0").data.shape() == Shape{1, 2});
  CHECK(Vals(r.at("u0")) == V{0, 1});
}

TEST_CASE("nnef executor: unstack and stack beyond WebNN's tensor count") {
  // WebNN split and concat take at most 8192 tensors: 8193 parts are slices, 8193 inputs are
  // concatenated in chunks. The round trip reverses x = 0..8192 through a reversed stack.
  const size_t n = 8193;
  std::string parts, reversed;
  for (size_t k = 0; k < n; ++k) {
    parts += (k ? ", u" : "u") + std::to_string(k);
    reversed += (k ? ", u" : "u") + std::to_string(n - 1 - k);
  }
  Tensor x = Tensor::Allocate(DataType::kFloat32, {n});
  for (size_t k = 0; k < n; ++k) x.base<float>()[k] = static_cast<float>(k);
  const auto r =
      Exec(Doc("x", "y, u5",
               "x = external(shape = [" + std::to_string(n) + "]);\n[" + parts +
                   "] = unstack(x, axis = 0);\ny = stack([" + reversed + "], axis = 0);"),
           {{"x", x}});
  const V y = Vals(r.at("y"));
  REQUIRE(y.size() == n);
  CHECK(y[0] == 8192);
  CHECK(y[4096] == 4096);
  CHECK(y[n - 1] == 0);
  CHECK(r.at("u5").data.shape() == Shape{});
  CHECK(Vals(r.at("u5")) == V{5});
}

TEST_CASE("nnef executor: matmul and linear") {
  // A . B^T with A = [[1,2,3],[4,5,6]], B = [[1,0,1],[0,1,0]].
  const std::string t = Doc("a, b", "y",
                            "a = external(shape = [2, 3]);\n"
                            "b = external(shape = [2, 3]);\n"
                            "y = matmul(a, b, transposeB = true);");
  const std::map<std::string, Tensor> in{{"a", F32({2, 3}, {1, 2, 3, 4, 5, 6})},
                                         {"b", F32({2, 3}, {1, 0, 1, 0, 1, 0})}};
  CHECK(Out(t, in) == V{4, 2, 10, 5});
  // A^T . B: [[1,4],[2,5],[3,6]] . B (2x3) = 3x3.
  CHECK(Out(Doc("a, b", "y",
                "a = external(shape = [2, 3]);\n"
                "b = external(shape = [2, 3]);\n"
                "y = matmul(a, b, transposeA = true);"),
            in) == V{1, 4, 1, 2, 5, 2, 3, 6, 3});
}

TEST_CASE("nnef executor: RoI pooling and resampling") {
  Tensor x = Tensor::Allocate(DataType::kFloat32, {1, 1, 4, 4});
  for (int i = 0; i < 16; ++i) x.base<float>()[i] = static_cast<float>(i);
  const auto roi = [&](const std::string& op, std::initializer_list<float> box,
                       const std::string& size) {
    return Out(
        Doc("x, r, b", "y",
            "x = external(shape = [1, 1, 4, 4]);\n"
            "r = external(shape = [1, 4]);\n"
            "b = external<integer>(shape = [1, 1]);\n"
            "y = " +
                op + "(x, r, b, output_size = " + size + ");"),
        {{"x", x}, {"r", F32({1, 4}, box)}, {"b", Make<int64_t>(DataType::kInt64, {1, 1}, {0})}});
  };
  // RoI (0, 0, 4, 4) in 2 x 2 cells of 2 x 2.
  CHECK(roi("avg_roi_pool", {0, 0, 4, 4}, "[2, 2]") == V{2.5, 4.5, 10.5, 12.5});
  CHECK(roi("max_roi_pool", {0, 0, 4, 4}, "[2, 2]") == V{5, 7, 13, 15});
  // Coordinates are rounded to the nearest integer first.
  CHECK(roi("max_roi_pool", {0.4f, 0.4f, 3.6f, 3.6f}, "[2, 2]") == V{5, 7, 13, 15});
  // RoI (1, 1, 3, 4): r_H = 2, r_W = 3 in 1 x 1 cells... output_size [2, 1]: cells of height 1,
  // width 3 starting at rows 1 and 2: max of rows 1 and 2 over columns 1..3.
  CHECK(roi("max_roi_pool", {1, 1, 3, 4}, "[2, 1]") == V{7, 11});
  CHECK(roi("avg_roi_pool", {1, 1, 3, 4}, "[2, 1]") == V{6, 10});
  // roi_resample (symmetric): output_size = RoI extent samples the pixel centres exactly.
  CHECK(roi("roi_resample", {1, 1, 3, 3}, "[2, 2]") == V{5, 6, 9, 10});
  // Row y = 1 ([4, 5, 6, 7]); the RoI x in [0, 2) sampled 4 times: (i + 0.5) * 2 / 4 - 0.5 =
  // -0.25, 0.25, 0.75, 1.25; indices are clamped to the image (replicate).
  CHECK(roi("roi_resample", {1, 0, 2, 2}, "[1, 4]") == V{4, 4.25, 4.75, 5.25});
  // avg_roi_align = roi_resample then avg_pool over sampling_rate windows (trailing axes).
  // Samples at 0.5 and 2.5 in both axes: 2.5, 4.5, 10.5, 12.5; their average is 7.5.
  CHECK(roi("avg_roi_align", {0, 0, 4, 4}, "[1, 1], sampling_rate = [2, 2]") == V{7.5});
  // batch_index outside the batch is an execution error.
  const NnefError e = ErrorFrom([&] {
    Out(Doc("x, r, b", "y",
            "x = external(shape = [1, 1, 4, 4]);\n"
            "r = external(shape = [1, 4]);\n"
            "b = external<integer>(shape = [1, 1]);\n"
            "y = avg_roi_pool(x, r, b, output_size = [1, 1]);"),
        {{"x", x},
         {"r", F32({1, 4}, {0, 0, 1, 1})},
         {"b", Make<int64_t>(DataType::kInt64, {1, 1}, {1})}});
  });
  CHECK(e.stage() == Stage::kExecute);
  CHECK(std::string(e.what()).find("batch_index 1 is outside the batch of 1") != std::string::npos);
}

TEST_CASE("nnef executor: variables, shared labels and update across cycles") {
  TempDir dir("vars");
  dir.Write("counter", F32({1}, {5}), TensorType::kScalar);
  std::filesystem::create_directories(dir.path / "layer");
  dir.Write("layer/w", F32({2}, {1, 2}), TensorType::kScalar);
  const std::string t = Doc("x", "y, u",
                            "x = external(shape = [2]);\n"
                            "v = variable(shape = [1], label = 'counter');\n"
                            "w = variable(shape = [2], label = 'layer/w');\n"
                            "w2 = variable(shape = [2], label = 'LAYER/W');\n"
                            "y = add(x, mul(add(w, w2), v));\n"
                            "u = update(v, add(v, 1.0));");
  const FlatGraph g = ParseDocument(t, "t.nnef");
  Executor ex(g, dir.path.string(), nullptr);
  const std::map<std::string, Tensor> in{{"x", F32({2}, {0, 0})}};
  auto r = ex.Run(in);
  CHECK(Vals(r.at("y")) == V{10, 20});  // (1 + 1) * 5, (2 + 2) * 5
  CHECK(Vals(r.at("u")) == V{6});
  r = ex.Run(in);  // the variable now holds 6
  CHECK(Vals(r.at("y")) == V{12, 24});
  CHECK(Vals(r.at("u")) == V{7});
  CHECK(static_cast<double>(ex.Variable("counter").At<float>(0)) == 7);
}

TEST_CASE("nnef executor: variable data errors") {
  TempDir dir("varerr");
  const auto run = [&](const std::string& decl) {
    const FlatGraph g = ParseDocument(Doc("x", "y",
                                          "x = external(shape = [2]);\n"
                                          "v = " +
                                              decl +
                                              ";\n"
                                              "y = add(x, v);"),
                                      "t.nnef");
    Executor ex(g, dir.path.string(), nullptr);
  };
  NnefError e = ErrorFrom([&] { run("variable(shape = [2], label = 'missing')"); });
  CHECK(e.stage() == Stage::kTensorFile);
  CHECK(std::string(e.what()).find("missing.dat") != std::string::npos);
  dir.Write("three", F32({3}, {1, 2, 3}), TensorType::kScalar);
  e = ErrorFrom([&] { run("variable(shape = [2], label = 'three')"); });
  CHECK(e.stage() == Stage::kTensorFile);
  CHECK(std::string(e.what()).find("the stored shape [3] conflicts with the shape [2]") !=
        std::string::npos);
  // Trailing singleton dimensions do not matter: [2, 1] data for a [2] variable.
  dir.Write("col", F32({2, 1}, {1, 2}), TensorType::kScalar);
  run("variable(shape = [2], label = 'col')");
}

TEST_CASE("nnef executor: quantized variable data and graph.quant") {
  TempDir dir("quant");
  // Variable stored as spec linear-quantized 8-bit codes: min 0, max 2.55 (codes q -> q/100-ish).
  TensorFileHeader lin;
  lin.code = ItemCode::kLinearQuantized;
  lin.bits_per_item = 2;
  lin.min = 0;
  lin.max = 3;
  WriteTensorFile((dir.path / "w.dat").string(), EncodeTensor(F32({2}, {1, 3}), lin, "w"));
  const std::string t = Doc("x", "y, z",
                            "x = external(shape = [2]);\n"
                            "w = variable(shape = [2], label = 'w');\n"
                            "y = add(x, w);\n"
                            "z = copy(y);");
  const FlatGraph g = ParseDocument(t, "t.nnef");
  {
    Executor ex(g, dir.path.string(), nullptr);
    CHECK(Vals(ex.Run({{"x", F32({2}, {0.25f, 0.5f})}}).at("y")) == V{1.25, 3.5});
  }
  // graph.quant: x quantized to 2 bits over [0, 1] (levels 0, 1/3, 2/3, 1) before the add, and
  // y quantized over [0, 4] with 2 bits (levels 0, 4/3, 8/3, 4).
  const QuantFile q = ParseQuantFile(
      "'x': linear_quantize(min = 0.0, max = 1.0, bits = 2);\n"
      "'y': linear_quantize(min = 0.0, max = 4.0, bits = 2);",
      "graph.quant");
  Executor ex(g, dir.path.string(), &q);
  const auto r = ex.Run({{"x", F32({2}, {0.25f, 0.5f})}});
  // x: 0.25 * 3 = 0.75 -> 1 -> 1/3; 0.5 * 3 = 1.5 -> 2 -> 2/3. y = 4/3, 11/3 -> q = round(1),
  // round(2.75) = 3 -> 4/3, 4.
  CHECK(Vals(r.at("y")) == V{Rf(4.0 / 3), 4});
  CHECK(Vals(r.at("z")) == V{Rf(4.0 / 3), 4});
  // Quantizing a logical tensor, or naming a tensor the graph lacks, is a quant-file error.
  const QuantFile bad =
      ParseQuantFile("'nope': linear_quantize(min = 0.0, max = 1.0, bits = 8);", "graph.quant");
  const NnefError e = ErrorFrom([&] { Executor ex2(g, dir.path.string(), &bad); });
  CHECK(e.stage() == Stage::kQuantFile);
  CHECK(std::string(e.what()).find("graph.quant:1:1") != std::string::npos);
}

TEST_CASE("nnef executor: input checks, custom operations, traces") {
  const std::string t = Doc("x", "y", "x = external(shape = [2]);\ny = exp(x);");
  const FlatGraph g = ParseDocument(t, "t.nnef");
  Executor ex(g, ".", nullptr);
  NnefError e = ErrorFrom([&] { ex.Run({}); });
  CHECK(e.stage() == Stage::kExecute);
  CHECK(std::string(e.what()).find("no data given for the graph input 'x'") != std::string::npos);
  e = ErrorFrom([&] { ex.Run({{"x", F32({3}, {1, 2, 3})}}); });
  CHECK(std::string(e.what()).find("the graph expects tensor<scalar> [2]") != std::string::npos);
  std::vector<std::string> seen;
  std::vector<std::string> kernels;
  ex.Run({{"x", F32({2}, {0, 0})}}, [&](const std::string& id, const Invocation*,
                                        std::string_view kernel, const OperandValue&) {
    seen.push_back(id);
    kernels.emplace_back(kernel);
  });
  CHECK(seen == std::vector<std::string>{"x", "y"});
  CHECK(kernels == std::vector<std::string>{"", "exp"});
  // A fragment declared without a body has no semantics.
  const std::string custom = std::string("version 1.0;\n") + kExt +
                             "fragment magic( x: tensor<scalar> ) -> ( y: tensor<scalar> );\n"
                             "graph G( x ) -> ( y ) {\n  x = external(shape = [2]);\n"
                             "  y = magic(x);\n}\n";
  e = ErrorFrom([&] { Executor ex2(ParseDocument(custom, "t.nnef"), ".", nullptr); });
  CHECK(e.stage() == Stage::kExecute);
  CHECK(std::string(e.what()).find("'magic'") != std::string::npos);
}

TEST_CASE("nnef executor: hostile windows and RoIs are bounded") {
  // 10^6 x 10^6 window terms over a small input: rejected before anything runs.
  const NnefError e = ErrorFrom([] {
    Out(Doc("x", "y",
            "x = external(shape = [1, 1, 4]);\n"
            "y = box(x, size = [1, 1, 1000000], padding = [(0,0), (0,0), (999999, 999999)]);"),
        {{"x", F32({1, 1, 4}, {1, 2, 3, 4})}});
  });
  CHECK(e.stage() == Stage::kValidate);
  CHECK(std::string(e.what()).find("terms") != std::string::npos);
  // A RoI of 10^15 x 10^15 pixels: the cell is clipped to the input, so this is immediate. The
  // cell covers the whole 4 x 4 input plus border zeros: max 15, average 120 / (cell volume).
  Tensor x = Tensor::Allocate(DataType::kFloat32, {1, 1, 4, 4});
  for (int i = 0; i < 16; ++i) x.base<float>()[i] = static_cast<float>(i);
  const auto roi = [&](const std::string& op) {
    return Out(Doc("x, r, b", "y",
                   "x = external(shape = [1, 1, 4, 4]);\n"
                   "r = external(shape = [1, 4]);\n"
                   "b = external<integer>(shape = [1, 1]);\n"
                   "y = " +
                       op + "(x, r, b, output_size = [1, 1]);"),
               {{"x", x},
                {"r", F32({1, 4}, {-1e15f, -1e15f, 1e15f, 1e15f})},
                {"b", Make<int64_t>(DataType::kInt64, {1, 1}, {0})}});
  };
  CHECK(roi("max_roi_pool") == V{15});
  const double side = static_cast<double>(std::floor(1e15f + 0.5f) - std::floor(-1e15f + 0.5f));
  CHECK(roi("avg_roi_pool") == V{Rf(120.0 / (side * side))});
}

}  // namespace nnref::nnef
