#include "contract/field_reader.h"

#include "contract/c_names.h"

#include <algorithm>

namespace tta::fields {

using nlohmann::json;

void fail(const std::string &path, const std::string &what) {
  throw FieldError{path.empty() ? what : path + ": " + what};
}

std::string show(const json &value) {
  // Invalid UTF-8 (which no reader accepts anyway) is shown replaced rather than thrown on.
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

std::string indexPath(const std::string &path, std::size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

std::string memberPath(const std::string &path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::uint64_t readUnsigned(const json &value, const std::string &path, std::uint64_t max) {
  std::uint64_t number = 0;
  if (value.is_number_unsigned())
    number = value.get<std::uint64_t>();
  else if (value.is_number_integer() && value.get<std::int64_t>() >= 0)
    number = static_cast<std::uint64_t>(value.get<std::int64_t>());
  else
    fail(path, "expected an unsigned integer, got " + show(value));
  if (number > max)
    fail(path, show(value) + " is out of range (at most " + std::to_string(max) + ")");
  return number;
}

std::int64_t readInt64(const json &value, const std::string &path, std::int64_t min,
                       std::int64_t max) {
  if (!value.is_number_integer())
    fail(path, "expected an integer, got " + show(value));
  if (value.is_number_unsigned() && value.get<std::uint64_t>() > static_cast<std::uint64_t>(max))
    fail(path, show(value) + " is too large (at most " + std::to_string(max) + ")");
  const auto number = value.get<std::int64_t>();
  if (number > max)
    fail(path, show(value) + " is too large (at most " + std::to_string(max) + ")");
  if (number < min)
    fail(path, "expected an integer >= " + std::to_string(min) + ", got " + show(value));
  return number;
}

int readInt(const json &value, const std::string &path, int min, int max) {
  return static_cast<int>(readInt64(value, path, min, max));
}

bool readBool(const json &value, const std::string &path) {
  if (!value.is_boolean())
    fail(path, "expected true or false, got " + show(value));
  return value.get<bool>();
}

std::string readString(const json &value, const std::string &path, bool allowEmpty) {
  if (!value.is_string())
    fail(path, "expected a string, got " + show(value));
  if (!allowEmpty && value.get_ref<const std::string &>().empty())
    fail(path, "expected a non-empty string");
  return value.get<std::string>();
}

bool isOneLineText(std::string_view text, std::size_t maxLength) {
  return text.size() <= maxLength &&
         std::none_of(text.begin(), text.end(), [](char c) {
           const auto byte = static_cast<unsigned char>(c);
           return byte < 0x20 || byte == 0x7f;
         });
}

std::string readText(const json &value, const std::string &path, bool allowEmpty,
                     std::size_t maxLength) {
  std::string text = readString(value, path, allowEmpty);
  if (text.size() > maxLength)
    fail(path, "longer than " + std::to_string(maxLength) + " bytes");
  if (!isOneLineText(text, maxLength))
    fail(path, show(value) + " holds a line break or another control character");
  return text;
}

std::string readCName(const json &value, const std::string &path) {
  std::string name = readString(value, path, /*allowEmpty=*/false);
  if (std::string why = notACIdentifier(name); !why.empty())
    throw FieldError{path + ": " + why, /*notACName=*/true};
  return name;
}

const json &checkArray(const json &value, const std::string &path) {
  if (!value.is_array())
    fail(path, "expected an array, got " + show(value));
  return value;
}

const json &checkScalar(const json &value, const std::string &path) {
  if (value.is_string())
    readText(value, path, /*allowEmpty=*/true);
  else if (!value.is_number() && !value.is_boolean() && !value.is_null())
    fail(path, "expected a number, a bool, a string or null, got " + show(value));
  return value;
}

ObjectReader::ObjectReader(const json &value, std::string path)
    : value_(value), path_(std::move(path)) {
  if (!value_.is_object())
    fail(path_, "expected an object, got " + show(value_));
}

const json &ObjectReader::get(const char *key) const {
  auto it = value_.find(key);
  if (it == value_.end())
    fail(path(key), "missing required field");
  return *it;
}

const json *ObjectReader::find(const char *key) const {
  auto it = value_.find(key);
  return it == value_.end() || it->is_null() ? nullptr : &*it;
}

std::string ObjectReader::choice(const char *key,
                                 std::initializer_list<std::string_view> allowed) const {
  std::string value = string(key);
  if (std::find(allowed.begin(), allowed.end(), value) != allowed.end())
    return value;
  std::string list;
  for (std::string_view option : allowed)
    list += (list.empty() ? "" : ", ") + std::string(option);
  fail(path(key), "expected one of " + list + "; got " + show(get(key)));
}

std::vector<std::string> readCNames(const ObjectReader &obj, const char *key) {
  std::vector<std::string> out;
  const json &list = obj.array(key);
  for (std::size_t i = 0; i < list.size(); ++i)
    out.push_back(readCName(list[i], indexPath(obj.path(key), i)));
  return out;
}

} // namespace tta::fields
