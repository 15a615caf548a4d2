// JSON text <-> Value. Parsing goes through nlohmann/json's SAX interface (the only translation
// unit that includes it), keeping object member order and the source text of numbers.
#pragma once

#include <string>

#include "ref/value.h"

namespace nnref {

// Parses JSON text; throws InputError "<source>: line L, column C: <what>" when malformed.
Value ParseJson(const std::string& text, const std::string& source);
// Reads and parses a file; throws InputError naming the file when unreadable or malformed.
Value ReadJsonFile(const std::string& path);
// Serializes; numbers are written from their source text when they have one.
std::string WriteJson(const Value& v, int indent = 2);
// A JSON number Value whose text is `text` (already a valid JSON number).
Value NumberValue(const std::string& text);
std::string JsonQuote(const std::string& s);

}  // namespace nnref
