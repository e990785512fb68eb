// parseRemoteUrl and redactUrl (compiler/remote/remote_url.h): TRITON_AOT_REMOTE_CACHE. Beyond
// not crashing: what redactUrl shows never holds the password, whatever separators it holds.
#include "compiler/remote/remote_url.h"
#include "fuzz/fuzz_input.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  std::string url(tta::fuzz::asText(data, size));
  (void)tta::remote::parseRemoteUrl(url);
  const std::string shown = tta::remote::redactUrl(url);
  // The user information is what lies between "://" and the last '@'; its password is what
  // follows its first ':' (all of it without one, as redis-cli reads "redis://secret@host").
  const std::size_t start = url.find("://"), at = url.rfind('@');
  if (start == std::string::npos || at == std::string::npos || at < start + 3)
    return 0;
  const std::string info = url.substr(start + 3, at - start - 3);
  const std::size_t colon = info.find(':');
  const std::string secret = colon == std::string::npos ? info : info.substr(colon + 1);
  const std::string before =
      url.substr(0, start + 3) + (colon == std::string::npos ? "" : info.substr(0, colon + 1));
  const std::string after = url.substr(at);
  if (!secret.empty() && secret.find('*') == std::string::npos &&
      before.find(secret) == std::string::npos && after.find(secret) == std::string::npos &&
      shown.find(secret) != std::string::npos)
    std::abort();   // the password shows
  return 0;
}
