// The vulkan backend's graph execution (ops/vulkan/graph.cc) and its splitting of large tensors
// by rows (split.cc), with the validation layer on: a graph recorded into one command buffer
// gives the bits of the per-operator path in one submission; an operator cut into boxes under a
// small binding cap (the NNREF_VULKAN_MAX_BINDING test hook) gives the bits of the uncut one.
// The per-operator path is the one the corpus judges against the reference in the check mode.
#include "ref/graph/graph.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "numerics/float16.h"
#include "ops/activations.h"
#include "ops/arg_cumulative.h"
#include "ops/backend_testing.h"
#include "ops/conv2d.h"
#include "ops/data_movement.h"
#include "ops/elementwise_binary.h"
#include "ops/elementwise_unary.h"
#include "ops/matmul_gemm.h"
#include "ops/nnef_elementwise.h"
#include "ops/nnef_resample.h"
#include "ops/nnef_window.h"
#include "ops/normalization.h"
#include "ops/pool2d.h"
#include "ops/reduction.h"
#include "ops/resample2d.h"
#include "ops/rnn.h"
#include "ops/softmax.h"
#include "ops/vulkan/vulkan_backend.h"

namespace nnref {
namespace {

std::shared_ptr<const Backend> MakeBackend(bool native = false, const char* cap = nullptr,
                                           bool staging = false) {
  setenv("NNREF_VULKAN_VALIDATION", "1", 1);
  if (cap != nullptr) setenv("NNREF_VULKAN_MAX_BINDING", cap, 1);
  if (staging) setenv("NNREF_VULKAN_STAGING", "1", 1);
  BackendOptions options;
  options.arithmetic = native ? Arithmetic::kNative : Arithmetic::kExact;
  std::shared_ptr<const Backend> backend = MakeVulkanBackend(options);
  unsetenv("NNREF_VULKAN_MAX_BINDING");
  unsetenv("NNREF_VULKAN_STAGING");
  REQUIRE_MESSAGE(!backend->Unavailable(), backend->Describe());
  return backend;
}

// Deterministic values in [-scale, scale) with all mantissa bits in use.
Tensor Values(DataType type, const Shape& shape, uint32_t seed, float scale = 1.0f) {
  Tensor t = Tensor::Allocate(type, shape);
  uint32_t s = seed * 2654435761u + 12345u;
  for (uint64_t i = 0; i < t.element_count(); ++i) {
    s = s * 1664525u + 1013904223u;
    const float v = (static_cast<float>(s >> 8) / 16777216.0f * 2.0f - 1.0f) * scale;
    t.base<float>()[i] = v;
  }
  return t;
}

bool SameBits(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  const std::vector<std::byte> x = a.Bytes(), y = b.Bytes();
  return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size()) == 0);
}

// A transformer-like chain on x [2, 6, 16]: layerNormalization (constant scale and bias), a
// matmul with a constant [16, 16], add, tanh, then `tail`; outputs "mid" (the tanh) and "out".
struct Chain {
  std::shared_ptr<const Graph> graph;
  std::map<std::string, Tensor> feeds;
};
Chain MakeChain(const std::function<Operand(GraphBuilder&, const Operand&)>& tail) {
  GraphBuilder b;
  const Operand x = b.Input("x", {DataType::kFloat32, {2, 6, 16}});
  const Operand w =
      b.Constant({DataType::kFloat32, {16, 16}}, Values(DataType::kFloat32, {16, 16}, 2, 0.5f));
  const Operand g = b.Constant({DataType::kFloat32, {16}}, Values(DataType::kFloat32, {16}, 3));
  const Operand beta =
      b.Constant({DataType::kFloat32, {16}}, Values(DataType::kFloat32, {16}, 4, 0.1f));
  MLLayerNormalizationOptions ln;
  ln.scale = g;
  ln.bias = beta;
  ln.axes = std::vector<uint32_t>{2};
  const Operand y = LayerNormalization(b, x, ln);
  const Operand m = Matmul(b, y, w);
  const Operand s = ElementwiseBinary(b, BinaryOp::kAdd, m, x);
  const Operand mid = Tanh(b, s);
  const Operand out = tail(b, mid);
  Chain c;
  c.graph = b.Build({{"mid", mid}, {"out", out}});
  c.feeds["x"] = Values(DataType::kFloat32, {2, 6, 16}, 1, 2.0f);
  return c;
}

// Softmax over the last axis, concatenated with its input along axis 1 (both computed on the
// device), a transpose, a reshape and a sum over the last axis.
Operand RecordableTail(GraphBuilder& b, const Operand& mid) {
  const Operand sm = Softmax(b, mid, 2);
  const Operand cat = Concat(b, {sm, mid}, 1);
  MLTransposeOptions t;
  t.permutation = std::vector<uint32_t>{0, 2, 1};
  const Operand tr = Transpose(b, cat, t);
  const Operand r = Reshape(b, tr, {32, 12});
  MLReduceOptions sum;
  sum.axes = std::vector<uint32_t>{1};
  return Reduce(b, ReduceOp::kSum, r, sum);
}

