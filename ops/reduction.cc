// Reduction operations — WebNN §api-mlgraphbuilder-reduce.
//
// Numerics, float types. Accumulator: double, with Neumaier's compensated summation for the sums
// (sum, L1, sumSquare, L2, mean, logSum, and the exponentials of logSumExp), which carries the
// exact sum as hi + lo (up to the rounding of the compensation term). A float32 square is exact in
// double and a sum of at most 2^31 of them is finite, so L2 needs no hypot-style scaling.
//  - sum, L1, sumSquare: hi + lo rounded to double to odd, then once to the output type: the
//    correctly rounded exact sum (1 + 2^-24 + 2^-60 gives float32 1 + 2^-23, not the tie's 1).
//    The sum starts at -0, the identity of IEEE addition, so a sum of -0s is -0.
//  - mean: (hi + lo) / count, and L2: sqrt(hi + lo), both rounded to odd from the exact division
//    or square-root remainder (fma), then once to the output type: correctly rounded.
//  - logSum: log of the sum (NaN for a negative sum, as log).
//  - logSumExp: m + log1p(sum over the other elements of exp(x_i - m)), m the maximum (one
//    occurrence of it is the 1 of log1p); no overflow where exp(x) alone would overflow, and full
//    accuracy when the other terms are tiny. A NaN input gives NaN; m = +Inf gives +Inf and an
//    all -Inf line -Inf, as the emulation log(sum(exp(x))) does.
//  - product: a running product in double, renormalized with frexp after every factor, so no
//    intermediate overflow or underflow can change the result (n roundings in double).
//  - max/min: exact selection; max prefers +0 over -0 and min -0 over +0, as binary max/min. A NaN
//    input gives NaN and the element is marked implementation-defined (the spec gives max/min no
//    NaN rule; docs/deviations.md).
// Integer types (sum, L1, sumSquare, product, max, min): computed exactly (__int128 with overflow
// checks). A result outside the output type wraps modulo 2^N (computed in the unsigned type) and
// the element is marked implementation-defined; a product with a zero factor is exactly 0.
// Input latitude: an output element is marked implementation-defined when any input element it
// reduces carries latitude.
#include "ops/reduction.h"

#include <cmath>
#include <utility>

#include "ops/bounded_sum.h"
#include "ops/elementwise.h"
#include "ops/exact_round.h"

