// Dispatch over the float data types only, for kernels of operators whose limits tables allow
// just float32 and float16 (matmul, gemm, linear, the normalizations, the float side of
// quantizeLinear/dequantizeLinear). Instantiating such a kernel for integer storage would be
// meaningless (RoundTo is float-only), so these kernels do not go through DispatchDataType.
#pragma once

#include "numerics/dtype.h"

namespace nnref {

// Calls fn.template operator()<T>() with T = float or Float16. The builder method has already
// restricted `t` to a float type; any other value is treated as float32 (unreachable).
template <typename Fn>
decltype(auto) DispatchFloatType(DataType t, Fn&& fn) {
  if (t == DataType::kFloat16) return fn.template operator()<Float16>();
  return fn.template operator()<float>();
}

}  // namespace nnref
