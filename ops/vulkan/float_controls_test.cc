// The float-controls execution modes (float_controls.h): which modes a device's properties allow
// (hand-derived from the independence rules of VkPhysicalDeviceFloatControlsProperties), and the
// modules with them declared, checked by the SPIR-V tools (spirv-val for the Vulkan 1.2
// environment, spirv-dis for what was declared) rather than by this code's own reading.
#include "ops/vulkan/float_controls.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "ops/vulkan/shaders.h"

namespace nnref::vk {
namespace {

DeviceInfo::FloatControls Controls(VkShaderFloatControlsIndependence denorm,
                                   VkShaderFloatControlsIndependence rounding) {
  DeviceInfo::FloatControls c;
  c.known = true;
  c.denorm_independence = denorm;
  c.rounding_independence = rounding;
  return c;
}

constexpr auto kAll = VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL;
constexpr auto k32Only = VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_32_BIT_ONLY;
constexpr auto kNone = VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_NONE;

TEST_CASE("float controls: the modes a device's properties allow") {
  SUBCASE("unknown properties (Vulkan 1.1): nothing") {
    DeviceInfo::FloatControls c;
    c.denorm_preserve[1] = true;  // not reported: known is false
    CHECK_FALSE(ChooseFloatModes(c).any());
    CHECK(ChooseFloatModes(c).Describe() == "none");
  }
  SUBCASE("lavapipe's properties (Mesa 22.3): no denormal mode, the other two at every width") {
    DeviceInfo::FloatControls c = Controls(kAll, kAll);
    for (int w = 0; w < 3; ++w) c.signed_zero_inf_nan_preserve[w] = c.rounding_rte[w] = true;
    const FloatModes m = ChooseFloatModes(c);
    CHECK(m.Describe() == "SignedZeroInfNanPreserve 16/32/64, RoundingModeRTE 16/32/64");
  }
  SUBCASE("independence all: each width on its own") {
    DeviceInfo::FloatControls c = Controls(kAll, kAll);
    c.denorm_preserve[0] = true;  // 16 only
    c.rounding_rte[1] = true;     // 32 only
    CHECK(ChooseFloatModes(c).Describe() == "DenormPreserve 16, RoundingModeRTE 32");
  }
  SUBCASE("32-bit only: 32 alone is fine; 16 without 64 is not") {
    DeviceInfo::FloatControls c = Controls(k32Only, k32Only);
    c.denorm_preserve[0] = c.denorm_preserve[1] = true;  // 16 and 32, not 64
    c.rounding_rte[0] = c.rounding_rte[2] = true;        // 16 and 64 agree
    CHECK(ChooseFloatModes(c).Describe() == "DenormPreserve 32, RoundingModeRTE 16/64");
  }
  SUBCASE("none: every width or no width") {
    DeviceInfo::FloatControls c = Controls(kNone, kNone);
    c.denorm_preserve[0] = c.denorm_preserve[1] = true;  // not 64: all cleared
    for (int w = 0; w < 3; ++w) c.rounding_rte[w] = true;
    c.signed_zero_inf_nan_preserve[1] = true;  // no independence rule
    CHECK(ChooseFloatModes(c).Describe() ==
          "SignedZeroInfNanPreserve 32, RoundingModeRTE 16/32/64");
  }
}

// Runs `command` and returns its standard output; `status` its exit status.
std::string Capture(const std::string& command, int& status) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  status = pclose(pipe);
  return out;
}

// The lines of spirv-dis output, leading spaces dropped.
std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const size_t first = text.find_first_not_of(' ', at);
    lines.push_back(first < end ? text.substr(first, end - first) : std::string());
    at = end + 1;
  }
  return lines;
}

// Lines equal to `line`; with `prefix` and `suffix`: lines that start and end so.
size_t Count(const std::vector<std::string>& lines, const std::string& prefix,
             const std::string& suffix = "") {
  size_t n = 0;
  for (const std::string& l : lines) {
    if (suffix.empty() ? l == prefix
                       : l.size() >= prefix.size() + suffix.size() && l.starts_with(prefix) &&
                             l.ends_with(suffix)) {
      ++n;
    }
  }
  return n;
}

