// Errors. WebnnError carries the spec's error type (TypeError, DataError, "InvalidStateError"
// DOMException, ...) raised by the method steps. InputError is bad input to the tool itself (a
// malformed case or file), never a spec error.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace nnref {

enum class ErrorType : unsigned char {
  kTypeError,
  kDataError,
  kInvalidStateError,
  kOperationError,
  kNotSupportedError,
  kAbortError,
  kUnknownError,
};

std::string_view ErrorTypeName(ErrorType t);

class WebnnError : public std::runtime_error {
 public:
  WebnnError(ErrorType type, const std::string& message)
      : std::runtime_error(message), type_(type) {}
  ErrorType type() const { return type_; }

 private:
  ErrorType type_;
};

[[noreturn]] void ThrowTypeError(const std::string& message);

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace nnref
