// libFuzzer target: bytes as a case file whose timeline cases are run (MLContext / MLTensor
// scripts: contexts, tensors, builders, dispatch, reads, buffers), on the reference. The
// decoding alone is case_fuzzer's; this one runs the scripts. Only InputError and WebnnError may
// escape; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ref/error.h"
#include "runner/case.h"
#include "runner/run_command.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nnref;
  const std::string text(reinterpret_cast<const char*>(data), size);
  BuilderLimits limits;
  limits.max_tensor_byte_length = 1 << 20;
  try {
    const CaseFile f = LoadCaseText(text, "fuzz.json");
    for (const Case& c : f.cases) {
      if (!c.timeline) continue;
      try {
        RunCase(c, limits);
      } catch (const InputError&) {
      } catch (const WebnnError&) {
      }
    }
  } catch (const InputError&) {
  }
  return 0;
}
