// The graph.quant quantization; see nnef_quantize.h for the numerics.
#include "ops/nnef_quantize.h"

#include <algorithm>
#include <cmath>

#include "numerics/cast.h"
#include "ops/elementwise.h"
#include "ops/exact_round.h"
#include "ops/nnef_common.h"

namespace nnref::nnef {

namespace {

// floor(a / b + 0.5) for a = a_hi + a_lo (two doubles, |a_lo| <= ulp(a_hi) / 2) and b > 0,
// deciding halfway cases on the exact quotient.
double RoundQuotientHalfUp(double a, double b, double a_lo = 0) {
  const double v = a / b;
  if (!std::isfinite(v)) return v;
  const double k = std::floor(v);
  const double frac = v - k;
  if (std::fabs(frac - 0.5) > 1e-6) return frac > 0.5 ? k + 1 : k;
  // Sign of a - (k + 0.5) * b, exactly: (k + 0.5) * b = p + perr exactly (fma), and a - p is exact
  // (Sterbenz) because a and p are within a factor of 2 of each other here.
  const double h = k + 0.5;
  const double p = h * b;
  const double perr = std::fma(h, b, -p);
  const double diff = (a - p) + (a_lo - perr);
  return diff >= 0 ? k + 1 : k;
}

// q / r * w + min: the quotient and the sum rounded to odd, then once to float32.
float LinearValue(double q, double r, double w, double min) {
  const double num = q * w;
  const double num_err = std::fma(q, w, -num);
  const double t = num / r;
  const double rem = std::fma(-t, r, num) + num_err;  // sign of (q*w - t*r)
  return RoundTo<float>(SumToOdd(RoundToOdd(t, rem), min));
}

// NNEF clamp(x, a, b) = max(min(x, b), a) with min/max as select(x < y, x, y)/select(x > y, x, y):
// NaN compares false, so min(NaN, b) = b.
double NnefClamp(double x, double a, double b) {
  const double lo = x < b ? x : b;
  return lo > a ? lo : a;
}

}  // namespace

int64_t Quantizer::MinCode() const {
  switch (kind) {
    case Kind::kZeroPointLinear:
    case Kind::kMinMaxLinear:
      if (is_signed) return -(int64_t{1} << (bits - 1)) + (symmetric ? 1 : 0);
      return 0;
    default:
      return 0;
  }
}

int64_t Quantizer::MaxCode() const {
  switch (kind) {
    case Kind::kZeroPointLinear:
    case Kind::kMinMaxLinear:
      if (is_signed) return (int64_t{1} << (bits - 1)) - 1;
      return (int64_t{1} << bits) - 1;
    default:
      return (int64_t{1} << bits) - 1;
  }
}

namespace {

double LinearLevels(const Quantizer& qz) {
  // r = 2^bits - 1 - (signed && symmetric) (the last term only for min_max_linear_quantize)
  const bool drop = qz.kind == Quantizer::Kind::kMinMaxLinear && qz.is_signed && qz.symmetric;
  return std::ldexp(1.0, static_cast<int>(qz.bits)) - 1.0 - (drop ? 1.0 : 0.0);
}

}  // namespace

float Quantizer::Apply(float xf) const {
  const auto x = static_cast<double>(xf);
  switch (kind) {
    case Kind::kLinear:
    case Kind::kMinMaxLinear: {
      const double r = LinearLevels(*this);
      const double z = NnefClamp(x, min, max);
      const double w = max - min;
      const double d = z - min;
      const double a_hi = d * r;
      const double q = RoundQuotientHalfUp(a_hi, w, std::fma(d, r, -a_hi));
      return LinearValue(q, r, w, min);
    }
    case Kind::kLogarithmic: {
      if (std::isnan(x)) return xf;
      if (x == 0) return xf;  // sign(0) * 2^q = 0 (keeps the sign of zero)
      int e = 0;
      const double mant = std::frexp(max, &e);
      const double m = mant == 0.5 ? e - 1 : e;  // ceil(log2(max)), exact
      const double r = std::ldexp(1.0, static_cast<int>(bits)) - 1.0;
      const double q = RoundHalfUp(NnefClamp(std::log2(std::fabs(x)), m - r, m));
      const double y = std::ldexp(1.0, static_cast<int>(std::max(q, -2000.0)));
      return RoundTo<float>(x < 0 ? -y : y);
    }
    case Kind::kZeroPointLinear: {
      if (std::isnan(x)) return xf;
      const double lo = static_cast<double>(MinCode()), hi = static_cast<double>(MaxCode());
      const double zp = static_cast<double>(zero_point);
      const double q = NnefClamp(RoundQuotientHalfUp(x, scale) + zp, lo, hi);
      return RoundTo<float>((q - zp) * scale);
    }
  }
  return xf;
}

std::optional<float> Quantizer::DecodeCode(int64_t code) const {
  if (kind == Kind::kLogarithmic) return std::nullopt;
  if (code < MinCode() || code > MaxCode()) return std::nullopt;
  if (kind == Kind::kZeroPointLinear) {
    return RoundTo<float>(static_cast<double>(code - zero_point) * scale);
  }
  const double k = static_cast<double>(code - MinCode());
  return LinearValue(k, LinearLevels(*this), max - min, min);
}

namespace {

class QuantizeKernel final : public Kernel {
 public:
  explicit QuantizeKernel(std::shared_ptr<const QuantizeAttributes> a) : a_(std::move(a)) {}
  std::vector<OperandValue> Compute(std::span<const OperandValue* const> in,
                                    std::span<const OperandDescriptor> out) const override {
    const Quantizer& q = a_->quantizer;
    return {
        MapElements<float, float>(out[0], {in[0]}, [&](float x, Latitude&) { return q.Apply(x); })};
  }

 private:
  std::shared_ptr<const QuantizeAttributes> a_;
};

}  // namespace

Operand NnefQuantize(GraphBuilder& builder, const Operand& input, const Quantizer& quantizer) {
  const OperandDescriptor& d = builder.Desc(input);
  if (d.dataType != DataType::kFloat32) ThrowTypeError("quantize: the input must be float32");
  auto a = std::make_shared<QuantizeAttributes>();
  a->quantizer = quantizer;
  return AddNnefNode(builder, OpId::nnef_quantize, {input}, std::make_shared<QuantizeKernel>(a), a,
                     {d})[0];
}

}  // namespace nnref::nnef
