// argMin/argMax — WebNN §api-mlgraphbuilder-argminmax; cumulativeSum —
// §api-mlgraphbuilder-cumulativesum.
//
// argMin/argMax: exact selection, comparing float16/float32 values in double and integers in
// their own type. The spec: "In case of ties, the identity of the return value is implementation
// dependent." The reference returns the first index of the extreme value, and an element with
// ties is marked kOneOf with the set of every tied index (ArgTies), so an implementation may
// return any of them; +0 and -0 are equal, so they tie. NaN: the spec gives no rule; a line that
// contains NaN gives the index of its first NaN (NumPy's convention), marked implementation-
// defined (docs/deviations.md). A line with an input element that carries latitude is marked too.
//
// cumulativeSum: float types are summed exactly (ExactSum: Shewchuk's non-overlapping
// expansion, as in Python's math.fsum) and every output element is the exact prefix sum rounded
// to double *to odd* and then once to float32/float16: correctly rounded, with no caveat. Zeros:
// a sum of only -0 terms is -0, the empty sum (exclusive) is +0, any other exact zero is +0, as
// IEEE addition gives. Infinities and NaN follow IEEE (+Inf plus -Inf is NaN). Integer types are
// summed exactly in __int128; an element whose exact prefix sum is outside the type is written
// wrapped (modulo 2^N) and marked implementation-defined. An input element that carries latitude
// marks every output element whose sum includes it (kValueOrNaN stays value-or-NaN: a NaN term
// makes the sum NaN).
#include "ops/arg_cumulative.h"

#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "ops/elementwise.h"
#include "ops/exact_round.h"
#include "ops/index_common.h"

namespace nnref {

// §tensor-limits-argMin-argMax
const OpLimits kArgMinMaxLimits = {
    {{"input", DataTypeSet::All(), "", 1, kMaxRankAny},
     {"output", {DataType::kInt32, DataType::kInt64}, "", 0, kMaxRankAny}}};
// §tensor-limits-cumulativesum
const OpLimits kCumulativeSumLimits = {{{"input",
                                         {DataType::kFloat32, DataType::kFloat16, DataType::kInt32,
                                          DataType::kUint32, DataType::kInt64, DataType::kUint64},
                                         "",
                                         1,
                                         kMaxRankAny},
                                        {"output", {}, "input", 1, kMaxRankAny}}};

namespace {

constexpr auto kOneOfCode = static_cast<uint8_t>(Latitude::kOneOf);

// The lines along `axis` of a strided view: one line per position of the other ("kept") axes, in
// row-major order.
struct Lines {
  Lines(const Tensor& t, size_t axis)
      : kept_shape(WithoutAxis(t.shape(), axis)),
        kept_strides(WithoutAxis(t.strides(), axis)),
        axis_size(t.shape()[axis]),
        axis_stride(t.strides()[axis]) {}
  // The offset (from the view's base) of element 0 of line `k`.
  int64_t Start(uint64_t k) const {
    int64_t off = 0;
    for (size_t i = kept_shape.size(); i-- > 0;) {
      off += static_cast<int64_t>(k % kept_shape[i]) * kept_strides[i];
      k /= kept_shape[i];
    }
    return off;
  }
  Shape kept_shape;
  Strides kept_strides;
  uint64_t axis_size;
  int64_t axis_stride;
};

// Element i of an int32/int64 tensor (argMin/argMax outputs) as int64.
int64_t IndexAt(const Tensor& t, uint64_t i) {
  return t.dtype() == DataType::kInt32 ? t.At<int32_t>(i) : t.At<int64_t>(i);
}

// The tied indices of argMin/argMax output elements: every index whose input value equals the
// value at the reference's (first) index. Keeps a view of the input; nothing is listed up front.
class ArgTies final : public OneOfSet {
 public:
  ArgTies(Tensor input, size_t axis, Tensor output)
      : input_(std::move(input)), lines_(input_, axis), output_(std::move(output)) {}

  bool Contains(uint64_t element, const Tensor& t) const override {
    if (t.dtype() != DataType::kInt32 && t.dtype() != DataType::kInt64) return false;
    const int64_t candidate = IndexAt(t, element);
    if (candidate < 0 || static_cast<uint64_t>(candidate) >= lines_.axis_size) return false;
    return Equal(element, candidate, IndexAt(output_, element));
  }

  Tensor Values(uint64_t element) const override {
    const int64_t ref = IndexAt(output_, element);
    std::vector<int64_t> tied;
    for (uint64_t a = 0; a < lines_.axis_size; ++a) {
      if (Equal(element, static_cast<int64_t>(a), ref)) tied.push_back(static_cast<int64_t>(a));
    }
    Tensor set = Tensor::Allocate(output_.dtype(), {tied.size()});
    for (size_t i = 0; i < tied.size(); ++i) {
      if (set.dtype() == DataType::kInt32) {
        set.base<int32_t>()[i] = static_cast<int32_t>(tied[i]);
      } else {
        set.base<int64_t>()[i] = tied[i];
      }
    }
    return set;
  }

