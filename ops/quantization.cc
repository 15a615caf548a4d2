// quantizeLinear (§api-mlgraphbuilder-quantizelinear) and dequantizeLinear
// (§api-mlgraphbuilder-dequantizelinear).
//
// scale and zeroPoint are blockwise broadcast to the input (§algorithms-broadcasting): along axis k
// each of their elements covers input.shape[k] / scale.shape[k] consecutive input elements. This
// covers per-tensor (all ones), per-axis (one axis full) and blockwise layouts alike.
//
// Numerics. Both operators are defined by an emulation whose every step would round in the float
// type; nnref evaluates the exact composition and rounds once.
//  - quantizeLinear: output = saturate(roundEven(input / scale) + zeroPoint). roundEven is applied
//    to the exact quotient: the quotient is computed in double, and when that double is exactly
//    halfway between two integers, fma gives the exact sign of input - q*scale and so which side
//    the exact quotient lies on (a true tie goes to even). The emulation's clamp to 0..255 is read
//    as saturation to the range of zeroPoint's data type (spec-notes #14): int8 -128..127, uint8
//    0..255, int32 and uint32 their full ranges. Integer values are exact in double.
//  - dequantizeLinear: output = (input - zeroPoint) * scale. The difference is exact in double
//    (|d| < 2^33); the product is rounded to double to odd and then once to the output type
//    (ops/exact_round.h), i.e. correctly rounded.
// The spec's emulation rounds input / scale to the float type before roundEven. Where that gives
// another integer than the exact quotient (a quotient just beside k + 0.5 that rounds onto it, or
// a float16 quotient above 2048 that rounds to another integer), both results are accepted: the
// element is marked kOneOf with the set {exact, emulated} (QuantizeAlternatives; docs/deviations.md
// "quantizeLinear rounding"). The zero point is still added exactly: the emulation's float add
// differs only for int32/uint32 zero points beyond the float type's integers, and is not accepted.
// Implementation-defined elements (marked kAny): scale not positive (zero, negative or NaN; the
// spec says behaviour is then implementation-defined), and for quantizeLinear a NaN quotient,
// whose cast to an integer type is implementation-defined (value 0). Infinite inputs saturate, as
// the emulation's clamp makes them. Input latitude carries over element-wise.
#include "ops/quantization.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <unordered_map>
#include <utility>

#include "ops/elementwise.h"
#include "ops/exact_round.h"
#include "ops/float_dispatch.h"

