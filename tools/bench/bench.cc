// tools/bench: times one graph per benchmark with the reference kernels and with the simd backend
// (ops/simd) on one thread and on every core, in one process on the same inputs. Operators the
// backend has no kernel for are reported as "skip (simd: OP: not implemented)". Every simd result
// is checked against the reference result (a broken kernel is not timed as if it were fast).
// tools/bench/run.sh adds ONNX Runtime beside these figures (docs/performance.md).
//
// Usage: build/bin/nnref_bench [--repeat N] [--reference-repeat N] [--warmup N]
//            [--min-sample-ms X] [--threads N] [--only ID,ID] [--filter TEXT] [--small]
//            [--no-reference] [--vulkan] [--vulkan-native] [--tsv] [--cpu-time] [--cases DIR]
//            [--export DIR] [--per-operator]
// The model blocks (ids gpt2_block, sd_resblock) time a case of cases/models (--cases: another
// folder) as one graph; --export DIR writes their data for the ONNX export of compare.mjs.
// The simd columns time a graph as contexts compute it (ComputeOnBackend: the simd backend's
// whole-graph plan, ops/simd/graph_plan.h); --per-operator times one kernel call at a time
// instead (Graph::Compute with the backend's kernels, the path before the plan).
// --vulkan also times the vulkan backend (first device) in both arithmetic modes, native and
// exact (docs/vulkan.md#arithmetic-modes), in the same process on the same inputs, with its
// time as a multiple of simd's (one line per mode under each benchmark; vulkan_native_* and
// vulkan_exact_* fields with --tsv). Its results are checked against the reference as simd's.
// --vulkan-native times the native mode only (the exact mode takes about a second per call).
// The reference is timed with min(repeat, reference-repeat) samples (default 3) after one
// warm-up call: it is a baseline, not a target, and takes seconds per call on some shapes.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ops/activations.h"
#include "ops/backend.h"
#include "ops/conv2d.h"
#include "ops/elementwise_binary.h"
#include "ops/matmul_gemm.h"
#include "ops/normalization.h"
#include "ops/simd/simd_backend.h"
#include "ops/softmax.h"
#include "ops/vulkan/vulkan_backend.h"
#include "runner/case.h"
#include "runner/execute.h"

