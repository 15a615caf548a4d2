// Identity of the NNEF 1.0.2 operations the front end treats by name (runner/nnef/nnef_ops.inc,
// the one list): an operation's name is parsed once, when the standard library is loaded
// (Fragment::id, ast.h), and carried by every invocation (Invocation::id, CompoundInstance::id,
// ir.h); shape rules, lowering and checks compare or switch on the enum. Names are strings only
// where NNEF text is parsed or printed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace nnref::nnef {

// One enumerator per line of nnef_ops.inc, in its order.
enum class NnefOp : uint8_t {
#define NNREF_NNEF_OPERATION(id, ...) id,
#include "runner/nnef/nnef_ops.inc"
#undef NNREF_NNEF_OPERATION
};

inline constexpr size_t kNnefOpCount = 0
#define NNREF_NNEF_OPERATION(...) +1
#include "runner/nnef/nnef_ops.inc"
#undef NNREF_NNEF_OPERATION
    ;

// The chapter-4 group an operation belongs to (the last column of nnef_ops.inc).
enum class NnefFamily : uint8_t {
  kIntroduce,    // 4.1 external, constant, variable
  kElementwise,  // 4.2 unary, binary, select
  kWindow,       // 4.3 sliding windows, multilinear_upsample
  kReduce,       // 4.4
  kShape,        // 4.5
  kRoi,          // 4.6
  kMatmul,       // 4.7
  kUpdate,       // 4.8
  kCompound,     // 4.9 standard compounds recorded for atomic execution
};

// The NNEF name ("argmax_pool").
std::string_view NnefOpName(NnefOp op);
// The operation of an NNEF name (exact spelling); nullopt for any other string.
std::optional<NnefOp> ParseNnefOp(std::string_view name);
// The NNEF 1.0.2 section that defines the operation ("4.3.3").
std::string_view NnefOpSection(NnefOp op);
NnefFamily NnefOpFamily(NnefOp op);
// The rule prefix of the operation's messages: section and name ("4.3.3 argmax_pool").
std::string NnefRule(NnefOp op);

}  // namespace nnref::nnef