 private:
  // Whether indices a and b of line `element` hold equal values (+0 == -0).
  bool Equal(uint64_t element, int64_t a, int64_t b) const {
    const int64_t start = lines_.Start(element);
    return DispatchDataType(input_.dtype(), [&]<typename T>() {
      const T* src = input_.base<T>();
      return Widen(src[start + a * lines_.axis_stride]) ==
             Widen(src[start + b * lines_.axis_stride]);
    });
  }

  Tensor input_;
  Lines lines_;
  Tensor output_;
};

class ArgMinMaxKernel final : public Kernel {
 public:
  ArgMinMaxKernel(bool is_max, size_t axis) : is_max_(is_max), axis_(axis) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Tensor& x = in[0]->data;
    const Tensor x_lat = LatitudeView(*in[0]);
    const Lines lines(x, axis_), lat_lines(x_lat, axis_);
    OperandValue result;
    result.data = Tensor::Allocate(out[0].dataType, out[0].shape);
    Tensor lat = NewLatitude(out[0].shape);
    uint8_t* lat_out = lat.base<uint8_t>();
    const uint8_t* lat_in = x_lat.base<uint8_t>();
    bool any = false, ties = false;
    DispatchDataType(x.dtype(), [&]<typename T>() {
      const T* src = x.base<T>();
      uint64_t k = 0;  // output elements in row-major order
      ForEachOffsets<2>(
          lines.kept_shape, {&lines.kept_strides, &lat_lines.kept_strides}, [&](const auto& o) {
            const auto at = [&](uint64_t a) {
              return Widen(src[o[0] + static_cast<int64_t>(a) * lines.axis_stride]);
            };
            uint64_t best = 0;
            uint8_t code = 0;
            for (uint64_t a = 0; a < lines.axis_size; ++a) {
              if constexpr (kIsFloatStorage<T>) {
                if (std::isnan(at(a))) {  // no NaN rule in the spec: the first NaN, marked
                  best = a;
                  code = kAnyCode;
                  break;
                }
              }
              if (is_max_ ? at(a) > at(best) : at(a) < at(best)) best = a;
            }
            if (code == 0) {
              uint64_t equal = 0;
              for (uint64_t a = 0; a < lines.axis_size; ++a) equal += at(a) == at(best) ? 1 : 0;
              if (equal > 1) code = kOneOfCode;
            }
            for (uint64_t a = 0; a < lines.axis_size; ++a) {
              if (lat_in[o[1] + static_cast<int64_t>(a) * lat_lines.axis_stride] != 0) {
                code = kAnyCode;
              }
            }
            if (out[0].dataType == DataType::kInt32) {
              result.data.base<int32_t>()[k] = static_cast<int32_t>(best);
            } else {
              result.data.base<int64_t>()[k] = static_cast<int64_t>(best);
            }
            if (code != 0) {
              lat_out[k] = code;
              any = true;
              ties = ties || code == kOneOfCode;
            }
            ++k;
          });
      return 0;
    });
    if (any || in[0]->latitude.valid()) result.latitude = std::move(lat);
    if (ties) result.one_of = std::make_shared<ArgTies>(x, axis_, result.data);
    return {std::move(result)};
  }

 private:
  bool is_max_;
  size_t axis_;
};

// The exact sum of doubles as a Shewchuk expansion: non-overlapping partials in increasing
// magnitude whose exact sum is the sum of every finite term added. Infinities and NaN are
// tracked apart, so the partials never see them.
class ExactSum {
 public:
  void Add(double x) {
    empty_ = false;
    if (!(x == 0 && std::signbit(x))) only_negative_zeros_ = false;
    if (std::isnan(x)) {
      nan_ = true;
      return;
    }
    if (std::isinf(x)) {
      (x > 0 ? pos_inf_ : neg_inf_) = true;
      return;
    }
    size_t kept = 0;
    for (size_t j = 0; j < partials_.size(); ++j) {
      double y = partials_[j];
      if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
      const double hi = x + y;
      const double lo = y - (hi - x);  // exact: |x| >= |y| (Fast2Sum)
      if (lo != 0) partials_[kept++] = lo;
      x = hi;
    }
    partials_.resize(kept);
    partials_.push_back(x);
  }