TEST_CASE(
    "vulkan graph: a chain of operators in one submission, the bits of the per-operator path") {
  for (const bool native : {false, true}) {
    for (const bool staging : {false, true}) {
      CAPTURE(native);
      CAPTURE(staging);
      const std::shared_ptr<const Backend> backend = MakeBackend(native, nullptr, staging);
      const Chain c = MakeChain(RecordableTail);
      std::string why;
      const std::optional<BackendGraph> compiled = CompileForBackend(*c.graph, backend, why);
      REQUIRE_MESSAGE(compiled, why);
      REQUIRE(compiled->runner);
      const std::vector<std::string> schedule = compiled->runner->Schedule();
      REQUIRE(schedule.size() == c.graph->operators().size());
      for (const std::string& line : schedule)
        CHECK_MESSAGE(line.find(": recorded") != std::string::npos, line);

      // Per operator: one submission and one fence wait per operator (one dispatch each).
      VulkanCounters before = VulkanBackendCounters(*backend);
      const std::map<std::string, OperandValue> per_op =
          c.graph->Compute(c.feeds, {}, compiled->kernels);
      VulkanCounters after = VulkanBackendCounters(*backend);
      CHECK(after.submissions - before.submissions == c.graph->operators().size());

      // The graph: one submission, one fence wait, twice (the runner keeps its buffers).
      for (int run = 0; run < 2; ++run) {
        before = VulkanBackendCounters(*backend);
        const std::map<std::string, OperandValue> graph =
            ComputeOnBackend(*c.graph, *compiled, c.feeds);
        after = VulkanBackendCounters(*backend);
        CHECK(after.submissions - before.submissions == 1);
        CHECK(after.fence_waits - before.fence_waits == 1);
        for (const char* name : {"mid", "out"}) {
          CAPTURE(name);
          CHECK(SameBits(graph.at(name).data, per_op.at(name).data));
        }
      }
      // And the numbers are right: each of the 32 outputs is the sum of six probabilities of one
      // column and of the six tanh values there, within float32 rounding of the sum in double.
      const Tensor& mid = per_op.at("mid").data;
      const Tensor& out = per_op.at("out").data;
      REQUIRE(out.shape() == Shape{32});
      for (size_t batch = 0; batch < 2; ++batch) {
        for (size_t col = 0; col < 16; ++col) {
          double sum = 0;
          for (size_t row = 0; row < 6; ++row) {
            double total = 0;
            for (size_t k = 0; k < 16; ++k)
              total += std::exp(double(mid.At<float>((batch * 6 + row) * 16 + k)));
            const double v = mid.At<float>((batch * 6 + row) * 16 + col);
            sum += std::exp(v) / total + v;
          }
          CHECK(std::abs(double{out.At<float>(batch * 16 + col)} - sum) < 4e-6);
        }
      }
    }
  }
}

TEST_CASE("vulkan graph: an operator that needs the host splits the command buffer, saying why") {
  // Bindings capped at 128 bytes: exp and reduceSum on [4, 16] (256 bytes) are cut into boxes by
  // rows, whose inputs are sliced on the host, so they run alone; the neg after them is recorded.
  const std::shared_ptr<const Backend> backend = MakeBackend(false, "128");
  GraphBuilder g;
  const Operand x = g.Input("x", {DataType::kFloat32, {4, 16}});
  const Operand e = ElementwiseUnary(g, UnaryOp::kExp, x);
  MLReduceOptions sum;
  sum.axes = std::vector<uint32_t>{1};
  const Operand s = Reduce(g, ReduceOp::kSum, e, sum);
  const Operand out = ElementwiseUnary(g, UnaryOp::kNeg, s);
  const std::shared_ptr<const Graph> graph = g.Build({{"out", out}});
  const std::map<std::string, Tensor> feeds = {{"x", Values(DataType::kFloat32, {4, 16}, 5)}};
  std::string why;
  const std::optional<BackendGraph> compiled = CompileForBackend(*graph, backend, why);
  REQUIRE_MESSAGE(compiled, why);
  const std::vector<std::string> schedule = compiled->runner->Schedule();
  REQUIRE(schedule.size() == 3);
  CHECK(schedule[0].find("0 exp: per operator: ") == 0);
  CHECK(schedule[1].find("1 reduceSum: per operator: ") == 0);
  CHECK(schedule[2] == "2 neg: recorded");
  const std::map<std::string, OperandValue> per_op = graph->Compute(feeds, {}, compiled->kernels);
  const VulkanCounters before = VulkanBackendCounters(*backend);
  const std::map<std::string, OperandValue> result = ComputeOnBackend(*graph, *compiled, feeds);
  const VulkanCounters after = VulkanBackendCounters(*backend);
  // The boxes of exp and reduceSum one submission each, the neg in one more.
  CHECK(after.submissions - before.submissions > 2);
  CHECK(SameBits(result.at("out").data, per_op.at("out").data));
}

// `t` (float32) rounded to float16 when `type` is float16.
Tensor As(DataType type, const Tensor& t) {
  if (type == DataType::kFloat32) return t;
  Tensor h = Tensor::Allocate(DataType::kFloat16, t.shape());
  for (uint64_t i = 0; i < t.element_count(); ++i)
    h.base<Float16>()[i] = Float16::FromFloat(t.At<float>(i));
  return h;
}

