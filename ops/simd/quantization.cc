// The simd backend's quantizeLinear (§api-mlgraphbuilder-quantizelinear) and dequantizeLinear
// (§api-mlgraphbuilder-dequantizelinear), as in the reference's ops/quantization.cc.

#include "ops/quantization.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ops/simd/copy.h"

namespace nnref::simd {

namespace {

// quantizeLinear / dequantizeLinear. scale and zeroPoint are blockwise broadcast to the input
// (§api-mlgraphbuilder-quantizelinear): axis k of the input (size S, P parameter elements) is
// split into [P, S / P] with the parameters' stride 0 on the inner half, and one row plan walks
// output, input, scale and zeroPoint together.

template <typename T>
float AsFloat(T v) {
  if constexpr (std::is_same_v<T, Float16>) {
    return v.ToFloat();
  } else {
    return static_cast<float>(v);
  }
}

// roundEven of x / s. The float32 quotient q is correctly rounded, so it can only mislead
// roundEven when it lands exactly on a half-integer the exact quotient lies beside: then the
// remainder x - q*s, exact in float32 for a correctly rounded quotient, and its sign computed by
// one fma, says which side. From 2^22 on, float32 quotients are too coarse for the integer
// results of 32-bit outputs, so those take the same steps in double.
template <typename F>
F RoundEvenQuotient(F x, F s) {
  const F q = x / s;
  if (!std::isfinite(q)) return q;
  if (std::fabs(q - std::trunc(q)) != F(0.5)) return std::nearbyint(q);
  const F remainder = std::fma(-q, s, x);
  if (remainder == 0) return std::nearbyint(q);
  return (remainder > 0) == (s > 0) ? std::ceil(q) : std::floor(q);
}

template <typename Z>
Z Quantize(float x, float s, Z zero_point) {
  double r = RoundEvenQuotient<float>(x, s);
  if (std::fabs(r) >= 4194304.0) r = RoundEvenQuotient<double>(x, s);  // 2^22
  if (std::isnan(r)) return Z{0};  // the spec leaves the cast of NaN open
  // saturate(r + zeroPoint) to Z's range: exact in double for these types.
  const double v = r + static_cast<double>(zero_point);
  constexpr auto kLo = static_cast<double>(std::numeric_limits<Z>::min());
  constexpr auto kHi = static_cast<double>(std::numeric_limits<Z>::max());
  if (!(v > kLo)) return std::numeric_limits<Z>::min();
  if (!(v < kHi)) return std::numeric_limits<Z>::max();
  return static_cast<Z>(v);
}

// (x - zeroPoint) * scale: the difference is exact in int64; float32 holds it exactly up to 2^24
// (every 8-bit case), beyond that the product is formed in double and rounded once.
template <typename Z>
float Dequantize(Z x, Z zero_point, float s) {
  const int64_t d = static_cast<int64_t>(x) - static_cast<int64_t>(zero_point);
  if (d >= -(int64_t{1} << 24) && d <= (int64_t{1} << 24)) return static_cast<float>(d) * s;
  return static_cast<float>(static_cast<double>(d) * static_cast<double>(s));
}

template <typename Fn>
decltype(auto) DispatchQuantized(DataType t, Fn&& fn) {
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

// out = fn(input element, scale element, zeroPoint element) over the blockwise broadcast; storage
// types TX, TS, TZ, TO.
template <typename TX, typename TS, typename TZ, typename TO, typename Fn>
Tensor Blockwise(std::span<const OperandValue* const> in, const OperandDescriptor& out,
                 const Config& config, const Fn& fn) {
  const Tensor &x = in[0]->data, &scale = in[1]->data, &zero_point = in[2]->data;
  Tensor result = Tensor::Allocate(out.dataType, out.shape);
  Shape split;
  std::array<Strides, 4> strides;  // output, input, scale, zeroPoint
  const Strides dense = ContiguousStrides(x.shape());
  for (size_t k = 0; k < x.rank(); ++k) {
    const uint64_t p = scale.shape()[k];
    const auto block = static_cast<int64_t>(x.shape()[k] / p);
    split.push_back(p);
    split.push_back(static_cast<uint64_t>(block));
    strides[0].push_back(dense[k] * block);
    strides[0].push_back(dense[k]);
    strides[1].push_back(x.strides()[k] * block);
    strides[1].push_back(x.strides()[k]);
    strides[2].push_back(scale.strides()[k]);
    strides[2].push_back(0);
    strides[3].push_back(zero_point.strides()[k]);
    strides[3].push_back(0);
  }
  const RowPlan<4> plan = MakeRowPlan<4>(split, strides);
  const TX* px = x.base<TX>();
  const TS* ps = scale.base<TS>();
  const TZ* pz = zero_point.base<TZ>();
  TO* po = result.base<TO>();
  ForEachChunk(plan, config, [&](const std::array<int64_t, 4>& off, uint64_t, uint64_t n) {
    const int64_t so = plan.inner_stride[0], sx = plan.inner_stride[1];
    const int64_t ss = plan.inner_stride[2], sz = plan.inner_stride[3];
    for (uint64_t i = 0; i < n; ++i) {
      const auto j = static_cast<int64_t>(i);
      po[off[0] + j * so] = fn(px[off[1] + j * sx], ps[off[2] + j * ss], pz[off[3] + j * sz]);
    }
  });
  return result;
}

Tensor QuantizeLinear(std::span<const OperandValue* const> in, const OperandDescriptor& out,
                      const Config& config) {
  return DispatchDataType(in[0]->data.dtype(), [&]<typename T>() {
    if constexpr (kIsFloatStorage<T>) {
      return DispatchQuantized(out.dataType, [&]<typename Z>() {
        return Blockwise<T, T, Z, Z>(
            in, out, config, [](T x, T s, Z z) { return Quantize<Z>(AsFloat(x), AsFloat(s), z); });
      });
    }
    return Tensor();
  });
}

Tensor DequantizeLinear(std::span<const OperandValue* const> in, const OperandDescriptor& out,
                        const Config& config) {
  return DispatchQuantized(in[0]->data.dtype(), [&]<typename Z>() {
    if (out.dataType == DataType::kFloat16) {
      return Blockwise<Z, Float16, Z, Float16>(in, out, config, [](Z x, Float16 s, Z z) {
        return Float16::FromFloat(Dequantize<Z>(x, z, s.ToFloat()));
      });
    }
    return Blockwise<Z, float, Z, float>(in, out, config,
                                         [](Z x, float s, Z z) { return Dequantize<Z>(x, z, s); });
  });
}

// ---------------------------------------------------------------------------------------------
// The family.

std::optional<std::string> Unsupported(OpId op, DataType) {
  switch (op) {
    case OpId::quantizeLinear:
    case OpId::dequantizeLinear:
      return std::string();  // every data type the builder admits
    default:
      return std::nullopt;
  }
}

std::shared_ptr<const Kernel> Make(const Graph& graph, size_t index, const Config& config,
                                   std::string& why) {
  const OperatorNode& node = graph.operators()[index];
  const OpId op = node.op;
  using In = std::span<const OperandValue* const>;
  using Out = std::span<const OperandDescriptor>;
  switch (op) {
    case OpId::quantizeLinear: {
      return K([config](In in, Out out) { return One(QuantizeLinear(in, out[0], config)); });
    }
    case OpId::dequantizeLinear: {
      return K([config](In in, Out out) { return One(DequantizeLinear(in, out[0], config)); });
    }
    default:
      break;
  }
  why = kNoKernelForOperator;
  return nullptr;
}

}  // namespace

const Family kQuantizationFamily = {Unsupported, Make};

}  // namespace nnref::simd
