// Make-format dependency files, as GCC writes them and Ninja's depfile parser reads them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tta {

/// Escapes one path for a depfile exactly as GCC does (mkdeps.cc): a space or tab gets a
/// backslash and the backslashes directly before it are doubled ("2N+1 backslashes and a
/// space" is N backslashes and a space); '#' gets one backslash; '$' becomes "$$". Everything
/// else, ':' included, is written as is. Ninja's parser (and CMake's, which copies it) undo
/// exactly this; see depfileCanRepresent() for the paths they cannot read back.
std::string escapeDepfilePath(std::string_view path);

/// Whether Ninja reads \p path back unchanged after escapeDepfilePath(). It cannot for an empty
/// path, a path ending in ':' or '\\', a backslash before ':', or a character its lexer treats
/// as a separator (newline, tab, control characters, and * ; < > | ` ^).
bool depfileCanRepresent(std::string_view path);

/// "t1 t2: p1 \\\n  p2\n" with every path escaped. Targets and prerequisites keep their order,
/// without duplicates or empty paths. No targets: an empty string (no rule at all).
std::string formatDepfile(const std::vector<std::string> &targets,
                          const std::vector<std::string> &prerequisites);

} // namespace tta
