// The simd backend's element-wise family: binary (§api-mlgraphbuilder-binary), logical
// (§api-mlgraphbuilder-logical), unary (§api-mlgraphbuilder-unary), cast, clamp, where and the
// activations. Float data runs through the Highway row functions (rows.h) in float32; integer
// data in plain loops with two's-complement wrapping, since the builder admits integer types for
// these operators. What the spec leaves open (integer division by zero, out-of-range casts) gets
// a defined, crash-free value here; the reference marks those elements and comparison skips them.
#include <cmath>
#include <limits>
#include <map>
#include <type_traits>

#include "ops/activations.h"
#include "ops/cast_clamp_where.h"
#include "ops/simd/family.h"
#include "ops/simd/map.h"

namespace nnref::simd {

namespace {

enum class Kind : uint8_t { kBinary, kUnary, kLogical, kCast, kClamp, kWhere };

struct OpEntry {
  Kind kind;
  uint8_t code;  // RowBinary, RowUnary or LogicalCode
  bool integer;  // integer data types are allowed for this operator
};

enum class LogicalCode : uint8_t {
  kEqual, kNotEqual, kGreater, kGreaterOrEqual, kLesser, kLesserOrEqual, kNot, kAnd, kOr, kXor,
  kIsNaN, kIsInfinite
};

template <typename E>
constexpr uint8_t C(E e) {
  return static_cast<uint8_t>(e);
}

// The entry of each operator of this family; nullopt for the others.
std::optional<OpEntry> EntryOf(OpId op) {
  switch (op) {
    case OpId::add:
      return OpEntry{Kind::kBinary, C(RowBinary::kAdd), true};
    case OpId::sub:
      return OpEntry{Kind::kBinary, C(RowBinary::kSub), true};
    case OpId::mul:
      return OpEntry{Kind::kBinary, C(RowBinary::kMul), true};
    case OpId::div:
      return OpEntry{Kind::kBinary, C(RowBinary::kDiv), true};
    case OpId::max:
      return OpEntry{Kind::kBinary, C(RowBinary::kMax), true};
    case OpId::min:
      return OpEntry{Kind::kBinary, C(RowBinary::kMin), true};
    case OpId::pow:
      return OpEntry{Kind::kBinary, C(RowBinary::kPow), true};
    case OpId::prelu:
      return OpEntry{Kind::kBinary, C(RowBinary::kPrelu), true};
    case OpId::abs:
      return OpEntry{Kind::kUnary, C(RowUnary::kAbs), true};
    case OpId::ceil:
      return OpEntry{Kind::kUnary, C(RowUnary::kCeil), false};
    case OpId::cos:
      return OpEntry{Kind::kUnary, C(RowUnary::kCos), false};
    case OpId::erf:
      return OpEntry{Kind::kUnary, C(RowUnary::kErf), false};
    case OpId::exp:
      return OpEntry{Kind::kUnary, C(RowUnary::kExp), false};
    case OpId::floor:
      return OpEntry{Kind::kUnary, C(RowUnary::kFloor), false};
    case OpId::identity:
      return OpEntry{Kind::kUnary, C(RowUnary::kIdentity), true};
    case OpId::log:
      return OpEntry{Kind::kUnary, C(RowUnary::kLog), false};
    case OpId::neg:
      return OpEntry{Kind::kUnary, C(RowUnary::kNeg), true};
    case OpId::reciprocal:
      return OpEntry{Kind::kUnary, C(RowUnary::kReciprocal), false};
    case OpId::roundEven:
      return OpEntry{Kind::kUnary, C(RowUnary::kRoundEven), false};
    case OpId::sin:
      return OpEntry{Kind::kUnary, C(RowUnary::kSin), false};
    case OpId::sign:
      return OpEntry{Kind::kUnary, C(RowUnary::kSign), true};
    case OpId::sqrt:
      return OpEntry{Kind::kUnary, C(RowUnary::kSqrt), false};
    case OpId::tan:
      return OpEntry{Kind::kUnary, C(RowUnary::kTan), false};
    case OpId::elu:
      return OpEntry{Kind::kUnary, C(RowUnary::kElu), false};
    case OpId::gelu:
      return OpEntry{Kind::kUnary, C(RowUnary::kGelu), false};
    case OpId::hardSigmoid:
      return OpEntry{Kind::kUnary, C(RowUnary::kHardSigmoid), false};
    case OpId::hardSwish:
      return OpEntry{Kind::kUnary, C(RowUnary::kHardSwish), false};
    case OpId::leakyRelu:
      return OpEntry{Kind::kUnary, C(RowUnary::kLeakyRelu), false};
    case OpId::relu:
      return OpEntry{Kind::kUnary, C(RowUnary::kRelu), true};
    case OpId::sigmoid:
      return OpEntry{Kind::kUnary, C(RowUnary::kSigmoid), false};
    case OpId::softplus:
      return OpEntry{Kind::kUnary, C(RowUnary::kSoftplus), false};
    case OpId::softsign:
      return OpEntry{Kind::kUnary, C(RowUnary::kSoftsign), false};
    case OpId::tanh:
      return OpEntry{Kind::kUnary, C(RowUnary::kTanh), false};
    case OpId::equal:
      return OpEntry{Kind::kLogical, C(LogicalCode::kEqual), true};
    case OpId::notEqual:
      return OpEntry{Kind::kLogical, C(LogicalCode::kNotEqual), true};
    case OpId::greater:
      return OpEntry{Kind::kLogical, C(LogicalCode::kGreater), true};
    case OpId::greaterOrEqual:
      return OpEntry{Kind::kLogical, C(LogicalCode::kGreaterOrEqual), true};
    case OpId::lesser:
      return OpEntry{Kind::kLogical, C(LogicalCode::kLesser), true};
    case OpId::lesserOrEqual:
      return OpEntry{Kind::kLogical, C(LogicalCode::kLesserOrEqual), true};
    case OpId::logicalNot:
      return OpEntry{Kind::kLogical, C(LogicalCode::kNot), true};
    case OpId::logicalAnd:
      return OpEntry{Kind::kLogical, C(LogicalCode::kAnd), true};
    case OpId::logicalOr:
      return OpEntry{Kind::kLogical, C(LogicalCode::kOr), true};
    case OpId::logicalXor:
      return OpEntry{Kind::kLogical, C(LogicalCode::kXor), true};
    case OpId::isNaN:
      return OpEntry{Kind::kLogical, C(LogicalCode::kIsNaN), true};
    case OpId::isInfinite:
      return OpEntry{Kind::kLogical, C(LogicalCode::kIsInfinite), true};
    case OpId::cast:
      return OpEntry{Kind::kCast, 0, true};
    case OpId::clamp:
      return OpEntry{Kind::kClamp, 0, true};
    case OpId::where:
      return OpEntry{Kind::kWhere, 0, true};
    default:
      return std::nullopt;
  }
}

// A value of storage type T as float (float16 widened) or as itself (integers).
template <typename T>
auto Val(T v) {
  if constexpr (std::is_same_v<T, Float16>) {
    return v.ToFloat();
  } else {
    return v;
  }
}

// Integer arithmetic with two's-complement wrapping; division by zero gives 0 and the one
// overflowing quotient (min / -1) wraps to min (the spec leaves both open).
template <typename T>
T IntBinary(RowBinary op, T a, T b) {
  using U = std::make_unsigned_t<T>;
  switch (op) {
    case RowBinary::kAdd:
      return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    case RowBinary::kSub:
      return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
    case RowBinary::kMul:
      return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
    case RowBinary::kDiv:
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<T>) {
        if (b == -1) return static_cast<T>(static_cast<U>(U{0} - static_cast<U>(a)));
      }
      return static_cast<T>(a / b);
    case RowBinary::kMax:
      return a > b ? a : b;
    case RowBinary::kMin:
      return a < b ? a : b;
    case RowBinary::kPrelu:
      return a >= 0 ? a : static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
    case RowBinary::kPow: {
      if constexpr (std::is_signed_v<T>) {
        if (b < 0) {  // 1 / a^|b| truncated: nonzero only for |a| == 1
          if (a == 1) return 1;
          if (a == -1) return (b % 2 == 0) ? T{1} : T{-1};
          return 0;
        }
      }
      U result = 1, base = static_cast<U>(a);
      for (U e = static_cast<U>(b); e; e >>= 1) {  // wrapping square-and-multiply
        if (e & 1) result = static_cast<U>(result * base);
        base = static_cast<U>(base * base);
      }
      return static_cast<T>(result);
    }
  }
  return 0;
}

template <typename T>
T IntUnary(RowUnary op, T x) {
  using U = std::make_unsigned_t<T>;
  switch (op) {
    case RowUnary::kAbs:
      if constexpr (std::is_signed_v<T>) {
        return x < 0 ? static_cast<T>(static_cast<U>(U{0} - static_cast<U>(x))) : x;
      }
      return x;
    case RowUnary::kNeg:
      return static_cast<T>(static_cast<U>(U{0} - static_cast<U>(x)));
    case RowUnary::kSign:
      return static_cast<T>((x > 0) - (x < 0));
    case RowUnary::kRelu:
      return x > 0 ? x : T{0};
    default:
      return x;  // identity
  }
}

template <typename A>
uint8_t Logical(LogicalCode op, A a, A b) {
  switch (op) {
    case LogicalCode::kEqual:
      return a == b;
    case LogicalCode::kNotEqual:
      return a != b;
    case LogicalCode::kGreater:
      return a > b;
    case LogicalCode::kGreaterOrEqual:
      return a >= b;
    case LogicalCode::kLesser:
      return a < b;
    case LogicalCode::kLesserOrEqual:
      return a <= b;
    case LogicalCode::kNot:
      return a == A{0};
    case LogicalCode::kAnd:
      return a != A{0} && b != A{0};
    case LogicalCode::kOr:
      return a != A{0} || b != A{0};
    case LogicalCode::kXor:
      return (a != A{0}) != (b != A{0});
    case LogicalCode::kIsNaN:
      if constexpr (std::is_floating_point_v<A>) return std::isnan(a);
      return 0;
    case LogicalCode::kIsInfinite:
      if constexpr (std::is_floating_point_v<A>) return std::isinf(a);
      return 0;
  }
  return 0;
}

// cast as a production backend does it: float32 in between for floats (float16 outputs of
// integers round twice), truncation toward zero with saturation for float -> integer (NaN -> 0),
// modulo 2^N for integer -> integer.
template <typename To, typename From>
To CastValue(From v) {
  if constexpr (std::is_same_v<To, Float16>) {
    return Float16::FromFloat(static_cast<float>(Val(v)));
  } else if constexpr (std::is_same_v<To, float>) {
    return static_cast<float>(Val(v));
  } else if constexpr (std::is_same_v<From, Float16> || std::is_same_v<From, float>) {
    const float f = std::trunc(static_cast<float>(Val(v)));
    if (std::isnan(f)) return To{0};
    if (f <= static_cast<float>(std::numeric_limits<To>::lowest())) {
      return std::numeric_limits<To>::lowest();
    }
    if (f >= static_cast<float>(std::numeric_limits<To>::max())) {
      return std::numeric_limits<To>::max();
    }
    return static_cast<To>(f);
  } else {
    return static_cast<To>(v);
  }
}

class ElementwiseKernel final : public Kernel {
 public:
  ElementwiseKernel(OpEntry entry, const OperatorNode& node, Config config)
      : entry_(entry), config_(std::move(config)) {
    if (const auto* a = node.Attributes<ActivationAttributes>()) {
      alpha_ = static_cast<float>(a->alpha);
      beta_ = static_cast<float>(a->beta);
    }
    if (const auto* a = node.Attributes<ClampAttributes>()) {
      min_ = a->min;
      max_ = a->max;
    }
  }

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    OperandValue v;
    v.data = Run(in, out[0], nullptr);
    std::vector<OperandValue> result;
    result.push_back(std::move(v));
    return result;
  }