TEST_CASE(
    "vulkan graph: softmax, reductions, arg/cumulative and normalizations over axes that are not "
    "the last ones, recorded") {
  // Every operator below moves axes on the device (layout.comp dispatches into scratch buffers);
  // the normalizations' scale, bias, mean and variance are computed on the device (exp, neg of
  // graph inputs), so they are gathered and widened there. One submission for the whole graph,
  // the per-operator path's bits, in both arithmetic modes, float32 and float16, and with the
  // staging memory path.
  struct Config {
    bool native, staging;
    DataType type;
  };
  const DataType f32 = DataType::kFloat32, f16 = DataType::kFloat16;
  for (const Config& config :
       {Config{false, false, f32}, Config{true, false, f32}, Config{false, false, f16},
        Config{true, false, f16}, Config{false, true, f16}}) {
    const DataType type = config.type;
    CAPTURE(config.native);
    CAPTURE(config.staging);
    CAPTURE(DataTypeName(type));
    const std::shared_ptr<const Backend> backend =
        MakeBackend(config.native, nullptr, config.staging);
    GraphBuilder b;
    const Operand x = b.Input("x", {type, {2, 5, 3, 4}});
    const Operand p5 = b.Input("p5", {type, {5}});
    const Operand p4 = b.Input("p4", {type, {4}});
    const Operand q54 = b.Input("q54", {type, {5, 4}});
    const Operand sm = Softmax(b, x, 1);
    MLReduceOptions r02;
    r02.axes = std::vector<uint32_t>{0, 2};
    const Operand sum = Reduce(b, ReduceOp::kSum, x, r02);
    MLReduceOptions r1;
    r1.axes = std::vector<uint32_t>{1};
    r1.keepDimensions = true;
    const Operand max = Reduce(b, ReduceOp::kMax, x, r1);
    const Operand arg = ArgMin(b, x, 2);
    MLCumulativeSumOptions cum_options;
    cum_options.exclusive = true;
    cum_options.reversed = true;
    const Operand cum = CumulativeSum(b, x, 1, cum_options);
    // layerNormalization over axes [1, 3] (not last), scale computed on the device, bias a
    // graph input (on the host).
    MLLayerNormalizationOptions ln;
    ln.axes = std::vector<uint32_t>{1, 3};
    ln.scale = ElementwiseUnary(b, UnaryOp::kExp, q54);
    ln.bias = q54;
    const Operand layer = LayerNormalization(b, x, ln);
    // instanceNormalization nhwc: the spatial axes 1, 2 moved last; scale on the device.
    MLInstanceNormalizationOptions in;
    in.layout = MLInputOperandLayout::kNhwc;
    in.scale = ElementwiseUnary(b, UnaryOp::kExp, p4);
    const Operand instance = InstanceNormalization(b, x, in);
    // batchNormalization over axis 1 (moved last): mean and variance on the device.
    MLBatchNormalizationOptions bn;
    bn.bias = p5;
    const Operand batch = BatchNormalization(b, x, ElementwiseUnary(b, UnaryOp::kNeg, p5),
                                             ElementwiseUnary(b, UnaryOp::kExp, p5), bn);
    const std::shared_ptr<const Graph> graph = b.Build({{"softmax", sm},
                                                        {"sum", sum},
                                                        {"max", max},
                                                        {"arg", arg},
                                                        {"cum", cum},
                                                        {"layer", layer},
                                                        {"instance", instance},
                                                        {"batch", batch}});
    std::map<std::string, Tensor> feeds;
    feeds["x"] = As(type, Values(f32, {2, 5, 3, 4}, 31, 3.0f));
    feeds["p5"] = As(type, Values(f32, {5}, 32));
    feeds["p4"] = As(type, Values(f32, {4}, 33));
    feeds["q54"] = As(type, Values(f32, {5, 4}, 34));
    std::string why;
    const std::optional<BackendGraph> compiled = CompileForBackend(*graph, backend, why);
    REQUIRE_MESSAGE(compiled, why);
    REQUIRE(compiled->runner);
    for (const std::string& line : compiled->runner->Schedule())
      CHECK_MESSAGE(line.find(": recorded") != std::string::npos, line);
    const std::map<std::string, OperandValue> per_op = graph->Compute(feeds, {}, compiled->kernels);
    for (int run = 0; run < 2; ++run) {
      const VulkanCounters before = VulkanBackendCounters(*backend);
      const std::map<std::string, OperandValue> result = ComputeOnBackend(*graph, *compiled, feeds);
      const VulkanCounters after = VulkanBackendCounters(*backend);
      CHECK(after.submissions - before.submissions == 1);
      for (const auto& [name, value] : per_op) {
        CAPTURE(name);
        CHECK(SameBits(result.at(name).data, value.data));
      }
    }
    // The per-operator path moved the axes right: softmax sums to 1 along axis 1, the sum over
    // axes 0 and 2 and the exclusive reversed cumulative sum along axis 1 are the sums of x's
    // elements computed here (float32 only: float16 rounds the results).
    if (type != f32) continue;
    const Tensor& xt = feeds["x"];
    const auto at = [&](const Tensor& t, size_t n, size_t c, size_t h, size_t w) {
      return double{t.At<float>(((n * 5 + c) * 3 + h) * 4 + w)};
    };
    for (size_t n = 0; n < 2; ++n) {
      for (size_t h = 0; h < 3; ++h) {
        for (size_t w = 0; w < 4; ++w) {
          double total = 0, after_c = 0;
          for (size_t c = 0; c < 5; ++c) total += at(per_op.at("softmax").data, n, c, h, w);
          CHECK(std::abs(total - 1) < 1e-6);
          for (size_t c = 5; c-- > 0;) {
            CHECK(std::abs(at(per_op.at("cum").data, n, c, h, w) - after_c) < 1e-5);
            after_c += at(xt, n, c, h, w);
          }
        }
      }
    }
    for (size_t c = 0; c < 5; ++c) {
      for (size_t w = 0; w < 4; ++w) {
        double total = 0;
        for (size_t n = 0; n < 2; ++n)
          for (size_t h = 0; h < 3; ++h) total += at(xt, n, c, h, w);
        CHECK(std::abs(double{per_op.at("sum").data.At<float>(c * 4 + w)} - total) < 1e-5);
      }
    }
  }
}

