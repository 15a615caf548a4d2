#include "runner/data.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cfenv>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "numerics/cast.h"
#include "ref/error.h"
#include "ref/parallel/parallel.h"

namespace nnref {

uint64_t SplitMix64::Next() {
  state_ += 0x9E3779B97F4A7C15ull;
  uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double SplitMix64::NextUnit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

namespace {

double StrtodInMode(const std::string& text, int mode) {
  const int saved = std::fegetround();
  std::fesetround(mode);
  const double d = std::strtod(text.c_str(), nullptr);
  std::fesetround(saved);
  return d;
}

bool IsFloat16Tie(double v) {
  return Float16::FromDouble(std::nextafter(v, -kInfinity)) !=
         Float16::FromDouble(std::nextafter(v, kInfinity));
}

}  // namespace

// strtod gives the nearest double d. Rounding d to binary16 is wrong only when d sits exactly on a
// binary16 rounding boundary (a tie) while the decimal does not; the directed-rounding parses tell
// on which side of d the decimal lies.
Float16 Float16FromDecimal(const std::string& text) {
  const double d = std::strtod(text.c_str(), nullptr);
  const double down = StrtodInMode(text, FE_DOWNWARD);
  const double up = StrtodInMode(text, FE_UPWARD);
  if (down == up) return Float16::FromDouble(d);  // the decimal is exactly a double
  if (IsFloat16Tie(down)) return Float16::FromDouble(up);
  if (IsFloat16Tie(up)) return Float16::FromDouble(down);
  return Float16::FromDouble(d);
}

namespace {

[[noreturn]] void Bad(const std::string& where, const std::string& what) {
  throw InputError(where + ": " + what);
}

bool ParseHexBits(const std::string& s, int bits, uint64_t& out) {
  if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return false;
  if (s.size() - 2 > static_cast<size_t>(bits / 4)) return false;
  uint64_t v = 0;
  const auto r = std::from_chars(s.data() + 2, s.data() + s.size(), v, 16);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return false;
  out = v;
  return true;
}

bool IsDecimalNumber(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  (void)std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && s.find_first_of("xXnN") == std::string::npos;
}

template <typename T>
T FloatFromText(const std::string& text) {
  if constexpr (std::is_same_v<T, Float16>) {
    return Float16FromDecimal(text);
  } else {
    return std::strtof(text.c_str(), nullptr);  // correctly rounded decimal -> binary32
  }
}

template <typename T>
T DecodeFloat(const Value& v, const std::string& where) {
  constexpr int kBits = std::is_same_v<T, Float16> ? 16 : 32;
  if (v.is_number()) {
    const Number& n = v.number();
    if (!n.text.empty()) return FloatFromText<T>(n.text);
    return RoundTo<T>(n.d);
  }
  if (!v.is_string()) Bad(where, "expected a number, got " + v.KindName());
  const std::string& s = v.str();
  if (s == "NaN") return RoundTo<T>(std::nan(""));
  if (s == "Infinity") return RoundTo<T>(kInfinity);
  if (s == "-Infinity") return RoundTo<T>(-kInfinity);
  if (s == "-0") return RoundTo<T>(-0.0);
  uint64_t bits = 0;
  if (ParseHexBits(s, kBits, bits)) {
    if constexpr (std::is_same_v<T, Float16>) {
      return Float16::FromBits(static_cast<uint16_t>(bits));
    } else {
      return std::bit_cast<float>(static_cast<uint32_t>(bits));
    }
  }
  if (IsDecimalNumber(s)) return FloatFromText<T>(s);
  Bad(where, "'" + s + "' is not a number, \"NaN\", \"Infinity\", \"-Infinity\", \"-0\" or a " +
                 std::to_string(kBits / 4) + "-digit hex bit pattern");
}

template <typename T>
T DecodeInteger(const Value& v, const std::string& where) {
  using L = std::numeric_limits<T>;
  const std::string type(DataTypeName(DataTypeOf<T>()));
  const auto range_error = [&](const std::string& text) {
    Bad(where, "value " + text + " is out of range for " + type);
  };
  if (v.is_number()) {
    const Number& n = v.number();
    if (n.i) {
      if (*n.i < static_cast<int64_t>(L::min()) ||
          (*n.i > 0 && static_cast<uint64_t>(*n.i) > static_cast<uint64_t>(L::max()))) {
        range_error(n.text);
      }
      return static_cast<T>(*n.i);
    }
    if (n.u) {
      if (*n.u > static_cast<uint64_t>(L::max())) range_error(n.text);
      return static_cast<T>(*n.u);
    }
    // A float-looking number: accept integral values that doubles hold exactly.
    if (std::trunc(n.d) != n.d || std::fabs(n.d) > 0x1.0p53) {
      Bad(where, "value " + n.text + " is not an integer representable in " + type);
    }
    return DecodeInteger<T>(
        Value::Num(Number{
            n.d, static_cast<int64_t>(n.d),
            n.d >= 0 ? std::optional<uint64_t>(static_cast<uint64_t>(n.d)) : std::nullopt, n.text}),
        where);
  }
  if (!v.is_string()) Bad(where, "expected an integer, got " + v.KindName());
  std::string s = v.str();
  uint64_t bits = 0;
  if (ParseHexBits(s, static_cast<int>(sizeof(T) * 8), bits)) {
    return static_cast<T>(bits);  // the element's bits, two's complement for signed types
  }
  if (!s.empty() && s.back() == 'n') s.pop_back();
  const bool neg = !s.empty() && s[0] == '-';
  if (neg) {
    int64_t x = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), x);
    if (r.ec == std::errc::result_out_of_range) range_error(s);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) {
      Bad(where, "'" + v.str() + "' is not an integer");
    }
    if (x < static_cast<int64_t>(L::min())) range_error(s);
    return static_cast<T>(x);
  }
  uint64_t x = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), x);
  if (r.ec == std::errc::result_out_of_range) range_error(s);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.empty()) {
    Bad(where, "'" + v.str() + "' is not an integer");
  }
  if (x > static_cast<uint64_t>(L::max())) range_error(s);
  return static_cast<T>(x);
}

