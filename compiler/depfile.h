// Make-format dependency files, as GCC writes them and Ninja's depfile parser reads them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tta {

/// Escapes one path for a depfile: spaces and '#' with a backslash, '$' as "$$", and backslashes
/// that precede a space or '#' doubled (GCC's rules, which Ninja follows).
std::string escapeDepfilePath(std::string_view path);

/// "t1 t2: p1 \\\n  p2\n" with every path escaped. Prerequisites keep their order, without
/// duplicates.
std::string formatDepfile(const std::vector<std::string> &targets,
                          const std::vector<std::string> &prerequisites);

} // namespace tta
