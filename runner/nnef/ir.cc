#include "runner/nnef/ir.h"

#include <charconv>
#include <stdexcept>

namespace nnref::nnef {

std::string_view StageName(Stage s) {
  switch (s) {
    case Stage::kParse:
      return "parse";
    case Stage::kValidate:
      return "validate";
    case Stage::kTensorFile:
      return "tensor-file";
    case Stage::kQuantFile:
      return "quant-file";
    case Stage::kExecute:
      return "execute";
  }
  return "error";
}

namespace {

std::string Render(Stage stage, const SourcePos& pos, const std::string& message,
                   const std::string& rule) {
  std::string s;
  if (!pos.file.empty()) {
    s = pos.file;
    if (pos.line > 0) s += ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column);
    s += ": ";
  }
  s += std::string(StageName(stage)) + " error: " + message;
  if (!rule.empty()) s += " [" + rule + "]";
  return s;
}

}  // namespace

NnefError::NnefError(Stage stage, SourcePos pos, std::string message, std::string rule)
    : InputError(Render(stage, pos, message, rule)),
      stage_(stage),
      pos_(std::move(pos)),
      message_(std::move(message)),
      rule_(std::move(rule)) {}

std::string_view TensorTypeName(TensorType t) {
  switch (t) {
    case TensorType::kScalar:
      return "scalar";
    case TensorType::kInteger:
      return "integer";
    case TensorType::kLogical:
      return "logical";
    case TensorType::kString:
      return "string";
  }
  return "scalar";
}

ArgValue ArgValue::Integer(int64_t v) {
  ArgValue a;
  a.kind = Kind::kInteger;
  a.i = v;
  return a;
}
ArgValue ArgValue::Scalar(double v, std::string source_text) {
  ArgValue a;
  a.kind = Kind::kScalar;
  a.s = v;
  a.text = std::move(source_text);
  return a;
}
ArgValue ArgValue::Logical(bool v) {
  ArgValue a;
  a.kind = Kind::kLogical;
  a.b = v;
  return a;
}
ArgValue ArgValue::String(std::string v) {
  ArgValue a;
  a.kind = Kind::kString;
  a.str = std::move(v);
  return a;
}
ArgValue ArgValue::Tensor(std::string id) {
  ArgValue a;
  a.kind = Kind::kTensor;
  a.str = std::move(id);
  return a;
}
ArgValue ArgValue::Array(std::vector<ArgValue> v) {
  ArgValue a;
  a.kind = Kind::kArray;
  a.items = std::move(v);
  return a;
}
ArgValue ArgValue::Tuple(std::vector<ArgValue> v) {
  ArgValue a;
  a.kind = Kind::kTuple;
  a.items = std::move(v);
  return a;
}

std::string ScalarLiteral(double d) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // 'n': inf/nan never reach here
  return s;
}

std::string ArgValue::ToString() const {
  switch (kind) {
    case Kind::kInteger:
      return std::to_string(i);
    case Kind::kScalar:
      return text.empty() ? ScalarLiteral(s) : text;
    case Kind::kLogical:
      return b ? "true" : "false";
    case Kind::kString: {
      std::string r = "'";
      for (char c : str) {
        if (c == '\'' || c == '\\') r.push_back('\\');
        r.push_back(c);
      }
      return r + "'";
    }
    case Kind::kTensor:
      return str;
    case Kind::kArray:
    case Kind::kTuple: {
      std::string r = kind == Kind::kArray ? "[" : "(";
      for (size_t k = 0; k < items.size(); ++k) r += (k ? ", " : "") + items[k].ToString();
      return r + (kind == Kind::kArray ? "]" : ")");
    }
  }
  return "";
}

bool ArgValue::operator==(const ArgValue& o) const {
  if (kind != o.kind) return false;
  switch (kind) {
    case Kind::kInteger:
      return i == o.i;
    case Kind::kScalar:
      return s == o.s;
    case Kind::kLogical:
      return b == o.b;
    case Kind::kString:
    case Kind::kTensor:
      return str == o.str;
    case Kind::kArray:
    case Kind::kTuple:
      return items == o.items;
  }
  return false;
}

namespace {
const ArgValue* FindArg(const std::vector<NamedValue>& args, std::string_view name) {
  for (const NamedValue& a : args) {
    if (a.name == name) return &a.value;
  }
  return nullptr;
}
}  // namespace

const ArgValue* Invocation::Arg(std::string_view name) const { return FindArg(args, name); }
const ArgValue* CompoundInstance::Arg(std::string_view param) const { return FindArg(args, param); }

const TensorInfo& FlatGraph::Tensor(const std::string& id) const {
  auto it = tensors.find(id);
  if (it == tensors.end()) throw std::out_of_range("no tensor '" + id + "' in the NNEF graph");
  return it->second;
}

std::string FlatGraph::ToString() const {
  std::string s = "version " + (version.empty() ? std::string("1.0") : version) + ";\n";
  bool has_fragments_ext = false;
  std::string ext;
  for (const std::string& e : extensions) {
    ext += " " + e;
    has_fragments_ext = has_fragments_ext || e == "KHR_enable_fragment_definitions";
  }
  if (!custom_declarations.empty() && !has_fragments_ext) {
    ext += " KHR_enable_fragment_definitions";
  }
  if (!ext.empty()) s += "extension" + ext + ";\n";
  s += "\n";
  for (const std::string& d : custom_declarations) s += d + "\n";
  if (!custom_declarations.empty()) s += "\n";
  auto list = [](const std::vector<std::string>& v) {
    std::string r;
    for (size_t i = 0; i < v.size(); ++i) r += (i ? ", " : "") + v[i];
    return r;
  };
  s += "graph " + name + "( " + list(inputs) + " ) -> ( " + list(outputs) + " )\n{\n";
  for (const Invocation& op : ops) {
    std::string lhs;
    for (size_t i = 0; i < op.results.size(); ++i) {
      lhs += (i ? ", " : "") + op.results[i].value.ToString();
    }
    std::string line = "    " + lhs + " = " + op.op;
    // external, constant and variable declare <? = scalar>: the type is printed when not scalar.
    bool has_default_generic = op.id && NnefOpFamily(*op.id) == NnefFamily::kIntroduce;
    if (op.generic && (op.custom || (has_default_generic && op.dtype != TensorType::kScalar))) {
      line += "<" + std::string(TensorTypeName(op.dtype)) + ">";
    }
    line += "(";
    bool first = true;
    for (const NamedValue& a : op.args) {
      line += first ? "" : ", ";
      first = false;
      if (!a.tensor) line += a.name + " = ";
      line += a.value.ToString();
    }
    s += line + ");\n";
  }
  return s + "}\n";
}

}  // namespace nnref::nnef
