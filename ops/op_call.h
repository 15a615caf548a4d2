// Decoding one operator call from a front end (case files) into typed builder-method arguments.
// Positional arguments arrive as (key, Value) pairs; strings in operand positions are resolved to
// operands by name. Malformed arguments raise InputError naming the operator and argument; values
// WebIDL would reject at conversion (an unknown enum string) raise TypeError like the binding
// would.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "numerics/cast.h"
#include "ref/graph/graph.h"
#include "ref/value.h"

namespace nnref {

// MLOperatorOptions.
struct MLOperatorOptions {
  std::string label;
};

// How errors name an operator: "add", or "add [label 'mul#1234']" when a label was given. The
// label is sanitized (control and bidirectional-override characters escaped), as the spec's
// advisement on MLOperatorOptions.label asks.
std::string OperatorDisplayName(std::string_view op, const MLOperatorOptions& options);
inline std::string OperatorDisplayName(OpId op, const MLOperatorOptions& options) {
  return OperatorDisplayName(OpName(op), options);
}

struct PositionalArg {
  std::string key;
  const Value* value;
};

using OperandLookup = std::function<std::optional<Operand>(const std::string& name)>;
// Receives non-fatal remarks about a call (e.g. an old option name accepted as an alias).
using WarningSink = std::function<void(const std::string& message)>;

class OpCall {
 public:
  OpCall(GraphBuilder& builder, std::string op, std::vector<PositionalArg> args,
         OperandLookup lookup, WarningSink warn = {});

  GraphBuilder& builder() const { return builder_; }
  const std::string& op() const { return op_; }
  size_t size() const { return args_.size(); }

  // Required positional operand (a string naming an operand).
  Operand GetOperand(size_t index, const char* param) const;
  std::vector<Operand> GetOperandList(size_t index, const char* param) const;
  DataType GetDataType(size_t index, const char* param) const;
  // The options dictionary at `index`, or an empty object when absent.
  const Value& GetOptions(size_t index) const;
  // Helpers for options members.
  MLOperatorOptions GetOperatorOptions(const Value& options) const;
  std::optional<MLNumber> GetNumberOption(const Value& options, const char* member) const;
  // Typed readers for further argument and option kinds. Wrong JSON kinds raise InputError;
  // values WebIDL conversion would reject ([EnforceRange] out of range or non-integral, an unknown
  // enum value) raise TypeError, as the binding would.
  // `enforce_range` = the IDL type carries [EnforceRange] (most do); without it WebIDL's
  // ConvertToInt takes the value modulo 2^32 (tile's repetitions, cumulativeSum's axis).
  uint32_t GetUint32(size_t index, const char* param, bool enforce_range = true) const;
  std::vector<uint32_t> GetUint32List(size_t index, const char* param,
                                      bool enforce_range = true) const;
  double GetDouble(size_t index, const char* param) const;
  std::optional<bool> GetBoolOption(const Value& options, const char* member) const;
  std::optional<double> GetDoubleOption(const Value& options, const char* member) const;
  std::optional<uint32_t> GetUint32Option(const Value& options, const char* member) const;
  std::optional<std::vector<uint32_t>> GetUint32ListOption(const Value& options,
                                                           const char* member) const;
  std::optional<std::string> GetEnumOption(const Value& options, const char* member,
                                           const std::vector<std::string>& allowed) const;
  std::optional<std::vector<std::string>> GetEnumListOption(
      const Value& options, const char* member, const std::vector<std::string>& allowed) const;
  std::optional<Operand> GetOperandOption(const Value& options, const char* member) const;
  std::optional<DataType> GetDataTypeOption(const Value& options, const char* member) const;

  // Fails when more positional arguments were given than the method takes.
  void ExpectAtMost(size_t count) const;

  [[noreturn]] void Fail(const std::string& what) const;
  // A non-fatal remark, prefixed with the operator name; to the sink, or stderr without one.
  void Warn(const std::string& what) const;

 private:
  const Value* At(size_t index) const;
  Operand Resolve(const Value& v, const std::string& where) const;
  const Value& Required(size_t index, const char* param) const;
  uint32_t ToUint32(const Value& v, const std::string& where, bool enforce_range = true) const;
  double ToDouble(const Value& v, const std::string& where) const;
  std::string ToEnum(const Value& v, const std::string& where,
                     const std::vector<std::string>& allowed) const;

  GraphBuilder& builder_;
  std::string op_;
  std::vector<PositionalArg> args_;
  OperandLookup lookup_;
  WarningSink warn_;
};

// Reads an MLNumber from a JSON value: a number, or a string "NaN"/"Infinity"/"-Infinity"/"-0",
// or a decimal integer string (optionally ending in 'n'). nullopt when it is none of these.
std::optional<MLNumber> NumberFromValue(const Value& v);

}  // namespace nnref