namespace nnref {

namespace {

constexpr DataTypeSet kQuantizedTypes{DataType::kUint8, DataType::kInt8, DataType::kUint32,
                                      DataType::kInt32};

}  // namespace

// §tensor-limits-quantizelinear. "same rank as input" is expressed by the method steps; the rows
// give the rank range.
const OpLimits kQuantizeLinearLimits = {{{"input", kFloatTypes, "", 0, kMaxRankAny},
                                         {"scale", {}, "input", 0, kMaxRankAny},
                                         {"zeroPoint", kQuantizedTypes, "", 0, kMaxRankAny},
                                         {"output", {}, "zeroPoint", 0, kMaxRankAny}}};
// §tensor-limits-dequantizelinear
const OpLimits kDequantizeLinearLimits = {{{"input", kQuantizedTypes, "", 0, kMaxRankAny},
                                           {"scale", kFloatTypes, "", 0, kMaxRankAny},
                                           {"zeroPoint", {}, "input", 0, kMaxRankAny},
                                           {"output", {}, "scale", 0, kMaxRankAny}}};

namespace {

// Calls fn.template operator()<Z>() for the quantized storage types (int8, uint8, int32,
// uint32); the builder methods admit no other.
template <typename Fn>
decltype(auto) DispatchQuantizedType(DataType t, Fn&& fn) {
  switch (t) {
    case DataType::kInt8:
      return fn.template operator()<int8_t>();
    case DataType::kUint8:
      return fn.template operator()<uint8_t>();
    case DataType::kInt32:
      return fn.template operator()<int32_t>();
    default:
      return fn.template operator()<uint32_t>();
  }
}

// roundEven of the exact quotient x / s.
double RoundEvenQuotient(double x, double s) {
  const double q = x / s;  // never overflows or underflows double for float32/float16 operands
  if (!std::isfinite(q)) return q;
  if (std::fabs(q - std::trunc(q)) != 0.5)
    return std::nearbyint(q);  // not a tie: rounding to
                               // nearest is exact's choice
  // q is halfway between two integers; the exact quotient may lie just beside it. x - q*s, whose
  // sign fma gives exactly, has the sign of (x/s - q) * sign(s).
  const double remainder = std::fma(-q, s, x);
  if (remainder == 0) return std::nearbyint(q);  // a true tie: to even
  const bool above = (remainder > 0) == (s > 0);
  return above ? std::ceil(q) : std::floor(q);
}

// n + zero_point saturated to Z's range (spec-notes #14). Both bounds are exact in double for these
// types, and n + zero_point is exact whenever it is inside them.
template <typename Z>
Z AddZeroPointSaturated(double n, Z zero_point) {
  constexpr double kLo = static_cast<double>(std::numeric_limits<Z>::min());
  constexpr double kHi = static_cast<double>(std::numeric_limits<Z>::max());
  const double v = n + static_cast<double>(zero_point);
  if (!(v > kLo)) return std::numeric_limits<Z>::min();
  if (!(v < kHi)) return std::numeric_limits<Z>::max();
  return static_cast<Z>(v);
}

// `emulated` receives the result of the spec's emulation, whose div rounds input / scale to T
// before roundEven; it equals the return value except near the ties described at the top.
template <typename T, typename Z>
Z QuantizeElement(T input, T scale, Z zero_point, Latitude& la, Z& emulated) {
  const double x = ToDouble(input), s = ToDouble(scale);
  if (!(s > 0)) la = Latitude::kAny;  // scale must be positive, else implementation-defined
  const double n = RoundEvenQuotient(x, s);
  if (std::isnan(n)) {
    la = Latitude::kAny;  // cast of NaN to an integer type
    emulated = Z{0};
    return Z{0};
  }
  // The emulation: div, then roundEven. Double holds at least 2p+2 bits of a float32/float16
  // quotient, so rounding x / s to double and then to T gives the correctly rounded T quotient, as
  // a division in T would; roundEven of that T value is exact.
  emulated = AddZeroPointSaturated(std::nearbyint(ToDouble(RoundTo<T>(x / s))), zero_point);
  return AddZeroPointSaturated(n, zero_point);
}

// The two accepted results {exact, emulated} of the quantizeLinear elements where they differ
// (kOneOf), by output element (row-major index).
class QuantizeAlternatives final : public OneOfSet {
 public:
  QuantizeAlternatives(DataType type, std::unordered_map<uint64_t, std::pair<int64_t, int64_t>> m)
      : type_(type), sets_(std::move(m)) {}

  bool Contains(uint64_t element, const Tensor& t) const override {
    const auto it = sets_.find(element);
    if (it == sets_.end() || t.dtype() != type_) return false;
    const int64_t v = DispatchQuantizedType(
        type_, [&]<typename Z>() { return static_cast<int64_t>(t.At<Z>(element)); });
    return v == it->second.first || v == it->second.second;
  }

  Tensor Values(uint64_t element) const override {
    const auto it = sets_.find(element);
    const bool two = it != sets_.end();
    Tensor set = Tensor::Allocate(type_, {two ? 2u : 0u});
    if (two) {
      // Plain locals, not a structured binding: lambdas capture those only from C++20 compilers
      // newer than clang 14 (tools/fuzz/run.sh builds with clang).
      const int64_t lo = std::min(it->second.first, it->second.second);
      const int64_t hi = std::max(it->second.first, it->second.second);
      DispatchQuantizedType(type_, [&]<typename Z>() {
        set.base<Z>()[0] = static_cast<Z>(lo);
        set.base<Z>()[1] = static_cast<Z>(hi);
      });
    }
    return set;
  }

