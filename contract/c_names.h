// C spelling of names that reach generated code: every reader in contract/ checks with
// isCIdentifier() the names a file hands over (kernel, parameter, constexpr, heuristic names)
// before the linker writes them into C.
#pragma once

#include <string>
#include <string_view>

namespace tta {

/// [A-Za-z_][A-Za-z0-9_]*
bool isCIdentifier(std::string_view name);
/// Why \p name cannot be a name in generated C, for a reader's message ("" when it can): names
/// the value with its escapes shown, so a line break or a quote in it is visible.
std::string notACIdentifier(std::string_view name);
/// A C11 keyword, C23 keyword (bool, true, false, nullptr ...), or a C++ keyword: a name the
/// generated header (compiled as C or C++) cannot use as a parameter name.
bool isReservedInC(std::string_view name);
/// The C parameter name for a kernel parameter: the name itself, or name + "_" when reserved.
std::string cParameterName(std::string_view name);

} // namespace tta
