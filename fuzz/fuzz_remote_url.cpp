// parseRemoteUrl and redactUrl (compiler/remote/remote_url.h): TRITON_AOT_REMOTE_CACHE.
#include "compiler/remote/remote_url.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  std::string url(tta::fuzz::asText(data, size));
  (void)tta::remote::parseRemoteUrl(url);
  (void)tta::remote::redactUrl(url);
  return 0;
}
