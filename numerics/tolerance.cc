#include "numerics/tolerance.h"

#include <cmath>
#include <cstdio>

namespace nnref {

Tolerance& Tolerance::operator+=(const Tolerance& o) {
  ulp += o.ulp;
  atol += o.atol;
  return *this;
}

std::string Tolerance::Describe() const {
  char buf[96];
  if (atol == 0) {
    std::snprintf(buf, sizeof buf, "%g ULP", ulp);
  } else if (ulp == 0) {
    std::snprintf(buf, sizeof buf, "ATOL %g", atol);
  } else {
    std::snprintf(buf, sizeof buf, "%g ULP or ATOL %g", ulp, atol);
  }
  return std::string(buf) + (sign_exact ? ", sign-exact zeros" : "");
}

double UnitRoundoff(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat32:
      return std::ldexp(1.0, -24);
    case DataType::kFloat16:
      return std::ldexp(1.0, -11);
    default:
      return 0;
  }
}

double SumBound(DataType output, double roundings, double magnitude) {
  const double subnormal = output == DataType::kFloat16 ? std::ldexp(1.0, -24)    // 2^-24
                                                        : std::ldexp(1.0, -149);  // float32
  return roundings * (UnitRoundoff(output) * magnitude + subnormal);
}

}  // namespace nnref
