#include "runner/nnef/lexer.h"

#include <array>

namespace nnref::nnef {
namespace {

constexpr std::array<std::string_view, 17> kKeywords = {
    "version", "extension", "graph",  "fragment", "tensor",    "integer",
    "scalar",  "logical",   "string", "shape_of", "length_of", "range_of",
    "for",     "in",        "yield",  "if",       "else"};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentStart(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c); }

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& file) : s_(text), file_(file) {}

  std::vector<Token> Run() {
    std::vector<Token> out;
    for (;;) {
      SkipSpaceAndComments();
      Token t;
      t.line = line_;
      t.column = Column();
      if (i_ >= s_.size()) {
        out.push_back(t);
        return out;
      }
      char c = s_[i_];
      if (IsIdentStart(c)) {
        size_t b = i_;
        while (i_ < s_.size() && IsIdentChar(s_[i_])) ++i_;
        t.text = std::string(s_.substr(b, i_ - b));
        if (t.text == "true" || t.text == "false") {
          t.kind = Tok::kLogical;
        } else {
          t.kind = IsKeyword(t.text) ? Tok::kKeyword : Tok::kIdentifier;
        }
      } else if (IsDigit(c)) {
        LexNumber(t);
      } else if (c == '\'' || c == '"') {
        LexString(t);
      } else {
        LexPunct(t);
      }
      out.push_back(std::move(t));
    }
  }

 private:
  int Column() const { return static_cast<int>(i_ - line_start_) + 1; }

  [[noreturn]] void Fail(int line, int column, const std::string& msg, const std::string& rule) {
    throw NnefError(Stage::kParse, SourcePos{file_, line, column}, msg, rule);
  }

  void NewLine() {
    ++line_;
    line_start_ = i_;
  }

  // White space (3.1): space, horizontal tab, vertical tab, form feed, new-line. A carriage
  // return is accepted as part of a CR-LF line ending. Comments run from # to the end of the line
  // (new line or form feed).
  void SkipSpaceAndComments() {
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (c == '\n') {
        ++i_;
        NewLine();
      } else if (c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r') {
        ++i_;
      } else if (c == '#') {
        while (i_ < s_.size() && s_[i_] != '\n' && s_[i_] != '\f') ++i_;
      } else {
        return;
      }
    }
  }

  // <numeric-literal>: integer part, optional '.' and fractional part, optional e/E and an
  // optionally signed integer exponent; every part a non-empty digit sequence.
  void LexNumber(Token& t) {
    size_t b = i_;
    while (i_ < s_.size() && IsDigit(s_[i_])) ++i_;
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      if (i_ >= s_.size() || !IsDigit(s_[i_])) {
        Fail(line_, Column(), "a numeric literal needs digits after the decimal point",
             "3.1 <numeric-literal>");
      }
      while (i_ < s_.size() && IsDigit(s_[i_])) ++i_;
      t.is_real = true;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (i_ >= s_.size() || !IsDigit(s_[i_])) {
        Fail(line_, Column(), "a numeric literal needs digits in its exponent",
             "3.1 <numeric-literal>");
      }
      while (i_ < s_.size() && IsDigit(s_[i_])) ++i_;
      t.is_real = true;
    }
    if (i_ < s_.size() && IsIdentChar(s_[i_])) {
      Fail(line_, Column(),
           "unexpected character '" + std::string(1, s_[i_]) + "' after a numeric literal",
           "3.1 <numeric-literal>");
    }
    t.kind = Tok::kNumber;
    t.text = std::string(s_.substr(b, i_ - b));
  }

  // <string-literal>: printable ASCII between matching ' or " quotes; the start quote and the
  // backslash must be escaped with a backslash.
  void LexString(Token& t) {
    char quote = s_[i_++];
    std::string v;
    for (;;) {
      if (i_ >= s_.size()) {
        Fail(t.line, t.column, "unterminated string literal", "3.1 <string-literal>");
      }
      char c = s_[i_];
      if (c == quote) {
        ++i_;
        break;
      }
      if (c == '\\') {
        if (i_ + 1 < s_.size() && (s_[i_ + 1] == quote || s_[i_ + 1] == '\\')) {
          v.push_back(s_[i_ + 1]);
          i_ += 2;
          continue;
        }
        Fail(line_, Column(),
             "a backslash in a string literal must escape the start quote or a backslash",
             "3.1 <string-literal>");
      }
      auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || u > 0x7E) {
        Fail(line_, Column(),
             u == '\n'
                 ? std::string("unterminated string literal (new line inside)")
                 : "character " + std::to_string(u) + " in a string literal is not printable ASCII",
             "3.1 <string-literal>");
      }
      v.push_back(c);
      ++i_;
    }
    t.kind = Tok::kString;
    t.text = std::move(v);
  }

  void LexPunct(Token& t) {
    static constexpr std::array<std::string_view, 7> kTwo = {
        "<=", ">=", "==", "!=", "&&", "||", "->"};
    static constexpr std::string_view kOne = "+-*/^<>!(){}[]:=,;?";
    std::string_view rest = s_.substr(i_);
    for (std::string_view two : kTwo) {
      if (rest.substr(0, 2) == two) {
        t.kind = Tok::kPunct;
        t.text = std::string(two);
        i_ += 2;
        return;
      }
    }
    if (kOne.find(s_[i_]) != std::string_view::npos) {
      t.kind = Tok::kPunct;
      t.text = std::string(1, s_[i_]);
      ++i_;
      return;
    }
    if (s_[i_] == '&' || s_[i_] == '|') {
      Fail(line_, Column(),
           "'" + std::string(1, s_[i_]) + "' is not an operator (did you mean '" +
               std::string(2, s_[i_]) + "'?)",
           "3.1 <operator>");
    }
    auto u = static_cast<unsigned char>(s_[i_]);
    // Built with append: GCC 12 reports a false -Wrestrict for "'" + std::string(1, c) here.
    std::string shown = std::string("byte ").append(std::to_string(u));
    if (u >= 0x21 && u <= 0x7E) shown = std::string(1, '\'').append(1, s_[i_]).append(1, '\'');
    Fail(line_, Column(), "unexpected character " + shown, "3.1 lexical elements");
  }

  std::string_view s_;
  const std::string& file_;
  size_t i_ = 0;
  size_t line_start_ = 0;
  int line_ = 1;
};

}  // namespace

bool IsKeyword(std::string_view word) {
  for (std::string_view k : kKeywords) {
    if (k == word) return true;
  }
  return false;
}

std::vector<Token> Tokenize(std::string_view text, const std::string& file) {
  return Lexer(text, file).Run();
}

std::string Describe(const Token& t) {
  switch (t.kind) {
    case Tok::kEnd:
      return "end of file";
    case Tok::kIdentifier:
      return "identifier '" + t.text + "'";
    case Tok::kKeyword:
      return "keyword '" + t.text + "'";
    case Tok::kNumber:
      return "numeric literal " + t.text;
    case Tok::kString:
      return "string literal '" + t.text + "'";
    case Tok::kLogical:
      return "logical literal " + t.text;
    case Tok::kPunct:
      return "'" + t.text + "'";
  }
  return "token";
}

}  // namespace nnref::nnef
