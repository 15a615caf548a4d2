// libFuzzer target: bytes as an NNEF tensor file (.dat): parse, decode as each tensor type, and
// write back: a file that parses serializes to bytes that parse to the same header and items.
// Only InputError (NnefError) may escape; anything else, or a failed round trip, is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "ref/error.h"
#include "runner/nnef/tensor_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nnref;
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  nnef::TensorFile f;
  try {
    f = nnef::ParseTensorFile(bytes, "t.dat", uint64_t{1} << 20);
  } catch (const InputError&) {
    return 0;
  }
  for (const nnef::TensorType t :
       {nnef::TensorType::kScalar, nnef::TensorType::kInteger, nnef::TensorType::kLogical}) {
    try {
      nnef::DecodeTensorFile(f, t, nullptr, "t.dat", uint64_t{1} << 24);
    } catch (const InputError&) {
    }
  }
  const std::vector<std::byte> again = nnef::SerializeTensorFile(f);
  const nnef::TensorFile g = nnef::ParseTensorFile(again, "again.dat", uint64_t{1} << 20);
  if (nnef::SerializeTensorFile(g) != again) std::abort();  // the round trip is a fixed point
  return 0;
}