  // The sum rounded to double to odd (ops/exact_round.h), so that one more rounding to
  // float32/float16 is the correctly rounded exact sum.
  double RoundedToOdd() const {
    if (nan_ || (pos_inf_ && neg_inf_)) return std::numeric_limits<double>::quiet_NaN();
    if (pos_inf_ || neg_inf_) return pos_inf_ ? kInfinity : -kInfinity;
    // From the largest partial down until a sum is inexact: hi is then the double nearest to
    // the partials seen, lo its exact rounding error, and the smaller partials left cannot
    // change lo's sign (they lie below lo's last bit).
    size_t n = partials_.size();
    double hi = n == 0 ? 0.0 : partials_[--n];
    double lo = 0;
    while (n > 0) {
      const double x = hi, y = partials_[--n];
      hi = x + y;
      lo = y - (hi - x);
      if (lo != 0) break;
    }
    if (hi == 0 && lo == 0) return !empty_ && only_negative_zeros_ ? -0.0 : 0.0;
    return RoundToOdd(hi, lo);
  }

 private:
  std::vector<double> partials_;
  bool empty_ = true, only_negative_zeros_ = true;
  bool nan_ = false, pos_inf_ = false, neg_inf_ = false;
};

template <typename T>
bool Fits(__int128 v) {
  return v >= static_cast<__int128>(std::numeric_limits<T>::min()) &&
         v <= static_cast<__int128>(std::numeric_limits<T>::max());
}

class CumulativeSumKernel final : public Kernel {
 public:
  CumulativeSumKernel(size_t axis, bool exclusive, bool reversed)
      : axis_(axis), exclusive_(exclusive), reversed_(reversed) {}

  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Tensor& x = in[0]->data;
    const Tensor x_lat = LatitudeView(*in[0]);
    OperandValue result;
    result.data = Tensor::Allocate(out[0].dataType, out[0].shape);
    Tensor lat = NewLatitude(out[0].shape);
    const Lines lines(x, axis_), lat_lines(x_lat, axis_), out_lines(result.data, axis_);
    uint8_t* lat_out = lat.base<uint8_t>();
    const uint8_t* lat_in = x_lat.base<uint8_t>();
    const uint64_t n = lines.axis_size;
    bool any = false;
    DispatchDataType(x.dtype(), [&]<typename T>() {
      const T* src = x.base<T>();
      T* dst = result.data.base<T>();
      ForEachOffsets<3>(lines.kept_shape,
                        {&out_lines.kept_strides, &lines.kept_strides, &lat_lines.kept_strides},
                        [&](const auto& o) {
                          ExactSum sum;        // the accumulator, float types
                          __int128 exact = 0;  // the accumulator, integer types
                          uint8_t code = 0;    // latitude of the terms so far
                          const auto emit = [&](int64_t d) {
                            uint8_t c = code;
                            if constexpr (kIsFloatStorage<T>) {
                              dst[d] = RoundTo<T>(sum.RoundedToOdd());
                            } else {
                              // Both conversions are modulo 2^N: the exact sum wrapped.
                              dst[d] = static_cast<T>(static_cast<std::make_unsigned_t<T>>(exact));
                              if (!Fits<T>(exact)) c = kAnyCode;
                            }
                            if (c != 0) {
                              lat_out[d] = c;
                              any = true;
                            }
                          };
                          for (uint64_t s = 0; s < n; ++s) {
                            const auto a = static_cast<int64_t>(reversed_ ? n - 1 - s : s);
                            const int64_t d = o[0] + a * out_lines.axis_stride;
                            if (exclusive_) emit(d);
                            const T v = src[o[1] + a * lines.axis_stride];
                            if constexpr (kIsFloatStorage<T>) {
                              sum.Add(ToDouble(v));
                            } else {
                              exact += static_cast<__int128>(v);
                            }
                            code = CombinedCode(code, lat_in[o[2] + a * lat_lines.axis_stride]);
                            if (!exclusive_) emit(d);
                          }
                        });
      return 0;
    });
    if (any || in[0]->latitude.valid()) result.latitude = std::move(lat);
    return {std::move(result)};
  }

 private:
  size_t axis_;
  bool exclusive_, reversed_;
};

}  // namespace

