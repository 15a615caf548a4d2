// The type relations of NNEF 1.0.2 section 3.3.1 used by the checker (check.cc); internal to
// runner/nnef. Castable and Substitute are public (check.h).
#pragma once

#include <optional>
#include <set>
#include <string>

#include "runner/nnef/ast.h"

namespace nnref::nnef {

// Declaration-time castability: additionally any primitive casts to '?', and any bound tensor
// (or primitive) to tensor<?> (3.3.1 Type Casting).
bool CastableDecl(const Type& from, const Type& to);
// The type both cast to (one of the two), if any.
std::optional<Type> CommonType(const Type& a, const Type& b);
// Collects the candidate values of '?' from matching an argument type against a parameter type.
void Deduce(const Type& param, const Type& arg, std::set<Prim>* out);
bool IsTensorOnly(const Type& t);
// 3.3.1: tuples must not contain both tensor and non-tensor item types; the offending tuple.
const Type* MixedTuple(const Type& t);
// The fragment an operator expression invokes ("+" -> "add"; unary "-" -> "neg"), or nullptr.
const char* OperatorFragment(const std::string& op, bool unary);
bool IsNumeric(const Type& t);
bool IsArrayLike(const Type& t);

}  // namespace nnref::nnef
