#include "runner/compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "numerics/ulp.h"
#include "ref/graph/graph.h"
#include "ref/parallel/parallel.h"
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

// (ULP distance, absolute difference) of an expected and an actual element. Equal values (also
// equal infinities, and NaN against NaN) are 0 apart in both.
template <typename T>
std::pair<double, double> Distance(T e, T a) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if constexpr (kIsFloatStorage<T>) {
    uint64_t u;
    if constexpr (std::is_same_v<T, float>) {
      u = UlpDistanceFloat32(e, a);
    } else {
      u = UlpDistanceFloat16(e, a);
    }
    if (u == 0) return {0, 0};
    const double de = ToDouble(e), da = ToDouble(a);
    const double ad = std::fabs(de - da);
    return {u == kInfiniteDistance ? kInf : static_cast<double>(u), std::isnan(ad) ? kInf : ad};
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

// +0 against -0 (only a mismatch when the tolerance asks for sign-exact zeros).
template <typename T>
bool ZeroSignsDiffer(T e, T a) {
  if constexpr (kIsFloatStorage<T>) {
    const double de = ToDouble(e), da = ToDouble(a);
    return de == 0 && da == 0 && std::signbit(de) != std::signbit(da);
  } else {
    return false;
  }
}

// The exact |a - e| of integers (0 for floats).
template <typename T>
uint64_t ExactDifference(T e, T a) {
  if constexpr (kIsFloatStorage<T>) {
    return 0;
  } else if constexpr (std::is_signed_v<T>) {
    return IntegerDistance(static_cast<int64_t>(e), static_cast<int64_t>(a));
  } else {
    return IntegerDistance(static_cast<uint64_t>(e), static_cast<uint64_t>(a));
  }
}

// One side a nonzero subnormal of the type, the other a zero: what an implementation (or a device)
// that flushes subnormals to zero gives (nnref keeps them: docs/numerics.md).
template <typename T>
bool FlushedSubnormal(T e, T a) {
  if constexpr (kIsFloatStorage<T>) {
    const double tiny = std::is_same_v<T, float> ? 0x1p-126 : 0x1p-14;  // smallest normal
    const double de = ToDouble(e), da = ToDouble(a);
    const auto subnormal = [&](double v) { return v != 0 && std::fabs(v) < tiny; };
    return (subnormal(de) && da == 0) || (subnormal(da) && de == 0);
  } else {
    return false;
  }
}

template <typename T>
bool SignsDiffer(T e, T a) {
  if constexpr (kIsFloatStorage<T>) {
    const double de = ToDouble(e), da = ToDouble(a);
    return de != 0 && da != 0 && !std::isnan(de) && !std::isnan(da) &&
           std::signbit(de) != std::signbit(da);
  } else {
    return false;
  }
}

// One side infinite, the other finite (not NaN): an overflow on one side only.
template <typename T>
bool OneSideInfinite(T e, T a) {
  if constexpr (kIsFloatStorage<T>) {
    const double de = ToDouble(e), da = ToDouble(a);
    return (std::isinf(de) && std::isfinite(da)) || (std::isinf(da) && std::isfinite(de));
  } else {
    return false;
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

size_t UlpBin(double ulp) {
  if (!(ulp >= 1)) return 0;
  if (ulp >= 4294967296.0) return kUlpBins - 1;
  return static_cast<size_t>(std::ilogb(ulp)) + 1;
}

Comparison CompareTensors(const Tensor& expected, const Tensor& actual, const Tensor& latitude,
                          const Tolerance& tol, size_t max_reported, const OneOfSet* one_of,
                          ReferenceSide reference, std::span<const double> sum_bound,
                          std::span<const uint8_t> step_overflow) {
  Comparison c;
  if (expected.dtype() != actual.dtype() || expected.shape() != actual.shape()) {
    c.shape_ok = false;
    c.shape_message = "expected " + std::string(DataTypeName(expected.dtype())) +
                      ShapeToString(expected.shape()) + ", got " +
                      std::string(DataTypeName(actual.dtype())) + ShapeToString(actual.shape());
    return c;
  }
  c.elements = expected.element_count();
  if (sum_bound.size() != c.elements) sum_bound = {};  // not this tensor's: judged without
  if (step_overflow.size() != c.elements) step_overflow = {};
  const bool integer = IsInteger(expected.dtype());
  c.integer = integer;
  // For integers a tolerance value bounds the absolute difference whichever metric named it.
  const double ulp_bound = integer ? std::max(tol.ulp, tol.atol) : tol.ulp;
  const double abs_bound = integer ? ulp_bound : tol.atol;
  // Dense copies only of strided views; the element loop then walks plain arrays.
  const Tensor e_dense = expected.Contiguous(), a_dense = actual.Contiguous();
  const Tensor l_dense = latitude.valid() ? latitude.Contiguous() : Tensor();
  const uint8_t* lat_data = l_dense.valid() ? l_dense.base<uint8_t>() : nullptr;
  // Blocks whose bytes are identical and carry no latitude mark compare equal element by element
  // (every distance 0, signed zeros included), so they are found first on the reference's
  // threads and only counted; the other blocks go through the element loop in order.
  constexpr uint64_t kBlock = uint64_t{1} << 14;
  const uint64_t blocks = (c.elements + kBlock - 1) / kBlock;
  std::vector<uint8_t> identical(blocks, 0);
  const size_t es = ElementSize(expected.dtype());
  ParallelFor(static_cast<size_t>(blocks), 16, [&](size_t begin, size_t end) {
    for (size_t b = begin; b < end; ++b) {
      const uint64_t first = b * kBlock, count = std::min(kBlock, c.elements - first);
      bool same = std::memcmp(e_dense.base<std::byte>() + first * es,
                              a_dense.base<std::byte>() + first * es, count * es) == 0;
      if (same && lat_data != nullptr) {
        for (uint64_t i = first; i < first + count && same; ++i) same = lat_data[i] == 0;
      }
      identical[b] = same ? 1 : 0;
    }
  });
  DispatchDataType(expected.dtype(), [&]<typename T>() {
    const T* e_data = e_dense.base<T>();
    const T* a_data = a_dense.base<T>();
    for (uint64_t b = 0; b < blocks; ++b) {
      const uint64_t first = b * kBlock, last = std::min(first + kBlock, c.elements);
      if (identical[b]) {
        c.compared += last - first;
        c.ulp_hist[0] += last - first;  // 0 ulp apart
        continue;
      }
      for (uint64_t i = first; i < last; ++i) {
        const auto lat = lat_data ? static_cast<Latitude>(lat_data[i]) : Latitude::kExact;
        if (lat == Latitude::kAny) {
          ++c.implementation_defined;
          continue;
        }
        const T e = e_data[i], a = a_data[i];
        // Value or NaN: the reference's value, or a NaN on the other side (the implementation's
        // result, or in `run` the case's expected data).
        if (lat == Latitude::kValueOrNaN &&
            (reference == ReferenceSide::kExpected ? IsNaN(a)
             : reference == ReferenceSide::kActual ? IsNaN(e)
                                                   : IsNaN(a) || IsNaN(e))) {
          ++c.nan_accepted;
          continue;
        }
        auto [ud, ad] = Distance(e, a);
        // A kOneOf element (argMin/argMax tie): another value of its set passes. The set holds
        // the reference's own value, so asking about both sides needs no notion of which one it
        // is.
        if (lat == Latitude::kOneOf && one_of != nullptr && ud != 0 &&
            one_of->Contains(i, expected) && one_of->Contains(i, actual)) {
          ++c.one_of_accepted;
          continue;
        }
        // Sign-exact zeros: +0 against -0 is a mismatch whatever the bounds.
        const bool zero_sign = tol.sign_exact && ZeroSignsDiffer(e, a);
        if (zero_sign) ud = std::max(ud, 1.0);
        c.max_ulp = std::max(c.max_ulp, ud);
        c.max_abs = std::max(c.max_abs, ad);
        ++c.ulp_hist[UlpBin(ud)];
        if (std::isfinite(ud)) {
          c.sum_ulp += ud;
          ++c.compared;
        }
        if (!zero_sign && (ud <= ulp_bound || ad <= abs_bound)) continue;
        // An infinite bound (the derived policy: an element at the edge of the type's range,
        // or one whose inputs leave it undetermined) accepts any value.
        if (!zero_sign && !sum_bound.empty() &&
            (std::isinf(sum_bound[i]) || (std::isfinite(ad) && ad <= sum_bound[i]))) {
          ++c.sum_bound_accepted;
          continue;
        }
        ++c.mismatches;
        const bool flushed = FlushedSubnormal(e, a);
        c.flushed_subnormals += flushed;
        const bool overflowed = !step_overflow.empty() && step_overflow[i] && OneSideInfinite(e, a);
        c.step_overflows += overflowed;
        if (c.first.size() < max_reported) {
          c.first.push_back({i, CoordinatesOf(expected.shape(), i), ElementText(expected, i),
                             ElementText(actual, i), ud, ad, SignsDiffer(e, a), integer,
                             ExactDifference(e, a), sum_bound.empty() ? 0.0 : sum_bound[i], flushed,
                             overflowed});
        }
      }
    }
  });
  return c;
}

}  // namespace nnref
