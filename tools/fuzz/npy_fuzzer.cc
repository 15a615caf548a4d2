// libFuzzer target: bytes as a .npy file read by the case format's {"npy": PATH} data form,
// for the descriptor the first two bytes choose (a data type and a small shape). The rest is
// written to a file of this process and decoded. Only InputError may escape; anything else is a
// bug.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "numerics/dtype.h"
#include "ref/error.h"
#include "ref/value.h"
#include "runner/data.h"
#include "runner/json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nnref;
  if (size < 2) return 0;
  const DataType type = kAllDataTypes[data[0] % std::size(kAllDataTypes)];
  static const Shape shapes[] = {{}, {1}, {4}, {2, 3}, {3, 1, 2}, {0}, {16}, {2, 2, 2, 2}};
  const Shape& shape = shapes[data[1] % std::size(shapes)];
  static const std::string path = "/tmp/nnref_npy_fuzzer." + std::to_string(getpid()) + ".npy";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data + 2), static_cast<std::streamsize>(size - 2));
  }
  const Value form = Value::Object({{"npy", Value::Str(path)}});
  try {
    const Tensor t = DecodeTensorData(form, type, shape, "fuzz.npy", "/");
    for (uint64_t i = 0; i < t.element_count(); ++i) CanonicalElement(t, i);
  } catch (const InputError&) {
  }
  return 0;
}
