// A small JSON-shaped value used to pass literal operator arguments from a front end (the JSON
// case loader) to the builder methods without tying ops/ to a JSON library. Objects keep their key
// order (positional arguments depend on it) and numbers keep their source text (so that decimal
// values can be rounded once, directly to the target type).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nnref {

struct Number {
  double d = 0;               // nearest double
  std::optional<int64_t> i;   // set when the source was an integer that fits int64
  std::optional<uint64_t> u;  // set when the source was a non-negative integer fitting uint64
  std::string text;           // source text ("" when built in code)
};

class Value {
 public:
  enum class Kind : unsigned char { kNull, kBool, kNumber, kString, kArray, kObject };

  Value() = default;
  static Value Bool(bool b);
  static Value Num(Number n);
  static Value Str(std::string s);
  static Value Array(std::vector<Value> items = {});
  static Value Object(std::vector<std::pair<std::string, Value>> members = {});

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_bool() const { return kind_ == Kind::kBool; }
  bool is_number() const { return kind_ == Kind::kNumber; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_array() const { return kind_ == Kind::kArray; }
  bool is_object() const { return kind_ == Kind::kObject; }

  bool boolean() const { return b_; }
  const Number& number() const { return num_; }
  const std::string& str() const { return s_; }
  const std::vector<Value>& items() const { return items_; }
  std::vector<Value>& items() { return items_; }
  const std::vector<std::pair<std::string, Value>>& members() const { return members_; }
  std::vector<std::pair<std::string, Value>>& members() { return members_; }
  // Object member lookup (first match); nullptr when absent or not an object.
  const Value* Find(const std::string& key) const;

  // Short description for error messages: "a string", "an array", ...
  std::string KindName() const;

 private:
  Kind kind_ = Kind::kNull;
  bool b_ = false;
  Number num_;
  std::string s_;
  std::vector<Value> items_;
  std::vector<std::pair<std::string, Value>> members_;
};

}  // namespace nnref
