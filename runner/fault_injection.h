// A test-only backend: the kernels of another backend, except that one operator gets one element
// of its first output replaced. It exists to prove that the check mode blames the right operator
// and element (runner/backend_check_test.cc, tests/cli/check.sh via `run --inject-fault`).
#pragma once

#include <memory>
#include <string>

#include "ops/backend.h"

namespace nnref {

// Every operator named `op` (a method name) gets element `element` (row-major) of its first
// output set to `value` (converted to the output's data type).
std::shared_ptr<const Backend> MakeFaultInjectingBackend(std::shared_ptr<const Backend> inner,
                                                         std::string op, uint64_t element,
                                                         double value);

// Parses "OP:ELEMENT:VALUE" (InputError naming --inject-fault otherwise).
std::shared_ptr<const Backend> MakeFaultInjectingBackend(std::shared_ptr<const Backend> inner,
                                                         const std::string& spec);

}  // namespace nnref
