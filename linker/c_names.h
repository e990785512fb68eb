// C spelling of names the linker puts into generated code.
#pragma once

#include <string>
#include <string_view>

namespace tta::link {

/// [A-Za-z_][A-Za-z0-9_]*
bool isCIdentifier(std::string_view name);
/// A C11 keyword, C23 keyword (bool, true, false, nullptr ...), or a C++ keyword: a name the
/// generated header (compiled as C or C++) cannot use as a parameter name.
bool isReservedInC(std::string_view name);
/// The C parameter name for a kernel parameter: the name itself, or name + "_" when reserved.
std::string cParameterName(std::string_view name);

} // namespace tta::link
