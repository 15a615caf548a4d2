// Lowering of the tensor-introducing operations (NNEF 1.0.2 4.1: external, constant, variable)
// and of update (4.8): graph inputs, constants, variables read from their tensor files.
#include <cctype>
#include <filesystem>

#include "runner/nnef/lower.h"
#include "runner/nnef/tensor_file.h"

namespace nnref::nnef {

namespace {

// Shapes equal up to trailing singleton dimensions (chapter 2.2: those are irrelevant).
bool SameUpToTrailingOnes(Shape a, Shape b) {
  while (!a.empty() && a.back() == 1) a.pop_back();
  while (!b.empty() && b.back() == 1) b.pop_back();
  return a == b;
}

}  // namespace

// 4.1.1
void Executor::Impl::External() {
  const std::string id = Result();
  const OperandDescriptor desc{StorageTypeOf(current->dtype), ShapeArg("shape")};
  const Operand o = Web([&] { return builder.Input(id, desc); });
  Define(id, o, current->dtype);
}

// 4.1.2
void Executor::Impl::Constant() {
  const TensorType type = current->dtype;
  const OperandDescriptor desc{StorageTypeOf(type), ShapeArg("shape")};
  Web([&] {
    CheckDimensions(desc, builder.limits(), "constant");
    return 0;
  });
  const ArgValue& value = A("value");
  if (value.kind != ArgValue::Kind::kArray) Invalid("value must be an array");
  const uint64_t count = desc.ElementCount();
  if (value.items.size() != 1 && value.items.size() != count) {
    Invalid("value has " + std::to_string(value.items.size()) + " items; the shape " +
            ShapeToString(desc.shape) + " needs " + std::to_string(count) + " (or 1)");
  }
  Tensor t = Tensor::Allocate(desc.dataType, desc.shape);
  for (uint64_t i = 0; i < count; ++i) {
    const ArgValue& v = value.items[value.items.size() == 1 ? 0 : i];
    switch (type) {
      case TensorType::kScalar:
        if (v.kind != ArgValue::Kind::kScalar && v.kind != ArgValue::Kind::kInteger) {
          Invalid("value items must be scalars");
        }
        t.base<float>()[i] = ScalarOf(v);
        break;
      case TensorType::kInteger:
        if (v.kind != ArgValue::Kind::kInteger) Invalid("value items must be integers");
        t.base<int64_t>()[i] = v.i;
        break;
      case TensorType::kLogical:
        if (v.kind != ArgValue::Kind::kLogical) Invalid("value items must be logicals");
        t.base<uint8_t>()[i] = v.b ? 1 : 0;
        break;
      default:
        Invalid("constants of type " + std::string(TensorTypeName(type)) + " are not supported");
    }
  }
  Define(Result(), Web([&] { return builder.Constant(desc, t); }), type);
}

// 4.1.3: data from <model dir>/<label>.dat (chapter 5.1); the same label (case-insensitive)
// shares the data.
void Executor::Impl::Variable() {
  const std::string id = Result();
  const TensorType type = current->dtype;
  const Shape shape = ShapeArg("shape");
  const std::string label = Str("label");
  const std::string key = LowerCase(label);
  const OperandDescriptor desc{StorageTypeOf(type), shape};
  auto it = variables.find(key);
  if (it == variables.end()) {
    if (label.empty()) Invalid("label must not be empty");
    for (char c : label) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.' &&
          c != '/' && c != '\\') {
        Invalid("label '" + label + "' contains '" + std::string(1, c) +
                "' (allowed: [a-zA-Z0-9_-./\\])");
      }
    }
    std::string rel = label;
    std::replace(rel.begin(), rel.end(), '\\', '/');
    for (const auto& part : std::filesystem::path(rel)) {
      if (part == "..") Invalid("label '" + label + "' leaves the model folder");
    }
    if (!rel.empty() && rel[0] == '/') Invalid("label '" + label + "' is an absolute path");
    const std::string path = (std::filesystem::path(model_dir) / (rel + ".dat")).string();
    const TensorFile f = ReadTensorFile(path, options.max_tensor_bytes);
    if (!SameUpToTrailingOnes(f.header.shape, shape)) {
      throw NnefError(Stage::kTensorFile, {path, 0, 0},
                      "the stored shape " + ShapeToString(f.header.shape) +
                          " conflicts with the shape " + ShapeToString(shape) + " of variable '" +
                          label + "' (" + id + ", line " + std::to_string(current->pos.line) + ")",
                      "NNEF 1.0.2 chapter 6, step 4");
    }
    const QuantEntry* qe = quant ? quant->Find(id) : nullptr;
    Tensor value =
        DecodeTensorFile(f, type, qe ? &qe->algorithm : nullptr, path, options.max_tensor_bytes)
            .WithShape(shape);
    Var v{label, "variable:" + key, type, std::move(value), {}};
    v.operand = Web([&] { return builder.Input(v.input, desc); });
    it = variables.emplace(key, std::move(v)).first;
  } else if (it->second.value.shape() != shape || it->second.type != type) {
    Invalid("variable '" + label + "' is declared again with shape " + ShapeToString(shape) +
            " but label '" + it->second.label + "' has shape " +
            ShapeToString(it->second.value.shape()));
  }
  variable_of[id] = key;
  Define(id, it->second.operand, type);
}

// 4.8
void Executor::Impl::Update() {
  const ArgValue& var = A("variable");
  if (!var.is_tensor() || variable_of.find(var.str) == variable_of.end()) {
    Invalid("the first argument must be a variable tensor, not " + var.ToString());
  }
  const std::string key = variable_of.at(var.str);
  for (const auto& u : updates) {
    if (u.first == key) Invalid("variable '" + variables.at(key).label + "' is updated twice");
  }
  const Var& v = variables.at(key);
  const Value value = Arg("value", v.type);
  if (S(value) != v.value.shape() || value.type != v.type) {
    Invalid("the value " + ShapeToString(S(value)) + " does not match the variable's shape " +
            ShapeToString(v.value.shape()));
  }
  const std::string id = Result();
  const Operand r = Copy(value.operand);
  Define(id, r, v.type);
  const std::string name = "update:" + id;
  updates.emplace_back(key, name);
  outputs.emplace_back(name, r);
}

}  // namespace nnref::nnef