Operand ArgMinMax(GraphBuilder& builder, bool is_max, const Operand& input, uint32_t axis,
                  const MLArgMinMaxOptions& options) {
  const OpId op = is_max ? OpId::argMax : OpId::argMin;  // step 1
  const std::string name = OperatorDisplayName(op, options);
  builder.CheckCanBuild(name);                    // step 2
  builder.ValidateOperand(name, "input", input);  // step 3
  const OperandDescriptor in = builder.Desc(input);
  const size_t rank = in.shape.size();
  if (axis >= rank) {  // step 4
    ThrowTypeError(name + ": axis " + Str(axis) + " is out of range for input rank " + Str(rank));
  }
  const DataType type = options.outputDataType;
  CheckDataType(name, "output", type, kArgMinMaxLimits.Find("output")->types);  // step 5
  const uint64_t max_index = type == DataType::kInt32
                                 ? uint64_t{std::numeric_limits<int32_t>::max()}
                                 : uint64_t{std::numeric_limits<int64_t>::max()};
  if (in.shape[axis] > max_index) {  // step 6 (unreachable: dimensions are at most 2^31 - 1)
    ThrowTypeError(name + ": input dimension " + Str(in.shape[axis]) + " on axis " + Str(axis) +
                   " exceeds the largest " + std::string(DataTypeName(type)));
  }
  // Step 7: "calculate reduction output sizes" given « axis » and keepDimensions.
  Shape shape;
  for (size_t a = 0; a < rank; ++a) {
    if (a != axis) {
      shape.push_back(in.shape[a]);
    } else if (options.keepDimensions) {
      shape.push_back(1);
    }
  }
  OperatorNode node{
      op,           options.label, {input.id}, {}, std::make_shared<ArgMinMaxKernel>(is_max, axis),
      {op, type, 0}};
  auto attributes = std::make_shared<ArgMinMaxAttributes>();
  attributes->axis = axis;
  attributes->keepDimensions = options.keepDimensions;
  attributes->outputDataType = type;
  node.attributes = std::move(attributes);
  return builder.AddOperator(std::move(node), {{type, shape}})[0];  // steps 8-10
}

Operand CumulativeSum(GraphBuilder& builder, const Operand& input, uint32_t axis,
                      const MLCumulativeSumOptions& options) {
  const std::string name = OperatorDisplayName("cumulativeSum", options);
  builder.CheckCanBuild(name);                    // step 1
  builder.ValidateOperand(name, "input", input);  // step 2
  const OperandDescriptor in = builder.Desc(input);
  CheckDataType(name, "input", in.dataType, kCumulativeSumLimits.Find("input")->types);  // 3
  if (axis >= in.shape.size()) {                                                         // step 4
    ThrowTypeError(name + ": axis " + Str(axis) + " is out of range for input rank " +
                   Str(in.shape.size()));
  }
  OperatorNode node{
      OpId::cumulativeSum,
      options.label,
      {input.id},
      {},
      std::make_shared<CumulativeSumKernel>(axis, options.exclusive, options.reversed),
      {OpId::cumulativeSum, in.dataType, in.shape[axis]}};
  auto attributes = std::make_shared<CumulativeSumAttributes>();
  attributes->axis = axis;
  attributes->exclusive = options.exclusive;
  attributes->reversed = options.reversed;
  node.attributes = std::move(attributes);
  return builder.AddOperator(std::move(node), {in})[0];  // steps 5-6
}

namespace {

std::vector<Operand> CallArg(OpCall& call, bool is_max) {
  call.ExpectAtMost(3);
  const Operand input = call.GetOperand(0, "input");
  const uint32_t axis = call.GetUint32(1, "axis");  // [EnforceRange] unsigned long
  const Value& o = call.GetOptions(2);
  MLArgMinMaxOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  options.keepDimensions = call.GetBoolOption(o, "keepDimensions").value_or(false);
  options.outputDataType = call.GetDataTypeOption(o, "outputDataType").value_or(DataType::kInt32);
  return {ArgMinMax(call.builder(), is_max, input, axis, options)};
}

// WebIDL "convert to unsigned long" without [EnforceRange] or [Clamp]: NaN and infinities give 0,
// otherwise the value truncated toward zero, modulo 2^32 (so -1 is 4294967295 and 2^32 is 0).
uint32_t WebIdlUnsignedLong(double d) {
  if (!std::isfinite(d)) return 0;
  constexpr double kTwo32 = 4294967296.0;
  double m = std::fmod(std::trunc(d), kTwo32);  // exact
  if (m < 0) m += kTwo32;                       // exact: |m| < 2^32
  return static_cast<uint32_t>(m);
}

}  // namespace

std::vector<Operand> CallArgMin(OpCall& call) { return CallArg(call, false); }
std::vector<Operand> CallArgMax(OpCall& call) { return CallArg(call, true); }

std::vector<Operand> CallCumulativeSum(OpCall& call) {
  call.ExpectAtMost(3);
  const Operand input = call.GetOperand(0, "input");
  // `axis` is a plain unsigned long here (argMin/argMax and gather say [EnforceRange]).
  const uint32_t axis = WebIdlUnsignedLong(call.GetDouble(1, "axis"));
  const Value& o = call.GetOptions(2);
  MLCumulativeSumOptions options;
  static_cast<MLOperatorOptions&>(options) = call.GetOperatorOptions(o);
  options.exclusive = call.GetBoolOption(o, "exclusive").value_or(false);
  options.reversed = call.GetBoolOption(o, "reversed").value_or(false);
  return {CumulativeSum(call.builder(), input, axis, options)};
}

}  // namespace nnref
