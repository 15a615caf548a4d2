#include "runner/dump.h"

#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "ref/error.h"
#include "runner/data.h"

namespace nnref {

namespace {

// The .npy "descr" of a data type (little-endian, as the machines nnref runs on).
const char* NpyDescr(DataType t) {
  switch (t) {
    case DataType::kFloat32:
      return "<f4";
    case DataType::kFloat16:
      return "<f2";
    case DataType::kInt32:
      return "<i4";
    case DataType::kUint32:
      return "<u4";
    case DataType::kInt64:
      return "<i8";
    case DataType::kUint64:
      return "<u8";
    case DataType::kInt8:
      return "|i1";
    case DataType::kUint8:
      return "|u1";
  }
  return "?";
}

// Writes an .npy file (format version 1.0: magic, header length, a Python dict literal padded so
// that the data starts at a multiple of 64 bytes).
void WriteNpy(const std::string& path, const std::string& descr, const Shape& shape,
              const std::vector<std::byte>& bytes) {
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i) {
    dims += (i ? ", " : "") + std::to_string(shape[i]);
  }
  if (shape.size() == 1) dims += ",";
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) throw InputError(path + ": cannot write");
  out.write("\x93NUMPY\x01\x00", 8);
  const char len[2] = {static_cast<char>(header.size() & 0xff),
                       static_cast<char>((header.size() >> 8) & 0xff)};
  out.write(len, 2);
  out << header;
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out) throw InputError(path + ": cannot write");
}

}  // namespace

// --dump DIR: the expected and actual tensors of a failing output, and actual - expected as
// float64, as DIR/CASE.OUTPUT.{expected,actual,diff}.npy. Returns DIR/CASE.OUTPUT.
std::string DumpOutput(const std::string& dir, const std::string& case_name,
                       const std::string& output, const Tensor& expected, const Tensor& actual) {
  std::string stem = case_name + "." + output;
  for (char& ch : stem) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '-' && ch != '_') {
      ch = '_';
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::string base = (std::filesystem::path(dir) / stem).string();
  WriteNpy(base + ".expected.npy", NpyDescr(expected.dtype()), expected.shape(), expected.Bytes());
  WriteNpy(base + ".actual.npy", NpyDescr(actual.dtype()), actual.shape(), actual.Bytes());
  const uint64_t n = expected.element_count();
  std::vector<std::byte> diff(n * sizeof(double));
  for (uint64_t i = 0; i < n; ++i) {
    const double d = ElementAsDouble(actual, i) - ElementAsDouble(expected, i);
    std::memcpy(diff.data() + i * sizeof(double), &d, sizeof d);
  }
  WriteNpy(base + ".diff.npy", "<f8", expected.shape(), diff);
  return base;
}

}  // namespace nnref
