#include "contract/c_names.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>

namespace tta {

bool isCIdentifier(std::string_view name) {
  auto identStart = [](char c) {
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  };
  auto identChar = [&](char c) { return identStart(c) || (c >= '0' && c <= '9'); };
  return !name.empty() && identStart(name.front()) && std::all_of(name.begin(), name.end(), identChar);
}

std::string notACIdentifier(std::string_view name) {
  if (isCIdentifier(name))
    return {};
  // JSON's escapes show a line break, a quote or a control byte as what it is.
  std::string shown = nlohmann::json(std::string(name)).dump(-1, ' ', false,
                                                             nlohmann::json::error_handler_t::replace);
  if (shown.size() > 60)
    shown = shown.substr(0, 57) + "...";
  return shown + " is not a C identifier (ASCII letters, digits and '_', not starting with a "
                 "digit), so it cannot be a name in generated C";
}

bool isReservedInC(std::string_view name) {
  // C11 + C23 keywords and the C++ keywords that are not already C ones (the header is also
  // compiled as C++), plus the names <stdbool.h> and <stdint.h> define as macros.
  static constexpr std::array<std::string_view, 95> kReserved = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
      "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "co_await",
      "co_return", "co_yield", "compl", "concept", "const", "const_cast", "consteval",
      "constexpr", "constinit", "continue", "decltype", "default", "delete", "do", "double",
      "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
      "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept",
      "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected", "public",
      "register", "reinterpret_cast", "requires", "restrict", "return", "short", "signed",
      "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template",
      "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename",
      "typeof", "typeof_unqual", "union", "unsigned", "using", "virtual", "void", "volatile",
      "wchar_t", "while", "xor", "xor_eq"};
  if (std::find(kReserved.begin(), kReserved.end(), name) != kReserved.end())
    return true;
  // Reserved identifiers: a leading underscore followed by a capital or another underscore.
  return name.size() >= 2 && name[0] == '_' && (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z'));
}

std::string cParameterName(std::string_view name) {
  std::string result(name);
  if (isReservedInC(name))
    result += '_';
  return result;
}

} // namespace tta
