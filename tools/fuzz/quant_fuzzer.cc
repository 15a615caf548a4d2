// libFuzzer target: bytes as an NNEF graph.quant file: parse, and make the quantizer of every
// entry. Only InputError (NnefError) may escape; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ref/error.h"
#include "runner/nnef/quant_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nnref;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const nnef::QuantFile q = nnef::ParseQuantFile(text, "graph.quant");
    for (const nnef::QuantEntry& e : q.entries) {
      try {
        const nnef::Quantizer quantize = nnef::MakeQuantizer(e.algorithm);
        (void)quantize;
      } catch (const InputError&) {
      }
    }
  } catch (const InputError&) {
  }
  return 0;
}
