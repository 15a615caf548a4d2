// A loaded case file: every case of the nnref case format (docs/case-format.md), decoded enough to
// build and run it. The parsed Value tree is kept so that `generate` can write the file back.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "numerics/tolerance.h"
#include "ref/graph/graph.h"
#include "ref/value.h"

namespace nnref {

struct TensorSpec {
  std::string name;
  OperandDescriptor desc;
  const Value* data = nullptr;  // absent for expected outputs given without data
  bool constant = false;
  // Timeline build steps only: the operand is constant(tensor) of the MLTensor of this name.
  std::string constant_tensor;
};

struct TimelineScript;  // runner/timeline_script.h

struct OperatorSpec {
  std::string name;                                        // builder method
  std::vector<std::pair<std::string, const Value*>> args;  // flattened positional arguments
  std::vector<std::string> outputs;
};

struct Case {
  std::string file;      // path of the case file
  std::string base_dir;  // for npy paths
  size_t index = 0;      // position in the file
  std::string name;
  std::vector<std::string> labels;
  std::optional<Tolerance> tolerance;  // the case's override
  // "referenceOnly": the case checks a property of the reference alone (e.g. its exact rounding
  // where the spec allows a float32 backend more); backends skip it with this reason.
  std::optional<std::string> reference_only;
  std::optional<std::string> expected_error;
  std::vector<TensorSpec> inputs;
  std::vector<OperatorSpec> operators;
  std::vector<TensorSpec> expected_outputs;
  bool has_expected_outputs = false;
  Value* node = nullptr;  // the case object in the file's tree (for generate)
  // A timeline case (docs/case-format.md "Timeline cases") has this instead of a graph.
  std::shared_ptr<const TimelineScript> timeline;

  // "FILE: case 'NAME'" for messages.
  std::string Where() const;
};

struct CaseFile {
  std::string path;
  std::unique_ptr<Value> root;
  bool single_case = false;  // the file was one case object (root wraps it in an array)
  std::vector<Case> cases;
  // Cases that could not be decoded: (index, name or "", message).
  std::vector<std::tuple<size_t, std::string, std::string>> broken;
};

// Case files named on the command line: files as given, directories searched for *.json (a
// folder with a graph.nnef is an NNEF case and is left out).
std::vector<std::string> CollectFiles(const std::vector<std::string>& paths);

// Loads and decodes a case file. A malformed file throws InputError; a malformed case is listed in
// `broken` so the rest of the file still runs.
CaseFile LoadCaseFile(const std::string& path);
// The same from JSON text already in memory (`path` names it in messages and resolves npy paths).
CaseFile LoadCaseText(const std::string& text, const std::string& path);

// Decodes one TENSOR object's descriptor ("shape" or the older "dimensions").
OperandDescriptor DecodeDescriptor(const Value& tensor, const std::string& where);

// Decodes a graph object (inputs, operators, expectedOutputs) into `c`; `where` names the graph
// in messages ("FILE: case 'X': graph"). In a timeline build step (`build_step`), inputs need no
// data (constants do) and an input may be {"tensor": NAME}, a constant(tensor).
void DecodeGraph(const Value& graph, const std::string& where, Case& c, bool build_step);

// Decodes one OPERATOR object ({"name", "arguments", "outputs"}); `where` names it in messages.
OperatorSpec DecodeOperator(const Value& op, const std::string& where);

// Decodes a case-format tolerance object ({"metric", "value", "reason", "signExact"}).
Tolerance DecodeCaseTolerance(const Value& tolerance, const std::string& where);

}  // namespace nnref
