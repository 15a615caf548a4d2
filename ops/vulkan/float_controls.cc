// Float-controls execution modes (float_controls.h). SPIR-V facts used here (the SPIR-V 1.6
// specification, section 2.3 "Physical Layout" and 2.4 "Logical Layout"; SPV_KHR_float_controls):
// a module is a 5-word header then instructions, each starting with a word holding its word count
// (high 16 bits) and opcode (low 16); OpCapability instructions come first, then OpExtension,
// OpExtInstImport, OpMemoryModel, OpEntryPoint, then the execution modes.
#include "ops/vulkan/float_controls.h"

#include <set>
#include <stdexcept>
#include <string_view>
#include <tuple>

namespace nnref::vk {
namespace {

constexpr uint32_t kMagic = 0x07230203;
constexpr uint32_t kHeaderWords = 5;
// Opcodes.
constexpr uint32_t kOpExtension = 10;
constexpr uint32_t kOpEntryPoint = 15;
constexpr uint32_t kOpExecutionMode = 16;
constexpr uint32_t kOpCapability = 17;
constexpr uint32_t kOpExecutionModeId = 331;
constexpr uint32_t kExecutionModelGLCompute = 5;
// SPV_KHR_float_controls: execution modes and the capabilities that declare them.
constexpr uint32_t kModeDenormPreserve = 4459;
constexpr uint32_t kModeSignedZeroInfNanPreserve = 4461;
constexpr uint32_t kModeRoundingModeRTE = 4462;
constexpr uint32_t kCapDenormPreserve = 4464;
constexpr uint32_t kCapSignedZeroInfNanPreserve = 4466;
constexpr uint32_t kCapRoundingModeRTE = 4467;
constexpr std::string_view kExtension = "SPV_KHR_float_controls";
constexpr uint32_t kWidths[3] = {16, 32, 64};

uint32_t Word(uint32_t count, uint32_t opcode) { return (count << 16) | opcode; }

// A literal string as SPIR-V words: UTF-8 bytes, little-endian within a word, nul-terminated and
// padded with nuls to a whole word.
std::vector<uint32_t> StringWords(std::string_view s) {
  std::vector<uint32_t> words(s.size() / 4 + 1, 0);
  for (size_t i = 0; i < s.size(); ++i) {
    words[i / 4] |= static_cast<uint32_t>(static_cast<unsigned char>(s[i])) << (8 * (i % 4));
  }
  return words;
}

// Apply the independence rule of one kind of mode to `want` (per width): `all` leaves it; `32-bit
// only` needs the 16- and 64-bit widths to agree; `none` needs all three to agree. Widths that
// must agree but do not are all cleared (no mode is always allowed).
void Independence(VkShaderFloatControlsIndependence rule, bool want[3]) {
  if (rule == VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL) return;
  if (rule == VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_32_BIT_ONLY) {
    if (want[0] != want[2]) want[0] = want[2] = false;
    return;
  }
  if (!(want[0] && want[1] && want[2])) want[0] = want[1] = want[2] = false;
}

}  // namespace

bool FloatModes::any() const {
  for (int w = 0; w < 3; ++w) {
    if (denorm_preserve[w] || signed_zero_inf_nan_preserve[w] || rounding_rte[w]) return true;
  }
  return false;
}

std::string FloatModes::Describe() const {
  std::string text;
  const std::pair<const char*, const bool*> kinds[3] = {
      {"DenormPreserve", denorm_preserve},
      {"SignedZeroInfNanPreserve", signed_zero_inf_nan_preserve},
      {"RoundingModeRTE", rounding_rte}};
  for (const auto& [name, on] : kinds) {
    std::string widths;
    for (int w = 0; w < 3; ++w) {
      if (on[w]) widths += (widths.empty() ? "" : "/") + std::to_string(kWidths[w]);
    }
    if (widths.empty()) continue;
    text += (text.empty() ? "" : ", ") + std::string(name) + " " + widths;
  }
  return text.empty() ? "none" : text;
}

FloatModes ChooseFloatModes(const DeviceInfo::FloatControls& c) {
  FloatModes m;
  if (!c.known) return m;
  for (int w = 0; w < 3; ++w) {
    m.denorm_preserve[w] = c.denorm_preserve[w];
    m.signed_zero_inf_nan_preserve[w] = c.signed_zero_inf_nan_preserve[w];
    m.rounding_rte[w] = c.rounding_rte[w];
  }
  Independence(c.denorm_independence, m.denorm_preserve);
  Independence(c.rounding_independence, m.rounding_rte);
  // SignedZeroInfNanPreserve has no independence property: any width on its own.
  return m;
}

std::vector<uint32_t> WithFloatModes(std::span<const uint32_t> module, const FloatModes& modes) {
  if (module.size() < kHeaderWords || module[0] != kMagic) {
    throw std::runtime_error("vulkan: float controls: not a SPIR-V module (no magic number)");
  }
  // One pass: where each section ends, what is already declared, the entry point.
  size_t capabilities_end = kHeaderWords, extensions_end = 0, modes_end = 0;
  std::set<uint32_t> capabilities;
  std::set<std::tuple<uint32_t, uint32_t, uint32_t>> declared;  // (entry, mode, width)
  bool has_extension = false, has_entry = false;
  uint32_t entry = 0;
  for (size_t at = kHeaderWords; at < module.size();) {
    const uint32_t count = module[at] >> 16, opcode = module[at] & 0xffff;
    if (count == 0 || at + count > module.size()) {
      throw std::runtime_error("vulkan: float controls: the SPIR-V instruction at word " +
                               std::to_string(at) + " runs past the end of the module");
    }
    const size_t next = at + count;
    if (opcode == kOpCapability && count == 2) {
      capabilities.insert(module[at + 1]);
      capabilities_end = next;
    } else if (opcode == kOpExtension) {
      const std::span<const uint32_t> name = module.subspan(at + 1, count - 1);
      has_extension = has_extension ||
                      std::vector<uint32_t>(name.begin(), name.end()) == StringWords(kExtension);
      extensions_end = next;
    } else if (opcode == kOpEntryPoint && count >= 3) {
      if (module[at + 1] == kExecutionModelGLCompute && !has_entry) {
        entry = module[at + 2];
        has_entry = true;
      }
      modes_end = next;
    } else if (opcode == kOpExecutionMode || opcode == kOpExecutionModeId) {
      if (count >= 4) declared.insert({module[at + 1], module[at + 2], module[at + 3]});
      modes_end = next;
    }
    at = next;
  }
  if (!has_entry) {
    throw std::runtime_error(
        "vulkan: float controls: the SPIR-V module has no GLCompute entry "
        "point");
  }
  if (extensions_end == 0) extensions_end = capabilities_end;

  std::vector<uint32_t> add_capabilities, add_modes;
  const std::tuple<const bool*, uint32_t, uint32_t> kinds[3] = {
      {modes.denorm_preserve, kModeDenormPreserve, kCapDenormPreserve},
      {modes.signed_zero_inf_nan_preserve, kModeSignedZeroInfNanPreserve,
       kCapSignedZeroInfNanPreserve},
      {modes.rounding_rte, kModeRoundingModeRTE, kCapRoundingModeRTE}};
  for (const auto& [on, mode, capability] : kinds) {
    bool used = false;
    for (int w = 0; w < 3; ++w) {
      if (!on[w]) continue;
      used = true;
      if (declared.count({entry, mode, kWidths[w]})) continue;
      for (uint32_t v : {Word(4, kOpExecutionMode), entry, mode, kWidths[w]})
        add_modes.push_back(v);
    }
    if (used && !capabilities.count(capability)) {
      add_capabilities.push_back(Word(2, kOpCapability));
      add_capabilities.push_back(capability);
    }
  }
  std::vector<uint32_t> add_extension;
  if (!add_modes.empty() && !has_extension) {
    const std::vector<uint32_t> name = StringWords(kExtension);
    add_extension.push_back(Word(static_cast<uint32_t>(1 + name.size()), kOpExtension));
    add_extension.insert(add_extension.end(), name.begin(), name.end());
  }

  std::vector<uint32_t> out;
  out.reserve(module.size() + add_capabilities.size() + add_extension.size() + add_modes.size());
  const auto copy = [&](size_t from, size_t to) {
    out.insert(out.end(), module.begin() + static_cast<std::ptrdiff_t>(from),
               module.begin() + static_cast<std::ptrdiff_t>(to));
  };
  copy(0, capabilities_end);
  out.insert(out.end(), add_capabilities.begin(), add_capabilities.end());
  copy(capabilities_end, extensions_end);
  out.insert(out.end(), add_extension.begin(), add_extension.end());
  copy(extensions_end, modes_end);
  out.insert(out.end(), add_modes.begin(), add_modes.end());
  copy(modes_end, module.size());
  return out;
}

}  // namespace nnref::vk
