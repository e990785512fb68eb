// Remote cache URLs: redis://[user:password@]host[:port][/db] and http(s)://host[:port][/prefix].
// Internal to tta_remote_cache (and its tests).
#pragma once

#include "contract/diagnostic.h"

#include <string>

namespace tta::remote {

struct RemoteUrl {
  enum class Scheme { Redis, Http, Https };
  Scheme scheme = Scheme::Redis;
  std::string host;       ///< without the brackets of an IPv6 address
  int port = 0;           ///< the scheme's default when the URL has none
  std::string user;       ///< Redis only, percent-decoded; empty: AUTH with the password alone
  std::string password;   ///< Redis only, percent-decoded; empty: no AUTH
  /// Redis only: the user information had no ':' ("redis://secret@host"). redis-cli reads it as
  /// the password, and so does parseRemoteUrl(); with a password from a file it is the user.
  bool loneUserInfo = false;
  int database = 0;       ///< Redis only: SELECT when not 0
  std::string base;       ///< HTTP only: scheme://host:port/prefix, without a trailing '/'
};

/// \returns a UsageError naming the fix for a bad scheme, host, port, database or credentials
/// (an http(s):// URL may not carry them: they belong in the environment, out of logs).
Expected<RemoteUrl> parseRemoteUrl(const std::string &url);

/// \p url with the password of its user information replaced by "***" (all of it when it has
/// no ':', which Redis reads as a password alone).
std::string redactUrl(const std::string &url);

} // namespace tta::remote