namespace nnref {

OpId ReduceOpId(ReduceOp op) {
  switch (op) {
    case ReduceOp::kL1:
      return OpId::reduceL1;
    case ReduceOp::kL2:
      return OpId::reduceL2;
    case ReduceOp::kLogSum:
      return OpId::reduceLogSum;
    case ReduceOp::kLogSumExp:
      return OpId::reduceLogSumExp;
    case ReduceOp::kMax:
      return OpId::reduceMax;
    case ReduceOp::kMean:
      return OpId::reduceMean;
    case ReduceOp::kMin:
      return OpId::reduceMin;
    case ReduceOp::kProduct:
      return OpId::reduceProduct;
    case ReduceOp::kSum:
      return OpId::reduceSum;
    case ReduceOp::kSumSquare:
      return OpId::reduceSumSquare;
  }
  return OpId::reduceL1;  // unreachable: every op is listed
}

namespace {

constexpr DataTypeSet kSumTypes{DataType::kFloat32, DataType::kFloat16, DataType::kInt32,
                                DataType::kUint32,  DataType::kInt64,   DataType::kUint64};
// §tensor-limits-reduction-reducel1-reducesum-reducesumsquare and
// §tensor-limits-reduction-reduceproduct (the same types).
const OpLimits kSumLimits = {
    {{"input", kSumTypes, "", 0, kMaxRankAny}, {"output", {}, "input", 0, kMaxRankAny}}};
// §tensor-limits-reduction-reducel2-reducelogsum-reducelogsumexp-reducemean
const OpLimits kFloatLimits = {
    {{"input", kFloatTypes, "", 0, kMaxRankAny}, {"output", {}, "input", 0, kMaxRankAny}}};
// §tensor-limits-reduction-reducemax-reducemin
const OpLimits kMaxMinLimits = {
    {{"input", DataTypeSet::All(), "", 0, kMaxRankAny}, {"output", {}, "input", 0, kMaxRankAny}}};

// Neumaier's compensated sum. `sum` is the plain running sum, started at -0 (the IEEE identity
// of addition, so a sum of -0s is -0); once it is not finite (an infinite or NaN input) it is the
// IEEE result and the compensation is ignored. Otherwise sum + comp is the exact sum up to the
// rounding of comp itself (relative 2^-53 of the accumulated errors).
struct CompensatedSum {
  double sum = -0.0;
  double comp = 0;
  void Add(double v) {
    const double t = sum + v;
    comp += std::fabs(sum) >= std::fabs(v) ? (sum - t) + v : (v - t) + sum;
    sum = t;
  }
  // The sum as hi + lo, hi the double nearest to it and lo the remainder (TwoSum).
  std::pair<double, double> Split() const {
    if (!std::isfinite(sum) || comp == 0) return {sum, 0.0};
    const double hi = sum + comp;
    const double bb = hi - sum;
    return {hi, (sum - (hi - bb)) + (comp - bb)};
  }
  double Value() const { return Split().first; }
};

// Results of hi + lo (a Split()) rounded to double *to odd* (ops/exact_round.h), so that one more
// rounding to float32/float16 gives the correctly rounded result of the exact value:
// the sum itself, its quotient by n (the division remainder hi - q*n is exact by fma), and its
// square root (the remainder hi - s*s is exact by fma). In each case the first approximation is
// within one double ulp of the exact value, and the remainder gives the side.
double SumRoundedToOdd(std::pair<double, double> v) { return RoundToOdd(v.first, v.second); }

double QuotientRoundedToOdd(std::pair<double, double> v, double n) {
  const auto [hi, lo] = v;
  const double q0 = hi / n;
  if (!std::isfinite(q0) || lo == 0) {
    if (!std::isfinite(q0)) return q0;
    return RoundToOdd(q0, std::fma(-q0, n, hi));
  }
  const double q = q0 + (std::fma(-q0, n, hi) + lo) / n;
  return RoundToOdd(q, std::fma(-q, n, hi) + lo);
}

double SqrtRoundedToOdd(std::pair<double, double> v) {
  const auto [hi, lo] = v;
  const double s = std::sqrt(hi);
  if (!std::isfinite(s) || s == 0) return s;
  return RoundToOdd(s, std::fma(-s, s, hi) + lo);
}

// Whether a (non-NaN) candidate replaces the current extreme, with max(-0, +0) = +0 and
// min(-0, +0) = -0.
bool Replaces(bool is_max, double candidate, double best) {
  if (candidate == best) return candidate == 0 && std::signbit(best) == is_max;
  return is_max ? candidate > best : candidate < best;
}

// One output element of a float reduction; `visit(f)` calls f(T) for every reduced element.
template <typename T, typename Visit>
T ReduceFloat(ReduceOp op, const Visit& visit, uint64_t count, Latitude& la) {
  switch (op) {
    case ReduceOp::kMax:
    case ReduceOp::kMin: {
      const bool is_max = op == ReduceOp::kMax;
      bool nan = false, have = false;
      T best{}, nan_value{};
      visit([&](T v) {
        const double d = ToDouble(v);
        if (std::isnan(d)) {
          if (!nan) nan_value = v;
          nan = true;
        } else if (!have || Replaces(is_max, d, ToDouble(best))) {
          best = v;
          have = true;
        }
      });
      if (nan) {
        la = Latitude::kAny;
        return nan_value;
      }
      return best;
    }
    case ReduceOp::kProduct: {
      double m = 1;  // the accumulator: product = m * 2^e
      int64_t e = 0;
      visit([&](T v) {
        m *= ToDouble(v);  // |m| < 1 before: no overflow or underflow in double
        if (m != 0 && std::isfinite(m)) {
          int k = 0;
          m = std::frexp(m, &k);
          e += k;
        }
      });
      const int64_t clamped = e < -4000 ? -4000 : (e > 4000 ? 4000 : e);  // 0 or ±Inf beyond
      return RoundTo<T>(std::ldexp(m, static_cast<int>(clamped)));
    }
    case ReduceOp::kLogSumExp: {
      double m = -kInfinity;
      bool nan = false;
      visit([&](T v) {
        const double d = ToDouble(v);
        nan = nan || std::isnan(d);
        if (d > m) m = d;
      });
      if (nan) return RoundTo<T>(std::nan(""));
      if (std::isinf(m)) return RoundTo<T>(m);  // +Inf: sum is Inf; -Inf: log(0)
      CompensatedSum rest{0.0, 0.0};            // the accumulator; +0: log(exp(-0)) is +0
      bool skipped = false;
      visit([&](T v) {
        const double d = ToDouble(v);
        if (!skipped && d == m) {
          skipped = true;  // exp(m - m) = 1 is the 1 of log1p
          return;
        }
        rest.Add(std::exp(d - m));
      });
      // An empty rest is the empty sum -0; log(sum exp) of a single -0 is log(1) = +0, so use +0.
      const double r = rest.Value() == 0 ? 0.0 : rest.Value();
      return RoundTo<T>(m + std::log1p(r));
    }
    default: {
      const auto term = [op](T v) {
        const double d = ToDouble(v);
        switch (op) {
          case ReduceOp::kL1:
            return std::fabs(d);
          case ReduceOp::kL2:
          case ReduceOp::kSumSquare:
            return d * d;  // exact in double
          default:
            return d;
        }
      };
      // The fast path (ops/bounded_sum.h): a plain double sum whose error bound decides the
      // rounding of the correctly rounded result; otherwise the compensated sum below decides.
      // logSum keeps the compensated sum's value (its log is not correctly rounded anyway).
      if (op != ReduceOp::kLogSum) {
        BoundedSum fast;
        visit([&](T v) { fast.Add(term(v)); });
        T out{};
        const bool decided = op == ReduceOp::kL2 ? fast.RoundSqrt(out)
                             : op == ReduceOp::kMean
                                 ? fast.RoundQuotient(static_cast<double>(count), out)
                                 : fast.Round(out);
        if (decided) return out;
      }
      CompensatedSum acc;  // the accumulator of the exact path
      visit([&](T v) { acc.Add(term(v)); });
      switch (op) {
        case ReduceOp::kL2:
          return RoundTo<T>(SqrtRoundedToOdd(acc.Split()));
        case ReduceOp::kMean:
          return RoundTo<T>(QuotientRoundedToOdd(acc.Split(), static_cast<double>(count)));
        case ReduceOp::kLogSum:
          return RoundTo<T>(std::log(acc.Value()));
        default:
          return RoundTo<T>(SumRoundedToOdd(acc.Split()));
      }
    }
  }
}

template <typename T>
bool Fits(__int128 v) {
  return v >= static_cast<__int128>(std::numeric_limits<T>::min()) &&
         v <= static_cast<__int128>(std::numeric_limits<T>::max());
}

// One output element of an integer reduction (sum, L1, sumSquare, product, max, min).
template <typename T, typename Visit>
T ReduceInteger(ReduceOp op, const Visit& visit, Latitude& la) {
  using U = std::make_unsigned_t<T>;  // wrapped result: arithmetic modulo 2^N
  switch (op) {
    case ReduceOp::kMax:
    case ReduceOp::kMin: {
      bool have = false;
      T best{};
      visit([&](T v) {
        if (!have || (op == ReduceOp::kMax ? v > best : v < best)) best = v;
        have = true;
      });
      return best;
    }
    case ReduceOp::kProduct: {
      U wrapped = 1;
      __int128 exact = 1;  // the accumulator, until it overflows
      bool overflow = false, zero = false;
      visit([&](T v) {
        wrapped = static_cast<U>(wrapped * static_cast<U>(v));
        zero = zero || v == 0;
        if (!overflow) overflow = __builtin_mul_overflow(exact, static_cast<__int128>(v), &exact);
      });
      // Nonzero factors never shrink |product|, so an overflow of __int128 is out of range.
      if (!zero && (overflow || !Fits<T>(exact))) la = Latitude::kAny;
      return static_cast<T>(wrapped);
    }
    default: {  // sum, L1, sumSquare
      U wrapped = 0;
      __int128 exact = 0;  // the accumulator
      bool overflow = false;
      visit([&](T v) {
        __int128 term = static_cast<__int128>(v);
        U wterm = static_cast<U>(v);
        if (op == ReduceOp::kL1 && v < T{0}) {
          term = -term;
          wterm = static_cast<U>(U{0} - wterm);
        } else if (op == ReduceOp::kSumSquare) {
          overflow = __builtin_mul_overflow(term, term, &term) || overflow;
          wterm = static_cast<U>(wterm * wterm);
        }
        overflow = __builtin_add_overflow(exact, term, &exact) || overflow;
        wrapped = static_cast<U>(wrapped + wterm);
      });
      if (overflow || !Fits<T>(exact)) la = Latitude::kAny;
      return static_cast<T>(wrapped);
    }
  }
}

class ReduceKernel final : public Kernel {
 public:
  ReduceKernel(ReduceOp op, std::vector<bool> reduced) : op_(op), reduced_(std::move(reduced)) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Tensor& x = in[0]->data;
    const bool track = in[0]->latitude.valid();
    const Tensor in_lat = in[0]->latitude;
    // Kept axes (in order: the output's row-major order) and reduced axes.
    Shape outer_shape, inner_shape;
    Strides outer_strides, inner_strides, outer_lat, inner_lat;
    for (size_t a = 0; a < x.rank(); ++a) {
      const int64_t ls = track ? in_lat.strides()[a] : 0;
      if (reduced_[a]) {
        inner_shape.push_back(x.shape()[a]);
        inner_strides.push_back(x.strides()[a]);
        inner_lat.push_back(ls);
      } else {
        outer_shape.push_back(x.shape()[a]);
        outer_strides.push_back(x.strides()[a]);
        outer_lat.push_back(ls);
      }
    }
    const uint64_t count = ElementCount(inner_shape);
    OperandValue result;
    result.data = Tensor::Allocate(out[0].dataType, out[0].shape);
    Tensor lat = NewLatitude(out[0].shape);
    uint8_t* lat_out = lat.base<uint8_t>();
    bool any = false;
    DispatchDataType(out[0].dataType, [&]<typename T>() {
      const T* src = x.base<T>();
      T* dst = result.data.base<T>();
      uint64_t k = 0;  // output elements are produced in row-major order
      ForEachOffsets<2>(
          outer_shape, {&outer_strides, &outer_lat}, [&](const std::array<int64_t, 2>& base) {
            const auto visit = [&](const auto& f) {
              ForEachOffsets<1>(inner_shape, {&inner_strides},
                                [&](const std::array<int64_t, 1>& o) { f(src[base[0] + o[0]]); });
            };
            Latitude la = Latitude::kExact;
            if constexpr (kIsFloatStorage<T>) {
              dst[k] = ReduceFloat<T>(op_, visit, count, la);
            } else {
              dst[k] = ReduceInteger<T>(op_, visit, la);
            }
            if (track && LineMarked(in_lat, base[1], inner_shape, inner_lat)) {
              la = Latitude::kAny;
            }
            if (la != Latitude::kExact) {
              lat_out[k] = static_cast<uint8_t>(la);
              any = true;
            }
            ++k;
          });
      return 0;
    });
    if (any) result.latitude = std::move(lat);
    return {std::move(result)};
  }