TEST_CASE("vulkan graph: gru, lstm, gruCell and lstmCell recorded, their state on the device") {
  // Both directions with returnSequence, gru without resetAfter (its reset pass), lstm with
  // peepholes, the cells; some weights and initial states computed on the device (tanh, neg), the
  // input of gru and lstm too. One submission, the per-operator path's bits, both arithmetic
  // modes, float32 and float16 (the initial states widened and the outputs rounded by casts).
  const DataType f32 = DataType::kFloat32, f16 = DataType::kFloat16;
  for (const bool native : {false, true}) {
    for (const DataType type : {f32, f16}) {
      CAPTURE(native);
      CAPTURE(DataTypeName(type));
      const std::shared_ptr<const Backend> backend = MakeBackend(native);
      const uint32_t steps = 3, batch = 2, isz = 3, hs = 4;
      std::map<std::string, Tensor> feeds;
      GraphBuilder b;
      uint32_t seed = 40;
      const auto input = [&](const char* name, const Shape& shape) {
        feeds[name] = As(type, Values(f32, shape, ++seed, 0.7f));
        return b.Input(name, {type, shape});
      };
      const Operand x = Tanh(b, input("x", {steps, batch, isz}));
      MLGruOptions gru;
      gru.bias = input("gb", {2, 3 * hs});
      gru.recurrentBias = input("grb", {2, 3 * hs});
      gru.initialHiddenState = ElementwiseUnary(b, UnaryOp::kNeg, input("gh", {2, batch, hs}));
      gru.resetAfter = false;
      gru.returnSequence = true;
      gru.direction = MLRecurrentNetworkDirection::kBoth;
      gru.layout = MLGruWeightLayout::kRzn;
      const std::vector<Operand> g = Gru(b, x, input("gw", {2, 3 * hs, isz}),
                                         Tanh(b, input("grw", {2, 3 * hs, hs})), steps, hs, gru);
      MLLstmOptions lstm;
      lstm.bias = input("lb", {2, 4 * hs});
      lstm.peepholeWeight = Tanh(b, input("lp", {2, 3 * hs}));
      lstm.initialHiddenState = ElementwiseUnary(b, UnaryOp::kNeg, input("lh", {2, batch, hs}));
      lstm.initialCellState = input("lc", {2, batch, hs});
      lstm.returnSequence = true;
      lstm.direction = MLRecurrentNetworkDirection::kBoth;
      lstm.layout = MLLstmWeightLayout::kIfgo;
      const std::vector<Operand> l =
          Lstm(b, x, input("lw", {2, 4 * hs, isz}), input("lrw", {2, 4 * hs, hs}), steps, hs, lstm);
      MLGruCellOptions gru_cell;
      gru_cell.bias = input("cb", {3 * hs});
      const Operand gc =
          GruCell(b, input("cx", {batch, isz}), input("cw", {3 * hs, isz}),
                  input("crw", {3 * hs, hs}), Tanh(b, input("ch", {batch, hs})), hs, gru_cell);
      MLLstmCellOptions lstm_cell;
      lstm_cell.recurrentBias = input("mrb", {4 * hs});
      const std::vector<Operand> lc =
          LstmCell(b, input("mx", {batch, isz}), input("mw", {4 * hs, isz}),
                   input("mrw", {4 * hs, hs}), input("mh", {batch, hs}),
                   ElementwiseUnary(b, UnaryOp::kNeg, input("mc", {batch, hs})), hs, lstm_cell);
      const std::shared_ptr<const Graph> graph = b.Build({{"gru", g[0]},
                                                          {"gru_seq", g[1]},
                                                          {"lstm_h", l[0]},
                                                          {"lstm_c", l[1]},
                                                          {"lstm_seq", l[2]},
                                                          {"gru_cell", gc},
                                                          {"lstm_cell_h", lc[0]},
                                                          {"lstm_cell_c", lc[1]}});
      std::string why;
      const std::optional<BackendGraph> compiled = CompileForBackend(*graph, backend, why);
      REQUIRE_MESSAGE(compiled, why);
      REQUIRE(compiled->runner);
      for (const std::string& line : compiled->runner->Schedule())
        CHECK_MESSAGE(line.find(": recorded") != std::string::npos, line);
      const std::map<std::string, OperandValue> per_op =
          graph->Compute(feeds, {}, compiled->kernels);
      for (int run = 0; run < 2; ++run) {
        const VulkanCounters before = VulkanBackendCounters(*backend);
        const std::map<std::string, OperandValue> result =
            ComputeOnBackend(*graph, *compiled, feeds);
        const VulkanCounters after = VulkanBackendCounters(*backend);
        CHECK(after.submissions - before.submissions == 1);
        for (const auto& [name, value] : per_op) {
          CAPTURE(name);
          CHECK(SameBits(result.at(name).data, value.data));
        }
      }
      // The last step's hidden state is in the sequence: forward at step 2, backward at step 0.
      for (const char* name : {"gru", "lstm_h"}) {
        CAPTURE(name);
        const Tensor& last = per_op.at(name).data;
        const Tensor& seq = per_op.at(name == std::string("gru") ? "gru_seq" : "lstm_seq").data;
        const uint64_t state = batch * hs;
        const std::vector<std::byte> lb = last.Bytes(), sb = seq.Bytes();
        const size_t es = ElementSize(type);
        CHECK(std::memcmp(lb.data(), sb.data() + (2 * 2 + 0) * state * es, state * es) == 0);
        CHECK(std::memcmp(lb.data() + state * es, sb.data() + (0 * 2 + 1) * state * es,
                          state * es) == 0);
      }
    }
  }
}

