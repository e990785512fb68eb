#include "contract/target.h"

#include "contract/lexing.h"
#include "contract/spelling.h"

#include <cctype>
#include <charconv>
#include <optional>
#include <vector>

namespace tta {

namespace {


std::optional<int> parseSmallInt(std::string_view text) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty() || !isDigit(text[0]))
    return std::nullopt;
  return value;
}

Diagnostic targetError(std::string message) {
  return makeError(ExitCode::UsageError, std::move(message));
}

constexpr const char *kExpectedForm =
    "expected cuda:<arch> (such as cuda:90a) or hip:<processor> (such as hip:gfx942)";

Expected<Target> parseCuda(std::string_view text, const std::vector<std::string_view> &fields) {
  // Compute capability "80", "90a", "100f": 2-3 digits, no leading zero, then 'a' or 'f'.
  std::string_view arch = fields[1];
  std::size_t digits = 0;
  while (digits < arch.size() && isDigit(arch[digits]))
    ++digits;
  std::string_view suffix = arch.substr(digits);
  if (digits < 2 || digits > 3 || arch[0] == '0' ||
      !(suffix.empty() || suffix == "a" || suffix == "f"))
    return targetError("CUDA architecture '" + std::string(arch) + "' in target '" +
                       std::string(text) +
                       "' is not valid; expected a compute capability such as 80, 90a or 100f");
  Target target;
  target.backend = Backend::Cuda;
  target.capability = *parseSmallInt(arch.substr(0, digits));
  target.archSuffix = suffix.empty() ? 0 : suffix[0];
  // ptxas knows sm_XXa only from sm_90 and sm_XXf only from sm_100.
  if (target.archSuffix == 'a' && target.capability < 90)
    return targetError("CUDA architecture '" + std::string(arch) +
                       "' is not valid; arch-specific ('a') targets start at 90 (cuda:90a)");
  if (target.archSuffix == 'f' && target.capability < 100)
    return targetError("CUDA architecture '" + std::string(arch) +
                       "' is not valid; family ('f') targets start at 100 (cuda:100f)");
  target.arch = std::to_string(target.capability);
  if (target.archSuffix)
    target.arch += target.archSuffix;
  target.warpSize = 32;
  if (fields.size() > 3)
    return targetError("target '" + std::string(text) +
                       "' has too many fields; expected cuda:<arch> or cuda:<arch>:32");
  if (fields.size() == 3) {
    std::optional<int> warp = parseSmallInt(fields[2]);
    if (!warp)
      return targetError("unexpected field '" + std::string(fields[2]) + "' in target '" +
                         std::string(text) + "'; expected a warp size (32) or nothing");
    if (*warp != 32)
      return targetError("warp size " + std::string(fields[2]) +
                         " is not valid for CUDA targets; CUDA warps have 32 threads");
  }
  return target;
}

// LLVM processor names: "gfx" + major (1-2 digits) + minor digit + stepping (hex digit).
bool isHipProcessor(std::string_view name) {
  if (name.size() < 6 || name.size() > 7 || name.substr(0, 3) != "gfx")
    return false;
  for (std::size_t i = 3; i + 1 < name.size(); ++i)
    if (!isDigit(name[i]))
      return false;
  char stepping = name.back();
  return isDigit(stepping) || (stepping >= 'a' && stepping <= 'f');
}