 private:
  static bool LineMarked(const Tensor& in_lat, int64_t base, const Shape& shape,
                         const Strides& strides) {
    const uint8_t* p = in_lat.base<uint8_t>();
    bool marked = false;
    ForEachOffsets<1>(shape, {&strides}, [&](const std::array<int64_t, 1>& o) {
      marked = marked || p[base + o[0]] != 0;
    });
    return marked;
  }

  ReduceOp op_;
  std::vector<bool> reduced_;
};

}  // namespace

const OpLimits& ReduceLimits(ReduceOp op) {
  switch (op) {
    case ReduceOp::kL1:
    case ReduceOp::kProduct:
    case ReduceOp::kSum:
    case ReduceOp::kSumSquare:
      return kSumLimits;
    case ReduceOp::kMax:
    case ReduceOp::kMin:
      return kMaxMinLimits;
    default:
      return kFloatLimits;
  }
}

Operand Reduce(GraphBuilder& builder, ReduceOp op, const Operand& input,
               const MLReduceOptions& options) {
  const std::string name = OperatorDisplayName(ReduceOpId(op), options);
  builder.CheckCanBuild(name);                    // step 2
  builder.ValidateOperand(name, "input", input);  // step 3
  const OperandDescriptor d = builder.Desc(input);
  CheckDataType(name, "input", d.dataType, ReduceLimits(op).Find("input")->types);  // step 4
  // Step 5: "calculate reduction output sizes".
  const size_t rank = d.shape.size();
  std::vector<bool> reduced(rank, !options.axes.has_value());  // no axes: every axis
  if (options.axes) {
    for (uint32_t axis : *options.axes) {
      if (axis >= rank) {
        ThrowTypeError(name + ": axis " + std::to_string(axis) + " is out of range for rank " +
                       std::to_string(rank));
      }
      if (reduced[axis])
        ThrowTypeError(name + ": axes contains " + std::to_string(axis) + " twice");
      reduced[axis] = true;
    }
  }
  Shape shape;
  uint64_t count = 1;  // the reduced element count: the tolerance's size
  for (size_t a = 0; a < rank; ++a) {
    if (reduced[a]) count *= d.shape[a];
    if (!reduced[a]) {
      shape.push_back(d.shape[a]);
    } else if (options.keepDimensions) {
      shape.push_back(1);
    }
  }
  auto attributes = std::make_shared<ReduceAttributes>();
  attributes->op = op;
  attributes->reduced = reduced;
  attributes->keepDimensions = options.keepDimensions;
  OperatorNode node{ReduceOpId(op),
                    options.label,
                    {input.id},
                    {},
                    std::make_shared<ReduceKernel>(op, std::move(reduced)),
                    {ReduceOpId(op), d.dataType, count}};
  node.attributes = std::move(attributes);
  return builder.AddOperator(std::move(node), {{d.dataType, shape}})[0];  // steps 6-8
}

template <ReduceOp K>
std::vector<Operand> CallReduce(OpCall& call) {
  call.ExpectAtMost(2);
  const Operand input = call.GetOperand(0, "input");
  const Value& o = call.GetOptions(1);
  MLReduceOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  options.axes = call.GetUint32ListOption(o, "axes");
  options.keepDimensions = call.GetBoolOption(o, "keepDimensions").value_or(false);
  return {Reduce(call.builder(), K, input, options)};
}

#define NNREF_INSTANTIATE(K) template std::vector<Operand> CallReduce<ReduceOp::K>(OpCall&);
NNREF_INSTANTIATE(kL1)
NNREF_INSTANTIATE(kL2)
NNREF_INSTANTIATE(kLogSum)
NNREF_INSTANTIATE(kLogSumExp)
NNREF_INSTANTIATE(kMax)
NNREF_INSTANTIATE(kMean)
NNREF_INSTANTIATE(kMin)
NNREF_INSTANTIATE(kProduct)
NNREF_INSTANTIATE(kSum)
NNREF_INSTANTIATE(kSumSquare)
#undef NNREF_INSTANTIATE

}  // namespace nnref