 private:
  DataType type_;
  std::unordered_map<uint64_t, std::pair<int64_t, int64_t>> sets_;
};

template <typename T, typename Z>
T DequantizeElement(Z input, Z zero_point, T scale, Latitude& la) {
  const double s = ToDouble(scale);
  if (!(s > 0)) la = Latitude::kAny;  // scale must be positive, else implementation-defined
  const double difference = static_cast<double>(input) - static_cast<double>(zero_point);  // exact
  return RoundTo<T>(ProductToOdd(difference, s));
}

// The geometry of a blockwise broadcast: axis k of the input (size S_k, with P_k parameter
// elements) is split into [P_k, S_k / P_k], so that the parameters are stride-0 views along the
// inner half and ForEachOffsets can walk input, parameters and output together.
class BlockwiseGeometry {
 public:
  BlockwiseGeometry(const Shape& input_shape, const Shape& param_shape) {
    for (size_t k = 0; k < input_shape.size(); ++k) {
      blocks_.push_back(input_shape[k] / param_shape[k]);
      split_.push_back(param_shape[k]);
      split_.push_back(blocks_.back());
    }
  }
  const Shape& shape() const { return split_; }
  // Strides of a tensor of the input's shape, on the split axes.
  Strides ForInput(const Strides& s) const {
    Strides out;
    for (size_t k = 0; k < blocks_.size(); ++k) {
      out.push_back(s[k] * static_cast<int64_t>(blocks_[k]));
      out.push_back(s[k]);
    }
    return out;
  }
  // Strides of a tensor of the parameters' shape, on the split axes.
  static Strides ForParam(const Strides& s) {
    Strides out;
    for (int64_t v : s) {
      out.push_back(v);
      out.push_back(0);
    }
    return out;
  }

 private:
  Shape blocks_;
  Shape split_;
};

// Carries the inputs' latitude onto the output element-wise (kAny dominates kValueOrNaN).
// in_is_param[i]: whether input i has the parameters' shape (else the input's).
void CarryLatitude(const BlockwiseGeometry& g, std::span<const OperandValue* const> in,
                   const bool (&in_is_param)[3], const Strides& out_split, Tensor& lat, bool& any) {
  uint8_t* l = lat.base<uint8_t>();
  for (size_t i = 0; i < 3; ++i) {
    const Tensor& src = in[i]->latitude;
    if (!src.valid()) continue;
    const Strides s =
        in_is_param[i] ? BlockwiseGeometry::ForParam(src.strides()) : g.ForInput(src.strides());
    const uint8_t* p = src.base<uint8_t>();
    ForEachOffsets<2>(g.shape(), {&out_split, &s}, [&](const std::array<int64_t, 2>& off) {
      const uint8_t v = p[off[1]];
      if (v == 0) return;
      if (l[off[0]] != static_cast<uint8_t>(Latitude::kAny)) l[off[0]] = v;
      any = true;
    });
  }
}

// out = elem(input, scale, zeroPoint, latitude, output index) over the blockwise broadcast of scale
// and zeroPoint to the input (inputs in the method's order: input, scale, zeroPoint); storage types
// TX of the input, TS of scale, TZ of zeroPoint, TO of the output.
template <typename TX, typename TS, typename TZ, typename TO, typename Elem>
OperandValue MapBlockwise(std::span<const OperandValue* const> in, const OperandDescriptor& out,
                          Elem elem) {
  const Tensor &x = in[0]->data, &scale = in[1]->data, &zero_point = in[2]->data;
  const BlockwiseGeometry g(x.shape(), scale.shape());
  const Strides so = g.ForInput(ContiguousStrides(x.shape())), sx = g.ForInput(x.strides());
  const Strides ss = g.ForParam(scale.strides()), sz = g.ForParam(zero_point.strides());
  OperandValue result{Tensor::Allocate(out.dataType, out.shape), {}};
  Tensor lat = NewLatitude(out.shape);
  uint8_t* l = lat.base<uint8_t>();
  bool any = false;
  const TX* px = x.base<TX>();
  const TS* ps = scale.base<TS>();
  const TZ* pz = zero_point.base<TZ>();
  TO* po = result.data.base<TO>();
  ForEachOffsets<4>(g.shape(), {&so, &sx, &ss, &sz}, [&](const std::array<int64_t, 4>& off) {
    Latitude la = Latitude::kExact;
    po[off[0]] = elem(px[off[1]], ps[off[2]], pz[off[3]], la, static_cast<uint64_t>(off[0]));
    if (la != Latitude::kExact) {
      l[off[0]] = static_cast<uint8_t>(la);
      any = true;
    }
  });
  CarryLatitude(g, in, {false, true, true}, so, lat, any);
  if (any) result.latitude = std::move(lat);
  return result;
}

class QuantizeLinearKernel final : public Kernel {
 public:
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    return {DispatchFloatType(in[0]->data.dtype(), [&]<typename T>() {
      return DispatchQuantizedType(out[0].dataType, [&]<typename Z>() {
        std::unordered_map<uint64_t, std::pair<int64_t, int64_t>> alternatives;
        OperandValue r =
            MapBlockwise<T, T, Z, Z>(in, out[0], [&](T x, T s, Z z, Latitude& la, uint64_t index) {
              Z emulated{};
              const Z exact = QuantizeElement<T, Z>(x, s, z, la, emulated);
              if (la == Latitude::kExact && emulated != exact) {
                la = Latitude::kOneOf;
                alternatives.emplace(
                    index, std::pair{static_cast<int64_t>(exact), static_cast<int64_t>(emulated)});
              }
              return exact;
            });
        if (!alternatives.empty()) {
          r.one_of =
              std::make_shared<QuantizeAlternatives>(out[0].dataType, std::move(alternatives));
        }
        return r;
      });
    })};
  }
};

class DequantizeLinearKernel final : public Kernel {
 public:
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    return {DispatchQuantizedType(in[0]->data.dtype(), [&]<typename Z>() {
      return DispatchFloatType(out[0].dataType, [&]<typename T>() {
        return MapBlockwise<Z, T, Z, T>(in, out[0], [](Z x, T s, Z z, Latitude& la, uint64_t) {
          return DequantizeElement<T, Z>(x, z, s, la);
        });
      });
    })};
  }
};

