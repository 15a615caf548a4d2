// Syntactic parsing (chapter 6 step 1): tokens -> Document (ast.h). Enforces the grammar of
// chapter 3 / appendix A, including the flat subset when the document does not enable
// KHR_enable_fragment_definitions / KHR_enable_operator_expressions.
#pragma once

#include <string>
#include <string_view>

#include "runner/nnef/ast.h"

namespace nnref::nnef {

inline constexpr int kMaxSyntaxDepth = 200;  // nesting of expressions, types and lvalues

// A whole document: <version> <extension>* <fragment-definition>* <graph-definition>.
// `strict`: the pure 1.0.2 grammar. Otherwise an extension list may also separate its names by
// commas, as the NNEF-Tools parser and converters do (recorded in Document::warnings).
Document ParseSyntax(std::string_view text, const std::string& file, bool strict = false);

// A fragment library (the built-in standard fragments): <fragment-definition>* only, with both
// extensions enabled.
Document ParseLibrary(std::string_view text, const std::string& file);

}  // namespace nnref::nnef
