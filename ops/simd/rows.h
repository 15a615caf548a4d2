// Row functions of the simd backend's element-wise kernels: float32 rows in, float32 rows out,
// vectorized with Highway and dispatched at run time to the best target of the CPU
// (elementwise_hwy.cc). A step of 0 broadcasts element 0 of that input along the row.
#pragma once

#include <cstddef>
#include <cstdint>

namespace nnref::simd {

enum class RowBinary : uint8_t { kAdd, kSub, kMul, kDiv, kMax, kMin, kPow, kPrelu };
enum class RowUnary : uint8_t {
  kAbs, kCeil, kCos, kErf, kExp, kFloor, kIdentity, kLog, kNeg, kReciprocal, kRoundEven, kSin,
  kSign, kSqrt, kTan,
  // activations
  kElu, kGelu, kHardSigmoid, kHardSwish, kLeakyRelu, kRelu, kSigmoid, kSoftplus, kSoftsign, kTanh
};

void BinaryRow(RowBinary op, const float* a, size_t a_step, const float* b, size_t b_step,
               float* out, size_t n);
void UnaryRow(RowUnary op, const float* x, float* out, size_t n, float alpha, float beta);

// float16 bits <-> float32, exact IEEE conversions (F16C on AVX2 and better targets; a
// round-to-nearest-even routine elsewhere, never Highway 1.0.3's emulation).
void HalfToFloatRow(const uint16_t* in, float* out, size_t n);
void FloatToHalfRow(const float* in, uint16_t* out, size_t n);

// Test hooks: the name of the target the dispatcher picks.
const char* ChosenTargetName();

}  // namespace nnref::simd
