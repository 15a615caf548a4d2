#include "runner/json.h"

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ref/error.h"

namespace nnref {

namespace {

// Builds a Value tree from SAX events.
class TreeBuilder final : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit TreeBuilder(std::string source, const std::string& text)
      : source_(std::move(source)), text_(text) {}

  bool null() override { return Put(Value()); }
  bool boolean(bool b) override { return Put(Value::Bool(b)); }
  bool number_integer(number_integer_t v) override {
    Number n;
    n.d = static_cast<double>(v);
    n.i = v;
    if (v >= 0) n.u = static_cast<uint64_t>(v);
    n.text = std::to_string(v);
    return Put(Value::Num(std::move(n)));
  }
  bool number_unsigned(number_unsigned_t v) override {
    Number n;
    n.d = static_cast<double>(v);
    n.u = v;
    if (v <= static_cast<uint64_t>(INT64_MAX)) n.i = static_cast<int64_t>(v);
    n.text = std::to_string(v);
    return Put(Value::Num(std::move(n)));
  }
  bool number_float(number_float_t v, const string_t& s) override {
    Number n;
    n.d = v;
    n.text = s;
    // Integral values written with an exponent or beyond 64 bits stay doubles; "-0" etc. too.
    return Put(Value::Num(std::move(n)));
  }
  bool string(string_t& s) override { return Put(Value::Str(s)); }
  bool binary(binary_t&) override { return false; }
  bool start_object(std::size_t) override {
    CheckDepth();
    stack_.push_back(Value::Object());
    return true;
  }
  bool key(string_t& k) override {
    keys_.push_back(k);
    return true;
  }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override {
    CheckDepth();
    stack_.push_back(Value::Array());
    return true;
  }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    // Translate the byte offset into line and column.
    size_t line = 1, col = 1;
    for (size_t i = 0; i < position && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    std::string what = ex.what();
    const size_t p = what.find("syntax error");
    if (p != std::string::npos) what = what.substr(p);
    throw InputError(source_ + ": malformed JSON at line " + std::to_string(line) + ", column " +
                     std::to_string(col) + ": " + what);
  }

  Value Take() { return std::move(root_); }

 private:
  // Case files nest a handful of levels; a hostile depth would only exhaust the stack later.
  void CheckDepth() const {
    if (stack_.size() >= 200) throw InputError(source_ + ": JSON nested deeper than 200 levels");
  }
  bool Put(Value v) {
    if (stack_.empty()) {
      root_ = std::move(v);
    } else if (stack_.back().is_array()) {
      stack_.back().items().push_back(std::move(v));
    } else {
      stack_.back().members().emplace_back(std::move(keys_.back()), std::move(v));
      keys_.pop_back();
    }
    return true;
  }
  bool Close() {
    Value v = std::move(stack_.back());
    stack_.pop_back();
    return Put(std::move(v));
  }

  std::string source_;
  const std::string& text_;
  std::vector<Value> stack_;
  std::vector<std::string> keys_;
  Value root_;
};

void Write(const Value& v, int indent, int depth, std::string& out) {
  const auto newline = [&](int d) {
    if (indent < 0) return;
    out += '\n';
    out.append(static_cast<size_t>(indent) * static_cast<size_t>(d), ' ');
  };
  switch (v.kind()) {
    case Value::Kind::kNull:
      out += "null";
      break;
    case Value::Kind::kBool:
      out += v.boolean() ? "true" : "false";
      break;
    case Value::Kind::kNumber: {
      const Number& n = v.number();
      if (!n.text.empty()) {
        out += n.text;
      } else if (std::isfinite(n.d)) {
        std::ostringstream os;
        os.precision(17);
        os << n.d;
        out += os.str();
      } else {
        out += "null";
      }
      break;
    }
    case Value::Kind::kString:
      out += JsonQuote(v.str());
      break;
    case Value::Kind::kArray: {
      // Arrays of scalars stay on one line: tensor data is easier to read that way.
      bool flat = true;
      for (const Value& e : v.items()) flat = flat && !e.is_array() && !e.is_object();
      out += '[';
      for (size_t i = 0; i < v.items().size(); ++i) {
        if (i) out += flat ? ", " : ",";
        if (!flat) newline(depth + 1);
        Write(v.items()[i], indent, depth + 1, out);
      }
      if (!flat && !v.items().empty()) newline(depth);
      out += ']';
      break;
    }
    case Value::Kind::kObject: {
      out += '{';
      for (size_t i = 0; i < v.members().size(); ++i) {
        if (i) out += ',';
        newline(depth + 1);
        out += JsonQuote(v.members()[i].first);
        out += indent < 0 ? ":" : ": ";
        Write(v.members()[i].second, indent, depth + 1, out);
      }
      if (!v.members().empty()) newline(depth);
      out += '}';
      break;
    }
  }
}

}  // namespace

Value ParseJson(const std::string& text, const std::string& source) {
  TreeBuilder builder(source, text);
  const bool ok = nlohmann::json::sax_parse(text, &builder);
  if (!ok) throw InputError(source + ": malformed JSON");
  return builder.Take();
}

Value ReadJsonFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open the file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ParseJson(ss.str(), path);
}

std::string WriteJson(const Value& v, int indent) {
  std::string out;
  Write(v, indent, 0, out);
  return out;
}

Value NumberValue(const std::string& text) {
  Number n;
  n.text = text;
  n.d = std::strtod(text.c_str(), nullptr);
  return Value::Num(std::move(n));
}

std::string JsonQuote(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

}  // namespace nnref