  // Every kernel of the family writes element i of its output from element i of its (broadcast)
  // inputs, so the output may take the buffer of an input of its type and shape (graph_plan.h).
  IntoSupport Into() const override { return {true, true}; }
  void ComputeInto(std::span<const OperandValue* const> in, std::span<const OperandDescriptor> out,
                   const Tensor& into) const override {
    (void)Run(in, out[0], &into);
  }

 private:
  Tensor Run(std::span<const OperandValue* const> in, const OperandDescriptor& out,
             const Tensor* into) const {
    const DataType type = in[0]->data.dtype();
    switch (entry_.kind) {
      case Kind::kBinary: {
        const auto op = static_cast<RowBinary>(entry_.code);
        if (IsFloat(type)) {
          return FloatMap<2>(
              {&in[0]->data, &in[1]->data}, out, config_,
              [op](const auto& rows, const auto& steps, float* o, size_t n) {
                BinaryRow(op, rows[0], steps[0], rows[1], steps[1], o, n);
              },
              into);
        }
        return DispatchDataType(type, [&]<typename T>() {
          if constexpr (std::is_integral_v<T>) {
            return TypedMap<T, T, T>(
                {&in[0]->data, &in[1]->data}, out, config_,
                [op](T a, T b) { return IntBinary(op, a, b); }, into);
          }
          return Tensor();
        });
      }
      case Kind::kUnary: {
        const auto op = static_cast<RowUnary>(entry_.code);
        if (IsFloat(type)) {
          const float alpha = alpha_, beta = beta_;
          return FloatMap<1>(
              {&in[0]->data}, out, config_,
              [op, alpha, beta](const auto& rows, const auto& steps, float* o, size_t n) {
                if (steps[0] == 0) {  // a broadcast row: compute once
                  float one;
                  UnaryRow(op, rows[0], &one, 1, alpha, beta);
                  std::fill(o, o + n, one);
                } else if (rows[0] == o) {
                  // In place: some rows reread their input after writing (the
                  // scalar fix-up of arguments outside the vector range).
                  thread_local std::vector<float> copy;
                  copy.assign(o, o + n);
                  UnaryRow(op, copy.data(), o, n, alpha, beta);
                } else {
                  UnaryRow(op, rows[0], o, n, alpha, beta);
                }
              },
              into);
        }
        return DispatchDataType(type, [&]<typename T>() {
          if constexpr (std::is_integral_v<T>) {
            return TypedMap<T, T>(
                {&in[0]->data}, out, config_, [op](T x) { return IntUnary(op, x); }, into);
          }
          return Tensor();
        });
      }
      case Kind::kLogical: {
        const auto op = static_cast<LogicalCode>(entry_.code);
        const bool unary =
            op == LogicalCode::kNot || op == LogicalCode::kIsNaN || op == LogicalCode::kIsInfinite;
        return DispatchDataType(type, [&]<typename T>() {
          if (unary) {
            return TypedMap<uint8_t, T>(
                {&in[0]->data}, out, config_,
                [op](T a) { return Logical(op, Val(a), decltype(Val(a)){}); }, into);
          }
          return TypedMap<uint8_t, T, T>(
              {&in[0]->data, &in[1]->data}, out, config_,
              [op](T a, T b) { return Logical(op, Val(a), Val(b)); }, into);
        });
      }
      case Kind::kCast:
        return DispatchDataType(type, [&]<typename From>() {
          return DispatchDataType(out.dataType, [&]<typename To>() {
            return TypedMap<To, From>(
                {&in[0]->data}, out, config_, [](From x) { return CastValue<To>(x); }, into);
          });
        });
      case Kind::kClamp:
        if (IsFloat(type)) {
          const float lo = ToFloatScalar(min_), hi = ToFloatScalar(max_);
          return FloatMap<1>(
              {&in[0]->data}, out, config_,
              [lo, hi](const auto& rows, const auto& steps, float* o, size_t n) {
                BinaryRow(RowBinary::kMax, rows[0], steps[0], &lo, 0, o, n);
                BinaryRow(RowBinary::kMin, o, 1, &hi, 0, o, n);
              },
              into);
        }
        return DispatchDataType(type, [&]<typename T>() {
          const T lo = *min_.base<T>(), hi = *max_.base<T>();
          return TypedMap<T, T>(
              {&in[0]->data}, out, config_,
              [lo, hi](T x) {
                const T y = Val(x) < Val(lo) ? lo : x;
                return Val(y) > Val(hi) ? hi : y;
              },
              into);
        });
      case Kind::kWhere:
        return DispatchDataType(out.dataType, [&]<typename T>() {
          return TypedMap<T, uint8_t, T, T>(
              {&in[0]->data, &in[1]->data, &in[2]->data}, out, config_,
              [](uint8_t c, T t, T f) { return c ? t : f; }, into);
        });
    }
    return Tensor();
  }

  static float ToFloatScalar(const Tensor& t) {
    return t.dtype() == DataType::kFloat16 ? t.base<Float16>()->ToFloat() : *t.base<float>();
  }

  OpEntry entry_;
  Config config_;
  float alpha_ = 0, beta_ = 0;
  Tensor min_, max_;
};

std::optional<std::string> Unsupported(OpId op, DataType type) {
  const std::optional<OpEntry> entry = EntryOf(op);
  if (!entry) return std::nullopt;
  if (!IsFloat(type) && !entry->integer) return std::string(DataTypeName(type)) + " not supported";
  return std::string();
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index, const Config& config,
                                   std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  const std::optional<OpEntry> entry = EntryOf(node.op);
  if (!entry) {
    why = "not implemented";
    return nullptr;
  }
  return std::make_shared<ElementwiseKernel>(*entry, node, config);
}

}  // namespace

const Family kElementwiseFamily = {Unsupported, Make};

}  // namespace nnref::simd
