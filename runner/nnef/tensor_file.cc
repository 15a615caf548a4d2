// NNEF tensor files (chapter 5.2). See tensor_file.h for the layout, the item-type codes read and
// the bit packing.
#include "runner/nnef/tensor_file.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "numerics/cast.h"
#include "numerics/float16.h"
#include "runner/nnef/quant_file.h"

namespace nnref::nnef {

namespace {

[[noreturn]] void Fail(const std::string& file, const std::string& message) {
  throw NnefError(Stage::kTensorFile, {file, 0, 0}, message, "NNEF 1.0.2 section 5.2");
}

std::string Hex(uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

uint32_t LoadU32(std::span<const std::byte> b, size_t offset) {
  uint32_t v = 0;
  for (size_t k = 0; k < 4; ++k) v |= static_cast<uint32_t>(b[offset + k]) << (8 * k);
  return v;
}

void StoreU32(std::vector<std::byte>& b, size_t offset, uint32_t v) {
  for (size_t k = 0; k < 4; ++k) b[offset + k] = static_cast<std::byte>((v >> (8 * k)) & 0xff);
}

bool KnownCode(uint32_t algorithm) {
  switch (algorithm) {
    case 0x00:
    case 0x01:
    case 0x02:
    case 0x03:
    case 0x04:
    case 0x05:
    case 0x10:
    case 0x11:
      return true;
    default:
      return false;
  }
}

bool IsIntegerKind(ItemCode c) {
  return c == ItemCode::kInteger || c == ItemCode::kSignedInteger ||
         c == ItemCode::kQuantUnsigned || c == ItemCode::kQuantSigned;
}

// 2^bits - 1 for bits in 1..64.
uint64_t AllOnes(uint32_t bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

}  // namespace

std::string_view ItemCodeName(ItemCode code) {
  switch (code) {
    case ItemCode::kFloat:
      return "float";
    case ItemCode::kInteger:
      return "integer";
    case ItemCode::kQuantUnsigned:
      return "quint";
    case ItemCode::kQuantSigned:
      return "qint";
    case ItemCode::kSignedInteger:
      return "int";
    case ItemCode::kBool:
      return "bool";
    case ItemCode::kLinearQuantized:
      return "linear-quantized";
    case ItemCode::kLogarithmicQuantized:
      return "logarithmic-quantized";
  }
  return "?";
}

uint64_t TensorFileHeader::ItemCount() const {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  return n;
}

uint64_t TensorFileHeader::DataLength() const {
  const unsigned __int128 total_bits = static_cast<unsigned __int128>(ItemCount()) * bits_per_item;
  return static_cast<uint64_t>((total_bits + 7) / 8);
}

bool TensorFileHeader::Signed() const {
  switch (code) {
    case ItemCode::kSignedInteger:
    case ItemCode::kQuantSigned:
      return true;
    case ItemCode::kInteger:
      return is_signed;
    default:
      return false;
  }
}

std::string TensorFileHeader::Describe() const {
  std::string s;
  switch (code) {
    case ItemCode::kFloat:
      s = "float" + std::to_string(bits_per_item);
      break;
    case ItemCode::kInteger:
    case ItemCode::kSignedInteger:
      s = (Signed() ? "int" : "uint") + std::to_string(bits_per_item);
      break;
    case ItemCode::kQuantUnsigned:
    case ItemCode::kQuantSigned:
      s = (Signed() ? "qint" : "quint") + std::to_string(bits_per_item);
      break;
    case ItemCode::kBool:
      s = "bool (" + std::to_string(bits_per_item) + "-bit)";
      break;
    case ItemCode::kLinearQuantized:
    case ItemCode::kLogarithmicQuantized:
      s = std::string(ItemCodeName(code)) + " " + std::to_string(bits_per_item) + "-bit";
      break;
  }
  return s + " " + ShapeToString(shape);
}

uint64_t TensorFile::RawItem(uint64_t i) const {
  const uint32_t bits = header.bits_per_item;
  if (bits % 8 == 0) {
    const uint64_t bytes = bits / 8;
    const uint64_t at = i * bytes;
    uint64_t v = 0;
    for (uint64_t k = 0; k < bytes; ++k) {
      v |= static_cast<uint64_t>(data[at + k]) << (8 * k);
    }
    return v;
  }
  // MSB-first bit stream.
  uint64_t v = 0;
  uint64_t pos = i * bits;
  for (uint32_t k = 0; k < bits; ++k, ++pos) {
    const uint64_t bit = (static_cast<uint64_t>(data[pos / 8]) >> (7 - pos % 8)) & 1u;
    v = (v << 1) | bit;
  }
  return v;
}

int64_t TensorFile::SignedItem(uint64_t i) const {
  const uint64_t raw = RawItem(i);
  const uint32_t bits = header.bits_per_item;
  if (!header.Signed() || bits >= 64) return static_cast<int64_t>(raw);
  const uint64_t sign = uint64_t{1} << (bits - 1);
  return (raw & sign) != 0 ? static_cast<int64_t>(raw | ~AllOnes(bits)) : static_cast<int64_t>(raw);
}

void TensorFile::SetRawItem(uint64_t i, uint64_t value) {
  const uint32_t bits = header.bits_per_item;
  value &= AllOnes(bits);
  if (bits % 8 == 0) {
    const uint64_t bytes = bits / 8;
    for (uint64_t k = 0; k < bytes; ++k) {
      data[i * bytes + k] = static_cast<std::byte>((value >> (8 * k)) & 0xff);
    }
    return;
  }
  uint64_t pos = i * bits;
  for (uint32_t k = 0; k < bits; ++k, ++pos) {
    const uint64_t bit = (value >> (bits - 1 - k)) & 1u;
    const auto mask = static_cast<std::byte>(1u << (7 - pos % 8));
    if (bit != 0) {
      data[pos / 8] |= mask;
    } else {
      data[pos / 8] &= ~mask;
    }
  }
}

namespace {

// Parses and checks the 128-byte header; returns it with the data length it announces.
TensorFileHeader ParseHeader(std::span<const std::byte> b, const std::string& file,
                             uint64_t max_items, uint64_t file_size) {
  if (file_size < kTensorHeaderSize) {
    Fail(file,
         "truncated: " + std::to_string(file_size) + " bytes, shorter than the 128-byte header");
  }
  if (b[0] != std::byte{'N'} || b[1] != std::byte{0xEF}) {
    Fail(file, "byte 0: wrong magic number " + Hex(static_cast<uint8_t>(b[0])) + " " +
                   Hex(static_cast<uint8_t>(b[1])) + " (expected 0x4e 0xef, 'N' 0xEF)");
  }
  TensorFileHeader h;
  h.version_major = static_cast<uint8_t>(b[2]);
  h.version_minor = static_cast<uint8_t>(b[3]);
  if (h.version_major != 1) {
    Fail(file, "byte 2: unsupported version " + std::to_string(h.version_major) + "." +
                   std::to_string(h.version_minor) + " (only major version 1 is defined)");
  }
  const uint32_t data_length = LoadU32(b, 4);
  const uint32_t rank = LoadU32(b, 8);
  if (rank > kMaxTensorFileRank) {
    Fail(file, "byte 8: rank " + std::to_string(rank) + " exceeds the maximum of 8");
  }
  unsigned __int128 count = 1;
  for (uint32_t k = 0; k < kMaxTensorFileRank; ++k) {
    const uint32_t extent = LoadU32(b, 12 + 4 * k);
    const std::string at = "byte " + std::to_string(12 + 4 * k) + ": ";
    if (k < rank) {
      if (extent == 0) {
        Fail(file,
             at + "extent of dimension " + std::to_string(k) + " is 0 (extents must be positive)");
      }
      h.shape.push_back(extent);
      count *= extent;
      if (count > max_items) {
        Fail(file, at + "the extents " + "give more than " + std::to_string(max_items) +
                       " items (the limit for one tensor)");
      }
    } else if (extent != 0) {
      Fail(file, at + "extent " + std::to_string(extent) + " given for dimension " +
                     std::to_string(k) + " beyond rank " + std::to_string(rank) + " (must be 0)");
    }
  }
  h.bits_per_item = LoadU32(b, 44);
  if (h.bits_per_item == 0 || h.bits_per_item > 64) {
    Fail(file, "byte 44: " + std::to_string(h.bits_per_item) + " bits per item (must be 1 to 64)");
  }
  const uint32_t code = LoadU32(b, 48);
  if ((code >> 16) != 0) {
    Fail(file, "byte 48: item-type code " + Hex(code) + " has vendor code " + Hex(code >> 16) +
                   "; only Khronos (0) item types are defined");
  }
  if (!KnownCode(code & 0xffff)) {
    Fail(file, "byte 48: unknown Khronos item-type code " + Hex(code) +
                   " (known: 0x00 float, 0x01 integer, 0x02 quint, 0x03 qint, 0x04 int, "
                   "0x05 bool, 0x10 linear, 0x11 logarithmic)");
  }
  h.code = static_cast<ItemCode>(code & 0xffff);
  const std::string bits_text = std::to_string(h.bits_per_item) + " bits per item";
  switch (h.code) {
    case ItemCode::kFloat:
      if (h.bits_per_item != 16 && h.bits_per_item != 32 && h.bits_per_item != 64) {
        Fail(file, "byte 44: " + bits_text + " for float items (must be 16, 32 or 64)");
      }
      break;
    case ItemCode::kBool:
      if (h.bits_per_item != 1 && h.bits_per_item != 8) {
        Fail(file, "byte 44: " + bits_text + " for bool items (must be 1 or 8)");
      }
      break;
    case ItemCode::kInteger:
      h.is_signed = LoadU32(b, 52) != 0;
      break;
    case ItemCode::kSignedInteger:
    case ItemCode::kQuantSigned:
      h.is_signed = true;
      break;
    case ItemCode::kQuantUnsigned:
      break;
    case ItemCode::kLinearQuantized:
    case ItemCode::kLogarithmicQuantized: {
      h.min = std::bit_cast<float>(LoadU32(b, 52));
      h.max = std::bit_cast<float>(LoadU32(b, 56));
      if (!std::isfinite(h.min)) Fail(file, "byte 52: quantization min is not finite");
      if (!std::isfinite(h.max)) Fail(file, "byte 56: quantization max is not finite");
      if (h.code == ItemCode::kLogarithmicQuantized) {
        if (!(h.max > 0)) {
          Fail(file, "byte 56: logarithmic quantization max " + std::to_string(h.max) +
                         " must be positive");
        }
        if (h.min != 0 && h.min != -h.max) {
          Fail(file,
               "byte 52: logarithmic quantization min must be 0 (unsigned) or -max "
               "(signed), not " +
                   std::to_string(h.min));
        }
        h.is_signed = h.min != 0;
        if (h.is_signed && h.bits_per_item < 2) {
          Fail(file, "byte 44: signed logarithmic quantization needs at least 2 bits");
        }
      }
      break;
    }
  }
  const uint64_t expected = h.DataLength();
  if (data_length != expected) {
    Fail(file, "byte 4: data length " + std::to_string(data_length) + " does not match " +
                   std::to_string(ElementCount(h.shape)) + " items of " + bits_text + " (" +
                   std::to_string(expected) + " bytes)");
  }
  const uint64_t want = kTensorHeaderSize + expected;
  if (file_size < want) {
    Fail(file, "truncated: the header announces " + std::to_string(expected) +
                   " data bytes, the file has " + std::to_string(file_size - kTensorHeaderSize) +
                   " after the header");
  }
  if (file_size > want) {
    Fail(file, "oversized: " + std::to_string(file_size - want) +
                   " bytes after the end of the data (byte " + std::to_string(want) + ")");
  }
  return h;
}

void CheckPadding(const TensorFile& f, const std::string& file) {
  const unsigned __int128 total_bits =
      static_cast<unsigned __int128>(f.header.ItemCount()) * f.header.bits_per_item;
  const auto used = static_cast<uint32_t>(total_bits % 8);
  if (used == 0 || f.data.empty()) return;
  const auto last = static_cast<uint8_t>(f.data.back());
  const auto pad_mask = static_cast<uint8_t>((1u << (8 - used)) - 1);
  if ((last & pad_mask) != 0) {
    Fail(file, "byte " + std::to_string(kTensorHeaderSize + f.data.size() - 1) +
                   ": the padding bits after the last item are not zero");
  }
}

}  // namespace

TensorFile ParseTensorFile(std::span<const std::byte> bytes, const std::string& file,
                           uint64_t max_items) {
  TensorFile f;
  if (bytes.size() < kTensorHeaderSize) {
    Fail(file,
         "truncated: " + std::to_string(bytes.size()) + " bytes, shorter than the 128-byte header");
  }
  f.header = ParseHeader(bytes, file, max_items, bytes.size());
  f.data.assign(bytes.begin() + kTensorHeaderSize, bytes.end());
  CheckPadding(f, file);
  return f;
}

TensorFile ReadTensorFile(const std::string& path, uint64_t max_items) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    Fail(path, "cannot open: no such file");
  }
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) Fail(path, "cannot read the file size: " + ec.message());
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail(path, "cannot open for reading");
  std::vector<std::byte> header(kTensorHeaderSize);
  const auto head = static_cast<std::streamsize>(std::min<uint64_t>(size, kTensorHeaderSize));
  in.read(reinterpret_cast<char*>(header.data()), head);
  if (in.gcount() != head) Fail(path, "read error in the header");
  TensorFile f;
  // Checks the announced data length against the real file size before allocating for it.
  f.header = ParseHeader(std::span<const std::byte>(header.data(), static_cast<size_t>(head)), path,
                         max_items, size);
  const uint64_t length = f.header.DataLength();
  f.data.resize(length);
  in.read(reinterpret_cast<char*>(f.data.data()), static_cast<std::streamsize>(length));
  if (static_cast<uint64_t>(in.gcount()) != length) {
    Fail(path, "truncated while reading: got " + std::to_string(in.gcount()) + " of " +
                   std::to_string(length) + " data bytes");
  }
  CheckPadding(f, path);
  return f;
}