TEST_CASE("vulkan graph: the NNEF group recorded, its tap tables from the descriptors") {
  // conv (filter and scalar bias computed on the device: gathered and repeated there), deconv
  // (its filter computed on the device: regrouped by a transpose there), a normalized box,
  // argmax_pool, sample with a host index, pad, multilinear_upsample, elu and a RoI pool with
  // host RoIs: one submission, the per-operator path's bits, both arithmetic modes, and with the
  // staging memory path (the tap tables, uploaded once, through it). Then sample reading
  // argmax_pool's indices (computed on the device) runs alone, saying why.
  for (const auto& [native, staging] : {std::pair{false, false}, {true, false}, {false, true}}) {
    CAPTURE(native);
    CAPTURE(staging);
    const std::shared_ptr<const Backend> backend = MakeBackend(native, nullptr, staging);
    const DataType f32 = DataType::kFloat32;
    for (const bool device_index : {false, true}) {
      CAPTURE(device_index);
      using nnef::Border;
      using nnef::WindowAxis;
      GraphBuilder b;
      const Operand x = b.Input("x", {f32, {1, 4, 5, 5}});
      nnef::ConvAttributes conv;
      conv.axes = {WindowAxis{3, 1, 1, 1, 1}, WindowAxis{3, 1, 1, 1, 1}};
      conv.border = Border::kReplicate;
      const Operand c1 = nnef::NnefConv(
          b, x, ElementwiseUnary(b, UnaryOp::kNeg, b.Input("w", {f32, {3, 4, 3, 3}})),
          ElementwiseUnary(b, UnaryOp::kNeg, b.Input("b", {f32, {}})), conv);
      nnef::ConvAttributes deconv;
      deconv.deconv = true;
      deconv.axes = {WindowAxis{3, 2, 1, 1, 1}, WindowAxis{3, 2, 1, 1, 1}};
      const Operand d1 = nnef::NnefConv(
          b, c1, ElementwiseUnary(b, UnaryOp::kNeg, b.Input("wd", {f32, {3, 2, 3, 3}})),
          b.Input("bd", {f32, {1, 2}}), deconv, {9, 9});
      nnef::BoxAttributes box;
      box.axes = {WindowAxis{}, WindowAxis{}, WindowAxis{2, 1, 1, 1, 0}, WindowAxis{2, 1, 1, 0, 1}};
      box.border = Border::kIgnore;
      box.normalize = true;
      const Operand bx = nnef::NnefBox(b, d1, box);
      nnef::WindowAttributes window;
      window.axes = {WindowAxis{}, WindowAxis{}, WindowAxis{2, 2, 1, 1, 0},
                     WindowAxis{2, 2, 1, 0, 0}};
      const Operand arg = nnef::NnefArgmaxPool(b, bx, window);
      const Operand index = device_index ? arg : b.Input("i", {DataType::kInt64, {1, 2, 5, 4}});
      const Operand sampled = nnef::NnefSample(b, bx, index, window);
      nnef::NnefPadAttributes pad;
      pad.padding = {{0, 0}, {0, 0}, {2, -1}, {1, 1}};
      pad.border = Border::kReflect;
      const Operand padded = nnef::NnefPad(b, sampled, pad);
      nnef::UpsampleAttributes up;
      up.factors = {2, 2};
      up.border = Border::kReplicate;
      const Operand upsampled = nnef::NnefMultilinearUpsample(b, padded, up);
      const Operand elu = nnef::NnefElu(b, upsampled);
      nnef::RoiAttributes roi;
      roi.output_size = {2, 2};
      roi.max = true;
      const Operand pooled = nnef::NnefRoiPool(b, elu, b.Input("r", {f32, {2, 4}}),
                                               b.Input("ri", {DataType::kInt64, {2}}), roi);
      const std::shared_ptr<const Graph> graph =
          b.Build({{"conv", c1}, {"deconv", d1}, {"arg", arg}, {"elu", elu}, {"pooled", pooled}});
      std::map<std::string, Tensor> feeds;
      feeds["x"] = Values(f32, {1, 4, 5, 5}, 61, 2.0f);
      feeds["w"] = Values(f32, {3, 4, 3, 3}, 62, 0.5f);
      feeds["b"] = Values(f32, {}, 63);
      feeds["wd"] = Values(f32, {3, 2, 3, 3}, 64, 0.5f);
      feeds["bd"] = Values(f32, {1, 2}, 65);
      Tensor i = Tensor::Allocate(DataType::kInt64, {1, 2, 5, 4});
      for (uint64_t k = 0; k < i.element_count(); ++k)
        i.base<int64_t>()[k] = static_cast<int64_t>(k * 7 % 4);
      if (!device_index) feeds["i"] = i;
      Tensor r = Tensor::Allocate(f32, {2, 4});
      const float rois[] = {0, 1, 8, 9, 3, 2, 14, 11};
      std::memcpy(r.base<float>(), rois, sizeof rois);
      feeds["r"] = r;
      Tensor ri = Tensor::Allocate(DataType::kInt64, {2});
      ri.base<int64_t>()[0] = 0;
      ri.base<int64_t>()[1] = 0;
      feeds["ri"] = ri;
      std::string why;
      const std::optional<BackendGraph> compiled = CompileForBackend(*graph, backend, why);
      REQUIRE_MESSAGE(compiled, why);
      REQUIRE(compiled->runner);
      const std::vector<std::string> schedule = compiled->runner->Schedule();
      for (const std::string& line : schedule) {
        CAPTURE(line);
        if (device_index && line.find(" sample: ") != std::string::npos) {
          CHECK(line.find(": per operator: the index (input 1) is computed on the device") !=
                std::string::npos);
        } else {
          CHECK(line.find(": recorded") != std::string::npos);
        }
      }
      const std::map<std::string, OperandValue> per_op =
          graph->Compute(feeds, {}, compiled->kernels);
      for (int run = 0; run < 2; ++run) {
        const VulkanCounters before = VulkanBackendCounters(*backend);
        const std::map<std::string, OperandValue> result =
            ComputeOnBackend(*graph, *compiled, feeds);
        const VulkanCounters after = VulkanBackendCounters(*backend);
        CHECK(after.submissions - before.submissions == (device_index ? 3u : 1u));
        for (const auto& [name, value] : per_op) {
          CAPTURE(name);
          CHECK(SameBits(result.at(name).data, value.data));
        }
      }
    }
  }
}

