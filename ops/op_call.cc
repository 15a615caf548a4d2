#include "ops/op_call.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace nnref {

std::string OperatorDisplayName(std::string_view op, const MLOperatorOptions& options) {
  if (options.label.empty()) return std::string(op);
  std::string clean;
  const std::string& l = options.label;
  for (size_t i = 0; i < l.size(); ++i) {
    const auto c = static_cast<unsigned char>(l[i]);
    // U+202A..U+202E and U+2066..U+2069 in UTF-8: E2 80 AA..AE, E2 81 A6..A9.
    if (c == 0xE2 && i + 2 < l.size()) {
      const auto b1 = static_cast<unsigned char>(l[i + 1]),
                 b2 = static_cast<unsigned char>(l[i + 2]);
      if ((b1 == 0x80 && b2 >= 0xAA && b2 <= 0xAE) || (b1 == 0x81 && b2 >= 0xA6 && b2 <= 0xA9)) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "\\u%04X", 0x2000 + ((b1 & 0x3F) << 6) + (b2 & 0x3F));
        clean += buf;
        i += 2;
        continue;
      }
    }
    if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      clean += buf;
    } else {
      clean += l[i];
    }
  }
  return std::string(op) + " [label '" + clean + "']";
}

OpCall::OpCall(GraphBuilder& builder, std::string op, std::vector<PositionalArg> args,
               OperandLookup lookup, WarningSink warn)
    : builder_(builder),
      op_(std::move(op)),
      args_(std::move(args)),
      lookup_(std::move(lookup)),
      warn_(std::move(warn)) {}

void OpCall::Warn(const std::string& what) const {
  const std::string message = op_ + ": " + what;
  if (warn_) {
    warn_(message);
  } else {
    std::fprintf(stderr, "warning: %s\n", message.c_str());
  }
}

void OpCall::Fail(const std::string& what) const { throw InputError(op_ + ": " + what); }

const Value* OpCall::At(size_t index) const {
  return index < args_.size() ? args_[index].value : nullptr;
}

void OpCall::ExpectAtMost(size_t count) const {
  if (args_.size() > count) {
    Fail("takes at most " + std::to_string(count) + " arguments, " + std::to_string(args_.size()) +
         " were given (extra argument '" + args_[count].key + "')");
  }
}

Operand OpCall::Resolve(const Value& v, const std::string& where) const {
  if (!v.is_string()) Fail(where + " must name an operand, got " + v.KindName());
  const std::optional<Operand> o = lookup_(v.str());
  if (!o) Fail(where + " names '" + v.str() + "', which is no input or earlier operator output");
  return *o;
}

Operand OpCall::GetOperand(size_t index, const char* param) const {
  const Value* v = At(index);
  if (!v) Fail("missing argument " + std::to_string(index + 1) + " ('" + param + "')");
  return Resolve(*v, std::string("argument '") + param + "'");
}

std::vector<Operand> OpCall::GetOperandList(size_t index, const char* param) const {
  const Value* v = At(index);
  if (!v) Fail("missing argument " + std::to_string(index + 1) + " ('" + param + "')");
  if (!v->is_array())
    Fail(std::string("argument '") + param + "' must be an array of operand names");
  std::vector<Operand> out;
  for (size_t i = 0; i < v->items().size(); ++i) {
    out.push_back(
        Resolve(v->items()[i], std::string("argument '") + param + "[" + std::to_string(i) + "]'"));
  }
  return out;
}

DataType OpCall::GetDataType(size_t index, const char* param) const {
  const Value* v = At(index);
  if (!v) Fail("missing argument " + std::to_string(index + 1) + " ('" + param + "')");
  if (!v->is_string()) Fail(std::string("argument '") + param + "' must be a data type name");
  const auto t = ParseDataType(v->str());
  // WebIDL enum conversion of an unknown value throws TypeError.
  if (!t) ThrowTypeError(op_ + ": '" + v->str() + "' is not an MLOperandDataType");
  return *t;
}

