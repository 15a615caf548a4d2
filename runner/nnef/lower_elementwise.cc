// Lowering of the element-wise primitives (NNEF 1.0.2 4.2), the reductions (4.4), matmul (4.7)
// and the compounds run atomically (4.9): WebNN operators where they compute the same thing,
// the NNEF operators round, elu and argmax/argmin/all/any_reduce otherwise.
#include <optional>

#include "ops/activations.h"
#include "ops/cast_clamp_where.h"
#include "ops/data_movement.h"
#include "ops/elementwise_unary.h"
#include "ops/matmul_gemm.h"
#include "ops/nnef_elementwise.h"
#include "ops/reduction.h"
#include "ops/softmax.h"
#include "runner/nnef/lower.h"

namespace nnref::nnef {

namespace {

// The WebNN operator of an NNEF element-wise primitive that computes the same thing.
std::optional<UnaryOp> UnaryOf(NnefOp op) {
  switch (op) {
    case NnefOp::kNeg:
      return UnaryOp::kNeg;
    case NnefOp::kRcp:
      return UnaryOp::kReciprocal;
    case NnefOp::kExp:
      return UnaryOp::kExp;
    case NnefOp::kLog:
      return UnaryOp::kLog;
    case NnefOp::kSin:
      return UnaryOp::kSin;
    case NnefOp::kCos:
      return UnaryOp::kCos;
    case NnefOp::kAbs:
      return UnaryOp::kAbs;
    case NnefOp::kSign:
      return UnaryOp::kSign;
    case NnefOp::kFloor:
      return UnaryOp::kFloor;
    case NnefOp::kCeil:
      return UnaryOp::kCeil;
    default:
      return std::nullopt;
  }
}

std::optional<BinaryOp> BinaryOf(NnefOp op) {
  switch (op) {
    case NnefOp::kAdd:
      return BinaryOp::kAdd;
    case NnefOp::kSub:
      return BinaryOp::kSub;
    case NnefOp::kMul:
      return BinaryOp::kMul;
    case NnefOp::kDiv:
      return BinaryOp::kDiv;
    case NnefOp::kPow:
      return BinaryOp::kPow;
    default:
      return std::nullopt;
  }
}

std::optional<LogicalOp> LogicalOf(NnefOp op) {
  switch (op) {
    case NnefOp::kLt:
      return LogicalOp::kLesser;
    case NnefOp::kGt:
      return LogicalOp::kGreater;
    case NnefOp::kLe:
      return LogicalOp::kLesserOrEqual;
    case NnefOp::kGe:
      return LogicalOp::kGreaterOrEqual;
    case NnefOp::kEq:
      return LogicalOp::kEqual;
    case NnefOp::kNe:
      return LogicalOp::kNotEqual;
    case NnefOp::kAnd:
      return LogicalOp::kLogicalAnd;
    case NnefOp::kOr:
      return LogicalOp::kLogicalOr;
    default:
      return std::nullopt;
  }
}

// The tensor identifiers in an argument value.
void TensorIds(const ArgValue& v, std::vector<std::string>& out) {
  if (v.is_tensor()) out.push_back(v.str);
  for (const ArgValue& item : v.items) TensorIds(item, out);
}

}  // namespace

void Executor::Impl::Elementwise(NnefOp op) {
  if (const std::optional<UnaryOp> u = UnaryOf(op)) {
    const Value x = Arg("x");
    Define(Result(), Web([&] { return ElementwiseUnary(builder, *u, x.operand); }),
           TensorType::kScalar);
    return;
  }
  if (const std::optional<BinaryOp> b = BinaryOf(op)) return Binary(*b);
  if (const std::optional<LogicalOp> l = LogicalOf(op)) return Comparison(*l);
  if (NnefOpFamily(op) == NnefFamily::kReduce) return Reduction(op);
  switch (op) {
    case NnefOp::kCopy: {
      const Value x = Arg("x", current->dtype);
      Define(Result(), Copy(x.operand), x.type);
      return;
    }
    case NnefOp::kNot: {
      const Value x = Arg("x", TensorType::kLogical);
      Define(Result(), Web([&] {
               return ElementwiseLogical(builder, LogicalOp::kLogicalNot, x.operand, std::nullopt);
             }),
             TensorType::kLogical);
      return;
    }
    case NnefOp::kRound: {
      // NNEF round is floor(x + 0.5); WebNN roundEven rounds halves to even: the NNEF operator.
      const Value x = Arg("x");
      Define(Result(), Web([&] { return NnefRound(builder, x.operand); }), TensorType::kScalar);
      return;
    }
    case NnefOp::kSelect:
      return Select();
    case NnefOp::kMatmul:
      return Matmul();
    default:
      Fail(Stage::kExecute, "'" + current->op + "' is not a primitive of NNEF 1.0.2 chapter 4");
  }
}

// 4.2.2
void Executor::Impl::Binary(BinaryOp op) {
  const Value x = Arg("x"), y = Arg("y");
  CheckBroadcast({x, y});
  const size_t rank = std::max(S(x).size(), S(y).size());
  const Operand a = AlignRank(x, rank), b = AlignRank(y, rank);
  Define(Result(), Web([&] { return ElementwiseBinary(builder, op, a, b); }), TensorType::kScalar);
}

void Executor::Impl::Comparison(LogicalOp op) {
  const bool logical = op == LogicalOp::kLogicalAnd || op == LogicalOp::kLogicalOr;
  const TensorType t = logical ? TensorType::kLogical : TensorType::kScalar;
  const Value x = Arg("x", t), y = Arg("y", t);
  CheckBroadcast({x, y});
  const size_t rank = std::max(S(x).size(), S(y).size());
  const Operand a = AlignRank(x, rank), b = AlignRank(y, rank);
  Define(Result(), Web([&] { return ElementwiseLogical(builder, op, a, b); }),
         TensorType::kLogical);
}

// 4.2.3
void Executor::Impl::Select() {
  const Value c = Arg("condition", TensorType::kLogical);
  const Value t = Arg("true_value", current->dtype), f = Arg("false_value", current->dtype);
  CheckBroadcast({c, t, f});
  if (t.type != f.type) Invalid("true_value and false_value have different types");
  const size_t rank = std::max({S(c).size(), S(t).size(), S(f).size()});
  const Operand oc = AlignRank(c, rank), ot = AlignRank(t, rank), of = AlignRank(f, rank);
  Define(Result(), Web([&] { return Where(builder, oc, ot, of); }), t.type);
}

// 4.4
void Executor::Impl::Reduction(NnefOp op) {
  const bool logical = op == NnefOp::kAllReduce || op == NnefOp::kAnyReduce;
  const Value x = Arg("input", logical ? TensorType::kLogical : TensorType::kScalar);
  std::vector<size_t> axes = AxesArg("axes", S(x).size());
  std::sort(axes.begin(), axes.end());
  Operand result{};
  TensorType type = logical ? TensorType::kLogical : TensorType::kScalar;
  if (op == NnefOp::kArgmaxReduce || op == NnefOp::kArgminReduce || logical) {
    // WebNN's argMax/argMin take one axis and no NaN reading; reduceMin/Max have no logical
    // type: the NNEF reductions.
    type = logical ? TensorType::kLogical : TensorType::kInteger;
    NnefReduceAttributes a;
    a.op = op == NnefOp::kArgmaxReduce   ? NnefReduceOp::kArgmax
           : op == NnefOp::kArgminReduce ? NnefReduceOp::kArgmin
           : op == NnefOp::kAllReduce    ? NnefReduceOp::kAll
                                         : NnefReduceOp::kAny;
    for (size_t k : axes) a.axes.push_back(static_cast<uint32_t>(k));
    result = Web([&] { return NnefReduce(builder, x.operand, a); });
  } else if (axes.empty()) {
    result = Copy(x.operand);
  } else {
    ReduceOp r = ReduceOp::kSum;
    if (op == NnefOp::kSumReduce && Logical("normalize")) r = ReduceOp::kMean;
    if (op == NnefOp::kMaxReduce) r = ReduceOp::kMax;
    if (op == NnefOp::kMinReduce) r = ReduceOp::kMin;
    MLReduceOptions o;
    // emplace, not `= std::vector<uint32_t>()`: GCC 12 at -O2 with the sanitizers reports the
    // assigned optional<vector> as maybe-uninitialized (a false positive).
    o.axes.emplace();
    for (size_t a : axes) o.axes->push_back(static_cast<uint32_t>(a));
    o.keepDimensions = true;
    result = Web([&] { return Reduce(builder, r, x.operand, o); });
  }
  Define(Result(), result, type);
}

// 4.7
Operand Executor::Impl::Transposed(const Value& v) {
  std::vector<uint32_t> perm;
  for (size_t k = 0; k < S(v).size(); ++k) perm.push_back(static_cast<uint32_t>(k));
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  MLTransposeOptions o;
  o.permutation = perm;
  return Web([&] { return nnref::Transpose(builder, v.operand, o); });
}

void Executor::Impl::Matmul() {
  const Value a = Arg("A"), b = Arg("B");
  if (S(a).size() < 2 || S(a).size() != S(b).size()) {
    Invalid("A " + ShapeToString(S(a)) + " and B " + ShapeToString(S(b)) +
            " must have the same rank, at least 2");
  }
  const Operand oa = Logical("transposeA") ? Transposed(a) : a.operand;
  const Operand ob = Logical("transposeB") ? Transposed(b) : b.operand;
  const Shape& as = builder.Desc(oa).shape;
  const Shape& bs = builder.Desc(ob).shape;
  if (as[as.size() - 1] != bs[bs.size() - 2]) {
    Invalid("the inner extents " + std::to_string(as.back()) + " and " +
            std::to_string(bs[bs.size() - 2]) + " differ");
  }
  Define(Result(), Web([&] { return nnref::Matmul(builder, oa, ob); }), TensorType::kScalar);
}

// Chapter 4.9: a compound "may be implemented as atomic operations". A group of primitives
// expanded from sigmoid, tanh, softplus, elu or a single-axis softmax runs as one kernel that
// computes the exact composition and rounds once (docs/numerics.md), instead of rounding every
// primitive to float32 (where tanh(100) = Inf / Inf). Only when the group's intermediate
// tensors are internal: no graph output, no graph.quant entry, no use outside the group.
// relu, leaky_relu and prelu stay expanded: their primitives are already exact (a comparison,
// one product, a selection), and the WebNN kernels differ from the select: relu(NaN) is 0 in
// NNEF but NaN marked open in WebNN; prelu(-0) is -0 in NNEF, +0 in WebNN. elu runs on the NNEF
// operator elu (ops/nnef_elementwise.h: expm1, rounded once) for the same -0 reason. Returns false
// (nothing built) when the group runs as primitives.
bool Executor::Impl::Compound(const CompoundInstance& c) {
  const bool atomic = c.id == NnefOp::kSigmoid || c.id == NnefOp::kTanh ||
                      c.id == NnefOp::kSoftplus || c.id == NnefOp::kElu || c.id == NnefOp::kSoftmax;
  if (!atomic || c.results.size() != 1 || !c.results[0].value.is_tensor()) {
    return false;
  }
  const std::string& result = c.results[0].value.str;
  bool produced = false;
  for (size_t i = c.first_op; i < c.end_op; ++i) {
    const Invocation& inv = graph.ops[i];
    if (inv.custom || inv.compound != graph.ops[c.first_op].compound) return false;
    std::vector<std::string> ids;
    for (const NamedValue& r : inv.results) TensorIds(r.value, ids);
    for (const std::string& id : ids) {
      if (id == result) {
        produced = true;
        continue;
      }
      if (std::find(graph.outputs.begin(), graph.outputs.end(), id) != graph.outputs.end()) {
        return false;
      }
      if (quant != nullptr && quant->Find(id) != nullptr) return false;
      const auto u = users.find(id);
      if (u == users.end()) continue;
      for (size_t k : u->second) {
        if (k < c.first_op || k >= c.end_op) return false;
      }
    }
  }
  const auto info = graph.tensors.find(result);
  if (!produced || info == graph.tensors.end() || info->second.dtype != TensorType::kScalar) {
    return false;
  }
  const ArgValue* x = c.Arg("x");
  if (x == nullptr) return false;
  if (x->is_tensor()) {
    const auto t = tensors.find(x->str);
    if (t == tensors.end() || t->second.type != TensorType::kScalar) return false;
  } else if (x->kind != ArgValue::Kind::kScalar && x->kind != ArgValue::Kind::kInteger) {
    return false;
  }
  std::optional<uint32_t> axis;
  if (c.id == NnefOp::kSoftmax) {
    const ArgValue* axes = c.Arg("axes");
    if (axes == nullptr || axes->kind != ArgValue::Kind::kArray || axes->items.size() != 1 ||
        axes->items[0].kind != ArgValue::Kind::kInteger || !x->is_tensor()) {
      return false;  // several axes (or none): the primitives
    }
    const int64_t a = axes->items[0].i;
    if (a < 0 || static_cast<size_t>(a) >= S(tensors.at(x->str)).size()) return false;
    axis = static_cast<uint32_t>(a);
  } else if (c.args.size() != 1) {
    return false;  // parameters the kernels do not take
  }
  Invocation& inv = compound_ops.emplace_back();
  inv.op = c.name;
  inv.id = c.id;
  inv.args = c.args;
  inv.results = c.results;
  inv.pos = c.pos;
  inv.compound = graph.ops[c.first_op].compound;
  current = &inv;
  const Value v = TensorOf(*x, TensorType::kScalar);
  Operand y{};
  switch (c.id) {
    case NnefOp::kSigmoid:
      y = Web([&] { return Sigmoid(builder, v.operand); });
      break;
    case NnefOp::kTanh:
      y = Web([&] { return Tanh(builder, v.operand); });
      break;
    case NnefOp::kSoftplus:
      y = Web([&] { return Softplus(builder, v.operand); });
      break;
    case NnefOp::kElu:
      // NNEF elu has no alpha (WebNN elu with alpha 1) but keeps -0 and NaN as its select does.
      y = Web([&] { return NnefElu(builder, v.operand); });
      break;
    default:  // softmax
      y = Web([&] { return Softmax(builder, v.operand, *axis); });
      break;
  }
  Define(result, y, TensorType::kScalar);
  current = nullptr;
  return true;
}

}  // namespace nnref::nnef