std::vector<std::byte> SerializeTensorFile(const TensorFile& f) {
  const TensorFileHeader& h = f.header;
  std::vector<std::byte> out(kTensorHeaderSize + f.data.size(), std::byte{0});
  out[0] = std::byte{'N'};
  out[1] = std::byte{0xEF};
  out[2] = static_cast<std::byte>(h.version_major);
  out[3] = static_cast<std::byte>(h.version_minor);
  StoreU32(out, 4, static_cast<uint32_t>(h.DataLength()));
  StoreU32(out, 8, static_cast<uint32_t>(h.shape.size()));
  for (size_t k = 0; k < h.shape.size() && k < kMaxTensorFileRank; ++k) {
    StoreU32(out, 12 + 4 * k, static_cast<uint32_t>(h.shape[k]));
  }
  StoreU32(out, 44, h.bits_per_item);
  StoreU32(out, 48, static_cast<uint32_t>(h.code));
  if (h.code == ItemCode::kInteger) StoreU32(out, 52, h.is_signed ? 1 : 0);
  if (h.code == ItemCode::kLinearQuantized || h.code == ItemCode::kLogarithmicQuantized) {
    StoreU32(out, 52, std::bit_cast<uint32_t>(h.min));
    StoreU32(out, 56, std::bit_cast<uint32_t>(h.max));
  }
  std::copy(f.data.begin(), f.data.end(), out.begin() + kTensorHeaderSize);
  return out;
}

