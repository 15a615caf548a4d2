// libFuzzer target: arbitrary bytes as a case file, through loading, building, running, comparing
// and canonical output. Only InputError and WebnnError may escape the pipeline; anything else
// (a crash, a sanitizer report, another exception) is a bug. Build and run with tools/fuzz/run.sh.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ref/error.h"
#include "runner/case.h"
#include "runner/compare.h"
#include "runner/data.h"
#include "runner/execute.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nnref;
  const std::string text(reinterpret_cast<const char*>(data), size);
  BuilderLimits limits;
  limits.max_tensor_byte_length = 1 << 20;  // keep the fuzzer's memory small
  try {
    const CaseFile f = LoadCaseText(text, "fuzz.json");
    for (const Case& c : f.cases) {
      try {
        const BuiltCase b = BuildCase(c, RequestedOutputs(c), limits);
        const auto values = RunBuiltCase(b);
        for (const auto& [name, v] : values) {
          for (uint64_t i = 0; i < v.data.element_count() && i < 64; ++i)
            CanonicalElement(v.data, i);
        }
        for (const TensorSpec& exp : c.expected_outputs) {
          if (!exp.data || exp.desc != b.graph->output_descriptor(exp.name)) continue;
          const Tensor e = DecodeTensorData(*exp.data, exp.desc.dataType, exp.desc.shape, "x", "");
          CompareTensors(e, values.at(exp.name).data, values.at(exp.name).latitude,
                         ToleranceFor(c, b, exp.name));
        }
      } catch (const InputError&) {
      } catch (const WebnnError&) {
      }
    }
  } catch (const InputError&) {
  }
  return 0;
}
