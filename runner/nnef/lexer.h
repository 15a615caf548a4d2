// NNEF lexical elements (3.1): identifiers, keywords, numeric/string/logical literals, operators
// and syntactic characters, white space and # comments. Positions are 1-based line:column (column
// in bytes).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runner/nnef/error.h"

namespace nnref::nnef {

enum class Tok : unsigned char {
  kEnd,
  kIdentifier,
  kKeyword,  // text = the keyword
  kNumber,   // text = source text (no sign)
  kString,   // text = decoded value
  kLogical,  // text = "true" / "false"
  kPunct,    // operators and syntactic characters; text = the sequence ("<=", "->", "(", ...)
};

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;
  int line = 0;
  int column = 0;
  bool is_real = false;  // kNumber: has a '.' or an exponent (a scalar literal, not an integer)

  bool Is(Tok k, std::string_view t) const { return kind == k && text == t; }
  bool IsPunct(std::string_view t) const { return Is(Tok::kPunct, t); }
  bool IsKeyword(std::string_view t) const { return Is(Tok::kKeyword, t); }
};

// Splits `text` into tokens (ending with one kEnd token). Throws NnefError(kParse) at the first
// character that starts no lexical element, an unterminated or ill-formed string literal, or a
// malformed numeric literal.
std::vector<Token> Tokenize(std::string_view text, const std::string& file);

bool IsKeyword(std::string_view word);

// "identifier 'x'", "keyword 'graph'", "numeric literal 1.5", "end of file", ... for messages.
std::string Describe(const Token& t);

}  // namespace nnref::nnef
