// Reading a whole file, for the tools' JSON inputs (spec files, manifests, tuning tables).
#pragma once

#include "contract/diagnostic.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace tta {

/// The whole file, or none when it cannot be read.
std::optional<std::string> readFile(const std::filesystem::path &path);

/// Files between the tools (metadata, refusal records, index files, tuning tables) are a few
/// KB to a few MB; one far larger is no such file.
inline constexpr std::uint64_t kMaxToolFileBytes = std::uint64_t{64} << 20;

/// The whole file \p path, which another tool (or a person) named: a regular file of at most
/// \p maxBytes, so that a name such as /dev/zero or a FIFO is an error, not a hang. Errors are
/// UsageErrors naming \p blame (the file that named \p path; \p path itself when empty).
Expected<std::string> readToolFile(const std::filesystem::path &path, std::uint64_t maxBytes,
                                   const std::string &blame = "");

} // namespace tta