void WriteTensorFile(const std::string& path, const TensorFile& f) {
  const std::filesystem::path p(path);
  std::error_code ec;
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) Fail(path, "cannot open for writing");
  const std::vector<std::byte> bytes = SerializeTensorFile(f);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out) Fail(path, "write error");
}

DataType StorageTypeOf(TensorType type) {
  switch (type) {
    case TensorType::kInteger:
      return DataType::kInt64;
    case TensorType::kLogical:
      return DataType::kUint8;
    default:
      return DataType::kFloat32;
  }
}

double DecodeLinear(uint64_t q, uint32_t bits, double min, double max) {
  // x = q / r * (max - min) + min, r = 2^b - 1, in the order of the formula, in double.
  const double r = std::ldexp(1.0, static_cast<int>(bits)) - 1.0;
  return static_cast<double>(q) / r * (max - min) + min;
}

double DecodeLogarithmic(uint64_t code, uint32_t bits, bool is_signed, double max) {
  const uint32_t magnitude_bits = is_signed ? bits - 1 : bits;
  const uint64_t q = code & AllOnes(magnitude_bits);
  const bool negative = is_signed && ((code >> magnitude_bits) & 1u) != 0;
  int e = 0;
  const double mant = std::frexp(max, &e);    // max = mant * 2^e, mant in [0.5, 1)
  const int64_t m = mant == 0.5 ? e - 1 : e;  // ceil(log2(max)), exact
  // x = 2^(q + m - r); r = 2^b' - 1 may be huge, so the exponent is computed in 128 bits and
  // clamped to a range where ldexp already gives 0 or infinity.
  const __int128 r = static_cast<__int128>(AllOnes(magnitude_bits));
  __int128 exponent = static_cast<__int128>(q) + m - r;
  if (exponent < -2000) exponent = -2000;
  if (exponent > 2000) exponent = 2000;
  const double v = std::ldexp(1.0, static_cast<int>(exponent));
  return negative ? -v : v;
}