template <typename T>
T DecodeElement(const Value& v, const std::string& where) {
  if constexpr (kIsFloatStorage<T>) {
    return DecodeFloat<T>(v, where);
  } else {
    return DecodeInteger<T>(v, where);
  }
}

// A double produced by a generator, converted like a JSON number of that value.
template <typename T>
T FromGeneratedDouble(double d, const std::string& where) {
  if constexpr (kIsFloatStorage<T>) {
    return RoundTo<T>(d);
  } else {
    if (!std::isfinite(d) || std::trunc(d) != d) {
      Bad(where, "generated value " + std::to_string(d) + " is not an integer");
    }
    Number n;
    n.d = d;
    n.text = std::to_string(d);
    if (std::fabs(d) <= 0x1.0p62) {
      n.i = static_cast<int64_t>(d);
      if (d >= 0) n.u = static_cast<uint64_t>(d);
    }
    return DecodeInteger<T>(Value::Num(n), where);
  }
}

double RequireNumber(const Value& obj, const char* key, const std::string& where) {
  const Value* v = obj.Find(key);
  if (!v || !v->is_number()) Bad(where, std::string("'") + key + "' must be a number");
  return v->number().d;
}

// Reads a NumPy .npy file (format versions 1-3, little-endian, C order).
Tensor ReadNpy(const std::string& path, DataType dtype, const Shape& shape,
               const std::string& where) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Bad(where, "cannot open npy file '" + path + "'");
  char magic[8];
  if (!in.read(magic, 8) || std::string(magic, 6) != "\x93NUMPY") {
    Bad(where, "'" + path + "' is not an npy file (bad magic)");
  }
  const int major = static_cast<unsigned char>(magic[6]);
  uint32_t header_len = 0;
  if (major == 1) {
    unsigned char b[2];
    if (!in.read(reinterpret_cast<char*>(b), 2)) Bad(where, "'" + path + "': truncated header");
    header_len = static_cast<uint32_t>(b[0] | (b[1] << 8));
  } else if (major == 2 || major == 3) {
    unsigned char b[4];
    if (!in.read(reinterpret_cast<char*>(b), 4)) Bad(where, "'" + path + "': truncated header");
    header_len = static_cast<uint32_t>(b[0] | (b[1] << 8) | (b[2] << 16)) |
                 (static_cast<uint32_t>(b[3]) << 24);
  } else {
    Bad(where, "'" + path + "': unsupported npy version " + std::to_string(major));
  }
  if (header_len > (1u << 20)) Bad(where, "'" + path + "': npy header too large");
  std::string header(header_len, '\0');
  if (!in.read(header.data(), header_len)) Bad(where, "'" + path + "': truncated header");
  const auto field = [&](const std::string& key) -> std::string {
    const size_t k = header.find("'" + key + "'");
    if (k == std::string::npos) Bad(where, "'" + path + "': header has no '" + key + "'");
    size_t p = header.find(':', k);
    if (p == std::string::npos) Bad(where, "'" + path + "': malformed header");
    ++p;
    while (p < header.size() && header[p] == ' ') ++p;
    size_t e = p;
    if (p < header.size() && header[p] == '(') {
      e = header.find(')', p);
      if (e == std::string::npos) Bad(where, "'" + path + "': malformed header");
      return header.substr(p, e - p + 1);
    }
    while (e < header.size() && header[e] != ',' && header[e] != '}') ++e;
    return header.substr(p, e - p);
  };
  std::string descr = field("descr");
  if (descr.size() >= 2 && (descr.front() == '\'' || descr.front() == '"')) {
    descr = descr.substr(1, descr.size() - 2);
  }
  const char* expected = "";
  switch (dtype) {
    case DataType::kFloat32:
      expected = "<f4";
      break;
    case DataType::kFloat16:
      expected = "<f2";
      break;
    case DataType::kInt32:
      expected = "<i4";
      break;
    case DataType::kUint32:
      expected = "<u4";
      break;
    case DataType::kInt64:
      expected = "<i8";
      break;
    case DataType::kUint64:
      expected = "<u8";
      break;
    case DataType::kInt8:
      expected = "|i1";
      break;
    case DataType::kUint8:
      expected = "|u1";
      break;
  }
  const bool byte_type = dtype == DataType::kInt8 || dtype == DataType::kUint8;
  // A byte type's order character may be any ('|u1', '<u1'); an empty descr is just wrong (found
  // by npy_fuzzer: substr(1) of it threw out_of_range).
  const bool byte_match =
      byte_type && descr.size() == 3 && descr.compare(1, 2, std::string(expected), 1, 2) == 0;
  if (descr != expected && !byte_match) {
    Bad(where, "'" + path + "' holds dtype " + descr + ", expected " + expected + " for " +
                   std::string(DataTypeName(dtype)));
  }
  if (field("fortran_order").find("False") == std::string::npos) {
    Bad(where, "'" + path + "': Fortran-order arrays are not supported");
  }
  // Shape tuple: "(2, 3)" or "(6,)" or "()".
  std::string tuple = field("shape");
  Shape file_shape;
  for (size_t i = 1; i < tuple.size();) {
    while (i < tuple.size() && (tuple[i] == ' ' || tuple[i] == ',')) ++i;
    if (i >= tuple.size() || tuple[i] == ')') break;
    uint64_t d = 0;
    const auto r = std::from_chars(tuple.data() + i, tuple.data() + tuple.size(), d);
    if (r.ec != std::errc()) Bad(where, "'" + path + "': malformed shape " + tuple);
    file_shape.push_back(d);
    i = static_cast<size_t>(r.ptr - tuple.data());
  }
  const auto file_count = CheckedElementCount(file_shape);
  if (!file_count || *file_count != ElementCount(shape)) {
    Bad(where, "'" + path + "' has shape " + ShapeToString(file_shape) + " (" +
                   (file_count ? std::to_string(*file_count) : std::string("overflowing")) +
                   " elements), the descriptor needs " + std::to_string(ElementCount(shape)));
  }
  Tensor t = Tensor::Allocate(dtype, shape);
  const auto bytes = static_cast<std::streamsize>(t.buffer()->size());
  if (!in.read(reinterpret_cast<char*>(t.buffer()->data()), bytes)) {
    Bad(where, "'" + path + "' is truncated: fewer data bytes than its shape needs");
  }
  return t;
}