const Value& OpCall::GetOptions(size_t index) const {
  static const Value kEmpty = Value::Object();
  const Value* v = At(index);
  if (!v || v->is_null()) return kEmpty;
  if (!v->is_object()) Fail("the options argument must be an object, got " + v->KindName());
  return *v;
}

MLOperatorOptions OpCall::GetOperatorOptions(const Value& options) const {
  MLOperatorOptions o;
  if (const Value* l = options.Find("label")) {
    if (!l->is_string()) Fail("options.label must be a string");
    o.label = l->str();
  }
  return o;
}

std::optional<MLNumber> OpCall::GetNumberOption(const Value& options, const char* member) const {
  const Value* v = options.Find(member);
  if (!v || v->is_null()) return std::nullopt;
  auto n = NumberFromValue(*v);
  if (!n) Fail(std::string("options.") + member + " must be a number, got " + v->KindName());
  return n;
}

const Value& OpCall::Required(size_t index, const char* param) const {
  const Value* v = At(index);
  if (!v) Fail("missing argument " + std::to_string(index + 1) + " ('" + param + "')");
  return *v;
}

// [EnforceRange] unsigned long.
// WebIDL ConvertToInt for unsigned long: with [EnforceRange], NaN/Infinity or an integer part
// outside [0, 2^32-1] is a TypeError and a fraction is dropped; without it, NaN/Infinity give 0
// and the integer part is taken modulo 2^32.
uint32_t OpCall::ToUint32(const Value& v, const std::string& where, bool enforce_range) const {
  if (!v.is_number()) Fail(where + " must be an integer, got " + v.KindName());
  const double d = v.number().d;
  if (enforce_range) {
    const double x = std::isfinite(d) ? std::trunc(d) : d;
    if (!std::isfinite(x) || x < 0 || x > 4294967295.0) {
      ThrowTypeError(op_ + ": " + where + " = " + v.number().text +
                     " is not an unsigned long ([EnforceRange])");
    }
    return static_cast<uint32_t>(x);
  }
  if (!std::isfinite(d)) return 0;
  const double m = std::fmod(std::trunc(d), 4294967296.0);  // exact; sign of d
  return static_cast<uint32_t>(m < 0 ? m + 4294967296.0 : m);
}

double OpCall::ToDouble(const Value& v, const std::string& where) const {
  if (v.is_number()) return v.number().d;
  if (v.is_string()) {
    if (auto n = NumberFromValue(v)) return n->AsDouble();
  }
  Fail(where + " must be a number, got " + v.KindName());
}

std::string OpCall::ToEnum(const Value& v, const std::string& where,
                           const std::vector<std::string>& allowed) const {
  if (!v.is_string()) Fail(where + " must be a string, got " + v.KindName());
  for (const std::string& a : allowed) {
    if (a == v.str()) return a;
  }
  std::string list;
  for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
  ThrowTypeError(op_ + ": " + where + " '" + v.str() + "' is not one of " + list);
}

uint32_t OpCall::GetUint32(size_t index, const char* param, bool enforce_range) const {
  return ToUint32(Required(index, param), std::string("argument '") + param + "'", enforce_range);
}

std::vector<uint32_t> OpCall::GetUint32List(size_t index, const char* param,
                                            bool enforce_range) const {
  const Value& v = Required(index, param);
  const std::string where = std::string("argument '") + param + "'";
  if (!v.is_array()) Fail(where + " must be an array of integers");
  std::vector<uint32_t> out;
  for (size_t i = 0; i < v.items().size(); ++i) {
    out.push_back(ToUint32(v.items()[i], where + "[" + std::to_string(i) + "]", enforce_range));
  }
  return out;
}

double OpCall::GetDouble(size_t index, const char* param) const {
  return ToDouble(Required(index, param), std::string("argument '") + param + "'");
}

std::optional<bool> OpCall::GetBoolOption(const Value& options, const char* member) const {
  const Value* v = options.Find(member);
  if (!v || v->is_null()) return std::nullopt;
  if (!v->is_bool()) Fail(std::string("options.") + member + " must be true or false");
  return v->boolean();
}

