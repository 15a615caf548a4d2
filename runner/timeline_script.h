// Timeline scripts (docs/case-format.md "Timeline cases"): the decoded `timeline` array of a case,
// a script of MLContext / MLTensor / MLGraphBuilder calls, each step optionally expecting a spec
// error (thrown or rejected), readTensor steps comparing the data read with expected values.
// Builders may be named, with one step per builder method, and script buffers may be named,
// passed as views (byteOffset/length), changed, detached and inspected.
//
// Decoding checks the structure only (runner/case.cc calls it while loading a case file); WebIDL
// conversions, such as an unknown data type, happen when the step runs (runner/timeline.h), where
// they are TypeErrors like in a browser.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "numerics/tolerance.h"
#include "ref/value.h"
#include "runner/case.h"

namespace nnref {

enum class StepKind : uint8_t {
  kCreateContext,
  kCreateTensor,
  kCreateConstantTensor,
  kWriteTensor,
  kReadTensor,
  kBuild,
  kDispatch,
  kDestroyTensor,
  kDestroyGraph,
  kDestroyContext,
  kAwait,
  kLost,
  kCheckTensor,
  kCheckContext,
  kOpSupportLimits,
  // Named builders: new MLGraphBuilder(context) and one step per builder method.
  kCreateBuilder,
  kInput,
  kConstant,
  kOperator,
  // Named script buffers (ArrayBuffer / SharedArrayBuffer) and what a script does to them.
  kCreateBuffer,
  kSetBuffer,
  kDetachBuffer,
  kCheckBuffer,
  // GPU interop (docs/interop.md): the script's GPU device is host memory standing for the
  // application's; its side of a rental writes and reads the rented buffer.
  kImportExternalBuffer,
  kGpuWrite,
  kGpuRead,
  kReturnBuffer,
};

// How an expected error must arrive: either way, thrown by the call, or as the rejection of the
// promise the call returned.
enum class ErrorHow : uint8_t { kEither, kThrown, kRejected };

// An AllowSharedBufferSource described by a step: its kind ("Float32Array", "ArrayBuffer", ...;
// empty = the view type matching the tensor's data type), its values and/or its byte length.
// Or a view of a named script buffer: `buffer` names it, `type` is the view ("ArrayBuffer" /
// "SharedArrayBuffer": the buffer itself), `byte_offset` and `length` (elements) place it.
struct BufferSpec {
  std::string type;
  const Value* data = nullptr;
  std::optional<uint64_t> byte_length;
  std::string buffer;
  std::optional<uint64_t> byte_offset;
  std::optional<uint64_t> length;
};

struct TimelineStep {
  size_t index = 0;
  StepKind kind = StepKind::kCreateTensor;
  std::string method;  // the step name as written
  std::string where;   // "FILE: case 'NAME': timeline[3] (writeTensor)", for messages
  std::string field;   // prefix of member paths: the same text ("...(writeTensor).tensor")
  std::string context = "context";  // the MLContext the method is called on (or destroyed)
  std::string tensor;
  std::string graph;
  std::string promise;  // non-empty: the promise is kept under this name instead of awaited
  const Value* descriptor = nullptr;  // createTensor / createConstantTensor
  BufferSpec buffer;                  // writeTensor / createConstantTensor data
  bool byob = false;                  // readTensor(tensor, outputData)
  BufferSpec output_data;             // its outputData
  const Value* expected = nullptr;    // readTensor/await data, checkTensor/opSupportLimits/lost
  std::optional<Tolerance> tolerance;
  std::optional<std::string> expected_error;
  ErrorHow expected_how = ErrorHow::kEither;
  std::string builder;                  // named-builder steps, and build on a named builder
  std::string operand;                  // input / constant: the script name the operand is bound to
  std::string input_name;               // input: the MLOperand name
  OperatorSpec op;                      // operator
  const Value* scalar_type = nullptr;   // constant(dataType, value): the data type ...
  const Value* value = nullptr;         // ... and the value
  bool shared = false;                  // createBuffer: a SharedArrayBuffer
  std::optional<bool> expect_detached;  // checkBuffer
  const Value* options = nullptr;       // createContext
  std::string gpu_device;               // importExternalBuffer
  std::string gpu_buffer;               // importExternalBuffer, gpuWrite, gpuRead, returnBuffer
  Case graph_def;                       // build: inputs and operators
  std::string graph_path;               // build: where they are ("...timeline[3]" or "...graph")
  // build: graph output name -> operand name; dispatch: name -> tensor.
  std::vector<std::pair<std::string, std::string>> outputs;
  std::vector<std::pair<std::string, std::string>> inputs;  // dispatch: name -> tensor
};

struct TimelineScript {
  std::vector<TimelineStep> steps;
  std::vector<std::string> warnings;  // unknown members, found when decoding
};

// Decodes the `timeline` array of case `c` (whose file, name and base_dir are set). Malformed
// steps throw InputError naming file, case, step and field.
std::shared_ptr<const TimelineScript> DecodeTimeline(const Value& timeline, const Case& c);

}  // namespace nnref