constexpr size_t kFillGrain = size_t{1} << 16;

// fn(begin, end) over [0, n) in blocks, on the reference's threads for float types. Integer
// generated values can be rejected (an exception naming the element), so they stay on one thread
// and the first bad element is the one reported.
template <typename T, typename Fn>
void ForBlocks(uint64_t n, Fn&& fn) {
  if constexpr (kIsFloatStorage<T>) {
    ParallelFor(static_cast<size_t>(n), kFillGrain,
                [&](size_t begin, size_t end) { fn(begin, end); });
  } else {
    fn(0, n);
  }
}

template <typename T>
void Fill(Tensor& t, const Value& data, const std::string& where, const std::string& base_dir) {
  T* out = t.base<T>();
  const uint64_t n = t.element_count();
  if (data.is_array()) {
    if (data.items().size() != n) {
      Bad(where, "has " + std::to_string(data.items().size()) + " values but shape " +
                     ShapeToString(t.shape()) + " needs " + std::to_string(n));
    }
    for (uint64_t i = 0; i < n; ++i) {
      out[i] = DecodeElement<T>(data.items()[i], where + "[" + std::to_string(i) + "]");
    }
    return;
  }
  if (data.is_object()) {
    if (const Value* f = data.Find("fill")) {
      const T v = DecodeElement<T>(*f, where + ".fill");
      ParallelFor(n, kFillGrain,
                  [&](size_t begin, size_t end) { std::fill(out + begin, out + end, v); });
      return;
    }
    if (const Value* r = data.Find("range")) {
      const std::string w = where + ".range";
      const double start = RequireNumber(*r, "start", w);
      const double step = r->Find("step") ? RequireNumber(*r, "step", w) : 1.0;
      ForBlocks<T>(n, [&](uint64_t begin, uint64_t end) {
        for (uint64_t i = begin; i < end; ++i) {
          const double p = static_cast<double>(i) * step;
          out[i] = FromGeneratedDouble<T>(start + p, w);
        }
      });
      return;
    }
    if (const Value* r = data.Find("random")) {
      const std::string w = where + ".random";
      const Value* seed = r->Find("seed");
      if (!seed || !seed->is_number() || !seed->number().u) {
        Bad(w, "'seed' must be a non-negative integer");
      }
      const uint64_t seed_value = *seed->number().u;
      std::string dist = "uniform";
      if (const Value* d = r->Find("distribution")) {
        if (!d->is_string()) Bad(w, "'distribution' must be \"uniform\" or \"normal\"");
        dist = d->str();
      }
      if (dist == "uniform") {
        const double lo = RequireNumber(*r, "min", w), hi = RequireNumber(*r, "max", w);
        if (!(lo <= hi)) Bad(w, "'min' must not exceed 'max'");
        ForBlocks<T>(n, [&](uint64_t begin, uint64_t end) {
          SplitMix64 rng(seed_value);
          rng.Skip(begin);  // one draw per element
          for (uint64_t i = begin; i < end; ++i) {
            const double u = rng.NextUnit();
            if constexpr (kIsFloatStorage<T>) {
              const double span = hi - lo;
              const double p = span * u;
              out[i] = RoundTo<T>(lo + p);
            } else {
              const double span = hi - lo + 1;
              const double p = std::floor(u * span);
              out[i] = FromGeneratedDouble<T>(lo + p, w);
            }
          }
        });
      } else if (dist == "normal") {
        const double mean = RequireNumber(*r, "mean", w), sd = RequireNumber(*r, "stddev", w);
        ForBlocks<T>(n, [&](uint64_t begin, uint64_t end) {
          SplitMix64 rng(seed_value);
          rng.Skip(2 * begin);  // two draws per element
          for (uint64_t i = begin; i < end; ++i) {
            const double u1 = rng.NextUnit(), u2 = rng.NextUnit();
            const double radius = std::sqrt(-2.0 * std::log1p(-u1));
            const double z = radius * std::cos(2.0 * M_PI * u2);
            const double p = sd * z;
            out[i] =
                FromGeneratedDouble<T>(kIsFloatStorage<T> ? mean + p : std::round(mean + p), w);
          }
        });
      } else {
        Bad(w, "unknown distribution '" + dist + "' (uniform or normal)");
      }
      return;
    }
    if (const Value* p = data.Find("npy")) {
      if (!p->is_string()) Bad(where + ".npy", "must be a path string");
      // An absolute path is used as given; a relative one is relative to the case (or results)
      // file's directory (docs/case-format.md, DATA forms).
      const std::string& given = p->str();
      const bool absolute = std::filesystem::path(given).is_absolute();
      const std::string path = absolute || base_dir.empty() ? given : base_dir + "/" + given;
      const Tensor loaded = ReadNpy(path, t.dtype(), t.shape(), where + ".npy");
      std::memcpy(t.buffer()->data(), loaded.buffer()->data(), t.buffer()->size());
      return;
    }
    Bad(where, "an object must be one of {\"fill\"}, {\"range\"}, {\"random\"}, {\"npy\"}");
  }
  // A single value: every element takes it.
  const T v = DecodeElement<T>(data, where);
  ParallelFor(n, kFillGrain,
              [&](size_t begin, size_t end) { std::fill(out + begin, out + end, v); });
}

}  // namespace

