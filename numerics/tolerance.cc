#include "numerics/tolerance.h"

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

namespace {

constexpr double kAtol1024 = 1.0 / 1024;
constexpr ToleranceMetric U = ToleranceMetric::kUlp;
constexpr ToleranceMetric A = ToleranceMetric::kAtol;

// Values follow the WebNN conformance suite's table (see docs/numerics.md). nnref itself rounds
// once from a double (or exact) result, so for it these are loose; they exist for implementations
// that compute in the operand type or use fast approximations.
const std::vector<ToleranceRow> kRows = {
    // element-wise binary
    {"add", U, 1, 1, 0, "one rounding of the exact sum in the output type"},
    {"sub", U, 1, 1, 0, "one rounding of the exact difference"},
    {"mul", U, 1, 1, 0, "one rounding of the exact product"},
    {"div", U, 2, 2, 0, "implementations often compute a*(1/b): two roundings"},
    {"max", U, 0, 0, 0, "selects one input exactly"},
    {"min", U, 0, 0, 0, "selects one input exactly"},
    {"pow", U, 32, 2, 0, "pow via exp(b*log(a)) loses bits in float32 libraries"},
    // element-wise logical: exact 0/1 outputs
    {"equal", U, 0, 0, 0, "comparison result is exact"},
    {"notEqual", U, 0, 0, 0, "comparison result is exact"},
    {"greater", U, 0, 0, 0, "comparison result is exact"},
    {"greaterOrEqual", U, 0, 0, 0, "comparison result is exact"},
    {"lesser", U, 0, 0, 0, "comparison result is exact"},
    {"lesserOrEqual", U, 0, 0, 0, "comparison result is exact"},
    {"logicalNot", U, 0, 0, 0, "logical result is exact"},
    {"logicalAnd", U, 0, 0, 0, "logical result is exact"},
    {"logicalOr", U, 0, 0, 0, "logical result is exact"},
    {"logicalXor", U, 0, 0, 0, "logical result is exact"},
    {"isNaN", U, 0, 0, 0, "classification is exact"},
    {"isInfinite", U, 0, 0, 0, "classification is exact"},
    // element-wise unary
    {"abs", U, 0, 0, 0, "exact"},
    {"ceil", U, 0, 0, 0, "exact"},
    {"floor", U, 0, 0, 0, "exact"},
    {"roundEven", U, 0, 0, 0, "exact"},
    {"neg", U, 0, 0, 0, "exact"},
    {"sign", U, 0, 0, 0, "exact"},
    {"identity", U, 0, 0, 0, "copy"},
    {"cos", A, kAtol1024, kAtol1024, 0,
     "GPU sin/cos approximations are absolute-accurate, not relative (large ULP near zeros)"},
    {"sin", A, kAtol1024, kAtol1024, 0, "as cos"},
    {"tan", A, kAtol1024, kAtol1024, 0, "tan = sin/cos in many libraries; absolute bound as cos"},
    {"erf", A, kAtol1024, kAtol1024, 0,
     "erf is commonly a polynomial approximation (Abramowitz-Stegun 7.1.26: 1.5e-7 absolute); "
     "absolute bound as the other transcendental functions"},
    {"exp", U, 32, 1, 0, "float32 exp approximations (e.g. GPU exp2-based) are within 32 ulp"},
    {"log", A, kAtol1024, kAtol1024, 0,
     "log near 1 has huge ULP error in common approximations but small absolute error"},
    {"reciprocal", U, 2, 2, 0, "approximate reciprocal plus a Newton step"},
    {"sqrt", U, 1, 1, 0, "correctly rounded in IEEE; one ulp for approximations"},
    // others of the foundation issue
    {"cast", U, 1, 1, 0,
     "to a float type: one rounding (the runner applies 0 for integer outputs, see below)"},
    {"clamp", U, 0, 0, 0, "selects an input or a bound exactly"},
    {"where", U, 0, 0, 0, "selects an input exactly"},
};

}  // namespace

const std::vector<ToleranceRow>& DefaultToleranceTable() { return kRows; }

std::optional<Tolerance> DefaultTolerance(const ToleranceQuery& q) {
  for (const ToleranceRow& r : kRows) {
    if (r.op != q.op) continue;
    // Integer outputs are exact for every operator: there is no rounding to allow for.
    if (IsInteger(q.output)) return Tolerance::Ulp(0, "integer output: exact");
    const double base = q.output == DataType::kFloat16 ? r.float16 : r.float32;
    const double v = base + r.per_size * static_cast<double>(q.size);
    return r.metric == ToleranceMetric::kUlp ? Tolerance::Ulp(v, std::string(r.reason))
                                             : Tolerance::Atol(v, std::string(r.reason));
  }
  return std::nullopt;
}

}  // namespace nnref
