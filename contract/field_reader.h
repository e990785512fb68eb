// The pieces every strict reader in contract/ is made of (metadata, refusal records, index
// files, compile answers, library manifests, tuning tables): one JSON field at a time, each with
// its path for the message ("launch.shared: expected an unsigned integer, got -1").
//
// A reader stops at the first problem: fail() throws a FieldError up to the reader's entry
// point, which readFields() turns into a Diagnostic. Without it every one of the many field
// reads would need its own early return. Nothing here throws past readFields().
#pragma once

#include "contract/diagnostic.h"

#include <nlohmann/json.hpp>

#include <climits>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>
#include <string_view>

namespace tta::fields {

struct FieldError {
  std::string message;
  bool notACName = false;   ///< a name that cannot be a name in generated C (readCName)
};

/// Stops the reader: "<path>: <what>" (just \p what for an empty path).
[[noreturn]] void fail(const std::string &path, const std::string &what);

/// A value as it appears in the file, shortened for a message (escapes shown).
std::string show(const nlohmann::json &value);
/// "params[2]".
std::string indexPath(const std::string &path, std::size_t index);
/// "path.key" ("key" for an empty path).
std::string memberPath(const std::string &path, std::string_view key);

std::uint64_t readUnsigned(const nlohmann::json &value, const std::string &path,
                           std::uint64_t max = UINT64_MAX);
int readInt(const nlohmann::json &value, const std::string &path, int min, int max = INT_MAX);
std::int64_t readInt64(const nlohmann::json &value, const std::string &path, std::int64_t min,
                       std::int64_t max = INT64_MAX);
bool readBool(const nlohmann::json &value, const std::string &path);
std::string readString(const nlohmann::json &value, const std::string &path, bool allowEmpty);
/// A string of one line: no control characters (a line break would end a comment or a
/// diagnostic early), at most \p maxLength bytes.
std::string readText(const nlohmann::json &value, const std::string &path, bool allowEmpty,
                     std::size_t maxLength = 4096);
/// A name the linker writes into generated C: a C identifier (contract/c_names.h).
std::string readCName(const nlohmann::json &value, const std::string &path);
/// \p value is a JSON array.
const nlohmann::json &checkArray(const nlohmann::json &value, const std::string &path);
/// \p value is a scalar: a number, a bool, a string or null (constexpr and option values).
const nlohmann::json &checkScalar(const nlohmann::json &value, const std::string &path);

/// Whether \p text is one line of at most \p maxLength bytes without control characters.
bool isOneLineText(std::string_view text, std::size_t maxLength = 4096);

/// One JSON object being read, with its path for messages ("launch", "params[2]").
class ObjectReader {
public:
  ObjectReader(const nlohmann::json &value, std::string path);

  std::string path(std::string_view key) const { return memberPath(path_, key); }
  const std::string &path() const { return path_; }

  /// A required field; null is a value here (and then usually the wrong type).
  const nlohmann::json &get(const char *key) const;
  /// An optional field: absent and null both mean "not given".
  const nlohmann::json *find(const char *key) const;

  std::string string(const char *key, bool allowEmpty = false) const {
    return readString(get(key), path(key), allowEmpty);
  }
  std::string text(const char *key, bool allowEmpty = false, std::size_t maxLength = 4096) const {
    return readText(get(key), path(key), allowEmpty, maxLength);
  }
  std::string cName(const char *key) const { return readCName(get(key), path(key)); }
  std::uint64_t uint64(const char *key, std::uint64_t max = UINT64_MAX) const {
    return readUnsigned(get(key), path(key), max);
  }
  int integer(const char *key, int min, int max = INT_MAX) const {
    return readInt(get(key), path(key), min, max);
  }
  bool boolean(const char *key) const { return readBool(get(key), path(key)); }
  const nlohmann::json &array(const char *key) const { return checkArray(get(key), path(key)); }
  ObjectReader object(const char *key) const { return ObjectReader(get(key), path(key)); }
  /// The string at \p key, which must be one of \p allowed.
  std::string choice(const char *key, std::initializer_list<std::string_view> allowed) const;
  const nlohmann::json &value() const { return value_; }

private:
  const nlohmann::json &value_;
  std::string path_;
};

/// Runs \p read, turning a FieldError into a UsageError naming \p file (may be empty).
template <class Read> auto readFields(const std::string &file, Read &&read)
    -> Expected<decltype(read())> {
  try {
    return read();
  } catch (const FieldError &error) {
    Diagnostic diag = makeError(ExitCode::UsageError, error.message);
    diag.file = file;
    return diag;
  }
}

/// \p obj's member \p key: an array of C identifiers (readCName() each).
std::vector<std::string> readCNames(const ObjectReader &obj, const char *key);

} // namespace tta::fields