namespace nnref {
namespace {

// Uniform floats in [-1, 1) from a fixed seed (SplitMix64; the values only need to be ordinary
// numbers, never denormal, infinite or NaN).
Tensor Random(const Shape& shape, uint64_t seed) {
  Tensor t = Tensor::Allocate(DataType::kFloat32, shape);
  uint64_t state = seed;
  float* p = t.base<float>();
  for (uint64_t i = 0; i < t.element_count(); ++i) {
    state += 0x9E3779B97F4A7C15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    p[i] = static_cast<float>(static_cast<double>(z >> 11) * 0x1p-52 - 1.0);
  }
  return t;
}

std::string Dims(const Shape& shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

// One operand of a benchmark graph: a graph input, or a constant (weights) with random data.
struct BenchOperand {
  std::string name;
  Shape shape;
  bool constant = false;
};

struct Bench {
  std::string id;     // --only, and the key tools/bench/ort/compare.mjs builds its model from
  std::string label;  // what the table shows
  double flops;       // floating-point operations of one run (multiply-add = 2; nominal otherwise)
  std::vector<BenchOperand> operands;
  std::function<Operand(GraphBuilder&, const std::vector<Operand>&)> build;
};

// The benchmarks of docs/performance.md; `small` shrinks every shape for the smoke test.
std::vector<Bench> MakeBenches(bool small) {
  const uint64_t conv_c = small ? 8 : 64, conv_hw = small ? 14 : 56;
  const uint64_t mm = small ? 32 : 512;
  const uint64_t add_c = small ? 8 : 256, add_hw = small ? 14 : 56;
  const uint64_t sm_rows = small ? 4 : 64, sm_cols = small ? 100 : 1000;
  const uint64_t ln_rows = small ? 4 : 128, ln_cols = small ? 96 : 768;
  const uint64_t fc_m = small ? 8 : 128, fc_k = small ? 48 : 768, fc_n = small ? 192 : 3072;
  const double f = 1.0;  // keeps the FLOP formulas in double
  std::vector<Bench> b;
  b.push_back({"conv2d",
               "conv2d float32 " + Dims({1, conv_c, conv_hw, conv_hw}) + " * " +
                   Dims({conv_c, conv_c, 3, 3}) + " pad 1",
               2 * f * static_cast<double>(conv_c * conv_hw * conv_hw * conv_c * 9),
               {{"x", {1, conv_c, conv_hw, conv_hw}}, {"w", {conv_c, conv_c, 3, 3}, true}},
               [](GraphBuilder& g, const std::vector<Operand>& o) {
                 MLConv2dOptions options;
                 options.padding = std::vector<uint32_t>{1, 1, 1, 1};
                 return Conv2d(g, o[0], o[1], options);
               }});
  b.push_back(
      {"matmul",
       "matmul float32 " + Dims({mm, mm}) + " * " + Dims({mm, mm}),
       2 * f * static_cast<double>(mm * mm * mm),
       {{"a", {mm, mm}}, {"b", {mm, mm}}},
       [](GraphBuilder& g, const std::vector<Operand>& o) { return Matmul(g, o[0], o[1]); }});
  const Shape add_shape = {1, add_c, add_hw, add_hw};
  b.push_back({"add",
               "add float32 " + Dims(add_shape) + " + " + Dims(add_shape),
               f * static_cast<double>(ElementCount(add_shape)),
               {{"a", add_shape}, {"b", add_shape}},
               [](GraphBuilder& g, const std::vector<Operand>& o) {
                 return ElementwiseBinary(g, BinaryOp::kAdd, o[0], o[1]);
               }});
  b.push_back({"softmax",
               "softmax float32 " + Dims({sm_rows, sm_cols}) + " axis 1",
               3 * f * static_cast<double>(sm_rows * sm_cols),
               {{"x", {sm_rows, sm_cols}}},
               [](GraphBuilder& g, const std::vector<Operand>& o) { return Softmax(g, o[0], 1); }});
  b.push_back(
      {"layerNormalization",
       "layerNormalization float32 " + Dims({ln_rows, ln_cols}),
       5 * f * static_cast<double>(ln_rows * ln_cols),
       {{"x", {ln_rows, ln_cols}}},
       [](GraphBuilder& g, const std::vector<Operand>& o) { return LayerNormalization(g, o[0]); }});
  b.push_back({"relu_matmul",
               "relu(matmul float32 " + Dims({fc_m, fc_k}) + " * " + Dims({fc_k, fc_n}) + ")",
               2 * f * static_cast<double>(fc_m * fc_k * fc_n),
               {{"x", {fc_m, fc_k}}, {"w", {fc_k, fc_n}, true}},
               [](GraphBuilder& g, const std::vector<Operand>& o) {
                 return Relu(g, Matmul(g, o[0], o[1]));
               }});
  // Not a target: what one call costs when there is almost nothing to compute.
  b.push_back({"overhead",
               "call overhead: add float32 1 + 1",
               1,
               {{"a", {1}}, {"b", {1}}},
               [](GraphBuilder& g, const std::vector<Operand>& o) {
                 return ElementwiseBinary(g, BinaryOp::kAdd, o[0], o[1]);
               }});
  return b;
}

// A model block of cases/models run as one graph (issue 25): the case's own inputs and weights,
// decoded as `nnref run` decodes them. tools/bench/ort/compare.mjs exports the same graph to ONNX
// (tools/bench/ort/lower.mjs) from the case file and the data --export writes.
struct ModelBench {
  std::string id;
  std::string file;  // relative to --cases
  std::string case_name;
};

const std::vector<ModelBench>& ModelBenches() {
  static const std::vector<ModelBench> models = {
      {"gpt2_block", "gpt2.json", "models.gpt2.block.float32"},
      {"sd_resblock", "stable_diffusion.json", "models.stable_diffusion.resblock.float32"},
  };
  return models;
}

// Multiply-adds of the products (matmul, conv2d) x 2: the FLOP count of a model block (the
// blocks here have no gemm; the other operators are not counted).
double ProductFlops(const Graph& graph) {
  double flops = 0;
  for (const OperatorNode& node : graph.operators()) {
    const auto shape = [&](OperandId id) -> const Shape& { return graph.operand(id).desc.shape; };
    if (node.outputs.empty()) continue;
    const double out = static_cast<double>(ElementCount(shape(node.outputs[0])));
    if (node.op == OpId::matmul) {
      const Shape& a = shape(node.inputs[0]);
      flops += 2 * out * static_cast<double>(a.back());
    } else if (node.op == OpId::conv2d) {
      const Shape& f = shape(node.inputs[1]);  // oihw or another layout: the product of 3 dims
      const double window = static_cast<double>(ElementCount(f)) / static_cast<double>(f[0]);
      flops += 2 * out * window;
    }
  }
  return flops;
}

// A benchmark ready to time: the graph, its inputs, and what the TSV line says about it.
struct Prepared {
  std::string id, label, shapes, extra;  // extra: more TSV fields ("\tkey=value...")
  double flops = 0;
  std::shared_ptr<void> owner;  // keeps the case's builder alive
  std::shared_ptr<const Graph> graph;
  std::map<std::string, Tensor> inputs;
};

struct Options {
  // Many short samples: on a shared machine a call is now and then descheduled, and the median
  // of single calls skips those; a sample of many calls would almost always include one.
  int repeat = 21;
  int reference_repeat = 3;  // the reference is a baseline, not a target: fewer samples
  int warmup = 1;
  double min_sample_ms = 0;  // > 0: a sample is k back-to-back calls lasting at least this
  unsigned threads = 0;      // "all threads": 0 = every core
  std::vector<std::string> only;
  std::string filter;
  bool small = false;
  bool reference = true;
  bool tsv = false;
  bool vulkan = false;
  bool vulkan_exact = true;   // --vulkan-native: only the native mode
  bool cpu_time = false;      // time samples by the process's CPU time instead of the wall clock
  bool per_operator = false;  // simd: Graph::Compute with the kernels, not the graph plan
  std::string cases_dir = NNREF_MODEL_CASES_DIR;  // --cases: where the model case files are
  std::string export_dir;  // --export: write each model block's data for compare.mjs there
};

// --export DIR: DIR/ID/NAME.bin holds the raw bytes (little-endian, row-major) of every input
// and constant of the case as the graph sees them, and DIR/ID/operands.json the data type and
// shape of every named operand of the case ("kind": input, constant or output), which the
// ONNX export needs for its attributes. Returns the folder.
std::string ExportCase(const Case& c, const BuiltCase& built, const Options& opt) {
  namespace fs = std::filesystem;
  const std::string id = std::filesystem::path(c.file).stem().string() + "." + c.name;
  const fs::path dir = fs::path(opt.export_dir) / id;
  fs::create_directories(dir);
  std::map<uint32_t, Tensor> data;  // operand id -> value, for inputs and constants
  (void)built.graph->Compute(built.input_values, [&](OperandId operand, const OperandValue& v) {
    if (built.graph->operand(operand).kind != OperandNode::Kind::kOperatorOutput) {
      data[operand.value] = v.data;
    }
  });
  std::string json = "{";
  for (const auto& [name, operand] : built.named) {
    const OperandDescriptor& desc = built.graph->operand(operand.id).desc;
    std::string shape;
    for (size_t i = 0; i < desc.shape.size(); ++i) {
      shape += (i ? "," : "") + std::to_string(desc.shape[i]);
    }
    const OperandNode::Kind kind = built.graph->operand(operand.id).kind;
    const char* kind_name = kind == OperandNode::Kind::kInput      ? "input"
                            : kind == OperandNode::Kind::kConstant ? "constant"
                                                                   : "output";
    json += std::string(json.size() > 1 ? ",\n" : "\n") + " \"" + name + "\": {\"kind\": \"" +
            kind_name + "\", \"dataType\": \"" + std::string(DataTypeName(desc.dataType)) +
            "\", \"shape\": [" + shape + "]}";
    if (const auto it = data.find(operand.id.value); it != data.end()) {
      const std::vector<std::byte> bytes = it->second.Bytes();
      std::ofstream out(dir / (name + ".bin"), std::ios::binary);
      out.write(reinterpret_cast<const char*>(bytes.data()),
                static_cast<std::streamsize>(bytes.size()));
      if (!out) throw std::runtime_error("cannot write " + (dir / (name + ".bin")).string());
    }
  }
  std::ofstream(dir / "operands.json") << json << "\n}\n";
  return dir.string();
}

struct Timing {
  double median_ms = 0, min_ms = 0;
  int calls_per_sample = 1;
};

// `warmup` untimed calls (at least one; the last one also sizes the samples), then `repeat`
// samples of k back-to-back calls, k chosen so a sample lasts about min_sample_ms (k = 1 when
// it is 0). Reports the median and minimum time per call over the samples.
Timing Measure(const std::function<void()>& fn, const Options& opt) {
  // Milliseconds: the wall clock, or with --cpu-time the CPU time of the whole process (every
  // thread's: on a loaded machine the steadier figure for one thread, not a speed-up measure).
  const auto now_ms = [&opt] {
    if (opt.cpu_time) {
      timespec ts{};
      clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
      return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
    }
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  double last_ms = 0;
  for (int i = 0; i < std::max(1, opt.warmup); ++i) {
    const double t0 = now_ms();
    fn();
    last_ms = now_ms() - t0;
  }
  Timing t;
  t.calls_per_sample = static_cast<int>(
      std::clamp(std::ceil(opt.min_sample_ms / std::max(last_ms, 1e-6)), 1.0, 10000.0));
  std::vector<double> per_call;
  for (int r = 0; r < std::max(1, opt.repeat); ++r) {
    const double t0 = now_ms();
    for (int k = 0; k < t.calls_per_sample; ++k) fn();
    const double ms = now_ms() - t0;
    per_call.push_back(ms / t.calls_per_sample);
  }
  std::sort(per_call.begin(), per_call.end());
  const size_t n = per_call.size();
  t.median_ms = n % 2 ? per_call[n / 2] : (per_call[n / 2 - 1] + per_call[n / 2]) / 2;
  t.min_ms = per_call.front();
  return t;
}

// The largest |a - b| over the elements, relative to the largest |b| (0 when b is all zero).
double RelativeDifference(const Tensor& a, const Tensor& b) {
  const Tensor ca = a.Contiguous(), cb = b.Contiguous();
  const float* pa = ca.base<float>();
  const float* pb = cb.base<float>();
  double diff = 0, scale = 0;
  for (uint64_t i = 0; i < cb.element_count(); ++i) {
    const double x = pa[i], y = pb[i];
    diff = std::isnan(x) != std::isnan(y) ? std::numeric_limits<double>::infinity()
                                          : std::max(diff, std::fabs(x - y));
    scale = std::max(scale, std::fabs(y));
  }
  return scale > 0 ? diff / scale : diff;
}

// A result of one variant: a timing, or why it was skipped.
struct VariantResult {
  std::optional<Timing> timing;
  std::string skip;
  double difference = 0;  // simd only: RelativeDifference against the reference result
};

constexpr double kMismatch = 1e-3;  // a difference this large means a wrong kernel, not rounding

std::string Ms(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, ms < 1 ? "%.4f" : ms < 100 ? "%.3f" : "%.1f", ms);
  return buf;
}

}  // namespace
}  // namespace nnref

int main(int argc, char** argv) {
  using namespace nnref;
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--repeat" && has_value) {
      opt.repeat = std::atoi(argv[++i]);
    } else if (a == "--reference-repeat" && has_value) {
      opt.reference_repeat = std::atoi(argv[++i]);
    } else if (a == "--warmup" && has_value) {
      opt.warmup = std::atoi(argv[++i]);
    } else if (a == "--min-sample-ms" && has_value) {
      opt.min_sample_ms = std::atof(argv[++i]);
    } else if (a == "--threads" && has_value) {
      opt.threads = static_cast<unsigned>(std::atoi(argv[++i]));
    } else if (a == "--only" && has_value) {
      std::stringstream ids(argv[++i]);
      for (std::string id; std::getline(ids, id, ',');) opt.only.push_back(id);
    } else if (a == "--filter" && has_value) {
      opt.filter = argv[++i];
    } else if (a == "--small") {
      opt.small = true;
    } else if (a == "--no-reference") {
      opt.reference = false;
    } else if (a == "--tsv") {
      opt.tsv = true;
    } else if (a == "--vulkan") {
      opt.vulkan = true;
    } else if (a == "--vulkan-native") {
      opt.vulkan = true;
      opt.vulkan_exact = false;
    } else if (a == "--cpu-time") {
      opt.cpu_time = true;
    } else if (a == "--per-operator") {
      opt.per_operator = true;
    } else if (a == "--cases" && has_value) {
      opt.cases_dir = argv[++i];
    } else if (a == "--export" && has_value) {
      opt.export_dir = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: nnref_bench [--repeat N] [--reference-repeat N] [--warmup N] "
                   "[--min-sample-ms X] [--threads N] [--only ID,ID] [--filter TEXT] [--small] "
                   "[--no-reference] [--vulkan] [--vulkan-native] [--tsv] [--cpu-time] "
                   "[--cases DIR] [--export DIR] [--per-operator]\n");
      return 2;
    }
  }
  const unsigned all_threads =
      opt.threads ? opt.threads : std::max(1u, std::thread::hardware_concurrency());
  const auto simd1 = MakeSimdBackend(BackendOptions{1});
  const auto simd_all = MakeSimdBackend(BackendOptions{all_threads});
  const std::vector<Bench> benches = MakeBenches(opt.small);
  // --vulkan: the vulkan backend in both arithmetic modes (one device each).
  std::vector<std::pair<std::string, std::shared_ptr<const Backend>>> vulkan;
  if (opt.vulkan) {
    for (const Arithmetic mode : {Arithmetic::kNative, Arithmetic::kExact}) {
      if (mode == Arithmetic::kExact && !opt.vulkan_exact) continue;
      BackendOptions o;
      o.arithmetic = mode;
      auto backend = MakeVulkanBackend(o);
      if (const std::optional<std::string> why = backend->Unavailable()) {
        std::fprintf(stderr, "nnref_bench: --vulkan: %s\n", why->c_str());
        return 2;
      }
      vulkan.emplace_back(mode == Arithmetic::kNative ? "vulkan_native" : "vulkan_exact",
                          std::move(backend));
    }
  }
  for (const std::string& id : opt.only) {
    if (std::none_of(benches.begin(), benches.end(), [&](const Bench& b) { return b.id == id; }) &&
        std::none_of(ModelBenches().begin(), ModelBenches().end(),
                     [&](const ModelBench& m) { return m.id == id; })) {
      std::fprintf(stderr, "nnref_bench: no benchmark '%s'\n", id.c_str());
      return 2;
    }
  }

  const std::string t_all = std::to_string(all_threads) + "T";
  if (opt.tsv) {
    std::printf("info\tthreads=%u\tsimd=%s\trepeat=%d\treference_repeat=%d", all_threads,
                simd_all->Describe().c_str(), opt.repeat,
                std::min(opt.repeat, opt.reference_repeat));
    for (const auto& [name, backend] : vulkan) {
      std::printf("\t%s=%s", name.c_str(), backend->Describe().c_str());
    }
    std::printf("\n");
  } else {
    std::printf("simd backend: %s\n", simd_all->Describe().c_str());
    for (const auto& [name, backend] : vulkan) {
      std::printf("%s: %s\n", name.c_str(), backend->Describe().c_str());
    }
    const std::string sample =
        opt.min_sample_ms > 0
            ? "at least " + std::to_string(opt.min_sample_ms) + " ms of back-to-back calls"
            : std::string("one call");
    std::printf(
        "ms per call: median of %d samples (reference: %d) after %d warm-up call(s) "
        "(reference: 1); a sample is %s\n\n",
        opt.repeat, std::min(opt.repeat, opt.reference_repeat), std::max(1, opt.warmup),
        sample.c_str());
    std::printf("%-50s %11s %11s %11s %8s %9s %10s\n", "benchmark", "reference", "simd 1T",
                ("simd " + t_all).c_str(), "speed-up", "GFLOP/s", "|simd-ref|");
  }
  // What to time, in order: the operator benchmarks, then the model blocks (not with --small
  // unless --only names them: they load and run the case's full-size weights).
  std::vector<std::function<Prepared()>> items;
  const auto selected = [&](const std::string& id, const std::string& label) {
    if (!opt.only.empty() && std::find(opt.only.begin(), opt.only.end(), id) == opt.only.end()) {
      return false;
    }
    return opt.filter.empty() || label.find(opt.filter) != std::string::npos;
  };
  for (const Bench& bench : benches) {
    if (!selected(bench.id, bench.label)) continue;
    items.push_back([&bench] {
      Prepared p;
      p.id = bench.id;
      p.label = bench.label;
      p.flops = bench.flops;
      auto builder = std::make_shared<GraphBuilder>();
      std::vector<Operand> operands;
      uint64_t seed = 10;
      for (const BenchOperand& o : bench.operands) {
        const OperandDescriptor desc{DataType::kFloat32, o.shape};
        const Tensor data = Random(o.shape, seed++);
        operands.push_back(o.constant ? builder->Constant(desc, data)
                                      : builder->Input(o.name, desc));
        if (!o.constant) p.inputs[o.name] = data;
        p.shapes += (p.shapes.empty() ? "" : ",") + o.name + ":" + Dims(o.shape) +
                    (o.constant ? ":const" : "");
      }
      p.graph = builder->Build({{"y", bench.build(*builder, operands)}});
      p.owner = builder;
      return p;
    });
  }
  for (const ModelBench& model : ModelBenches()) {
    const std::string label = "model " + model.case_name;
    const bool named = std::find(opt.only.begin(), opt.only.end(), model.id) != opt.only.end();
    if (!selected(model.id, label) || (opt.small && !named)) continue;
    items.push_back([&model, &opt, label] {
      const std::string file = opt.cases_dir + "/" + model.file;
      const CaseFile cf = LoadCaseFile(file);
      const auto c = std::find_if(cf.cases.begin(), cf.cases.end(),
                                  [&](const Case& k) { return k.name == model.case_name; });
      if (c == cf.cases.end()) {
        throw std::runtime_error(file + ": no case '" + model.case_name + "'");
      }
      auto built = std::make_shared<BuiltCase>(BuildCase(*c, RequestedOutputs(*c)));
      if (built->output_names.size() != 1) {
        throw std::runtime_error(c->Where() + ": a model benchmark needs one output");
      }
      Prepared p;
      p.id = model.id;
      p.label = label;
      p.flops = ProductFlops(*built->graph);
      // The graph's output is "y" as in the operator benchmarks: the case's own output name.
      for (const auto& [name, desc] : built->graph->input_descriptors()) {
        p.shapes += (p.shapes.empty() ? "" : ",") + name + ":" + Dims(desc.shape);
      }
      p.extra = "\tcase=" + file + "\tcase_name=" + model.case_name +
                "\toutput=" + built->output_names[0];
      if (!opt.export_dir.empty()) p.extra += "\texport=" + ExportCase(*c, *built, opt);
      p.graph = built->graph;
      p.inputs = built->input_values;
      p.owner = built;
      return p;
    });
  }

  bool mismatch = false;
  for (const auto& prepare : items) {
    Prepared bench;
    try {
      bench = prepare();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "nnref_bench: %s\n", e.what());
      return 2;
    }
    const std::shared_ptr<const Graph>& graph = bench.graph;
    const std::map<std::string, Tensor>& inputs = bench.inputs;
    const std::string& out_name = graph->outputs().front().first;
    const Tensor expected = graph->Compute(inputs).at(out_name).data;

    VariantResult ref;
    if (opt.reference) {
      Options ref_opt = opt;
      ref_opt.repeat = std::min(opt.repeat, opt.reference_repeat);
      ref_opt.warmup = std::min(opt.warmup, 1);
      ref.timing = Measure([&] { graph->Compute(inputs); }, ref_opt);
    } else {
      ref.skip = "--no-reference";
    }
    std::vector<VariantResult> simd(2);
    const std::shared_ptr<const Backend> backends[2] = {simd1, simd_all};
    for (int v = 0; v < 2; ++v) {
      std::string why;
      const std::optional<BackendGraph> compiled = CompileForBackend(*graph, backends[v], why);
      if (!compiled) {
        simd[v].skip = why;
        continue;
      }
      const auto run = [&] {
        return opt.per_operator ? graph->Compute(inputs, {}, compiled->kernels)
                                : ComputeOnBackend(*graph, *compiled, inputs);
      };
      simd[v].difference = RelativeDifference(run().at(out_name).data, expected);
      if (!(simd[v].difference <= kMismatch)) mismatch = true;
      simd[v].timing = Measure([&] { run(); }, opt);
    }
    std::vector<VariantResult> vk(vulkan.size());
    for (size_t v = 0; v < vulkan.size(); ++v) {
      std::string why;
      const std::optional<BackendGraph> compiled = CompileForBackend(*graph, vulkan[v].second, why);
      if (!compiled) {
        vk[v].skip = why;
        continue;
      }
      const auto run = [&] { return graph->Compute(inputs, {}, compiled->kernels); };
      vk[v].difference = RelativeDifference(run().at(out_name).data, expected);
      if (!(vk[v].difference <= kMismatch)) mismatch = true;
      vk[v].timing = Measure([&] { run(); }, opt);
    }

    if (opt.tsv) {
      std::printf("bench\tid=%s\tlabel=%s\tshapes=%s\tflops=%.0f%s", bench.id.c_str(),
                  bench.label.c_str(), bench.shapes.c_str(), bench.flops, bench.extra.c_str());
      const char* names[3] = {"reference", "simd1", "simd_all"};
      const VariantResult* results[3] = {&ref, &simd[0], &simd[1]};
      for (int v = 0; v < 3; ++v) {
        if (results[v]->timing) {
          std::printf("\t%s_ms=%.6g\t%s_min_ms=%.6g\t%s_calls=%d", names[v],
                      results[v]->timing->median_ms, names[v], results[v]->timing->min_ms, names[v],
                      results[v]->timing->calls_per_sample);
          if (v > 0) std::printf("\t%s_difference=%.3g", names[v], results[v]->difference);
        } else {
          std::printf("\t%s_skip=%s", names[v], results[v]->skip.c_str());
        }
      }
      for (size_t v = 0; v < vulkan.size(); ++v) {
        const char* name = vulkan[v].first.c_str();
        if (vk[v].timing) {
          std::printf("\t%s_ms=%.6g\t%s_min_ms=%.6g\t%s_difference=%.3g", name,
                      vk[v].timing->median_ms, name, vk[v].timing->min_ms, name, vk[v].difference);
        } else {
          std::printf("\t%s_skip=%s", name, vk[v].skip.c_str());
        }
      }
      std::printf("\n");
    } else {
      const std::string r = ref.timing ? Ms(ref.timing->median_ms) : "-";
      std::printf("%-50s %11s", bench.label.c_str(), r.c_str());
      if (!simd[0].timing || !simd[1].timing) {
        std::printf(" skip (%s)\n", (simd[0].timing ? simd[1] : simd[0]).skip.c_str());
      } else {
        const double t1 = simd[0].timing->median_ms, tn = simd[1].timing->median_ms;
        std::printf(
            " %11s %11s %7.2fx %9.2f %10.2g%s\n", Ms(t1).c_str(), Ms(tn).c_str(), t1 / tn,
            bench.flops / (t1 * 1e6), std::max(simd[0].difference, simd[1].difference),
            std::max(simd[0].difference, simd[1].difference) <= kMismatch ? "" : "  MISMATCH");
      }
      // The vulkan modes: time, and the ratio to simd's in this same run.
      for (size_t v = 0; v < vulkan.size(); ++v) {
        std::printf("  %-48s", vulkan[v].first.c_str());
        if (!vk[v].timing) {
          std::printf(" skip (%s)\n", vk[v].skip.c_str());
          continue;
        }
        const double t = vk[v].timing->median_ms;
        std::printf(" %11s", Ms(t).c_str());
        if (simd[0].timing && simd[1].timing) {
          std::printf("  = %.1fx simd 1T, %.1fx simd %s", t / simd[0].timing->median_ms,
                      t / simd[1].timing->median_ms, t_all.c_str());
        }
        std::printf("  |vulkan-ref| %.2g%s\n", vk[v].difference,
                    vk[v].difference <= kMismatch ? "" : "  MISMATCH");
      }
    }
    std::fflush(stdout);
  }
  if (mismatch) {
    std::fprintf(stderr,
                 "nnref_bench: a simd result differs from the reference by more than %g "
                 "of its largest magnitude (MISMATCH above)\n",
                 kMismatch);
    return 1;
  }
  return 0;
}
