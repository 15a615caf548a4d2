// Element-wise comparison of an actual tensor against an expected one under a tolerance, skipping
// (and counting) elements the reference marks implementation-defined.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "numerics/tolerance.h"
#include "ref/graph/graph.h"
#include "ref/tensor/tensor.h"

namespace nnref {

struct Mismatch {
  uint64_t index = 0;       // row-major linear index
  std::string coordinates;  // "[1, 0, 2]"
  std::string expected;
  std::string actual;
  double ulp = 0;  // ULP (or integer) distance; infinity when incomparable
  double abs = 0;
  // Floats of opposite signs (neither zero nor NaN): `ulp` then counts the representable values
  // between them across zero, which says little; the absolute error is the telling figure.
  bool sign_change = false;
  bool integer = false;     // integer data: `ulp` and `abs` are both the difference (rounded)
  uint64_t difference = 0;  // integer data: the exact |actual - expected|
  double sum_bound = 0;     // the element's sum bound, when it had one (runner/sum_bound.h)
  // One side a nonzero subnormal, the other zero: a subnormal flushed to zero.
  bool flushed_subnormal = false;
  // The spec's steps overflow the type at this element (the derived policy's flags) and one side
  // is infinite where the other is finite: what computing the steps in the type gives.
  bool step_overflow = false;
};

// Histogram bins of per-element ULP (for integers: absolute) distances: bin 0 holds 0, bin b
// (1..32) holds [2^(b-1), 2^b), bin 33 holds 2^32 and more, infinity included.
inline constexpr size_t kUlpBins = 34;
size_t UlpBin(double ulp);

struct Comparison {
  bool shape_ok = true;
  std::string shape_message;
  uint64_t elements = 0;
  bool integer = false;  // integer data: the distances are differences, not ULPs
  uint64_t mismatches = 0;
  uint64_t implementation_defined = 0;  // skipped: the spec leaves the value open
  uint64_t nan_accepted = 0;            // "value or NaN" elements where NaN was given
  uint64_t one_of_accepted = 0;  // "one of" elements where another value of the set was given
  // Elements beyond the ULP and absolute bounds but within their sum bound (runner/sum_bound.h):
  // an operand-type accumulator's error where the terms cancel.
  uint64_t sum_bound_accepted = 0;
  // Mismatches where one side is a nonzero subnormal and the other zero (flushed subnormals).
  uint64_t flushed_subnormals = 0;
  // Mismatches marked step_overflow (an infinity where the spec's steps overflow the type).
  uint64_t step_overflows = 0;
  double max_ulp = 0;
  double max_abs = 0;
  double sum_ulp = 0;     // over the compared elements with a finite ULP distance
  uint64_t compared = 0;  // elements with a finite ULP distance (the mean's denominator)
  double mean_ulp() const { return compared ? sum_ulp / static_cast<double>(compared) : 0; }
  std::array<uint64_t, kUlpBins> ulp_hist{};  // over the compared elements
  std::vector<Mismatch> first;                // the first few mismatches
  bool passed() const { return shape_ok && mismatches == 0; }
};

// Which of the two tensors is the reference's output: `check` compares the reference (expected)
// with an implementation's results (actual); `run`, timeline reads and NNEF cases compare a case's
// expected data with the reference's output (actual).
// kNeither: both are other results (a backend's output against a case's expected data, judged
// with the reference's latitude): a NaN on either side is accepted on a value-or-NaN element.
enum class ReferenceSide { kExpected, kActual, kNeither };

// `latitude` (uint8 Latitude codes, may be invalid = all exact) describes the reference's tensor.
// A kValueOrNaN element also passes when the other tensor holds NaN there. `one_of` holds the sets
// of the kOneOf elements (argMin/argMax ties): such an element also passes when both values are in
// its set. Without a set, kOneOf elements are compared as exact ones. `sum_bound` (empty, or one
// absolute bound per element, row-major: runner/sum_bound.h) lets a finite element whose
// absolute error is within its bound pass too (counted in sum_bound_accepted). `step_overflow`
// (empty, or one flag per element: Judgement::overflow) marks the elements where the spec's steps
// leave the type's range; a mismatch there with an infinity on one side only is counted in
// step_overflows (it still fails: WebNN's result is the finite one).
Comparison CompareTensors(const Tensor& expected, const Tensor& actual, const Tensor& latitude,
                          const Tolerance& tolerance, size_t max_reported = 5,
                          const OneOfSet* one_of = nullptr,
                          ReferenceSide reference = ReferenceSide::kExpected,
                          std::span<const double> sum_bound = {},
                          std::span<const uint8_t> step_overflow = {});

std::string CoordinatesOf(const Shape& shape, uint64_t linear);

}  // namespace nnref
