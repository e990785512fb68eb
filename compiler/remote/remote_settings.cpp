// RemoteCacheSettings::fromEnvironment(): the TRITON_AOT_REMOTE_CACHE* variables.
#include "compiler/remote/remote_cache.h"

#include "compiler/remote/remote_entry.h"
#include "compiler/remote/remote_url.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace tta {
namespace {

using remote::remoteError;

/// The variable's value; unset and empty are the same.
std::string env(const char *name) {
  const char *value = std::getenv(name);
  return value ? value : "";
}

/// \p name's value as an integer in [\p low, \p high], or \p fallback when unset.
Expected<std::int64_t> envInteger(const char *name, std::int64_t low, std::int64_t high,
                                  std::int64_t fallback, const char *unit) {
  std::string text = env(name);
  if (text.empty())
    return fallback;
  std::size_t used = 0;
  std::int64_t value = 0;
  try {
    value = std::stoll(text, &used, 10);
  } catch (const std::exception &) {
    used = 0;
  }
  if (used != text.size() || text.front() == '+' || value < low || value > high)
    return remoteError(ExitCode::UsageError,
                       std::string(name) + "='" + text + "': expected a whole number of " + unit +
                           " from " + std::to_string(low) + " to " + std::to_string(high));
  return value;
}

Expected<bool> envFlag(const char *name) {
  std::string text = env(name);
  if (text.empty() || text == "0" || text == "false" || text == "no")
    return false;
  if (text == "1" || text == "true" || text == "yes")
    return true;
  return remoteError(ExitCode::UsageError,
                     std::string(name) + "='" + text + "': expected 1 (or true, yes) or 0");
}

} // namespace

Expected<RemoteCacheSettings> RemoteCacheSettings::fromEnvironment(std::string url) {
  RemoteCacheSettings settings;
  bool urlFromEnvironment = url.empty();
  settings.url = urlFromEnvironment ? env("TRITON_AOT_REMOTE_CACHE") : std::move(url);
  if (settings.url.empty())
    return settings;
  if (auto parsed = remote::parseRemoteUrl(settings.url); !parsed) {
    Diagnostic diag = parsed.takeError();
    if (urlFromEnvironment)
      diag.message = "TRITON_AOT_REMOTE_CACHE: " + diag.message;
    return diag;
  }

  std::string key = env("TRITON_AOT_REMOTE_CACHE_KEY");
  std::string keyFile = env("TRITON_AOT_REMOTE_CACHE_KEY_FILE");
  if (!key.empty() && !keyFile.empty())
    return remoteError(ExitCode::UsageError,
                       "both TRITON_AOT_REMOTE_CACHE_KEY and TRITON_AOT_REMOTE_CACHE_KEY_FILE are "
                       "set: set only one (the file keeps the key out of the environment)");
  if (!keyFile.empty()) {
    std::ifstream in(keyFile, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in)
      return remoteError(ExitCode::EnvironmentError,
                         "TRITON_AOT_REMOTE_CACHE_KEY_FILE='" + keyFile +
                             "': cannot read the signing key from it");
    key = text.str();
    if (!key.empty() && key.back() == '\n')
      key.pop_back();
    if (!key.empty() && key.back() == '\r')
      key.pop_back();
    if (key.empty())
      return remoteError(ExitCode::UsageError, "TRITON_AOT_REMOTE_CACHE_KEY_FILE='" + keyFile +
                                                   "': the file is empty; write the signing "
                                                   "key in it (e.g. openssl rand -hex 32)");
  }
  settings.signingKey = std::move(key);

  auto readOnly = envFlag("TRITON_AOT_REMOTE_CACHE_READ_ONLY");
  if (!readOnly)
    return readOnly.takeError();
  settings.readOnly = *readOnly;
  auto timeout = envInteger("TRITON_AOT_REMOTE_CACHE_TIMEOUT_MS", 1, 600'000,
                            settings.timeout.count(), "milliseconds");
  if (!timeout)
    return timeout.takeError();
  settings.timeout = std::chrono::milliseconds(*timeout);
  auto maxMb = envInteger("TRITON_AOT_REMOTE_CACHE_MAX_ENTRY_MB", 1, 1 << 20,
                          static_cast<std::int64_t>(settings.maxEntryBytes >> 20), "MiB");
  if (!maxMb)
    return maxMb.takeError();
  settings.maxEntryBytes = static_cast<std::uint64_t>(*maxMb) << 20;
  auto expiry = envInteger("TRITON_AOT_REMOTE_CACHE_EXPIRY_SECONDS", 0,
                           std::int64_t(100) * 365 * 24 * 3600, 0, "seconds");
  if (!expiry)
    return expiry.takeError();
  settings.expirySeconds = *expiry;

  settings.httpBearerToken = env("TRITON_AOT_REMOTE_CACHE_TOKEN");
  settings.httpBasicAuth = env("TRITON_AOT_REMOTE_CACHE_BASIC_AUTH");
  if (!settings.httpBearerToken.empty() && !settings.httpBasicAuth.empty())
    return remoteError(ExitCode::UsageError,
                       "both TRITON_AOT_REMOTE_CACHE_TOKEN and TRITON_AOT_REMOTE_CACHE_BASIC_AUTH "
                       "are set: set the one your server expects");
  if (!settings.httpBasicAuth.empty() && settings.httpBasicAuth.find(':') == std::string::npos)
    return remoteError(ExitCode::UsageError,
                       "TRITON_AOT_REMOTE_CACHE_BASIC_AUTH: expected user:password");
  return settings;
}

} // namespace tta
