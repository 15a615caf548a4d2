#include "runner/compare.h"

#include <cmath>
#include <limits>

#include "numerics/ulp.h"
#include "ref/graph/graph.h"
#include "runner/data.h"

namespace nnref {

std::string CoordinatesOf(const Shape& shape, uint64_t linear) {
  std::vector<uint64_t> idx(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    idx[i] = linear % shape[i];
    linear /= shape[i];
  }
  return ShapeToString(idx);
}

namespace {

template <typename T>
std::pair<double, double> Distance(T e, T a) {
  if constexpr (std::is_same_v<T, float>) {
    const uint64_t u = UlpDistanceFloat32(e, a);
    const double ud =
        u == kInfiniteDistance ? std::numeric_limits<double>::infinity() : static_cast<double>(u);
    const double ad = (std::isnan(e) && std::isnan(a)) ? 0 : std::fabs(double{e} - double{a});
    return {ud, std::isnan(ad) ? std::numeric_limits<double>::infinity() : ad};
  } else if constexpr (std::is_same_v<T, Float16>) {
    const uint64_t u = UlpDistanceFloat16(e, a);
    const double ud =
        u == kInfiniteDistance ? std::numeric_limits<double>::infinity() : static_cast<double>(u);
    const double de = e.ToDouble(), da = a.ToDouble();
    const double ad = (std::isnan(de) && std::isnan(da)) ? 0 : std::fabs(de - da);
    return {ud, std::isnan(ad) ? std::numeric_limits<double>::infinity() : ad};
  } else {
    uint64_t u;
    if constexpr (std::is_signed_v<T>) {
      u = IntegerDistance(static_cast<int64_t>(e), static_cast<int64_t>(a));
    } else {
      u = IntegerDistance(static_cast<uint64_t>(e), static_cast<uint64_t>(a));
    }
    return {static_cast<double>(u), static_cast<double>(u)};
  }
}

template <typename T>
bool IsNaN(T v) {
  if constexpr (kIsFloatStorage<T>) {
    return std::isnan(ToDouble(v));
  } else {
    return false;
  }
}

}  // namespace

Comparison CompareTensors(const Tensor& expected, const Tensor& actual, const Tensor& latitude,
                          const Tolerance& tol, size_t max_reported) {
  Comparison c;
  if (expected.dtype() != actual.dtype() || expected.shape() != actual.shape()) {
    c.shape_ok = false;
    c.shape_message = "expected " + std::string(DataTypeName(expected.dtype())) +
                      ShapeToString(expected.shape()) + ", got " +
                      std::string(DataTypeName(actual.dtype())) + ShapeToString(actual.shape());
    return c;
  }
  c.elements = expected.element_count();
  const bool integer = IsInteger(expected.dtype());
  // For integers a tolerance value bounds the absolute difference whichever metric named it.
  const double ulp_bound = integer ? std::max(tol.ulp, tol.atol) : tol.ulp;
  const double abs_bound = integer ? ulp_bound : tol.atol;
  DispatchDataType(expected.dtype(), [&]<typename T>() {
    for (uint64_t i = 0; i < c.elements; ++i) {
      const auto lat =
          latitude.valid() ? static_cast<Latitude>(latitude.At<uint8_t>(i)) : Latitude::kExact;
      if (lat == Latitude::kAny) {
        ++c.implementation_defined;
        continue;
      }
      const T e = expected.At<T>(i), a = actual.At<T>(i);
      if (lat == Latitude::kValueOrNaN && IsNaN(a)) {
        ++c.nan_accepted;
        continue;
      }
      const auto [ud, ad] = Distance(e, a);
      c.max_ulp = std::max(c.max_ulp, ud);
      c.max_abs = std::max(c.max_abs, ad);
      if (ud <= ulp_bound || ad <= abs_bound) continue;
      ++c.mismatches;
      if (c.first.size() < max_reported) {
        c.first.push_back({i, CoordinatesOf(expected.shape(), i), ElementText(expected, i),
                           ElementText(actual, i), ud, ad});
      }
    }
  });
  return c;
}

}  // namespace nnref
