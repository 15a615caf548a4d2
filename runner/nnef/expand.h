// Expansion (chapter 6 step 3): evaluates the checked graph body, expanding every compound and
// document fragment down to primitive invocations (to any depth, with a recursion guard),
// evaluating compile-time expressions (lazy if-else, comprehensions, built-ins), checking each
// primitive's argument validity and propagating shapes. Produces the FlatGraph.
#pragma once

#include "runner/nnef/check.h"
#include "runner/nnef/parser.h"

namespace nnref::nnef {

inline constexpr const char* kStandardLibraryFile = "<standard library>";

// `doc` must have passed CheckDocument (which resolved every callee).
FlatGraph Expand(const Document& doc, const ParseOptions& options);

}  // namespace nnref::nnef
