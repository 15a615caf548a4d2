// Errors of the NNEF front end. Every rejection of a model (syntax, chapter-6 validity, operation
// argument validity, tensor files, quantization files, execution) is an NnefError that carries the
// stage, the file and 1-based line:column of the offending construct (0 when there is no position,
// e.g. a binary file), and the rule broken (with its spec section).
#pragma once

#include <string>
#include <string_view>

#include "ref/error.h"

namespace nnref::nnef {

enum class Stage : unsigned char {
  kParse,       // chapter 6 step 1: syntax (lexical or grammar error)
  kValidate,    // chapter 6 steps 2-3: semantics, types, identifier usage, operation arguments
  kTensorFile,  // chapter 5.2 (and 6 step 4: stored shape conflicts with the graph)
  kQuantFile,   // chapter 5.3 / 7
  kExecute,     // run time (missing input data, ...)
};

// "parse", "validate", "tensor-file", "quant-file", "execute" (the case.json expectedError names).
std::string_view StageName(Stage s);

struct SourcePos {
  std::string file;
  int line = 0;    // 1-based; 0 = no position
  int column = 0;  // 1-based
};

class NnefError : public InputError {
 public:
  // what() is "FILE:LINE:COL: STAGE error: MESSAGE [RULE]" (position parts omitted when unknown).
  NnefError(Stage stage, SourcePos pos, std::string message, std::string rule = {});
  Stage stage() const { return stage_; }
  const SourcePos& pos() const { return pos_; }
  const std::string& message() const { return message_; }
  const std::string& rule() const { return rule_; }

 private:
  Stage stage_;
  SourcePos pos_;
  std::string message_;
  std::string rule_;
};

}  // namespace nnref::nnef
