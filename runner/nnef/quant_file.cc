// NNEF quantization files (chapter 5.3) and the checking of the quantization algorithms they name
// (chapters 4.9.5 and 7). See quant_file.h for the syntax accepted; the arithmetic of the
// algorithms is ops/nnef_quantize.h.
#include "runner/nnef/quant_file.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include "numerics/cast.h"

namespace nnref::nnef {

namespace {

constexpr const char* kRule = "NNEF 1.0.2 section 5.3";

[[noreturn]] void Fail(const SourcePos& pos, const std::string& message, const char* rule = kRule) {
  throw NnefError(Stage::kQuantFile, pos, message, rule);
}

struct Token {
  enum class Kind : uint8_t { kEnd, kString, kIdentifier, kNumber, kPunct } kind = Kind::kEnd;
  std::string text;
  SourcePos pos;
};

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  Token Next() {
    SkipSpaceAndComments();
    Token t;
    t.pos = {file_, line_, column_};
    if (at_ >= text_.size()) return t;
    const char c = text_[at_];
    if (c == '\'' || c == '"') {
      Advance();
      std::string s;
      while (at_ < text_.size() && text_[at_] != c) {
        if (text_[at_] == '\n') Fail(t.pos, "unterminated string literal");
        s += text_[at_];
        Advance();
      }
      if (at_ >= text_.size()) Fail(t.pos, "unterminated string literal");
      Advance();
      t.kind = Token::Kind::kString;
      t.text = std::move(s);
      return t;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (at_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_')) {
        t.text += text_[at_];
        Advance();
      }
      t.kind = Token::Kind::kIdentifier;
      return t;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      t.kind = Token::Kind::kNumber;
      TakeDigits(t.text);
      if (Peek() == '.') {
        t.text += '.';
        Advance();
        TakeDigits(t.text);
      }
      if (Peek() == 'e' || Peek() == 'E') {
        t.text += 'e';
        Advance();
        if (Peek() == '+' || Peek() == '-') {
          t.text += Peek();
          Advance();
        }
        if (!std::isdigit(static_cast<unsigned char>(Peek()))) {
          Fail({file_, line_, column_}, "malformed numeric literal: exponent without digits");
        }
        TakeDigits(t.text);
      }
      return t;
    }
    static const std::string kPunct = ":()=,;[]-+";
    if (kPunct.find(c) != std::string::npos) {
      t.kind = Token::Kind::kPunct;
      t.text = std::string(1, c);
      Advance();
      return t;
    }
    Fail(t.pos, std::string("unexpected character '") + c + "'");
  }