Tensor DecodeTensorData(const Value& data, DataType dtype, const Shape& shape,
                        const std::string& where, const std::string& base_dir) {
  Tensor t = Tensor::AllocateForOverwrite(dtype, shape);  // Fill writes every element or throws
  DispatchDataType(dtype, [&]<typename T>() { Fill<T>(t, data, where, base_dir); });
  return t;
}

namespace {

std::string ShortestFloat16(Float16 h) {
  const double d = h.ToDouble();
  char buf[40];
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, d);
    if (Float16FromDecimal(buf) == h) break;
  }
  // Same digits, laid out like the shortest double formatting (65500 rather than 6.55e+04).
  char out[40];
  const auto r = std::to_chars(out, out + sizeof out, std::strtod(buf, nullptr));
  return std::string(out, r.ptr);
}

}  // namespace

Value CanonicalElement(const Tensor& t, uint64_t i) {
  return DispatchDataType(t.dtype(), [&]<typename T>() -> Value {
    const T v = t.At<T>(i);
    if constexpr (kIsFloatStorage<T>) {
      const double d = ToDouble(v);
      if (std::isnan(d)) return Value::Str("NaN");
      if (std::isinf(d)) return Value::Str(d > 0 ? "Infinity" : "-Infinity");
      if (d == 0 && std::signbit(d)) return Value::Str("-0");
      if constexpr (std::is_same_v<T, float>) {
        char buf[32];
        const auto r = std::to_chars(buf, buf + sizeof buf, v);
        Number n;
        n.d = d;
        n.text = std::string(buf, r.ptr);
        return Value::Num(std::move(n));
      } else {
        Number n;
        n.d = d;
        n.text = ShortestFloat16(v);
        return Value::Num(std::move(n));
      }
    } else {
      const std::string text = std::to_string(v);
      if constexpr (sizeof(T) == 8) {
        constexpr int64_t kLimit = int64_t{1} << 53;  // beyond this JSON readers lose precision
        const bool exact =
            std::is_signed_v<T>
                ? (static_cast<int64_t>(v) <= kLimit && static_cast<int64_t>(v) >= -kLimit)
                : static_cast<uint64_t>(v) <= static_cast<uint64_t>(kLimit);
        if (!exact) return Value::Str(text);
      }
      Number n;
      n.d = static_cast<double>(v);
      n.text = text;
      return Value::Num(std::move(n));
    }
  });
}

std::string ElementText(const Tensor& t, uint64_t i) {
  const Value v = CanonicalElement(t, i);
  return v.is_string() ? v.str() : v.number().text;
}

double ElementAsDouble(const Tensor& t, uint64_t i) {
  return DispatchDataType(t.dtype(), [&]<typename T>() { return ToDouble(t.At<T>(i)); });
}

}  // namespace nnref
