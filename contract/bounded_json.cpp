#include "contract/bounded_json.h"

#include <algorithm>

namespace tta {

int jsonNestingDepth(std::string_view text, int stopAt) {
  int depth = 0, deepest = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > stopAt)
        return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

Expected<nlohmann::json> parseBoundedJson(std::string_view text, std::size_t maxBytes,
                                          int maxDepth) {
  if (text.size() > maxBytes)
    return makeError(ExitCode::UsageError, std::to_string(text.size()) +
                                               " bytes, over the limit of " +
                                               std::to_string(maxBytes));
  if (jsonNestingDepth(text, maxDepth) > maxDepth)
    return makeError(ExitCode::UsageError,
                     "nested deeper than " + std::to_string(maxDepth) + " levels");
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error &e) {
    return makeError(ExitCode::UsageError, "not JSON (at byte " + std::to_string(e.byte) + ")");
  } catch (const nlohmann::json::exception &) {
    return makeError(ExitCode::UsageError, "not JSON");
  }
}

} // namespace tta
