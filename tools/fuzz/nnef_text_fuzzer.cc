// libFuzzer target: bytes as an NNEF document (flat or compositional: fragments, the standard
// library's expansion, shape propagation). Only InputError (NnefError) may escape the parser;
// anything else is a bug. tools/fuzz/run.sh nnef_text_fuzzer.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ref/error.h"
#include "runner/nnef/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nnref;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  nnef::ParseOptions options;
  options.max_operations = 1 << 14;  // keep each input fast and small
  options.max_tensor_volume = int64_t{1} << 24;
  options.max_array_length = 1 << 12;
  for (const bool strict : {false, true}) {
    options.strict = strict;
    try {
      nnef::ParseDocument(text, "graph.nnef", options);
    } catch (const InputError&) {
    }
  }
  return 0;
}
