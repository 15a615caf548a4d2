// Timeline scripts' GPU interop steps on a backend with devices (vulkan on lavapipe in CI): the
// script's GPU device is then a Vulkan device of its own (Backend::MakeGpuApplication), gpuWrite
// and gpuRead are copies on its queue, and contexts created from it compute with the vulkan
// backend on that device. Expected values are written by hand (x + x of exactly representable
// floats is exact).
#include <doctest/doctest.h>

#include <string>

#include "ops/backend.h"
#include "runner/backends.h"
#include "runner/case.h"
#include "runner/judge.h"
#include "runner/timeline.h"

namespace nnref {
namespace {

constexpr const char* kScript = R"({"name": "t", "timeline": [
  {"step": "createContext", "options": {"gpuDevice": "gpu"}},
  {"step": "build", "graph": "g", "inputs": {"x": {"descriptor": {"dataType": "float32",
   "shape": [5]}}}, "operators": [{"name": "add", "arguments": [{"a": "x"}, {"b": "x"}],
   "outputs": "y"}], "outputs": ["y"]},
  {"step": "createTensor", "tensor": "x", "descriptor": {"dataType": "float32", "shape": [5],
   "readable": true, "writable": true, "importableToWebGPU": true}},
  {"step": "createTensor", "tensor": "y", "descriptor": {"dataType": "float32", "shape": [5],
   "readable": true, "importableToWebGPU": true}},
  {"step": "writeTensor", "tensor": "x", "data": [1, 2, 3, 4, 5]},
  {"step": "importExternalBuffer", "tensor": "x", "gpuDevice": "gpu", "gpuBuffer": "b"},
  {"step": "gpuRead", "gpuBuffer": "b", "expected": [1, 2, 3, 4, 5]},
  {"step": "gpuWrite", "gpuBuffer": "b", "data": [0.5, -1, 2.25, 100, -0.125]},
  {"step": "gpuRead", "gpuBuffer": "b", "expected": [0.5, -1, 2.25, 100, -0.125]},
  {"step": "dispatch", "graph": "g", "inputs": {"x": "x"}, "outputs": {"y": "y"}},
  {"step": "returnBuffer", "gpuBuffer": "b"},
  {"step": "readTensor", "tensor": "x", "expected": [0.5, -1, 2.25, 100, -0.125]},
  {"step": "importExternalBuffer", "tensor": "y", "gpuDevice": "gpu", "gpuBuffer": "c"},
  {"step": "gpuRead", "gpuBuffer": "c", "expected": [1, -2, 4.5, 200, -0.25]},
  {"step": "returnBuffer", "gpuBuffer": "c"}]})";

}  // namespace

TEST_CASE(
    "timeline GPU interop on the vulkan backend: the script's GPU device is a Vulkan device "
    "[device]") {
  const std::shared_ptr<const Backend> vulkan = MakeBackend("vulkan", {});
  REQUIRE(vulkan);
  REQUIRE_MESSAGE(!vulkan->Unavailable(), vulkan->Describe());
  const CaseFile f = LoadCaseText(kScript, "t.json");
  REQUIRE(f.broken.empty());
  REQUIRE(f.cases.size() == 1);
  const TimelineResult r = RunTimeline(f.cases[0], BuilderLimits{}, JudgeOptions{}, vulkan);
  INFO(r.message);
  CHECK(r.verdict == Verdict::kPass);
  REQUIRE(r.log.size() == 15);
  // The context is on the backend's own Vulkan device, not the host-memory script device.
  CHECK(r.log[0].find("the application's Vulkan device: vulkan (device") != std::string::npos);
  CHECK(r.log[5].find("20 bytes in 20") != std::string::npos);
  // The dispatch waited for the return: y = 2x of what the GPU wrote, read back through a rental.
  CHECK(r.log[13].find("as expected") != std::string::npos);
}

TEST_CASE(
    "timeline GPU interop on the vulkan backend: a wrong gpuRead names the bytes "
    "[device]") {
  const std::shared_ptr<const Backend> vulkan = MakeBackend("vulkan", {});
  REQUIRE(vulkan);
  const CaseFile f = LoadCaseText(R"({"name": "t", "timeline": [
    {"step": "createContext", "options": {"gpuDevice": "gpu"}},
    {"step": "createTensor", "tensor": "x", "descriptor": {"dataType": "int8", "shape": [3],
     "readable": true, "writable": true, "importableToWebGPU": true}},
    {"step": "writeTensor", "tensor": "x", "data": [1, 2, 3]},
    {"step": "importExternalBuffer", "tensor": "x", "gpuDevice": "gpu", "gpuBuffer": "b"},
    {"step": "gpuRead", "gpuBuffer": "b", "expected": [1, 2, 4]}]})",
                                  "t.json");
  REQUIRE(f.cases.size() == 1);
  const TimelineResult r = RunTimeline(f.cases[0], BuilderLimits{}, JudgeOptions{}, vulkan);
  CHECK(r.verdict == Verdict::kFail);
  CHECK(r.message.find("holds bytes 01 02 03, expected 01 02 04") != std::string::npos);
}

}  // namespace nnref