Tensor DecodeTensorFile(const TensorFile& f, TensorType type, const QuantAlgorithm* quant,
                        const std::string& file, uint64_t max_bytes) {
  const TensorFileHeader& h = f.header;
  const DataType dtype = StorageTypeOf(type);
  const uint64_t count = h.ItemCount();
  if (count > max_bytes / ElementSize(dtype)) {
    Fail(file, "the decoded tensor " + ShapeToString(h.shape) + " would exceed " +
                   std::to_string(max_bytes) + " bytes");
  }
  const std::string what = "cannot load " + h.Describe() + " data into a tensor<" +
                           std::string(TensorTypeName(type)) + ">";
  Tensor t = Tensor::Allocate(dtype, h.shape);
  switch (type) {
    case TensorType::kScalar: {
      float* out = t.base<float>();
      if (h.code == ItemCode::kFloat) {
        for (uint64_t i = 0; i < count; ++i) {
          const uint64_t raw = f.RawItem(i);
          if (h.bits_per_item == 16) {
            out[i] = static_cast<float>(Float16BitsToDouble(static_cast<uint16_t>(raw)));
          } else if (h.bits_per_item == 32) {
            out[i] = std::bit_cast<float>(static_cast<uint32_t>(raw));
          } else {
            out[i] = RoundTo<float>(std::bit_cast<double>(raw));
          }
        }
      } else if (h.code == ItemCode::kInteger || h.code == ItemCode::kSignedInteger) {
        for (uint64_t i = 0; i < count; ++i) {
          out[i] = h.Signed() ? CastElement<float>(f.SignedItem(i)).value
                              : CastElement<float>(f.RawItem(i)).value;
        }
      } else if (h.code == ItemCode::kLinearQuantized) {
        for (uint64_t i = 0; i < count; ++i) {
          out[i] =
              RoundTo<float>(DecodeLinear(f.RawItem(i), h.bits_per_item, static_cast<double>(h.min),
                                          static_cast<double>(h.max)));
        }
      } else if (h.code == ItemCode::kLogarithmicQuantized) {
        for (uint64_t i = 0; i < count; ++i) {
          out[i] = RoundTo<float>(DecodeLogarithmic(f.RawItem(i), h.bits_per_item, h.is_signed,
                                                    static_cast<double>(h.max)));
        }
      } else if (h.code == ItemCode::kQuantUnsigned || h.code == ItemCode::kQuantSigned) {
        if (quant == nullptr) {
          Fail(file, "holds " + h.Describe() +
                         " codes but graph.quant gives no quantization for this tensor, so "
                         "their real values are unknown");
        }
        const Quantizer qz = MakeQuantizer(*quant);
        for (uint64_t i = 0; i < count; ++i) {
          const int64_t code = f.SignedItem(i);
          if (h.code == ItemCode::kQuantUnsigned && h.bits_per_item == 64 &&
              f.RawItem(i) > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
            Fail(file, "item " + std::to_string(i) + " is outside the code range of " +
                           quant->ToString());
          }
          const std::optional<float> v = qz.DecodeCode(code);
          if (!v) {
            Fail(file, "item " + std::to_string(i) + " (code " + std::to_string(code) +
                           ") is outside the code range of " + quant->ToString() +
                           " or that algorithm has no stored-code form");
          }
          out[i] = *v;
        }
      } else {
        Fail(file, what);
      }
      break;
    }
    case TensorType::kInteger: {
      if (!IsIntegerKind(h.code)) Fail(file, what);
      int64_t* out = t.base<int64_t>();
      for (uint64_t i = 0; i < count; ++i) {
        if (!h.Signed() && h.bits_per_item == 64 &&
            f.RawItem(i) > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
          Fail(file, "item " + std::to_string(i) + " = " + std::to_string(f.RawItem(i)) +
                         " does not fit a signed 64-bit integer");
        }
        out[i] = f.SignedItem(i);
      }
      break;
    }
    case TensorType::kLogical: {
      if (h.code != ItemCode::kBool && h.code != ItemCode::kInteger &&
          h.code != ItemCode::kSignedInteger) {
        Fail(file, what);
      }
      uint8_t* out = t.base<uint8_t>();
      for (uint64_t i = 0; i < count; ++i) {
        const int64_t v = f.SignedItem(i);
        if (v != 0 && v != 1) {
          Fail(file, "item " + std::to_string(i) + " = " + std::to_string(v) +
                         " of logical data is neither 0 nor 1");
        }
        out[i] = static_cast<uint8_t>(v);
      }
      break;
    }
    default:
      Fail(file, what);
  }
  return t;
}