// Steps 7-10 of both methods: ranks, equal shapes, blockwise broadcastable.
void CheckParameterShapes(const std::string& name, const OperandDescriptor& input,
                          const OperandDescriptor& scale, const OperandDescriptor& zero_point) {
  const size_t rank = input.shape.size();
  if (scale.shape.size() != rank || zero_point.shape.size() != rank) {  // step 7
    ThrowTypeError(name + ": scale has rank " + std::to_string(scale.shape.size()) +
                   " and zeroPoint rank " + std::to_string(zero_point.shape.size()) +
                   "; both must equal the input's rank " + std::to_string(rank));
  }
  if (scale.shape != zero_point.shape) {  // step 8
    ThrowTypeError(name + ": scale shape " + ShapeToString(scale.shape) +
                   " differs from zeroPoint shape " + ShapeToString(zero_point.shape));
  }
  for (const auto& [operand, shape] :
       {std::pair{"scale", &scale.shape}, std::pair{"zeroPoint", &zero_point.shape}}) {
    if (!BlockwiseBroadcastable(*shape, input.shape)) {  // steps 9 (scale) and 10 (zeroPoint)
      ThrowTypeError(name + ": " + operand + " shape " + ShapeToString(*shape) +
                     " is not blockwise broadcastable to the input shape " +
                     ShapeToString(input.shape));
    }
  }
}

std::string TypeName(DataType t) { return std::string(DataTypeName(t)); }

}  // namespace

