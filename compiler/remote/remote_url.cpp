#include "compiler/remote/remote_url.h"

#include "compiler/remote/remote_entry.h"

#include <hiredis/hiredis.h>   // HIREDIS_MAJOR, for the rediss:// message

#include <algorithm>
#include <cctype>
#include <optional>

namespace tta::remote {
namespace {

constexpr const char *kForms =
    "redis://[user:password@]host[:port][/db] or http(s)://host[:port][/prefix]";

Diagnostic urlError(const std::string &url, const std::string &why) {
  return remoteError(ExitCode::UsageError,
                     "remote cache URL '" + redactUrl(url) + "': " + why);
}

bool allDigits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(),
                                      [](unsigned char c) { return std::isdigit(c); });
}

/// %XX-decoded \p text, or nothing when an escape is broken.
std::optional<std::string> percentDecode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size() || !std::isxdigit(static_cast<unsigned char>(text[i + 1])) ||
        !std::isxdigit(static_cast<unsigned char>(text[i + 2])))
      return std::nullopt;
    out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
    i += 2;
  }
  return out;
}

} // namespace

std::string redactUrl(const std::string &url) {
  std::size_t start = url.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  // The user information ends at the last '@': a password may hold '/', '?', '#' or '@'
  // unescaped, and must not show whichever it holds.
  std::size_t at = url.rfind('@');
  if (at == std::string::npos || at < start)
    return url;
  std::size_t colon = url.find(':', start);
  if (colon == std::string::npos || colon > at)
    return url.substr(0, start) + "***" + url.substr(at);   // redis://password@host
  return url.substr(0, colon + 1) + "***" + url.substr(at);
}

Expected<RemoteUrl> parseRemoteUrl(const std::string &url) {
  std::size_t sep = url.find("://");
  if (sep == std::string::npos)
    return urlError(url, std::string("not a URL: expected ") + kForms);
  std::string scheme = url.substr(0, sep);
  std::transform(scheme.begin(), scheme.end(), scheme.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  RemoteUrl parsed;
  if (scheme == "redis") {
    parsed.scheme = RemoteUrl::Scheme::Redis;
    parsed.port = 6379;
  } else if (scheme == "http") {
    parsed.scheme = RemoteUrl::Scheme::Http;
    parsed.port = 80;
  } else if (scheme == "https") {
    parsed.scheme = RemoteUrl::Scheme::Https;
    parsed.port = 443;
  } else if (scheme == "rediss") {
    return urlError(url, "rediss:// (Redis over TLS) needs hiredis with TLS, and this build's "
                         "hiredis " + std::to_string(HIREDIS_MAJOR) + '.' +
                         std::to_string(HIREDIS_MINOR) + " has none: use redis:// through a TLS "
                         "tunnel (e.g. stunnel), or an https:// cache");
  } else {
    return urlError(url, "unsupported scheme '" + scheme + "': expected " + kForms);
  }

  std::string rest = url.substr(sep + 3);
  // A Redis password may hold '/', '?' or '#' unescaped: its user information ends at the last
  // '@'. An http(s):// URL may carry none.
  std::string userInfo;
  bool hasUserInfo = false;
  if (std::size_t at = rest.rfind('@'); parsed.scheme == RemoteUrl::Scheme::Redis &&
                                        at != std::string::npos) {
    userInfo = rest.substr(0, at);
    rest = rest.substr(at + 1);
    hasUserInfo = true;
  }
  if (rest.find_first_of("?#") != std::string::npos)
    return urlError(url, "a query or fragment ('?', '#') is not supported");
  std::size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  std::string path = slash == std::string::npos ? "" : rest.substr(slash);
  if (authority.find('@') != std::string::npos)
    return urlError(url, "credentials do not belong in an http(s):// URL, which ends up in "
                         "logs: set TRITON_AOT_REMOTE_CACHE_BASIC_AUTH=user:password or "
                         "TRITON_AOT_REMOTE_CACHE_TOKEN instead");

  if (hasUserInfo) {
    std::size_t colon = userInfo.find(':');
    std::optional<std::string> user = percentDecode(userInfo.substr(0, colon));
    std::optional<std::string> password =
        percentDecode(colon == std::string::npos ? "" : userInfo.substr(colon + 1));
    if (!user || !password)
      return urlError(url, "broken %-escape in the user or password");
    parsed.loneUserInfo = colon == std::string::npos;
    if (parsed.loneUserInfo)   // redis://password@host, as redis-cli -u reads it
      std::swap(user, password);
    parsed.user = *user;
    parsed.password = *password;
  }

  std::string portText;
  if (!authority.empty() && authority.front() == '[') {
    std::size_t close = authority.find(']');
    if (close == std::string::npos)
      return urlError(url, "unclosed '[' in the host");
    parsed.host = authority.substr(1, close - 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':')
        return urlError(url, "expected ':port' after ']'");
      portText = authority.substr(close + 2);
      if (portText.empty())
        return urlError(url, "empty port: expected a number from 1 to 65535");
    }
  } else {
    std::size_t colon = authority.find(':');
    parsed.host = authority.substr(0, colon);
    if (colon != std::string::npos) {
      portText = authority.substr(colon + 1);
      if (portText.empty())
        return urlError(url, "empty port: expected a number from 1 to 65535");
    }
  }
  if (parsed.host.empty())
    return urlError(url, std::string("no host: expected ") + kForms);
  if (!portText.empty()) {
    if (!allDigits(portText) || portText.size() > 5 || std::stoi(portText) < 1 ||
        std::stoi(portText) > 65535)
      return urlError(url, "bad port '" + portText + "': expected a number from 1 to 65535");
    parsed.port = std::stoi(portText);
  }

  if (parsed.scheme == RemoteUrl::Scheme::Redis) {
    std::string db = path.empty() ? "" : path.substr(1);
    if (!db.empty()) {
      if (!allDigits(db) || db.size() > 9)
        return urlError(url, "bad database '" + db + "': expected a number, as in " +
                                 "redis://host:6379/0");
      parsed.database = std::stoi(db);
    }
    return parsed;
  }
  while (!path.empty() && path.back() == '/')
    path.pop_back();
  std::string host = parsed.host.find(':') == std::string::npos ? parsed.host
                                                                 : '[' + parsed.host + ']';
  parsed.base = scheme + "://" + host + ':' + std::to_string(parsed.port) + path;
  return parsed;
}

} // namespace tta::remote
