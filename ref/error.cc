#include "ref/error.h"

namespace nnref {

std::string_view ErrorTypeName(ErrorType t) {
  switch (t) {
    case ErrorType::kTypeError:
      return "TypeError";
    case ErrorType::kDataError:
      return "DataError";
    case ErrorType::kInvalidStateError:
      return "InvalidStateError";
    case ErrorType::kOperationError:
      return "OperationError";
    case ErrorType::kNotSupportedError:
      return "NotSupportedError";
    case ErrorType::kAbortError:
      return "AbortError";
    case ErrorType::kUnknownError:
      return "UnknownError";
  }
  return "UnknownError";
}

void ThrowTypeError(const std::string& message) {
  throw WebnnError(ErrorType::kTypeError, message);
}

}  // namespace nnref
