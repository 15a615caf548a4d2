// The buffers a timeline step passes (runner/timeline_runner.h): inline data written in a typed
// array's element type, named script buffers (ArrayBuffer, SharedArrayBuffer) and views of them.
#include <cmath>
#include <cstdio>
#include <cstring>

#include "runner/data.h"
#include "runner/timeline_runner.h"

namespace nnref::timeline_internal {

namespace {

// The element type the values of a buffer are written in.
enum class Elements : uint8_t { kDataType, kInt16, kUint16, kFloat64 };

struct BufferElements {
  Elements kind = Elements::kDataType;
  DataType type = DataType::kUint8;  // for kDataType
  size_t size = 1;
};

BufferElements ElementsOf(webnn::BufferType t, DataType tensor_type) {
  using B = webnn::BufferType;
  switch (t) {
    case B::kArrayBuffer:
    case B::kSharedArrayBuffer:
    case B::kDataView:
      // Plain buffers hold the bytes of values of the tensor's own type.
      return {Elements::kDataType, tensor_type, ElementSize(tensor_type)};
    case B::kInt8Array:
      return {Elements::kDataType, DataType::kInt8, 1};
    case B::kUint8Array:
    case B::kUint8ClampedArray:
      return {Elements::kDataType, DataType::kUint8, 1};
    case B::kInt16Array:
      return {Elements::kInt16, DataType::kInt32, 2};
    case B::kUint16Array:
      return {Elements::kUint16, DataType::kUint32, 2};
    case B::kInt32Array:
      return {Elements::kDataType, DataType::kInt32, 4};
    case B::kUint32Array:
      return {Elements::kDataType, DataType::kUint32, 4};
    case B::kFloat16Array:
      return {Elements::kDataType, DataType::kFloat16, 2};
    case B::kFloat32Array:
      return {Elements::kDataType, DataType::kFloat32, 4};
    case B::kFloat64Array:
      return {Elements::kFloat64, DataType::kFloat32, 8};
    case B::kBigInt64Array:
      return {Elements::kDataType, DataType::kInt64, 8};
    case B::kBigUint64Array:
      return {Elements::kDataType, DataType::kUint64, 8};
  }
  return {};
}

double Float64Of(const Value& v, const std::string& where) {
  if (v.is_number()) return v.number().d;
  if (v.is_string()) {
    if (v.str() == "NaN") return std::nan("");
    if (v.str() == "Infinity") return INFINITY;
    if (v.str() == "-Infinity") return -INFINITY;
    if (v.str() == "-0") return -0.0;
  }
  Bad(where,
      "a Float64Array value must be a number, \"NaN\", \"Infinity\", \"-Infinity\" or \"-0\"");
}

}  // namespace

// The byte length of a descriptor, UINT64_MAX when it does not fit.
uint64_t ByteLengthOf(DataType type, const Shape& shape) {
  const std::optional<uint64_t> count = CheckedElementCount(shape);
  const uint64_t size = ElementSize(type);
  return count && *count <= UINT64_MAX / size ? *count * size : UINT64_MAX;
}

std::vector<std::byte> MakeBuffer(const BufferSpec& spec, webnn::BufferType type,
                                  DataType tensor_type, uint64_t tensor_bytes, uint64_t max_bytes,
                                  const std::string& field, const std::string& base_dir) {
  if (spec.byte_length && *spec.byte_length > max_bytes) {
    Bad(field + ".byteLength", std::to_string(*spec.byte_length) + " bytes is too large a buffer");
  }
  if (!spec.byte_length && tensor_bytes > max_bytes && (!spec.data || !spec.data->is_array())) {
    return {};
  }
  if (!spec.data) return std::vector<std::byte>(spec.byte_length.value_or(tensor_bytes));
  const BufferElements e = ElementsOf(type, tensor_type);
  uint64_t count = 0;
  if (spec.data->is_array()) {
    count = spec.data->items().size();
  } else {
    const uint64_t bytes = spec.byte_length.value_or(tensor_bytes);
    if (bytes % e.size) {
      Bad(field + ".data",
          "the buffer's " + std::to_string(bytes) + " bytes are not a whole number of elements");
    }
    count = bytes / e.size;
  }
  if (count > max_bytes / e.size) Bad(field + ".data", "the buffer is too large");
  std::vector<std::byte> out(count * e.size);
  const std::string where = field + ".data";
  if (e.kind == Elements::kFloat64) {
    std::vector<double> v;
    if (spec.data->is_array()) {
      for (const Value& x : spec.data->items()) v.push_back(Float64Of(x, where));
    } else {
      v.assign(count, Float64Of(*spec.data, where));
    }
    std::memcpy(out.data(), v.data(), out.size());
  } else {
    const Tensor t = DecodeTensorData(*spec.data, e.type, {count}, where, base_dir);
    if (e.kind == Elements::kDataType) {
      const std::vector<std::byte> b = t.Bytes();
      std::memcpy(out.data(), b.data(), out.size());
    } else {
      for (uint64_t i = 0; i < count; ++i) {
        const int64_t x =
            e.kind == Elements::kInt16 ? int64_t{t.At<int32_t>(i)} : int64_t{t.At<uint32_t>(i)};
        const bool ok =
            e.kind == Elements::kInt16 ? (x >= -32768 && x <= 32767) : (x >= 0 && x <= 65535);
        if (!ok) Bad(where, "value " + std::to_string(x) + " is out of range for the array type");
        const auto bits = static_cast<uint16_t>(x);
        std::memcpy(out.data() + i * 2, &bits, 2);
      }
    }
  }
  if (spec.byte_length && *spec.byte_length != out.size()) {
    Bad(field + ".byteLength", "the data holds " + std::to_string(out.size()) + " bytes, not " +
                                   std::to_string(*spec.byte_length));
  }
  return out;
}

Runner::ScriptBuffer& Runner::BufferNamed(const std::string& name, const std::string& field) {
  const auto it = buffers_.find(name);
  if (it == buffers_.end()) {
    Bad(field, "no buffer named '" + name + "' (no createBuffer step created it)");
  }
  return it->second;
}

Runner::View Runner::ViewOf(const BufferSpec& spec, std::optional<DataType> tensor_type,
                            const std::string& field, bool typed_only) {
  View v;
  v.buffer = BufferNamed(spec.buffer, field + ".buffer");
  if (!spec.type.empty()) {
    const auto t = webnn::ParseBufferType(spec.type);
    if (!t)
      Bad(field + ".bufferType",
          "must be ArrayBuffer, SharedArrayBuffer, DataView or a typed array name");
    v.type = *t;
  } else {
    v.type = tensor_type ? webnn::MatchingBufferType(*tensor_type) : webnn::BufferType::kUint8Array;
  }
  using B = webnn::BufferType;
  std::vector<std::byte>& all = *v.buffer.bytes;
  const uint64_t size = all.size();
  if (v.type == B::kArrayBuffer || v.type == B::kSharedArrayBuffer) {
    if (typed_only)
      Bad(field + ".bufferType", "must be a typed array name (Float32Array, Uint8Array, ...)");
    if (spec.byte_offset || spec.length) {
      Bad(field,
          "the buffer itself (" + spec.type + ") has no byteOffset or length; use a view type");
    }
    if ((v.type == B::kSharedArrayBuffer) != v.buffer.shared) {
      Bad(field + ".bufferType", "buffer '" + spec.buffer + "' is " +
                                     (v.buffer.shared ? "a SharedArrayBuffer" : "an ArrayBuffer"));
    }
    if (!*v.buffer.detached) v.bytes = std::span<std::byte>(all);
    return v;
  }
  if (typed_only && v.type == B::kDataView) {
    Bad(field + ".bufferType", "must be a typed array name (Float32Array, Uint8Array, ...)");
  }
  // The RangeErrors of the typed array and DataView constructors are script errors here.
  const uint64_t es = webnn::BufferElementSize(v.type);
  const uint64_t offset = spec.byte_offset.value_or(0);
  const std::string name(webnn::BufferTypeName(v.type));
  if (offset % es) {
    Bad(field + ".byteOffset",
        "the byte offset of a " + name + " must be a multiple of " + std::to_string(es));
  }
  if (offset > size) {
    Bad(field + ".byteOffset",
        std::to_string(offset) + " is beyond the buffer's " + std::to_string(size) + " bytes");
  }
  uint64_t length = 0;
  if (spec.length) {
    length = *spec.length;
    if (length > (size - offset) / es) {
      Bad(field + ".length", std::to_string(length) + " elements from byte " +
                                 std::to_string(offset) + " do not fit the buffer's " +
                                 std::to_string(size) + " bytes");
    }
  } else {
    if ((size - offset) % es) {
      Bad(field + ".length", "the " + std::to_string(size - offset) +
                                 " bytes after the offset are not a whole number of " + name +
                                 " elements; give 'length'");
    }
    length = (size - offset) / es;
  }
  v.offset = offset;
  if (!*v.buffer.detached) v.bytes = std::span<std::byte>(all).subspan(offset, length * es);
  return v;
}

webnn::AllowSharedBufferSource Runner::Source(const TimelineStep& s, const BufferSpec& spec,
                                              DataType type, uint64_t tensor_bytes,
                                              std::vector<std::byte>& owned) {
  if (!spec.buffer.empty()) {
    const View v = ViewOf(spec, type, s.field, false);
    return webnn::AllowSharedBufferSource(v.type, v.bytes);
  }
  const webnn::BufferType t = BufferTypeFor(spec, type);
  owned = MakeBuffer(spec, t, type, tensor_bytes, MaxBuffer(), s.field, c_.base_dir);
  return webnn::AllowSharedBufferSource(t, owned);
}

void Runner::CreateBuffer(const TimelineStep& s) {
  ScriptBuffer buf;
  buf.shared = s.shared;
  const BufferSpec& spec = s.buffer;
  if (spec.byte_length && *spec.byte_length > MaxBuffer()) {
    Bad(s.field + ".byteLength",
        std::to_string(*spec.byte_length) + " bytes is too large a buffer");
  }
  std::vector<std::byte> bytes(spec.byte_length.value_or(0));
  if (spec.data) {
    webnn::BufferType type = webnn::BufferType::kUint8Array;
    if (!spec.type.empty()) {
      const auto t = webnn::ParseBufferType(spec.type);
      using B = webnn::BufferType;
      if (!t || *t == B::kArrayBuffer || *t == B::kSharedArrayBuffer || *t == B::kDataView) {
        Bad(s.field + ".bufferType", "must be a typed array name (the type 'data' is written in)");
      }
      type = *t;
    }
    BufferSpec init{spec.type, spec.data, std::nullopt, "", {}, {}};
    if (!spec.data->is_array()) init.byte_length = spec.byte_length;
    if (!spec.data->is_array() && !spec.byte_length) {
      Bad(s.field + ".byteLength", "a single value or generator needs the buffer's byteLength");
    }
    const std::vector<std::byte> data =
        MakeBuffer(init, type, DataType::kUint8, 0, MaxBuffer(), s.field, c_.base_dir);
    if (!spec.byte_length) bytes.resize(data.size());
    if (data.size() > bytes.size()) {
      Bad(s.field + ".data", std::to_string(data.size()) + " bytes do not fit byteLength " +
                                 std::to_string(bytes.size()));
    }
    if (!data.empty()) std::memcpy(bytes.data(), data.data(), data.size());
  }
  buf.bytes = std::make_shared<std::vector<std::byte>>(std::move(bytes));
  log_ = std::string(buf.shared ? "SharedArrayBuffer" : "ArrayBuffer") + " '" + spec.buffer +
         "' of " + std::to_string(buf.bytes->size()) + " bytes";
  buffers_[spec.buffer] = std::move(buf);
}

void Runner::SetBuffer(const TimelineStep& s) {
  ScriptBuffer& buf = BufferNamed(s.buffer.buffer, s.field + ".buffer");
  if (*buf.detached) Bad(s.field + ".buffer", "buffer '" + s.buffer.buffer + "' is detached");
  const View v = ViewOf(s.buffer, std::nullopt, s.field, true);
  BufferSpec spec{s.buffer.type, s.buffer.data, std::nullopt, "", {}, {}};
  if (!s.buffer.data->is_array()) spec.byte_length = v.bytes.size();
  const std::vector<std::byte> bytes =
      MakeBuffer(spec, v.type, DataType::kUint8, v.bytes.size(), MaxBuffer(), s.field, c_.base_dir);
  if (bytes.size() > v.bytes.size()) {
    Bad(s.field + ".data", std::to_string(bytes.size()) + " bytes do not fit the view's " +
                               std::to_string(v.bytes.size()));
  }
  if (!bytes.empty()) std::memcpy(v.bytes.data(), bytes.data(), bytes.size());
  log_ = std::to_string(bytes.size()) + " bytes at byte offset " + std::to_string(v.offset) +
         " of '" + s.buffer.buffer + "'";
}

void Runner::DetachBuffer(const TimelineStep& s) {
  ScriptBuffer& buf = BufferNamed(s.buffer.buffer, s.field + ".buffer");
  if (buf.shared) {
    Bad(s.field + ".buffer",
        "'" + s.buffer.buffer + "' is a SharedArrayBuffer, which cannot be detached");
  }
  if (*buf.detached) Bad(s.field + ".buffer", "'" + s.buffer.buffer + "' is already detached");
  // ArrayBuffer.prototype.transfer(): the buffer's byte length becomes 0 and every view of it
  // has length 0. (The bytes stay allocated here, so a pending read's target stays valid.)
  *buf.detached = true;
}

namespace {

// One element of a typed array, as a script would print it.
std::string ElementString(webnn::BufferType type, const std::byte* p) {
  using B = webnn::BufferType;
  const auto text = [&](DataType t) {
    Tensor x = Tensor::Allocate(t, {1});
    std::memcpy(x.buffer()->data(), p, ElementSize(t));
    return ElementText(x, 0);
  };
  switch (type) {
    case B::kInt8Array:
      return text(DataType::kInt8);
    case B::kInt16Array: {
      int16_t v;
      std::memcpy(&v, p, 2);
      return std::to_string(v);
    }
    case B::kUint16Array: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return std::to_string(v);
    }
    case B::kInt32Array:
      return text(DataType::kInt32);
    case B::kUint32Array:
      return text(DataType::kUint32);
    case B::kFloat16Array:
      return text(DataType::kFloat16);
    case B::kFloat32Array:
      return text(DataType::kFloat32);
    case B::kFloat64Array: {
      double v;
      std::memcpy(&v, p, 8);
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", v);
      return buf;
    }
    case B::kBigInt64Array:
      return text(DataType::kInt64);
    case B::kBigUint64Array:
      return text(DataType::kUint64);
    default:
      return text(DataType::kUint8);
  }
}

}  // namespace

