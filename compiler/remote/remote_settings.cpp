// RemoteCacheSettings::fromEnvironment(): the TRITON_AOT_REMOTE_CACHE* variables.
#include "compiler/remote/remote_cache.h"

#include "compiler/remote/remote_entry.h"
#include "compiler/remote/remote_url.h"

#include <openssl/rand.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <fcntl.h>
#include <unistd.h>

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

/// A secret from the file \p path that variable \p name names (one trailing newline dropped).
Expected<std::string> readSecretFile(const char *name, const std::string &path,
                                     const char *what) {
  constexpr std::size_t kMaxSecretBytes = 64 << 10;
  std::ifstream in(path, std::ios::binary);
  std::string secret(kMaxSecretBytes + 1, '\0');
  in.read(secret.data(), static_cast<std::streamsize>(secret.size()));
  if (in.bad() || (!in && !in.eof()))
    return remoteError(ExitCode::EnvironmentError, std::string(name) + "='" + path +
                                                       "': cannot read " + what + " from it");
  secret.resize(static_cast<std::size_t>(in.gcount()));
  if (secret.size() > kMaxSecretBytes)
    return remoteError(ExitCode::UsageError, std::string(name) + "='" + path +
                                                 "': over 64 KiB, too large for " + what);
  if (!secret.empty() && secret.back() == '\n')
    secret.pop_back();
  if (!secret.empty() && secret.back() == '\r')
    secret.pop_back();
  if (secret.empty())
    return remoteError(ExitCode::UsageError,
                       std::string(name) + "='" + path + "': the file is empty; write " + what +
                           " in it (a new signing key: triton-aot-cc --new-remote-cache-key FILE)");
  return secret;
}

} // namespace

Expected<RemoteCacheSettings> RemoteCacheSettings::fromEnvironment(std::string url) {
  RemoteCacheSettings settings;
  bool urlFromEnvironment = url.empty();
  settings.url = urlFromEnvironment ? env("TRITON_AOT_REMOTE_CACHE") : std::move(url);
  if (settings.url.empty())
    return settings;
  auto parsed = remote::parseRemoteUrl(settings.url);
  if (!parsed) {
    Diagnostic diag = parsed.takeError();
    if (urlFromEnvironment)
      diag.message = "TRITON_AOT_REMOTE_CACHE: " + diag.message;
    return diag;
  }

  std::string passwordFile = env("TRITON_AOT_REMOTE_CACHE_PASSWORD_FILE");
  if (!passwordFile.empty()) {
    if (parsed->scheme != remote::RemoteUrl::Scheme::Redis)
      return remoteError(ExitCode::UsageError,
                         "TRITON_AOT_REMOTE_CACHE_PASSWORD_FILE is for redis:// caches; an "
                         "http(s):// cache takes TRITON_AOT_REMOTE_CACHE_TOKEN or "
                         "TRITON_AOT_REMOTE_CACHE_BASIC_AUTH");
    if (!parsed->loneUserInfo && !parsed->password.empty())
      return remoteError(ExitCode::UsageError,
                         "the remote cache URL '" + remote::redactUrl(settings.url) +
                             "' carries a password, and TRITON_AOT_REMOTE_CACHE_PASSWORD_FILE "
                             "names another: drop the one in the URL");
    auto password = readSecretFile("TRITON_AOT_REMOTE_CACHE_PASSWORD_FILE", passwordFile,
                                   "the Redis password");
    if (!password)
      return password.takeError();
    settings.password = std::move(*password);
  } else if (!urlFromEnvironment && !parsed->password.empty()) {
    // A command line is seen by every user of the machine (ps), and CMake writes it into
    // build.ninja.
    return remoteError(ExitCode::UsageError,
                       "--remote-cache '" + remote::redactUrl(settings.url) +
                           "': a password on the command line is visible to every user of the "
                           "machine and lands in build files; put it in a file named by "
                           "TRITON_AOT_REMOTE_CACHE_PASSWORD_FILE, or the whole URL in "
                           "TRITON_AOT_REMOTE_CACHE");
  }

  std::string key = env("TRITON_AOT_REMOTE_CACHE_KEY");
  std::string keyFile = env("TRITON_AOT_REMOTE_CACHE_KEY_FILE");
  if (!key.empty() && !keyFile.empty())
    return remoteError(ExitCode::UsageError,
                       "both TRITON_AOT_REMOTE_CACHE_KEY and TRITON_AOT_REMOTE_CACHE_KEY_FILE are "
                       "set: set only one (the file keeps the key out of the environment)");
  if (!keyFile.empty()) {
    auto fromFile = readSecretFile("TRITON_AOT_REMOTE_CACHE_KEY_FILE", keyFile, "the signing key");
    if (!fromFile)
      return fromFile.takeError();
    key = std::move(*fromFile);
  }
  settings.signingKey = std::move(key);

  auto acceptUnsigned = envFlag("TRITON_AOT_REMOTE_CACHE_UNSIGNED");
  if (!acceptUnsigned)
    return acceptUnsigned.takeError();
  settings.acceptUnsigned = *acceptUnsigned;

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

Status writeNewSigningKey(const std::string &file) {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1)
    return remoteError(ExitCode::EnvironmentError, "cannot draw random bytes for a signing key");
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  for (unsigned char byte : bytes) {
    text += kDigits[byte >> 4];
    text += kDigits[byte & 15];
  }
  text += '\n';
  // O_EXCL: replacing a key makes every entry signed with it unreadable; that is a decision to
  // take by deleting the file first, never by accident.
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    return remoteError(ExitCode::OutputError,
                       "cannot create the key file '" + file + "': " + std::strerror(errno) +
                           (errno == EEXIST ? " (delete it first to replace the key: entries "
                                              "signed with the old one are then rejected)"
                                            : ""));
  ssize_t wrote = ::write(fd, text.data(), text.size());
  int error = wrote < 0 ? errno : ENOSPC;   // a short write: the disk is full
  bool written = wrote == static_cast<ssize_t>(text.size());
  if (::close(fd) != 0 && written) {
    error = errno;
    written = false;
  }
  if (!written) {
    ::unlink(file.c_str());
    return remoteError(ExitCode::OutputError,
                       "cannot write the key file '" + file + "': " + std::strerror(error));
  }
  return ok();
}

} // namespace tta