TEST_CASE("float controls: every shader with every mode is valid SPIR-V declaring each once") {
  FloatModes all;
  for (int w = 0; w < 3; ++w) {
    all.denorm_preserve[w] = all.signed_zero_inf_nan_preserve[w] = all.rounding_rte[w] = true;
  }
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("nnref_float_controls_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  for (size_t s = 0; s < static_cast<size_t>(Shader::kCount); ++s) {
    const ShaderCode& code = Code(static_cast<Shader>(s));
    const std::string name = code.name;
    CAPTURE(name);
    // Twice: the second pass finds every mode declared and adds nothing.
    const std::vector<uint32_t> once = WithFloatModes({code.words, code.count}, all);
    const std::vector<uint32_t> twice = WithFloatModes(once, all);
    CHECK(twice == once);
    // 3 capabilities (2 words), the extension (1 + 6 words), 9 modes (4 words).
    CHECK(once.size() == code.count + 3 * 2 + 7 + 9 * 4);
    const std::filesystem::path file = dir / ("shader" + std::to_string(s) + ".spv");
    {
      std::ofstream f(file, std::ios::binary);
      f.write(reinterpret_cast<const char*>(once.data()),
              static_cast<std::streamsize>(once.size() * sizeof(uint32_t)));
    }
    int status = 0;
    const std::string val =
        Capture(std::string(NNREF_SPIRV_VAL) + " --target-env vulkan1.2 " + file.string() + " 2>&1",
                status);
    CHECK_MESSAGE(status == 0, val);
    const std::string text =
        Capture(std::string(NNREF_SPIRV_DIS) + " " + file.string() + " 2>&1", status);
    REQUIRE(status == 0);
    const std::vector<std::string> lines = Lines(text);
    CHECK(Count(lines, "OpExtension \"SPV_KHR_float_controls\"") == 1);
    for (const char* mode : {"DenormPreserve", "SignedZeroInfNanPreserve", "RoundingModeRTE"}) {
      CAPTURE(mode);
      CHECK(Count(lines, std::string("OpCapability ") + mode) == 1);
      for (const char* width : {"16", "32", "64"}) {
        CHECK(Count(lines, "OpExecutionMode %", std::string(" ") + mode + " " + width) == 1);
      }
    }
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("float controls: a module with nothing requested is unchanged") {
  const ShaderCode& code = Code(Shader::kElementwise);
  const std::vector<uint32_t> same = WithFloatModes({code.words, code.count}, FloatModes{});
  CHECK(same == std::vector<uint32_t>(code.words, code.words + code.count));
}

TEST_CASE("float controls: what is not a module is refused with the reason") {
  FloatModes m;
  m.rounding_rte[1] = true;
  const ShaderCode& code = Code(Shader::kElementwise);
  std::vector<uint32_t> words(code.words, code.words + code.count);
  SUBCASE("no magic number") {
    words[0] = 0x03022307;  // the other byte order, which this code does not read
    CHECK_THROWS_WITH_AS(WithFloatModes(words, m), doctest::Contains("no magic number"),
                         std::runtime_error);
  }
  SUBCASE("an instruction that runs past the end") {
    words.resize(6);  // the header and the first capability's first word
    CHECK_THROWS_WITH_AS(WithFloatModes(words, m), doctest::Contains("runs past the end"),
                         std::runtime_error);
  }
  SUBCASE("a word count of zero") {
    words[5] = 0;
    CHECK_THROWS_WITH_AS(WithFloatModes(words, m), doctest::Contains("at word 5"),
                         std::runtime_error);
  }
  SUBCASE("no compute entry point") {
    words.resize(5);  // the header alone
    CHECK_THROWS_WITH_AS(WithFloatModes(words, m), doctest::Contains("no GLCompute entry point"),
                         std::runtime_error);
  }
}

}  // namespace
}  // namespace nnref::vk
