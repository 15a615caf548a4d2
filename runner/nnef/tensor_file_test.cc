// NNEF tensor files (chapter 5.2): every item type and bit width read from hand-built byte
// sequences (the header is assembled field by field here, not by the writer under test), the
// header checks with the byte offset they report, hostile sizes, decoding formulas of the
// quantized codes, and writer round trips.
#include "runner/nnef/tensor_file.h"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "runner/nnef/quant_file.h"

namespace nnref::nnef {

namespace {

using Bytes = std::vector<std::byte>;

void Put32(Bytes& b, size_t at, uint32_t v) {
  for (size_t k = 0; k < 4; ++k) b[at + k] = static_cast<std::byte>((v >> (8 * k)) & 0xff);
}

// A header built byte by byte from the layout in the spec (5.2).
Bytes Header(std::initializer_list<uint32_t> extents, uint32_t bits, uint32_t code,
             uint32_t data_length, uint32_t param0 = 0, uint32_t param1 = 0) {
  Bytes b(128, std::byte{0});
  b[0] = std::byte{0x4e};
  b[1] = std::byte{0xef};
  b[2] = std::byte{1};
  b[3] = std::byte{0};
  Put32(b, 4, data_length);
  Put32(b, 8, static_cast<uint32_t>(extents.size()));
  size_t k = 0;
  for (uint32_t e : extents) Put32(b, 12 + 4 * k++, e);
  Put32(b, 44, bits);
  Put32(b, 48, code);
  Put32(b, 52, param0);
  Put32(b, 56, param1);
  return b;
}

Bytes File(Bytes header, std::initializer_list<uint8_t> data) {
  for (uint8_t v : data) header.push_back(static_cast<std::byte>(v));
  return header;
}

TensorFile Parse(const Bytes& b) { return ParseTensorFile(b, "t.dat"); }

std::vector<double> Scalars(const Bytes& b, const QuantAlgorithm* q = nullptr) {
  const Tensor t = DecodeTensorFile(Parse(b), TensorType::kScalar, q, "t.dat");
  REQUIRE(t.dtype() == DataType::kFloat32);
  std::vector<double> out;
  for (uint64_t i = 0; i < t.element_count(); ++i) {
    out.push_back(static_cast<double>(t.At<float>(i)));
  }
  return out;
}

std::vector<int64_t> Integers(const Bytes& b) {
  const Tensor t = DecodeTensorFile(Parse(b), TensorType::kInteger, nullptr, "t.dat");
  REQUIRE(t.dtype() == DataType::kInt64);
  std::vector<int64_t> out;
  for (uint64_t i = 0; i < t.element_count(); ++i) out.push_back(t.At<int64_t>(i));
  return out;
}

std::vector<int> Logicals(const Bytes& b) {
  const Tensor t = DecodeTensorFile(Parse(b), TensorType::kLogical, nullptr, "t.dat");
  REQUIRE(t.dtype() == DataType::kUint8);
  std::vector<int> out;
  for (uint64_t i = 0; i < t.element_count(); ++i) out.push_back(t.At<uint8_t>(i));
  return out;
}

// The message of the NnefError `f` throws (stage tensor-file), or "" when it throws none.
template <typename F>
std::string ErrorText(F&& f) {
  try {
    f();
  } catch (const NnefError& e) {
    CHECK(e.stage() == Stage::kTensorFile);
    return e.what();
  }
  return "";
}

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("nnef tensor file: float32, float16 and float64 items") {
  // 1.0f = 0x3f800000, -2.5f = 0xc0200000, in little-endian byte order.
  const Bytes f32 =
      File(Header({2}, 32, 0x00, 8), {0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x20, 0xc0});
  CHECK(Scalars(f32) == std::vector<double>{1.0, -2.5});
  const TensorFile parsed = Parse(f32);
  CHECK(parsed.header.shape == Shape{2});
  CHECK(parsed.header.code == ItemCode::kFloat);

  // float16: 0x3c00 = 1, 0xc000 = -2, 0x7c00 = +inf, 0x0001 = 2^-24 (subnormal), 0x8000 = -0.
  const Bytes f16 =
      File(Header({5}, 16, 0x00, 10), {0x00, 0x3c, 0x00, 0xc0, 0x00, 0x7c, 0x01, 0x00, 0x00, 0x80});
  const std::vector<double> v16 = Scalars(f16);
  CHECK(v16[0] == 1.0);
  CHECK(v16[1] == -2.0);
  CHECK(v16[2] == std::numeric_limits<double>::infinity());
  CHECK(v16[3] == std::ldexp(1.0, -24));
  CHECK(v16[4] == 0.0);
  CHECK(std::signbit(v16[4]));

  // float64 rounds once to float32 (RNE): 1 + 2^-24 is halfway between 1 and 1 + 2^-23 and goes
  // to the even 1; 1 + 3 * 2^-24 is halfway between 1 + 2^-23 and 1 + 2^-22 and goes to the even
  // 1 + 2^-22; 1 + 2^-24 + 2^-52 is just above halfway and goes up.
  Bytes f64 = Header({3}, 64, 0x00, 24);
  for (uint64_t bits : {0x3FF0000010000000ull, 0x3FF0000030000000ull, 0x3FF0000010000001ull}) {
    for (int k = 0; k < 8; ++k) f64.push_back(static_cast<std::byte>((bits >> (8 * k)) & 0xff));
  }
  const std::vector<double> v64 = Scalars(f64);
  CHECK(v64[0] == 1.0);
  CHECK(v64[1] == 1.0 + std::ldexp(1.0, -22));
  CHECK(v64[2] == 1.0 + std::ldexp(1.0, -23));
}

TEST_CASE("nnef tensor file: rank 0 and rank 8") {
  CHECK(Scalars(File(Header({}, 32, 0x00, 4), {0x00, 0x00, 0x40, 0x40})) ==
        std::vector<double>{3.0});
  const Bytes r8 = File(Header({1, 1, 1, 1, 1, 1, 1, 2}, 8, 0x01, 2), {7, 9});
  CHECK(Parse(r8).header.shape == Shape{1, 1, 1, 1, 1, 1, 1, 2});
  CHECK(Integers(r8) == std::vector<int64_t>{7, 9});
}

TEST_CASE("nnef tensor file: integer items of byte widths, spec and tooling codes") {
  // Spec code 0x01 with parameter word 0 = 0: unsigned; = 1: signed.
  CHECK(Integers(File(Header({2}, 8, 0x01, 2), {0xff, 0x01})) == std::vector<int64_t>{255, 1});
  CHECK(Integers(File(Header({2}, 8, 0x01, 2, 1), {0xff, 0x80})) == std::vector<int64_t>{-1, -128});
  // Tooling code 0x04 (int): signed. 16-bit little-endian: 0xfffe = -2, 0x0102 = 258.
  CHECK(Integers(File(Header({2}, 16, 0x04, 4), {0xfe, 0xff, 0x02, 0x01})) ==
        std::vector<int64_t>{-2, 258});
  // 32-bit signed: 0x80000000 = INT32_MIN.
  CHECK(Integers(File(Header({1}, 32, 0x01, 4, 1), {0x00, 0x00, 0x00, 0x80})) ==
        std::vector<int64_t>{-2147483648LL});
  // 24 bits is a multiple of 8: three little-endian bytes, 0x123456.
  CHECK(Integers(File(Header({1}, 24, 0x01, 3), {0x56, 0x34, 0x12})) ==
        std::vector<int64_t>{0x123456});
  // 64-bit: INT64_MIN signed; an unsigned value above INT64_MAX does not fit tensor<integer>.
  CHECK(Integers(File(Header({1}, 64, 0x04, 8), {0, 0, 0, 0, 0, 0, 0, 0x80})) ==
        std::vector<int64_t>{std::numeric_limits<int64_t>::min()});
  const std::string big = ErrorText([] {
    Integers(File(Header({1}, 64, 0x01, 8), {0, 0, 0, 0, 0, 0, 0, 0x80}));
  });
  CHECK(Contains(big, "does not fit a signed 64-bit integer"));
  // Integers load into scalar tensors with one rounding: 2^24 + 1 = 16777217 -> 16777216.
  CHECK(Scalars(File(Header({2}, 32, 0x01, 8, 1), {0x01, 0x00, 0x00, 0x01, 0xff, 0xff, 0xff,
                                                   0xff})) == std::vector<double>{16777216, -1});
}

TEST_CASE("nnef tensor file: non-byte bit widths are an MSB-first bit stream") {
  // 4-bit unsigned [1, 2, 15]: bits 0001 0010 1111 + 4 zero padding bits = 0x12 0xf0.
  CHECK(Integers(File(Header({3}, 4, 0x01, 2), {0x12, 0xf0})) == std::vector<int64_t>{1, 2, 15});
  // The same bits as signed 4-bit: 15 = 0b1111 = -1.
  CHECK(Integers(File(Header({3}, 4, 0x01, 2, 1), {0x12, 0xf0})) == std::vector<int64_t>{1, 2, -1});
  // 3-bit [5, 3, 7] = 101 011 111 -> 1010 1111 | 1000 0000.
  CHECK(Integers(File(Header({3}, 3, 0x01, 2), {0xaf, 0x80})) == std::vector<int64_t>{5, 3, 7});
  // 12-bit [0xabc, 0x123] -> ab c1 23.
  CHECK(Integers(File(Header({2}, 12, 0x01, 3), {0xab, 0xc1, 0x23})) ==
        std::vector<int64_t>{0xabc, 0x123});
  // 33-bit signed: -1 (33 ones) then 1: stream 1x33, 0x32, 1 -> 0xff 0xff 0xff 0xff 0x80 0 ...
  // 66 bits -> 9 bytes; item 1 ends at bit 65: byte 8 = 0b01000000.
  CHECK(Integers(File(Header({2}, 33, 0x04, 9), {0xff, 0xff, 0xff, 0xff, 0x80, 0x00, 0x00, 0x00,
                                                 0x40})) == std::vector<int64_t>{-1, 1});
  // 1-bit logical (tooling code 5), 9 items [1,0,1,1,0,0,0,0,1] -> 1011 0000 | 1000 0000.
  CHECK(Logicals(File(Header({3, 3}, 1, 0x05, 2), {0xb0, 0x80})) ==
        std::vector<int>{1, 0, 1, 1, 0, 0, 0, 0, 1});
  // 8-bit logical.
  CHECK(Logicals(File(Header({2}, 8, 0x05, 2), {0x01, 0x00})) == std::vector<int>{1, 0});
  // Logical from integer items that are 0/1; a 2 is rejected.
  CHECK(Logicals(File(Header({2}, 2, 0x01, 1), {0x40})) == std::vector<int>{1, 0});
  CHECK(
      Contains(ErrorText([] { Logicals(File(Header({1}, 8, 0x01, 1), {2})); }), "neither 0 nor 1"));
}

TEST_CASE("nnef tensor file: spec linear and logarithmic quantized codes") {
  // Linear, min -1, max 1, 8 bits (r = 255): q = 0 -> -1, 255 -> 1, 128 -> 128/255*2-1 = 1/255.
  const Bytes lin =
      File(Header({3}, 8, 0x10, 3, std::bit_cast<uint32_t>(-1.0f), std::bit_cast<uint32_t>(1.0f)),
           {0, 255, 128});
  const std::vector<double> v = Scalars(lin);
  CHECK(v[0] == -1.0);
  CHECK(v[1] == 1.0);
  CHECK(v[2] == static_cast<double>(static_cast<float>(1.0 / 255.0)));
  // 2-bit linear codes in a bit stream: [0, 1, 2, 3] = 00 01 10 11 = 0x1b; min 0, max 3 -> q.
  CHECK(Scalars(File(Header({4}, 2, 0x10, 1, 0, std::bit_cast<uint32_t>(3.0f)), {0x1b})) ==
        std::vector<double>{0, 1, 2, 3});
  // Logarithmic unsigned: min 0, max 4 (m = 2), 3 bits (r = 7): x = 2^(q + 2 - 7).
  CHECK(Scalars(File(Header({3}, 3, 0x11, 2, 0, std::bit_cast<uint32_t>(4.0f)),
                     // q = 0, 5, 7 -> 000 101 111 -> 0001 0111 | 1000 0000
                     {0x17, 0x80})) == std::vector<double>{1.0 / 32, 1, 4});
  // Logarithmic signed: min -5, max 5 (m = ceil(log2 5) = 3), 3 bits: sign bit + 2 bits (r = 3),
  // x = +-2^(q + 3 - 3): codes 0b101 (-, q = 1) -> -2, 0b011 (+, q = 3) -> 8, 0b100 -> -1.
  CHECK(Scalars(File(
            Header({3}, 3, 0x11, 2, std::bit_cast<uint32_t>(-5.0f), std::bit_cast<uint32_t>(5.0f)),
            // 101 011 100 -> 1010 1110 | 0000 0000
            {0xae, 0x00})) == std::vector<double>{-2, 8, -1});
  // Invalid parameters: logarithmic min must be 0 or -max, max positive; no NaN bounds.
  CHECK(Contains(ErrorText([] {
                   Parse(File(Header({1}, 8, 0x11, 1, std::bit_cast<uint32_t>(1.0f),
                                     std::bit_cast<uint32_t>(4.0f)),
                              {0}));
                 }),
                 "byte 52"));
  CHECK(Contains(ErrorText([] { Parse(File(Header({1}, 8, 0x11, 1, 0, 0), {0})); }), "byte 56"));
  CHECK(Contains(ErrorText([] { Parse(File(Header({1}, 8, 0x10, 1, 0x7fc00000u, 0), {0})); }),
                 "byte 52: quantization min is not finite"));
  // Quantized codes are not integer tensors.
  CHECK(Contains(
      ErrorText([&] { DecodeTensorFile(Parse(lin), TensorType::kInteger, nullptr, "t.dat"); }),
      "cannot load linear-quantized 8-bit [3] data into a tensor<integer>"));
}

TEST_CASE("nnef tensor file: tooling quint/qint codes decode through graph.quant") {
  const Bytes quint = File(Header({3}, 8, 0x02, 3), {130, 0, 255});
  // zero_point_linear_quantize: x = (q - zero_point) * scale.
  const QuantFile qf = ParseQuantFile(
      "\"w\": zero_point_linear_quantize(zero_point = 128, scale = 0.5, bits = 8, "
      "signed = false, symmetric = false);",
      "graph.quant");
  CHECK(Scalars(quint, &qf.entries[0].algorithm) == std::vector<double>{1, -64, 63.5});
  // Without graph.quant the real values are unknown.
  CHECK(Contains(ErrorText([&] { Scalars(quint); }), "graph.quant gives no quantization"));
  // As tensor<integer> the codes themselves load.
  CHECK(Integers(quint) == std::vector<int64_t>{130, 0, 255});
  // qint 4-bit codes [-8, 7] with linear_quantize: codes outside [0, 15] do not decode.
  const Bytes qint = File(Header({2}, 4, 0x03, 1), {0x87});
  const QuantFile lin =
      ParseQuantFile("'w': linear_quantize(min = 0.0, max = 15.0, bits = 4);", "graph.quant");
  CHECK(Contains(ErrorText([&] { Scalars(qint, &lin.entries[0].algorithm); }),
                 "item 0 (code -8) is outside the code range"));
  const QuantFile sym = ParseQuantFile(
      "'w': zero_point_linear_quantize(zero_point = 0, scale = 0.25, bits = 4, signed = true,"
      " symmetric = false);",
      "graph.quant");
  CHECK(Scalars(qint, &sym.entries[0].algorithm) == std::vector<double>{-2, 1.75});
}

TEST_CASE("nnef tensor file: header checks name the byte offset") {
  const Bytes good = File(Header({2}, 8, 0x01, 2), {1, 2});
  CHECK(ErrorText([&] { Parse(good); }).empty());

  Bytes b = good;
  b[1] = std::byte{0xee};
  CHECK(Contains(ErrorText([&] { Parse(b); }), "t.dat: tensor-file error: byte 0: wrong magic"));
  b = good;
  b[2] = std::byte{2};
  CHECK(Contains(ErrorText([&] { Parse(b); }), "byte 2: unsupported version 2.0"));
  b = good;
  Put32(b, 8, 9);
  CHECK(Contains(ErrorText([&] { Parse(b); }), "byte 8: rank 9 exceeds the maximum of 8"));
  CHECK(Contains(ErrorText([] {
                   Parse(File(Header({2, 0}, 8, 0x01, 0), {}));
                 }),
                 "byte 16: extent of dimension 1 is 0"));
  b = good;
  Put32(b, 16, 3);  // extent of dimension 1 while rank is 1
  CHECK(Contains(ErrorText([&] { Parse(b); }), "byte 16: extent 3 given for dimension 1"));
  CHECK(Contains(ErrorText([] { Parse(File(Header({1}, 0, 0x01, 0), {})); }),
                 "byte 44: 0 bits per item"));
  CHECK(Contains(ErrorText([] { Parse(File(Header({1}, 65, 0x01, 9), {})); }),
                 "byte 44: 65 bits per item"));
  CHECK(Contains(ErrorText([] { Parse(File(Header({1}, 8, 0x00, 1), {0})); }),
                 "byte 44: 8 bits per item for float items"));
  CHECK(Contains(ErrorText([] { Parse(File(Header({1}, 2, 0x05, 1), {0})); }),
                 "for bool items (must be 1 or 8)"));
  CHECK(Contains(ErrorText([] { Parse(File(Header({1}, 8, 0x00010001, 1), {0})); }),
                 "byte 48: item-type code 0x10001 has vendor code 0x1"));
  CHECK(Contains(ErrorText([] { Parse(File(Header({1}, 8, 0x06, 1), {0})); }),
                 "byte 48: unknown Khronos item-type code 0x6"));
  CHECK(Contains(ErrorText([] {
                   Parse(File(Header({2}, 8, 0x01, 3), {1, 2, 3}));
                 }),
                 "byte 4: data length 3 does not match 2 items of 8 bits per item (2 bytes)"));
  CHECK(Contains(ErrorText([] { Parse(File(Header({2}, 8, 0x01, 2), {1})); }),
                 "truncated: the header announces 2 data bytes, the file has 1"));
  CHECK(Contains(ErrorText([] {
                   Parse(File(Header({2}, 8, 0x01, 2), {1, 2, 3}));
                 }),
                 "oversized: 1 bytes after the end of the data (byte 130)"));
  CHECK(Contains(ErrorText([] { Parse(Bytes(100, std::byte{0})); }), "truncated: 100 bytes"));
  // 4-bit [1, 2, 15] with padding bits 0b0001 set in the last byte.
  CHECK(Contains(ErrorText([] {
                   Parse(File(Header({3}, 4, 0x01, 2), {0x12, 0xf1}));
                 }),
                 "byte 129: the padding bits after the last item are not zero"));
}

TEST_CASE("nnef tensor file: hostile extents are rejected before allocation") {
  // Eight extents of 2^32 - 1: the item count overflows 64 bits; data length says 0.
  Bytes b = Header({}, 8, 0x01, 0);
  Put32(b, 8, 8);
  for (size_t k = 0; k < 8; ++k) Put32(b, 12 + 4 * k, 0xffffffffu);
  CHECK(Contains(ErrorText([&] { Parse(b); }), "items (the limit for one tensor)"));
  // A header announcing 4 GiB - 1 of data over a file of 130 bytes.
  Bytes c = File(Header({0xffffffffu}, 8, 0x01, 0xffffffffu), {0, 0});
  CHECK(Contains(ErrorText([&] { ParseTensorFile(c, "t.dat", uint64_t{1} << 33); }),
                 "truncated: the header announces 4294967295 data bytes, the file has 2"));
  // The decoded-size bound: 64 one-bit items are fine as logical, not under an 8-byte budget.
  const Bytes bits = File(Header({64}, 1, 0x05, 8), {0, 0, 0, 0, 0, 0, 0, 0});
  CHECK(Contains(
      ErrorText([&] { DecodeTensorFile(Parse(bits), TensorType::kScalar, nullptr, "t.dat", 8); }),
      "would exceed 8 bytes"));
}

TEST_CASE("nnef tensor file: type mismatches between file and tensor") {
  const Bytes f32 = File(Header({1}, 32, 0x00, 4), {0, 0, 0x80, 0x3f});
  CHECK(Contains(ErrorText([&] { Integers(f32); }),
                 "cannot load float32 [1] data into a tensor<integer>"));
  CHECK(Contains(ErrorText([&] { Logicals(f32); }), "into a tensor<logical>"));
  CHECK(Contains(ErrorText([] { Integers(File(Header({1}, 8, 0x05, 1), {1})); }),
                 "into a tensor<integer>"));
}

TEST_CASE("nnef tensor file: reading from disk checks the size before reading the data") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "nnref_tensor_file_test";
  std::filesystem::create_directories(dir);
  const auto write = [&](const std::string& name, const Bytes& b) {
    std::ofstream out(dir / name, std::ios::binary);
    out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    return (dir / name).string();
  };
  const std::string ok = write("ok.dat", File(Header({2}, 8, 0x01, 2, 1), {0xff, 7}));
  const TensorFile f = ReadTensorFile(ok);
  CHECK(f.SignedItem(0) == -1);
  CHECK(f.SignedItem(1) == 7);
  const std::string trunc =
      write("trunc.dat", File(Header({1000000}, 32, 0x00, 4000000), {0, 0, 0, 0}));
  CHECK(Contains(ErrorText([&] { ReadTensorFile(trunc); }),
                 "truncated: the header announces 4000000 data bytes, the file has 4"));
  const std::string big = write("big.dat", File(Header({1}, 8, 0x01, 1), {1, 2}));
  CHECK(Contains(ErrorText([&] { ReadTensorFile(big); }), "oversized: 1 bytes"));
  CHECK(Contains(ErrorText([&] { ReadTensorFile((dir / "missing.dat").string()); }),
                 "missing.dat: tensor-file error: cannot open"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("nnef tensor file: writer formats and round trips") {
  // Default float32 format; the bytes are those the spec layout gives.
  Tensor x = Tensor::Allocate(DataType::kFloat32, {2});
  x.base<float>()[0] = 1.0f;
  x.base<float>()[1] = -2.5f;
  const Bytes img =
      SerializeTensorFile(EncodeTensor(x, DefaultFormat(x, TensorType::kScalar), "x.dat"));
  CHECK(img == File(Header({2}, 32, 0x00, 8), {0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x20, 0xc0}));

  // Integers: 32-bit signed when every value fits, else 64-bit.
  Tensor n = Tensor::Allocate(DataType::kInt64, {2});
  n.base<int64_t>()[0] = -3;
  n.base<int64_t>()[1] = 5;
  CHECK(SerializeTensorFile(EncodeTensor(n, DefaultFormat(n, TensorType::kInteger), "n.dat")) ==
        File(Header({2}, 32, 0x01, 8, 1), {0xfd, 0xff, 0xff, 0xff, 5, 0, 0, 0}));
  n.base<int64_t>()[1] = int64_t{1} << 40;
  const TensorFileHeader wide = DefaultFormat(n, TensorType::kInteger);
  CHECK(wide.bits_per_item == 64);
  CHECK(Integers(SerializeTensorFile(EncodeTensor(n, wide, "n.dat"))) ==
        std::vector<int64_t>{-3, int64_t{1} << 40});

  // Logical: tooling bool code, 8 bits.
  Tensor l = Tensor::Allocate(DataType::kUint8, {3});
  l.base<uint8_t>()[0] = 1;
  l.base<uint8_t>()[2] = 1;
  CHECK(SerializeTensorFile(EncodeTensor(l, DefaultFormat(l, TensorType::kLogical), "l.dat")) ==
        File(Header({3}, 8, 0x05, 3), {1, 0, 1}));
  // ... and packed to 1 bit: 101 + padding.
  TensorFileHeader packed;
  packed.code = ItemCode::kBool;
  packed.bits_per_item = 1;
  CHECK(SerializeTensorFile(EncodeTensor(l, packed, "l.dat")) ==
        File(Header({3}, 1, 0x05, 1), {0xa0}));

  // 5-bit signed integers round trip through the bit stream, and overflow is refused.
  TensorFileHeader i5;
  i5.code = ItemCode::kSignedInteger;
  i5.bits_per_item = 5;
  Tensor s = Tensor::Allocate(DataType::kInt64, {4});
  const int64_t sv[] = {-16, 15, 0, -1};
  for (size_t k = 0; k < 4; ++k) s.base<int64_t>()[k] = sv[k];
  CHECK(Integers(SerializeTensorFile(EncodeTensor(s, i5, "s.dat"))) ==
        std::vector<int64_t>{-16, 15, 0, -1});
  s.base<int64_t>()[0] = 16;
  CHECK(Contains(ErrorText([&] { EncodeTensor(s, i5, "s.dat"); }), "element 0 cannot be stored"));

  // float16 writer rounds once: 1 + 2^-11 is halfway between 1 and 1 + 2^-10 -> 1 (even).
  TensorFileHeader h16;
  h16.bits_per_item = 16;
  Tensor y = Tensor::Allocate(DataType::kFloat32, {1});
  y.base<float>()[0] = 1.0f + std::ldexp(1.0f, -11);
  CHECK(SerializeTensorFile(EncodeTensor(y, h16, "y.dat")) ==
        File(Header({1}, 16, 0x00, 2), {0x00, 0x3c}));

  // Linear quantized encoding (5.2): q = round(clamp((x - min) / (max - min), 0, 1) * r).
  TensorFileHeader lq;
  lq.code = ItemCode::kLinearQuantized;
  lq.bits_per_item = 2;
  lq.min = 0;
  lq.max = 3;
  Tensor z = Tensor::Allocate(DataType::kFloat32, {4});
  const float zv[] = {-1.0f, 1.5f, 1.49f, 7.0f};  // -> 0, round(1.5) = 2, 1, 3
  for (size_t k = 0; k < 4; ++k) z.base<float>()[k] = zv[k];
  CHECK(SerializeTensorFile(EncodeTensor(z, lq, "z.dat")) ==
        File(Header({4}, 2, 0x10, 1, 0, std::bit_cast<uint32_t>(3.0f)), {0x27}));

  // Logarithmic signed (max 5, 3 bits): -2 -> sign, q = 1; 8 -> q = 3; 0.3 -> clamp to 2^0.
  TensorFileHeader lg;
  lg.code = ItemCode::kLogarithmicQuantized;
  lg.bits_per_item = 3;
  lg.min = -5;
  lg.max = 5;
  lg.is_signed = true;
  Tensor w = Tensor::Allocate(DataType::kFloat32, {3});
  const float wv[] = {-2.0f, 8.0f, 0.3f};  // codes 101, 011, 000
  for (size_t k = 0; k < 3; ++k) w.base<float>()[k] = wv[k];
  CHECK(SerializeTensorFile(EncodeTensor(w, lg, "w.dat")) ==
        File(Header({3}, 3, 0x11, 2, std::bit_cast<uint32_t>(-5.0f), std::bit_cast<uint32_t>(5.0f)),
             {0xac, 0x00}));
}

TEST_CASE("nnef tensor file: mutated files are rejected cleanly, never read out of bounds") {
  // Valid seeds of several item types; each mutation flips bytes (mostly in the header), cuts or
  // extends the file. Every outcome must be a parsed tensor or an NnefError (run under ASan).
  const std::vector<Bytes> seeds = {
      File(Header({2, 3}, 32, 0x00, 24), {0, 0, 0x80, 0x3f, 0, 0, 0,    0x40, 0, 0, 0x40, 0x40,
                                          0, 0, 0x80, 0x40, 0, 0, 0xa0, 0x40, 0, 0, 0xc0, 0x40}),
      File(Header({3}, 4, 0x01, 2, 1), {0x12, 0xf0}),
      File(Header({3, 3}, 1, 0x05, 2), {0xb0, 0x80}),
      File(Header({3}, 8, 0x10, 3, 0, std::bit_cast<uint32_t>(1.0f)), {0, 128, 255}),
      File(Header({3}, 3, 0x11, 2, 0, std::bit_cast<uint32_t>(4.0f)), {0x17, 0x80}),
      File(Header({2}, 16, 0x02, 4), {1, 0, 2, 0}),
  };
  const QuantFile qf = ParseQuantFile(
      "'w': zero_point_linear_quantize(zero_point = 0, scale = 0.5, bits = 16, signed = false, "
      "symmetric = false);",
      "graph.quant");
  uint64_t state = 0x9e3779b97f4a7c15ull;
  const auto next = [&]() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  size_t accepted = 0, rejected = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    Bytes b = seeds[next() % seeds.size()];
    const uint64_t flips = 1 + next() % 4;
    for (uint64_t k = 0; k < flips; ++k) {
      const size_t at = next() % 4 == 0 ? next() % b.size() : next() % 64;
      b[at] = static_cast<std::byte>(next() & 0xff);
    }
    if (next() % 8 == 0) b.resize(next() % (b.size() + 8));
    try {
      const TensorFile f = ParseTensorFile(b, "m.dat", 1 << 20);
      for (TensorType t : {TensorType::kScalar, TensorType::kInteger, TensorType::kLogical}) {
        try {
          (void)DecodeTensorFile(f, t, &qf.entries[0].algorithm, "m.dat", 1 << 22);
        } catch (const NnefError&) {
        }
      }
      ++accepted;
    } catch (const NnefError&) {
      ++rejected;
    }
  }
  CHECK(accepted > 0);
  CHECK(rejected > 0);
}

TEST_CASE("nnef tensor file: decoding formulas") {
  CHECK(DecodeLinear(0, 8, -1, 1) == -1);
  CHECK(DecodeLinear(255, 8, -1, 1) == 1);
  CHECK(DecodeLinear(1, 1, 2, 6) == 6);
  // Logarithmic: max = 4 exactly gives m = 2 (not 3); max = 4.5 gives m = 3.
  CHECK(DecodeLogarithmic(7, 3, false, 4.0) == 4);
  CHECK(DecodeLogarithmic(7, 3, false, 4.5) == 8);
  // 62-bit codes: 2^(q + m - r) underflows to 0 for small q without overflowing the exponent.
  CHECK(DecodeLogarithmic(0, 62, false, 1.0) == 0);
}

}  // namespace nnref::nnef