void Runner::CheckBuffer(const TimelineStep& s) {
  ScriptBuffer& buf = BufferNamed(s.buffer.buffer, s.field + ".buffer");
  if (s.expect_detached && *s.expect_detached != *buf.detached) {
    throw StepFailure{"buffer '" + s.buffer.buffer + "' is " +
                      (*buf.detached ? "detached" : "not detached")};
  }
  const View v = ViewOf(s.buffer, std::nullopt, s.field, true);
  if (!s.expected) {
    log_ = *buf.detached ? "detached" : "not detached";
    return;
  }
  if (*buf.detached) throw StepFailure{"buffer '" + s.buffer.buffer + "' is detached"};
  BufferSpec spec{s.buffer.type, s.expected, std::nullopt, "", {}, {}};
  if (!s.expected->is_array()) spec.byte_length = v.bytes.size();
  const std::vector<std::byte> want = MakeBuffer(spec, v.type, DataType::kUint8, v.bytes.size(),
                                                 MaxBuffer(), s.field + ".expected", c_.base_dir);
  const size_t es = webnn::BufferElementSize(v.type);
  if (want.size() != v.bytes.size()) {
    Bad(s.field + ".expected", "holds " + std::to_string(want.size() / es) +
                                   " elements but the view has " +
                                   std::to_string(v.bytes.size() / es));
  }
  std::string shown = "[";
  for (size_t i = 0; i < v.bytes.size() / es; ++i) {
    const std::string got = ElementString(v.type, v.bytes.data() + i * es);
    if (std::memcmp(want.data() + i * es, v.bytes.data() + i * es, es) != 0) {
      throw StepFailure{"buffer '" + s.buffer.buffer + "' element " + std::to_string(i) +
                        " (byte " + std::to_string(v.offset + i * es) + "): expected " +
                        ElementString(v.type, want.data() + i * es) + ", got " + got};
    }
    if (i < 8) shown += (i ? ", " : "") + got;
  }
  log_ = "'" + s.buffer.buffer + "' = " + shown + (v.bytes.size() / es > 8 ? ", ...]" : "]");
}

}  // namespace nnref::timeline_internal