Operand QuantizeLinear(GraphBuilder& builder, const Operand& input, const Operand& scale,
                       const Operand& zeroPoint, const MLOperatorOptions& options) {
  const std::string name = OperatorDisplayName("quantizeLinear", options);
  builder.CheckCanBuild(name);                    // step 1
  builder.ValidateOperand(name, "input", input);  // step 2
  builder.ValidateOperand(name, "scale", scale);
  builder.ValidateOperand(name, "zeroPoint", zeroPoint);
  const OperandDescriptor& di = builder.Desc(input);
  const OperandDescriptor& ds = builder.Desc(scale);
  const OperandDescriptor& dz = builder.Desc(zeroPoint);
  CheckDataType(name, "input", di.dataType, kQuantizeLinearLimits.Find("input")->types);  // 3
  CheckDataType(name, "scale", ds.dataType, kFloatTypes);  // step 4 ("same as input")
  if (ds.dataType != di.dataType) {                        // step 5
    ThrowTypeError(name + ": scale is " + TypeName(ds.dataType) + " but input is " +
                   TypeName(di.dataType));
  }
  CheckDataType(name, "zeroPoint", dz.dataType,
                kQuantizeLinearLimits.Find("zeroPoint")->types);  // step 6
  CheckParameterShapes(name, di, ds, dz);                         // steps 7-10
  const OperandDescriptor output{dz.dataType, di.shape};          // step 11
  OperatorNode node{OpId::quantizeLinear,
                    options.label,
                    {input.id, scale.id, zeroPoint.id},
                    {},
                    std::make_shared<QuantizeLinearKernel>(),
                    {OpId::quantizeLinear, dz.dataType, 0}};
  return builder.AddOperator(std::move(node), {output})[0];  // steps 12-13
}

Operand DequantizeLinear(GraphBuilder& builder, const Operand& input, const Operand& scale,
                         const Operand& zeroPoint, const MLOperatorOptions& options) {
  const std::string name = OperatorDisplayName("dequantizeLinear", options);
  builder.CheckCanBuild(name);                    // step 1
  builder.ValidateOperand(name, "input", input);  // step 2
  builder.ValidateOperand(name, "scale", scale);
  builder.ValidateOperand(name, "zeroPoint", zeroPoint);
  const OperandDescriptor& di = builder.Desc(input);
  const OperandDescriptor& ds = builder.Desc(scale);
  const OperandDescriptor& dz = builder.Desc(zeroPoint);
  CheckDataType(name, "input", di.dataType, kDequantizeLinearLimits.Find("input")->types);  // 3
  CheckDataType(name, "scale", ds.dataType, kDequantizeLinearLimits.Find("scale")->types);  // 4
  CheckDataType(name, "zeroPoint", dz.dataType, kQuantizedTypes);  // step 5 ("same as input")
  if (dz.dataType != di.dataType) {                                // step 6
    ThrowTypeError(name + ": zeroPoint is " + TypeName(dz.dataType) + " but input is " +
                   TypeName(di.dataType));
  }
  CheckParameterShapes(name, di, ds, dz);                 // steps 7-10
  const OperandDescriptor output{ds.dataType, di.shape};  // step 11
  OperatorNode node{OpId::dequantizeLinear,
                    options.label,
                    {input.id, scale.id, zeroPoint.id},
                    {},
                    std::make_shared<DequantizeLinearKernel>(),
                    {OpId::dequantizeLinear, ds.dataType, 0}};
  return builder.AddOperator(std::move(node), {output})[0];  // steps 12-13
}

std::vector<Operand> CallQuantizeLinear(OpCall& call) {
  call.ExpectAtMost(4);
  const Operand input = call.GetOperand(0, "input");
  const Operand scale = call.GetOperand(1, "scale");
  const Operand zero_point = call.GetOperand(2, "zeroPoint");
  return {QuantizeLinear(call.builder(), input, scale, zero_point,
                         call.GetOperatorOptions(call.GetOptions(3)))};
}

std::vector<Operand> CallDequantizeLinear(OpCall& call) {
  call.ExpectAtMost(4);
  const Operand input = call.GetOperand(0, "input");
  const Operand scale = call.GetOperand(1, "scale");
  const Operand zero_point = call.GetOperand(2, "zeroPoint");
  return {DequantizeLinear(call.builder(), input, scale, zero_point,
                           call.GetOperatorOptions(call.GetOptions(3)))};
}

}  // namespace nnref
