// NNEF tensor data files (NNEF 1.0.2 chapter 5.2, "Tensor File Format"): parse, check, decode to an
// in-memory tensor, encode and write.
//
// Layout: a 128-byte header, then the data; everything little-endian.
//   offset  0  'N' 0xEF                      magic
//   offset  2  u8 major, u8 minor            version (major must be 1)
//   offset  4  u32 data length in bytes      must equal ceil(item count * bits / 8)
//   offset  8  u32 rank                      at most 8
//   offset 12  8 x u32 extents               positive up to rank, zero beyond
//   offset 44  u32 bits per item             1..64
//   offset 48  u32 item-type code            vendor = code >> 16 (0 = Khronos), algorithm = low 16
//   offset 52  32 bytes of parameters        meaning depends on the algorithm
//   offset 84  reserved (should be zero; not enforced)
// The file must be exactly 128 + data length bytes long.
//
// Item-type codes (Khronos vendor 0). The 1.0.2 text defines 0x00, 0x01, 0x10 and 0x11. The 1.0.x
// tooling (the NNEF-Tools parser and its Python package, which write the files found in practice)
// replaced that table by an enumeration 0 float, 1 uint, 2 quint, 3 qint, 4 int, 5 bool, with the
// quantization parameters moved to graph.quant. Both are read here because they agree where they
// overlap: 0x00 is float in both, and the tooling writes 0x01 ("uint") with zero parameters, which
// the spec's reading of 0x01 (integer, parameter word 0 = signed flag) also decodes as unsigned.
// The codes 0x02..0x05 are free in the spec's table and 0x10/0x11 are unused by the tooling.
//
// Packing: when bits % 8 == 0 each item is bits/8 little-endian bytes. Otherwise the data is one
// continuous bit stream, most significant bit first (numpy.packbits order, which is how the tooling
// packs 1-bit logical data): item i occupies stream bits [i*bits, (i+1)*bits), its most significant
// bit first, and stream bit k is bit 7 - k%8 of byte k/8. The last byte is padded with zero bits
// (enforced). Signed items are two's complement in `bits` bits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ref/tensor/tensor.h"
#include "runner/nnef/error.h"
#include "runner/nnef/ir.h"

namespace nnref::nnef {

struct QuantAlgorithm;  // runner/nnef/quant_file.h

inline constexpr size_t kTensorHeaderSize = 128;
inline constexpr uint32_t kMaxTensorFileRank = 8;

// The algorithm part of the item-type code (Khronos vendor code 0).
enum class ItemCode : uint16_t {
  kFloat = 0x00,                 // IEEE binary16/32/64                       [spec, tooling]
  kInteger = 0x01,               // integer; params u32[0] != 0 means signed  [spec; tooling "uint"]
  kQuantUnsigned = 0x02,         // unsigned codes, real values via graph.quant [tooling "quint"]
  kQuantSigned = 0x03,           // signed codes, real values via graph.quant  [tooling "qint"]
  kSignedInteger = 0x04,         // signed integer                             [tooling "int"]
  kBool = 0x05,                  // logical, 1 or 8 bits                      [tooling "bool"]
  kLinearQuantized = 0x10,       // params f32 min, f32 max                   [spec]
  kLogarithmicQuantized = 0x11,  // params f32 min (0 or -max), f32 max       [spec]
};
std::string_view ItemCodeName(ItemCode code);  // "float", "integer", ...

struct TensorFileHeader {
  uint8_t version_major = 1;
  uint8_t version_minor = 0;
  std::vector<uint64_t> shape;  // rank <= 8, extents >= 1
  uint32_t bits_per_item = 32;
  ItemCode code = ItemCode::kFloat;
  // kInteger: parameter word 0 != 0. Implied true by kSignedInteger and kQuantSigned, and by
  // kLogarithmicQuantized with min == -max.
  bool is_signed = false;
  float min = 0;  // kLinearQuantized, kLogarithmicQuantized
  float max = 0;

  uint64_t ItemCount() const;    // product of the extents (checked by the parser)
  uint64_t DataLength() const;   // ceil(ItemCount() * bits_per_item / 8)
  bool Signed() const;           // two's complement items (integer kinds only)
  std::string Describe() const;  // "float32 [2, 3]", "uint4 [8]", "linear-quantized 8-bit [..]"
};

// A parsed file: the header and the raw data bytes.
struct TensorFile {
  TensorFileHeader header;
  std::vector<std::byte> data;

  // The raw bits of item i, zero-extended.
  uint64_t RawItem(uint64_t i) const;
  // Item i of an integer kind as a signed value (sign-extended when Signed()).
  int64_t SignedItem(uint64_t i) const;
  void SetRawItem(uint64_t i, uint64_t bits);  // low bits_per_item bits of `bits`
};

// Parses and checks a whole file image. `file` names it in errors (NnefError, stage tensor-file,
// with the byte offset of the offending field in the message). `max_items` bounds the item count
// (hostile extents are rejected before anything is allocated).
TensorFile ParseTensorFile(std::span<const std::byte> bytes, const std::string& file,
                           uint64_t max_items = uint64_t{1} << 31);
// Reads `path`: the header first, then exactly the data length it announces, after checking it
// against the actual file size.
TensorFile ReadTensorFile(const std::string& path, uint64_t max_items = uint64_t{1} << 31);

// The header and data as a file image; WriteTensorFile writes it (creating parent folders).
std::vector<std::byte> SerializeTensorFile(const TensorFile& f);
void WriteTensorFile(const std::string& path, const TensorFile& f);

// The in-memory representation of NNEF tensor types: scalar = float32, integer = int64,
// logical = uint8 holding 0 or 1.
DataType StorageTypeOf(TensorType type);

// Decodes the items into a new dense tensor of StorageTypeOf(type) with the file's shape.
// - scalar: float16/32 exactly, float64 and integers rounded once (RNE) to float32, spec-quantized
//   codes (0x10, 0x11) by the decoding formulas of 5.2, tooling quint/qint codes through `quant`
//   (the graph.quant entry of the tensor; required for them).
// - integer: integer kinds and quint/qint codes, exactly (uint64 values above INT64_MAX rejected).
// - logical: bool items, or integer items that are 0 or 1.
// Anything else (float data for an integer tensor, ...) is an NnefError. `max_bytes` bounds the
// decoded tensor.
Tensor DecodeTensorFile(const TensorFile& f, TensorType type, const QuantAlgorithm* quant,
                        const std::string& file, uint64_t max_bytes = uint64_t{1} << 31);

// The default format for writing a tensor of `type`: scalar float32 (code 0x00, 32 bits); integer
// code 0x01 signed, 32 bits when every value fits int32, else 64; logical code 0x05, 8 bits.
TensorFileHeader DefaultFormat(const Tensor& t, TensorType type);
// Encodes a tensor (float32, int64 or uint8 storage; any strides) in `format` (its shape is
// replaced by the tensor's). Floats to float16/32/64 round once; integers must fit the item
// range; linear/logarithmic quantized codes follow the encoding formulas of 5.2 (round =
// floor(x + 0.5)); quint/qint take integer codes. Throws NnefError when a value does not fit.
TensorFile EncodeTensor(const Tensor& t, TensorFileHeader format, const std::string& file);

// Decoding formulas of 5.2 for one code (exposed for tests and graph.quant).
double DecodeLinear(uint64_t q, uint32_t bits, double min, double max);
double DecodeLogarithmic(uint64_t code, uint32_t bits, bool is_signed, double max);

}  // namespace nnref::nnef
