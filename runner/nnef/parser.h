// NNEF 1.0.2 structure description (chapter 3) -> FlatGraph (ir.h). Parses, type checks and
// validates (chapter 6 steps 1-3), expands every compound fragment of the standard library and
// every fragment of the document down to primitives, and propagates shapes. Any rejection is an
// NnefError with file:line:column and the rule broken.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "runner/nnef/ir.h"

namespace nnref::nnef {

struct ParseOptions {
  int max_expansion_depth = 200;                 // nested fragment invocations (recursion guard)
  int64_t max_operations = 1 << 20;              // primitive invocations in the flattened graph
  int64_t max_tensor_volume = int64_t{1} << 40;  // hostile extents are rejected above this
  int64_t max_array_length = 1 << 20;  // compile-time arrays and strings ([x] * n, 'a' * n)
  // The pure 1.0.2 grammar: reject the forms accepted for NNEF-Tools interoperability (a
  // comma-separated extension list; docs/nnef-parser.md "Interoperability").
  bool strict = false;
};

// `text` is the document; `file` names it in error messages.
FlatGraph ParseDocument(std::string_view text, const std::string& file,
                        const ParseOptions& options = {});

// `path` is a graph.nnef file or a model folder containing graph.nnef.
FlatGraph ParseModel(const std::string& path, const ParseOptions& options = {});

}  // namespace nnref::nnef
