// Judging another implementation's outputs through the library API (runner/api/verdict.h): the
// float16 layerNormalization of issue 21, as an implementation that computes it right and one that
// forgets the square root would give it. Built by CMake as `verdict_example` and run by CTest
// (`example.verdict`): the right one passes under both policies; the wrong one passes the
// suite's 8400-ULP row (wpt) and fails the derived bounds.
#include "runner/api/verdict.h"

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "numerics/float16.h"
#include "runner/api/webnn.h"

namespace webnn = nnref::webnn;

namespace {

// An "implementation": (x - mean) / sqrt(variance + 1e-5), or without the square root.
nnref::Tensor Implementation(const std::vector<double>& x, bool with_sqrt) {
  double mean = 0, variance = 0;
  for (double v : x) mean += v / static_cast<double>(x.size());
  for (double v : x) variance += (v - mean) * (v - mean) / static_cast<double>(x.size());
  const double scale = with_sqrt ? std::sqrt(variance + 1e-5) : variance + 1e-5;
  nnref::Tensor t = nnref::Tensor::Allocate(nnref::DataType::kFloat16, {1, x.size()});
  for (size_t i = 0; i < x.size(); ++i) {
    t.base<nnref::Float16>()[i] = nnref::Float16::FromDouble((x[i] - mean) / scale);
  }
  return t;
}

}  // namespace

int main() {
  const std::vector<double> x = {1, 2, 3.5, 7};
  webnn::Context context = webnn::Context::Create().get();
  webnn::GraphBuilder builder(context);
  const webnn::Operand input = builder.Input("x", {nnref::DataType::kFloat16, {1, 4}});
  const webnn::Graph graph = builder.Build({{"y", builder.LayerNormalization(input)}}).get();
  nnref::Tensor xv = nnref::Tensor::Allocate(nnref::DataType::kFloat16, {1, 4});
  for (size_t i = 0; i < x.size(); ++i)
    xv.base<nnref::Float16>()[i] = nnref::Float16::FromDouble(x[i]);

  bool as_expected = true;
  for (const bool with_sqrt : {true, false}) {
    for (const nnref::TolerancePolicy policy :
         {nnref::TolerancePolicy::kWpt, nnref::TolerancePolicy::kDerived}) {
      const webnn::OutputVerdict v =
          webnn::JudgeOutputs(graph, {{"x", xv}}, {{"y", Implementation(x, with_sqrt)}}, policy)
              .at("y");
      std::cout << (with_sqrt ? "right       " : "no sqrt     ") << nnref::PolicyName(policy)
                << ": " << (v.passed() ? "pass" : "FAIL") << " (" << v.comparison.mismatches
                << " of " << v.comparison.elements << " outside " << v.tolerance << ")\n";
      as_expected =
          as_expected && v.passed() == (with_sqrt || policy == nnref::TolerancePolicy::kWpt);
    }
  }
  std::cout << (as_expected ? "verdicts as expected" : "unexpected verdicts") << "\n";
  return as_expected ? 0 : 1;
}
