// The random graph generator of `nnref fuzz` (runner/fuzz/graph_gen.h): its helpers, the
// seeded PRNG and the Generator class. Internal: graph_gen.cc runs it, gen_methods.cc draws the
// arguments of each builder method.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ops/registry.h"
#include "ref/error.h"
#include "runner/case.h"
#include "runner/data.h"
#include "runner/execute.h"
#include "runner/fuzz/graph_gen.h"
#include "runner/json.h"

namespace nnref::fuzz::gen {

inline Value Int(int64_t v) { return NumberValue(std::to_string(v)); }
inline Value Real(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return NumberValue(buf);
}
inline Value IntArray(const std::vector<int64_t>& v) {
  std::vector<Value> items;
  for (int64_t x : v) items.push_back(Int(x));
  return Value::Array(std::move(items));
}
inline Value ShapeArray(const Shape& s) {
  std::vector<Value> items;
  for (uint64_t x : s) items.push_back(Int(static_cast<int64_t>(x)));
  return Value::Array(std::move(items));
}
inline Value Str(const std::string& s) { return Value::Str(s); }
inline Value Obj(std::vector<std::pair<std::string, Value>> m) {
  return Value::Object(std::move(m));
}

// The methods with an argument generator; the rest are listed with the reason.
inline const std::vector<std::string> kGenerated = {"add",
                                                    "sub",
                                                    "mul",
                                                    "div",
                                                    "max",
                                                    "min",
                                                    "pow",
                                                    "equal",
                                                    "notEqual",
                                                    "greater",
                                                    "greaterOrEqual",
                                                    "lesser",
                                                    "lesserOrEqual",
                                                    "logicalNot",
                                                    "logicalAnd",
                                                    "logicalOr",
                                                    "logicalXor",
                                                    "isNaN",
                                                    "isInfinite",
                                                    "abs",
                                                    "ceil",
                                                    "cos",
                                                    "erf",
                                                    "exp",
                                                    "floor",
                                                    "identity",
                                                    "log",
                                                    "neg",
                                                    "reciprocal",
                                                    "roundEven",
                                                    "sin",
                                                    "sign",
                                                    "sqrt",
                                                    "tan",
                                                    "cast",
                                                    "clamp",
                                                    "where",
                                                    "matmul",
                                                    "gemm",
                                                    "linear",
                                                    "batchNormalization",
                                                    "instanceNormalization",
                                                    "layerNormalization",
                                                    "quantizeLinear",
                                                    "dequantizeLinear",
                                                    "conv2d",
                                                    "convTranspose2d",
                                                    "averagePool2d",
                                                    "l2Pool2d",
                                                    "maxPool2d",
                                                    "resample2d",
                                                    "elu",
                                                    "gelu",
                                                    "hardSigmoid",
                                                    "hardSwish",
                                                    "leakyRelu",
                                                    "prelu",
                                                    "relu",
                                                    "sigmoid",
                                                    "softplus",
                                                    "softsign",
                                                    "tanh",
                                                    "softmax",
                                                    "reduceL1",
                                                    "reduceL2",
                                                    "reduceLogSum",
                                                    "reduceLogSumExp",
                                                    "reduceMax",
                                                    "reduceMean",
                                                    "reduceMin",
                                                    "reduceProduct",
                                                    "reduceSum",
                                                    "reduceSumSquare",
                                                    "gruCell",
                                                    "lstmCell",
                                                    "gru",
                                                    "lstm",
                                                    "reshape",
                                                    "transpose",
                                                    "expand",
                                                    "slice",
                                                    "reverse",
                                                    "split",
                                                    "concat",
                                                    "pad",
                                                    "tile",
                                                    "triangular",
                                                    "gather",
                                                    "gatherElements",
                                                    "gatherND",
                                                    "scatterElements",
                                                    "scatterND",
                                                    "argMin",
                                                    "argMax",
                                                    "cumulativeSum"};

// The generator's own mappings of splitmix64 draws (fixed, so any platform gives the same graph).
class Rng {
 public:
  explicit Rng(uint64_t seed) : r_(seed) {}
  uint64_t Next() { return r_.Next(); }
  double Unit() { return r_.NextUnit(); }
  // [0, n), n > 0 (the multiply-shift mapping; its bias is irrelevant here).
  uint64_t Below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >> 64);
  }
  int64_t Range(int64_t lo, int64_t hi) {  // [lo, hi]
    return lo + static_cast<int64_t>(Below(static_cast<uint64_t>(hi - lo + 1)));
  }
  bool P(double p) { return Unit() < p; }
  // A magnitude spread over the decades [10^lo, 10^hi): m * 10^k with k uniform in [lo, hi) and m
  // uniform in [1, 10). Only IEEE operations (10^k by exact products, its reciprocal correctly
  // rounded), so the value is the same with every C library (std::pow is not).
  double LogUniform(int lo, int hi) {
    const int k = static_cast<int>(Range(lo, hi - 1));
    double p = 1;
    for (int i = 0; i < (k < 0 ? -k : k); ++i) p *= 10;  // exact up to 10^22
    const double m = Real(1, 10);
    return k < 0 ? m / p : m * p;
  }
  double Real(double lo, double hi) { return lo + (hi - lo) * Unit(); }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[Below(v.size())];
  }
  // Index by weights.
  size_t Weighted(const std::vector<double>& w) {
    double total = 0;
    for (double x : w) total += x;
    double u = Unit() * total;
    for (size_t i = 0; i < w.size(); ++i) {
      if (u < w[i]) return i;
      u -= w[i];
    }
    return w.size() - 1;
  }

 private:
  SplitMix64 r_;
};