std::optional<double> OpCall::GetDoubleOption(const Value& options, const char* member) const {
  const Value* v = options.Find(member);
  if (!v || v->is_null()) return std::nullopt;
  return ToDouble(*v, std::string("options.") + member);
}

std::optional<uint32_t> OpCall::GetUint32Option(const Value& options, const char* member) const {
  const Value* v = options.Find(member);
  if (!v || v->is_null()) return std::nullopt;
  return ToUint32(*v, std::string("options.") + member);
}

std::optional<std::vector<uint32_t>> OpCall::GetUint32ListOption(const Value& options,
                                                                 const char* member) const {
  const Value* v = options.Find(member);
  if (!v || v->is_null()) return std::nullopt;
  const std::string where = std::string("options.") + member;
  if (!v->is_array()) Fail(where + " must be an array of integers");
  std::vector<uint32_t> out;
  for (size_t i = 0; i < v->items().size(); ++i) {
    out.push_back(ToUint32(v->items()[i], where + "[" + std::to_string(i) + "]"));
  }
  return out;
}

std::optional<std::string> OpCall::GetEnumOption(const Value& options, const char* member,
                                                 const std::vector<std::string>& allowed) const {
  const Value* v = options.Find(member);
  if (!v || v->is_null()) return std::nullopt;
  return ToEnum(*v, std::string("options.") + member, allowed);
}

std::optional<std::vector<std::string>> OpCall::GetEnumListOption(
    const Value& options, const char* member, const std::vector<std::string>& allowed) const {
  const Value* v = options.Find(member);
  if (!v || v->is_null()) return std::nullopt;
  const std::string where = std::string("options.") + member;
  if (!v->is_array()) Fail(where + " must be an array of strings");
  std::vector<std::string> out;
  for (size_t i = 0; i < v->items().size(); ++i) {
    out.push_back(ToEnum(v->items()[i], where + "[" + std::to_string(i) + "]", allowed));
  }
  return out;
}

std::optional<Operand> OpCall::GetOperandOption(const Value& options, const char* member) const {
  const Value* v = options.Find(member);
  if (!v || v->is_null()) return std::nullopt;
  return Resolve(*v, std::string("options.") + member);
}

std::optional<DataType> OpCall::GetDataTypeOption(const Value& options, const char* member) const {
  const Value* v = options.Find(member);
  if (!v || v->is_null()) return std::nullopt;
  if (!v->is_string()) Fail(std::string("options.") + member + " must be a data type name");
  const auto t = ParseDataType(v->str());
  if (!t) ThrowTypeError(op_ + ": '" + v->str() + "' is not an MLOperandDataType");
  return t;
}

std::optional<MLNumber> NumberFromValue(const Value& v) {
  if (v.is_number()) {
    const Number& n = v.number();
    if (n.i) return MLNumber::FromInt64(*n.i);
    if (n.u) return MLNumber::FromUint64(*n.u);
    return MLNumber::FromDouble(n.d);
  }
  if (!v.is_string()) return std::nullopt;
  std::string s = v.str();
  if (s == "NaN") return MLNumber::FromDouble(std::nan(""));
  if (s == "Infinity") return MLNumber::FromDouble(kInfinity);
  if (s == "-Infinity") return MLNumber::FromDouble(-kInfinity);
  if (s == "-0") return MLNumber::FromDouble(-0.0);
  if (!s.empty() && s.back() == 'n') s.pop_back();
  if (s.empty()) return std::nullopt;
  const bool neg = s[0] == '-';
  for (size_t i = neg ? 1 : 0; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
  }
  if (s.size() == (neg ? 1u : 0u)) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  if (neg) {
    const long long x = std::strtoll(s.c_str(), &end, 10);
    if (errno == ERANGE) return MLNumber::FromDouble(std::strtod(s.c_str(), nullptr));
    return MLNumber::FromInt64(x);
  }
  const unsigned long long x = std::strtoull(s.c_str(), &end, 10);
  if (errno == ERANGE) return MLNumber::FromDouble(std::strtod(s.c_str(), nullptr));
  return MLNumber::FromUint64(x);
}

}  // namespace nnref
