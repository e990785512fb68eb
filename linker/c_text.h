// Spelling values as C source text: string literals, comments, 64-bit integer literals. Used by
// the code generator, which must emit valid C for any name or value a user can write.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tta::link {

/// \p text broken at spaces into lines of at most \p width characters (a longer word stays
/// whole); lines after the first start with \p indent spaces plus the first line's own leading
/// spaces.
std::vector<std::string> wrapWords(std::string_view text, std::size_t width, std::size_t indent);
/// "text" with C escapes; non-ASCII and control bytes as octal escapes, and "??" broken up so
/// no trigraph forms.
std::string cStringLiteral(std::string_view text);
/// \p text made safe inside a /* */ comment: no "*/", no "/*", no line breaks.
std::string commentText(std::string_view text);
/// An int64_t-typed literal: "INT64_C(1024)", "(-INT64_C(1))".
std::string int64Literal(std::int64_t value);
/// A JSON constexpr as a C expression the grid can use: integers and booleans as int64Literal,
/// finite floats as double literals ("0.5", "(-2.0)"); nullopt for strings and null.
std::optional<std::string> constexprLiteral(const nlohmann::json &value);
/// A JSON constexpr as the user wrote it, for documentation: 1024, -1, 0.5, true, "ieee".
std::string constexprDisplay(const nlohmann::json &value);

} // namespace tta::link