 private:
  char Peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }
  void Advance() {
    if (text_[at_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++at_;
  }
  void TakeDigits(std::string& out) {
    while (std::isdigit(static_cast<unsigned char>(Peek()))) {
      out += Peek();
      Advance();
    }
  }
  void SkipSpaceAndComments() {
    while (at_ < text_.size()) {
      const char c = text_[at_];
      if (c == '#') {
        while (at_ < text_.size() && text_[at_] != '\n') Advance();
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        Advance();
      } else {
        return;
      }
    }
  }

  std::string_view text_;
  std::string file_;
  size_t at_ = 0;
  int line_ = 1;
  int column_ = 1;
};

class Parser {
 public:
  Parser(std::string_view text, const std::string& file) : lex_(text, file) { Shift(); }

  QuantFile Parse(const std::string& file) {
    QuantFile q;
    q.file = file;
    while (tok_.kind != Token::Kind::kEnd) {
      QuantEntry e;
      if (tok_.kind != Token::Kind::kString) {
        Fail(tok_.pos, "expected a quoted tensor identifier, found " + Describe(tok_));
      }
      e.tensor = tok_.text;
      e.pos = tok_.pos;
      if (e.tensor.empty()) Fail(tok_.pos, "empty tensor identifier");
      if (q.Find(e.tensor) != nullptr) {
        Fail(tok_.pos, "tensor '" + e.tensor + "' is given a quantization more than once");
      }
      Shift();
      Expect(":");
      if (tok_.kind != Token::Kind::kIdentifier) {
        Fail(tok_.pos, "expected a quantization algorithm name, found " + Describe(tok_));
      }
      e.algorithm.name = tok_.text;
      e.algorithm.pos = tok_.pos;
      Shift();
      Expect("(");
      if (!IsPunct(")")) {
        while (true) {
          if (tok_.kind != Token::Kind::kIdentifier) {
            Fail(tok_.pos,
                 "expected a named argument (name = value), found " + Describe(tok_) +
                     "; the tensor itself is not an argument and all others must be named");
          }
          NamedValue nv;
          nv.name = tok_.text;
          const SourcePos at = tok_.pos;
          if (e.algorithm.Arg(nv.name) != nullptr) {
            Fail(at, "argument '" + nv.name + "' given more than once");
          }
          Shift();
          if (!IsPunct("=")) {
            Fail(at, "expected a named argument (name = value), found '" + nv.name +
                         "' without '='; the tensor itself is not an argument and all others "
                         "must be named");
          }
          Shift();
          nv.value = Value();
          e.algorithm.args.push_back(std::move(nv));
          if (IsPunct(",")) {
            Shift();
            continue;
          }
          break;
        }
      }
      Expect(")");
      Expect(";");
      q.entries.push_back(std::move(e));
    }
    return q;
  }

 private:
  void Shift() { tok_ = lex_.Next(); }
  bool IsPunct(const char* p) const { return tok_.kind == Token::Kind::kPunct && tok_.text == p; }
  static std::string Describe(const Token& t) {
    switch (t.kind) {
      case Token::Kind::kEnd:
        return "the end of the file";
      case Token::Kind::kString:
        return "string '" + t.text + "'";
      default:
        return "'" + t.text + "'";
    }
  }
  void Expect(const char* p) {
    if (!IsPunct(p)) Fail(tok_.pos, std::string("expected '") + p + "', found " + Describe(tok_));
    Shift();
  }

  // A compile-time literal value: a number (optionally signed), true/false, a string, an array
  // [v, ...] or a tuple (v, v, ...).
  ArgValue Value() {
    if (IsPunct("-") || IsPunct("+")) {
      const bool negative = tok_.text == "-";
      Shift();
      if (tok_.kind != Token::Kind::kNumber) {
        Fail(tok_.pos, "expected a number after the sign, found " + Describe(tok_));
      }
      return Number(negative);
    }
    if (tok_.kind == Token::Kind::kNumber) return Number(false);
    if (tok_.kind == Token::Kind::kString) {
      ArgValue v = ArgValue::String(tok_.text);
      Shift();
      return v;
    }
    if (tok_.kind == Token::Kind::kIdentifier && (tok_.text == "true" || tok_.text == "false")) {
      ArgValue v = ArgValue::Logical(tok_.text == "true");
      Shift();
      return v;
    }
    if (IsPunct("[") || IsPunct("(")) {
      const bool array = tok_.text == "[";
      const SourcePos at = tok_.pos;
      Shift();
      std::vector<ArgValue> items;
      const char* close = array ? "]" : ")";
      if (!IsPunct(close)) {
        while (true) {
          items.push_back(Value());
          if (IsPunct(",")) {
            Shift();
            continue;
          }
          break;
        }
      }
      Expect(close);
      if (!array && items.size() < 2) Fail(at, "a tuple needs at least two items");
      return array ? ArgValue::Array(std::move(items)) : ArgValue::Tuple(std::move(items));
    }
    if (tok_.kind == Token::Kind::kIdentifier) {
      Fail(tok_.pos, "'" + tok_.text +
                         "' is not a literal; quantization arguments must be compile-time "
                         "literals, not identifiers");
    }
    Fail(tok_.pos, "expected a literal value, found " + Describe(tok_));
  }

  ArgValue Number(bool negative) {
    const std::string text = (negative ? "-" : "") + tok_.text;
    const SourcePos at = tok_.pos;
    Shift();
    if (text.find_first_of(".e") == std::string::npos) {
      errno = 0;
      const long long v = std::strtoll(text.c_str(), nullptr, 10);
      if (errno == ERANGE) Fail(at, "integer literal " + text + " does not fit 64 bits");
      return ArgValue::Integer(v);
    }
    return ArgValue::Scalar(std::strtod(text.c_str(), nullptr), text);
  }

  Lexer lex_;
  Token tok_;
};

}  // namespace

const ArgValue* QuantAlgorithm::Arg(std::string_view arg) const {
  for (const NamedValue& nv : args) {
    if (nv.name == arg) return &nv.value;
  }
  return nullptr;
}

std::string QuantAlgorithm::ToString() const {
  std::string s = name + "(";
  for (size_t k = 0; k < args.size(); ++k) {
    if (k > 0) s += ", ";
    s += args[k].name + " = " + args[k].value.ToString();
  }
  return s + ")";
}

const QuantEntry* QuantFile::Find(std::string_view tensor) const {
  for (const QuantEntry& e : entries) {
    if (e.tensor == tensor) return &e;
  }
  return nullptr;
}

QuantFile ParseQuantFile(std::string_view text, const std::string& file) {
  Parser p(text, file);
  return p.Parse(file);
}

QuantFile ReadQuantFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail({path, 0, 0}, "cannot open the quantization file");
  std::ostringstream s;
  s << in.rdbuf();
  return ParseQuantFile(s.str(), path);
}

