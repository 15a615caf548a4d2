// Semantic analysis (chapter 6 step 2): fragment declarations, invocation argument structure,
// type agreement (3.3.1) and identifier usage (3.3.2) for every fragment body and the graph body.
// Annotates the syntax tree (Expr::type, callee, binding, arg_param) for the expander.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "runner/nnef/ast.h"

namespace nnref::nnef {

using FragmentTable = std::map<std::string, const Fragment*, std::less<>>;

// Type relations of 3.3.1 (after the generic type has been substituted).
bool Castable(const Type& from, const Type& to);
// `t` with every '?' replaced by `binding` (kNone leaves it unchanged).
Type Substitute(const Type& t, Prim binding);

// Checks `doc` (its fragments, then its graph if any). `standard` holds the fragments visible in
// addition to the document's own (empty when checking the standard library itself). Fills
// `table` with every visible fragment. Warnings (deprecated forms) go to `warnings` as
// "file:line:col: warning: ...". Throws NnefError(kValidate).
void CheckDocument(Document& doc, const FragmentTable& standard, FragmentTable* table,
                   std::vector<std::string>* warnings);

}  // namespace nnref::nnef