TensorFileHeader DefaultFormat(const Tensor& t, TensorType type) {
  TensorFileHeader h;
  h.shape = t.shape();
  switch (type) {
    case TensorType::kInteger: {
      h.code = ItemCode::kInteger;
      h.is_signed = true;
      h.bits_per_item = 32;
      const uint64_t n = t.element_count();
      for (uint64_t i = 0; i < n; ++i) {
        const int64_t v = t.At<int64_t>(i);
        if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
          h.bits_per_item = 64;
          break;
        }
      }
      break;
    }
    case TensorType::kLogical:
      h.code = ItemCode::kBool;
      h.bits_per_item = 8;
      break;
    default:
      h.code = ItemCode::kFloat;
      h.bits_per_item = 32;
      break;
  }
  return h;
}

namespace {

// round() of the NNEF primitive: floor(v + 0.5), exact for doubles (v + 0.5 may round up only
// when v's ulp exceeds 0.5, where v is already an integer and floor(v) is the answer).
double RoundHalfUp(double v) {
  const double f = std::floor(v);
  return v - f >= 0.5 ? f + 1 : f;
}

// A tensor element as an exact 128-bit integer, or as a double, by storage type.
struct ElementReader {
  const Tensor& t;
  bool IsFloat() const {
    return t.dtype() == DataType::kFloat32 || t.dtype() == DataType::kFloat16;
  }
  double AsDouble(uint64_t i) const {
    return DispatchDataType(t.dtype(), [&]<typename T>() { return ToDouble(t.At<T>(i)); });
  }
  __int128 AsInt(uint64_t i) const {
    return DispatchDataType(t.dtype(), [&]<typename T>() -> __int128 {
      if constexpr (kIsFloatStorage<T>) {
        return 0;  // not used for float tensors
      } else {
        return static_cast<__int128>(t.At<T>(i));
      }
    });
  }
};

}  // namespace

