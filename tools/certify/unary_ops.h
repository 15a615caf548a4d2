// The float unary operators of the reference (WebNN §api-mlgraphbuilder-unary and the
// activations), with the option sets the certification tool and the element-wise benchmark run:
// each as a one-operator graph run on a flat tensor of float32 or float16 inputs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ref/graph/graph.h"

namespace nnref::certify {

// The mathematical function an operator computes (the oracle evaluates it independently).
enum class Fn : uint8_t {
  kAbs,
  kCeil,
  kCos,
  kErf,
  kExp,
  kFloor,
  kIdentity,
  kLog,
  kNeg,
  kReciprocal,
  kRoundEven,
  kSin,
  kSign,
  kSqrt,
  kTan,
  kElu,
  kGelu,
  kHardSigmoid,
  kHardSwish,
  kLeakyRelu,
  kRelu,
  kSigmoid,
  kSoftplus,
  kSoftsign,
  kTanh,
};

struct UnaryCase {
  std::string name;  // "elu" or "elu(alpha=0.5)"
  Fn fn;
  double alpha = 0, beta = 0;  // the options as given (the reference casts them to the input type)
  std::function<Operand(GraphBuilder&, const Operand&)> build;
};

// Every float unary operator with default options, then the non-default option sets.
const std::vector<UnaryCase>& UnaryCases();

// The graph of one case on `count` elements of `type` (float32 or float16).
class UnaryRunner {
 public:
  UnaryRunner(const UnaryCase& c, DataType type, uint64_t count);
  // Runs the operator on count elements (raw float or float16 bits) into out.
  void Run(const void* in, void* out) const;

 private:
  DataType type_;
  uint64_t count_;
  std::shared_ptr<const Graph> graph_;
};

}  // namespace nnref::certify
