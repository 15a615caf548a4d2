// The argument generators of `nnref fuzz`, one per builder method family (runner/fuzz/generator.h).
#include "runner/fuzz/generator.h"

namespace nnref::fuzz::gen {

namespace {
// The generators are handed method names from the registry's list, so every name parses.
OpId MethodId(const std::string& m) {
  const std::optional<OpId> id = ParseOpId(m);
  if (!id) throw std::logic_error("fuzz: '" + m + "' is not a builder method");
  return *id;
}
}  // namespace

FuzzOp Generator::Draw(const std::string& m) {
  const OpId id = MethodId(m);
  static const std::set<OpId> binary = {OpId::add,
                                        OpId::sub,
                                        OpId::mul,
                                        OpId::div,
                                        OpId::max,
                                        OpId::min,
                                        OpId::pow,
                                        OpId::equal,
                                        OpId::notEqual,
                                        OpId::greater,
                                        OpId::greaterOrEqual,
                                        OpId::lesser,
                                        OpId::lesserOrEqual,
                                        OpId::logicalAnd,
                                        OpId::logicalOr,
                                        OpId::logicalXor};
  static const std::set<OpId> unary = {
      OpId::logicalNot, OpId::isNaN,   OpId::isInfinite, OpId::abs,       OpId::ceil,
      OpId::cos,        OpId::erf,     OpId::exp,        OpId::floor,     OpId::identity,
      OpId::log,        OpId::neg,     OpId::reciprocal, OpId::roundEven, OpId::sin,
      OpId::sign,       OpId::sqrt,    OpId::tan,        OpId::gelu,      OpId::hardSwish,
      OpId::relu,       OpId::sigmoid, OpId::softplus,   OpId::softsign,  OpId::tanh};
  if (binary.count(id)) {
    const std::string a = Src(Types(m, "a"));
    const OperandDescriptor da = DescOf(a);
    const std::string b = OperandOf({da.dataType, BroadcastableTo(da.shape)});
    if (rng_.P(0.5)) return Op(m, {{"a", Str(b)}, {"b", Str(a)}});
    return Op(m, {{"a", Str(a)}, {"b", Str(b)}});
  }
  if (unary.count(id)) return Op(m, {{"input", Str(Src(Types(m)))}});
  if (id == OpId::cast) {
    static const std::vector<std::string> types = {"float32", "float16", "int32", "uint32",
                                                   "int64",   "uint64",  "int8",  "uint8"};
    return Op(m, {{"input", Str(Src(Types(m)))}, {"type", Str(rng_.Pick(types))}});
  }
  if (id == OpId::clamp) {
    const std::string x = Src(Types(m));
    const bool integer = IsInteger(DescOf(x).dataType);
    std::vector<std::pair<std::string, Value>> o;
    double lo = integer ? static_cast<double>(rng_.Range(-5, 3)) : rng_.Real(-3, 1);
    double hi = integer ? lo + static_cast<double>(rng_.Range(0, 6)) : lo + rng_.Real(0, 4);
    if (IsInteger(DescOf(x).dataType) &&
        (DescOf(x).dataType == DataType::kUint8 || DescOf(x).dataType == DataType::kUint32 ||
         DescOf(x).dataType == DataType::kUint64)) {
      lo = std::fabs(lo);
      hi = lo + std::fabs(hi);
    }
    if (rng_.P(0.8)) o.emplace_back("minValue", integer ? Int(static_cast<int64_t>(lo)) : Real(lo));
    if (rng_.P(0.8)) o.emplace_back("maxValue", integer ? Int(static_cast<int64_t>(hi)) : Real(hi));
    return Op(m, {{"input", Str(x)}, {"options", Obj(std::move(o))}});
  }
  if (id == OpId::where) {
    const std::string t = Src(Types(m, "trueValue"));
    const OperandDescriptor dt = DescOf(t);
    const std::string f = OperandOf({dt.dataType, BroadcastableTo(dt.shape)});
    const Shape cs = BroadcastableTo(dt.shape);
    const std::string c = OperandOf({DataType::kUint8, cs});
    return Op(m, {{"condition", Str(c)}, {"trueValue", Str(t)}, {"falseValue", Str(f)}});
  }
  if (id == OpId::matmul) {
    const DataType t = PickType(Types(m, "a"));
    const size_t r = Rank(2, 4);
    Shape a = RandomShape(r);
    const uint64_t n = Dim();
    Shape b(a.end() - 2, a.end());
    b = {a[r - 1], n};
    // Batch dims of b: a broadcastable suffix of a's.
    const Shape batch(a.begin(), a.end() - 2);
    Shape bb = BroadcastableTo(batch);
    bb.insert(bb.end(), b.begin(), b.end());
    std::string sa = OperandOf({t, a}), sb = OperandOf({t, bb});
    if (rng_.P(0.3)) {
      // Swap the batch roles.
      Shape a2 = bb;
      a2[a2.size() - 2] = a[r - 2];
      a2[a2.size() - 1] = a[r - 1];
      Shape b2 = a;
      b2[r - 2] = a[r - 1];
      b2[r - 1] = n;
      sa = OperandOf({t, a2});
      sb = OperandOf({t, b2});
    }
    return Op(m, {{"a", Str(sa)}, {"b", Str(sb)}});
  }
  if (id == OpId::gemm) {
    const DataType t = PickType(Types(m, "a"));
    const uint64_t M = Dim(), K = Dim(), N = Dim();
    const bool at = rng_.P(0.3), bt = rng_.P(0.3);
    std::vector<std::pair<std::string, Value>> o;
    if (rng_.P(0.5)) o.emplace_back("c", Str(OperandOf({t, BroadcastableTo({M, N})})));
    if (rng_.P(0.3)) o.emplace_back("alpha", Real(rng_.Real(-2, 2)));
    if (rng_.P(0.3)) o.emplace_back("beta", Real(rng_.Real(-2, 2)));
    if (at) o.emplace_back("aTranspose", Value::Bool(true));
    if (bt) o.emplace_back("bTranspose", Value::Bool(true));
    const std::string a = OperandOf({t, at ? Shape{K, M} : Shape{M, K}});
    const std::string b = OperandOf({t, bt ? Shape{N, K} : Shape{K, N}});
    return Op(m, {{"a", Str(a)}, {"b", Str(b)}, {"options", Obj(std::move(o))}});
  }
  if (id == OpId::linear || id == OpId::elu || id == OpId::leakyRelu || id == OpId::hardSigmoid) {
    std::vector<std::pair<std::string, Value>> o;
    if (m != "elu" || rng_.P(0.7)) {
      if (rng_.P(0.7)) o.emplace_back("alpha", Real(rng_.Real(-2, 2)));
    }
    if ((id == OpId::linear || id == OpId::hardSigmoid) && rng_.P(0.7))
      o.emplace_back("beta", Real(rng_.Real(-2, 2)));
    return Op(m, {{"input", Str(Src(Types(m)))}, {"options", Obj(std::move(o))}});
  }
  if (id == OpId::prelu) {
    const std::string x = Src(Types(m, "input"));
    const OperandDescriptor d = DescOf(x);
    Shape s = BroadcastableTo(d.shape);
    return Op(m, {{"input", Str(x)}, {"slope", Str(OperandOf({d.dataType, s}))}});
  }
  if (id == OpId::softmax) {
    const std::string x = Src(Types(m), 1, 5);
    const int64_t r = static_cast<int64_t>(DescOf(x).shape.size());
    return Op(m, {{"input", Str(x)}, {"axis", Int(rng_.Range(0, r - 1))}});
  }
  static const std::set<OpId> reductions = {
      OpId::reduceL1,  OpId::reduceL2,       OpId::reduceLogSum, OpId::reduceLogSumExp,
      OpId::reduceMax, OpId::reduceMean,     OpId::reduceMin,    OpId::reduceProduct,
      OpId::reduceSum, OpId::reduceSumSquare};
  if (reductions.count(id)) {
    const std::string x = Src(Types(m));
    const size_t r = DescOf(x).shape.size();
    std::vector<std::pair<std::string, Value>> o;
    if (rng_.P(0.8)) {
      std::vector<int64_t> axes = Axes(r, true);
      if (rng_.P(0.3)) std::reverse(axes.begin(), axes.end());
      o.emplace_back("axes", IntArray(axes));
    }
    if (rng_.P(0.5)) o.emplace_back("keepDimensions", Value::Bool(rng_.P(0.5)));
    return Op(m, {{"input", Str(x)}, {"options", Obj(std::move(o))}});
  }
  if (id == OpId::argMin || id == OpId::argMax) {
    const std::string x = Src(Types(m), 0, 5);
    const int64_t r = static_cast<int64_t>(DescOf(x).shape.size());
    if (r == 0) throw Reject{};
    std::vector<std::pair<std::string, Value>> o;
    if (rng_.P(0.5)) o.emplace_back("keepDimensions", Value::Bool(rng_.P(0.5)));
    if (rng_.P(0.5)) o.emplace_back("outputDataType", Str(rng_.P(0.5) ? "int32" : "int64"));
    return Op(
        m,
        {{"input", Str(x)}, {"axis", Int(rng_.Range(0, r - 1))}, {"options", Obj(std::move(o))}});
  }
  if (id == OpId::cumulativeSum) {
    const std::string x = Src(Types(m), 1, 5);
    const int64_t r = static_cast<int64_t>(DescOf(x).shape.size());
    std::vector<std::pair<std::string, Value>> o;
    if (rng_.P(0.5)) o.emplace_back("exclusive", Value::Bool(rng_.P(0.5)));
    if (rng_.P(0.5)) o.emplace_back("reversed", Value::Bool(rng_.P(0.5)));
    return Op(
        m,
        {{"input", Str(x)}, {"axis", Int(rng_.Range(0, r - 1))}, {"options", Obj(std::move(o))}});
  }
  if (id == OpId::batchNormalization) {
    const std::string x = Src(Types(m), 1, 5);
    const OperandDescriptor d = DescOf(x);
    const int64_t axis = rng_.Range(0, static_cast<int64_t>(d.shape.size()) - 1);
    const OperandDescriptor v{d.dataType, {d.shape[static_cast<size_t>(axis)]}};
    std::vector<std::pair<std::string, Value>> o;
    if (axis != 1 || rng_.P(0.3)) o.emplace_back("axis", Int(axis));
    if (rng_.P(0.5)) o.emplace_back("scale", Str(OperandOf(v)));
    if (rng_.P(0.5)) o.emplace_back("bias", Str(OperandOf(v)));
    if (rng_.P(0.3)) o.emplace_back("epsilon", Real(rng_.LogUniform(-6, -1)));
    return Op(m, {{"input", Str(x)},
                  {"mean", Str(OperandOf(v))},
                  {"variance", Str(NewInput(v, Profile::kPositive))},
                  {"options", Obj(std::move(o))}});
  }
  if (id == OpId::instanceNormalization) {
    const std::string x = Src(Types(m), 4, 4);
    const OperandDescriptor d = DescOf(x);
    const bool nhwc = rng_.P(0.4);
    const OperandDescriptor v{d.dataType, {d.shape[nhwc ? 3 : 1]}};
    std::vector<std::pair<std::string, Value>> o;
    if (rng_.P(0.6)) o.emplace_back("scale", Str(OperandOf(v)));
    if (rng_.P(0.6)) o.emplace_back("bias", Str(OperandOf(v)));
    if (rng_.P(0.3)) o.emplace_back("epsilon", Real(rng_.LogUniform(-6, -1)));
    if (nhwc || rng_.P(0.3)) o.emplace_back("layout", Str(nhwc ? "nhwc" : "nchw"));
    return Op(m, {{"input", Str(x)}, {"options", Obj(std::move(o))}});
  }
  if (id == OpId::layerNormalization) {
    const std::string x = Src(Types(m));
    const OperandDescriptor d = DescOf(x);
    std::vector<std::pair<std::string, Value>> o;
    std::vector<int64_t> axes;
    if (rng_.P(0.7)) {
      axes = Axes(d.shape.size(), true);
      o.emplace_back("axes", IntArray(axes));
    } else {
      for (size_t i = 1; i < d.shape.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    }
    Shape s;
    for (int64_t a : axes) s.push_back(d.shape[static_cast<size_t>(a)]);
    if (rng_.P(0.6)) o.emplace_back("scale", Str(OperandOf({d.dataType, s})));
    if (rng_.P(0.6)) o.emplace_back("bias", Str(OperandOf({d.dataType, s})));
    if (rng_.P(0.3)) o.emplace_back("epsilon", Real(rng_.LogUniform(-6, -1)));
    return Op(m, {{"input", Str(x)}, {"options", Obj(std::move(o))}});
  }
  if (id == OpId::quantizeLinear || id == OpId::dequantizeLinear) {
    const bool q = id == OpId::quantizeLinear;
    const std::string x = Src(Types(m, "input"));
    const OperandDescriptor d = DescOf(x);
    // scale/zeroPoint: the input's rank (the builder requires it), each dimension 1, equal, or
    // a divisor (blocks).
    Shape s = d.shape;
    for (uint64_t& dim : s) {
      const int k = static_cast<int>(rng_.Below(3));
      if (k == 0) dim = 1;
      if (k == 2 && dim % 2 == 0) dim /= 2;
    }
    const DataType scale_type = q ? d.dataType : PickType(Types(m, "scale"));
    const DataType zp_type = q ? PickType(Types(m, "zeroPoint")) : d.dataType;
    const std::string scale = NewInput({scale_type, s}, Profile::kProbability);
    const std::string zp = NewInput({zp_type, s}, Profile::kUnit);
    return Op(m, {{"input", Str(x)}, {"scale", Str(scale)}, {"zeroPoint", Str(zp)}});
  }
  if (id == OpId::conv2d || id == OpId::convTranspose2d) return Conv(m);
  if (id == OpId::averagePool2d || id == OpId::l2Pool2d || id == OpId::maxPool2d) return Pool(m);
  if (id == OpId::resample2d) {
    const std::string x = Src(Types(m), 4, 4);
    const OperandDescriptor d = DescOf(x);
    std::vector<std::pair<std::string, Value>> o;
    if (rng_.P(0.5)) o.emplace_back("mode", Str(rng_.P(0.5) ? "linear" : "nearest-neighbor"));
    static const std::vector<std::vector<int64_t>> axes_choices = {{2, 3}, {1, 2}, {0, 1}, {3, 2}};
    const std::vector<int64_t> axes = rng_.Pick(axes_choices);
    if (axes != std::vector<int64_t>{2, 3} || rng_.P(0.2)) o.emplace_back("axes", IntArray(axes));
    if (rng_.P(0.5)) {
      static const std::vector<double> scales = {0.5, 1, 1.5, 2, 3, 0.75, 1.25};
      std::vector<Value> sv = {Real(rng_.Pick(scales)), Real(rng_.Pick(scales))};
      o.emplace_back("scales", Value::Array(std::move(sv)));
    } else {
      std::vector<int64_t> sizes;
      for (int64_t a : axes) {
        const uint64_t in = d.shape[static_cast<size_t>(a)];
        sizes.push_back(std::max<int64_t>(1, static_cast<int64_t>(in) + rng_.Range(-2, 4)));
      }
      o.emplace_back("sizes", IntArray(sizes));
    }
    return Op(m, {{"input", Str(x)}, {"options", Obj(std::move(o))}});
  }
  if (id == OpId::gruCell || id == OpId::lstmCell || id == OpId::gru || id == OpId::lstm)
    return Recurrent(m);
  if (id == OpId::reshape) {
    const std::string x = Src(Types(m));
    uint64_t n = ElementCount(DescOf(x).shape);
    Shape s;
    // Factor n into a random shape of rank 0..5.
    const size_t r = Rank(n == 1 ? 0 : 1, 5);
    for (size_t i = 0; i + 1 < r; ++i) {
      std::vector<uint64_t> divisors;
      for (uint64_t k = 1; k <= n; ++k) {
        if (n % k == 0) divisors.push_back(k);
      }
      const uint64_t k = rng_.Pick(divisors);
      s.push_back(k);
      n /= k;
    }
    if (r > 0) s.push_back(n);
    return Op(m, {{"input", Str(x)}, {"newShape", ShapeArray(s)}});
  }
  if (id == OpId::transpose) {
    const std::string x = Src(Types(m));
    std::vector<std::pair<std::string, Value>> o;
    if (rng_.P(0.8)) o.emplace_back("permutation", IntArray(Permutation(DescOf(x).shape.size())));
    return Op(m, {{"input", Str(x)}, {"options", Obj(std::move(o))}});
  }
  if (id == OpId::expand) {
    const std::string x = Src(Types(m));
    Shape s = DescOf(x).shape;
    for (uint64_t& dim : s) {
      if (dim == 1 && rng_.P(0.5)) dim = Dim();
    }
    const size_t extra = static_cast<size_t>(rng_.Range(0, 2));
    for (size_t i = 0; i < extra && s.size() < 5; ++i) s.insert(s.begin(), Dim());
    return Op(m, {{"input", Str(x)}, {"newShape", ShapeArray(s)}});
  }
  if (id == OpId::slice) {
    const std::string x = Src(Types(m));
    const Shape& s = DescOf(x).shape;
    std::vector<int64_t> starts, sizes, strides;
    bool strided = rng_.P(0.4);
    for (uint64_t dim : s) {
      const int64_t d = static_cast<int64_t>(dim);
      const int64_t stride = strided ? rng_.Range(1, 3) : 1;
      const int64_t start = rng_.Range(0, d - 1);
      const int64_t max_size = (d - 1 - start) / stride + 1;
      starts.push_back(start);
      sizes.push_back(rng_.Range(1, max_size));
      strides.push_back(stride);
    }
    std::vector<std::pair<std::string, Value>> args = {
        {"input", Str(x)}, {"starts", IntArray(starts)}, {"sizes", IntArray(sizes)}};
    if (strided) args.emplace_back("options", Obj({{"strides", IntArray(strides)}}));
    return Op(m, std::move(args));
  }
  if (id == OpId::reverse) {
    const std::string x = Src(Types(m));
    std::vector<std::pair<std::string, Value>> o;
    if (rng_.P(0.7)) o.emplace_back("axes", IntArray(Axes(DescOf(x).shape.size(), true)));
    return Op(m, {{"input", Str(x)}, {"options", Obj(std::move(o))}});
  }
  if (id == OpId::split) {
    const std::string x = Src(Types(m), 1, 5);
    const Shape& s = DescOf(x).shape;
    const int64_t axis = rng_.Range(0, static_cast<int64_t>(s.size()) - 1);
    const uint64_t dim = s[static_cast<size_t>(axis)];
    std::vector<std::pair<std::string, Value>> o;
    if (axis != 0 || rng_.P(0.3)) o.emplace_back("axis", Int(axis));
    if (rng_.P(0.4)) {
      std::vector<uint64_t> divisors;
      for (uint64_t k = 1; k <= std::min<uint64_t>(dim, 6); ++k) {
        if (dim % k == 0) divisors.push_back(k);
      }
      const uint64_t k = rng_.Pick(divisors);
      return Op(m,
                {{"input", Str(x)},
                 {"splits", Int(static_cast<int64_t>(k))},
                 {"options", Obj(std::move(o))}},
                k);
    }
    std::vector<int64_t> parts;
    int64_t left = static_cast<int64_t>(dim);
    while (left > 0 && parts.size() < 5) {
      const int64_t p = parts.size() == 4 ? left : rng_.Range(1, left);
      parts.push_back(p);
      left -= p;
    }
    const size_t n = parts.size();
    return Op(m, {{"input", Str(x)}, {"splits", IntArray(parts)}, {"options", Obj(std::move(o))}},
              n);
  }
  if (id == OpId::concat) {
    const std::string x = Src(Types(m, "inputs"), 1, 5);
    const OperandDescriptor d = DescOf(x);
    const int64_t axis = rng_.Range(0, static_cast<int64_t>(d.shape.size()) - 1);
    std::vector<Value> inputs = {Str(x)};
    const size_t n = static_cast<size_t>(rng_.Range(0, 3));
    for (size_t i = 0; i < n; ++i) {
      OperandDescriptor e = d;
      if (rng_.P(0.7)) e.shape[static_cast<size_t>(axis)] = Dim();
      inputs.push_back(Str(OperandOf(e)));
    }
    std::rotate(inputs.begin(), inputs.begin() + static_cast<long>(rng_.Below(inputs.size())),
                inputs.end());
    return Op(m, {{"inputs", Value::Array(std::move(inputs))}, {"axis", Int(axis)}});
  }
  if (id == OpId::pad) {
    const std::string x = Src(Types(m));
    const Shape& s = DescOf(x).shape;
    static const std::vector<std::string> modes = {"constant", "edge", "reflection"};
    const std::string mode = rng_.Pick(modes);
    std::vector<int64_t> b, e;
    for (uint64_t dim : s) {
      const int64_t limit = mode == "reflection" ? static_cast<int64_t>(dim) - 1 : 3;
      b.push_back(rng_.Range(0, std::max<int64_t>(0, std::min<int64_t>(limit, 3))));
      e.push_back(rng_.Range(0, std::max<int64_t>(0, std::min<int64_t>(limit, 3))));
    }
    std::vector<std::pair<std::string, Value>> o;
    if (mode != "constant" || rng_.P(0.3)) o.emplace_back("mode", Str(mode));
    if (mode == "constant" && rng_.P(0.5)) {
      const bool integer = IsInteger(DescOf(x).dataType);
      o.emplace_back("value", integer ? Int(rng_.Range(0, 5)) : Real(rng_.Real(-2, 2)));
    }
    return Op(m, {{"input", Str(x)},
                  {"beginningPadding", IntArray(b)},
                  {"endingPadding", IntArray(e)},
                  {"options", Obj(std::move(o))}});
  }
  if (id == OpId::tile) {
    const std::string x = Src(Types(m));
    std::vector<int64_t> reps;
    for (size_t i = 0; i < DescOf(x).shape.size(); ++i) reps.push_back(rng_.Range(1, 3));
    return Op(m, {{"input", Str(x)}, {"repetitions", IntArray(reps)}});
  }
  if (id == OpId::triangular) {
    const std::string x = Src(Types(m), 2, 5);
    std::vector<std::pair<std::string, Value>> o;
    if (rng_.P(0.6)) o.emplace_back("upper", Value::Bool(rng_.P(0.5)));
    if (rng_.P(0.6)) o.emplace_back("diagonal", Int(rng_.Range(-3, 3)));
    return Op(m, {{"input", Str(x)}, {"options", Obj(std::move(o))}});
  }
  if (id == OpId::gather || id == OpId::gatherElements || id == OpId::gatherND ||
      id == OpId::scatterElements || id == OpId::scatterND) {
    return Indexing(m);
  }
  throw InputError("no generator for '" + m + "'");
}

// Indices in [-dim, dim) (or [0, dim) for unsigned types), mostly non-negative.
int64_t Generator::Index(uint64_t dim, DataType t) {
  const int64_t d = static_cast<int64_t>(dim);
  const bool negative_ok = t == DataType::kInt32 || t == DataType::kInt64;
  if (negative_ok && rng_.P(0.2)) return rng_.Range(-d, -1);
  return rng_.Range(0, d - 1);
}

FuzzOp Generator::Indexing(const std::string& m) {
  const OpId id = MethodId(m);
  const std::string x = Src(Types(m, "input"), 1, 5);
  const OperandDescriptor d = DescOf(x);
  const size_t r = d.shape.size();
  const DataType it = PickType(Types(m, "indices"));
  const bool constant = rng_.P(0.6);
  if (id == OpId::gather) {
    const int64_t axis = rng_.Range(0, static_cast<int64_t>(r) - 1);
    const Shape is = RandomShape(Rank(0, 2));
    std::vector<int64_t> v;
    for (uint64_t i = 0; i < ElementCount(is); ++i)
      v.push_back(Index(d.shape[static_cast<size_t>(axis)], it));
    const std::string ind = NewInputValues({it, is}, v, constant);
    std::vector<std::pair<std::string, Value>> o;
    if (axis != 0 || rng_.P(0.3)) o.emplace_back("axis", Int(axis));
    return Op(m, {{"input", Str(x)}, {"indices", Str(ind)}, {"options", Obj(std::move(o))}});
  }
  if (id == OpId::gatherElements || id == OpId::scatterElements) {
    const size_t axis = static_cast<size_t>(rng_.Below(r));
    Shape is = d.shape;
    const uint64_t dim = d.shape[axis];
    std::vector<int64_t> v;
    if (id == OpId::gatherElements) {
      is[axis] = static_cast<uint64_t>(rng_.Range(1, 6));
      for (uint64_t i = 0; i < ElementCount(is); ++i) v.push_back(Index(dim, it));
    } else {
      // Distinct indices along the axis (colliding scatters have no one answer).
      is[axis] = static_cast<uint64_t>(rng_.Range(1, static_cast<int64_t>(dim)));
      uint64_t outer = 1, inner = 1;
      for (size_t k = 0; k < axis; ++k) outer *= is[k];
      for (size_t k = axis + 1; k < r; ++k) inner *= is[k];
      v.assign(ElementCount(is), 0);
      for (uint64_t o = 0; o < outer; ++o) {
        for (uint64_t in = 0; in < inner; ++in) {
          const std::vector<int64_t> p = Permutation(dim);
          for (uint64_t j = 0; j < is[axis]; ++j) {
            int64_t idx = p[j];
            if ((it == DataType::kInt32 || it == DataType::kInt64) && rng_.P(0.2))
              idx -= static_cast<int64_t>(dim);
            v[(o * is[axis] + j) * inner + in] = idx;
          }
        }
      }
    }
    const std::string ind = NewInputValues({it, is}, v, constant);
    std::vector<std::pair<std::string, Value>> o;
    if (axis != 0 || rng_.P(0.3)) o.emplace_back("axis", Int(static_cast<int64_t>(axis)));
    if (id == OpId::gatherElements)
      return Op(m, {{"input", Str(x)}, {"indices", Str(ind)}, {"options", Obj(std::move(o))}});
    const std::string upd = OperandOf({d.dataType, is});
    return Op(m, {{"input", Str(x)},
                  {"indices", Str(ind)},
                  {"updates", Str(upd)},
                  {"options", Obj(std::move(o))}});
  }
  // gatherND / scatterND: indices [..., k].
  const size_t k = static_cast<size_t>(rng_.Range(1, static_cast<int64_t>(r)));
  Shape is = RandomShape(Rank(0, 2));
  uint64_t tuples = ElementCount(is);
  uint64_t space = 1;
  for (size_t i = 0; i < k; ++i) space *= d.shape[i];
  std::vector<int64_t> v;
  if (id == OpId::scatterND) {
    // Distinct tuples: a prefix of a permutation of the index space.
    if (space > 4096) throw Reject{};
    tuples = std::min(tuples, space);
    is = {tuples};
    const std::vector<int64_t> p = Permutation(space);
    for (uint64_t t = 0; t < tuples; ++t) {
      uint64_t flat = static_cast<uint64_t>(p[t]);
      std::vector<int64_t> tuple(k);
      for (size_t i = k; i-- > 0;) {
        tuple[i] = static_cast<int64_t>(flat % d.shape[i]);
        flat /= d.shape[i];
      }
      v.insert(v.end(), tuple.begin(), tuple.end());
    }
  } else {
    for (uint64_t t = 0; t < tuples; ++t) {
      for (size_t i = 0; i < k; ++i) v.push_back(Index(d.shape[i], it));
    }
  }
  Shape full = is;
  full.push_back(k);
  const std::string ind = NewInputValues({it, full}, v, constant);
  if (id == OpId::gatherND) return Op(m, {{"input", Str(x)}, {"indices", Str(ind)}});
  Shape us = is;
  us.insert(us.end(), d.shape.begin() + static_cast<long>(k), d.shape.end());
  const std::string upd = OperandOf({d.dataType, us});
  return Op(m, {{"input", Str(x)}, {"indices", Str(ind)}, {"updates", Str(upd)}});
}

FuzzOp Generator::Conv(const std::string& m) {
  const OpId id = MethodId(m);
  const bool transpose = id == OpId::convTranspose2d;
  const std::string x = Src(Types(m, "input"), 4, 4);
  const OperandDescriptor d = DescOf(x);
  const bool nhwc = rng_.P(0.4);
  const uint64_t C = d.shape[nhwc ? 3 : 1];
  const uint64_t H = d.shape[nhwc ? 1 : 2], W = d.shape[nhwc ? 2 : 3];
  std::vector<uint64_t> gs;
  for (uint64_t g = 1; g <= C; ++g) {
    if (C % g == 0) gs.push_back(g);
  }
  const uint64_t groups = rng_.P(0.6) ? 1 : rng_.Pick(gs);
  const uint64_t depthwise = rng_.P(0.2) ? 1 : static_cast<uint64_t>(rng_.Range(1, 4));
  const uint64_t O = groups * depthwise;  // output channels (conv2d) / per-group (transpose)
  const int64_t sh = rng_.Range(1, 3), sw = rng_.Range(1, 3);
  const int64_t dh = rng_.P(0.7) ? 1 : rng_.Range(1, 3), dw = rng_.P(0.7) ? 1 : rng_.Range(1, 3);
  std::vector<int64_t> pad = {rng_.Range(0, 2), rng_.Range(0, 2), rng_.Range(0, 2),
                              rng_.Range(0, 2)};
  const bool padded = rng_.P(0.7);
  if (!padded) pad = {0, 0, 0, 0};
  // Kernels whose dilated extent fits the padded input (conv2d; an output of at least 1).
  const auto kernel = [&](uint64_t in, int64_t p0, int64_t p1, int64_t dil) {
    const int64_t extent = static_cast<int64_t>(in) + (transpose ? 0 : p0 + p1);
    return static_cast<uint64_t>(
        rng_.Range(1, std::max<int64_t>(1, std::min<int64_t>(5, (extent - 1) / dil + 1))));
  };
  const uint64_t kh = kernel(H, pad[0], pad[1], dh), kw = kernel(W, pad[2], pad[3], dw);
  if (transpose) {
    // convTranspose2d's output (in - 1) stride + dilated extent - padding must stay positive.
    if (pad[0] + pad[1] >=
        (static_cast<int64_t>(H) - 1) * sh + dh * static_cast<int64_t>(kh - 1) + 1)
      pad[0] = pad[1] = 0;
    if (pad[2] + pad[3] >=
        (static_cast<int64_t>(W) - 1) * sw + dw * static_cast<int64_t>(kw - 1) + 1)
      pad[2] = pad[3] = 0;
  }
  std::vector<std::pair<std::string, Value>> o;
  if (padded) o.emplace_back("padding", IntArray(pad));
  if (sh != 1 || sw != 1 || rng_.P(0.2)) o.emplace_back("strides", IntArray({sh, sw}));
  if (dh != 1 || dw != 1 || rng_.P(0.2)) o.emplace_back("dilations", IntArray({dh, dw}));
  if (groups != 1 || rng_.P(0.2)) o.emplace_back("groups", Int(static_cast<int64_t>(groups)));
  if (nhwc || rng_.P(0.2)) o.emplace_back("inputLayout", Str(nhwc ? "nhwc" : "nchw"));
  Shape filter;
  std::string layout;
  uint64_t out_channels = 0;
  if (!transpose) {
    const uint64_t I = C / groups;
    static const std::vector<std::string> layouts = {"oihw", "hwio", "ohwi", "ihwo"};
    layout = rng_.Pick(layouts);
    if (layout == "oihw") filter = {O, I, kh, kw};
    if (layout == "hwio") filter = {kh, kw, I, O};
    if (layout == "ohwi") filter = {O, kh, kw, I};
    if (layout == "ihwo") filter = {I, kh, kw, O};
    out_channels = O;
  } else {
    const uint64_t Og = depthwise;  // output channels per group
    static const std::vector<std::string> layouts = {"iohw", "hwoi", "ohwi"};
    layout = rng_.Pick(layouts);
    if (layout == "iohw") filter = {C, Og, kh, kw};
    if (layout == "hwoi") filter = {kh, kw, Og, C};
    if (layout == "ohwi") filter = {Og, kh, kw, C};
    out_channels = Og * groups;
    if (rng_.P(0.3)) {
      o.emplace_back("outputPadding", IntArray({rng_.Range(0, sh - 1), rng_.Range(0, sw - 1)}));
    }
  }
  if (layout != (transpose ? "iohw" : "oihw") || rng_.P(0.2))
    o.emplace_back("filterLayout", Str(layout));
  const std::string f = OperandOf({d.dataType, filter});
  if (rng_.P(0.5)) o.emplace_back("bias", Str(OperandOf({d.dataType, {out_channels}})));
  return Op(m, {{"input", Str(x)}, {"filter", Str(f)}, {"options", Obj(std::move(o))}});
}

FuzzOp Generator::Pool(const std::string& m) {
  const std::string x = Src(Types(m), 4, 4);
  const OperandDescriptor d = DescOf(x);
  const bool nhwc = rng_.P(0.4);
  const uint64_t H = d.shape[nhwc ? 1 : 2], W = d.shape[nhwc ? 2 : 3];
  std::vector<std::pair<std::string, Value>> o;
  std::vector<int64_t> pad = {0, 0, 0, 0};
  if (rng_.P(0.5)) pad = {rng_.Range(0, 1), rng_.Range(0, 1), rng_.Range(0, 1), rng_.Range(0, 1)};
  const std::vector<int64_t> dil = rng_.P(0.2)
                                       ? std::vector<int64_t>{rng_.Range(1, 2), rng_.Range(1, 2)}
                                       : std::vector<int64_t>{1, 1};
  // Windows whose dilated extent fits the padded input (an output of at least 1).
  const auto window = [&](uint64_t in, int64_t p0, int64_t p1, int64_t dl) {
    const int64_t extent = static_cast<int64_t>(in) + p0 + p1;
    return rng_.Range(1, std::max<int64_t>(1, std::min<int64_t>(4, (extent - 1) / dl + 1)));
  };
  if (rng_.P(0.8)) {
    o.emplace_back("windowDimensions", IntArray({window(H, pad[0], pad[1], dil[0]),
                                                 window(W, pad[2], pad[3], dil[1])}));
  }
  if (pad != std::vector<int64_t>{0, 0, 0, 0} || rng_.P(0.1))
    o.emplace_back("padding", IntArray(pad));
  if (rng_.P(0.5)) o.emplace_back("strides", IntArray({rng_.Range(1, 3), rng_.Range(1, 3)}));
  if (dil[0] != 1 || dil[1] != 1) o.emplace_back("dilations", IntArray(dil));
  if (nhwc || rng_.P(0.2)) o.emplace_back("layout", Str(nhwc ? "nhwc" : "nchw"));
  if (rng_.P(0.3)) o.emplace_back("outputShapeRounding", Str(rng_.P(0.5) ? "ceil" : "floor"));
  return Op(m, {{"input", Str(x)}, {"options", Obj(std::move(o))}});
}

FuzzOp Generator::Recurrent(const std::string& m) {
  const OpId id = MethodId(m);
  const bool gru = id == OpId::gru || id == OpId::gruCell;
  const bool cell = id == OpId::gruCell || id == OpId::lstmCell;
  const DataType t = PickType(Types(m, "input"));
  const uint64_t B = static_cast<uint64_t>(rng_.Range(1, 3));
  const uint64_t I = static_cast<uint64_t>(rng_.Range(1, 5));
  const uint64_t Hs = static_cast<uint64_t>(rng_.Range(1, 5));
  const uint64_t gates = gru ? 3 : 4;
  std::vector<std::pair<std::string, Value>> o;
  static const std::vector<std::string> acts = {"sigmoid", "tanh", "relu"};
  const size_t n_acts = gru ? 2 : 3;
  if (rng_.P(0.3)) {
    std::vector<Value> a;
    for (size_t i = 0; i < n_acts; ++i) a.push_back(Str(rng_.Pick(acts)));
    o.emplace_back("activations", Value::Array(std::move(a)));
  }
  if (gru && rng_.P(0.4)) o.emplace_back("resetAfter", Value::Bool(rng_.P(0.5)));
  if (rng_.P(0.4)) {
    o.emplace_back("layout",
                   Str(gru ? (rng_.P(0.5) ? "zrn" : "rzn") : (rng_.P(0.5) ? "iofg" : "ifgo")));
  }
  if (cell) {
    const std::string x = OperandOf({t, {B, I}});
    const std::string w = OperandOf({t, {gates * Hs, I}});
    const std::string rw = OperandOf({t, {gates * Hs, Hs}});
    const std::string h = OperandOf({t, {B, Hs}});
    if (rng_.P(0.5)) o.emplace_back("bias", Str(OperandOf({t, {gates * Hs}})));
    if (rng_.P(0.5)) o.emplace_back("recurrentBias", Str(OperandOf({t, {gates * Hs}})));
    if (!gru && rng_.P(0.3)) o.emplace_back("peepholeWeight", Str(OperandOf({t, {3 * Hs}})));
    std::vector<std::pair<std::string, Value>> args = {{"input", Str(x)},
                                                       {"weight", Str(w)},
                                                       {"recurrentWeight", Str(rw)},
                                                       {"hiddenState", Str(h)}};
    if (!gru) args.emplace_back("cellState", Str(OperandOf({t, {B, Hs}})));
    args.emplace_back("hiddenSize", Int(static_cast<int64_t>(Hs)));
    args.emplace_back("options", Obj(std::move(o)));
    return Op(m, std::move(args), gru ? 1 : 2);
  }
  const uint64_t steps = static_cast<uint64_t>(rng_.Range(1, 4));
  static const std::vector<std::string> dirs = {"forward", "backward", "both"};
  const std::string dir = rng_.Pick(dirs);
  const uint64_t D = dir == "both" ? 2 : 1;
  if (dir != "forward" || rng_.P(0.2)) o.emplace_back("direction", Str(dir));
  const bool seq = rng_.P(0.5);
  if (seq || rng_.P(0.2)) o.emplace_back("returnSequence", Value::Bool(seq));
  if (rng_.P(0.5)) o.emplace_back("bias", Str(OperandOf({t, {D, gates * Hs}})));
  if (rng_.P(0.5)) o.emplace_back("recurrentBias", Str(OperandOf({t, {D, gates * Hs}})));
  if (!gru && rng_.P(0.3)) o.emplace_back("peepholeWeight", Str(OperandOf({t, {D, 3 * Hs}})));
  if (rng_.P(0.4)) o.emplace_back("initialHiddenState", Str(OperandOf({t, {D, B, Hs}})));
  if (!gru && rng_.P(0.4)) o.emplace_back("initialCellState", Str(OperandOf({t, {D, B, Hs}})));
  const std::string x = OperandOf({t, {steps, B, I}});
  const std::string w = OperandOf({t, {D, gates * Hs, I}});
  const std::string rw = OperandOf({t, {D, gates * Hs, Hs}});
  return Op(m,
            {{"input", Str(x)},
             {"weight", Str(w)},
             {"recurrentWeight", Str(rw)},
             {"steps", Int(static_cast<int64_t>(steps))},
             {"hiddenSize", Int(static_cast<int64_t>(Hs))},
             {"options", Obj(std::move(o))}},
            (gru ? 1 : 2) + (seq ? 1 : 0));
}

}  // namespace nnref::fuzz::gen