inline std::string Text(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// A rejected draw (the builder would reject it, or it is too big): try another.
struct Reject {};

enum class Profile {
  kUnit,
  kMixed,
  kWide,
  kKinks,
  kIntegers,
  kCancel,
  kSubnormal,
  kLarge,
  kPositive,
  kProbability
};

class Generator {
 public:
  Generator(uint64_t seed, const GenOptions& options) : rng_(seed), options_(options) {}

  FuzzGraph Run(GenStats* stats) {
    std::vector<std::string> methods = options_.only.empty() ? kGenerated : options_.only;
    // Mostly short graphs, sometimes long ones: the count is max_ops * u^2, at least 1.
    const double u = rng_.Unit();
    const size_t want = 1 + static_cast<size_t>(u * u * static_cast<double>(options_.max_ops));
    size_t tries = 0;
    while (graph_.ops.size() < std::min(want, options_.max_ops) && tries < want * 10 + 10) {
      ++tries;
      const std::string& method = rng_.Pick(methods);
      auto& counts = stats ? stats->by_op[method] : scratch_[method];
      ++counts.first;
      const size_t inputs_before = graph_.inputs.size();
      const size_t pool_before = pool_.size();
      try {
        FuzzOp op = Draw(method);
        Add(op);
        graph_.ops.push_back(std::move(op));
        ++counts.second;
      } catch (const Reject&) {
        Rollback(inputs_before, pool_before);
      } catch (const WebnnError& e) {
        if (std::getenv("NNREF_FUZZ_DEBUG")) std::fprintf(stderr, "rejected: %s\n", e.what());
        Rollback(inputs_before, pool_before);
      } catch (const InputError& e) {
        // A malformed draw is the generator's bug: say so rather than hide it.
        throw InputError("fuzz generator: " + method + ": " + e.what());
      }
    }
    return std::move(graph_);
  }

 private:
  struct Avail {
    std::string name;
    OperandDescriptor desc;
  };

  void Rollback(size_t inputs_before, size_t pool_before) {
    graph_.inputs.resize(inputs_before);
    pool_.resize(pool_before);
  }

  // Calls the builder method; on success its outputs join the pool.
  void Add(FuzzOp& op) {
    OperatorSpec spec;
    spec.name = op.name;
    for (const auto& [k, v] : op.args) spec.args.emplace_back(k, &v);
    for (size_t i = 0; i < op.outputs.size(); ++i) {
      op.outputs[i] = "t" + std::to_string(next_name_++);
    }
    spec.outputs = op.outputs;
    AddCaseOperator(spec, builder_, built_, "fuzz: " + op.name);
    std::vector<Avail> out;
    for (const std::string& name : op.outputs) {
      const OperandDescriptor& d = builder_.Desc(built_.named.at(name));
      if (ElementCount(d.shape) > options_.max_elements) throw Reject{};
      out.push_back({name, d});
    }
    for (Avail& a : out) pool_.push_back(std::move(a));
  }

  // --- shapes ---

  uint64_t Dim() {
    switch (rng_.Weighted({6, 3, 1})) {
      case 0:
        return static_cast<uint64_t>(rng_.Range(1, 4));
      case 1:
        return static_cast<uint64_t>(rng_.Range(1, 9));
      default:
        return static_cast<uint64_t>(rng_.Range(10, 40));  // vector tails
    }
  }
  size_t Rank(size_t lo, size_t hi) {
    hi = std::min<size_t>(hi, 5);
    if (lo > hi) throw Reject{};
    static const std::vector<double> w = {1, 3, 5, 5, 5, 1};
    std::vector<double> ws(w.begin() + static_cast<long>(lo),
                           w.begin() + static_cast<long>(hi) + 1);
    return lo + rng_.Weighted(ws);
  }
  Shape RandomShape(size_t rank) {
    for (int attempt = 0; attempt < 8; ++attempt) {
      Shape s;
      for (size_t i = 0; i < rank; ++i) s.push_back(Dim());
      if (ElementCount(s) <= options_.max_elements / 2) return s;
    }
    return Shape(rank, 1);
  }
  // A shape that broadcasts to `s` (bidirectionally): a suffix with some dims set to 1.
  Shape BroadcastableTo(const Shape& s) {
    const size_t r = static_cast<size_t>(rng_.Range(0, static_cast<int64_t>(s.size())));
    Shape b(s.end() - static_cast<long>(r), s.end());
    for (uint64_t& d : b) {
      if (rng_.P(0.3)) d = 1;
    }
    return b;
  }

  // --- types ---

  std::vector<DataType> Types(const std::string& op, const std::string& operand = "") {
    const OpInfo* info = FindOp(op);
    const TensorLimits* l = nullptr;
    if (info && !info->limits->operands.empty()) {
      l = operand.empty() ? &info->limits->operands[0] : info->limits->Find(operand);
    }
    const DataTypeSet set = (!l || l->types.empty()) ? DataTypeSet::All() : l->types;
    std::vector<DataType> types;
    for (DataType t : set.List()) {
      const bool first = !info || info->limits->operands.empty() || l == &info->limits->operands[0];
      if (!options_.supported || !first || options_.supported(op, t)) types.push_back(t);
    }
    return types;
  }
  DataType PickType(const std::vector<DataType>& types) {
    if (types.empty()) throw Reject{};
    // Float types are where the numerics are: weight them up.
    std::vector<double> w;
    for (DataType t : types)
      w.push_back(t == DataType::kFloat32 ? 4 : t == DataType::kFloat16 ? 3 : 1);
    return types[rng_.Weighted(w)];
  }

  // --- data ---

  double FloatValue(Profile p, DataType t, uint64_t i, double prev) {
    const bool half = t == DataType::kFloat16;
    switch (p) {
      case Profile::kUnit:
        return rng_.Real(-1, 1);
      case Profile::kWide: {
        return (rng_.P(0.5) ? -1 : 1) * (half ? rng_.LogUniform(-4, 4) : rng_.LogUniform(-8, 8));
      }
      case Profile::kKinks: {
        static const std::vector<double> k = {0, 1, -1, 3, -3, 0.5, -0.5, 6, -6, 2, -2, 1.5};
        double v = rng_.Pick(k);
        if (rng_.P(0.2)) return std::signbit(v) || v != 0 ? v : -0.0;
        if (rng_.P(0.5))
          v += (rng_.P(0.5) ? -1 : 1) * (half ? 1e-3 : 1e-7) * (v == 0 ? 1 : std::fabs(v));
        return v;
      }
      case Profile::kIntegers: {
        const double v = static_cast<double>(rng_.Range(-8, 8));
        return rng_.P(0.3) ? v + 0.5 : v;  // ties of rounding
      }
      case Profile::kCancel:
        if (i % 2 == 1) return -prev * (1 + (half ? 1e-3 : 1e-6) * rng_.Real(-1, 1));
        return (rng_.P(0.5) ? -1 : 1) * (half ? rng_.LogUniform(0, 3) : rng_.LogUniform(0, 6));
      case Profile::kSubnormal:
        if (rng_.P(0.5)) return rng_.Real(-1, 1);
        return (rng_.P(0.5) ? -1 : 1) * (half ? rng_.Real(0, 6e-5) : rng_.Real(0, 1.1e-38));
      case Profile::kLarge:
        // Large, but with products of two still finite in float32 (a product that overflows
        // while the exact sum is finite is a known reading: docs/fuzzing.md).
        return (rng_.P(0.5) ? -1 : 1) * (half ? rng_.Real(1e2, 2e3) : rng_.LogUniform(12, 18));
      case Profile::kPositive:
        return rng_.LogUniform(-2, 1);
      case Profile::kProbability:
        return rng_.Real(0.01, 1);
      case Profile::kMixed: {
        if (rng_.P(0.01)) return rng_.Pick(std::vector<double>{NAN, INFINITY, -INFINITY});
        static const std::vector<Profile> all = {Profile::kUnit,      Profile::kWide,
                                                 Profile::kKinks,     Profile::kIntegers,
                                                 Profile::kSubnormal, Profile::kLarge};
        return FloatValue(rng_.Pick(all), t, i, prev);
      }
    }
    return 0;
  }

  std::string IntText(Profile p, DataType t) {
    int64_t lo = 0;
    uint64_t hi = 0;
    switch (t) {
      case DataType::kInt8:
        lo = -128;
        hi = 127;
        break;
      case DataType::kUint8:
        lo = 0;
        hi = 255;
        break;
      case DataType::kInt32:
        lo = INT32_MIN;
        hi = INT32_MAX;
        break;
      case DataType::kUint32:
        lo = 0;
        hi = UINT32_MAX;
        break;
      case DataType::kInt64:
        lo = INT64_MIN;
        hi = INT64_MAX;
        break;
      default:
        lo = 0;
        hi = UINT64_MAX;
        break;
    }
    if (p == Profile::kLarge || (p == Profile::kMixed && rng_.P(0.1))) {
      // Extremes of the type (wrap-around, saturation).
      const uint64_t d = static_cast<uint64_t>(rng_.Range(0, 3));
      if (rng_.P(0.5))
        return lo < 0 ? std::to_string(lo + static_cast<int64_t>(d)) : std::to_string(d);
      return std::to_string(hi - d);
    }
    if (p == Profile::kWide) {
      if (lo < 0)
        return std::to_string(rng_.Range(
            std::max<int64_t>(lo, -100000),
            std::min<int64_t>(static_cast<int64_t>(std::min<uint64_t>(hi, 100000)), 100000)));
      return std::to_string(rng_.Below(std::min<uint64_t>(hi, 100000) + 1));
    }
    // Small values: ties for argMin/argMax, exact arithmetic.
    if (lo < 0) return std::to_string(rng_.Range(-4, 4));
    return std::to_string(rng_.Range(0, 6));
  }

  Profile PickProfile(DataType t) {
    if (IsInteger(t)) {
      static const std::vector<Profile> p = {Profile::kUnit, Profile::kWide, Profile::kLarge,
                                             Profile::kMixed};
      return p[rng_.Weighted({6, 2, 1, 2})];
    }
    static const std::vector<Profile> p = {
        Profile::kUnit,      Profile::kMixed,    Profile::kWide,
        Profile::kKinks,     Profile::kIntegers, Profile::kCancel,
        Profile::kSubnormal, Profile::kLarge,    Profile::kPositive};
    return p[rng_.Weighted({30, 20, 10, 10, 10, 5, 5, 3, 7})];
  }

  Tensor MakeData(const OperandDescriptor& d, Profile p, std::vector<Value>& items) {
    const uint64_t n = ElementCount(d.shape);
    double prev = 0;
    for (uint64_t i = 0; i < n; ++i) {
      if (IsFloat(d.dataType)) {
        const double v = FloatValue(p, d.dataType, i, prev);
        prev = v;
        const std::string t = Text(v);
        items.push_back(std::isfinite(v) ? NumberValue(t) : Value::Str(t));
      } else {
        const std::string t = IntText(p, d.dataType);
        // Beyond 2^53 a JSON number is not exact: the decimal string form.
        items.push_back(t.size() > 15 ? Value::Str(t) : NumberValue(t));
      }
    }
    const Value data = Value::Array(std::move(items));
    return DecodeTensorData(data, d.dataType, d.shape, "fuzz: data", "");
  }

  // A new graph input (or constant) with data; joins the pool.
  std::string NewInput(const OperandDescriptor& d, std::optional<Profile> profile = {},
                       std::optional<bool> constant = {}) {
    if (ElementCount(d.shape) > options_.max_elements) throw Reject{};
    FuzzTensor t;
    t.name = "in" + std::to_string(next_name_++);
    t.desc = d;
    t.constant = constant ? *constant : rng_.P(0.25);
    std::vector<Value> items;
    t.data = MakeData(d, profile ? *profile : PickProfile(d.dataType), items);
    return AddTensor(std::move(t));
  }
  // A new input with the given values (indices and such).
  std::string NewInputValues(const OperandDescriptor& d, const std::vector<int64_t>& values,
                             bool constant) {
    FuzzTensor t;
    t.name = "in" + std::to_string(next_name_++);
    t.desc = d;
    t.constant = constant;
    std::vector<Value> items;
    for (int64_t v : values) items.push_back(Int(v));
    t.data =
        DecodeTensorData(Value::Array(std::move(items)), d.dataType, d.shape, "fuzz: data", "");
    return AddTensor(std::move(t));
  }
  std::string AddTensor(FuzzTensor t) {
    Operand o = t.constant ? builder_.Constant(t.desc, t.data) : builder_.Input(t.name, t.desc);
    built_.named[t.name] = o;
    pool_.push_back({t.name, t.desc});
    const std::string name = t.name;
    graph_.inputs.push_back(std::move(t));
    return name;
  }

  // An operand of one of `types` with rank in [lo, hi]: from the pool (recent ones preferred) or a
  // new input.
  std::string Src(const std::vector<DataType>& types, size_t lo = 0, size_t hi = 5,
                  const std::function<bool(const OperandDescriptor&)>& fits = {}) {
    if (!pool_.empty() && rng_.P(0.75)) {
      for (int attempt = 0; attempt < 6; ++attempt) {
        const double u = rng_.Unit();
        const size_t back = static_cast<size_t>(u * u * static_cast<double>(pool_.size()));
        const Avail& a = pool_[pool_.size() - 1 - std::min(back, pool_.size() - 1)];
        if (std::find(types.begin(), types.end(), a.desc.dataType) != types.end() &&
            a.desc.shape.size() >= lo && a.desc.shape.size() <= hi && (!fits || fits(a.desc))) {
          return a.name;
        }
      }
    }
    OperandDescriptor d{PickType(types), RandomShape(Rank(lo, hi))};
    if (fits && !fits(d)) throw Reject{};
    return NewInput(d);
  }
  // An operand of exactly `d`: from the pool or new.
  std::string OperandOf(const OperandDescriptor& d, std::optional<Profile> profile = {}) {
    if (!profile && rng_.P(0.5)) {
      std::vector<const Avail*> match;
      for (const Avail& a : pool_) {
        if (a.desc == d) match.push_back(&a);
      }
      if (!match.empty()) return rng_.Pick(match)->name;
    }
    return NewInput(d, profile);
  }
  const OperandDescriptor& DescOf(const std::string& name) {
    for (const Avail& a : pool_) {
      if (a.name == name) return a.desc;
    }
    throw Reject{};
  }

  std::vector<int64_t> Axes(size_t rank, bool allow_empty) {
    std::vector<int64_t> axes;
    for (size_t i = 0; i < rank; ++i) {
      if (rng_.P(0.5)) axes.push_back(static_cast<int64_t>(i));
    }
    if (axes.empty() && !allow_empty && rank > 0)
      axes.push_back(rng_.Range(0, static_cast<int64_t>(rank) - 1));
    return axes;
  }
  std::vector<int64_t> Permutation(size_t n) {
    std::vector<int64_t> p(n);
    std::iota(p.begin(), p.end(), 0);
    for (size_t i = n; i > 1; --i) std::swap(p[i - 1], p[rng_.Below(i)]);
    return p;
  }

  FuzzOp Op(const std::string& name, std::vector<std::pair<std::string, Value>> args,
            size_t outputs = 1) {
    FuzzOp op;
    op.name = name;
    op.args = std::move(args);
    op.outputs.resize(outputs);
    return op;
  }

  // --- the methods ---
  FuzzOp Draw(const std::string& m);
  // Indices in [-dim, dim) (or [0, dim) for unsigned types), mostly non-negative.
  int64_t Index(uint64_t dim, DataType t);
  FuzzOp Indexing(const std::string& m);
  FuzzOp Conv(const std::string& m);
  FuzzOp Pool(const std::string& m);
  FuzzOp Recurrent(const std::string& m);

  Rng rng_;
  GenOptions options_;
  GraphBuilder builder_;
  BuiltCase built_;
  FuzzGraph graph_;
  std::vector<Avail> pool_;
  uint64_t next_name_ = 0;
  std::map<std::string, std::pair<uint64_t, uint64_t>> scratch_;
};

}  // namespace nnref::fuzz::gen