TensorFile EncodeTensor(const Tensor& t, TensorFileHeader format, const std::string& file) {
  TensorFile f;
  f.header = std::move(format);
  TensorFileHeader& h = f.header;
  h.shape = t.shape();
  if (h.shape.size() > kMaxTensorFileRank) {
    Fail(file, "rank " + std::to_string(h.shape.size()) + " exceeds the tensor-file maximum 8");
  }
  for (uint64_t d : h.shape) {
    if (d == 0 || d > std::numeric_limits<uint32_t>::max()) {
      Fail(file, "extent " + std::to_string(d) + " cannot be stored in a tensor file");
    }
  }
  if (h.DataLength() > std::numeric_limits<uint32_t>::max()) {
    Fail(file, "the data of " + ShapeToString(h.shape) + " exceeds the 4 GiB a header can state");
  }
  f.data.assign(h.DataLength(), std::byte{0});
  const uint64_t n = t.element_count();
  const ElementReader in{t};
  const uint32_t bits = h.bits_per_item;
  const auto fail_item = [&](uint64_t i, const std::string& why) {
    Fail(file,
         "element " + std::to_string(i) + " cannot be stored as " + h.Describe() + ": " + why);
  };
  for (uint64_t i = 0; i < n; ++i) {
    switch (h.code) {
      case ItemCode::kFloat: {
        const double v = in.IsFloat() ? in.AsDouble(i) : static_cast<double>(in.AsInt(i));
        if (bits == 16) {
          f.SetRawItem(i, Float16BitsFromDouble(v));
        } else if (bits == 32) {
          f.SetRawItem(i, std::bit_cast<uint32_t>(static_cast<float>(v)));
        } else {
          f.SetRawItem(i, std::bit_cast<uint64_t>(v));
        }
        break;
      }
      case ItemCode::kInteger:
      case ItemCode::kSignedInteger:
      case ItemCode::kQuantUnsigned:
      case ItemCode::kQuantSigned:
      case ItemCode::kBool: {
        if (in.IsFloat()) fail_item(i, "the tensor holds floating-point values");
        const __int128 v = in.AsInt(i);
        __int128 lo = 0, hi = static_cast<__int128>(AllOnes(bits));
        if (h.code == ItemCode::kBool) hi = 1;
        if (h.Signed()) {
          lo = -(static_cast<__int128>(1) << (bits - 1));
          hi = (static_cast<__int128>(1) << (bits - 1)) - 1;
        }
        if (v < lo || v > hi) fail_item(i, "out of range");
        f.SetRawItem(i, static_cast<uint64_t>(v));
        break;
      }
      case ItemCode::kLinearQuantized: {
        // q = round([(x - min) / (max - min)]_0^1 * r)
        const double x = in.IsFloat() ? in.AsDouble(i) : static_cast<double>(in.AsInt(i));
        const double r = std::ldexp(1.0, static_cast<int>(bits)) - 1.0;
        const double lo = static_cast<double>(h.min), hi = static_cast<double>(h.max);
        double u = (x - lo) / (hi - lo);
        if (std::isnan(u)) fail_item(i, "NaN has no linear code");
        u = std::clamp(u, 0.0, 1.0);
        const double q = RoundHalfUp(u * r);  // r = 2^64 - 1 rounds to 2^64 in double
        f.SetRawItem(i, q >= 0x1p64 ? AllOnes(bits) : static_cast<uint64_t>(q));
        break;
      }
      case ItemCode::kLogarithmicQuantized: {
        // q = round([log2 |x|]_{m-r}^{m}) - (m - r), sign bit on top when signed.
        const double x = in.IsFloat() ? in.AsDouble(i) : static_cast<double>(in.AsInt(i));
        if (std::isnan(x)) fail_item(i, "NaN has no logarithmic code");
        if (x < 0 && !h.is_signed) fail_item(i, "negative value in unsigned logarithmic format");
        const uint32_t mbits = h.is_signed ? bits - 1 : bits;
        int e = 0;
        const double mant = std::frexp(static_cast<double>(h.max), &e);
        const double m = mant == 0.5 ? e - 1 : e;
        const double r = std::ldexp(1.0, static_cast<int>(mbits)) - 1.0;
        const double l = x == 0 ? -kInfinity : std::log2(std::fabs(x));
        const double q = RoundHalfUp(std::clamp(l, m - r, m)) - (m - r);
        uint64_t code = q >= 0x1p64 ? AllOnes(mbits) : static_cast<uint64_t>(q);
        if (h.is_signed && std::signbit(x) && x != 0) code |= uint64_t{1} << mbits;
        f.SetRawItem(i, code);
        break;
      }
    }
  }
  return f;
}

}  // namespace nnref::nnef
