// The certification oracle (tools/certify): the correctly rounded float32 / float16 value of each
// float unary operator, computed independently of the reference's kernels.
//
// Tier 1 (float32 only, fast): the operator's formula in x87 long double (64-bit significand,
// glibc's ldbl-96 functions: code and precision independent of the double libm the reference
// uses) with a generous relative bound (2^-56 = 256 long-double ulps per libm call; gelu adds
// erfc's conditioning). When both ends of [v - e, v + e] round to the same float, that float is
// the answer. Otherwise, and for every float16 input, tier 2 decides.
// Tier 2 (MPFR, rigorous): the formula evaluated with MPFR at precision p (each operation
// correctly rounded, so the error is a known number of ulps at p, times erfc's conditioning for
// gelu); when an operation is inexact, both ends of the error interval are rounded and compared
// (Ziv's loop: p = 128 + (the input's binary exponent below 0), doubled up to 16384 bits). A
// computation whose every step is exact gives the exact value. The rounding to float32/float16
// goes through a double rounded to odd and the compiler's (float) / (_Float16) conversion.
// `--audit-tier1` (the CI smoke) checks tier 1 against tier 2 on every input it decides.
#pragma once

#include <cstdint>

#include "tools/certify/unary_ops.h"

namespace nnref::certify {

struct OracleStats {
  uint64_t tier2 = 0;      // inputs tier 1 left to MPFR
  uint64_t undecided = 0;  // MPFR intervals that still held a boundary at 16384 bits
};

class Oracle {
 public:
  // alpha/beta: the case's options as given; the oracle casts them to the input type, as the
  // spec's steps do.
  Oracle(Fn fn, double alpha, double beta);

  // The correctly rounded result for a float32 input (tier 1, then tier 2 when undecided).
  uint32_t Float32(uint32_t x_bits, OracleStats& stats) const;
  // Tier 2 alone (for the smoke's audit).
  uint32_t Float32Mpfr(uint32_t x_bits, OracleStats& stats) const;
  // Tier 1 alone: false when it cannot decide.
  bool Float32Tier1(uint32_t x_bits, uint32_t& out) const;
  // The correctly rounded result for a float16 input (tier 2).
  uint16_t Float16(uint16_t x_bits, OracleStats& stats) const;

 private:
  Fn fn_;
  double alpha32_, beta32_, alpha16_, beta16_;
};

// Whether two results agree: equal bits, or both NaN (any payload).
// Frees MPFR's caches of the calling thread (its constants, kept per thread): each thread that
// used the oracle calls it before it ends, so that LeakSanitizer sees no leak.
void FreeOracleCaches();

bool SameFloat32(uint32_t a, uint32_t b);
bool SameFloat16(uint16_t a, uint16_t b);

}  // namespace nnref::certify
