// `nnref tolerance --audit CASES`: a tolerance policy held against legitimate variants and
// known-wrong mutants of every operator (ops/variants/variants.h) on the cases' own data.
//
// Every operator of every graph case runs alone on the reference's values of its inputs, as in
// the check mode, once per alternative that applies to it; each alternative's outputs are judged
// as the policy judges an implementation's. A rejected variant is a tolerance too tight; an
// accepted mutant whose largest error reaches 1% of the output's scale (its largest finite
// magnitude) is a tolerance too loose. Mutants accepted below that are listed: the case's data
// cannot tell them from a correct result, and a case that can is what to add. A variant whose
// output overflows (NaN or infinity where the reference is finite) is a stated rejection:
// intermediate overflow in the operand type is outside what the policies promise to accept.
#pragma once

#include <string>
#include <vector>

#include "runner/derived.h"

namespace nnref {

struct AuditOptions {
  std::vector<std::string> paths;
  TolerancePolicy policy = TolerancePolicy::kDerived;
  // `nnref audit`: a conformance suite's own data and tolerances. Each published expected value
  // is held against the reference (its ULP distance, the correctly rounded value printed, and
  // whether it lies within the derived bound); each single-operator case's own tolerance (the
  // suite's table, i.e. the wpt policy, where the case gives none) is held against the variants
  // and mutants; an integer output with a nonzero tolerance is listed (it accepts off-by-one).
  bool suite = false;
  std::vector<std::string> filters;  // case name substrings (any)
  std::string json;                  // write the findings as JSON here
  bool verbose = false;              // every (operator, type, alternative) row
};

// Prints the audit; returns 0 when no variant is rejected and no mutant of 1% or more accepted
// (and, for a suite, no published value lies outside its derived bound).
int CommandAudit(const AuditOptions& o);

}  // namespace nnref
