// Reading JSON that another process (or an old cache entry) wrote: typed lookups that never
// throw. nlohmann's value()/get() throw on a wrong type, and a library must not let that escape.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace tta {

/// The member \p key of \p object, or null when \p object is no object or lacks it.
inline const nlohmann::json *member(const nlohmann::json &object, std::string_view key) {
  if (!object.is_object())
    return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

inline std::string stringOr(const nlohmann::json &object, std::string_view key,
                            std::string fallback = {}) {
  const nlohmann::json *value = member(object, key);
  return value && value->is_string() ? value->get<std::string>() : std::move(fallback);
}

inline std::optional<long long> integerOf(const nlohmann::json &object, std::string_view key) {
  const nlohmann::json *value = member(object, key);
  if (!value || !value->is_number_integer())
    return std::nullopt;
  return value->get<long long>();
}

inline bool boolOr(const nlohmann::json &object, std::string_view key, bool fallback) {
  const nlohmann::json *value = member(object, key);
  return value && value->is_boolean() ? value->get<bool>() : fallback;
}

/// The member if it is an array (else an empty array).
inline const nlohmann::json &arrayOf(const nlohmann::json &object, std::string_view key) {
  static const nlohmann::json empty = nlohmann::json::array();
  const nlohmann::json *value = member(object, key);
  return value && value->is_array() ? *value : empty;
}

/// The member if it is an object (else an empty object).
inline const nlohmann::json &objectOf(const nlohmann::json &object, std::string_view key) {
  static const nlohmann::json empty = nlohmann::json::object();
  const nlohmann::json *value = member(object, key);
  return value && value->is_object() ? *value : empty;
}

} // namespace tta
