// "Did you mean" support shared by the parsers: edit distance and the closest candidate.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tta {

/// Levenshtein distance (insertions, deletions and substitutions each cost 1).
std::size_t editDistance(std::string_view a, std::string_view b);

/// The candidate \p word most likely misspells, or nullopt when none is close enough to be worth
/// suggesting. Case differences are free ("n" suggests "N"); ties go to the earlier candidate.
std::optional<std::string> closestMatch(std::string_view word,
                                        const std::vector<std::string> &candidates);

/// "a, b, c": for "expected one of" messages.
std::string joinNames(const std::vector<std::string> &names);

} // namespace tta