namespace {

float ScalarArg(const QuantAlgorithm& a, const char* name) {
  const ArgValue* v = a.Arg(name);
  if (v == nullptr) {
    Fail(a.pos, a.name + ": missing argument '" + name + "'", "NNEF 1.0.2 section 4.9.5");
  }
  if (v->kind == ArgValue::Kind::kInteger) return CastElement<float>(v->i).value;
  if (v->kind != ArgValue::Kind::kScalar) {
    Fail(a.pos, a.name + ": argument '" + name + "' must be a scalar, not " + v->ToString());
  }
  if (!v->text.empty()) return std::strtof(v->text.c_str(), nullptr);  // one rounding
  return RoundTo<float>(v->s);
}

int64_t IntegerArg(const QuantAlgorithm& a, const char* name) {
  const ArgValue* v = a.Arg(name);
  if (v == nullptr) {
    Fail(a.pos, a.name + ": missing argument '" + name + "'", "NNEF 1.0.2 section 4.9.5");
  }
  if (v->kind != ArgValue::Kind::kInteger) {
    Fail(a.pos, a.name + ": argument '" + name + "' must be an integer, not " + v->ToString());
  }
  return v->i;
}

bool LogicalArg(const QuantAlgorithm& a, const char* name) {
  const ArgValue* v = a.Arg(name);
  if (v == nullptr) Fail(a.pos, a.name + ": missing argument '" + name + "'");
  if (v->kind != ArgValue::Kind::kLogical) {
    Fail(a.pos, a.name + ": argument '" + name + "' must be true or false, not " + v->ToString());
  }
  return v->b;
}

void OnlyArgs(const QuantAlgorithm& a, std::initializer_list<std::string_view> allowed) {
  for (const NamedValue& nv : a.args) {
    bool ok = false;
    for (std::string_view s : allowed) ok = ok || nv.name == s;
    if (!ok) {
      std::string list;
      for (std::string_view s : allowed) list += (list.empty() ? "" : ", ") + std::string(s);
      Fail(a.pos, a.name + ": unknown argument '" + nv.name + "' (parameters: " + list + ")");
    }
  }
}

}  // namespace

Quantizer MakeQuantizer(const QuantAlgorithm& a) {
  Quantizer q;
  const auto check_bits = [&](int64_t hi) {
    q.bits = IntegerArg(a, "bits");
    if (q.bits < 1 || q.bits > hi) {
      Fail(a.pos,
           a.name + ": bits = " + std::to_string(q.bits) + " is outside 1.." + std::to_string(hi));
    }
  };
  const auto check_range = [&]() {
    q.min = static_cast<double>(ScalarArg(a, "min"));
    q.max = static_cast<double>(ScalarArg(a, "max"));
    if (!std::isfinite(q.min) || !std::isfinite(q.max) || !(q.min < q.max)) {
      Fail(a.pos, a.name + ": needs finite min < max (min = " + a.Arg("min")->ToString() +
                      ", max = " + a.Arg("max")->ToString() + ")");
    }
  };
  if (a.name == "linear_quantize") {
    OnlyArgs(a, {"min", "max", "bits"});
    q.kind = Quantizer::Kind::kLinear;
    check_bits(32);
    check_range();
  } else if (a.name == "logarithmic_quantize") {
    OnlyArgs(a, {"max", "bits"});
    q.kind = Quantizer::Kind::kLogarithmic;
    check_bits(62);
    q.max = static_cast<double>(ScalarArg(a, "max"));
    if (!std::isfinite(q.max) || !(q.max > 0)) {
      Fail(a.pos, a.name + ": max must be positive and finite");
    }
  } else if (a.name == "zero_point_linear_quantize") {
    OnlyArgs(a, {"zero_point", "scale", "bits", "signed", "symmetric"});
    q.kind = Quantizer::Kind::kZeroPointLinear;
    check_bits(32);
    q.zero_point = IntegerArg(a, "zero_point");
    q.scale = static_cast<double>(ScalarArg(a, "scale"));
    q.is_signed = LogicalArg(a, "signed");
    q.symmetric = LogicalArg(a, "symmetric");
    if (!std::isfinite(q.scale) || !(q.scale > 0)) {
      Fail(a.pos, a.name + ": scale must be positive and finite");
    }
    if (q.zero_point < -(int64_t{1} << 32) || q.zero_point > (int64_t{1} << 32)) {
      Fail(a.pos, a.name + ": zero_point " + std::to_string(q.zero_point) + " is out of range");
    }
  } else if (a.name == "min_max_linear_quantize") {
    OnlyArgs(a, {"min", "max", "bits", "signed", "symmetric"});
    q.kind = Quantizer::Kind::kMinMaxLinear;
    check_bits(32);
    check_range();
    q.is_signed = LogicalArg(a, "signed");
    q.symmetric = LogicalArg(a, "symmetric");
    if (q.is_signed && q.symmetric && q.bits < 2) {
      Fail(a.pos, a.name + ": signed symmetric quantization needs at least 2 bits");
    }
  } else {
    Fail(a.pos,
         "unknown quantization algorithm '" + a.name +
             "' (supported: linear_quantize, logarithmic_quantize, zero_point_linear_quantize, "
             "min_max_linear_quantize)",
         "NNEF 1.0.2 section 7.1");
  }
  return q;
}

}  // namespace nnref::nnef
