// SHA-256 as the tools spell it in metadata, manifests and tuning tables: lower-case hex.
#pragma once

#include <string>
#include <string_view>

namespace tta {

/// Lower-case hex SHA-256 of \p bytes (LLVM's implementation).
std::string sha256Hex(std::string_view bytes);

} // namespace tta
