// What every fuzz target shares: the input as text, as JSON, and as a file for the parsers that
// read a path. A target never prints and never exits; it only calls the library.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace tta::fuzz {

inline std::string_view asText(const std::uint8_t *data, std::size_t size) {
  return {reinterpret_cast<const char *>(data), size};
}

/// The input parsed as JSON; discarded (is_discarded()) when it is not JSON.
inline nlohmann::json asJson(const std::uint8_t *data, std::size_t size) {
  return nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
}

/// A directory of this process's own, made once, for the parsers that take a path.
inline const std::filesystem::path &scratchDir() {
  static const std::filesystem::path dir = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "tta-fuzz-XXXXXX").string();
    const char *made = mkdtemp(pattern.data());
    return std::filesystem::path(made ? made : pattern);
  }();
  return dir;
}

/// Writes the input to \p name in scratchDir() and returns the path.
inline std::filesystem::path writeInput(const std::uint8_t *data, std::size_t size,
                                        const std::string &name) {
  std::filesystem::path path = scratchDir() / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(data), static_cast<std::streamsize>(size));
  return path;
}

} // namespace tta::fuzz
