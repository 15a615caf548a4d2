// --dump DIR of run and check: the tensors of a failing output as .npy files. Internal to the
// commands; formerly in commands.cc.
#pragma once

#include <string>

#include "ref/tensor/tensor.h"

namespace nnref {

// --dump DIR: the expected and actual tensors of a failing output, and actual - expected as
// float64, as DIR/CASE.OUTPUT.{expected,actual,diff}.npy. Returns DIR/CASE.OUTPUT.
std::string DumpOutput(const std::string& dir, const std::string& case_name,
                       const std::string& output, const Tensor& expected, const Tensor& actual);

}  // namespace nnref
