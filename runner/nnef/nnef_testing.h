// Helpers shared by the NNEF parser tests (test code only).
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "runner/nnef/parser.h"

namespace nnref::nnef::testing {

inline constexpr const char* kBothExtensions =
    "extension KHR_enable_fragment_definitions KHR_enable_operator_expressions;\n";

inline FlatGraph Parse(std::string_view text) { return ParseDocument(text, "t.nnef"); }

// A compositional document: both extensions, `fragments`, then `graph G( x ) -> ( RESULTS )`
// with `x = external(shape = SHAPE);` followed by `body`.
inline std::string Doc(const std::string& body, const std::string& results = "y",
                       const std::string& fragments = "",
                       const std::string& shape = "[1, 2, 4, 4]") {
  return std::string("version 1.0;\n") + kBothExtensions + fragments + "\ngraph G( x ) -> ( " +
         results + " )\n{\n    x = external(shape = " + shape + ");\n" + body + "\n}\n";
}

// The error `text` is rejected with; fails the test when it is accepted.
inline NnefError ErrorOf(std::string_view text) {
  try {
    (void)Parse(text);
  } catch (const NnefError& e) {
    return e;
  }
  FAIL("document accepted: " << text);
  return NnefError(Stage::kExecute, {}, "accepted");
}

// The graph body lines of the flattened graph (between the braces), one string per line.
inline std::vector<std::string> BodyLines(const FlatGraph& g) {
  std::string s = g.ToString();
  std::vector<std::string> lines;
  size_t open = s.find("{\n");
  size_t close = s.rfind("}");
  size_t i = open + 2;
  while (i < close) {
    size_t nl = s.find('\n', i);
    std::string line = s.substr(i, nl - i);
    size_t b = line.find_first_not_of(' ');
    lines.push_back(b == std::string::npos ? "" : line.substr(b));
    i = nl + 1;
  }
  return lines;
}

}  // namespace nnref::nnef::testing
