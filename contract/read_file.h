// Reading a whole file, for the tools' JSON inputs (spec files, manifests, tuning tables).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace tta {

/// The whole file, or none when it cannot be read.
std::optional<std::string> readFile(const std::filesystem::path &path);

} // namespace tta