TEST_CASE("vulkan graph: intermediates whose lives do not overlap share a device buffer") {
  // a = relu(x), b = exp(a), c = neg(x), out = b + c, all recorded. a dies at b, so c (written
  // after b) takes a's buffer: the first run makes x's buffer, the two shared ones (a then c; b),
  // out's and the parameters' arena: 5 (6 with a buffer per operand). c's dispatch reads only x,
  // so nothing but the sharing asks for the barrier before it (b reads that buffer just before):
  // under the synchronization validation (CTest sets VK_LAYER_ENABLES) a missing barrier is a
  // validation message (WRITE_AFTER_READ), which fails the run. The bits are the per-operator
  // path's.
  for (const bool staging : {false, true}) {
    CAPTURE(staging);
    const std::shared_ptr<const Backend> backend = MakeBackend(false, nullptr, staging);
    GraphBuilder g;
    const Operand x = g.Input("x", {DataType::kFloat32, {4, 64}});
    const Operand a = Relu(g, x);
    const Operand b = ElementwiseUnary(g, UnaryOp::kExp, a);
    const Operand c = ElementwiseUnary(g, UnaryOp::kNeg, x);
    const Operand out = ElementwiseBinary(g, BinaryOp::kAdd, b, c);
    const std::shared_ptr<const Graph> graph = g.Build({{"out", out}});
    const std::map<std::string, Tensor> feeds = {
        {"x", Values(DataType::kFloat32, {4, 64}, 7, 3.0f)}};
    std::string why;
    const std::optional<BackendGraph> compiled = CompileForBackend(*graph, backend, why);
    REQUIRE_MESSAGE(compiled, why);
    REQUIRE(compiled->runner);
    const std::map<std::string, OperandValue> per_op = graph->Compute(feeds, {}, compiled->kernels);
    const VulkanCounters before = VulkanBackendCounters(*backend);
    const std::map<std::string, OperandValue> first = ComputeOnBackend(*graph, *compiled, feeds);
    const VulkanCounters middle = VulkanBackendCounters(*backend);
    const std::map<std::string, OperandValue> again = ComputeOnBackend(*graph, *compiled, feeds);
    const VulkanCounters after = VulkanBackendCounters(*backend);
    // Staging adds the upload and the download buffers.
    CHECK(middle.buffers_created - before.buffers_created == (staging ? 7u : 5u));
    CHECK(after.buffers_created == middle.buffers_created);  // kept between runs
    CHECK(after.submissions - middle.submissions == 1);
    CHECK(SameBits(first.at("out").data, per_op.at("out").data));
    CHECK(SameBits(again.at("out").data, per_op.at("out").data));
  }
}