Expected<Target> parseHip(std::string_view text, const std::vector<std::string_view> &fields) {
  std::string_view processor = fields[1];
  if (!isHipProcessor(processor))
    return targetError("HIP processor '" + std::string(processor) + "' in target '" +
                       std::string(text) +
                       "' is not valid; expected gfx<version> such as gfx90a, gfx942 or gfx1100");
  Target target;
  target.backend = Backend::Hip;
  target.processor = std::string(processor);
  // As Triton's HIPOptions: gfx9 (GCN/CDNA) runs 64-thread wavefronts, gfx10 and later 32.
  int major = *parseSmallInt(processor.substr(3, processor.size() - 5));
  target.warpSize = major >= 10 ? 32 : 64;
  std::optional<int> warp;
  for (std::size_t i = 2; i < fields.size(); ++i) {
    std::string_view field = fields[i];
    if (!field.empty() && isDigit(field[0])) {
      if (warp)
        return targetError("target '" + std::string(text) +
                           "' gives a warp size twice; expected at most one");
      warp = parseSmallInt(field);
      if (!warp)
        return targetError("warp size '" + std::string(field) + "' in target '" +
                           std::string(text) + "' is not a number");
      if (*warp != target.warpSize)
        return targetError("warp size " + std::string(field) + " is not valid for " +
                           target.processor + "; Triton compiles " + target.processor + " with " +
                           std::to_string(target.warpSize) + "-thread wavefronts");
      continue;
    }
    std::string_view name = field.substr(0, field.empty() ? 0 : field.size() - 1);
    char setting = field.empty() ? 0 : field.back();
    char *slot = name == "xnack" ? &target.xnack : name == "sramecc" ? &target.sramecc : nullptr;
    if (!slot || (setting != '+' && setting != '-')) {
      if (field == "xnack" || field == "sramecc")
        return targetError("feature '" + std::string(field) + "' in target '" + std::string(text) +
                           "' needs a setting; expected " + std::string(field) + "+ or " +
                           std::string(field) + "-");
      return targetError("unexpected field '" + std::string(field) + "' in target '" +
                         std::string(text) +
                         "'; expected xnack+, xnack-, sramecc+, sramecc- or a warp size");
    }
    if (*slot)
      return targetError("feature " + std::string(name) + " is given twice in target '" +
                         std::string(text) + "'; expected it at most once");
    *slot = setting;
  }
  // LLVM's canonical target ID lists features alphabetically: sramecc before xnack.
  target.arch = target.processor;
  if (target.sramecc)
    target.arch += std::string(":sramecc") + target.sramecc;
  if (target.xnack)
    target.arch += std::string(":xnack") + target.xnack;
  return target;
}

} // namespace

const char *backendName(Backend backend) { return backend == Backend::Cuda ? "cuda" : "hip"; }

std::string Target::spelling() const { return std::string(backendName(backend)) + ":" + arch; }

std::string Target::fileTag() const {
  if (backend == Backend::Cuda)
    return "sm" + arch;
  std::string tag = arch; // ':' is not file-name safe on Windows
  for (char &c : tag)
    if (c == ':')
      c = '_';
  return tag;
}

Expected<Target> parseTarget(std::string_view text) {
  text = trim(text);
  if (text.empty())
    return targetError(std::string("empty target; ") + kExpectedForm);
  // Target fields cannot contain ':', so splitting is exact here.
  std::vector<std::string_view> fields;
  for (std::size_t start = 0;;) {
    std::size_t colon = text.find(':', start);
    fields.push_back(trim(text.substr(start, colon - start)));
    if (colon == std::string_view::npos)
      break;
    start = colon + 1;
  }
  std::string backend(fields[0]);
  if (backend != "cuda" && backend != "hip") {
    std::string message = "unknown backend '" + backend + "' in target '" + std::string(text) +
                          "'; expected cuda or hip";
    if (std::optional<std::string> guess = closestMatch(backend, {"cuda", "hip"}))
      message += " (did you mean '" + *guess + "'?)";
    return targetError(std::move(message));
  }
  if (fields.size() < 2 || fields[1].empty())
    return targetError("target '" + std::string(text) + "' has no architecture; " + kExpectedForm);
  for (std::size_t i = 2; i < fields.size(); ++i)
    if (fields[i].empty())
      return targetError("target '" + std::string(text) + "' has an empty field; " + kExpectedForm);
  return backend == "cuda" ? parseCuda(text, fields) : parseHip(text, fields);
}

} // namespace tta
