#include "linker/c_text.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace tta::link {

std::vector<std::string> wrapWords(std::string_view text, std::size_t width, std::size_t indent) {
  const std::size_t lead =
      text.find_first_not_of(' ') == std::string_view::npos ? 0 : text.find_first_not_of(' ');
  const std::string continuation(lead + indent, ' ');
  std::vector<std::string> lines(1, std::string(text.substr(0, lead)));
  bool lineHasWord = false;
  for (std::size_t at = lead; at < text.size();) {
    std::size_t end = text.find(' ', at);
    if (end == std::string_view::npos)
      end = text.size();
    const std::string_view word = text.substr(at, end - at);
    if (lineHasWord && lines.back().size() + 1 + word.size() > width) {
      lines.push_back(continuation);
      lineHasWord = false;
    }
    if (lineHasWord)
      lines.back() += ' ';
    lines.back() += word;
    lineHasWord = true;
    at = end + 1;
  }
  return lines;
}

std::string cStringLiteral(std::string_view text) {
  std::string out = "\"";
  char previous = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '?' && previous == '?') {
      out += "\\?"; // "??=" and friends are trigraphs in older C dialects
    } else if (byte < 0x20 || byte >= 0x7f) {
      // Always three digits, so a following digit cannot extend the escape.
      out += '\\';
      out += static_cast<char>('0' + ((byte >> 6) & 7));
      out += static_cast<char>('0' + ((byte >> 3) & 7));
      out += static_cast<char>('0' + (byte & 7));
    } else {
      out += c;
    }
    previous = c;
  }
  return out + "\"";
}

std::string commentText(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n' || c == '\r') {
      out += ' ';
      continue;
    }
    out += c;
    // Split "*/" and "/*" with a space, so the comment neither ends nor nests.
    if (i + 1 < text.size() &&
        ((c == '*' && text[i + 1] == '/') || (c == '/' && text[i + 1] == '*')))
      out += ' ';
  }
  return out;
}

std::string int64Literal(std::int64_t value) {
  if (value == std::numeric_limits<std::int64_t>::min())
    return "(-INT64_C(9223372036854775807) - 1)";
  if (value < 0)
    return "(-INT64_C(" + std::to_string(-value) + "))";
  return "INT64_C(" + std::to_string(value) + ")";
}

std::optional<std::string> constexprLiteral(const nlohmann::json &value) {
  if (value.is_boolean())
    return int64Literal(value.get<bool>() ? 1 : 0);
  if (value.is_number_unsigned()) {
    const auto number = value.get<std::uint64_t>();
    if (number > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return "(int64_t)UINT64_C(" + std::to_string(number) + ")";
    return int64Literal(static_cast<std::int64_t>(number));
  }
  if (value.is_number_integer())
    return int64Literal(value.get<std::int64_t>());
  if (value.is_number_float()) {
    const double number = value.get<double>();
    if (!std::isfinite(number))
      return std::nullopt;
    char buffer[64];
    // Shortest text that reads back as the same double.
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, std::fabs(number));
    std::string text(buffer, result.ptr);
    if (text.find_first_of(".e") == std::string::npos)
      text += ".0";
    return number < 0 || std::signbit(number) ? "(-" + text + ")" : text;
  }
  return std::nullopt;
}

std::string constexprDisplay(const nlohmann::json &value) { return value.dump(); }

} // namespace tta::link