// conv2d, relu, maxPool2d, resample2d, conv2d again (its filter computed on the device),
// averagePool2d, argMax and cumulativeSum (over the last axis) and a grouped ohwi conv2d with a
// bias (input and filter computed on the device) in one graph: recorded, with the per-operator
// path's bits. In the native mode on a CPU device (lavapipe) conv2d runs the direct GEMM variant,
// which reads a packed filter and, with 4 | input channels per group, an nchw input moved
// channels-last: made on the host for the first conv2d (its input and filter there), on the
// device for the others.
TEST_CASE("vulkan graph: conv2d, pools, resample2d, argMax and cumulativeSum recorded") {
  for (const bool native : {false, true}) {
    CAPTURE(native);
    const std::shared_ptr<const Backend> backend = MakeBackend(native);
    GraphBuilder b;
    const Operand x = b.Input("x", {DataType::kFloat32, {1, 8, 6, 6}});
    const Operand w = b.Constant({DataType::kFloat32, {8, 8, 3, 3}},
                                 Values(DataType::kFloat32, {8, 8, 3, 3}, 7, 0.25f));
    MLConv2dOptions conv;
    conv.padding = std::vector<uint32_t>{1, 1, 1, 1};
    const Operand c1 = Conv2d(b, x, w, conv);
    const Operand r = Relu(b, c1);
    MLPool2dOptions pool;
    pool.windowDimensions = std::vector<uint32_t>{2, 2};
    pool.strides = std::vector<uint32_t>{2, 2};
    const Operand p = MaxPool2d(b, r, pool);
    MLResample2dOptions resample;
    resample.scales = std::vector<float>{2.0f, 2.0f};
    const Operand up = Resample2d(b, p, resample);
    // The filter computed on the device (packed there in the native mode's direct variant).
    const Operand c2 = Conv2d(b, up, ElementwiseUnary(b, UnaryOp::kNeg, w), conv);
    MLPool2dOptions avg;
    avg.windowDimensions = std::vector<uint32_t>{3, 3};
    avg.padding = std::vector<uint32_t>{1, 1, 1, 1};
    const Operand a = AveragePool2d(b, c2, avg);
    const Operand arg = ArgMax(b, a, 3);
    const Operand cum = CumulativeSum(b, a, 3);
    // Grouped, ohwi, with a bias, on a device-computed nchw input and filter with 5 output
    // channels per group (padded to 8 by the direct variant).
    MLConv2dOptions grouped;
    grouped.groups = 2;
    grouped.filterLayout = MLConv2dFilterOperandLayout::kOhwi;
    grouped.bias = b.Constant({DataType::kFloat32, {10}}, Values(DataType::kFloat32, {10}, 9));
    const Operand c3 = Conv2d(b, r,
                              Tanh(b, b.Constant({DataType::kFloat32, {10, 2, 2, 4}},
                                                 Values(DataType::kFloat32, {10, 2, 2, 4}, 10))),
                              grouped);
    const std::shared_ptr<const Graph> graph =
        b.Build({{"up", up}, {"avg", a}, {"arg", arg}, {"cum", cum}, {"grouped", c3}});
    std::map<std::string, Tensor> feeds;
    feeds["x"] = Values(DataType::kFloat32, {1, 8, 6, 6}, 8, 2.0f);
    std::string why;
    const std::optional<BackendGraph> compiled = CompileForBackend(*graph, backend, why);
    REQUIRE_MESSAGE(compiled, why);
    REQUIRE(compiled->runner);
    const std::vector<std::string> schedule = compiled->runner->Schedule();
    REQUIRE(schedule.size() == 11);
    for (const std::string& line : schedule)
      CHECK_MESSAGE(line.find(": recorded") != std::string::npos, line);
    const std::map<std::string, OperandValue> per_op = graph->Compute(feeds, {}, compiled->kernels);
    const VulkanCounters before = VulkanBackendCounters(*backend);
    const std::map<std::string, OperandValue> result = ComputeOnBackend(*graph, *compiled, feeds);
    const VulkanCounters after = VulkanBackendCounters(*backend);
    CHECK(after.submissions - before.submissions == 1);
    for (const char* name : {"up", "avg", "arg", "cum", "grouped"}) {
      CAPTURE(name);
      CHECK(SameBits(result.at(name).data, per_op.at(name).data));
    }
    // argMax and cumulativeSum of the average pool's rows, computed here from its values.
    const Tensor& avg_t = per_op.at("avg").data;
    const Tensor& arg_t = per_op.at("arg").data;
    const Tensor& cum_t = per_op.at("cum").data;
    REQUIRE(arg_t.shape() == Shape{1, 8, 6});
    for (size_t row = 0; row < 48; ++row) {
      size_t best = 0;
      double sum = 0;
      for (size_t i = 0; i < 6; ++i) {
        const float v = avg_t.At<float>(row * 6 + i);
        if (v > avg_t.At<float>(row * 6 + best)) best = i;
        sum += double{v};
        CHECK(std::abs(double{cum_t.At<float>(row * 6 + i)} - sum) <= 1e-6 * (1 + std::abs(sum)));
      }
      CHECK(arg_t.At<int32_t>(row) == static_cast<int32_t>(best));
    }
  }
}

// Whether `make` on tensors of these shapes cannot be compiled on `backend` (a refusal).
std::string Refusal(
    const std::shared_ptr<const Backend>& backend, const std::vector<Shape>& shapes,
    const std::function<Operand(GraphBuilder&, const std::vector<Operand>&)>& make) {
  GraphBuilder builder;
  std::vector<Operand> ops;
  for (size_t i = 0; i < shapes.size(); ++i) {
    ops.push_back(builder.Input("in" + std::to_string(i), {DataType::kFloat32, shapes[i]}));
  }
  const std::shared_ptr<const Graph> graph = builder.Build({{"out", make(builder, ops)}});
  std::string why;
  if (CompileForBackend(*graph, backend, why)) return "";
  return why;
}

TEST_CASE("vulkan split: matmul, gemm, softmax, reductions and normalizations cut by rows") {
  for (const bool native : {false, true}) {
    CAPTURE(native);
    // Bindings capped at 128 bytes (112 usable: 28 float32 elements): every operator below has a
    // tensor above that, so it compiles only because it is cut into boxes.
    const std::shared_ptr<const Backend> capped = MakeBackend(native, "128");
    const std::shared_ptr<const Backend> whole = MakeBackend(native);
    struct Op {
      const char* name;
      std::vector<Tensor> inputs;
      std::function<Operand(GraphBuilder&, const std::vector<Operand>&)> make;
    };
    const DataType f32 = DataType::kFloat32;
    std::vector<Op> ops;
    ops.push_back(
        {"matmul [3, 10, 4] x [4, 5] (boxes of 5 rows)",
         {Values(f32, {3, 10, 4}, 1), Values(f32, {4, 5}, 2)},
         [](GraphBuilder& b, const std::vector<Operand>& in) { return Matmul(b, in[0], in[1]); }});
    ops.push_back(
        {"matmul [2, 1, 9, 3] x [4, 3, 2] (broadcast batches)",
         {Values(f32, {2, 1, 9, 3}, 3), Values(f32, {4, 3, 2}, 4)},
         [](GraphBuilder& b, const std::vector<Operand>& in) { return Matmul(b, in[0], in[1]); }});
    ops.push_back({"gemm aTranspose [4, 10] x [4, 5] + c [10, 5], alpha, beta",
                   {Values(f32, {4, 10}, 5), Values(f32, {4, 5}, 6), Values(f32, {10, 5}, 7)},
                   [](GraphBuilder& b, const std::vector<Operand>& in) {
                     MLGemmOptions o;
                     o.aTranspose = true;
                     o.c = in[2];
                     o.alpha = 0.75;
                     o.beta = -1.5;
                     return Gemm(b, in[0], in[1], o);
                   }});
    ops.push_back(
        {"softmax [3, 6, 7] axis 2",
         {Values(f32, {3, 6, 7}, 8, 4.0f)},
         [](GraphBuilder& b, const std::vector<Operand>& in) { return Softmax(b, in[0], 2); }});
    ops.push_back(
        {"softmax [3, 7, 4] axis 1 (boxes of one [7, 4] slab)",
         {Values(f32, {3, 7, 4}, 9, 4.0f)},
         [](GraphBuilder& b, const std::vector<Operand>& in) { return Softmax(b, in[0], 1); }});
    ops.push_back({"reduceSum [4, 6, 5] axes [2]",
                   {Values(f32, {4, 6, 5}, 10)},
                   [](GraphBuilder& b, const std::vector<Operand>& in) {
                     MLReduceOptions o;
                     o.axes = std::vector<uint32_t>{2};
                     return Reduce(b, ReduceOp::kSum, in[0], o);
                   }});
    ops.push_back({"reduceMean [5, 4, 6] axes [1, 2] keepDimensions",
                   {Values(f32, {5, 4, 6}, 11)},
                   [](GraphBuilder& b, const std::vector<Operand>& in) {
                     MLReduceOptions o;
                     o.axes = std::vector<uint32_t>{1, 2};
                     o.keepDimensions = true;
                     return Reduce(b, ReduceOp::kMean, in[0], o);
                   }});
    ops.push_back({"reduceLogSumExp [2, 7, 3, 5] axes [3, 2]",
                   {Values(f32, {2, 7, 3, 5}, 12, 8.0f)},
                   [](GraphBuilder& b, const std::vector<Operand>& in) {
                     MLReduceOptions o;
                     o.axes = std::vector<uint32_t>{3, 2};
                     return Reduce(b, ReduceOp::kLogSumExp, in[0], o);
                   }});
    ops.push_back({"layerNormalization [3, 5, 6] axes [2], scale and bias",
                   {Values(f32, {3, 5, 6}, 13, 3.0f), Values(f32, {6}, 14), Values(f32, {6}, 15)},
                   [](GraphBuilder& b, const std::vector<Operand>& in) {
                     MLLayerNormalizationOptions o;
                     o.axes = std::vector<uint32_t>{2};
                     o.scale = in[1];
                     o.bias = in[2];
                     return LayerNormalization(b, in[0], o);
                   }});
    ops.push_back(
        {"instanceNormalization nchw [3, 2, 3, 4]",
         {Values(f32, {3, 2, 3, 4}, 16, 3.0f), Values(f32, {2}, 17), Values(f32, {2}, 18)},
         [](GraphBuilder& b, const std::vector<Operand>& in) {
           MLInstanceNormalizationOptions o;
           o.scale = in[1];
           o.bias = in[2];
           return InstanceNormalization(b, in[0], o);
         }});
    Tensor variance = Values(f32, {3}, 21);
    for (uint64_t i = 0; i < 3; ++i)
      variance.base<float>()[i] = std::abs(variance.base<float>()[i]) + 0.5f;
    ops.push_back({"batchNormalization [4, 3, 5] axis 1",
                   {Values(f32, {4, 3, 5}, 19, 3.0f), Values(f32, {3}, 20), variance},
                   [](GraphBuilder& b, const std::vector<Operand>& in) {
                     return BatchNormalization(b, in[0], in[1], in[2]);
                   }});
    for (const Op& op : ops) {
      CAPTURE(op.name);
      const Tensor cut = RunOn(capped, op.inputs, op.make);
      const Tensor uncut = RunOn(whole, op.inputs, op.make);
      CHECK(SameBits(cut, uncut));
    }
    // Refused with the reason: a transpose (not cut by rows), softmax over axis 0 (its runs span
    // the tensor), a matmul whose B alone exceeds the binding.
    CHECK(Refusal(capped, {{4, 10}}, [](GraphBuilder& b, const std::vector<Operand>& in) {
            return Transpose(b, in[0]);
          }).find("not split: transpose") != std::string::npos);
    CHECK(Refusal(capped, {{10, 4}}, [](GraphBuilder& b, const std::vector<Operand>& in) {
            return Softmax(b, in[0], 0);
          }).find("softmax over axis 0") != std::string::npos);
    CHECK(Refusal(capped, {{2, 8}, {8, 8}}, [](GraphBuilder& b, const std::vector<Operand>& in) {
            return Matmul(b, in[0], in[1]);
          }).find("even one row") != std::string::npos);
  }
}

}  // namespace
}  // namespace nnref
